"""SpectralRegressionDiscriminantAnalysis (Cai, He and Han 2008): responses, ridge solutions, LDA, sparse input."""

import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.linalg
from scipy import sparse
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import InvalidParameterError

from locproj.methods._base import RankDeficiencyWarning
from locproj.methods.srda import SpectralRegressionDiscriminantAnalysis as SRDA
from locproj.methods.srda import srda_responses
from locproj.engine.registry import METHODS


def _gram_schmidt_responses(y):
    """The responses of the paper, built literally: the ones vector, then the indicator of every class in
    sorted order, each orthogonalised (twice, for rounding) against the vectors kept before it; a
    vector that becomes zero is dropped, and so is the ones vector."""
    n = len(y)
    basis = [np.ones(n) / np.sqrt(n)]
    for label in np.unique(y):
        v = (y == label).astype(float)
        for _ in range(2):
            for b in basis:
                v = v - (b @ v) * b
        if np.linalg.norm(v) > 1e-10:
            basis.append(v / np.linalg.norm(v))
    return np.column_stack(basis[1:])


def _classes(n=300, d=20, c=4, seed=0, shift=1.0):
    """Gaussian classes of unequal sizes with labels given in no particular order."""
    rng = np.random.default_rng(seed)
    y = rng.choice(np.array([7, 2, 5, 11, 3, 9])[:c], size=n, p=np.arange(1, c + 1) / (c * (c + 1) / 2))
    centers = shift * rng.standard_normal((y.max() + 1, d))
    return centers[y] + rng.standard_normal((n, d)) + 3.0, y


def _ridge(X, y, alpha):
    """Each projection from the equations: solve(X~^T X~ + alpha I, X~^T y_k), responses from Gram-Schmidt."""
    Xc = X - X.mean(axis=0)
    Y = _gram_schmidt_responses(y)
    return np.linalg.solve(Xc.T @ Xc + alpha * np.eye(X.shape[1]), Xc.T @ Y)


def _max_angle(A, B):
    return float(np.max(scipy.linalg.subspace_angles(A, B)))


# --------------------------------------------------------------------------- responses


@pytest.mark.parametrize("c", [2, 3, 6])
def test_responses_are_the_gram_schmidt_of_the_class_indicators(c):
    _, y = _classes(n=97, c=c, seed=c)
    _, y_index = np.unique(y, return_inverse=True)
    Y = srda_responses(y_index, c)
    assert Y.shape == (97, c - 1)
    np.testing.assert_allclose(Y, _gram_schmidt_responses(y), atol=1e-12)
    np.testing.assert_allclose(Y.T @ Y, np.eye(c - 1), atol=1e-12)          # orthonormal
    np.testing.assert_allclose(np.ones(97) @ Y, 0.0, atol=1e-12)            # orthogonal to 1
    indicators = (y[:, None] == np.unique(y)[None, :]).astype(float)
    centered = indicators - indicators.mean(axis=0)                         # rank c - 1
    assert _max_angle(Y, centered) < 1e-10                                  # the centred indicator space
    np.testing.assert_allclose(srda_responses(y_index, c, 1), Y[:, :1])


# --------------------------------------------------------------------------- the ridge regressions


@pytest.mark.parametrize("shape", [(300, 20), (40, 120)], ids=["d<n (primal)", "n<d (dual)"])
@pytest.mark.parametrize("solver", ["normal", "lsqr"])
def test_each_projection_is_the_ridge_solution_of_its_response(shape, solver):
    X, y = _classes(*shape)
    alpha = 0.7
    reference = _ridge(X, y, alpha)
    raw = SRDA(alpha=alpha, solver=solver, tol=1e-14, max_iter=10_000, column_scaling="constraint").fit(X, y)
    unit = SRDA(alpha=alpha, solver=solver, tol=1e-14, max_iter=10_000).fit(X, y)
    assert raw.solver_ == ("lsqr" if solver == "lsqr" else "primal" if shape[0] > shape[1] else "dual")
    assert (raw.n_iter_ is None) == (solver == "normal")
    scale = np.abs(reference).max()
    np.testing.assert_allclose(raw.components_.T, reference, atol=1e-8 * scale)
    np.testing.assert_allclose(unit.components_.T, reference / np.linalg.norm(reference, axis=0), atol=1e-8)
    np.testing.assert_allclose(unit.mean_, X.mean(axis=0))
    np.testing.assert_allclose(unit.transform(X), (X - X.mean(axis=0)) @ unit.components_.T)
    assert unit.n_components_ == len(np.unique(y)) - 1
    np.testing.assert_array_equal(unit.classes_, np.unique(y))


def test_normal_equations_in_n_and_in_d_and_lsqr_agree_on_the_same_data():
    X, y = _classes(n=60, d=60, c=5)
    est = SRDA(alpha=0.3)
    _, y_index = np.unique(y, return_inverse=True)
    Y = srda_responses(y_index, 5)
    mean = X.mean(axis=0)
    primal = est._fit_primal(X, mean, Y)[0]
    dual = est._fit_dual(X, mean, Y)[0]
    iterative = SRDA(alpha=0.3, solver="lsqr", tol=1e-10, column_scaling="constraint").fit(X, y).components_.T
    scale = np.abs(primal).max()
    np.testing.assert_allclose(dual, primal, atol=1e-10 * scale)
    np.testing.assert_allclose(iterative, primal, atol=1e-6 * scale)    # LSQR's tolerance
    np.testing.assert_allclose(primal, _ridge(X, y, 0.3), atol=1e-10 * scale)


def test_first_k_components_are_those_of_the_full_fit():
    X, y = _classes(c=5)
    full = SRDA().fit(X, y)
    for k in (1, 3):
        part = SRDA(n_components=k).fit(X, y)
        assert part.components_.shape == (k, X.shape[1])
        np.testing.assert_allclose(part.components_, full.components_[:k], atol=1e-12)
        np.testing.assert_allclose(part.transform(X), full.transform(X)[:, :k], atol=1e-10)


def test_columns_follow_the_gram_schmidt_order_and_sign():
    """X~ a_k approximates y_k: zero on classes before k, positive on k, negative after it."""
    X, y = _classes(c=4, shift=6.0)
    Z = SRDA(alpha=1e-6).fit(X, y).transform(X)
    classes = np.unique(y)
    means = np.array([Z[y == label].mean(axis=0) for label in classes])   # (class, column)
    for k in range(3):
        assert means[k, k] > 0 and np.all(means[k + 1:, k] < 0)
        np.testing.assert_allclose(means[:k, k], 0.0, atol=0.1 * means[k, k])


def test_a_prefix_of_columns_depends_on_the_label_order_and_the_whole_span_does_not():
    """Why the registry has SRDA unordered (p is its n_components, not every prefix of one fit): renaming
    the classes reorders Gram-Schmidt, which moves the first column but keeps the span of all c - 1."""
    X, y = _classes(c=4, shift=2.0)
    renamed = {label: new for label, new in zip(np.unique(y), np.unique(y)[::-1])}
    y_renamed = np.array([renamed[label] for label in y])
    A = SRDA().fit(X, y).components_.T
    B = SRDA().fit(X, y_renamed).components_.T
    assert _max_angle(A[:, :1], B[:, :1]) > 0.3
    assert _max_angle(A, B) < 1e-8
    assert not METHODS["srda"].ordered


# --------------------------------------------------------------------------- LDA


@pytest.mark.parametrize("alpha, solver", [(0.0, "normal"), (1e-9, "normal"), (0.0, "lsqr")])
def test_alpha_to_zero_on_full_rank_data_spans_lda(alpha, solver):
    X, y = _classes(n=400, d=15, c=5, shift=0.8)
    lda = LinearDiscriminantAnalysis(solver="eigen").fit(X, y)
    A = SRDA(alpha=alpha, solver=solver, tol=1e-12, max_iter=5000).fit(X, y).components_.T
    assert _max_angle(A, lda.scalings_[:, :4]) < 1e-6
    # a large alpha leaves LDA's subspace: the comparison can fail
    far = SRDA(alpha=1e5).fit(X, y).components_.T
    assert _max_angle(far, lda.scalings_[:, :4]) > 1e-3


def test_with_linearly_independent_samples_the_projections_reproduce_the_responses():
    """n <= d + 1: X~ a = y_k is solvable, so as alpha -> 0 each a_k is an LDA eigenvector with eigenvalue 1."""
    X, y = _classes(n=30, d=80, c=3)
    est = SRDA(alpha=1e-10, column_scaling="constraint").fit(X, y)
    np.testing.assert_allclose(est.transform(X), _gram_schmidt_responses(y), atol=1e-6)


# --------------------------------------------------------------------------- sparse input


def _sparse_classes(n=400, d=300, density=0.05, c=4, seed=1):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, c, n)
    X = sparse.random(n, d, density=density, format="csr", random_state=seed, data_rvs=rng.standard_normal)
    hot = sparse.csr_array((np.full(n, 2.0), (np.arange(n), y * 7 + rng.integers(0, 7, n))), shape=(n, d))
    return sparse.csr_array(X) + hot, y


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_sparse_input_gives_the_dense_projection_and_transform(fmt):
    Xs, y = _sparse_classes()
    Xs = Xs.asformat(fmt)
    X = Xs.toarray()
    sparse_fit = SRDA(tol=1e-12, max_iter=5000).fit(Xs, y)
    assert sparse_fit.solver_ == "lsqr"
    dense_fit = SRDA(solver="lsqr", tol=1e-12, max_iter=5000).fit(X, y)
    exact = SRDA(solver="normal").fit(X, y)
    np.testing.assert_allclose(sparse_fit.components_, dense_fit.components_, atol=1e-8)
    np.testing.assert_allclose(sparse_fit.components_, exact.components_, atol=1e-6)
    np.testing.assert_allclose(sparse_fit.mean_, X.mean(axis=0), atol=1e-14)
    new = _sparse_classes(n=50, seed=5)[0].asformat(fmt)
    np.testing.assert_allclose(sparse_fit.transform(new), sparse_fit.transform(new.toarray()), atol=1e-10)
    np.testing.assert_allclose(sparse_fit.transform(new), (new.toarray() - X.mean(axis=0)) @ exact.components_.T,
                               atol=1e-5)


@pytest.mark.parametrize("shape", [(400, 300), (100, 300)], ids=["primal", "dual"])
def test_sparse_normal_equations_equal_the_dense_ones(shape):
    Xs, y = _sparse_classes(*shape)
    sparse_fit = SRDA(solver="normal").fit(Xs, y)
    dense_fit = SRDA(solver="normal").fit(Xs.toarray(), y)
    assert sparse_fit.solver_ == dense_fit.solver_ == ("primal" if shape[0] >= shape[1] else "dual")
    np.testing.assert_allclose(sparse_fit.components_, dense_fit.components_, atol=1e-10)


def test_large_sparse_input_is_never_densified():
    """2 000 x 50 000 with 0.1 % non-zeros: 1.2 MB stored, 800 MB dense, a 20 GB d x d Gram matrix."""
    rng = np.random.default_rng(0)
    n, d = 2000, 50_000
    X = sparse.random_array((n, d), density=0.001, format="csr", rng=rng)
    y = rng.integers(0, 5, n)
    tracemalloc.start()
    try:
        est = SRDA().fit(X, y)
        Z = est.transform(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert est.solver_ == "lsqr" and est.components_.shape == (4, d) and Z.shape == (n, 4)
    assert peak < 50e6, f"peak {peak / 1e6:.0f} MB"   # dense X alone: 800 MB
    assert np.all(np.isfinite(Z))


# --------------------------------------------------------------------------- errors and warnings


_SRDA_PARAM = r"The '{}' parameter of SpectralRegressionDiscriminantAnalysis must be .*Got {} instead"


@pytest.mark.parametrize("params, error, match", [
    # pure parameter checks: scikit-learn's _parameter_constraints, naming the parameter and the value
    (dict(alpha=-1.0), InvalidParameterError, _SRDA_PARAM.format("alpha", r"-1\.0")),
    (dict(alpha=np.nan), InvalidParameterError, _SRDA_PARAM.format("alpha", "nan")),
    (dict(alpha="0.1"), InvalidParameterError, _SRDA_PARAM.format("alpha", r"'0\.1'")),
    (dict(solver="cholesky"), InvalidParameterError, _SRDA_PARAM.format("solver", "'cholesky'")),
    (dict(max_iter=0), InvalidParameterError, _SRDA_PARAM.format("max_iter", "0")),
    (dict(tol=-1e-3), InvalidParameterError, _SRDA_PARAM.format("tol", r"-0\.001")),
    (dict(column_scaling="norm"), InvalidParameterError, _SRDA_PARAM.format("column_scaling", "'norm'")),
    (dict(n_components=0), InvalidParameterError, _SRDA_PARAM.format("n_components", "0")),
    # depends on the data (the number of classes): SRDA's own message
    (dict(n_components=4), ValueError, r"n_components=4 but .* only c - 1 = 3 components"),
])
def test_bad_parameters_raise_clear_value_errors(params, error, match):
    X, y = _classes(c=4)
    with pytest.raises(error, match=match):
        SRDA(**params).fit(X, y)


def test_degenerate_input_follows_the_contract():
    X, y = _classes(c=3)
    with pytest.raises(ValueError, match="needs at least 2 classes in y, got 1"):
        SRDA().fit(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="requires y to be passed"):
        SRDA().fit(X, None)
    with pytest.raises(ValueError, match="all 300 samples of X are identical"):
        SRDA().fit(sparse.csr_array(np.ones((300, 4))), y)
    with pytest.raises(ValueError, match="would overflow float64"):
        SRDA().fit(sparse.csr_array(1e300 * np.eye(300, 4)), y)
    with pytest.raises(ValueError, match="would underflow float64"):
        SRDA().fit(sparse.csr_array(1e-200 * np.eye(300, 4)), y)
    same = np.vstack([X[:100]] * 3)
    with pytest.raises(ValueError, match="class means coincide"):
        SRDA().fit(same, np.repeat([0, 1, 2], 100))


def test_alpha_zero_needs_a_non_singular_system():
    X, y = _classes(n=40, d=120)
    with pytest.raises(ValueError, match="alpha=0 with the normal equations needs X~\\^T X~ non-singular"):
        SRDA(alpha=0.0, solver="normal").fit(X, y)
    X, y = _classes()
    with pytest.raises(ValueError, match="singular to working precision"):
        SRDA(alpha=0.0).fit(np.hstack([X, X[:, :1]]), y)      # a repeated feature
    # LSQR gives the minimum-norm least-squares solution: the repeated feature shares the weight
    A = SRDA(alpha=0.0, solver="lsqr", tol=1e-12, column_scaling="constraint").fit(np.hstack([X, X[:, :1]]), y)
    np.testing.assert_allclose(A.components_[:, 0], A.components_[:, -1], rtol=1e-6)


def test_projections_spanning_fewer_dimensions_than_columns_warn():
    X, y = _classes(d=2, c=5)          # 4 projections in 2 dimensions
    with pytest.warns(RankDeficiencyWarning, match="the 4 projections span only 2 dimensions"):
        est = SRDA().fit(X, y)
    assert est.components_.shape == (4, 2) and np.all(np.isfinite(est.transform(X)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SRDA(n_components=2).fit(X, y)


def test_lsqr_iteration_limit_warns():
    X, y = _classes()
    with pytest.warns(ConvergenceWarning, match="after 2 iterations.*reached max_iter"):
        est = SRDA(solver="lsqr", max_iter=2, tol=1e-14).fit(X, y)
    np.testing.assert_array_equal(est.n_iter_, [2, 2, 2])
