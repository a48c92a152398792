"""Your own method (docs/own-method.md): any scikit-learn estimator by import path, checked before any
job, under the protocols, recorded in the provenance, and the guide's example end to end."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest

from locproj.data import make_splits, prepare_dataset, write_splits
from locproj.experiments import check_experiments, job_config, run_configured_job
from locproj.engine.method_failures import MethodError
from locproj.engine.own_methods import code_digest
from locproj.engine.registry import estimator_factory, method_spec
from locproj.engine.results import read_result
from locproj.engine.selection import cross_validate

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "own-method.md"
EXAMPLE = ROOT / "config" / "own_method_example.yaml"
METHOD_FILE = ROOT / "config" / "my_methods.py"


def config_with(methods: dict, protocol: dict | None = None) -> dict:
    return {"seed": 5, "datasets": {"digits": {"format": "sklearn_digits"}}, "method_paths": [str(ROOT / "config")],
            "experiments": {"e": {"datasets": {"digits": [6]}, "n_splits": 2, "n_folds": 3, "p_max": 10,
                                  "methods": methods, **(protocol or {})}}}


# --- checks before any job ---------------------------------------------------------------------


@pytest.mark.parametrize("entry, message", [
    ({"estimator": "no_such_module:Thing"}, r"no module 'no_such_module': no no_such_module\.py in the method folders"),
    ({"estimator": "sklearn.neighbors:NeighbourhoodComponentsAnalysis"},
     r"module 'sklearn.neighbors' has no class 'NeighbourhoodComponentsAnalysis'; did you mean "
     r"'NeighborhoodComponentsAnalysis'"),
    ({"estimator": "sklearn.neighbors:KNeighborsClassifier"}, r"has no transform"),
    ({"estimator": "sklearn.neighbors:NeighborhoodComponentsAnalysis", "grid": {"n_component": [2]}},
     r"does not take 'n_component' \(did you mean 'n_components'\?\); it takes \[.*'max_iter'"),
    ({"estimator": "my_methods:LocalMeanProjection", "fixed": {"k": 3}}, r"does not take 'k'"),
    ({"estimator": "sklearn.neighbors:NCA"}, r"module 'sklearn.neighbors' has no class 'NCA'$"),
])
def test_a_bad_entry_stops_the_run_before_any_job_naming_the_method(entry, message):
    with pytest.raises(ValueError, match=r"experiment 'e', method 'mine': (\S+ )?" + message):
        check_experiments(config_with({"mine": entry}))


def test_an_entry_named_like_a_built_in_method_is_refused():
    with pytest.raises(ValueError, match="'pca' is the name of a built-in method"):
        check_experiments(config_with({"pca": {"estimator": "sklearn.decomposition:PCA"}}))


def test_a_good_entry_passes_and_records_where_its_code_comes_from():
    config = config_with({"nca": {"estimator": "sklearn.neighbors:NeighborhoodComponentsAnalysis",
                                  "grid": {"n_components": [2, 4]}},
                          "mine": {"estimator": "my_methods:LocalMeanProjection", "ordered": True}})
    check_experiments(config)
    nca = job_config(config, "e", "digits", "nca")["estimator_source"]
    assert nca["package"] == "scikit-learn" and nca["version"]
    assert nca["estimator"] == "sklearn.neighbors:NeighborhoodComponentsAnalysis"
    mine = job_config(config, "e", "digits", "mine")["estimator_source"]
    assert Path(mine["file"]).resolve() == METHOD_FILE
    assert mine["code_sha256"] == code_digest(METHOD_FILE) and len(mine["code_sha256"]) == 64
    assert "estimator_source" not in job_config(config_with({"pca": {}}), "e", "digits", "pca")   # built-ins unchanged


# --- one path for every method -----------------------------------------------------------------


@pytest.fixture()
def digits(digits_m6):
    return digits_m6


def run(config, method, digits, tmp_path, split=0):
    job = job_config(config, "e", "digits", method)
    out = tmp_path / f"{method}.h5"
    run_configured_job(job, "m6", [split], digits / "digits.h5", digits / "splits.h5", [out])
    return read_result(out)


def test_scikit_learns_pca_by_import_path_gives_the_built_in_pcas_results(digits, tmp_path):
    config = config_with({"pca": {}, "sk_pca": {"estimator": "sklearn.decomposition:PCA", "ordered": True,
                                                "fixed": {"svd_solver": "full"}}})
    ours, theirs = run(config, "pca", digits, tmp_path), run(config, "sk_pca", digits, tmp_path)
    assert ours["p"] == theirs["p"] and ours["test_error"] == pytest.approx(theirs["test_error"], abs=1e-12)
    np.testing.assert_allclose(ours["cv_error"], theirs["cv_error"], atol=1e-12)


def test_pca_first_before_pca_changes_no_choice(digits, tmp_path):
    """PCA after a PCA to 30 dimensions is the same projection up to p = 30 (the first 30 principal
    axes), so the inner CV and the test see the same errors: pca_first works in cv_table."""
    config = config_with({"pca": {}, "pca30": {"method": "pca", "pca_first": 30}})
    plain, first = run(config, "pca", digits, tmp_path), run(config, "pca30", digits, tmp_path)
    assert plain["p"] == first["p"] and plain["test_error"] == first["test_error"]
    np.testing.assert_allclose(plain["cv_error"], first["cv_error"], atol=1e-12)
    assert json.loads(h5py.File(tmp_path / "pca30.h5")["/"].attrs["config_json"])["method_spec"]["pca_first"] == 30


def test_pca_first_beyond_the_data_keeps_what_the_training_data_have(digits, tmp_path):
    """pca_first: 1000 on digits (64 features, 40 samples in a fold's fit part) keeps min(n, d) axes in
    each fold and refit, a rotation of the centred data: PCA after it makes the same choices."""
    config = config_with({"pca": {}, "pca_all": {"method": "pca", "pca_first": 1000}})
    plain, first = run(config, "pca", digits, tmp_path), run(config, "pca_all", digits, tmp_path)
    assert plain["p"] == first["p"] and plain["test_error"] == pytest.approx(first["test_error"], abs=1e-12)
    np.testing.assert_allclose(plain["cv_error"], first["cv_error"], atol=1e-9)


def test_a_fixed_dimension_above_the_data_is_lowered_inside_the_wrappers(digits, tmp_path):
    """A label-free entry after a pca_first PCA, with a fixed n_components of 1000 (a fold's fit part
    has 40 samples): the method inside both wrappers is fitted with what the data give, as a bare
    built-in is (Isomap's 100 on Waveform's 120 would otherwise keep negative eigenvalues), and
    makes the built-in PCA's choices."""
    entry = {"estimator": "sklearn.decomposition:PCA", "ordered": True, "supervised": False, "pca_first": 1000,
             "fixed": {"n_components": 1000, "svd_solver": "full"}}
    config = config_with({"pca": {}, "sk_pca": entry})
    ours, theirs = run(config, "pca", digits, tmp_path), run(config, "sk_pca", digits, tmp_path)
    assert ours["p"] == theirs["p"] and ours["test_error"] == pytest.approx(theirs["test_error"], abs=1e-12)
    np.testing.assert_allclose(ours["cv_error"], theirs["cv_error"], atol=1e-9)


def test_an_unordered_method_is_cross_validated_at_its_own_dimensions_only(digits, tmp_path):
    config = config_with({"nca": {"estimator": "sklearn.neighbors:NeighborhoodComponentsAnalysis",
                                  "fixed": {"random_state": 0, "max_iter": 5}, "grid": {"n_components": [2, 4]}}})
    result = run(config, "nca", digits, tmp_path)
    finite = np.argwhere(np.isfinite(result["cv_error"]))
    assert finite.tolist() == [[0, 1], [1, 3]]                        # grid point 0 at p = 2, point 1 at p = 4
    assert result["p"] == result["params"]["n_components"] in (2, 4)
    provenance = json.loads(h5py.File(tmp_path / "nca.h5")["/"].attrs["config_json"])
    assert provenance["estimator_source"]["estimator"] == "sklearn.neighbors:NeighborhoodComponentsAnalysis"


def test_cross_validate_of_an_unordered_method_leaves_a_point_beyond_p_max_out(digits):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 12)), np.repeat(np.arange(4), 10)
    spec = method_spec("nca", {"estimator": "sklearn.neighbors:NeighborhoodComponentsAnalysis"})
    cv = cross_validate(estimator_factory(spec, {"max_iter": 3, "random_state": 0}),
                        [{"n_components": 3}, {"n_components": 8}], X, y, n_folds=3, p_max=5, ordered=False)
    assert np.isfinite(cv.error[0, 2]) and np.isnan(np.delete(cv.error[0], 2)).all()
    assert np.isnan(cv.error[1]).all()                                # 8 columns > p_max = 5: no CV error
    # beyond the data's 12 features NCA would raise: the point is not fitted, the others are chosen from
    beyond = cross_validate(estimator_factory(spec, {"max_iter": 3, "random_state": 0}),
                            [{"n_components": 3}, {"n_components": 30}], X, y, n_folds=3, p_max=300,
                            p_limit=12, ordered=False)
    np.testing.assert_array_equal(beyond.error[0], cv.error[0, :5].tolist() + [np.nan] * 295)
    assert np.isnan(beyond.error[1]).all()


def test_an_estimator_that_raises_is_recorded_or_with_raise_fails_its_job_naming_method_dataset_and_split(
        digits, tmp_path):
    entry = {"estimator": "sklearn.neighbors:NeighborhoodComponentsAnalysis", "fixed": {"max_iter": -3}}
    recorded = run(config_with({"nca": entry}), "nca", digits, tmp_path, split=1)    # by import path: record
    assert recorded["failed"] and np.isnan(recorded["test_error"]) and recorded["split"] == 1
    assert "max_iter" in recorded["error_message"] and "_param_validation.py" in recorded["error_frame"]
    with pytest.raises(MethodError, match=r"method 'nca' failed on digits \(m6, split 1\) in experiment 'e': "
                                          r"InvalidParameterError: .*max_iter") as raised:
        run(config_with({"nca": {**entry, "on_error": "raise"}}), "nca", digits, tmp_path, split=1)
    assert "in the method's code" in str(raised.value) and "locproj" not in str(raised.value).split("code:")[1]


def test_the_train_test_and_holdout_protocols_take_an_entry_by_import_path(digits, tmp_path):
    from locproj.data import read_dataset_file, read_splits
    from locproj.protocols import protocol_named

    entry = {"estimator": "sklearn.decomposition:PCA", "ordered": True}
    curve = config_with({"sk_pca": entry, "pca": {}, "pca30": {"method": "pca", "pca_first": 30}},
                        {"protocol": "train_test_curve", "x": "n_components", "values": [2, 5],
                         "classifiers": {"1nn": {"classifier": "1nn"}}})
    check_experiments(curve)
    errors = {}
    for method in ("sk_pca", "pca", "pca30"):
        run_configured_job(job_config(curve, "e", "digits", method), "m6", [0], digits / "digits.h5",
                           digits / "splits.h5", [tmp_path / f"curve_{method}.h5"])
        errors[method] = h5py.File(tmp_path / f"curve_{method}.h5")["errors"][()]
    np.testing.assert_allclose(errors["sk_pca"], errors["pca"], atol=1e-12)
    np.testing.assert_allclose(errors["pca30"], errors["pca"], atol=1e-12)      # pca_first in train_test_curve

    holdout = config_with({"sk_pca": entry}, {"protocol": "holdout_curve", "values": [2], "C_values": [1.0]})
    holdout["experiments"]["e"]["datasets"] = {"digits": ["holdout"]}
    check_experiments(holdout)
    data = prepare_dataset("digits", {"format": "sklearn_digits"}, [], tmp_path / "d.h5")
    train, test, folds, attrs = make_splits(data.y, "holdout", None, 1, 5, "digits")
    write_splits(tmp_path / "holdout.h5", train, test, attrs, folds)
    job = job_config(holdout, "e", "digits", "sk_pca", [2])
    assert job["method_spec"] == entry and job["estimator_source"]["package"] == "scikit-learn"
    protocol_named("holdout_curve").run_job(job, "holdout", [0], read_dataset_file(tmp_path / "d.h5"),
                                            read_splits(tmp_path / "holdout.h5"), [tmp_path / "h.h5"])
    assert 0.5 < np.nanmean(h5py.File(tmp_path / "h.h5")["test_accuracy"][()]) <= 1


def test_an_embedding_panel_takes_a_method_by_import_path(digits, tmp_path):
    from locproj.protocols import protocol_named
    from locproj.protocols.embedding import read_panel, run_panel

    panel = {"kind": "embedding", "dataset": "digits", "method": "sklearn.manifold:Isomap",
             "params": {"n_neighbors": 8}, "dims": 2, "classes": ["0", "1", "2"]}
    config = {"seed": 5, "datasets": {"digits": {"format": "sklearn_digits"}}, "method_paths": ["."],
              "experiments": {"e": {"protocol": "embedding", "panels": {"iso": panel},
                                    "figures": {"f": {"panels": ["iso"]}}}}}
    check_experiments(config)
    (rule,) = protocol_named("embedding").job_rules(config, "e")
    params = rule.params["panel"](type("Wildcards", (), {"panel": "iso"})())
    assert params["estimator_source"]["package"] == "scikit-learn"
    run_panel(params, digits / "digits.h5", tmp_path / "iso.h5", seed=5)
    result = read_panel(tmp_path / "iso.h5")
    assert result["train_embedding"].shape[1] == 2 and np.isfinite(result["train_embedding"]).all()

    typo = {**panel, "method": "sklearn.manifold:IsoMap"}
    config["experiments"]["e"]["panels"]["iso"] = typo
    with pytest.raises(ValueError, match="method 'iso': module 'sklearn.manifold' has no class 'IsoMap'; "
                                         "did you mean 'Isomap'"):
        check_experiments(config)


# --- the guide ---------------------------------------------------------------------------------


def _code_block(language: str) -> str:
    return re.findall(rf"^```{language}\n(.*?)^```", GUIDE.read_text(), flags=re.S | re.M)[0]


def test_the_guide_shows_the_example_files_as_they_are():
    assert _code_block("python") == METHOD_FILE.read_text()
    assert _code_block("yaml") == EXAMPLE.read_text()
    assert "docs/own-method.md" in (ROOT / "README.md").read_text()
    assert 20 <= len(METHOD_FILE.read_text().splitlines()) <= 35


def test_the_guide_example_runs_end_to_end_and_an_edit_reruns_only_its_jobs(tmp_path):
    for name in ("Snakefile", "workflow", "config"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    (run_line,) = [line.strip() for line in GUIDE.read_text().splitlines()
                   if line.startswith("    snakemake --cores 2 my_method")]
    command = [sys.executable, "-m", *shlex.split(run_line)]
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    out = tmp_path / "results" / "my_method"
    table = (out / "table.md").read_text().splitlines()
    assert table[0] == "| dataset | m | mine | NCA | 1-NN | PCA | LDA | LPP | LLP |"
    assert "mine" in (out / "ranks.md").read_text() and (out / "figures" / "cd_diagram.png").stat().st_size > 0
    with h5py.File(out / "digits" / "m10" / "mine" / "split00.h5") as h5:
        source = json.loads(h5.attrs["config_json"])["estimator_source"]
    assert source["file"] == "config/my_methods.py"

    edited = tmp_path / "config" / "my_methods.py"
    edited.write_text(edited.read_text().replace("import numpy as np", "import numpy as np   # a comment")
                      + "\n\n# a comment-only edit and a reformatting rerun nothing\n")
    plan = subprocess.run(command + ["--dry-run"], cwd=tmp_path, capture_output=True, text=True)
    assert plan.returncode == 0 and "Nothing to be done" in plan.stdout + plan.stderr, plan.stdout[-3000:]
    edited.write_text(edited.read_text().replace("n_neighbors=3", "n_neighbors=4"))     # a code edit
    plan = subprocess.run(command + ["--dry-run"], cwd=tmp_path, capture_output=True, text=True)
    text = plan.stdout + plan.stderr
    assert plan.returncode == 0, text[-3000:]
    assert re.search(r"^fit_splits_x0_x2\s+2$", text, flags=re.M), text[-3000:]   # mine, two datasets
    assert re.search(r"^aggregate_my_method\s+1$", text, flags=re.M)
    outputs = re.findall(r"^\s+output: (\S+)", text, flags=re.M)
    assert any("/mine/" in path for path in outputs) and not any("/nca/" in path for path in outputs)
