"""The data layer: fetch raw files, prepare them into one HDF5 format, derive views, split."""

from .errors import DataError
from .fetch import fetch_file
from .load import load_dataset
from .prepare import Dataset, derive_view, prepare_dataset, read_dataset_file, relabel, scale, write_view
from .splits import derived_seed, holdout_split, make_splits, per_class_splits, read_splits, write_splits

__all__ = [
    "DataError", "Dataset", "derive_view", "derived_seed", "fetch_file", "holdout_split", "load_dataset",
    "make_splits", "per_class_splits", "prepare_dataset", "read_dataset_file", "read_splits", "relabel", "scale",
    "write_splits", "write_view",
]
