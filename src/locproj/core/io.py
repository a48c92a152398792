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

    Checksums: every dataset HDF5 can filter (an array of a fixed-size type) gets the Fletcher-32
    filter, which HDF5 verifies whenever anyone reads the data; the root attribute
    :data:`CHECKSUM_ATTRIBUTE`, written last, is the sha256 of the whole content (layout, attributes
    and every dataset's values, :func:`content_digest`), which :func:`reading_h5` verifies on opening.
    The sha256 covers the arrays too because Fletcher-32 sums 16-bit words modulo 65535, so a word
    flipped from 0x0000 to 0xFFFF (the high bytes of small integers, inverted) leaves it unchanged.
    """
    import io

    import h5py

    buffer = io.BytesIO()
    with h5py.File(buffer, "w", **options) as handle:
        yield _Checksummed(handle)
        handle.attrs[CHECKSUM_ATTRIBUTE] = content_digest(handle)
    with atomic_path(path) as tmp, open(tmp, "wb") as out:
        out.write(buffer.getbuffer())


#: The root attribute holding :func:`content_digest` of a file :func:`writing_h5` wrote.
CHECKSUM_ATTRIBUTE = "checksum_sha256"


class _Checksummed:
    """An h5py group whose new datasets carry the Fletcher-32 checksum wherever HDF5 can store one."""

    def __init__(self, group):
        self._group = group

    def create_dataset(self, name, shape=None, dtype=None, data=None, **options):
        import numpy as np

        if data is not None and np.ndim(data) > 0 and np.asarray(data).dtype.kind != "O":
            options.setdefault("fletcher32", True)   # HDF5 filters neither scalars nor variable-length strings
        return self._group.create_dataset(name, shape=shape, dtype=dtype, data=data, **options)

    def create_group(self, name, **options):
        return _Checksummed(self._group.create_group(name, **options))

    def __contains__(self, name) -> bool:
        return name in self._group

    def __getitem__(self, name):
        return self._group[name]

    def __getattr__(self, name):
        return getattr(self._group, name)


def content_digest(handle) -> str:
    """The sha256 of an open HDF5 file's content: the name and kind of every group and dataset (so
    that none can be removed or renamed unseen), every dataset's type, shape and values, and every
    attribute but :data:`CHECKSUM_ATTRIBUTE` of the root; names in sorted order."""
    import h5py

    digest = hashlib.sha256()
    objects = {"/": handle}

    def collect(name, obj):   # returns None: visititems stops at the first value that is not None
        objects[f"/{name}"] = obj

    handle.visititems(collect)
    for name in sorted(objects):
        obj = objects[name]
        if isinstance(obj, h5py.Dataset):
            digest.update(f"dataset {name}\n".encode() + _value_bytes(obj[()]))
        else:
            digest.update(f"group {name}\n".encode())
        for key in sorted(obj.attrs):
            if not (name == "/" and key == CHECKSUM_ATTRIBUTE):
                digest.update(f"attribute {key}\n".encode() + _value_bytes(obj.attrs[key]))
    return digest.hexdigest()


def _value_bytes(value) -> bytes:
    import numpy as np

    array = np.asarray(value)
    if array.dtype.kind == "O":
        return repr(array.tolist()).encode()
    return f"{array.dtype.str}{array.shape}".encode() + np.ascontiguousarray(array).tobytes()


class UnreadableFileError(UserError):
    """A pipeline file that exists but cannot be read: truncated, corrupt or of another layout."""


def rebuild_hint(path) -> str:
    """The command that rebuilds one pipeline output (Snakemake reruns the job that writes it)."""
    return f"rebuild it with `snakemake --cores 1 --force {path}`, then rerun your target"


def unreadable_message(path, error: BaseException, what: str = "") -> str:
    """Why a pipeline file (``what``, e.g. "dataset file ") could not be read, missing or truncated
    or corrupt or failing its checksum, and how to rebuild it."""
    if not Path(path).exists():
        state = "it does not exist"
    elif "filter returned failure" in str(error):
        state = "its data fail their Fletcher-32 checksum: the file is damaged"
    else:
        state = "it is truncated or corrupt"
    return f"cannot read {what}{path} ({type(error).__name__}: {error}): {state}; {rebuild_hint(path)}"


def verify_checksum(handle, path) -> None:
    """Raise :class:`UnreadableFileError` naming ``path`` and its fix when the open file ``handle``
    does not match its :data:`CHECKSUM_ATTRIBUTE`; a file written without one (before checksums
    were written) is read with a warning, once a process."""
    recorded = handle.attrs.get(CHECKSUM_ATTRIBUTE)
    if recorded is None:
        if not _WARNED_UNCHECKED:
            _WARNED_UNCHECKED.append(str(path))
            log.warning("%s has no checksum (written before result files carried one): read unverified; "
                        "rerun its target to rewrite such files with checksums", path)
        return
    if content_digest(handle) != (recorded.decode() if isinstance(recorded, bytes) else recorded):
        raise UnreadableFileError(f"{path} is damaged: its content does not match its checksum "
                                  f"({CHECKSUM_ATTRIBUTE}); {rebuild_hint(path)}")


_WARNED_UNCHECKED: list[str] = []


def root_attrs(handle) -> dict:
    """The root attributes of an open HDF5 file of the pipeline, without its checksum."""
    return {key: value for key, value in handle.attrs.items() if key != CHECKSUM_ATTRIBUTE}


@contextlib.contextmanager
def reading_h5(path: str | os.PathLike):
    """Open an HDF5 file written by the pipeline for reading, its checksum verified
    (:func:`verify_checksum`; the Fletcher-32 checksums of its arrays as they are read); a file that
    cannot be opened, is damaged or lacks what the reader looks up raises
    :class:`UnreadableFileError` naming it and its fix."""
    import h5py

    try:
        with h5py.File(path, "r") as handle:
            verify_checksum(handle, path)
            yield handle
    except (OSError, KeyError) as error:
        raise UnreadableFileError(unreadable_message(path, error)) from error


def file_problem(path: str | os.PathLike) -> str | None:
    """What is wrong with a pipeline HDF5 file, or None when it is whole: missing, unreadable, or
    failing a checksum (:func:`reading_h5` verifies them all, as every reader does)."""
    if not Path(path).exists():
        return f"{path}: missing; rebuild it with `snakemake --cores 1 --force {path}`, then rerun your target"
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
