"""Global and Local Projection Kernels for SVMs (Gönen & Alpaydın 2010; paper 002).

The estimator, whose ``fit`` is Algorithm 2 with Armijo's rule (§5) and the stopping rule of §6, on
the maths of :mod:`locproj.methods._lpk_model`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from numbers import Real

import numpy as np
from sklearn.base import ClassifierMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ._base import ProjectionTransformer, RankDeficiencyWarning, validate_fit_data
from ._constraints import POSITIVE_INT, StrictInterval
from .tags import declare
from ._lpk_model import (KERNELS, SVM_ITER_PER_SAMPLE, ProjectionCache, armijo, dual_objective_gradients, fixed_dot,
                         gated_projections, gating, kernel_of_projections, local_projection_kernel, norm, ratio,
                         solve_svm)

# The initial gating parameters: logits of about this size, so the regions start almost equal.
_GATING_INIT = 0.01
@dataclass(frozen=True)
class _Stage:
    """The model after one iteration (for ``staged_decision_function``)."""

    W: np.ndarray
    V: np.ndarray
    support: np.ndarray
    dual_coef: np.ndarray
    intercept: float


class LocalProjectionKernelSVC(ClassifierMixin, ProjectionTransformer):
    """SVM with learned local projections: Local (LPK) and Global (GPK) Projection Kernels.

    A softmax gating model ``eta_m(x | V)`` (002 eq. 5, linear gating ``Phi_G(x) = x``) divides
    the input space into ``p = n_regions`` soft regions; region ``m`` projects ``x`` to
    ``z_m = W_m^T x`` (``W_m`` of shape ``d x r``), and the SVM uses the local projection kernel
    ``K_eta(x_i, x_j) = sum_m eta_m(x_i) K(W_m^T x_i, W_m^T x_j) eta_m(x_j)`` (eq. 8).  The
    decision function is ``f(x) = sum_i alpha_i y_i K_eta(x_i, x) + b`` (end of §4).
    ``n_regions=1`` is GPK (§2, Algorithm 1): one global projection, ``eta = 1``.

    Training is Algorithm 2: solve the SVM dual (eq. 8) on ``K_eta`` with
    ``SVC(kernel='precomputed')``, then a gradient step on the projections ``W_1..W_p`` (line 5;
    §4 with the §2 kernel derivatives) and one on the gating parameters ``V`` (lines 6-7; §4),
    each with its step size (``Delta``, ``mu``) from Armijo's rule (§5) on ``J``; every trial
    step re-solves the SVM.  Iteration stops when ``J_t >= (1 - tol) J_{t-1}`` (§6) or after
    ``max_iter`` iterations.  Gradients use the support vectors only (§5).

    Readings (where the paper is silent or ambiguous; also in ``docs/methods.md``):

    * **Sign of J.**  ``J(W, V)`` is the optimal value of the dual (eq. 8), a maximum over
      ``alpha``, equal to the primal (6) optimum; Algorithm 2 *descends* on it
      (``W <- W - Delta dJ/dW``), i.e. minimises the SVM objective jointly over ``W, V``.  So
      ``J > 0`` decreases, and §6's rule stops when it fails to fall by a fraction ``tol``.  The
      gradients of §2/§4 are taken at fixed ``alpha``: the gradient of the optimal value, as the
      feasible set of eq. 8 does not depend on ``W, V`` (Danskin; Chapelle et al. 2002).
    * **The two steps are Armijo line searches in turn** (block coordinate descent): the ``W``
      step uses the gradient at ``(alpha_t, V_t)``; the ``V`` step the gradient at the SVM
      solution of the accepted ``W`` step (§4: "for given {alpha, V}", then "for given
      {alpha, W_1:p}"), which the line search has solved already.  Each accepted step lowers
      ``J``; an iteration is one entry of ``history_`` (one SVM solution, line 4).
    * **Armijo** (``sigma = 1e-4``, ``beta = 1/2``, at most 20 trials, else no step): the first
      trial of a block is twice its last accepted step (for ``W`` also at most ``||W||_F / ||g||``,
      a step that at most doubles ``W``); before any accepted step ``W`` moves by ``||W||_F`` and
      no gating logit of a training point changes by more than 1.  A trial counts as failed when
      its kernel is not finite or its SVM solve needs more than ``10^4 n`` libsvm iterations
      (an ill-conditioned ``K_eta``: an inexact ``J`` cannot certify the decrease).
    * **Initialisation "to random numbers"** (Algorithm 2, line 1), scaled to the data, like
      scikit-learn's ``gamma='scale'``: ``W_m`` entries i.i.d. normal with variance
      ``1 / (r rho^2)``, ``rho^2`` the mean of ``||x_i||^2`` (linear, poly kernels) or of
      ``||x_i - mean||^2`` (rbf), so projections start with ``E||z||^2 = 1`` (rbf:
      ``E||z_i - z_j||^2 = 2``, so ``s`` is a width in those units); ``v_m`` entries normal with
      standard deviation ``0.01 / rho`` (``rho^2`` the mean of ``||x_i||^2``) and ``v_m0`` with
      0.01, so the gating starts almost uniform and the regions differ through ``W``.
    * **Iterations**: ``max_iter`` counts SVM solutions of line 4 (the first on the initial
      ``W, V``), so ``max_iter=25`` records 25 values of ``J`` after 24 rounds of steps (§6.4).
      No warning when ``max_iter`` is reached; ``history_`` shows it.
    * **The same bits on every machine**: the kernel matrices, gradients, objectives and decision
      values are summed by numpy's ``einsum`` and the exponentials computed by additions and
      multiplications (:func:`~locproj.methods._lpk_model.fixed_dot`,
      :func:`~locproj.methods._lpk_model.fixed_exp`), not by BLAS and ``np.exp``, whose last bits
      depend on the CPU; libsvm's working set and the comparisons of ``J`` would turn those into
      other support vectors and steps.  The RBF kernel sums ``||z_i - z_j||^2`` from the
      differences.  The training ``K_eta`` is exactly symmetric.
    * **The scale of W is free** (002 bounds nothing): a larger ``W`` acts like a larger ``C``
      and lowers ``J``, so on separable data ``||W||`` keeps growing until ``max_iter`` while
      the decisions settle.  The learned ``W`` are not normalised; ``s`` only sets the width at
      which the rbf kernel starts.

    Features are used as given (002 neither centres nor scales them); standardise them first
    when their scales differ.

    Parameters
    ----------
    n_regions : int, default=2
        The number ``p`` of regions (local projections); 1 is GPK.
    n_components : int, default=1
        The dimension ``r`` of each local projection (``r <= n_features``); ``transform``
        returns ``n_regions * n_components`` columns.  Above the rank of ``X`` the fit is valid
        but warns (:class:`~locproj.methods._base.RankDeficiencyWarning`): those columns are
        then linearly dependent.
    C : float, default=1.0
        SVM regularisation (eq. 8: ``0 <= alpha_i <= C``).
    kernel : {'linear', 'poly', 'rbf'}, default='linear'
        ``K`` on the projections (§2): ``<z_i, z_j>``, ``(<z_i, z_j> + 1)^q`` or the Gaussian
        ``exp(-||z_i - z_j||^2 / s^2)``.  002's experiments use 'linear'.
    degree : int, default=2
        The polynomial degree ``q`` (§2) of ``kernel='poly'``.
    s : float, default=1.0
        The Gaussian width ``s`` of ``kernel='rbf'`` as §2 writes it, ``exp(-||z_i - z_j||^2 /
        s^2)`` (scikit-learn's ``gamma = 1 / s^2``), in the units of the initial projections.
    max_iter : int, default=25
        At most this many iterations (SVM solutions of Algorithm 2, line 4; §6.4 runs 25).
    tol : float, default=1e-3
        The ``tau`` of the stopping rule ``J_t >= (1 - tau) J_{t-1}`` (§6; 002 uses 0.001).
        0 runs until no step lowers ``J`` or ``max_iter``.
    random_state : int, RandomState instance or None, default=None
        Seeds the random initialisation of ``W`` and ``V`` (the only randomness).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is the positive class (``decision_function > 0``).
    projections_ : ndarray of shape (n_regions, n_features, n_components)
        The local projections ``W_1..W_p``.
    gating_coef_ : ndarray of shape (n_regions, n_features)
        The gating weights ``v_m``.
    gating_intercept_ : ndarray of shape (n_regions,)
        The gating biases ``v_m0``.
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors in the training data.
    support_vectors_ : ndarray of shape (n_SV, n_features)
    dual_coef_ : ndarray of shape (1, n_SV)
        ``alpha_i y_i`` with ``y_i = +1`` for ``classes_[1]`` (as in :class:`sklearn.svm.SVC`).
    intercept_ : ndarray of shape (1,)
        The threshold ``b``.
    n_support_ : ndarray of shape (2,)
        Support vectors per class.
    objective_ : float
        The final dual objective ``J`` (eq. 8).
    n_iter_ : int
        Iterations (SVM solutions of line 4) run.
    history_ : dict of ndarray
        One entry per iteration: ``objective`` (J), ``train_accuracy``, ``n_support``,
        ``step_projections`` and ``step_gating`` (the Armijo steps ``Delta``, ``mu`` that led
        to the iteration; NaN for the first, and for ``step_gating`` when ``n_regions=1``; 0
        when no step was accepted) and ``n_svm_solves`` (cumulative, line searches included).
        ``pandas.DataFrame(history_)`` is the convergence table of §6.4; see also
        :meth:`staged_decision_function` for test accuracy per iteration.
    n_features_in_ : int

    See Also
    --------
    sklearn.svm.SVC : The SVM solved on the local projection kernel at every step.
    KernelLPP : A kernel projection learned from a neighbour graph instead of an SVM's margin.

    References
    ----------
    M. Gönen, E. Alpaydın, "Supervised learning of local projection kernels", Neurocomputing
    73(10-12):1694-1703, 2010 (paper 002): eq. 5 (gating), eq. 8 (dual, ``K_eta``), §2 (kernel
    derivatives), §4 (gradients, Algorithm 2), §5 (Armijo, support vectors only), §6 (stopping).
    O. Chapelle, V. Vapnik, O. Bousquet, S. Mukherjee, "Choosing multiple parameters for support
    vector machines", Machine Learning 46:131-159, 2002.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from locproj.methods import LocalProjectionKernelSVC
    >>> X, y = load_iris(return_X_y=True)
    >>> X, y = X[50:], y[50:]                      # versicolor and virginica: a binary problem
    >>> lpk = LocalProjectionKernelSVC(n_regions=2, n_components=1, max_iter=5, random_state=0).fit(X, y)
    >>> lpk.classes_.tolist()
    [1, 2]
    >>> lpk.predict(X[:3]).shape, lpk.transform(X[:3]).shape
    ((3,), (3, 2))
    >>> lpk.get_feature_names_out().tolist()
    ['localprojectionkernelsvc0', 'localprojectionkernelsvc1']
    """

    _parameter_constraints: dict = {
        "n_regions": [POSITIVE_INT],
        "n_components": [POSITIVE_INT],   # and at most n_features, checked in fit
        "C": [StrictInterval(Real, 0, None, closed="neither")],
        "kernel": [StrOptions(set(KERNELS))],
        "degree": [POSITIVE_INT],
        "s": [StrictInterval(Real, 0, None, closed="neither")],
        "max_iter": [POSITIVE_INT],
        "tol": [StrictInterval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, n_regions=2, n_components=1, *, C=1.0, kernel="linear", degree=2, s=1.0,
                 max_iter=25, tol=1e-3, random_state=None):
        self.n_regions = n_regions
        self.n_components = n_components
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.s = s
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    @property
    def _n_features_out(self):
        """``transform``'s columns: ``n_components`` per region."""
        return self.projections_.shape[0] * self.projections_.shape[2]

    def _check_n_components(self, n_features):
        """``r`` against the data: each ``W_m`` maps the ``n_features`` features to ``r`` dimensions."""
        r = self.n_components
        if r > n_features:
            raise ValueError(
                f"n_components must be an integer in [1, {n_features}] (n_features), got {r!r}: each W_m maps "
                f"the {n_features} features to n_components dimensions, so only {n_features} components are "
                f"available; use n_components <= {n_features}.")

    def _kernel_params(self):
        return {"kernel": self.kernel, "degree": self.degree, "s": self.s}

    def _warn_rank(self, X):
        """:class:`RankDeficiencyWarning` when ``n_components`` exceeds the rank of ``X``.

        ``W_m^T x`` then spans at most ``rank(X)`` dimensions: the fit is valid (``W`` is not
        constrained), but ``transform``'s columns of a region are linearly dependent.
        """
        r = self.n_components
        if r == 1:  # X is not constant (check_fit_values): rank >= 1
            return
        # the eigenvalues of the smaller Gram matrix are the squared singular values: a 320 x 4096
        # Olivetti fold takes 0.07 s this way against 5 s for the SVD; with the accuracy of the
        # squares, singular values below sigma_max * sqrt(max(n, d) * eps) count as zero
        gram = X @ X.T if X.shape[0] <= X.shape[1] else X.T @ X
        lam = np.linalg.eigvalsh(gram)
        rank = int(np.count_nonzero(lam > lam[-1] * max(X.shape) * np.finfo(np.float64).eps))
        if r > rank:
            warnings.warn(
                f"{type(self).__name__}: n_components={r} but the training data X have rank "
                f"{rank}, so each projection W_m^T x spans at most {rank} dimensions: the fit is "
                f"valid, but transform's {r} columns per region are linearly dependent.  Set "
                f"n_components <= {rank} to silence this warning.", RankDeficiencyWarning,
                stacklevel=3)

    def _finite(self, method, X, compute):
        """``compute()`` for new data ``X``; a ``ValueError`` when float64 overflows on the way."""
        with np.errstate(over="ignore", invalid="ignore"):  # reported below, by name
            values = compute()
        if not np.all(np.isfinite(values)):
            raise ValueError(
                f"{type(self).__name__}.{method}: X has entries up to "
                f"{float(np.abs(X).max()):.3g} in absolute value, so the projections W_m^T x or "
                f"the kernel values (kernel={self.kernel!r}) overflow float64; rescale X the way "
                "the training data were scaled (e.g. with the scaler fitted on them).")
        return values

    def _initial_parameters(self, X):
        """Random ``W`` and ``V`` scaled to the data (see the readings in the class docstring)."""
        n, d = X.shape
        p, r = self.n_regions, self.n_components
        rng = check_random_state(self.random_state)
        sq_norm = float(np.mean(np.einsum("ij,ij->i", X, X)))
        spread = sq_norm
        if self.kernel == "rbf":  # translation invariant: the spread about the mean
            spread = float(np.mean(np.sum((X - X.mean(axis=0)) ** 2, axis=1)))
        W = rng.standard_normal((p, d, r)) / np.sqrt(r * spread)
        V = _GATING_INIT * rng.standard_normal((p, d + 1))
        V[:, 1:] /= np.sqrt(sq_norm)
        return W, V

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Learn ``W_1..W_p``, ``V`` and the SVM by Algorithm 2 of 002 on binary data ``X, y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Class labels, two classes.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, y = validate_fit_data(self, X, y, supervised=True)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        if len(self.classes_) != 2:
            raise ValueError(
                "Only binary classification is supported. The type of the target is multiclass: "
                f"y has {len(self.classes_)} classes, and {type(self).__name__} is a binary "
                "classifier (paper 002 §1); merge them into two (as 002 §6 does) or wrap the "
                "estimator in sklearn.multiclass.OneVsRestClassifier."
            )
        n, d = X.shape
        self._check_n_components(d)
        self._warn_rank(X)
        kp = self._kernel_params()
        y_pm = np.where(y_index == 1, 1.0, -1.0)
        W, V = self._initial_parameters(X)
        projected = ProjectionCache(X)

        def solve(W, V, max_svm_iter=SVM_ITER_PER_SAMPLE * n):
            with np.errstate(over="ignore", invalid="ignore"):  # a non-finite kernel: rejected
                K = kernel_of_projections(*projected(W, V), **kp)
            return solve_svm(K, y_pm, self.C, max_svm_iter)

        def gradients(alpha_y, W, V):
            return dual_objective_gradients(X, alpha_y, W, V, **kp, projected=projected(W, V))

        solution = solve(W, V, max_svm_iter=-1)
        if not np.isfinite(solution.objective):
            raise ValueError(
                f"{type(self).__name__}: the initial kernel matrix is not finite (kernel="
                f"{self.kernel!r}, degree={self.degree}); rescale X or lower the degree.")
        rows, stages, W, V, solution = self._alternate(X, solve, gradients, W, V, solution)
        self._store(X, y_pm, rows, stages, W, V, solution)
        return self

    def _alternate(self, X, solve, gradients, W, V, solution):
        """Algorithm 2's iterations from ``(W, V)`` and its SVM ``solution``: an Armijo step on the
        projections (line 5), then on the gating (lines 6-7), until the relative decrease of ``J``
        falls below ``tol`` (§6) or ``max_iter``; ``solve(W, V)`` is the SVM on ``K_eta`` and
        ``gradients(alpha_y, W, V)`` :func:`dual_objective_gradients`. Returns the rows of
        ``history_``, every iteration's model and the last ``W``, ``V`` and solution."""
        X1 = np.hstack([np.ones((len(X), 1)), X])  # Phi_G(x) with the bias, for the logit-step scale
        n_solves = 1
        last_step = {"W": None, "V": None}  # the last accepted Armijo step of each block
        steps = (np.nan, np.nan)
        rows, stages = [], []
        while True:
            rows.append((solution.objective, solution.train_accuracy,
                         int(np.count_nonzero(solution.alpha_y)), *steps, n_solves))
            support = np.flatnonzero(solution.alpha_y)
            stages.append(_Stage(W, V, support, solution.alpha_y[support], solution.intercept))
            t = len(rows)
            if t >= self.max_iter or (t > 1 and rows[-1][0] >= (1.0 - self.tol) * rows[-2][0]):
                return rows, stages, W, V, solution
            # line 5: projections, for the current {alpha, V}
            _, grad_W, _ = gradients(solution.alpha_y, W, V)
            first = ratio(norm(W), norm(grad_W))
            if last_step["W"]:
                first = min(2.0 * last_step["W"], first)
            W, solution, step_W, trials = armijo(
                W, grad_W, solution, lambda W_new: solve(W_new, V), first)
            last_step["W"] = step_W or last_step["W"]
            n_solves += trials
            # lines 6-7: gating, for the {alpha, W} after the projection step (p = 1: eta = 1)
            step_V = np.nan
            if self.n_regions > 1:
                _, _, grad_V = gradients(solution.alpha_y, W, V)
                first = (2.0 * last_step["V"] if last_step["V"]
                         else ratio(1.0, np.abs(fixed_dot(X1, grad_V.T)).max()))
                V, solution, step_V, trials = armijo(
                    V, grad_V, solution, lambda V_new: solve(W, V_new), first)
                last_step["V"] = step_V or last_step["V"]
                n_solves += trials
            steps = (step_W, step_V)

    def _store(self, X, y_pm, rows, stages, W, V, solution) -> None:
        """The fitted attributes from :meth:`_alternate`'s results."""
        names = ("objective", "train_accuracy", "n_support", "step_projections", "step_gating",
                 "n_svm_solves")
        self.history_ = {name: np.array(column) for name, column in zip(names, zip(*rows))}
        self.n_iter_ = len(rows)
        self.objective_ = solution.objective
        self.projections_ = W
        self.gating_coef_ = V[:, 1:].copy()
        self.gating_intercept_ = V[:, 0].copy()
        self.support_ = stages[-1].support
        self.support_vectors_ = X[self.support_].copy()
        self.dual_coef_ = stages[-1].dual_coef[None, :]
        self.intercept_ = np.array([solution.intercept])
        self.n_support_ = np.array([np.sum(y_pm[self.support_] < 0), np.sum(y_pm[self.support_] > 0)],
                                   dtype=np.int32)
        # every iteration's model, for staged_decision_function; the union of their support
        # vectors is kept (rows of X used by some stage), indexed by position in X
        used = np.unique(np.concatenate([stage.support for stage in stages]))
        position = np.full(len(X), -1)
        position[used] = np.arange(len(used))
        self._stage_vectors = X[used].copy()
        self._stages = [_Stage(st.W, st.V, position[st.support], st.dual_coef, st.intercept)
                        for st in stages]

    def _gating_params(self):
        return np.column_stack([self.gating_intercept_, self.gating_coef_])

    def gating_function(self, X):
        """Compute the fitted gating ``eta_m(x | V)`` (002 eq. 5) of each row of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data.

        Returns
        -------
        eta : ndarray of shape (n_samples, n_regions)
            The gating values, rows summing to one: e.g. the boundary ``eta_1 = 0.5`` of Figs. 1-2.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64, order="C")
        return self._finite("gating_function", X, lambda: gating(X, self._gating_params()))

    def decision_function(self, X):
        """Compute ``f(x) = sum_i alpha_i y_i K_eta(x_i, x) + b`` over the support vectors (002 §4).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data.

        Returns
        -------
        f : ndarray of shape (n_samples,)
            The decision values; positive values predict ``classes_[1]``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64, order="C")

        def compute():
            K = local_projection_kernel(X, self.projections_, self._gating_params(),
                                        Xb=self.support_vectors_, **self._kernel_params())
            return fixed_dot(K, self.dual_coef_[0]) + self.intercept_[0]

        return self._finite("decision_function", X, compute)

    def predict(self, X):
        """Predict the class of each row of ``X``: ``classes_[1]`` where ``decision_function > 0``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The predicted classes.
        """
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(int)]

    def staged_decision_function(self, X):
        """Compute ``decision_function`` of the model after each iteration (one per ``history_`` row).

        For the convergence figures of 002 §6.4 (test accuracy per iteration).  The last stage
        equals :meth:`decision_function`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data.

        Yields
        ------
        f : ndarray of shape (n_samples,)
            The decision values of one stage, the first iteration's first.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64, order="C")
        for stage in self._stages:
            def compute(stage=stage):
                K = local_projection_kernel(X, stage.W, stage.V,
                                            Xb=self._stage_vectors[stage.support],
                                            **self._kernel_params())
                return fixed_dot(K, stage.dual_coef) + stage.intercept

            yield self._finite("staged_decision_function", X, compute)

    def staged_predict(self, X):
        """Predict with the model after each iteration (:meth:`predict` of each stage).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data.

        Yields
        ------
        y_pred : ndarray of shape (n_samples,)
            The predicted classes of one stage, the first iteration's first.
        """
        for f in self.staged_decision_function(X):
            yield self.classes_[(f > 0).astype(int)]

    def transform(self, X):
        """Compute the gated projections ``(eta_1(x) W_1^T x, ..., eta_p(x) W_p^T x)`` (002 §4).

        With the linear kernel ``K_eta`` is the dot product of these features; with the others it
        is the dot product of ``eta_m(x) Phi(W_m^T x)``, of which these are the arguments.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_regions * n_components)
            The gated projections, region by region.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64, order="C")
        return self._finite("transform", X,
                            lambda: gated_projections(X, self.projections_, self._gating_params()))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return declare(tags, local_regions=True)
