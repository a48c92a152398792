"""Eigenpairs of a symmetric-definite pencil, forming only the eigenvectors asked for.

``scipy.linalg.eigh`` (LAPACK ``dsygvd``) maps every eigenvector back to the input space;
cross-validation uses 300 of about 1000.  The steps here are the same LAPACK routines in the
same order -- Cholesky ``N = R^T R`` (``dpotrf``), ``C = R^-T M R^-1`` (``dsygst``), the
tridiagonal form ``C = Q T Q^T`` (``dsytrd``), divide and conquer on ``T`` (``dstevd``; where it
does not converge, which happens rarely on large clusters of eigenvalues, the implicit QL/QR of
``dstev``, as ``dsyev`` would) -- but only the selected eigenvectors ``z`` are mapped back to
``R^-1 Q z``.  SciPy does not expose LAPACK's ``dormtr``, so ``Q`` is applied in blocks of its
Householder reflectors in compact WY form, ``H_s ... H_e = I - V T V^T`` with
``T^-1 = striu(V^T V) + diag(1 / tau)`` (Joffrain et al., "Accumulating Householder
transformations, revisited", ACM TOMS 32, 2006).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import scipy.linalg
from scipy.linalg import blas, lapack

_PAD = 16  # columns are padded to a multiple of this (bitwise-nested prefixes)
_BLOCK = 128  # reflectors per compact-WY block (measured: 64 and 256 are slower at n = 1024)


def eigh_selected(M: np.ndarray, N: np.ndarray | None,
                  select: Callable[[np.ndarray], slice]) -> tuple[np.ndarray, np.ndarray]:
    """Every eigenvalue of ``M x = lambda N x`` (ascending) and the eigenvectors of those
    ``select(eigenvalues)`` picks (a slice), ``N``-orthonormal.

    ``M`` and ``N`` (None: the identity) are read through their upper triangles and overwritten.
    """
    n = len(M)
    if N is not None:
        R = _checked(lapack.dpotrf(N, lower=0, clean=0, overwrite_a=1), "dpotrf")
        C = _checked(lapack.dsygst(M, R, itype=1, lower=0, overwrite_a=1), "dsygst")
    else:
        C = M
    lwork = _checked(lapack.dsytrd_lwork(n, lower=0), "dsytrd_lwork")
    reflectors, diagonal, off_diagonal, tau, info = lapack.dsytrd(C, lower=0, lwork=int(lwork), overwrite_a=1)
    _check(info, "dsytrd")
    if n == 1:  # dstevd wants a non-empty off-diagonal
        eigenvalues, Z = diagonal.copy(), np.ones((1, 1))
    else:
        eigenvalues, Z, info = lapack.dstevd(diagonal, off_diagonal, compute_v=1)
        if info > 0:  # divide and conquer did not converge (rare, clusters of eigenvalues): implicit QL/QR
            eigenvalues, Z, info = lapack.dstev(diagonal, off_diagonal, compute_v=1)
        _check(info, "dstevd, then dstev")
    chosen = Z[:, select(eigenvalues)]
    # zero columns up to a multiple of _PAD: every column then meets the same BLAS kernels
    # whatever the number chosen, so fewer columns are the bitwise prefix of more
    vectors = np.zeros((n, -(-chosen.shape[1] // _PAD) * _PAD))
    vectors[:, : chosen.shape[1]] = chosen
    vectors = _apply_q(reflectors, tau, vectors)
    if N is not None:  # x = R^-1 y, as x^T = y^T R^-T on the Fortran-ordered transposes (no copy)
        vectors = blas.dtrsm(1.0, R, vectors.T, side=1, lower=0, trans_a=1, overwrite_b=1).T
    return eigenvalues, vectors[:, : chosen.shape[1]]


def _apply_q(reflectors: np.ndarray, tau: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """``Q Z`` for ``Q = H_{n-2} ... H_0`` from ``dsytrd(lower=0)``: ``H_j = I - tau_j v_j v_j^T``
    with ``v_j[j] = 1``, ``v_j[:j] = reflectors[:j, j + 1]`` and zeros below ``j``.  In place on
    C-ordered ``Z``, whose leading rows are contiguous."""
    n = len(reflectors)
    for start in range(0, n - 1, _BLOCK):  # H_0 acts first
        stop = min(start + _BLOCK, n - 1)
        t = tau[start:stop]
        V = np.triu(reflectors[:stop, start + 1 : stop + 1], 1 - start)  # rows above each j
        V[np.arange(start, stop), np.arange(stop - start)] = 1.0
        V *= t != 0  # tau = 0 is the identity
        T_inv = np.triu(V.T @ V, 1)
        T_inv[np.diag_indices_from(T_inv)] = np.where(t != 0, 1.0 / np.where(t != 0, t, 1.0), 1.0)
        # the block is H_{stop-1} ... H_start = (I - V T V^T)^T = I - V T^T V^T
        T = scipy.linalg.solve_triangular(T_inv, np.eye(stop - start), lower=False)
        # scipy's BLAS on the Fortran-ordered transposes: Z^T[:, :stop] -= ((Z^T V) T) V^T
        head = Z[:stop].T
        ZV = blas.dgemm(1.0, head, V.T, trans_b=1)
        updated = blas.dgemm(-1.0, blas.dgemm(1.0, ZV, T), V.T, beta=1.0, c=head, overwrite_c=1)
        if updated is not head:  # f2py worked on a copy (it does not for a Fortran-ordered head)
            head[...] = updated
    return Z


def _check(info: int, routine: str) -> None:
    if info != 0:
        raise np.linalg.LinAlgError(f"LAPACK {routine} failed (info={info}).")


def _checked(result, routine: str):
    *values, info = result
    _check(info, routine)
    return values[0]
