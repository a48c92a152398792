"""Marginal Fisher Analysis (Yan, Xu, Zhang, Zhang, Yang and Lin, IEEE TPAMI 2007)."""

from __future__ import annotations

import numpy as np

from sklearn.base import _fit_context

from ..core.class_graphs import mfa_graphs
from ..core.neighbor_graphs import laplacian, laplacian_factor
from ..core.solvers import GramFactor
from ._base import GraphEmbeddingTransformer, GraphProblem
from ._constraints import COLUMN_SCALING, N_COMPONENTS, N_NEIGHBORS, POSITIVE_INT


class MarginalFisherAnalysis(GraphEmbeddingTransformer):
    """Marginal Fisher Analysis (MFA).

    The intrinsic graph ``W`` links each point to its ``k1`` nearest neighbours of the same class
    (intra-class compactness ``S_c = sum_ij W_ij ||w^T x_i - w^T x_j||^2 = 2 w^T X (D - W) X^T w``);
    the penalty graph ``W^p`` links, for each class, its ``k2`` shortest pairs to points of other
    classes, the marginal pairs (inter-class separability ``S_p = 2 w^T X (D^p - W^p) X^T w``);
    see :func:`mfa_graphs`.  The marginal Fisher criterion::

        w* = arg min_w  w^T X (D - W) X^T w / w^T X (D^p - W^p) X^T w

    is solved, as in the linearised graph embedding with ``B = D^p - W^p``, by the generalized
    eigenproblem ``X L X^T w = lambda X L^p X^T w``, smallest eigenvalues first (``X`` with samples
    as columns; here on centred data after the PCA step of
    :func:`locproj.core.solvers.solve_embedding` to the data's rank, not the paper's ``N - N_c``).

    ``X L^p X^T`` has rank at most the number of penalty edges, often below the data's rank (faces:
    ``d >> n``).  It is then singular and the solver adds a small ridge to it: the directions
    along which the penalty graph has no spread get eigenvalues of order ``1 / ridge`` and come
    last, after the ``rank(X L^p X^T)`` meaningful directions, so only those first columns solve
    the criterion.  A direction with neither intrinsic nor penalty spread (possible only when
    the union of the two graphs is disconnected) gets eigenvalue 0 and comes first.

    Parameters
    ----------
    n_components : int or None, default=None
        Number of projections; None keeps all (the rank of the centred data).  Nested.
    n_neighbors : int or 'all', default=5
        ``k1``: same-class neighbours per point in the intrinsic graph; it must be below the size
        of every class.
    n_penalty_pairs : int, default=20
        ``k2``: between-class pairs per class in the penalty graph (all of them for a class with
        fewer, ``n_c (n - n_c)``).
    column_scaling : {'unit', 'constraint'}, default='unit'
        'unit': unit-length columns; 'constraint': ``P^T X L^p X^T P = I`` (with the ridge when
        ``X L^p X^T`` is singular, so directions without penalty spread get very long columns).

    Attributes
    ----------
    components_ : ndarray of shape (``n_components_``, n_features)
    mean_ : ndarray of shape (n_features,)
    eigenvalues_ : ndarray of shape (``n_components_``,)
        Generalized eigenvalues (ratios of intrinsic to penalty spread), ascending.
    n_components_ : int
    n_features_in_ : int

    See Also
    --------
    LocalFisherDiscriminantAnalysis : Fisher's criterion with locally weighted scatter matrices.
    LocalitySensitiveDiscriminantAnalysis : Within- and between-class graphs of one kNN graph.
    LocalityPreservingProjection : The graph embedding without a penalty graph.

    References
    ----------
    S. Yan, D. Xu, B. Zhang, H.-J. Zhang, Q. Yang and S. Lin, "Graph Embedding and Extensions: A
    General Framework for Dimensionality Reduction", IEEE TPAMI 29(1):40-51, 2007: §2.1 (the
    linearised graph-preserving criterion ``arg min w^T X L X^T w`` subject to
    ``w^T X B X^T w = d``) and §3.1 (MFA: the intrinsic and penalty graphs, ``S_c``, ``S_p`` and
    the marginal Fisher criterion above).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from locproj.methods import MarginalFisherAnalysis
    >>> X, y = load_iris(return_X_y=True)
    >>> mfa = MarginalFisherAnalysis(n_components=2, n_neighbors=5, n_penalty_pairs=20).fit(X, y)
    >>> mfa.transform(X).shape
    (150, 2)
    """

    _parameter_constraints: dict = {
        "n_components": N_COMPONENTS,
        "n_neighbors": N_NEIGHBORS,
        "n_penalty_pairs": [POSITIVE_INT],
        "column_scaling": COLUMN_SCALING,
    }

    def __init__(self, n_components=None, *, n_neighbors=5, n_penalty_pairs=20, column_scaling="unit"):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.n_penalty_pairs = n_penalty_pairs
        self.column_scaling = column_scaling

    def _needs_labels(self) -> bool:
        return True

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Learn the projection from training data ``X`` and labels ``y``.

        A penalty graph without spread is refused before solving
        (:func:`~locproj.core.class_graphs.check_penalty_spread`); a Cholesky failure of the reduced
        ``X L^p X^T`` (plus the solver's ridge) that gets past that check is reported as what it is,
        a penalty scatter too close to singular.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Class labels (required: MFA is supervised).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        try:
            return super().fit(X, y)
        except ValueError as error:
            if not (isinstance(error.__cause__, np.linalg.LinAlgError) and "dpotrf" in str(error.__cause__)):
                raise
            raise ValueError(
                f"MarginalFisherAnalysis: the penalty scatter X L^p X^T is singular beyond the solver's ridge "
                f"({error.__cause__}): the marginal pairs (n_penalty_pairs={self.n_penalty_pairs!r}) join "
                "nearly identical samples with different labels, so the penalty graph has almost no spread; "
                "raise n_penalty_pairs, or remove near-duplicate samples that carry different labels.") from error

    def _problem(self, X, y):
        W, W_p = mfa_graphs(X, y, self.n_neighbors, self.n_penalty_pairs)
        factor = laplacian_factor(W)  # a supervised graph: blocks within the classes
        L = laplacian(W)[0] if factor is None else GramFactor(factor)
        return GraphProblem(L=L, B=laplacian(W_p)[0])
