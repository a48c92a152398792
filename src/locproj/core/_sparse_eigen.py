"""LLE's stage II (paper 004 §2): the bottom eigenvectors of a sparse symmetric PSD matrix ``M``,
orthogonal to the constant vector, by ARPACK shift-invert (or densely).

Not a graph-embedding problem (no data matrix, no constraint but ``(1/n) Y^T Y = I``): the one
solver of those is :func:`locproj.core.solvers.solve_embedding`.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
from scipy import sparse
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh, splu
from sklearn.exceptions import ConvergenceWarning

_SHIFT = 1e-10  # shift-invert around sigma = -_SHIFT * mean(diag M): M - sigma I is positive definite
_DENSE_FALLBACK_MAX = 10000  # when ARPACK does not converge, solve densely up to this many samples


def _dense_after_arpack(M, m: int, error) -> np.ndarray:
    """The ``m + 1`` bottom eigenvectors of ``M`` by the dense solver, with a warning, when ARPACK
    did not converge (a cluster of eigenvalues at 0 larger than ``m + 1``, e.g. SLLE's classes
    pulled apart by alpha on many classes: Letter's 26 at m = 16); beyond
    ``_DENSE_FALLBACK_MAX`` samples a ValueError naming the fix."""
    n = M.shape[0]
    if n > _DENSE_FALLBACK_MAX:
        raise ValueError(
            f"ARPACK found no {m + 1} bottom eigenvectors of the {n} x {n} matrix M ({error}); M has "
            "a cluster of (near-)zero eigenvalues, e.g. classes disconnected by alpha. Lower alpha, "
            "raise n_components above the number of classes, or use eigen_solver='dense'.") from error
    warnings.warn(f"ARPACK did not converge for the {m + 1} bottom eigenvectors of the {n} x {n} matrix M "
                  "(a cluster of near-zero eigenvalues); they were computed by the dense solver instead.",
                  ConvergenceWarning, stacklevel=3)
    return scipy.linalg.eigh(M.toarray(), subset_by_index=[0, m])[1]


def bottom_eigenvectors(M, n_components: int, eigen_solver: str = "arpack", random_state=None):
    """The ``n_components`` bottom eigenvectors of the symmetric PSD ``M`` orthogonal to the
    constant vector (``M 1 = 0``), scaled to ``(1/n) Y^T Y = I`` (paper 004 §2).

    ``n_components + 1`` bottom eigenvectors ``V`` are computed (ARPACK shift-invert, or dense),
    projected off the constant vector, and the best ``n_components``-dimensional subspace of the
    projection is taken and diagonalised (Rayleigh-Ritz), so a multiple eigenvalue 0 is handled.
    Returns ``(Y, eigenvalues)``, eigenvalues ascending, the largest ``|entry|`` of each column
    positive.
    """
    M = sparse.csc_array(M)
    n = M.shape[0]
    m = int(n_components)
    if eigen_solver == "dense":
        _, V = scipy.linalg.eigh(M.toarray(), subset_by_index=[0, m])
    elif eigen_solver == "arpack":
        if m + 1 >= n:
            raise ValueError(f"eigen_solver='arpack' needs n_components + 1 < n_samples, got "
                             f"n_components={m} and {n} samples; use eigen_solver='dense'.")
        shift = _SHIFT * max(float(M.diagonal().mean()), np.finfo(float).tiny)
        lu = splu(sparse.csc_array(M + shift * sparse.eye_array(n, format="csc")), permc_spec="MMD_AT_PLUS_A",
                  diag_pivot_thresh=0.0, options={"SymmetricMode": True})
        from sklearn.utils import check_random_state

        v0 = check_random_state(random_state).uniform(-1.0, 1.0, n)
        OPinv = LinearOperator((n, n), matvec=lu.solve, dtype=float)
        try:
            _, V = eigsh(M, k=m + 1, sigma=-shift, which="LM", OPinv=OPinv, v0=v0, tol=0.0)
        except ArpackNoConvergence as error:
            V = _dense_after_arpack(M, m, error)
    else:
        raise ValueError(f"eigen_solver must be 'arpack' or 'dense', got {eigen_solver!r}.")
    P = V - V.mean(axis=0)  # off the constant vector
    # the best m-dimensional subspace of P: its leading left singular vectors, from the small
    # (m + 1) x (m + 1) Gram matrix (V is orthonormal, so P is well conditioned on that subspace)
    s2, R = scipy.linalg.eigh(P.T @ P)
    U = P @ (R[:, ::-1][:, :m] / np.sqrt(s2[::-1][:m]))
    H = U.T @ (M @ U)
    eigenvalues, R = scipy.linalg.eigh(0.5 * (H + H.T))
    Y = np.sqrt(n) * (U @ R)
    Y -= Y.mean(axis=0)  # exactly centred (to rounding)
    big = np.argmax(np.abs(Y), axis=0)
    Y *= np.where(Y[big, np.arange(m)] < 0, -1.0, 1.0)
    return Y, eigenvalues
