"""Local Fisher Discriminant Analysis (Sugiyama, JMLR 8, 2007)."""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import LinearOperator, aslinearoperator

from ..core.class_graphs import local_scaling_affinity
from ..core.neighbor_graphs import laplacian
from ._base import GraphEmbeddingTransformer, GraphProblem
from ._constraints import COLUMN_SCALING, N_COMPONENTS, POSITIVE_INT


def lfda_laplacians(X, y, n_neighbors: int = 7):
    """Local between- and within-class Laplacians ``(L_b, L_w)`` (Sugiyama 2007, eq. 11-14).

    ``W_lw_ij = A_ij / n_c`` and ``W_lb_ij = A_ij (1/n - 1/n_c)`` for ``y_i = y_j = c``,
    ``W_lw_ij = 0`` and ``W_lb_ij = 1/n`` otherwise, with the local-scaling affinity ``A``.
    ``W_lb = 11^T / n + (within-class correction)``; the Laplacian of ``11^T / n`` is the
    centring matrix ``H``, applied implicitly, so ``L_b`` is never stored densely.
    """
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
        The ``k`` of the local scaling ``sigma_i`` (Sugiyama's default 7).
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
        "column_scaling": COLUMN_SCALING,
    }

    def __init__(self, n_components=None, *, n_neighbors=7, column_scaling="unit"):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.column_scaling = column_scaling

    def _needs_labels(self) -> bool:
        return True

    def _problem(self, X, y):
        L_b, L_w = lfda_laplacians(X, y, self.n_neighbors)
        return GraphProblem(L=L_b, B=L_w, maximize=True)
