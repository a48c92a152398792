"""Benchmark: what the checksums of a result file cost, to write and to verify on reading.

One result file of each size the pipeline writes is written with :func:`locproj.engine.results.write_result`
and read back with :func:`locproj.engine.results.read_result`: as they are (the sha256 of the file in its
header, Fletcher-32 on its arrays, the header checked on opening), and with the checksums switched off
here (``writing_h5`` as it was before them: no header, no filter; no check on opening). Sizes: a Table 2
split (5 folds, 12 grid points, p up to 300, 1,000 test predictions), a matrix split of Letter (5 folds,
4 grid points, 16 columns, 19,480 test predictions), and a failure (attributes only). Target: the
checksums add at most 2 % or at most 5 ms a file.

    python benchmarks/bench_checksums.py [--repeat 50]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import tempfile
import time
from pathlib import Path

import h5py
import numpy as np

from locproj.core import io as core_io
from locproj.core.io import atomic_path
from locproj.engine import results
from locproj.engine.results import read_result, write_failure, write_result
from locproj.engine.selection import SplitResult

SIZES = {"Table 2 split": (5, 12, 300, 1000), "Letter matrix split": (5, 4, 16, 19480)}


def split_result(n_folds: int, n_grid: int, p_max: int, n_test: int) -> SplitResult:
    rng = np.random.default_rng(0)
    return SplitResult(
        method="lpp", classifier="1nn", classifier_params={}, grid=[{"n_neighbors": k} for k in range(n_grid)],
        cv_error=rng.random((n_grid, p_max)), cv_fold_error=rng.random((n_folds, n_grid, p_max)), capped=[],
        grid_index=1, params={"n_neighbors": 1}, p=3, projected=True, test_error=0.125,
        test_predictions=rng.integers(0, 26, n_test), test_indices=np.arange(n_test), fit_seconds=1.5, cv_seconds=2.5,
        n_folds=n_folds, cv_seed=11, p_max=p_max, meta={"experiment": "e", "dataset": "d", "m": 5, "split": 2},
        test_error_curve=rng.random(p_max))


@contextlib.contextmanager
def unchecked_writing_h5(path, **options):
    """``locproj.core.io.writing_h5`` without its checksums: built in memory, written by one call."""
    buffer = io.BytesIO()
    with h5py.File(buffer, "w", **options) as handle:
        yield handle
    with atomic_path(path) as tmp, open(tmp, "wb") as out:
        out.write(buffer.getbuffer())


@contextlib.contextmanager
def checksums_off():
    saved = results.writing_h5, core_io.verify_file
    results.writing_h5, core_io.verify_file = unchecked_writing_h5, lambda path: None
    try:
        yield
    finally:
        results.writing_h5, core_io.verify_file = saved


def best_and_median(run, repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args(argv)
    provenance = {"config_json": "{}" * 200, "config_hash": "abc", "seed": "1"}
    print("| file | size (KB) | without checksums: write + read (ms) | with (ms) | added (ms) | added (%) |")
    print("|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r.h5"
        for name, shape in [*SIZES.items(), ("failure", None)]:
            if shape is None:
                run = lambda: (write_failure(path, {"method": "slle", "failure": "{}"}), read_result(path))  # noqa: E731
            else:
                result = split_result(*shape)
                run = lambda: (write_result(path, result, provenance), read_result(path))  # noqa: E731
            with checksums_off():
                base, _ = best_and_median(run, args.repeat)
            with_sums, _ = best_and_median(run, args.repeat)
            print(f"| {name} | {path.stat().st_size / 1e3:.0f} | {1e3 * base:.2f} | {1e3 * with_sums:.2f} | "
                  f"{1e3 * (with_sums - base):.2f} | {100 * (with_sums - base) / base:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
