"""Locally linear embedding and supervised LLE (de Ridder & Duin 2002; paper 004)."""

from __future__ import annotations

import math
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import RealNotInt, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ..core.neighbor_graphs import kneighbors, kneighbors_query
from ..core.reconstruction_weights import (
    class_penalized_coordinates,
    lle_weights,
    lle_weights_out_of_sample,
    local_spectra,
    max_sq_distance,
    reconstruction_cost,
    spectrum_summary,
)
from ..core.sparse_eigen import bottom_eigenvectors
from ._base import ProjectionTransformer, check_fit_values
from ._constraints import POSITIVE_INT, StrictInterval
from .tags import declare

_DENSE_MAX = 200  # eigen_solver='auto': a dense eigh up to this many samples, ARPACK beyond


class SupervisedLLE(ProjectionTransformer):
    """Locally linear embedding (LLE) and supervised LLE (SLLE), paper 004.

    **Stage I** (eq. 1-5).  Each training point ``x_i`` is reconstructed from its ``k`` nearest
    neighbours by weights summing to one, ``w = R 1 / 1^T R 1`` with ``R = (Q + r I)^{-1}`` and
    ``Q_jm = (D_iN(j) + D_iN(m) - D_N(j)N(m)) / 2`` from the squared distances ``D`` (eq. 4-5).
    SLLE (§4.2) replaces ``D`` by ``D' = D + alpha max(D) Delta`` (eq. 8), ``Delta_ij = 1`` when
    the labels of ``x_i`` and ``x_j`` differ, both for the neighbour search and for ``Q``.  ``D'``
    is the squared distance of ``x`` with ``sqrt(alpha max(D) / 2)`` times its label's one-hot
    code appended (:func:`locproj.core.reconstruction_weights.class_penalized_coordinates`), so eq. 5 on ``D'`` is
    eq. 3 on those coordinates and no ``n x n`` matrix is formed.  ``alpha = 0`` is LLE;
    ``alpha = 1`` puts every other class beyond every point of one's own, and each class is
    embedded on its own (below).

    *Regularisation.*  ``reg=r`` (a number) adds the fixed ``r I`` of eq. 4 (an absolute value:
    scikit-learn's ``reg`` is relative, ``reg * tr(Q)``).  ``reg='auto'`` adds ``sigma_i^2 I``
    per neighbourhood (§3.2).  Reading of ``sigma_i^2``: probabilistic PCA's noise estimate
    ``1/(d - m) sum_{j > m} lambda_j`` literally, with ``m`` the embedding's dimension
    ``n_components_`` (one for all neighbourhoods: "the goal is to embed each of these
    neighbourhoods linearly in an m-dimensional space, and discard noise outside this space"), ``d``
    the input dimension and ``lambda_j`` the eigenvalues of ``Q^(i)``, which are the non-zero ones
    of the local scatter ``C^(i)`` (§3, Appendix; for SLLE those of ``D'``).  Each neighbourhood's
    own ``m_i`` (from ``v``) serves the majority vote only: with ``sigma_i^2`` beyond ``m_i``, a
    neighbourhood in a bend of a 2-D sheet in 3-D needs ``m_i = 3 = d`` and gets ``sigma_i^2 = 0``
    exactly where Fig. 2(b) has its peaks (docs/fidelity, "Paper 004").  Where ``sigma_i^2`` is 0
    (the neighbourhood's rank is at most ``m``, e.g. ``k > d``), Saul and Roweis's ``1e-3 tr(Q^(i))``
    takes its place (:func:`locproj.core.reconstruction_weights.spectrum_summary`).  This is
    :func:`locproj.core.reconstruction_weights.lle_weights` with ``reg_mode='auto'`` and
    ``subspace=(n_components_, d)``.

    **Stage II** (eq. 6-7).  ``Y`` minimises ``tr(Y M Y^T)``, ``M = (I - W)^T (I - W)``,
    subject to ``(1/n) Y Y^T = I``: the bottom eigenvectors of ``M``.  The constant vector
    (eigenvalue 0, the mean of ``Y``) is removed exactly: ``n_components + 1`` bottom
    eigenvectors are computed and the optimum is taken inside their span orthogonal to ``1``
    (projection, then Rayleigh-Ritz), which stays correct when 0 is a multiple eigenvalue (SLLE
    with disconnected classes: ``c`` null vectors, one per class, of which any ``c - 1``
    class-indicator combinations orthogonal to ``1`` are optimal).  Columns have
    ``(1/n) sum_i y_i^2 = 1`` and are ordered by ascending eigenvalue; in each column the entry of
    largest ``|value|`` is positive.

    *Equal eigenvalues.*  Where eigenvalues of ``M`` are equal (within ``1e-11 max |M_ij|``, as
    with disconnected classes: ``c - 1`` zero eigenvalues beside the constant's), ``M`` does not
    decide a basis of their cluster, and every direction in it has the same variance.  The basis is
    then the one the data decide: the directions ``y`` of the cluster by decreasing ``||X~^T y||^2``
    (``X~`` the centred training data; :func:`locproj.core.sparse_eigen.bottom_eigenvectors`).
    ``cluster_ends_`` lists the ``p`` at which a cluster ends; the engine's cross-validation
    offers only those ``p`` (:mod:`locproj.engine.selection`, "Equal eigenvalues").

    *Solver.*  ``eigen_solver='arpack'`` (``'auto'`` above 200 samples):
    :func:`scipy.sparse.linalg.eigsh` in shift-invert mode around ``sigma = -1e-10 mean(diag M)``.
    The wanted eigenvalues of ``M`` are its smallest and are tiny and clustered (``1e-12`` on a
    noise-free manifold), so Lanczos on ``M`` itself or unpreconditioned LOBPCG converge slowly,
    while ``(M - sigma I)^{-1}`` maps them to its largest, well separated ones.  The small
    negative shift makes ``M - sigma I`` positive definite (``M`` is singular: ``M 1 = 0``), so it
    is factored once by SuperLU without pivoting under a symmetric minimum-degree ordering
    (``MMD_AT_PLUS_A``; ``eigsh``'s own factorisation uses COLAMD, which filled 1.5-6x more on
    256-dimensional data at n = 5000).  ARPACK's start vector is drawn from ``random_state``: fits are
    deterministic for a fixed ``random_state``.  ``'dense'``: ``scipy.linalg.eigh`` of the dense
    ``M`` (small problems only).

    **Intrinsic dimension** (§3.1).  A float ``n_components = v`` in (0, 1): every
    neighbourhood gets its ``m_i`` (above, from ``Q^(i)``, on ``D'`` for SLLE) and the overall
    ``n_components_`` is the most frequent ``m_i`` (ties: the smallest).

    **Subset selection** (§3.3, ``n_subset=p``).  Stage I is run on all samples; ``sigma_i^2``
    normalised, ``s_i = sigma_i^2 / sum_j sigma_j^2``, defines an empirical distribution
    function over the samples, and ``p`` distinct samples are drawn from it
    (:func:`select_subset`: inverse-transform draws, repeats ignored, i.e. successive draws
    without replacement; ``sigma_i^2 = 0`` is never drawn).  Stage I is then run again on the
    subset alone (its neighbourhoods change; for SLLE ``max(D)`` is the subset's), stage II
    embeds the subset, and the other training samples are mapped out of sample as new points
    are.  The subset is the reference set of :meth:`transform`.

    **New points** (end of §2).  The ``k`` nearest reference points of ``x`` in plain Euclidean
    distance (labels are unknown; ties by :func:`locproj.core.neighbor_graphs.kneighbors_query`'s
    rule, the lowest index), weights by eq. 4 with the same regularisation (``r``, or
    ``sigma^2`` of the new point's own ``Q``), ``y = sum_j w_j y_N(j)``
    (:func:`locproj.core.reconstruction_weights.lle_weights_out_of_sample`).  A new point equal to a reference point
    is mapped onto its embedding (the ``r -> 0`` limit of eq. 4), so ``transform`` of the
    training data reproduces ``embedding_``.

    With ``alpha=0``, ``n_subset=None`` and a numeric ``reg`` this is
    :class:`sklearn.manifold.LocallyLinearEmbedding` (``method='standard'``) with the absolute
    regulariser ``r`` instead of ``reg * tr(Q)``, up to the scaling of the columns
    (scikit-learn: unit length; here ``(1/n) Y Y^T = I``) and their signs.

    Parameters
    ----------
    n_components : int or float, default=2
        An int ``m >= 1``; or a float ``v`` in (0, 1): the retained variance of §3.1, the
        dimension is chosen by majority vote over the neighbourhoods.
    n_neighbors : int, default=5
        ``k``; must be smaller than the number of (selected) training samples.
    alpha : float in [0, 1], default=0.0
        Weight of the class labels in ``D'`` (eq. 8); ``fit`` needs ``y`` when ``alpha > 0``.
    reg : float >= 0 or 'auto', default='auto'
        ``r`` of ``Q + r I`` (eq. 4), or ``'auto'``: ``Q + sigma_i^2 I`` (§3.2).
    retained_variance : float in (0, 1] or None, default=None
        ``v`` for the local dimensions ``m_i`` (§3.1).  None: ``n_components`` when it is a float
        (one ``v`` sets both, §3.4), else 0.9 (the paper's usual value).
    n_subset : int, float in (0, 1] or None, default=None
        ``p``, the number of samples kept by subset selection (a float: that fraction of the
        training samples, rounded up); None keeps all.
    eigen_solver : {'auto', 'arpack', 'dense'}, default='auto'
        See Solver above; ``'auto'`` is ``'dense'`` for at most 200 (selected) samples.
    random_state : int, RandomState instance or None, default=0
        Seeds the subset draw and ARPACK's start vector (in that order).  The default is fixed
        so that fits are reproducible; None draws fresh randomness.

    Attributes
    ----------
    embedding_ : ndarray of shape (n_samples, ``n_components_``)
        The training embedding (``fit_transform``'s result): stage II's on the subset, the
        out-of-sample map on the other samples.
    eigenvalues_ : ndarray of shape (``n_components_``,)
        The Lagrange multipliers of stage II (eigenvalues of ``M``), ascending;
        ``tr(Y M Y^T) = n_subset * sum(eigenvalues_)``.
    cluster_ends_ : int ndarray
        The ``p`` in ``1..n_components_`` at which a cluster of equal eigenvalues ends (eigenvalue
        ``p + 1`` of ``M`` differs from eigenvalue ``p``): the first ``p`` columns of any other ``p``
        cut inside a cluster.
    n_components_ : int
    retained_variance_ : float
        The ``v`` used for ``m_i``.
    local_dimensions_ : int ndarray of shape (n_samples,)
        ``m_i`` of every training sample's neighbourhood (first stage I, all samples).
    noise_variances_ : ndarray of shape (n_samples,)
        ``sigma_i^2`` of every training sample's neighbourhood (first stage I), the weights of
        subset selection.
    subset_ : int ndarray of shape (n_subset,)
        Indices (ascending) of the training samples embedded by stage II; all when
        ``n_subset=None``.
    X_fit_ : ndarray of shape (n_subset, n_features)
        The reference points of :meth:`transform`, ``X[subset_]``.
    n_features_in_ : int

    See Also
    --------
    sklearn.manifold.LocallyLinearEmbedding : The LLE of scikit-learn (relative regulariser).
    LocallyEmbeddedAnalysis : The linear LLE (NPE): a projection with LLE's weights.

    References
    ----------
    D. de Ridder and R. P. W. Duin, "Locally linear embedding for classification", Technical
    Report PH-2002-01, Delft University of Technology, 2002: eq. 1-8, §2, §3.1-3.3, §4.2.
    S. T. Roweis and L. K. Saul, "Nonlinear dimensionality reduction by locally linear
    embedding", Science 290, 2000.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from locproj.methods import SupervisedLLE
    >>> X, y = load_iris(return_X_y=True)
    >>> slle = SupervisedLLE(n_components=2, n_neighbors=10, alpha=0.5)
    >>> slle.fit_transform(X, y).shape
    (150, 2)
    >>> slle.transform(X[:5]).shape
    (5, 2)
    >>> lle = SupervisedLLE(n_components=0.9, n_neighbors=10).fit(X)   # m by majority vote (§3.1)
    >>> lle.embedding_.shape[1] == lle.n_components_
    True
    """

    _parameter_constraints: dict = {
        "n_components": [POSITIVE_INT, StrictInterval(RealNotInt, 0, 1, closed="neither")],
        "n_neighbors": [POSITIVE_INT],
        "alpha": [StrictInterval(Real, 0, 1, closed="both")],
        "reg": [StrictInterval(Real, 0, None, closed="left"), StrOptions({"auto"})],
        "retained_variance": [StrictInterval(Real, 0, 1, closed="right"), None],
        "n_subset": [StrictInterval(Integral, 2, None, closed="left"),
                     StrictInterval(RealNotInt, 0, 1, closed="right"), None],
        "eigen_solver": [StrOptions({"auto", "arpack", "dense"})],
        "random_state": ["random_state"],
    }

    def __init__(self, n_components=2, *, n_neighbors=5, alpha=0.0, reg="auto",
                 retained_variance=None, n_subset=None, eigen_solver="auto", random_state=0):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.alpha = alpha
        self.reg = reg
        self.retained_variance = retained_variance
        self.n_subset = n_subset
        self.eigen_solver = eigen_solver
        self.random_state = random_state

    # ------------------------------------------------------------------ fit

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Embed the training data ``X`` (labels ``y`` are needed when ``alpha > 0``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,), default=None
            Class labels; required when ``alpha > 0``, ignored when ``alpha = 0`` (LLE).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        self._fit(X, y)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_transform(self, X, y=None):
        """Fit and return the training embedding ``embedding_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,), default=None
            Class labels; required when ``alpha > 0``, ignored when ``alpha = 0`` (LLE).

        Returns
        -------
        X_new : ndarray of shape (n_samples, ``n_components_``)
            The embedding of the training data, ``embedding_``.
        """
        self._fit(X, y)
        return self.embedding_

    def _fit(self, X, y):
        X, y = self._validate_fit_data(X, y)
        n = len(X)
        k = int(self.n_neighbors)
        if k >= n:
            raise ValueError(f"n_neighbors={k} but only {n} training samples were given; "
                             f"use n_neighbors <= {n - 1} (n_samples - 1).")
        v = self._retained_variance()
        rng = check_random_state(self.random_state)

        # stage I on all samples: m_i (§3.1) and sigma_i^2 (§3.2)
        Z = self._coordinates(X, y)
        nbhd = kneighbors(Z, k, distances=False)
        spectra = local_spectra(Z, nbhd)
        m_i = spectrum_summary(spectra, v)[0]
        n_components = self._dimension(m_i)
        subspace = (n_components, X.shape[1])  # sigma_i^2 beyond the embedding's m, in d dimensions
        _, sigma2, ridge = spectrum_summary(spectra, v, subspace)

        # subset selection (§3.3), then stage I again on the subset
        if self.n_subset is None:
            subset = np.arange(n)
        else:
            p = self._subset_size(n, k)
            subset = np.sort(select_subset(sigma2, p, rng))
            Z = self._coordinates(X[subset], None if y is None else y[subset])
            nbhd = kneighbors(Z, k, distances=False)
        p = len(subset)
        if n_components > p - 1:
            raise ValueError(f"n_components={n_components} but only {p - 1} components are available "
                             f"(an embedding of {p} samples without its constant eigenvector); "
                             "use a smaller n_components or more samples.")
        reg, reg_mode = self._regularisation()
        if reg_mode == "auto" and self.n_subset is None:  # the ridge of the first stage I, not recomputed
            reg, reg_mode = ridge, "fixed"
        W = lle_weights(Z, nbhd, reg=reg, reg_mode=reg_mode, retained_variance=v, subspace=subspace)

        # stage II
        solver = self.eigen_solver
        if solver == "auto":
            solver = "dense" if p <= _DENSE_MAX else "arpack"
        Y, eigenvalues, cluster_ends = bottom_eigenvectors(reconstruction_cost(W), n_components, solver, rng,
                                                           data=X[subset])

        self.n_components_ = n_components
        self.retained_variance_ = v
        self.local_dimensions_ = m_i
        self.noise_variances_ = sigma2
        self.subset_ = subset
        self.eigenvalues_ = eigenvalues
        self.cluster_ends_ = cluster_ends
        self.X_fit_ = X[subset]
        embedding = np.empty((n, n_components))
        embedding[subset] = Y
        rest = np.setdiff1d(np.arange(n), subset)
        if len(rest):  # the samples left out by subset selection are mapped as new points
            embedding[rest] = self._map(X[rest], Y)
        self.embedding_ = embedding

    def _coordinates(self, X, y):
        """Coordinates whose squared distances are ``D'`` (eq. 8); ``X`` itself for LLE."""
        if self.alpha == 0 or y is None:
            return X
        return class_penalized_coordinates(X, y, float(self.alpha) * max_sq_distance(X))

    def _dimension(self, m_i) -> int:
        if isinstance(self.n_components, Integral):
            return int(self.n_components)
        return int(np.argmax(np.bincount(m_i)))  # majority vote, ties to the smallest m

    # ------------------------------------------------------------------ transform

    def transform(self, X):
        """Map new points by the reconstruction weights of their nearest reference points.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points to map.

        Returns
        -------
        X_new : ndarray of shape (n_samples, ``n_components_``)
            Their coordinates in the embedding.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64, order="C")
        return self._map(X, self.embedding_[self.subset_])

    def _map(self, X, Y):
        neighbors = kneighbors_query(self.X_fit_, X, int(self.n_neighbors))
        reg, reg_mode = self._regularisation()
        W = lle_weights_out_of_sample(X, self.X_fit_, neighbors, reg=reg, reg_mode=reg_mode,
                                      retained_variance=self.retained_variance_,
                                      subspace=(self.n_components_, self.n_features_in_))
        return np.asarray(W @ Y)

    # ------------------------------------------------------------------ validation

    def _regularisation(self):
        if isinstance(self.reg, str):
            return 0.0, "auto"
        return float(self.reg), "fixed"

    def _retained_variance(self) -> float:
        if self.retained_variance is not None:
            return float(self.retained_variance)
        if isinstance(self.n_components, Integral):
            return 0.9
        return float(self.n_components)

    def _subset_size(self, n: int, k: int) -> int:
        p = self.n_subset
        p = int(p) if isinstance(p, Integral) else math.ceil(p * n)
        if p > n:
            raise ValueError(f"n_subset={self.n_subset} but only {n} training samples were given; "
                             f"use n_subset <= {n} or n_subset=None.")
        if k >= p:
            raise ValueError(f"n_neighbors={k} but n_subset={self.n_subset} keeps only {p} samples; "
                             f"use n_neighbors <= {p - 1} or a larger n_subset.")
        return p

    def _validate_fit_data(self, X, y):
        if not self._needs_labels():
            X = validate_data(self, X, ensure_min_samples=2, dtype=np.float64, order="C")
            check_fit_values(self, X)
            return X, None
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None "
                             "(alpha > 0 adds alpha * max(D) to the distances between classes, eq. 8); "
                             "pass the class labels y or set alpha=0.")
        X, y = validate_data(self, X, y, ensure_min_samples=2, dtype=np.float64, order="C")
        check_classification_targets(y)
        check_fit_values(self, X)
        if len(np.unique(y)) < 2:  # Delta = 0: D' = D (eq. 8), SLLE is LLE
            warnings.warn(f"SupervisedLLE: y holds a single class, so alpha={self.alpha} changes no "
                          "distance (eq. 8) and this is plain LLE; pass labels of at least two classes "
                          "or set alpha=0 to silence this warning.", UserWarning, stacklevel=4)
        return X, y

    def _needs_labels(self) -> bool:
        try:
            return bool(self.alpha > 0)
        except TypeError:
            return False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = self._needs_labels()
        return declare(tags, training_subset=True, cluster_ends=True)


def select_subset(noise_variances, n_subset: int, random_state=None) -> np.ndarray:
    """Draw ``n_subset`` distinct samples from the empirical distribution of the normalised
    noise variances ``s_i = sigma_i^2 / sum_j sigma_j^2`` (paper 004 §3.3).

    Each draw is ``i = min{i : F_i > u}`` with ``F`` the cumulative sum of the weights and
    ``u`` uniform on ``[0, F_n)`` (inverse transform of the ECDF); a sample drawn again is
    ignored, which is sampling successively without replacement with probabilities proportional
    to ``s`` among the samples not yet drawn.  Samples with ``sigma_i^2 = 0`` are never drawn,
    unless every one is 0 (the embedding's ``m`` reaches the data's dimension, so no
    neighbourhood has noise beyond it): then all samples are equally likely.
    Returns the indices in the order drawn.
    """
    s = np.asarray(noise_variances, dtype=float)
    if s.ndim != 1 or not np.all(np.isfinite(s)) or np.any(s < 0):
        raise ValueError("noise_variances must be a 1-d array of finite values >= 0.")
    if s.size and not s.any():
        s = np.ones_like(s)
    available = int(np.count_nonzero(s))
    if not 1 <= n_subset <= available:
        raise ValueError(f"n_subset={n_subset} but only {available} samples have sigma_i^2 > 0 "
                         "(a sample with sigma_i^2 = 0 is never drawn, paper 004 §3.3); "
                         f"use 1 <= n_subset <= {available}.")
    rng = check_random_state(random_state)
    weights = s.copy()
    drawn: list[np.ndarray] = []
    needed = n_subset
    while needed:
        cdf = np.cumsum(weights)
        last = int(np.flatnonzero(weights)[-1])  # guards u rounding up to cdf[-1]
        idx = np.minimum(np.searchsorted(cdf, rng.random_sample(needed) * cdf[-1], side="right"), last)
        _, first = np.unique(idx, return_index=True)
        new = idx[np.sort(first)]  # the new samples, in the order drawn
        drawn.append(new)
        weights[new] = 0.0
        needed -= len(new)
    return np.concatenate(drawn)
