"""Benchmark: what the tie rule costs the 1-NN evaluation, and what it changes, on UCI Letter.

One split of Letter at m = 20 (the first 20 samples of each class train, the other 19,480 rows
test): 1-NN at p = 16 (``predict_at_p``) and at every p = 1..16 (``predict_all_p``), timed against
a plain reference implemented here, the previous behaviour: a mean shift, then one matrix product
per chunk of test rows (one rank-2 update per column for all p) and the first minimum, so that
rounding decides between equally near training samples.  Three versions of the features:

- integers: Letter's own 16 features 0..15, whose scores are exact in float64 (the evaluation's
  integer shortcut);
- standardized: ``(x - mean) / std``, one std for all columns, so every prefix keeps its exact ties
  up to rounding: they arrive as near-ties in float data and take the general path (candidates,
  exact rescoring);
- rotated: times a random orthogonal matrix (a PCA to all 16 components is one), which keeps the
  distances in all 16 columns only: p = 16 alone.

Each row counts the predictions that disagree with the exact rule, the lowest training index among
the exactly nearest (integer arithmetic on the raw features; summed over p for all p).
``--kernels`` also runs everything under ``OPENBLAS_CORETYPE=Haswell`` in a subprocess (there the
rotation itself comes out a little different, as a PCA would) and counts the predictions that
differ from this process's.

    python benchmarks/bench_ties.py                      # reads ../shared/datasets/letter-recognition.data
    python benchmarks/bench_ties.py --kernels --repeat 7
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy.linalg import blas
from threadpoolctl import threadpool_limits

from locproj.core.evaluation import DEFAULT_MAX_BYTES, predict_all_p, predict_at_p

ROOT = Path(__file__).resolve().parents[1]
MIRROR = Path(os.environ.get("LOCPROJ_DATA_MIRROR", ROOT.parent / "shared" / "datasets"))
P = 16


def read_letter(path: Path):
    rows = [line.split(",") for line in path.read_text().split()]
    return np.array([row[0] for row in rows]), np.array([row[1:] for row in rows], dtype=float)


def split(y, m=20):
    train = np.sort(np.concatenate([np.flatnonzero(y == c)[:m] for c in np.unique(y)]))
    return train, np.setdiff1d(np.arange(len(y)), train)


def plain_at_p(Z_ref, Z_test, p, max_bytes=DEFAULT_MAX_BYTES):
    """The previous single-p pass: mean shift, ``||r||^2 - 2 T R^T`` by chunks, first minimum."""
    shift = Z_ref[:, :p].mean(axis=0)
    ref_T = Z_ref[:, :p].T - shift[:, None]
    ref_sq = np.einsum("ij,ij->j", ref_T, ref_T)
    test = np.ascontiguousarray(Z_test[:, :p] - shift)
    step = max(1, max_bytes // (8 * len(Z_ref)))
    return np.concatenate([blas.dgemm(-2.0, test[s:s + step], ref_T).__iadd__(ref_sq).argmin(axis=1)
                           for s in range(0, len(test), step)])


def plain_all_p(Z_ref, Z_test, n_cols, max_bytes=DEFAULT_MAX_BYTES):
    """The previous all-p pass: one rank-2 update of ``S^T`` per column and its first minimum."""
    shift = Z_ref[:, :n_cols].mean(axis=0)
    ref_T = Z_ref[:, :n_cols].T - shift[:, None]
    terms = np.ascontiguousarray(np.stack([ref_T, ref_T**2], axis=1))
    test = np.ascontiguousarray(Z_test[:, :n_cols] - shift)
    step = max(1, max_bytes // (8 * len(Z_ref)))
    out = np.empty((len(test), n_cols), dtype=np.intp)
    for s in range(0, len(test), step):
        chunk = test[s:s + step]
        scores_T = np.zeros((len(Z_ref), len(chunk)), order="F")
        test_terms = np.empty((n_cols, len(chunk), 2))
        test_terms[:, :, 0] = -2.0 * chunk.T
        test_terms[:, :, 1] = 1.0
        for k in range(n_cols):
            scores_T = blas.dgemm(1.0, terms[k].T, test_terms[k], beta=1.0, c=scores_T, trans_b=True,
                                  overwrite_c=True)
            out[s:s + step, k] = scores_T.argmin(axis=0)
    return out


def exact_all_p(Z_ref, Z_test, n_cols):
    """Lowest index among the exactly nearest, every p, in integer arithmetic."""
    R, T = Z_ref.astype(np.int64), Z_test.astype(np.int64)
    out = np.empty((len(T), n_cols), dtype=np.intp)
    for s in range(0, len(T), 2000):
        D = np.zeros((len(T[s:s + 2000]), len(R)), dtype=np.int64)
        for k in range(n_cols):
            D += (T[s:s + 2000, k, None] - R[None, :, k]) ** 2
            out[s:s + 2000, k] = D.argmin(axis=1)
    return out


def best_time(function, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def versions(X_train, X_test):
    """The three versions of the features: name -> (train, test, prefix lengths compared)."""
    mean, scale = X_train.mean(axis=0), X_train.std()
    Q = np.linalg.qr(np.random.default_rng(0).standard_normal((P, P)))[0]
    return {"integers": (X_train, X_test, "all"),
            "standardized": ((X_train - mean) / scale, (X_test - mean) / scale, "all"),
            "rotated": (X_train @ Q, X_test @ Q, "p = 16")}


def runs(y_train, R, T, compared):
    """The timed calls, by (pass, implementation)."""
    out = {("p = 16", "plain"): lambda: y_train[plain_at_p(R, T, P)],
           ("p = 16", "rule"): lambda: predict_at_p(R, y_train, T, P)}
    if compared == "all":
        out["p = 1..16", "plain"] = lambda: y_train[plain_all_p(R, T, P)]
        out["p = 1..16", "rule"] = lambda: predict_all_p(R, y_train, T)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=MIRROR / "letter-recognition.data")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of each; the best is kept")
    parser.add_argument("--blas-threads", type=int, default=1)
    parser.add_argument("--kernels", action="store_true", help="also compare with OPENBLAS_CORETYPE=Haswell")
    parser.add_argument("--dump", type=Path, help=argparse.SUPPRESS)  # the --kernels subprocess
    args = parser.parse_args(argv)

    y, X = read_letter(args.data)
    train, test = split(y)
    found, seconds = {}, {}
    repeat = 1 if args.dump else args.repeat
    with threadpool_limits(limits=args.blas_threads, user_api="blas"):
        for data, (R, T, compared) in versions(X[train], X[test]).items():
            for (what, kind), function in runs(y[train], R, T, compared).items():
                seconds[data, what, kind], found[data, what, kind] = best_time(function, repeat)
        if args.dump:
            np.savez(args.dump, **{"|".join(key): value for key, value in found.items()})
            return
        exact = y[train][exact_all_p(X[train], X[test], P)]
    rows = []
    for data, what in dict.fromkeys(key[:2] for key in found):
        expected = exact[:, -1] if what == "p = 16" else exact
        wrong = {kind: int(np.sum(found[data, what, kind] != expected)) for kind in ("plain", "rule")}
        rows.append((data, what, seconds[data, what, "plain"], seconds[data, what, "rule"], wrong))
    kernels = compare_kernels(found) if args.kernels else None
    print_table(rows, kernels, args, len(train), len(test))


def compare_kernels(found):
    """Predictions that differ between this process's BLAS kernel and Haswell's."""
    with tempfile.TemporaryDirectory() as folder:
        dump = Path(folder) / "haswell.npz"
        env = {**os.environ, "OPENBLAS_CORETYPE": "Haswell"}
        subprocess.run([sys.executable, __file__, "--dump", str(dump), *sys.argv[1:]], env=env, check=True)
        other = np.load(dump)
        return {key: int(np.sum(value != other["|".join(key)])) for key, value in found.items()}


def print_table(rows, kernels, args, n_train, n_test):
    print(f"UCI Letter, m = 20: {n_train} training and {n_test} test rows, 16 features; best of {args.repeat} "
          f"runs, {args.blas_threads} BLAS thread(s).\n")
    head = "| data | p | plain s | tie rule s | ratio | plain ≠ exact rule | tie rule ≠ exact rule |"
    if kernels:
        head += " plain: other kernel differs | tie rule: other kernel differs |"
    print(head)
    print("|---" * (9 if kernels else 7) + "|")
    for data, what, plain, rule, wrong in rows:
        line = (f"| {data} | {what} | {plain:.3f} | {rule:.3f} | {rule / plain:.2f} | {wrong['plain']} "
                f"| {wrong['rule']} |")
        if kernels:
            line += f" {kernels[data, what, 'plain']} | {kernels[data, what, 'rule']} |"
        print(line)
    print(f"\nMachine: {platform.machine()}, {os.cpu_count()} cores, numpy {np.__version__}; "
          f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', 'default')}.")


if __name__ == "__main__":
    main()
