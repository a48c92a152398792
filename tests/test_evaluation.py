"""The all-p classifiers equal one classifier refitted per p; ties follow one rule, not rounding."""

import math

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier, NearestCentroid
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis
from sklearn.svm import SVC

from locproj.core.evaluation import (
    class_centroids,
    errors_all_p,
    nearest_indices,
    predict_all_p,
    predict_at_p,
)
from locproj.core.ties import TIE_RTOL


@pytest.fixture
def projected():
    rng = np.random.default_rng(0)
    Z_train, Z_test = rng.standard_normal((60, 12)), rng.standard_normal((45, 12))
    y_train, y_test = rng.integers(0, 4, 60), rng.integers(0, 4, 45)
    return Z_train, y_train, Z_test, y_test


def test_1nn_all_p_equals_refit_per_p(projected):
    Z_train, y_train, Z_test, y_test = projected
    predictions = predict_all_p(Z_train, y_train, Z_test)
    errors = errors_all_p(Z_train, y_train, Z_test, y_test)
    for p in range(1, Z_train.shape[1] + 1):
        knn = KNeighborsClassifier(n_neighbors=1).fit(Z_train[:, :p], y_train)
        expected = knn.predict(Z_test[:, :p])
        np.testing.assert_array_equal(predictions[:, p - 1], expected)
        assert errors[p - 1] == np.mean(expected != y_test)


@pytest.mark.parametrize("max_bytes", [1, 3000, 1 << 30])
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_chunked_equals_unchunked(projected, max_bytes, n_jobs):
    Z_train, _, Z_test, _ = projected
    reference = nearest_indices(Z_train, Z_test, max_bytes=1 << 30)
    np.testing.assert_array_equal(nearest_indices(Z_train, Z_test, max_bytes=max_bytes, n_jobs=n_jobs), reference)


_THREE_ROWS = 3 * 90 * 8  # chunks of three test rows: few classes per chunk, so pruning bites


@pytest.fixture
def clustered():
    """Many columns and tight classes, so that pruning drops most references early; exact
    duplicates and a test row equidistant from two references make ties."""
    rng = np.random.default_rng(1)
    centers = rng.standard_normal((6, 130)) * np.linspace(4, 0.2, 130)
    labels = np.arange(90) % 6
    Z_train = centers[labels] + 0.3 * rng.standard_normal((90, 130))
    Z_train[7] = Z_train[1]                                       # a duplicate reference
    Z_test = centers[rng.integers(0, 6, 70)] + 0.3 * rng.standard_normal((70, 130))
    Z_test[0] = Z_train[1]
    Z_test[1] = (Z_train[2] + Z_train[8]) / 2                     # equidistant at every p
    return Z_train, Z_test


def _rule(Z_ref, Z_test, p):
    """The tie rule in plain Python: squared distances summed left to right from the inputs as
    given, the band ``TIE_RTOL * s(t)``, the lowest index in the band of the smallest."""
    mu = Z_ref[:, :p].mean(axis=0)
    ref_scale = max(math.fsum((r - mu) ** 2) for r in Z_ref[:, :p])
    out = []
    for t in Z_test[:, :p]:
        distances = []
        for r in Z_ref[:, :p]:
            total = 0.0
            for x, y in zip(t.tolist(), r.tolist()):
                total += (x - y) * (x - y)
            distances.append(total)
        band = TIE_RTOL * (math.fsum((t - mu) ** 2) + ref_scale)
        low = min(distances)
        out.append(next(j for j, d in enumerate(distances) if d <= low + band))
    return np.array(out)


def test_pruning_keeps_the_decisions_of_the_rule(clustered, monkeypatch):
    import locproj.core.evaluation as evaluation

    Z_train, Z_test = clustered
    pruned = nearest_indices(Z_train, Z_test, max_bytes=_THREE_ROWS)
    monkeypatch.setattr(evaluation, "_PRUNE_EVERY", 10**9)
    unpruned = nearest_indices(Z_train, Z_test, max_bytes=_THREE_ROWS)
    np.testing.assert_array_equal(pruned, unpruned)
    for p in (1, 2, 49, 97, 130):                                 # before and after prunings
        np.testing.assert_array_equal(pruned[:, p - 1], _rule(Z_train, Z_test, p))
    assert np.all(pruned[0] == 1)                                 # duplicates: lowest index
    assert pruned[1, -1] == 2                                     # equidistant up to rounding: lowest index


@pytest.fixture
def pruning(monkeypatch):
    """The (references, references still possible) of every pruning step of the calls that follow."""
    import locproj.core.evaluation as evaluation

    original, steps = evaluation._still_possible, []

    def spy(scores_T, *args):
        alive = original(scores_T, *args)
        steps.append((len(alive), int(alive.sum())))
        return alive

    monkeypatch.setattr(evaluation, "_still_possible", spy)
    return steps


def test_pruning_really_drops_references(clustered, pruning):
    Z_train, Z_test = clustered
    nearest_indices(Z_train, Z_test, max_bytes=_THREE_ROWS)
    assert pruning and np.mean([alive for _, alive in pruning]) < 0.5 * len(Z_train)


def test_ties_go_to_lowest_training_index():
    Z_train = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [-1.0, 0.0]])
    Z_test = np.array([[0.0, 0.0], [1.0, 0.0]])
    # p=1: distances from 0 are 1, 0, 1, 1 -> index 1; p=2: all equal to 1 -> index 0
    # second test row: indices 0 and 2 coincide at every p -> index 0
    np.testing.assert_array_equal(nearest_indices(Z_train, Z_test), [[1, 0], [0, 0]])


def _exact_nearest(Z_ref, Z_test, p_values):
    """Nearest reference (lowest index on ties) of integer data, in exact integer arithmetic."""
    R, T = Z_ref.astype(np.int64), Z_test.astype(np.int64)
    out = np.empty((len(T), len(p_values)), dtype=np.intp)
    for start in range(0, len(T), 1000):
        block = T[start:start + 1000]
        D = np.zeros((len(block), len(R)), dtype=np.int64)
        for k in range(max(p_values)):
            D += (block[:, k, None] - R[None, :, k]) ** 2
            if k + 1 in p_values:
                out[start:start + 1000, p_values.index(k + 1)] = D.argmin(axis=1)   # the first minimum
    return out


def _integer_data(n_ref=400, n_test=3000, n_cols=16, high=4, seed=0):
    """Small integers: most rows have several exactly nearest references; some references repeat."""
    rng = np.random.default_rng(seed)
    R = rng.integers(0, high, (n_ref, n_cols))
    R[50:80] = R[10:40]                                           # later copies
    R[5] = R[-1]                                                  # an earlier copy
    return R.astype(float), rng.integers(0, high, (n_test, n_cols)).astype(float)


def _tied_rows(Z_ref, Z_test, p):
    D = ((Z_test[:, None, :p].astype(np.int64) - Z_ref[None, :, :p].astype(np.int64)) ** 2).sum(-1)
    return int(np.sum((D == D.min(axis=1, keepdims=True)).sum(axis=1) > 1))


@pytest.fixture(params=["integer scores", "rescored"])
def integer_path(request, monkeypatch):
    """Integer data take exact scores, unshifted; "rescored" makes them take the general path
    (shifted scores, candidates, exact rescoring), to test it on exact ties."""
    if request.param == "rescored":
        import locproj.core.evaluation as evaluation

        monkeypatch.setattr(evaluation, "_exact_in_float", lambda ref, test: False)
    return request.param


@pytest.mark.parametrize("max_bytes, n_jobs", [(1 << 20, 1), (8 * 400 * 37, 2)])
def test_exact_ties_go_to_the_lowest_index_in_both_passes(max_bytes, n_jobs, integer_path):
    Z_ref, Z_test = _integer_data()
    assert _tied_rows(Z_ref, Z_test, 16) > 300                    # the test is about ties
    p_values = list(range(1, 17))
    expected = _exact_nearest(Z_ref, Z_test, p_values)
    all_p = nearest_indices(Z_ref, Z_test, max_bytes=max_bytes, n_jobs=n_jobs)
    np.testing.assert_array_equal(all_p, expected)
    for p in (1, 3, 16):
        np.testing.assert_array_equal(nearest_indices(Z_ref, Z_test, [p], max_bytes=max_bytes, n_jobs=n_jobs)[:, 0],
                                      expected[:, p - 1])


def _clustered_integers(seed=4):
    """Integer classes in 60 columns of decreasing spread, test rows sorted by class: chunks of a
    few rows prune most references at column 48."""
    rng = np.random.default_rng(seed)
    centers = np.round(rng.standard_normal((6, 60)) * np.linspace(6, 1, 60))
    labels = np.arange(240) % 6
    Z_ref = centers[labels] + rng.integers(-1, 2, (240, 60))
    Z_ref[100:130] = Z_ref[10:40]
    test_labels = np.sort(rng.integers(0, 6, 600))
    Z_test = centers[test_labels] + rng.integers(-1, 2, (600, 60))
    return Z_ref, Z_test


def test_exact_ties_survive_pruning(pruning, integer_path):
    Z_ref, Z_test = _clustered_integers()
    p_values = [1, 2, 10, 48, 49, 50, 59, 60]
    expected = _exact_nearest(Z_ref, Z_test, p_values)
    assert _tied_rows(Z_ref, Z_test, 60) > 20
    got = nearest_indices(Z_ref, Z_test, p_values, max_bytes=8 * 240 * 4, n_jobs=2)
    assert np.mean([n - alive for n, alive in pruning]) > 0.5 * len(Z_ref)   # pruning is at work
    np.testing.assert_array_equal(got, expected)
    for column, p in enumerate(p_values):
        np.testing.assert_array_equal(nearest_indices(Z_ref, Z_test, [p])[:, 0], expected[:, column])


def test_nearest_mean_ties_go_to_the_smallest_class_label():
    """Class means of small integers: exact (rational) ties between classes, decided in exact
    integer arithmetic as ``||L t - (L / n_c) sum_c||^2`` with ``L`` the lcm of the class sizes."""
    rng = np.random.default_rng(6)
    sizes = np.array([3, 4, 6, 4, 3, 6, 4, 3])
    labels = np.array([70, 30, 90, 10, 50, 20, 80, 40])           # not in sorted order
    y = np.repeat(labels, sizes)
    Z_train = rng.integers(0, 3, (len(y), 12)).astype(float)
    Z_test = rng.integers(0, 3, (2000, 12)).astype(float)
    classes = np.sort(labels)
    L = math.lcm(*sizes.tolist())
    sums = np.stack([Z_train[y == c].astype(np.int64).sum(axis=0) for c in classes])
    weights = L // np.array([np.sum(y == c) for c in classes])
    T = Z_test.astype(np.int64)
    expected = []
    for p in range(1, 13):
        D = ((L * T[:, None, :p] - weights[None, :, None] * sums[None, :, :p]) ** 2).sum(-1)
        if p == 12:
            assert np.sum((D == D.min(axis=1, keepdims=True)).sum(axis=1) > 1) > 20
        expected.append(classes[D.argmin(axis=1)])
    expected = np.stack(expected, axis=1)
    np.testing.assert_array_equal(predict_all_p(Z_train, y, Z_test, classifier="nearest_mean"), expected)
    for p in (1, 5, 12):
        np.testing.assert_array_equal(predict_at_p(Z_train, y, Z_test, p, classifier="nearest_mean"),
                                      expected[:, p - 1])


@pytest.mark.parametrize("seed", range(3))
def test_decisions_ignore_a_perturbation_of_1e_15(seed):
    """Integer data with exact ties and the same data perturbed by up to 1e-15 relative: the same
    decisions, those of the exact rule."""
    Z_ref, Z_test = _integer_data(n_ref=300, n_test=1500, seed=seed)
    rng = np.random.default_rng(100 + seed)
    noisy_ref, noisy_test = (Z * (1 + 1e-15 * rng.uniform(-1, 1, Z.shape)) for Z in (Z_ref, Z_test))
    assert np.any(noisy_ref != Z_ref) and np.any(noisy_test != Z_test)
    expected = _exact_nearest(Z_ref, Z_test, list(range(1, 17)))
    np.testing.assert_array_equal(nearest_indices(noisy_ref, noisy_test), expected)
    np.testing.assert_array_equal(nearest_indices(noisy_ref, noisy_test, [16])[:, 0], expected[:, -1])
    y_ref = np.arange(len(Z_ref)) % 7
    np.testing.assert_array_equal(predict_all_p(noisy_ref, y_ref, noisy_test, classifier="nearest_mean"),
                                  predict_all_p(Z_ref, y_ref, Z_test, classifier="nearest_mean"))


def test_a_rotation_changes_no_decision():
    """An orthogonal rotation keeps every distance up to rounding: the exact ties of integer data
    become near-ties, decided as before (the single p and the all-p pass alike)."""
    Z_ref, Z_test = _integer_data(n_ref=300, n_test=1000, n_cols=8, high=3, seed=9)
    Q, _ = np.linalg.qr(np.random.default_rng(9).standard_normal((8, 8)))
    expected = nearest_indices(Z_ref, Z_test, [8])[:, 0]
    assert _tied_rows(Z_ref, Z_test, 8) > 100
    np.testing.assert_array_equal(nearest_indices(Z_ref @ Q, Z_test @ Q, [8])[:, 0], expected)
    np.testing.assert_array_equal(nearest_indices(Z_ref @ Q, Z_test @ Q)[:, -1], expected)


def _letter(mirror):
    path = mirror / "letter-recognition.data"
    if not path.is_file():
        pytest.skip(f"{path.name} is not in the data mirror ({mirror})")
    rows = [line.split(",") for line in path.read_text().split()]
    return np.array([row[0] for row in rows]), np.array([row[1:] for row in rows], dtype=float)


@pytest.mark.mirror
def test_letter_1nn_follows_the_exact_rule(mirror, integer_path):
    """UCI Letter, 20 training samples per class (the first ones): about 1,400 test rows have
    several exactly nearest training samples at p = 16; every decision is the lowest index."""
    y, X = _letter(mirror)
    train = np.sort(np.concatenate([np.flatnonzero(y == c)[:20] for c in np.unique(y)]))
    test = np.setdiff1d(np.arange(len(y)), train)
    expected = _exact_nearest(X[train], X[test], list(range(1, 17)))
    np.testing.assert_array_equal(nearest_indices(X[train], X[test]), expected)
    np.testing.assert_array_equal(nearest_indices(X[train], X[test], [16])[:, 0], expected[:, -1])


def test_predict_at_p_matches_all_p_column(projected):
    Z_train, y_train, Z_test, _ = projected
    all_p = predict_all_p(Z_train, y_train, Z_test, classifier="nearest_mean")
    np.testing.assert_array_equal(predict_at_p(Z_train, y_train, Z_test, 5, classifier="nearest_mean"), all_p[:, 4])
    subset = predict_all_p(Z_train, y_train, Z_test, p_values=[2, 7])
    np.testing.assert_array_equal(subset, predict_all_p(Z_train, y_train, Z_test)[:, [1, 6]])


def test_nearest_mean_all_p_equals_nearest_centroid(projected):
    Z_train, y_train, Z_test, _ = projected
    predictions = predict_all_p(Z_train, y_train, Z_test, classifier="nearest_mean")
    for p in range(1, Z_train.shape[1] + 1):
        expected = NearestCentroid().fit(Z_train[:, :p], y_train).predict(Z_test[:, :p])
        np.testing.assert_array_equal(predictions[:, p - 1], expected)


def test_class_centroids_sorted_labels():
    classes, centroids = class_centroids(np.array([[2.0], [4.0], [10.0]]), np.array(["b", "b", "a"]))
    assert classes.tolist() == ["a", "b"]
    np.testing.assert_array_equal(centroids, [[10.0], [3.0]])


def test_svm_uses_params_per_p(projected):
    Z_train, y_train, Z_test, _ = projected
    params = {"kernel": "linear", "C": 0.5}
    predictions = predict_all_p(Z_train, y_train, Z_test, classifier="svm", classifier_params=params, p_values=[3])
    expected = SVC(**params).fit(Z_train[:, :3], y_train).predict(Z_test[:, :3])
    np.testing.assert_array_equal(predictions[:, 0], expected)


def test_rejects_unknown_classifier_and_bad_p(projected):
    Z_train, y_train, Z_test, _ = projected
    with pytest.raises(ValueError, match="classifier"):
        predict_all_p(Z_train, y_train, Z_test, classifier="lda")
    with pytest.raises(ValueError, match="p must lie"):
        predict_at_p(Z_train, y_train, Z_test, 13)


@pytest.mark.parametrize("classifier, params, expected", [
    ("knn", {"n_neighbors": 5}, lambda: KNeighborsClassifier(n_neighbors=5)),
    ("ldc", {}, lambda: LinearDiscriminantAnalysis()),
    ("qdc", {}, lambda: QuadraticDiscriminantAnalysis(reg_param=0.01)),
    ("qdc", {"reg_param": 0.5}, lambda: QuadraticDiscriminantAnalysis(reg_param=0.5)),
])
def test_paper_004s_classifiers_are_scikit_learns_fitted_per_p(projected, classifier, params, expected):
    Z_train, y_train, Z_test, _ = projected
    predictions = predict_all_p(Z_train, y_train, Z_test, classifier=classifier, classifier_params=params,
                                p_values=[2, 4])
    for column, p in enumerate((2, 4)):
        np.testing.assert_array_equal(predictions[:, column],
                                      expected().fit(Z_train[:, :p], y_train).predict(Z_test[:, :p]))
    knn_1 = predict_all_p(Z_train, y_train, Z_test, classifier="knn", p_values=[3])
    np.testing.assert_array_equal(knn_1, predict_all_p(Z_train, y_train, Z_test, classifier="1nn", p_values=[3]))


def test_no_p_values_and_no_test_rows_give_empty_integer_index_arrays(projected):
    Z_train, y_train, Z_test, _ = projected
    none = nearest_indices(Z_train, Z_test, [])
    assert none.shape == (len(Z_test), 0) and none.dtype == np.intp
    integer_ref = np.round(4 * Z_train)
    for Z_ref in (Z_train, integer_ref):
        nobody = nearest_indices(Z_ref, np.empty((0, 12)), [1, 5])
        assert nobody.shape == (0, 2) and nobody.dtype == np.intp
    assert predict_all_p(integer_ref, y_train, np.empty((0, 12))).shape == (0, 12)
    assert predict_all_p(Z_train, y_train, Z_test, p_values=[]).shape == (len(Z_test), 0)


@pytest.mark.parametrize("p_values", [[2, 2], [5, 3], [1, 4, 4, 6]])
def test_p_values_must_increase_strictly(projected, p_values):
    Z_train, _, Z_test, _ = projected
    with pytest.raises(ValueError, match="^p_values must be strictly increasing$"):
        nearest_indices(Z_train, Z_test, p_values)


def test_whole_float_p_values_select_the_same_columns(projected):
    Z_train, _, Z_test, _ = projected
    np.testing.assert_array_equal(nearest_indices(Z_train, Z_test, np.array([2.0, 5.0])),
                                  nearest_indices(Z_train, Z_test, [2, 5]))


def test_rejects_an_array_that_is_not_2d():
    with pytest.raises(ValueError, match="expected a 2-D array, got shape"):
        nearest_indices(np.ones(3), np.ones((2, 3)))


def test_ties_are_measured_from_the_mean_of_the_references():
    """Distances 1 and 0.25 from the test row, far apart for the band ``1e-9 s(t)`` with ``s(t)``
    taken about the mean of the references; the same data moved by 2**20 (exactly) keep it."""
    Z_ref, Z_test = np.array([[1.0], [-0.5]]), np.array([[0.0]])
    for offset in (0.0, 2.0**20):
        assert nearest_indices(Z_ref + offset, Z_test + offset).tolist() == [[1]]
        assert nearest_indices(Z_ref + offset, Z_test + offset, [1]).tolist() == [[1]]


def test_the_band_at_p_is_measured_over_the_first_p_columns():
    """Squared distances 0.25 (reference 0) and 0.19 (reference 1) in the first column: apart at
    p = 1, where ``s(t)`` is about 14, but tied at p = 2, where the second column of reference 2
    makes ``s(t)`` about 2e8 (band 0.2): then the lower index wins."""
    Z_ref = np.array([[1.0, 0.0], [0.0625, 0.0], [5.5, 2e4]])
    Z_test = np.array([[0.5, 0.0]])
    expected = [_rule(Z_ref, Z_test, p)[0] for p in (1, 2)]
    assert expected == [1, 0]
    assert nearest_indices(Z_ref, Z_test).tolist() == [expected]
    assert [nearest_indices(Z_ref, Z_test, [p])[0, 0] for p in (1, 2)] == expected


def test_a_single_reference_or_class_decides_every_row():
    Z_ref, Z_test = np.array([[1.0, 2.0]]), np.array([[0.0, 0.0], [5.0, 1.0], [1.0, 2.0]])
    np.testing.assert_array_equal(nearest_indices(Z_ref, Z_test), np.zeros((3, 2), dtype=np.intp))
    np.testing.assert_array_equal(nearest_indices(Z_ref, Z_test, [2]), np.zeros((3, 1), dtype=np.intp))
    only = predict_all_p(np.array([[1.0, 2.0], [3.0, 0.0]]), ["a", "a"], Z_test, classifier="nearest_mean")
    assert only.tolist() == [["a", "a"]] * 3


def test_integer_tests_beside_fractional_references_follow_the_band():
    """Reference 1 is nearer than reference 0 by 2**-39, inside the band: the lower index wins,
    although reference 0 and the test row are integers."""
    Z_ref, Z_test = np.array([[-1.0], [1 - 2.0**-40]]), np.array([[0.0]])
    assert _rule(Z_ref, Z_test, 1).tolist() == [0]
    assert nearest_indices(Z_ref, Z_test).tolist() == [[0]]


def test_large_integers_follow_the_band_not_the_exact_minimum():
    """Integers with ``P max|z|^2 > 1e8`` take the band: squared distances 1 and 0 are tied under a
    band of 3.6 (``s(t)`` about 3.6e9, from the far reference 2), so reference 0 wins."""
    Z_ref, Z_test = np.array([[1.0], [0.0], [80000.0]]), np.array([[0.0]])
    assert _rule(Z_ref, Z_test, 1).tolist() == [0]
    assert nearest_indices(Z_ref, Z_test).tolist() == [[0]]
    assert nearest_indices(Z_ref, Z_test, [1]).tolist() == [[0]]


def test_integer_arrays_are_decided_as_their_float_values():
    """int64 values near 2**32: their squares overflow int64, and rounded float scores ``r^2 - 2 t r``
    of the unshifted values cannot tell squared distances 100 and 1 apart."""
    b = 2**32
    Z_ref, Z_test = np.array([[b], [b - 11]], dtype=np.int64), np.array([[b - 10]], dtype=np.int64)
    assert nearest_indices(Z_ref, Z_test).tolist() == [[1]]
    assert nearest_indices(Z_ref, Z_test, [1]).tolist() == [[1]]
    assert nearest_indices(Z_ref.astype(float), Z_test.astype(float)).tolist() == [[1]]


def _far_references(seed, n_cols=50):
    """30 references far from the origin in every column, symmetric about it."""
    F = 3 * np.random.default_rng(seed).standard_normal((15, n_cols))
    return np.vstack([F, -F])


@pytest.mark.parametrize("case", ["tied at the end", "ahead after column 48"])
def test_pruning_keeps_the_references_that_decide_at_the_last_column(case, pruning):
    """A test row at the origin, two near references and 30 far ones, which the pruning after
    column 48 drops.  "tied at the end": the squared distances are 1 + 2**-12 (reference 0) and 1
    (reference 1), tied only by the band of p = 50, where reference 2's last column (1000) makes
    ``s(t)`` about 1e6.  "ahead after column 48": reference 0 leads at p = 48 (1 against 4), and
    columns 49 and 50 put it behind (5 against 4)."""
    near = np.zeros((2, 50))
    far = _far_references(0)
    if case == "tied at the end":
        near[:, 0], near[0, 1] = 1.0, 2.0**-6
        far[0, -1], far[15, -1] = 1e3, -1e3
        expected = [1, 1, 0]
    else:
        near[0, 0], near[0, 48], near[1, 1] = 1.0, 2.0, 2.0
        expected = [0, 1, 1]
    Z_ref, Z_test = np.vstack([near, far]), np.zeros((1, 50))
    assert _rule(Z_ref, Z_test, 50).tolist() == [expected[-1]]
    assert nearest_indices(Z_ref, Z_test)[0, [47, 48, 49]].tolist() == expected
    assert sum(n - alive for n, alive in pruning) == 30          # the far references, and only they
    assert nearest_indices(Z_ref, Z_test, [50]).tolist() == [[expected[-1]]]


def test_sklearn_classifiers_default_to_every_p(projected):
    Z_train, y_train, Z_test, _ = projected
    predictions = predict_all_p(Z_train[:, :5], y_train, Z_test[:, :5], classifier="ldc")
    assert predictions.shape == (len(Z_test), 5)
    for p in range(1, 6):
        expected = LinearDiscriminantAnalysis().fit(Z_train[:, :p], y_train).predict(Z_test[:, :p])
        np.testing.assert_array_equal(predictions[:, p - 1], expected)


def test_errors_all_p_passes_the_classifier_and_p_values(projected):
    Z_train, y_train, Z_test, y_test = projected
    errors = errors_all_p(Z_train, y_train, Z_test, y_test, classifier="nearest_mean", p_values=[3, 8])
    assert errors.shape == (2,)
    for error, p in zip(errors, (3, 8)):
        predicted = NearestCentroid().fit(Z_train[:, :p], y_train).predict(Z_test[:, :p])
        assert error == np.mean(predicted != y_test)
