"""Local Fisher Discriminant Analysis (Sugiyama, JMLR 8, 2007)."""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import LinearOperator, aslinearoperator

from sklearn.utils._param_validation import StrOptions

from ..core.class_graphs import local_scaling_affinity, local_scaling_knn_affinity
from ..core.memory import WAYS_OUT
from ..core.neighbor_graphs import PRECOMPUTED_GROUP_MAX, laplacian
from ._base import GraphEmbeddingTransformer, GraphProblem
from ._constraints import COLUMN_SCALING, N_COMPONENTS, POSITIVE_INT

#: Bytes per within-class pair at the peak of the full affinity: its COO triplets (row, column and
#: value, 24 bytes) per class and concatenated, the CSR affinity and its COO copy, the class size and
#: weight of every entry, and W_lw and W_rest (docs/scale.md, "Memory": measured 84-104)
_FULL_PAIR_BYTES = 104
#: Bytes per kNN edge of the sparse affinity: its triplets, both directions, the Laplacians (measured)
_KNN_EDGE_BYTES = 200


def lfda_laplacians(X, y, n_neighbors: int = 7, affinity: str = "full"):
    """Local between- and within-class Laplacians ``(L_b, L_w)`` (Sugiyama 2007, eq. 11-14).

    ``W_lw_ij = A_ij / n_c`` and ``W_lb_ij = A_ij (1/n - 1/n_c)`` for ``y_i = y_j = c``,
    ``W_lw_ij = 0`` and ``W_lb_ij = 1/n`` otherwise, with the local-scaling affinity ``A``.
    ``W_lb = 11^T / n + (within-class correction)``; the Laplacian of ``11^T / n`` is the
    centring matrix ``H``, applied implicitly, so ``L_b`` is never stored densely.
    ``affinity='knn'``: ``A`` keeps the pairs of k-nearest neighbours within a class only
    (:func:`~locproj.core.class_graphs.local_scaling_knn_affinity`), and the ``-1/n`` of the
    other within-class pairs is applied through class sums (:func:`_knn_laplacians`).
    """
    if affinity == "knn":
        return _knn_laplacians(X, y, n_neighbors)
    A = sparse.coo_array(local_scaling_affinity(X, y, n_neighbors))
    n = len(X)
    _, inverse, counts = np.unique(np.asarray(y), return_inverse=True, return_counts=True)
    n_c = counts[inverse][A.row]
    W_lw = sparse.csr_array((A.data / n_c, (A.row, A.col)), shape=(n, n))
    W_rest = sparse.csr_array((A.data * (1.0 / n - 1.0 / n_c) - 1.0 / n, (A.row, A.col)), shape=(n, n))
    L_w, _ = laplacian(W_lw)
    centering = LinearOperator((n, n), matvec=lambda v: v - v.mean(), matmat=lambda V: V - V.mean(axis=0),
                              rmatvec=lambda v: v - v.mean(), dtype=float)
    L_b = centering + aslinearoperator(laplacian(W_rest)[0])
    return L_b, L_w


def _knn_laplacians(X, y, n_neighbors: int):
    """``(L_b, L_w)`` of a sparse affinity: ``L_b = H - L(E / n) + L(A (1/n - 1/n_c))`` with ``E``
    the class-block indicator, whose Laplacian ``diag(n_c) - E`` is applied through class sums, so
    that memory is ``O(n k)``."""
    A = sparse.coo_array(local_scaling_knn_affinity(X, y, n_neighbors))
    n = len(X)
    _, inverse, counts = np.unique(np.asarray(y), return_inverse=True, return_counts=True)
    n_c = counts[inverse][A.row]
    L_w, _ = laplacian(sparse.csr_array((A.data / n_c, (A.row, A.col)), shape=(n, n)))
    L_local = laplacian(sparse.csr_array((A.data * (1.0 / n - 1.0 / n_c), (A.row, A.col)), shape=(n, n)))[0]
    E = sparse.csr_array((np.ones(n), (np.arange(n), inverse)), shape=(n, len(counts)))
    own = counts[inverse] / n

    def matmat(V):
        V = np.asarray(V, dtype=float).reshape(n, -1)
        return V - V.mean(axis=0) - own[:, None] * V + E @ (E.T @ V) / n + L_local @ V

    def matvec(v):
        return matmat(v).ravel()

    L_b = LinearOperator((n, n), matvec=matvec, rmatvec=matvec, matmat=matmat, rmatmat=matmat, dtype=float)
    return L_b, L_w


class LocalFisherDiscriminantAnalysis(GraphEmbeddingTransformer):
    """Local Fisher Discriminant Analysis (LFDA).

    Maximises the local between-class scatter ``P^T S_lb P`` subject to
    ``P^T S_lw P = I`` (Sugiyama 2007, eq. 15-17: ``S_lb p = lambda S_lw p``, largest first),
    with ``S = X L X^T`` for the Laplacians of :func:`lfda_laplacians` and the local-scaling
    affinity ``A_ij = exp(-||x_i - x_j||^2 / (sigma_i sigma_j))``, ``sigma_i`` the distance to
    the ``n_neighbors``-th nearest neighbour within the class (eq. 4, §4.2).  For ``d >> n``
    the problem is solved in the PCA space of the solver; the local within-class scatter is
    then singular and the solver's ridge places its null directions (zero local within-class
    scatter, i.e. the LDA-like directions) first, with very large eigenvalues.

    Parameters
    ----------
    n_components : int or None, default=None
        None keeps all (the rank of the centred data); nested.
    n_neighbors : int, default=7
        The ``k`` of the local scaling ``sigma_i`` (Sugiyama's default 7); with ``affinity='knn'``
        also the neighbours kept.
    affinity : {'full', 'knn'}, default='full'
        'full': ``A_ij`` for every pair of a class (eq. 4), dense within each class: memory grows as
        the sum of the squared class sizes (about 100 bytes a pair). 'knn': ``A_ij`` only where
        ``x_j`` is among the ``n_neighbors`` nearest of ``x_i`` in its class or ``x_i`` among those
        of ``x_j`` (0 elsewhere), as Rdimtools' ``do.lfda`` builds it (``type = c("knn", k)``, local
        scaling): memory ``O(n k)``; whether Sugiyama's paper or code endorses it is not confirmed.
        With ``n_neighbors >= n_c - 1`` in every class both are the same.
    column_scaling : {'unit', 'constraint'}, default='unit'
        'constraint': ``P^T S_lw P = I`` (Sugiyama's "plain" LFDA, up to his weighting).

    Attributes
    ----------
    components_ : ndarray of shape (``n_components_``, n_features)
    mean_ : ndarray of shape (n_features,)
    eigenvalues_ : ndarray of shape (``n_components_``,)
        Generalized eigenvalues, descending.
    n_components_ : int

    See Also
    --------
    Fisherfaces : Fisher's LDA (after PCA), the global criterion LFDA localises.
    MarginalFisherAnalysis : Local within-class and between-class graphs of nearest neighbours.
    LocalitySensitiveDiscriminantAnalysis : Within- and between-class graphs of one kNN graph.

    References
    ----------
    M. Sugiyama, "Dimensionality Reduction of Multimodal Labeled Data by Local Fisher
    Discriminant Analysis", JMLR 8:1027-1061, 2007.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from locproj.methods import LocalFisherDiscriminantAnalysis
    >>> X, y = load_iris(return_X_y=True)
    >>> lfda = LocalFisherDiscriminantAnalysis(n_components=2).fit(X, y)
    >>> lfda.transform(X).shape
    (150, 2)
    """

    _parameter_constraints: dict = {
        "n_components": N_COMPONENTS,
        "n_neighbors": [POSITIVE_INT],
        "affinity": [StrOptions({"full", "knn"})],
        "column_scaling": COLUMN_SCALING,
    }

    def __init__(self, n_components=None, *, n_neighbors=7, affinity="full", column_scaling="unit"):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.affinity = affinity
        self.column_scaling = column_scaling

    def _needs_labels(self) -> bool:
        return True

    def _peak_memory_bytes(self, n_samples, n_features, y=None):
        counts = (np.unique(np.asarray(y), return_counts=True)[1] if y is not None
                  else np.array([n_samples]))
        data = 8.0 * 4 * n_samples * n_features   # validated, centred and projected copies of X
        if self.affinity == "knn":
            k = np.minimum(self.n_neighbors, counts - 1)
            small, large = counts[counts <= PRECOMPUTED_GROUP_MAX], counts[counts > PRECOMPUTED_GROUP_MAX]
            search = 16.0 * float(np.sum(small.astype(float) ** 2)) + 8.0 * 512 * float(large.max(initial=0))
            return data + _KNN_EDGE_BYTES * float(np.sum(counts * k)) + search
        return data + _FULL_PAIR_BYTES * float(np.sum(counts.astype(float) ** 2))

    def _memory_ways_out(self):
        return (*WAYS_OUT, f"affinity='knn' (LFDA's sparse affinity of n_neighbors={self.n_neighbors} "
                "neighbours within the class: memory O(n k); in the config, fixed: {affinity: knn})")

    def _problem(self, X, y):
        L_b, L_w = lfda_laplacians(X, y, self.n_neighbors, self.affinity)
        return GraphProblem(L=L_b, B=L_w, maximize=True)
