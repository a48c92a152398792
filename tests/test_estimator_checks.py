"""scikit-learn's estimator checks for every estimator of locproj.methods.

The estimators come from the method registry (:func:`registry_estimators`): every built-in method of
``registry.METHODS`` whose estimator is not scikit-learn's own, with its registry defaults and, where
it declares neighbour counts (``spec.neighbours``), with a small neighbourhood as well, so that tiny
check data fit.  A new method is checked with no edit here; :data:`EXTRA` holds other options only.
"""

from pathlib import Path

from sklearn.utils.estimator_checks import parametrize_with_checks

from locproj.engine import registry
from locproj.engine.neighbor_counts import BETWEEN_CLASS_PAIRS
from locproj.methods import (
    Fisherfaces,
    IsometricProjection,
    KernelLPP,
    LocalFisherDiscriminantAnalysis,
    LocalitySensitiveDiscriminantAnalysis,
    LocalLearningProjection,
    LocallyEmbeddedAnalysis,
    LocalityPreservingProjection,
    LocalProjectionKernelSVC,
    MarginalFisherAnalysis,
    OrthogonalLPP,
    SpectralRegressionDiscriminantAnalysis,
    SupervisedLLE,
)
from locproj.methods.linear import LeadingPCA

#: The neighbour counts of the small-neighbourhood instances: classes of 3-5 samples fit.
SMALL_NEIGHBORHOOD = 2

#: Estimator classes whose registry methods get these checks in another file, and where.  Every
#: instance a registry method builds of them must be among that file's checked instances
#: (:func:`test_the_registry_derived_estimators_are_complete`).
CHECKED_ELSEWHERE = {
    # lpk and gpk: tests/test_lpk.py runs parametrize_with_checks on LocalProjectionKernelSVC() and
    # LocalProjectionKernelSVC(n_regions=1) (and two more), a binary classifier's checks, none expected to fail
    LocalProjectionKernelSVC: "test_lpk.py",
}


def ours(estimator) -> bool:
    """Not one of scikit-learn's own estimators (raw, pca, sklearn_lle), which scikit-learn checks."""
    return not type(estimator).__module__.startswith("sklearn.")


def registry_methods(methods=None) -> dict:
    """The built-in methods of ``methods`` (default ``registry.METHODS``, read at call time) whose
    estimator is ours: ``{name: MethodSpec}``."""
    methods = registry.METHODS if methods is None else methods
    return {name: spec for name, spec in methods.items() if spec.source is None and ours(spec.make())}


def neighborhood(spec, k: int) -> dict:
    """``{parameter: k}`` for each parameter that ``spec`` declares to count neighbours (a count of
    between-class pairs, MFA's ``n_penalty_pairs``, keeps its default)."""
    return {name: k for name, kind in spec.neighbors.items() if kind != BETWEEN_CLASS_PAIRS}


def unique(estimators) -> list:
    """``estimators`` without repeats (same class, same parameters), in order: ``lle`` and ``slle``
    build the same default estimator."""
    seen, kept = set(), []
    for estimator in estimators:
        key = (type(estimator), repr(estimator))
        if key not in seen:
            seen.add(key)
            kept.append(estimator)
    return kept


def registry_estimators(methods=None) -> list:
    """One instance per method of :func:`registry_methods` with its registry defaults, and one with
    :data:`SMALL_NEIGHBOURHOOD` where it declares neighbour counts; none checked elsewhere."""
    estimators = []
    for spec in registry_methods(methods).values():
        if type(spec.make()) in CHECKED_ELSEWHERE:
            continue
        estimators.append(spec.make())
        small = neighborhood(spec, SMALL_NEIGHBORHOOD)
        if small:
            estimators.append(spec.make(**small))
    return unique(estimators)


# Supervised kNN graphs need n_neighbors < the size of every class.  A few checks fit on data
# sets with classes of only 3-5 samples, so the default n_neighbors=5 cannot apply there and the
# estimator (correctly) raises its "n_neighbors=5 but class 0 has only 5 samples" error.
_SMALL_CLASSES = "supervised graph: the check's classes have <= 5 samples, n_neighbors=5 needs >= 6"
_DEFAULT_KNN_FAILURES = {
    "check_estimators_nan_inf": _SMALL_CLASSES,
    "check_fit2d_1feature": _SMALL_CLASSES,
    "check_n_features_in_after_fitting": _SMALL_CLASSES,
}
# SRDA's normal equations do not iterate: n_iter_ is None, as Ridge's for its direct solvers
_NO_ITERATIONS = {"check_transformer_n_iter": "n_iter_ is None for the normal equations (as Ridge's for its direct "
                                              "solvers); the check assumes an estimator with max_iter always iterates"}

# Other options than the registry's defaults and small neighbourhoods
EXTRA = [
    LocalityPreservingProjection(n_neighbors=2, supervised=False, weight="binary"),
    LocalLearningProjection(n_neighbors=2, kernel="rbf", supervised=False),
    LocallyEmbeddedAnalysis(n_neighbors=2, mode="d_to_1", reg_mode="auto"),
    KernelLPP(n_neighbors=2, kernel="poly", center_kernel=False, column_scaling="constraint"),
    LocalFisherDiscriminantAnalysis(n_neighbors=2, affinity="knn"),
    Fisherfaces(solver="eigen"),
    LeadingPCA(n_components=3),     # pca_first: at most 3 dimensions, fewer where the data have fewer
    # LLE / SLLE (paper 004): SLLE, intrinsic dimension by v, subset selection.  The subset variant
    # takes v = 0.5 for sigma_i^2: with k > d (the checks' 2-4 features) and v = 0.9 most m_i equal
    # d, sigma_i^2 is then rounding (often exactly 0), and samples with sigma_i^2 = 0 are never
    # drawn (§3.3), so fit would refuse p = 0.8 n with a ValueError.
    SupervisedLLE(n_neighbors=3, alpha=0.5),
    SupervisedLLE(n_components=0.9, n_neighbors=3),
    SupervisedLLE(n_neighbors=3, reg=1e-3, retained_variance=0.5, n_subset=0.8),
    # the rest of the graph-embedding family, and SRDA
    LocalitySensitiveDiscriminantAnalysis(n_neighbors=0, beta=0.5, column_scaling="constraint"),
    MarginalFisherAnalysis(n_neighbors=2, n_penalty_pairs=3),
    MarginalFisherAnalysis(n_neighbors=1, n_penalty_pairs=1, column_scaling="constraint"),
    OrthogonalLPP(n_neighbors=2, supervised=False, weight="binary"),
    IsometricProjection(supervised=True),
    IsometricProjection(n_neighbors=2, supervised=True),
    IsometricProjection(n_neighbors=2, supervised=True, column_scaling="constraint"),
    IsometricProjection(n_neighbors="all"),
    SpectralRegressionDiscriminantAnalysis(solver="lsqr"),
    SpectralRegressionDiscriminantAnalysis(alpha=0.0, solver="lsqr"),
    SpectralRegressionDiscriminantAnalysis(n_components=1, alpha=1.0, column_scaling="constraint"),
]

ESTIMATORS = unique(registry_estimators() + EXTRA)


def _expected_failures(estimator):
    if isinstance(estimator, SpectralRegressionDiscriminantAnalysis):
        return {} if estimator.solver == "lsqr" else _NO_ITERATIONS
    if getattr(estimator, "n_neighbors", None) != 5:
        return {}
    if isinstance(estimator, IsometricProjection):   # a small class is a complete graph, as in IsoP.m
        return {}
    supervised_knn = getattr(estimator, "supervised", False) or isinstance(estimator, MarginalFisherAnalysis)
    return _DEFAULT_KNN_FAILURES if supervised_knn else {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_the_registry_derived_estimators_are_complete():
    """Every built-in method of ``registry.METHODS`` is checked: its default estimator is in
    ESTIMATORS, or it is scikit-learn's own (raw, pca, sklearn_lle: scikit-learn checks them), or
    its class is checked in the file CHECKED_ELSEWHERE names, which holds that very instance."""
    methods = registry_methods()
    assert methods and registry_estimators()
    checked = {(type(estimator), repr(estimator)) for estimator in ESTIMATORS}
    for name, spec in registry.METHODS.items():
        if spec.source is not None:
            continue
        estimator = spec.make()
        if not ours(estimator):
            assert name not in methods
        elif type(estimator) in CHECKED_ELSEWHERE:
            text = (Path(__file__).parent / CHECKED_ELSEWHERE[type(estimator)]).read_text()
            assert f"{estimator!r}," in text and "parametrize_with_checks" in text, name
        else:
            assert (type(estimator), repr(estimator)) in checked, name
            small = neighborhood(spec, SMALL_NEIGHBORHOOD)
            assert not small or (type(estimator), repr(spec.make(**small))) in checked, name


def test_an_expected_failure_that_starts_to_pass_fails_the_run(pytestconfig):
    """The expected failures above are pytest xfails; pyproject.toml makes every xfail strict, so a
    check that starts to pass (a fix, or a changed check) shows as a failure, not as an XPASS."""
    assert pytestconfig.getini("xfail_strict") is True
