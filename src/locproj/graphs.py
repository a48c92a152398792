"""Neighbourhood graphs and the weight matrices that define each graph-embedding method.

Every method in :mod:`locproj.methods` is "a graph plus a constraint" handed to
:func:`locproj.solvers.solve_embedding`.  This module builds the graphs:

* :func:`kneighbors` -- (supervised) k-nearest-neighbour search, the sparsity pattern;
* :func:`binary_weights`, :func:`heat_weights` -- LPP affinities (paper 000 §6.2, 003 eq. 12);
* :func:`lle_weights` -- LLE reconstruction weights (001 eq. 5-7, 004 eq. 2-4, §3.2);
  :func:`lle_weights_out_of_sample` -- the same weights for new points (004 §2, end);
  :func:`local_pca` -- per-neighbourhood dimension ``m_i`` and noise ``sigma_i^2`` (004 §3.1-3.2);
  :func:`max_sq_distance`, :func:`class_penalized_coordinates` -- SLLE's ``D'`` (004 eq. 8);
* :func:`local_krr_weights` -- LLP's local kernel-ridge matrix ``A`` (000 eq. 29-32);
* :func:`class_block_graph` -- the graph whose embedding is LDA;
* :func:`local_scaling_affinity` -- LFDA's affinity (Sugiyama 2007, eq. 4 & §4.2);
* :func:`laplacian`, :func:`laplacian_factor`, :func:`symmetrize`, :func:`reconstruction_cost` --
  matrix algebra on graphs.

Matrices are ``scipy.sparse.csr_array`` of shape ``(n_samples, n_samples)``; row ``i`` holds
the weights of ``i``'s neighbours.  Heat-kernel width: ``w_ij = exp(-||x_i - x_j||^2 / gamma)``,
the convention of paper 000 §6.2; paper 003 eq. 12 writes the same width as ``t`` (``t == gamma``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.linalg import blas
from scipy.sparse.csgraph import connected_components
from scipy.spatial.distance import cdist
from sklearn.neighbors import NearestNeighbors
from threadpoolctl import threadpool_limits

from ._memo import LastInput, remembered

__all__ = [
    "Neighborhoods",
    "kneighbors",
    "binary_weights",
    "heat_weights",
    "default_heat_gamma",
    "symmetrize",
    "laplacian",
    "laplacian_factor",
    "BlockDiagonal",
    "lle_weights",
    "lle_weights_out_of_sample",
    "local_pca",
    "max_sq_distance",
    "class_penalized_coordinates",
    "local_krr_weights",
    "reconstruction_cost",
    "reconstruction_error",
    "class_block_graph",
    "local_scaling_affinity",
]

_CHUNK = 512  # rows per batch in the batched local solves (bounds memory at chunk*k*d floats)


@dataclass(frozen=True)
class Neighborhoods:
    """Directed neighbour lists in CSR layout: row ``i``'s neighbours are
    ``indices[indptr[i]:indptr[i+1]]`` (``i`` itself excluded), with their squared
    Euclidean distances in ``sq_distances`` (computed exactly as ``sum((x_i - x_j)**2)``)."""

    indptr: np.ndarray
    indices: np.ndarray
    sq_distances: np.ndarray

    @property
    def n_samples(self) -> int:
        return len(self.indptr) - 1

    @property
    def counts(self) -> np.ndarray:
        return np.diff(self.indptr)

    def rows(self) -> np.ndarray:
        """Row index of every stored edge (the ``i`` of edge ``i -> j``)."""
        return np.repeat(np.arange(self.n_samples), self.counts)

    def to_csr(self, values) -> sparse.csr_array:
        """Sparse matrix with ``values`` on the edges (explicit zeros are kept); it owns its
        index arrays, so sparse operations that sort them in place leave these lists alone."""
        n = self.n_samples
        return sparse.csr_array((np.asarray(values, dtype=float), self.indices.copy(), self.indptr.copy()),
                                shape=(n, n))

    def read_only(self) -> Neighborhoods:
        """This object, its arrays made read-only (it may be shared through a memo)."""
        for array in (self.indptr, self.indices, self.sq_distances):
            array.setflags(write=False)
        return self


# --------------------------------------------------------------------------- validation


def check_finite(X, name: str = "X") -> np.ndarray:
    """Return ``X`` as a float array; raise ``ValueError`` on NaN or inf."""
    X = np.asarray(X, dtype=float)
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains NaN or infinity; remove or impute those values first.")
    return X


def _label(c):
    """A class label as a plain Python value (so messages read ``class 'a'``, not ``np.str_``)."""
    return c.item() if isinstance(c, np.generic) else c


def _class_groups(y) -> tuple[np.ndarray, list[np.ndarray]]:
    classes, inverse = np.unique(np.asarray(y), return_inverse=True)
    if len(classes) < 2:
        raise ValueError(
            f"a supervised graph needs at least 2 classes, got 1 (class {_label(classes[0])!r}); "
            "use supervised=False for unlabelled data."
        )
    return classes, [np.flatnonzero(inverse == c) for c in range(len(classes))]


def _check_n_neighbors(n_neighbors, group_size: int, what: str) -> int:
    """Resolve ``n_neighbors`` ('all' or int) for a group of ``group_size`` points."""
    if isinstance(n_neighbors, str):
        if n_neighbors != "all":
            raise ValueError(f"n_neighbors must be a positive int or 'all', got {n_neighbors!r}.")
    elif not isinstance(n_neighbors, (int, np.integer)) or isinstance(n_neighbors, bool) or n_neighbors < 1:
        raise ValueError(f"n_neighbors must be a positive int or 'all', got {n_neighbors!r}.")
    if group_size < 2:
        fix = ("remove that class's samples, add samples to it, or use supervised=False"
               if what.startswith("class") else "pass at least 2 samples")
        raise ValueError(f"{what} has only {group_size} sample, but every point needs at least one "
                         f"neighbour{' of its own class' if what.startswith('class') else ''}; {fix}.")
    if isinstance(n_neighbors, str):  # 'all'
        return group_size - 1
    if n_neighbors >= group_size:
        raise ValueError(
            f"n_neighbors={n_neighbors} but {what} has only {group_size} samples; "
            f"use n_neighbors <= {group_size - 1} (size - 1) or n_neighbors='all'."
        )
    return int(n_neighbors)


# --------------------------------------------------------------------------- neighbour search


_NEIGHBOURS_MEMO = LastInput()  # neighbour lists of the last (X, y), per n_neighbors
_KERNEL_BLOCKS_MEMO = LastInput()  # LLP's local kernel matrices of the last (X, neighbourhoods)
_PRECOMPUTED_MAX = 500  # groups up to this size: exact distance blocks, one 'precomputed' search


def kneighbors(X, n_neighbors=5, y=None) -> Neighborhoods:
    """k-nearest-neighbour lists, optionally restricted to each point's own class.

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
    n_neighbors : int or 'all'
        Neighbours per point, the point itself not counted.  ``'all'`` means every other
        point (of the same class when supervised).
    y : array of shape (n_samples,) or None
        Class labels.  When given, neighbours are searched only within the class of each point
        (paper 000 §3.2; 001 §3.1: ``1 <= k <= n_c - 1``), so no edge links two classes.

    Returns
    -------
    Neighborhoods
        Squared distances are exact (``sum((x_i - x_j)**2)``, not the ``|x|^2 + |z|^2 - 2 x.z``
        expansion).

    Notes
    -----
    The lists are remembered for the last ``(X, y)`` (:mod:`locproj._memo`): cross-validation
    builds one fold's graph under several weights.  Their arrays are read-only.

    Groups (classes) of at most 500 points are searched together by one
    ``NearestNeighbors(metric='precomputed')`` on a sparse block-diagonal matrix of their exact
    within-group distances, so a supervised search never crosses classes and costs one call;
    larger groups use ``NearestNeighbors(algorithm='brute')`` each.
    """
    X = check_finite(X)
    memo = _NEIGHBOURS_MEMO.values_for(X, np.asarray(y, dtype=object) if y is None else np.asarray(y))
    # keyed by type too: True must not find the entry of 1 (it is refused, not searched)
    return remembered(memo, (type(n_neighbors), n_neighbors), lambda: _search(X, n_neighbors, y).read_only())


def _search(X: np.ndarray, n_neighbors, y) -> Neighborhoods:
    n = len(X)
    if y is None:
        groups, whats = [np.arange(n)], ["the data set"]
    else:
        classes, groups = _class_groups(y)
        whats = [f"class {_label(c)!r}" for c in classes]
    ks = [_check_n_neighbors(n_neighbors, len(g), w) for g, w in zip(groups, whats)]
    if isinstance(n_neighbors, str):  # 'all': every other member of the group, no search
        return _all_others(X, groups)
    k = ks[0]
    idx = np.empty((n, k), dtype=np.int64)
    sq = np.empty((n, k))
    small = [g for g in groups if len(g) <= _PRECOMPUTED_MAX]
    if small:
        points = np.concatenate(small)
        idx[points], sq[points] = _search_blocks(X, small, k)
    for g in (g for g in groups if len(g) > _PRECOMPUTED_MAX):
        local = NearestNeighbors(n_neighbors=k, algorithm="brute").fit(X[g]).kneighbors(return_distance=False)
        idx[g] = g[local]
        sq[g] = _pair_sq_distances(X, np.repeat(g, k), idx[g].ravel()).reshape(len(g), k)
    return Neighborhoods(indptr=np.arange(0, n * k + 1, k), indices=idx.ravel(), sq_distances=sq.ravel())


def _search_blocks(X: np.ndarray, groups: list[np.ndarray], k: int):
    """One precomputed search over the block-diagonal matrix of exact within-group squared
    distances (rows stored sorted by value, the point itself included with distance 0)."""
    points = np.concatenate(groups)
    offsets = np.concatenate([[0], np.cumsum([len(g) for g in groups])])
    cols, vals = [], []
    for g, start in zip(groups, offsets[:-1]):
        block = cdist(X[g], X[g], "sqeuclidean")
        order = np.argsort(block, axis=1, kind="stable")
        cols.append((order + start).ravel())
        vals.append(np.take_along_axis(block, order, axis=1).ravel())
    sizes = np.repeat([len(g) for g in groups], [len(g) for g in groups])
    graph = sparse.csr_array((np.concatenate(vals), np.concatenate(cols),
                              np.concatenate([[0], np.cumsum(sizes)])), shape=(len(points), len(points)))
    with threadpool_limits(limits=1, user_api="openmp"):
        nn = NearestNeighbors(n_neighbors=k, metric="precomputed").fit(graph)
        dist, local = nn.kneighbors(return_distance=True)
    return points[local], dist


def _all_others(X: np.ndarray, groups: list[np.ndarray]) -> Neighborhoods:
    n = len(X)
    neighbors = [None] * n
    for g in groups:
        for i, point in enumerate(g):
            neighbors[point] = np.delete(g, i)
    counts = np.array([len(nb) for nb in neighbors])
    indices = np.concatenate(neighbors).astype(np.int64)
    sq = _pair_sq_distances(X, np.repeat(np.arange(n), counts), indices)
    return Neighborhoods(indptr=np.concatenate([[0], np.cumsum(counts)]), indices=indices, sq_distances=sq)


def _pair_sq_distances(X, rows, cols) -> np.ndarray:
    out = np.empty(len(rows))
    for start in range(0, len(rows), 4 * _CHUNK):
        sl = slice(start, start + 4 * _CHUNK)
        diff = X[rows[sl]] - X[cols[sl]]
        out[sl] = np.einsum("ij,ij->i", diff, diff)
    return out


# --------------------------------------------------------------------------- LPP weights


def binary_weights(nbhd: Neighborhoods) -> sparse.csr_array:
    """``w_ij = 1`` on every edge (paper 003, "simple-minded" weights)."""
    return nbhd.to_csr(np.ones(len(nbhd.indices)))


def default_heat_gamma(nbhd: Neighborhoods) -> float:
    """Default heat-kernel width: the mean squared distance over the graph's edges.

    Scale-free and local; paper 000 §6.2 instead searches a grid ``sigma0^2 * 2^k`` with
    ``sigma0`` the mean norm of the training data -- pass ``gamma`` explicitly to follow it.
    """
    mean_sq = float(np.mean(nbhd.sq_distances))
    return mean_sq if mean_sq > 0 else 1.0


def heat_weights(nbhd: Neighborhoods, gamma: float | None = None) -> sparse.csr_array:
    """Heat-kernel weights ``w_ij = exp(-||x_i - x_j||^2 / gamma)`` on the edges.

    Paper 000 §6.2 (``gamma``) and paper 003 eq. 12 (``t``) use the same convention.
    ``gamma=None`` uses :func:`default_heat_gamma`.
    """
    if gamma is None:
        gamma = default_heat_gamma(nbhd)
    if not gamma > 0:
        raise ValueError(f"gamma (heat-kernel width) must be positive, got {gamma!r}.")
    return nbhd.to_csr(np.exp(-nbhd.sq_distances / gamma))


def symmetrize(W) -> sparse.csr_array:
    """``max(W, W^T)``: an edge in either direction (the usual LPP kNN graph)."""
    W = sparse.csr_array(W)
    return sparse.csr_array(W.maximum(W.T))


def laplacian(W) -> tuple[sparse.csr_array, sparse.csr_array]:
    """Graph Laplacian ``L = D - W`` and degree matrix ``D = diag(sum_j w_ij)`` (003 eq. 14)."""
    W = sparse.csr_array(W)
    D = sparse.diags_array(np.asarray(W.sum(axis=1)).ravel(), format="csr")
    return sparse.csr_array(D - W), D


_MAX_FACTOR_BLOCK = 256  # largest connected component factored densely by laplacian_factor


@dataclass(frozen=True)
class BlockDiagonal:
    """An ``n x n`` block-diagonal matrix, its blocks stacked by size: ``blocks[s][b]`` (an
    ``m x m`` array) sits on the rows and columns ``index[s][b]`` (disjoint; rows in no block are
    zero).  ``E @ Y`` costs one batched product per block size."""

    blocks: tuple  # of arrays (n_blocks, m, m)
    index: tuple  # of int arrays (n_blocks, m)
    n: int

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n, self.n)

    def __matmul__(self, Y):
        Y = np.asarray(Y, dtype=float)
        out = np.zeros((self.n,) + Y.shape[1:])
        for blocks, rows in zip(self.blocks, self.index):
            out[rows] = np.matmul(blocks, Y[rows])
        return out

    def toarray(self) -> np.ndarray:
        return self._dense(self.blocks)

    def gram(self) -> np.ndarray:
        """``E^T E`` as a dense array."""
        return self._dense(np.matmul(blocks.transpose(0, 2, 1), blocks) for blocks in self.blocks)

    def _dense(self, stacks) -> np.ndarray:
        out = np.zeros((self.n, self.n))
        for blocks, rows in zip(stacks, self.index):
            out[rows[:, :, None], rows[:, None, :]] = blocks
        return out


def laplacian_factor(W) -> BlockDiagonal | None:
    """``E`` with ``E^T E = D - W`` (symmetric ``W >= 0``), block-diagonal over the graph's
    connected components, or None if one has more than 256 points.

    Each component's Laplacian ``L_c`` (positive semi-definite) is factored from its eigen-
    decomposition, ``E_c = Lambda^1/2 U^T``.  A supervised graph never links two classes, so
    ``X^T L X`` becomes a rank-k update ``(E X)^T (E X)``: half the work of ``X^T (L X)``.
    """
    W = sparse.coo_array(W)
    n = W.shape[0]
    n_components, labels = connected_components(W, directed=False)
    sizes = np.bincount(labels, minlength=n_components)
    if sizes.max(initial=0) > _MAX_FACTOR_BLOCK:
        return None
    order = np.argsort(labels, kind="stable")  # points grouped by component
    local = np.empty(n, dtype=np.int64)
    local[order] = np.arange(n) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    blocks, index = [], []
    for size in np.unique(sizes):
        components = np.flatnonzero(sizes == size)
        slot = np.full(n_components, -1)
        slot[components] = np.arange(len(components))
        W_c = np.zeros((len(components), size, size))
        stack = slot[labels[W.row]]
        edges = stack >= 0  # edges inside components of this size
        np.add.at(W_c, (stack[edges], local[W.row[edges]], local[W.col[edges]]), W.data[edges])
        L_c = -W_c
        L_c[:, np.arange(size), np.arange(size)] += W_c.sum(axis=2)
        lam, U = np.linalg.eigh(L_c)
        blocks.append(np.sqrt(np.clip(lam, 0.0, None))[:, :, None] * U.transpose(0, 2, 1))
        index.append(order[np.isin(labels[order], components)].reshape(len(components), size))
    return BlockDiagonal(blocks=tuple(blocks), index=tuple(index), n=n)


def reconstruction_error(W) -> sparse.csr_array:
    """``I - W``: row ``i`` is the error of reconstructing ``x_i`` from its neighbours."""
    W = sparse.csr_array(W)
    return sparse.csr_array(sparse.eye_array(W.shape[0], format="csr") - W)


def reconstruction_cost(W) -> sparse.csr_array:
    """``(I - W)^T (I - W)``: cost of reconstructing every point from its neighbours
    (001 eq. 8 for LLE weights, 000 eq. 36 ``T`` for LLP's ``A``)."""
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

    ``ridge`` is ``sigma_i^2`` floored at ``1e-12 tr(Q_i)``, so that ``Q_i + ridge I`` stays
    invertible when nothing is left beyond the subspace."""
    n, k = lam.shape
    total = lam.sum(axis=1, keepdims=True)
    frac = np.cumsum(lam, axis=1) / np.where(total > 0, total, 1.0)
    m_i = np.argmax(frac >= retained_variance - 1e-12, axis=1) + 1  # smallest m_i retaining v
    m, d = (m_i, k) if subspace is None else (np.full(n, int(subspace[0])), int(subspace[1]))
    tail = np.where(np.arange(k) >= m[:, None], lam, 0.0).sum(axis=1)
    sigma2 = np.where(m < d, tail / np.maximum(d - m, 1), 0.0)
    return m_i, sigma2, np.maximum(sigma2, 1e-12 * total.ravel())


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
    """LLE reconstruction weights: row ``i`` minimises ``||x_i - sum_j w_ij x_j||^2``
    subject to ``sum_j w_ij = 1`` (001 eq. 5-7; 004 eq. 2-4).

    ``w_i = G_i^{-1} 1 / (1^T G_i^{-1} 1)`` with the local Gram matrix
    ``G_i[j, l] = (x_i - x_j)^T (x_i - x_l)`` regularised as

    * ``reg_mode='trace'``: ``G_i + r * tr(G_i) I`` (001 §3.3, ``r * sum_j lambda_G^(j)``);
    * ``reg_mode='fixed'``: ``G_i + r I`` (004 §2), ``r`` a number or one per sample (e.g. the
      ``ridge`` of :func:`local_pca`, which is what ``'auto'`` computes);
    * ``reg_mode='auto'``: ``G_i + sigma_i^2 I`` with ``sigma_i^2`` the mean of the eigenvalues
      of ``G_i`` beyond the first ``m_i``, ``m_i`` the fewest retaining the fraction
      ``retained_variance`` of their sum (004 §3.2; ``reg`` is ignored), or beyond one ``m``
      for all with ``subspace=(m, d)`` (:func:`spectrum_summary` spells out both readings).

    A point whose neighbours all coincide with it (``G_i = 0``, exact duplicates) gets the uniform
    weights ``1 / k``, the limit of the regularised solution.

    Returns a CSR matrix whose rows sum to one.
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
    """Reconstruction weights of new points from their neighbours among ``X`` (004 §2, end).

    Row ``i`` of the ``(n_new, n)`` result holds eq. 4's weights of ``X_new[i]`` on the points
    ``X[neighbors[i]]``, with the regularisation of :func:`lle_weights` (``reg``, ``reg_mode``,
    ``retained_variance``, ``subspace``); ``W_new @ Y`` maps the new points by ``y = sum_j w_j y_N(j)``.

    A new point that coincides with some of its neighbours (squared distance exactly 0) gets
    uniform weights on those and 0 elsewhere: its reconstruction error (eq. 2) is then exactly
    zero, and this is the ``r -> 0`` limit of eq. 4 whenever the other neighbours' Gram matrix is
    non-singular.  So a training point is mapped onto its own embedding (an automatic ridge
    ``sigma^2`` of the size of ``Q``'s small eigenvalues would otherwise pull it away).
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
    """Local PCA of every neighbourhood from the eigenvalues of its Gram matrix
    ``Q_i = (N - x_i 1)^T (N - x_i 1)`` (004 eq. 3), whose non-zero eigenvalues are those of the
    local scatter ``C_i = (N - x_i 1)(N - x_i 1)^T`` (004 §3, Appendix).

    Returns
    -------
    m : int array of shape (n_samples,)
        ``m_i``, the fewest leading eigenvalues retaining the fraction ``v = retained_variance``
        of their sum (004 §3.1; majority voting over ``m_i`` gives an overall dimension).
    sigma2 : float array of shape (n_samples,)
        ``sigma_i^2`` of :func:`spectrum_summary` with ``subspace=None``: the mean of the
        ``k - m_i`` remaining eigenvalues of ``Q_i``; 0 when ``m_i = k``.  This is the ridge of
        ``lle_weights(reg_mode='auto')`` (which floors it at ``1e-12 tr(Q_i)``).
    """
    _check_retained_variance(retained_variance)
    m, sigma2, _ = spectrum_summary(local_spectra(X, nbhd), retained_variance)
    return m, sigma2


def max_sq_distance(X) -> float:
    """``max_ij ||x_i - x_j||^2`` (the ``max(D)`` of 004 eq. 8) without an ``n x n`` matrix.

    Row blocks of the upper triangle of the expansion ``|x|^2 + |z|^2 - 2 x.z`` (on centred
    data, the products through BLAS) locate the farthest pair; its distance is then recomputed
    exactly as ``sum((x_i - x_j)^2)``.
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
    """Coordinates whose squared distances are ``D' = D + penalty * Delta`` (004 eq. 8 with
    ``penalty = alpha * max(D)``), ``Delta_ij = 1`` when ``y_i != y_j``.

    ``X`` with ``sqrt(penalty / 2)`` times the one-hot code of ``y`` appended: two one-hot codes
    differ by ``|e_a - e_b|^2 = 2`` when ``a != b``.  So ``D'`` is a Euclidean distance matrix,
    a neighbour search on these coordinates is the search under ``D'``, and their local Gram
    matrices (eq. 3) are those of eq. 5 computed from ``D'``.
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
    """LLP's local-learning matrix ``A`` (000 eq. 29-32).

    Row ``i`` holds ``alpha_i^T = k_i^T (K_i + lambda I)^{-1}`` on ``i``'s neighbours, where
    ``K_i = [K(x_j, x_l)]`` over the neighbours ``j, l`` of ``x_i`` and
    ``k_i = [K(x_i, x_j)]`` over the same neighbours (eq. 29), so that ``(A f)_i`` is the
    kernel-ridge prediction at ``x_i`` of a model fitted on ``{(x_j, f_j)}`` (eq. 30, 32).

    Parameters
    ----------
    reg : float
        The ridge ``lambda > 0`` of eq. 2.
    kernel : {'linear', 'rbf'}
        ``x^T z`` or ``exp(-gamma ||x - z||^2)`` (``gamma=None``: ``1 / n_features``,
        scikit-learn's default).
    center : bool
        Linear kernel only: evaluate it on mean-centred data.  Paper 000 footnote 3 says the
        algorithm does not need centring in feature space; it leaves the choice open.
    """
    X = check_finite(X)
    if not reg > 0:
        raise ValueError(f"reg (lambda) must be positive, got {reg!r}.")
    if kernel not in ("linear", "rbf"):
        raise ValueError(f"kernel must be 'linear' or 'rbf', got {kernel!r}.")
    # the kernel blocks do not depend on lambda: cross-validation reuses them across its grid
    memo = _KERNEL_BLOCKS_MEMO.values_for(X, nbhd.indptr, nbhd.indices)
    blocks = remembered(memo, (kernel, gamma, bool(center)), lambda: _local_kernel_blocks(X, nbhd, kernel, gamma, center))
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
    blocks = []
    for chunk, idx in _batches(nbhd):
        Xn = X[idx]  # (m, k, d)
        K_i = _batched_kernel(Xn, Xn, kernel, **params)
        k_i = _batched_kernel(X[chunk][:, None, :], Xn, kernel, **params)[:, 0, :]  # K(x_i, x_j)
        for array in (K_i, k_i):
            array.setflags(write=False)
        blocks.append((chunk, K_i, k_i))
    return blocks


def _batched_kernel(A: np.ndarray, B: np.ndarray, kernel: str, gamma: float | None = None) -> np.ndarray:
    """Kernel blocks ``[K(a_p, b_q)]`` for stacks A (m, p, d), B (m, q, d)."""
    inner = A @ B.transpose(0, 2, 1)
    if kernel == "linear":
        return inner
    sq = np.einsum("mpd,mpd->mp", A, A)[:, :, None] + np.einsum("mqd,mqd->mq", B, B)[:, None, :] - 2 * inner
    return np.exp(-gamma * np.clip(sq, 0.0, None))


# --------------------------------------------------------------------------- LDA / LFDA graphs


def class_block_graph(y) -> sparse.csr_array:
    """``W_ij = 1 / n_c`` when ``y_i = y_j = c``, else 0.

    With centred data ``X^T W X`` is the between-class scatter and ``X^T (I - W) X`` the
    within-class scatter, so maximising ``W`` subject to the total scatter is LDA
    (graph-embedding view, Yan et al. 2007; Cai's LGE).  Rows sum to one: ``D = I``.
    """
    _, groups = _class_groups(y)
    n = sum(len(g) for g in groups)
    rows = np.concatenate([np.repeat(g, len(g)) for g in groups])
    cols = np.concatenate([np.tile(g, len(g)) for g in groups])
    vals = np.concatenate([np.full(len(g) ** 2, 1.0 / len(g)) for g in groups])
    return sparse.csr_array((vals, (rows, cols)), shape=(n, n))


def local_scaling_affinity(X, y, n_neighbors: int = 7) -> sparse.csr_array:
    """LFDA affinity ``A_ij = exp(-||x_i - x_j||^2 / (sigma_i sigma_j))`` within each class
    (Sugiyama 2007, eq. 4 and §4.2), ``sigma_i`` the distance from ``x_i`` to its
    ``n_neighbors``-th nearest neighbour in its class (capped at the class size - 1).
    Pairs from different classes get 0 (LFDA never uses them)."""
    X = check_finite(X)
    if isinstance(n_neighbors, bool) or not isinstance(n_neighbors, (int, np.integer)) or n_neighbors < 1:
        raise ValueError(f"n_neighbors (local scaling) must be a positive int, got {n_neighbors!r}.")
    _, groups = _class_groups(y)
    n = len(X)
    blocks = []
    for g in groups:
        Xg = X[g]
        sq = _sq_dists(Xg)
        kth = min(n_neighbors, len(g) - 1)
        sigma = np.sqrt(np.sort(sq, axis=1)[:, kth]) if kth > 0 else np.zeros(len(g))
        scale = np.outer(sigma, sigma)
        A = np.where(scale > 0, np.exp(-sq / np.where(scale > 0, scale, 1.0)), 0.0)
        np.fill_diagonal(A, 1.0)
        blocks.append((np.repeat(g, len(g)), np.tile(g, len(g)), A.ravel()))
    rows, cols, vals = (np.concatenate(parts) for parts in zip(*blocks))
    return sparse.csr_array((vals, (rows, cols)), shape=(n, n))


def _sq_dists(Xg: np.ndarray) -> np.ndarray:
    """Exact squared Euclidean distances within a (small) class."""
    return cdist(Xg, Xg, "sqeuclidean")
