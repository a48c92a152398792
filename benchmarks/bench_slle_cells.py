"""Benchmark: the time of one split of the matrix's SLLE cells, at this checkout against another commit.

Each cell is one split (seed 0) of a dataset of ``config/matrix.yaml`` at its ``m``, with the matrix's
SLLE grid: the cross-validation over the grid, the refit and the test, as one pipeline job runs them,
on one BLAS thread. ``--before REF`` times the same cells with the library of commit ``REF`` (a
temporary ``git worktree``, removed afterwards); the two run in turn, A B A B ..., and each cell's
best time of the repeats is printed with the ratio after / before.  The prepared datasets come from
``data/processed/`` (``snakemake --cores 2 datasets``); cells whose file is
missing are skipped, saying so.

    python benchmarks/bench_slle_cells.py --before 2fa5ed4 --repeat 2
    python benchmarks/bench_slle_cells.py --before 2fa5ed4 pie:10 thyroid:20
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CELLS = ("yale:5", "orl:5", "umist:5", "yaleb:10", "pie:10", "usps:20", "waveform:50",
                 "segmentation:10", "letter:20", "thyroid:10", "thyroid:20", "iris:10")

_WORKER = r"""
import json, sys, time
import numpy as np, yaml
from threadpoolctl import threadpool_limits
from locproj.data import read_dataset_file, per_class_splits
from locproj.engine.registry import estimator_factory, factory_tags, method_spec
from locproj.engine.selection import run_split

root, cells = sys.argv[1], sys.argv[2:]
config = yaml.safe_load(open(f"{root}/config/matrix.yaml"))["experiments"]["matrix"]["methods"]["slle"]
spec = method_spec("slle", config)
seconds = {}
with threadpool_limits(1):
    for cell in cells:
        name, m = cell.split(":")
        data = read_dataset_file(f"{root}/data/processed/{name}.h5")
        (train,), (test,) = per_class_splits(data.y, m=int(m), n_splits=1, seed=0)
        start = time.perf_counter()
        run_split(data.X[train], data.y[train], data.X[test], data.y[test], method="slle",
                  new_estimator=estimator_factory(spec, config.get("fixed", {})), grid_spec=config["grid"],
                  m=int(m), p_limit=lambda X, y: spec.max_components(len(X), len(np.unique(y)), X.shape[1]),
                  neighbors=spec.neighbor_rule(config.get("fixed")), tags=factory_tags(spec), seed=0)
        seconds[cell] = time.perf_counter() - start
print(json.dumps(seconds))
"""


def time_cells(src: Path, cells: list[str]) -> dict[str, float]:
    """Seconds per cell with the library at ``src`` (a fresh process: no memo carried over)."""
    env = dict(os.environ, PYTHONPATH=str(src))
    out = subprocess.run([sys.executable, "-c", _WORKER, str(ROOT), *cells], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cells", nargs="*", default=DEFAULT_CELLS, help="DATASET:M (default: %(default)s)")
    parser.add_argument("--before", metavar="REF", help="the commit to time against")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    cells = [c for c in args.cells if (ROOT / "data" / "processed" / f"{c.split(':')[0]}.h5").exists()]
    for missing in sorted(set(args.cells) - set(cells)):
        print(f"skipped {missing}: data/processed/{missing.split(':')[0]}.h5 is missing")
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"after": ROOT / "src"}
        if args.before:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", tmp, args.before],
                           check=True)
            trees = {"before": Path(tmp) / "src", **trees}
        try:
            best = {name: dict.fromkeys(cells, float("inf")) for name in trees}
            for _ in range(args.repeat):
                for name, src in trees.items():
                    for cell, s in time_cells(src, cells).items():
                        best[name][cell] = min(best[name][cell], s)
        finally:
            if args.before:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", tmp], check=True)
    print(f"{'cell':<16}" + "".join(f"{name + ' s':>10}" for name in trees) + ("  after/before" if args.before else ""))
    for cell in cells:
        row = f"{cell:<16}" + "".join(f"{best[name][cell]:>10.2f}" for name in trees)
        if args.before:
            row += f"  {best['after'][cell] / best['before'][cell]:>12.3f}"
        print(row)
    totals = {name: sum(best[name].values()) for name in trees}
    print(f"{'total':<16}" + "".join(f"{totals[name]:>10.2f}" for name in trees)
          + (f"  {totals['after'] / totals['before']:>12.3f}" if args.before else ""))
    print(f"\nMachine: {platform.machine()}, {os.cpu_count()} cores; one BLAS thread; best of {args.repeat}.")


if __name__ == "__main__":
    main()
