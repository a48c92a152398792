"""Model selection for one (dataset, m, split, method): one split's computation, and its result file.

Protocol (Wu et al. 2007, §6.2): five-fold cross-validation on the training part
of a split chooses the hyper-parameters and the number of projections p jointly;
the projection is then refitted on the whole training part and the test error of
the 1-NN classifier (or another :data:`locproj.core.evaluation.CLASSIFIERS`) at the
chosen p is reported.

Documented rules
----------------
Grid resolution (:func:`resolve_grid`)
    Numbers pass through. Strings ``"m"``, ``"m-1"``, ``"m+2"``... are resolved
    with the number of training samples per class ``m``. The grid of a parameter
    that counts neighbours within the class (the method's declaration,
    :mod:`locproj.engine.neighbor_counts`) keeps only values ``< m`` (footnote 7),
    de-duplicated in order. ``{"sigma0_sq_times": [a, b, ...]}`` resolves to
    ``[a * s, b * s, ...]`` with ``s = sigma0**2`` and ``sigma0`` the mean
    Euclidean norm of the training samples given (the whole training part of the
    split, so the grid is the same in every fold); ``{"per_sigma0_sq_times": [a, ...]}``
    to ``[a / s, ...]`` (an RBF kernel's ``gamma`` on the data's scale). The grid is the Cartesian
    product in the order the names appear, the last name varying fastest.
Folds (:func:`folds_for`)
    Stratified ``n_folds``-fold CV, with ``n_folds`` capped at the smallest class
    count of the training part (3 folds for 3 samples per class: one held out per
    class and fold); the count used is stored as ``n_folds``.
Fold capping (:func:`cross_validate`)
    A neighbour count must leave that many neighbours in each fit: one counted within
    the class is capped to ``(smallest class count in that fit's training data) - 1``,
    one counted among all points to the fit's samples minus one (and MFA's between-class
    pairs to the fewest of a class), whether the grid point, the ``fixed`` parameters or
    the estimator's default sets it (:class:`locproj.engine.neighbor_counts.NeighborRule`);
    every cap is recorded in ``CVResult.capped`` (and in the result file). Grid points
    that become identical after capping are fitted once.
Available p
    Each fit yields ``p_fit = min(p_max, columns returned by transform, p_limit)``;
    CV errors for ``p > p_fit`` are NaN, and the fold mean is NaN wherever any
    fold is NaN, so such p cannot be chosen. When ``p_max`` is below ``p_limit``,
    a graph-embedding method is fitted with ``n_components = p_max`` (its first
    columns are the same bits either way) and refitted with all components only if
    the data's rank is below ``p_max``. A method whose ``n_components`` is fixed in
    the config (SLLE: an embedding dimension) is fitted with at most
    ``min(p_max, p_limit)`` of them (:func:`_at_most`).
Equal eigenvalues
    A method whose columns come from an eigenproblem that may leave a cluster of equal eigenvalues
    (its tags' ``cluster_ends``: supervised LLE) offers only the p at which its first p columns
    end a cluster (``cluster_ends_``): at any other p, rounding or an arbitrary rule would choose
    which of the cluster's directions come first. Its CV errors at the other p are NaN. A grid
    point that offers no p in a fold (its columns end inside a cluster, e.g. SLLE's ``c - 1`` null
    directions of classes pulled apart by alpha, with fewer columns) has no CV error and is
    recorded in ``CVResult.skipped`` with why. Where the refit cuts inside a cluster at the chosen
    p, the test uses the end of that cluster, all of whose directions the method ranks alike, or,
    when the cluster runs past the refit's columns, the end of the cluster before it
    (``SplitResult.test_p``).
Choice (:func:`choose`)
    Minimal mean CV error; errors within ``atol`` (1e-12) of the minimum are
    ties, broken toward smaller p, then toward the earlier grid point.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
import numbers
import re
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from locproj.core.evaluation import DEFAULT_MAX_BYTES, error_rates, predict_all_p, predict_at_p
from locproj.engine.method_failures import check_output, failure_record, failure_text
from locproj.engine.neighbor_counts import NeighborRule
from locproj.engine.results import plain

if TYPE_CHECKING:
    from locproj.methods.tags import ProjectionTags


log = logging.getLogger("locproj.engine.selection")

_M_EXPRESSION = re.compile(r"^\s*m\s*(?:([+-])\s*(\d+))?\s*$")


# --------------------------------------------------------------------------- grid


def sigma0_squared(X) -> float:
    """Compute the squared mean Euclidean norm of the rows of ``X`` (the paper's sigma_0^2, §6.2).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The samples.

    Returns
    -------
    float
        ``mean_i(||x_i||)^2``.
    """
    return float(np.mean(np.linalg.norm(np.asarray(X, dtype=np.float64), axis=1)) ** 2)


def _resolve_m_expression(value, m):
    if not isinstance(value, str):
        return value
    match = _M_EXPRESSION.match(value)
    if match is None:
        raise ValueError(f"cannot resolve grid value {value!r}; expected a number or 'm-<int>'")
    sign, offset = match.groups()
    return m + (int(offset) if sign == "+" else -int(offset)) if sign else m


def _resolve_values(name, spec, X_train, m, neighbors: NeighborRule):
    if isinstance(spec, Mapping):
        if set(spec) == {"sigma0_sq_times"}:
            scale = sigma0_squared(X_train)
            return [float(factor) * scale for factor in spec["sigma0_sq_times"]]
        if set(spec) == {"per_sigma0_sq_times"}:   # an RBF kernel's gamma, exp(-gamma ||x - y||^2)
            scale = sigma0_squared(X_train)
            return [float(factor) / scale for factor in spec["per_sigma0_sq_times"]]
        raise ValueError(f"grid spec for {name!r}: unknown form {dict(spec)!r}")
    if isinstance(spec, str) or not isinstance(spec, Sequence):
        spec = [spec]
    return neighbors.grid_values(name, [_resolve_m_expression(v, m) for v in spec], m)


def resolve_grid(method_grid_spec, X_train, y_train, m=None, *, neighbors: NeighborRule | None = None):
    """Turn a configuration grid spec into a list of concrete hyper-parameter dicts.

    Parameters
    ----------
    method_grid_spec : mapping of str to spec, or None
        ``{name: [numbers or 'm-1'...] | {"sigma0_sq_times": [...]} | scalar}``.
    X_train : array-like of shape (n_train, n_features)
        Training part of the split (for sigma_0).
    y_train : array-like of shape (n_train,)
        Training labels; ``m`` defaults to the smallest class count.
    m : int, optional
        Training samples per class.
    neighbors : NeighborRule, optional
        What the method's neighbour parameters count (see module docstring); None: nothing.

    Returns
    -------
    list of dict
        Grid points in product order (last name fastest); ``[{}]`` for an empty spec.
    """
    if m is None:
        m = int(np.unique(y_train, return_counts=True)[1].min())
    neighbors = neighbors or NeighborRule()
    resolved = {
        name: _resolve_values(name, spec, X_train, m, neighbors)
        for name, spec in (method_grid_spec or {}).items()
    }
    return [dict(zip(resolved, combo)) for combo in itertools.product(*resolved.values())]


# --------------------------------------------------------------------------- cross-validation


@dataclasses.dataclass
class CVResult:
    """Cross-validation errors of one split.

    Each parameter is also an attribute of the same name.

    Parameters
    ----------
    error : ndarray of shape (n_grid, p_max)
        Mean error over folds, ``error[g, p - 1]``; NaN where p is unavailable in some fold.
    fold_error : ndarray of shape (n_folds, n_grid, p_max)
        The error in each fold, ``fold_error[f, g, p - 1]``; NaN where p is unavailable.
    capped : list of dict
        One record ``{fold, grid_index, param, requested, used}`` per capped neighbour count
        (``fold = -1`` for the final refit).
    failed : list of dict
        Under ``on_error='record'``: one record ``{fold, grid_index, error_type, error_message,
        error_frame}`` per fit that raised (:func:`locproj.engine.method_failures.failure_record`); its grid
        point has no CV error in that fold.
    first_failure : BaseException or None, default=None
        The first exception recorded in ``failed``.
    skipped : list of dict
        ``{n_components, reason}`` for each ``n_components`` of a method whose columns are not
        ordered that asks for more columns than the folds' data give (not fitted); ``{params,
        reason}`` for each grid point that offers no p in some fold (module docstring, "Equal
        eigenvalues"). :func:`skipped_text` says them.
    """

    error: np.ndarray
    fold_error: np.ndarray
    capped: list
    failed: list = dataclasses.field(default_factory=list)
    first_failure: BaseException | None = None
    skipped: list = dataclasses.field(default_factory=list)


def _limit(p_limit, X, y):
    limit = p_limit(X, y) if callable(p_limit) else p_limit
    return np.inf if limit is None else limit


def _dimension(estimator, tags: ProjectionTags):
    """The declared dimension parameter's value (``tags.dimension``; None without one)."""
    return None if tags.dimension is None else estimator.get_params().get(tags.dimension)


def _is_count(n) -> bool:
    return isinstance(n, numbers.Integral) and not isinstance(n, bool)


def _at_most(estimator, n_columns, tags: ProjectionTags):
    """``estimator`` with a fixed integer dimension (``n_components``) above ``n_columns`` lowered to
    it (an SLLE of ``n_components`` = 100 on 60 training samples embeds them in 59 dimensions);
    ``None`` (all) and smaller values are left as they are."""
    n = _dimension(estimator, tags)
    if _is_count(n) and n > n_columns:
        estimator.set_params(**{tags.dimension: int(n_columns)})
    return estimator


def _fit_first_columns(new_estimator, params, X, y, n_columns, tags: ProjectionTags):
    """``new_estimator(params)`` fitted on ``(X, y)``; a method whose fits are nested
    (``tags.nested_fit``) is asked for only ``n_columns`` projections (these are unchanged), and
    refitted with all of them if the data's rank turns out to be lower."""
    estimator = _at_most(new_estimator(dict(params)), n_columns, tags)
    if tags.nested_fit and tags.dimension is not None and _dimension(estimator, tags) is None:
        try:
            return estimator.set_params(**{tags.dimension: n_columns}).fit(X, y)
        except ValueError:
            estimator = _at_most(new_estimator(dict(params)), n_columns, tags)
    return estimator.fit(X, y)


def _transform_first(estimator, X, n_columns, tags: ProjectionTags):
    """``estimator.transform(X)[:, :n_columns]``, computing only those columns when it can
    (``tags.first_columns``); checked (:func:`locproj.engine.method_failures.check_output`)."""
    if tags.first_columns:
        return check_output(np.asarray(estimator.transform_first(X, n_columns), dtype=np.float64), len(X))
    return check_output(np.asarray(estimator.transform(X), dtype=np.float64), len(X))[:, :n_columns]


def _fixed_width(estimator, tags: ProjectionTags) -> int | None:
    """The integer dimension an estimator is fitted with, or None: the width of its output, for a
    method whose columns are not ordered."""
    n = _dimension(estimator, tags)
    return int(n) if _is_count(n) else None


class FittedColumns(NamedTuple):
    """What :func:`fit_transform_all_p` returns.

    Parameters
    ----------
    Z_fit : ndarray of shape (n_fit, p_fit)
        The mapped training data.
    Z_other : ndarray of shape (n_other, p_fit)
        The mapped other data.
    seconds : float
        The fit's seconds.
    offered : ndarray of int or None, default=None
        The p it offers (1-based, ascending); None: every p up to its columns.
    """

    Z_fit: np.ndarray
    Z_other: np.ndarray
    seconds: float
    offered: np.ndarray | None = None


def _offered(estimator, p_fit: int, tags: ProjectionTags) -> np.ndarray | None:
    """The p in ``1..p_fit`` at which the estimator's columns end a cluster of equal eigenvalues
    (``tags.cluster_ends``), or None: every p (module docstring, "Equal eigenvalues")."""
    if not tags.cluster_ends:
        return None
    ends = np.asarray(estimator.cluster_ends_, dtype=np.int64)
    return ends[(ends >= 1) & (ends <= p_fit)]


def fit_transform_all_p(new_estimator, params, X_fit, y_fit, X_other, p_max, p_limit=None, ordered=True,
                        tags: ProjectionTags | None = None) -> FittedColumns:
    """Fit ``new_estimator(params)`` on ``(X_fit, y_fit)`` and map both data sets by it.

    Below the limit, only ``p_max`` projections are computed (:func:`_fit_first_columns`).

    Parameters
    ----------
    new_estimator : callable
        ``new_estimator(params) -> estimator``.
    params : dict
        The hyper-parameters.
    X_fit : array-like of shape (n_fit, n_features)
        The training data.
    y_fit : array-like of shape (n_fit,)
        Their labels.
    X_other : array-like of shape (n_other, n_features)
        Other data to map (held out, or test).
    p_max : int
        The most columns wanted.
    p_limit : int or callable, optional
        What the method can give (:func:`cross_validate`).
    ordered : bool, default=True
        Whether the first p columns of a fit are its p-dimensional projection. A method whose
        columns are not ordered is fitted as it is and returns all its columns: its p is its number
        of columns, which the caller compares with ``p_max``.
    tags : ProjectionTags, optional
        What the estimators can do (:class:`~locproj.methods.tags.ProjectionTags`; default: an
        ``n_components`` parameter, nothing else).

    Returns
    -------
    FittedColumns
        ``p_fit = min(p_max, columns available, p_limit)`` columns of both (all the columns of a
        method whose columns are not ordered), and the p among them it offers.
    """
    if tags is None:   # imported here: it needs scikit-learn, which the raw method never loads
        from locproj.methods.tags import ProjectionTags

        tags = ProjectionTags()
    limit = _limit(p_limit, X_fit, y_fit)
    start = time.perf_counter()
    if not ordered:
        estimator = new_estimator(dict(params)).fit(X_fit, y_fit)
        seconds = time.perf_counter() - start
        width = _fixed_width(estimator, tags)
        return FittedColumns(
            check_output(np.asarray(estimator.transform(X_fit), dtype=np.float64), len(X_fit), width=width),
            check_output(np.asarray(estimator.transform(X_other), dtype=np.float64), len(X_other), width=width),
            seconds)
    if p_max < limit:
        estimator = _fit_first_columns(new_estimator, params, X_fit, y_fit, p_max, tags)
    else:
        estimator = _at_most(new_estimator(dict(params)), limit, tags).fit(X_fit, y_fit)
    seconds = time.perf_counter() - start
    Z_fit = _transform_first(estimator, X_fit, p_max, tags)
    p_fit = int(min(p_max, Z_fit.shape[1], limit))
    return FittedColumns(Z_fit[:, :p_fit], _transform_first(estimator, X_other, p_fit, tags), seconds,
                         _offered(estimator, p_fit, tags))


def folds_for(y, n_folds: int) -> int:
    """Return the folds actually used: ``n_folds``, capped at the smallest class count.

    Every fold then holds out at least one sample of every class (3 folds for 3 images per class).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        The labels.
    n_folds : int
        The folds asked for.

    Returns
    -------
    int
        The number of folds.
    """
    return int(min(n_folds, np.unique(y, return_counts=True)[1].min()))


def cross_validate(new_estimator: Callable, grid: Sequence[Mapping], X, y, *, n_folds=5, p_max=300, p_limit=None,
                   classifier="1nn", classifier_params=None, seed=0, neighbors: NeighborRule | None = None,
                   max_bytes=DEFAULT_MAX_BYTES, n_jobs=1, ordered=True, on_error="raise",
                   tags: ProjectionTags | None = None) -> CVResult:
    """Compute the K-fold CV error of every grid point for every p, one fit per (fold, grid point).

    Parameters
    ----------
    new_estimator : callable
        ``new_estimator(params) -> estimator`` whose ``transform`` returns the projection
        with columns in order of optimality.
    grid : sequence of dict
        Concrete grid points (from :func:`resolve_grid`).
    X : array-like of shape (n_samples, n_features)
        Training part of the split.
    y : array-like of shape (n_samples,)
        Its labels.
    n_folds : int, default=5
        Folds of :class:`~sklearn.model_selection.StratifiedKFold` (shuffled with ``seed``),
        capped at the smallest class count (:func:`folds_for`).
    p_max : int, default=300
        Largest p evaluated (the paper's 300).
    p_limit : int or callable, optional
        What the method can give; ``p_limit(X_fold, y_fold) -> int`` or an integer.
    classifier : str, default="1nn"
        The classifier (:func:`locproj.core.evaluation.predict_all_p`).
    classifier_params : dict, optional
        Its keyword arguments (:func:`locproj.core.evaluation.predict_all_p`).
    seed : int, default=0
        Fold shuffling seed.
    neighbors : NeighborRule, optional
        Caps the method's neighbour counts in each fit (see module docstring); None: no cap.
    max_bytes : int, default=DEFAULT_MAX_BYTES
        Memory budget per chunk of test rows (:func:`locproj.core.evaluation.predict_all_p`).
    n_jobs : int, default=1
        Threads over chunks of test rows (:func:`locproj.core.evaluation.predict_all_p`).
    ordered : bool, default=True
        Whether the first p columns of a fit are its p-dimensional projection (every p read from one
        fit). Otherwise a grid point's only p is its number of columns (its ``n_components``), and a
        grid point with more than ``p_max`` or ``p_limit`` columns has no CV error (one whose
        ``n_components`` asks for more is not even fitted: ``CVResult.skipped`` says why).
    on_error : {'raise', 'record'}, default='raise'
        What a fit that raises costs (:mod:`locproj.engine.method_failures`): the split, or (``record``)
        its grid point's CV error in that fold (``CVResult.failed``).
    tags : ProjectionTags, optional
        What the estimators can do (:class:`~locproj.methods.tags.ProjectionTags`: their dimension
        parameter, nested fits, first columns); the registry's factories come with theirs
        (:func:`locproj.engine.registry.factory_tags`). Default: an ``n_components`` parameter.

    Returns
    -------
    CVResult
        The mean and per-fold errors, and the caps, failures and grid points skipped.
    """
    X, y = np.asarray(X), np.asarray(y)
    neighbors = neighbors or NeighborRule()
    n_folds = folds_for(y, n_folds)
    folds = _folds(X, y, n_folds, seed)
    fold_error = np.full((n_folds, len(grid), p_max), np.nan)
    options = dict(classifier=classifier, classifier_params=classifier_params, max_bytes=max_bytes, n_jobs=n_jobs)
    capped, failed, errors_raised = [], [], []
    skipped_columns, skipped_points = {}, {}   # by n_components; by grid point
    for fold, (train, held_out) in enumerate(folds):
        X_fit, y_fit, X_held = X[train], y[train], X[held_out]
        limit = min(p_max, _limit(p_limit, X_fit, y_fit))
        cache = {}
        for index, point in enumerate(grid):
            params, changes = neighbors.cap(point, y_fit)
            capped += [
                {"fold": fold, "grid_index": index, "param": n, "requested": r, "used": u}
                for n, r, u in changes
            ]
            key = json.dumps(plain(params), sort_keys=True)
            if not ordered and _beyond(params, limit):
                cache[key] = np.full(0, np.nan)   # asks for more columns than it can give or CV reads
                skipped_columns.setdefault(params["n_components"], _limit_reason(limit, p_max, X_fit))
            if key not in cache:
                try:
                    cache[key] = _fold_errors(new_estimator, params, X_fit, y_fit, X_held, y[held_out], p_max,
                                              p_limit, ordered, limit, options, tags)
                except Exception as error:
                    cache[key] = _no_errors(error, on_error, key, params, (fold, index), skipped_points, failed)
                    errors_raised += [] if isinstance(error, _NothingOffered) else [error]
            errors = cache[key]
            fold_error[fold, index, : errors.size] = errors
    return CVResult(error=fold_error.mean(axis=0), fold_error=fold_error, capped=capped, failed=failed,
                    first_failure=errors_raised[0] if errors_raised else None,
                    skipped=[{"n_components": n, "reason": reason} for n, reason in sorted(skipped_columns.items())]
                    + [skipped_points[key] for key in sorted(skipped_points)])


def _no_errors(error: Exception, on_error: str, key: str, params, where: tuple[int, int], skipped_points: dict,
               failed: list) -> np.ndarray:
    """No CV errors for a grid point in a fold whose fit raised ``error`` at ``where`` (fold, grid index): a
    grid point that offers no p is recorded in ``skipped_points``, a failure in ``failed`` when ``on_error``
    is ``'record'``; any other failure is raised again."""
    if isinstance(error, _NothingOffered):
        skipped_points.setdefault(key, {"params": plain(params), "columns": error.columns, "reason": CLUSTER_REASON})
    elif on_error == "record":
        failed.append({"fold": where[0], "grid_index": where[1], **failure_record(error)})
    else:
        raise error
    return np.full(0, np.nan)


#: Why a grid point offers no p (module docstring, "Equal eigenvalues").
CLUSTER_REASON = "their columns end inside a cluster of equal eigenvalues, which the data do not order"


class _NothingOffered(Exception):
    """A fit whose ``columns`` columns offer no p (module docstring, "Equal eigenvalues")."""

    def __init__(self, columns: int):
        super().__init__(f"its {columns} columns end inside a cluster of equal eigenvalues")
        self.columns = columns


def _fold_errors(new_estimator, params, X_fit, y_fit, X_held, y_held, p_max, p_limit, ordered, limit, options, tags):
    """One fit's CV error on the held-out part of its fold, at every p it offers (an unordered method:
    at its own)."""
    Z_fit, Z_held, _, offered = fit_transform_all_p(new_estimator, params, X_fit, y_fit, X_held, p_max, p_limit,
                                                    ordered, tags)
    if not ordered:
        return _error_at_own_p(Z_fit, y_fit, Z_held, y_held, limit, options)
    if offered is not None and not len(offered):
        raise _NothingOffered(Z_fit.shape[1])
    return _errors_at(Z_fit, y_fit, Z_held, y_held, offered, options)


def _errors_at(Z_fit, y_fit, Z_other, y_other, offered, options) -> np.ndarray:
    """The error at every p of ``Z_fit``'s columns: NaN at the p not ``offered`` (None: all offered)."""
    if offered is None:
        return error_rates(predict_all_p(Z_fit, y_fit, Z_other, **options), y_other)
    errors = np.full(Z_fit.shape[1], np.nan)
    if len(offered):
        errors[offered - 1] = error_rates(predict_all_p(Z_fit, y_fit, Z_other, p_values=offered, **options), y_other)
    return errors


def _limit_reason(limit, p_max: int, X_fit) -> str:
    """Why a fold's data give at most ``limit`` columns: features, samples, p_max or max_components."""
    n, d = X_fit.shape
    if limit == d:
        return f"the data have {d} features"
    if limit == n - 1:
        return f"the training folds have {n} samples"
    if limit == p_max:
        return f"p_max is {p_max}"
    return f"the method gives at most {int(limit)} columns"


def _folds(X, y, n_folds: int, seed):
    """The (fit, held-out) index pairs of the CV folds: stratified, shuffled with ``seed``."""
    from sklearn.model_selection import StratifiedKFold

    return StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed).split(X, y)


def raw_cv_fold_error(X, y, *, n_folds=5, seed=0, classifier="1nn", **predict_options) -> np.ndarray | None:
    """Compute the classifier's error on the raw features in each CV fold.

    The folds are those :func:`cross_validate` uses for the same ``y``, ``n_folds`` and ``seed``:
    the baseline drawn under the methods' CV curves.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Training part of the split.
    y : array-like of shape (n_samples,)
        Its labels.
    n_folds : int, default=5
        Folds asked for (:func:`folds_for`).
    seed : int, default=0
        Fold shuffling seed.
    classifier : str, default="1nn"
        The classifier (:func:`locproj.core.evaluation.predict_all_p`).
    **predict_options
        ``classifier_params``, ``max_bytes``, ``n_jobs`` of :func:`locproj.core.evaluation.predict_all_p`.

    Returns
    -------
    ndarray of shape (n_folds,) or None
        The error in each fold; None when a class has a single sample (no folds).
    """
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
    if folds_for(y, n_folds) < 2:
        return None
    return np.array([
        float(np.mean(predict_at_p(X[fit], y[fit], X[held_out], X.shape[1], classifier=classifier,
                                   **predict_options) != y[held_out]))
        for fit, held_out in _folds(X, y, folds_for(y, n_folds), seed)
    ])


def skipped_text(items, dataset: str) -> str:
    """Say what ``CVResult.skipped``'s records say, in a sentence per kind.

    Parameters
    ----------
    items : list of dict
        The records (``CVResult.skipped``).
    dataset : str
        The dataset's name.

    Returns
    -------
    str
        ``'n_components 5, 10 not fitted on iris: the data have 4 features'`` (a method whose columns
        are not ordered) and ``'grid points with alpha 0.2, 1; n_neighbors 9, 19 offer no p on thyroid
        (1 or 2 columns): their columns end inside ...'`` ("Equal eigenvalues"), joined by ``'; '``.
    """
    sentences = []
    columns = [item for item in items if "n_components" in item]
    if columns:
        values = ", ".join(f"{v:g}" for v in sorted({item["n_components"] for item in columns}))
        sentences.append(f"n_components {values} not fitted on {dataset}: {_reasons(columns)}")
    points = [item for item in items if "params" in item]
    if points:
        names = sorted({name for item in points for name in item["params"]})
        values = "; ".join(f"{name} " + ", ".join(_sorted_short(item["params"][name] for item in points
                                                                if name in item["params"]))
                           for name in names)
        widths = sorted({item["columns"] for item in points if "columns" in item})
        where = f"{dataset} ({_one_of(widths)} column{'' if widths == [1] else 's'})" if widths else dataset
        sentences.append(f"grid points with {values} offer no p on {where}: {_reasons(points)}")
    return "; ".join(sentences)


def _reasons(items) -> str:
    return "; ".join(dict.fromkeys(item["reason"] for item in items))


def _one_of(values) -> str:
    """``'1, 2 or 3'``."""
    words = [str(value) for value in values]
    return " or ".join([", ".join(words[:-1]), words[-1]]) if len(words) > 1 else "".join(words)


def _sorted_short(values) -> list[str]:
    """Distinct grid values, numbers ascending before the rest, as :func:`_short` writes them."""
    def key(value):
        number = isinstance(value, numbers.Real) and not isinstance(value, bool)
        return (0, value, "") if number else (1, 0, _short(value))

    return list(dict.fromkeys(_short(value) for value in sorted(values, key=key)))


def _short(value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_short(v) for v in value) + "]"
    return f"{value:g}" if isinstance(value, numbers.Real) and not isinstance(value, bool) else str(value)


def _beyond(params, limit) -> bool:
    """Whether a grid point of a method whose columns are not ordered asks for more columns
    (``n_components``) than ``limit``: such a point has no CV error and is not fitted (NCA's
    ``n_components = 30`` on Letter's 16 features)."""
    n = params.get("n_components")
    return isinstance(n, numbers.Integral) and not isinstance(n, bool) and n > limit


def _error_at_own_p(Z_fit, y_fit, Z_held, y_held, p_max, options) -> np.ndarray:
    """CV errors of a method whose columns are not ordered: NaN at every p but its own (its number
    of columns), and NaN there too when it has more columns than ``p_max``."""
    p = Z_fit.shape[1]
    errors = np.full(min(p, p_max), np.nan)
    if p <= p_max:
        errors[p - 1] = np.mean(predict_at_p(Z_fit, y_fit, Z_held, p, **options) != y_held)
    return errors


def choose(cv_error, atol=1e-12):
    """Choose the grid index and p of the minimal mean CV error.

    Errors within ``atol`` of the minimum count as ties; ties are broken toward
    the smaller p, then toward the earlier grid point. NaN entries are ignored.

    Parameters
    ----------
    cv_error : ndarray of shape (n_grid, p_max)
        The mean CV errors (``CVResult.error``).
    atol : float, default=1e-12
        The tolerance of ties.

    Returns
    -------
    (int, int)
        ``(grid_index, p)`` with p 1-based.
    """
    cv_error = np.asarray(cv_error, dtype=np.float64)
    if not np.any(np.isfinite(cv_error)):
        raise ValueError("no finite cross-validation error to choose from")
    best = np.nanmin(cv_error)
    with np.errstate(invalid="ignore"):
        ties = cv_error <= best + atol
    p_index, grid_index = np.argwhere(ties.T)[0]  # rows of argwhere are in (p, grid) order
    return int(grid_index), int(p_index) + 1


# --------------------------------------------------------------------------- one split


@dataclasses.dataclass
class SplitResult:
    """Outcome of one split's computation (dataset, m, split, method).

    Its file layout is :func:`locproj.engine.results.write_result`'s. Each parameter is also an
    attribute of the same name.

    Parameters
    ----------
    method : str
        The method's name.
    classifier : str
        The classifier (:func:`locproj.core.evaluation.predict_all_p`).
    classifier_params : dict
        Its keyword arguments.
    grid : list of dict
        The grid points (:func:`resolve_grid`); ``[{}]`` for ``raw``.
    cv_error : ndarray of shape (n_grid, p_max)
        The mean CV error (``CVResult.error``); empty for ``raw``.
    cv_fold_error : ndarray of shape (n_folds, n_grid, p_max)
        The CV error of each fold; empty for ``raw``.
    capped : list of dict
        The neighbour counts capped, in CV and (``fold = -1``) in the refit (``CVResult.capped``).
    grid_index : int
        The chosen grid point (:func:`choose`).
    params : dict
        Its hyper-parameters as the refit used them (capped).
    p : int
        The chosen number of projections; for ``raw``, the number of features.
    projected : bool
        False for ``raw``.
    test_error : float
        The fraction of test samples misclassified at the p tested (``test_p``, else ``p``).
    test_predictions : ndarray of shape (n_test,)
        The predicted test labels.
    test_indices : ndarray of shape (n_test,) or None
        The test samples' indices in the dataset, when given.
    fit_seconds : float
        The refit's seconds.
    cv_seconds : float
        The cross-validation's seconds.
    n_folds : int
        The folds used (:func:`folds_for`).
    cv_seed : int
        The fold shuffling seed.
    p_max : int
        The largest p evaluated.
    meta : dict
        Identification (experiment, dataset, m, split...).
    test_error_curve : ndarray of shape (p_fit,) or None, default=None
        The test error at every p, when the split recorded it (``test_curve``).
    raw_cv_fold_error : ndarray of shape (n_folds,) or None, default=None
        ``raw`` only: the classifier's error on the raw features in each CV fold
        (:func:`raw_cv_fold_error`).
    failed_fits : list of dict, default=[]
        The fits that raised in CV (``CVResult.failed``).
    skipped : list of dict, default=[]
        The ``n_components`` not fitted and the grid points that offered no p (``CVResult.skipped``).
    test_p : int or None, default=None
        The p tested where the refit's equal eigenvalues moved it from ``p`` (module docstring,
        "Equal eigenvalues"); None where it is ``p``.
    """

    method: str
    classifier: str
    classifier_params: dict
    grid: list
    cv_error: np.ndarray
    cv_fold_error: np.ndarray
    capped: list
    grid_index: int
    params: dict
    p: int
    projected: bool
    test_error: float
    test_predictions: np.ndarray
    test_indices: np.ndarray | None
    fit_seconds: float
    cv_seconds: float
    n_folds: int
    cv_seed: int
    p_max: int
    meta: dict
    test_error_curve: np.ndarray | None = None
    raw_cv_fold_error: np.ndarray | None = None
    failed_fits: list = dataclasses.field(default_factory=list)
    skipped: list = dataclasses.field(default_factory=list)
    test_p: int | None = None


def run_split(X_train, y_train, X_test, y_test, *, method, new_estimator=None, grid_spec=None, m=None, p_max=300,
              p_limit=None, classifier="1nn", classifier_params=None, n_folds=5, seed=0, test_indices=None, meta=None,
              neighbors: NeighborRule | None = None, max_bytes=DEFAULT_MAX_BYTES, n_jobs=1, test_curve=False,
              ordered=True, on_error="raise", tags: ProjectionTags | None = None) -> SplitResult:
    """Resolve the grid, cross-validate, refit on the whole training part and test.

    Without ``new_estimator`` (a method that projects nothing, such as ``raw``) there is no
    projection and no CV: the classifier runs on the raw features and ``p`` is their number.

    Parameters
    ----------
    X_train, y_train, X_test, y_test : array-like
        One training/test split.
    method : str
        Method name (stored in the result).
    new_estimator : callable, optional
        Estimator factory ``new_estimator(params) -> estimator``; None for a method that projects
        nothing.
    grid_spec : mapping, optional
        Configuration grid, see :func:`resolve_grid`.
    m : int, optional
        Training samples per class (default: smallest class count).
    p_max : int, default=300
        Largest p evaluated (:func:`cross_validate`).
    p_limit : int or callable, optional
        What the method can give (:func:`cross_validate`).
    classifier : str, default="1nn"
        The classifier (:func:`locproj.core.evaluation.predict_all_p`).
    classifier_params : dict, optional
        Its keyword arguments.
    n_folds : int, default=5
        Folds of the cross-validation (:func:`cross_validate`).
    seed : int, default=0
        Fold shuffling seed.
    test_indices : array-like, optional
        Indices of the test samples in the dataset, stored for traceability.
    meta : dict, optional
        Identification stored as root attributes (experiment, dataset, m, split...).
    neighbors : NeighborRule, optional
        What the method's neighbour parameters count (:func:`cross_validate`); None: nothing.
    max_bytes : int, default=DEFAULT_MAX_BYTES
        Memory budget per chunk of test rows (:func:`locproj.core.evaluation.predict_all_p`).
    n_jobs : int, default=1
        Threads over chunks of test rows (:func:`locproj.core.evaluation.predict_all_p`).
    test_curve : bool, default=False
        Also record the test error of the refitted projection at every p = 1..p_fit
        (``test_error_curve``; the dimension-curve protocol). ``test_error`` stays the error
        at the CV-chosen p (or at ``test_p``: :class:`SplitResult`). A method whose columns are
        not ordered is refitted at each ``n_components`` of its grid (the other parameters as
        chosen): NaN at the other p.
    ordered : bool, default=True
        See :func:`cross_validate`: without it, p is chosen with the grid point (its ``n_components``).
    on_error : {'raise', 'record'}, default='raise'
        What a fit that raises in CV costs (:func:`cross_validate`).
    tags : ProjectionTags, optional
        What the estimators can do (:func:`cross_validate`).

    Returns
    -------
    SplitResult
        The grid, the CV errors, the choice, and the test of the refit.
    """
    X_train, y_train = np.asarray(X_train, dtype=np.float64), np.asarray(y_train)
    X_test, y_test = np.asarray(X_test, dtype=np.float64), np.asarray(y_test)
    predict_options = dict(
        classifier=classifier, classifier_params=classifier_params, max_bytes=max_bytes, n_jobs=n_jobs
    )
    common = dict(
        method=method, classifier=classifier, classifier_params=dict(classifier_params or {}),
        test_indices=None if test_indices is None else np.asarray(test_indices),
        n_folds=folds_for(y_train, n_folds), cv_seed=seed, p_max=p_max, meta=dict(meta or {}),
    )
    if new_estimator is None:
        return _raw_split(X_train, y_train, X_test, y_test, n_folds, seed, predict_options, common)

    neighbors = neighbors or NeighborRule()
    grid = resolve_grid(grid_spec, X_train, y_train, m, neighbors=neighbors)
    start = time.perf_counter()
    cv = cross_validate(
        new_estimator, grid, X_train, y_train, n_folds=n_folds, p_max=p_max, p_limit=p_limit, seed=seed,
        neighbors=neighbors, ordered=ordered, on_error=on_error, tags=tags, **predict_options,
    )
    cv_seconds = time.perf_counter() - start
    _report_cv(method, cv, len(grid) * common["n_folds"], meta)
    grid_index, p = choose(cv.error)

    params, changes = neighbors.cap(grid[grid_index], y_train)
    capped = cv.capped + [
        {"fold": -1, "grid_index": grid_index, "param": n, "requested": r, "used": u} for n, r, u in changes
    ]
    if test_curve and not ordered:        # the n_components of the grid, where the curve has points
        test_curve = [int(point["n_components"]) for point in grid
                      if isinstance(point.get("n_components"), numbers.Integral)] or [p]
    predictions, curve, fit_seconds, test_p = _refit_and_test(
        new_estimator, params, p, X_train, y_train, X_test, y_test, p_max, p_limit, ordered, test_curve,
        predict_options, tags)
    return SplitResult(
        grid=grid, cv_error=cv.error, cv_fold_error=cv.fold_error, capped=capped,
        grid_index=grid_index, params=params, p=p, projected=True,
        test_error=float(np.mean(predictions != y_test)), test_predictions=predictions,
        fit_seconds=fit_seconds, cv_seconds=cv_seconds, test_error_curve=curve, failed_fits=cv.failed,
        skipped=cv.skipped, test_p=None if test_p == p else test_p, **common,
    )


def _report_cv(method: str, cv: CVResult, n_fits: int, meta) -> None:
    """Log the grid values not fitted and the fits that failed (the job's log); a split whose every
    grid point failed fails, with the first failure as its cause."""
    if cv.skipped:
        log.info("%s: %s", method, skipped_text(cv.skipped, (meta or {}).get("dataset", "the data")))
    if cv.failed:
        log.warning("%s: %d of %d fits failed in cross-validation (no CV error for their grid point in that "
                    "fold); the first: %s", method, len(cv.failed), n_fits, failure_text(cv.failed[0]))
        if not np.any(np.isfinite(cv.error)):
            first = cv.failed[0]
            raise RuntimeError(f"every grid point of {method} failed in cross-validation ({len(cv.failed)} fits); "
                               f"the first: {first['error_type']}: {first['error_message']}") from cv.first_failure


def _refit_and_test(new_estimator, params, p: int, X_train, y_train, X_test, y_test, p_max: int, p_limit,
                    ordered: bool, test_curve, predict_options: dict, tags: ProjectionTags | None):
    """The method refitted with the chosen ``params`` on the whole training part and tested at the
    chosen ``p``: ``(predictions, curve, fit_seconds, test_p)``, ``curve`` the test error at every p
    when ``test_curve`` (else None), ``test_p`` the p tested (:func:`_refit_p`). A method whose columns
    are not ordered gets its test error at each ``n_components`` of ``test_curve`` (its grid's, the
    other parameters as chosen), NaN at the other p."""
    Z_train, Z_test, fit_seconds, offered = fit_transform_all_p(new_estimator, params, X_train, y_train, X_test,
                                                                p_max, p_limit, ordered, tags)
    if p > Z_train.shape[1]:
        raise RuntimeError(f"refit gives {Z_train.shape[1]} projections, CV chose p={p}")
    test_p = _refit_p(p, offered)
    predictions = predict_at_p(Z_train, y_train, Z_test, test_p, **predict_options)
    curve = _errors_at(Z_train, y_train, Z_test, y_test, offered, predict_options) if test_curve and ordered else None
    if test_curve and not ordered:
        limit = min(p_max, _limit(p_limit, X_train, y_train))
        values = sorted({v for v in test_curve if v <= limit} | {p})
        curve = np.full(max(values), np.nan)
        curve[p - 1] = np.mean(predictions != y_test)
        for v in values:
            if v != p:
                Z_v, Z_v_test, *_ = fit_transform_all_p(new_estimator, {**params, "n_components": v}, X_train, y_train,
                                                       X_test, p_max, p_limit, ordered, tags)
                curve[v - 1] = np.mean(predict_at_p(Z_v, y_train, Z_v_test, v, **predict_options) != y_test)
    return predictions, curve, fit_seconds, test_p


def _refit_p(p: int, offered) -> int:
    """The p the refit is tested at: CV's ``p`` where the refit offers it; else the end of the
    cluster of equal eigenvalues that ``p`` cuts (the first offered p above it: every direction of a
    cluster scores alike, so all of them are what CV's p chose a part of); else, when that cluster
    runs past the refit's columns, the end of the cluster before it."""
    if offered is None or p in offered:
        return p
    above, below = offered[offered > p], offered[offered < p]
    if len(above):
        return int(above[0])
    if len(below):
        return int(below[-1])
    raise RuntimeError(f"the refit's columns end inside a cluster of equal eigenvalues, which the data do not "
                       f"order: no p is offered (CV chose p={p})")


def _raw_split(X_train, y_train, X_test, y_test, n_folds: int, seed, predict_options: dict, common: dict):
    """:func:`run_split` of ``raw``: the classifier on the raw features; its CV error is the baseline."""
    predictions = predict_at_p(X_train, y_train, X_test, X_train.shape[1], **predict_options)
    return SplitResult(
        grid=[{}], cv_error=np.empty((0, 0)), cv_fold_error=np.empty((0, 0, 0)), capped=[],
        grid_index=0, params={}, p=X_train.shape[1], projected=False,
        test_error=float(np.mean(predictions != y_test)), test_predictions=predictions,
        fit_seconds=0.0, cv_seconds=0.0,
        raw_cv_fold_error=raw_cv_fold_error(X_train, y_train, n_folds=n_folds, seed=seed, **predict_options),
        **common,
    )
