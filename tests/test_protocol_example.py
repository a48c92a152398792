"""The worked example of docs/protocols.md: a protocol added as one module and one registry line
runs through the engine like the built-in ones (check, job rules, job config, run, aggregation)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.decomposition import PCA
from sklearn.neighbors import KNeighborsClassifier

from locproj import protocols
from locproj.data import make_splits, prepare_dataset, read_dataset_file, read_splits, write_splits
from locproj.experiments import (aggregate_experiment, aggregation_inputs, check_experiments, experiment_outputs,
                                 job_config, job_rules, run_configured_job)

DOCS = Path(__file__).resolve().parents[1] / "docs"
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
                  "workflow/schemas/config.schema.yaml", "examples/fixed_dimension.py"):
        assert place in text


def test_a_bad_key_is_refused_before_any_job(registered):
    bad = {**CONFIG, "experiments": {"fixed": {**CONFIG["experiments"]["fixed"], "p": 0}}}
    with pytest.raises(ValueError, match="experiment 'fixed': p: the fixed dimension must be a positive integer"):
        check_experiments(bad)


def test_the_example_protocol_runs_through_the_engine(registered, tmp_path):
    check_experiments(CONFIG)
    (rule,) = job_rules(CONFIG, "fixed")
    assert rule.name == "fit_fixed_splits00-01" and rule.script == "run_job.py"
    assert aggregation_inputs(CONFIG, "fixed") == [f"results/fixed/digits/m10/pca/split0{s}.h5" for s in (0, 1)]
    targets = [output.path for output in experiment_outputs(CONFIG["experiments"]["fixed"], "fixed") if output.target]
    assert targets == ["results/fixed/table.md"]

    data = prepare_dataset("digits", CONFIG["datasets"]["digits"], [], tmp_path / "digits.h5")
    train, test, folds, attrs = make_splits(data.y, "per_class", 10, 2, CONFIG["seed"], "digits")
    write_splits(tmp_path / "splits.h5", train, test, attrs, folds)
    job = job_config(CONFIG, "fixed", "digits", "pca")
    assert job["protocol"] == "fixed_dimension" and job["p"] == 5
    results = [tmp_path / f"split{s}.h5" for s in (0, 1)]
    run_configured_job(job, "m10", [0, 1], tmp_path / "digits.h5", tmp_path / "splits.h5", results)
    aggregate_experiment(CONFIG["experiments"]["fixed"], results, tmp_path / "out", seed=3, notes={})

    table = pd.read_csv(tmp_path / "out" / "table.csv")
    data, parts = read_dataset_file(tmp_path / "digits.h5"), read_splits(tmp_path / "splits.h5")
    errors = []
    for tr, te in zip(parts["train"], parts["test"]):     # the same numbers, by scikit-learn directly
        pca = PCA(5).fit(data.X[tr])
        knn = KNeighborsClassifier(1).fit(pca.transform(data.X[tr]), data.y[tr])
        errors.append(100 * (1 - knn.score(pca.transform(data.X[te]), data.y[te])))
    assert table["mean"].iloc[0] == pytest.approx(round(np.mean(errors), 2), abs=0.011)
    assert list(table.columns) == ["dataset", "m", "method", "mean", "std", "data_note"]
    assert (tmp_path / "out" / "table.md").read_text().startswith("| dataset | m | method | mean | std |\n")
    assert (tmp_path / "out" / "metadata.yaml").exists()
