"""Targets that name targets (`papers`), the report page of every experiment, and the smoke-sized
`papers` (config/papers_smoke.yaml, its `replace_experiments`)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from locproj.engine.config import expand_targets, replace_experiments, report_categories
from locproj.engine.config_files import load_config

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENTS = {"t2": {}, "curve": {}, "embed": {}, "matrix": {}, "extra": {}}


def test_a_target_naming_targets_runs_their_experiments_in_order_without_repeats():
    targets = {"paper_a": ["curve", "embed"], "matrix": ["matrix"], "both": ["paper_a", "t2", "curve"],
               "all": ["both", "paper_a", "matrix"]}
    assert expand_targets(targets, EXPERIMENTS) == {
        "paper_a": ["curve", "embed"], "matrix": ["matrix"], "both": ["curve", "embed", "t2"],
        "all": ["curve", "embed", "t2", "matrix"]}


def test_an_unknown_name_in_a_target_is_an_error_naming_target_and_name():
    with pytest.raises(ValueError, match=r"target 'paper_b': 'lea_papr' is neither an experiment nor a target"):
        expand_targets({"all": ["paper_b"], "paper_b": ["t2", "lea_papr"]}, EXPERIMENTS)


@pytest.mark.parametrize("targets, cycle", [
    ({"a": ["b"], "b": ["c", "t2"], "c": ["a"]}, "a -> b -> c -> a"),
    ({"all": ["all"]}, "all -> all"),
    ({"x": ["t2"], "all": ["x", "loop"], "loop": ["curve", "all"]}, "all -> loop -> all"),
])
def test_a_cycle_of_targets_is_an_error_naming_it(targets, cycle):
    with pytest.raises(ValueError, match=f"targets form a cycle: {re.escape(cycle)}"):
        expand_targets(targets, EXPERIMENTS)


def test_a_target_named_after_an_experiment_names_only_that_experiment():
    assert expand_targets({"matrix": ["matrix"], "all": ["matrix", "t2"]}, EXPERIMENTS)["all"] == ["matrix", "t2"]
    with pytest.raises(ValueError, match="target 'matrix' has an experiment's name"):
        expand_targets({"matrix": ["matrix", "t2"]}, EXPERIMENTS)


def test_an_experiments_report_page_is_its_first_paper_target_else_its_own_name():
    targets = {"paper_a": ["curve", "embed"], "matrix": ["matrix"], "paper_b": ["embed"],
               "all": ["t2", "paper_a", "paper_b", "matrix"]}
    assert report_categories(targets, EXPERIMENTS) == {
        "t2": "t2", "curve": "paper_a", "embed": "paper_a", "matrix": "matrix", "extra": "extra"}


# ----------------------------------------------------------------------------------- the real config


@pytest.fixture(scope="module")
def config():
    return load_config(ROOT)


def test_papers_runs_every_experiment_of_every_paper_target(config):
    targets = expand_targets(config["targets"], config["experiments"])
    papers = ["llp_paper", "lea_paper", "slle_paper", "lpk_paper", "lpp_notes", "matrix"]
    assert config["targets"]["papers"] == papers and targets["llp_paper"] == ["llp_table2"]
    expected = [e for name in papers for e in targets[name]]
    assert targets["papers"] == expected and len(set(expected)) == len(expected)


def test_every_experiment_of_the_config_has_its_papers_page(config):
    pages = report_categories(config["targets"], config["experiments"])
    assert pages["llp_table2"] == "llp_paper" and pages["jpeg_effect"] == "jpeg_effect"
    assert pages["lea_recognition"] == pages["lea_embeddings"] == "lea_paper"
    assert pages["matrix"] == "matrix" and pages["lpp_kernel_toy"] == "lpp_notes"
    for target in ("llp_paper", "slle_paper", "lpk_paper"):
        assert all(pages[e] == target for e in config["targets"][target])
    assert "papers" not in pages.values()


# ------------------------------------------------------------------------------- through the workflow


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A copy of the workflow as a fresh clone has it (no data, no results)."""
    folder = tmp_path_factory.mktemp("workflow")
    for name in ("Snakefile", "workflow", "config"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, folder / name)
    return folder


def dry_run_jobs(workdir, *args) -> set[tuple[str, str]]:
    """The (rule, outputs) of every job ``snakemake -n args...`` (targets and options) would run."""
    done = subprocess.run([sys.executable, "-m", "snakemake", "-n", *args], cwd=workdir,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    jobs = re.findall(r"^rule (\S+):\n(?:    output: (.*)\n)?", done.stdout, flags=re.MULTILINE)
    total = int(re.search(r"^total\s+(\d+)$", done.stdout, flags=re.MULTILINE)[1])
    assert len(jobs) == total
    return set(jobs)


@pytest.mark.slow
def test_papers_dry_runs_the_union_of_its_targets_jobs(workdir, config):
    """Every job of every paper once: the targets' fits and aggregations (each experiment has one
    paper, so these add up), their shared data jobs (fetch, prepare, views, splits) once, and the
    `papers` rule instead of the six targets' rules."""
    names = config["targets"]["papers"]
    union = dry_run_jobs(workdir, *names)      # one DAG for the six targets: their union (2 runs, not 7)
    papers = dry_run_jobs(workdir, "papers")
    target_rules = {(name, "") for name in names}
    assert target_rules <= union
    assert papers == (union - target_rules) | {("papers", "")}
    # and the fits and aggregations add up: no experiment belongs to two of the targets
    expanded = expand_targets(config["targets"], config["experiments"])
    experiments = [expanded.get(name, [name]) for name in names]
    assert sum(map(len, experiments)) == len(set().union(*map(set, experiments)))


def test_an_unknown_or_cyclic_target_fails_at_start_up_naming_it(workdir, tmp_path):
    for targets, message in (({"papers": ["llp_paper", "lea_papr"]}, "'lea_papr' is neither"),
                             ({"loop": ["papers"], "papers": ["loop"]},
                              "targets form a cycle: papers -> loop -> papers")):
        bad = tmp_path / "bad.yaml"
        bad.write_text(yaml.safe_dump({"targets": targets}))
        done = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--configfile", "config/config.yaml",
                               str(bad)], cwd=workdir, capture_output=True, text=True)
        assert done.returncode != 0 and message in done.stdout + done.stderr


# ------------------------------------------------------------ the smoke-sized papers (papers_smoke.yaml)


def test_replace_experiments_replaces_an_experiment_wholesale():
    config = {"experiments": {"a": {"datasets": {"yale": [5], "pie": [10]}, "n_splits": 20,
                                    "methods": {"pca": {}, "llp": {"grid": {"reg": [0.1, 1]}}}},
                              "b": {"datasets": {"orl": [5]}, "methods": {"pca": {}}}},
              "replace_experiments": {"a": {"datasets": {"yale": [5]}, "methods": {"llp": {"grid": {"reg": [1]}}}}}}
    assert replace_experiments(config) is config
    assert config["experiments"]["a"] == {"datasets": {"yale": [5]}, "methods": {"llp": {"grid": {"reg": [1]}}}}
    assert list(config["experiments"]) == ["a", "b"] and config["experiments"]["b"]["datasets"] == {"orl": [5]}
    config["experiments"]["a"]["datasets"]["iris"] = [10]      # a copy: validation's defaults stay out of the overlay
    assert "iris" not in config["replace_experiments"]["a"]["datasets"]
    assert replace_experiments({"experiments": {"a": {}}}) == {"experiments": {"a": {}}}     # nothing to replace


def test_replace_experiments_refuses_an_unknown_experiment_naming_it():
    config = {"experiments": {"llp_table2": {}}, "replace_experiments": {"llp_tabel2": {}, "llp_table2": {}}}
    with pytest.raises(ValueError, match=r"replace_experiments: 'llp_tabel2' is not an experiment of the config"):
        replace_experiments(config)
    with pytest.raises(ValueError, match=r"'llp_table2' must be a complete experiment definition"):
        replace_experiments({"experiments": {"llp_table2": {}}, "replace_experiments": {"llp_table2": [1]}})


@pytest.fixture(scope="module")
def smoke_config(config):
    """The configuration with papers_smoke.yaml merged as `--configfile` merges it, then replaced,
    validated and checked as workflow/rules/common.smk does."""
    from snakemake.utils import validate

    from locproj.data.checks import check_dataset_options
    from locproj.experiments import check_experiments

    merged = load_config(ROOT, ["config/papers_smoke.yaml"])
    assert "pie" in merged["experiments"]["llp_table2"]["datasets"]     # what merging alone leaves
    replace_experiments(merged)
    check_dataset_options(merged)
    validate(merged, str(ROOT / "workflow" / "schemas" / "config.schema.yaml"))
    check_experiments(merged)
    return merged


def test_the_papers_smoke_overlay_validates_and_keeps_every_experiment_of_papers(smoke_config, config):
    papers = expand_targets(config["targets"], config["experiments"])["papers"]
    assert expand_targets(smoke_config["targets"], smoke_config["experiments"])["papers"] == papers
    assert sorted(smoke_config["replace_experiments"]) == sorted(papers)       # every one of them made small
    for name in papers:
        smoke, full = smoke_config["experiments"][name], config["experiments"][name]
        assert smoke.get("protocol", "cv_table") == full.get("protocol", "cv_table"), name
        assert list(smoke.get("methods", {})) == list(full.get("methods", {})), name   # every method entry
        assert smoke.get("n_splits", 2) <= 2, name
    assert smoke_config["experiments"]["llp_table2"]["datasets"] == {"yale": [5]}      # pie and the rest gone


def test_a_papers_dry_run_with_the_smoke_overlay_has_jobs_for_every_experiment(workdir, config):
    done = subprocess.run([sys.executable, "-m", "snakemake", "-n", "papers", "--configfile",
                           "config/papers_smoke.yaml"], cwd=workdir, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    jobs = [(block.split(":", 1)[0], re.search(r"^    output: (.*)$", block, flags=re.MULTILINE))
            for block in done.stdout.split("\nrule ")[1:]]
    outputs = [(rule, found[1] if found else "") for rule, found in jobs]
    for name in expand_targets(config["targets"], config["experiments"])["papers"]:
        assert any(rule.startswith("aggregate_") and f"results/{name}/metadata.yaml" in paths
                   for rule, paths in outputs), name
        assert any(rule.startswith(("fit_", "embed_")) and f"results/{name}/" in paths for rule, paths in outputs), name
    assert "papers" in {rule for rule, _ in outputs}
