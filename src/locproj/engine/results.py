"""The HDF5 result files of the jobs: written atomically, read back as plain Python and arrays.

Two layouts:

* a **split result** (:func:`write_result`, :func:`read_result`): one (dataset, partition, split,
  method) of the cross-validated protocols (``cv_table``, ``dimension_curve``), as
  :func:`locproj.engine.selection.run_split` computes it;
* a **swept result** (:func:`write_swept`, :func:`read_swept`): named arrays over a swept value and
  the job's attributes, one file per job of the curve protocols (``train_test_curve``,
  ``holdout_curve``), whose modules say what the arrays hold;
* a **failure** (:func:`write_failure`): in place of either, the attributes of the result (what it
  is of, its provenance) with ``failed`` true and the failure's record
  (:func:`locproj.engine.method_failures.failure_record`) and the job's log; the readers return it as such.

Only the attributes and arrays whose names end in ``seconds`` vary between reruns of a job.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import h5py
import numpy as np

from ..core.io import reading_h5, writing_h5



def plain(value):
    """JSON/HDF5-friendly Python value (numpy scalars and arrays unwrapped)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def _to_json(value) -> str:
    return json.dumps(plain(value), sort_keys=True, separators=(",", ":"))


def _attr_value(value):
    value = plain(value)
    return value if isinstance(value, (bool, int, float, str)) else _to_json(value)


def _set_attrs(node, attrs):
    for name in sorted(attrs):
        node.attrs[name] = _attr_value(attrs[name])


def _column(values):
    values = [plain(v) for v in values]
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return np.asarray(values, dtype=np.float64 if any(isinstance(v, float) for v in values) else np.int64)
    return np.asarray([str(v) for v in values], dtype=h5py.string_dtype())


_SCALAR_FIELDS = (
    "method", "classifier", "grid_index", "p", "projected", "test_error",
    "fit_seconds", "cv_seconds", "n_folds", "cv_seed", "p_max",
)


def _write_h5(handle, result, provenance):
    def dataset(name, data):
        handle.create_dataset(name, data=data, track_times=False)

    _set_attrs(handle, {**dict(provenance or {}), **result.meta})
    _set_attrs(handle, {name: getattr(result, name) for name in _SCALAR_FIELDS})
    _set_attrs(handle, {
        "classifier_params": _to_json(result.classifier_params),
        "params": _to_json(result.params),
        "capped": _to_json(result.capped),
    })
    # only where there are any, so that every other result file keeps its layout
    _set_attrs(handle, {name: _to_json(getattr(result, name)) for name in ("failed_fits", "skipped")
                        if getattr(result, name, None)})
    if result.test_p is not None:
        _set_attrs(handle, {"test_p": result.test_p})
    dataset("cv_error", np.asarray(result.cv_error, dtype=np.float64))
    dataset("cv_fold_error", np.asarray(result.cv_fold_error, dtype=np.float64))
    dataset("test_predictions", np.asarray(result.test_predictions))
    if result.test_indices is not None:
        dataset("test_indices", np.asarray(result.test_indices))
    if result.test_error_curve is not None:
        dataset("test_error_curve", np.asarray(result.test_error_curve, dtype=np.float64))
    if result.raw_cv_fold_error is not None:
        dataset("raw_cv_fold_error", np.asarray(result.raw_cv_fold_error, dtype=np.float64))
    grid = handle.create_group("grid", track_order=True)
    grid.attrs["json"] = _to_json(result.grid)
    for name in sorted({key for point in result.grid for key in point}):
        grid.create_dataset(name, data=_column([point.get(name) for point in result.grid]), track_times=False)
    chosen = handle.create_group("chosen")
    _set_attrs(chosen, result.params)


def write_result(path, result, provenance=None):
    """Write ``result`` (a :class:`locproj.engine.selection.SplitResult`) to an HDF5 file atomically (no file at
    ``path`` if writing fails).

    Layout
    ------
    root attributes
        provenance (``version_*``, ``config_json``, ``config_hash``, ``seed``), ``meta`` entries
        (experiment, dataset, m, split...), ``method``, ``classifier``,
        ``classifier_params`` (JSON), ``grid_index``, ``p`` (chosen), ``projected``,
        ``test_error`` (fraction), ``fit_seconds``, ``cv_seconds``, ``n_folds``,
        ``cv_seed`` (fold shuffling), ``p_max``, ``params`` (chosen, JSON), ``capped`` (JSON list);
        where there are any, ``failed_fits`` (the fits that raised in the inner CV under ``on_error:
        record``) and ``skipped`` (the ``n_components`` not fitted and the grid points that offered no
        p, with why), JSON lists; ``test_p``, the p of the test where the refit's equal eigenvalues
        moved it from the chosen ``p`` (:func:`locproj.engine.selection.run_split`).
    ``/cv_error`` float64 (n_grid, p_max); ``/cv_fold_error`` (n_folds, n_grid, p_max)
        Both empty for ``raw``.
    ``/grid/<name>`` (n_grid,)
        One column per hyper-parameter; ``/grid`` attribute ``json`` is the list of points.
    ``/chosen`` attributes
        One per chosen hyper-parameter.
    ``/test_predictions`` (n_test,), ``/test_indices`` (n_test,) if given.
    ``/test_error_curve`` (p_fit,)
        Test error at every p (fraction), when the split recorded it (``test_curve``).
    ``/raw_cv_fold_error`` (n_folds,)
        ``raw`` only: the classifier's error on the raw features in each CV fold (the same folds
        as the methods' CV), the baseline of the CV curves (:func:`raw_cv_fold_error`).

    Only the two ``*_seconds`` attributes vary between reruns of the same split.
    """
    with writing_h5(path, track_order=False) as handle:
        _write_h5(handle, result, provenance)


#: What :func:`read_result` gives of a failure besides its attributes: no numbers.
FAILED_RESULT = {"failed": True, "classifier": "", "test_error": float("nan"), "p": float("nan"), "projected": False,
                 "params": {}, "capped": [], "classifier_params": {}, "grid": [], "chosen": {}, "cv_error": None,
                 "cv_fold_error": None, "test_predictions": None, "test_indices": None, "test_error_curve": None,
                 "raw_cv_fold_error": None}


def read_result(path) -> dict:
    """Read a file written by :func:`write_result`.

    Returns
    -------
    dict
        Root attributes (JSON ones decoded: ``params``, ``capped``,
        ``classifier_params``), plus ``grid`` (list of dict), ``chosen`` (dict),
        ``cv_error``, ``cv_fold_error``, ``test_predictions``, ``test_indices``,
        ``test_error_curve`` and ``raw_cv_fold_error`` (None when absent) as arrays. A failure
        (:func:`write_failure`) gives its attributes with :data:`FAILED_RESULT`'s empty numbers.
    """
    with reading_h5(path) as handle:
        out = {name: plain(value) for name, value in handle.attrs.items()}
        if out.get("failed"):
            return {**FAILED_RESULT, **out}
        for name in ("params", "capped", "classifier_params"):
            out[name] = json.loads(out[name])
        for name in ("failed_fits", "skipped"):
            out[name] = json.loads(out[name]) if name in out else []
        out["grid"] = json.loads(handle["grid"].attrs["json"])
        out["chosen"] = {name: plain(value) for name, value in handle["chosen"].attrs.items()}
        for name in ("cv_error", "cv_fold_error", "test_predictions", "test_indices", "test_error_curve",
                     "raw_cv_fold_error"):
            out[name] = handle[name][()] if name in handle else None
    return out


def write_swept(path, arrays: dict, attrs: dict) -> None:
    """One job's file of a curve protocol, atomically: each of ``arrays`` as a dataset (in the order
    given) and each of ``attrs`` as an attribute of the root."""
    with writing_h5(path) as h5:
        for name, array in arrays.items():
            h5.create_dataset(name, data=array)
        for key, value in attrs.items():
            h5.attrs[key] = value


def read_swept(path, names) -> tuple[dict, dict]:
    """The root attributes and the arrays ``names`` of a file of :func:`write_swept`; a failure
    (:func:`write_failure`) gives its attributes and no arrays."""
    with reading_h5(path) as h5:
        attrs = dict(h5.attrs)
        return attrs, ({} if attrs.get("failed") else {name: h5[name][()] for name in names})


def write_failure(path, attrs: dict) -> None:
    """A result file that records a failure instead of numbers (module docstring): ``attrs`` with
    ``failed`` true."""
    write_swept(path, {}, {**{key: _attr_value(value) for key, value in attrs.items()}, "failed": True})


def failures(paths) -> list[dict]:
    """The attributes of the failures among the result files ``paths``, in their order."""
    found = []
    for path in paths:
        with reading_h5(path) as h5:
            if h5.attrs.get("failed", False):
                found.append({name: plain(value) for name, value in h5.attrs.items()})
    return found
