"""LocalProjectionKernelSVC (paper 002): gradients, Armijo, GPK = linear SVM, the Fig. 1 toy,
scikit-learn compatibility, determinism and the same bits under other BLAS kernels."""

import math
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.svm import SVC
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from locproj.data.waveform import generate_waveform
from locproj.methods import LocalProjectionKernelSVC
from locproj.methods import _lpk_model
from locproj.methods._lpk_model import (
    dual_objective,
    dual_objective_gradients,
    fixed_dot,
    fixed_exp,
    gating,
    local_projection_kernel,
    projected_kernel,
)

KERNELS = {
    "linear": {"kernel": "linear"},
    "poly": {"kernel": "poly", "degree": 3},
    "rbf": {"kernel": "rbf", "s": 1.5},
}


def four_clusters(n_per_cluster=50, seed=0):
    """The toy of 002 Fig. 1: four clusters, two per class, no single projection separates them.

    Our reading of the figure: Gaussian clusters (sd 0.5) at the corners (+-2, +-2) of a square,
    opposite corners in the same class (XOR).  A line through the origin splits the plane into two
    regions, each with one cluster of either class, where one direction separates the classes.
    Returns ``X, y`` and the cluster of each point.
    """
    rng = np.random.default_rng(seed)
    centers = np.array([[-2.0, 2.0], [2.0, -2.0], [-2.0, -2.0], [2.0, 2.0]])
    cluster = np.repeat(np.arange(4), n_per_cluster)
    X = centers[cluster] + 0.5 * rng.standard_normal((len(cluster), 2))
    return X, np.array([1, 1, 0, 0])[cluster], cluster


def waveform_two_class(n, seed):
    """Waveform with classes 0 and 1 merged against class 2 (002 §6.3), from the generator."""
    X, y = generate_waveform(n, seed=seed)
    return X, (y == 2).astype(int)


# --- gradients (002 §2 and §4) ------------------------------------------------------------------


def _central_differences(f, theta, h):
    grad = np.empty_like(theta)
    for index in np.ndindex(theta.shape):
        step = np.zeros_like(theta)
        step[index] = h
        grad[index] = (f(theta + step) - f(theta - step)) / (2 * h)
    return grad


@pytest.mark.parametrize("n_regions", [1, 3])
@pytest.mark.parametrize("kernel", list(KERNELS))
def test_gradients_match_central_differences(kernel, n_regions):
    """dJ/dW_m and dJ/dV (v_m and v_m0) of the dual objective (eq. 8) at the dual variables of an
    actual SVM solve (support vectors and zeros) agree with central differences to 1e-5."""
    kp = KERNELS[kernel]
    rng = np.random.default_rng(1)
    n, d, r = 40, 4, 2
    X = rng.standard_normal((n, d))
    y_pm = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
    W = 0.7 * rng.standard_normal((n_regions, d, r))
    V = rng.standard_normal((n_regions, d + 1))  # far from uniform gating
    alpha_y = _lpk_model.solve_svm(local_projection_kernel(X, W, V, **kp), y_pm, C=1.0).alpha_y
    assert 0 < np.count_nonzero(alpha_y) < n  # some points are not support vectors

    J, grad_W, grad_V = dual_objective_gradients(X, alpha_y, W, V, **kp)
    assert J == pytest.approx(dual_objective(alpha_y, local_projection_kernel(X, W, V, **kp)), rel=1e-12)
    numeric_W = _central_differences(
        lambda W_: dual_objective(alpha_y, local_projection_kernel(X, W_, V, **kp)), W, 1e-5)
    numeric_V = _central_differences(
        lambda V_: dual_objective(alpha_y, local_projection_kernel(X, W, V_, **kp)), V, 1e-5)
    assert np.abs(grad_W).max() > 1e-3
    assert np.abs(grad_W - numeric_W).max() <= 1e-5 * np.abs(grad_W).max()
    if n_regions == 1:  # eta = 1 whatever V: no gradient
        assert np.all(grad_V == 0) and np.abs(numeric_V).max() < 1e-8
    else:
        assert np.abs(grad_V).max() > 1e-3
        assert np.abs(grad_V - numeric_V).max() <= 1e-5 * np.abs(grad_V).max()


# --- Armijo's rule (§5) and the stopping rule (§6) ------------------------------------------------


def test_armijo_takes_the_first_step_with_sufficient_decrease():
    """On J(theta) = ||theta||^2 the accepted step is the first of s, s/2, ... that lowers J by at
    least sigma * step * ||g||^2, and a search that cannot succeed takes no step."""
    def solve(theta):
        value = float(theta @ theta)
        return _lpk_model.SVMSolution(np.zeros(1), 0.0, value, 1.0)

    theta = np.array([3.0, -4.0])
    grad = 2 * theta
    current = solve(theta)
    new, solution, step, trials = _lpk_model.armijo(theta, grad, current, solve, first_step=10.0)
    assert solution.objective <= current.objective - _lpk_model._ARMIJO_SIGMA * step * grad @ grad
    assert step == 10.0 * _lpk_model._ARMIJO_BETA ** (trials - 1) and trials > 1
    larger = 2 * step
    sufficient = current.objective - _lpk_model._ARMIJO_SIGMA * larger * grad @ grad
    assert solve(theta - larger * grad).objective > sufficient
    np.testing.assert_array_equal(new, theta - step * grad)
    # an ascent direction: every trial fails, nothing moves
    same, kept, step, trials = _lpk_model.armijo(theta, -grad, current, solve, first_step=1.0)
    assert step == 0.0 and trials == _lpk_model._MAX_TRIALS and same is theta and kept is current


@pytest.mark.parametrize("params", [
    {"n_regions": 2, "n_components": 2, "C": 10.0},
    {"n_regions": 1, "n_components": 1, "C": 1.0},
    {"n_regions": 3, "n_components": 1, "kernel": "poly", "degree": 2},
    {"n_regions": 2, "n_components": 2, "kernel": "rbf", "s": 1.0},
], ids=["lpk-linear", "gpk-linear", "lpk-poly", "lpk-rbf"])
def test_armijo_steps_never_increase_J(params):
    X, y = waveform_two_class(200, seed=3)
    model = LocalProjectionKernelSVC(**params, tol=1e-3, random_state=0).fit(X, y)
    h = model.history_
    J = h["objective"]
    assert len(J) == model.n_iter_ >= 3 and np.all(J > 0)
    assert np.all(np.diff(J) <= 0)  # every accepted Armijo step lowered J
    steps = np.nan_to_num(np.column_stack([h["step_projections"], h["step_gating"]]))[1:]
    assert np.all(np.diff(J)[steps.sum(axis=1) > 0] < 0)
    # §6: J fell by more than tol at every iteration but the last
    assert np.all(J[1:-1] < (1 - model.tol) * J[:-2])
    assert model.n_iter_ == model.max_iter or J[-1] >= (1 - model.tol) * J[-2]
    assert np.all(np.diff(h["n_svm_solves"]) >= 1)
    assert np.isnan(h["step_projections"][0])
    if params["n_regions"] == 1:
        assert np.all(np.isnan(h["step_gating"]))
    assert h["n_support"][-1] == len(model.support_)
    assert model.objective_ == J[-1]


# --- GPK and the toy of Fig. 1 --------------------------------------------------------------------


def test_gpk_linear_full_rank_matches_linear_svc_on_separable_data():
    """GPK (p = 1) with the linear kernel and r = d is a linear SVM on W^T x with W W^T full rank:
    on separable data both classify everything correctly."""
    rng = np.random.default_rng(0)
    d = 3
    direction = np.array([1.0, -1.0, 0.5])
    X = rng.standard_normal((160, d))
    X = X[np.abs(X @ direction) > 0.5]  # a margin: linearly separable
    y = (X @ direction > 0).astype(int)
    train, test = np.arange(len(X)) % 2 == 0, np.arange(len(X)) % 2 == 1
    svc = SVC(kernel="linear", C=1.0).fit(X[train], y[train])
    gpk = LocalProjectionKernelSVC(n_regions=1, n_components=d, C=1.0, random_state=0).fit(X[train], y[train])
    assert svc.score(X[train], y[train]) == gpk.score(X[train], y[train]) == 1.0
    assert gpk.score(X[test], y[test]) == svc.score(X[test], y[test])
    # GPK's decision function is linear: f(x) = x^T W W^T X_sv^T (alpha y) + b
    W = gpk.projections_[0]
    w = W @ W.T @ gpk.support_vectors_.T @ gpk.dual_coef_[0]
    np.testing.assert_allclose(gpk.decision_function(X), X @ w + gpk.intercept_[0], rtol=1e-10, atol=1e-10)


def test_fig1_toy_lpk_separates_and_gpk_cannot():
    """Fig. 1-2: LPK (p = 2, r = 1) splits the plane into two regions with one cluster of each
    class and separates the classes; GPK (p = 1, r = 1), a linear classifier, cannot (at best
    three clusters of four)."""
    X, y, cluster = four_clusters(seed=0)
    X_test, y_test, _ = four_clusters(seed=1)
    lpk_model = LocalProjectionKernelSVC(n_regions=2, n_components=1, C=1.0, random_state=0).fit(X, y)
    gpk_model = LocalProjectionKernelSVC(n_regions=1, n_components=1, C=1.0, random_state=0).fit(X, y)
    assert lpk_model.score(X, y) == 1.0 and lpk_model.score(X_test, y_test) >= 0.99
    assert gpk_model.score(X, y) <= 0.8 and gpk_model.score(X_test, y_test) <= 0.8
    # the gating boundary eta_1 = 0.5 puts one cluster of each class on either side
    eta1 = gating(X, lpk_model._gating_params())[:, 0]
    region = np.array([np.median(eta1[cluster == k]) > 0.5 for k in range(4)])
    for side in (True, False):
        assert sorted(np.array([1, 1, 0, 0])[region == side]) == [0, 1]
    # Fig. 1(b): the 2-D gated projections are linearly separable
    Z = lpk_model.transform(X)
    assert Z.shape == (len(X), 2)
    assert SVC(kernel="linear", C=100.0).fit(Z, y).score(Z, y) == 1.0


def test_transform_is_the_feature_space_of_the_linear_kernel():
    """With the linear kernel K_eta(x, x') = <F(x), F(x')> for F = transform (after eq. 8), so the
    decision function is linear in the transformed features."""
    X, y = waveform_two_class(150, seed=4)
    model = LocalProjectionKernelSVC(n_regions=3, n_components=2, C=1.0, max_iter=4, random_state=0).fit(X, y)
    F = model.transform(X)
    assert F.shape == (len(X), 6)
    K = local_projection_kernel(X, model.projections_, model._gating_params())
    np.testing.assert_allclose(F @ F.T, K, rtol=1e-12, atol=1e-12)
    w = model.transform(model.support_vectors_).T @ model.dual_coef_[0]
    np.testing.assert_allclose(model.decision_function(X), F @ w + model.intercept_[0],
                               rtol=1e-10, atol=1e-10)


def test_staged_decision_function_follows_the_history():
    X, y = waveform_two_class(200, seed=5)
    model = LocalProjectionKernelSVC(n_regions=2, n_components=1, C=1.0, random_state=0).fit(X, y)
    stages = list(model.staged_decision_function(X))
    assert len(stages) == model.n_iter_
    np.testing.assert_allclose(stages[-1], model.decision_function(X), rtol=1e-12, atol=1e-12)
    accuracy = [np.mean(model.classes_[(f > 0).astype(int)] == y) for f in stages]
    np.testing.assert_allclose(accuracy, model.history_["train_accuracy"], atol=1.5 / len(y))
    np.testing.assert_array_equal(list(model.staged_predict(X))[-1], model.predict(X))


# --- errors, scikit-learn compatibility, determinism ----------------------------------------------


def test_non_binary_targets_are_refused():
    X, y = generate_waveform(60, seed=0)
    with pytest.raises(ValueError, match="Only binary classification is supported.*3 classes"):
        LocalProjectionKernelSVC().fit(X, y)
    with pytest.raises(ValueError, match="needs at least 2 classes"):
        LocalProjectionKernelSVC().fit(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="Unknown label type"):
        LocalProjectionKernelSVC().fit(X, X[:, 0])
    with pytest.raises(ValueError, match="n_components must be an integer in"):
        LocalProjectionKernelSVC(n_components=22).fit(X, y == 2)
    with pytest.raises(InvalidParameterError,
                       match=r"The 'kernel' parameter of LocalProjectionKernelSVC must be .*Got 'sigmoid' instead"):
        LocalProjectionKernelSVC(kernel="sigmoid").fit(X, y == 2)


# Every check passes; none is expected to fail.  The tag multi_class=False makes scikit-learn run
# its classifier checks on binary data and check that a multiclass y raises "Only binary
# classification is supported".  The poly instance runs fewer iterations to keep the test fast.
@parametrize_with_checks([
    LocalProjectionKernelSVC(),
    LocalProjectionKernelSVC(n_regions=1),
    LocalProjectionKernelSVC(n_regions=3, n_components=2, kernel="poly", degree=3, max_iter=5),
    LocalProjectionKernelSVC(kernel="rbf", s=2.0, C=10.0, max_iter=10),
])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_seeded_fits_are_identical_to_the_bit(kernel):
    X, y = waveform_two_class(200, seed=6)
    params = {"n_regions": 2, "n_components": 2, "C": 10.0, "kernel": kernel, "random_state": 42}
    first = LocalProjectionKernelSVC(**params).fit(X, y)
    second = LocalProjectionKernelSVC(**params).fit(X, y)
    for name in ("projections_", "gating_coef_", "gating_intercept_", "support_", "dual_coef_",
                 "intercept_", "objective_", "n_iter_"):
        np.testing.assert_array_equal(getattr(first, name), getattr(second, name), err_msg=name)
    for key in first.history_:
        np.testing.assert_array_equal(first.history_[key], second.history_[key], err_msg=key)
    np.testing.assert_array_equal(first.decision_function(X), second.decision_function(X))
    np.testing.assert_array_equal(first.transform(X), second.transform(X))
    other = LocalProjectionKernelSVC(**{**params, "random_state": 43}).fit(X, y)
    assert not np.array_equal(other.projections_, first.projections_)


# --- the same bits on every machine --------------------------------------------------------------


def test_fixed_dot_is_the_product_and_its_entries_do_not_depend_on_layout():
    """fixed_dot is A @ B to rounding; F F^T is exactly symmetric; an entry's bits do not depend on
    the other rows or columns, nor on the arrays' alignment in memory."""
    rng = np.random.default_rng(7)
    A, B, v = rng.standard_normal((37, 129)), rng.standard_normal((129, 5)), rng.standard_normal(129)
    product = fixed_dot(A, B)
    np.testing.assert_allclose(product, A @ B, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fixed_dot(A, v), A @ v, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fixed_dot(v, B), v @ B, rtol=1e-12, atol=1e-12)
    assert fixed_dot(v, v) == pytest.approx(v @ v, rel=1e-13) and isinstance(fixed_dot(v, v), float)
    F = rng.standard_normal((60, 6))
    K = fixed_dot(F, F.T)
    assert np.array_equal(K, K.T)
    rows, columns = [3, 8, 20], [1, 4]
    assert np.array_equal(fixed_dot(A[rows], B), product[rows])
    assert np.array_equal(fixed_dot(A, B[:, columns]), product[:, columns])
    shifted = np.empty(A.size + 1)[1:].reshape(A.shape)   # 8 bytes off the allocation's alignment
    shifted[...] = A
    assert np.array_equal(fixed_dot(shifted, B), product)


def test_fixed_exp_is_exp_to_one_unit_in_the_last_place():
    rng = np.random.default_rng(8)
    x = np.concatenate([-np.linspace(0.0, 745.0, 20001), -rng.random(2000) * 1e-6, -rng.random(2000) * 2.0])
    reference = np.array([math.exp(value) for value in x])
    normal = reference >= np.finfo(np.float64).tiny
    ulps = np.abs(fixed_exp(x) - reference)[normal] / np.spacing(reference[normal])
    assert ulps.max() <= 1.0 and np.mean(ulps == 0) > 0.9
    edges = fixed_exp(np.array([0.0, -0.0, -746.0, -1e300, -np.inf, np.nan]))
    assert edges[:2].tolist() == [1.0, 1.0] and edges[2:5].tolist() == [0.0, 0.0, 0.0] and np.isnan(edges[5])


@pytest.mark.parametrize("kernel", list(KERNELS))
def test_the_training_kernel_is_exactly_symmetric(kernel):
    rng = np.random.default_rng(9)
    X = rng.standard_normal((45, 4))
    K = local_projection_kernel(X, rng.standard_normal((3, 4, 2)), rng.standard_normal((3, 5)), **KERNELS[kernel])
    assert np.array_equal(K, K.T)


def test_rbf_distances_are_summed_from_differences():
    """Points far from the origin and close together: ||a||^2 + ||b||^2 - 2 <a, b> cancels to
    rounding noise there (about 1e-8 against squared distances of 1e-8); the differences are exact."""
    Z = 1e4 + 1e-4 * np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 2.0], [3.0, 1.0]])
    K = projected_kernel(Z, Z, "rbf", s=1e-4)
    sq = np.array([[float(np.sum((a - b) ** 2)) for b in Z] for a in Z])
    np.testing.assert_allclose(K, np.exp(-sq / 1e-8), rtol=1e-13)
    assert np.all(np.diag(K) == 1.0) and K[0, 1] == pytest.approx(math.exp(-1.0), rel=1e-6)


# A fit whose results moved under OpenBLAS's SkylakeX and Haswell kernels while its products were
# BLAS's (the first gradient differed by 3e-14 relative, then the Armijo steps and J), and whose
# gating moved with numpy's AVX-512 exp; printed as a pickle by a fresh interpreter.
_FIT_SCRIPT = """
import pickle, sys
import threadpoolctl
from locproj.data.waveform import generate_waveform
from locproj.methods import LocalProjectionKernelSVC
X, y = generate_waveform(200, seed=11)
y = (y == 2).astype(int)
fitted = {}
for name, params in {"linear": {"C": 100.0}, "rbf": {"kernel": "rbf", "s": 2.0, "C": 10.0},
                     "poly": {"kernel": "poly", "degree": 3, "n_regions": 3}}.items():
    model = LocalProjectionKernelSVC(**{"n_regions": 2, "n_components": 2, **params}, max_iter=8, tol=0.0,
                                     random_state=0).fit(X, y)
    fitted[name] = [model.projections_, model.gating_coef_, model.dual_coef_, model.support_,
                    model.history_["objective"], model.history_["n_svm_solves"], model.decision_function(X)]
kernels = sorted({info.get("architecture") for info in threadpoolctl.threadpool_info()
                  if info["internal_api"] == "openblas"})
pickle.dump((kernels, fitted), sys.stdout.buffer)
"""


def _openblas_kernels() -> tuple[str, str] | None:
    """Two OpenBLAS kernels this CPU runs (as tools/blas_kernels.py picks them), or None."""
    cpuinfo = Path("/proc/cpuinfo")
    flags = set(cpuinfo.read_text().split()) if cpuinfo.is_file() else set()
    if "avx512f" in flags:
        return "SkylakeX", "Haswell"
    return ("Haswell", "Sandybridge") if "avx2" in flags else None


def _fit_in_fresh_interpreter(environment: dict) -> tuple:
    done = subprocess.run([sys.executable, "-c", _FIT_SCRIPT], env=environment, capture_output=True, check=True)
    return pickle.loads(done.stdout)


@pytest.mark.skipif(_openblas_kernels() is None, reason="needs an x86-64 CPU with AVX2 (OpenBLAS kernels to force)")
def test_fits_have_the_same_bits_under_two_openblas_kernels_and_without_avx512(checkout_environment):
    """Two OpenBLAS kernels (OPENBLAS_CORETYPE), the second with numpy's AVX-512 code switched off
    (NPY_DISABLE_CPU_FEATURES), as on a CPU without AVX-512: the same fits, bit for bit."""
    try:
        from numpy._core import _multiarray_umath
    except ImportError:  # numpy < 2
        from numpy.core import _multiarray_umath
    first, second = _openblas_kernels()
    avx512 = " ".join(f for f in _multiarray_umath.__cpu_dispatch__ if "AVX512" in f or f == "X86_V4")
    kernels_a, fits_a = _fit_in_fresh_interpreter(checkout_environment(OPENBLAS_CORETYPE=first))
    kernels_b, fits_b = _fit_in_fresh_interpreter(checkout_environment(OPENBLAS_CORETYPE=second,
                                                                        NPY_DISABLE_CPU_FEATURES=avx512))
    if kernels_a == kernels_b:
        pytest.skip(f"OpenBLAS ignored OPENBLAS_CORETYPE: {kernels_a} both times")
    assert {kernels_a[0].lower(), kernels_b[0].lower()} == {first.lower(), second.lower()}
    for name in fits_a:
        for a, b in zip(fits_a[name], fits_b[name]):
            np.testing.assert_array_equal(a, b, err_msg=name)
