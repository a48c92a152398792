"""Neighbourhood graphs: neighbour search, affinity weights, Laplacians and geodesic distances.

Every method in :mod:`locproj.methods` is "a graph plus a constraint" handed to
:func:`locproj.core.solvers.solve_embedding`.  This module builds the neighbourhoods and the graphs
whose edges carry affinities; :mod:`locproj.core.reconstruction_weights` builds, on the same
neighbourhoods, the weights that reconstruct each point from its neighbours (LLE, LLP):

* :func:`kneighbors` -- (supervised) k-nearest-neighbour search, the sparsity pattern, and
  :func:`kneighbors_query` for new points, both by the tie rule of :mod:`locproj.core.ties`;
* :func:`binary_weights`, :func:`heat_weights` -- LPP affinities (paper 000 §6.2, 003 eq. 12);
* :func:`laplacian`, :func:`laplacian_factor`, :func:`symmetrize` -- matrix algebra on graphs;
* :func:`geodesic_graph`, :func:`geodesic_distances`, :func:`isometric_distances`,
  :func:`isometric_tau` -- shortest paths on the neighbour graph, the distances of isometric
  projection (a far value where there is no path) and their double-centred squares.

The graphs built from the labels (LDA's, LFDA's, LSDA's, MFA's) are in :mod:`locproj.core.class_graphs`.

Matrices are ``scipy.sparse.csr_array`` of shape ``(n_samples, n_samples)``; row ``i`` holds
the weights of ``i``'s neighbours.  Heat-kernel width: ``w_ij = exp(-||x_i - x_j||^2 / gamma)``,
the convention of paper 000 §6.2; paper 003 eq. 12 writes the same width as ``t`` (``t == gamma``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import connected_components, shortest_path
from scipy.spatial.distance import cdist

from ._memo import LastInput, remembered
from .ties import (CANDIDATE_RTOL, blas_candidates, candidates_near_kth, exact_sq_distances, neighbors_in_band,
                   tie_scales)

__all__ = [
    "Neighborhoods",
    "kneighbors",
    "kneighbors_query",
    "binary_weights",
    "heat_weights",
    "default_heat_gamma",
    "symmetrize",
    "laplacian",
    "laplacian_factor",
    "BlockDiagonal",
    "Components",
    "geodesic_graph",
    "geodesic_distances",
    "isometric_distances",
    "double_centered_squares",
    "isometric_tau",
]

_CHUNK = 512  # rows per batch in the batched local solves (bounds memory at chunk*k*d floats)
FAR_RATIO = 1000.0  # isometric projection: a distance with no path is this many times the largest (IsoP.m's INFratio)


@dataclass(frozen=True)
class Neighborhoods:
    """Directed neighbour lists in CSR layout: row ``i``'s neighbours are ``indices[indptr[i]:indptr[i+1]]``.

    Each parameter is also an attribute of the same name.

    Parameters
    ----------
    indptr : ndarray of shape (n_samples + 1,)
        Where each point's list starts and ends in ``indices``.
    indices : ndarray of shape (n_edges,)
        The neighbours of every point in turn (``i`` itself excluded).
    sq_distances : ndarray of shape (n_edges,) or None
        Their squared Euclidean distances, computed from the differences, ``sum((x_i - x_j)**2)``,
        not from the expansion ``|x|^2 + |z|^2 - 2 x.z``; None where they were not asked for.
    """

    indptr: np.ndarray
    indices: np.ndarray
    sq_distances: np.ndarray | None

    @property
    def n_samples(self) -> int:
        """The number of points (of lists)."""
        return len(self.indptr) - 1

    @property
    def counts(self) -> np.ndarray:
        """The number of neighbours of each point, an array of shape ``(n_samples,)``."""
        return np.diff(self.indptr)

    def rows(self) -> np.ndarray:
        """Return the row index of every stored edge (the ``i`` of edge ``i -> j``).

        Returns
        -------
        ndarray of shape (n_edges,)
            The point whose list holds each entry of ``indices``.
        """
        return np.repeat(np.arange(self.n_samples), self.counts)

    def to_csr(self, values) -> sparse.csr_array:
        """Build the sparse matrix with ``values`` on the edges (explicit zeros are kept).

        Parameters
        ----------
        values : array-like of shape (n_edges,)
            One value per edge, in the order of ``indices``.

        Returns
        -------
        scipy.sparse.csr_array of shape (n_samples, n_samples)
            The matrix. It owns its index arrays, so sparse operations that sort them in place
            leave these lists alone.
        """
        n = self.n_samples
        return sparse.csr_array((np.asarray(values, dtype=float), self.indices.copy(), self.indptr.copy()),
                                shape=(n, n))

    def read_only(self) -> Neighborhoods:
        """Make the arrays read-only (the object may be shared through a memo).

        Returns
        -------
        Neighborhoods
            This object.
        """
        for array in (self.indptr, self.indices, self.sq_distances):
            if array is not None:
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


def _check_count(n_neighbors) -> None:
    """A ``ValueError`` unless ``n_neighbors`` is a positive int or 'all'."""
    if isinstance(n_neighbors, str):
        if n_neighbors != "all":
            raise ValueError(f"n_neighbors must be a positive int or 'all', got {n_neighbors!r}.")
    elif not isinstance(n_neighbors, (int, np.integer)) or isinstance(n_neighbors, bool) or n_neighbors < 1:
        raise ValueError(f"n_neighbors must be a positive int or 'all', got {n_neighbors!r}.")


def _check_n_neighbors(n_neighbors, group_size: int, what: str) -> int:
    """Resolve ``n_neighbors`` ('all' or int) for a group of ``group_size`` points."""
    _check_count(n_neighbors)
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


_NEIGHBORS_MEMO = LastInput()  # neighbour lists of the last (X, y), per n_neighbors
#: Groups (classes) up to this size get their neighbour candidates from one exact distance block each
PRECOMPUTED_GROUP_MAX = 500


def kneighbors(X, n_neighbors=5, y=None, *, distances: bool = True) -> Neighborhoods:
    """Find each point's k nearest neighbours, optionally within its own class.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The points.
    n_neighbors : int or 'all', default=5
        Neighbours per point, the point itself not counted.  ``'all'`` means every other
        point (of the same class when supervised).
    y : array-like of shape (n_samples,) or None, default=None
        Class labels.  When given, neighbours are searched only within the class of each point
        (paper 000 §3.2; 001 §3.1: ``1 <= k <= n_c - 1``), so no edge links two classes.
    distances : bool, default=True
        Return the squared distances too; without them (``sq_distances`` None) a large search
        saves rescoring the neighbours of every point whose list no tie decided.

    Returns
    -------
    Neighborhoods
        Each point's neighbours in the order picked (nearest first), with their squared distances
        from direct differences, ``sum((x_i - x_j)**2)`` (``cdist``'s in groups of at most 500
        points, else and wherever a near-tie was decided accumulated column by column), never the
        ``|x|^2 + |z|^2 - 2 x.z`` expansion.

    Notes
    -----
    Ties follow :mod:`locproj.core.ties`, so the lists do not depend on rounding (the BLAS
    kernel, or inputs perturbed far below the band, e.g. by an upstream PCA): two squared distances from
    ``x_i`` are tied when they differ by at most ``TIE_RTOL * s(x_i)`` (``TIE_RTOL = 1e-9``), with
    ``s(x_i) = ||x_i - mu||^2 + max_j ||x_j - mu||^2`` over the point's group (class, or the data
    set), ``mu`` the group's mean.  The neighbours are picked one at a time: each is the lowest
    index among the remaining points whose exact squared distance is within the band of the
    smallest remaining one.  The point itself is excluded by its index; a duplicate is a neighbour
    at distance 0.

    The candidates of a point are the others whose fast distance is within ``2 TIE_RTOL s(x_i)``
    of the ``k``-th smallest.  If there are ``k``, more than that apart, they are the neighbours in
    that order; otherwise all are rescored exactly (``sum_k (x_ik - x_jk)^2`` accumulated column by
    column) and picked by the rule.  Groups of at most 500 points take their fast distances from
    ``scipy.spatial.distance.cdist``, larger ones from a matrix product per chunk of rows
    (:func:`locproj.core.ties.blas_candidates`); both give the same lists.

    The lists are remembered for the last ``(X, y)`` (:mod:`locproj.core._memo`): cross-validation
    builds one fold's graph under several weights.  Their arrays are read-only.
    """
    X = check_finite(X)
    memo = _NEIGHBORS_MEMO.values_for(X, np.asarray(y, dtype=object) if y is None else np.asarray(y))
    # keyed by type too: True must not find the entry of 1 (it is refused, not searched)
    key = (type(n_neighbors), n_neighbors, distances)
    return remembered(memo, key, lambda: _search(X, n_neighbors, y, distances).read_only())


def kneighbors_query(X_ref, X_new, n_neighbors: int) -> np.ndarray:
    """Find the ``n_neighbors`` nearest rows of ``X_ref`` to each row of ``X_new``.

    The rule is that of :func:`kneighbors`, the scale ``s`` from ``X_ref``'s mean; no row is
    excluded.

    Parameters
    ----------
    X_ref : array-like of shape (n_ref, n_features)
        The reference points.
    X_new : array-like of shape (n_new, n_features)
        The query points.
    n_neighbors : int
        At most ``n_ref``.

    Returns
    -------
    ndarray of shape (n_new, n_neighbors), dtype intp
        Row indices into ``X_ref``, nearest first.
    """
    X_ref, X_new = check_finite(X_ref, "X_ref"), check_finite(X_new, "X_new")
    if X_ref.ndim != 2 or X_new.ndim != 2 or X_ref.shape[1] != X_new.shape[1]:
        raise ValueError(f"X_ref and X_new must be 2-D with the same number of features, got shapes "
                         f"{X_ref.shape} and {X_new.shape}.")
    if isinstance(n_neighbors, bool) or not isinstance(n_neighbors, (int, np.integer)) or n_neighbors < 1:
        raise ValueError(f"n_neighbors must be a positive int, got {n_neighbors!r}.")
    if n_neighbors > len(X_ref):
        raise ValueError(f"n_neighbors={n_neighbors} but X_ref has only {len(X_ref)} rows; use "
                         f"n_neighbors <= {len(X_ref)}.")
    k = int(n_neighbors)
    scales = tie_scales(X_new, X_ref)
    rows, cols, approx = blas_candidates(X_ref, X_new, k, CANDIDATE_RTOL * scales)
    return neighbors_in_band(X_new, X_ref, rows, cols, approx, scales, k, distances=False)[0]


def _search(X: np.ndarray, n_neighbors, y, distances: bool) -> Neighborhoods:
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
    small = [g for g in groups if len(g) <= PRECOMPUTED_GROUP_MAX]
    if small:
        points = np.concatenate(small)
        idx[points], sq[points] = _search_blocks(X, small, k)
    for g in (g for g in groups if len(g) > PRECOMPUTED_GROUP_MAX):
        idx[g], sq_g = _search_large(X, g, k, distances)
        if distances:
            sq[g] = sq_g
    return Neighborhoods(indptr=np.arange(0, n * k + 1, k), indices=idx.ravel(),
                         sq_distances=sq.ravel() if distances else None)


def _search_blocks(X: np.ndarray, groups: list[np.ndarray], k: int):
    """The neighbours of every point of the (small) ``groups``, concatenated: candidates from each
    group's ``cdist`` block (the point itself left out), then the band rule on all at once."""
    rows, cols, approx, scales = [], [], [], []
    offset = 0
    for g in groups:
        X_g = X[g]
        scale = tie_scales(X_g, X_g)
        block = cdist(X_g, X_g, "sqeuclidean")
        np.fill_diagonal(block, np.inf)
        r, c = candidates_near_kth(block, k, CANDIDATE_RTOL * scale)
        rows.append(r + offset)
        cols.append(g[c])
        approx.append(block[r, c])
        scales.append(scale)
        offset += len(g)
    points = np.concatenate(groups)
    rows, cols, approx, scales = (np.concatenate(parts) for parts in (rows, cols, approx, scales))
    return neighbors_in_band(X[points], X, rows, cols, approx, scales, k, approx_is_exact=True)


def _search_large(X: np.ndarray, g: np.ndarray, k: int, distances: bool):
    """The neighbours of the points of one large group: candidates from matrix products by chunks
    of rows (:func:`locproj.core.ties.blas_candidates`), then the band rule."""
    X_g = X[g]
    scales = tie_scales(X_g, X_g)
    rows, cols, approx = blas_candidates(X_g, X_g, k, CANDIDATE_RTOL * scales, same=True)
    return neighbors_in_band(X_g, X, rows, g[cols], approx, scales, k, distances=distances)


def _all_others(X: np.ndarray, groups: list[np.ndarray]) -> Neighborhoods:
    n = len(X)
    neighbors = [None] * n
    for g in groups:
        for i, point in enumerate(g):
            neighbors[point] = np.delete(g, i)
    counts = np.array([len(nb) for nb in neighbors])
    indices = np.concatenate(neighbors).astype(np.int64)
    sq = exact_sq_distances(X, X, np.repeat(np.arange(n), counts), indices)
    return Neighborhoods(indptr=np.concatenate([[0], np.cumsum(counts)]), indices=indices, sq_distances=sq)


# --------------------------------------------------------------------------- LPP weights


def binary_weights(nbhd: Neighborhoods) -> sparse.csr_array:
    """Weight every edge ``w_ij = 1`` (paper 003, "simple-minded" weights).

    Parameters
    ----------
    nbhd : Neighborhoods
        The neighbour lists (:func:`kneighbors`).

    Returns
    -------
    scipy.sparse.csr_array of shape (n_samples, n_samples)
        The (directed) weight matrix.
    """
    return nbhd.to_csr(np.ones(len(nbhd.indices)))


def default_heat_gamma(nbhd: Neighborhoods) -> float:
    """Return the default heat-kernel width: the mean squared distance over the graph's edges.

    Scale-free and local; paper 000 §6.2 instead searches a grid ``sigma0^2 * 2^k`` with
    ``sigma0`` the mean norm of the training data -- pass ``gamma`` explicitly to follow it.

    Parameters
    ----------
    nbhd : Neighborhoods
        The neighbour lists (:func:`kneighbors`).

    Returns
    -------
    float
        The mean squared edge length, or 1 when it is 0.
    """
    mean_sq = float(np.mean(nbhd.sq_distances))
    return mean_sq if mean_sq > 0 else 1.0


def heat_weights(nbhd: Neighborhoods, gamma: float | None = None) -> sparse.csr_array:
    """Weight the edges by the heat kernel ``w_ij = exp(-||x_i - x_j||^2 / gamma)``.

    Paper 000 §6.2 (``gamma``) and paper 003 eq. 12 (``t``) use the same convention.

    Parameters
    ----------
    nbhd : Neighborhoods
        The neighbour lists (:func:`kneighbors`).
    gamma : float or None, default=None
        The width; None uses :func:`default_heat_gamma`.

    Returns
    -------
    scipy.sparse.csr_array of shape (n_samples, n_samples)
        The (directed) weight matrix.
    """
    if gamma is None:
        gamma = default_heat_gamma(nbhd)
    if not gamma > 0:
        raise ValueError(f"gamma (heat-kernel width) must be positive, got {gamma!r}.")
    return nbhd.to_csr(np.exp(-nbhd.sq_distances / gamma))


def symmetrize(W) -> sparse.csr_array:
    """Symmetrize ``W`` as ``max(W, W^T)``: an edge in either direction (the usual LPP kNN graph).

    Parameters
    ----------
    W : sparse matrix or array-like of shape (n_samples, n_samples)
        The weights.

    Returns
    -------
    scipy.sparse.csr_array of shape (n_samples, n_samples)
        ``max(W, W^T)``.
    """
    W = sparse.csr_array(W)
    return sparse.csr_array(W.maximum(W.T))


def laplacian(W) -> tuple[sparse.csr_array, sparse.csr_array]:
    """Form the graph Laplacian ``L = D - W`` and degree matrix ``D = diag(sum_j w_ij)`` (003 eq. 14).

    Parameters
    ----------
    W : sparse matrix or array-like of shape (n_samples, n_samples)
        The weights.

    Returns
    -------
    L : scipy.sparse.csr_array of shape (n_samples, n_samples)
        The Laplacian ``D - W``.
    D : scipy.sparse.csr_array of shape (n_samples, n_samples)
        The degree matrix.
    """
    W = sparse.csr_array(W)
    D = sparse.diags_array(np.asarray(W.sum(axis=1)).ravel(), format="csr")
    return sparse.csr_array(D - W), D


_MAX_FACTOR_BLOCK = 256  # largest connected component factored densely by laplacian_factor


@dataclass(frozen=True)
class Components:
    """The connected components of a graph (:meth:`of`).

    Each parameter is also an attribute of the same name.

    Parameters
    ----------
    labels : ndarray of shape (n_samples,)
        ``labels[i]`` is point ``i``'s component.
    sizes : ndarray of shape (n_components,)
        ``sizes[c]`` is the number of points of component ``c``.
    local : ndarray of shape (n_samples,)
        ``local[i]`` is the position of ``i`` among the points of its component (in index order).
    """

    labels: np.ndarray
    sizes: np.ndarray
    local: np.ndarray

    @classmethod
    def of(cls, W) -> Components:
        """Find the components of the undirected graph with an edge wherever ``W`` or ``W^T`` has one.

        Parameters
        ----------
        W : sparse matrix or array-like of shape (n_samples, n_samples)
            The graph's weights.

        Returns
        -------
        Components
            Its connected components.
        """
        n_components, labels = connected_components(W, directed=False)
        sizes = np.bincount(labels, minlength=n_components)
        order = np.argsort(labels, kind="stable")  # points grouped by component
        local = np.empty(len(labels), dtype=np.int64)
        local[order] = np.arange(len(labels)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        return cls(labels=labels, sizes=sizes, local=local)

    def by_size(self):
        """Group the components by size, ascending.

        Yields
        ------
        size : int
            A component size.
        components : ndarray of shape (n_blocks,)
            The components of that size.
        members : ndarray of shape (n_blocks, size)
            ``members[b]`` lists the points of ``components[b]`` in index order.
        """
        order = np.argsort(self.labels, kind="stable")
        for size in np.unique(self.sizes):
            components = np.flatnonzero(self.sizes == size)
            members = order[np.isin(self.labels[order], components)].reshape(len(components), size)
            yield int(size), components, members


@dataclass(frozen=True)
class BlockDiagonal:
    """An ``n x n`` block-diagonal matrix, its blocks stacked by size.

    ``E @ Y`` costs one batched product per block size. Each parameter is also an attribute of
    the same name.

    Parameters
    ----------
    blocks : tuple of ndarray
        One array of shape ``(n_blocks, m, m)`` per block size ``m``: ``blocks[s][b]`` sits on the
        rows and columns ``index[s][b]``.
    index : tuple of ndarray
        One int array of shape ``(n_blocks, m)`` per block size: the rows and columns of each block
        (disjoint; rows in no block are zero).
    n : int
        The order of the matrix.
    """

    blocks: tuple  # of arrays (n_blocks, m, m)
    index: tuple  # of int arrays (n_blocks, m)
    n: int

    @property
    def shape(self) -> tuple[int, int]:
        """The shape ``(n, n)``."""
        return (self.n, self.n)

    def __matmul__(self, Y):
        Y = np.asarray(Y, dtype=float)
        out = np.zeros((self.n,) + Y.shape[1:])
        for blocks, rows in zip(self.blocks, self.index):
            out[rows] = np.matmul(blocks, Y[rows])
        return out

    def toarray(self) -> np.ndarray:
        """Form the matrix as a dense array.

        Returns
        -------
        ndarray of shape (n, n)
            The matrix.
        """
        return self._dense(self.blocks)

    def gram(self) -> np.ndarray:
        """Form ``E^T E`` as a dense array, ``E`` this matrix.

        Returns
        -------
        ndarray of shape (n, n)
            ``E^T E``, block by block.
        """
        return self._dense(np.matmul(blocks.transpose(0, 2, 1), blocks) for blocks in self.blocks)

    def _dense(self, stacks) -> np.ndarray:
        out = np.zeros((self.n, self.n))
        for blocks, rows in zip(stacks, self.index):
            out[rows[:, :, None], rows[:, None, :]] = blocks
        return out


def laplacian_factor(W) -> BlockDiagonal | None:
    """Factor the Laplacian ``D - W`` as ``E^T E``, block-diagonal over the graph's connected components.

    Each component's Laplacian ``L_c`` (positive semi-definite) is factored from its eigen-
    decomposition, ``E_c = Lambda^1/2 U^T``.  A supervised graph never links two classes, so
    ``X^T L X`` becomes a rank-k update ``(E X)^T (E X)``: half the work of ``X^T (L X)``.

    Parameters
    ----------
    W : sparse matrix or array-like of shape (n_samples, n_samples)
        Symmetric weights, ``W >= 0``.

    Returns
    -------
    BlockDiagonal or None
        ``E``; None if a component has more than 256 points.
    """
    W = sparse.coo_array(W)
    parts = Components.of(W)
    if parts.sizes.max(initial=0) > _MAX_FACTOR_BLOCK:
        return None
    labels, local = parts.labels, parts.local
    blocks, index = [], []
    for size, components, members in parts.by_size():
        slot = np.full(len(parts.sizes), -1)
        slot[components] = np.arange(len(components))
        W_c = np.zeros((len(components), size, size))
        stack = slot[labels[W.row]]
        edges = stack >= 0  # edges inside components of this size
        np.add.at(W_c, (stack[edges], local[W.row[edges]], local[W.col[edges]]), W.data[edges])
        L_c = -W_c
        L_c[:, np.arange(size), np.arange(size)] += W_c.sum(axis=2)
        lam, U = np.linalg.eigh(L_c)
        blocks.append(np.sqrt(np.clip(lam, 0.0, None))[:, :, None] * U.transpose(0, 2, 1))
        index.append(members)
    return BlockDiagonal(blocks=tuple(blocks), index=tuple(index), n=W.shape[0])


# --------------------------------------------------------------------------- geodesics (isometric projection)


def geodesic_graph(nbhd: Neighborhoods) -> sparse.csr_array:
    """Build the symmetric kNN graph with Euclidean edge lengths.

    An edge ``i - j`` (length ``||x_i - x_j||``) joins two points where either is among the
    other's neighbours. Coincident points are joined by explicit zero-length edges, which
    ``scipy.sparse.csgraph`` reads as edges (``max(W, W^T)`` would drop them).

    Parameters
    ----------
    nbhd : Neighborhoods
        The neighbour lists (:func:`kneighbors`), with their squared distances.

    Returns
    -------
    scipy.sparse.csr_array of shape (n_samples, n_samples)
        The edge lengths, symmetric.
    """
    n = nbhd.n_samples
    rows, cols = nbhd.rows(), nbhd.indices
    lengths = np.sqrt(nbhd.sq_distances)
    key = np.concatenate([rows * n + cols, cols * n + rows])
    length = np.concatenate([lengths, lengths])
    order = np.lexsort((-length, key))  # each pair once (the longer length if the directions differed)
    key, length = key[order], length[order]
    first = np.concatenate([[True], key[1:] != key[:-1]])
    key, length = key[first], length[first]
    indptr = np.searchsorted(key // n, np.arange(n + 1))  # keys sorted: rows ascending, columns within
    return sparse.csr_array((length, key % n, indptr), shape=(n, n))


def geodesic_distances(graph) -> np.ndarray:
    """Compute the shortest-path distances on the undirected ``graph`` (Dijkstra).

    Parameters
    ----------
    graph : sparse matrix of shape (n_samples, n_samples)
        The edge lengths (:func:`geodesic_graph`).

    Returns
    -------
    ndarray of shape (n_samples, n_samples)
        The distances, ``inf`` between points of different connected components.
    """
    return shortest_path(graph, method="D", directed=False)


def double_centered_squares(G: np.ndarray) -> np.ndarray:
    """Compute Isomap's ``tau(G) = -H S H / 2``, with ``S_ij = G_ij^2`` and ``H = I - 1 1^T / n``.

    ``H`` is the centring matrix, so ``tau(G)`` holds the inner products of the points whose
    distances are ``G`` (if they are Euclidean).

    Parameters
    ----------
    G : ndarray of shape (n, n)
        Symmetric distances.

    Returns
    -------
    ndarray of shape (n, n)
        ``tau(G)``.
    """
    S = np.square(G)
    means = S.mean(axis=0)
    tau = S - means[:, None]
    tau -= means[None, :]
    tau += means.mean()
    tau *= -0.5
    return tau


def isometric_distances(X, n_neighbors, y=None, far_ratio: float = FAR_RATIO) -> np.ndarray:
    """Compute isometric projection's distances ``D``, as the authors' ``IsoP.m`` builds them.

    Geodesic distances on the symmetric kNN graph (:func:`geodesic_graph`), within each class when
    ``y`` is given: a class whose size is at most ``n_neighbors + 1`` (or ``n_neighbors='all'``)
    is a complete graph, so its distances are Euclidean (as ``IsoP.m`` for ``k >= n_c``, and the
    ``k``-graph of ``n_c - 1`` neighbours is complete too); without labels, ``n_neighbors >=
    n - 1`` is the complete graph (``IsoP.m`` refuses ``k >= n``).  Every other distance -- between
    classes, and between the connected components of a graph -- is ``far_ratio`` times the largest
    Euclidean distance (within a class when ``y`` is given): ``IsoP.m``'s "effectively infinite
    distance" (``INFratio = 1000``).  ``IsoP.m`` leaves a disconnected class graph infinite, which
    makes its ``tau`` NaN; here those distances are the same far value.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The points.
    n_neighbors : int or 'all'
        Neighbours per point of the kNN graph (within its class when ``y`` is given).
    y : array-like of shape (n_samples,), default=None
        Class labels; None for one graph over all points.
    far_ratio : float, default=1000.0
        The far distance as a multiple of the largest Euclidean distance.

    Returns
    -------
    ndarray of shape (n_samples, n_samples)
        The distances ``D``, dense.
    """
    X = check_finite(X)
    n = len(X)
    if y is None:
        groups = [np.arange(n)]
    else:
        groups = _class_groups(y)[1]
    k = _neighbor_count(n_neighbors)
    D = np.full((n, n), np.inf)
    largest = 0.0
    for g in groups:
        euclidean = cdist(X[g], X[g])
        largest = max(largest, float(euclidean.max(initial=0.0)))
        complete = k >= len(g) - 1
        D[np.ix_(g, g)] = euclidean if complete else geodesic_distances(geodesic_graph(kneighbors(X[g], int(k))))
    if largest == 0 and y is None:
        raise ValueError("isometric projection: every sample coincides, so every distance is 0 and there is nothing "
                         "to project; pass at least two distinct samples.")
    if largest == 0:
        raise ValueError(
            "isometric projection: the samples of every class coincide, so the largest within-class distance "
            "is 0 and so is the far distance between classes (1000 times it): every distance is 0 and there "
            "is nothing to project; pass classes with at least two distinct samples, or use supervised=False.")
    D[np.isinf(D)] = far_ratio * largest
    return D


def _neighbor_count(n_neighbors) -> float:
    """``n_neighbors`` (a positive int, or 'all': infinite) as a number; else a ``ValueError``."""
    _check_count(n_neighbors)
    return np.inf if isinstance(n_neighbors, str) else int(n_neighbors)


def isometric_tau(D: np.ndarray) -> np.ndarray:
    """Compute ``tau(D)`` (:func:`double_centered_squares`), symmetrised as ``IsoP.m`` does.

    Parameters
    ----------
    D : ndarray of shape (n, n)
        The distances (:func:`isometric_distances`).

    Returns
    -------
    ndarray of shape (n, n)
        ``max(tau, tau^T)`` (the two are equal up to rounding).
    """
    tau = double_centered_squares(D)
    return np.maximum(tau, tau.T)
