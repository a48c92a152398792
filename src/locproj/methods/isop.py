"""Isometric Projection (Cai, He and Han, AAAI 2007): a linear Isomap."""

from __future__ import annotations

import numpy as np

from ..neighbour_graphs import BlockDiagonal, Components, geodesic_graph, isometric_tau, kneighbors
from ..solvers import solve_embedding
from ._base import GraphEmbeddingTransformer, GraphProblem, scale_columns, validate_fit_data, warn_rank_deficient


def isop_tau(X, y, n_neighbors, supervised: bool):
    """``tau(D_G)`` on the (supervised) kNN graph of ``X``.  Unsupervised, the graph must be
    connected (geodesic distances between components are infinite): else a ``ValueError``."""
    graph = geodesic_graph(kneighbors(X, n_neighbors, y if supervised else None))
    parts = Components.of(graph)
    if not supervised and len(parts.sizes) > 1:
        raise ValueError(
            f"IsometricProjection: the {n_neighbors}-nearest-neighbour graph has {len(parts.sizes)} "
            f"connected components (sizes {_listed(np.sort(parts.sizes)[::-1])}), so the geodesic "
            "distances between them are infinite; raise n_neighbors until the graph is connected "
            "(or use supervised=True, which treats each component on its own).")
    return isometric_tau(graph, parts)


def power_of_two_normalised(tau):
    """``(2^-e tau, e)`` with ``max|2^-e tau|`` in ``[1/2, 1)`` (``e = 0`` for ``tau = 0``): an exact
    rescaling.  ``tau`` has the scale of squared distances, so ``X~^T tau X~`` would have that of
    their squares (overflowing or underflowing float64 for data far from unit scale)."""
    stacks = tau.blocks if isinstance(tau, BlockDiagonal) else (tau,)
    largest = max(float(np.abs(stack).max(initial=0.0)) for stack in stacks)
    exponent = int(np.frexp(largest)[1]) if largest > 0 else 0
    if isinstance(tau, BlockDiagonal):
        blocks = tuple(np.ldexp(stack, -exponent) for stack in tau.blocks)
        return BlockDiagonal(blocks=blocks, index=tau.index, n=tau.n), exponent
    return np.ldexp(tau, -exponent), exponent


def _listed(sizes: np.ndarray, most: int = 5) -> str:
    shown = ", ".join(str(int(s)) for s in sizes[:most])
    return shown + (", ..." if len(sizes) > most else "")


class IsometricProjection(GraphEmbeddingTransformer):
    """Isometric Projection (IsoP), a linear Isomap.

    Geodesic distances ``D_G`` are the shortest paths on the symmetric kNN graph (an edge where
    either point is among the other's ``n_neighbors`` nearest; edge lengths the Euclidean
    distances), and ``tau(D_G) = -H S H / 2`` (``S`` the squared geodesic distances, ``H`` the
    centring matrix) their inner products, as in Isomap.  IsoP finds the linear map whose inner
    products match ``tau(D_G)``: maximise ``a^T X tau(D_G) X^T a`` subject to ``a^T X X^T a = 1``,
    i.e. ``X tau(D_G) X^T a = lambda X X^T a`` with the largest eigenvalues (Cai et al. 2007, the
    linearised Isomap objective and its eigenproblem), solved by
    :func:`locproj.solvers.solve_embedding` after centring and its PCA pre-step (``tau 1 = 0``:
    centring leaves the objective unchanged, and the constraint is the total scatter).
    ``tau(D_G)`` is a dense ``n x n`` matrix: memory and the product ``X^T tau X`` grow as ``n^2``.

    ``supervised=True`` keeps only the edges within a class, so the graph has at least one
    connected component per class.  Geodesic distances between components are infinite, so each
    component is treated on its own: ``tau(D_G)`` is block-diagonal, each block the double-centred
    squared geodesic distances within one component, zero between components.  The objective then
    sums the within-component inner-product matches (every component centred on its own mean).
    Unsupervised, a disconnected graph is an error (raise ``n_neighbors``).

    Parameters
    ----------
    n_components : int or None, default=None
        Number of projections; None keeps all (the rank of the centred data).  Nested.
    n_neighbors : int or 'all', default=5
        Neighbours per point (within its class when ``supervised``); 'all' makes geodesic
        distances Euclidean (IsoP is then PCA).
    supervised : bool, default=False
        Link only points of the same class (see above).
    column_scaling : {'unit', 'constraint'}, default='unit'
        'unit': unit-length columns; 'constraint': ``P^T X X^T P = I`` (centred ``X``).

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features)
    mean_ : ndarray of shape (n_features,)
    eigenvalues_ : ndarray of shape (n_components_,)
        Generalized eigenvalues ``a^T X tau X^T a / a^T X X^T a``, descending (``tau`` need not be
        positive semi-definite: geodesic distances are not always Euclidean).
    n_components_ : int

    References
    ----------
    D. Cai, X. He and J. Han, "Isometric Projection", Proceedings of the 22nd AAAI Conference on
    Artificial Intelligence (AAAI), 2007.
    J. B. Tenenbaum, V. de Silva and J. C. Langford, "A Global Geometric Framework for Nonlinear
    Dimensionality Reduction", Science 290:2319-2323, 2000 (``tau`` and the geodesic distances).
    """

    def __init__(self, n_components=None, *, n_neighbors=5, supervised=False, column_scaling="unit"):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.supervised = supervised
        self.column_scaling = column_scaling

    def _problem(self, X, y):
        return GraphProblem(L=isop_tau(X, y, self.n_neighbors, self.supervised), B=None, maximize=True)

    def fit(self, X, y=None):
        """Learn the projection from training data ``X`` (and labels ``y`` when supervised).

        The solver gets ``tau`` scaled by an exact power of two (:func:`power_of_two_normalised`):
        the same components, ``eigenvalues_`` scaled back exactly."""
        X, y = validate_fit_data(self, X, y, self._needs_labels())
        problem = self._problem(X, y)
        tau, exponent = power_of_two_normalised(problem.L)
        emb = solve_embedding(X, tau, problem.B, n_components=self.n_components, maximize=problem.maximize)
        P = scale_columns(emb.components, self.column_scaling, problem.constraint_scale)
        self.components_ = P.T
        self.mean_ = emb.mean
        self.eigenvalues_ = np.ldexp(emb.eigenvalues, exponent)
        self.n_components_ = P.shape[1]
        warn_rank_deficient(self, emb.rank, *X.shape, f"the centred training data have rank {emb.rank}")
        return self
