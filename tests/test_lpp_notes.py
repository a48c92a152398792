"""Paper 003 (Levada's lecture notes on LPP and kernel LPP): the out-of-sample formula (eq. 25) on
training points, the seeded two-moons and circles generators, and the ``lpp_kernel_toy`` figure of
target ``lpp_notes`` built from the config's panels."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import make_circles, make_moons
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from locproj.data import derived_seed, prepare_dataset, read_dataset_file
from locproj.data.toys import generate_circles, generate_two_moons, sklearn_random_state
from locproj.experiments import experiment_notes
from locproj.methods import KernelLPP
from locproj.methods.lpp import lpp_graph
from locproj.protocols.embedding import aggregate_embedding, check_spec, read_panel, run_panel
from locproj.protocols.embedding.drawing import _novel_marker
from locproj.protocols.embedding.samples import holdout_panel_split
from locproj.engine.registry import make_estimator

ROOT = Path(__file__).resolve().parents[1]
SEED = 20070620
KERNELS = {
    "rbf": {"kernel": "rbf", "gamma": 2.0},
    "poly2": {"kernel": "poly", "degree": 2, "gamma": 1.0, "coef0": 1.0},
    "poly5": {"kernel": "poly", "degree": 5, "gamma": 1.0, "coef0": 1.0},
}


# --------------------------------------------------------------------------- eq. 25


def _kernel(A, B, params):
    """The kernels written out (eq. 19), not through scikit-learn."""
    if params["kernel"] == "rbf":
        return np.exp(-params["gamma"] * ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=2))
    return (params["gamma"] * A @ B.T + params["coef0"]) ** params["degree"]


def _centered(K_new, K_train):
    """``k~(x, x_i) = k(x, x_i) - mean_j k(x, x_j) - mean_j k(x_j, x_i) + mean_jl k(x_j, x_l)``:
    the data centred in feature space (KernelLPP's ``center_kernel``)."""
    return K_new - K_new.mean(axis=1, keepdims=True) - K_train.mean(axis=0) + K_train.mean()


@pytest.mark.parametrize("center_kernel", [True, False], ids=["centred", "uncentred"])
@pytest.mark.parametrize("name", list(KERNELS))
def test_eq25_maps_each_training_point_to_its_training_embedding(name, center_kernel):
    X, _ = generate_two_moons(200, noise=0.05, seed=SEED)
    params = KERNELS[name]
    model = KernelLPP(n_components=4, n_neighbors=10, supervised=False, center_kernel=center_kernel,
                      column_scaling="constraint", **params).fit(X)
    alpha = model.dual_coef_
    K = _kernel(X, X, params)
    K = _centered(K, K) if center_kernel else K
    # the training embedding of eq. 20-23: y_k(i) = v_k^T phi(x_i) = sum_j alpha_k(j) K(x_i, x_j); it is
    # eq. 23's solution: y^T D y = I (alpha^T K D K alpha = 1, eq. 6's constraint) and y_k^T L y_k = lambda_k
    embedding = K @ alpha
    L, D = lpp_graph(X, None, 10, "heat", None, False)
    np.testing.assert_allclose(embedding.T @ (D @ embedding), np.eye(4), rtol=0, atol=1e-8)
    np.testing.assert_allclose(embedding.T @ (L @ embedding), np.diag(model.eigenvalues_), rtol=0,
                               atol=1e-8 * model.eigenvalues_.max())
    if not center_kernel:   # the notes' K holds the constant vector: their bottom eigenvector is (nearly)
        # trivial, every point mapped to one value (up to the solver's cut of K's small eigenvalues)
        assert model.eigenvalues_[0] < 1e-3 * model.eigenvalues_[1]
        assert np.ptp(embedding[:, 0]) < 1e-2 * np.abs(embedding[:, 0]).max()
    # eq. 25 applied to the training points themselves (transform) gives it back, as does fit_transform
    # (scikit-learn's fit().transform(): the kernel against X_fit_ recomputed for "new" points)
    scale = np.abs(embedding).max()
    np.testing.assert_allclose(model.transform(X), embedding, rtol=0, atol=1e-10 * scale)
    np.testing.assert_allclose(clone(model).fit_transform(X), embedding, rtol=0, atol=1e-10 * scale)
    # and eq. 25 as written, sum_i alpha_k(i) K(x, x_i), for points the fit has not seen
    X_new, _ = generate_two_moons(50, noise=0.05, seed=SEED + 1)
    K_new = _kernel(X_new, X, params)
    K_new = _centered(K_new, _kernel(X, X, params)) if center_kernel else K_new
    np.testing.assert_allclose(model.transform(X_new), K_new @ alpha, rtol=0, atol=1e-10 * scale)


# --------------------------------------------------------------------------- the generators


def test_two_moons_and_circles_are_seeded_and_deterministic():
    for generate, sklearn, name, extra in ((generate_two_moons, make_moons, "two_moons", {}),
                                            (generate_circles, make_circles, "circles", {"factor": 0.3})):
        X, y = generate(300, noise=0.05, seed=3, **extra)
        again, y_again = generate(300, noise=0.05, seed=3, **extra)
        assert np.array_equal(X, again) and np.array_equal(y, y_again)
        assert not np.array_equal(X, generate(300, noise=0.05, seed=4, **extra)[0])
        assert X.shape == (300, 2) and X.dtype == np.float64 and np.bincount(y).tolist() == [150, 150]
        # scikit-learn's own generator, with a random_state derived from the seed and the name
        state = sklearn_random_state(3, name)
        assert state == derived_seed(3, name) % 2**32
        reference = sklearn(300, noise=0.05, random_state=state, **extra)
        assert np.array_equal(X, reference[0]) and np.array_equal(y, reference[1])
    # the shapes: circles of radius 1 (class 0) and 0.3 (class 1); moons on unit half circles
    X, y = generate_circles(300, noise=0.0, factor=0.3, seed=3)
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), np.where(y == 0, 1.0, 0.3))
    X, y = generate_two_moons(300, noise=0.0, seed=3)
    centers = np.where(y[:, None] == 0, [0.0, 0.0], [1.0, 0.5])
    np.testing.assert_allclose(np.linalg.norm(X - centers, axis=1), 1.0)
    assert X[y == 0, 1].min() > -1e-12 and X[y == 1, 1].max() < 0.5 + 1e-12   # upper half, lower half
    with pytest.raises(ValueError, match="factor"):
        generate_circles(300, factor=1.0)
    with pytest.raises(ValueError, match="noise >= 0"):
        generate_two_moons(300, noise=-0.1)
    assert sklearn_random_state(None, "two_moons") is None


@pytest.fixture(scope="module")
def toy_files(config, tmp_path_factory):
    root = tmp_path_factory.mktemp("lpp_notes_data")
    return {name: _prepare(config, name, root / f"{name}.h5") for name in ("two_moons", "circles")}


def _prepare(config, name, path):
    prepare_dataset(name, config["datasets"][name], [], path, seed=config["seed"])
    return path


def test_the_toys_are_prepared_from_the_master_seed(config, toy_files, tmp_path):
    for name, generate in (("two_moons", generate_two_moons), ("circles", generate_circles)):
        spec = config["datasets"][name]
        data = read_dataset_file(toy_files[name])
        again = prepare_dataset(name, spec, [], tmp_path / f"{name}.h5", seed=config["seed"])
        assert data.attrs["generator_seed"] == config["seed"] and np.array_equal(data.X, again.X)
        options = {key: spec[key] for key in ("noise", "factor") if key in spec}
        X, y = generate(spec["n_samples"], seed=config["seed"], **options)
        assert np.array_equal(data.X, X) and np.array_equal(data.y, y)
        assert data.class_names == [spec["class_names"][0], spec["class_names"][1]]


# --------------------------------------------------------------------------- the figure (target lpp_notes)


@pytest.fixture(scope="module")
def validated(config):
    """The config as the workflow sees it: validated, the schema's defaults filled in."""
    from snakemake.utils import validate

    config = copy.deepcopy(config)
    validate(config, str(ROOT / "workflow" / "schemas" / "config.schema.yaml"))
    return config


def test_the_config_declares_the_lpp_notes_figure(validated):
    assert validated["targets"]["lpp_notes"] == ["lpp_kernel_toy"]
    spec = validated["experiments"]["lpp_kernel_toy"]
    check_spec(spec)
    panels = spec["panels"]
    kernels = {(p["dataset"], p["method"], (p.get("params") or {}).get("kernel")) for p in panels.values()}
    assert kernels == {(d, m, k) for d in ("two_moons", "circles")
                       for m, k in (("lpp", None), ("klpp", "rbf"), ("klpp", "poly"))}
    for panel in panels.values():   # the notes' unsupervised graph; a held-out part mapped by transform
        assert panel["params"]["supervised"] is False and panel["split"]["holdout"] > 0
        assert panel["colour"] == "label" and panel["novel_marker"]["marker"] != "o"
    assert [p for f in spec["figures"].values() for p in f["panels"]] == list(panels)


@pytest.fixture(scope="module")
def toy_results(validated, toy_files, tmp_path_factory):
    """The figure's panels and aggregation, as the workflow's embed and aggregate jobs run them."""
    root = tmp_path_factory.mktemp("lpp_notes")
    spec, seed = validated["experiments"]["lpp_kernel_toy"], validated["seed"]
    paths = {name: root / "panels" / f"{name}.h5" for name in spec["panels"]}
    for name, panel in spec["panels"].items():
        run_panel(panel, toy_files[panel["dataset"]], paths[name], seed=seed)
    aggregate_embedding(spec, paths, root, notes=experiment_notes(validated, "lpp_kernel_toy"))
    return spec, {name: read_panel(path) for name, path in paths.items()}, root


def test_the_figure_is_built_and_held_out_points_are_mapped_by_eq25(config, toy_files, toy_results):
    spec, results, root = toy_results
    for figure in spec["figures"]:
        for suffix in ("png", "pdf"):
            assert (root / "figures" / f"{figure}.{suffix}").stat().st_size > 0
    checks = pd.read_csv(root / "checks.csv")
    assert checks["panel"].tolist() == list(spec["panels"])
    assert set(checks["n_train"]) == {200} and set(checks["n_novel"]) == {100}
    for name, panel in spec["panels"].items():
        data = read_dataset_file(toy_files[panel["dataset"]])
        result = results[name]
        train, test = holdout_panel_split(data.y, panel["split"]["holdout"], panel["dataset"], config["seed"])
        assert np.array_equal(result["train_index"], train) and np.array_equal(result["novel_index"], test)
        model = make_estimator(panel["method"], n_components=2, **panel["params"]).fit(data.X[train])
        scale = np.abs(result["train_embedding"]).max()
        np.testing.assert_allclose(result["train_embedding"], model.transform(data.X[train]), atol=1e-10 * scale)
        np.testing.assert_allclose(result["novel_embedding"], model.transform(data.X[test]), atol=1e-10 * scale)


def _lda_error(result) -> float:
    """A linear classifier trained on the training points' 2-D embedding, its error on the held-out points."""
    model = LinearDiscriminantAnalysis().fit(result["train_embedding"], result["train_labels"])
    return float(np.mean(model.predict(result["novel_embedding"]) != result["novel_labels"]))


def test_kernel_lpp_separates_the_held_out_classes_where_linear_lpp_cannot(toy_results):
    spec, results, root = toy_results
    errors = pd.read_csv(root / "checks.csv").set_index("panel")["test_error"]   # nearest mean, held-out points
    for toy in ("moons", "circles"):
        linear = errors[f"{toy}_lpp"]
        assert linear >= 0.10 and _lda_error(results[f"{toy}_lpp"]) >= 0.10
        for kernel in ("rbf", "poly"):
            assert errors[f"{toy}_{kernel}"] <= 0.02 and _lda_error(results[f"{toy}_{kernel}"]) <= 0.02
    # the circles: no line of the plane separates them, so linear LPP stays near chance
    assert errors["circles_lpp"] >= 0.4
    # the RBF kernel's first coordinate alone separates the held-out points of either toy
    for toy in ("moons", "circles"):
        result = results[f"{toy}_rbf"]
        train, novel = result["train_embedding"][:, 0], result["novel_embedding"][:, 0]
        zero, one = (np.median(train[result["train_labels"] == c]) for c in (0, 1))
        assert np.all((np.sign(one - zero) * (novel - (zero + one) / 2) > 0) == (result["novel_labels"] == 1))


# --------------------------------------------------------------------------- option novel_marker


def test_novel_marker_overrides_the_held_out_style_and_is_checked():
    panel = {"kind": "embedding", "dataset": "toy", "method": "pca", "split": {"holdout": 0.3}}
    assert _novel_marker(panel, 5) == {"s": 8, "marker": "s", "linewidths": 0, "label": "test (5)"}
    styled = _novel_marker({**panel, "novel_marker": {"marker": "D", "size": 22, "edgecolor": "k"}}, 5)
    assert styled == {"s": 22, "marker": "D", "edgecolors": "k", "linewidths": 0.6, "label": "test (5)"}
    novel = _novel_marker({"novel": {"every": 3}, "novel_marker": {"edgecolor": "none"}}, 2)
    assert novel["marker"] == "*" and novel["linewidths"] == 0 and novel["label"] == "novel (2)"
    for bad, why in (({"marker": "nonsense"}, "not a matplotlib marker"), ({"size": 0}, "size"),
                     ({"edgecolor": "notacolour"}, "edgecolor"), ({"colour": "k"}, "keys"), ({}, "keys")):
        spec = {"protocol": "embedding", "panels": {"bad_panel": {**panel, "novel_marker": bad}}, "figures": {}}
        with pytest.raises(ValueError, match=f"panel 'bad_panel': novel_marker must be .*{why}"):
            check_spec(spec)
