"""What every method's neighbour parameters count, and the grid filter and per-fit caps that follow."""

from pathlib import Path

import numpy as np
import pytest
import yaml

from locproj.engine.config_files import merge_config_files
from locproj.experiments import job_config, run_configured_job
from locproj.engine.neighbor_counts import (
    ALL_POINTS,
    BETWEEN_CLASS_PAIRS,
    KINDS,
    WITHIN_CLASS,
    WITHIN_CLASS_IF_SUPERVISED,
    NeighborRule,
    check_declaration,
    fit_limit,
)
from locproj.engine.registry import METHODS, estimator_factory, method_spec
from locproj.engine.results import read_result
from locproj.engine.selection import cross_validate, resolve_grid, run_split

ROOT = Path(__file__).resolve().parents[1]

# The audit of the methods shipped: what each one's neighbour parameters count (docs/methods.md, the
# table of methods). LSDA's kNN graph is over all points and split by class afterwards; MFA's k2
# counts between-class pairs; an LLE without labels counts among all points. A new method's
# declaration is checked by the tests below that every method meets.
AUDIT = {
    "raw": {}, "pca": {}, "lda": {}, "srda": {}, "lpk": {}, "gpk": {},
    "lpp": {"n_neighbors": WITHIN_CLASS_IF_SUPERVISED},
    "klpp": {"n_neighbors": WITHIN_CLASS_IF_SUPERVISED},
    "llp": {"n_neighbors": WITHIN_CLASS_IF_SUPERVISED},
    "lea": {"n_neighbors": WITHIN_CLASS_IF_SUPERVISED},
    "olpp": {"n_neighbors": WITHIN_CLASS_IF_SUPERVISED},
    "isop": {"n_neighbors": WITHIN_CLASS_IF_SUPERVISED},
    "lfda": {"n_neighbors": WITHIN_CLASS},
    "slle": {"n_neighbors": WITHIN_CLASS},
    "mfa": {"n_neighbors": WITHIN_CLASS, "n_penalty_pairs": BETWEEN_CLASS_PAIRS},
    "lsda": {"n_neighbors": ALL_POINTS},
    "lle": {"n_neighbors": ALL_POINTS},
    "sklearn_lle": {"n_neighbors": ALL_POINTS},
}


def test_every_built_in_method_declares_what_its_neighbor_parameters_count():
    assert {name: dict(METHODS[name].neighbors) for name in AUDIT} == AUDIT
    for name, spec in METHODS.items():     # every declared name is a parameter it takes
        assert set(spec.neighbors) <= set(spec.params), name


def test_every_neighbor_parameter_of_the_configs_is_declared():
    """Every method entry by import path with a parameter named like a neighbour count declares it
    (Isomap's n_neighbors counts among all points; the example's own method within the class)."""
    for path in ["config/config.yaml", "config/papers_smoke.yaml", "config/own_method_example.yaml"]:
        config = merge_config_files(yaml.safe_load((ROOT / path).read_text()), ROOT)     # and its files
        experiments = config.get("experiments") or config.get("replace_experiments")
        for experiment in experiments.values():
            for name, entry in (experiment.get("methods") or {}).items():
                if entry and "estimator" in entry:
                    named = set(entry.get("grid") or {}) | set(entry.get("fixed") or {})
                    assert {"n_neighbors", "k"} & named <= set(entry.get("neighbours") or {}), (path, name)


def test_the_schema_takes_the_kinds_from_the_code():
    from locproj.workflow import config_schema

    schema = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())
    entry = schema["properties"]["experiments"]["additionalProperties"]["properties"]["methods"]
    assert "enum" not in entry["additionalProperties"]["properties"]["neighbours"]["additionalProperties"]
    entry = config_schema(schema, [])["properties"]["experiments"]["additionalProperties"]["properties"]["methods"]
    assert entry["additionalProperties"]["properties"]["neighbours"]["additionalProperties"]["enum"] == list(KINDS)


def test_a_declaration_names_a_known_kind_and_a_parameter_of_the_estimator():
    assert check_declaration({"k": "all_points"}, ["k", "C"], "method 'x'") == {"k": "all_points"}
    with pytest.raises(ValueError, match=r"method 'x': neighbours: 'k' counts 'pairs', which is not one of"):
        check_declaration({"k": "pairs"}, ["k"], "method 'x'")
    with pytest.raises(ValueError, match=r"method 'x': neighbours names 'n_neighbors', which is not a parameter of "
                                         r"the estimator \(it takes \['C', 'k'\]\)"):
        check_declaration({"n_neighbors": "all_points"}, ["k", "C"], "method 'x'")


def test_fit_limits():
    y = np.repeat([0, 1, 2], [3, 5, 7])                      # n = 15
    assert fit_limit(WITHIN_CLASS, y) == 2
    assert fit_limit(ALL_POINTS, y) == 14
    assert fit_limit(BETWEEN_CLASS_PAIRS, y) == min(3 * 12, 5 * 10, 7 * 8)


def test_grid_filter_and_caps_follow_the_declaration():
    y = np.repeat([0, 1], [4, 6])
    rule = NeighborRule({"n_neighbors": WITHIN_CLASS, "n_penalty_pairs": BETWEEN_CLASS_PAIRS})
    assert rule.grid_values("n_neighbors", [2, 4, 8], m=5) == [2, 4]
    assert rule.grid_values("n_penalty_pairs", [10, 40], m=5) == [10, 40]
    capped, changes = rule.cap({"n_neighbors": 8, "n_penalty_pairs": 40}, y)
    assert capped == {"n_neighbors": 3, "n_penalty_pairs": 24} and changes == [("n_neighbors", 8, 3),
                                                                               ("n_penalty_pairs", 40, 24)]
    everyone = NeighborRule({"n_neighbors": ALL_POINTS})
    assert everyone.grid_values("n_neighbors", [0, 2, 32], m=5) == [0, 2, 32]
    assert everyone.cap({"n_neighbors": 32}, y) == ({"n_neighbors": 9}, [("n_neighbors", 32, 9)])
    assert everyone.cap({"n_neighbors": 0}, y) == ({"n_neighbors": 0}, [])   # LSDA's all pairs
    assert everyone.cap({"n_neighbors": "all"}, y) == ({"n_neighbors": "all"}, [])


def test_supervised_decides_the_conditional_kind():
    y = np.repeat([0, 1], [4, 6])
    supervised = NeighborRule({"n_neighbors": WITHIN_CLASS_IF_SUPERVISED}, {"supervised": True})
    assert supervised.grid_values("n_neighbors", [2, 8], m=4) == [2]
    assert supervised.cap({"n_neighbors": 8}, y)[0] == {"n_neighbors": 3}
    assert supervised.cap({"n_neighbors": 8, "supervised": False}, y)[0] == {"n_neighbors": 8, "supervised": False}
    unsupervised = NeighborRule({"n_neighbors": WITHIN_CLASS_IF_SUPERVISED}, {"supervised": False})
    assert unsupervised.grid_values("n_neighbors", [2, 8], m=4) == [2, 8]
    assert unsupervised.cap({"n_neighbors": 12}, y)[0] == {"n_neighbors": 9}


def test_a_default_or_fixed_value_no_grid_names_is_capped_too():
    """``lpp: {}``: LPP's default n_neighbors = 5 on folds with 3 images per class is capped to 2;
    a fixed value likewise (LFDA's 7); a value the fit can use is left alone (and recorded nowhere)."""
    y = np.repeat(np.arange(4), 3)
    rule = METHODS["lpp"].neighbor_rule({})
    assert rule.cap({}, y) == ({"n_neighbors": 2}, [("n_neighbors", 5, 2)])
    lfda = METHODS["lfda"].neighbor_rule({"n_neighbors": 7})
    assert lfda.cap({}, y) == ({"n_neighbors": 2}, [("n_neighbors", 7, 2)])
    assert METHODS["lpp"].neighbor_rule({"n_neighbors": 2}).cap({}, y) == ({}, [])
    assert METHODS["lpp"].neighbor_rule({"supervised": False}).cap({}, y) == ({}, [])   # 5 of 11 others: fine


def test_lpp_with_defaults_runs_where_its_default_exceeds_the_folds():
    """A new user's ``lpp: {}`` under 3 folds of 5 per class: the default k = 5 exceeds every fold's
    classes (3 or 4 per class: capped at 2) and used to stop the run; now each fit is capped and says so."""
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(6), 8)
    X = rng.standard_normal((48, 20)) + 2.0 * rng.standard_normal((6, 20))[y]
    train = np.concatenate([np.flatnonzero(y == c)[:5] for c in range(6)])
    test = np.setdiff1d(np.arange(48), train)
    spec = METHODS["lpp"]
    result = run_split(X[train], y[train], X[test], y[test], method="lpp", new_estimator=estimator_factory(spec, {}),
                       m=5, n_folds=3, p_max=10, neighbors=spec.neighbor_rule({}))
    assert {(c["requested"], c["used"]) for c in result.capped if c["fold"] >= 0} == {(5, 2)}   # 3 per class at least
    assert [(c["fold"], c["requested"], c["used"]) for c in result.capped if c["fold"] < 0] == [(-1, 5, 4)]
    assert result.params == {"n_neighbors": 4} and 0 <= result.test_error < 0.5


def test_a_job_of_lpp_with_its_defaults_caps_them(digits_m6, tmp_path):
    """The pipeline's path, as a new user would take it: ``lpp: {}`` under three folds of digits with 6
    per class (folds of 4 per class) fits with k = 3, the cap recorded in the result file."""
    config = {"seed": 5, "datasets": {"digits": {"format": "sklearn_digits"}},
              "experiments": {"e": {"datasets": {"digits": [6]}, "n_splits": 2, "n_folds": 3, "p_max": 10,
                                    "methods": {"lpp": {}}}}}
    out = tmp_path / "split0.h5"
    run_configured_job(job_config(config, "e", "digits", "lpp"), "m6", [0], digits_m6 / "digits.h5",
                       digits_m6 / "splits.h5", [out])
    result = read_result(out)
    assert result["params"] == {}          # the refit on 6 per class keeps the default 5
    assert {(c["requested"], c["used"]) for c in result["capped"] if c["fold"] >= 0} == {(5, 3)}
    assert 0 <= result["test_error"] <= 1 and result["p"] >= 1


def test_all_points_grids_keep_values_above_m_and_cap_them_per_fold():
    """LSDA's k counts among all points: {0, 2, 4, 8, 16, 32} at m = 5 keeps every value; a fold of
    24 samples fits 32 as 23, and grid points equal after the cap are fitted once."""
    rng = np.random.default_rng(1)
    y = np.repeat(np.arange(6), 5)
    X = rng.standard_normal((30, 12)) + rng.standard_normal((6, 12))[y]
    spec = METHODS["lsda"]
    rule = spec.neighbor_rule({})
    grid = resolve_grid({"n_neighbors": [0, 2, 4, 8, 16, 32]}, X, y, m=5, neighbors=rule)
    assert [point["n_neighbors"] for point in grid] == [0, 2, 4, 8, 16, 32]
    cv = cross_validate(estimator_factory(spec, {}), grid, X, y, n_folds=5, p_max=8, neighbors=rule)
    assert {(c["grid_index"], c["requested"], c["used"]) for c in cv.capped} == {(5, 32, 23)}
    assert np.all(np.isfinite(cv.error[:, :5]))


def test_an_entry_by_import_path_declares_its_neighbors(tmp_path):
    entry = {"estimator": "sklearn.manifold:Isomap", "supervised": False, "neighbours": {"n_neighbors": "all_points"}}
    spec = method_spec("isomap", entry)
    assert dict(spec.neighbors) == {"n_neighbors": ALL_POINTS}
    assert spec.neighbor_rule({"n_components": 2}).defaults == {"n_neighbors": 5}
    assert method_spec("isomap", {**entry, "neighbours": {}}).neighbor_rule().kinds == {}
    with pytest.raises(ValueError, match=r"method 'isomap': neighbours names 'k'"):
        method_spec("isomap", {**entry, "neighbours": {"k": "all_points"}})
