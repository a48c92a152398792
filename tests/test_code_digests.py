"""A job's code digest changes exactly when the code it runs does: a comment or a docstring moves no
digest, a method's module moves only the digests of the jobs that run that method, a module every
job imports (the 1-NN evaluation) moves them all, and so does a user's method file."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from locproj.engine import code_digests
from locproj.engine.registry import METHODS
from locproj.experiments import job_code, job_rules
from locproj.protocols import protocol_named, protocol_of

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "workflow" / "scripts"


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A copy of the locproj sources that the digests read, edited by the test."""
    shutil.copytree(ROOT / "src" / "locproj", tmp_path / "locproj", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(code_digests, "SOURCE_ROOT", tmp_path)
    for cached in (code_digests._known_modules, code_digests._parsed, code_digests.job_code_digest):
        cached.cache_clear()
    yield tmp_path / "locproj"
    for cached in (code_digests._known_modules, code_digests._parsed, code_digests.job_code_digest):
        cached.cache_clear()


def digests(methods=("lpp", "srda", "pca")) -> dict[str, str]:
    for cached in (code_digests._parsed, code_digests.job_code_digest):
        cached.cache_clear()
    protocol = protocol_named("cv_table")
    return {name: job_code(protocol, METHODS[name], "run_job.py", SCRIPTS) for name in methods}


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_a_comment_or_a_docstring_moves_no_digest(package):
    before = digests()
    evaluation = package / "core" / "evaluation.py"
    text = evaluation.read_text()
    docstring = re.match(r'"""(.*?)"""', text, re.S)
    evaluation.write_text('"""Another docstring."""\n# a comment\n' + text[docstring.end():] + "\n# the end\n")
    edit(package / "methods" / "srda.py", "class SpectralRegressionDiscriminantAnalysis(LinearProjection):\n",
         "class SpectralRegressionDiscriminantAnalysis(LinearProjection):  # a comment\n")
    assert digests() == before


def test_a_methods_module_moves_only_the_jobs_of_that_method(package):
    before = digests()
    srda = package / "methods" / "srda.py"
    srda.write_text(srda.read_text() + "\n\nANSWER = 42\n")
    after = digests()
    assert after["srda"] != before["srda"]
    assert after["lpp"] == before["lpp"] and after["pca"] == before["pca"]


def test_the_evaluation_every_job_runs_moves_every_digest(package):
    before = digests()
    evaluation = package / "core" / "evaluation.py"
    evaluation.write_text(evaluation.read_text() + "\n\nANSWER = 42\n")
    after = digests()
    assert all(after[name] != before[name] for name in before)


def test_a_shared_module_of_the_methods_moves_the_methods_that_import_it(package):
    before = digests()
    base = package / "methods" / "_base.py"
    base.write_text(base.read_text() + "\n\nANSWER = 42\n")
    after = digests()
    assert after["lpp"] != before["lpp"] and after["srda"] != before["srda"]
    assert after["pca"] == before["pca"]                 # scikit-learn's PCA imports none of locproj's methods


def test_planning_a_job_moves_no_digest(package):
    """The cost model sizes and orders jobs and asks for their resources; recalibrating it computes
    nothing new, so it reruns nothing."""
    before = digests()
    for path in (package / "engine" / "job_costs.py", package / "engine" / "code_digests.py"):
        path.write_text(path.read_text() + "\n\nANSWER = 42\n")
    assert digests() == before
    assert "locproj.engine.job_costs" in code_digests.closure(["locproj.experiments"])    # imported, all the same


def test_a_users_method_file_and_the_job_script_count(tmp_path):
    protocol = protocol_named("cv_table")
    spec = METHODS["pca"]
    plain = job_code(protocol, spec, "run_job.py", SCRIPTS)
    assert job_code(protocol, spec, "run_job.py", None) != plain          # the script is part of it
    own = type(spec)(**{**spec.__dict__, "source": {"code_sha256": "a" * 64}})
    other = type(spec)(**{**spec.__dict__, "source": {"code_sha256": "b" * 64}})
    assert len({plain, job_code(protocol, own, "run_job.py", SCRIPTS),
                job_code(protocol, other, "run_job.py", SCRIPTS)}) == 3


def test_every_job_rule_carries_its_code_digest():
    config = {"seed": 1, "n_splits": 2, "datasets": {"digits": {"format": "sklearn_digits"}},
              "experiments": {"e": {"datasets": {"digits": [5]}, "n_splits": 2,
                                    "methods": {"lpp": {}, "srda": {}}}}}
    rule = job_rules(config, "e", scripts=SCRIPTS)[0]

    class Wildcards(dict):
        __getattr__ = dict.__getitem__

    code = {method: rule.params["code"](Wildcards(experiment="e", dataset="digits", partition="m5", method=method,
                                                  split="00"))
            for method in ("lpp", "srda")}
    assert all(re.fullmatch("[0-9a-f]{64}", value) for value in code.values()) and code["lpp"] != code["srda"]


def test_an_aggregation_carries_the_digest_of_its_protocol_and_script():
    from locproj.experiments import aggregation_code

    config = {"experiments": {"t": {"datasets": {"d": [5]}, "methods": {"pca": {}}},
                              "e": {"protocol": "embedding", "panels": {}, "figures": {}}}}
    table, panels = aggregation_code(config, "t", SCRIPTS), aggregation_code(config, "e", SCRIPTS)
    assert re.fullmatch("[0-9a-f]{64}", table) and table != panels


def test_the_conda_environment_holds_the_dependencies_and_the_jobs_import_the_checkout():
    """Under --software-deployment-method conda the environment must not freeze a copy of locproj:
    it lists the dependencies only, and the Snakefile puts this checkout's src/ first on the path of
    the main process and on the PYTHONPATH every job inherits. (Conda itself is not run here.)"""
    import yaml

    environment = yaml.safe_load((ROOT / "workflow" / "envs" / "locproj.yaml").read_text())
    assert all(isinstance(item, str) for item in environment["dependencies"])      # no pip: section
    assert not any(item.split("=")[0].split(">")[0] in ("locproj", "pip") for item in environment["dependencies"])
    snakefile = (ROOT / "Snakefile").read_text()
    assert 'SOURCE = Path(workflow.basedir) / "src"' in snakefile
    assert snakefile.index("sys.path.insert(0, str(SOURCE))") < snakefile.index("from locproj")
    assert "PYTHONPATH=os.pathsep.join(\n            [str(SOURCE)]" in snakefile


def test_a_panel_without_a_method_has_the_digest_of_its_protocol_alone():
    from locproj.protocols import protocol_named

    embedding = protocol_named("embedding")
    assert embedding.job_method({"panel": {"kind": "samples", "dataset": "d"}}) is None
    assert embedding.job_method({"panel": {"kind": "embedding", "dataset": "d", "method": "pca"}}).name == "pca"


def config_job_digests(config: dict) -> dict[tuple[str, str], str]:
    """(experiment, method entry) -> the code digest of its jobs, as their rules compute it."""
    for cached in (code_digests._parsed, code_digests.job_code_digest):
        cached.cache_clear()
    found = {}
    for experiment, spec in config["experiments"].items():
        protocol = protocol_of(spec)
        if protocol.name == "embedding":
            continue
        dataset = protocol.datasets(spec)[0]
        for method in spec.get("methods") or {}:
            params = {"job": protocol.job_config(config, experiment, dataset, method, [2])}
            found[experiment, method] = job_code(protocol, protocol.job_method(params), "run_job.py", SCRIPTS,
                                                 protocol.job_estimator(params))
    return found


def test_an_edit_of_the_pca_first_step_reruns_exactly_the_jobs_that_run_it(package):
    from locproj.engine.config_files import load_config

    config = load_config(ROOT)
    before = config_job_digests(config)
    edit(package / "methods" / "linear.py", '        """Fit the PCA on ``X`` (``y`` is ignored)."""\n',
         '        """Fit the PCA on ``X`` (``y`` is ignored)."""\n        X = X\n')
    after = config_job_digests(config)
    moved = {key for key in before if before[key] != after[key]}
    uses_pca_first = {key for key in before
                      if (config["experiments"][key[0]]["methods"][key[1]] or {}).get("pca_first")}
    lda = {key for key in before if (config["experiments"][key[0]]["methods"][key[1]] or {}).get("method", key[1])
           in ("lda", "fisherfaces")}
    assert {("matrix", "nca"), ("matrix", "lsda"), ("matrix", "olpp")} <= uses_pca_first
    assert any(experiment.startswith("lpk") and "lfda" in method for experiment, method in uses_pca_first)
    assert lda and moved == uses_pca_first | lda
