"""A method that fails costs one cell, not the run (locproj.engine.method_failures); its output is checked;
method files import their siblings; the code's provenance ignores comments; unordered methods and the
grid values not fitted are drawn and said as they are."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from locproj.data import make_splits, prepare_dataset, write_splits
from locproj.experiments import aggregate_experiment, check_experiments, job_config, run_configured_job
from locproj.engine.method_failures import MethodError, MethodOutputError, check_output
from locproj.engine.own_methods import code_digest
from locproj.engine.results import read_result

ROOT = Path(__file__).resolve().parents[1]

FRAGILE = '''
import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.decomposition import PCA


class Fragile(TransformerMixin, BaseEstimator):
    """PCA, except on data of 64 features (digits), where it raises."""

    def __init__(self, n_components=2):
        self.n_components = n_components

    def fit(self, X, y=None):
        if np.asarray(X).shape[1] == 64:
            raise ValueError("this method cannot handle 64 features")
        self.pca_ = PCA(self.n_components).fit(X)
        return self

    def transform(self, X):
        return self.pca_.transform(X)


class ShortRows(Fragile):
    """A transform that returns one row fewer than it was given."""

    def fit(self, X, y=None):
        self.pca_ = PCA(self.n_components).fit(X)
        return self

    def transform(self, X):
        return self.pca_.transform(X)[1:]


class NotFinite(ShortRows):
    def transform(self, X):
        Z = self.pca_.transform(X)
        Z[0, 0] = np.nan
        return Z


class Wider(ShortRows):
    def transform(self, X):
        return np.hstack([self.pca_.transform(X)] * 2)
'''


@pytest.fixture()
def workdir(tmp_path):
    """A copy of the workflow with the method file beside its config."""
    for name in ("Snakefile", "workflow", "config", "profiles"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    (tmp_path / "config" / "fragile.py").write_text(FRAGILE)
    return tmp_path


def experiment_config(workdir: Path, on_error: str | None = None) -> Path:
    extra = f"    on_error: {on_error}\n" if on_error else ""
    path = workdir / "config" / "fragile.yaml"
    path.write_text("experiments:\n  fragile:\n    datasets: {digits: [10], iris: [10]}\n    n_splits: 2\n"
                    "    splits_per_job: 2\n    n_folds: 3\n    p_max: 10\n" + extra +
                    "    methods:\n      pca: {}\n      lda: {}\n"
                    "      fragile: {estimator: 'fragile:Fragile', grid: {n_components: [2, 3]}}\n")
    return path


def snakemake(workdir: Path, config: Path, mirror: Path):
    command = [sys.executable, "-m", "snakemake", "fragile", "--cores", "2", "--configfile", str(config),
               "--config", f"data_mirror={mirror}"]
    return subprocess.run(command, cwd=workdir, capture_output=True, text=True)


@pytest.mark.mirror
def test_a_method_that_fails_on_one_dataset_costs_its_cell_and_the_run_exits_0(workdir, mirror):
    done = snakemake(workdir, experiment_config(workdir), mirror)
    assert done.returncode == 0, done.stderr[-3000:]
    table = (workdir / "results" / "fragile" / "table.md").read_text()
    assert "| digits | 10 | " in table and "| failed (1) |" in table         # every other cell is there
    assert "| iris | 10 | " in table and "\n(1) fragile on digits" in table      # the cell and its footnote
    footnote = table.splitlines()[-1]
    assert footnote.startswith("(1) fragile on digits, m = 10: 2 of 2 splits failed:")
    assert "this method cannot handle 64 features (config/fragile.py:" in footnote
    assert "log: logs/fit/fragile/digits/m10/fragile/splits00-01.log" in footnote
    summary = done.stderr[done.stderr.index("failed split(s) recorded"):]
    assert summary.count("fragile on digits (m = 10") == 2 and "iris" not in summary
    metadata = yaml.safe_load((workdir / "results" / "fragile" / "metadata.yaml").read_text())
    assert [(item["dataset"], item["split"]) for item in metadata["failed"]] == [("digits", 0), ("digits", 1)]
    csv = pd.read_csv(workdir / "results" / "fragile" / "table.csv")
    assert csv.set_index(["dataset", "method"]).loc[("digits", "fragile"), "failed_splits"] == 2

    # with on_error: raise, the first failure stops the run with one message naming the method and cell
    shutil.rmtree(workdir / "results" / "fragile")
    stopped = snakemake(workdir, experiment_config(workdir, "raise"), mirror)
    output = stopped.stdout + stopped.stderr
    assert stopped.returncode != 0
    assert output.count("method 'fragile' failed on digits (m10, split 0) in experiment 'fragile': ValueError: "
                        "this method cannot handle 64 features") == 1
    assert 'File "config/fragile.py"' in output and "Traceback" not in output      # the method's frame only


@pytest.fixture()
def digits(digits_m6):
    return digits_m6


@pytest.fixture(scope="module")
def few(tmp_path_factory):
    """60 samples of 5 features in 3 classes, split with 10 per class for training."""
    folder = tmp_path_factory.mktemp("few")
    rng = np.random.default_rng(3)
    y = np.repeat(np.arange(3), 20)
    np.savez(folder / "few.npz", X=rng.normal(size=(60, 5)) + y[:, None], y=y)
    data = prepare_dataset("few", {"format": "npz", "path": str(folder / "few.npz")}, [folder / "few.npz"],
                           folder / "digits.h5")
    train, test, folds, attrs = make_splits(data.y, "per_class", 10, 2, 5, "few")
    write_splits(folder / "splits.h5", train, test, attrs, folds)
    return folder


def config_with(folder: Path, entry: dict, protocol: dict | None = None, m: int = 6) -> dict:
    return {"seed": 5, "datasets": {"digits": {"format": "sklearn_digits"}}, "method_paths": [str(folder)],
            "experiments": {"e": {"datasets": {"digits": [m]}, "n_splits": 2, "n_folds": 3, "p_max": 10,
                                  "methods": {"mine": entry}, **(protocol or {})}}}


def run(config, digits, out, split=0, partition="m6"):
    run_configured_job(job_config(config, "e", "digits", "mine"), partition, [split], digits / "digits.h5",
                       digits / "splits.h5", [out])
    return read_result(out)


@pytest.mark.parametrize("name, expected", [
    ("ShortRows", r"transform returned an array of shape \(\d+, 2\) for (\d+) samples; expected \1 rows"),
    ("NotFinite", r"transform returned 1 non-finite values \(NaN or infinite\) in its \(\d+, 2\) array"),
    ("Wider", r"transform returned an array of shape \((\d+), 4\) for \1 samples; expected \1 rows of 2 columns"),
])
def test_a_wrong_output_names_the_cell_what_was_expected_and_what_came_back(digits, tmp_path, name, expected):
    (tmp_path / "fragile.py").write_text(FRAGILE)
    entry = {"estimator": f"fragile:{name}", "grid": {"n_components": [2]}}
    with pytest.raises(MethodError, match=r"method 'mine' failed on digits \(m6, split 1\) in experiment 'e': "
                                          r"MethodOutputError: " + expected):
        run(config_with(tmp_path, {**entry, "on_error": "raise"}), digits, tmp_path / "r.h5", split=1)
    recorded = run(config_with(tmp_path, entry), digits, tmp_path / "r.h5", split=1)     # record: a failed cell
    assert recorded["failed"] and recorded["error_type"] == "RuntimeError"
    assert "MethodOutputError" in recorded["error_message"] and recorded["error_frame"] == ""   # no frame of its


def test_a_training_output_one_row_short_is_caught():
    with pytest.raises(MethodOutputError, match=r"fit_transform returned an array of shape \(24, 3\) for 25 samples"):
        check_output(np.zeros((24, 3)), 25, what="fit_transform")
    assert check_output(np.zeros((25, 3)), 25, width=3).shape == (25, 3)


def test_a_grid_point_that_fails_has_no_cv_error_and_the_split_goes_on(digits, tmp_path):
    (tmp_path / "fragile.py").write_text(FRAGILE.replace("if np.asarray(X).shape[1] == 64:",
                                                         "if self.n_components == 3:"))
    result = run(config_with(tmp_path, {"estimator": "fragile:Fragile", "grid": {"n_components": [2, 3]}}),
                 digits, tmp_path / "r.h5")
    assert not result.get("failed") and result["p"] == 2 and result["params"]["n_components"] == 2
    assert np.isnan(result["cv_error"][1]).all() and len(result["failed_fits"]) == 3     # one per fold
    assert {item["grid_index"] for item in result["failed_fits"]} == {1}
    assert result["failed_fits"][0]["error_message"] == "this method cannot handle 64 features"


def test_method_files_import_their_siblings_at_start_up_and_in_every_job(digits, tmp_path):
    folder = tmp_path / "methods"
    folder.mkdir()
    (folder / "shared_helpers.py").write_text("def leading(n):\n    return n\n")
    (folder / "my_proj.py").write_text("from shared_helpers import leading\n\n\nCOLUMNS = leading(2)\n")
    (folder / "mine.py").write_text(FRAGILE + "\n\nfrom my_proj import COLUMNS\n\n\n"
                                    "class Sibling(ShortRows):\n    def __init__(self, n_components=COLUMNS):\n"
                                    "        self.n_components = n_components\n\n"
                                    "    def transform(self, X):\n        return self.pca_.transform(X)\n")
    config = config_with(folder, {"estimator": "mine:Sibling", "ordered": True})
    check_experiments(config)                                                   # the start-up checks
    result = run(config, digits, tmp_path / "r.h5")                             # a job
    assert not result.get("failed") and result["p"] <= 2
    before = code_digest(folder / "mine.py", [folder])
    (folder / "shared_helpers.py").write_text("def leading(n):\n    return n + 1\n")      # a sibling's code
    assert code_digest(folder / "mine.py", [folder]) != before


def test_the_code_digest_ignores_comments_docstrings_and_layout_and_follows_code(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("def f(x):\n    return x + 1\n")
    digest = code_digest(path)
    path.write_text("# a comment\ndef f(x):   # another\n\n\n    return (x +\n            1)\n")
    assert code_digest(path) == digest
    path.write_text('"""A module."""\ndef f(x):\n    """Add one."""\n    return x + 1\n')
    assert code_digest(path) == digest
    path.write_text('def f(x):\n    x = x\n    "a string after the first statement is code"\n    return x + 1\n')
    with_string = code_digest(path)
    path.write_text('def f(x):\n    x = x\n    return x + 1\n')
    assert with_string != code_digest(path) != digest
    path.write_text("def f(x):\n    return x + 2\n")
    assert code_digest(path) != digest


#: GaussianRandomProjection, unordered, on data of 5 features: fitted at 2 and 4, not at 8 and 16
SHORT_GRID = {"estimator": "sklearn.random_projection:GaussianRandomProjection", "fixed": {"random_state": 0},
              "grid": {"n_components": [2, 4, 8, 16]}}


def test_grid_values_not_fitted_are_said_in_the_log_the_table_and_the_figure(few, tmp_path, caplog):
    config = config_with(tmp_path, SHORT_GRID, m=10)
    config["experiments"]["e"]["labels"] = {"mine": "GRP"}
    paths = [tmp_path / f"s{split}.h5" for split in (0, 1)]
    with caplog.at_level("INFO"):
        run_configured_job(job_config(config, "e", "digits", "mine"), "m10", [0, 1], few / "digits.h5",
                           few / "splits.h5", paths)
    said = "n_components 8, 16 not fitted on digits: the data have 5 features"   # the job's dataset name
    assert any(said in record.getMessage() for record in caplog.records)
    assert read_result(paths[0])["skipped"] == [{"n_components": 8, "reason": "the data have 5 features"},
                                                {"n_components": 16, "reason": "the data have 5 features"}]
    aggregate_experiment(config["experiments"]["e"], paths, tmp_path / "out", seed=5, notes={})
    assert f"GRP: {said}" in (tmp_path / "out" / "table.md").read_text()
    from locproj.protocols.cv_curves import collect_cv_curves, cv_curves_figure
    from locproj.report.error_tables import collect, skipped_values

    curves, _ = collect_cv_curves(paths)
    mean = curves.groupby(["dataset", "m", "method", "p"])["cv_error"].agg(["mean", "std", "size"]).reset_index()
    figure = cv_curves_figure(mean.assign(p_max=10), method_labels={"mine": "GRP"},
                              method_entries={"mine": SHORT_GRID}, skipped=skipped_values(collect(paths)))
    legend = [text.get_text() for text in figure.legends[0].get_texts()]
    assert legend == [f"GRP (ends at p = 4: {said})"]
    assert said in " ".join(figure.texts[-1].get_text().split())


def test_an_unordered_method_in_the_dimension_curve_is_drawn_at_its_grid_with_its_own_label(few, tmp_path):
    from locproj.report.error_tables import skipped_values
    from locproj.protocols.dimension_curve import collect, curve_figure, curve_summary, summarise

    config = config_with(tmp_path, SHORT_GRID, {"protocol": "dimension_curve"}, m=10)
    config["experiments"]["e"]["methods"].update(raw={}, pca={})
    spec = {**config["experiments"]["e"], "labels": {"mine": "GRP", "raw": "pixels"}}
    paths = []
    for method in ("mine", "raw", "pca"):
        paths += [tmp_path / f"{method}{split}.h5" for split in (0, 1)]
        run_configured_job(job_config(config, "e", "digits", method), "m10", [0, 1], few / "digits.h5",
                           few / "splits.h5", paths[-2:])
    curve = read_result(paths[0])["test_error_curve"]
    assert np.isfinite(curve[[1, 3]]).all() and np.isnan(np.delete(curve, [1, 3])).all()   # p = 2 and 4
    results, long = collect(paths)
    lowest, _ = summarise(results, ["mine", "raw", "pca"])
    assert lowest.set_index("method").loc["mine", "mean_dim"] in (2, 3, 4)        # the table gives its p (a mean)
    figure = curve_figure("digits", curve_summary(long), lowest, spec, skipped=skipped_values(results))
    labels = [text.get_text() for text in figure.legends[0].get_texts()]
    assert labels[0].startswith("GRP (ends at p = 4: n_components 8, 16 not fitted")
    assert "pixels (no projection)" in labels and not any("GRP (no projection)" in label for label in labels)
    (line,) = [line for line in figure.axes[0].get_lines() if line.get_label().startswith("GRP")]
    assert list(line.get_xdata()) == [2, 4] and line.get_marker() == "o"


def test_a_holdout_job_that_fails_is_recorded_and_said_under_the_table(tmp_path):
    from locproj.data import read_dataset_file, read_splits
    from locproj.protocols import protocol_named

    (tmp_path / "fragile.py").write_text(FRAGILE)
    config = config_with(tmp_path, {"estimator": "fragile:Fragile"},
                         {"protocol": "holdout_curve", "values": [2], "C_values": [1.0]})
    config["experiments"]["e"]["datasets"] = {"digits": ["holdout"]}
    check_experiments(config)
    data = prepare_dataset("digits", {"format": "sklearn_digits"}, [], tmp_path / "d.h5")
    train, test, folds, attrs = make_splits(data.y, "holdout", None, 1, 5, "digits")
    write_splits(tmp_path / "holdout.h5", train, test, attrs, folds)
    protocol = protocol_named("holdout_curve")
    data, parts = read_dataset_file(tmp_path / "d.h5"), read_splits(tmp_path / "holdout.h5")
    protocol.run_job(job_config(config, "e", "digits", "mine", [2]), "holdout", [0], data, parts,
                     [tmp_path / "mine.h5"])
    recorded = read_result(tmp_path / "mine.h5")
    assert recorded["failed"] and recorded["block"] == "r02-02"
    assert recorded["error_frame"].endswith("fragile.py:15 in fit")
    config["experiments"]["e"]["methods"]["pca"] = {}
    protocol.run_job(job_config(config, "e", "digits", "pca", [2]), "holdout", [0], data, parts, [tmp_path / "p.h5"])
    failed = protocol.aggregate(config["experiments"]["e"], [tmp_path / "p.h5", tmp_path / "mine.h5"], tmp_path / "out")
    assert [(item["method"], item["split"]) for item in failed] == [("mine", "r02-02")]
    assert "Failed, no curve point: mine on digits (m = holdout, r02-02): ValueError: this method cannot handle 64" \
        in (tmp_path / "out" / "table.md").read_text()
