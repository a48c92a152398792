"""The holdout_curve protocol (paper 002 §6.3): C by 5×2 CV, test accuracy and % SV over the folds."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.decomposition import PCA
from sklearn.svm import SVC

from locproj.data import derive_view, holdout_split
from locproj.data.prepare import Dataset, stratified_sample
from locproj.engine.registry import estimator_factory
from locproj.protocols import curves, holdout_curve

ROOT = Path(__file__).resolve().parents[1]


def _toy(n=90, d=5, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, d)) + 0.9 * y[:, None] * np.linspace(1, 0, d)
    return X, y


def _run(method, values, grid=(0.01, 1.0), fixed=None, n=90):
    X, y = _toy(n)
    train, test, folds = holdout_split(y, seed=3)
    job = {"kind": holdout_curve.method_kind(method), "values": values, "C_values": list(grid)}
    out = holdout_curve.run_holdout(job, estimator_factory(method, fixed or {}), X, y, folds, test, [7] * len(folds))
    return X, y, test, folds, out


def _long(out, values, grid, kind="projection", method="m"):
    rows = []
    for t, r in enumerate(values):
        for j, C in enumerate(grid):
            for k in range(out["val_accuracy"].shape[2]):
                rows.append({"experiment": "e", "dataset": "d", "method": method, "kind": kind, "x": r, "C": C,
                             "fold": k, **{name: out[name][t, j, k] for name in out}})
    return pd.DataFrame(rows)


def test_the_chosen_C_and_the_reported_statistics_equal_a_hand_computation():
    grid = (0.01, 1.0)
    X, y, test, folds, out = _run("pca", [1, 2], grid)
    assert out["val_accuracy"].shape == (2, 2, 10)
    summary = holdout_curve.curve_summary(_long(out, [1, 2], grid))
    for t, r in enumerate([1, 2]):
        validation, tested, support = np.zeros((2, 10)), np.zeros((2, 10)), np.zeros((2, 10))
        for k, (fit, val) in enumerate(folds):
            pca = PCA(n_components=r).fit(X[fit])
            for j, C in enumerate(grid):
                svm = SVC(kernel="linear", C=C).fit(pca.transform(X[fit]), y[fit])
                validation[j, k] = svm.score(pca.transform(X[val]), y[val])
                tested[j, k] = svm.score(pca.transform(X[test]), y[test])
                support[j, k] = 100 * len(svm.support_) / len(fit)
        best = int(np.argmax(validation.mean(axis=1)))      # argmax: the first (smaller C) of ties
        row = summary[summary["x"] == r].iloc[0]
        assert row["C"] == grid[best]
        assert row["mean_validation"] == pytest.approx(100 * validation[best].mean())
        assert row["mean_accuracy"] == pytest.approx(100 * tested[best].mean())
        assert row["std_accuracy"] == pytest.approx(100 * tested[best].std(ddof=1))
        assert row["mean_sv"] == pytest.approx(support[best].mean())
        assert row["std_sv"] == pytest.approx(support[best].std(ddof=1))
        assert row["n_folds"] == 10


def test_ties_in_validation_accuracy_go_to_the_smaller_C():
    long = pd.DataFrame({"dataset": "d", "method": "m", "kind": "raw", "x": 1, "C": [0.1, 0.1, 10.0, 10.0, 1.0, 1.0],
                         "fold": [0, 1] * 3, "val_accuracy": [0.5, 0.7, 0.6, 0.6, 0.4, 0.4]})
    chosen = holdout_curve.choose_C(long)
    assert chosen["C"].tolist() == [0.1] and chosen["mean_validation"].iloc[0] == pytest.approx(60.0)


def test_the_aggregated_mean_and_std_are_over_the_fold_models_at_the_chosen_C():
    rng = np.random.default_rng(1)
    test_accuracy = rng.uniform(0.7, 0.9, size=(1, 3, 10))
    sv = rng.uniform(5, 40, size=(1, 3, 10))
    validation = np.zeros((1, 3, 10))
    validation[0, 2] = 0.9                                  # C = 100 wins
    out = {"val_accuracy": validation, "test_accuracy": test_accuracy, "sv_percent": sv,
           "fit_seconds": np.ones((1, 3, 10)), "n_svm_solves": np.ones((1, 3, 10))}
    row = holdout_curve.curve_summary(_long(out, [4], (1.0, 10.0, 100.0))).iloc[0]
    assert row["C"] == 100.0
    assert row["mean_accuracy"] == pytest.approx(100 * test_accuracy[0, 2].mean())
    assert row["std_accuracy"] == pytest.approx(100 * test_accuracy[0, 2].std(ddof=1))
    assert row["mean_sv"] == pytest.approx(sv[0, 2].mean()) and row["std_sv"] == pytest.approx(sv[0, 2].std(ddof=1))


def test_the_svm_without_reduction_is_a_flat_line_with_the_svc_support_share():
    X, y, test, folds, out = _run("raw", [1, 2, 5])
    for name in ("val_accuracy", "test_accuracy", "sv_percent"):
        assert np.array_equal(out[name][0], out[name][1]) and np.array_equal(out[name][0], out[name][2])
    fit, val = folds[3]
    svm = SVC(kernel="linear", C=1.0).fit(X[fit], y[fit])
    assert out["sv_percent"][0, 1, 3] == pytest.approx(100 * len(svm.support_) / len(fit))
    assert out["test_accuracy"][0, 1, 3] == pytest.approx(svm.score(X[test], y[test]))


def test_gpk_is_scored_by_its_own_svm_and_support_vectors():
    from locproj.engine.registry import make_estimator

    X, y, test, folds, out = _run("gpk", [2], grid=(1.0,), fixed={"max_iter": 2})
    fit, val = folds[0]
    model = make_estimator("gpk", n_components=2, C=1.0, max_iter=2, random_state=7).fit(X[fit], y[fit])
    assert out["sv_percent"][0, 0, 0] == pytest.approx(100 * model.n_support_.sum() / len(fit))
    assert out["val_accuracy"][0, 0, 0] == pytest.approx(model.score(X[val], y[val]))
    assert out["n_svm_solves"][0, 0, 0] == model.history_["n_svm_solves"][-1]


def test_an_r_beyond_the_method_is_left_empty():
    X, y = _toy()
    train, test, folds = holdout_split(y, seed=3)
    job = {"kind": "projection", "values": [2, 6], "C_values": [1.0]}
    out = holdout_curve.run_holdout(job, estimator_factory("pca", {}), X, y, folds, test, [0] * 10, limit=5)
    assert np.isfinite(out["test_accuracy"][0]).all() and np.isnan(out["test_accuracy"][1]).all()


def _summary():
    return pd.DataFrame({
        "dataset": "d", "method": ["a"] * 3 + ["s"], "kind": ["classifier"] * 3 + ["raw"], "x": [1, 2, 3, 1],
        "mean_accuracy": [80.0, 86.0, 90.0, 88.0], "std_accuracy": [1.0, 2.0, 1.0, 0.5],
        "mean_sv": [5.0, 6.0, 4.0, 30.0], "std_sv": [1.0, 1.0, 1.0, 2.0]})


def test_published_values_about_and_lower_bounds_are_compared_as_the_paper_words_them():
    published = pd.DataFrame([
        {"dataset": "d", "method": "a", "measure": "accuracy", "kind": "lower_bound", "published": 79.0,
         "x_min": pd.NA, "x_max": pd.NA, "statistic": "min", "source": ""},
        {"dataset": "d", "method": "a", "measure": "accuracy", "kind": "lower_bound", "published": 85.0,
         "x_min": pd.NA, "x_max": pd.NA, "statistic": "min", "source": ""},
        {"dataset": "d", "method": "a", "measure": "accuracy", "kind": "about", "published": 88.0,
         "x_min": 2, "x_max": pd.NA, "statistic": "mean", "source": ""},
        {"dataset": "d", "method": "a", "measure": "sv_percent", "kind": "about", "published": 9.0,
         "x_min": pd.NA, "x_max": pd.NA, "statistic": "mean", "source": ""},
        {"dataset": "d", "method": "a", "measure": "accuracy", "kind": "value", "published": 86.5,
         "x_min": 2, "x_max": 2, "statistic": "at", "source": ""},
        {"dataset": "d", "method": "s", "measure": "accuracy", "kind": "value", "published": 90.0,
         "x_min": pd.NA, "x_max": pd.NA, "statistic": "at", "source": ""},
    ])
    spec = {"reasons": [{"reason": "generic"}, {"method": "s", "reason": "the SVM's"}]}
    compared = holdout_curve.comparison(_summary(), spec, published)
    assert compared["ours"].tolist() == pytest.approx([80.0, 80.0, 88.0, 5.0, 86.0, 88.0])
    assert compared["holds"].tolist() == [True, False, True, False, True, False]
    assert compared["reason"].tolist() == ["", "generic", "", "generic", "", "the SVM's"]


def test_a_stratified_sample_keeps_class_shares_and_is_seeded():
    y = np.repeat([0, 1, 2], [500, 300, 200])
    chosen = stratified_sample(y, 150, seed=5)
    assert len(chosen) == 150 == len(np.unique(chosen)) and np.all(np.diff(chosen) > 0)
    assert np.bincount(y[chosen]).tolist() == [75, 45, 30]
    assert np.array_equal(chosen, stratified_sample(y, 150, seed=5))
    assert not np.array_equal(chosen, stratified_sample(y, 150, seed=6))
    odd = stratified_sample(np.repeat([0, 1], [2, 1]), 2, seed=0)      # 4/3, 2/3: largest remainder
    assert np.bincount(np.repeat([0, 1], [2, 1])[odd], minlength=2).tolist() == [1, 1]


def test_a_sampling_view_draws_from_the_relabelled_data_and_records_the_sources():
    X = np.arange(40.0)[:, None]
    data = Dataset(X, np.arange(40) % 4, ["a", "b", "c", "d"], None, {"dataset": "toy"})
    view = {"relabel": {"ab": ["a", "b"], "c": ["c"]}, "sample": 10, "seed": 11}
    first, second = derive_view(data, view, "v"), derive_view(data, view, "v")
    assert first.X.shape == (10, 1) and np.bincount(first.y).tolist() == [7, 3]    # 20 : 10 of 30 kept
    assert np.array_equal(first.X, second.X)
    assert np.array_equal(X[first.attrs["source_indices"]], first.X)
    with pytest.raises(Exception, match="seed"):
        derive_view(data, {"sample": 10}, "v")


def test_the_spec_check_names_the_bad_key():
    spec = {"datasets": {"d": ["holdout"]}, "values": [1, 2], "methods": {"pca": {}, "g": {"values": [3, 1]}}}
    with pytest.raises(ValueError, match="method 'g'"):
        holdout_curve.check_spec(spec)
    with pytest.raises(ValueError, match="takes \\[holdout\\]"):
        holdout_curve.check_spec({**spec, "datasets": {"d": [5]}, "methods": {"pca": {}}})
    with pytest.raises(ValueError, match="swept"):
        holdout_curve.check_spec({**spec, "methods": {"gpk": {"fixed": {"C": 1}}}})
    assert holdout_curve.value_blocks({"values": [1, 2, 3], "values_per_job": 2, "methods": {"svm": {"method": "raw"},
                                                                                          "pca": {}}}, "pca") \
        == [[1, 2], [3]]
    assert holdout_curve.value_blocks({"values": [1, 2, 3], "values_per_job": 2, "methods": {"svm": {"method": "raw"}}},
                                "svm") == [[1, 2, 3]]


def test_a_sampled_view_has_its_own_splits():
    from locproj.engine.config import split_path, split_source

    config = {"datasets": {"d": {}}, "views": {"all": {"dataset": "d"}, "some": {"dataset": "d", "sample": 5}}}
    assert split_source(config, "all") == "d" and split_source(config, "some") == "some"
    assert split_path(config, "some", "holdout") == "results/splits/some_holdout.h5"


def test_a_holdout_by_group_keeps_two_per_subject_for_test_and_one_per_subject_in_each_fold():
    from locproj.data.splits import grouped_holdout_split, make_splits

    X = np.arange(400.0)[:, None]
    subjects = np.repeat(np.arange(40), 10)
    gender = (np.isin(subjects, [7, 9, 31, 34])).astype(int)          # 36 against 4, as Olivetti's view
    view = derive_view(Dataset(X, subjects, [f"s{i + 1}" for i in range(40)], None, {}),
                       {"relabel": {"male": {"all_except": ["s8", "s10", "s32", "s35"]},
                                    "female": ["s8", "s10", "s32", "s35"]}}, "gender")
    assert np.array_equal(view.y, gender) and np.array_equal(view.groups, subjects)
    train, test, folds, attrs = make_splits(view.y, "holdout", None, 1, 5, "gender", groups=view.groups,
                                            by_group={"test_per_group": 2, "n_folds": 8})
    assert attrs["mode"] == "holdout_by_group" and len(folds) == 8
    assert np.bincount(subjects[test[0]]).tolist() == [2] * 40
    assert np.array_equal(np.sort(np.concatenate([test[0], train[0]])), np.arange(400))
    for fit, validation in folds:
        assert np.bincount(subjects[validation]).tolist() == [1] * 40
        assert np.array_equal(np.sort(np.concatenate([fit, validation])), train[0])
    assert len(np.unique(np.concatenate([v for _, v in folds]))) == 320          # each image validates once
    again = grouped_holdout_split(subjects, attrs["seed"], 2, 8)
    assert np.array_equal(again[1], test[0])
    with pytest.raises(Exception, match="group 0 has 10 samples.*lower test_per_group or n_folds"):
        grouped_holdout_split(subjects, 1, 3, 8)
    with pytest.raises(Exception, match="relabel"):
        grouped_holdout_split(None, 1, 2, 8)


def test_pca_first_fits_a_pca_on_each_fold_before_the_projection():
    X, y = _toy(d=12)
    _, test, folds = holdout_split(y, seed=3)
    job = {"kind": "projection", "values": [2], "C_values": [1.0], "pca_first": 6}
    out = holdout_curve.run_holdout(job, estimator_factory("pca", {}), X, y, folds, test, [0] * 10)
    # PCA to 6 then PCA to 2 spans the first two principal directions: the same as PCA to 2 directly
    direct = holdout_curve.run_holdout({**job, "pca_first": None}, estimator_factory("pca", {}), X, y, folds, test,
                                       [0] * 10)
    assert np.allclose(out["test_accuracy"], direct["test_accuracy"])
    fit, validation = folds[0]
    Z = PCA(6).fit(X[fit]).transform(X)
    svm = SVC(kernel="linear", C=1.0).fit(PCA(2).fit(Z[fit]).transform(Z[fit]), y[fit])
    assert out["test_accuracy"][0, 0, 0] == pytest.approx(svm.score(PCA(2).fit(Z[fit]).transform(Z[test]), y[test]))
    with pytest.raises(ValueError, match="pca_first must be an int >= its largest r"):
        holdout_curve.check_spec({"datasets": {"d": ["holdout"]}, "values": [1, 5],
                                  "methods": {"lfda": {"pca_first": 3}}})


def test_an_upper_bound_holds_when_our_statistic_is_not_above_it():
    published = pd.DataFrame([
        {"dataset": "d", "method": "a", "measure": "accuracy", "kind": "upper_bound", "published": value,
         "x_min": pd.NA, "x_max": pd.NA, "statistic": "max", "source": ""} for value in (96.0, 89.0)])
    compared = holdout_curve.comparison(_summary(), {"reasons": [{"reason": "r"}]}, published)
    assert compared["holds"].tolist() == [True, False]


def test_the_config_declares_fig11_with_the_olivetti_protocol(config):
    spec = config["experiments"]["lpk_fig11_olivetti"]
    holdout_curve.check_spec(spec)
    assert spec["by_group"] == {"test_per_group": 2, "n_folds": 8}          # §6.3: 80 test images, 8 folds
    assert spec["methods"]["lfda"]["pca_first"] == 100                      # §6.3: PCA to 100 before LFDA
    (view_name,) = spec["datasets"]
    view, gender = config["views"][view_name], config["views"]["olivetti_gender"]
    assert view["relabel"] == gender["relabel"] and view["dataset"] == gender["dataset"]
    assert "lpk_fig11_olivetti" in config["targets"]["lpk_paper"]
    published = holdout_curve.read_published(ROOT / spec["published"], "lpk_fig11_olivetti")
    assert set(published["dataset"]) == {view_name} and set(published["method"]) <= set(spec["methods"])


def test_the_curve_figure_draws_the_svm_as_a_level_and_says_why_curves_end(tmp_path, readable_curves):
    rows = [("pca", "projection", x, 80.0 + x) for x in (1, 2, 3)] + [("lda", "projection", 1, 85.0)] \
        + [("gpk", "classifier", x, 88.0) for x in (1, 2)] + [("svm", "raw", x, 90.0) for x in (1, 2, 3)]
    summary = pd.DataFrame(rows, columns=["method", "kind", "x", "mean_accuracy"]).assign(
        dataset="d", std_accuracy=1.0, mean_sv=20.0, std_sv=2.0)
    spec = {"values": [1, 2, 3], "methods": {"pca": {}, "lda": {}, "gpk": {"values": [1, 2]}, "svm": {"method": "raw"}},
            "labels": {"pca": "SVM after PCA", "lda": "SVM after LDA", "gpk": "GPK", "svm": "SVM (no reduction)"}}
    published = pd.DataFrame([{"dataset": "d", "method": "gpk", "measure": "accuracy", "kind": "about",
                               "published": 87.0, "x_min": 1, "x_max": 2, "statistic": "mean", "source": "p"}])
    figure = holdout_curve.curve_figure("d", summary, spec, published, notes={"d": "a toy"})
    assert readable_curves(figure) == ["SVM after PCA", "SVM after LDA (ends at r = 1: c − 1)",
                                       "GPK (ends at r = 2: fitted at r = 1, 2 only)", "SVM (no reduction)"]
    accuracy, support = figure.axes
    level = [line for line in support.get_lines() if line.get_label() == "SVM (no reduction)"][0]
    assert list(level.get_ydata()) == [20.0, 20.0]
    assert accuracy.get_ylabel() == "test accuracy (%)" and "support vectors" in support.get_ylabel()
    note = " ".join(figure.texts[0].get_text().split())
    assert "ten 5×2 CV fold models" in note and "Thick segments" in note and note.endswith("d: a toy")
    curves.plot_curves(summary, spec, published, tmp_path / "a", holdout_curve.curve_figure)
    curves.plot_curves(summary, spec, published, tmp_path / "b", holdout_curve.curve_figure)
    assert (tmp_path / "a" / "curves_d.png").read_bytes() == (tmp_path / "b" / "curves_d.png").read_bytes()
