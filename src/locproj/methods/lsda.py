"""Locality Sensitive Discriminant Analysis (Cai, He, Zhou, Han and Bao, IJCAI 2007)."""

from __future__ import annotations

import numbers

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import LinearOperator

from ..neighbour_graphs import binary_weights, kneighbors, laplacian, symmetrize
from ._base import GraphEmbeddingTransformer, GraphProblem


def _check_lsda_neighbors(n_neighbors, n_samples: int) -> int:
    """``n_neighbors`` as an int in ``[0, n_samples - 1]`` (0: all pairs), or a ``ValueError``."""
    if isinstance(n_neighbors, bool) or not isinstance(n_neighbors, numbers.Integral) or n_neighbors < 0:
        raise ValueError(f"n_neighbors must be a non-negative int (0 links all pairs), got {n_neighbors!r}.")
    if n_neighbors >= n_samples:
        raise ValueError(
            f"n_neighbors={n_neighbors} but the data set has only {n_samples} samples; use "
            f"n_neighbors <= {n_samples - 1} (n_samples - 1) or n_neighbors=0 (all pairs).")
    return int(n_neighbors)


def _check_beta(beta) -> float:
    if isinstance(beta, bool) or not isinstance(beta, numbers.Real) or not 0 <= beta <= 1:
        raise ValueError(f"beta must be a number in [0, 1] (the weight of the between-class graph), got {beta!r}.")
    return float(beta)


def lsda_graphs(X, y, n_neighbors: int = 5) -> tuple[sparse.csr_array, sparse.csr_array]:
    """LSDA's within-class graph ``W_w`` and between-class graph ``W_b`` (0/1 weights).

    ``G`` is the k-nearest-neighbour graph of all training points, labels ignored: ``G_ij = 1``
    when ``x_j`` is among the ``n_neighbors`` nearest points of ``x_i`` or ``x_i`` among those of
    ``x_j``, and ``G_ii = 1`` (as in the authors' code, each point is one of its own ``k + 1``
    closest points); ``n_neighbors=0`` sets ``G_ij = 1`` for all pairs ``i, j``.  Then
    ``W_w = G`` on pairs of the same class and ``W_b = G`` on pairs of different classes, so
    ``W_w + W_b = G`` and ``W_w`` has ones on its diagonal.  ``n_neighbors=0`` stores ``n^2``
    entries; the estimator uses :func:`lsda_all_pairs_problem` instead.
    """
    y = np.asarray(y)
    n = len(y)
    k = _check_lsda_neighbors(n_neighbors, n)
    if k == 0:
        G = sparse.coo_array(np.ones((n, n)))
    else:
        G = sparse.coo_array(symmetrize(binary_weights(kneighbors(X, k))) + sparse.eye_array(n, format="csr"))
    same = y[G.row] == y[G.col]
    W_w = sparse.csr_array((G.data[same], (G.row[same], G.col[same])), shape=(n, n))
    W_b = sparse.csr_array((G.data[~same], (G.row[~same], G.col[~same])), shape=(n, n))
    return W_w, W_b


def lsda_all_pairs_problem(y, beta: float) -> tuple[LinearOperator, sparse.csr_array]:
    """``(beta L_b + (1 - beta) W_w, D_w)`` of LSDA with every pair linked (``n_neighbors=0``).

    Then ``W_w = sum_c 1_c 1_c^T``, ``W_b = 1 1^T - W_w``, ``D_w = diag(n_{c_i})`` and
    ``D_b = diag(n - n_{c_i})``, so ``beta L_b + (1 - beta) W_w = beta (D_b - 1 1^T) + W_w``:
    applied to ``V`` through class sums in O(n m) instead of a dense ``n x n`` matrix.
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


class LocalitySensitiveDiscriminantAnalysis(GraphEmbeddingTransformer):
    """Locality Sensitive Discriminant Analysis (LSDA).

    On the k-nearest-neighbour graph of all training points (:func:`lsda_graphs`), nearby points
    of the same class are kept close and nearby points of different classes are pushed apart:
    with the within-class graph ``W_w``, the between-class graph ``W_b``, their degree matrices
    ``D_w``, ``D_b`` and ``L_b = D_b - W_b``, LSDA minimises ``sum_ij (y_i - y_j)^2 W_w,ij`` and
    maximises ``sum_ij (y_i - y_j)^2 W_b,ij`` (``y_i = a^T x_i``).  Under ``a^T X D_w X^T a = 1``
    the first equals ``2 - 2 a^T X W_w X^T a``, so both combine into::

        maximise  a^T X (beta L_b + (1 - beta) W_w) X^T a   subject to  a^T X D_w X^T a = 1,

    the generalized eigenproblem ``X (beta L_b + (1 - beta) W_w) X^T a = lambda X D_w X^T a``,
    largest eigenvalues first (``X`` with samples as columns; here on centred data after the PCA
    step of :func:`locproj.solvers.solve_embedding`, as the authors' code centres too).  As in
    that code each point counts among its own ``k + 1`` closest points, so ``W_w`` has ones on
    its diagonal: they add one to every within-class degree (``D_w`` is never singular) and
    ``x_i x_i^T`` to ``X W_w X^T``; ``L_b`` and ``L_w = D_w - W_w`` are unchanged by them.
    With ``beta = 0`` this is LPP with binary weights on ``W_w``: ``lambda_LSDA = 1 - lambda_LPP``.

    Parameters
    ----------
    n_components : int or None, default=None
        Number of projections; None keeps all (the rank of the centred data).  Nested.
    n_neighbors : int, default=5
        ``k`` of the neighbour graph of all points, labels ignored; ``0`` links all pairs (then
        ``W_w`` links every pair of the same class and ``W_b`` every pair of different classes).
    beta : float in [0, 1], default=0.1
        Weight of the between-class term (``alpha`` in the paper, ``beta`` in the authors' code,
        whose default is 0.1).
    column_scaling : {'unit', 'constraint'}, default='unit'
        'unit': unit-length columns; 'constraint': ``P^T X D_w X^T P = I``.

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features)
    mean_ : ndarray of shape (n_features,)
    eigenvalues_ : ndarray of shape (n_components_,)
        Generalized eigenvalues, descending (they may be negative: ``X W_w X^T`` is indefinite).
    n_components_ : int
    n_features_in_ : int

    References
    ----------
    D. Cai, X. He, K. Zhou, J. Han and H. Bao, "Locality Sensitive Discriminant Analysis",
    IJCAI 2007, pp. 708-713: the graphs ``W_w``, ``W_b`` and the two objective functions, and the
    optimal linear embedding, ``arg max a^T X (alpha L_b + (1 - alpha) W_w) X^T a`` subject to
    ``a^T X D_w X^T a = 1`` with its generalized eigenproblem.
    D. Cai, ``LSDA.m`` (``options.k``, ``options.beta``), the authors' MATLAB code.
    """

    def __init__(self, n_components=None, *, n_neighbors=5, beta=0.1, column_scaling="unit"):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.beta = beta
        self.column_scaling = column_scaling

    def _needs_labels(self) -> bool:
        return True

    def _problem(self, X, y):
        beta = _check_beta(self.beta)
        if _check_lsda_neighbors(self.n_neighbors, len(X)) == 0:
            M, D_w = lsda_all_pairs_problem(y, beta)
            return GraphProblem(L=M, B=D_w, maximize=True)
        W_w, W_b = lsda_graphs(X, y, self.n_neighbors)
        L_b, _ = laplacian(W_b)
        _, D_w = laplacian(W_w)
        return GraphProblem(L=beta * L_b + (1 - beta) * W_w, B=D_w, maximize=True)
