"""The degenerate-input contract (docs/methods.md, "Degenerate input").

Every estimator is run through constant data, rank-deficient data, duplicate rows, one class, a
class of one sample, values near the float64 limit, other dtypes and memory layouts, and fewer
samples than neighbours.  Each case must give a correct, documented result (possibly with a
warning that says how many components were kept and why) or a ``ValueError`` naming the cause
and the fix.  Throughout: nothing reaches file descriptor 2 (BLAS/LAPACK print there), no bare
``LinAlgError`` escapes, numpy raises no ``RuntimeWarning`` and no output holds a NaN.

The estimators come from the method registry (:func:`registry_factories`): every built-in method of
``registry.METHODS`` but scikit-learn's own, under its registry name, with its registry defaults and
the test's small neighbourhood set through its declaration (``spec.neighbours``), so that a new
method meets the contract with no edit here.  :data:`VARIANTS` adds other options.  The categories
that decide what a test expects of a method (a supervised kNN graph, a classifier, c - 1 components,
...) follow from its registry entry and its class; a method in none of them meets each test's
general case, a correct fit without a warning.

``lpk`` and ``gpk`` (``LocalProjectionKernelSVC``, paper 002) are binary classifiers: they get
the labels merged into two (:func:`labels`), and their ``decision_function``, ``predict``,
staged decisions and ``history_`` are checked as well.  Where a case is inherently different
for them (rank, number of classes, far-out new data) the test says so, as for SRDA (``c - 1``
components), LSDA (a graph of all points), MFA (no ``supervised=False``; a penalty graph needs
spread) and isometric projection (a class or data set of at most ``n_neighbors + 1`` points is a
complete graph, as in the authors' IsoP.m; its own section).
"""

from __future__ import annotations

import functools
import re
import warnings

import numpy as np
import pytest

from locproj.engine import registry
from locproj.engine.neighbor_counts import ALL_POINTS, BETWEEN_CLASS_PAIRS, WITHIN_CLASS
from locproj.methods import IsometricProjection, KernelLPP
from locproj.methods._base import GraphEmbeddingTransformer, RankDeficiencyWarning
from locproj.methods._lpk_model import gating

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


def registry_methods(methods=None) -> dict:
    """The built-in methods of ``methods`` (default ``registry.METHODS``, read at call time) whose
    estimator is not one of scikit-learn's own (raw, pca, sklearn_lle, not checked here)."""
    methods = registry.METHODS if methods is None else methods
    return {name: spec for name, spec in methods.items()
            if spec.source is None and not type(spec.make()).__module__.startswith("sklearn.")}


def build(spec, n_neighbors: int, options=None):
    """``spec``'s estimator with its registry defaults, ``n_neighbors`` for every parameter it
    declares to count neighbours (``spec.neighbours``; a count of between-class pairs keeps its
    default), a seed where it takes ``random_state``, and ``options`` on top."""
    counts = {name: n_neighbors for name, kind in spec.neighbors.items() if kind != BETWEEN_CLASS_PAIRS}
    seed = {"random_state": 0} if "random_state" in spec.params else {}
    return spec.make(**{**counts, **seed, **(options or {})})


def registry_factories(methods=None) -> dict:
    """name -> factory(n_neighbors) for every method of :func:`registry_methods`, without repeats (a
    method whose estimator equals an earlier one's: ``slle`` builds ``lle``'s by default)."""
    factories, seen = {}, set()
    for name, spec in registry_methods(methods).items():
        example = build(spec, 2)
        key = (type(example), repr(example))
        if key not in seen:
            seen.add(key)
            factories[name] = functools.partial(build, spec)
    return factories


# Other options than the registry's defaults: name -> (registry method, options)
VARIANTS = {
    "lpp_unsupervised": ("lpp", {"supervised": False}),
    "lea_d_to_1": ("lea", {"mode": "d_to_1", "reg_mode": "auto"}),
    "slle_alpha_half": ("slle", {"n_components": 1, "alpha": 0.5}),
    # LSDA's kNN graph is over all points (labels ignored), then split by class; 0 links all pairs
    "lsda_all_pairs": ("lsda", {"n_neighbors": 0}),
    # one marginal pair per class: X L^p X^T is singular, the solver's ridge path
    "mfa_one_pair": ("mfa", {"n_penalty_pairs": 1}),
    "olpp_unsupervised": ("olpp", {"supervised": False}),
    # pairs without a path (other classes, other components) get the far distance; small classes
    # (or data sets) are complete graphs
    "isop_supervised": ("isop", {"supervised": True}),
    "srda_lsqr": ("srda", {"solver": "lsqr", "tol": 1e-12}),
}

# name -> (registry entry, options on top of its defaults): every method of the registry (lpk and gpk
# are binary classifiers without neighbours, seeded; fisherfaces is lda, isometric projection is
# unsupervised by default), then the variants
DECLARED = {
    **{name: (factory.args[0], {}) for name, factory in registry_factories().items()},
    **{name: (registry.METHODS[method], options) for name, (method, options) in VARIANTS.items()},
}
# name -> factory(n_neighbors); small neighbourhoods so that classes of 3-4 samples fit
FACTORIES = {name: functools.partial(build, spec, options=options) for name, (spec, options) in DECLARED.items()}
NAMES = list(FACTORIES)

# The categories follow from what each method's registry entry declares (with its options) and from
# its class, so that a new method falls into them with no edit here; a method in none of them meets
# the contract's general case (a correct fit, no warning) wherever a test's branches name no category.
# Where a method departs from its declaration, it is named below.

# a group of at most n_neighbors + 1 points is a complete graph (IsoP.m): any class size, any k
COMPLETE_WHEN_SMALL = [name for name in NAMES if isinstance(FACTORIES[name](2), IsometricProjection)]
# what a fit counts n_neighbors among, where its declaration says otherwise (None: no count it refuses):
# SLLE with 0 < alpha < 1 takes neighbours among all points (other classes at a distance); LFDA caps its
# local scaling at the class's size; LSDA's 0 links every pair; isometric projection, complete when small
COUNTED_OTHERWISE = {"slle_alpha_half": ALL_POINTS, "lfda": None, "lsda_all_pairs": None,
                     **dict.fromkeys(COMPLETE_WHEN_SMALL)}
# SLLE with one class is plain LLE, with a warning (test_one_class_unsupervised_and_slle), not refused
ONE_CLASS_ACCEPTED = ["slle_alpha_half"]


def neighbor_count(name: str) -> str | None:
    """What the fit of ``name`` counts its ``n_neighbors`` among: its registry declaration, its
    ``supervised`` option deciding a conditional one, unless :data:`COUNTED_OTHERWISE` says otherwise."""
    if name in COUNTED_OTHERWISE:
        return COUNTED_OTHERWISE[name]
    spec, options = DECLARED[name]
    return spec.neighbor_rule(options).kind("n_neighbors")


def uses_labels(name: str) -> bool:
    """Whether the fit of ``name`` uses the labels: its ``supervised`` parameter, else its registry entry's."""
    spec, options = DECLARED[name]
    return {**spec.defaults, **options}.get("supervised", spec.supervised)


# linear projections whose components come from the solver's PCA space (rank of the centred data);
# OLPP's sequential solve uses the same PCA basis and the same checks
SOLVER_LINEAR = [name for name in NAMES if isinstance(FACTORIES[name](2), GraphEmbeddingTransformer)]
# supervised kNN graphs: every class needs more than n_neighbors samples
SUPERVISED_KNN = [name for name in NAMES if neighbor_count(name) == WITHIN_CLASS]
# ... of which those without supervised=False to suggest (MFA: its intrinsic graph is within-class by definition)
ALWAYS_SUPERVISED_KNN = [name for name in SUPERVISED_KNN if "supervised" not in DECLARED[name][0].params]
# unsupervised kNN graphs (LSDA's of all points, labels ignored; LLE's): more than n_neighbors samples
UNSUPERVISED_KNN = [name for name in NAMES if neighbor_count(name) == ALL_POINTS]
# c - 1 components from the class means, not the rank of the data: the registry's bound on 3 classes in 1 dimension
CLASS_BOUND = [name for name in NAMES if DECLARED[name][0].max_components(100, 3, 1) == 2]
BINARY = [name for name in NAMES if DECLARED[name][0].classifier]
SUPERVISED = [name for name in NAMES if uses_labels(name) and name not in ONE_CLASS_ACCEPTED]


def make(name: str, n_neighbors: int = 2, **params):
    estimator = FACTORIES[name](n_neighbors)
    return estimator.set_params(**params) if params else estimator


def data(n_per_class=4, n_classes=3, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_per_class * n_classes, d)) + np.repeat(3.0 * np.eye(n_classes, d), n_per_class, axis=0)
    return X, np.repeat(np.arange(n_classes), n_per_class)


def labels(name: str, y: np.ndarray) -> np.ndarray:
    """``y`` as ``name`` takes it: binary classifiers get class 0 against the rest (paper 002
    merges multi-class data sets into two the same way); the others keep every class."""
    return np.where(y == 0, 0, 1) if name in BINARY else y


@pytest.fixture(autouse=True)
def _clean_stderr(capfd):
    """No BLAS/LAPACK message (written to file descriptor 2) during the test."""
    yield
    err = capfd.readouterr().err
    assert err == "", f"something was written to stderr: {err!r}"


def fit_transform(estimator, X, y):
    """``fit`` then ``transform``: the output must be finite; a failure must be a ValueError.

    Classifiers: ``decision_function``, ``predict`` and every stage as well."""
    try:
        Z = estimator.fit(X, y).transform(X)
        if hasattr(estimator, "decision_function"):
            check_classifier_outputs(estimator, X)
    except np.linalg.LinAlgError as error:  # pragma: no cover - the contract forbids it
        pytest.fail(f"bare LinAlgError escaped: {error}")
    assert not np.isnan(Z).any()
    assert np.all(np.isfinite(Z))
    return Z


def check_classifier_outputs(estimator, X):
    """No NaN in the decisions, the predictions, the staged decisions or ``history_``.

    ``history_``'s step columns hold NaN by definition where no step led to an iteration (the
    first row; the gating step of one region) and nowhere else."""
    assert np.all(np.isfinite(estimator.decision_function(X)))
    assert np.isin(estimator.predict(X), estimator.classes_).all()
    assert all(np.all(np.isfinite(f)) for f in estimator.staged_decision_function(X))
    history = estimator.history_
    for key in ("objective", "train_accuracy", "n_support", "n_svm_solves"):
        assert np.all(np.isfinite(history[key])), key
    assert np.all(np.isfinite(history["step_projections"][1:]))
    assert np.all(np.isfinite(history["step_gating"][1:])) or estimator.n_regions == 1


def no_warnings_fit(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fit_transform(estimator, X, y)


# --------------------------------------------------------------------------- constant data


@pytest.mark.parametrize("name", NAMES)
def test_constant_data_is_refused(name):
    X, y = data()
    with pytest.raises(ValueError, match="all 12 samples of X are identical.*pass at least two distinct"):
        fit_transform(make(name), np.full_like(X, 3.25), labels(name, y))


# --------------------------------------------------------------------------- rank-deficient data


def _rank_one():
    X, y = data()
    rng = np.random.default_rng(1)
    return np.outer(X[:, 0], rng.normal(size=5)) + rng.normal(size=5), y


@pytest.mark.parametrize("name", SOLVER_LINEAR)
def test_rank_deficient_data_keep_rank_components_with_a_warning(name):
    X, y = _rank_one()
    with pytest.warns(RankDeficiencyWarning,
                      match=r"kept 1 component of .* = 5: the centred training data have rank 1"):
        Z = fit_transform(make(name), X, y)
    assert Z.shape == (12, 1)
    # asked for no more than the rank: no warning
    assert no_warnings_fit(make(name, n_components=1), X, y).shape == (12, 1)


def test_fisherfaces_rank_below_c_minus_1_warns():
    X, y = _rank_one()
    with pytest.warns(RankDeficiencyWarning, match=r"kept 1 of c - 1 = 2 components: .* rank 1"):
        assert fit_transform(make("lda"), X, y).shape == (12, 1)


@pytest.mark.parametrize("name", SOLVER_LINEAR + ["lda"])
def test_n_components_above_the_rank_is_refused(name):
    X, y = _rank_one()
    with pytest.raises(ValueError, match=r"n_components=3 but .*only 1 components.*available.*smaller"):
        fit_transform(make(name, n_components=3), X, y)


@pytest.mark.parametrize("name", CLASS_BOUND)
def test_srda_rank_below_c_minus_1_warns(name):
    # Inherently different: SRDA always has c - 1 components (one ridge regression per class
    # response), not the rank; on rank-one data its 2 columns span 1 dimension, which it says
    X, y = _rank_one()
    with pytest.warns(RankDeficiencyWarning, match=r"the 2 projections span only 1 dimension .*linearly dependent"):
        Z = fit_transform(make(name), X, y)
    assert Z.shape == (12, 2) and np.linalg.matrix_rank(Z) == 1
    assert no_warnings_fit(make(name, n_components=1), X, y).shape == (12, 1)
    with pytest.raises(ValueError, match=r"n_components=3 but .* only c - 1 = 2 components \(3 classes\); "
                       r"use n_components=None or a smaller value"):
        fit_transform(make(name, n_components=3), X, y)


@pytest.mark.parametrize("name", ["klpp", "slle_alpha_half"])
def test_nonlinear_methods_are_not_bounded_by_the_linear_rank(name):
    X, y = _rank_one()
    assert no_warnings_fit(make(name, n_components=3), X, y).shape == (12, 3)


@pytest.mark.parametrize("name", BINARY)
def test_lpk_n_components_above_the_rank_warns(name):
    # Inherently different: W_m is free (not a basis of the data's span), so r above the rank is
    # a valid fit; transform's r columns per region are then linearly dependent.  LPK projects x
    # itself (no centring): the affine rank-one data have rank 2.
    X, y = _rank_one()
    y, p = labels(name, y), make(name).n_regions
    with pytest.warns(RankDeficiencyWarning, match=r"n_components=3 but the training data X have "
                      r"rank 2.*linearly dependent.*n_components <= 2"):
        Z = fit_transform(make(name, n_components=3), X, y)
    assert Z.shape == (12, 3 * p) and np.linalg.matrix_rank(Z[:, :3]) <= 2
    # up to the rank: no warning
    assert no_warnings_fit(make(name, n_components=2), X, y).shape == (12, 2 * p)
    assert no_warnings_fit(make(name, n_components=1), X, y).shape == (12, p)


@pytest.mark.parametrize("name", BINARY)
def test_lpk_n_components_above_n_features_is_refused(name):
    X, y = data()
    with pytest.raises(ValueError, match=r"n_components must be an integer in \[1, 5\].*got 6.*only 5 "
                       r"components are available; use n_components <= 5"):
        fit_transform(make(name, n_components=6), X, labels(name, y))


@pytest.mark.parametrize("B", [None, "identity"])
def test_solver_zero_rank_prints_nothing(B):
    # the solver itself on rank-0 data (bypassing the estimators' check): no BLAS message
    from scipy import sparse

    from locproj.core.solvers import solve_embedding

    I6 = sparse.eye_array(6, format="csr")
    emb = solve_embedding(np.ones((6, 3)), I6, None if B is None else I6)
    assert emb.rank == 0 and emb.components.shape == (3, 0)


@pytest.mark.parametrize("center_kernel", [True, False])
def test_kernel_lpp_with_a_numerically_zero_kernel_is_refused(center_kernel):
    # gamma so small that exp(-gamma ||x - z||^2) == 1: the centred kernel matrix is 0
    X, y = data()
    est = KernelLPP(n_neighbors=2, gamma=1e-300, center_kernel=center_kernel)
    if center_kernel:
        with pytest.raises(ValueError, match="kernel matrix is numerically zero.*rescale X or choose"):
            fit_transform(est, X, y)
    else:  # the constant kernel has rank 1: the trivial direction (all points mapped to one value)
        assert fit_transform(est, X, y).shape == (12, 1)


# --------------------------------------------------------------------------- duplicate rows


@pytest.mark.parametrize("name", NAMES)
def test_duplicate_rows_within_classes(name):
    X, y = data(n_per_class=2)
    # every row three times, k = 2: all neighbours coincide
    X, y = np.repeat(X, 3, axis=0), np.repeat(labels(name, y), 3)
    Z = no_warnings_fit(make(name), X, y)
    np.testing.assert_allclose(Z[0::3], Z[1::3], atol=1e-9 * np.abs(Z).max())


# MFA's refusal when every marginal pair joins coincident points (class_graphs.check_penalty_spread)
_NO_PENALTY_SPREAD = (r"every marginal pair \(2: the n_penalty_pairs=1 shortest .*two identical .*samples with "
                      r"different labels.*no spread.*raise n_penalty_pairs.*or remove the samples")


@pytest.mark.parametrize("name", NAMES)
def test_duplicate_rows_across_classes(name):
    X, y = data()
    X[4], X[8] = X[0], X[0]  # one point in all three classes (binary: the same x with both labels)
    X[5] = X[1]
    if name == "mfa_one_pair":  # each class's one marginal pair is x_0 under two labels: no penalty
        # spread; the same one rounding unit apart (X L^p X^T is then rounding noise)
        for off in (0.0, 2e-16):
            X[4], X[8], X[5] = X[0] * (1 + off), X[0] * (1 - off), X[1] * (1 + off)
            with pytest.raises(ValueError, match=_NO_PENALTY_SPREAD):
                fit_transform(make(name), X, y)
    else:
        no_warnings_fit(make(name), X, labels(name, y))


def test_mfa_penalty_cholesky_failure_is_explained(monkeypatch):
    # the backstop behind the spread check: a Cholesky failure of the reduced X L^p X^T (whose
    # rounding noise can beat the solver's ridge when the pairs are nearly coincident) names the
    # penalty graph; the solver's own message would suggest removing duplicates or n_neighbors.
    # Whether LAPACK fails on a given near-duplicate depends on rounding, so the failure is forced.
    import locproj.core.solvers

    def failing_cholesky(M, N, select):
        raise np.linalg.LinAlgError("LAPACK dpotrf failed (info=2).")

    monkeypatch.setattr(locproj.core.solvers, "eigh_selected", failing_cholesky)
    X, y = data()
    with pytest.raises(ValueError, match=r"MarginalFisherAnalysis: the penalty scatter X L\^p X\^T is singular "
                       r"beyond the solver's ridge \(LAPACK dpotrf failed.*raise n_penalty_pairs"):
        fit_transform(make("mfa"), X, y)


@pytest.mark.parametrize("name", NAMES)
def test_identical_classes(name):
    X, _ = data(n_per_class=6, n_classes=1)
    X, y = np.vstack([X, X]), np.repeat([0, 1], 6)
    if name == "lda" or name in CLASS_BOUND:  # LDA's between-class scatter is 0
        with pytest.raises(ValueError, match="class means coincide.*check the labels"):
            fit_transform(make(name), X, y)
    elif name == "mfa_one_pair":  # each class's shortest between-class pair is one point under two labels
        with pytest.raises(ValueError, match=_NO_PENALTY_SPREAD.replace("(2:", "(1:")):
            fit_transform(make(name), X, y)
    elif name in BINARY:  # a valid SVM that cannot separate: every x is right for one label of two
        estimator = make(name)
        no_warnings_fit(estimator, X, y)
        assert estimator.score(X, y) == 0.5
    else:
        no_warnings_fit(make(name), X, y)


# --------------------------------------------------------------------------- classes


@pytest.mark.parametrize("name", SUPERVISED)
def test_one_class_is_refused(name):
    X, _ = data()
    has_switch = "supervised" in DECLARED[name][0].params
    fix = "or set supervised=False" if has_switch else r"two classes\.$"
    with pytest.raises(ValueError, match=f"needs at least 2 classes in y, got 1 \\(class 0\\).*{fix}"):
        fit_transform(make(name), X, np.zeros(len(X), dtype=int))


@pytest.mark.parametrize("name", BINARY)
def test_more_than_two_classes_is_refused(name):
    # binary classifiers only: every other estimator takes any number of classes
    X, y = data()
    with pytest.raises(ValueError, match=r"Only binary classification is supported.*3 classes.*"
                       r"merge them into two.*OneVsRestClassifier"):
        fit_transform(make(name), X, y)


def test_one_class_unsupervised_and_slle():
    X, _ = data()
    y = np.zeros(len(X), dtype=int)
    no_warnings_fit(make("lpp_unsupervised"), X, y)
    with pytest.warns(UserWarning, match="single class.*plain LLE"):
        fit_transform(make("slle_alpha_half"), X, y)


@pytest.mark.parametrize("name", NAMES)
def test_class_of_one_sample(name):
    X, y = data()
    y = np.zeros_like(y) if name in BINARY else y.copy()  # binary: class 0 against class 7
    y[-1] = 7  # class 7 has one sample
    if name in ALWAYS_SUPERVISED_KNN:  # MFA has no unsupervised graph to suggest
        with pytest.raises(ValueError, match=r"class 7 has only 1 sample.*neighbour of its own class.*"
                           r"remove that class's samples or add samples to it\.$"):
            fit_transform(make(name), X, y)
    elif name in SUPERVISED_KNN:
        with pytest.raises(ValueError,
                           match=r"class 7 has only 1 sample.*neighbour of its own class.*supervised=False"):
            fit_transform(make(name), X, y)
    elif name == "lda":  # 4 classes in 5 dimensions: PCA keeps rank - (c - 1) = 2
        with pytest.warns(RankDeficiencyWarning, match="kept 2 of c - 1 = 3 components"):
            fit_transform(make(name), X, y)
    elif name in BINARY:  # the dual's sum_i alpha_i y_i = 0: the lone sample is a support vector
        estimator = make(name)
        no_warnings_fit(estimator, X, y)
        assert estimator.n_support_[1] == 1 and 11 in estimator.support_
    else:  # LFDA's local scaling accepts it; unsupervised methods ignore y; LSDA's graph is over
        # all points (the lone sample has neighbours, of other classes); SRDA: one more response;
        # isometric projection: a class of one point, far from the others
        no_warnings_fit(make(name), X, y)


# --------------------------------------------------------------------------- magnitude


@pytest.mark.parametrize("name", NAMES)
def test_values_near_the_float64_limit_are_refused(name):
    X, y = data()
    with pytest.raises(ValueError, match=r"entries up to .*e\+300.*overflow float64.*rescale X"):
        fit_transform(make(name), X * 1e300, labels(name, y))


@pytest.mark.parametrize("name", NAMES)
def test_tiny_differences_are_refused(name):
    X, y = data()
    with pytest.raises(ValueError, match=r"differ by at most .*e-1[56]\d.*underflow float64.*rescale X"):
        fit_transform(make(name), X * 1e-150, labels(name, y))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scale", [0.5, 1e-130])
def test_values_just_inside_the_limits_fit(name, scale):
    X, y = data()
    y = labels(name, y)
    n, d = X.shape
    if scale == 0.5:  # half the largest accepted magnitude
        scale *= np.sqrt(np.finfo(np.float64).max) / (2.0 * n * d) / np.abs(X).max()
    if name == "klpp" and scale < 1:  # the RBF kernel (gamma = 1 / d) is 1 everywhere: not scale-free
        with pytest.raises(ValueError, match="kernel matrix is numerically zero"):
            fit_transform(make(name), X * scale, y)
    elif name in COMPLETE_WHEN_SMALL and scale > 1:   # 1000 times the largest distance: a limit 1000 times lower
        with pytest.raises(ValueError, match=r"IsometricProjection: X has entries up to .*far distances .*1000 "
                           r"times.*overflow float64 \(limit .*\); rescale X first"):
            fit_transform(make(name), X * scale, y)
        fit_transform(make(name), X * scale / 1000, y)
    else:
        fit_transform(make(name), X * scale, y)


@pytest.mark.parametrize("name", ["lpp", "lea", "lfda", "lda", "gpk", "lsda", "lsda_all_pairs", "mfa",
                                  "olpp", "isop_supervised", "isop"])
def test_large_values_below_the_limit_scale(name):
    # scale-invariant methods: 2^300 X (exact scaling) gives the same unit-length components
    X, y = data()
    y = labels(name, y)
    a = make(name).fit(X, y)
    b = make(name).fit(X * 2.0**300, y)
    if name == "gpk":  # W starts scaled to the data and every step scales with it: W / 2^300,
        # the same decisions and projections to the bit.  LPK's gating is not scale-free (its
        # bias v_m0 and weights v_m share one step), so p > 1 only fits (test above).
        np.testing.assert_array_equal(b.projections_ * 2.0**300, a.projections_)
        np.testing.assert_array_equal(b.decision_function(X * 2.0**300), a.decision_function(X))
        np.testing.assert_array_equal(b.transform(X * 2.0**300), a.transform(X))
        return
    assert np.all(np.isfinite(b.components_))
    np.testing.assert_allclose(b.components_, a.components_, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf"])
@pytest.mark.parametrize("name", BINARY)
def test_lpk_new_data_near_the_float64_limit(name, kernel):
    # Only a classifier predicts: new data far beyond the (accepted) training data.  A finite
    # result where float64 holds it, else a ValueError naming the overflow -- never inf or NaN.
    X, y = data()
    estimator = make(name, kernel=kernel).fit(X, labels(name, y))
    far = X * 1e300
    if kernel == "poly":  # (<z, z'> + 1)^2 of order 1e600
        with pytest.raises(ValueError, match=r"decision_function: X has entries up to .*e\+300.*"
                           r"kernel='poly'.*overflow float64; rescale X"):
            estimator.predict(far)
    else:
        f = estimator.decision_function(far)
        assert np.all(np.isfinite(f)) and np.all(np.isfinite(estimator.transform(far)))
        if kernel == "rbf":  # the Gaussian of a distance of order 1e300 is 0: f = b
            np.testing.assert_array_equal(f, estimator.intercept_[0])
    # at the float64 limit itself: every output finite, or that ValueError
    edge = X / np.abs(X).max() * np.finfo(np.float64).max
    for method in ("transform", "decision_function", "predict", "gating_function"):
        try:
            out = getattr(estimator, method)(edge)
        except ValueError as error:
            assert re.search(rf"{method if method != 'predict' else 'decision_function'}: X has "
                             r"entries up to 1.8e\+308.*overflow float64; rescale X", str(error))
        else:
            assert np.isin(out, estimator.classes_).all() if method == "predict" else np.isfinite(out).all()
    # the softmax gating of logits that overflow: the largest region takes all, no NaN
    eta = gating(np.array([[1e308, -1e308], [-1e308, 1e308]]), np.array([[0.0, 10.0, 0.0], [0.0, 0.0, 10.0]]))
    np.testing.assert_array_equal(eta, [[1.0, 0.0], [0.0, 1.0]])


# --------------------------------------------------------------------------- dtypes and layouts


def _layouts():
    X, y = data()
    Xi = np.round(4 * X).astype(np.int64)
    X32 = X.astype(np.float32)
    wide = np.empty((len(X), 2 * X.shape[1]))
    wide[:, ::2] = X
    return {
        "int64": (Xi, Xi.astype(np.float64)),
        "float32": (X32, X32.astype(np.float64)),
        "fortran": (np.asfortranarray(X), X),
        "strided": (wide[:, ::2], X),
        "reversed": (X[::-1][::-1], X),
    }, y


@pytest.mark.parametrize("layout", ["int64", "float32", "fortran", "strided", "reversed"])
@pytest.mark.parametrize("name", NAMES)
def test_dtype_and_layout_give_the_float64_result(name, layout):
    cases, y = _layouts()
    y = labels(name, y)
    X_in, X_ref = cases[layout]
    assert not (layout in ("fortran", "strided") and X_in.flags.c_contiguous)
    ref = no_warnings_fit(make(name), X_ref, y)
    got = no_warnings_fit(make(name), X_in, y)
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12 * np.abs(ref).max())
    # transform accepts the other layouts too
    est = make(name).fit(X_ref, y)
    np.testing.assert_allclose(est.transform(X_in), est.transform(X_ref), rtol=1e-10,
                               atol=1e-12 * np.abs(ref).max())
    if name in BINARY:  # and so do the classifier's decisions (converted to C-ordered float64)
        np.testing.assert_array_equal(est.decision_function(X_in), est.decision_function(X_ref))
        np.testing.assert_array_equal(make(name).fit(X_in, y).decision_function(X_ref),
                                      est.decision_function(X_ref))


# --------------------------------------------------------------------------- few samples


@pytest.mark.parametrize("name", NAMES)
def test_fewer_samples_than_neighbors(name):
    X, y = data(n_per_class=3, n_classes=2)  # 6 samples, classes of 3
    if name in UNSUPERVISED_KNN:
        with pytest.raises(ValueError, match=r"n_neighbors=6 but .*6 .*samples.*use n_neighbors <= 5"):
            fit_transform(make(name, n_neighbors=6), X, y)
    elif name in SUPERVISED_KNN:
        with pytest.raises(ValueError, match=r"n_neighbors=6 but class 0 has only 3 samples; use n_neighbors <= 2"):
            fit_transform(make(name, n_neighbors=6), X, y)
    else:  # LFDA caps its local scaling at the class size; isometric projection links every pair of a
        # small class (or data set); Fisherfaces, SRDA, LPK and LSDA with all pairs have no neighbours
        no_warnings_fit(make(name, n_neighbors=6), X, y)
    if name == "lsda":  # LSDA's graph is over all points: classes smaller than n_neighbors + 1 fit
        assert no_warnings_fit(make(name, n_neighbors=5), X, y).shape == (6, 5)


@pytest.mark.parametrize("name", NAMES)
def test_two_samples(name):
    X, y = data(n_per_class=1, n_classes=2)
    if name == "lfda":
        assert no_warnings_fit(make(name, n_neighbors=1), X, y).shape == (2, 1)
    elif name == "lda":
        with pytest.raises(ValueError, match="more samples than classes.*add samples"):
            fit_transform(make(name, n_neighbors=1), X, y)
    elif name in SUPERVISED_KNN:
        with pytest.raises(ValueError, match="class 0 has only 1 sample"):
            fit_transform(make(name, n_neighbors=1), X, y)
    elif name == "isop_supervised":   # every class a point: the far distance, 1000 x the largest within-class one, is 0
        with pytest.raises(ValueError, match=r"the samples of every class coincide.*far distance.*is 0.*pass classes "
                           r"with at least two distinct samples, or use supervised=False"):
            fit_transform(make(name, n_neighbors=1), X, y)
    elif name == "lle":   # its default n_components=2: an embedding of 2 samples has 1 (SLLE below asks for 1)
        with pytest.raises(ValueError, match=r"n_components=2 but only 1 components are available \(an embedding of "
                           r"2 samples without its constant eigenvector\); use a smaller n_components"):
            fit_transform(make(name, n_neighbors=1), X, y)
        assert no_warnings_fit(make(name, n_neighbors=1, n_components=1), X, y).shape == (2, 1)
    else:  # one neighbour each; SLLE: 1 component from 2 samples; LPK: both are support vectors;
        # LSDA (graph over all points): the pair is a between-class edge; SRDA: c - 1 = 1 component
        assert no_warnings_fit(make(name, n_neighbors=1), X, y).shape[0] == 2


@pytest.mark.parametrize("name", NAMES)
def test_one_sample_is_refused(name):
    X, y = data()
    with pytest.raises(ValueError, match=r"Found array with 1 sample\(s\).*a minimum of 2 is required"):
        fit_transform(make(name), X[:1], y[:1])


# --------------------------------------------------------------------------- isometric projection


def test_isop_disconnected_graphs_and_duplicates_fit():
    """Where IsoP.m has infinite geodesics -- between the components of a kNN graph, inside a class
    whose kNN graph falls apart -- the far distance; duplicated points are joined at distance 0.
    Only directions with a positive eigenvalue are kept, so duplicates may leave fewer than the rank."""
    X, y = data()
    assert no_warnings_fit(IsometricProjection(n_neighbors=2), X, None).shape == (12, 5)
    copies = np.repeat(data(n_per_class=2)[0], 3, axis=0)   # every row three times: 6 groups of copies
    assert no_warnings_fit(IsometricProjection(n_neighbors=2), copies, None).shape[0] == 18
    supervised = IsometricProjection(n_neighbors=1, supervised=True)
    assert no_warnings_fit(supervised, copies, np.arange(18) % 2).shape[0] == 18
    X_dup = X.copy()
    X_dup[4], X_dup[8], X_dup[5] = X[0], X[0], X[1]
    for supervised in (False, True):
        estimator = IsometricProjection(n_neighbors=3, supervised=supervised).fit(X_dup, y)
        assert 0 < estimator.n_components_ <= 5 and np.all(estimator.eigenvalues_ > 0)
        assert np.all(np.isfinite(estimator.transform(X_dup)))


# --------------------------------------------------------------------------- coverage


def test_every_registry_method_is_here():
    """FACTORIES takes every built-in method of ``registry.METHODS`` from the registry, so a new
    method meets this contract with no edit here: the registry-derived set is not empty, every
    built-in method but scikit-learn's own (raw, pca, sklearn_lle) is in it, and each of its
    estimators is one of NAMES (``slle``'s default is ``lle``'s)."""
    derived = registry_methods()
    assert derived and set(registry_factories()) <= set(NAMES)
    for name, spec in registry.METHODS.items():
        if spec.source is None and name not in derived:
            assert type(spec.make()).__module__.startswith("sklearn."), name
    cases = {(type(make(name)), repr(make(name))) for name in NAMES}
    for name, spec in derived.items():
        example = build(spec, 2)
        assert (type(example), repr(example)) in cases, name
    assert {method for method, _ in VARIANTS.values()} <= set(derived)


def test_every_departure_from_a_declaration_is_one():
    """The methods named as departing from their registry entry exist and do depart from it: what their
    n_neighbors counts is not what they declare; those that accept one class use the labels."""
    for name, counted in COUNTED_OTHERWISE.items():
        spec, options = DECLARED[name]
        assert spec.neighbor_rule(options).kind("n_neighbors") not in (None, counted), name
    assert all(uses_labels(name) for name in ONE_CLASS_ACCEPTED)
    assert SUPERVISED_KNN and UNSUPERVISED_KNN and SOLVER_LINEAR and CLASS_BOUND and BINARY and COMPLETE_WHEN_SMALL
