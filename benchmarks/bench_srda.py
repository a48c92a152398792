"""Fit time and peak memory of SRDA against Fisherfaces and LPP, dense and sparse.

Dense: Gaussian classes (10 classes, unit within-class covariance, class centres drawn at random),
n = 8 000, 32 000 and 128 000 samples of d = 1 024 features.  Sparse: n = 50 000 by d = 20 000,
1 % non-zeros (CSR, 200 per row: 180 anywhere, 20 in a block of 200 features of the sample's
class), where a d x d scatter matrix takes 3.2 GB.  Every fit runs in a subprocess of its own that
generates its data from a seed, times the fit alone and reports its peak resident memory:
``ru_maxrss`` of that process, whose high-water mark is reset after the data are made (Linux's
``/proc/self/clear_refs``), so it is the fit's peak: interpreter and libraries (about 0.16 GiB),
the data and the fit's working memory (without the reset, data generation's peak too, and the
table says so).  A fit that exceeds ``--timeout`` is killed.  LPP's k-NN search is quadratic in
n: at the largest dense size its time and memory are extrapolated from the two smaller sizes
(marked "est.") unless ``--all``.

Goals (the script prints whether each holds): on the sparse set SRDA fits in under 5 minutes
within 4 GB; on dense data SRDA is no slower than Fisherfaces at every size.

Run:  python benchmarks/bench_srda.py [--quick] [--all] [--timeout 1800] [--repeat 1] [--blas-threads N]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time

import numpy as np

FULL = dict(dense_n=(8_000, 32_000, 128_000), d=1024, sparse=(50_000, 20_000), timeout=1800.0, repeat=1,
            blas_threads=None)
QUICK = dict(dense_n=(1_000, 2_000, 4_000), d=256, sparse=(5_000, 2_000), timeout=120.0, repeat=3,
             blas_threads=1)
N_CLASSES = 10
DENSITY = 0.01
GOAL_SECONDS, GOAL_BYTES = 300.0, 4 * 2**30
METHODS = {
    "SRDA (auto)": "SpectralRegressionDiscriminantAnalysis()",
    "SRDA (lsqr)": "SpectralRegressionDiscriminantAnalysis(solver='lsqr')",
    "Fisherfaces": "Fisherfaces()",
    "LPP (heat, k=5)": "LocalityPreservingProjection()",
}
SPARSE_METHODS = ("SRDA (auto)", "Fisherfaces", "LPP (heat, k=5)")
ESTIMATED = "LPP (heat, k=5)"   # quadratic in n: extrapolated at the largest dense size
CHILD_ENV = dict(os.environ)


# ---------------------------------------------------------------------- the child: data, one fit


def dense_classes(n: int, d: int, seed: int):
    """Gaussian classes: centres N(0, I) / 2, unit within-class noise; filled block by block."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, N_CLASSES, n)
    centers = 0.5 * rng.standard_normal((N_CLASSES, d))
    X = np.empty((n, d))
    step = max(1, (1 << 22) // d)
    for start in range(0, n, step):
        block = slice(start, start + step)
        X[block] = rng.standard_normal((len(y[block]), d))
        X[block] += centers[y[block]]
    return X, y


def sparse_classes(n: int, d: int, seed: int):
    """CSR with ``DENSITY * d`` stored entries per row (duplicates merged): 90 % anywhere, 10 % in
    the class's block of ``d / 100`` features; values |N(0, 1)|, as term weights."""
    from scipy import sparse

    rng = np.random.default_rng(seed)
    y = rng.integers(0, N_CLASSES, n)
    per_row = int(DENSITY * d)
    in_class = per_row // 10
    block = max(in_class, d // 100)
    columns = np.empty((n, per_row), dtype=np.int64)
    columns[:, :per_row - in_class] = rng.integers(0, d, (n, per_row - in_class))
    columns[:, per_row - in_class:] = (y[:, None] * block + rng.integers(0, block, (n, in_class))) % d
    values = np.abs(rng.standard_normal(n * per_row))
    X = sparse.csr_array((values, columns.ravel(), np.arange(0, n * per_row + 1, per_row)), shape=(n, d))
    X.sum_duplicates()
    return X, y


def child(spec: dict) -> dict:
    """Generate the data, fit once, report seconds and peak memory (JSON on stdout)."""
    from threadpoolctl import threadpool_info

    from locproj.core._memo import forget
    from locproj.methods import Fisherfaces, LocalityPreservingProjection  # noqa: F401  (eval below)
    from locproj.methods.srda import SpectralRegressionDiscriminantAnalysis  # noqa: F401

    make = sparse_classes if spec["sparse"] else dense_classes
    X, y = make(spec["n"], spec["d"], spec["seed"])
    data_bytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes if spec["sparse"] else X.nbytes
    out = {"data_bytes": int(data_bytes), "rss_before": _rss_bytes(), "peak_of": _reset_peak()}
    try:
        times = []
        for _ in range(spec["repeat"]):
            forget()   # cold: no neighbour lists or bases remembered from the previous repeat
            estimator = eval(METHODS[spec["method"]])
            start = time.perf_counter()
            estimator.fit(X, y)
            times.append(time.perf_counter() - start)
        out["seconds"] = min(times)
        out["n_components"] = int(estimator.n_components_)
        if getattr(estimator, "n_iter_", None) is not None:
            out["n_iter"] = [int(i) for i in estimator.n_iter_]
        if hasattr(estimator, "solver_"):
            out["solver"] = estimator.solver_
    except Exception as error:   # refusals (sparse input, memory) are results here
        out["error"] = f"{type(error).__name__}: {error}"
    out["peak_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024   # KiB on Linux
    out["blas"] = ", ".join(sorted({f"{i.get('internal_api')} {i.get('num_threads')} thread(s)"
                                    for i in threadpool_info() if i.get("user_api") == "blas"}))
    return out


def _reset_peak() -> str:
    """Reset this process's peak RSS (``ru_maxrss``, VmHWM) to its current RSS, where Linux allows it."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return "fit"
    except OSError:
        return "process"


def _rss_bytes() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


# ---------------------------------------------------------------------- the parent: runs and tables


def run_fit(method: str, n: int, d: int, sparse: bool, timeout: float, repeat: int, seed: int = 0) -> dict:
    spec = dict(method=method, n=n, d=d, sparse=sparse, seed=seed, repeat=repeat)
    try:
        done = subprocess.run([sys.executable, __file__, "--child", json.dumps(spec)], capture_output=True,
                              text=True, timeout=timeout, env=CHILD_ENV)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout: killed after {timeout:.0f} s"}
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"the fit's process exited with code {done.returncode}: {tail}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def estimate(sizes, results, n: int) -> dict:
    """Time ``t = a n + b n^2`` and peak memory ``m = c + e n`` through the two largest measured sizes,
    never below linear growth from the larger one (timing noise can make ``b`` or ``e`` negative)."""
    (n1, r1), (n2, r2) = [(s, results[s]) for s in sizes[-2:]]
    if "error" in r1 or "error" in r2:
        return {"error": "no estimate: a smaller size did not fit"}
    b = (r2["seconds"] / n2 - r1["seconds"] / n1) / (n2 - n1)
    a = r1["seconds"] / n1 - b * n1
    seconds = max(a * n + b * n * n, r2["seconds"] * n / n2)
    slope = max(0.0, (r2["peak_bytes"] - r1["peak_bytes"]) / (n2 - n1))
    return {"seconds": seconds, "peak_bytes": r2["peak_bytes"] + slope * (n - n2), "estimated": True}


def cell(result: dict) -> tuple[str, str]:
    if "error" in result:
        return "—", "—"
    mark = " (est.)" if result.get("estimated") else ""
    return f"{result['seconds']:.3f}{mark}", f"{result['peak_bytes'] / 2**30:.2f}{mark}"


def note(result: dict) -> str:
    if "error" in result:
        return result["error"].splitlines()[0][:160]
    parts = []
    if "solver" in result:
        parts.append(f"solver {result['solver']}")
    if "n_iter" in result:
        parts.append(f"LSQR iterations {min(result['n_iter'])}-{max(result['n_iter'])}")
    if result.get("estimated"):
        parts.append("extrapolated, not run (--all runs it)")
    if result.get("peak_of") == "process":
        parts.append("peak includes data generation")
    return ", ".join(parts)


def dense_table(config, run_all: bool, timeout: float, repeat: int):
    d, sizes = config["d"], config["dense_n"]
    results = {}
    for method in METHODS:
        results[method] = {}
        for n in sizes:
            if method == ESTIMATED and n == sizes[-1] and not run_all:
                results[method][n] = estimate(sizes[:-1], results[method], n)
            else:
                results[method][n] = run_fit(method, n, d, False, timeout, repeat)
            print(f"  dense {method:18s} n={n:7d}: {results[method][n]}", file=sys.stderr, flush=True)
    lines = ["| method | n x d | fit s | peak RSS GiB | data GiB | note |", "|---|---|---:|---:|---:|---|"]
    for method in METHODS:
        for n in sizes:
            r = results[method][n]
            seconds, peak = cell(r)
            data = f"{n * d * 8 / 2**30:.3f}"
            lines.append(f"| {method} | {n} x {d} | {seconds} | {peak} | {data} | {note(r)} |")
    return "\n".join(lines), results


def sparse_table(config, timeout: float, repeat: int):
    n, d = config["sparse"]
    results = {method: run_fit(method, n, d, True, timeout, repeat) for method in SPARSE_METHODS}
    for method, r in results.items():
        print(f"  sparse {method:18s}: {r}", file=sys.stderr, flush=True)
    data = next((r["data_bytes"] for r in results.values() if "data_bytes" in r), 0)
    lines = [f"| method | n x d, {DENSITY:.0%} non-zeros (CSR) | fit s | peak RSS GiB | data GiB | note |",
             "|---|---|---:|---:|---:|---|"]
    for method, r in results.items():
        seconds, peak = cell(r)
        lines.append(f"| {method} | {n} x {d} | {seconds} | {peak} | {data / 2**30:.3f} | {note(r)} |")
    lines.append("")
    lines.append(f"Densified, these data would take n d 8 B = {n * d * 8 / 2**30:.2f} GiB, and a d x d scatter "
                 f"matrix d^2 8 B = {d * d * 8 / 2**30:.2f} GiB (arithmetic, not run): Fisherfaces' PCA step "
                 "forms the d x d covariance (d <= n), LPP centres a dense copy of X and forms d x d matrices.")
    return "\n".join(lines), results


def goals(dense, sparse, sizes) -> list[str]:
    lines = []
    r = sparse["SRDA (auto)"]
    ok = "error" not in r and r["seconds"] < GOAL_SECONDS and r["peak_bytes"] < GOAL_BYTES
    got = r.get("error") or f"{r['seconds']:.1f} s, {r['peak_bytes'] / 2**30:.2f} GiB"
    lines.append(f"- sparse: SRDA fits in under {GOAL_SECONDS:.0f} s within {GOAL_BYTES / 2**30:.0f} GiB: "
                 f"{'holds' if ok else 'does NOT hold'} ({got})")
    for n in sizes:
        s, f = dense["SRDA (auto)"][n], dense["Fisherfaces"][n]
        if "error" in s or "error" in f:
            why = s.get("error") or f.get("error")
            lines.append(f"- dense n = {n}: SRDA no slower than Fisherfaces: not measured ({why})")
            continue
        ok = s["seconds"] <= f["seconds"]
        lines.append(f"- dense n = {n}: SRDA no slower than Fisherfaces: {'holds' if ok else 'does NOT hold'} "
                     f"({s['seconds']:.3f} s against {f['seconds']:.3f} s, {f['seconds'] / s['seconds']:.1f}x)")
    return lines


def machine(repeat: int, blas: str) -> str:
    import scipy
    import sklearn

    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        memory = float("nan")
    threads = CHILD_ENV.get("OPENBLAS_NUM_THREADS", "default")
    return (f"Machine: {platform.machine()}, {os.cpu_count()} cores, {memory:.0f} GiB; the fits' BLAS: {blas}, "
            f"OPENBLAS_NUM_THREADS={threads}; Python {platform.python_version()}, numpy {np.__version__}, "
            f"scipy {scipy.__version__}, scikit-learn {sklearn.__version__}; one process per cell, "
            f"the fastest of {repeat} fit{'s' if repeat > 1 else ''} in it.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="small sizes (dense 1000-4000 x 256, sparse 5000 x 2000): well under a minute")
    parser.add_argument("--all", action="store_true", help="also run the fits that are otherwise extrapolated")
    parser.add_argument("--timeout", type=float, default=None, help="seconds per fit (default 1800, --quick 120)")
    parser.add_argument("--repeat", type=int, default=None,
                        help="fits per process, the fastest reported (default 1, --quick 3)")
    parser.add_argument("--blas-threads", type=int, default=None,
                        help="OPENBLAS/OMP/MKL_NUM_THREADS of the fits (default: as inherited; --quick 1, so that "
                        "other work on a shared machine does not swamp its millisecond fits)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return
    config = QUICK if args.quick else FULL
    threads = args.blas_threads or config["blas_threads"]
    if threads:
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            CHILD_ENV[name] = str(threads)
    timeout = args.timeout or config["timeout"]
    repeat = args.repeat or config["repeat"]
    start = time.perf_counter()
    dense_md, dense = dense_table(config, args.all, timeout, repeat)
    sparse_md, sparse = sparse_table(config, timeout, repeat)
    print(f"### Dense: {N_CLASSES} Gaussian classes\n\n{dense_md}\n")
    print(f"### Sparse: {N_CLASSES} classes\n\n{sparse_md}\n")
    print("### Goals\n")
    print("\n".join(goals(dense, sparse, config["dense_n"])))
    blas = next((r["blas"] for r in sparse.values() if r.get("blas")), "unknown")
    print(f"\n{machine(repeat, blas)} Total {time.perf_counter() - start:.0f} s{' (--quick)' if args.quick else ''}.")


if __name__ == "__main__":
    main()
