"""Adding a method: its module, one entry of ``registry.METHODS``, then tools/method_docs.py for the docs.

A toy method, a tiny linear projection defined here, is added at exactly one registry line (the
``toy`` fixture).  The experiment engine then accepts a config that names it and runs one of its
split jobs end to end, as tests/test_protocol_example.py runs its example; and the registry-derived
tables of tests/test_estimator_checks.py, tests/test_degenerate.py and tests/test_methods.py take it
up with no edit there, and it passes their general tests.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sklearn.base import _fit_context
from sklearn.utils.estimator_checks import check_estimator

import test_degenerate
import test_estimator_checks
import test_methods
from locproj.core.solvers import fix_signs
from locproj.data import make_splits, prepare_dataset, write_splits
from locproj.engine import registry
from locproj.engine.results import read_result
from locproj.errors import ConfigError
from locproj.experiments import check_experiments, job_config, run_configured_job
from locproj.methods._base import LinearProjection, validate_fit_data
from locproj.methods._constraints import N_COMPONENTS
from locproj.methods.tags import ProjectionTags

CONFIG = {
    "seed": 3,
    "datasets": {"digits": {"format": "sklearn_digits"}},
    "experiments": {"e": {"datasets": {"digits": [6]}, "n_splits": 1, "n_folds": 3, "p_max": 10,
                          "methods": {"toy": {}, "pca": {}}}},
}


class ToyProjection(LinearProjection):
    """The leading principal axes of the centred training data (labels ignored): a tiny linear
    projection.  ``LinearProjection`` gives ``transform``, ``transform_first`` and the tags
    ``first_columns`` and ``linear_map``."""

    _parameter_constraints: dict = {"n_components": N_COMPONENTS}

    def __init__(self, n_components=None):
        self.n_components = n_components

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        X, _ = validate_fit_data(self, X, y, supervised=False)
        self.mean_ = X.mean(axis=0)
        _, singular_values, Vt = np.linalg.svd(X - self.mean_, full_matrices=False)
        available = int(np.count_nonzero(singular_values > singular_values[0] * max(X.shape) * np.finfo(float).eps))
        if self.n_components is not None and self.n_components > available:
            raise ValueError(f"n_components={self.n_components} but only {available} components are available "
                             "(the rank of the centred training data); use a smaller n_components.")
        self.components_ = fix_signs(Vt[:self.n_components or available].T).T
        self.n_components_ = len(self.components_)
        return self


@pytest.fixture
def toy(monkeypatch):
    """The toy method, added as a built-in method is: one line of ``registry.METHODS``."""
    monkeypatch.setitem(registry.METHODS, "toy", registry._builtin("toy", ToyProjection, True, registry._rank_bound))
    return registry.METHODS["toy"]


def test_the_docs_name_every_place_a_new_method_touches():
    text = " ".join((Path(__file__).resolve().parents[1] / "docs" / "methods.md").read_text().split())
    assert ("**Adding a method** takes its module in `locproj/methods/` (exported by `locproj/methods/__init__.py`) "
            "and one entry of `METHODS`" in text
            and "then `python tools/method_docs.py` rewrites what the registry states in these pages" in text
            and "Nothing else to edit: `tests/test_method_docs.py` fails until the export, the entry and those "
            "pages agree" in text
            and "`locproj.methods.tags.ProjectionTags`" in text and "tests/test_method_extension.py" in text)


def test_the_registry_line_is_all_the_engine_needs(monkeypatch):
    with pytest.raises(ConfigError, match="experiment 'e', method 'toy': unknown method 'toy'"):
        check_experiments(CONFIG)
    monkeypatch.setitem(registry.METHODS, "toy", registry._builtin("toy", ToyProjection, True, registry._rank_bound))
    check_experiments(CONFIG)
    spec = registry.METHODS["toy"]
    assert spec.params == () and spec.neighbors == {} and spec.ordered
    assert spec.tags == ProjectionTags(first_columns=True, linear_map=True)    # what its class declares
    assert registry.max_components("toy", 60, 10, 64) == 59


def test_one_split_job_of_the_toy_runs_end_to_end(toy, tmp_path):
    """The toy's job on digits (6 training samples per class, 3 folds), as the rules run it: a result
    with a finite test error; the toy being PCA, the same choices and errors as the built-in ``pca``."""
    data = prepare_dataset("digits", CONFIG["datasets"]["digits"], [], tmp_path / "digits.h5")
    train, test, folds, attrs = make_splits(data.y, "per_class", 6, 1, CONFIG["seed"], "digits")
    write_splits(tmp_path / "splits.h5", train, test, attrs, folds)
    results = {}
    for method in ("toy", "pca"):
        job = job_config(CONFIG, "e", "digits", method)
        out = tmp_path / f"{method}.h5"
        run_configured_job(job, "m6", [0], tmp_path / "digits.h5", tmp_path / "splits.h5", [out])
        results[method] = read_result(out)
    result = results["toy"]
    assert np.isfinite(result["test_error"]) and 0 <= result["test_error"] < 0.5 and 1 <= result["p"] <= 10
    assert result["p"] == results["pca"]["p"]
    assert result["test_error"] == pytest.approx(results["pca"]["test_error"], abs=1e-12)
    np.testing.assert_allclose(result["cv_error"], results["pca"]["cv_error"], atol=1e-9)


def test_the_registry_derived_tables_take_the_toy_up(toy):
    """The helpers that build the tables of the three test files, called with the registry as it now
    is: each has the toy, with its registry defaults (it declares no neighbour parameter)."""
    checked = [repr(e) for e in test_estimator_checks.registry_estimators() if isinstance(e, ToyProjection)]
    assert checked == ["ToyProjection()"]
    assert repr(test_degenerate.registry_factories()["toy"](2)) == "ToyProjection()"
    cases = [(spec, e) for spec, e in test_methods.registry_cases() if isinstance(e, ToyProjection)]
    assert [(spec.name, repr(e)) for spec, e in cases] == [("toy", "ToyProjection()")]
    # and the general tests select it by what the registry and its tags declare
    assert cases[0][0].ordered and test_methods.projection_tags(cases[0][1]).linear_map


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.SkipTestWarning")   # the array API check, as in the tables
def test_the_toy_passes_the_general_tests(toy):
    """What the tables would run on it: scikit-learn's estimator checks and the conventions of
    tests/test_methods.py (nesting, transform_first, identical bits, the linear map, errors)."""
    (estimator,) = [e for e in test_estimator_checks.registry_estimators() if isinstance(e, ToyProjection)]
    check_estimator(estimator, expected_failed_checks=test_estimator_checks._expected_failures(estimator))
    for test in (test_methods.test_nested_columns, test_methods.test_transform_first_is_the_prefix_of_transform,
                 test_methods.test_identical_bits_for_identical_input, test_methods.test_invariant_to_permuting_samples,
                 test_methods.test_transform_is_centered_linear_projection,
                 test_methods.test_too_many_components_is_a_clear_error,
                 test_methods.test_single_class_and_nonfinite_are_clear_errors):
        test(estimator)


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_the_toy_meets_the_degenerate_input_contract(toy, monkeypatch, capfd):
    """The general case of each test of tests/test_degenerate.py that runs every method (the toy is
    in no category of it): a correct fit without a warning, or the contract's ValueError; nothing
    on file descriptor 2."""
    degenerate = test_degenerate
    monkeypatch.setitem(degenerate.FACTORIES, "toy", degenerate.registry_factories()["toy"])
    for test in (degenerate.test_constant_data_is_refused, degenerate.test_duplicate_rows_within_classes,
                 degenerate.test_duplicate_rows_across_classes, degenerate.test_identical_classes,
                 degenerate.test_class_of_one_sample, degenerate.test_values_near_the_float64_limit_are_refused,
                 degenerate.test_tiny_differences_are_refused, degenerate.test_fewer_samples_than_neighbors,
                 degenerate.test_two_samples, degenerate.test_one_sample_is_refused):
        test("toy")
    for scale in (0.5, 1e-130):
        degenerate.test_values_just_inside_the_limits_fit("toy", scale)
    for layout in ("int64", "float32", "fortran", "strided", "reversed"):
        degenerate.test_dtype_and_layout_give_the_float64_result("toy", layout)
    assert capfd.readouterr().err == ""
