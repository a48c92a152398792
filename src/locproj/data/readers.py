"""Readers turning raw benchmark files into (X, labels, image shape).

Each reader takes the dataset's config entry (its options) and the paths of its raw files, and
returns a :class:`RawData`. Images come out row-major: ``X[i].reshape(h, w)`` is upright.
"""

from __future__ import annotations

import dataclasses
import io
import re
import zipfile
from pathlib import Path

import numpy as np

from .errors import DataError
from .manifolds import generate_sine_manifold
from .toys import generate_four_clusters
from .waveform import generate_waveform

#: Formats drawn by a seeded generator rather than read from files (the seed is recorded).
GENERATED_FORMATS = ("waveform_generator", "sine_manifold_generator", "four_clusters_generator")


@dataclasses.dataclass
class RawData:
    X: np.ndarray                      # (n_samples, n_features) float64
    labels: np.ndarray | None          # raw labels (any type) or None when unlabelled
    image_shape: tuple[int, int] | None = None
    extra: dict = dataclasses.field(default_factory=dict)   # attributes to keep (e.g. partitions)


def read_dataset(name: str, spec: dict, paths: list[Path], seed: int | None = None) -> RawData:
    """Dispatch on ``spec['format']``."""
    fmt = spec.get("format")
    readers = {
        "mat": read_mat,
        "csv": read_csv,
        "image_zip": read_image_zip,
        "sklearn_digits": lambda spec, paths: read_sklearn_digits(),
        "waveform_generator": lambda spec, paths: _generated_waveform(spec, seed),
        "sine_manifold_generator": lambda spec, paths: _generated_sine_manifold(spec, seed),
        "four_clusters_generator": lambda spec, paths: _generated_four_clusters(spec, seed),
    }
    if fmt not in readers:
        raise DataError(f"dataset {name!r}: unknown format {fmt!r}; use one of {sorted(readers)}")
    try:
        return readers[fmt](spec, paths)
    except DataError as error:
        raise DataError(f"dataset {name!r}: {error}") from error


# --- MATLAB files ------------------------------------------------------------------------------


def _loadmat(path: Path) -> dict:
    import scipy.io

    try:
        return scipy.io.loadmat(path)
    except NotImplementedError as error:  # MATLAB v7.3 (HDF5) file
        raise DataError(f"{path} is a MATLAB v7.3 file, which is not supported: re-save it with -v7") from error
    except Exception as error:  # scipy raises ValueError, TypeError, OSError on corrupt files
        raise DataError(
            f"cannot read MATLAB file {path} ({type(error).__name__}: {error}); it is truncated or "
            "corrupt: delete it and run again so that it is fetched and verified afresh"
        ) from error


def _variable(contents: dict, var: str, path: Path) -> np.ndarray:
    if var not in contents:
        found = sorted(k for k in contents if not k.startswith("__"))
        raise DataError(f"{path} has no variable {var!r} (it has {found})")
    return np.asarray(contents[var])


def read_mat(spec: dict, paths: list[Path]) -> RawData:
    """Read a .mat file whose samples are the rows or columns of one or more matrices."""
    if len(paths) != 1:
        raise DataError(f"format 'mat' reads exactly one file, got {len(paths)}")
    path = paths[0]
    contents = _loadmat(path)
    blocks = [_variable(contents, v, path) for v in _as_list(spec["x_var"])]
    if spec.get("samples_in", "rows") == "columns":
        blocks = [block.T for block in blocks]
    X = np.concatenate([b.reshape(b.shape[0], -1) for b in blocks]).astype(np.float64)
    image_shape = tuple(spec["image_shape"]) if spec.get("image_shape") else None
    if image_shape is not None:
        X = to_row_major(X, image_shape, spec.get("pixel_order", "C"))
    labels = _mat_labels(spec, contents, path, len(X))
    extra = {}
    if len(blocks) > 1:
        extra["partition_sizes"] = np.array([len(b) for b in blocks])
        extra["partition_names"] = np.array(_as_list(spec["x_var"]), dtype="S")
    return RawData(X, labels, image_shape, extra)


def _mat_labels(spec: dict, contents: dict, path: Path, n: int) -> np.ndarray | None:
    if "y_var" in spec:
        labels = np.concatenate([_variable(contents, v, path).ravel() for v in _as_list(spec["y_var"])])
        labels = labels.astype(np.int64)
    elif "labels_from_index" in spec:
        labels = np.arange(n) // int(spec["labels_from_index"]) + 1
    else:
        return None
    if len(labels) != n:
        raise DataError(f"{path}: {len(labels)} labels for {n} samples")
    mapping = {int(k): int(v) for k, v in (spec.get("label_map") or {}).items()}
    return np.array([mapping.get(int(label), int(label)) for label in labels], dtype=np.int64)


def to_row_major(X: np.ndarray, image_shape: tuple[int, ...], order: str) -> np.ndarray:
    """Rewrite each row of ``X`` (an image flattened in ``order``) as a row-major flattened image.

    ``image_shape`` is any shape, e.g. ``(h, w)`` or ``(h, w, 3)`` for RGB: with ``order='F'``,
    ``X[i].reshape(image_shape, order='F')`` is the image, and the output row ``out[i]`` satisfies
    ``out[i].reshape(image_shape)`` equal to it.
    """
    shape = tuple(int(s) for s in image_shape)
    if X.shape[1] != np.prod(shape, dtype=np.int64):
        raise DataError(f"rows have {X.shape[1]} values, which is not an image of shape "
                        f"{'x'.join(map(str, shape))}")
    if order == "C":
        return np.ascontiguousarray(X)
    if order != "F":
        raise DataError(f"pixel_order must be 'C' or 'F', got {order!r}")
    # column-major: the first image index varies fastest, so a C-order reshape has the axes reversed
    reversed_axes = X.reshape(-1, *shape[::-1])
    upright = reversed_axes.transpose(0, *range(len(shape), 0, -1))
    return np.ascontiguousarray(upright.reshape(len(X), X.shape[1]))


# --- images packed in a zip archive -------------------------------------------------------------


def read_image_zip(spec: dict, paths: list[Path]) -> RawData:
    """Grey images stored one file per sample in a zip, the class in the member's path.

    ``member_pattern`` is a regular expression searched in each member name, with the groups
    ``label`` (an integer class) and ``index`` (an integer ordering the images of a class); members
    it does not match are ignored. Samples come in (label, index) order, whatever the order in the
    archive. Every image must decode (Pillow) to ``image_shape``; colour images are reduced to luma.
    """
    if len(paths) != 1:
        raise DataError(f"format 'image_zip' reads exactly one file, got {len(paths)}")
    path, pattern = paths[0], re.compile(spec["member_pattern"])
    try:
        with zipfile.ZipFile(path) as archive:
            members = sorted(
                (int(match["label"]), int(match["index"]), name)
                for name in archive.namelist() if (match := pattern.search(name))
            )
            if not members:
                raise DataError(f"{path}: no member matches member_pattern {pattern.pattern!r}")
            images = [_decode_image(archive, name, path, spec["image_shape"]) for _, _, name in members]
    except (zipfile.BadZipFile, OSError) as error:
        raise DataError(
            f"cannot read zip archive {path} ({error}); it is truncated or corrupt: delete it and run again "
            "so that it is fetched and verified afresh"
        ) from error
    X = np.stack(images).reshape(len(images), -1).astype(np.float64)
    labels = np.array([label for label, _, _ in members], dtype=np.int64)
    return RawData(X, labels, tuple(spec["image_shape"]))


def _decode_image(archive: zipfile.ZipFile, name: str, path: Path, shape) -> np.ndarray:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(archive.read(name))) as image:
            grey = np.asarray(image.convert("L"))
    except (UnidentifiedImageError, OSError) as error:
        raise DataError(f"{path}: member {name} is not a readable image ({error})") from error
    if grey.shape != tuple(shape):
        raise DataError(f"{path}: member {name} is {grey.shape[0]}x{grey.shape[1]}, not the configured "
                        f"image_shape {shape[0]}x{shape[1]}")
    return grey


# --- text files --------------------------------------------------------------------------------


def read_csv(spec: dict, paths: list[Path]) -> RawData:
    """Comma-separated numbers with the label in the first or last column; files concatenated."""
    rows = [row for path in paths for row in _csv_rows(path, spec)]
    if not rows:
        raise DataError(f"no data rows in {[str(p) for p in paths]}")
    label_index = 0 if spec.get("label_column", "last") == "first" else -1
    labels = np.array([row[label_index] for row in rows])
    features = [row[1:] if label_index == 0 else row[:-1] for row in rows]
    widths = {len(row) for row in features}
    if len(widths) != 1:
        raise DataError(f"rows have different numbers of features {sorted(widths)} in {paths}")
    try:
        X = np.array(features, dtype=np.float64)
    except ValueError as error:
        raise DataError(f"non-numeric feature value in {paths}: {error}") from error
    return RawData(X, labels, None)


def _csv_rows(path: Path, spec: dict):
    skip = tuple(spec.get("skip_prefixes", ()))
    try:
        lines = Path(path).read_text().splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise DataError(f"cannot read text file {path}: {error}") from error
    for number, line in enumerate(lines[int(spec.get("header_lines", 0)):], start=1):
        line = line.strip()
        if not line or (skip and line.startswith(skip)):
            continue
        yield [field.strip() for field in line.split(",")]


# --- built-in and generated data ---------------------------------------------------------------


def read_sklearn_digits() -> RawData:
    from sklearn.datasets import load_digits

    digits = load_digits()
    return RawData(digits.data.astype(np.float64), digits.target.astype(np.int64), (8, 8))


def _generated_waveform(spec: dict, seed: int | None) -> RawData:
    n = int(spec.get("n_samples", 5000))
    X, y = generate_waveform(n, seed=spec.get("seed", seed))
    return RawData(X, y, None)


def _generated_sine_manifold(spec: dict, seed: int | None) -> RawData:
    """Paper 004's Fig. 1(a) data (:mod:`locproj.data.manifolds`): no labels."""
    options = {key: float(spec[key]) for key in ("noise", "amplitude", "periods") if key in spec}
    X = generate_sine_manifold(int(spec.get("n_samples", 1000)), seed=spec.get("seed", seed), **options)
    return RawData(X, None, None)


def _generated_four_clusters(spec: dict, seed: int | None) -> RawData:
    """Paper 002's Fig. 1 toy (:mod:`locproj.data.toys`): labels 0 and 1."""
    options = {key: float(spec[key]) for key in ("centre",) if key in spec}
    if "noise" in spec:
        options["sd"] = float(spec["noise"])
    X, y = generate_four_clusters(int(spec.get("n_samples", 200)), seed=spec.get("seed", seed), **options)
    return RawData(X, y, None)


# --- helpers -----------------------------------------------------------------------------------


def _as_list(value) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def class_names(spec: dict, labels: np.ndarray) -> list[str]:
    """Readable names of the sorted unique raw labels: from the ``class_names`` mapping, the
    ``class_name_format`` pattern, or the labels themselves."""
    mapping = {str(k): str(v) for k, v in (spec.get("class_names") or {}).items()}
    pattern = spec.get("class_name_format", "{}")
    names = []
    for label in np.unique(labels):
        key = str(label.item() if hasattr(label, "item") else label)
        if mapping and key not in mapping:
            raise DataError(f"class_names has no entry for label {key!r}")
        names.append(mapping.get(key) or pattern.format(key))
    return names
