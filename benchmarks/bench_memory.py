"""Peak memory against its estimate, and LFDA's full affinity against its kNN affinity.

Every fit runs in a subprocess of its own that makes Gaussian classes (``n x 256``, one thread), resets
its high-water mark after the data are made (Linux's ``/proc/self/clear_refs``) and reports the fit's
time and its peak resident memory beyond what it held before (``ru_maxrss``), beside the estimator's
own estimate (``_peak_memory_bytes``, what ``locproj.core.memory.check_memory`` compares with the memory
available). Then the 1-NN test error of LFDA with either affinity on scikit-learn's digits (half of
each class for training, p = 9), and how long a fit that does not fit the memory takes to refuse.

Run:  python benchmarks/bench_memory.py [--sizes 2000 4000 8000] [--classes 10]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = """
import json, resource, sys, time
import numpy as np
from locproj.methods import IsometricProjection, KernelLPP, LocalFisherDiscriminantAnalysis
expr, n, c = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(0)
y = np.arange(n) % c
X = rng.normal(size=(n, 256)) + 3 * rng.normal(size=(c, 256))[y]
estimator = eval(expr)
open('/proc/self/clear_refs', 'w').write('5')
before = int(open('/proc/self/statm').read().split()[1]) * 4096
start = time.perf_counter()
estimator.fit(X, y)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
print(json.dumps({'seconds': seconds, 'peak': peak, 'estimate': estimator._peak_memory_bytes(n, 256, y)}))
"""
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def measure(expr: str, n: int, classes: int) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, expr, str(n), str(classes)], capture_output=True,
                          text=True, check=True, env=ENV)
    return json.loads(done.stdout)


def digits_errors() -> dict[str, float]:
    import numpy as np
    from sklearn.datasets import load_digits
    from sklearn.neighbors import KNeighborsClassifier

    from locproj.methods import LocalFisherDiscriminantAnalysis

    X, y = load_digits(return_X_y=True)
    train = np.zeros(len(y), bool)
    for c in np.unique(y):
        train[np.flatnonzero(y == c)[::2]] = True
    errors = {}
    for affinity in ("full", "knn"):
        lfda = LocalFisherDiscriminantAnalysis(n_components=9, affinity=affinity).fit(X[train], y[train])
        knn = KNeighborsClassifier(1).fit(lfda.transform(X[train]), y[train])
        errors[affinity] = float(np.mean(knn.predict(lfda.transform(X[~train])) != y[~train]))
    return errors


def refusal_seconds(n: int = 3000, repeats: int = 5) -> float:
    """The best of ``repeats`` times LFDA takes to refuse ``n`` samples under a limit of 1 MB."""
    import time

    import numpy as np

    from locproj.core.memory import NotEnoughMemoryError, memory_limit
    from locproj.methods import LocalFisherDiscriminantAnalysis

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(n, 20)), np.arange(n) % 2
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        try:
            with memory_limit(10**6):
                LocalFisherDiscriminantAnalysis().fit(X, y)
        except NotEnoughMemoryError:
            times.append(time.perf_counter() - start)
    if len(times) != repeats:
        raise SystemExit("LFDA fitted under a 1 MB limit: the memory check did not refuse")
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 4000, 8000])
    parser.add_argument("--classes", type=int, default=10)
    args = parser.parse_args()
    print("| estimator | n | classes | fit s | peak GB | estimate GB | estimate / peak |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for expr in ("LocalFisherDiscriminantAnalysis()", "LocalFisherDiscriminantAnalysis(affinity='knn')",
                 "KernelLPP()", "IsometricProjection()"):
        for n in args.sizes:
            r = measure(expr, n, args.classes)
            print(f"| `{expr}` | {n} | {args.classes} | {r['seconds']:.2f} | {r['peak'] / 1e9:.3f} | "
                  f"{r['estimate'] / 1e9:.3f} | {r['estimate'] / r['peak']:.2f} |", flush=True)
    errors = digits_errors()
    print(f"\nLFDA on digits (half of each class for training, p = 9), 1-NN test error: full affinity "
          f"{100 * errors['full']:.2f} %, knn affinity (k = 7) {100 * errors['knn']:.2f} %")
    print(f"LFDA refuses n = 3000 (20 features) under a 1 MB limit in {1000 * refusal_seconds():.1f} ms "
          "(best of 5)")


if __name__ == "__main__":
    main()
