"""Scaling simulator: a recorded run's jobs replayed on N cores.

Reads a Snakemake log (``.snakemake/log/*.snakemake.log``): every job's rule, inputs, outputs,
threads, start and finish. A job depends on the jobs of the same log that wrote one of its inputs.
The jobs are replayed through a greedy list schedule on N cores (a job starts as soon as its inputs
exist and it has the cores it asks for, Snakemake's own rule), each with its recorded duration, and
the predicted wall time is printed for each N, in two orders of the ready jobs:

- ``recorded``: the order in which the run started them (what Snakemake chose there);
- ``longest chain first``: the ready job with the longest chain of work from its start to the end of
  the jobs that need it first (what a priority from a cost model aims at).

Beside them: the sum of the job times over N (the bound no schedule beats) and the longest chain of
dependent jobs (the bound no number of cores beats). The durations are those of the recorded
machine: on N cores that share memory bandwidth, a job runs slower (a PIE m = 30 LPP split took
105 s on a busy 16-core machine against 85 s on 2 cores), so read the prediction as a lower bound there.

    python tools/simulate_schedule.py .snakemake/log/2026-11-27T041828.123456.snakemake.log
    python tools/simulate_schedule.py LOG --cores 2 4 8 16 64
    python tools/simulate_schedule.py --estimate llp_table2      # its cost-sized jobs, no log

A run resumed over several sittings (Snakemake continues where it stopped) is given as the logs of
its sittings, in order: their finished jobs are replayed as one run (a job cancelled by a stop is left
out; its rerun in the next sitting counts), and the recorded wall time is the sum of the sittings'.

    python tools/simulate_schedule.py .snakemake/log/*.snakemake.log

Check it on a 2-core run: ``recorded`` on 2 cores against the run's wall time (first start to last
finish, summed over sittings), printed on the first line.

``--reblock EXPERIMENT`` replays the run with that experiment's fit jobs as the config now blocks them
(``splits_per_job: auto``): each new job the recorded seconds of its splits (``cv_seconds +
fit_seconds`` in the run's result files, under ``--results``) plus the start-up of one process
(``locproj.engine.job_costs.STARTUP_SECONDS``), in place of the run's own blocks.

    python tools/simulate_schedule.py ../papers_run/.snakemake/log/*.log --reblock matrix \\
        --results ../papers_run
"""

from __future__ import annotations

import argparse
import heapq
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

_STAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]$")
_RULE = re.compile(r"^(?:local)?rule (\S+):$")
_FINISHED = re.compile(r"^Finished job(?:id)?:? (\d+)")
_FIELD = re.compile(r"^\s+(input|output|jobid|threads): (.*)$")


@dataclass
class Job:
    jobid: int
    rule: str
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    threads: int = 1
    start: float | None = None
    end: float | None = None

    @property
    def seconds(self) -> float:
        return self.end - self.start


def parse_log(text: str) -> list[Job]:
    """The finished jobs of a Snakemake log, in the order they started."""
    jobs: dict[int, Job] = {}
    stamp, pending = None, None
    for line in text.splitlines():
        if match := _STAMP.match(line):
            stamp = datetime.strptime(match[1], "%a %b %d %H:%M:%S %Y").timestamp()
        elif match := _RULE.match(line):
            pending = Job(jobid=-1, rule=match[1], start=stamp)
        elif pending is not None and (match := _FIELD.match(line)):
            key, value = match[1], match[2].strip()
            if key == "jobid":
                pending.jobid = int(value)
                jobs[pending.jobid] = pending
            elif key == "threads":
                pending.threads = int(value)
            else:
                setattr(pending, key + "s", [item.strip() for item in value.split(",") if item.strip()])
        elif match := _FINISHED.match(line.strip()):
            if int(match[1]) in jobs:
                jobs[int(match[1])].end = stamp
        elif not line.startswith(" "):
            pending = None
    finished = [job for job in jobs.values() if job.start is not None and job.end is not None]
    return sorted(finished, key=lambda job: (job.start, job.jobid))


def parse_sittings(texts: list[str]) -> tuple[list[Job], float]:
    """The finished jobs of the logs of one run's sittings, renumbered so that jobids stay unique,
    and the run's wall time: each sitting's first start to its last finish, summed."""
    jobs, wall, offset = [], 0.0, 0
    for text in texts:
        sitting = parse_log(text)
        if not sitting:
            continue
        wall += max(job.end for job in sitting) - min(job.start for job in sitting)
        for job in sitting:
            job.jobid += offset
        offset = max(job.jobid for job in sitting) + 1
        jobs += sitting
    return jobs, wall


def dependencies(jobs: list[Job]) -> dict[int, set[int]]:
    """jobid -> the jobids that wrote one of its inputs."""
    writer = {path: job.jobid for job in jobs for path in job.outputs}
    return {job.jobid: {writer[path] for path in job.inputs if path in writer} - {job.jobid} for job in jobs}


def chain_lengths(jobs: list[Job]) -> dict[int, float]:
    """jobid -> its seconds plus the longest chain of jobs that need it (its "bottom level")."""
    needs, length = dependencies(jobs), {}
    needed_by: dict[int, list[int]] = {job.jobid: [] for job in jobs}
    for jobid, deps in needs.items():
        for dep in deps:
            needed_by[dep].append(jobid)
    seconds = {job.jobid: job.seconds for job in jobs}

    def chain(jobid: int) -> float:          # chains are short (fetch, prepare, split, fit, aggregate)
        if jobid not in length:
            length[jobid] = seconds[jobid] + max((chain(after) for after in needed_by[jobid]), default=0.0)
        return length[jobid]

    for job in jobs:
        chain(job.jobid)
    return length


def simulate(jobs: list[Job], cores: int, order: str = "recorded") -> float:
    """Wall time of a greedy list schedule of ``jobs`` on ``cores`` cores: whenever cores are free,
    start the first ready job (in ``order``: "recorded" or "chain", the longest chain first) that
    fits in them."""
    if order not in ("recorded", "chain"):
        raise ValueError(f"order must be 'recorded' or 'chain', got {order!r}")
    needs = dependencies(jobs)
    by_id = {job.jobid: job for job in jobs}
    chain = chain_lengths(jobs) if order == "chain" else {}
    rank = {job.jobid: (index if order == "recorded" else (-chain[job.jobid], index)) for index, job in enumerate(jobs)}
    waiting = {jobid: set(deps) for jobid, deps in needs.items()}
    ready = sorted((jobid for jobid, deps in waiting.items() if not deps), key=rank.get)
    running: list[tuple[float, int]] = []
    now, free = 0.0, cores
    while ready or running:
        started = True
        while started:
            started = False
            for jobid in ready:
                threads = min(by_id[jobid].threads, cores)
                if threads <= free:
                    ready.remove(jobid)
                    free -= threads
                    heapq.heappush(running, (now + by_id[jobid].seconds, jobid))
                    started = True
                    break
        now, done = heapq.heappop(running)
        free += min(by_id[done].threads, cores)
        for jobid, deps in waiting.items():
            if done in deps:
                deps.discard(done)
                if not deps:
                    ready.append(jobid)
        ready.sort(key=rank.get)
    return now


def critical_path(jobs: list[Job]) -> float:
    """The longest chain of dependent jobs (seconds): the wall time on unlimited cores."""
    return max(chain_lengths(jobs).values(), default=0.0)


def report(jobs: list[Job], cores_list: list[int], wall: float | None = None) -> str:
    """The table of predicted wall times; ``wall``: the recorded run's (None: estimated jobs)."""
    total = sum(job.seconds * job.threads for job in jobs)      # core-seconds
    recorded = wall is not None
    longest = max(jobs, key=lambda job: job.seconds)
    lines = [(f"recorded run: {len(jobs)} jobs, wall {wall / 60:.1f} min, " if recorded else
              f"estimated jobs: {len(jobs)}, ") + f"job time {total / 60:.1f} min, "
             f"longest job {longest.seconds / 60:.1f} min ({longest.rule}), longest chain "
             f"{critical_path(jobs) / 60:.1f} min", "",
             "| cores | recorded order (min) | longest chain first (min) | job time / cores (min) |",
             "|---:|---:|---:|---:|"]
    for cores in cores_list:
        lines.append(f"| {cores} | {simulate(jobs, cores, 'recorded') / 60:.1f} | "
                     f"{simulate(jobs, cores, 'chain') / 60:.1f} | {total / cores / 60:.1f} |")
    return "\n".join(lines)


def planned_blocks(config: dict, experiment: str) -> list[tuple[str, list[str], float]]:
    """(a name, output files, estimated seconds) of every fit job of a split experiment, as its
    protocol plans them (:meth:`~locproj.protocols.split_jobs.SplitProtocol.cell_plans`)."""
    from locproj.protocols import protocol_of
    from locproj.protocols.split_jobs import result_path

    plans = protocol_of(config["experiments"][experiment]).cell_plans(config, experiment)
    return [(f"fit {'/'.join(cell)} splits{block[0]:02d}-{block[-1]:02d}",
             [result_path(experiment, *cell, split) for split in block], plan.job_seconds(len(block)))
            for cell, plan in plans.items() for block in plan.blocks]


def estimated_jobs(config: dict, experiment: str) -> list[Job]:
    """An experiment's fit jobs as its cost model sizes them (``splits_per_job: auto``): each job its
    estimated seconds, no dependencies (data preparation and aggregation are not counted)."""
    return [Job(jobid=index, rule=name, outputs=outputs, start=0.0, end=float(seconds))
            for index, (name, outputs, seconds) in enumerate(planned_blocks(config, experiment))]


def reblocked(jobs: list[Job], blocks: list[tuple[str, list[str]]], split_seconds) -> list[Job]:
    """``jobs`` with the jobs that wrote the files of ``blocks`` ((rule, outputs) per new job) replaced
    by one job per block: the inputs of the jobs it replaces, ``split_seconds(path)`` per output plus
    one start-up. A new job takes the place in the run's order of the first job it replaces."""
    from locproj.engine.job_costs import STARTUP_SECONDS

    writer = {path: job for job in jobs for path in job.outputs}
    replaced = {id(writer[path]) for _, outputs in blocks for path in outputs}
    position = {id(job): index for index, job in enumerate(jobs)}
    new, next_id = [], max(job.jobid for job in jobs) + 1
    for rule, outputs in blocks:
        old = sorted({id(writer[path]): writer[path] for path in outputs}.values(), key=lambda j: position[id(j)])
        seconds = STARTUP_SECONDS + sum(split_seconds(path) for path in outputs)
        inputs = sorted({path for job in old for path in job.inputs})
        new.append((position[id(old[0])], Job(jobid=next_id, rule=rule, inputs=inputs, outputs=list(outputs),
                                               start=0.0, end=seconds)))
        next_id += 1
    kept = [(index, job) for index, job in enumerate(jobs) if id(job) not in replaced]
    return [job for _, job in sorted(kept + new, key=lambda pair: pair[0])]


def cost_sized_blocks(config: dict, experiment: str) -> list[tuple[str, list[str]]]:
    """(a name, output files) of every fit job of ``experiment`` as ``splits_per_job: auto`` sizes them."""
    if config["experiments"][experiment].get("splits_per_job") != "auto":
        raise SystemExit(f"--reblock {experiment}: its splits_per_job is not auto in the config")
    return [(name, outputs) for name, outputs, _ in planned_blocks(config, experiment)]


def recorded_split_seconds(root: Path):
    """``path -> cv_seconds + fit_seconds`` of the result file ``root / path``."""
    import h5py

    def seconds(path: str) -> float:
        with h5py.File(root / path, "r") as result:
            return float(result.attrs["cv_seconds"] + result.attrs["fit_seconds"])
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", type=Path, nargs="*", metavar="LOG",
                        help="a Snakemake log (.snakemake/log/*.snakemake.log), or the logs of a resumed "
                             "run's sittings in order")
    parser.add_argument("--cores", type=int, nargs="+", default=[2, 4, 8, 16, 64])
    parser.add_argument("--estimate", metavar="EXPERIMENT",
                        help="instead of a log: the experiment's fit jobs with the cost model's seconds")
    parser.add_argument("--config", type=Path, default=Path("config/config.yaml"))
    parser.add_argument("--reblock", metavar="EXPERIMENT",
                        help="replay the log with EXPERIMENT's fit jobs in the config's cost-sized blocks")
    parser.add_argument("--results", type=Path, default=Path("."),
                        help="the run's working tree, whose result files give --reblock its split times")
    args = parser.parse_args()
    if args.estimate:
        from locproj.engine.config_files import load_config

        jobs, wall = estimated_jobs(load_config(path=args.config), args.estimate), None
    elif args.logs:
        jobs, wall = parse_sittings([log.read_text() for log in args.logs])
    else:
        parser.error("give a Snakemake log or --estimate EXPERIMENT")
    if not jobs:
        raise SystemExit(f"{', '.join(map(str, args.logs))}: no finished job in these logs "
                         "(are they Snakemake logs of a run?)")
    if args.reblock:
        from locproj.engine.config_files import load_config

        blocks = cost_sized_blocks(load_config(path=args.config), args.reblock)
        jobs = reblocked(jobs, blocks, recorded_split_seconds(args.results))
        print(f"{args.reblock}'s fit jobs re-blocked by cost: {len(blocks)} jobs")
    print(report(jobs, args.cores, wall))


if __name__ == "__main__":
    main()
