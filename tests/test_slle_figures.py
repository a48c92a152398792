"""Paper 004's Figs. 1-4 on the embedding protocol: the sine-shaped manifold, per-sample attribute
panels, subsets, per-class splits and the nearest-mean classifier drawn in a panel."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.neighbors import NearestCentroid

from locproj.data import make_splits, prepare_dataset, read_dataset_file
from locproj.data.manifolds import generate_sine_manifold
from locproj.data.prepare import Dataset, write_dataset
from locproj.protocols.embedding import (
    aggregate_embedding, binned_medians, border_samples, check_spec, per_class_split, read_panel, run_panel,
)
from locproj.engine.registry import make_estimator

ROOT = Path(__file__).resolve().parents[1]
SEED = 20070620
SINE = {"format": "sine_manifold_generator", "n_samples": 1000, "noise": 0.01, "amplitude": 0.5, "periods": 1}
LLE_AUTO = {"n_neighbors": 15, "reg": "auto", "n_components": 0.9}


# --------------------------------------------------------------------------- the generator


def test_sine_manifold_is_seeded_with_the_stated_shape_and_noise():
    X = generate_sine_manifold(1000, noise=0.01, seed=3)
    assert X.shape == (1000, 3)
    assert np.array_equal(X, generate_sine_manifold(1000, noise=0.01, seed=3))
    assert not np.array_equal(X, generate_sine_manifold(1000, noise=0.01, seed=4))
    clean = generate_sine_manifold(1000, noise=0.0, seed=3)
    assert np.allclose(clean[:, 2], 0.5 * np.sin(2 * np.pi * clean[:, 0]))
    assert clean[:, :2].min() >= 0 and clean[:, :2].max() <= 1
    noise = X - clean                               # the same draws of x and y, then the noise
    assert noise.std() == pytest.approx(0.01, rel=0.05) and abs(noise.mean()) < 1e-3


def test_the_sine_dataset_is_prepared_from_the_master_seed_without_labels(tmp_path):
    data = prepare_dataset("sine_manifold", SINE, [], tmp_path / "a.h5", seed=SEED)
    again = prepare_dataset("sine_manifold", SINE, [], tmp_path / "b.h5", seed=SEED)
    assert data.y is None and data.X.shape == (1000, 3) and data.attrs["generator_seed"] == SEED
    assert np.array_equal(data.X, again.X) and np.array_equal(read_dataset_file(tmp_path / "a.h5").X, data.X)
    assert np.array_equal(data.X, generate_sine_manifold(1000, noise=0.01, seed=SEED))


def test_the_config_declares_the_sine_manifold_of_fig_1(config):
    import copy

    from snakemake.utils import validate

    config = copy.deepcopy(config)
    validate(config, str(ROOT / "workflow" / "schemas" / "config.schema.yaml"))   # fills the panel defaults
    spec = config["datasets"]["sine_manifold"]
    assert spec["format"] == "sine_manifold_generator" and spec["n_samples"] == 1000 and spec["noise"] == 0.01
    for name in ("slle_manifold", "slle_faces", "slle_digits123_maps"):
        assert name in config["targets"]["slle_paper"]
        check_spec(config["experiments"][name])


# --------------------------------------------------------------------------- Figs. 1-2 panels


@pytest.fixture(scope="module")
def sine_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("sine") / "sine_manifold.h5"
    prepare_dataset("sine_manifold", SINE, [], path, seed=SEED)
    return path


def sine_panels():
    lle = {"dataset": "sine_manifold", "method": "lle", "colour": {"feature": 0}}
    subset = {**lle, "params": {**LLE_AUTO, "n_subset": 300}, "select": "subset_"}
    return {
        "data": {"kind": "embedding", "dataset": "sine_manifold", "method": "raw", "dims": 3, "colour": {"feature": 0}},
        "auto": {"kind": "embedding", **lle, "params": LLE_AUTO, "report": ["n_components_"]},
        "sigma2": {"kind": "attribute", **lle, "params": LLE_AUTO, "attribute": "noise_variances_", "feature": 0},
        "subset_input": {"kind": "embedding", **subset, "space": "input", "dims": 3},
        "subset_lle": {"kind": "embedding", **subset},
    }


@pytest.fixture(scope="module")
def sine_results(sine_file, tmp_path_factory):
    root = tmp_path_factory.mktemp("sine_panels")
    spec = {"protocol": "embedding", "panels": sine_panels(),
            "figures": {"fig": {"panels": list(sine_panels()), "columns": 3}}}
    check_spec(spec)
    paths = {name: root / f"{name}.h5" for name in spec["panels"]}
    for name, panel in spec["panels"].items():
        run_panel(panel, sine_file, paths[name], seed=SEED)
    return spec, paths


def fitted_lle(sine_file, **params):
    from locproj.data import derived_seed

    X = read_dataset_file(sine_file).X
    seed = derived_seed(SEED, "embedding", "sine_manifold") % 2**32
    return X, make_estimator("lle", random_state=seed, **params).fit(X)


def test_raw_panels_draw_the_input_coloured_by_a_coordinate(sine_file, sine_results):
    X = read_dataset_file(sine_file).X
    data = read_panel(sine_results[1]["data"])
    assert np.array_equal(data["train_embedding"], X) and np.array_equal(data["train_colour"], X[:, 0])


def test_sigma2_panel_values_are_the_estimators_noise_variances(sine_file, sine_results):
    X, lle = fitted_lle(sine_file, **LLE_AUTO)
    panel = read_panel(sine_results[1]["sigma2"])
    assert np.array_equal(panel["train_attribute"], lle.noise_variances_)
    assert np.array_equal(panel["train_feature"], X[:, 0])


def test_subset_panels_hold_the_estimators_subset_in_input_and_embedding_space(sine_file, sine_results):
    X, lle = fitted_lle(sine_file, **LLE_AUTO, n_subset=300)
    inputs, mapped = (read_panel(sine_results[1][name]) for name in ("subset_input", "subset_lle"))
    assert np.array_equal(inputs["selected_index"], lle.subset_) and len(lle.subset_) == 300
    assert np.array_equal(mapped["selected_index"], lle.subset_)
    assert np.array_equal(inputs["train_input"], X) and np.allclose(mapped["train_embedding"], lle.embedding_)


def test_reported_dimension_goes_to_the_checks_table(sine_results, tmp_path):
    spec, paths = sine_results
    aggregate_embedding(spec, paths, tmp_path)
    checks = pd.read_csv(tmp_path / "checks.csv")
    assert checks["panel"].tolist() == ["auto"] and checks["n_components_"].tolist() == [2]
    assert "test_error" not in checks and (tmp_path / "figures" / "fig.png").stat().st_size > 0


# --------------------------------------------------------------------------- Fig. 4 panels


@pytest.fixture(scope="module")
def blobs_file(tmp_path_factory):
    """Three overlapping 5-D Gaussian classes of 60 samples, labelled "1", "2", "3"."""
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(loc=c, size=(60, 5)) for c in (0.0, 1.5, 3.0)])
    y = np.repeat(np.arange(3), 60)
    path = tmp_path_factory.mktemp("blobs") / "blobs.h5"
    write_dataset(path, Dataset(X, y, ["1", "2", "3"], (1, 5), {"dataset": "blobs"}))
    return path


def classifier_panel(method="slle", params=None, draw="novel"):
    params = {"alpha": 0.1, "n_neighbors": 10, "reg": "auto"} if params is None else params
    return {"kind": "embedding", "dataset": "blobs", "method": method, "params": params, "colour": "label",
            "split": {"per_class": 20}, "draw": draw, "classifier": "nearest_mean", "images": 4}


@pytest.mark.parametrize("method, params", [("slle", None), ("lda", {})])
def test_panel_error_is_nearest_centroids_on_the_same_2d_coordinates(method, params, blobs_file, tmp_path):
    run_panel(classifier_panel(method, params), blobs_file, tmp_path / "p.h5", seed=SEED)
    result = read_panel(tmp_path / "p.h5")
    model = NearestCentroid().fit(result["train_embedding"][:, :2], result["train_labels"])
    expected = np.mean(model.predict(result["novel_embedding"][:, :2]) != result["novel_labels"])
    assert result["test_error"] == expected and result["classifier"] == "nearest_mean"
    assert result["train_error"] == np.mean(model.predict(result["train_embedding"][:, :2]) != result["train_labels"])
    assert np.allclose(result["class_means"], model.centroids_)
    assert len(result["border_index"]) >= 2 and result["border_images"].shape[1] == 5


def test_per_class_split_is_seeded_and_is_the_first_split_of_the_partition():
    y = np.repeat(np.arange(3), [40, 50, 60])
    train, test = per_class_split(y, 20, "blobs", SEED)
    assert np.bincount(y[train]).tolist() == [20, 20, 20] and len(test) == 150 - 60
    assert not set(train) & set(test)
    partition, _, _, _ = make_splits(y, "per_class", 20, 10, SEED, "blobs")
    assert np.array_equal(train, partition[0])       # as slle_digits123's split 0
    assert not np.array_equal(train, per_class_split(y, 20, "blobs", SEED + 1)[0])
    with pytest.raises(ValueError, match="seed"):
        per_class_split(y, 20, "blobs", None)


def test_train_and_test_panels_share_the_fit_and_the_checks_list_errors(blobs_file, tmp_path):
    spec = {"protocol": "embedding",
            "panels": {"train": classifier_panel(draw="train"), "test": classifier_panel(draw="novel")},
            "figures": {"fig": {"panels": ["train", "test"], "columns": 2}}}
    paths = {name: tmp_path / f"{name}.h5" for name in spec["panels"]}
    for name, panel in spec["panels"].items():
        run_panel(panel, blobs_file, paths[name], seed=SEED)
    train, test = read_panel(paths["train"]), read_panel(paths["test"])
    assert np.array_equal(train["train_embedding"], test["train_embedding"])
    aggregate_embedding(spec, paths, tmp_path / "out", notes={"blobs": "synthetic"})
    checks = pd.read_csv(tmp_path / "out" / "checks.csv")
    assert checks["test_error"].tolist() == pytest.approx([test["test_error"]] * 2, rel=1e-9)
    assert checks["n_train"].tolist() == [60, 60] and checks["n_novel"].tolist() == [120, 120]
    assert "test_error" in (tmp_path / "out" / "checks.md").read_text()


# --------------------------------------------------------------------------- helpers and validation


def test_border_samples_are_the_outermost_points_and_medians_follow_the_bins():
    Z = np.array([[0.0, 0.0], [0.1, 0.2], [5.0, 0.0], [-5.0, 0.0], [0.0, 3.0], [0.0, -3.0]])
    assert sorted(border_samples(Z, 4).tolist()) == [2, 3, 4, 5]
    centers, medians = binned_medians([0.0, 0.1, 0.9, 1.0], [1.0, 3.0, 5.0, 5.0], bins=2)
    assert centers.tolist() == [0.25, 0.75] and medians.tolist() == [2.0, 5.0]


@pytest.mark.parametrize("change, message", [
    ({"colour": {"feature": -1}}, "colour must be"),
    ({"colour": {"column": 0}}, "colour must be"),
    ({"split": {"per_class": 0}}, "split must be"),
    ({"split": {"per_class": 20}, "novel": {"every": 5}}, "split and novel"),
    ({"draw": "test"}, "draw must be one of"),
    ({"space": "latent"}, "space must be one of"),
    ({"classifier": "svm"}, "classifier must be one of"),
    ({"select": "subset"}, "select must name a fitted attribute"),
    ({"report": "n_components_"}, "report must be a list"),
    ({"images": 0}, "images must be"),
    ({"images": 3, "dims": 3, "params": {"n_components": 3}}, "images must be"),
    ({"kind": "attribute"}, "kind 'attribute' needs attribute"),
    ({"kind": "attribute", "attribute": "noise_variances_", "feature": "x"}, "feature must be"),
    ({"axis_labels": ["only one"]}, "axis_labels must list 2"),
])
def test_check_spec_rejects_bad_new_options_naming_the_panel(change, message):
    panel = {"kind": "embedding", "dataset": "blobs", "method": "lle", "params": {}, **change}
    spec = {"protocol": "embedding", "panels": {"bad_panel": panel}, "figures": {}}
    with pytest.raises(ValueError, match=f"panel 'bad_panel': {message}"):
        check_spec(spec)


def test_runtime_errors_name_the_missing_attribute_or_data(sine_file, blobs_file, tmp_path):
    with pytest.raises(ValueError, match="has no attribute 'nothing_'"):
        run_panel({"kind": "attribute", "dataset": "s", "method": "lle", "params": LLE_AUTO,
                   "attribute": "nothing_"}, sine_file, tmp_path / "a.h5")
    unlabelled = {**classifier_panel("lle", {"n_neighbors": 10}), "split": None}
    del unlabelled["images"], unlabelled["colour"], unlabelled["split"]
    with pytest.raises(ValueError, match="classifier 'nearest_mean' asked for, but .* has no labels"):
        run_panel(unlabelled, sine_file, tmp_path / "b.h5", seed=SEED)
    with pytest.raises(ValueError, match="draws images, but .* holds no image shape"):
        run_panel({**unlabelled, "classifier": None, "images": 3}, sine_file, tmp_path / "b.h5", seed=SEED)
    with pytest.raises(ValueError, match="needs the config's seed"):
        run_panel(classifier_panel(), blobs_file, tmp_path / "c.h5")


def test_fig4_panels_on_usps_digits_1_2_3(config, mirror, tmp_path):
    """The real data: USPS 1-3 (mirror), 250 per class; SLLE alpha = 1 separates the training classes."""
    from locproj.data import write_view

    spec = config["datasets"]["usps_11000"]
    data = prepare_dataset("usps_11000", spec, [mirror / "USPS_roweis_11000.mat"], tmp_path / "usps.h5")
    view = write_view(data, {"relabel": {"1": ["1"], "2": ["2"], "3": ["3"]}, "scale": "unit_interval"},
                      "usps123", tmp_path / "usps123.h5")
    assert view.X.min() == 0 and view.X.max() == 1 and np.bincount(view.y).tolist() == [1100] * 3
    panel = {**classifier_panel(params={"alpha": 1.0, "n_neighbors": 30, "reg": "auto"}), "dataset": "usps123",
             "split": {"per_class": 250}, "images": None}
    del panel["images"]
    run_panel(panel, tmp_path / "usps123.h5", tmp_path / "p.h5", seed=SEED)
    result = read_panel(tmp_path / "p.h5")
    assert len(result["train_index"]) == 750 and len(result["novel_index"]) == 2550
    assert result["train_error"] == 0.0 and result["test_error"] < 0.05
