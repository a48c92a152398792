"""Where the time of one LocalProjectionKernelSVC fit goes (paper 002 §5).

One LPK fit (p = 2, r = 2, linear kernel, 25 iterations at most, tau = 0.001) on 500 training
points of Waveform, classes 0 and 1 merged against class 2 (002 §6.3), drawn with a seeded
permutation; the other points are the test set.  The data are UCI's ``waveform.data`` read with
locproj's CSV reader from the mirror (``--mirror``, default ``../shared/datasets``), or, without
the mirror, 5000 points of locproj's seeded Waveform generator.

The fit's time is split into the SVM solves (``SVC(kernel='precomputed').fit``, line 4 of
Algorithm 2 and every trial step of Armijo's rule), the local projection kernel matrices ``K_eta``
(eq. 8), the gradients of §2/§4 (from the support vectors only), and the rest.  §5 claims the
gradient work is negligible next to the SVM solves.  Best of ``--repeat`` cold fits, per C.

Run:  python benchmarks/bench_lpk.py [--repeat 3] [--C 1 100] [--mirror ../shared/datasets] [--threads 1]
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np
import sklearn
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from locproj.data.readers import read_dataset
from locproj.methods import lpk


def waveform(mirror: Path):
    """Waveform as (X, y) with y = 1 for class 2 (002 §6.3: the first two classes merged)."""
    path = mirror / "waveform.data"
    if path.exists():
        raw = read_dataset("waveform", {"format": "csv", "label_column": "last"}, [path])
        source = f"UCI waveform.data from {mirror}"
    else:
        raw = read_dataset("waveform_generated", {"format": "waveform_generator", "n_samples": 5000}, [],
                           seed=0)
        source = "locproj's Waveform generator (seed 0; no mirror)"
    y = (np.asarray(raw.labels).astype(str) == "2").astype(int)
    return raw.X, y, source


class _Timer:
    """Wraps the module functions a fit calls and adds up the seconds spent in each."""

    def __init__(self):
        self.seconds = {"svm": 0.0, "kernel": 0.0, "gradient": 0.0}
        self.calls = {"svm": 0, "kernel": 0, "gradient": 0}

    def wrap(self, key, function):
        def timed(*args, **kwargs):
            start = time.perf_counter()
            out = function(*args, **kwargs)
            self.seconds[key] += time.perf_counter() - start
            self.calls[key] += 1
            return out

        return timed


def timed_fit(X, y, C, seed):
    timer = _Timer()
    originals = (SVC.fit, lpk.local_projection_kernel, lpk.dual_objective_gradients)
    svc_fit = originals[0]
    SVC.fit = lambda self, *a, **kw: timer.wrap("svm", svc_fit)(self, *a, **kw)
    lpk.local_projection_kernel = timer.wrap("kernel", originals[1])
    lpk.dual_objective_gradients = timer.wrap("gradient", originals[2])
    try:
        start = time.perf_counter()
        model = lpk.LocalProjectionKernelSVC(n_regions=2, n_components=2, C=C, random_state=seed).fit(X, y)
        total = time.perf_counter() - start
    finally:
        SVC.fit, lpk.local_projection_kernel, lpk.dual_objective_gradients = originals
    return total, timer, model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--C", type=float, nargs="+", default=[1.0, 100.0])
    parser.add_argument("--mirror", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--n-train", type=int, default=500)
    parser.add_argument("--threads", type=int, default=1,
                        help="BLAS threads, as a one-thread workflow job (locproj.workflow) has")
    args = parser.parse_args()
    with threadpool_limits(limits=args.threads):
        run(args)


def run(args):
    X, y, source = waveform(args.mirror)
    order = np.random.default_rng(0).permutation(len(X))
    train, test = order[:args.n_train], order[args.n_train:]
    print(f"{source}: {len(train)} training, {len(test)} test points, d = {X.shape[1]}; "
          "LPK p = 2, r = 2, linear kernel, tau = 0.001, max_iter = 25")
    header = (f"{'C':>6} {'iter':>4} {'solves':>6} {'fit s':>6} {'SVM s':>6} {'K_eta s':>7} "
              f"{'grad s':>6} {'rest s':>6} {'SVM %':>5} {'grad %':>6} {'train':>5} {'test':>5} {'SV %':>5}")
    print(header)
    for C in args.C:
        best = None
        for _ in range(args.repeat):
            run = timed_fit(X[train], y[train], C, seed=0)
            best = run if best is None or run[0] < best[0] else best
        total, timer, model = best
        s = timer.seconds
        rest = total - sum(s.values())
        print(f"{C:>6g} {model.n_iter_:>4} {timer.calls['svm']:>6} {total:>6.2f} {s['svm']:>6.2f} "
              f"{s['kernel']:>7.3f} {s['gradient']:>6.3f} {rest:>6.3f} {100 * s['svm'] / total:>5.1f} "
              f"{100 * s['gradient'] / total:>6.2f} {model.score(X[train], y[train]):>5.3f} "
              f"{model.score(X[test], y[test]):>5.3f} {100 * len(model.support_) / len(train):>5.1f}")
    print(f"\nMachine: {platform.machine()}, {os.cpu_count()} cores; numpy {np.__version__}, "
          f"scikit-learn {sklearn.__version__}; BLAS threads {args.threads}; best of {args.repeat}.")


if __name__ == "__main__":
    main()
