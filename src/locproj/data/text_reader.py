"""The ``csv`` and ``tsv`` formats (:data:`locproj.data.readers.FORMATS`): delimited text, one
sample a line, the label in a column given by name or index; quoted fields, header lines, comment
prefixes and ignored columns; errors name the file, the line and the column, and the fix."""

from __future__ import annotations

import csv
import difflib
from pathlib import Path

import numpy as np

from .errors import DataError
from .raw import RawData, to_row_major

#: The options of :func:`read_csv` (both formats), besides :data:`locproj.data.readers.COMMON_OPTIONS`.
TEXT_OPTIONS = ("label_column", "header", "delimiter", "ignore_columns", "header_lines", "skip_prefixes",
                "image_shape", "pixel_order")


def read_csv(spec: dict, paths: list[Path]) -> RawData:
    """Delimited text, one sample a line, the label in one column; several files are concatenated.

    Options: ``delimiter`` (``,`` for ``csv``, a tab for ``tsv``; or any one character, or
    ``whitespace`` for runs of blanks); ``header`` (the first line after ``header_lines`` skipped
    lines holds column names; default: true when ``label_column`` is a name); ``label_column``
    (``first``, ``last`` (the default), a 0-based index, negative from the end, or a column name);
    ``ignore_columns`` (names or indices of columns that are neither label nor feature, e.g. an id);
    ``skip_prefixes`` (lines starting with one of them are skipped). Fields may be quoted.
    """
    if not paths:
        raise DataError("no file to read: give the CSV file as `path:`")
    table = [_csv_table(Path(path), spec) for path in paths]
    columns = table[0][0]
    for path, (other, _, _) in zip(paths[1:], table[1:]):
        if other != columns:
            raise DataError(f"{path} has the columns {other}, but {paths[0]} has {columns}; fix: give every file "
                            "the same columns")
    rows = [(path, number, fields) for path, (_, lines, fieldss) in zip(paths, table)
            for number, fields in zip(lines, fieldss)]
    if not rows:
        raise DataError(f"no data rows in {', '.join(str(p) for p in paths)}")
    width = len(columns) if columns is not None else len(rows[0][2])
    label, ignored = _label_and_ignored_columns(spec, columns, width, rows[0])
    keep = [j for j in range(width) if j != label and j not in ignored]
    for path, number, fields in rows:
        if len(fields) != width:
            raise DataError(
                f"{path}, line {number}: {len(fields)} fields, but {width} in "
                f"{'the header' if columns is not None else f'line {rows[0][1]}'}; fix: give every line the same "
                f"columns (delimiter {_delimiter_name(spec)!r}; set `delimiter:` if the file uses another)"
            )
        if not fields[label]:
            raise DataError(f"{path}, line {number}: the label ({_column_name(columns, label)}) is empty; "
                            "fix: give the sample its class, or delete the line")
    labels = np.array([fields[label] for _, _, fields in rows])
    X = _csv_features(rows, keep, columns, spec)
    locations = [f"{path}, line {number}" for path, number, _ in rows]
    image_shape = tuple(spec["image_shape"]) if spec.get("image_shape") else None
    if image_shape is not None:
        X = to_row_major(X, image_shape, spec.get("pixel_order", "C"))
    return RawData(X, labels, image_shape, {}, locations)


def _delimiter_name(spec: dict) -> str:
    return spec.get("delimiter", "\t" if spec.get("format") == "tsv" else ",")


def _split_line(line: str, delimiter: str) -> list[str]:
    if delimiter == "whitespace":
        return line.split()
    return [field.strip() for field in next(csv.reader([line], delimiter=delimiter))]


def _csv_table(path: Path, spec: dict):
    """(column names or None, line numbers, fields of each data line) of one file."""
    skip = tuple(spec.get("skip_prefixes", ()))
    delimiter = {"\\t": "\t", "tab": "\t"}.get(_delimiter_name(spec), _delimiter_name(spec))
    if delimiter != "whitespace" and len(delimiter) != 1:
        raise DataError(f"delimiter {delimiter!r} is not one character; fix: give one character or 'whitespace'")
    try:
        lines = Path(path).read_text().splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise DataError(f"cannot read text file {path}: {error}; fix: give a readable UTF-8 text file") from error
    columns, numbers, rows = None, [], []
    header = _has_header(spec)
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if number <= int(spec.get("header_lines", 0)) or not stripped or (skip and stripped.startswith(skip)):
            continue
        try:
            fields = _split_line(line, delimiter)
        except csv.Error as error:
            raise DataError(f"{path}, line {number}: {error}; fix: close the quote or remove it") from error
        if header and columns is None:
            columns = fields
            continue
        numbers.append(number)
        rows.append(fields)
    if header and columns is None:
        raise DataError(f"{path} has no header line; fix: set `header: false` and give `label_column` as an index")
    return columns, numbers, rows


def _has_header(spec: dict) -> bool:
    named = isinstance(spec.get("label_column"), str) and spec["label_column"] not in ("first", "last")
    return bool(spec.get("header", named))


def _label_and_ignored_columns(spec: dict, columns, width: int, first_row) -> tuple[int, set[int]]:
    label = spec.get("label_column", "last")
    label_index = _column_index(label, columns, width, "label_column", first_row,
                                {"first": 0, "last": width - 1})
    ignored = {_column_index(c, columns, width, "ignore_columns", first_row, {})
               for c in spec.get("ignore_columns", ())}
    if label_index in ignored:
        raise DataError(f"column {_column_name(columns, label_index)} is both the label and in ignore_columns; "
                        "fix: remove it from ignore_columns")
    return label_index, ignored


def _column_index(key, columns, width: int, option: str, first_row, keywords: dict) -> int:
    path, number, _ = first_row
    if isinstance(key, str) and key in keywords:
        return keywords[key]
    if isinstance(key, bool) or not isinstance(key, (int, str)):
        raise DataError(f"{option} {key!r} is neither a column name nor an index")
    if isinstance(key, int):
        if not -width <= key < width:
            raise DataError(f"{path}: {option} {key} is not a column: line {number} has {width} columns "
                            f"(indices 0 to {width - 1}, or -1 to {-width} from the end); "
                            "fix: give an index in that range")
        return key % width
    if columns is None:
        raise DataError(f"{path}: {option} {key!r} names a column, but the file is read without a header "
                        "(`header: false`); fix: set `header: true` if the first line holds column names, or give "
                        "the column's 0-based index")
    if key not in columns:
        close = difflib.get_close_matches(key, columns, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise DataError(f"{path}: {option} {key!r} is not a column of the header{hint}; the columns are "
                        f"{', '.join(repr(c) for c in columns)}. Fix: set `{option}:` to one of them")
    return columns.index(key)


def _column_name(columns, index: int) -> str:
    return f"column {columns[index]!r}" if columns is not None else f"column {index}"


def _csv_features(rows, keep: list[int], columns, spec: dict) -> np.ndarray:
    features = [[fields[j] for j in keep] for _, _, fields in rows]
    try:
        return np.array(features, dtype=np.float64).reshape(len(rows), len(keep))
    except ValueError:
        pass
    for (path, number, _), values in zip(rows, features):
        for j, value in zip(keep, values):
            try:
                float(value)
            except ValueError:
                header_hint = ("; if this line holds column names, set `header: true`"
                               if number == rows[0][1] and columns is None else "")
                raise DataError(
                    f"{path}, line {number}, {_column_name(columns, j)}: {value!r} is not a number. Fix: correct "
                    f"or impute the value, delete the line, or list the column in `ignore_columns` if it is not a "
                    f"feature{header_hint}"
                ) from None
    raise DataError(f"non-numeric feature values in {rows[0][0]}")  # pragma: no cover (a value fails above)
