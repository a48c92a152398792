"""Kernel Locality Preserving Projections (paper 003 eq. 17-25)."""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.metrics.pairwise import PAIRWISE_KERNEL_FUNCTIONS, pairwise_kernels
from sklearn.preprocessing import KernelCenterer
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ..core.solvers import check_n_components, solve_embedding
from ._base import ProjectionTransformer, scale_columns, validate_fit_data
from ._constraints import COLUMN_SCALING, N_COMPONENTS, N_NEIGHBORS, StrictInterval
from .lpp import HEAT_WIDTH, lpp_graph


class KernelLPP(ProjectionTransformer):
    """Kernel Locality Preserving Projection.

    With ``v = phi(X) alpha`` (003 eq. 20) the LPP problem in feature space becomes
    ``K L K alpha = lambda K D K alpha`` (eq. 21-24), smallest eigenvalues first; a new point is
    projected by ``k(x, X_train)^T alpha`` (eq. 25).  Solved by
    :func:`locproj.core.solvers.solve_embedding` with the kernel matrix as the data matrix
    (``center=False``; the PCA pre-step then restricts ``alpha`` to the range of ``K``).
    With ``center_kernel=True`` the data are centred in feature space (``K <- H K H``, and
    the same centring for new points), the analogue of the centring done for linear LPP:
    with a linear kernel the projections then equal LPP's.  With ``center_kernel=False``
    (paper 003 literally) the constant vector lies in the range of ``K``, and the trivial
    direction mapping every training point to the same value appears first, with eigenvalue 0.
    The graph is built in input space as for LPP.

    Parameters
    ----------
    n_components : int or None, default=None
        None keeps all (the rank of ``K``); nested as for LPP.
    kernel : {'rbf', 'linear', 'poly', ...} or callable, default='rbf'
        Any kernel of :func:`sklearn.metrics.pairwise.pairwise_kernels` but 'precomputed' (the
        graph is built from ``X``); a callable ``kernel(x, z, gamma=, degree=, coef0=)`` gets the
        three kernel parameters as keywords.
    gamma : float or None, default=None
        Kernel parameter, passed when the kernel takes it (``'rbf'``, ``'poly'``, ...).
    degree : float, default=3
        Kernel parameter, passed when the kernel takes it (``'poly'``).
    coef0 : float, default=1
        Kernel parameter, passed when the kernel takes it (``'poly'``, ``'sigmoid'``).
    n_neighbors : int or 'all', default=5
        Neighbours per point of the graph (within its class when ``supervised``), as for
        :class:`LocalityPreservingProjection`.
    weight : {'heat', 'binary'}, default='heat'
        Graph weights ``exp(-||x_i - x_j||^2 / t)`` or 1, as for :class:`LocalityPreservingProjection`.
    t : float or None, default=None
        Heat-kernel width of the graph weights ``exp(-||x_i - x_j||^2 / t)`` (003 eq. 12; the
        ``gamma`` of :class:`LocalityPreservingProjection`).  None: mean squared edge length.
    supervised : bool, default=True
        Link only points of the same class in the graph.
    center_kernel : bool, default=True
        Centre the data in feature space (see above).
    column_scaling : {'unit', 'constraint'}, default='unit'
        'unit': unit RKHS norm ``alpha^T K alpha = 1``; 'constraint': ``alpha^T K D K alpha = 1``.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_samples_fit, ``n_components_``)
        The coefficients ``alpha`` (for the centred kernel when ``center_kernel``).
    centerer_ : KernelCenterer or None
    X_fit_ : ndarray of shape (n_samples_fit, n_features)
    eigenvalues_ : ndarray of shape (``n_components_``,)
    n_components_ : int

    See Also
    --------
    LocalityPreservingProjection : The linear LPP (equal to this with a linear centred kernel).
    sklearn.decomposition.KernelPCA : Kernel PCA, the unsupervised kernel projection.

    References
    ----------
    A. Levada, "Lecture notes ... LPP and Kernel LPP", 2020 (paper 003), eq. 17-25.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from locproj.methods import KernelLPP
    >>> X, y = load_iris(return_X_y=True)
    >>> klpp = KernelLPP(n_components=2, kernel="rbf", gamma=0.5).fit(X, y)
    >>> klpp.transform(X[:5]).shape
    (5, 2)
    >>> klpp.dual_coef_.shape
    (150, 2)
    """

    _parameter_constraints: dict = {
        "n_components": N_COMPONENTS,
        "kernel": [StrOptions(set(PAIRWISE_KERNEL_FUNCTIONS)), callable],
        "gamma": [StrictInterval(Real, 0, None, closed="left"), None],
        "degree": [StrictInterval(Real, 0, None, closed="left")],
        "coef0": [StrictInterval(Real, None, None, closed="neither")],
        "n_neighbors": N_NEIGHBORS,
        "weight": [StrOptions({"heat", "binary"})],
        "t": HEAT_WIDTH,
        "supervised": ["boolean"],
        "center_kernel": ["boolean"],
        "column_scaling": COLUMN_SCALING,
    }

    def __init__(self, n_components=None, *, kernel="rbf", gamma=None, degree=3, coef0=1,
                 n_neighbors=5, weight="heat", t=None, supervised=True, center_kernel=True,
                 column_scaling="unit"):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_neighbors = n_neighbors
        self.weight = weight
        self.t = t
        self.supervised = supervised
        self.center_kernel = center_kernel
        self.column_scaling = column_scaling

    def _peak_memory_bytes(self, n_samples, n_features, y=None):
        # 12 dense n x n arrays: the kernel and its centred copy, the basis and its product with the
        # kernel, the graph products L Y and D Y, the reduced M and N, the eigen-solver's copies and
        # workspace, and the product with K of the column scaling (docs/scale.md, "Memory")
        return 8.0 * (12 * n_samples**2 + 4 * n_samples * n_features)

    def _kernel(self, X, Y=None):
        return pairwise_kernels(X, Y, metric=self.kernel, filter_params=True, gamma=self.gamma,
                                degree=self.degree, coef0=self.coef0)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Learn ``alpha`` from training data ``X`` (and labels ``y`` when supervised).

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
        X, y = validate_fit_data(self, X, y, self.supervised)
        self._check_memory(X, y)
        K = self._kernel(X)
        self.centerer_ = KernelCenterer().fit(K) if self.center_kernel else None
        if self.centerer_ is not None:
            K = self.centerer_.transform(K)
        L, D = lpp_graph(X, y, self.n_neighbors, self.weight, self.t, self.supervised)
        emb = solve_embedding(K, L, D, center=False, symmetric=True)
        if emb.n_available == 0:
            raise ValueError(
                f"KernelLPP: the {'centred ' if self.center_kernel else ''}kernel matrix is numerically "
                f"zero (kernel={self.kernel!r}, gamma={self.gamma!r}): the kernel does not tell the "
                "samples apart at the scale of X; rescale X or choose another kernel parameter "
                "(e.g. a larger gamma).")
        k = check_n_components(self.n_components, emb.n_available)
        # scale every column, then cut: the RKHS norms (a product with K) then do not depend
        # on how many columns were asked for, and prefixes stay bit-identical
        self.dual_coef_ = scale_columns(emb.components, self.column_scaling, gram=K)[:, :k]
        self.X_fit_ = X.copy()  # own the training data (fresh buffer: reproducible BLAS rounding)
        self.eigenvalues_ = emb.eigenvalues[:k]
        self.n_components_ = self.dual_coef_.shape[1]
        return self

    def transform(self, X):
        """Project ``X``: ``k(X, X_fit_) @ dual_coef_`` (003 eq. 25).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data to project.

        Returns
        -------
        X_new : ndarray of shape (n_samples, ``n_components_``)
            The projected data.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64, order="C")
        K = self._kernel(X, self.X_fit_)
        if self.centerer_ is not None:
            K = self.centerer_.transform(K)
        return K @ self.dual_coef_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = bool(self.supervised)
        return tags
