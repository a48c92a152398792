"""A mistake in the config or the data is printed as its message alone, without a traceback.

Each case runs Snakemake as a user does, on a copy of the workflow with one mistake in an overlay
config: the exit status is non-zero, the message names the key, its place and the fix, and no
traceback or line of the pipeline's own code is printed. An internal error keeps its traceback
(``locproj.workflow.run_rule``). Local-data mistakes are the cases of ``test_own_data.py``; more
schema messages are checked in-process below.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from locproj.data.errors import DataError
from locproj.errors import ConfigError, UserError, schema_error
from locproj.workflow import run_rule

ROOT = Path(__file__).resolve().parents[1]

PARSE_CASES = {
    "unknown experiment key": (
        {"experiments": {"llp_table2": {"n_splitz": 2}}},
        ["unknown config key 'n_splitz' under experiments.llp_table2 (did you mean 'n_splits'?)",
         "The keys allowed there: ", "n_folds, n_splits, on_error, p_max"]),
    "value of the wrong type": (
        {"experiments": {"llp_table2": {"n_splits": "two"}}},
        ["config key experiments.llp_table2.n_splits: 'two' is not of type 'integer'"]),
    "estimator that cannot be imported": (
        {"experiments": {"llp_table2": {"methods": {"mine": {"estimator": "no_such_module:Mine"}}}}},
        ["experiment 'llp_table2', method 'mine':", "no_such_module"]),
    "unknown target": (
        {"targets": {"mine": ["llp_tabel2"]}},
        ["target 'mine': 'llp_tabel2' is neither an experiment nor a target"]),
    "dataset without a size for auto blocks": (
        {"datasets": {"mine": {"format": "sklearn_digits"}},
         "experiments": {"mine": {"datasets": {"mine": [5]}, "methods": {"raw": {}}, "splits_per_job": "auto"}}},
        ["experiment 'mine': dataset 'mine' has no entry in `dataset_sizes`"]),
}


def _workdir(tmp_path: Path) -> Path:
    workdir = tmp_path / "work"
    workdir.mkdir()
    for name in ("Snakefile", "workflow", "config", "profiles"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, workdir / name)
    return workdir


def _snakemake(workdir: Path, overlay: dict, *args: str) -> tuple[int, str]:
    (workdir / "config" / "mistake.yaml").write_text(yaml.safe_dump(overlay))
    result = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1", *args, "--configfile",
                             "config/mistake.yaml"], cwd=workdir, capture_output=True, text=True)
    return result.returncode, result.stdout + result.stderr


def _assert_message_alone(status: int, output: str, expected: list[str]) -> None:
    assert status != 0, output[-3000:]
    for text in expected:
        assert text in output, output[-3000:]
    assert "Traceback" not in output and 'File "' not in output, output[-3000:]


@pytest.mark.parametrize("case", PARSE_CASES)
def test_a_config_mistake_is_its_message_alone_before_any_job(tmp_path, case):
    overlay, expected = PARSE_CASES[case]
    workdir = _workdir(tmp_path)
    status, output = _snakemake(workdir, overlay, "--dry-run", "llp_paper")
    _assert_message_alone(status, output, expected)
    assert ".smk" not in output and "locproj/" not in output, output[-3000:]   # nothing points into the pipeline
    assert "nothing was run" in output and not (workdir / "logs").exists()


def test_a_data_mistake_found_by_a_job_is_its_message_alone(tmp_path):
    """A mirror file whose checksum is not the config's: the fetch job fails, its log line says why
    (Snakemake then reports the failed job and its log as for any job), and leaves no file behind."""
    workdir = _workdir(tmp_path)
    (workdir / "mirror").mkdir()
    (workdir / "mirror" / "iris.data").write_text("5.1,3.5,1.4,0.2,Iris-setosa\n")
    status, output = _snakemake(workdir, {"data_mirror": "mirror"}, "data/processed/iris.h5")
    _assert_message_alone(status, output, ["sha256 mismatch", "iris.data"])
    assert not (workdir / "data" / "raw" / "iris" / "iris.data").exists()


def test_every_error_a_user_can_fix_is_a_user_error():
    from locproj.core.io import UnreadableFileError
    from locproj.engine.job_costs import SizeError
    from locproj.engine.own_methods import MethodImportError

    for error in (ConfigError, DataError, MethodImportError, SizeError, UnreadableFileError):
        assert issubclass(error, UserError) and issubclass(error, ValueError)   # callers catching ValueError still do


@pytest.mark.parametrize("experiment, expected", [
    ({"methods": {"lpp": {"gird": {"n_neighbors": [5]}}}},
     "unknown config key 'gird' under experiments.t.methods.lpp (did you mean 'grid'?). The keys allowed there: "),
    ({"splits_per_job": "often"},
     "config key experiments.t.splits_per_job: 'often' is none of: an integer >= 1; 'auto'"),
    ({"datasets": {"d": [0]}}, "config key experiments.t.datasets.d[0]: 0 is none of: an integer >= 1; a number > 0 "
                               "and < 1; 'holdout'"),
])
def test_the_schema_message_names_the_key_its_place_and_what_is_allowed(experiment, expected):
    """What the pipeline prints for a schema violation (the cases above run Snakemake itself)."""
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate

    config = {"datasets": {"d": {"format": "sklearn_digits"}},
              "experiments": {"t": {"datasets": {"d": [5]}, "methods": {"pca": {}}, **experiment}}}
    with pytest.raises(WorkflowError) as info:
        validate(config, str(ROOT / "workflow" / "schemas" / "config.schema.yaml"))
    assert str(schema_error(info.value)).startswith(expected)


def test_schema_error_reads_the_violation_that_snakemake_wrapped():
    import jsonschema

    schema = {"type": "object", "properties": {"n_splits": {"type": "integer"}, "n_folds": {"type": "integer"}},
              "additionalProperties": False}
    try:
        try:
            jsonschema.validate({"n_splitz": 1}, schema)
        except jsonschema.ValidationError:
            raise RuntimeError("Error validating config file.")   # as snakemake.utils.validate does
    except RuntimeError as error:
        message = str(schema_error(error))
    assert message.startswith("unknown config key 'n_splitz' at the top level (did you mean 'n_splits'?)")
    assert "The keys allowed there: n_folds, n_splits." in message
    assert schema_error(RuntimeError("no schema involved")) is None


def _rule_context(tmp_path):
    return SimpleNamespace(log=[str(tmp_path / "job.log")], rule="prepare", wildcards={"dataset": "mine"}, threads=1,
                           params={})


def test_a_job_logs_a_user_error_without_traceback_and_an_internal_error_with_one(tmp_path):
    def bad_data(_):
        raise DataError("datasets.mine: line 3 is not a number; fix the file")

    with pytest.raises(SystemExit) as info:
        run_rule(_rule_context(tmp_path), bad_data)
    log = (tmp_path / "job.log").read_text()
    assert info.value.code == 1 and "line 3 is not a number" in log and "Traceback" not in log

    def bug(_):
        raise KeyError("internal")

    with pytest.raises(SystemExit) as info:          # not the KeyError: Python would print it a second time
        run_rule(_rule_context(tmp_path), bug)
    log = (tmp_path / "job.log").read_text()
    assert info.value.code == 1 and log.count("Traceback") == 1 and "KeyError: 'internal'" in log
    logging.shutdown()

