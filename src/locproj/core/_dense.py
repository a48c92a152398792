"""Dense products and the Cholesky factor with its condition estimate, for the solver.

Dense products go through scipy's BLAS (the one eigh uses): numpy bundles a second OpenBLAS whose
idle threads would compete with scipy's for the same cores.  The Fortran-ordered transposes of
C-ordered arrays are passed, so nothing is copied.  Symmetric matrices are read through their
upper triangle (``eigh(..., lower=False)``, ``dpotrf(lower=False)``), so :func:`at_a` fills only
that one.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import blas, lapack


def at_b(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``A^T B`` for C-ordered ``A`` (n, p) and ``B`` (n, q)."""
    A, B = np.ascontiguousarray(A), np.ascontiguousarray(B)
    return blas.dgemm(1.0, A.T, B.T, trans_b=True)


def a_b(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``A B`` for C-ordered ``A`` (n, p) and ``B`` (p, q), returned C-ordered."""
    A, B = np.ascontiguousarray(A), np.ascontiguousarray(B)
    return blas.dgemm(1.0, B.T, A.T).T


def at_a(A: np.ndarray) -> np.ndarray:
    """``A^T A`` by a rank-k update: only the **upper triangle** is filled (Fortran order).

    Symmetric matrices in this module are read through their upper triangle (``eigh(...,
    lower=False)``, ``dpotrf(lower=False)``), so the mirror image is never formed.
    """
    if A.size == 0:  # BLAS refuses zero leading dimensions (and prints to stderr)
        return np.zeros((A.shape[1], A.shape[1]), order="F")
    return blas.dsyrk(1.0, np.ascontiguousarray(A).T)


def rcond_spd(C: np.ndarray) -> float:
    """Estimated reciprocal condition number of symmetric ``C`` (0 if not positive definite)."""
    return cholesky_rcond(C)[1]


def cholesky_rcond(C: np.ndarray) -> tuple[np.ndarray | None, float]:
    """Upper Cholesky factor (Fortran-ordered, for ``cho_solve``) and LAPACK's 1-norm
    reciprocal-condition estimate; ``(None, 0.0)`` if ``C`` is not positive definite."""
    if C.shape[0] == 0:
        return None, 0.0
    # Fortran-ordered arrays may hold only their upper triangle; C-ordered ones are full
    # symmetric, so their transpose (Fortran-ordered, no copy) has the same upper triangle.
    upper = C if C.flags.f_contiguous else C.T
    chol, info = lapack.dpotrf(upper, lower=False)
    if info != 0:
        return None, 0.0
    anorm = np.abs(upper).sum(axis=0).max()  # 1-norm, or up to 2x below it for upper-only input
    rcond, info = lapack.dpocon(chol, anorm)
    return chol, (float(rcond) if info == 0 else 0.0)
