"""LLE's stage II (paper 004 §2): the bottom eigenvectors of a sparse symmetric PSD matrix ``M``,
orthogonal to the constant vector, by ARPACK shift-invert (or densely).

Not a graph-embedding problem (no data matrix, no constraint but ``(1/n) Y^T Y = I``): the one
solver of those is :func:`locproj.core.solvers.solve_embedding`.  Both group eigenvalues into
clusters the same way (:func:`locproj.core.solvers._clusters`) and never let rounding choose a
basis inside one.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
import scipy.linalg
from scipy import sparse
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh, splu
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from .solvers import _clusters, fix_signs

_SHIFT = 1e-10  # shift-invert around sigma = -_SHIFT * mean(diag M): M - sigma I is positive definite
_DENSE_FALLBACK_MAX = 10000  # when ARPACK does not converge, solve densely up to this many samples
#: Two eigenvalues of ``M`` are equal when they differ by at most this times ``max |M_ij|`` (the
#: largest diagonal entry, a lower bound of the largest eigenvalue).  On the cross-paper matrix's SLLE
#: grid (every dataset, m, alpha, k; n up to 1360), the eigenvalues that are 0 in exact arithmetic
#: lie below 1e-13 of it and the smallest gap between two others is 4e-10: this sits between them,
#: far above the rounding of the eigensolver.  (The graph-embedding solver's 1e-9 would merge that
#: gap.)
CLUSTER_RTOL = 1e-11


class BottomEigenpairs(NamedTuple):
    """The result of :func:`bottom_eigenvectors`.

    Attributes
    ----------
    vectors : ndarray of shape (n, n_components)
        ``Y``, centred, ``(1/n) Y^T Y = I``, columns by ascending eigenvalue.
    eigenvalues : ndarray of shape (n_components,)
        Ascending.
    cluster_ends : int ndarray
        The ``p`` in ``1..n_components`` at which a cluster of equal eigenvalues ends (eigenvalue
        ``p + 1`` differs from eigenvalue ``p``): the ``p`` whose first ``p`` columns span a subspace
        that ``M`` decides.  Any other ``p`` cuts inside a cluster.
    """

    vectors: np.ndarray
    eigenvalues: np.ndarray
    cluster_ends: np.ndarray


def bottom_eigenvectors(M, n_components: int, eigen_solver: str = "arpack", random_state=None,
                        data=None) -> BottomEigenpairs:
    """The ``n_components`` bottom eigenvectors of the symmetric PSD ``M`` orthogonal to the
    constant vector (``M 1 = 0``), scaled to ``(1/n) Y^T Y = I`` (paper 004 §2).

    Bottom eigenvectors ``V`` are computed (ARPACK shift-invert, or dense), projected off the
    constant vector, and the best subspace of the projection is diagonalised (Rayleigh-Ritz), so a
    multiple eigenvalue 0 is handled.  One eigenpair more than asked for is computed to see whether
    column ``n_components`` ends a cluster of equal eigenvalues (:data:`CLUSTER_RTOL`), and at least
    one per connected part of ``M``'s graph beside the constant (its null space); when column
    ``n_components`` does not end a cluster, more are computed (doubling), up to the cluster's end.
    Inside every cluster the basis is the one the ``data`` decide: the directions ``y`` ordered by
    decreasing ``||X~^T y||^2`` (the input's centred rows, the eigenvectors of
    ``Y_c^T X~ X~^T Y_c``).  Variance cannot decide it, every column having ``(1/n) y^T y = 1``;
    equal values of the criterion too (data symmetric under a rotation) leave the basis of their
    directions to the solver, as does ``data=None``.  In each column the entry of largest
    ``|value|`` is positive (:func:`locproj.core.solvers.fix_signs`).
    """
    M = sparse.csc_array(M)
    n = M.shape[0]
    m = int(n_components)
    if eigen_solver not in ("arpack", "dense"):
        raise ValueError(f"eigen_solver must be 'arpack' or 'dense', got {eigen_solver!r}.")
    if eigen_solver == "arpack" and m + 1 >= n:
        raise ValueError(f"eigen_solver='arpack' needs n_components + 1 < n_samples, got "
                         f"n_components={m} and {n} samples; use eigen_solver='dense'.")
    scale = max(float(np.abs(M.diagonal()).max(initial=0.0)), np.finfo(float).tiny)  # max |M_ij| (M is PSD)
    bottom = _bottom_solver(M, eigen_solver, random_state)
    # eigenpairs orthogonal to 1: the m asked for and the next, and at least the null space of a graph
    # that falls apart (an indicator of each of its c parts is a null vector of I - W: c - 1 beside 1)
    parts = connected_components(M, directed=False)[0]
    count = min(max(m + 1, parts), n - 1)
    while True:
        eigenvalues, U = _ritz_pairs(M, bottom(count + 1), count)
        clusters = _clusters(eigenvalues, CLUSTER_RTOL, scale)
        last = next(cl for cl in clusters if cl.stop >= m)  # the cluster of column m
        if last.stop < count or count == n - 1:
            break
        count = min(2 * count, n - 1)
    if data is not None:
        U = _data_decided_bases(U, clusters, np.asarray(data, dtype=float))
    Y = np.sqrt(n) * U[:, :m]
    Y -= Y.mean(axis=0)  # exactly centred (to rounding)
    ends = np.array([cl.stop for cl in clusters if cl.stop <= m], dtype=np.int64)
    return BottomEigenpairs(fix_signs(Y), eigenvalues[:m], ends)


def _bottom_solver(M, eigen_solver: str, random_state):
    """``solve(k)``: the ``k`` bottom eigenvectors of ``M`` (columns), by the dense solver or by
    ARPACK in shift-invert mode (one factorisation and one start vector for every ``k``; the dense
    solver where ``k`` reaches ``n``, or where ARPACK does not converge)."""
    n = M.shape[0]
    if eigen_solver == "dense":
        return lambda k: scipy.linalg.eigh(M.toarray(), subset_by_index=[0, k - 1])[1]
    shift = _SHIFT * max(float(M.diagonal().mean()), np.finfo(float).tiny)
    lu = splu(sparse.csc_array(M + shift * sparse.eye_array(n, format="csc")), permc_spec="MMD_AT_PLUS_A",
              diag_pivot_thresh=0.0, options={"SymmetricMode": True})
    v0 = check_random_state(random_state).uniform(-1.0, 1.0, n)
    OPinv = LinearOperator((n, n), matvec=lu.solve, dtype=float)

    def solve(k):
        if k >= n:
            return scipy.linalg.eigh(M.toarray(), subset_by_index=[0, k - 1])[1]
        try:
            return eigsh(M, k=k, sigma=-shift, which="LM", OPinv=OPinv, v0=v0, tol=0.0)[1]
        except ArpackNoConvergence as error:
            return _dense_after_arpack(M, k, error)

    return solve


def _dense_after_arpack(M, k: int, error) -> np.ndarray:
    """The ``k`` bottom eigenvectors of ``M`` by the dense solver, with a warning, when ARPACK
    did not converge (a cluster of eigenvalues at 0 larger than ``k``, e.g. SLLE's classes
    pulled apart by alpha on many classes: Letter's 26 at m = 16); beyond
    ``_DENSE_FALLBACK_MAX`` samples a ValueError naming the fix."""
    n = M.shape[0]
    if n > _DENSE_FALLBACK_MAX:
        raise ValueError(
            f"ARPACK found no {k} bottom eigenvectors of the {n} x {n} matrix M ({error}); M has "
            "a cluster of (near-)zero eigenvalues, e.g. classes disconnected by alpha. Lower alpha, "
            "raise n_components above the number of classes, or use eigen_solver='dense'.") from error
    warnings.warn(f"ARPACK did not converge for the {k} bottom eigenvectors of the {n} x {n} matrix M "
                  "(a cluster of near-zero eigenvalues); they were computed by the dense solver instead.",
                  ConvergenceWarning, stacklevel=4)
    return scipy.linalg.eigh(M.toarray(), subset_by_index=[0, k - 1])[1]


def _ritz_pairs(M, V: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``count`` eigenpairs of ``M`` in the span of ``V`` (``count + 1`` bottom eigenvectors,
    the constant vector among them) orthogonal to ``1``: eigenvalues ascending, orthonormal columns."""
    P = V - V.mean(axis=0)  # off the constant vector
    # the best count-dimensional subspace of P: its leading left singular vectors, from the small
    # Gram matrix (V is orthonormal, so P is well conditioned on that subspace)
    s2, R = scipy.linalg.eigh(P.T @ P)
    U = P @ (R[:, ::-1][:, :count] / np.sqrt(s2[::-1][:count]))
    H = U.T @ (M @ U)
    eigenvalues, R = scipy.linalg.eigh(0.5 * (H + H.T))
    return eigenvalues, U @ R


def _data_decided_bases(U: np.ndarray, clusters: list[slice], X: np.ndarray) -> np.ndarray:
    """``U`` with the basis inside each cluster rotated to the eigenvectors of
    ``U_c^T X~ X~^T U_c``, largest first (:func:`bottom_eigenvectors`)."""
    Xc = X - X.mean(axis=0)
    for cl in clusters:
        if cl.stop - cl.start < 2:
            continue
        F = Xc.T @ U[:, cl]
        R = scipy.linalg.eigh(F.T @ F)[1]
        U[:, cl] = U[:, cl] @ R[:, ::-1]
    return U
