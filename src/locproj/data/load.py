"""Your own file or folder, read from Python as the pipeline's ``prepare`` step reads it."""

from __future__ import annotations

from pathlib import Path

from .errors import DataError
from .prepare import Dataset, check_finite, encode_labels
from .readers import FORMATS, check_options, read_dataset, suffix_formats
from .sources import check_exists, local_paths

#: The formats a path tells by its shape rather than a suffix: a folder, two ``.npy`` files.
_FOLDER, _TWO_FILES = "image_folder", "npy"


def load_dataset(path, format: str | None = None, **options) -> Dataset:
    """Read a labelled dataset from a local file or folder.

    Parameters
    ----------
    path : str, Path or list of them
        The file or folder (``npy``: the features file, then the labels file).
    format : str, optional
        A key of :data:`locproj.data.readers.FORMATS` (``csv``, ``tsv``, ``npz``, ``npy``, ``mat``,
        ``image_folder``, ...); by default from the suffix, as the formats' ``suffixes`` say
        (``.csv``, ``.txt``, ``.tsv``, ``.tab``, ``.npz``, ``.mat``), a folder or two ``.npy`` files.
    **options
        The reader's options, as in the config (e.g. ``label_column="species"``, ``image_shape=[32, 32]``).

    Returns
    -------
    Dataset
        ``X`` (float64, one sample a row), ``y`` (0..c-1) and ``class_names`` (the labels, sorted,
        that 0..c-1 stand for).

    Examples
    --------
    >>> data = load_dataset("data/own/my_data.csv", label_column="label")  # doctest: +SKIP
    >>> data.X.shape, data.class_names  # doctest: +SKIP
    """
    paths = [str(p) for p in path] if isinstance(path, (list, tuple)) else str(path)
    spec = {"format": format or _format_of(paths), "path": paths, **options}
    name = Path(paths[0] if isinstance(paths, list) else paths).stem or "data"
    check_options(name, spec)
    check_exists(name, spec)
    raw = read_dataset(name, spec, local_paths(spec))
    check_finite(raw.X, f"dataset {name!r}", raw)
    y, names = encode_labels(raw, spec)
    attrs = {"dataset": name, "source_files": [str(p) for p in local_paths(spec)]}
    return Dataset(raw.X, y, names, raw.image_shape, attrs)


def _format_of(paths) -> str:
    """The format of ``paths``: two ``.npy`` files, a folder, or the format whose ``suffixes``
    (:data:`~locproj.data.readers.FORMATS`, read now) hold the path's suffix."""
    if isinstance(paths, list):
        if len(paths) == 2 and all(p.endswith(".npy") for p in paths):
            return _TWO_FILES
        raise DataError(f"cannot tell the format of {paths}; fix: pass format=... (two .npy files: features, labels)")
    if Path(paths).is_dir():
        return _FOLDER
    suffix = Path(paths).suffix.lower()
    lookup = suffix_formats()
    if suffix not in lookup:
        told = [name for name, form in FORMATS.items() if form.suffixes or name in (_FOLDER, _TWO_FILES)]
        raise DataError(f"cannot tell the format of {paths} from its suffix {suffix!r}; fix: pass format=... "
                        f"(one of {', '.join(told)})")
    return lookup[suffix]
