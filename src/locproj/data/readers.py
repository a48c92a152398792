"""Readers turning raw benchmark files (or a user's own files) into (X, labels, image shape).

:data:`FORMATS` is the one table of data formats: the ``format`` key of a dataset entry picks its
:class:`Format`, that is its reader, the options the reader takes (:func:`check_options` refuses any
other key, naming the ones it takes) and where the samples come from (files, a local folder, a
seeded generator or a package's built-in data). A file reader takes the dataset's config entry (its
options) and the paths of its raw files, and returns a :class:`~locproj.data.raw.RawData`. Images
come out row-major: ``X[i].reshape(h, w)`` is upright. A reader validates what it reads and raises
:class:`DataError` naming the file, the line, sample or image, and the fix. Adding a format is its
reader and one entry of :data:`FORMATS` (name, reader, options, source, suffixes), documented by a
row of docs/data-formats.md; nothing else names the formats.

===================  ================================================================================
format               reads
===================  ================================================================================
``csv``, ``tsv``     delimited text, one sample a line, the label in a column given by name or index
                     (:mod:`locproj.data.text_reader`)
``npz``, ``npy``     one ``.npz`` holding ``X`` and ``y`` (other keys with ``x_key``/``y_key``), or two
                     ``.npy`` files, features then labels
``mat``              MATLAB (v7 or older): samples in rows or columns of named variables, any pixel order
``image_folder``     a folder with one subfolder per class, images in any format Pillow reads
``image_zip``        images in a zip archive, the class and order from each member's name
===================  ================================================================================

The other formats read no files: ``sklearn_digits`` (scikit-learn's 8x8 digits) and the seeded
generators ``waveform_generator``, ``sine_manifold_generator``, ``four_clusters_generator``,
``two_moons_generator`` and ``circles_generator`` (the seed is recorded in the provenance).
"""

from __future__ import annotations

import dataclasses
import difflib
import io
import re
import zipfile
from functools import partial
from pathlib import Path
from typing import Callable

import numpy as np

from .errors import DataError
from .manifolds import generate_sine_manifold
from .raw import RawData, to_row_major
from .text_reader import TEXT_OPTIONS, read_csv
from .toys import generate_circles, generate_four_clusters, generate_two_moons
from .waveform import generate_waveform

__all__ = ["COMMON_OPTIONS", "FORMATS", "Format", "RawData", "check_options", "class_names", "read_dataset",
           "scan_dataset", "suffix_formats", "to_row_major"]

#: Keys any dataset entry may have, whatever its format.
COMMON_OPTIONS = ("description", "optional", "note", "format", "files", "path", "sha256", "class_names",
                  "class_name_format", "content_sha256")

#: Where a format's samples come from, and so how its reader is called (:meth:`Format.read`).
SOURCES = ("files", "folder", "generated", "builtin")


@dataclasses.dataclass(frozen=True)
class Format:
    """One data format of :data:`FORMATS`.

    Attributes
    ----------
    reader : callable
        Returns a :class:`~locproj.data.raw.RawData`. Called as ``reader(spec, paths)`` for the
        sources ``files`` and ``folder``, ``reader(spec, seed)`` for ``generated`` and
        ``reader(spec)`` for ``builtin``; ``spec`` is the dataset's config entry.
    options : tuple of str
        The keys the reader takes, besides :data:`COMMON_OPTIONS`.
    source : str
        ``files``: files the user has (``path:``) or the pipeline fetches (``files:``); ``folder``: a
        local folder, given as ``path:``; ``generated``: drawn by a seeded generator (the seed is
        recorded); ``builtin``: data that come with a package.
    scan : callable, optional
        ``scan(spec, paths)``: what the start-up checks read instead of the whole data (the labels
        and where each sample is, validated), when that is cheaper than ``reader``.
    suffixes : tuple of str
        The file suffixes (lower case, with the dot, e.g. ``".csv"``) by which
        :func:`locproj.data.load_dataset` tells this format from a path's suffix (any case); a
        suffix belongs to one format at most (:func:`suffix_formats`).
    """

    reader: Callable[..., RawData]
    options: tuple[str, ...] = ()
    source: str = "files"
    scan: Callable[..., RawData] | None = None
    suffixes: tuple[str, ...] = ()

    def __post_init__(self):
        if self.source not in SOURCES:
            raise ValueError(f"Format source {self.source!r} is not one of {', '.join(SOURCES)}")
        if isinstance(self.suffixes, str):
            raise ValueError(f"Format suffixes {self.suffixes!r} must be a tuple, e.g. ({self.suffixes!r},)")
        for suffix in self.suffixes:
            if not (isinstance(suffix, str) and re.fullmatch(r"\.[^./\\]+", suffix) and suffix == suffix.lower()):
                raise ValueError(f"Format suffix {suffix!r} is not a lower-case file suffix with its dot, e.g. '.csv'")

    @property
    def reads_files(self) -> bool:
        """Whether the dataset entry gives files (``path:`` or ``files:``)."""
        return self.source in ("files", "folder")

    def read(self, spec: dict, paths: list[Path], seed: int | None = None) -> RawData:
        if self.reads_files:
            return self.reader(spec, paths)
        if self.source == "generated":
            return self.reader(spec, seed)
        return self.reader(spec)


def suffix_formats(formats: dict[str, Format] | None = None) -> dict[str, str]:
    """Each file suffix of :data:`FORMATS` (or ``formats``) -> the name of the format it belongs to,
    read from the table when called (so a format added later is found by its suffix). A suffix that
    two formats claim is refused (``ValueError``, naming both)."""
    lookup: dict[str, str] = {}
    for name, form in (FORMATS if formats is None else formats).items():
        for suffix in form.suffixes:
            if suffix in lookup:
                raise ValueError(f"file suffix {suffix!r} is claimed by formats {lookup[suffix]!r} and {name!r}; "
                                 "fix: give it to one of them in locproj.data.readers.FORMATS")
            lookup[suffix] = name
    return lookup


def check_options(name: str, spec: dict) -> None:
    """Refuse an unknown format or a key that the dataset's format does not take, naming the keys it
    takes; and a source that does not fit the format (``path:`` or ``files:``, not both)."""
    fmt = spec.get("format")
    where = f"datasets.{name}"
    if fmt not in FORMATS:
        raise DataError(f"{where}: unknown format {fmt!r}; set `format:` to one of {', '.join(FORMATS)}")
    form = FORMATS[fmt]
    allowed = set(COMMON_OPTIONS) | set(form.options)
    for key in spec:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), sorted(allowed), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            takes = ", ".join(form.options) or "no options of its own"
            raise DataError(
                f"{where}: unknown key {key!r}{hint} for format {fmt!r}. Format {fmt!r} takes {takes}; "
                f"every dataset may also have {', '.join(COMMON_OPTIONS)}. Fix: rename or remove {key!r}."
            )
    if "path" in spec and "files" in spec:
        raise DataError(f"{where}: give either `path:` (a local file or folder) or `files:` (files to fetch), not both")
    if not form.reads_files and ("path" in spec or "files" in spec):
        raise DataError(f"{where}: format {fmt!r} reads no files; remove `path:` and `files:`")
    if form.reads_files and "path" not in spec and "files" not in spec:
        raise DataError(f"{where}: format {fmt!r} reads files: add `path:` (your local file or folder)")
    if form.source == "folder" and "path" not in spec:
        raise DataError(f"{where}: format {fmt!r} reads a local folder: give it as `path:`")
    if "sha256" in spec and "path" not in spec:
        raise DataError(f"{where}: `sha256:` pins a local `path:`; fetched `files:` have a sha256 each")


def read_dataset(name: str, spec: dict, paths: list[Path], seed: int | None = None) -> RawData:
    """Read dataset ``name`` with the reader of its format (``spec['format']``, :data:`FORMATS`);
    ``seed`` draws a generated one unless ``spec`` gives its own ``seed``."""
    fmt = spec.get("format")
    if fmt not in FORMATS:
        raise DataError(f"dataset {name!r}: unknown format {fmt!r}; use one of {sorted(FORMATS)}")
    try:
        return FORMATS[fmt].read(spec, paths, seed)
    except DataError as error:
        raise DataError(f"dataset {name!r}: {error}") from error


def scan_dataset(name: str, spec: dict, paths: list[Path]) -> RawData:
    """What the start-up checks need: the labels and where each sample is, validated. A format with
    a ``scan`` (a folder of images: sizes from the image headers, ``X`` without columns) is scanned;
    the others are read whole."""
    fmt = FORMATS.get(spec.get("format"))
    if fmt is not None and fmt.scan is not None:
        try:
            return fmt.scan(spec, paths)
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


# --- built-in and generated data ---------------------------------------------------------------


def read_sklearn_digits(spec: dict | None = None) -> RawData:
    """scikit-learn's 8x8 handwritten digits (1797 samples, 10 classes); ``spec`` has no options."""
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
    options = {"center": float(spec["centre"])} if "centre" in spec else {}     # the config key keeps its name
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


# --- the formats -------------------------------------------------------------------------------

_NPZ_OPTIONS = ("x_key", "y_key", "image_shape", "pixel_order")
_MAT_OPTIONS = ("x_var", "y_var", "samples_in", "image_shape", "pixel_order", "labels_from_index", "label_map")

#: Every data format: the config's ``format`` -> its :class:`Format`, the one place a format is
#: declared (its name, reader, options, source and file suffixes); the config schema does not list
#: the names, :func:`check_options` refuses any other before any job. docs/data-formats.md adds one.
FORMATS: dict[str, Format] = {
    "csv": Format(read_csv, TEXT_OPTIONS, suffixes=(".csv", ".txt")),
    "tsv": Format(read_csv, TEXT_OPTIONS, suffixes=(".tsv", ".tab")),
    "npz": Format(read_npz, _NPZ_OPTIONS, suffixes=(".npz",)),
    "npy": Format(read_npy, ("image_shape", "pixel_order")),
    "mat": Format(read_mat, _MAT_OPTIONS, suffixes=(".mat",)),
    "image_folder": Format(read_image_folder, ("image_shape",), "folder",
                           scan=partial(read_image_folder, decode=False)),
    "image_zip": Format(read_image_zip, ("member_pattern", "image_shape")),
    "sklearn_digits": Format(read_sklearn_digits, (), "builtin"),
    "waveform_generator": Format(_generated_waveform, ("n_samples", "seed"), "generated"),
    "sine_manifold_generator": Format(_generated_sine_manifold, ("n_samples", "seed", "noise", "amplitude", "periods"),
                                      "generated"),
    "four_clusters_generator": Format(_generated_four_clusters, ("n_samples", "seed", "noise", "centre"),
                                      "generated"),
    "two_moons_generator": Format(_generated_two_moons, ("n_samples", "seed", "noise"), "generated"),
    "circles_generator": Format(_generated_circles, ("n_samples", "seed", "noise", "factor"), "generated"),
}
