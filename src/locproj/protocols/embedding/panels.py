"""One panel of the ``embedding`` protocol: the fit (:func:`run_panel`, one job) and its HDF5 file
(:func:`read_panel`), with the arrays its drawing needs (basis vectors, border samples, overlays,
a convergence history)."""

from __future__ import annotations

import json

import h5py
import numpy as np

from ...core.io import reading_h5, writing_h5
from .checks import nearest_mean_errors, order_checks, settled_iteration, tau_stop
from .options import DEFAULT_SERIES, IMAGE_KINDS, basis_sources, check_panel, fit_params, method_entry
from .samples import coordinates, holdout_panel_split, novel_split, per_class_split, sample_positions, select_samples
from .samples import visible as _visible


def run_panel(panel: dict, data_path, output_path, provenance: dict | None = None, seed=None) -> None:
    """Fit one panel's method and write what its drawing needs to one HDF5 file, atomically.

    Parameters
    ----------
    panel : dict
        One entry of the experiment's ``panels`` (see :mod:`.options`).
    data_path : path
        The processed dataset or view (:func:`locproj.data.read_dataset_file`).
    output_path : path
        The panel's HDF5 file (see :func:`read_panel` for its contents). No timestamps are
        stored, so a rerun gives the same bytes.
    provenance : dict, optional
        Root attributes (e.g. :func:`locproj.core.io.provenance_attrs`).
    seed : int, optional
        The config's master seed: draws ``split`` and seeds estimators with a ``random_state``.
    """
    from ...data import read_dataset_file

    check_panel(panel.get("title", "(untitled)"), panel)
    data = read_dataset_file(data_path)
    kept = select_samples(data, panel.get("classes"))
    _check_data(panel, data, data_path)
    if panel["kind"] == "samples":
        arrays, checks = _sample_arrays(panel, data, kept), {}
    elif panel["kind"] == "history":
        arrays, checks = _history_arrays(panel, data, kept, seed)
    else:
        arrays, checks = _fit_arrays(panel, data, kept, seed)
    _write_panel(output_path, arrays, {**(provenance or {}), **_panel_attrs(panel, data), **checks})


def _check_data(panel: dict, data, data_path) -> None:
    """Fail when the panel asks for images, labels or input columns the data do not have."""
    if (panel["kind"] in IMAGE_KINDS or panel.get("images")) and data.image_shape is None:
        raise ValueError(f"panel {panel.get('title', '')!r} draws images, but {data_path} holds no image shape")
    for key, wanted in (("colour", "label"), ("classifier", "nearest_mean")):
        if panel.get(key) == wanted and data.y is None:
            raise ValueError(f"{key} {wanted!r} asked for, but {data_path} has no labels")
    columns = [panel.get("feature", 0)]
    if isinstance(panel.get("colour"), dict):
        columns.append(panel["colour"]["feature"])
    if panel.get("space") == "input":
        columns.append(int(panel.get("dims", 2)) - 1)
    if panel.get("overlays") and data.X.shape[1] != 2:
        raise ValueError(f"overlays are drawn on the input plane, but {data_path} has {data.X.shape[1]} features")
    if max(columns) >= data.X.shape[1]:
        raise ValueError(f"input column {max(columns)} asked for, but {data_path} has {data.X.shape[1]} features")


def _panel_attrs(panel: dict, data) -> dict:
    return {
        "panel": json.dumps(panel, sort_keys=True),
        "kind": panel["kind"], "dataset": panel["dataset"], "method": panel.get("method", ""),
        "params": json.dumps(panel.get("params") or {}, sort_keys=True),
        "image_shape": np.array(data.image_shape or (), dtype=np.int64),
        "class_names": np.array(data.class_names, dtype=h5py.string_dtype()),
    }


def _labels(data, index: np.ndarray, stem: str) -> dict:
    return {} if data.y is None else {f"{stem}_labels": data.y[index]}


def _sample_arrays(panel: dict, data, kept: np.ndarray) -> dict:
    index = kept[sample_positions(len(kept), int(panel.get("n_show", 10)))]
    return {"sample_index": index, "samples": data.X[index], **_labels(data, index, "sample")}


def _held_out(panel: dict, data, kept: np.ndarray, seed) -> tuple[np.ndarray, np.ndarray]:
    """Data indices ``(train, novel)`` of the fit: by ``split`` (per class) or ``novel`` (every j-th)."""
    split = panel.get("split")
    if split and "holdout" in split:
        y = None if data.y is None else data.y[kept]
        train_pos, novel_pos = holdout_panel_split(y, split["holdout"], panel["dataset"], seed, split.get("n_samples"))
    elif split:
        y = None if data.y is None else data.y[kept]
        train_pos, novel_pos = per_class_split(y, split["per_class"], panel["dataset"], seed)
    else:
        train_pos, novel_pos = novel_split(len(kept), panel.get("novel"))
    return kept[train_pos], kept[novel_pos]


def panel_estimator(panel: dict, seed):
    """The panel's estimator, a pipeline whose step ``method`` is the method (after a
    standardisation and a PCA step when asked), and the method's :class:`MethodSpec`
    (:mod:`locproj.engine.registry`: what it can do); a ``random_state`` the params leave unset is
    derived from ``seed`` and the dataset."""
    from sklearn.decomposition import PCA
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    from ...data import derived_seed
    from ...engine.registry import method_spec

    spec = method_spec(panel["method"], method_entry(panel), source=panel.get("estimator_source"))
    estimator = spec.make(**fit_params(panel))
    unset = "random_state" in estimator.get_params() and "random_state" not in (panel.get("params") or {})
    if seed is not None and unset:
        estimator.set_params(random_state=derived_seed(seed, "embedding", panel["dataset"]) % 2**32)
    steps = [("standardize", StandardScaler())] if panel.get("standardize") else []
    if panel.get("pca"):
        # the full SVD: scikit-learn's default picks a randomised one for few components
        steps.append(("pca", PCA(n_components=panel["pca"], svd_solver="full")))
    return Pipeline(steps + [("method", estimator)]), spec


def _fit_arrays(panel: dict, data, kept: np.ndarray, seed=None) -> tuple[dict, dict]:
    """The fit's arrays, and its checks: order checks (cyclic embedding panels), classifier
    errors and reported attributes (when asked for); else empty."""
    train, novel = _held_out(panel, data, kept, seed)
    estimator, spec = panel_estimator(panel, seed)
    method = estimator.named_steps["method"]
    y_train = None if data.y is None else data.y[train]
    Z_train = estimator.fit_transform(data.X[train], y_train)   # LLE: its embedding_; linear: the projection
    Z_novel = estimator.transform(data.X[novel]) if len(novel) else np.empty((0, Z_train.shape[1]))
    dims = int(panel.get("dims", 2))
    if panel["kind"] != "basis" and panel.get("space") != "input" and Z_train.shape[1] < dims:
        raise ValueError(f"the fit gave {Z_train.shape[1]} coordinates, fewer than the {dims} dims drawn")
    arrays = {
        "train_index": train, "train_embedding": Z_train, "novel_index": novel, "novel_embedding": Z_novel,
        **_labels(data, train, "train"), **_labels(data, novel, "novel"),
    }
    basis = input_space_basis(estimator) if spec.tags.linear_map else None
    if basis is not None:
        rows = int(panel.get("n_show", 3)) if panel["kind"] == "basis" else None
        arrays["basis"], arrays["mean"] = basis[0][:rows], basis[1]
    if panel["kind"] == "basis" and basis_sources(panel) != ["components"]:
        arrays["basis"] = attribute_basis(estimator, basis_sources(panel))[:panel.get("n_show")]
    arrays.update(_drawing_arrays(panel, data, method, train, novel))
    if panel.get("overlays"):
        arrays.update(overlay_arrays(panel, method, arrays, spec))
    checks = {}
    if panel["kind"] == "embedding" and panel.get("cyclic"):
        checks = order_checks(Z_train, train, Z_novel, novel, dims)
    if panel.get("classifier"):
        class_arrays, errors = nearest_mean_errors(panel, arrays)
        arrays.update(class_arrays)
        checks.update(errors)
    if panel.get("mark_misclassified"):
        wrong = method.predict(data.X[train]) != y_train
        arrays["misclassified_index"] = train[wrong]
        checks["train_misclassified"] = int(wrong.sum())
    if panel.get("report"):
        checks["reported"] = json.dumps({name: _scalar(method, name) for name in panel["report"]})
    if panel.get("images"):
        arrays.update(_border_arrays(panel, data, arrays))
    return arrays, checks


def _drawing_arrays(panel: dict, data, fitted, train: np.ndarray, novel: np.ndarray) -> dict:
    """What the drawing options need besides the fit: colour values, input coordinates, the selected
    training samples and the per-sample attribute."""
    arrays = {}
    colour = panel.get("colour")
    if isinstance(colour, dict):
        arrays["train_colour"] = data.X[train, colour["feature"]]
        arrays["novel_colour"] = data.X[novel, colour["feature"]]
    if panel.get("space") == "input":
        dims = int(panel.get("dims", 2))
        arrays["train_input"], arrays["novel_input"] = data.X[train, :dims], data.X[novel, :dims]
    if panel.get("select"):
        arrays["selected_index"] = np.sort(train[_positions(fitted, panel["select"], len(train))])
    if panel["kind"] == "attribute":
        arrays["train_attribute"] = _per_sample(fitted, panel["attribute"], len(train))
        arrays["train_feature"] = data.X[train, panel.get("feature", 0)]
    return arrays


def _fitted(fitted, name: str):
    """The fitted attribute (or method) ``name`` that the panel's config names."""
    try:
        return getattr(fitted, name)
    except AttributeError:
        raise ValueError(f"the fitted {type(fitted).__name__} has no attribute {name!r}") from None


def _per_sample(fitted, name: str, n: int) -> np.ndarray:
    values = np.asarray(_fitted(fitted, name), dtype=float)
    if values.shape != (n,):
        raise ValueError(f"attribute {name!r} has shape {values.shape}, not one value per training sample ({n})")
    return values


def _positions(fitted, name: str, n: int) -> np.ndarray:
    """Training positions held by a fitted attribute: indices, or a boolean mask of length ``n``."""
    values = np.asarray(_fitted(fitted, name))
    if values.dtype == bool and values.shape == (n,):
        return np.flatnonzero(values)
    if values.ndim != 1 or values.dtype.kind not in "iu" or (len(values) and not 0 <= values.min() <= values.max() < n):
        raise ValueError(f"attribute {name!r} does not hold positions among the {n} training samples")
    return values


def _scalar(fitted, name: str):
    value = np.asarray(_fitted(fitted, name))
    if value.shape != ():
        raise ValueError(f"report: attribute {name!r} is not a scalar (shape {value.shape})")
    return value.item()


def border_samples(Z, n: int) -> np.ndarray:
    """Positions (distinct, in order of direction) of the points of ``Z`` (2-D) furthest out in ``n``
    evenly spaced directions, after scaling each axis to unit standard deviation."""
    Z = np.asarray(Z, dtype=float)
    scaled = (Z - Z.mean(axis=0)) / np.where(Z.std(axis=0) > 0, Z.std(axis=0), 1.0)
    angles = np.pi / 2 + 2 * np.pi * np.arange(n) / n
    outermost = np.argmax(scaled @ np.stack([np.cos(angles), np.sin(angles)]), axis=0)
    _, first = np.unique(outermost, return_index=True)
    return outermost[np.sort(first)]


def _border_arrays(panel: dict, data, arrays: dict) -> dict:
    visible = _visible(panel, arrays)
    index = np.r_[arrays["train_index"][visible["train"]], arrays["novel_index"][visible["novel"]]]
    Z = np.r_[coordinates(panel, arrays, "train")[visible["train"]],
              coordinates(panel, arrays, "novel")[visible["novel"]]]
    chosen = border_samples(Z, int(panel["images"]))
    return {"border_index": index[chosen], "border_coordinates": Z[chosen], "border_images": data.X[index[chosen]]}


def input_space_basis(pipeline) -> tuple[np.ndarray, np.ndarray]:
    """``(components, mean)`` in the input space, so that ``transform(X) = (X - mean) @ components.T``,
    of a fitted panel pipeline whose ``method`` step is a linear map (its tags' ``linear_map``:
    ``components_`` and ``mean_``).

    After a PCA step, ``components = C_m C_pca`` and ``mean = mean_pca + mean_m C_pca`` (the rows
    of ``C_pca`` are orthonormal).
    """
    method = pipeline.named_steps["method"]
    components, mean = np.asarray(method.components_), np.asarray(method.mean_)
    if "pca" in pipeline.named_steps:
        pca = pipeline.named_steps["pca"]
        components, mean = components @ pca.components_, pca.mean_ + mean @ pca.components_
    if "standardize" in pipeline.named_steps:   # z = (x - mu) / s
        scaler = pipeline.named_steps["standardize"]
        components, mean = components / scaler.scale_, scaler.mean_ + scaler.scale_ * mean
    return components, mean


def attribute_basis(pipeline, names) -> np.ndarray:
    """Input-space vectors held by fitted attributes (option ``basis``), stacked as rows.

    An attribute of shape ``(m, d, r)`` gives its ``m * r`` columns (e.g. ``projections_``, the
    ``W_m`` of :class:`~locproj.methods.LocalProjectionKernelSVC`), any other whose last axis is the
    number ``d`` of features fitted gives its rows (``gating_coef_``: the ``v_m``); ``components``
    gives ``components_``.  After a PCA step the vectors are mapped back to the input space.
    ``pipeline``: a fitted panel pipeline (the method is its step ``method``).
    """
    fitted = pipeline.named_steps["method"]
    d = int(fitted.n_features_in_)
    rows = []
    for name in names:
        values = np.asarray(_fitted(fitted, "components_" if name == "components" else name), dtype=float)
        if values.ndim == 3 and values.shape[1] == d:
            vectors = np.moveaxis(values, 2, 1).reshape(-1, d)
        elif values.ndim >= 1 and values.shape[-1] == d:
            vectors = values.reshape(-1, d)
        else:
            raise ValueError(f"basis: attribute {name!r} of shape {values.shape} holds no vectors of the {d} "
                             "features fitted")
        if "pca" in pipeline.named_steps:
            vectors = vectors @ pipeline.named_steps["pca"].components_
        if "standardize" in pipeline.named_steps:
            vectors = vectors / pipeline.named_steps["standardize"].scale_   # w . (x - mu) / s
        rows.append(vectors)
    return np.vstack(rows)


_OVERLAY_STEPS = 201
_OVERLAY_MARGIN = np.array([0.08, 0.18])   # of the data range; more above and below for the legend


def overlay_arrays(panel: dict, fitted, arrays: dict, spec) -> dict:
    """The estimator on a grid over the drawn input plane (option ``overlays``).

    ``overlay_x``, ``overlay_y`` (the grid's axes) and, as asked: ``gating_grid`` (``gating``,
    ``gating_field``: ``fitted.gating_function`` at every grid point, shape ``(ny, nx, p)``),
    ``decision_grid`` (``decision``: ``fitted.decision_function``, ``(ny, nx)``) and
    ``projection_origins``, ``projection_vectors`` (``projections``: each column of each ``W_m``
    of ``projections_``, drawn from the ``eta_m``-weighted mean of the training points). The
    overlays but ``decision`` need a method with local regions, ``decision`` a classifier (what
    the method's :class:`~locproj.engine.registry.MethodSpec` ``spec`` declares).
    """
    overlays = panel["overlays"]
    Z = np.r_[coordinates(panel, arrays, "train"), coordinates(panel, arrays, "novel")]
    low, high = Z.min(axis=0), Z.max(axis=0)
    margin = _OVERLAY_MARGIN * np.where(high > low, high - low, 1.0)
    gx = np.linspace(low[0] - margin[0], high[0] + margin[0], _OVERLAY_STEPS)
    gy = np.linspace(low[1] - margin[1], high[1] + margin[1], _OVERLAY_STEPS)
    grid = np.stack(np.meshgrid(gx, gy), axis=-1).reshape(-1, 2)
    out = {"overlay_x": gx, "overlay_y": gy}
    declared = {"decision": ("decision_function (a classifier)", spec.classifier)}
    for overlay in overlays:
        needs, has = declared.get(overlay, ("gating_function and projections_ (local regions)",
                                            spec.tags.local_regions))
        if not has:
            raise ValueError(f"overlay {overlay!r} needs {needs}, which {type(fitted).__name__} does not "
                             "declare (its ProjectionTags)")
    if {"gating", "gating_field"} & set(overlays):
        out["gating_grid"] = fitted.gating_function(grid).reshape(len(gy), len(gx), -1)
    if "decision" in overlays:
        out["decision_grid"] = fitted.decision_function(grid).reshape(len(gy), len(gx))
    if "projections" in overlays:
        W = np.asarray(fitted.projections_, dtype=float)          # (p, d, r)
        X = arrays["train_input"]
        eta = fitted.gating_function(X)
        centers = (eta.T @ X) / eta.sum(axis=0)[:, None]          # (p, 2)
        out["projection_origins"] = np.repeat(centers, W.shape[2], axis=0)
        out["projection_vectors"] = np.moveaxis(W, 2, 1).reshape(-1, W.shape[1])
    return out


def _history_arrays(panel: dict, data, kept: np.ndarray, seed) -> tuple[dict, dict]:
    """Kind ``history``: fit once on the training points, then one value per iteration of every
    key of the estimator's ``history_`` (``history_{name}``), ``history_support_fraction``
    (``n_support`` over the training size) and, with held-out points,
    ``history_test_accuracy`` (from ``staged_decision_function``: positive -> ``classes_[1]``).
    The checks list the last values, where each curve settles and where each ``stops`` tau would
    have stopped the fit (:func:`tau_stop`)."""
    train, novel = _held_out(panel, data, kept, seed)
    estimator, _ = panel_estimator(panel, seed)
    y_train = None if data.y is None else data.y[train]
    estimator.fit(data.X[train], y_train)
    fitted = estimator.named_steps["method"]
    series = {name: np.asarray(values, dtype=float) for name, values in dict(_fitted(fitted, "history_")).items()}
    if "n_support" in series:
        series["support_fraction"] = series["n_support"] / len(train)
    if len(novel):
        X_novel = data.X[novel]
        if len(estimator) > 1:     # the steps before the method
            X_novel = estimator[:-1].transform(X_novel)
        staged = _fitted(fitted, "staged_decision_function")(X_novel)
        classes = _fitted(fitted, "classes_")
        series["test_accuracy"] = np.array([np.mean(classes[(f > 0).astype(int)] == data.y[novel]) for f in staged])
    wanted = [name for group in panel.get("series", DEFAULT_SERIES) for name in group]
    missing = [name for name in wanted if name not in series]
    if missing:
        raise ValueError(f"series {missing} are not in the history; it has {sorted(series)}")
    arrays = {"train_index": train, "novel_index": novel, **{f"history_{k}": v for k, v in series.items()},
              **_labels(data, train, "train"), **_labels(data, novel, "novel")}
    J = series["objective"]
    checks = {"n_iter": len(J), "objective_first": float(J[0]), "objective_last": float(J[-1])}
    for name in ("train_accuracy", "test_accuracy", "support_fraction"):
        if name in series:
            checks[f"{name}_last"] = float(series[name][-1])
    for name in ("objective", "train_accuracy", "test_accuracy"):
        if name in series:
            checks[f"settled_{name}"] = settled_iteration(series[name])
    for tau in panel.get("stops", []):
        t = tau_stop(J, tau)
        checks[f"stop_tau_{tau:g}"] = t
        if t is not None and "test_accuracy" in series:
            checks[f"test_accuracy_at_tau_{tau:g}"] = float(series["test_accuracy"][t - 1])
    arrays["stops"] = np.array(panel.get("stops", []), dtype=float)
    return arrays, {"reported": json.dumps(checks)}


def _write_panel(path, arrays: dict, attrs: dict) -> None:
    with writing_h5(path) as h5:
        for name in sorted(arrays):
            h5.create_dataset(name, data=arrays[name], track_times=False)
        for key in sorted(attrs):
            h5.attrs[key] = attrs[key]


def read_panel(path) -> dict:
    """A panel file as a dict.

    Keys: the attributes (``kind, dataset, method, params`` (JSON), ``panel`` (JSON),
    ``image_shape`` (tuple or None), ``class_names`` (list), the checks
    ``turn_neighbour_fraction`` and ``novel_placement_fraction`` when computed, ``classifier``,
    ``train_error`` and ``test_error`` (option ``classifier``), ``reported`` (JSON, option
    ``report``), provenance) and the arrays present: ``train_index, train_embedding, novel_index,
    novel_embedding`` (embedding, basis and attribute), ``train_labels, novel_labels`` (labelled
    data), ``basis`` (rows of ``components_``, in the input space: ``n_show`` rows for basis
    panels) and ``mean`` (estimators with ``components_``), ``sample_index, samples,
    sample_labels`` (samples panels), ``train_colour, novel_colour`` (colour by feature),
    ``train_input, novel_input`` (space input), ``selected_index`` (select), ``train_attribute,
    train_feature`` (kind attribute), ``class_means, class_mean_labels`` (classifier) and
    ``border_index, border_coordinates, border_images`` (images).
    """
    with reading_h5(path) as h5:
        result = {name: h5[name][()] for name in h5}
        for key, value in h5.attrs.items():
            result[key] = value.decode() if isinstance(value, bytes) else value
    result["image_shape"] = tuple(int(v) for v in result.get("image_shape", ())) or None
    result["class_names"] = [v.decode() if isinstance(v, bytes) else str(v) for v in result.get("class_names", [])]
    return result
