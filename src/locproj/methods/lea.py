"""Locally Embedded Analysis (Fu & Huang 2005; paper 001), a.k.a. NPE in its D-to-d form."""

from __future__ import annotations

from numbers import Real

import numpy as np
from scipy import sparse
from sklearn.utils._param_validation import StrOptions

from ..core.neighbor_graphs import kneighbors
from ..core.reconstruction_weights import lle_weights, reconstruction_error
from ..core.solvers import GramFactor
from ._base import GraphEmbeddingTransformer, GraphProblem
from ._constraints import COLUMN_SCALING, N_COMPONENTS, N_NEIGHBORS, StrictInterval


class LocallyEmbeddedAnalysis(GraphEmbeddingTransformer):
    """Locally Embedded Analysis (LEA): linear LLE.

    LLE reconstruction weights ``W`` (001 eq. 5-7) are kept in the embedding:

    * ``mode='d_to_d'`` minimises ``tr(P^T X (I - W)^T (I - W) X^T P)`` subject to
      ``P^T X X^T P = n I`` (eq. 8-9).  This is Neighborhood Preserving Embedding (NPE,
      He et al. 2005).  The paper discards "the bottom eigenvector which is the mean of
      ``P^T X``": here the data are centred, so no direction maps every sample to the same
      non-zero value, the trivial eigenvector does not exist in the PCA space and nothing is
      discarded.
    * ``mode='d_to_1'`` solves ``X (D - W)^T (D - W) X^T p = lambda X (D^T D + W^T W) X^T p``
      (eq. 10-11), ``D = diag(sum_j W_ij)`` (the identity for LLE weights).

    Parameters
    ----------
    n_components : int or None, default=None
        None keeps all; the first ``p`` columns are the optimal ``p``-dimensional solution.
    n_neighbors : int or 'all', default=5
        Neighbours per point (within its class when ``supervised``); 'all': every other point.
    reg : float, default=1e-3
        Regularisation ``r`` of the local Gram matrices (see ``reg_mode``).
    reg_mode : {'trace', 'fixed', 'auto'}, default='trace'
        ``G_i + r tr(G_i) I`` (001 §3.3), ``G_i + r I`` (004 §2) or the automatic
        ``G_i + sigma_i^2 I`` of 004 §3.2 (``reg`` ignored, ``retained_variance`` used).
    retained_variance : float, default=0.9
        ``v`` of 004 §3.1-3.2, for ``reg_mode='auto'``.
    mode : {'d_to_d', 'd_to_1'}, default='d_to_d'
    supervised : bool, default=True
        Neighbours only within the same class (001 §3.1).
    column_scaling : {'unit', 'constraint'}, default='unit'
        'constraint' gives ``P^T X X^T P = n I`` (d_to_d) or ``p^T X (D^T D + W^T W) X^T p = 1``.

    Attributes
    ----------
    components_ : ndarray of shape (``n_components_``, n_features)
    mean_ : ndarray of shape (n_features,)
    eigenvalues_ : ndarray of shape (``n_components_``,)
        The Lagrange multipliers of eq. 9 / eq. 11, ascending.
    n_components_ : int

    See Also
    --------
    SupervisedLLE : The nonlinear LLE and SLLE these weights come from.
    LocalityPreservingProjection : The same kind of graph embedding with heat-kernel weights.
    LocalLearningProjection : Local kernel ridge regressions instead of reconstruction weights.

    References
    ----------
    Y. Fu and T. S. Huang, "Locally Linear Embedded Eigenspace Analysis", 2005, eq. 5-11.
    X. He, D. Cai, S. Yan, H.-J. Zhang, "Neighborhood Preserving Embedding", ICCV 2005.
    D. de Ridder and R. P. W. Duin, "Locally Linear Embedding for Classification", 2002.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from locproj.methods import LocallyEmbeddedAnalysis
    >>> X, y = load_iris(return_X_y=True)
    >>> lea = LocallyEmbeddedAnalysis(n_components=2, n_neighbors=8).fit(X, y)
    >>> lea.transform(X[:5]).shape
    (5, 2)
    """

    _parameter_constraints: dict = {
        "n_components": N_COMPONENTS,
        "n_neighbors": N_NEIGHBORS,
        "reg": [StrictInterval(Real, 0, None, closed="left")],
        "reg_mode": [StrOptions({"trace", "fixed", "auto"})],
        "retained_variance": [StrictInterval(Real, 0, 1, closed="right")],
        "mode": [StrOptions({"d_to_d", "d_to_1"})],
        "supervised": ["boolean"],
        "column_scaling": COLUMN_SCALING,
    }

    def __init__(self, n_components=None, *, n_neighbors=5, reg=1e-3, reg_mode="trace",
                 retained_variance=0.9, mode="d_to_d", supervised=True, column_scaling="unit"):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.reg = reg
        self.reg_mode = reg_mode
        self.retained_variance = retained_variance
        self.mode = mode
        self.supervised = supervised
        self.column_scaling = column_scaling

    def _problem(self, X, y):
        nbhd = kneighbors(X, self.n_neighbors, y if self.supervised else None, distances=False)
        W = lle_weights(X, nbhd, reg=self.reg, reg_mode=self.reg_mode,
                        retained_variance=self.retained_variance)
        if self.mode == "d_to_d":  # eq. 9
            return GraphProblem(L=GramFactor(reconstruction_error(W)), B=None,
                                constraint_scale=float(np.sqrt(len(X))))
        # mode='d_to_1', eq. 11
        D = sparse.diags_array(np.asarray(W.sum(axis=1)).ravel(), format="csr")
        return GraphProblem(L=GramFactor(sparse.csr_array(D - W)),
                            B=GramFactor(sparse.vstack([D, W], format="csr")))  # D^T D + W^T W
