"""Readers turning raw benchmark files (or a user's own files) into (X, labels, image shape).

Each reader takes the dataset's config entry (its options) and the paths of its raw files, and
returns a :class:`RawData`. Images come out row-major: ``X[i].reshape(h, w)`` is upright. The
``format`` key picks the reader; :data:`READER_OPTIONS` lists the options each one takes
(:func:`check_options` refuses any other key, naming the ones it takes). A reader validates what it
reads and raises :class:`DataError` naming the file, the line, sample or image, and the fix.

===================  ================================================================================
format               reads
===================  ================================================================================
``csv``, ``tsv``     delimited text, one sample a line, the label in a column given by name or index
``npz``, ``npy``     one ``.npz`` holding ``X`` and ``y`` (other keys with ``x_key``/``y_key``), or two
                     ``.npy`` files, features then labels
``mat``              MATLAB (v7 or older): samples in rows or columns of named variables, any pixel order
``image_folder``     a folder with one subfolder per class, images in any format Pillow reads
``image_zip``        images in a zip archive, the class and order from each member's name
===================  ================================================================================
"""

from __future__ import annotations

import csv
import dataclasses
import difflib
import io
import re
import zipfile
from pathlib import Path

import numpy as np

from .errors import DataError
from .manifolds import generate_sine_manifold
from .toys import generate_circles, generate_four_clusters, generate_two_moons
from .waveform import generate_waveform

#: Formats drawn by a seeded generator rather than read from files (the seed is recorded).
GENERATED_FORMATS = ("waveform_generator", "sine_manifold_generator", "four_clusters_generator",
                     "two_moons_generator", "circles_generator")


#: Keys any dataset entry may have, whatever its format.
COMMON_OPTIONS = ("description", "optional", "note", "format", "files", "path", "sha256", "class_names",
                  "class_name_format", "content_sha256")

_TEXT_OPTIONS = ("label_column", "header", "delimiter", "ignore_columns", "header_lines", "skip_prefixes",
                 "image_shape", "pixel_order")

#: The options each format's reader takes, besides :data:`COMMON_OPTIONS`.
READER_OPTIONS: dict[str, tuple[str, ...]] = {
    "csv": _TEXT_OPTIONS,
    "tsv": _TEXT_OPTIONS,
    "npz": ("x_key", "y_key", "image_shape", "pixel_order"),
    "npy": ("image_shape", "pixel_order"),
    "mat": ("x_var", "y_var", "samples_in", "image_shape", "pixel_order", "labels_from_index", "label_map"),
    "image_folder": ("image_shape",),
    "image_zip": ("member_pattern", "image_shape"),
    "sklearn_digits": (),
    "waveform_generator": ("n_samples", "seed"),
    "sine_manifold_generator": ("n_samples", "seed", "noise", "amplitude", "periods"),
    "four_clusters_generator": ("n_samples", "seed", "noise", "centre"),
    "two_moons_generator": ("n_samples", "seed", "noise"),
    "circles_generator": ("n_samples", "seed", "noise", "factor"),
}

#: Formats that read files the user has (a ``path:``) or the pipeline fetches (``files:``).
FILE_FORMATS = ("csv", "tsv", "npz", "npy", "mat", "image_folder", "image_zip")


@dataclasses.dataclass
class RawData:
    X: np.ndarray                      # (n_samples, n_features) float64
    labels: np.ndarray | None          # raw labels (any type) or None when unlabelled
    image_shape: tuple[int, int] | None = None
    extra: dict = dataclasses.field(default_factory=dict)   # attributes to keep (e.g. partitions)
    #: where each sample comes from (file and line, or image), for messages; not stored
    locations: list[str] | None = dataclasses.field(default=None, repr=False)

    def where(self, rows, limit: int = 5) -> str:
        """The first ``limit`` of ``rows`` (sample positions) as their file lines or images."""
        rows = [int(r) for r in rows]
        shown = [self.locations[r] if self.locations else f"sample {r}" for r in rows[:limit]]
        more = f" and {len(rows) - limit} more" if len(rows) > limit else ""
        return "; ".join(shown) + more


def check_options(name: str, spec: dict) -> None:
    """Refuse an unknown format or a key that the dataset's format does not take, naming the keys it
    takes; and a source that does not fit the format (``path:`` or ``files:``, not both)."""
    fmt = spec.get("format")
    where = f"datasets.{name}"
    if fmt not in READER_OPTIONS:
        raise DataError(f"{where}: unknown format {fmt!r}; set `format:` to one of {', '.join(READER_OPTIONS)}")
    allowed = set(COMMON_OPTIONS) | set(READER_OPTIONS[fmt])
    for key in spec:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), sorted(allowed), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            takes = ", ".join(READER_OPTIONS[fmt]) or "no options of its own"
            raise DataError(
                f"{where}: unknown key {key!r}{hint} for format {fmt!r}. Format {fmt!r} takes {takes}; "
                f"every dataset may also have {', '.join(COMMON_OPTIONS)}. Fix: rename or remove {key!r}."
            )
    if "path" in spec and "files" in spec:
        raise DataError(f"{where}: give either `path:` (a local file or folder) or `files:` (files to fetch), not both")
    if fmt not in FILE_FORMATS and ("path" in spec or "files" in spec):
        raise DataError(f"{where}: format {fmt!r} reads no files; remove `path:` and `files:`")
    if fmt in FILE_FORMATS and "path" not in spec and "files" not in spec:
        raise DataError(f"{where}: format {fmt!r} reads files: add `path:` (your local file or folder)")
    if fmt == "image_folder" and "path" not in spec:
        raise DataError(f"{where}: format 'image_folder' reads a local folder: give it as `path:`")
    if "sha256" in spec and "path" not in spec:
        raise DataError(f"{where}: `sha256:` pins a local `path:`; fetched `files:` have a sha256 each")


def read_dataset(name: str, spec: dict, paths: list[Path], seed: int | None = None) -> RawData:
    """Dispatch on ``spec['format']``."""
    fmt = spec.get("format")
    readers = {
        "mat": read_mat,
        "csv": read_csv,
        "tsv": read_csv,
        "npz": read_npz,
        "npy": read_npy,
        "image_folder": read_image_folder,
        "image_zip": read_image_zip,
        "sklearn_digits": lambda spec, paths: read_sklearn_digits(),
        "waveform_generator": lambda spec, paths: _generated_waveform(spec, seed),
        "sine_manifold_generator": lambda spec, paths: _generated_sine_manifold(spec, seed),
        "four_clusters_generator": lambda spec, paths: _generated_four_clusters(spec, seed),
        "two_moons_generator": lambda spec, paths: _generated_two_moons(spec, seed),
        "circles_generator": lambda spec, paths: _generated_circles(spec, seed),
    }
    if fmt not in readers:
        raise DataError(f"dataset {name!r}: unknown format {fmt!r}; use one of {sorted(readers)}")
    try:
        return readers[fmt](spec, paths)
    except DataError as error:
        raise DataError(f"dataset {name!r}: {error}") from error


def scan_dataset(name: str, spec: dict, paths: list[Path]) -> RawData:
    """What the start-up checks need: the labels and where each sample is, validated. A folder of
    images is scanned without decoding (sizes from the image headers; ``X`` has no columns); other
    formats are read whole."""
    if spec.get("format") == "image_folder":
        try:
            return read_image_folder(spec, paths, decode=False)
        except DataError as error:
            raise DataError(f"dataset {name!r}: {error}") from error
    return read_dataset(name, spec, paths)


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
    X = _numeric(np.concatenate([b.reshape(b.shape[0], -1) for b in blocks]), f"{path}, variable(s) {spec['x_var']}",
                 fix="store the features as a numeric matrix")
    image_shape = tuple(spec["image_shape"]) if spec.get("image_shape") else None
    if image_shape is not None:
        X = to_row_major(X, image_shape, spec.get("pixel_order", "C"))
    labels = _mat_labels(spec, contents, path, len(X))
    extra = {}
    if len(blocks) > 1:
        extra["partition_sizes"] = np.array([len(b) for b in blocks])
        extra["partition_names"] = np.array(_as_list(spec["x_var"]), dtype="S")
    locations = [f"{path}, sample {i}" for i in range(len(X))]
    return RawData(X, labels, image_shape, extra, locations)


def _mat_labels(spec: dict, contents: dict, path: Path, n: int) -> np.ndarray | None:
    if "y_var" in spec:
        labels = np.concatenate([_variable(contents, v, path).ravel() for v in _as_list(spec["y_var"])])
        try:
            labels = labels.astype(np.int64)
        except (TypeError, ValueError) as error:
            raise DataError(f"{path}: the labels {spec['y_var']} are not integers ({error}); "
                            "fix: store one integer class per sample") from error
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


# --- NumPy files -------------------------------------------------------------------------------


def read_npz(spec: dict, paths: list[Path]) -> RawData:
    """One ``.npz`` archive holding the features (key ``x_key``, default ``X``) and the labels (key
    ``y_key``, default ``y``). Features are (n, d), or (n, h, w) images (``image_shape`` then
    defaults to (h, w)); labels are integers or strings, one per sample."""
    if len(paths) != 1:
        raise DataError(f"format 'npz' reads exactly one file, got {len(paths)}; fix: give one .npz as `path:`")
    path = Path(paths[0])
    x_key, y_key = spec.get("x_key", "X"), spec.get("y_key", "y")
    try:
        with np.load(path, allow_pickle=False) as archive:
            for key, option in ((x_key, "x_key"), (y_key, "y_key")):
                if key not in archive.files:
                    raise DataError(f"{path} has no array {key!r} (it has {', '.join(archive.files) or 'none'}); "
                                    f"fix: set `{option}:` to the name of the "
                                    f"{'features' if option == 'x_key' else 'labels'} array")
            X, y = archive[x_key], archive[y_key]
    except DataError:
        raise
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as error:
        raise DataError(_numpy_unreadable(path, error, ".npz archive")) from error
    return _arrays(X, y, spec, f"{path}[{x_key!r}]", f"{path}[{y_key!r}]", path)


def read_npy(spec: dict, paths: list[Path]) -> RawData:
    """Two ``.npy`` files: the features, (n, d) or (n, h, w), then the labels, (n,)."""
    if len(paths) != 2:
        raise DataError(f"format 'npy' reads two files, the features then the labels, got {len(paths)}; "
                        "fix: give `path: [features.npy, labels.npy]`")
    arrays = []
    for path in paths:
        try:
            arrays.append(np.load(path, allow_pickle=False))
        except (OSError, ValueError, EOFError) as error:
            raise DataError(_numpy_unreadable(Path(path), error, ".npy file")) from error
    return _arrays(*arrays, spec, str(paths[0]), str(paths[1]), Path(paths[0]))


def _numpy_unreadable(path: Path, error: BaseException, what: str) -> str:
    if "allow_pickle" in str(error):
        return (f"{path} holds Python objects, which are not read (they can run code); fix: save numeric "
                "features and integer or string labels (np.asarray(X, dtype=float), np.asarray(y, dtype=str))")
    return f"cannot read {what} {path} ({type(error).__name__}: {error}); fix: save it again with numpy"


def _arrays(X: np.ndarray, y: np.ndarray, spec: dict, x_name: str, y_name: str, path: Path) -> RawData:
    if X.ndim not in (2, 3):
        raise DataError(f"{x_name} has shape {X.shape}; fix: save the features as (samples, features), or "
                        "(samples, height, width) for grey images")
    image_shape = tuple(spec["image_shape"]) if spec.get("image_shape") else (X.shape[1:] if X.ndim == 3 else None)
    X = _numeric(X.reshape(len(X), -1), x_name, fix="save the features as numbers")
    if image_shape is not None:
        X = to_row_major(X, image_shape, spec.get("pixel_order", "C"))
    y = np.asarray(y)
    if y.ndim == 2 and 1 in y.shape:
        y = y.ravel()
    if y.ndim != 1 or len(y) != len(X):
        raise DataError(f"{y_name} has shape {y.shape}, but {x_name} has {len(X)} samples; fix: save one label "
                        "per sample, a vector of the same length")
    if y.dtype.kind == "f":
        if not np.all(np.isfinite(y)) or not np.array_equal(y, np.round(y)):
            bad = np.flatnonzero(~np.isfinite(y) | (y != np.round(y)))
            raise DataError(f"{y_name}: label {y[bad[0]]!r} of sample {bad[0]} is not a class; fix: save integer "
                            "or string labels")
        y = y.astype(np.int64)
    elif y.dtype.kind not in "biuUS":
        raise DataError(f"{y_name} has labels of type {y.dtype}; fix: save integer or string labels")
    locations = [f"{path}, sample {i}" for i in range(len(X))]
    return RawData(X, y, tuple(int(v) for v in image_shape) if image_shape else None, {}, locations)


def _numeric(X: np.ndarray, what: str, fix: str) -> np.ndarray:
    """``X`` as float64, or an error naming the first sample and value that is not a number."""
    if X.dtype.kind in "biuf":
        return X.astype(np.float64)
    try:
        return X.astype(np.float64)
    except (TypeError, ValueError):
        pass
    for index, value in np.ndenumerate(X):
        try:
            float(value)
        except (TypeError, ValueError):
            value = value.item() if isinstance(value, np.generic) else value
            raise DataError(f"{what}: sample {index[0]}, feature {index[1]}: {value!r} is not a number; "
                            f"fix: {fix}") from None
    raise DataError(f"{what}: values of type {X.dtype} are not numbers; fix: {fix}")


# --- a folder of images, one subfolder per class -------------------------------------------------


def read_image_folder(spec: dict, paths: list[Path], decode: bool = True) -> RawData:
    """Images in one subfolder per class (the subfolder's name is the class), in any format Pillow
    reads; converted to grey (luma) and, with ``image_shape: [h, w]``, resized to it by area
    averaging (as a view's ``resize``). Without ``image_shape`` all images must have one size.
    Samples come in (class, file path) order; files and folders whose name starts with ``.`` are
    skipped, and so are files at the top of the folder. ``decode=False`` checks the image headers
    only (sizes, readable) and returns an ``X`` without columns."""
    if len(paths) != 1:
        raise DataError(f"format 'image_folder' reads one folder, got {len(paths)}; fix: give the folder as `path:`")
    from .sources import visible_files

    folder = Path(paths[0])
    if not folder.is_dir():
        raise DataError(f"{folder} is not a folder; fix: give `path:` the folder holding one subfolder per class")
    classes = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not classes:
        raise DataError(f"{folder} has no subfolders; fix: put the images of each class in a subfolder named after "
                        "the class")
    members = []
    for directory in classes:
        files = visible_files(directory)
        if not files:
            raise DataError(f"{directory} (class {directory.name!r}) holds no images; fix: add its images or remove "
                            "the subfolder")
        members += [(directory.name, file) for file in files]
    target = tuple(int(v) for v in spec["image_shape"]) if spec.get("image_shape") else None
    if target is not None and len(target) != 2:
        raise DataError(f"image_shape {list(target)}: an image folder gives grey images, "
                        "so image_shape is [height, width]")
    first = None
    images = []
    for _, file in members:
        size = _image_size(file)
        if first is None:
            first = (file, size)
        elif target is None and size != first[1]:
            raise DataError(
                f"image {file} is {size[0]}x{size[1]} (height x width), but {first[0]} is {first[1][0]}x{first[1][1]}, "
                f"and no image_shape is given; fix: set `image_shape: [height, width]` (e.g. [{first[1][0]}, "
                f"{first[1][1]}]) to resize every image to it"
            )
        if decode:
            images.append(_grey_image(file, target))
    shape = target or first[1]
    X = np.stack(images).reshape(len(images), -1) if decode else np.empty((len(members), 0))
    labels = np.array([label for label, _ in members])
    return RawData(X, labels, shape, {}, [str(file) for _, file in members])


def _image_size(file: Path) -> tuple[int, int]:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(file) as image:
            width, height = image.size
    except (UnidentifiedImageError, OSError) as error:
        raise DataError(f"image {file} is not an image Pillow can read ({error}); fix: convert it, or move it out "
                        "of the folder") from error
    return height, width


def _grey_image(file: Path, target) -> np.ndarray:
    from PIL import Image, UnidentifiedImageError

    from .images import resize_images

    try:
        with Image.open(file) as image:
            grey = np.asarray(image.convert("L"), dtype=np.float64)
    except (UnidentifiedImageError, OSError) as error:
        raise DataError(f"image {file} cannot be decoded ({error}); "
                        "fix: convert it, or move it out of the folder") from error
    if target is not None and grey.shape != target:
        grey = resize_images(grey.reshape(1, -1), grey.shape, target).reshape(target)
    return grey


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


def _generated_two_moons(spec: dict, seed: int | None) -> RawData:
    """scikit-learn's two moons (:func:`locproj.data.toys.generate_two_moons`): labels 0 and 1."""
    options = {key: float(spec[key]) for key in ("noise",) if key in spec}
    X, y = generate_two_moons(int(spec.get("n_samples", 300)), seed=spec.get("seed", seed), **options)
    return RawData(X, y, None)


def _generated_circles(spec: dict, seed: int | None) -> RawData:
    """scikit-learn's concentric circles (:func:`locproj.data.toys.generate_circles`): labels 0 and 1."""
    options = {key: float(spec[key]) for key in ("noise", "factor") if key in spec}
    X, y = generate_circles(int(spec.get("n_samples", 300)), seed=spec.get("seed", seed), **options)
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
