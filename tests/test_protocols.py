"""Protocols as config: partitions, the dimension-curve protocol and the config schema."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.decomposition import PCA
from sklearn.neighbors import KNeighborsClassifier

from locproj.data import per_class_splits
from locproj.engine.config import partition_key, partition_size, split_path
from locproj.experiments import aggregate_experiment, job_config
from locproj.methods import LocallyEmbeddedAnalysis
from locproj.protocols import dimension_curve, protocol_of
from locproj.engine.results import read_result, write_result
from locproj.engine.selection import SplitResult, run_split

ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------- partitions


@pytest.mark.parametrize("size, key", [(3, "m3"), (25, "m25"), (0.25, "f0.25"), (0.5, "f0.5"), (3.0, "m3")])
def test_a_training_size_has_a_key_and_back(size, key):
    assert partition_key(size) == key
    assert partition_size(key) == size


@pytest.mark.parametrize("bad", [0, 1.5, -0.25, True, "3"])
def test_a_training_size_that_is_neither_a_count_nor_a_fraction_is_refused(bad):
    with pytest.raises(ValueError, match="count per class"):
        partition_key(bad)


def test_split_files_keep_table2s_names_and_name_longer_or_fractional_ones():
    config = {"n_splits": 20, "views": {"yale_jpeg": {"dataset": "yale", "jpeg_quality": 75}}}
    assert split_path(config, "yale", "m6", 20) == "results/splits/yale_m6.h5"
    assert split_path(config, "yale", "m6", 5) == "results/splits/yale_m6.h5"      # the first 5 of 20
    assert split_path(config, "yale", "m6", 100) == "results/splits/yale_m6_n100.h5"
    assert split_path(config, "yale_jpeg", "f0.25", 100) == "results/splits/yale_f0.25_n100.h5"
    assert split_path(config, "yale", "holdout") == "results/splits/yale_holdout.h5"


def test_a_fraction_of_each_class_is_rounded_half_up_per_class():
    y = np.repeat(np.arange(4), [19, 22, 26, 48])
    train, test = per_class_splits(y, 0.25, n_splits=3, seed=1)
    for row, rest in zip(train, test):
        assert np.bincount(y[row]).tolist() == [5, 6, 7, 12]          # 4.75, 5.5, 6.5, 12
        assert len(np.intersect1d(row, rest)) == 0 and len(row) + len(rest) == len(y)


def test_more_splits_of_a_count_extend_the_same_sequence():
    y = np.repeat(np.arange(5), 10)
    short, _ = per_class_splits(y, 3, n_splits=20, seed=9)
    long, _ = per_class_splits(y, 3, n_splits=100, seed=9)
    assert np.array_equal(long[:20], short)


# --------------------------------------------------------------------------- the curve protocol


def test_job_config_asks_for_curves_only_in_the_curve_protocol():
    methods = {"pca": {}}
    config = {"seed": 1, "datasets": {}, "experiments": {
        "table": {"datasets": {"d": [5]}, "methods": methods},
        "curve": {"protocol": "dimension_curve", "datasets": {"d": [5]}, "methods": methods},
    }}
    assert "test_curve" not in job_config(config, "table", "d", "pca")   # Table 2's job parameters unchanged
    assert job_config(config, "curve", "d", "pca")["test_curve"] is True
    assert protocol_of(config["experiments"]["table"]).name == "cv_table"
    with pytest.raises(ValueError, match="unknown protocol"):
        protocol_of({"protocol": "bootstrap"})


def _blobs(seed=0, n_per_class=12, n_classes=4, n_features=30):
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=2.0, size=(n_classes, n_features))
    X = np.concatenate([c + rng.normal(size=(n_per_class, n_features)) for c in centers])
    return X, np.repeat(np.arange(n_classes), n_per_class)


def _one_nn_error(Z_train, y_train, Z_test, y_test):
    return np.mean(KNeighborsClassifier(n_neighbors=1).fit(Z_train, y_train).predict(Z_test) != y_test)


@pytest.mark.parametrize("method", ["pca", "lea"])
def test_the_curve_equals_a_refit_at_every_dimension(method):
    X, y = _blobs()
    X_test, y_test = _blobs(seed=1)
    fixed = {"n_neighbors": 4, "reg": 0.01, "supervised": True}

    def make(params, **extra):
        return PCA(**params, **extra) if method == "pca" else LocallyEmbeddedAnalysis(**fixed, **params, **extra)

    result = run_split(X, y, X_test, y_test, method=method, new_estimator=make, m=12, p_max=20, n_folds=3, seed=0,
                     test_curve=True)
    curve_errors = result.test_error_curve
    assert curve_errors.shape == (20,)
    for p in range(1, 21):
        model = make({}, n_components=p).fit(X, y)
        assert curve_errors[p - 1] == _one_nn_error(model.transform(X), y, model.transform(X_test), y_test), p
    assert result.test_error == curve_errors[result.p - 1]


def test_cv_chooses_the_dimension_a_constructed_problem_needs():
    """Eight classes on a circle in the two highest-variance directions, then weaker noise: one
    direction folds the circle onto itself, more than two only add noise."""
    rng = np.random.default_rng(3)
    angles = 2 * np.pi * np.arange(8) / 8

    def circle(n_per_class):
        centers = 10.0 * np.column_stack([np.cos(angles), np.sin(angles)])    # variance 50 per direction
        signal = np.repeat(centers, n_per_class, axis=0) + rng.normal(scale=1.0, size=(8 * n_per_class, 2))
        noise = rng.normal(scale=4.0, size=(8 * n_per_class, 40))              # variance 16 per direction
        return np.hstack([signal, noise]), np.repeat(np.arange(8), n_per_class)

    X, y = circle(30)
    X_test, y_test = circle(30)
    result = run_split(X, y, X_test, y_test, method="pca", new_estimator=lambda params: PCA(**params), m=30, p_max=42,
                     n_folds=5, seed=0, test_curve=True)
    assert result.p == 2
    assert result.test_error == result.test_error_curve[1] < 0.1
    assert result.test_error_curve[0] > 0.3 and result.test_error_curve[-1] > 0.3


def _result(dataset, m, method, split, curve_errors, p):
    curve_errors = np.asarray(curve_errors, dtype=float)
    return SplitResult(
        method=method, classifier="1nn", classifier_params={}, grid=[{}], cv_error=np.zeros((1, curve_errors.size)),
        cv_fold_error=np.zeros((2, 1, curve_errors.size)), capped=[], grid_index=0, params={}, p=p, projected=True,
        test_error=float(curve_errors[p - 1]), test_predictions=np.zeros(4), test_indices=None, fit_seconds=0.0,
        cv_seconds=0.0, n_folds=2, cv_seed=0, p_max=10, test_error_curve=curve_errors,
        meta={"experiment": "c", "dataset": dataset, "m": m, "split": split},
    )


@pytest.fixture
def curve_files(tmp_path):
    curves = {  # (method, split) -> (curve, CV-chosen p)
        ("pca", 0): ([0.5, 0.3, 0.2, 0.2], 4), ("pca", 1): ([0.6, 0.4, 0.1, 0.3], 2),
        ("lea", 0): ([0.4, 0.1, 0.3], 3), ("lea", 1): ([0.2, 0.2, 0.2], 1),
    }
    paths = []
    for (method, split), (errors, p) in curves.items():
        path = tmp_path / f"{method}{split}.h5"
        write_result(path, _result("orl", 0.25, method, split, errors, p))
        paths.append(path)
    return paths


def test_the_lowest_error_is_the_mean_of_each_partitions_minimum_and_first_arg_min(curve_files):
    results, long = dimension_curve.collect(curve_files)
    lowest, by_cv = dimension_curve.summarise(results, ["pca", "lea"])
    row = lowest.set_index("method")
    assert row.loc["pca", "mean_error"] == pytest.approx(100 * (0.2 + 0.1) / 2)
    assert row.loc["pca", "mean_dim"] == pytest.approx((3 + 3) / 2)        # the first of the tied minima
    assert row.loc["lea", "mean_error"] == pytest.approx(100 * (0.1 + 0.2) / 2)
    assert row.loc["lea", "mean_dim"] == pytest.approx((2 + 1) / 2)
    honest = by_cv.set_index("method")
    assert honest.loc["pca", "mean_error"] == pytest.approx(100 * (0.2 + 0.4) / 2)
    assert honest.loc["pca", "mean_dim"] == pytest.approx(3)
    assert set(lowest["m"]) == {0.25}                                   # a fraction stays a fraction
    table = dimension_curve.curve_summary(long).set_index(["method", "dim"])
    assert table.loc[("pca", 3), "mean_error"] == pytest.approx(15.0)
    assert table.loc[("lea", 3), "n_splits"] == 2


def test_curve_outputs_are_written_beside_the_published_numbers_and_reproducible(curve_files, tmp_path):
    published = tmp_path / "published.csv"
    published.write_text("# no std\ndataset,m,method,mean_error,std_error,mean_dim\norl,0.25,lea,1.0,,40\n"
                         "orl,0.25,pca,15.2,,88\n")
    spec = {"protocol": "dimension_curve", "datasets": {"orl": [0.25]}, "methods": {"pca": {}, "lea": {}},
            "table_name": "fig4", "published": str(published),
            "reasons": [{"dataset": "orl", "method": "lea", "reason": "data version"}]}
    outputs = {}
    for run in ("a", "b"):
        out = tmp_path / run
        aggregate_experiment(spec, curve_files, out, seed=1, notes={"orl": "32x32, not 32x39"})
        outputs[run] = {p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    assert outputs["a"] == outputs["b"]
    names = {str(p) for p in outputs["a"]}
    assert {"fig4.csv", "fig4.md", "fig4.tex", "comparison.csv", "comparison.md", "curves.csv",
            "figures/curve_orl.png", "figures/curve_orl.pdf", "metadata.yaml"} <= names
    comparison = outputs["a"][Path("comparison.md")].decode()
    # lea: 15.0 vs 1.0 is beyond our std (7.1), so it needs its reason; pca: 15.0 vs 15.2 is within it
    assert "data version" in comparison and "orl†" in comparison and "32x32, not 32x39" in comparison
    table = outputs["a"][Path("fig4.md")].decode()
    assert "Lowest test error over dimensions" in table and "inner cross-validation" in table


def test_the_curve_figure_says_what_it_draws_and_why_a_curve_ends(tmp_path, readable_curves):
    paths = []
    for split, (pca, lda) in enumerate([([0.5, 0.3, 0.2, 0.25], [0.4, 0.1]), ([0.6, 0.4, 0.3, 0.35], [0.2, 0.3])]):
        for method, errors in (("pca", pca), ("lda", lda)):
            write_result(tmp_path / f"{method}{split}.h5", _result("orl", 3, method, split, errors, 1))
            paths.append(tmp_path / f"{method}{split}.h5")
        raw = _result("orl", 3, "raw", split, [0.3], 1)
        raw.test_error_curve, raw.projected, raw.test_error = None, False, 0.2 + 0.1 * split
        write_result(tmp_path / f"raw{split}.h5", raw)
        paths.append(tmp_path / f"raw{split}.h5")
    results, long = dimension_curve.collect(paths)
    spec = {"methods": {"raw": {}, "pca": {}, "lda": {}}, "labels": {"pca": "PCA", "lda": "LDA", "raw": "pixels"},
            "p_max": 300}
    lowest, _ = dimension_curve.summarise(results, list(spec["methods"]))
    figure = dimension_curve.curve_figure("orl", dimension_curve.curve_summary(long), lowest, spec,
                                          notes={"orl": "32x32, not 32x39"})
    labels = readable_curves(figure)
    assert labels[:3] == ["pixels (no projection)", "PCA", "LDA (ends at p = 2: c − 1)"]
    [ax] = figure.axes
    baseline = [line for line in ax.get_lines() if line.get_label() == "pixels (no projection)"][0]
    assert list(baseline.get_ydata()) == pytest.approx([25.0, 25.0])           # raw's mean error, flat
    assert len(ax.collections) == 2 and len(ax.patches) == 1       # the bands of PCA and LDA; raw's ± one std
    note = " ".join(figure.texts[0].get_text().split())
    assert "over 2 partitions" in note and "orl: 32x32, not 32x39" in note
    assert "projections p" in ax.get_xlabel() and ax.get_ylabel() == "1-NN test error (%)"


def test_a_result_without_a_curve_reads_back_as_none(tmp_path):
    result = _result("orl", 3, "pca", 0, [0.3, 0.2], 2)
    result.test_error_curve = None
    write_result(tmp_path / "r.h5", result)
    assert read_result(tmp_path / "r.h5")["test_error_curve"] is None


# --------------------------------------------------------------------------- the config schema


def _validate(experiments):
    """As the pipeline validates: the schema completed from the code (locproj.workflow)."""
    from locproj.workflow import validate_config

    config = {"datasets": {"d": {"format": "sklearn_digits"}}, "experiments": experiments}
    validate_config(config, ROOT / "workflow" / "schemas" / "config.schema.yaml")
    return config


def test_the_schema_checks_each_protocols_keys():
    from locproj.errors import ConfigError

    config = _validate({"t": {"datasets": {"d": [5, 0.25]}, "methods": {"pca": {}}}})
    assert config["experiments"]["t"]["protocol"] == "cv_table"        # the default
    _validate({"e": {"protocol": "embedding", "panels": {"p": {"dataset": "d", "method": "pca"}},
                     "figures": {"f": {"panels": ["p"]}}}})
    bad = [
        {"e": {"protocol": "embedding", "datasets": {"d": [5]}, "methods": {"pca": {}},
               "panels": {"p": {"dataset": "d"}}, "figures": {"f": {"panels": ["p"]}}}},
        {"t": {"protocol": "dimension_curve", "datasets": {"d": [5]}}},             # no methods
        {"t": {"datasets": {"d": [1.5]}, "methods": {"pca": {}}}},                  # neither count nor fraction
        {"e": {"protocol": "embedding", "panels": {"p": {"dataset": "d", "colour": "rainbow"}},
               "figures": {"f": {"panels": ["p"]}}}},
        {"t": {"protocol": "bootstrap", "datasets": {"d": [5]}, "methods": {"pca": {}}}},
    ]
    for experiments in bad:
        with pytest.raises(ConfigError):
            _validate(experiments)


@pytest.mark.parametrize("change, key", [
    ({"seed": -1}, "seed"),
    ({"experiments": {"t": {"datasets": {"d": [5]}, "methods": {"pca": {}}, "p_max": 0}}}, "p_max"),
    ({"experiments": {"t": {"datasets": {"d": [5]}, "methods": {"pca": {}}, "classifier": "3nn"}}}, "classifier"),
    ({"experiments": {"t": {"datasets": {"d": [5]}, "methods": {"lpp": {"grid": {}}}}}}, "grid"),
    ({"experiments": {"t": {"datasets": {"d": [5]}, "methods": {"lpp": {"grid": {"n_neighbors": []}}}}}},
     "n_neighbors"),
    ({"experiments": {"t": {"datasets": {"d": [5]}, "methods": {"lpp": {"grid": {"gamma": {"sigma0_sq_times": []}}}}}}},
     "gamma"),
    ({"experiments": {"t": {"datasets": {"d": ["five"]}, "methods": {"pca": {}}}}}, "datasets"),
    ({"n_splits": 0}, "n_splits"),
])
def test_a_config_value_of_the_wrong_type_or_range_is_refused_naming_its_key(change, key):
    from locproj.errors import ConfigError
    from locproj.workflow import validate_config

    config = {"datasets": {"d": {"format": "sklearn_digits"}}, **change}
    with pytest.raises(ConfigError, match=key) as info:
        validate_config(config, ROOT / "workflow" / "schemas" / "config.schema.yaml")
    message = str(info.value)                          # what the pipeline prints (tests/test_user_errors.py)
    assert message.startswith("config key ") and key in message.split(":")[0] and "fix the value" in message


# --------------------------------------------------------------------------- the protocol contract


def test_a_protocol_that_lacks_a_required_method_fails_when_it_is_defined():
    from locproj.protocols.split_jobs import SplitProtocol

    class NoAggregation(SplitProtocol):
        name = "no_aggregation"

    with pytest.raises(TypeError, match="abstract method '?aggregate"):
        NoAggregation()               # a protocol module's `PROTOCOL = ...`: its import fails
    with pytest.raises(TypeError, match="protocol class Nameless sets no `name`"):
        class Nameless(NoAggregation):
            name = ""

            def aggregate(self, spec, inputs, out_dir, seed=None, notes=None):
                return None


def test_every_method_of_the_contract_says_what_it_must_do():
    from locproj.protocols.base import Protocol

    methods = [name for name, value in vars(Protocol).items() if callable(value) and not name.startswith("_")]
    assert {"jobs", "result_path", "job_rules", "aggregate", "outputs", "fidelity_points", "run_job"} <= set(methods)
    assert all(len((getattr(Protocol, name).__doc__ or "").split()) >= 10 for name in methods), methods


def test_rules_that_run_run_job_need_a_protocol_with_run_job(monkeypatch):
    from locproj import protocols
    from locproj.errors import ConfigError
    from locproj.experiments import check_experiments
    from locproj.protocols.base import JobRule, Protocol

    class NoRun(Protocol):
        name = "no_run"

        def jobs(self, config, experiment):
            return [("digits",)]

        def result_path(self, experiment, dataset):
            return f"results/{experiment}/{dataset}.h5"

        def job_rules(self, config, experiment):
            return [JobRule("fit", [self.result_path(experiment, "{dataset}")], "log", {}, {}, "run_job.py", 1)]

        def aggregate(self, spec, inputs, out_dir, seed=None, notes=None):
            return None

        def outputs(self, experiment, spec):
            return []

    module = type(protocols)("no_run.protocol")
    module.PROTOCOL = NoRun()
    monkeypatch.setitem(sys.modules, "no_run.protocol", module)
    monkeypatch.setitem(protocols.PROTOCOLS, "no_run", "no_run.protocol")
    config = {"seed": 0, "datasets": {"digits": {"format": "sklearn_digits"}},
              "experiments": {"e": {"protocol": "no_run", "datasets": {"digits": [5]}, "methods": {}}}}
    with pytest.raises(ConfigError, match="experiment 'e': the no_run protocol's job rules run run_job.py, but it "
                                          "has no run_job method"):
        check_experiments(config)
