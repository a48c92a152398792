"""Benchmark: where a fit job's time goes besides the fit itself, and what blocks of splits save.

Part 1 times the imports a fit job pays before its first fit, each in a fresh interpreter (best of
``--repeats``): the interpreter, Snakemake's script preamble, the numeric stack, and the locproj
modules, of which ``locproj.engine.registry`` pulls in scikit-learn.

Part 2 runs the real workflow (a copy of it, in a temporary folder) on ``--splits`` splits of
scikit-learn's bundled digits with Fisherfaces (a fit of a few milliseconds, so the job overhead
shows), once with one job per split and once with ``--block`` splits per job, and reports the wall
time per split against the compute time recorded in the result files.

    python benchmarks/bench_startup.py            # about a minute on 2 cores
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
IMPORT_STEPS = {
    "interpreter": "pass",
    "+ Snakemake script preamble": "import snakemake.script",
    "+ numpy, scipy.linalg, h5py, threadpoolctl": "import snakemake.script, numpy, scipy.linalg, h5py, threadpoolctl",
    "+ locproj.engine.selection, locproj.data": "import snakemake.script, numpy, scipy.linalg, h5py, threadpoolctl, "
                                         "locproj.engine.selection, locproj.data",
    "+ locproj.engine.registry (scikit-learn)": "import snakemake.script, numpy, scipy.linalg, h5py, threadpoolctl, "
                                         "locproj.engine.selection, locproj.data, locproj.engine.registry",
}


def time_command(argv, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return min(times)


def import_profile(repeats: int) -> list[tuple[str, float]]:
    return [(label, time_command([sys.executable, "-c", code], repeats)) for label, code in IMPORT_STEPS.items()]


def workflow_run(folder: Path, n_splits: int, per_job: int) -> tuple[float, float, int]:
    """Wall seconds of one snakemake run, the compute seconds its results record, and its jobs."""
    import h5py

    config = {"split_targets": {}, "experiments": {"startup": {
        "datasets": {"digits": [10]}, "n_splits": n_splits, "splits_per_job": per_job, "n_folds": 3,
        "p_max": 9, "methods": {"lda": {}}, "table_name": "table"}}}
    config_path = folder / "startup.yaml"
    config_path.write_text(yaml.safe_dump(config))
    options = ["--cores", "1", "--quiet", "all", "--configfile", str(config_path)]   # targets go first
    snakemake = [sys.executable, "-m", "snakemake"]
    subprocess.run([*snakemake, "data/processed/digits.h5", "results/splits/digits_m10.h5", *options], cwd=folder,
                   check=True, capture_output=True)
    shutil.rmtree(folder / "results" / "startup", ignore_errors=True)
    start = time.perf_counter()
    subprocess.run([*snakemake, "startup", *options], cwd=folder, check=True, capture_output=True)
    wall = time.perf_counter() - start
    compute = 0.0
    for path in (folder / "results" / "startup").rglob("split*.h5"):
        with h5py.File(path, "r") as handle:
            compute += float(handle.attrs["fit_seconds"]) + float(handle.attrs["cv_seconds"])
    return wall, compute, -(-n_splits // per_job)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--splits", type=int, default=20)
    parser.add_argument("--block", type=int, default=5)
    args = parser.parse_args()

    print("| import step (fresh interpreter) | seconds |\n|---|---:|")
    for label, seconds in import_profile(args.repeats):
        print(f"| {label} | {seconds:.2f} |")

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name in ("Snakefile", "workflow", "config"):
            source = ROOT / name
            (shutil.copytree if source.is_dir() else shutil.copy)(source, folder / name)
        print(f"\n{args.splits} splits of digits (m = 10), Fisherfaces, `--cores 1`:\n")
        print("| jobs | splits per job | wall s | compute s (results) | wall per split s |\n|---:|---:|---:|---:|---:|")
        for per_job in (1, args.block):
            wall, compute, jobs = workflow_run(folder, args.splits, per_job)
            print(f"| {jobs} | {per_job} | {wall:.1f} | {compute:.1f} | {wall / args.splits:.2f} |")
    print(f"\nPython {sys.version.split()[0]}; imports: best of {args.repeats}; workflow: one run each")


if __name__ == "__main__":
    main()
