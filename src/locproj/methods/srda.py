"""Spectral Regression Discriminant Analysis (Cai, He and Han, IEEE TKDE 20(1), 2008)."""

from __future__ import annotations

import warnings
from numbers import Real

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.linalg import blas, lapack
from scipy.sparse.linalg import LinearOperator, lsqr
from sklearn.base import _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ._base import (
    LinearProjection,
    RankDeficiencyWarning,
    check_fit_classes,
    scale_columns,
    validate_fit_data,
)
from ._constraints import COLUMN_SCALING, N_COMPONENTS, POSITIVE_INT, StrictInterval

# solver='auto' takes LSQR for sparse X or when min(n, d) exceeds this: above it the min(n, d)^2 Gram
# matrix (200 MB at 5000) and its O(n d min(n, d)) product cost more than LSQR's O(iterations c n d)
_AUTO_NORMAL_MAX = 5000
_CHUNK_ENTRIES = 1 << 22  # 32 MB of float64: the centred rows (or columns) formed at a time
_LSQR_STOPPED = {  # scipy.sparse.linalg.lsqr's istop codes that leave tol unmet
    3: "the condition number of [X~; sqrt(alpha) I] exceeds 1e8; use a larger alpha",
    6: "the condition number of [X~; sqrt(alpha) I] is too large for float64; use a larger alpha",
    7: "it reached max_iter; increase max_iter or tol",
}


def srda_responses(y_index: np.ndarray, n_classes: int, n_responses: int | None = None) -> np.ndarray:
    """The first ``n_responses`` (default all ``c - 1``) SRDA responses, shape (n_samples, n_responses).

    Gram–Schmidt of the class indicators ``e_1, ..., e_c`` (classes in the order of ``y_index``)
    against the all-ones vector and each other, with the ones vector and ``e_c`` (which becomes zero)
    dropped (Cai, He and Han 2008): orthonormal, orthogonal to the ones vector."""
    counts = np.bincount(y_index, minlength=n_classes).astype(float)
    # span{1, e_1..e_{k-1}} = span{e_1..e_{k-1}, 1_{>=k}} (1_{>=k}: the indicator of classes k..c), vectors
    # of disjoint supports; e_k is orthogonal to all but 1_{>=k}, onto which it projects as (n_k / N_k) 1_{>=k},
    # N_k = n_k + ... + n_c.  So y_k is 0 before class k, 1 - n_k / N_k on class k and -n_k / N_k after it,
    # of squared norm n_k N_{k+1} / N_k
    tail = np.cumsum(counts[::-1])[::-1]
    k = np.arange(n_classes - 1 if n_responses is None else n_responses)
    share = counts[k] / tail[k]
    values = np.where(np.arange(n_classes)[None, :] > k[:, None], -share[:, None], 0.0)
    values[k, k] = 1.0 - share
    values /= np.sqrt(counts[k] * tail[k + 1] / tail[k])[:, None]
    return values.T[y_index]


class SpectralRegressionDiscriminantAnalysis(LinearProjection):
    """Spectral Regression Discriminant Analysis (SRDA): LDA as ``c - 1`` ridge regressions.

    The ``c - 1`` responses ``y_k`` are the class indicator vectors made orthonormal by Gram–Schmidt,
    starting from the all-ones vector (which is then dropped, as is the last class's indicator, which
    becomes zero): :func:`srda_responses`.  Each projection is the ridge regression of ``y_k`` on the
    centred data ``X~ = X - 1 mean^T``: ``a_k = argmin ||X~ a - y_k||^2 + alpha ||a||^2``.  As
    ``alpha -> 0`` the ``a_k`` span LDA's subspace, the range of ``S_t^{-1} S_b``, on centred data of
    full column rank; where ``X~ a = y_k`` is solvable (linearly independent samples, ``n <= d + 1``)
    each ``a_k`` solves LDA's ``S_b a = lambda S_t a`` with ``lambda = 1``.  The columns follow the
    Gram–Schmidt order of the classes (column ``k`` separates class ``k`` from the classes after it),
    not an order of importance; ``X~ a_k`` approximates ``y_k``, which is positive on class ``k``,
    and that fixes their signs.

    Solvers: the normal equations in the smaller of ``n`` and ``d``, ``(X~^T X~ + alpha I) a = X~^T y``
    when ``d <= n`` or ``a = X~^T (X~ X~^T + alpha I)^{-1} y`` when ``n < d`` (one Cholesky factor for
    every response), or LSQR (``scipy.sparse.linalg.lsqr``, ``damp = sqrt(alpha)``, one run per
    response) on a ``LinearOperator`` for ``X~``.  ``scipy.sparse`` input is never densified: it is
    centred implicitly, in ``fit`` (LSQR's products ``X v - mean^T v`` and ``X^T u - mean sum(u)``)
    and in ``transform`` (``X A^T - mean A^T``); the normal equations form a dense ``d x d`` (or
    ``n x n``) matrix from ``X^T X`` (``X X^T``) with the mean's rank-one terms.

    Parameters
    ----------
    n_components : int or None, default=None
        None keeps all ``c - 1`` projections; an int ``k <= c - 1`` keeps (and computes) the first
        ``k``, which are those of the full fit.
    alpha : float, default=0.1
        Ridge parameter, ``>= 0``, in the units of ``||X~ a||^2`` (sums over samples, not means).
        ``alpha = 0`` is least squares: with the normal equations it needs ``X~^T X~`` non-singular
        (centred data of full column rank, so ``d < n``), else a ``ValueError``; ``X~ X~^T`` is
        always singular (its rows sum to zero), so the ``n < d`` form refuses it; LSQR gives the
        minimum-norm least-squares solution, the limit ``alpha -> 0``.
    solver : {'auto', 'normal', 'lsqr'}, default='auto'
        'normal': the normal equations in ``min(n, d)``; 'lsqr': LSQR; 'auto': LSQR for sparse X or
        when ``min(n_samples, n_features) > 5000``, else the normal equations.
    max_iter : int or None, default=None
        LSQR's iteration limit per response (None: SciPy's, ``2 n_features``).
    tol : float, default=1e-6
        LSQR's ``atol`` and ``btol``.
    column_scaling : {'unit', 'constraint'}, default='unit'
        'unit': unit-length columns; 'constraint': the ridge solutions as they are (``||X~ a_k||``
        close to ``||y_k|| = 1``, LDA's constraint ``a^T S_t a = 1`` as ``alpha -> 0``).

    Attributes
    ----------
    components_ : ndarray of shape (``n_components_``, n_features)
    mean_ : ndarray of shape (n_features,)
    n_components_ : int
    classes_ : ndarray of shape (n_classes,)
        The classes in the Gram–Schmidt order of the responses (sorted).
    solver_ : {'primal', 'dual', 'lsqr'}
        The normal equations in ``d`` (primal) or in ``n`` (dual), or LSQR.
    n_iter_ : ndarray of shape (``n_components_``,) or None
        LSQR's iterations for each response; None for the normal equations (as ``Ridge``).

    See Also
    --------
    Fisherfaces : LDA after PCA, by an eigenproblem.
    sklearn.discriminant_analysis.LinearDiscriminantAnalysis : The LDA of scikit-learn.
    sklearn.linear_model.Ridge : The ridge regression each projection solves.

    References
    ----------
    D. Cai, X. He and J. Han, "SRDA: An Efficient Algorithm for Large-Scale Discriminant Analysis",
    IEEE Transactions on Knowledge and Data Engineering 20(1), 1-12, 2008.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from locproj.methods import SpectralRegressionDiscriminantAnalysis
    >>> X, y = load_iris(return_X_y=True)
    >>> srda = SpectralRegressionDiscriminantAnalysis(alpha=1.0).fit(X, y)
    >>> srda.transform(X).shape
    (150, 2)
    >>> srda.solver_
    'primal'
    """

    _parameter_constraints: dict = {
        "n_components": N_COMPONENTS,
        "alpha": [StrictInterval(Real, 0, None, closed="left")],
        "solver": [StrOptions({"auto", "normal", "lsqr"})],
        "max_iter": [POSITIVE_INT, None],
        "tol": [StrictInterval(Real, 0, None, closed="left")],
        "column_scaling": COLUMN_SCALING,
    }

    def __init__(self, n_components=None, *, alpha=0.1, solver="auto", max_iter=None, tol=1e-6,
                 column_scaling="unit"):
        self.n_components = n_components
        self.alpha = alpha
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.column_scaling = column_scaling

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the ``n_components_`` ridge regressions on ``(X, y)``; ``X`` may be ``scipy.sparse``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, y = self._validate_fit(X, y)
        n, d = X.shape
        self.classes_, y_index = np.unique(y, return_inverse=True)
        n_classes = len(self.classes_)
        k = n_classes - 1 if self.n_components is None else self.n_components
        if k > n_classes - 1:
            raise ValueError(
                f"n_components={k} but SpectralRegressionDiscriminantAnalysis has only c - 1 = "
                f"{n_classes - 1} components ({n_classes} classes); use n_components=None or a smaller value.")
        Y = srda_responses(y_index, n_classes, k)
        mean = np.asarray(X.mean(axis=0)).ravel()
        self.solver_ = self._resolve_solver(X)
        self.n_iter_ = None
        if self.solver_ == "primal":
            A, rhs, total = self._fit_primal(X, mean, Y)
        elif self.solver_ == "dual":
            A, rhs, total = self._fit_dual(X, mean, Y)
        else:
            rhs = _centered_rmatmat(X, mean, Y)
            total = _centered_sq_norm(X, mean)
            _check_between(self, rhs, total, n, d)
            A = self._fit_lsqr(X, mean, Y)
        self._warn_dependent(rhs, k, n, d)
        self.components_ = scale_columns(A, self.column_scaling).T
        self.mean_ = mean
        self.n_components_ = k
        return self

    def transform_first(self, X, n_columns):
        """Compute the first ``n_columns`` columns of ``transform(X)``, and only those.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data to project; a sparse ``X`` is not densified.
        n_columns : int or None
            The number of leading columns; None for all of them.

        Returns
        -------
        X_new : ndarray of shape (n_samples, min(n_columns, ``n_components_``))
            The first ``n_columns`` columns of ``transform(X)``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, accept_sparse=("csr", "csc"), dtype=np.float64, order="C")
        A = self.components_[:n_columns]
        if sp.issparse(X):
            return X @ A.T - self.mean_ @ A.T
        return (X - self.mean_) @ A.T

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _needs_labels(self) -> bool:
        return True

    # ------------------------------------------------------------------ validation

    def _validate_fit(self, X, y):
        if y is None or not sp.issparse(X):
            return validate_fit_data(self, X, y, supervised=True)
        X, y = validate_data(self, X, y, accept_sparse=("csr", "csc"), ensure_min_samples=2, dtype=np.float64)
        check_classification_targets(y)
        _check_sparse_fit_values(self, X)
        check_fit_classes(self, y)
        return X, y

    def _resolve_solver(self, X) -> str:
        n, d = X.shape
        lsqr_ = self.solver == "lsqr" or (self.solver == "auto" and (
            sp.issparse(X) or min(n, d) > _AUTO_NORMAL_MAX))
        if lsqr_:
            return "lsqr"
        if d > n and self.alpha == 0:
            raise ValueError(
                f"alpha=0 with the normal equations needs X~^T X~ non-singular, but the centred data "
                f"({n} samples, {d} features) have rank at most n - 1 = {n - 1} < d, and X~ X~^T is "
                "always singular (its rows sum to zero); use alpha > 0, or solver='lsqr' for the "
                "minimum-norm least-squares solution.")
        return "primal" if d <= n else "dual"

    # ------------------------------------------------------------------ solvers

    def _fit_primal(self, X, mean, Y):
        """``(X~^T X~ + alpha I) A = X~^T Y`` in d: Gram matrix and right-hand side in one pass."""
        n, d = X.shape
        if sp.issparse(X):
            G = (X.T @ X).toarray()
            G -= n * np.outer(mean, mean)
            G = G.T  # symmetric: the same matrix, Fortran-ordered for LAPACK
            rhs = _centered_rmatmat(X, mean, Y)
            total = _centered_sq_norm(X, mean)
        else:
            G = np.zeros((d, d), order="F")
            rhs = np.zeros((d, Y.shape[1]))
            step = max(1, _CHUNK_ENTRIES // d)
            for start in range(0, n, step):
                Xb = X[start:start + step] - mean
                G = blas.dsyrk(1.0, Xb.T, beta=1.0, c=G, overwrite_c=True)  # upper triangle of Xb^T Xb
                rhs += Xb.T @ Y[start:start + step]
            total = float(np.trace(G))
        _check_between(self, rhs, total, n, d)
        return self._cholesky_solve(G, rhs, "X~^T X~"), rhs, total

    def _fit_dual(self, X, mean, Y):
        """``A = X~^T (X~ X~^T + alpha I)^{-1} Y`` for n < d."""
        n, d = X.shape
        if sp.issparse(X):
            u = X @ mean
            K = (X @ X.T).toarray()
            K -= u[:, None] + u[None, :] - mean @ mean
            K = K.T  # symmetric: the same matrix, Fortran-ordered for LAPACK
        else:
            K = np.zeros((n, n), order="F")
            step = max(1, _CHUNK_ENTRIES // n)
            for start in range(0, d, step):
                Xc = X[:, start:start + step] - mean[start:start + step]
                K = blas.dsyrk(1.0, Xc.T, trans=1, beta=1.0, c=K, overwrite_c=True)  # upper of Xc Xc^T
        total = float(np.trace(K))
        rhs = _centered_rmatmat(X, mean, Y)
        _check_between(self, rhs, total, n, d)
        Z = self._cholesky_solve(K, Y, "X~ X~^T")
        return _centered_rmatmat(X, mean, Z), rhs, total

    def _cholesky_solve(self, G, B, name):
        """Solve ``(G + alpha I) Z = B`` from the upper triangle of G (overwritten)."""
        if self.alpha == 0:  # least squares: only meaningful when G itself is well conditioned
            U = np.abs(np.triu(G))
            anorm = float((U.sum(axis=0) + U.sum(axis=1) - np.diag(U)).max())
            del U
        G[np.diag_indices_from(G)] += self.alpha
        factor, info = lapack.dpotrf(G, lower=0, overwrite_a=1, clean=0)
        rcond = np.inf
        if self.alpha == 0:
            rcond = lapack.dpocon(factor, anorm)[0] if info == 0 else 0.0
        if info != 0 or not rcond > len(G) * np.finfo(float).eps:
            raise ValueError(
                f"SpectralRegressionDiscriminantAnalysis: {name} + alpha I is singular to working precision "
                f"(alpha={self.alpha!r}{'' if self.alpha > 0 else f', reciprocal condition number {rcond:.2g}'})"
                ": the centred data are rank-deficient (or ill-conditioned) and alpha is below the rounding of "
                "the scatter; use a larger alpha, or solver='lsqr'.")
        return scipy.linalg.cho_solve((factor, False), B, check_finite=False)

    def _fit_lsqr(self, X, mean, Y):
        n, d = X.shape
        op = LinearOperator((n, d), dtype=np.float64,
                            matvec=lambda v: X @ np.ravel(v) - mean @ np.ravel(v),
                            rmatvec=lambda u: X.T @ np.ravel(u) - mean * np.sum(u))
        A = np.empty((d, Y.shape[1]))
        self.n_iter_ = np.zeros(Y.shape[1], dtype=int)
        for j in range(Y.shape[1]):
            out = lsqr(op, Y[:, j], damp=np.sqrt(self.alpha), atol=self.tol, btol=self.tol,
                       iter_lim=self.max_iter)
            A[:, j], istop, self.n_iter_[j] = out[0], out[1], out[2]
            if istop in _LSQR_STOPPED:
                warnings.warn(
                    f"SpectralRegressionDiscriminantAnalysis: LSQR stopped on response {j} after {out[2]} "
                    f"iterations, before tol={self.tol!r}: {_LSQR_STOPPED[istop]}.", ConvergenceWarning, stacklevel=3)
        return A

    def _warn_dependent(self, rhs, k, n, d) -> None:
        """A is (X~^T X~ + alpha I)^{-1} X~^T Y: as many independent columns as X~^T Y."""
        s = scipy.linalg.svdvals(rhs)
        rank = int(np.sum(s > s[0] * 10 * max(n, d) * np.finfo(float).eps))
        if rank < k:
            warnings.warn(
                f"SpectralRegressionDiscriminantAnalysis: the {k} projections span only {rank} "
                f"dimension{'s' if rank != 1 else ''} (X~^T y_k, combinations of the centred class means, span "
                f"{rank} of the {d} feature dimensions): the fit is valid, but transform's {k} columns are "
                "linearly dependent.",
                RankDeficiencyWarning, stacklevel=3)


# ---------------------------------------------------------------------- centred products without forming X~


def _centered_rmatmat(X, mean, Z) -> np.ndarray:
    """``X~^T Z = X^T Z - mean (1^T Z)``."""
    return np.asarray(X.T @ Z) - np.outer(mean, Z.sum(axis=0))


def _centered_sq_norm(X, mean) -> float:
    """``||X~||_F^2`` as a sum of non-negative terms (no cancellation), dense or sparse."""
    if not sp.issparse(X):
        step = max(1, _CHUNK_ENTRIES // X.shape[1])
        total = 0.0
        for start in range(0, X.shape[0], step):
            Xb = X[start:start + step] - mean
            total += float(np.einsum("ij,ij->", Xb, Xb))
        return total
    X = sp.csr_array(X)
    stored = X.data - mean[X.indices]
    absent = X.shape[0] - np.bincount(X.indices, minlength=X.shape[1])
    return float(stored @ stored + absent @ (mean * mean))


def _check_between(estimator, rhs, total, n, d) -> None:
    """``||X~^T Y||_F^2`` is the trace of the between-class scatter, ``total`` that of the total scatter."""
    tol = 10 * max(n, d) * np.finfo(float).eps
    if not float(np.einsum("ij,ij->", rhs, rhs)) > tol * total:
        raise ValueError(
            f"{type(estimator).__name__}: the class means coincide (no between-class scatter, e.g. the "
            "same samples in every class), so there is no discriminant direction; check the labels y.")


def _check_sparse_fit_values(estimator, X) -> None:
    """:func:`~locproj.methods._base.check_fit_values` for sparse X, from each column's extreme values
    (implicit zeros included), with the same messages."""
    name = type(estimator).__name__
    n, d = X.shape
    low = np.ravel(X.min(axis=0).toarray())
    high = np.ravel(X.max(axis=0).toarray())
    largest = float(max(np.abs(low).max(), np.abs(high).max()))
    limit = np.sqrt(np.finfo(np.float64).max) / (2.0 * n * d)
    if largest > limit:
        raise ValueError(
            f"{name}: X has entries up to {largest:.3g} in absolute value, so squared distances and "
            f"scatter matrices would overflow float64 (limit {limit:.3g} for {n} x {d} data); "
            "rescale X first, e.g. X / abs(X).max() or sklearn.preprocessing.MaxAbsScaler.")
    spread = float((high - low).max())
    if spread == 0:
        raise ValueError(
            f"{name}: all {n} samples of X are identical (constant data: the centred data have "
            "rank 0), so there is no direction to project onto; pass at least two distinct samples.")
    tiny = np.sqrt(np.finfo(np.float64).tiny) / np.finfo(np.float64).eps
    if spread < tiny:
        raise ValueError(
            f"{name}: the samples of X differ by at most {spread:.3g}, so squared distances and "
            f"scatter matrices would underflow float64 (limit {tiny:.3g}); rescale X first, e.g. "
            "X / abs(X).max() or sklearn.preprocessing.MaxAbsScaler.")
