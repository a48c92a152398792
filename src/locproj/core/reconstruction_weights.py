"""Reconstruction weights: every point rebuilt from its neighbours by a local model (LLE, LLP).

The neighbourhoods come from :func:`locproj.core.neighbor_graphs.kneighbors`; this module fits a
small local problem on each (batched over neighbourhoods of equal size):

* :func:`lle_weights` -- LLE reconstruction weights (001 eq. 5-7, 004 eq. 2-4, §3.2);
  :func:`lle_weights_out_of_sample` -- the same weights for new points (004 §2, end);
  :func:`local_pca` -- per-neighbourhood dimension ``m_i`` and noise ``sigma_i^2`` (004 §3.1-3.2);
  :func:`max_sq_distance`, :func:`class_penalized_coordinates` -- SLLE's ``D'`` (004 eq. 8);
* :func:`local_krr_weights` -- LLP's local kernel-ridge matrix ``A`` (000 eq. 29-32);
* :func:`reconstruction_error`, :func:`reconstruction_cost` -- ``I - W`` and ``(I - W)^T (I - W)``,
  the matrices the solvers minimise.

Matrices are ``scipy.sparse.csr_array`` of shape ``(n_samples, n_samples)``; row ``i`` holds
the weights of ``i``'s neighbours.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.linalg import blas

from ._memo import LastInput, remembered
from .neighbor_graphs import _CHUNK, Components, Neighborhoods, check_finite

__all__ = [
    "lle_weights",
    "lle_weights_out_of_sample",
    "local_pca",
    "max_sq_distance",
    "class_penalized_coordinates",
    "local_krr_weights",
    "reconstruction_cost",
    "reconstruction_error",
]

#: ``Delta^2 / k`` of Saul and Roweis's ``Q + (Delta^2 / k) tr(Q) I``: the automatic ridge where
#: ``sigma_i^2`` is 0 (:func:`spectrum_summary`)
SINGULAR_RIDGE = 1e-3
_NUMERICALLY_ZERO = 1e-12  # sigma_i^2 at most this times tr(Q_i) is 0 (far above eigvalsh's k eps tr(Q_i))
_KERNEL_BLOCKS_MEMO = LastInput()  # LLP's local kernel matrices of the last (X, neighbourhoods)


def reconstruction_error(W) -> sparse.csr_array:
    """Form ``I - W``: row ``i`` is the error of reconstructing ``x_i`` from its neighbours.

    Parameters
    ----------
    W : sparse matrix or array-like of shape (n_samples, n_samples)
        Reconstruction weights.

    Returns
    -------
    scipy.sparse.csr_array of shape (n_samples, n_samples)
        ``I - W``.
    """
    W = sparse.csr_array(W)
    return sparse.csr_array(sparse.eye_array(W.shape[0], format="csr") - W)


def reconstruction_cost(W) -> sparse.csr_array:
    """Form ``(I - W)^T (I - W)``, the cost of reconstructing every point from its neighbours.

    001 eq. 8 for LLE weights, 000 eq. 36 ``T`` for LLP's ``A``.

    Parameters
    ----------
    W : sparse matrix or array-like of shape (n_samples, n_samples)
        Reconstruction weights.

    Returns
    -------
    scipy.sparse.csr_array of shape (n_samples, n_samples)
        ``(I - W)^T (I - W)``.
    """
    E = reconstruction_error(W)
    return sparse.csr_array(E.T @ E)


# --------------------------------------------------------------------------- batched local problems


def _batches(nbhd: Neighborhoods):
    """Yield ``(points, neighbour_index_matrix)`` for groups of rows with equal neighbour counts."""
    counts = nbhd.counts
    for k in np.unique(counts):
        points = np.flatnonzero(counts == k)
        for start in range(0, len(points), _CHUNK):
            chunk = points[start : start + _CHUNK]
            idx = nbhd.indices[nbhd.indptr[chunk][:, None] + np.arange(k)]
            yield chunk, idx


def _scatter_rows(nbhd: Neighborhoods, pieces) -> sparse.csr_array:
    values = np.empty(len(nbhd.indices))
    for chunk, rows in pieces:
        k = rows.shape[1]
        values[(nbhd.indptr[chunk][:, None] + np.arange(k)).ravel()] = rows.ravel()
    return nbhd.to_csr(values)


def _lle_ridge(Q: np.ndarray, reg: float, reg_mode: str, retained_variance: float, subspace=None) -> np.ndarray:
    """Per-neighbourhood ridge added to the local Gram matrices ``Q`` (shape (m, k, k))."""
    if reg_mode == "trace":  # 001 §3.3: r * sum_j lambda_G^(j) = r * tr(G_i)
        return reg * np.trace(Q, axis1=1, axis2=2)
    if reg_mode == "fixed":  # 004 eq. 4: Q + r I (r one number, or one per neighbourhood)
        return np.broadcast_to(np.asarray(reg, dtype=float), (len(Q),))
    if reg_mode == "auto":  # 004 §3.2: sigma^2, probabilistic PCA's noise estimate
        return spectrum_summary(_eigenvalues(Q), retained_variance, subspace)[2]
    raise ValueError(f"reg_mode must be 'trace', 'fixed' or 'auto', got {reg_mode!r}.")


def _eigenvalues(Q: np.ndarray) -> np.ndarray:
    """Eigenvalues of a stack of local Gram matrices (m, k, k), descending, negatives clipped to 0."""
    return np.clip(np.linalg.eigvalsh(Q)[:, ::-1], 0.0, None)


def spectrum_summary(lam: np.ndarray, retained_variance: float, subspace=None):
    """``(m_i, sigma_i^2, ridge)`` from local eigenvalues ``lam`` (n, k), descending.

    ``m_i`` is the fewest leading eigenvalues retaining the fraction ``v`` of their sum (004 §3.1).
    ``sigma_i^2`` is probabilistic PCA's noise estimate ``1/(d - m) sum_{j > m} lambda_j`` (§3.2):

    * ``subspace=(m, d)``: with one ``m`` for every neighbourhood (the embedding's dimension) and
      ``d`` the input dimension, literally; ``Q_i`` shares its non-zero eigenvalues with the
      ``d x d`` local scatter (§3, Appendix), whose others are 0;
    * ``subspace=None``: with each neighbourhood's own ``m_i`` and ``d`` read as ``k`` (the mean of
      ``Q_i``'s ``k - m_i`` eigenvalues beyond ``m_i``), the reading LEA's ``reg_mode='auto'`` uses.

    ``ridge`` is ``sigma_i^2``; where it is numerically 0 (at most ``1e-12 tr(Q_i)``: nothing left
    beyond the subspace, as when the neighbourhood's rank is below the embedding's dimension, e.g.
    ``k > d``), Saul and Roweis's regulariser ``(Delta^2 / k) tr(Q_i)`` with ``Delta^2 / k = 1e-3``
    ("Think globally, fit locally", JMLR 4, 2003; scikit-learn's ``reg`` is ``Delta^2 / k``), so
    that the data, not rounding, decide the weights of a singular ``Q_i`` (docs/fidelity, "Paper
    004")."""
    n, k = lam.shape
    total = lam.sum(axis=1, keepdims=True)
    frac = np.cumsum(lam, axis=1) / np.where(total > 0, total, 1.0)
    m_i = np.argmax(frac >= retained_variance - 1e-12, axis=1) + 1  # smallest m_i retaining v
    m, d = (m_i, k) if subspace is None else (np.full(n, int(subspace[0])), int(subspace[1]))
    tail = np.where(np.arange(k) >= m[:, None], lam, 0.0).sum(axis=1)
    sigma2 = np.where(m < d, tail / np.maximum(d - m, 1), 0.0)
    total = total.ravel()
    return m_i, sigma2, np.where(sigma2 > _NUMERICALLY_ZERO * total, sigma2, SINGULAR_RIDGE * total)


def local_spectra(X, nbhd: Neighborhoods) -> np.ndarray:
    """The eigenvalues (n, k), descending, of every neighbourhood's Gram matrix
    ``Q_i = (N - x_i 1)^T (N - x_i 1)`` (004 eq. 3)."""
    X = check_finite(X)
    lam = np.zeros((nbhd.n_samples, int(np.max(np.diff(nbhd.indptr), initial=0))))
    for chunk, idx in _batches(nbhd):
        diff = X[chunk][:, None, :] - X[idx]
        lam[chunk] = _eigenvalues(diff @ diff.transpose(0, 2, 1))
    return lam


def _check_retained_variance(retained_variance) -> None:
    if not 0 < retained_variance <= 1:
        raise ValueError(f"retained_variance must be in (0, 1], got {retained_variance!r}.")


def lle_weights(X, nbhd: Neighborhoods, reg: float = 1e-3, reg_mode: str = "trace",
                retained_variance: float = 0.9, subspace=None) -> sparse.csr_array:
    """Compute LLE's reconstruction weights (001 eq. 5-7; 004 eq. 2-4).

    Row ``i`` minimises ``||x_i - sum_j w_ij x_j||^2`` subject to ``sum_j w_ij = 1``:
    ``w_i = G_i^{-1} 1 / (1^T G_i^{-1} 1)`` with the local Gram matrix
    ``G_i[j, l] = (x_i - x_j)^T (x_i - x_l)`` regularised as

    * ``reg_mode='trace'``: ``G_i + r * tr(G_i) I`` (001 §3.3, ``r * sum_j lambda_G^(j)``);
    * ``reg_mode='fixed'``: ``G_i + r I`` (004 §2), ``r`` a number or one per sample (e.g. the
      ``ridge`` of :func:`spectrum_summary`, which is what ``'auto'`` computes);
    * ``reg_mode='auto'``: ``G_i + sigma_i^2 I`` with ``sigma_i^2`` the mean of the eigenvalues
      of ``G_i`` beyond the first ``m_i``, ``m_i`` the fewest retaining the fraction
      ``retained_variance`` of their sum (004 §3.2; ``reg`` is ignored), or beyond one ``m``
      for all with ``subspace=(m, d)`` (:func:`spectrum_summary` spells out both readings).

    A point whose neighbours all coincide with it (``G_i = 0``, exact duplicates) gets the uniform
    weights ``1 / k``, the limit of the regularised solution.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The points.
    nbhd : Neighborhoods
        Their neighbours (:func:`locproj.core.neighbor_graphs.kneighbors`).
    reg : float or ndarray of shape (n_samples,), default=1e-3
        The regularisation ``r``; one per sample with ``reg_mode='fixed'`` only.
    reg_mode : {'trace', 'fixed', 'auto'}, default='trace'
        How ``r`` regularises the local Gram matrices (above).
    retained_variance : float, default=0.9
        The fraction ``v`` of ``reg_mode='auto'``, in (0, 1].
    subspace : tuple of (int, int), optional
        ``(m, d)``: the noise of ``reg_mode='auto'`` beyond one ``m`` for every point, in ``d``
        dimensions (:func:`spectrum_summary`); by default beyond each point's own ``m_i``.

    Returns
    -------
    W : scipy.sparse.csr_array of shape (n_samples, n_samples)
        The weights, each row summing to one.
    """
    X = check_finite(X)
    _check_retained_variance(retained_variance)
    if np.any(np.asarray(reg) < 0):
        raise ValueError(f"reg must be >= 0, got {reg!r}.")
    per_point = np.ndim(reg) > 0
    if per_point and (reg_mode != "fixed" or np.shape(reg) != (nbhd.n_samples,)):
        raise ValueError("a per-sample reg needs reg_mode='fixed' and one value per sample.")
    pieces = []
    for chunk, idx in _batches(nbhd):
        diff = X[chunk][:, None, :] - X[idx]  # (m, k, d): x_i - x_j
        pieces.append((chunk, _affine_weights(diff, reg[chunk] if per_point else reg, reg_mode, retained_variance,
                                              subspace)))
    return _scatter_rows(nbhd, pieces)


def _affine_weights(diff: np.ndarray, reg: float, reg_mode: str, retained_variance: float,
                    subspace=None) -> np.ndarray:
    """Eq. 4 for a stack of neighbourhoods given as differences ``x_i - x_j`` (m, k, d)."""
    if reg_mode != "fixed":
        # with a ridge that scales with Q (trace, auto) the weights do not depend on the scale of
        # the differences; scaling each neighbourhood by a power of two is exact, so ordinary data
        # keep their bits, while differences near the float64 limits no longer under- or
        # overflow in Q (then Q + ridge is 0, or inf, and the weights NaN)
        top = np.abs(diff).max(axis=(1, 2), keepdims=True)
        diff = np.ldexp(diff, -np.frexp(np.where(top > 0, top, 1.0))[1])
    Q = diff @ diff.transpose(0, 2, 1)
    k = Q.shape[-1]
    Q = Q + _lle_ridge(Q, reg, reg_mode, retained_variance, subspace)[:, None, None] * np.eye(k)
    # every neighbour equal to x_i (duplicated rows): any affine weights reconstruct it
    # exactly, and the limit of the regularised solution is the uniform one
    Q[np.all(Q == 0, axis=(1, 2))] = np.eye(k)
    w = _solve_regularized(Q, np.ones((len(diff), k, 1)))[..., 0]
    return w / w.sum(axis=1, keepdims=True)


def lle_weights_out_of_sample(X_new, X, neighbors, reg: float = 1e-3, reg_mode: str = "trace",
                              retained_variance: float = 0.9, subspace=None) -> sparse.csr_array:
    """Compute the reconstruction weights of new points from their neighbours among ``X`` (004 §2, end).

    Row ``i`` of the ``(n_new, n)`` result holds eq. 4's weights of ``X_new[i]`` on the points
    ``X[neighbors[i]]``, with the regularisation of :func:`lle_weights` (``reg``, ``reg_mode``,
    ``retained_variance``, ``subspace``); ``W_new @ Y`` maps the new points by ``y = sum_j w_j y_N(j)``.

    A new point that coincides with some of its neighbours (squared distance exactly 0) gets
    uniform weights on those and 0 elsewhere: its reconstruction error (eq. 2) is then exactly
    zero, and this is the ``r -> 0`` limit of eq. 4 whenever the other neighbours' Gram matrix is
    non-singular.  So a training point is mapped onto its own embedding (an automatic ridge
    ``sigma^2`` of the size of ``Q``'s small eigenvalues would otherwise pull it away).

    Parameters
    ----------
    X_new : array-like of shape (n_new, n_features)
        The new points.
    X : array-like of shape (n_samples, n_features)
        The points they are reconstructed from.
    neighbors : array-like of int of shape (n_new, k)
        The rows of ``X`` that are the neighbours of each new point
        (:func:`locproj.core.neighbor_graphs.kneighbors_query`).
    reg : float, default=1e-3
        The regularisation ``r``.
    reg_mode : {'trace', 'fixed', 'auto'}, default='trace'
        How ``r`` regularises the local Gram matrices (above).
    retained_variance : float, default=0.9
        The fraction ``v`` of ``reg_mode='auto'``, in (0, 1].
    subspace : tuple of (int, int), optional
        ``(m, d)``: the noise of ``reg_mode='auto'`` beyond one ``m`` for every point, in ``d``
        dimensions (:func:`spectrum_summary`); by default beyond each point's own ``m_i``.

    Returns
    -------
    W_new : scipy.sparse.csr_array of shape (n_new, n_samples)
        The weights, each row summing to one.
    """
    X_new, X = check_finite(X_new, "X_new"), check_finite(X)
    _check_retained_variance(retained_variance)
    if reg < 0:
        raise ValueError(f"reg must be >= 0, got {reg!r}.")
    neighbors = np.asarray(neighbors, dtype=np.int64)
    n_new, k = neighbors.shape
    weights = np.empty((n_new, k))
    for start in range(0, n_new, _CHUNK):
        sl = slice(start, start + _CHUNK)
        diff = X_new[sl][:, None, :] - X[neighbors[sl]]
        w = _affine_weights(diff, reg, reg_mode, retained_variance, subspace)
        same = np.all(diff == 0, axis=2)  # (m, k): neighbours equal to the new point
        hit = same.any(axis=1)
        w[hit] = same[hit] / same[hit].sum(axis=1, keepdims=True)
        weights[sl] = w
    indptr = np.arange(0, n_new * k + 1, k)
    return sparse.csr_array((weights.ravel(), neighbors.ravel().copy(), indptr), shape=(n_new, len(X)))


def local_pca(X, nbhd: Neighborhoods, retained_variance: float = 0.9) -> tuple[np.ndarray, np.ndarray]:
    """Run a local PCA of every neighbourhood from the eigenvalues of its Gram matrix.

    The Gram matrix ``Q_i = (N - x_i 1)^T (N - x_i 1)`` (004 eq. 3) has the non-zero eigenvalues
    of the local scatter ``C_i = (N - x_i 1)(N - x_i 1)^T`` (004 §3, Appendix).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The points.
    nbhd : Neighborhoods
        Their neighbours (:func:`locproj.core.neighbor_graphs.kneighbors`).
    retained_variance : float, default=0.9
        The fraction ``v``, in (0, 1].

    Returns
    -------
    m : int array of shape (n_samples,)
        ``m_i``, the fewest leading eigenvalues retaining the fraction ``v = retained_variance``
        of their sum (004 §3.1; majority voting over ``m_i`` gives an overall dimension).
    sigma2 : float array of shape (n_samples,)
        ``sigma_i^2`` of :func:`spectrum_summary` with ``subspace=None``: the mean of the
        ``k - m_i`` remaining eigenvalues of ``Q_i``; 0 when ``m_i = k``.  This is the ridge of
        ``lle_weights(reg_mode='auto')`` (which replaces a numerical 0 by ``1e-3 tr(Q_i)``,
        :func:`spectrum_summary`).
    """
    _check_retained_variance(retained_variance)
    m, sigma2, _ = spectrum_summary(local_spectra(X, nbhd), retained_variance)
    return m, sigma2


def max_sq_distance(X) -> float:
    """Compute ``max_ij ||x_i - x_j||^2`` (the ``max(D)`` of 004 eq. 8) without an ``n x n`` matrix.

    Row blocks of the upper triangle of the expansion ``|x|^2 + |z|^2 - 2 x.z`` (on centred
    data, the products through BLAS) locate the farthest pair; its distance is then recomputed
    exactly as ``sum((x_i - x_j)^2)``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The points.

    Returns
    -------
    float
        The largest squared distance; 0 for fewer than two points.
    """
    X = check_finite(X)
    n = len(X)
    if n < 2:
        return 0.0
    Xc = X - X.mean(axis=0)
    sq = np.einsum("ij,ij->i", Xc, Xc)
    XT = np.asfortranarray(Xc.T)  # (d, n): BLAS reads it without a copy
    best, pair = -np.inf, (0, 0)
    for start in range(0, n, 2 * _CHUNK):
        stop = min(start + 2 * _CHUNK, n)
        # rows start:stop against columns start:n, a C-ordered (rows, n - start) block
        block = blas.dgemm(-2.0, XT[:, start:], XT[:, start:stop], trans_a=True).T
        block += sq[None, start:]
        block += sq[start:stop, None]
        i, j = divmod(int(np.argmax(block)), block.shape[1])
        if block[i, j] > best:
            best, pair = block[i, j], (start + i, start + j)
    diff = X[pair[0]] - X[pair[1]]
    return float(diff @ diff)


def class_penalized_coordinates(X, y, penalty: float) -> np.ndarray:
    """Build coordinates whose squared distances are SLLE's ``D' = D + penalty * Delta``.

    004 eq. 8, with ``penalty = alpha * max(D)`` and ``Delta_ij = 1`` when ``y_i != y_j``.  The
    coordinates are ``X`` with ``sqrt(penalty / 2)`` times the one-hot code of ``y`` appended: two
    one-hot codes differ by ``|e_a - e_b|^2 = 2`` when ``a != b``.  So ``D'`` is a Euclidean distance matrix,
    a neighbour search on these coordinates is the search under ``D'``, and their local Gram
    matrices (eq. 3) are those of eq. 5 computed from ``D'``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The points.
    y : array-like of shape (n_samples,)
        Class labels.
    penalty : float
        The distance ``alpha * max(D)`` added between classes, ``>= 0``.

    Returns
    -------
    ndarray of shape (n_samples, n_features + n_classes)
        The coordinates.
    """
    X = check_finite(X)
    if not penalty >= 0:
        raise ValueError(f"penalty must be >= 0, got {penalty!r}.")
    _, codes = np.unique(np.asarray(y), return_inverse=True)
    onehot = np.zeros((len(X), codes.max(initial=0) + 1))
    onehot[np.arange(len(X)), codes.ravel()] = np.sqrt(penalty / 2.0)
    return np.hstack([X, onehot])


def _solve_regularized(Q: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Batched solve of ``Q w = b``.  An exactly singular block (``reg=0`` with ``k > d`` or a
    point in the affine hull of its neighbours) gets the ridge ``1e-12 * tr(Q)``: ``w`` then
    tends to the exact affine reconstruction."""
    try:
        return np.linalg.solve(Q, b)
    except np.linalg.LinAlgError:
        ridge = 1e-12 * np.maximum(np.trace(Q, axis1=1, axis2=2), np.finfo(float).tiny)
        return np.linalg.solve(Q + ridge[:, None, None] * np.eye(Q.shape[-1]), b)


# --------------------------------------------------------------------------- LLP


def local_krr_weights(X, nbhd: Neighborhoods, reg: float = 1.0, kernel: str = "linear",
                      gamma: float | None = None, center: bool = True) -> sparse.csr_array:
    """Compute LLP's local-learning matrix ``A`` (000 eq. 29-32).

    Row ``i`` holds ``alpha_i^T = k_i^T (K_i + lambda I)^{-1}`` on ``i``'s neighbours, where
    ``K_i = [K(x_j, x_l)]`` over the neighbours ``j, l`` of ``x_i`` and
    ``k_i = [K(x_i, x_j)]`` over the same neighbours (eq. 29), so that ``(A f)_i`` is the
    kernel-ridge prediction at ``x_i`` of a model fitted on ``{(x_j, f_j)}`` (eq. 30, 32).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The points.
    nbhd : Neighborhoods
        Their neighbours (:func:`locproj.core.neighbor_graphs.kneighbors`).
    reg : float, default=1.0
        The ridge ``lambda > 0`` of eq. 2.
    kernel : {'linear', 'rbf'}, default='linear'
        ``x^T z`` or ``exp(-gamma ||x - z||^2)``.
    gamma : float or None, default=None
        The width of the RBF kernel; None: ``1 / n_features``, scikit-learn's default.
    center : bool, default=True
        Linear kernel only: evaluate it on mean-centred data.  Paper 000 footnote 3 says the
        algorithm does not need centring in feature space; it leaves the choice open.

    Returns
    -------
    A : scipy.sparse.csr_array of shape (n_samples, n_samples)
        Row ``i`` holds ``alpha_i`` on ``i``'s neighbours.
    """
    X = check_finite(X)
    if not reg > 0:
        raise ValueError(f"reg (lambda) must be positive, got {reg!r}.")
    if kernel not in ("linear", "rbf"):
        raise ValueError(f"kernel must be 'linear' or 'rbf', got {kernel!r}.")
    # the kernel blocks do not depend on lambda: cross-validation reuses them across its grid
    memo = _KERNEL_BLOCKS_MEMO.values_for(X, nbhd.indptr, nbhd.indices)
    blocks = remembered(memo, (kernel, gamma, bool(center)),
                        lambda: _local_kernel_blocks(X, nbhd, kernel, gamma, center))
    pieces = []
    for chunk, K_i, k_i in blocks:
        alpha = np.linalg.solve(K_i + reg * np.eye(K_i.shape[-1]), k_i[..., None])[..., 0]  # K_i symmetric
        pieces.append((chunk, alpha))
    return _scatter_rows(nbhd, pieces)


def _local_kernel_blocks(X, nbhd: Neighborhoods, kernel: str, gamma, center: bool) -> list:
    """``(points, K_i, k_i)`` per batch of equal-size neighbourhoods (eq. 29), read-only."""
    if kernel == "linear" and center:
        X = X - X.mean(axis=0)
    params = {} if kernel == "linear" else {"gamma": 1.0 / X.shape[1] if gamma is None else gamma}
    within = _ComponentKernels.if_cheaper(X, nbhd, kernel, params)
    blocks = []
    for chunk, idx in _batches(nbhd):
        if within is not None:
            K_i, k_i = within.pairs(idx[:, :, None], idx[:, None, :]), within.pairs(chunk[:, None], idx)
        else:
            Xn = X[idx]  # (m, k, d)
            K_i = _batched_kernel(Xn, Xn, kernel, **params)
            k_i = _batched_kernel(X[chunk][:, None, :], Xn, kernel, **params)[:, 0, :]  # K(x_i, x_j)
        for array in (K_i, k_i):
            array.setflags(write=False)
        blocks.append((chunk, K_i, k_i))
    return blocks


class _ComponentKernels:
    """The kernel matrix of each connected component of the neighbourhood graph, stored flat.

    A neighbourhood never leaves its component (a supervised one never leaves its class), so
    every ``K_i`` and ``k_i`` is a submatrix of its component's kernel matrix: one product per
    component instead of one per neighbourhood, and no ``(n, k, d)`` copy of the neighbours."""

    def __init__(self, X, parts: Components, kernel: str, params: dict):
        self.labels, self.local, self.sizes = parts.labels, parts.local, parts.sizes
        self.offsets = np.concatenate([[0], np.cumsum(parts.sizes**2)[:-1]])
        self.flat = np.empty(int(np.sum(parts.sizes**2)))
        for size, components, members in parts.by_size():
            Xc = X[members]  # (components, size, d)
            at = self.offsets[components][:, None] + np.arange(size * size)
            self.flat[at] = _batched_kernel(Xc, Xc, kernel, **params).reshape(len(components), -1)

    @classmethod
    def if_cheaper(cls, X, nbhd: Neighborhoods, kernel: str, params: dict) -> _ComponentKernels | None:
        """The component kernels when they hold no more entries than the blocks ``K_i``."""
        parts = Components.of(nbhd.to_csr(np.ones(len(nbhd.indices))))
        if np.sum(parts.sizes.astype(float) ** 2) > np.sum(nbhd.counts.astype(float) ** 2):
            return None
        return cls(X, parts, kernel, params)

    def pairs(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """``K(x_rows, x_cols)`` (broadcast index arrays, each pair inside one component)."""
        component = self.labels[rows]
        return self.flat[self.offsets[component] + self.local[rows] * self.sizes[component] + self.local[cols]]


def _batched_kernel(A: np.ndarray, B: np.ndarray, kernel: str, gamma: float | None = None) -> np.ndarray:
    """Kernel blocks ``[K(a_p, b_q)]`` for stacks A (m, p, d), B (m, q, d)."""
    inner = A @ B.transpose(0, 2, 1)
    if kernel == "linear":
        return inner
    sq = np.einsum("mpd,mpd->mp", A, A)[:, :, None] + np.einsum("mqd,mqd->mq", B, B)[:, None, :] - 2 * inner
    return np.exp(-gamma * np.clip(sq, 0.0, None))
