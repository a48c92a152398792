"""The estimators: conventions, nesting, determinism, agreement with scikit-learn, errors.

The general tests take their estimators from the method registry (:func:`registry_cases`): every
built-in method of ``registry.METHODS`` but scikit-learn's own, with its registry defaults, so that a
new method is tested with no edit here; :data:`VARIANTS` adds other options.  Which test applies is
read from the registry and the estimator's tags: nesting for an ``ordered`` method, ``transform_first``
for ``first_columns``, the linear map's properties for ``linear_map``.
"""

from pathlib import Path

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.decomposition import PCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.utils import get_tags

from locproj.engine import registry
from locproj.methods import (
    Fisherfaces,
    KernelLPP,
    LocalFisherDiscriminantAnalysis,
    LocalLearningProjection,
    LocallyEmbeddedAnalysis,
    LocalityPreservingProjection,
    LocalProjectionKernelSVC,
)
from locproj.methods.tags import projection_tags
from locproj.core.class_graphs import class_block_graph
from locproj.core.neighbor_graphs import heat_weights, kneighbors, laplacian, symmetrize
from locproj.core.reconstruction_weights import local_krr_weights
from locproj.core.solvers import solve_embedding

#: Classes tested in another file: LocalProjectionKernelSVC (lpk, gpk) is a binary classifier, which
#: the four classes of these tests' data cannot fit; tests/test_lpk.py tests its conventions (seeded
#: fits identical to the bit, errors, its transform) and runs scikit-learn's checks on it.
TESTED_ELSEWHERE = {LocalProjectionKernelSVC: "test_lpk.py"}


def registry_methods(methods=None) -> dict:
    """The built-in methods of ``methods`` (default ``registry.METHODS``, read at call time) whose
    estimator is not one of scikit-learn's own (raw, pca, sklearn_lle) nor tested elsewhere."""
    methods = registry.METHODS if methods is None else methods
    return {name: spec for name, spec in methods.items() if spec.source is None
            and not type(spec.make()).__module__.startswith("sklearn.") and type(spec.make()) not in TESTED_ELSEWHERE}


def registry_cases(methods=None, variants=()) -> list:
    """``(spec, estimator)``: each method of :func:`registry_methods` with its registry defaults, then
    each ``(method, options)`` of ``variants``, without repeats (``slle`` builds ``lle``'s estimator)."""
    specs = registry_methods(methods)
    cases = [(spec, spec.make()) for spec in specs.values()]
    cases += [(specs[method], specs[method].make(**options)) for method, options in variants]
    seen, kept = set(), []
    for spec, estimator in cases:
        if (type(estimator), repr(estimator)) not in seen:
            seen.add((type(estimator), repr(estimator)))
            kept.append((spec, estimator))
    return kept


# Other options than the registry's defaults: (registry method, options)
VARIANTS = [
    ("lpp", {"weight": "binary", "supervised": False}),
    ("llp", {"kernel": "rbf", "gamma": 0.05}),
    ("lea", {"mode": "d_to_1", "reg_mode": "auto"}),
    ("klpp", {"gamma": 0.05}),
]
CASES = registry_cases(variants=VARIANTS)
ALL = [estimator for _, estimator in CASES]
# the first p columns of one fit are the p-dimensional projection (every method but SRDA)
ORDERED = [estimator for spec, estimator in CASES if spec.ordered]
# transform(X) = (X - mean_) @ components_.T, declared in the estimator's tags
LINEAR = [estimator for estimator in ALL if projection_tags(estimator).linear_map]

# Cases a test's claim does not hold for, with the reason: expected to fail (strict, so that a fix shows)
def _faces_like(n_per_class=10, n_classes=4, d=50, seed=0):
    """Low-rank-plus-noise classes, d > n (the face-recognition regime)."""
    rng = np.random.default_rng(seed)
    basis = rng.standard_normal((8, d))
    centers = rng.standard_normal((n_classes, 8)) * 3
    y = np.repeat(np.arange(n_classes), n_per_class)
    X = (centers[y] + rng.standard_normal((len(y), 8))) @ basis + 0.3 * rng.standard_normal((len(y), d))
    return X, y


def _coefs(est, X):
    """What a fit computed, a column per component: a linear map's components (its tags declare
    it), a kernel method's dual coefficients, else the embedding of the training data ``X``."""
    if projection_tags(est).linear_map:
        return est.components_.T
    return est.dual_coef_ if isinstance(est, KernelLPP) else est.transform(X)


@pytest.mark.parametrize("est", ORDERED, ids=lambda e: repr(e))
def test_nested_columns(est):
    # SupervisedLLE's reg='auto' depends on n_components (sigma_i^2 beyond it, 004 §3.2), so its columns
    # are nested only where its eigenvalues are: here the 5-NN graph falls apart into the four clusters,
    # and its first three columns span the null space, in the basis the data decide
    X, y = _faces_like()
    full = clone(est).fit(X, y)
    part = clone(est).set_params(n_components=3).fit(X, y)
    k = min(3, full.n_components_)          # a default of fewer columns (SLLE's 2): its columns are the first ones
    # bitwise on some BLAS kernels, not on all (AMD EPYC's OpenBLAS differs in the last bits)
    np.testing.assert_allclose(_coefs(part, X)[:, :k], _coefs(full, X)[:, :k], rtol=0,
                               atol=1e-12 * np.abs(_coefs(full, X)).max())
    assert part.n_components_ == 3


@pytest.mark.parametrize("est", [e for e in ALL if projection_tags(e).first_columns], ids=lambda e: repr(e))
def test_transform_first_is_the_prefix_of_transform(est):
    X, y = _faces_like()
    fitted = clone(est).fit(X, y)
    np.testing.assert_allclose(fitted.transform_first(X, 2), fitted.transform(X)[:, :2], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("est", ALL, ids=lambda e: repr(e))
def test_identical_bits_for_identical_input(est):
    X, y = _faces_like()
    a, b = clone(est).fit(X, y), clone(est).fit(X.copy(), y.copy())
    assert np.array_equal(_coefs(a, X), _coefs(b, X))
    assert np.array_equal(a.transform(X), b.transform(X))


@pytest.mark.parametrize("est", LINEAR, ids=lambda e: repr(e))
def test_invariant_to_permuting_samples(est):
    X, y = _faces_like(seed=1)
    perm = np.random.default_rng(7).permutation(len(y))
    p = min(5, clone(est).fit(X, y).n_components_)      # Fisherfaces and SRDA: c - 1 = 3
    a = clone(est).set_params(n_components=p).fit(X, y)
    b = clone(est).set_params(n_components=a.n_components_).fit(X[perm], y[perm])
    cosines = np.einsum("ij,ij->i", a.components_, b.components_)  # unit columns
    np.testing.assert_allclose(np.abs(cosines), 1.0, atol=1e-6)


@pytest.mark.parametrize("est", LINEAR, ids=lambda e: repr(e))
def test_transform_is_centered_linear_projection(est):
    X, y = _faces_like()
    fitted = clone(est).fit(X, y)
    assert fitted.components_.shape == (fitted.n_components_, X.shape[1])
    np.testing.assert_allclose(np.linalg.norm(fitted.components_, axis=1), 1.0)
    np.testing.assert_allclose(fitted.transform(X), (X - fitted.mean_) @ fitted.components_.T)


def test_lpp_constraint_scaling_and_eigen_equation():
    X, y = _faces_like(n_per_class=15, d=20)
    lpp = LocalityPreservingProjection(n_components=4, column_scaling="constraint").fit(X, y)
    L, D = laplacian(symmetrize(heat_weights(kneighbors(X, 5, y))))
    F = lpp.transform(X)
    np.testing.assert_allclose(F.T @ (D @ F), np.eye(4), atol=1e-8)
    np.testing.assert_allclose(np.diag(F.T @ (L @ F)), lpp.eigenvalues_, atol=1e-10)


def test_lpp_factored_laplacian_gives_the_explicit_solution():
    X, y = _faces_like(n_per_class=8, d=60)                # d > n: the PCA-basis path
    lpp = LocalityPreservingProjection(n_components=6, n_neighbors=4, gamma=50.0).fit(X, y)
    L, D = laplacian(symmetrize(heat_weights(kneighbors(X, 4, y), 50.0)))
    explicit = solve_embedding(X, L, D, n_components=6)
    np.testing.assert_allclose(lpp.eigenvalues_, explicit.eigenvalues, rtol=1e-9, atol=1e-12)
    unit = explicit.components / np.linalg.norm(explicit.components, axis=0)
    np.testing.assert_allclose(lpp.components_.T, unit, atol=1e-8)


def test_llp_is_orthonormal_and_minimises_local_error():
    X, y = _faces_like()
    llp = LocalLearningProjection(n_components=5).fit(X, y)
    P = llp.components_.T
    np.testing.assert_allclose(P.T @ P, np.eye(5), atol=1e-10)
    A = local_krr_weights(X, kneighbors(X, 5, y), reg=1.0, center=llp.center)
    F = llp.transform(X)
    errors = np.sum((F - A @ F) ** 2, axis=0)  # local estimation error (000 eq. 25, 33)
    np.testing.assert_allclose(errors, llp.eigenvalues_, rtol=1e-8)


def test_lea_d_to_d_has_no_trivial_direction_and_paper_scaling():
    X, y = _faces_like()
    lea = LocallyEmbeddedAnalysis(column_scaling="constraint").fit(X, y)
    F = lea.transform(X)
    np.testing.assert_allclose(F.T @ F, len(X) * np.eye(lea.n_components_), atol=1e-6 * len(X))
    assert np.all(F.std(axis=0) > 1e-6)  # no column maps every sample to the same value
    assert lea.n_components_ == len(X) - 1  # nothing discarded: rank of the centred data


def test_lfda_puts_zero_within_class_scatter_directions_first():
    X, y = _faces_like()
    F = LocalFisherDiscriminantAnalysis(n_components=3).fit(X, y).transform(X)
    within = sum(F[y == c].var(axis=0) for c in np.unique(y))
    assert np.all(within < 1e-6 * F.var(axis=0))


def test_klpp_linear_kernel_spans_lpp_subspace():
    X, y = _faces_like()
    lpp = LocalityPreservingProjection(n_components=6, supervised=False).fit(X, y)
    klpp = KernelLPP(n_components=6, kernel="linear", supervised=False).fit(X, y)
    Fa, Fb = lpp.transform(X), klpp.transform(X)
    np.testing.assert_allclose(klpp.eigenvalues_, lpp.eigenvalues_, rtol=1e-6, atol=1e-10)
    np.testing.assert_allclose(np.abs(Fa), np.abs(Fb), atol=1e-6 * np.abs(Fa).max())


def test_fisherfaces_drops_the_last_c_minus_1_components_when_n_exceeds_d():
    X, y = _faces_like(n_per_class=30, d=12)  # n - c = 116 >= d = 12: rank(S_T) - (c - 1) = 9
    ours = Fisherfaces().fit(X, y)
    assert (ours.n_pca_, ours.n_components_) == (9, 3)
    pca = PCA(n_components=9).fit(X)
    ref = LinearDiscriminantAnalysis().fit(pca.transform(X), y)
    _assert_same_subspace(ours.components_.T, pca.components_.T @ ref.scalings_[:, :3])


def test_fisherfaces_matches_graph_lda_through_the_solver():
    X, y = _faces_like()  # d > n: PCA to n - c first
    ours = Fisherfaces().fit(X, y)
    n, c = len(y), 4
    assert ours.n_pca_ == n - c  # Belhumeur's N - c
    pca = PCA(n_components=n - c).fit(X)
    Z = pca.transform(X)
    # LDA as graph embedding: maximise between-class scatter subject to the total scatter
    emb = solve_embedding(Z, class_block_graph(y), n_components=c - 1, maximize=True)
    _assert_same_subspace(ours.components_.T, pca.components_.T @ emb.components)


def test_pca_registry_entry_is_sklearn_pca():
    X, y = _faces_like()
    est = registry.make_estimator("pca", n_components=4).fit(X)
    ref = PCA(n_components=4).fit(X)
    _assert_same_subspace(est.components_.T, ref.components_.T)


def _assert_same_subspace(A, B):
    Qa, Qb = np.linalg.qr(A)[0], np.linalg.qr(B)[0]
    cos = np.linalg.svd(Qa.T @ Qb, compute_uv=False)  # cosines of principal angles
    np.testing.assert_allclose(cos, 1.0, atol=1e-8)


@pytest.mark.parametrize("est", ALL, ids=lambda e: repr(e))
def test_too_many_components_is_a_clear_error(est):
    X, y = _faces_like()
    with pytest.raises(ValueError, match="n_components=100 but"):
        clone(est).set_params(n_components=100).fit(X, y)


@pytest.mark.parametrize("est", [LocalityPreservingProjection(n_neighbors=10), LocalLearningProjection(n_neighbors=12),
                                 LocallyEmbeddedAnalysis(n_neighbors=10), KernelLPP(n_neighbors=10)],
                         ids=lambda e: repr(e))
def test_n_neighbors_at_least_class_size_is_a_clear_error(est):
    X, y = _faces_like()
    with pytest.raises(ValueError, match=r"class 0 has only 10 samples; use n_neighbors <= 9"):
        est.fit(X, y)


@pytest.mark.parametrize("est", ALL, ids=lambda e: repr(e))
def test_single_class_and_nonfinite_are_clear_errors(est):
    X, y = _faces_like()
    if get_tags(est).target_tags.required:      # a supervised fit needs labels
        with pytest.raises(ValueError, match="at least 2 classes"):
            clone(est).fit(X, np.zeros_like(y))
    for bad in (np.nan, np.inf):
        Xb = X.copy()
        Xb[0, 0] = bad
        with pytest.raises(ValueError, match="NaN|infinity"):
            clone(est).fit(Xb, y)


def test_registry():
    X, y = _faces_like()
    for name, spec in registry.METHODS.items():
        # isometric projection refuses the disconnected unsupervised graph of these 4 separated clusters
        est = registry.make_estimator(name, **({"supervised": True} if name == "isop" else {}))
        Z = est.fit(X, y % 2 if name in ("lpk", "gpk") else y).transform(X)   # LPK is a binary classifier
        assert len(Z) == len(X)
        assert set(spec.params) <= set(est.get_params())
    assert registry.max_components("lda", 40, 4, 50) == 3
    assert registry.max_components("lda", 400, 40, 50) == 11  # PCA to d - (c - 1) = 11 first
    assert registry.max_components("lpp", 40, 4, 50) == 39
    assert registry.max_components("llp", 400, 4, 50) == 50
    with pytest.raises(ValueError, match="unknown method 'foo'"):
        registry.make_estimator("foo")
    with pytest.raises(ValueError, match="does not take"):
        registry.make_estimator("lpp", reg=1.0)


@pytest.mark.parametrize("name", sorted(registry.METHODS))
def test_a_registry_entry_takes_its_estimators_parameters(name):
    """A built-in method takes what its estimator's get_params() lists (and n_components), except
    the parameters its name fixes; one that projects nothing (``raw``) takes nothing."""
    spec = registry.METHODS[name]
    keys = set(spec.make().get_params())
    assert set(spec.params) <= keys and "n_components" not in spec.params
    if not spec.projects:
        assert spec.params == ()
        with pytest.raises(ValueError, match="does not take"):
            spec.make(n_components=2)
        return
    assert "n_components" in keys
    fixed = keys - set(spec.params) - {"n_components"}
    for key in fixed:   # a fixed parameter is refused, naming it
        with pytest.raises(ValueError, match=f"does not take \\['{key}'\\]"):
            spec.make(**{key: spec.make().get_params()[key]})
    for key, value in spec.make().get_params().items():   # every other one is passed through
        if key in spec.params or key == "n_components":
            assert spec.make(**{key: value}).get_params() == spec.make().get_params()


def test_the_names_fix_their_parameters():
    def params(name):
        return registry.make_estimator(name).get_params()

    assert params("pca")["svd_solver"] == "full"
    assert (params("sklearn_lle")["method"], params("sklearn_lle")["eigen_solver"]) == ("standard", "dense")
    assert params("lle")["alpha"] == 0.0 and params("gpk")["n_regions"] == 1
    # their solvers are deterministic, so they take no seed (train_test_curve hands one to a method
    # that takes random_state), as before the parameters came from get_params()
    for name in ("pca", "sklearn_lle"):
        assert params(name)["random_state"] is None and "random_state" not in registry.METHODS[name].params


def test_the_registry_derived_cases_are_complete():
    """ALL takes every built-in method of ``registry.METHODS`` from the registry, with its defaults:
    the set is not empty, and a method is in it unless its estimator is scikit-learn's own (raw,
    pca, sklearn_lle) or its class is tested in the file TESTED_ELSEWHERE names."""
    derived = registry_methods()
    assert derived and ALL and LINEAR and ORDERED
    cases = {(type(estimator), repr(estimator)) for estimator in ALL}
    for name, spec in registry.METHODS.items():
        if spec.source is not None:
            continue
        estimator = spec.make()
        if name in derived:
            assert (type(estimator), repr(estimator)) in cases, name
        elif type(estimator) in TESTED_ELSEWHERE:
            assert type(estimator).__name__ in (Path(__file__).parent / TESTED_ELSEWHERE[type(estimator)]).read_text()
        else:
            assert type(estimator).__module__.startswith("sklearn."), name


def test_every_estimator_of_locproj_methods_is_a_registry_method():
    import locproj.methods

    built = {type(registry.make_estimator(name)) for name in registry.METHODS}
    missing = sorted(name for name in locproj.methods.__all__ if getattr(locproj.methods, name) not in built)
    assert not missing, f"no entry of registry.METHODS builds {missing}"


def test_registry_pca_is_deterministic_for_few_components_of_a_large_matrix():
    """scikit-learn's default solver is randomised for 3 components of a 600 x 700 matrix."""
    X = np.random.default_rng(0).normal(size=(600, 700))
    first, second = (registry.make_estimator("pca", n_components=3).fit(X).components_ for _ in range(2))
    assert np.array_equal(first, second)
