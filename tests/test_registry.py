"""What each entry of the method registry declares, per entry rather than per class, and that what
it declares decides the path: an entry that projects nothing (``raw``) under another name, or a new
entry declaring ``projects=False``, takes raw's path in every protocol and in the cost model."""

from __future__ import annotations

import copy
import dataclasses

import h5py
import numpy as np
import pytest

from locproj.engine import registry
from locproj.engine.job_costs import split_memory_terms, split_terms
from locproj.engine.neighbor_counts import ALL_POINTS, WITHIN_CLASS
from locproj.engine.registry import METHODS, entry_projects, method_spec
from locproj.engine.results import read_result
from locproj.experiments import check_experiments, job_config, run_configured_job
from locproj.protocols import holdout_curve
from locproj.protocols.embedding.options import fit_params, projects


@pytest.fixture
def pixels(monkeypatch):
    """A built-in method ``pixels`` that, like ``raw``, projects nothing: one more registry entry."""
    monkeypatch.setitem(METHODS, "pixels", dataclasses.replace(METHODS["raw"], name="pixels"))
    return METHODS["pixels"]


def test_raw_alone_projects_nothing_and_takes_no_dimension():
    assert [name for name, spec in METHODS.items() if not spec.projects] == ["raw"]
    with pytest.raises(ValueError, match=r"method 'raw' does not take \['n_components'\]"):
        registry.make_estimator("raw", n_components=2)
    assert registry.make_estimator("pca", n_components=2).n_components == 2


def test_entries_of_one_class_declare_apart():
    """lle and slle are both SupervisedLLE, lpk and gpk both LocalProjectionKernelSVC, pca and raw both
    scikit-learn's: each entry says for itself whether it uses the labels, what its neighbours count
    and whether it projects."""
    lle, slle = METHODS["lle"], METHODS["slle"]
    assert type(lle.make()) is type(slle.make())
    assert (lle.supervised, dict(lle.neighbors)) == (False, {"n_neighbors": ALL_POINTS})
    assert (slle.supervised, dict(slle.neighbors)) == (True, {"n_neighbors": WITHIN_CLASS})
    assert type(METHODS["lpk"].make()) is type(METHODS["gpk"].make())
    assert METHODS["lpk"].classifier and METHODS["gpk"].classifier and METHODS["gpk"].make().n_regions == 1
    assert METHODS["pca"].projects and not METHODS["raw"].projects


def test_whether_an_entry_projects_follows_its_registry_entry_not_its_name(pixels):
    assert not entry_projects("raw", None) and not entry_projects("svm", {"method": "raw"})
    assert not entry_projects("pixels", {}) and not entry_projects("baseline", {"method": "pixels"})
    assert entry_projects("pca", {}) and entry_projects("raw_pca", {"method": "pca"})
    assert entry_projects("mine", {"estimator": "sklearn.decomposition:PCA"})
    with pytest.raises(ValueError, match="unknown method 'nothing'"):
        entry_projects("nothing", {})


def test_a_holdout_entry_that_projects_nothing_is_a_flat_line_in_one_job(pixels):
    for entry in ({"method": "raw"}, {"method": "pixels"}):
        assert holdout_curve.method_kind(method_spec("svm", entry)) == "raw"
        spec = {"values": [1, 2, 3], "values_per_job": 1, "methods": {"svm": entry, "pca": {}}}
        assert holdout_curve.value_blocks(spec, "svm") == [[1, 2, 3]]
        assert holdout_curve.value_blocks(spec, "pca") == [[1], [2], [3]]


def test_an_embedding_panel_that_projects_nothing_takes_no_n_components(pixels):
    for method in ("raw", "pixels"):
        assert not projects({"method": method}) and fit_params({"method": method, "kind": "embedding"}) == {}
    assert fit_params({"method": "lle", "kind": "embedding"}) == {"n_components": 2}
    assert projects({"method": "my_methods:Thing"}) and projects({"kind": "samples"})


def test_the_cost_model_prices_an_alias_of_raw_as_raw(config):
    config = copy.deepcopy(config)
    config["experiments"]["llp_table2"]["methods"]["pixels"] = {"method": "raw"}
    for terms in (split_terms, split_memory_terms):
        assert terms(config, "llp_table2", "yale", "m5", "pixels") == terms(config, "llp_table2", "yale", "m5", "raw")
    assert split_terms(config, "llp_table2", "yale", "m5", "raw")[1]["eigen"] == 0


def _digits_config(methods: dict, protocol: dict | None = None) -> dict:
    return {"seed": 5, "datasets": {"digits": {"format": "sklearn_digits"}},
            "experiments": {"e": {"datasets": {"digits": [6]}, "n_splits": 2, "n_folds": 3, "p_max": 10,
                                  "methods": methods, **(protocol or {})}}}


def _run(config: dict, method: str, digits_m6, tmp_path):
    out = tmp_path / f"{method}.h5"
    run_configured_job(job_config(config, "e", "digits", method), "m6", [0], digits_m6 / "digits.h5",
                       digits_m6 / "splits.h5", [out])
    return out


def test_an_alias_of_raw_is_raw_in_a_split_job(digits_m6, tmp_path):
    """``pixels: {method: raw}`` gives raw's result: the classifier on all 64 features, no projection,
    its CV error on the same folds."""
    config = _digits_config({"raw": {}, "pixels": {"method": "raw"}})
    check_experiments(config)
    raw, alias = (read_result(_run(config, method, digits_m6, tmp_path)) for method in ("raw", "pixels"))
    assert (alias["projected"], alias["p"], alias["test_error"]) == (False, 64, raw["test_error"])
    np.testing.assert_array_equal(alias["test_predictions"], raw["test_predictions"])
    np.testing.assert_array_equal(alias["raw_cv_fold_error"], raw["raw_cv_fold_error"])


def test_an_alias_of_raw_is_a_flat_line_in_a_train_test_curve(digits_m6, tmp_path):
    config = _digits_config({"raw": {}, "pixels": {"method": "raw"}},
                            {"protocol": "train_test_curve", "x": "n_components", "values": [2, 5],
                             "classifiers": {"1nn": {"classifier": "1nn"}}})
    check_experiments(config)
    raw, alias = (h5py.File(_run(config, method, digits_m6, tmp_path))["errors"][()] for method in ("raw", "pixels"))
    np.testing.assert_array_equal(alias, raw)
    assert np.all(alias == alias[0])
