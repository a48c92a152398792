"""Local Learning Projections (Wu, Yu, Yu & Schölkopf, ICML 2007; paper 000)."""

from __future__ import annotations

from numbers import Real

from sklearn.utils._param_validation import StrOptions

from ..core.neighbor_graphs import kneighbors
from ..core.reconstruction_weights import local_krr_weights, reconstruction_error
from ..core.solvers import GramFactor
from ._base import GraphEmbeddingTransformer, GraphProblem
from ._constraints import COLUMN_SCALING, N_COMPONENTS, N_NEIGHBORS, StrictInterval


class LocalLearningProjection(GraphEmbeddingTransformer):
    """Local Learning Projection (LLP).

    Each projection value ``f_i`` is predicted by kernel ridge regression fitted on the
    neighbours of ``x_i`` (000 eq. 29-31): ``o = A f`` with
    ``alpha_i^T = k_i^T (K_i + lambda I)^{-1}`` (eq. 32).  LLP minimises the local estimation
    error ``tr(P^T X T X^T P)``, ``T = (I - A)^T (I - A)``, subject to ``P^T P = I``
    (eq. 36-38), in the PCA space with all zero components removed (§4.1).

    Parameters
    ----------
    n_components : int or None, default=None
        None keeps all (the rank of the centred data); the first ``p`` columns are the optimal
        ``p``-dimensional solution.
    n_neighbors : int or 'all', default=5
        Neighbours per point (within its class when ``supervised``); 'all': every other point.
    reg : float, default=1.0
        The ridge ``lambda`` of eq. 2/29.
    kernel : {'linear', 'rbf'}, default='linear'
        Kernel of the local regressions (000 footnote 4: linear in the experiments).
    gamma : float or None, default=None
        RBF parameter ``exp(-gamma ||x - z||^2)``; None is ``1 / n_features``.
    supervised : bool, default=True
        Neighbours only within the same class (000 §3.2).
    center : bool, default=False
        Compute the linear kernel on mean-centred data. Default: on the data as given, which is
        how we read 000 footnote 3 ("for the projection algorithm ... we do not need to make
        this assumption") and what reproduces Table 2 (Yale m=5, 6 splits: 19.8 % uncentred vs
        41.5 % centred, paper 19.8 %; docs/fidelity/README.md). The RBF kernel is translation
        invariant.
    column_scaling : {'unit', 'constraint'}, default='unit'
        Both give ``P^T P = I`` here (the constraint is orthonormality).

    Attributes
    ----------
    components_ : ndarray of shape (``n_components_``, n_features)
    mean_ : ndarray of shape (n_features,)
    eigenvalues_ : ndarray of shape (``n_components_``,)
        Eigenvalues of ``X T X^T`` in the PCA space, ascending.
    n_components_ : int

    See Also
    --------
    LocallyEmbeddedAnalysis : Reconstruction weights of the neighbours instead of local regressions.
    LocalityPreservingProjection : A graph embedding with heat-kernel weights.
    KernelLPP : A kernel method with LPP's graph.

    References
    ----------
    M. Wu, K. Yu, S. Yu, B. Schölkopf, "Local Learning Projections", ICML 2007, eq. 29-38.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from locproj.methods import LocalLearningProjection
    >>> X, y = load_iris(return_X_y=True)
    >>> llp = LocalLearningProjection(n_components=2).fit(X, y)
    >>> llp.transform(X).shape
    (150, 2)
    >>> np.allclose(llp.components_ @ llp.components_.T, np.eye(2))
    True
    """

    _parameter_constraints: dict = {
        "n_components": N_COMPONENTS,
        "n_neighbors": N_NEIGHBORS,
        "reg": [StrictInterval(Real, 0, None, closed="neither")],
        "kernel": [StrOptions({"linear", "rbf"})],
        "gamma": [StrictInterval(Real, 0, None, closed="left"), None],
        "supervised": ["boolean"],
        "center": ["boolean"],
        "column_scaling": COLUMN_SCALING,
    }

    def __init__(self, n_components=None, *, n_neighbors=5, reg=1.0, kernel="linear", gamma=None,
                 supervised=True, center=False, column_scaling="unit"):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.reg = reg
        self.kernel = kernel
        self.gamma = gamma
        self.supervised = supervised
        self.center = center
        self.column_scaling = column_scaling

    def _problem(self, X, y):
        nbhd = kneighbors(X, self.n_neighbors, y if self.supervised else None, distances=False)
        A = local_krr_weights(X, nbhd, reg=self.reg, kernel=self.kernel, gamma=self.gamma,
                              center=self.center)
        # T = (I - A)^T (I - A) (eq. 36), handed over in factored form
        return GraphProblem(L=GramFactor(reconstruction_error(A)), constraint="orthonormal")
