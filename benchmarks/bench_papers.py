"""Benchmark: the `papers` target's dry run (wall time, job count), the jobs of every target, and the
CPU time the result files of earlier runs record.

Part 1 copies the workflow (Snakefile, workflow/, config/; no data, no results) into a temporary
folder, as a fresh clone would have it, and times ``snakemake -n papers --quiet rules`` there
``--repeats`` times: the wall time of parsing the config, building the DAG of every job and printing
the job count. The first run checks the config; the others read the checks' outcome kept under the
config's digest (``.snakemake/locproj/checked``), as every later run of the same config does. Beside
them, a workflow of one rule gives Snakemake's own start. The target is at most 5 s for a run after
the first. ``--profile`` profiles one such run (``cProfile``) and prints where its time goes.

On a machine with SLURM's client tools but no controller (this one), the SLURM executor plugin's
``scontrol show config`` waits 10 s for its timeout at every start of Snakemake; ``--stand-in-scontrol``
puts a ``scontrol`` that fails at once first on the path, as on a machine without SLURM.

Part 2 dry-runs every target of the config's ``targets:`` (and Table 2's experiment, which ``papers``
names) in the same copy and counts its jobs: fits (``fit_*``, ``embed_*``), data (fetch, prepare,
views, split files), aggregations and the target's own rule.

Part 3 (``--results ROOT ...``, clones or working trees that ran some targets) sums, per experiment,
the seconds the result files record: ``fit_seconds + cv_seconds`` of a split protocol's result,
``fit_seconds`` of every (r, C, fold) of a holdout result (the unreduced SVM's flat line once), every
swept value of a train/test result. Embedding panels record none; for them, and for every job as a
second number, Snakemake's own records (``.snakemake/metadata``: a job's start and end, so start-up
included, one core per job) are summed. Per experiment the root with the most result files is used,
and the count is printed against the config's, so a partial run shows as one.

    python benchmarks/bench_papers.py --mirror ../shared/datasets      # about a minute on 2 cores
    python benchmarks/bench_papers.py --skip-dry-runs --results . ../fresh_t10 ../fresh_lea
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
DATA_RULES = ("fetch", "prepare", "derive_view", "split_")


def stand_in_scontrol(folder: Path) -> dict:
    """The environment with a ``scontrol`` that fails at once first on the path (module docstring)."""
    import os

    bin_folder = folder / "bin"
    bin_folder.mkdir()
    (bin_folder / "scontrol").write_text("#!/bin/sh\nexit 1\n")
    (bin_folder / "scontrol").chmod(0o755)
    return {**os.environ, "PATH": f"{bin_folder}{os.pathsep}{os.environ['PATH']}"}


def fresh_copy(folder: Path) -> Path:
    """The workflow as a fresh clone has it: no data, no results, no Snakemake records."""
    folder.mkdir()
    for name in ("Snakefile", "workflow", "config"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, folder / name)
    return folder


def dry_run(folder: Path, target: str, mirror: Path | None, env=None, profile: Path | None = None
            ) -> tuple[float, Counter]:
    """Wall seconds of ``snakemake -n TARGET`` (under ``cProfile`` into ``profile``), and its jobs per rule."""
    command = [sys.executable, *(["-m", "cProfile", "-o", str(profile)] if profile else []), "-m", "snakemake",
               "-n", target, "--quiet", "rules"]
    if mirror is not None:
        command += ["--config", f"data_mirror={mirror.resolve()}"]   # targets go first
    start = time.perf_counter()
    done = subprocess.run(command, cwd=folder, check=True, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    jobs = Counter()
    table = done.stdout.split("Job stats:")[1].split("total")[0]
    for line in table.splitlines():
        match = re.fullmatch(r"(\S+)\s+(\d+)", line.strip())
        if match:
            jobs[match[1]] = int(match[2])
    return wall, jobs


def snakemake_start(env, repeats: int) -> float:
    """Best wall seconds of the dry run of a workflow of one rule: Snakemake's own start."""
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "Snakefile").write_text('rule one:\n    output: "one"\n    shell: "touch one"\n')
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "snakemake", "-n", "--quiet"], cwd=tmp, check=True,
                           capture_output=True, env=env)
            times.append(time.perf_counter() - start)
    return min(times)


#: Where a dry run's time goes: a profile's functions, by the first pattern their file and name match.
PROFILE_PARTS = {
    "config checks (cached after the first run)": r"common\.smk.*check_config|workflow\.py.*checked_once",
    "job rules (cell plans, cost model)": r"experiments\.py.*job_kinds",
    "code digests of the jobs (kept after the first run)": r"experiments\.py.*job_code",
    "Snakemake: the DAG": r"snakemake/workflow\.py.*_build_dag",
    "Snakefile (all of it, the above included)": r"/Snakefile.*<module>",
}


def profile_parts(profile: Path) -> list[tuple[str, float]]:
    """The cumulative seconds of each of :data:`PROFILE_PARTS` in a ``cProfile`` output (under the
    profiler, about twice the wall time)."""
    import pstats

    stats = pstats.Stats(str(profile)).stats
    parts = []
    for label, pattern in PROFILE_PARTS.items():
        seconds = [cumulative for (file, _, name), (_, _, _, cumulative, _) in stats.items()
                   if re.search(pattern, f"{file}:{name}")]
        parts.append((label, max(seconds, default=0.0)))
    total = max(cumulative for (_, _, _, cumulative, _) in stats.values())
    return [("whole run", total), *parts]


def job_kinds(jobs: Counter, target: str) -> dict[str, int]:
    kinds = Counter()
    for rule, count in jobs.items():
        if rule.startswith(("fit_", "embed_")):
            kinds["fit"] += count
        elif rule.startswith(DATA_RULES):
            kinds["data"] += count
        elif rule.startswith("aggregate_"):
            kinds["aggregate"] += count
        else:
            kinds["target"] += count
    return {"total": sum(jobs.values()), **kinds}


def expected_results(config: dict, experiment: str) -> list[str]:
    """The result files (relative paths) an experiment's jobs write: its aggregation's inputs."""
    from locproj.experiments import aggregation_inputs

    inputs = aggregation_inputs(config, experiment)
    return list(inputs.values()) if isinstance(inputs, dict) else list(inputs)


def recorded_seconds(path: Path) -> float | None:
    """The compute seconds a result file records (module docstring); None for a panel."""
    import h5py
    import numpy as np

    with h5py.File(path, "r") as h5:
        if "cv_seconds" in h5.attrs:
            return float(h5.attrs["fit_seconds"]) + float(h5.attrs["cv_seconds"])
        if "fit_seconds" not in h5:
            return None
        seconds = h5["fit_seconds"][()]
        if h5.attrs.get("kind") == "raw":   # holdout: the flat line, computed at the first r only
            seconds = seconds[0]
        return float(np.nansum(seconds))


def job_records(root: Path) -> dict[str, tuple[tuple, float, float]]:
    """Output path -> (job key, start, end) of the job that wrote it, from Snakemake's records in
    ``root``: the start is when the job marked its outputs incomplete, the end the output's mtime."""
    records = {}
    for entry in (root / ".snakemake" / "metadata").glob("*"):
        try:
            path = base64.urlsafe_b64decode(entry.name).decode()
            record = json.loads(entry.read_text())
        except (ValueError, OSError):
            continue
        if record.get("starttime") and record.get("endtime"):
            key = (record.get("rule"), record.get("job_hash"))
            records[path] = (key, record["starttime"], record["endtime"])
    return records


def cpu_seconds(config: dict, roots: list[Path]) -> dict[str, dict]:
    """Per experiment: the roots used, result files found / expected, recorded seconds, job seconds.

    Each result file is taken from the root holding most of the experiment's files, a file it lacks
    from the next root that has it (a later run that added r values, say)."""
    records: dict[Path, dict] = {}
    out = {}
    for experiment in config["experiments"]:
        expected = expected_results(config, experiment)
        order = sorted(roots, key=lambda r: -sum((r / p).is_file() for p in expected))
        chosen = {p: next((r for r in order if (r / p).is_file()), None) for p in expected}
        chosen = {p: r for p, r in chosen.items() if r is not None}
        if not chosen:
            continue
        seconds = [recorded_seconds(r / p) for p, r in chosen.items()]
        jobs = {}   # (root, job key) -> (first start, last end) over the job's outputs
        for p, r in chosen.items():
            if r not in records:
                records[r] = job_records(r)
            if p in records[r]:
                key, start, end = records[r][p]
                first, last = jobs.get((r, key), (start, end))
                jobs[r, key] = (min(first, start), max(last, end))
        out[experiment] = {"roots": list(dict.fromkeys(chosen.values())), "found": len(chosen),
                           "expected": len(expected), "seconds": None if None in seconds else sum(seconds),
                           "job_seconds": sum(end - start for start, end in jobs.values()) if jobs else None,
                           "jobs_recorded": len(jobs)}
    return out


def hours(seconds: float | None) -> str:
    return "–" if seconds is None else f"{seconds / 3600:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--mirror", type=Path, default=None, help="the data mirror (data_mirror=...)")
    parser.add_argument("--skip-dry-runs", action="store_true")
    parser.add_argument("--profile", action="store_true", help="profile a dry run of papers after the first")
    parser.add_argument("--stand-in-scontrol", action="store_true",
                        help="a scontrol that fails at once first on the path (module docstring)")
    parser.add_argument("--results", type=Path, nargs="*", default=[],
                        help="clones or working trees whose results/ to sum (part 3)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))

    from locproj.engine.config import expand_targets
    from locproj.engine.config_files import load_config

    config = load_config(ROOT)

    targets = expand_targets(config["targets"], config["experiments"])
    if not args.skip_dry_runs:
        with tempfile.TemporaryDirectory() as tmp:
            env = stand_in_scontrol(Path(tmp)) if args.stand_in_scontrol else None
            folder = fresh_copy(Path(tmp) / "workflow_copy")
            times, counts = [], []
            for _ in range(1 + args.repeats):
                wall, jobs = dry_run(folder, "papers", args.mirror, env)
                times.append(wall)
                counts.append(sum(jobs.values()))
            print(f"`snakemake -n papers` on a fresh copy: {counts[0]} jobs; the first run {times[0]:.2f} s, then "
                  + ", ".join(f"{t:.2f}" for t in times[1:]) + f" s (best {min(times[1:]):.2f} s); Snakemake's own "
                  f"start (a workflow of one rule) {snakemake_start(env, args.repeats):.2f} s\n")
            if args.profile:
                dry_run(folder, "papers", args.mirror, env, profile=Path(tmp) / "papers.prof")
                print("| part of a dry run of `papers` (under cProfile) | seconds |\n|---|---:|")
                for label, seconds in profile_parts(Path(tmp) / "papers.prof"):
                    print(f"| {label} | {seconds:.2f} |")
                print()
            names = [*(t for t in targets if t != "papers"), "papers"]
            print("| target | jobs | fit jobs | data jobs | aggregations | dry run s |")
            print("|---|---:|---:|---:|---:|---:|")
            for name in names:
                wall, jobs = dry_run(folder, name, args.mirror, env)
                kinds = job_kinds(jobs, name)
                print(f"| `{name}` | {kinds['total']} | {kinds.get('fit', 0)} | {kinds.get('data', 0)} | "
                      f"{kinds.get('aggregate', 0)} | {wall:.1f} |")
            print()
    if args.results:
        measured = cpu_seconds(config, [root.resolve() for root in args.results])
        print("| experiment | target | results found / expected | recorded CPU-h | job-h (Snakemake) | from |")
        print("|---|---|---:|---:|---:|---|")
        owner = {e: t for t, es in targets.items() if t != "papers" for e in es}
        for experiment, row in measured.items():
            sources = ", ".join(root.name for root in row["roots"])
            print(f"| {experiment} | {owner.get(experiment, '–')} | {row['found']} / {row['expected']} | "
                  f"{hours(row['seconds'])} | {hours(row['job_seconds'])} ({row['jobs_recorded']} jobs) | "
                  f"{sources} |")
        print("\n| target | results found / expected | CPU-h (recorded; panels: job time) | job-h (Snakemake) |")
        print("|---|---:|---:|---:|")
        for target in ["llp_table2", *targets]:
            rows = [measured[e] for e in targets.get(target, [target]) if e in measured]
            expected = sum(len(expected_results(config, e)) for e in targets.get(target, [target]))
            cpu = (sum(row["job_seconds"] if row["seconds"] is None else row["seconds"] for row in rows)
                   if rows else None)
            jobs = sum(row["job_seconds"] or 0.0 for row in rows) if rows else None
            print(f"| `{target}` | {sum(row['found'] for row in rows)} / {expected} | {hours(cpu)} | {hours(jobs)} |")


if __name__ == "__main__":
    main()
