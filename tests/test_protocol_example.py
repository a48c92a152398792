"""The worked example of docs/protocols.md: a protocol added as one module and one registry line
runs through the engine like the built-in ones (check, job rules, job config, run, aggregation), and
with published numbers its paper gets a fidelity figure with no other change."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn.decomposition import PCA
from sklearn.neighbors import KNeighborsClassifier

from locproj import protocols
from locproj.data import make_splits, prepare_dataset, read_dataset_file, read_splits, write_splits
from locproj.experiments import (aggregate_experiment, aggregation_inputs, check_experiments, comparison_outputs,
                                 experiment_outputs, experiment_protocols, job_config, job_rules, paper_points,
                                 paper_fidelity, run_configured_job)

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
CONFIG = {
    "seed": 3,
    "datasets": {"digits": {"format": "sklearn_digits"}},
    "experiments": {"fixed": {"protocol": "fixed_dimension", "p": 5, "datasets": {"digits": [10]}, "n_splits": 2,
                              "splits_per_job": 2, "methods": {"pca": {}}}},
}


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.syspath_prepend(str(DOCS))
    monkeypatch.setitem(protocols.PROTOCOLS, "fixed_dimension", "examples.fixed_dimension")
    yield
    sys.modules.pop("examples.fixed_dimension", None)


def test_the_docs_name_every_place_a_new_protocol_touches():
    text = (DOCS / "protocols.md").read_text()
    for place in ("src/locproj/protocols/fixed_dimension.py", '"fixed_dimension": "fixed_dimension"',
                  "config_keys", "examples/fixed_dimension.py"):
        assert place in text


def test_its_config_is_validated_by_the_schema_completed_from_its_module(registered):
    """The schema file names no protocol: the new one's name, its default and its key ``p`` come
    from PROTOCOLS and the module's ``config_keys``, and the pipeline's validation uses them."""
    from locproj.errors import ConfigError
    from locproj.workflow import validate_config

    schema = ROOT / "workflow" / "schemas" / "config.schema.yaml"
    protocol = yaml.safe_load(schema.read_text())["properties"]["experiments"]["additionalProperties"]["properties"]
    assert "fixed_dimension" not in schema.read_text() and {"enum", "default"}.isdisjoint(protocol["protocol"])
    config = copy.deepcopy(CONFIG)
    validate_config(config, schema)
    assert config["experiments"]["fixed"]["splits_per_job"] == 2
    for change, message in [({"p": 0}, r"experiments\.fixed\.p: 0 is less than the minimum of 1"),
                            ({"q": 1}, r"unknown config key 'q' under experiments\.fixed"),
                            ({"protocol": "fixed_dimensions"}, r"unknown protocol 'fixed_dimensions'; use one of "
                                                               r"cv_table, .*fixed_dimension")]:
        bad = copy.deepcopy(CONFIG)
        bad["experiments"]["fixed"].update(change)
        with pytest.raises(ConfigError, match=message):
            validate_config(bad, schema)
    missing = copy.deepcopy(CONFIG)
    del missing["experiments"]["fixed"]["p"]
    with pytest.raises(ConfigError, match="'p' is a required property"):
        validate_config(missing, schema)
    defaulted = {**copy.deepcopy(CONFIG), "experiments": {"plain": {"datasets": {"digits": [10]},
                                                                     "methods": {"pca": {}}}}}
    validate_config(defaulted, schema)
    assert defaulted["experiments"]["plain"]["protocol"] == "cv_table"


def test_a_bad_key_is_refused_before_any_job(registered):
    bad = {**CONFIG, "experiments": {"fixed": {**CONFIG["experiments"]["fixed"], "p": 0}}}
    with pytest.raises(ValueError, match="experiment 'fixed': p: the fixed dimension must be a positive integer"):
        check_experiments(bad)


def run_example(config: dict, tmp_path: Path) -> Path:
    """The example's jobs and aggregation on digits, as the rules run them; returns the output folder."""
    data = prepare_dataset("digits", config["datasets"]["digits"], [], tmp_path / "digits.h5")
    train, test, folds, attrs = make_splits(data.y, "per_class", 10, 2, config["seed"], "digits")
    write_splits(tmp_path / "splits.h5", train, test, attrs, folds)
    job = job_config(config, "fixed", "digits", "pca")
    assert job["protocol"] == "fixed_dimension" and job["p"] == 5
    results = [tmp_path / f"split{s}.h5" for s in (0, 1)]
    run_configured_job(job, "m10", [0, 1], tmp_path / "digits.h5", tmp_path / "splits.h5", results)
    aggregate_experiment(config["experiments"]["fixed"], results, tmp_path / "out", seed=3, notes={})
    return tmp_path / "out"


def sklearn_errors(tmp_path: Path) -> list[float]:
    """The example's test errors (%), computed by scikit-learn directly."""
    data, parts = read_dataset_file(tmp_path / "digits.h5"), read_splits(tmp_path / "splits.h5")
    errors = []
    for tr, te in zip(parts["train"], parts["test"]):
        pca = PCA(5).fit(data.X[tr])
        knn = KNeighborsClassifier(1).fit(pca.transform(data.X[tr]), data.y[tr])
        errors.append(100 * (1 - knn.score(pca.transform(data.X[te]), data.y[te])))
    return errors


def test_the_example_protocol_runs_through_the_engine(registered, tmp_path):
    check_experiments(CONFIG)
    (rule,) = job_rules(CONFIG, "fixed")
    assert rule.name == "fit_splits_x0_x1" and rule.script == "run_job.py"
    assert aggregation_inputs(CONFIG, "fixed") == [f"results/fixed/digits/m10/pca/split0{s}.h5" for s in (0, 1)]
    targets = [output.path for output in experiment_outputs(CONFIG["experiments"]["fixed"], "fixed") if output.target]
    assert targets == ["results/fixed/table.md"]
    assert comparison_outputs(CONFIG, ["fixed"]) == {}                   # no published numbers: no comparison

    out = run_example(CONFIG, tmp_path)
    table = pd.read_csv(out / "table.csv")
    assert table["mean_error"].iloc[0] == pytest.approx(round(np.mean(sklearn_errors(tmp_path)), 2), abs=0.011)
    assert list(table.columns) == ["dataset", "m", "method", "mean_error", "std_error", "data_note"]
    assert (out / "table.md").read_text().startswith("| dataset | m | method | mean_error | std_error |\n")
    assert (out / "metadata.yaml").exists() and not (out / "comparison.csv").exists()


def test_with_published_numbers_the_example_gets_its_papers_fidelity_figure(registered, tmp_path):
    published = tmp_path / "published.csv"
    published.write_text("# the paper's numbers\ndataset,m,method,mean_error,std_error\ndigits,10,pca,9.5,1.0\n")
    config = {**CONFIG, "experiments": {"fixed": {**CONFIG["experiments"]["fixed"], "published": str(published)}}}
    comparisons = comparison_outputs(config, ["fixed"])          # what makes the paper's fidelity rule
    assert comparisons == {"fixed": "results/fixed/comparison.csv"}
    out = run_example(config, tmp_path)
    files = {"fixed": out / "comparison.csv"}
    protocols = experiment_protocols(config, files)
    assert protocols == {"fixed": "fixed_dimension"}
    found, empty = paper_points(files, protocols)
    (point,) = found.points
    assert not empty and (point.published, point.published_std, point.label) == (9.5, 1.0, "digits m10 pca")
    assert point.ours == pytest.approx(np.mean(sklearn_errors(tmp_path)))
    drawn = paper_fidelity(files, protocols, tmp_path / "fidelity", title="FIXED: published against ours")
    assert [path.name for path in drawn] == ["fidelity.png", "fidelity.pdf"] and all(p.stat().st_size for p in drawn)
