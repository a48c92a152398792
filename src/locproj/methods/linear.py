"""Fisherfaces: PCA to ``rank - (c - 1)`` dimensions (``n - c`` when n <= d), then LDA (Belhumeur et al. 1997)."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import _fit_context
from sklearn.decomposition import PCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ..core.solvers import fix_signs
from ._base import LinearProjection, ProjectionTransformer, RankDeficiencyWarning, scale_columns, validate_fit_data
from ._constraints import COLUMN_SCALING, N_COMPONENTS, POSITIVE_INT


class Fisherfaces(LinearProjection):
    """Fisherfaces: PCA keeping ``rank(S_T) - (c - 1)`` components, then Fisher LDA.

    The PCA step makes the within-class scatter ``S_W`` non-singular in theory (Belhumeur et
    al. 1997): ``rank(S_W) >= rank(S_T) - rank(S_B)`` and ``rank(S_B) <= c - 1``.  Data of
    rank at most ``c - 1`` (fewer features than classes, e.g. Letter: 16 and 26) would keep
    none: the PCA step then keeps ``min(rank, n - c)`` components, plain LDA when ``n - c``
    exceeds the rank.  With fewer
    samples than pixels the total scatter has rank ``n - 1`` and this is Belhumeur's ``N - c``;
    with more (YaleB at m = 30) it drops the last ``c - 1`` principal components, where the
    within-class scatter is near-singular (docs/fidelity/README.md: YaleB m = 30 19.0 % with
    every component, 12.5 % with these, paper 12.8 %).  scikit-learn's
    ``LinearDiscriminantAnalysis`` (``solver='svd'``) then copes with a within-class scatter
    that is singular to working precision.  At most ``c - 1`` components.

    Parameters
    ----------
    n_components : int or None, default=None
        None keeps all ``min(c - 1, n_pca)``; nested.
    solver : {'svd', 'eigen'}, default='svd'
        Solver of ``LinearDiscriminantAnalysis``.
    column_scaling : {'unit', 'constraint'}, default='unit'
        'unit': unit-length columns; 'constraint': scikit-learn's ``scalings_`` scaling.

    Attributes
    ----------
    components_ : ndarray of shape (``n_components_``, n_features)
    mean_ : ndarray of shape (n_features,)
    eigenvalues_ : ndarray of shape (``n_components_``,)
        ``explained_variance_ratio_`` of the LDA step (between-class variance shares).
    n_components_ : int
    n_pca_ : int
        Dimension of the intermediate PCA space.

    See Also
    --------
    sklearn.discriminant_analysis.LinearDiscriminantAnalysis : The LDA step.
    SpectralRegressionDiscriminantAnalysis : LDA's subspace by ridge regressions, no eigenproblem.
    LocalFisherDiscriminantAnalysis : Fisher's criterion with locally weighted scatter matrices.

    References
    ----------
    P. Belhumeur, J. Hespanha, D. Kriegman, "Eigenfaces vs. Fisherfaces", IEEE PAMI 1997.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from locproj.methods import Fisherfaces
    >>> X, y = load_iris(return_X_y=True)
    >>> lda = Fisherfaces().fit(X, y)
    >>> lda.transform(X).shape
    (150, 2)
    >>> lda.n_pca_
    2
    """

    _parameter_constraints: dict = {
        "n_components": N_COMPONENTS,
        "solver": [StrOptions({"svd", "eigen"})],
        "column_scaling": COLUMN_SCALING,
    }

    def __init__(self, n_components=None, *, solver="svd", column_scaling="unit"):
        self.n_components = n_components
        self.solver = solver
        self.column_scaling = column_scaling

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit PCA then LDA on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, y = validate_fit_data(self, X, y, supervised=True)
        n, d = X.shape
        classes, y_index = np.unique(y, return_inverse=True)
        n_classes = len(classes)
        if n <= n_classes:
            raise ValueError(
                f"Fisherfaces needs more samples than classes, got {n} samples in {n_classes} "
                "classes (one sample per class leaves no within-class scatter to estimate); "
                "add samples to the classes.")
        pca = PCA(svd_solver="covariance_eigh" if d <= n else "full").fit(X)
        tol = 10 * max(n, d) * np.finfo(float).eps
        rank = int(np.sum(pca.explained_variance_ > tol * pca.explained_variance_[0]))
        # rank(S_W) >= rank(S_T) - rank(S_B) >= rank - (c - 1): S_W is non-singular there.  For
        # n <= d, rank = n - 1 and this is Belhumeur's N - c; it also holds when n - c >= d.  With
        # no more dimensions than c - 1 (Letter: 16 features, 26 classes) that leaves nothing:
        # then keep min(rank, n - c), where S_W (rank n - c) is non-singular in general
        n_pca = rank - (n_classes - 1)
        if n_pca < 1:
            n_pca = max(1, min(rank, n - n_classes))
        Z = (X - pca.mean_) @ pca.components_[:n_pca].T
        # LDA divides by the between-class scatter: refuse when the class means coincide
        means = np.zeros((n_classes, n_pca))
        np.add.at(means, y_index, Z)
        means /= np.bincount(y_index)[:, None]
        between = float(np.sum(np.bincount(y_index) * np.einsum("ij,ij->i", means, means)))
        if not between > tol * float(np.einsum("ij,ij->", Z, Z)):
            raise ValueError(
                "Fisherfaces: the class means coincide (no between-class scatter, e.g. the same "
                "samples in every class), so there is no discriminant direction; check the labels y.")
        lda = LinearDiscriminantAnalysis(solver=self.solver).fit(Z, y)
        available = min(n_classes - 1, n_pca, lda.scalings_.shape[1])
        k = available if self.n_components is None else self.n_components
        if not 1 <= k <= available:
            raise ValueError(
                f"n_components={self.n_components} but Fisherfaces has only {available} "
                f"components available (at most c - 1 = {n_classes - 1}); use a smaller value."
            )
        if self.n_components is None and available < n_classes - 1:
            warnings.warn(
                f"Fisherfaces: kept {available} of c - 1 = {n_classes - 1} components: the centred "
                f"training data have rank {rank}, and the PCA step keeps "
                f"{'rank - (c - 1)' if rank > n_classes - 1 else 'min(rank, n - c)'} = {n_pca}.  "
                f"Set n_components <= {available} to silence this warning.",
                RankDeficiencyWarning, stacklevel=2)
        # map every available column, then cut: prefixes stay bit-identical across n_components
        P = fix_signs(pca.components_[:n_pca].T @ lda.scalings_[:, :available])
        self.components_ = scale_columns(P, self.column_scaling)[:, :k].T
        self.mean_ = pca.mean_
        self.eigenvalues_ = np.asarray(lda.explained_variance_ratio_[:k])
        self.n_components_ = k
        self.n_pca_ = n_pca
        return self

    def _needs_labels(self) -> bool:
        return True


class LeadingPCA(ProjectionTransformer):
    """PCA to at most ``n_components`` dimensions: ``min(n_components, n_samples, n_features)``.

    A method entry's ``pca_first``: one step before a costly method, over every data set of an
    experiment, so it keeps fewer dimensions where the training data have fewer (the UCI sets'
    16-21 features, a fold of Yale's 60 training images).  Full SVD, deterministic signs.

    Parameters
    ----------
    n_components : int, default=100
        The most dimensions kept.

    Attributes
    ----------
    pca_ : sklearn.decomposition.PCA
        The fitted PCA.
    n_components_ : int
        The dimensions kept.

    See Also
    --------
    sklearn.decomposition.PCA : The PCA fitted here, with a fixed number of components.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from locproj.methods.linear import LeadingPCA
    >>> X, _ = load_iris(return_X_y=True)
    >>> pca = LeadingPCA(n_components=10).fit(X)
    >>> pca.n_components_, pca.transform(X).shape
    (4, (150, 4))
    """

    _parameter_constraints: dict = {"n_components": [POSITIVE_INT]}

    def __init__(self, n_components=100):
        self.n_components = n_components

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit the PCA on ``X`` (``y`` is ignored)."""
        X = validate_data(self, X)
        self.n_components_ = min(self.n_components, *X.shape)
        self.pca_ = PCA(n_components=self.n_components_, svd_solver="full").fit(X)
        return self

    def transform(self, X):
        """Project ``X`` on the leading principal axes."""
        check_is_fitted(self)
        return self.pca_.transform(validate_data(self, X, reset=False))
