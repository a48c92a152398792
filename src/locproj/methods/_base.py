"""Shared mechanics of the graph-embedding estimators: validation, solving, column scaling."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.linalg import blas
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin, _fit_context
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ..core.memory import WAYS_OUT, check_memory
from ..core.solvers import solve_embedding
from .tags import declare

_COLUMN_SCALINGS = ("unit", "constraint")


@dataclass(frozen=True)
class GraphProblem:
    """What a method hands to :func:`locproj.core.solvers.solve_embedding`.

    ``constraint_scale`` multiplies the solver's constraint-scaled columns when
    ``column_scaling='constraint'`` (e.g. ``sqrt(n)`` for LEA's ``P^T X X^T P = n I``).
    """

    L: Any
    B: Any = None
    constraint: str = "B"
    maximize: bool = False
    constraint_scale: float = 1.0


class RankDeficiencyWarning(UserWarning):
    """The data's rank limits the components: a projection kept fewer than ``min(n_samples - 1,
    n_features)`` (the centred training data are rank-deficient), or ``LocalProjectionKernelSVC``
    was asked for more projection columns than the rank of X. The message says how many and why."""


def _unsupervised_fix(estimator) -> str:
    return " or set supervised=False" if "supervised" in estimator.get_params() else ""


def check_fit_values(estimator, X: np.ndarray) -> None:
    """The degenerate-input contract shared by every estimator (docs/methods.md, "Degenerate
    input"): a clear ``ValueError`` for values whose squares overflow float64, for data in which
    every sample is the same point (rank 0: there is no direction to project onto) and for
    differences so small that their squares underflow."""
    name = type(estimator).__name__
    n, d = X.shape
    largest = float(np.abs(X).max(initial=0.0))
    # squared distances, scatter and Gram matrices sum up to n * d squares of differences (2 max|x|)
    limit = np.sqrt(np.finfo(np.float64).max) / (2.0 * n * d)
    if largest > limit:
        raise ValueError(
            f"{name}: X has entries up to {largest:.3g} in absolute value, so squared distances and "
            f"scatter matrices would overflow float64 (limit {limit:.3g} for {n} x {d} data); "
            "rescale X first, e.g. X / np.abs(X).max() or sklearn.preprocessing.StandardScaler."
        )
    spread = float(np.ptp(X, axis=0).max(initial=0.0)) if n else 0.0
    if spread == 0:
        raise ValueError(
            f"{name}: all {n} samples of X are identical (constant data: the centred data have "
            "rank 0), so there is no direction to project onto; pass at least two distinct samples."
        )
    # squares of differences must stay normal numbers with a full mantissa
    tiny = np.sqrt(np.finfo(np.float64).tiny) / np.finfo(np.float64).eps
    if spread < tiny:
        raise ValueError(
            f"{name}: the samples of X differ by at most {spread:.3g}, so squared distances and "
            f"scatter matrices would underflow float64 (limit {tiny:.3g}); rescale X first, e.g. "
            "X / np.abs(X).max() or sklearn.preprocessing.StandardScaler."
        )


def check_fit_classes(estimator, y: np.ndarray) -> None:
    """A supervised fit needs at least two classes (clear ``ValueError`` naming the fix)."""
    classes = np.unique(y)
    if len(classes) < 2:
        label = classes[0].item() if isinstance(classes[0], np.generic) else classes[0]
        raise ValueError(
            f"{type(estimator).__name__} is supervised and needs at least 2 classes in y, got 1 "
            f"(class {label!r}); pass labels of at least two classes{_unsupervised_fix(estimator)}."
        )


def validate_fit_data(estimator, X, y, supervised: bool):
    """``validate_data`` for fit; labels are required (and must be classes) when supervised.

    Any dtype and memory layout is accepted (converted to C-ordered float64 by scikit-learn's
    ``validate_data``); :func:`check_fit_values` and :func:`check_fit_classes` apply the
    degenerate-input contract."""
    if supervised:
        if y is None:
            raise ValueError(
                f"{type(estimator).__name__} requires y to be passed, but the target y is None "
                "(supervised: y holds the class labels); "
                f"pass y{_unsupervised_fix(estimator)}."
            )
        X, y = validate_data(estimator, X, y, ensure_min_samples=2, dtype=np.float64, order="C")
        check_classification_targets(y)
        check_fit_values(estimator, X)
        check_fit_classes(estimator, y)
        return X, y
    X = validate_data(estimator, X, ensure_min_samples=2, dtype=np.float64, order="C")
    check_fit_values(estimator, X)
    return X, None


def warn_rank_deficient(estimator, kept: int, n_samples: int, n_features: int, why: str) -> None:
    """:class:`RankDeficiencyWarning` when ``n_components=None`` kept fewer than
    ``min(n_samples - 1, n_features)`` components."""
    full = min(n_samples - 1, n_features)
    if estimator.n_components is None and kept < full:
        warnings.warn(
            f"{type(estimator).__name__}: kept {kept} component{'s' if kept != 1 else ''} of "
            f"min(n_samples - 1, n_features) = {full}: {why}.  Set n_components <= {kept} to "
            "silence this warning.", RankDeficiencyWarning, stacklevel=3)


def scale_columns(P: np.ndarray, column_scaling: str, constraint_scale: float = 1.0,
                  gram: np.ndarray | None = None) -> np.ndarray:
    """``'unit'``: unit Euclidean length (``gram`` given: unit ``sqrt(p^T G p)``, the RKHS norm
    for kernel methods); ``'constraint'``: the solver's constraint-scaled columns times
    ``constraint_scale``."""
    if column_scaling == "constraint":
        return P * constraint_scale
    if column_scaling != "unit":
        raise ValueError(f"column_scaling must be one of {_COLUMN_SCALINGS}, got {column_scaling!r}.")
    if gram is None:
        sq = np.einsum("ij,ij->j", P, P)
    else:  # G P through scipy's BLAS, like the solver (G symmetric: its transpose is G, Fortran-ordered)
        sq = np.einsum("ij,ij->j", P, blas.dgemm(1.0, np.ascontiguousarray(gram).T, P))
    norms = np.sqrt(np.clip(sq, 0.0, None))
    return P / np.where(norms > 0, norms, 1.0)


def leading_above(estimator, eigenvalues: np.ndarray, floor: float, why: str) -> slice:
    """The leading columns whose eigenvalue (descending) exceeds ``floor``; a ``ValueError`` naming
    the estimator and ``why`` there is none."""
    count = int(np.count_nonzero(eigenvalues > floor))
    if count == 0 and len(eigenvalues):
        raise ValueError(f"{type(estimator).__name__}: no direction has an eigenvalue above {floor:.3g} ({why}); "
                         "check for duplicated samples or try other parameters.")
    return slice(0, count)


class ProjectionTransformer(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Base class of every locproj transformer: ``get_feature_names_out`` (the lower-cased class
    name and the column index, ``localitypreservingprojection0``, ...) and, through it,
    ``set_output(transform="pandas")``.  Subclasses declare ``_parameter_constraints``, validate
    them in ``fit`` (``@_fit_context``) and set ``n_components_``, the number of output columns
    (or override ``_n_features_out``). What it can do is declared in its scikit-learn tags, a
    :class:`~locproj.methods.tags.ProjectionTags` (a dimension parameter ``n_components``; subclasses
    declare more).
    """

    _parameter_constraints: dict = {}

    @property
    def _n_features_out(self):
        return self.n_components_

    def _peak_memory_bytes(self, n_samples: int, n_features: int, y=None) -> float | None:
        """The estimated peak memory of ``fit`` on ``n_samples x n_features`` data (labels ``y``) beyond
        the data themselves, in bytes; None for a method whose memory grows no faster than ``n d``, ``n k``
        or ``d^2`` (no dense ``n x n`` state), which is not checked. docs/scale.md, "Memory"."""
        return None

    def _memory_ways_out(self) -> tuple[str, ...]:
        """The ways out a :class:`~locproj.core.memory.NotEnoughMemoryError` of this method names."""
        return WAYS_OUT

    def _check_memory(self, X, y=None) -> None:
        """A :class:`~locproj.core.memory.NotEnoughMemoryError` before ``fit`` allocates, when its
        estimated peak (:meth:`_peak_memory_bytes`) exceeds the memory available."""
        need = self._peak_memory_bytes(*X.shape, y)
        if need is not None:
            check_memory(need, n=X.shape[0], what=f"{type(self).__name__}.fit ({X.shape[1]} features)",
                         ways_out=self._memory_ways_out())

    def __sklearn_tags__(self):
        return declare(super().__sklearn_tags__())


def fit_memory(estimator, n_samples: int, n_features: int, y=None) -> tuple[float, tuple[str, ...]] | None:
    """Estimate the peak memory of fitting ``estimator`` on ``n_samples x n_features`` data.

    Parameters
    ----------
    estimator : estimator instance
        The unfitted estimator, with the parameters of the fit.
    n_samples, n_features : int
        The shape of the training data.
    y : array-like of shape (n_samples,), optional
        The training labels, for a method whose memory depends on the class sizes.

    Returns
    -------
    estimate : tuple of (float, tuple of str) or None
        The bytes needed beyond the data themselves and the ways out that a
        :class:`~locproj.core.memory.NotEnoughMemoryError` names; None for an estimator that is not
        locproj's or whose memory grows no faster than ``n d``, ``n k`` or ``d^2`` (docs/scale.md,
        "Memory").
    """
    if not isinstance(estimator, ProjectionTransformer):
        return None
    need = estimator._peak_memory_bytes(n_samples, n_features, y)
    return None if need is None else (need, estimator._memory_ways_out())


class LinearProjection(ProjectionTransformer):
    """Base class of every linear projection: ``transform`` and the supervision tag.

    Subclasses set ``components_`` (n_components, n_features) and ``mean_`` in ``fit``.
    """

    def _needs_labels(self) -> bool:
        return bool(getattr(self, "supervised", False))

    def transform(self, X):
        """Project ``X``: ``(X - mean_) @ components_.T``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data to project.

        Returns
        -------
        X_new : ndarray of shape (n_samples, ``n_components_``)
            The projected data.
        """
        return self.transform_first(X, None)

    def transform_first(self, X, n_columns):
        """Compute the first ``n_columns`` columns of ``transform(X)``, and only those.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data to project.
        n_columns : int or None
            The number of leading columns; None for all of them.

        Returns
        -------
        X_new : ndarray of shape (n_samples, min(n_columns, ``n_components_``))
            The first ``n_columns`` columns of ``transform(X)``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64, order="C")
        return (X - self.mean_) @ self.components_[:n_columns].T

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = self._needs_labels()
        return declare(tags, first_columns=True, linear_map=True)


class GraphEmbeddingTransformer(LinearProjection):
    """Base class: subclasses implement :meth:`_problem` (the graph and the constraint).

    Fitted attributes: ``components_`` (n_components, n_features), ``mean_``,
    ``eigenvalues_``, ``n_components_``, ``n_features_in_``.
    """

    def __sklearn_tags__(self):
        return declare(super().__sklearn_tags__(), nested_fit=True)

    def _problem(self, X: np.ndarray, y: np.ndarray | None) -> GraphProblem:  # pragma: no cover
        raise NotImplementedError

    def _kept(self, eigenvalues: np.ndarray, rank: int) -> slice:
        """The solver's columns the projection keeps: all of them, unless a method drops those whose
        eigenvalue its authors' code drops (:func:`leading_above`)."""
        return slice(None)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Learn the projection from training data ``X`` (and labels ``y`` when supervised).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,), default=None
            Class labels; required by a supervised estimator, ignored by an unsupervised one.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, y = validate_fit_data(self, X, y, self._needs_labels())
        self._check_memory(X, y)
        problem = self._problem(X, y)
        emb = solve_embedding(X, problem.L, problem.B, constraint=problem.constraint,
                              n_components=self.n_components, maximize=problem.maximize)
        if emb.rank == 0:  # unreachable after check_fit_values, kept as the contract's backstop
            raise ValueError(f"{type(self).__name__}: the centred training data have numerical rank 0; "
                             "pass samples that differ, or rescale X.")
        kept = self._kept(emb.eigenvalues, emb.rank)
        P = scale_columns(emb.components[:, kept], self.column_scaling, problem.constraint_scale)
        self.components_ = P.T
        self.mean_ = emb.mean
        self.eigenvalues_ = emb.eigenvalues[kept]
        self.n_components_ = P.shape[1]
        warn_rank_deficient(self, emb.rank, *X.shape,
                            f"the centred training data have rank {emb.rank}")
        return self


