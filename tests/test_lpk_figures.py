"""Paper 002's Figs. 1-7 and 12-13 on the embedding protocol: the four-cluster toy, input-plane
overlays of a fitted gating model, attribute bases (W_m, v_m) drawn as images, held-out splits and
the per-iteration history panel with the tau stopping marks."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import Pipeline

from locproj.data import derived_seed, make_splits, prepare_dataset, read_dataset_file
from locproj.data.prepare import Dataset, write_dataset
from locproj.data.toys import generate_four_clusters
from locproj.data.waveform import generate_waveform
from locproj.protocols.embedding import aggregate_embedding, check_spec, read_panel, run_panel
from locproj.protocols.embedding.checks import settled_iteration, tau_stop
from locproj.protocols.embedding.panels import attribute_basis
from locproj.protocols.embedding.samples import holdout_panel_split
from locproj.engine.registry import make_estimator

ROOT = Path(__file__).resolve().parents[1]
SEED = 20070620
TOY = {"format": "four_clusters_generator", "n_samples": 200, "noise": 0.5, "centre": 2.0}
LPK = {"n_regions": 2, "n_components": 1, "C": 1.0, "kernel": "linear"}
LPK_PANELS = ("lpk_paper", ["lpk_toy", "lpk_views", "lpk_olivetti", "lpk_convergence"])


# --------------------------------------------------------------------------- the toy of Fig. 1


def test_four_clusters_are_seeded_with_the_stated_shape():
    X, y = generate_four_clusters(200, seed=3)
    assert X.shape == (200, 2) and np.bincount(y).tolist() == [100, 100]
    again, _ = generate_four_clusters(200, seed=3)
    assert np.array_equal(X, again) and not np.array_equal(X, generate_four_clusters(200, seed=4)[0])
    # tests/test_lpk.py's reading: default_rng(seed), clusters in this order, 50 each
    rng = np.random.default_rng(3)
    centers = np.array([[-2.0, 2.0], [2.0, -2.0], [-2.0, -2.0], [2.0, 2.0]])
    cluster = np.repeat(np.arange(4), 50)
    assert np.array_equal(X, centers[cluster] + 0.5 * rng.standard_normal((200, 2)))
    assert np.array_equal(y, np.array([1, 1, 0, 0])[cluster])
    for k in range(4):   # sd 0.5 about each corner; opposite corners in one class
        assert np.allclose(X[cluster == k].mean(axis=0), centers[k], atol=0.2)
        assert np.allclose(X[cluster == k].std(axis=0), 0.5, rtol=0.2)
    assert np.all(y == (np.sign(X[:, 0]) != np.sign(X[:, 1])))   # the XOR (no point crosses an axis here)
    with pytest.raises(ValueError, match="multiple of 4"):
        generate_four_clusters(201)


def test_the_toy_dataset_is_prepared_from_the_master_seed(tmp_path):
    data = prepare_dataset("four_clusters", TOY, [], tmp_path / "a.h5", seed=SEED)
    assert data.attrs["generator_seed"] == SEED and data.X.shape == (200, 2)
    X, y = generate_four_clusters(200, seed=SEED)
    assert np.array_equal(data.X, X)
    assert np.array_equal(np.asarray(data.class_names)[data.y], np.array(["0", "1"])[y])


@pytest.fixture(scope="module")
def toy_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("toy") / "four_clusters.h5"
    prepare_dataset("four_clusters", TOY, [], path, seed=SEED)
    return path


def fitted_toy_lpk(toy_file, **params):
    data = read_dataset_file(toy_file)
    seed = derived_seed(SEED, "embedding", "four_clusters") % 2**32
    return data, make_estimator("lpk", random_state=seed, **{**LPK, **params}).fit(data.X, data.y)


@pytest.fixture(scope="module")
def toy_panel(toy_file, tmp_path_factory):
    panel = {"kind": "embedding", "dataset": "four_clusters", "method": "lpk", "params": LPK, "space": "input",
             "colour": "label", "overlays": ["gating_field", "gating", "decision", "projections"]}
    path = tmp_path_factory.mktemp("toy_panel") / "p.h5"
    run_panel(panel, toy_file, path, seed=SEED)
    return panel, path


def test_the_drawn_gating_boundary_is_where_eta1_is_one_half(toy_file, toy_panel):
    from matplotlib import pyplot as plt

    data, lpk = fitted_toy_lpk(toy_file)
    result = read_panel(toy_panel[1])
    gx, gy, eta = result["overlay_x"], result["overlay_y"], result["gating_grid"]
    grid = np.stack(np.meshgrid(gx, gy), axis=-1).reshape(-1, 2)
    assert np.array_equal(eta.reshape(-1, 2), lpk.gating_function(grid))
    assert np.allclose(eta.sum(axis=2), 1.0)
    assert gx.min() < data.X[:, 0].min() and gx.max() > data.X[:, 0].max()
    # the eta_1 = 0.5 contour the panel draws (matplotlib on the stored grid) lies where eta_1 = 0.5
    figure, ax = plt.subplots()
    contour = ax.contour(gx, gy, eta[:, :, 0], levels=[0.5])
    vertices = np.concatenate([path.vertices for path in contour.get_paths()])
    plt.close(figure)
    assert len(vertices) > 10
    assert np.allclose(lpk.gating_function(vertices)[:, 0], 0.5, atol=0.02)
    # one cluster of each class on either side of it (Fig. 1(a))
    side = lpk.gating_function(data.X)[:, 0] > 0.5
    for region in (side, ~side):
        assert sorted(set(data.y[region].tolist())) == [0, 1]


def test_decision_and_projection_overlays_are_the_fitted_model(toy_file, toy_panel):
    data, lpk = fitted_toy_lpk(toy_file)
    result = read_panel(toy_panel[1])
    grid = np.stack(np.meshgrid(result["overlay_x"], result["overlay_y"]), axis=-1).reshape(-1, 2)
    assert np.allclose(result["decision_grid"].ravel(), lpk.decision_function(grid))
    assert np.array_equal(result["projection_vectors"], lpk.projections_[:, :, 0])
    eta = lpk.gating_function(data.X)
    assert np.allclose(result["projection_origins"], (eta.T @ data.X) / eta.sum(axis=0)[:, None])
    assert np.allclose(result["train_input"], data.X) and np.allclose(result["train_embedding"], lpk.transform(data.X))


def test_marked_misclassified_points_are_those_the_fitted_classifier_gets_wrong(toy_file, tmp_path):
    # a linear GPK cannot separate the XOR toy: it misclassifies about half of it
    panel = {"kind": "embedding", "dataset": "four_clusters", "method": "gpk",
             "params": {"n_components": 2, "C": 1.0, "kernel": "linear"}, "colour": "label",
             "mark_misclassified": True}
    run_panel(panel, toy_file, tmp_path / "p.h5", seed=SEED)
    result = read_panel(tmp_path / "p.h5")
    data = read_dataset_file(toy_file)
    gpk = make_estimator("gpk", random_state=derived_seed(SEED, "embedding", "four_clusters") % 2**32,
                         **panel["params"]).fit(data.X, data.y)
    wrong = np.flatnonzero(gpk.predict(data.X) != data.y)
    assert len(wrong) > 0.2 * len(data.y)
    assert np.array_equal(result["misclassified_index"], wrong)
    spec = {"protocol": "embedding", "panels": {"gpk": panel}, "figures": {"gpk": {"panels": ["gpk"]}}}
    check_spec(spec)
    aggregate_embedding(spec, {"gpk": tmp_path / "p.h5"}, tmp_path)
    assert pd.read_csv(tmp_path / "checks.csv")["train_misclassified"].tolist() == [len(wrong)]
    with pytest.raises(ValueError, match="mark_misclassified must be true or false"):
        check_spec({**spec, "panels": {"gpk": {**panel, "mark_misclassified": "yes"}}})


def test_attribute_basis_stacks_the_columns_of_w_and_the_gating_weights(toy_file):
    _, lpk = fitted_toy_lpk(toy_file, n_components=2)
    panel_pipeline = Pipeline([("method", lpk)])
    rows = attribute_basis(panel_pipeline, ["projections_", "gating_coef_"])
    W = lpk.projections_
    # W_1[:, 0], W_1[:, 1], W_2 ..., v_1, v_2
    assert np.array_equal(rows, np.vstack([W[0].T, W[1].T, lpk.gating_coef_]))
    with pytest.raises(ValueError, match="holds no vectors"):
        attribute_basis(panel_pipeline, ["intercept_"])


# --------------------------------------------------------------------------- held-out split


def test_holdout_split_is_stratified_seeded_and_the_protocol_third():
    y = np.repeat([0, 1], [300, 150])
    train, test = holdout_panel_split(y, 1 / 3, "d", SEED)
    assert np.bincount(y[test]).tolist() == [100, 50] and not set(train) & set(test) and len(train) + len(test) == 450
    _, protocol_test, _, _ = make_splits(y, "holdout", None, 1, SEED, "d")
    assert np.array_equal(test, protocol_test[0])                  # the test third of the holdout protocol
    sub_train, sub_test = holdout_panel_split(y, 1 / 3, "d", SEED, n_samples=150)
    assert len(sub_train) + len(sub_test) == 150 and np.bincount(y[sub_test]).tolist() == [33, 17]
    assert np.array_equal(sub_test, holdout_panel_split(y, 1 / 3, "d", SEED, n_samples=150)[1])
    with pytest.raises(ValueError, match="seed"):
        holdout_panel_split(y, 1 / 3, "d", None)


# --------------------------------------------------------------------------- history panels (Figs. 12-13)


def test_tau_stop_on_a_synthetic_history():
    J = [100.0, 50.0, 40.0, 39.9, 39.5, 39.49]
    assert tau_stop(J, 0.01) == 4        # 39.9 >= 0.99 * 40
    assert tau_stop(J, 0.001) == 6       # 39.49 >= 0.999 * 39.5; 39.5 < 0.999 * 39.9
    assert tau_stop([3.0, 2.0, 1.0], 0.01) is None
    assert tau_stop([1.0, 1.0], 0.0) == 2
    assert settled_iteration([10.0, 5.0, 4.0, 4.01, 4.0]) == 3 and settled_iteration([1.0, 1.0]) == 1


@pytest.fixture(scope="module")
def waveform_file(tmp_path_factory):
    X, y = generate_waveform(240, seed=5)
    path = tmp_path_factory.mktemp("wave") / "wave.h5"
    write_dataset(path, Dataset(X, (y == 2).astype(np.int64), ["0+1", "2"], None, {"dataset": "wave"}))
    return path


HISTORY = {"kind": "history", "dataset": "wave", "method": "lpk",
           "params": {"n_regions": 2, "n_components": 1, "C": 10.0, "max_iter": 8, "tol": 0.0},
           "split": {"holdout": 1 / 3}, "stops": [0.01, 0.001]}


@pytest.fixture(scope="module")
def history_panel(waveform_file, tmp_path_factory):
    path = tmp_path_factory.mktemp("history") / "h.h5"
    run_panel(HISTORY, waveform_file, path, seed=SEED)
    return path


def test_history_panel_values_are_the_estimators_history(waveform_file, history_panel):
    data = read_dataset_file(waveform_file)
    result = read_panel(history_panel)
    train, test = holdout_panel_split(data.y, 1 / 3, "wave", SEED)
    assert np.array_equal(result["train_index"], train) and np.array_equal(result["novel_index"], test)
    lpk = make_estimator("lpk", random_state=derived_seed(SEED, "embedding", "wave") % 2**32, **HISTORY["params"])
    lpk.fit(data.X[train], data.y[train])
    for name, values in lpk.history_.items():
        assert np.array_equal(result[f"history_{name}"], values, equal_nan=True), name
    assert np.array_equal(result["history_support_fraction"], lpk.history_["n_support"] / len(train))
    staged = [np.mean(lpk.classes_[(f > 0).astype(int)] == data.y[test])
              for f in lpk.staged_decision_function(data.X[test])]
    assert np.array_equal(result["history_test_accuracy"], staged)
    assert result["history_test_accuracy"][-1] == lpk.score(data.X[test], data.y[test])
    checks = json.loads(result["reported"])
    assert checks["n_iter"] == lpk.n_iter_ and checks["objective_last"] == lpk.objective_
    for tau in (0.01, 0.001):
        assert checks[f"stop_tau_{tau:g}"] == tau_stop(lpk.history_["objective"], tau)
        # the estimator's own rule stops where the mark is (same seed, same path)
        stopped = make_estimator("lpk", random_state=derived_seed(SEED, "embedding", "wave") % 2**32,
                                 **{**HISTORY["params"], "tol": tau}).fit(data.X[train], data.y[train])
        assert stopped.n_iter_ == (checks[f"stop_tau_{tau:g}"] or HISTORY["params"]["max_iter"])


def test_history_and_overlay_panels_are_drawn_and_listed(toy_panel, history_panel, tmp_path):
    toy_spec, toy_path = toy_panel
    spec = {"protocol": "embedding",
            "panels": {"toy": toy_spec, "history": HISTORY},
            "figures": {"toy": {"panels": ["toy"], "columns": 1}, "history": {"panels": ["history"]}}}
    check_spec(spec)
    aggregate_embedding(spec, {"toy": toy_path, "history": history_panel}, tmp_path)
    checks = pd.read_csv(tmp_path / "checks.csv")
    assert checks["panel"].tolist() == ["history"]
    assert {"stop_tau_0.01", "stop_tau_0.001", "test_accuracy_last", "settled_objective"} <= set(checks)
    for name in ("toy", "history"):
        assert (tmp_path / "figures" / f"{name}.png").stat().st_size > 0


# --------------------------------------------------------------------------- validation and config


@pytest.mark.parametrize("change, message", [
    ({"overlays": ["gating", "boundary"]}, "overlays must be a list"),
    ({"overlays": ["gating"], "space": "embedding"}, "overlays are drawn on 2-D embedding panels"),
    ({"overlays": ["gating"], "pca": 2}, "overlays evaluate the estimator on the input plane: not with pca"),
    ({"standardize": "yes"}, "standardize must be true or false"),
    ({"basis": "projections_"}, "basis must be"),
    ({"kind": "basis", "basis": ["projections"]}, "basis must be"),
    ({"captions": "W_1"}, "captions must be"),
    ({"split": {"holdout": 1.5}}, "split must be"),
    ({"split": {"holdout": 0.3, "n_samples": 1}}, "split must be"),
    ({"split": {"per_class": 3, "holdout": 0.3}}, "split must be"),
    ({"series": [["objective"]]}, "series is an option of kind 'history'"),
    ({"kind": "history", "series": ["objective"]}, "series must be a list of groups"),
    ({"kind": "history", "series": [[]]}, "series must be a list of groups"),
    ({"kind": "history", "split": {"holdout": 0.3}, "stops": [0.0]}, "stops must be"),
    ({"kind": "history"}, "series test_accuracy needs a split"),
])
def test_check_spec_rejects_bad_new_options_naming_the_panel(change, message):
    panel = {"kind": "embedding", "dataset": "toy", "method": "lpk", "params": dict(LPK), "space": "input", **change}
    spec = {"protocol": "embedding", "panels": {"bad_panel": panel}, "figures": {}}
    with pytest.raises(ValueError, match=f"panel 'bad_panel': {message}"):
        check_spec(spec)


def test_runtime_errors_name_what_is_missing(toy_file, tmp_path):
    panel = {"kind": "embedding", "dataset": "toy", "method": "pca", "params": {"n_components": 2},
             "space": "input", "overlays": ["gating"]}
    with pytest.raises(ValueError, match="overlay 'gating' needs gating_function"):
        run_panel(panel, toy_file, tmp_path / "a.h5", seed=SEED)
    history = {**HISTORY, "dataset": "toy", "series": [["objective", "nothing"]]}
    with pytest.raises(ValueError, match=r"series \['nothing'\] are not in the history"):
        run_panel({**history, "params": {**HISTORY["params"], "max_iter": 2}}, toy_file, tmp_path / "b.h5", seed=SEED)


def test_the_config_declares_the_lpk_figures(config):
    from snakemake.utils import validate

    config = copy.deepcopy(config)
    validate(config, str(ROOT / "workflow" / "schemas" / "config.schema.yaml"))
    target, experiments = LPK_PANELS
    assert set(experiments) <= set(config["targets"][target])
    for name in experiments:
        check_spec(config["experiments"][name])
    assert config["datasets"]["four_clusters"]["format"] == "four_clusters_generator"
    olivetti = config["views"]["olivetti_gender"]["dataset"]
    assert config["datasets"][olivetti]["image_shape"] == [64, 64]     # Fig. 7 at 64x64
    convergence = config["experiments"]["lpk_convergence"]["panels"]
    for panel in convergence.values():
        assert panel["params"]["C"] == 100 and panel["params"]["max_iter"] == 25 and panel["stops"] == [0.01, 0.001]


def test_published_checks_are_compared_with_the_checks_table(tmp_path):
    from locproj.protocols.embedding.tables import compare_checks, write_check_comparison

    published = tmp_path / "published.csv"
    published.write_text(
        "# comment\nexperiment,panel,check,kind,published,slack,source\n"
        "conv,w,stop_tau_0.01,value,9,,s1\nconv,w,stop_tau_0.001,value,13,,s2\n"
        "conv,w,settled_train_accuracy,about,5,2,s3\nother,w,stop_tau_0.01,value,1,,s4\n")
    table = pd.DataFrame({"panel": ["w"], "stop_tau_0.01": [9.0], "stop_tau_0.001": [20.0],
                          "settled_train_accuracy": [4]})
    spec = {"published": str(published), "reasons": [{"reason": "any"}, {"check": "stop_tau_0.001", "reason": "tail"}]}
    compared = compare_checks(table, spec, experiment="conv")
    assert compared["source"].tolist() == ["s1", "s2", "s3"]
    assert compared["holds"].tolist() == [True, False, True]
    assert compared["reason"].tolist() == ["", "tail", ""]
    assert compared["difference"].tolist() == [0.0, 7.0, -1.0]
    write_check_comparison(compared, tmp_path)
    assert "| w | stop_tau_0.001 | value | 13 |" in (tmp_path / "comparison.md").read_text()
    with pytest.raises(ValueError, match="not in the checks table \\['w/stop_tau_0.01'\\]"):
        compare_checks(table.drop(columns=["stop_tau_0.01"]), spec, experiment="conv")
    # a stopping rule that never fired (None in the checks: too few iterations) does not hold, and says so
    never = table.astype(object).assign(**{"stop_tau_0.001": [None]})
    compared = compare_checks(never, {"published": str(published)}, experiment="conv")
    assert compared["holds"].tolist() == [True, False, True] and np.isnan(compared["ours"][1])
    assert compared["reason"][1].startswith("no value of ours")
    write_check_comparison(compared, tmp_path)
    comparison = (tmp_path / "comparison.md").read_text()
    assert "| w | stop_tau_0.001 | value | 13 |  | s2 |  |  | False | no value of ours" in comparison


def test_the_convergence_statements_name_checks_the_history_panels_make(config):
    spec = config["experiments"]["lpk_convergence"]
    published = pd.read_csv(ROOT / spec["published"], comment="#")
    assert set(published["panel"]) <= set(spec["panels"])
    for row in published.itertuples():
        stops = [f"stop_tau_{tau}" for tau in spec["panels"][row.panel]["stops"]]
        assert row.check in stops + ["settled_objective", "settled_train_accuracy", "settled_test_accuracy"]
