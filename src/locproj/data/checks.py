"""Start-up checks of the config's datasets, run when the Snakefile is parsed, before any job.

:func:`check_dataset_options` needs the config only: every dataset's keys against those its
format's reader takes. :func:`check_local_datasets` reads each local ``path:`` dataset (a folder of
images only as far as the image headers): the file exists, the label column is there, the features
are numbers, the images have one size or a stated ``image_shape``, and every class has enough samples
for each experiment that splits it. Each error names the file and the line, sample or image, and the fix.
"""

from __future__ import annotations

import numpy as np

from .errors import DataError
from .prepare import check_finite, encode_labels, relabel
from .readers import RawData, check_options, scan_dataset
from .sources import check_exists, local_paths
from .splits import training_sizes


def check_dataset_options(config: dict) -> None:
    """Every dataset entry's keys are ones its format takes (:func:`locproj.data.readers.check_options`)."""
    for name, spec in (config.get("datasets") or {}).items():
        if isinstance(spec, dict):
            check_options(name, spec)


def check_local_datasets(config: dict) -> None:
    """Read every ``path:`` dataset and check it against the experiments that use it."""
    for name, spec in config["datasets"].items():
        if "path" not in spec:
            continue
        check_exists(name, spec)
        raw = scan_dataset(name, spec, local_paths(spec))
        source = ", ".join(str(p) for p in local_paths(spec))
        if raw.labels is None:
            raise DataError(f"dataset {name!r} ({source}) has no labels; fix: give the label column or array")
        check_finite(raw.X, f"dataset {name!r} ({source})", raw)
        check_class_sizes(config, name, spec, raw, source)


def check_class_sizes(config: dict, name: str, spec: dict, raw: RawData, source: str) -> None:
    """Every class of dataset ``name`` (or of a view on it that keeps or merges its classes) has a
    training and a test sample for every training size of every split experiment using it."""
    y, names = encode_labels(raw, spec)
    for experiment, experiment_spec in (config.get("experiments") or {}).items():
        # the experiments that split data declare their training sizes (an embedding's panels do not)
        for used, sizes in (experiment_spec.get("datasets") or {}).items():
            chain = _views_between(config, used, name)
            if chain is None:
                continue
            labels, classes, rows = y, names, np.arange(len(y))
            for view_name, view in chain:
                keep, labels, classes = relabel(labels, classes, view["relabel"], view_name)
                rows = rows[keep]
            counts = np.bincount(labels, minlength=len(classes))
            for size in sizes:
                _check_size(experiment, used, size, counts, labels, classes, rows, raw, name, source)


def _check_size(experiment, used, size, counts, labels, classes, rows, raw, name, source) -> None:
    if size == "holdout":
        small = np.flatnonzero(counts < 2)
        need, fix = ("at least 2 samples in every class (a third to test, the rest to train)",
                     "add samples to it or drop it")
    else:
        train = training_sizes(counts, size)
        small = np.flatnonzero((train < 1) | (train >= counts))
        if isinstance(size, float):
            need = f"a training and a test sample in every class from a fraction {size:g} of it"
            fix = "choose a fraction that leaves both, add samples to the class, or drop it"
        else:
            need = f"at least {size + 1} samples in every class ({size} to train, at least 1 to test)"
            largest = int(counts.min()) - 1
            lower = f"lower m to at most {largest}" if largest >= 1 else "drop the class"
            fix = f"{lower} in `experiments.{experiment}.datasets.{used}`, add samples to the class, or drop it"
    if not len(small):
        return
    described = "; ".join(
        f"class {classes[c]!r} has {counts[c]} (at {raw.where(rows[labels == c], limit=3)})" for c in small[:3])
    more = f"; and {len(small) - 3} more classes" if len(small) > 3 else ""
    via = f" (through view {used!r})" if used != name else ""
    per = "m = " + str(size) + " per class" if isinstance(size, int) else (
        "the holdout split" if size == "holdout" else f"a fraction {size:g} of each class")
    raise DataError(
        f"dataset {name!r} ({source}){via}: experiment {experiment!r} trains on {per}, which needs {need}; "
        f"{described}{more}. Fix: {fix} (a view with `relabel` keeps only the classes it names)"
    )


def _views_between(config: dict, used: str, name: str, depth: int = 0):
    """The views leading from dataset ``name`` to ``used`` (``[]`` when ``used`` is ``name``), as
    (view name, view) pairs that relabel; None when ``used`` is not built from ``name`` or a view on
    the way draws a sample (whose class sizes are only known once drawn)."""
    if used == name:
        return []
    view = (config.get("views") or {}).get(used)
    if view is None or depth > 20:
        return None
    chain = _views_between(config, view["dataset"], name, depth + 1)
    if chain is None or view.get("sample"):
        return None
    return chain + ([(used, view)] if view.get("relabel") else [])
