"""Shared mechanics of the graph-embedding estimators: validation, solving, column scaling."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.linalg import blas
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ..solvers import solve_embedding

_COLUMN_SCALINGS = ("unit", "constraint")


@dataclass(frozen=True)
class GraphProblem:
    """What a method hands to :func:`locproj.solvers.solve_embedding`.

    ``constraint_scale`` multiplies the solver's constraint-scaled columns when
    ``column_scaling='constraint'`` (e.g. ``sqrt(n)`` for LEA's ``P^T X X^T P = n I``).
    """

    L: Any
    B: Any = None
    constraint: str = "B"
    maximize: bool = False
    constraint_scale: float = 1.0


def validate_fit_data(estimator, X, y, supervised: bool):
    """``validate_data`` for fit; labels are required (and must be classes) when supervised."""
    if supervised:
        if y is None:
            raise ValueError(
                f"{type(estimator).__name__} requires y to be passed, but the target y is None "
                "(supervised: y holds the class labels); "
                "pass y or set supervised=False."
            )
        X, y = validate_data(estimator, X, y, ensure_min_samples=2, dtype=np.float64)
        check_classification_targets(y)
        return X, y
    X = validate_data(estimator, X, ensure_min_samples=2, dtype=np.float64)
    return X, None


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


class LinearProjection(TransformerMixin, BaseEstimator):
    """Base class of every linear projection: ``transform`` and the supervision tag.

    Subclasses set ``components_`` (n_components, n_features) and ``mean_`` in ``fit``.
    """

    def _needs_labels(self) -> bool:
        return bool(getattr(self, "supervised", False))

    def transform(self, X):
        """Project ``X``: ``(X - mean_) @ components_.T``."""
        return self.transform_first(X, None)

    def transform_first(self, X, n_columns):
        """The first ``n_columns`` columns of ``transform(X)`` (all for None), computing only those."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return (X - self.mean_) @ self.components_[:n_columns].T

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = self._needs_labels()
        return tags


class GraphEmbeddingTransformer(LinearProjection):
    """Base class: subclasses implement :meth:`_problem` (the graph and the constraint).

    Fitted attributes: ``components_`` (n_components, n_features), ``mean_``,
    ``eigenvalues_``, ``n_components_``, ``n_features_in_``.
    """

    def _problem(self, X: np.ndarray, y: np.ndarray | None) -> GraphProblem:  # pragma: no cover
        raise NotImplementedError

    def fit(self, X, y=None):
        """Learn the projection from training data ``X`` (and labels ``y`` when supervised)."""
        X, y = validate_fit_data(self, X, y, self._needs_labels())
        problem = self._problem(X, y)
        emb = solve_embedding(X, problem.L, problem.B, constraint=problem.constraint,
                              n_components=self.n_components, maximize=problem.maximize)
        P = scale_columns(emb.components, self.column_scaling, problem.constraint_scale)
        self.components_ = P.T
        self.mean_ = emb.mean
        self.eigenvalues_ = emb.eigenvalues
        self.n_components_ = P.shape[1]
        return self


