"""The processed-data format (one HDF5 file per dataset) and the derived views built from it.

``data/processed/{dataset}.h5`` holds
  ``X``  (n, d) float64 — images flattened row-major, so ``X[i].reshape(h, w)`` is upright;
  ``y``  (n,) int64 in 0..c−1 (absent for unlabelled data);
  ``groups`` (n,) int64, in a view that merges classes (``relabel``): each sample's label before the
  merge (the subject of a face in a men-against-women view), for splits that keep groups apart;
and attributes ``dataset``, ``image_shape`` ((h, w) or an empty array), ``pixel_order``
('row-major'), ``class_names``, ``source_files``, ``source_sha256``, plus reader extras such as a
dataset's official partition. ``source_files`` are the fetched files' names, or a local dataset's
``path:`` entries as configured; ``source_sha256`` their checksums (a folder's:
:func:`locproj.data.sources.sha256_path`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
from pathlib import Path

import h5py
import numpy as np

from ..core.io import sha256_file, unreadable_message, verify_file, writing_h5
from .errors import DataError
from .images import jpeg_round_trip, resize_images
from .readers import FORMATS, RawData, class_names, read_dataset
from .sources import check_exists, local_paths, sha256_path, verify_pinned

log = logging.getLogger(__name__)

SCALINGS = ("raw", "unit_interval", "unit_norm")


@dataclasses.dataclass
class Dataset:
    """A dataset in memory: the content of a processed or derived HDF5 file.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The samples, float64; images flattened row-major.
    y : ndarray of shape (n_samples,) or None
        The labels, int64 in ``0..c-1``; None for unlabelled data.
    class_names : list of str
        The names that the labels ``0..c-1`` stand for.
    image_shape : tuple of (int, int) or None
        ``(h, w)`` of images, so that ``X[i].reshape(h, w)`` is upright; None for other data.
    attrs : dict
        The file's other attributes (``dataset``, ``source_files``, ``source_sha256``, ...).
    groups : ndarray of shape (n_samples,) or None, default=None
        In a view that merges classes (:func:`relabel`), each sample's label before the merge.
    """

    X: np.ndarray
    y: np.ndarray | None
    class_names: list[str]
    image_shape: tuple[int, int] | None
    attrs: dict
    groups: np.ndarray | None = None    # labels before a view's relabel (module docstring)

    @property
    def n_classes(self) -> int:
        """The number of classes, ``len(class_names)``."""
        return len(self.class_names)


def encode_labels(raw: RawData, spec: dict) -> tuple[np.ndarray | None, list[str]]:
    """Map raw labels to 0..c−1 in sorted order of the raw labels; return names in that order."""
    if raw.labels is None:
        return None, []
    _, y = np.unique(raw.labels, return_inverse=True)
    return y.astype(np.int64), class_names(spec, raw.labels)


def prepare_dataset(name: str, spec: dict, raw_paths: list[Path], output: Path, seed: int | None = None) -> Dataset:
    """Read the raw files of dataset ``name`` and write its processed HDF5 file atomically.

    Parameters
    ----------
    name : str
        The dataset's name in the config.
    spec : dict
        Its config entry (``format``, the reader's options, ``path`` for a local dataset, ...).
    raw_paths : list of Path
        The fetched raw files; a local dataset (``path`` in ``spec``) is read where it is instead.
    output : Path
        The processed HDF5 file to write.
    seed : int, optional
        The seed of a generated dataset whose ``spec`` sets none.

    Returns
    -------
    Dataset
        The data written.
    """
    raw_paths = [Path(p) for p in raw_paths]
    if "path" in spec:  # a local file or folder, read where it is (the inputs are the files in it)
        raw_paths = local_paths(spec)
        check_exists(name, spec)
    raw = read_dataset(name, spec, raw_paths, seed=seed)
    check_finite(raw.X, f"dataset {name!r}", raw)
    y, names = encode_labels(raw, spec)
    content = content_sha256(raw.X, y)
    if spec.get("content_sha256") not in (None, content):
        raise DataError(
            f"dataset {name!r}: the decoded data have sha256 {content}, not the configured content_sha256 "
            f"{spec['content_sha256']}: the raw files {[p.name for p in raw_paths]} hold other data; delete "
            f"data/raw/{name}/ and fetch a verified copy (config key `data_mirror`)"
        )
    if "path" in spec:
        checksums = [sha256_path(p) for p in raw_paths]
        verify_pinned(name, spec, checksums)
        for path, checksum in zip(raw_paths, checksums):
            log.info("dataset %r: %s has sha256 %s (recorded in %s as source_sha256)", name, path, checksum, output)
    else:
        checksums = [sha256_file(p) for p in raw_paths]
    attrs = {
        "dataset": name,
        "description": spec.get("description", ""),
        # a local path as configured (relative to the working directory); a fetched file by its name
        "source_files": [str(p) if "path" in spec else p.name for p in raw_paths],
        "source_sha256": checksums,
        "content_sha256": content,
        **({"source_note": spec["note"]} if spec.get("note") else {}),
        **raw.extra,
    }
    if FORMATS[spec["format"]].source == "generated":    # read_dataset has refused an unknown format
        attrs["generator_seed"] = spec.get("seed", seed)
    data = Dataset(raw.X, y, names, raw.image_shape, attrs)
    write_dataset(output, data)
    return data


def content_sha256(X: np.ndarray, y: np.ndarray | None) -> str:
    """sha256 of the decoded samples (float64, row-major) and labels (int64): the same for every
    byte-level copy of a dataset, e.g. a repository archive and a repacked zip of its images."""
    digest = hashlib.sha256(np.ascontiguousarray(X, dtype=np.float64).tobytes())
    if y is not None:
        digest.update(np.ascontiguousarray(y, dtype=np.int64).tobytes())
    return digest.hexdigest()


def write_dataset(path: Path, data: Dataset) -> None:
    with writing_h5(path) as h5:
        h5.create_dataset("X", data=data.X.astype(np.float64))
        if data.y is not None:
            h5.create_dataset("y", data=data.y.astype(np.int64))
        if data.groups is not None:
            h5.create_dataset("groups", data=data.groups.astype(np.int64))
        h5.attrs["image_shape"] = np.array(data.image_shape or (), dtype=np.int64)
        h5.attrs["pixel_order"] = "row-major"
        h5.attrs["class_names"] = np.array(data.class_names, dtype=h5py.string_dtype())
        for key, value in data.attrs.items():
            h5.attrs[key] = _attr(value)


def _attr(value):
    if isinstance(value, (list, tuple)):
        return np.array([str(v) for v in value], dtype=h5py.string_dtype())
    return value


def read_dataset_file(path: str | Path) -> Dataset:
    """Load a processed or derived HDF5 file.

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    Dataset
        Its data and attributes.
    """
    try:
        verify_file(path)
        with h5py.File(path, "r") as h5:
            X = h5["X"][()]
            y = h5["y"][()] if "y" in h5 else None
            groups = h5["groups"][()] if "groups" in h5 else None
            attrs = {k: _plain(v) for k, v in h5.attrs.items()}
    except (OSError, KeyError) as error:
        raise DataError(unreadable_message(path, error, what="dataset file ")) from error
    shape = tuple(int(v) for v in attrs.pop("image_shape", ())) or None
    names = list(attrs.pop("class_names", []))
    return Dataset(X, y, names, shape, attrs, groups)


def _plain(value):
    if isinstance(value, np.ndarray) and value.dtype.kind == "O":
        return [v.decode() if isinstance(v, bytes) else str(v) for v in value]
    if isinstance(value, bytes):
        return value.decode()
    return value


def check_finite(X: np.ndarray, what: str, raw: RawData | None = None) -> None:
    """NaN or infinite features are an error naming the first samples (their file lines or images
    when ``raw`` knows them)."""
    bad = ~np.isfinite(X)
    if bad.any():
        rows = np.flatnonzero(bad.any(axis=1))
        first = raw.where(rows) if raw is not None and raw.locations else f"first rows {rows[:5].tolist()}"
        raise DataError(
            f"{what}: {bad.sum()} NaN/inf feature values in {len(rows)} samples ({first}); "
            "clean or impute them before use"
        )


# --- derived views -----------------------------------------------------------------------------


def derive_view(data: Dataset, view: dict, name: str = "view", seed: int | None = None) -> Dataset:
    """Apply a view's ``relabel``, ``sample``, ``resize``, ``jpeg_quality`` and ``scale`` options, in that order.

    ``sample: n`` keeps ``n`` samples drawn by :func:`stratified_sample` with a seed derived from
    ``seed`` and the view's name.

    Parameters
    ----------
    data : Dataset
        The view's dataset.
    view : dict
        The view's config entry.
    name : str, default="view"
        The view's name (in messages, the derived seed and the ``view`` attribute).
    seed : int, optional
        The seed of ``sample``; by default the view's ``seed``, which the workflow sets to the
        master seed.

    Returns
    -------
    Dataset
        The view.
    """
    seed = view.get("seed") if seed is None else seed
    X, y, names, shape, groups = data.X, data.y, data.class_names, data.image_shape, data.groups
    attrs = dict(data.attrs, view=name, source_dataset=data.attrs.get("dataset", ""))
    # source_indices: the rows of the view's dataset kept, when not all of them (an HDF5 attribute
    # is limited to 64 kB: USPS's 9298 indices would not fit, and are the identity anyway)
    rows = np.arange(len(X))
    if view.get("relabel"):
        keep, merged, names = relabel(y, names, view["relabel"], name)
        y, groups = merged, (y if groups is None else groups)[keep]
        X, rows = X[keep], rows[keep]
        if not keep.all():
            attrs["source_indices"] = rows
    if view.get("sample"):
        if seed is None:
            raise DataError(f"view {name!r}: `sample` draws at random and needs the config's seed")
        from .splits import derived_seed

        chosen = stratified_sample(y, int(view["sample"]), derived_seed(seed, name, "sample"), name)
        X, y = X[chosen], (None if y is None else y[chosen])
        groups = None if groups is None else groups[chosen]
        rows = rows[chosen]
        attrs["source_indices"] = rows
        attrs["sample_seed"] = derived_seed(seed, name, "sample")
    if view.get("resize"):
        if shape is None:
            raise DataError(f"view {name!r}: cannot resize, dataset {attrs['source_dataset']!r} is not images")
        new_shape = tuple(int(v) for v in view["resize"])
        X, shape = resize_images(X, shape, new_shape), new_shape
    if view.get("jpeg_quality"):
        if shape is None:
            raise DataError(f"view {name!r}: cannot JPEG-compress, dataset {attrs['source_dataset']!r} is not images")
        X = jpeg_round_trip(X, shape, int(view["jpeg_quality"]), f"view {name!r}")
        attrs["source_note"] = f"pixels round-tripped through JPEG at quality {view['jpeg_quality']} (Pillow)"
    X = scale(X, view.get("scale", "raw"))
    attrs["scale"] = view.get("scale", "raw")
    return Dataset(X, y, names, shape, attrs, groups)


def stratified_sample(y, n: int, seed: int, view: str = "view") -> np.ndarray:
    """``n`` sample positions drawn without replacement, stratified: each class keeps its share of
    ``y`` (``n * n_c / N`` rounded by largest remainder, so the counts sum to ``n``); sorted, so
    the view keeps the dataset's order."""
    if y is None:
        raise DataError(f"view {view!r}: `sample` is stratified and the dataset has no labels")
    total, rng = len(y), np.random.Generator(np.random.PCG64(seed))
    if not 1 <= n <= total:
        raise DataError(f"view {view!r}: sample {n} of {total} samples; choose 1 <= sample <= {total}")
    classes, counts = np.unique(y, return_counts=True)
    share = n * counts / total
    sizes = np.floor(share).astype(np.int64)
    remainder = np.argsort(-(share - sizes), kind="stable")[: n - sizes.sum()]
    sizes[remainder] += 1
    chosen = [rng.permutation(np.flatnonzero(y == c))[:k] for c, k in zip(classes, sizes)]
    return np.sort(np.concatenate(chosen))


def relabel(y, class_names: list[str], groups: dict, view: str = "view"):
    """Merge classes: ``groups`` maps each new class name to the old class names it contains.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        The labels, ``0..c-1``.
    class_names : list of str
        The names that the labels stand for.
    groups : dict
        ``{new class name: [old class names]}``; an entry ``{"all_except": [...]}`` means every
        class not listed there. Classes in no group are dropped.
    view : str, default="view"
        The view's name, for messages.

    Returns
    -------
    keep : ndarray of bool of shape (n_samples,)
        The samples kept.
    labels : ndarray of shape (n_kept,)
        The new labels of the kept samples, int64 in the order of ``groups``.
    names : list of str
        The new class names.
    """
    if y is None:
        raise DataError(f"view {view!r}: the dataset has no labels to relabel")
    index = {name: i for i, name in enumerate(class_names)}
    new_label = np.full(len(class_names), -1)
    for new, members in enumerate(groups.values()):
        if isinstance(members, dict):
            excluded = set(members["all_except"])
            members = [name for name in class_names if name not in excluded]
            _check_known(excluded, index, view)
        _check_known(members, index, view)
        for member in members:
            if new_label[index[member]] >= 0:
                raise DataError(f"view {view!r}: class {member!r} is in two groups")
            new_label[index[member]] = new
    mapped = new_label[y]
    keep = mapped >= 0
    return keep, mapped[keep].astype(np.int64), [str(k) for k in groups]


def _check_known(members, index, view):
    unknown = [m for m in members if m not in index]
    if unknown:
        raise DataError(f"view {view!r}: unknown classes {unknown}; the dataset has {sorted(index)}")


def scale(X: np.ndarray, how: str) -> np.ndarray:
    """Scale ``X`` as a view's ``scale`` option says.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The samples.
    how : {'raw', 'unit_interval', 'unit_norm'}
        'raw': unchanged; 'unit_interval': min–max over the whole set to [0, 1]; 'unit_norm':
        rows of norm 1 (a zero row stays zero).

    Returns
    -------
    ndarray of shape (n_samples, n_features)
        The scaled samples (``X`` itself for 'raw').
    """
    if how == "raw":
        return X
    if how == "unit_interval":
        low, high = X.min(), X.max()
        return (X - low) / (high - low) if high > low else X - low
    if how == "unit_norm":
        norms = np.linalg.norm(X, axis=1, keepdims=True)
        return X / np.where(norms > 0, norms, 1.0)
    raise DataError(f"unknown scaling {how!r}; use one of {SCALINGS}")


def write_view(data: Dataset, view: dict, name: str, output: Path, seed: int | None = None) -> Dataset:
    """Derive a view (:func:`derive_view`) and write it to an HDF5 file.

    Parameters
    ----------
    data : Dataset
        The view's dataset.
    view : dict
        The view's config entry.
    name : str
        The view's name.
    output : Path
        The HDF5 file to write.
    seed : int, optional
        The seed of ``sample`` (:func:`derive_view`).

    Returns
    -------
    Dataset
        The view written.
    """
    derived = derive_view(data, view, name, seed)
    write_dataset(Path(output), derived)
    return derived
