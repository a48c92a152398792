"""Locality Sensitive Discriminant Analysis (Cai, He, Zhou, Han and Bao, IJCAI 2007)."""

from __future__ import annotations

from numbers import Integral, Real

from ..core.class_graphs import check_lsda_neighbors, lsda_all_pairs_problem, lsda_graphs
from ..core.neighbor_graphs import laplacian
from ._base import GraphEmbeddingTransformer, GraphProblem, leading_above
from ._constraints import COLUMN_SCALING, N_COMPONENTS, StrictInterval

_CUT = 1e-10   # LSDA.m: directions with a smaller eigenvalue are dropped


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
    step of :func:`locproj.core.solvers.solve_embedding`, as the authors' code centres too).  As in
    that code each point counts among its own ``k + 1`` closest points, so ``W_w`` has ones on
    its diagonal: they add one to every within-class degree (``D_w`` is never singular) and
    ``x_i x_i^T`` to ``X W_w X^T``; ``L_b`` and ``L_w = D_w - W_w`` are unchanged by them.
    With ``beta = 0`` this is LPP with binary weights on ``W_w``: ``lambda_LSDA = 1 - lambda_LPP``.

    Parameters
    ----------
    n_components : int or None, default=None
        Number of projections; None keeps all (those above the eigenvalue cut, at most the rank
        of the centred data).  Nested.
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
    components_ : ndarray of shape (``n_components_``, n_features)
    mean_ : ndarray of shape (n_features,)
    eigenvalues_ : ndarray of shape (``n_components_``,)
        Generalized eigenvalues, descending; as ``LSDA.m``, directions whose eigenvalue is below
        ``1e-10 (1 - beta)`` (``1e-10`` in its scaling) are dropped: ``X W_w X^T`` is indefinite,
        and these are the negative ones (30 of 199 on an ORL split with 5 images per person, k = 5).
    n_components_ : int
    n_features_in_ : int

    See Also
    --------
    MarginalFisherAnalysis : Within-class neighbours and between-class marginal pairs.
    LocalFisherDiscriminantAnalysis : Fisher's criterion with locally weighted scatter matrices.
    LocalityPreservingProjection : The within-class graph alone (``beta = 0``, binary weights).

    References
    ----------
    D. Cai, X. He, K. Zhou, J. Han and H. Bao, "Locality Sensitive Discriminant Analysis",
    IJCAI 2007, pp. 708-713: the graphs ``W_w``, ``W_b`` and the two objective functions, and the
    optimal linear embedding, ``arg max a^T X (alpha L_b + (1 - alpha) W_w) X^T a`` subject to
    ``a^T X D_w X^T a = 1`` with its generalized eigenproblem.
    D. Cai, ``LSDA.m`` (``options.k``, ``options.beta``), the authors' MATLAB code.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from locproj.methods import LocalitySensitiveDiscriminantAnalysis
    >>> X, y = load_iris(return_X_y=True)
    >>> lsda = LocalitySensitiveDiscriminantAnalysis(n_components=2, beta=0.1).fit(X, y)
    >>> lsda.transform(X).shape
    (150, 2)
    """

    _parameter_constraints: dict = {
        "n_components": N_COMPONENTS,
        "n_neighbors": [StrictInterval(Integral, 0, None, closed="left")],   # 0: all pairs
        "beta": [StrictInterval(Real, 0, 1, closed="both")],
        "column_scaling": COLUMN_SCALING,
    }

    def __init__(self, n_components=None, *, n_neighbors=5, beta=0.1, column_scaling="unit"):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.beta = beta
        self.column_scaling = column_scaling

    def _needs_labels(self) -> bool:
        return True

    def _kept(self, eigenvalues, rank):
        # LSDA.m drops eigenvalues below 1e-10 of its problem, whose eigenvalues are ours / (1 - beta)
        return leading_above(self, eigenvalues, _CUT * (1 - float(self.beta)),
                             "the between-class graph outweighs the within-class one in every direction")

    def _problem(self, X, y):
        beta = float(self.beta)
        if check_lsda_neighbors(self.n_neighbors, len(X)) == 0:
            M, D_w = lsda_all_pairs_problem(y, beta)
            return GraphProblem(L=M, B=D_w, maximize=True)
        W_w, W_b = lsda_graphs(X, y, self.n_neighbors)
        L_b, _ = laplacian(W_b)
        _, D_w = laplacian(W_w)
        return GraphProblem(L=beta * L_b + (1 - beta) * W_w, B=D_w, maximize=True)
