"""Atomic file writing and provenance shared by every stage of the pipeline."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import platform
import tempfile
from pathlib import Path

from ..errors import UserError

log = logging.getLogger(__name__)


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
    """Yield a new HDF5 file (``h5py.File`` ``options``) that appears at ``path`` only once complete,
    checksummed.

    The file is built in memory and written to disk by one Python write through
    :func:`atomic_path`, so a failing disk write (a full disk: ``OSError`` ENOSPC) reaches the
    caller as that ``OSError`` and leaves neither ``path`` nor a temporary file.  HDF5 writing to
    the disk itself does not: when a write fails early, h5py crashes in ``File.close``
    (segmentation fault) and the temporary file stays behind.

    Checksums: the file's first :data:`HEADER_BYTES` are an HDF5 user block, which HDF5 leaves to
    its user, holding the sha256 of every byte after it (:func:`verify_file` checks it whenever
    locproj opens the file); and every array HDF5 can filter (of a fixed-size type) carries the
    Fletcher-32 filter, which HDF5 checks whenever any program reads the array.
    """
    import io

    import h5py

    buffer = io.BytesIO()
    with h5py.File(buffer, "w", userblock_size=HEADER_BYTES, **options) as handle:
        yield _Checksummed(handle)
    content = buffer.getbuffer()[HEADER_BYTES:]
    header = (HEADER_MAGIC + hashlib.sha256(content).hexdigest().encode()).ljust(HEADER_BYTES, b"\0")
    with atomic_path(path) as tmp, open(tmp, "wb") as out:
        out.write(header)
        out.write(content)


#: The size of the header (an HDF5 user block) of the files :func:`writing_h5` writes.
HEADER_BYTES = 512
#: How the header starts; the sha256 of the rest of the file follows, in hex.
HEADER_MAGIC = b"locproj sha256 "


class _Checksummed:
    """An h5py group whose new datasets carry the Fletcher-32 checksum wherever HDF5 can store one."""

    def __init__(self, group):
        self._group = group

    def create_dataset(self, name, shape=None, dtype=None, data=None, **options):
        import numpy as np

        array = None if data is None else np.asarray(data)
        # HDF5 filters neither scalars nor variable-length strings; one chunk each, as they are read whole
        if array is not None and array.ndim > 0 and array.size > 0 and array.dtype.kind != "O":
            options.setdefault("fletcher32", True)
            options.setdefault("chunks", array.shape)
        return self._group.create_dataset(name, shape=shape, dtype=dtype, data=data, **options)

    def create_group(self, name, **options):
        return _Checksummed(self._group.create_group(name, **options))

    def __contains__(self, name) -> bool:
        return name in self._group

    def __getitem__(self, name):
        return self._group[name]

    def __getattr__(self, name):
        return getattr(self._group, name)


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


def verify_file(path: str | os.PathLike) -> None:
    """Check a file :func:`writing_h5` wrote against the sha256 in its header: a mismatch (bytes
    changed or cut off on disk, or the file rewritten by another program) is an
    :class:`UnreadableFileError` naming it and its fix. A file without the header (written before
    files carried one) is read with a warning, once a process. A missing file raises ``OSError``."""
    with open(path, "rb") as handle:
        data = handle.read()
    if not data.startswith(HEADER_MAGIC):
        if not _WARNED_UNCHECKED:
            _WARNED_UNCHECKED.append(str(path))
            log.warning("%s has no checksum (written before files carried one): read unverified; rerun its "
                        "target to rewrite such files with checksums", path)
        return
    recorded = data[len(HEADER_MAGIC): len(HEADER_MAGIC) + 64].decode("ascii", "replace")
    if hashlib.sha256(memoryview(data)[HEADER_BYTES:]).hexdigest() != recorded:
        raise UnreadableFileError(f"{path} is damaged: its bytes do not match the sha256 its header records (cut "
                                  f"off or changed on disk, or rewritten by another program); {rebuild_hint(path)}")


_WARNED_UNCHECKED: list[str] = []


@contextlib.contextmanager
def reading_h5(path: str | os.PathLike):
    """Open an HDF5 file written by the pipeline for reading, its checksum verified first
    (:func:`verify_file`); a file that is missing, damaged, cannot be opened or lacks what the reader
    looks up raises :class:`UnreadableFileError` naming it and its fix."""
    import h5py

    try:
        verify_file(path)
        with h5py.File(path, "r") as handle:
            yield handle
    except (OSError, KeyError) as error:
        raise UnreadableFileError(unreadable_message(path, error)) from error


def file_problem(path: str | os.PathLike) -> str | None:
    """What is wrong with a pipeline HDF5 file, or None when it is whole: missing, unreadable, or
    failing a checksum (:func:`reading_h5` verifies them all, as every reader does)."""
    if not Path(path).exists():
        return f"{path}: missing; {rebuild_hint(path)}"
    try:
        with reading_h5(path):
            return None
    except UnreadableFileError as error:
        return str(error)


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
