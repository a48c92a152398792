"""Atomic file writing and provenance shared by every stage of the pipeline."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import platform
import tempfile
from pathlib import Path

from ..errors import UserError


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike):
    """Yield a temporary path next to ``path``; rename it onto ``path`` only on success.

    An interrupted or failing writer leaves no file at ``path`` (and no temporary file either).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def writing_h5(path: str | os.PathLike, **options):
    """Yield a new HDF5 file (``h5py.File`` ``options``) that appears at ``path`` only once complete.

    The file is built in memory and written to disk by one Python write through
    :func:`atomic_path`, so a failing disk write (a full disk: ``OSError`` ENOSPC) reaches the
    caller as that ``OSError`` and leaves neither ``path`` nor a temporary file.  HDF5 writing to
    the disk itself does not: when a write fails early, h5py crashes in ``File.close``
    (segmentation fault) and the temporary file stays behind.
    """
    import io

    import h5py

    buffer = io.BytesIO()
    with h5py.File(buffer, "w", **options) as handle:
        yield handle
    with atomic_path(path) as tmp, open(tmp, "wb") as out:
        out.write(buffer.getbuffer())


class UnreadableFileError(UserError):
    """A pipeline file that exists but cannot be read: truncated, corrupt or of another layout."""


def rebuild_hint(path) -> str:
    """The command that rebuilds one pipeline output (Snakemake reruns the job that writes it)."""
    return f"rebuild it with `snakemake --cores 1 --force {path}`, then rerun your target"


def unreadable_message(path, error: BaseException, what: str = "") -> str:
    """Why a pipeline file (``what``, e.g. "dataset file ") could not be read, missing or truncated
    or corrupt, and how to rebuild it."""
    state = "it does not exist" if not Path(path).exists() else "it is truncated or corrupt"
    return f"cannot read {what}{path} ({type(error).__name__}: {error}): {state}; {rebuild_hint(path)}"


@contextlib.contextmanager
def reading_h5(path: str | os.PathLike):
    """Open an HDF5 file written by the pipeline for reading; a file that cannot be opened or
    lacks what the reader looks up raises :class:`UnreadableFileError` naming it and its fix."""
    import h5py

    try:
        with h5py.File(path, "r") as handle:
            yield handle
    except (OSError, KeyError) as error:
        raise UnreadableFileError(unreadable_message(path, error)) from error


def sha256_file(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(chunk), b""):
            digest.update(block)
    return digest.hexdigest()


def config_json(config) -> str:
    """Canonical JSON of a configuration (sorted keys, no spaces): what :func:`config_hash` hashes."""
    return json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)


def config_hash(config) -> str:
    """Stable short hash of a JSON-serialisable configuration (key order does not matter)."""
    return hashlib.sha256(config_json(config).encode()).hexdigest()[:16]


def package_versions() -> dict[str, str]:
    """Versions of the packages a result depends on, for provenance attributes."""
    from importlib.metadata import PackageNotFoundError, version

    names = ["locproj", "numpy", "scipy", "scikit-learn", "h5py", "pandas", "snakemake"]
    versions = {"python": platform.python_version()}
    for name in names:
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            versions[name] = "absent"
    return versions


#: The digest of the code the job of this process runs (set from its rule's params by
#: :func:`locproj.workflow.run_rule`; :mod:`locproj.engine.code_digests`).
_JOB_CODE: list[str] = []


def set_job_code(digest: str | None) -> None:
    """Record the code digest of the job this process runs, for its result files' provenance."""
    _JOB_CODE[:] = [digest] if digest else []


@functools.lru_cache(maxsize=None)
def git_state(folder: str = ".") -> dict[str, str]:
    """``{"git_commit", "git_dirty"}`` of the checkout ``folder`` is in (a tracked file changed:
    ``"true"``), or ``{}`` outside a git checkout."""
    import subprocess

    def git(*args):
        return subprocess.run(["git", "-C", folder, *args], capture_output=True, text=True, timeout=30, check=True)

    try:
        commit = git("rev-parse", "HEAD").stdout.strip()
        dirty = bool(git("status", "--porcelain", "--untracked-files=no").stdout.strip())
    except (OSError, subprocess.SubprocessError):
        return {}
    return {"git_commit": commit, "git_dirty": str(dirty).lower()}


def code_provenance() -> dict[str, str]:
    """What names the code that made a result: the job's code digest (``code_digest``) and the git
    commit with its dirty flag, where known. Provenance, not results."""
    return {**({"code_digest": _JOB_CODE[0]} if _JOB_CODE else {}), **git_state()}


def provenance_attrs(config=None, seed=None) -> dict[str, str]:
    """Attributes recording how a result file was made (store them on the HDF5 root).

    ``config`` (a job's configuration, :func:`locproj.experiments.job_config`) is stored whole as
    ``config_json`` (JSON, so the file names everything needed to rerun its job) and as its
    ``config_hash``. The package versions (``version_*``) and the code (:func:`code_provenance`)
    are recorded too.
    """
    attrs = {f"version_{k}": v for k, v in package_versions().items()}
    attrs.update(code_provenance())
    if config is not None:
        attrs["config_json"] = config_json(config)
        attrs["config_hash"] = config_hash(config)
    if seed is not None:
        attrs["seed"] = str(seed)
    return attrs
