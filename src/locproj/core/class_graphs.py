"""Graphs built from the labels: LDA's class blocks, LFDA's local scaling, LSDA's split of the
neighbour graph into within- and between-class graphs, and MFA's intrinsic and penalty graphs.

Like :mod:`locproj.core.neighbor_graphs` (the neighbour search, weights, Laplacians and geodesics they
build on), every graph is a ``scipy.sparse.csr_array`` of shape ``(n_samples, n_samples)`` handed
with a constraint to :func:`locproj.core.solvers.solve_embedding`.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import LinearOperator
from scipy.spatial.distance import cdist

from .neighbor_graphs import _class_groups, _label, binary_weights, check_finite, kneighbors, symmetrize
from .ties import CANDIDATE_RTOL, TIE_RTOL, band_order, exact_sq_distances, near_kth, sq_norms



# --------------------------------------------------------------------------- LDA and LFDA


def class_block_graph(y) -> sparse.csr_array:
    """Build LDA's class-block graph: ``W_ij = 1 / n_c`` when ``y_i = y_j = c``, else 0.

    With centred data ``X^T W X`` is the between-class scatter and ``X^T (I - W) X`` the
    within-class scatter, so maximising ``W`` subject to the total scatter is LDA
    (graph-embedding view, Yan et al. 2007; Cai's LGE).  Rows sum to one: ``D = I``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels, at least two classes.

    Returns
    -------
    W : scipy.sparse.csr_array of shape (n_samples, n_samples)
        The graph.
    """
    _, groups = _class_groups(y)
    n = sum(len(g) for g in groups)
    rows = np.concatenate([np.repeat(g, len(g)) for g in groups])
    cols = np.concatenate([np.tile(g, len(g)) for g in groups])
    vals = np.concatenate([np.full(len(g) ** 2, 1.0 / len(g)) for g in groups])
    return sparse.csr_array((vals, (rows, cols)), shape=(n, n))


def _check_local_scaling_k(n_neighbors) -> None:
    if isinstance(n_neighbors, bool) or not isinstance(n_neighbors, (int, np.integer)) or n_neighbors < 1:
        raise ValueError(f"n_neighbors (local scaling) must be a positive int, got {n_neighbors!r}.")


def _scaled_heat(sq: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``exp(-sq / scale)`` where ``scale = sigma_i sigma_j > 0``, else 0 (Sugiyama 2007, eq. 4)."""
    return np.where(scale > 0, np.exp(-sq / np.where(scale > 0, scale, 1.0)), 0.0)


def local_scaling_affinity(X, y, n_neighbors: int = 7) -> sparse.csr_array:
    """Build LFDA's affinity ``A_ij = exp(-||x_i - x_j||^2 / (sigma_i sigma_j))`` within each class.

    Sugiyama 2007, eq. 4 and §4.2: ``sigma_i`` is the distance from ``x_i`` to its
    ``n_neighbors``-th nearest neighbour in its class (capped at the class size - 1). Pairs from
    different classes get 0 (LFDA never uses them).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The training data.
    y : array-like of shape (n_samples,)
        Class labels.
    n_neighbors : int, default=7
        The ``k`` of the local scaling.

    Returns
    -------
    A : scipy.sparse.csr_array of shape (n_samples, n_samples)
        The affinity, with ``A_ii = 1``.
    """
    X = check_finite(X)
    _check_local_scaling_k(n_neighbors)
    _, groups = _class_groups(y)
    n = len(X)
    blocks = []
    for g in groups:
        Xg = X[g]
        sq = _sq_dists(Xg)
        kth = min(n_neighbors, len(g) - 1)
        sigma = np.sqrt(np.sort(sq, axis=1)[:, kth]) if kth > 0 else np.zeros(len(g))
        scale = np.outer(sigma, sigma)
        A = _scaled_heat(sq, scale)
        np.fill_diagonal(A, 1.0)
        blocks.append((np.repeat(g, len(g)), np.tile(g, len(g)), A.ravel()))
    rows, cols, vals = (np.concatenate(parts) for parts in zip(*blocks))
    return sparse.csr_array((vals, (rows, cols)), shape=(n, n))


def local_scaling_knn_affinity(X, y, n_neighbors: int = 7) -> sparse.csr_array:
    """Build :func:`local_scaling_affinity` on the pairs of k-nearest neighbours only.

    ``A_ij`` (the same local scaling) where ``x_j`` is among the ``n_neighbors`` nearest points of
    ``x_i``'s class to ``x_i`` or ``x_i`` among those of ``x_j`` (capped at the class size - 1),
    ``A_ii = 1``, 0 elsewhere; ``O(n k)`` entries. With ``n_neighbors >= n_c - 1`` in every class
    it is :func:`local_scaling_affinity`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The training data.
    y : array-like of shape (n_samples,)
        Class labels.
    n_neighbors : int, default=7
        The ``k`` of the local scaling and of the pairs kept.

    Returns
    -------
    A : scipy.sparse.csr_array of shape (n_samples, n_samples)
        The affinity.
    """
    X = check_finite(X)
    _check_local_scaling_k(n_neighbors)
    _, groups = _class_groups(y)
    n = len(X)
    sigma = np.zeros(n)
    rows, cols, sq = [], [], []
    for g in groups:
        k = min(int(n_neighbors), len(g) - 1)
        if k == 0:
            continue
        nbhd = kneighbors(X[g], k)
        sq_g = nbhd.sq_distances.reshape(len(g), k)
        sigma[g] = np.sqrt(sq_g.max(axis=1))
        rows.append(g[nbhd.rows()])
        cols.append(g[nbhd.indices])
        sq.append(nbhd.sq_distances)
    rows, cols, sq = (np.concatenate(parts) if parts else np.empty(0) for parts in (rows, cols, sq))
    rows, cols = rows.astype(np.int64), cols.astype(np.int64)
    scale = sigma[rows] * sigma[cols]
    values = _scaled_heat(sq, scale)
    A = sparse.csr_array((values, (rows, cols)), shape=(n, n))
    return sparse.csr_array(A.maximum(A.T) + sparse.eye_array(n, format="csr"))


def _sq_dists(Xg: np.ndarray) -> np.ndarray:
    """Exact squared Euclidean distances within a (small) class."""
    return cdist(Xg, Xg, "sqeuclidean")


# --------------------------------------------------------------------------- LSDA


def check_lsda_neighbors(n_neighbors, n_samples: int) -> int:
    """Check LSDA's ``n_neighbors``: an int in ``[0, n_samples - 1]`` (0: all pairs), else a ``ValueError``.

    Parameters
    ----------
    n_neighbors : int
        The parameter.
    n_samples : int
        The number of training samples.

    Returns
    -------
    int
        ``n_neighbors`` as an int.
    """
    if isinstance(n_neighbors, bool) or not isinstance(n_neighbors, numbers.Integral) or n_neighbors < 0:
        raise ValueError(f"n_neighbors must be a non-negative int (0 links all pairs), got {n_neighbors!r}.")
    if n_neighbors >= n_samples:
        raise ValueError(
            f"n_neighbors={n_neighbors} but the data set has only {n_samples} samples; use "
            f"n_neighbors <= {n_samples - 1} (n_samples - 1) or n_neighbors=0 (all pairs).")
    return int(n_neighbors)


def lsda_graphs(X, y, n_neighbors: int = 5) -> tuple[sparse.csr_array, sparse.csr_array]:
    """Build LSDA's within-class graph ``W_w`` and between-class graph ``W_b`` (0/1 weights).

    ``G`` is the k-nearest-neighbour graph of all training points, labels ignored: ``G_ij = 1``
    when ``x_j`` is among the ``n_neighbors`` nearest points of ``x_i`` or ``x_i`` among those of
    ``x_j``, and ``G_ii = 1`` (as in the authors' code, each point is one of its own ``k + 1``
    closest points); ``n_neighbors=0`` sets ``G_ij = 1`` for all pairs ``i, j``.  Then
    ``W_w = G`` on pairs of the same class and ``W_b = G`` on pairs of different classes, so
    ``W_w + W_b = G`` and ``W_w`` has ones on its diagonal.  ``n_neighbors=0`` stores ``n^2``
    entries; the estimator uses :func:`lsda_all_pairs_problem` instead.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The training data.
    y : array-like of shape (n_samples,)
        Class labels.
    n_neighbors : int, default=5
        The ``k`` of the neighbour graph; 0 links all pairs.

    Returns
    -------
    W_w : scipy.sparse.csr_array of shape (n_samples, n_samples)
        The within-class graph.
    W_b : scipy.sparse.csr_array of shape (n_samples, n_samples)
        The between-class graph.
    """
    y = np.asarray(y)
    n = len(y)
    k = check_lsda_neighbors(n_neighbors, n)
    if k == 0:
        G = sparse.coo_array(np.ones((n, n)))
    else:
        G = sparse.coo_array(symmetrize(binary_weights(kneighbors(X, k))) + sparse.eye_array(n, format="csr"))
    same = y[G.row] == y[G.col]
    W_w = sparse.csr_array((G.data[same], (G.row[same], G.col[same])), shape=(n, n))
    W_b = sparse.csr_array((G.data[~same], (G.row[~same], G.col[~same])), shape=(n, n))
    return W_w, W_b


def lsda_all_pairs_problem(y, beta: float) -> tuple[LinearOperator, sparse.csr_array]:
    """Build LSDA's ``(beta L_b + (1 - beta) W_w, D_w)`` with every pair linked (``n_neighbors=0``).

    Then ``W_w = sum_c 1_c 1_c^T``, ``W_b = 1 1^T - W_w``, ``D_w = diag(n_{c_i})`` and
    ``D_b = diag(n - n_{c_i})``, so ``beta L_b + (1 - beta) W_w = beta (D_b - 1 1^T) + W_w``:
    applied to ``V`` through class sums in O(n m) instead of a dense ``n x n`` matrix.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels.
    beta : float
        LSDA's weight of the between-class graph.

    Returns
    -------
    M : scipy.sparse.linalg.LinearOperator of shape (n_samples, n_samples)
        ``beta L_b + (1 - beta) W_w``, symmetric.
    D_w : scipy.sparse.csr_array of shape (n_samples, n_samples)
        The within-class degree matrix ``diag(n_{c_i})``.
    """
    _, inverse, counts = np.unique(np.asarray(y), return_inverse=True, return_counts=True)
    n = len(inverse)
    E = sparse.csr_array((np.ones(n), (np.arange(n), inverse)), shape=(n, len(counts)))  # class indicators
    d_b = (n - counts[inverse]).astype(float)

    def matmat(V):
        V = np.asarray(V, dtype=float).reshape(n, -1)
        return beta * (d_b[:, None] * V - V.sum(axis=0)) + E @ (E.T @ V)

    def matvec(v):
        return matmat(v).ravel()

    M = LinearOperator((n, n), matvec=matvec, rmatvec=matvec, matmat=matmat, rmatmat=matmat, dtype=float)
    return M, sparse.diags_array(counts[inverse].astype(float), format="csr")


# --------------------------------------------------------------------------- MFA

_PAIR_BLOCK = 1 << 22  # distances computed at once by marginal_pairs_graph (32 MiB)


def check_n_pairs(n_pairs) -> int:
    """Check MFA's ``n_pairs`` (``n_penalty_pairs``): a positive int, else a ``ValueError``.

    Parameters
    ----------
    n_pairs : int
        The parameter.

    Returns
    -------
    int
        ``n_pairs`` as an int.
    """
    if isinstance(n_pairs, bool) or not isinstance(n_pairs, numbers.Integral) or n_pairs < 1:
        raise ValueError(
            f"n_penalty_pairs must be a positive int (the k2 shortest between-class pairs of each class), "
            f"got {n_pairs!r}; use n_penalty_pairs >= 1.")
    return int(n_pairs)


def _shortest_pairs(X: np.ndarray, inside: np.ndarray, outside: np.ndarray, k: int, scale: float):
    """The ``k`` pairs ``(i, j)``, ``i`` in ``inside`` and ``j`` in ``outside``, first in the order
    of :func:`marginal_pairs_graph` (tie band ``TIE_RTOL * scale``), as two index arrays.

    Fast distances in blocks of rows keep a pool of candidates: the pairs within ``2 TIE_RTOL
    scale`` of the pool's ``k``-th smallest (every pair that can be picked is within the band of
    the ``k``-th smallest exact distance); the pool is then rescored exactly and picked greedily
    (:func:`locproj.core.ties.band_order`, the smaller ``i``, then the smaller ``j`` first among
    tied pairs).
    """
    k = min(k, len(inside) * len(outside))
    slack = CANDIDATE_RTOL * scale
    pool = (np.empty(0), np.empty(0, dtype=np.intp), np.empty(0, dtype=np.intp))  # fast distance, i, j
    step = max(1, _PAIR_BLOCK // len(outside))
    for start in range(0, len(inside), step):
        rows = inside[start:start + step]
        dist = cdist(X[rows], X[outside], "sqeuclidean").ravel()
        keep = near_kth(dist, k, slack)
        r, c = np.divmod(keep, len(outside))
        pool = tuple(np.concatenate(parts) for parts in zip(pool, (dist[keep], rows[r], outside[c])))
        pool = tuple(part[near_kth(pool[0], k, slack)] for part in pool)
    _, i, j = pool
    exact = exact_sq_distances(X, X, i, j)
    picked = band_order(np.zeros(len(i), dtype=np.intp), i * len(X) + j, exact, np.array([TIE_RTOL * scale]), k)
    return i[picked[0]], j[picked[0]]


def marginal_pairs_graph(X, y, n_pairs: int = 20) -> sparse.csr_array:
    """Build MFA's penalty graph ``W^p`` (0/1 weights, symmetric).

    For each class ``c`` the ``n_pairs`` shortest pairs ``(i, j)`` with ``y_i = c`` and
    ``y_j != c`` get ``W^p_ij = W^p_ji = 1``; a class with fewer between-class pairs links all of
    them.  A pair chosen by both of its classes is one edge of weight 1.

    The pairs are picked one at a time by the tie rule of :mod:`locproj.core.ties`: each is the
    pair of smallest ``i``, then smallest ``j``, among the remaining pairs whose exact squared
    distance (``sum((x_i - x_j)**2)`` column by column) is within ``TIE_RTOL * s`` of the smallest
    remaining one, with one scale for all pairs, ``s = 2 max_i ||x_i - mu||^2`` (``mu`` the mean of
    ``X``; the largest scale ``||x_i - mu||^2 + max_j ||x_j - mu||^2`` of any point).  Exact ties go
    to the smaller ``i``, then the smaller ``j``, and the choice does not depend on rounding.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The training data.
    y : array-like of shape (n_samples,)
        Class labels.
    n_pairs : int, default=20
        The between-class pairs of each class (MFA's ``k2``).

    Returns
    -------
    W_p : scipy.sparse.csr_array of shape (n_samples, n_samples)
        The penalty graph.
    """
    X = check_finite(X)
    k = check_n_pairs(n_pairs)
    _, inverse = np.unique(np.asarray(y), return_inverse=True)
    n = len(X)
    scale = 2 * float(sq_norms(X - X.mean(axis=0)).max(initial=0.0))
    rows, cols = [], []
    for c in range(inverse.max(initial=-1) + 1):
        inside, outside = np.flatnonzero(inverse == c), np.flatnonzero(inverse != c)
        if len(outside):
            i, j = _shortest_pairs(X, inside, outside, k, scale)
            rows.append(i)
            cols.append(j)
    rows = np.concatenate(rows) if rows else np.empty(0, dtype=np.int64)
    cols = np.concatenate(cols) if cols else np.empty(0, dtype=np.int64)
    # each ordered pair (i in c, j not in c) is chosen by class c only: no duplicates to sum
    return symmetrize(sparse.csr_array((np.ones(len(rows)), (rows, cols)), shape=(n, n)))


def mfa_graphs(X, y, n_neighbors=5, n_pairs: int = 20) -> tuple[sparse.csr_array, sparse.csr_array]:
    """Build MFA's intrinsic graph ``W`` and penalty graph ``W^p`` (:func:`marginal_pairs_graph`).

    ``W_ij = 1`` when ``i`` is among the ``n_neighbors`` nearest points of ``j``'s class to
    ``j``, or ``j`` among those of ``i``.  A ``ValueError`` when a class has one sample (MFA has no
    graph across classes to fall back on) or when every penalty edge joins coincident points
    (:func:`check_penalty_spread`).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The training data.
    y : array-like of shape (n_samples,)
        Class labels.
    n_neighbors : int or 'all', default=5
        Same-class neighbours per point in the intrinsic graph (MFA's ``k1``).
    n_pairs : int, default=20
        The between-class pairs of each class in the penalty graph (MFA's ``k2``).

    Returns
    -------
    W : scipy.sparse.csr_array of shape (n_samples, n_samples)
        The intrinsic graph.
    W_p : scipy.sparse.csr_array of shape (n_samples, n_samples)
        The penalty graph.
    """
    _check_no_lone_sample(y)
    W_p = marginal_pairs_graph(X, y, n_pairs)
    check_penalty_spread(X, W_p, n_pairs)
    return symmetrize(binary_weights(kneighbors(X, n_neighbors, y))), W_p


def check_penalty_spread(X, W_p, n_pairs) -> None:
    """Refuse a penalty graph ``W_p`` without spread by a ``ValueError``.

    No spread: the sum of ``||x_i - x_j||^2`` over its edges (the trace of ``X L^p X^T``) is at
    most ``max(n, d) eps`` times the total scatter ``||X - mean||_F^2``, the rounding level of the
    scatter.

    Then ``X L^p X^T`` is zero, or rounding noise: the marginal Fisher criterion has no denominator
    in any direction, and the solver's ridge (relative to that matrix) returns directions of
    eigenvalue ``~1 / ridge`` that mean nothing, or fails.  This happens when each class's
    ``n_pairs`` shortest between-class pairs all join the same (or nearly the same) point under two
    labels: duplicates across classes, coarsely quantised data.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The training data.
    W_p : sparse matrix of shape (n_samples, n_samples)
        The penalty graph (:func:`marginal_pairs_graph`).
    n_pairs : int
        The ``n_penalty_pairs`` it was built with, for the message.
    """
    X = np.asarray(X)
    P = sparse.coo_array(sparse.triu(sparse.csr_array(W_p), k=1))  # each edge once
    if len(P.data) == 0:
        return
    spread, step = 0.0, max(1, _PAIR_BLOCK // max(X.shape[1], 1))
    for start in range(0, len(P.data), step):  # edges in blocks of at most _PAIR_BLOCK entries
        diff = X[P.row[start:start + step]] - X[P.col[start:start + step]]
        spread += float(np.einsum("ij,ij->", diff, diff))
    centered = X - X.mean(axis=0)
    total = float(np.einsum("ij,ij->", centered, centered))
    if spread > max(X.shape) * np.finfo(float).eps * total:
        return
    raise ValueError(
        f"MarginalFisherAnalysis: every marginal pair ({len(P.data)}: the n_penalty_pairs={n_pairs} shortest "
        "between-class pairs of each class) joins two identical (or nearly identical, at the rounding level of "
        "X) samples with different labels, so the penalty graph has no spread (X L^p X^T is numerically 0) and "
        "the marginal Fisher criterion is undefined; raise n_penalty_pairs above the number of such coincident "
        "pairs, or remove the samples that appear under several labels.")


def _check_no_lone_sample(y) -> None:
    """The first class of one sample, as a ``ValueError`` whose fix suits an always-supervised graph
    (:func:`kneighbors` would suggest ``supervised=False``, which MFA does not have)."""
    classes, counts = np.unique(np.asarray(y), return_counts=True)
    if len(classes) >= 2 and counts.min() < 2:
        lone = classes[np.argmax(counts < 2)]
        raise ValueError(
            f"class {_label(lone)!r} has only 1 sample, but every point needs at least one neighbour of its "
            "own class (the intrinsic graph of MFA links samples of the same class only); remove that "
            "class's samples or add samples to it.")
