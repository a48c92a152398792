"""What jobs ask a cluster for, and what a run predicts of its own duration: every rule that runs
declares its memory and minutes, one config setting scales them all, a retry asks for more up to the
partition's caps, and the prediction schedules the jobs' estimates (a real run's messages and timing:
tests/test_workflow.py)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from locproj.engine.job_costs import (UNESTIMATED_SECONDS, RunPlan, experiment_timing, job_memory_mb,
                                      predicted_wall_seconds)
from locproj.engine.resources import at_attempt, job_resources, settings


def test_a_retry_asks_for_more_up_to_the_cap():
    chosen = settings({"resources_scale": 1.5, "resources_growth": 2, "max_mem_mb": 5000})
    assert [at_attempt(1000, attempt, chosen, "max_mem_mb") for attempt in (1, 2, 3, 4)] == [1500, 3000, 5000, 5000]
    assert [at_attempt(7, attempt, chosen, "max_runtime") for attempt in (1, 2, 3)] == [11, 21, 42]   # no cap


def test_the_resources_of_a_rule_are_functions_of_its_wildcards_and_attempt():
    resources = job_resources({"resources_growth": 3, "max_runtime": 100},
                              mem_mb=lambda wildcards: 100 * wildcards["n"], runtime=40)
    assert resources["mem_mb"]({"n": 7}, 1) == 700 and resources["mem_mb"]({"n": 7}, 2) == 2100
    assert [resources["runtime"]({}, attempt) for attempt in (1, 2, 3)] == [40, 100, 100]


def test_the_runtime_alone_can_be_scaled():
    chosen = settings({"resources_scale": 2, "runtime_scale": 0.25})
    assert at_attempt(1000, 1, chosen, "max_mem_mb") == 2000 and at_attempt(10, 1, chosen, "max_runtime") == 5


def test_the_defaults_ask_for_each_rules_own_estimate():
    assert job_resources({}, mem_mb=1234, runtime=5)["mem_mb"]({}, 1) == 1234
    assert job_resources({"resources_scale": None}, mem_mb=1234, runtime=5)["runtime"]({}, 1) == 5


def test_memory_grows_with_the_dense_matrices_of_a_larger_training_set():
    config = {"dataset_sizes": {"big": {"samples": 40000, "classes": 10, "features": 256},
                                "small": {"samples": 400, "classes": 40, "features": 1024}},
              "experiments": {"e": {"methods": {"lpp": {}}}}}
    small = job_memory_mb(config, "e", "small", "m5", "lpp")
    big = job_memory_mb(config, "e", "big", "f0.5", "lpp")          # 20 000 training samples
    assert small < big and big > 8 * 20000**2 / 1e6                  # at least one n x n matrix of float64
    assert job_memory_mb(config, "e", "unknown", "m5", "lpp", fallback=1500) == 1500


def test_the_wall_time_schedules_the_longest_jobs_first():
    assert predicted_wall_seconds([10, 10, 10, 10], 2) == 20
    assert predicted_wall_seconds([30, 10, 10, 10], 2) == 30
    assert predicted_wall_seconds([5, 5], 8) == 5
    plan = RunPlan([60.0, None, 120.0], slots=1, started=0.0)
    assert plan.seconds == 180.0 + UNESTIMATED_SECONDS and "3 jobs" in plan.start_message()
    assert "took 6 min 04 s" in plan.end_message(364.0) and "2.00 times" in plan.end_message(364.0)


def test_the_remaining_time_is_the_jobs_left_at_the_pace_of_those_done():
    plan = RunPlan([60.0, 60.0, 30.0, 30.0], slots=2, started=0.0)       # 90 s predicted on two slots
    assert plan.remaining_seconds([False] * 4, now=0.0) == 90.0
    # the two 60 s jobs done after 120 s, twice their predicted 60 s: the 30 s left take twice as long
    assert plan.remaining_seconds([True, True, False, False], now=120.0) == 60.0
    assert plan.remaining_seconds([True, True, False, False], now=30.0) == 15.0        # or half as long
    assert plan.remaining_seconds([True] * 4, now=200.0) == 0.0
    assert plan.progress_message([True, True, False, False], now=120.0) == (
        "locproj: 2 of 4 jobs done in 2 min 00 s; about 1 min 00 s left")


def test_timing_sums_the_benchmark_files_of_an_experiments_jobs(tmp_path):
    config = {"dataset_sizes": {"orl": {"samples": 400, "classes": 40, "features": 1024}},
              "experiments": {"e": {"methods": {"lpp": {}}, "datasets": {"orl": [5]}}}}
    header = "s\th:m:s\tmax_rss\n"
    for block, seconds in (("splits00-01", 3.5), ("splits02-02", 1.25)):
        path = tmp_path / "benchmarks" / "fit" / "e" / "orl" / "m5" / "lpp" / f"{block}.tsv"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{header}{seconds}\t0:00:03\t180.0\n")
    other = tmp_path / "benchmarks" / "fit" / "other" / "orl" / "m5" / "lpp" / "splits00-00.tsv"
    other.parent.mkdir(parents=True)
    other.write_text(f"{header}100\t0:01:40\t180.0\n")
    timing = experiment_timing(config, "e", logs=tmp_path)
    assert timing["jobs"] == 2 and timing["measured_seconds"] == 4.8
    assert timing["cost_model"]["jobs"] == 2 and timing["cost_model"]["estimated_seconds"] > 0


def dry_run_resources(workdir, *args) -> list[dict]:
    """Each job of a dry run: its rule and resources, as Snakemake prints them."""
    result = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "2", *args], cwd=workdir,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    jobs = []
    for block in re.split(r"\n(?=(?:local)?rule \S+:)", result.stdout + result.stderr):
        rule = re.match(r"(?:local)?rule (\S+):", block)
        line = re.search(r"^\s+resources: (.*)$", block, re.M)
        output = re.search(r"^\s+output: (.*)$", block, re.M)
        if rule and "jobid:" in block and output:     # a target rule writes nothing and runs nothing
            pairs = dict(pair.split("=", 1) for pair in line.group(1).split(", ")) if line else {}
            jobs.append({"rule": rule.group(1), "output": output and output.group(1), **pairs})
    return jobs


@pytest.mark.slow
def test_every_job_declares_its_memory_and_minutes_and_one_setting_scales_them(workdir):
    papers = ["papers", "--configfile", "config/papers_smoke.yaml", "--forceall"]
    jobs = dry_run_resources(workdir, *papers)
    rules = {job["rule"] for job in jobs}
    assert {"prepare", "split", "aggregate_matrix", "fidelity", "fit_holdout", "embed_panel"} <= rules
    assert any(rule.startswith("fit_") for rule in rules) and any(rule.startswith("embed_") for rule in rules)
    assert [job["rule"] for job in jobs if "mem_mb" not in job or "runtime" not in job] == []
    doubled = dry_run_resources(workdir, *papers, "--config", "resources_scale=2", "max_mem_mb=3000")
    assert len(doubled) == len(jobs)
    by_output = {(job["rule"], job["output"]): job for job in jobs}
    assert len(by_output) == len(jobs)
    for job in doubled:
        single = by_output[job["rule"], job["output"]]
        assert int(job["runtime"]) == 2 * int(single["runtime"])
        assert int(job["mem_mb"]) == min(3000, 2 * int(single["mem_mb"]))
