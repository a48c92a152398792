"""The graph-embedding quotient minimised by orthonormal vectors found one after another (OLPP).

:func:`solve_orthogonal_sequence` returns ``P = [p_1, ..., p_k]`` (n_features, k) with::

    p_j = argmin  p^T X~^T L X~ p / p^T X~^T B X~ p   over p in the row space of X~ with p^T p_i = 0, i < j

(``B=None`` is the identity), the sequential problem of Orthogonal Laplacianfaces (Cai, He, Han and
Zhang, IEEE TIP 15(11):3608-3614, 2006).  The paper solves step ``j`` as the eigenproblem of the
non-symmetric ``M^(j) = {I - C^-1 A (A^T C^-1 A)^-1 A^T} C^-1 S`` (``A`` the vectors found so far,
``S = X L X^T``, ``C = X D X^T``).  Here it is solved as symmetric-definite eigenproblems instead:

* the problem lives in the orthonormal (not whitened) PCA basis ``T`` of
  :func:`locproj.core.solvers.pca_basis` (``T^T T = I``, ``Y = X~ T``), where ``p = T b`` and
  ``p_i^T p_j = b_i^T b_j``: orthogonality in the input space is orthogonality of the coordinates;
* with ``S = Y^T L Y`` and ``C = Y^T B Y`` (positive definite for a positive-definite ``B`` such as
  LPP's ``D``: ``Y`` has full column rank), and
  ``Q_j`` an orthonormal basis of the complement of ``b_1, ..., b_{j-1}``, every feasible ``b`` is
  ``Q_j c``: step ``j`` minimises the Rayleigh quotient of the pencil ``(Q_j^T S Q_j, Q_j^T C Q_j)``,
  whose smallest eigenvector gives ``b_j = Q_j c_j``;
* ``Q_{j+1} = Q_j H_j[:, 1:]`` with ``H_j`` the Householder reflector mapping ``c_j`` to a multiple of
  ``e_1``: the next pencil is ``(H_j Q_j^T S Q_j H_j)[1:, 1:]`` (and likewise for ``C``), a rank-two
  update one size smaller.  Each step costs one symmetric-definite eigenproblem of size ``r - j + 1``
  (``r`` the rank of ``X~``): ``k`` vectors cost ``O(k r^3)``.

Stationarity of the quotient on the complement, ``Q_j^T (S - lambda C) Q_j c = 0``, is
``(S - lambda C) b = A mu`` with ``A^T b = 0``; eliminating ``mu = (A^T C^-1 A)^-1 A^T C^-1 S b`` gives
the paper's ``M^(j) b = lambda b``.  Conversely every eigenvector of ``M^(j)`` with a non-zero
eigenvalue satisfies ``A^T b = 0`` (``A^T M^(j) = 0``).  ``M^(j)`` has ``j - 1`` further eigenvalues
0 whose eigenvectors (``S^-1 A mu`` for non-singular ``S``) violate the constraint, so "the smallest
eigenvalue of ``M^(j)``" means the smallest feasible one (the original code avoids the zeros by
maximising the complementary quotient ``W / D``, ``W = D - L``, whose wanted eigenvalues are the
largest).  By Courant-Fischer, the smallest eigenpair of the pencil is the minimum of the quotient on
the complement; the pencil has exactly the feasible eigenpairs, is symmetric-definite, and inverts
nothing but the Cholesky factor of ``Q_j^T C Q_j``.

Conventions shared with :func:`locproj.core.solvers.solve_embedding`: centring, the PCA tolerance, the
ridge ``C + ridge * mean(diag C) I`` for a numerically singular ``C`` (tested once: the later
``Q_j^T C Q_j`` are no worse conditioned, by interlacing), deterministic signs, and degenerate
eigenvalues: when the smallest eigenvalue of a step is a cluster, the vector of largest projected
variance ``|X~ p|^2`` (unit ``p``) inside the cluster's eigenspace is taken, so the next steps
continue through the cluster in order of decreasing variance.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from ._eigh import eigh_selected
from ._memo import LastInput, remembered
from .solvers import (
    Embedding,
    _centered,
    _check_square,
    _clusters,
    _eigenvalue_scale,
    _reflect_both,
    _reflect_rows,
    _regularized,
    check_n_components,
    fix_signs,
    pca_basis,
)

__all__ = ["solve_orthogonal_sequence"]

_RIDGE_CLUSTER_FACTOR = 1e3  # as in the solver: with the ridge, eigenvalues are only resolved to ~ridge
_PAD = 16  # columns mapped to the input space are padded to a multiple of this (as in locproj.core._eigh)

_DATA_MEMO = LastInput()  # the last data matrix: its mean and orthonormal PCA basis


def solve_orthogonal_sequence(X, L, B=None, *, n_components: int | None = None, center: bool = True,
                              pca_tol: float | None = None, ridge: float = 1e-9, singular_rcond: float = 1e-12,
                              degenerate_rtol: float = 1e-9) -> Embedding:
    """Orthonormal ``P`` minimising the quotient ``p^T X~^T L X~ p / p^T X~^T B X~ p`` column by
    column, each column orthogonal to the previous ones (module docstring).

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
        Data (rows are samples).
    L : sparse matrix, ndarray, LinearOperator or GramFactor of shape (n_samples, n_samples)
        Symmetric positive semi-definite graph matrix (e.g. LPP's ``D - W``).
    B : same types, optional
        Symmetric positive (semi-)definite constraint matrix (e.g. LPP's ``D``); None is the identity.
    n_components : int or None
        Number of columns; None returns all (the rank of the centred data).  The first ``p``
        columns do not depend on it.
    center : bool
        Subtract the column mean of ``X`` first.
    pca_tol : float, optional
        Relative threshold on squared singular values of the PCA pre-step
        (:func:`locproj.core.solvers.pca_basis`).
    ridge, singular_rcond : float
        Fix for a numerically singular reduced constraint matrix, as in ``solve_embedding``.
    degenerate_rtol : float
        Relative tolerance for two eigenvalues of a step to count as equal.

    Returns
    -------
    Embedding
        ``components`` has orthonormal columns (``P^T P = I``), sign-fixed; ``eigenvalues`` holds
        each step's minimum of the quotient, non-decreasing (the feasible sets are nested).
    """
    X = np.asarray(X, dtype=float)
    _check_inputs(X, L, B)
    memo = _DATA_MEMO.values_for(X, np.asarray(center))
    mean, Xc = remembered(memo, ("centred",), lambda: _centered(X, center))
    basis = remembered(memo, ("pca_basis", pca_tol), lambda: pca_basis(Xc, whiten=False, tol=pca_tol))
    r = basis.rank
    k = check_n_components(n_components, r)
    if k == 0:  # rank 0: nothing to project onto
        return Embedding(components=np.zeros((X.shape[1], 0)), eigenvalues=np.empty(0), mean=mean.copy(),
                         rank=r, n_available=r, regularized=False)
    S = _full(basis.sandwich(L))
    G = _full(basis.gram())  # total scatter Y^T Y: the tie-break inside degenerate eigenvalues
    C = G.copy() if B is None else _full(basis.sandwich(B))
    if not (np.all(np.isfinite(S)) and np.all(np.isfinite(C))):
        raise ValueError(
            "the reduced eigenproblem has non-finite entries: the graph or constraint matrix "
            "overflowed (X or the graph weights too large); rescale X, e.g. by "
            "sklearn.preprocessing.StandardScaler.")
    C, regularized = _regularized(C, ridge, singular_rcond)
    C = _full(C)
    scale = _eigenvalue_scale(S, C)
    rtol = max(degenerate_rtol, _RIDGE_CLUSTER_FACTOR * ridge) if regularized else degenerate_rtol
    A, lam = _sequence(S, C, G, k, rtol, scale)
    padded = np.zeros((r, -(-k // _PAD) * _PAD))  # every column meets the same BLAS kernels whatever k,
    padded[:, :k] = A  # so fewer columns are the bitwise prefix of more (on most kernels)
    P = np.ascontiguousarray(basis.to_input(padded)[:, :k])
    return Embedding(components=fix_signs(P), eigenvalues=lam, mean=mean.copy(), rank=r,
                     n_available=r, regularized=regularized)


def _sequence(S: np.ndarray, C: np.ndarray, G: np.ndarray, k: int, rtol: float, scale: float):
    """The first ``k`` vectors ``b_j`` (columns of ``A``, orthonormal) and the minima ``lam``.

    ``Qt`` holds ``Q_j^T`` (rows: an orthonormal basis of the complement of the vectors found);
    ``S``, ``C``, ``G`` hold ``Q_j^T S Q_j`` etc., deflated by one Householder reflector per step.
    """
    r = len(S)
    A = np.empty((r, k))
    lam = np.empty(k)
    Qt = np.eye(r)
    for j in range(k):
        c, lam[j] = _smallest(S, C, G, rtol, scale)
        A[:, j] = c @ Qt
        if j + 1 == k:
            break
        v = c.copy()
        v[0] += 1.0 if c[0] >= 0 else -1.0  # H c = -+e_1 (unit c; |v|^2 >= 2, no cancellation)
        S, C, G = (_symmetrized(_reflect_both(M, v)[1:, 1:]) for M in (S, C, G))
        Qt = _reflect_rows(Qt, v)[1:]
    return A, lam


def _smallest(S: np.ndarray, C: np.ndarray, G: np.ndarray, rtol: float, scale: float):
    """Unit minimiser ``c`` of ``c^T S c / c^T C c`` and the minimum; inside a degenerate smallest
    eigenvalue, the eigenvector of largest ``c^T G c / c^T c``."""

    def bottom_cluster(eigenvalues: np.ndarray) -> slice:  # eigenvalues ascending
        return slice(0, _clusters(eigenvalues, rtol, scale)[0].stop)

    try:  # eigh_selected works in (and overwrites) its arguments
        eigenvalues, E = eigh_selected(np.array(S, order="F"), np.array(C, order="F"), bottom_cluster)
    except np.linalg.LinAlgError as error:
        m = len(S)
        raise ValueError(
            f"the reduced {m} x {m} eigenproblem could not be solved ({error}): the graph or "
            "constraint matrix is numerically degenerate, as with many exact duplicate rows; "
            "remove duplicate rows (np.unique(X, axis=0)) or reduce n_neighbors.") from error
    if E.shape[1] == 1:
        c = E[:, 0]
    else:  # any unit vector of the eigenspace attains the minimum: take the largest variance
        _, R = scipy.linalg.eigh(E.T @ G @ E, E.T @ E)
        c = E @ R[:, -1]
    return c / np.linalg.norm(c), float(eigenvalues[0])


def _full(M: np.ndarray) -> np.ndarray:
    """The symmetric matrix whose upper triangle is that of ``M`` (the solver's products fill
    only the upper triangle)."""
    upper = np.triu(M)
    return upper + np.triu(upper, 1).T


def _symmetrized(M: np.ndarray) -> np.ndarray:
    """``(M + M^T) / 2``: the reflections keep symmetry only to rounding."""
    return (M + M.T) / 2


def _check_inputs(X: np.ndarray, L, B) -> None:
    if X.ndim != 2 or not np.all(np.isfinite(X)):
        raise ValueError("X must be a finite 2-D array.")
    _check_square(L, len(X), "L")
    if B is not None:
        _check_square(B, len(X), "B")
