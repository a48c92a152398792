"""Locality Preserving Projections (He & Niyogi 2004; paper 000 §5.2, paper 003 eq. 1-16)."""

from __future__ import annotations

from numbers import Real

from sklearn.utils._param_validation import StrOptions

from ..core.neighbor_graphs import binary_weights, heat_weights, kneighbors, laplacian, laplacian_factor, symmetrize
from ..core.solvers import GramFactor
from ._base import GraphEmbeddingTransformer, GraphProblem
from ._constraints import COLUMN_SCALING, N_COMPONENTS, N_NEIGHBORS, StrictInterval

# the heat-kernel width of the graph's weights exp(-||x_i - x_j||^2 / gamma); None: the mean squared edge length
HEAT_WIDTH = [StrictInterval(Real, 0, None, closed="neither"), None]


def lpp_graph(X, y, n_neighbors, weight: str, gamma, supervised: bool, factored: bool = False):
    """Laplacian ``L = D - W`` and degree matrix ``D`` of the symmetrised kNN graph
    (``W = max(W, W^T)``) with binary or heat-kernel weights (003 eq. 12-14).  ``factored``:
    ``L`` as a :class:`~locproj.core.solvers.GramFactor` when the graph's components are small."""
    nbhd = kneighbors(X, n_neighbors, y if supervised else None)
    W = symmetrize(heat_weights(nbhd, gamma) if weight == "heat" else binary_weights(nbhd))
    L, D = laplacian(W)
    factor = laplacian_factor(W) if factored else None
    return (L if factor is None else GramFactor(factor)), D


class LocalityPreservingProjection(GraphEmbeddingTransformer):
    """Locality Preserving Projection (LPP, "Laplacianfaces").

    Minimises ``sum_ij w_ij (p^T x_i - p^T x_j)^2 = p^T X L X^T p`` subject to
    ``p^T X D X^T p = 1``, i.e. ``X L X^T p = lambda X D X^T p`` with the smallest eigenvalues
    (paper 003 eq. 1-11, paper 000 eq. 39-40), after centring and the PCA pre-step of
    :func:`locproj.core.solvers.solve_embedding`.

    Parameters
    ----------
    n_components : int or None, default=None
        Number of projections; None keeps all (the rank of the centred data).  The first ``p``
        columns are the optimal ``p``-dimensional solution.
    n_neighbors : int or 'all', default=5
        Neighbours per point (within its class when ``supervised``).
    weight : {'heat', 'binary'}, default='heat'
        ``w_ij = exp(-||x_i - x_j||^2 / gamma)`` (000 §6.2; ``gamma`` is ``t`` of 003 eq. 12) or 1.
    gamma : float or None, default=None
        Heat-kernel width; None uses the mean squared distance over the graph's edges.
    supervised : bool, default=True
        Link only points of the same class (000 §5.2).
    column_scaling : {'unit', 'constraint'}, default='unit'
        'unit': unit-length columns (as in common LPP code); 'constraint': ``P^T X D X^T P = I``.

    Attributes
    ----------
    components_ : ndarray of shape (``n_components_``, n_features)
    mean_ : ndarray of shape (n_features,)
    eigenvalues_ : ndarray of shape (``n_components_``,)
        Generalized eigenvalues, ascending.
    n_components_ : int

    See Also
    --------
    OrthogonalLPP : LPP's graph and quotient with orthonormal projection vectors.
    KernelLPP : LPP in the feature space of a kernel.
    LocallyEmbeddedAnalysis : The linear LLE (NPE), reconstruction weights instead of heat weights.
    MarginalFisherAnalysis : A graph embedding with a penalty graph between the classes.

    References
    ----------
    X. He and P. Niyogi, "Locality Preserving Projections", NIPS 2003.
    A. Levada, "Lecture notes ... LPP and Kernel LPP", 2020 (paper 003), eq. 1-16.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from locproj.methods import LocalityPreservingProjection
    >>> X, y = load_iris(return_X_y=True)
    >>> lpp = LocalityPreservingProjection(n_components=2, n_neighbors=5).fit(X, y)
    >>> lpp.transform(X).shape
    (150, 2)
    >>> lpp.get_feature_names_out().tolist()
    ['localitypreservingprojection0', 'localitypreservingprojection1']
    >>> lpp.set_output(transform="pandas").transform(X).columns.tolist()
    ['localitypreservingprojection0', 'localitypreservingprojection1']
    """

    _parameter_constraints: dict = {
        "n_components": N_COMPONENTS,
        "n_neighbors": N_NEIGHBORS,
        "weight": [StrOptions({"heat", "binary"})],
        "gamma": HEAT_WIDTH,
        "supervised": ["boolean"],
        "column_scaling": COLUMN_SCALING,
    }

    def __init__(self, n_components=None, *, n_neighbors=5, weight="heat", gamma=None,
                 supervised=True, column_scaling="unit"):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.weight = weight
        self.gamma = gamma
        self.supervised = supervised
        self.column_scaling = column_scaling

    def _problem(self, X, y):
        L, D = lpp_graph(X, y, self.n_neighbors, self.weight, self.gamma, self.supervised, factored=True)
        return GraphProblem(L=L, B=D)
