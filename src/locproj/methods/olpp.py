"""Orthogonal Locality Preserving Projections (Cai, He, Han and Zhang, IEEE TIP 2006)."""

from __future__ import annotations

from sklearn.base import _fit_context

from ..core.orthogonal import solve_orthogonal_sequence
from ._base import GraphEmbeddingTransformer, GraphProblem, validate_fit_data, warn_rank_deficient
from .lpp import LocalityPreservingProjection, lpp_graph


class OrthogonalLPP(GraphEmbeddingTransformer):
    """Orthogonal Locality Preserving Projection (OLPP, "Orthogonal Laplacianfaces").

    LPP's graph and quotient with orthonormal projection vectors found one after another: ``p_1``
    is LPP's first vector, and ``p_k`` minimises ``p^T X L X^T p / p^T X D X^T p`` among the vectors
    orthogonal to ``p_1, ..., p_{k-1}`` (Cai et al. 2006, the algorithm's step "computing the
    orthogonal basis functions": ``a_k`` the eigenvector of ``M^(k)`` of the smallest eigenvalue),
    after centring and the PCA pre-step to the rank of the centred data.  The sequence is computed
    in the orthonormal PCA basis as one symmetric-definite eigenproblem per vector, each one size
    smaller (:func:`locproj.core.orthogonal.solve_orthogonal_sequence`, whose docstring shows that it is
    the paper's problem), not through the paper's non-symmetric ``M^(k)``.

    Cost: each vector is one dense eigen-solve of size up to the rank ``r`` of the centred data,
    so ``p`` vectors cost ``O(p r^3)`` on top of the graph (``n_components=None``: ``O(r^4)``);
    reduce the data by PCA first when ``r`` is large (e.g. to about 100 dimensions).

    Parameters
    ----------
    n_components : int or None, default=None
        Number of projections; None keeps all (the rank of the centred data).  Nested: the first
        ``p`` columns are the ``p``-dimensional OLPP.
    n_neighbors : int or 'all', default=5
        Neighbours per point (within its class when ``supervised``).
    weight : {'heat', 'binary'}, default='heat'
        ``w_ij = exp(-||x_i - x_j||^2 / gamma)`` or 1 on the symmetrised kNN graph (as for LPP).
    gamma : float or None, default=None
        Heat-kernel width; None uses the mean squared distance over the graph's edges.
    supervised : bool, default=True
        Link only points of the same class (the paper's supervised graph for face recognition).

    Attributes
    ----------
    components_ : ndarray of shape (``n_components_``, n_features)
        Orthonormal rows (``components_ @ components_.T = I``), in the order found.
    mean_ : ndarray of shape (n_features,)
    eigenvalues_ : ndarray of shape (``n_components_``,)
        The quotient ``p^T X L X^T p / p^T X D X^T p`` of each vector, non-decreasing.
    n_components_ : int

    See Also
    --------
    LocalityPreservingProjection : The same graph and quotient, all vectors from one eigenproblem.
    IsometricProjection : Another linear graph embedding of Cai et al., from geodesic distances.

    References
    ----------
    D. Cai, X. He, J. Han and H.-J. Zhang, "Orthogonal Laplacianfaces for Face Recognition",
    IEEE Transactions on Image Processing 15(11):3608-3614, 2006.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from locproj.methods import OrthogonalLPP
    >>> X, y = load_iris(return_X_y=True)
    >>> olpp = OrthogonalLPP(n_components=2).fit(X, y)
    >>> olpp.transform(X).shape
    (150, 2)
    >>> np.allclose(olpp.components_ @ olpp.components_.T, np.eye(2))
    True
    """

    # LPP's parameters but its column scaling (OLPP's columns are orthonormal by construction)
    _parameter_constraints: dict = {name: constraint for name, constraint
                                    in LocalityPreservingProjection._parameter_constraints.items()
                                    if name != "column_scaling"}

    def __init__(self, n_components=None, *, n_neighbors=5, weight="heat", gamma=None, supervised=True):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.weight = weight
        self.gamma = gamma
        self.supervised = supervised

    def _problem(self, X, y):
        L, D = lpp_graph(X, y, self.n_neighbors, self.weight, self.gamma, self.supervised, factored=True)
        return GraphProblem(L=L, B=D)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Learn the projection from training data ``X`` (and labels ``y`` when supervised).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,), default=None
            Class labels; required by a supervised estimator, ignored by an unsupervised one.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, y = validate_fit_data(self, X, y, self._needs_labels())
        problem = self._problem(X, y)
        emb = solve_orthogonal_sequence(X, problem.L, problem.B, n_components=self.n_components)
        self.components_ = emb.components.T
        self.mean_ = emb.mean
        self.eigenvalues_ = emb.eigenvalues
        self.n_components_ = emb.components.shape[1]
        warn_rank_deficient(self, emb.rank, *X.shape, f"the centred training data have rank {emb.rank}")
        return self
