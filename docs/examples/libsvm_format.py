"""The worked example of docs/data-formats.md: a reader of LIBSVM / SVMlight text files.

One sample a line, ``label index:value index:value ...`` with 1-based feature indices, features not
listed being 0; ``#`` starts a comment. To make it part of locproj: this file as
``src/locproj/data/libsvm.py``, one entry of ``FORMATS`` in ``src/locproj/data/readers.py``
(``"libsvm": Format(read_libsvm, ("n_features",), suffixes=(".libsvm",))``) and its row in the
docs' table of formats; the config schema needs no edit.
tests/test_formats.py registers it at run time and reads a small file through ``read_dataset``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from locproj.data.errors import DataError
from locproj.data.raw import RawData


def read_libsvm(spec: dict, paths: list[Path]) -> RawData:
    """LIBSVM files, concatenated: integer labels; ``n_features`` (default: the largest index)."""
    labels, rows, locations = [], [], []
    for path in paths:
        for number, line in enumerate(Path(path).read_text().splitlines(), start=1):
            fields = line.split("#", 1)[0].split()
            if not fields:
                continue
            where = f"{path}, line {number}"
            try:
                label = float(fields[0])
                pairs = {int(i): float(v) for i, v in (field.split(":") for field in fields[1:])}
            except ValueError:
                raise DataError(f"{where}: {line.strip()!r} is not 'label index:value ...'; "
                                "fix: write one sample a line in LIBSVM format") from None
            if not label.is_integer() or min(pairs, default=1) < 1:
                raise DataError(f"{where}: the label must be an integer and the indices start at 1")
            labels.append(int(label))
            rows.append(pairs)
            locations.append(where)
    if not rows:
        raise DataError(f"no samples in {', '.join(map(str, paths))}; fix: give a LIBSVM file as `path:`")
    largest = max(max(row, default=0) for row in rows)
    n_features = int(spec.get("n_features", largest))
    if n_features < largest:
        raise DataError(f"a sample has feature {largest}, but n_features is {n_features}; fix: raise n_features")
    X = np.zeros((len(rows), n_features))
    for i, row in enumerate(rows):
        for index, value in row.items():
            X[i, index - 1] = value
    return RawData(X, np.array(labels, dtype=np.int64), None, {}, locations)
