"""Fingerprint of what the pipeline computed under a results folder, one line per item.

    python .ci/fingerprint.py results > fingerprint.tsv

Each line is ``path<TAB>item<TAB>sha256``, sorted:

- every table and text result (``*.csv``, ``*.md``, ``*.tex``, ``*.yaml``): its bytes; in
  ``metadata.yaml`` the ``versions``, ``code`` and ``timing`` blocks are left out (package versions
  and the code's commit are provenance, the jobs' seconds are measured: none is a result);
- every result HDF5 file: each array (dtype, shape and bytes) and each attribute (its value's
  repr), one line each, so a difference names the array or attribute that moved.

Left out as measured rather than computed: the ranks' ``timing.*``, any array or attribute whose
name ends in ``seconds``, the ``version_*`` attributes and those naming the code (``code_digest``,
``git_commit``, ``git_dirty``); the file's own checksum (``checksum_sha256``, which covers those
too; the arrays' Fletcher-32 checksums are no values); and figures (``*.png``, ``*.pdf``) and logs.
Two runs of the same workflow that computed the same results give the same lines.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import h5py
import numpy as np
import yaml

MEASURED_FILES = ("timing.csv", "timing.md")
#: What names the code that made a result (locproj.core.io.code_provenance): provenance, which
#: moves with every commit, not a result.
PROVENANCE_OF_CODE = ("code_digest", "git_commit", "git_dirty")
#: A result file's checksum (locproj.core.io.CHECKSUM_ATTRIBUTE): it covers the measured attributes too.
CHECKSUM = "checksum_sha256"
SKIPPED_SUFFIXES = (".png", ".pdf", ".log", ".tmp")


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def measured(name: str) -> bool:
    leaf = name.rsplit("/", 1)[-1]
    return leaf.endswith("seconds") or leaf.startswith("version_") or leaf in (*PROVENANCE_OF_CODE, CHECKSUM)


def array_bytes(value) -> bytes:
    array = np.asarray(value)
    if array.dtype.kind == "O":
        return repr(array.tolist()).encode()
    return f"{array.dtype.str}{array.shape}".encode() + np.ascontiguousarray(array).tobytes()


def h5_lines(path: Path, handle) -> list[tuple[str, str, str]]:
    lines = []

    def attributes(prefix, obj):
        for name, value in sorted(obj.attrs.items()):
            if not measured(name):
                lines.append((str(path), f"{prefix}@{name}", digest(array_bytes(value))))

    attributes("/", handle)

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset) and not measured(name):
            lines.append((str(path), name, digest(array_bytes(obj[()]))))
        attributes(name, obj)

    handle.visititems(visit)
    return lines


def file_lines(path: Path) -> list[tuple[str, str, str]]:
    if path.suffix == ".h5":
        with h5py.File(path, "r") as handle:
            return h5_lines(path, handle)
    if path.name == "metadata.yaml":
        metadata = yaml.safe_load(path.read_text())
        metadata.pop("versions", None)
        metadata.pop("code", None)
        metadata.pop("timing", None)
        return [(str(path), "", digest(yaml.safe_dump(metadata, sort_keys=True).encode()))]
    return [(str(path), "", digest(path.read_bytes()))]


def fingerprint(root: Path) -> list[tuple[str, str, str]]:
    lines = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.name.startswith(".") or path.suffix in SKIPPED_SUFFIXES:
            continue
        if path.name in MEASURED_FILES or "figures" in path.relative_to(root).parts:
            continue
        lines.extend(file_lines(path))
    return sorted(lines)


if __name__ == "__main__":
    for line in fingerprint(Path(sys.argv[1] if len(sys.argv) > 1 else "results")):
        print("\t".join(line))
