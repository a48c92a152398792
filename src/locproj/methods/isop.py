"""Isometric Projection (Cai, He and Han, AAAI 2007): a linear Isomap."""

from __future__ import annotations

import numpy as np
from sklearn.base import _fit_context

from ..core.neighbor_graphs import FAR_RATIO, isometric_distances, isometric_tau
from ..core.solvers import solve_embedding
from ._base import (
    GraphEmbeddingTransformer,
    GraphProblem,
    leading_above,
    scale_columns,
    validate_fit_data,
    warn_rank_deficient,
)
from ._constraints import COLUMN_SCALING, N_COMPONENTS, N_NEIGHBORS


def isop_tau(X, y, n_neighbors, supervised: bool) -> np.ndarray:
    """``tau(D)`` of isometric projection's distances (:func:`~locproj.core.neighbor_graphs.isometric_distances`),
    double-centred once over all ``n`` points and symmetrised, as the authors' ``IsoP.m``."""
    return isometric_tau(isometric_distances(X, n_neighbors, y if supervised else None))


def power_of_two_normalised(A: np.ndarray) -> tuple[np.ndarray, int]:
    """``(2^-e A, e)`` with ``max|2^-e A|`` in ``[1/2, 1)`` (``e = 0`` for ``A = 0``): an exact
    rescaling.  ``tau`` has the scale of squared distances -- times ``10^6`` for the far ones --
    and ``X~^T tau X~`` that of their squares, which overflow or underflow float64 for data far
    from unit scale; so ``tau`` is built from ``X`` normalised so and normalised itself."""
    largest = float(np.abs(A).max(initial=0.0))
    exponent = int(np.frexp(largest)[1]) if largest > 0 else 0
    return np.ldexp(A, -exponent), exponent


# tau's far between-class distances make its leading eigenvalues ~1e6 times the others: gaps of 1e-9 of
# the largest (the solver's default tolerance for equal eigenvalues) are real there, rounding is ~r eps
_DEGENERATE_RTOL = 1e-12


def check_far_magnitude(X: np.ndarray) -> None:
    """A ``ValueError`` for data whose far distances (:data:`~locproj.core.neighbor_graphs.FAR_RATIO`
    times the largest) would make the eigenvalues overflow float64: a limit ``FAR_RATIO`` times
    below that of :func:`~locproj.methods._base.check_fit_values`."""
    n, d = X.shape
    limit = np.sqrt(np.finfo(np.float64).max) / (2.0 * n * d) / FAR_RATIO
    largest = float(np.abs(X).max(initial=0.0))
    if largest > limit:
        raise ValueError(
            f"IsometricProjection: X has entries up to {largest:.3g} in absolute value, and the far distances "
            f"between classes or components ({FAR_RATIO:g} times the largest distance) would make the "
            f"eigenvalues overflow float64 (limit {limit:.3g} for {n} x {d} data); rescale X first, e.g. "
            "X / np.abs(X).max() or sklearn.preprocessing.StandardScaler.")


def positive_floor(eigenvalues: np.ndarray, rank: int) -> float:
    """The rounding level ``rank * eps * lambda_1`` of the eigenproblem (eigenvalues descending):
    the directions above it have a clearly positive eigenvalue.  ``IsoP.m`` keeps those at or above
    ``1e-3``, a threshold in the data's units."""
    return rank * np.finfo(np.float64).eps * max(float(eigenvalues[0]), 0.0) if len(eigenvalues) else 0.0


class IsometricProjection(GraphEmbeddingTransformer):
    """Isometric Projection (IsoP), a linear Isomap, as the authors' ``IsoP.m`` computes it.

    Geodesic distances ``D_G`` are the shortest paths on the symmetric kNN graph (an edge where
    either point is among the other's ``n_neighbors`` nearest; edge lengths the Euclidean
    distances), and ``tau(D_G) = -H S H / 2`` (``S`` the squared distances, ``H`` the centring
    matrix) their inner products, as in Isomap.  IsoP finds the linear map whose inner products
    match ``tau(D_G)``: maximise ``a^T X tau(D_G) X^T a`` subject to ``a^T X X^T a = 1``, i.e.
    ``X tau(D_G) X^T a = lambda X X^T a`` with the largest eigenvalues (Cai et al. 2007, the
    linearised Isomap objective and its eigenproblem), solved by
    :func:`locproj.core.solvers.solve_embedding` after centring and its PCA pre-step (``tau 1 = 0``:
    centring leaves the objective unchanged, and the constraint is the total scatter).

    A pair with no path between them -- points of different classes when ``supervised``, points
    of different connected components of the graph -- gets 1000 times the largest Euclidean
    distance (within a class when ``supervised``), the authors' "effectively infinite distance"
    (:func:`~locproj.core.neighbor_graphs.isometric_distances`), and ``tau`` double-centres all ``n``
    points at once.  Supervised, the between-class distances then dominate ``tau``: its leading
    ``c - 1`` directions put each class at nearly one point (on data with more dimensions than
    samples, exactly up to rounding), and the later ones follow the geodesics within the classes.
    A class with at most ``n_neighbors + 1`` points is a complete graph (Euclidean distances).
    ``tau`` is a dense ``n x n`` matrix: memory and the product ``X^T tau X`` grow as ``n^2``.

    Directions whose eigenvalue is not clearly positive -- ``tau`` need not be positive
    semi-definite, geodesics not being Euclidean -- are dropped, as ``IsoP.m`` drops eigenvalues
    below ``1e-3``.  Here the threshold is scale-free: the rounding level ``r eps lambda_1`` of
    the ``r x r`` eigenproblem (:func:`positive_floor`).

    Parameters
    ----------
    n_components : int or None, default=None
        Number of projections; None keeps all (those with a positive eigenvalue).  Nested.
    n_neighbors : int or 'all', default=5
        Neighbours per point (within its class when ``supervised``); 'all' makes geodesic
        distances Euclidean (unsupervised, IsoP is then PCA).
    supervised : bool, default=False
        Link only points of the same class (``IsoP.m``'s ``NeighborMode = 'Supervised'``).
    column_scaling : {'unit', 'constraint'}, default='unit'
        'unit': unit-length columns; 'constraint': ``P^T X X^T P = I`` (centred ``X``).

    Attributes
    ----------
    components_ : ndarray of shape (``n_components_``, n_features)
    mean_ : ndarray of shape (n_features,)
    eigenvalues_ : ndarray of shape (``n_components_``,)
        Generalized eigenvalues ``a^T X tau X^T a / a^T X X^T a``, descending, all positive.
    n_components_ : int

    See Also
    --------
    sklearn.manifold.Isomap : The nonlinear embedding that IsoP linearises.
    LocalityPreservingProjection : A linear graph embedding that keeps neighbours close.
    OrthogonalLPP : LPP with orthonormal projection vectors.

    References
    ----------
    D. Cai, X. He and J. Han, "Isometric Projection", Proceedings of the 22nd AAAI Conference on
    Artificial Intelligence (AAAI), 2007.
    D. Cai, ``IsoP.m`` (``options.k``, ``options.NeighborMode``, ``INFratio = 1000``), the authors'
    MATLAB code.
    J. B. Tenenbaum, V. de Silva and J. C. Langford, "A Global Geometric Framework for Nonlinear
    Dimensionality Reduction", Science 290:2319-2323, 2000 (``tau`` and the geodesic distances).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from locproj.methods import IsometricProjection
    >>> X, y = load_iris(return_X_y=True)
    >>> isop = IsometricProjection(n_components=2, n_neighbors=8).fit(X)
    >>> isop.transform(X).shape
    (150, 2)
    >>> bool((isop.eigenvalues_ > 0).all())
    True
    """

    _parameter_constraints: dict = {
        "n_components": N_COMPONENTS,
        "n_neighbors": N_NEIGHBORS,
        "supervised": ["boolean"],
        "column_scaling": COLUMN_SCALING,
    }

    def __init__(self, n_components=None, *, n_neighbors=5, supervised=False, column_scaling="unit"):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.supervised = supervised
        self.column_scaling = column_scaling

    def _peak_memory_bytes(self, n_samples, n_features, y=None):
        # 3 dense n x n arrays at once: the distances D, their squares and tau (then tau and its
        # symmetrised copy, then that and its power-of-two scaling), and copies of X (docs/scale.md)
        return 8.0 * (3 * n_samples**2 + 4 * n_samples * n_features)

    def _problem(self, X, y):
        return GraphProblem(L=isop_tau(X, y, self.n_neighbors, self.supervised), B=None, maximize=True)

    def _kept(self, eigenvalues, rank):
        return leading_above(self, eigenvalues, positive_floor(eigenvalues, rank),
                             "tau(D_G) has no positive direction on these data")

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Learn the projection from training data ``X`` (and labels ``y`` when supervised).

        ``tau`` is built from ``X`` scaled by an exact power of two and the solver gets it scaled
        so too (:func:`power_of_two_normalised`): the same components, ``eigenvalues_`` scaled back
        exactly.  Eigenvalues count as equal only within ``1e-12`` of the largest (the solver's
        default is ``1e-9``), so that the columns keep ``IsoP.m``'s order.

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
        self._check_memory(X, y)
        check_far_magnitude(X)
        X_unit, x_exponent = power_of_two_normalised(X)
        problem = self._problem(X_unit, y)
        tau, exponent = power_of_two_normalised(problem.L)
        emb = solve_embedding(X, tau, problem.B, n_components=self.n_components, maximize=problem.maximize,
                              degenerate_rtol=_DEGENERATE_RTOL)
        keep = self._kept(emb.eigenvalues, emb.rank)
        P = scale_columns(emb.components[:, keep], self.column_scaling, problem.constraint_scale)
        self.components_ = P.T
        self.mean_ = emb.mean
        self.eigenvalues_ = np.ldexp(emb.eigenvalues[keep], exponent + 2 * x_exponent)   # tau(X) = 4^e tau(X_unit)
        self.n_components_ = P.shape[1]
        warn_rank_deficient(self, emb.rank, *X.shape, f"the centred training data have rank {emb.rank}")
        return self

