"""Where a dataset's raw data come from: files fetched into ``data/raw/`` (``files:``), or the user's
own file or folder (``path:``), read where it is.

A ``path:`` is a string or a list of strings (``npy``: the features, then the labels); a relative
path is resolved against the working directory (where Snakemake runs). A folder stands for the files
in it, at any depth, except those whose name (or a parent folder's name below it) starts with
``.``. The workflow declares these files as the inputs of the dataset's ``prepare`` job, so a changed,
added or removed file reruns it and everything computed from it; ``prepare`` records the checksum of
each path in the dataset's provenance (:func:`sha256_path`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..core.io import sha256_file
from .errors import DataError


def local_paths(spec: dict) -> list[Path]:
    """The configured ``path:`` entries of a dataset, as given (relative stays relative)."""
    value = spec["path"]
    return [Path(p).expanduser() for p in (value if isinstance(value, (list, tuple)) else [value])]


def visible_files(folder: Path) -> list[Path]:
    """Every file under ``folder`` (at any depth) whose path below it has no part starting with
    ``.``, sorted by that path."""
    folder = Path(folder)
    return sorted(
        (p for p in folder.rglob("*") if p.is_file() and not any(
            part.startswith(".") for part in p.relative_to(folder).parts)),
        key=lambda p: p.relative_to(folder).as_posix(),
    )


def local_files(spec: dict) -> list[str]:
    """The files a ``path:`` dataset reads: each file path, and every visible file of each folder."""
    files = []
    for path in local_paths(spec):
        files += [str(p) for p in visible_files(path)] if path.is_dir() else [str(path)]
    return files


def check_exists(name: str, spec: dict) -> None:
    """Every configured path exists, or an error naming it, the working directory and the fix."""
    for path in local_paths(spec):
        if not path.exists():
            raise DataError(
                f"dataset {name!r}: {path} does not exist (a relative path is read from the working directory, "
                f"{Path.cwd()}); fix: correct `datasets.{name}.path` or run snakemake from the folder it is relative to"
            )


def sha256_path(path: str | Path) -> str:
    """sha256 of a file's bytes; for a folder, sha256 of the lines ``<relative path>\\0<file sha256>\\n``
    over its visible files (:func:`visible_files`) in sorted order: renaming, adding, removing or
    changing any file changes it."""
    path = Path(path)
    if not path.is_dir():
        return sha256_file(path)
    digest = hashlib.sha256()
    for file in visible_files(path):
        digest.update(f"{file.relative_to(path).as_posix()}\0{sha256_file(file)}\n".encode())
    return digest.hexdigest()


def verify_pinned(name: str, spec: dict, checksums: list[str]) -> None:
    """A ``path:`` dataset's optional ``sha256:`` (one per path) against the checksums found."""
    if "sha256" not in spec:
        return
    pinned = spec["sha256"] if isinstance(spec["sha256"], (list, tuple)) else [spec["sha256"]]
    paths = local_paths(spec)
    if len(pinned) != len(paths):
        raise DataError(f"dataset {name!r}: {len(pinned)} sha256 for {len(paths)} paths; fix: give one per path")
    for path, expected, actual in zip(paths, pinned, checksums):
        if expected != actual:
            raise DataError(
                f"dataset {name!r}: {path} has sha256 {actual}, not the pinned {expected}: it has changed since it "
                f"was pinned. Fix: if the change is intended, set `datasets.{name}.sha256` to the new value (or "
                "remove the key); otherwise restore the file"
            )
