"""The scaling simulator (tools/simulate_schedule.py) on a made-up Snakemake log:
a -> b (10 s, 20 s), c and d (15 s each, independent), e (two threads, 5 s) after everything."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SPEC = importlib.util.spec_from_file_location(
    "simulate_schedule", Path(__file__).resolve().parents[1] / "tools" / "simulate_schedule.py")
simulate_schedule = sys.modules["simulate_schedule"] = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(simulate_schedule)


def job_lines(second: int, rule: str, jobid: int, inputs: str, outputs: str, threads: int = 1) -> list[str]:
    lines = [f"[Fri Nov 27 04:00:{second:02d} 2026]", f"localrule {rule}:", f"    input: {inputs}",
             f"    output: {outputs}", f"    log: logs/{rule}.log", f"    jobid: {jobid}"]
    return lines + ([f"    threads: {threads}"] if threads > 1 else []) + ["    resources: tmpdir=/tmp"]


def finished(second: int, jobid: int) -> list[str]:
    return [f"[Fri Nov 27 04:00:{second:02d} 2026]", f"Finished jobid: {jobid} (Rule: r)", "1 of 5 steps (20%) done"]


LOG = "\n".join(
    ["Building DAG of jobs...", "Provided cores: 2", "Execute 2 jobs..."]
    + job_lines(0, "a", 1, "data/x.h5", "out/a.h5") + job_lines(0, "c", 3, "data/x.h5", "out/c.h5")
    + finished(10, 1) + job_lines(10, "d", 4, "data/x.h5", "out/d.h5")
    + finished(15, 3) + job_lines(15, "b", 2, "out/a.h5", "out/b.h5")
    + finished(25, 4) + finished(35, 2)
    + job_lines(35, "e", 5, "out/b.h5, out/c.h5, out/d.h5", "out/e.h5", threads=2) + finished(40, 5)
    + job_lines(40, "failed", 6, "out/e.h5", "out/f.h5") + ["Error in rule failed:"])


@pytest.fixture(scope="module")
def jobs():
    return simulate_schedule.parse_log(LOG)


def test_the_log_gives_each_finished_job_its_times_files_and_threads(jobs):
    assert [job.rule for job in jobs] == ["a", "c", "d", "b", "e"]          # the unfinished job is left out
    assert [job.seconds for job in jobs] == [10, 15, 15, 20, 5]
    assert jobs[4].inputs == ["out/b.h5", "out/c.h5", "out/d.h5"] and jobs[4].threads == 2
    assert simulate_schedule.dependencies(jobs) == {1: set(), 3: set(), 4: set(), 2: {1}, 5: {2, 3, 4}}


def test_the_recorded_order_on_the_recorded_cores_gives_the_recorded_wall_time(jobs):
    assert simulate_schedule.simulate(jobs, 2, "recorded") == 40


def test_one_core_runs_every_job_in_turn_and_many_cores_take_the_longest_chain(jobs):
    assert simulate_schedule.simulate(jobs, 1, "recorded") == sum(job.seconds for job in jobs)
    assert simulate_schedule.critical_path(jobs) == 35                   # a, b, e
    assert simulate_schedule.simulate(jobs, 64, "chain") == 35


def test_the_longest_chain_first_starts_b_before_d(jobs):
    # at 10 s, b (20 s, then e) and d (15 s) are ready: b first ends the run at 35 s, not 40
    assert simulate_schedule.simulate(jobs, 2, "chain") == 35
    with pytest.raises(ValueError, match="order must be"):
        simulate_schedule.simulate(jobs, 2, "shortest")


def test_an_experiments_cost_sized_jobs_can_be_simulated_without_a_log(config):
    jobs = simulate_schedule.estimated_jobs(config, "llp_table2")
    assert len(jobs) > 100 and all(job.seconds > 0 for job in jobs)
    total = sum(job.seconds for job in jobs)
    assert simulate_schedule.simulate(jobs, 1, "chain") == pytest.approx(total)
    assert simulate_schedule.simulate(jobs, 16, "chain") < total / 16 + max(job.seconds for job in jobs)


def test_a_run_resumed_over_two_sittings_is_replayed_as_one():
    # sitting 1 ends after a and c; d, started at 10 s, is cancelled by the stop and rerun in sitting 2
    first = "\n".join(job_lines(0, "a", 1, "data/x.h5", "out/a.h5") + job_lines(0, "c", 3, "data/x.h5", "out/c.h5")
                      + finished(10, 1) + job_lines(10, "d", 4, "data/x.h5", "out/d.h5") + finished(15, 3))
    second = "\n".join(job_lines(30, "d", 2, "data/x.h5", "out/d.h5") + job_lines(30, "b", 1, "out/a.h5", "out/b.h5")
                       + finished(45, 2) + finished(50, 1)
                       + job_lines(50, "e", 3, "out/b.h5, out/c.h5, out/d.h5", "out/e.h5", threads=2) + finished(55, 3))
    jobs, wall = simulate_schedule.parse_sittings([first, second])
    assert [job.rule for job in jobs] == ["a", "c", "b", "d", "e"] and wall == 15 + 25
    assert len({job.jobid for job in jobs}) == 5                       # jobids renumbered, not reused
    by_rule = {job.rule: job for job in jobs}
    needs = simulate_schedule.dependencies(jobs)
    assert needs[by_rule["b"].jobid] == {by_rule["a"].jobid}           # across the sittings
    assert needs[by_rule["e"].jobid] == {by_rule[rule].jobid for rule in "bcd"}
    assert simulate_schedule.simulate(jobs, 2, "chain") == 35          # the same jobs as one run: 40 recorded


def test_reblocking_replaces_the_jobs_that_wrote_a_block_by_one_of_their_split_times_plus_a_start_up(jobs):
    from locproj.engine.job_costs import STARTUP_SECONDS

    merged = simulate_schedule.reblocked(jobs, [("cd", ["out/c.h5", "out/d.h5"])], lambda path: 4.0)
    assert [job.rule for job in merged] == ["a", "cd", "b", "e"]        # in c's place
    cd = merged[1]
    assert cd.seconds == STARTUP_SECONDS + 8.0 and cd.inputs == ["data/x.h5"]
    assert simulate_schedule.dependencies(merged)[5] == {2, cd.jobid}   # e now waits for b and cd
    assert simulate_schedule.simulate(merged, 2, "recorded") == 30 + 5
