"""What exact early stopping of grid points would save in Table 2's cross-validation.

A grid point's CV error at p is the mean of its fold errors, each >= 0. After f of F folds its
smallest CV error over p is therefore at least ``min_p sum_{folds done} error / F``; once that bound
is above the smallest CV error of a grid point already completed, the point cannot be chosen and its
remaining folds could be skipped, with the same choice (ties are never skipped). This replays that
rule on the ``cv_fold_error`` arrays (folds x grid points x p) that every result file records, grid
points in the config's order and with the chosen point first (the best case for any order), and
prints the share of fits that would still run.

    python benchmarks/bench_grid_pruning.py results/llp_table2     # a Table 2 run's results folder

It reads result files only (seconds). The curves of the CV-curve figures would lose the skipped
folds' points, so this is a measurement of what the rule could give, not a mode of the pipeline.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import h5py
import numpy as np

CELLS = ["pie/m30/lpp", "pie/m20/lpp", "yaleb/m30/lpp", "yaleb/m20/lpp", "pie/m30/llp", "yaleb/m30/llp"]


def fits_run(fold_error: np.ndarray, order) -> int:
    """Fits computed when each grid point (in ``order``) stops as soon as it cannot win."""
    n_folds = fold_error.shape[0]
    best, fits = np.inf, 0
    for g in order:
        total = np.zeros(fold_error.shape[2])
        for fold in range(n_folds):
            total += fold_error[fold, g]
            fits += 1
            if fold + 1 < n_folds and np.nanmin(total) / n_folds > best:
                break
        else:
            best = min(best, np.nanmin(total) / n_folds)
    return fits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="an experiment's results folder, e.g. results/llp_table2")
    args = parser.parse_args()
    print("| cell | fits | kept, grid order | kept, chosen point first |\n|---|---:|---:|---:|")
    for cell in CELLS:
        total = in_order = chosen_first = 0
        for path in sorted((args.results / cell).glob("split*.h5")):
            with h5py.File(path) as h:
                fold_error, chosen = h["cv_fold_error"][()], int(h.attrs["grid_index"])
            n_grid = fold_error.shape[1]
            total += fold_error.shape[0] * n_grid
            in_order += fits_run(fold_error, range(n_grid))
            chosen_first += fits_run(fold_error, [chosen, *(g for g in range(n_grid) if g != chosen)])
        if total:
            print(f"| {cell} | {total} | {in_order / total:.0%} | {chosen_first / total:.0%} |")


if __name__ == "__main__":
    main()
