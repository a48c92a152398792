"""Benchmark: one Table 2 split against its eigen-solve floor.

For each cell (dataset, m, method) of Table 2's heaviest, one split's whole job as the pipeline runs
it (``run_configured_job``: 5-fold cross-validation over the grid, every p from each fit, the refit
and the test), one BLAS thread, timed in parts:

- eigen-solves: the generalized symmetric eigenproblems of the solver (``_eigh.eigh_selected``);
- PCA step: the basis of the data's span (an ``eigh`` of the Gram matrix, shared across the grid);
- products: the reduced matrices ``Y^T L Y`` and the constraint (``_sandwich``, ``_at_b``, ...);
- conditioning: Cholesky and rcond checks, the eigenvalue scale, the degenerate clusters;
- graph building: neighbour lists, heat weights, LLP's local kernel ridge regressions;
- evaluation: 1-NN at every p for every fold and grid point, and the test;
- transform: projecting the held-out and test samples;
- other: the rest (the job's own bookkeeping, reading, writing).

Each part is counted once (time inside a nested part goes to the nested one). Beside them, the
floor: as many dense ``scipy.linalg.eigh(A, B)`` calls of the same sizes as the solver made, timed in
the same run on random symmetric positive definite pairs (``--floor-samples`` per size, scaled to the
count). ``--profile`` also prints the 25 functions with the most time of their own (cProfile).
``--table2`` runs split 0 of every cell and method of Table 2 and adds the whole table by part: each
part's seconds times the experiment's ``n_splits``, in CPU-minutes, beside the floor of all its solves.

    snakemake --cores 2 results/splits/pie_m10.h5 results/splits/pie_m20.h5 results/splits/pie_m30.h5 \\
        results/splits/yaleb_m30.h5 --config data_mirror=../shared/datasets
    python benchmarks/bench_split_floor.py                    # PIE m = 10, 20, 30 and YaleB m = 30; LPP, LLP
    python benchmarks/bench_split_floor.py --cells pie:30 --methods lpp --profile
    python benchmarks/bench_split_floor.py --table2 --floor-samples 1   # every cell: Table 2 by part (7 min)
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import io
import os
import pstats
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

CELLS = ["pie:10", "pie:20", "pie:30", "yaleb:30"]
METHODS = ["lpp", "llp"]

# part -> (module, attribute) of the functions timed as that part; the attribute is patched where
# it is looked up (the module that calls it), so the pipeline's own code path is what is timed
PARTS = {
    "eigen-solves": [("locproj.core.solvers", "eigh_selected")],
    "PCA step": [("locproj.core.solvers", "pca_basis")],
    "products": [("locproj.core.solvers", name)
                 for name in ("_sandwich", "_reduced_constraint", "at_b", "a_b", "at_a")],
    "conditioning": [("locproj.core.solvers", name)
                     for name in ("_full_rank_shortcut", "_regularized", "_eigenvalue_scale",
                                  "cholesky_rcond", "_resolve_degenerate")]
    + [("locproj.core._dense", "cholesky_rcond")],
    "graph building": [("locproj.methods.lpp", "lpp_graph"), ("locproj.methods.llp", "kneighbors"),
                       ("locproj.methods.llp", "local_krr_weights"), ("locproj.methods.llp", "reconstruction_error")],
    "evaluation": [("locproj.engine.selection", name) for name in ("predict_all_p", "predict_at_p", "error_rates")],
    "transform": [("locproj.engine.selection", "_transform_first")],
}


class PartTimer:
    """Exclusive time per part: a nested timed call's time is its part's, not its caller's."""

    def __init__(self):
        self.seconds = defaultdict(float)
        self.solves = Counter()       # (size, generalized) -> number of eigen-solves
        self._stack = []

    def wrap(self, part: str, function):
        @functools.wraps(function)
        def timed(*args, **kwargs):
            if part == "eigen-solves":
                self.solves[(len(args[0]), args[1] is not None)] += 1
            self._stack.append(0.0)
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - start
                nested = self._stack.pop()
                self.seconds[part] += elapsed - nested
                if self._stack:
                    self._stack[-1] += elapsed
        return timed

    def patch(self):
        import importlib

        originals = []
        for part, places in PARTS.items():
            for module_name, attribute in places:
                module = importlib.import_module(module_name)
                original = getattr(module, attribute)
                originals.append((module, attribute, original))
                setattr(module, attribute, self.wrap(part, original))
        return originals


def floor_seconds(solves: Counter, samples: int, seed: int = 0) -> float:
    """Seconds of ``count`` dense ``scipy.linalg.eigh`` calls per (size, generalized), from ``samples``
    timed calls on random symmetric positive definite pairs of that size."""
    import scipy.linalg

    rng = np.random.default_rng(seed)
    total = 0.0
    for (size, generalized), count in sorted(solves.items()):
        G = rng.standard_normal((size, size))
        A = G @ G.T + size * np.eye(size)
        H = rng.standard_normal((size, size))
        B = H @ H.T + size * np.eye(size)
        timings = []
        for _ in range(samples):
            start = time.perf_counter()
            scipy.linalg.eigh(A, B if generalized else None)
            timings.append(time.perf_counter() - start)
        total += count * float(np.mean(timings))
    return total


def run_cell(config: dict, root: Path, dataset: str, m: int, method: str, split: int, profile: bool):
    from locproj.experiments import job_config, run_configured_job

    job = job_config(config, "llp_table2", dataset, method)
    timer = PartTimer()
    originals = timer.patch()
    profiler = cProfile.Profile() if profile else None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            if profiler:
                profiler.enable()
            run_configured_job(job, f"m{m}", [split], root / "data" / "processed" / f"{dataset}.h5",
                               root / "results" / "splits" / f"{dataset}_m{m}.h5", [Path(tmp) / "split.h5"])
            if profiler:
                profiler.disable()
            total = time.perf_counter() - start
    finally:
        for module, attribute, original in originals:
            setattr(module, attribute, original)
    return total, timer, profiler


def table2_cells(config: dict) -> tuple[list[str], list[str]]:
    """Every dataset:m and every method of Table 2's experiment."""
    spec = config["experiments"]["llp_table2"]
    return ([f"{dataset}:{m}" for dataset, ms in spec["datasets"].items() for m in ms], list(spec["methods"]))


def table_summary(totals: dict, solves: Counter, split: int, n_splits: int, samples: int) -> list[str]:
    """Table 2 by part: one split of every cell times ``n_splits``, in CPU-minutes, and the dense floor."""
    floor = floor_seconds(solves, samples) * n_splits / 60
    total = sum(totals.values()) * n_splits / 60
    lines = [f"\n## Table 2 by part: split {split} of every cell x {n_splits} splits (CPU-minutes, in-process)\n",
             "| part | CPU-min | share |", "|---|---:|---:|"]
    lines += [f"| {part} | {seconds * n_splits / 60:.1f} | {seconds * n_splits / 60 / total:.0%} |"
              for part, seconds in totals.items()]
    lines += [f"| **all** | **{total:.1f}** | |",
              f"\nfloor: {sum(solves.values()) * n_splits} dense eigh calls of the solvers' sizes, "
              f"{floor:.1f} CPU-min ({floor / 2:.1f} min on 2 cores); Table 2 in-process / floor = {total / floor:.2f}"]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=".", help="the working tree holding data/ and results/splits/")
    parser.add_argument("--cells", nargs="+", default=CELLS, help="dataset:m, e.g. pie:30")
    parser.add_argument("--methods", nargs="+", default=METHODS)
    parser.add_argument("--table2", action="store_true",
                        help="every cell and method of Table 2, then the table's CPU-minutes by part")
    parser.add_argument("--split", type=int, default=0)
    parser.add_argument("--floor-samples", type=int, default=3, help="timed dense eigh calls per size")
    parser.add_argument("--profile", action="store_true", help="also print the top of a cProfile")
    args = parser.parse_args()
    from threadpoolctl import threadpool_limits

    from locproj.engine.config_files import load_config

    root = Path(args.root)
    config = load_config(root)
    cells, methods = table2_cells(config) if args.table2 else (args.cells, args.methods)
    # the imports a job pays once, outside the timed splits
    import locproj.experiments, locproj.methods, locproj.protocols.cv_table, locproj.engine.registry  # noqa: E401, F401
    import sklearn.model_selection, sklearn.neighbors  # noqa: E401, F401
    header = ["cell", "method", "split (s)", "floor (s)", "ratio", "eigen-solves (s)", "solves", *list(PARTS)[1:],
              "other"]
    rows = ["| " + " | ".join(header) + " |", "|" + "---|" * 2 + "---:|" * (len(header) - 2)]
    profiles = []
    totals, all_solves = Counter(), Counter()
    with threadpool_limits(limits=1):
        for cell in cells:
            dataset, m = cell.split(":")
            for method in methods:
                total, timer, profiler = run_cell(config, root, dataset, int(m), method, args.split, args.profile)
                floor = floor_seconds(timer.solves, args.floor_samples)
                parts = [timer.seconds[part] for part in PARTS]
                totals.update({**dict(zip(PARTS, parts)), "other": total - sum(parts)})
                all_solves.update(timer.solves)
                sizes = ", ".join(f"{count}×{size}{'' if generalized else ' (standard)'}"
                                  for (size, generalized), count in sorted(timer.solves.items()))
                ratio = f"{total / floor:.2f}" if floor > 0 else "–"
                rows.append(f"| {dataset} m={m} | {method} | {total:.1f} | {floor:.1f} | {ratio} | "
                            f"{parts[0]:.1f} | {sizes} | " + " | ".join(f"{s:.1f}" for s in parts[1:])
                            + f" | {total - sum(parts):.1f} |")
                print(rows[-1], flush=True)
                if profiler:
                    text = io.StringIO()
                    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(25)
                    profiles.append(f"\n## {dataset} m={m} {method}: cProfile, 25 functions by own time\n"
                                    + text.getvalue())
    print("\n".join(rows))
    if args.table2:
        n_splits = config["experiments"]["llp_table2"]["n_splits"]
        print("\n".join(table_summary(dict(totals), all_solves, args.split, n_splits, args.floor_samples)))
    print("\n".join(profiles))


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
