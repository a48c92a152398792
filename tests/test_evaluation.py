"""The all-p classifiers equal one classifier refitted per p."""

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


def test_pruning_keeps_the_unpruned_decisions(clustered, monkeypatch):
    import locproj.core.evaluation as evaluation

    Z_train, Z_test = clustered
    pruned = nearest_indices(Z_train, Z_test, max_bytes=_THREE_ROWS)
    monkeypatch.setattr(evaluation, "_PRUNE_EVERY", 10**9)
    unpruned = nearest_indices(Z_train, Z_test, max_bytes=_THREE_ROWS)
    np.testing.assert_array_equal(pruned, unpruned)
    brute = np.stack([(((Z_test[:, None, :p] - Z_train[None, :, :p]) ** 2).sum(-1)).argmin(axis=1)
                      for p in range(1, 131)], axis=1)
    assert np.mean(pruned == brute) > 0.999                       # rounding may split near-ties
    assert pruned[0, -1] == 1 and np.all(pruned[0] <= 7)          # duplicates: lowest index


def test_pruning_really_drops_references(clustered, monkeypatch):
    import locproj.core.evaluation as evaluation

    Z_train, Z_test = clustered
    sizes = []
    original = evaluation._still_possible

    def spy(scores_T, *args):
        alive = original(scores_T, *args)
        sizes.append((len(alive), int(alive.sum())))
        return alive

    monkeypatch.setattr(evaluation, "_still_possible", spy)
    nearest_indices(Z_train, Z_test, max_bytes=_THREE_ROWS)
    assert sizes and np.mean([alive for _, alive in sizes]) < 0.5 * len(Z_train)


def test_ties_go_to_lowest_training_index():
    Z_train = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [-1.0, 0.0]])
    Z_test = np.array([[0.0, 0.0], [1.0, 0.0]])
    # p=1: distances from 0 are 1, 0, 1, 1 -> index 1; p=2: all equal to 1 -> index 0
    # second test row: indices 0 and 2 coincide at every p -> index 0
    np.testing.assert_array_equal(nearest_indices(Z_train, Z_test), [[1, 0], [0, 0]])


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
