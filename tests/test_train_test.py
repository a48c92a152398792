"""The ``train_test_curve`` protocol (paper 004, Figs. 5-6): sweeps, nested training sets, subsets,
result files and the aggregation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.neighbors import KNeighborsClassifier, NearestCentroid

from locproj.data import per_class_splits
from locproj.experiments import aggregate_experiment, job_config
from locproj.engine.registry import estimator_factory
from locproj.protocols import train_test_curve

CLASSIFIERS = {"ldc": {"classifier": "ldc"}, "1nn": {"classifier": "1nn"}, "nm": {"classifier": "nearest_mean"}}


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    train, test = per_class_splits(y, 40, 1, seed=7)
    return X[train[0]], y[train[0]], X[test[0]], y[test[0]]


def job(x, values, classifiers=CLASSIFIERS, **extra):
    return {"x": x, "values": values, "classifiers": classifiers, **extra}


def pca_factory(params):
    return PCA(svd_solver="full", **params)


def test_the_dimension_sweep_equals_a_fit_per_dimension(digits):
    X_train, y_train, X_test, y_test = digits
    result = train_test_curve.run_repetition(job("n_components", [1, 3, 8]), pca_factory, X_train, y_train, X_test,
                                       y_test, seed=1)
    for t, m in enumerate([1, 3, 8]):
        pca = PCA(n_components=m, svd_solver="full").fit(X_train)
        Z_train, Z_test = pca.transform(X_train), pca.transform(X_test)
        ldc = LinearDiscriminantAnalysis().fit(Z_train, y_train).predict(Z_test)
        nn = KNeighborsClassifier(n_neighbors=1).fit(Z_train, y_train).predict(Z_test)
        nm = NearestCentroid().fit(Z_train, y_train).predict(Z_test)
        expected = [np.mean(p != y_test) for p in (ldc, nn, nm)]
        np.testing.assert_allclose(result["errors"][t], expected, atol=1e-12)
    assert list(result["n_components"]) == [8, 8, 8]


def test_a_method_with_fewer_columns_has_no_error_beyond_them(digits):
    X_train, y_train, X_test, y_test = digits
    new_estimator = estimator_factory("lda", {})
    result = train_test_curve.run_repetition(job("n_components", [2, 9, 12], max_components=9), new_estimator, X_train,
                                       y_train, X_test, y_test, 1)
    assert np.isfinite(result["errors"][:2]).all() and np.isnan(result["errors"][2]).all()   # c - 1 = 9


def test_raw_data_give_a_flat_line(digits):
    X_train, y_train, X_test, y_test = digits
    result = train_test_curve.run_repetition(job("n_components", [1, 5], raw=True), estimator_factory("raw", {}),
                                             X_train, y_train, X_test, y_test, 1)
    nn = KNeighborsClassifier(n_neighbors=1).fit(X_train, y_train).predict(X_test)
    assert result["errors"][0, 1] == result["errors"][1, 1] == pytest.approx(np.mean(nn != y_test))


def test_training_sets_over_n_are_nested_balanced_and_seeded():
    y = np.repeat(np.arange(4), 30)
    order = train_test_curve.nested_order(y, seed=3)
    small, large = train_test_curve.first_per_class(order, 5), train_test_curve.first_per_class(order, 12)
    assert set(small) < set(large)
    assert np.bincount(y[small]).tolist() == [5] * 4 and np.bincount(y[large]).tolist() == [12] * 4
    assert np.array_equal(small, train_test_curve.first_per_class(train_test_curve.nested_order(y, seed=3), 5))
    assert not np.array_equal(small, train_test_curve.first_per_class(train_test_curve.nested_order(y, seed=4), 5))
    with pytest.raises(ValueError, match="exceeds the 30 training samples"):
        train_test_curve.first_per_class(order, 31)


def test_the_size_sweep_fits_on_the_first_n_of_each_class(digits):
    X_train, y_train, X_test, y_test = digits
    result = train_test_curve.run_repetition(job("n_per_class", [5, 20], {"nm": CLASSIFIERS["nm"]}),
                                       estimator_factory("raw", {}), X_train, y_train, X_test, y_test, seed=11)
    order = train_test_curve.nested_order(y_train, 11)
    for t, n in enumerate([5, 20]):
        fit = train_test_curve.first_per_class(order, n)
        predicted = NearestCentroid().fit(X_train[fit], y_train[fit]).predict(X_test)
        assert result["errors"][t, 0] == pytest.approx(np.mean(predicted != y_test))


class _SubsetRecorder(TransformerMixin, BaseEstimator):
    """Keeps the first ``n_subset`` training samples, like a method that selects its own subset."""

    fitted_with: list = []

    def __init__(self, n_subset=None, random_state=None):
        self.n_subset = n_subset
        self.random_state = random_state

    def fit(self, X, y=None):
        type(self).fitted_with.append((self.n_subset, self.random_state, len(X)))
        self.subset_ = np.arange(self.n_subset)
        return self


    def transform(self, X):
        return X[:, :3]


def test_a_selected_subset_is_fitted_on_all_samples_and_classified_on_the_subset(digits):
    X_train, y_train, X_test, y_test = digits
    _SubsetRecorder.fitted_with = []
    result = train_test_curve.run_repetition(job("n_per_class", [4, 8], {"nm": CLASSIFIERS["nm"]}, subset="selected",
                                           seeded=True, training_subset=True),
                                       lambda params: _SubsetRecorder(**params), X_train, y_train, X_test, y_test,
                                       seed=2**40 + 5)
    assert [(n, size) for n, _, size in _SubsetRecorder.fitted_with] == [(40, 400), (80, 400)]
    assert {seed for _, seed, _ in _SubsetRecorder.fitted_with} == {5}          # the seed modulo 2**32
    centroids = NearestCentroid().fit(X_train[:80, :3], y_train[:80]).predict(X_test[:, :3])
    assert result["errors"][1, 0] == pytest.approx(np.mean(centroids != y_test))


@pytest.mark.parametrize("change, message", [
    ({"values": [3, 3]}, "strictly increasing"),
    ({"methods": {"pca": {"classifiers": ["svc"]}}}, "classifiers \\['svc'\\]"),
    ({"methods": {"slle": {"subset": "selected"}}}, "subset: selected needs x: n_per_class"),
])
def test_a_bad_spec_is_refused_naming_the_key(change, message):
    spec = {"x": "n_components", "values": [1, 2], "classifiers": CLASSIFIERS, "methods": {"pca": {}}, **change}
    with pytest.raises(ValueError, match=message):
        train_test_curve.check_spec(spec)


SPEC = {
    "protocol": "train_test_curve", "datasets": {"digits": [40]}, "n_splits": 3, "x": "n_components",
    "values": [1, 2, 4], "classifiers": {"ldc": CLASSIFIERS["ldc"], "1nn": CLASSIFIERS["1nn"]},
    "methods": {"pca": {}, "big_pca": {"method": "pca", "fixed": {"whiten": True}, "classifiers": ["1nn"]}},
    "labels": {"pca": "PCA", "big_pca": "whitened PCA"}, "panel_by": "classifier",
    "reasons": [{"method": "pca", "reason": "any pca"}, {"method": "pca", "classifier": "1nn", "reason": "pca 1nn"}],
}


def test_a_job_names_its_registry_method_and_only_its_classifiers():
    config = {"seed": 1, "experiments": {"e": SPEC}}
    entry = job_config(config, "e", "digits", "big_pca")
    assert entry["registry_method"] == "pca" and list(entry["classifiers"]) == ["1nn"]
    assert list(job_config(config, "e", "digits", "pca")["classifiers"]) == ["ldc", "1nn"]


@pytest.fixture()
def written(tmp_path, digits):
    X_train, y_train, X_test, y_test = digits
    paths = []
    for method in SPEC["methods"]:
        entry = job_config({"seed": 1, "experiments": {"e": SPEC}}, "e", "digits", method)
        new_estimator = estimator_factory(entry["registry_method"], (SPEC["methods"][method] or {}).get("fixed", {}))
        for split in range(3):
            rng = np.random.default_rng(split)
            keep = rng.permutation(len(y_train))[:300]
            result = train_test_curve.run_repetition(entry, new_estimator, X_train[keep], y_train[keep], X_test, y_test,
                                               seed=split)
            path = tmp_path / f"{method}_{split}.h5"
            meta = {"experiment": "e", "dataset": "digits", "m": 40, "method": method, "split": split}
            train_test_curve.write_repetition(path, result, entry, meta, {"seed": str(split)})
            paths.append(path)
    return paths


def test_result_files_read_back_as_long_rows(written):
    long = pd.concat([train_test_curve.read_repetition(p) for p in written], ignore_index=True)
    assert len(long) == 3 * 3 * 2 + 3 * 3 * 1                       # splits x values x classifiers
    assert set(long["classifier"][long["method"] == "big_pca"]) == {"1nn"}
    assert long["test_error"].between(0, 1).all()


def test_the_aggregation_writes_every_output_with_correct_statistics(written, tmp_path):
    published = tmp_path / "published.csv"
    published.write_text("# test\nexperiment,dataset,method,classifier,x,error,source\n"
                         "e,digits,pca,1nn,4,0.0,made up\ne,digits,pca,ldc,4,0.0,made up\n"
                         "other,digits,pca,1nn,4,50.0,another experiment\n")
    out = tmp_path / "out"
    spec = {**SPEC, "published": str(published)}
    aggregate_experiment(spec, written, out, seed=1, notes={"digits": "bundled with scikit-learn"})
    curves = pd.read_csv(out / "curves.csv")
    long = pd.concat([train_test_curve.read_repetition(p) for p in written], ignore_index=True)
    one = long[(long["method"] == "pca") & (long["classifier"] == "ldc") & (long["x"] == 2)]["test_error"] * 100
    row = curves[(curves["method"] == "pca") & (curves["classifier"] == "ldc") & (curves["x"] == 2)].iloc[0]
    assert row["mean_error"] == pytest.approx(one.mean()) and row["std_error"] == pytest.approx(one.std(ddof=1))
    assert (curves["data_note"] == "bundled with scikit-learn").all()
    compared = pd.read_csv(out / "comparison.csv")
    assert len(compared) == 2                                        # the other experiment's row is left out
    assert dict(zip(compared["classifier"], compared["reason"])) == {"1nn": "pca 1nn", "ldc": "any pca"}
    table = (out / "table.md").read_text()
    assert "PCA + ldc" in table and "whitened PCA + 1nn" in table and "† digits: bundled" in table
    assert (out / "figures" / "curves_digits.png").exists() and (out / "metadata.yaml").exists()
    before = {p.name: p.read_bytes() for p in out.rglob("*.*")}
    aggregate_experiment(spec, written, out, seed=1, notes={"digits": "bundled with scikit-learn"})
    assert {p.name: p.read_bytes() for p in out.rglob("*.*")} == before


def test_a_method_that_is_not_nested_is_fitted_at_every_dimension(digits):
    X_train, y_train, X_test, y_test = digits
    fitted = []

    def new_estimator(params):
        fitted.append(params["n_components"])
        return PCA(svd_solver="full", **params)

    result = train_test_curve.run_repetition(job("n_components", [1, 3, 8, 70], nested=False, max_components=64),
                                       new_estimator, X_train, y_train, X_test, y_test, seed=1)
    nested = train_test_curve.run_repetition(job("n_components", [1, 3, 8]), pca_factory, X_train, y_train, X_test,
                                       y_test, seed=1)
    assert fitted == [1, 3, 8]                                      # 70 is beyond the 64 columns: not fitted
    np.testing.assert_allclose(result["errors"][:3], nested["errors"], atol=1e-12)
    assert np.isnan(result["errors"][3]).all() and list(result["n_components"][:3]) == [1, 3, 8]


def test_a_crossover_is_where_the_second_method_stays_at_or_below_the_first():
    x = [1, 2, 3, 4, 5, 6]
    first = [50, 40, 30, 25, 24, 23]
    second = [60, 45, 29, 26, 20, 18]          # below at 3, above again at 4: the crossover is 5
    summary = pd.DataFrame({"dataset": "d", "method": ["a"] * 6 + ["b"] * 6, "classifier": "c", "x": x * 2,
                            "mean_error": first + second})
    published = pd.DataFrame({"dataset": ["d", "d"], "first": ["a", "a"], "second": ["b", "b"],
                              "classifier": ["c", "c"], "x_from": [4, 6], "x_to": [6, 9], "source": ["s", "s"]})
    spec = {"reasons": [{"method": "crossover", "reason": "why"}]}
    result = train_test_curve.crossovers(summary, published, spec)
    assert list(result["ours"]) == [5, 5] and list(result["holds"]) == [True, False]
    assert list(result["reason"]) == ["", "why"]


def test_the_curve_figure_draws_raw_as_a_level_and_says_why_a_curve_ends(readable_curves):
    rows = [("pca", "1nn", x, 30.0 / x) for x in (1, 2, 4)] + [("lda", "nm", x, 20.0 + x) for x in (1, 2)] \
        + [("raw", "1nn", x, 12.0) for x in (1, 2, 4)]
    summary = pd.DataFrame(rows, columns=["method", "classifier", "x", "mean_error"]).assign(
        dataset="digits", m=40, std_error=1.5, n_splits=3)
    spec = {"x": "n_components", "values": [1, 2, 4], "classifiers": CLASSIFIERS,
            "methods": {"pca": {"classifiers": ["1nn"]}, "lda": {"classifiers": ["nm"]},
                        "raw": {"classifiers": ["1nn"]}},
            "labels": {"pca": "PCA", "lda": "Fisher", "raw": "pixels"}, "classifier_labels": {"nm": "nearest mean"}}
    published = pd.DataFrame({"dataset": ["digits"], "method": ["pca"], "classifier": ["1nn"], "x": [2], "error": [9.0],
                              "source": ["made up"]})
    figure = train_test_curve.curve_figure("digits", summary, spec, published, notes={"digits": "bundled"})
    labels = readable_curves(figure)
    assert labels == ["PCA + 1nn", "Fisher + nearest mean (ends at m = 2: c − 1)", "pixels + 1nn",
                      "published value (paper)"]
    [ax] = figure.axes
    level = [line for line in ax.get_lines() if line.get_label() == "pixels + 1nn"][0]
    assert list(level.get_ydata()) == [12.0, 12.0] and list(level.get_xdata()) == [0, 1]   # across the axes
    assert ax.get_xlabel() == "dimension m" and ax.get_ylabel() == "test error (%)"
    note = " ".join(figure.texts[0].get_text().split())
    assert "over 3 repetitions" in note and "×: the paper's value" in note and note.endswith("digits: bundled")
