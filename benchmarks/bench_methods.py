"""Fit time of every graph-embedding method vs. the floor of one dense generalized eigh.

Synthetic training sets shaped like YaleB / PIE at m = 30 images per class (38 x 30 = 1140 and
68 x 30 = 2040 samples, 1024 features), low-rank class structure plus noise.  The floor is one
dense generalized ``scipy.linalg.eigh(M, N)`` on random SPD ``r x r`` matrices, ``r`` the size
of the method's reduced problem (``min(n - 1, d)``; ``n - 1`` for kernel LPP).  The method's own
final eigen-solve (captured from a fit and timed alone; a standard ``eigh(M)`` for LLP, whose
constraint is ``P^T P = I``) is shown too.  Fisherfaces does not use the solver (scikit-learn
PCA + LDA).

Run:  python benchmarks/bench_methods.py [--repeat 3] [--no-write]
Writes the table into benchmarks/README.md between the markers of its section.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np
import scipy.linalg

from locproj.core import solvers
from locproj.core._memo import forget
from locproj.methods import (
    Fisherfaces,
    KernelLPP,
    LocalFisherDiscriminantAnalysis,
    LocalLearningProjection,
    LocallyEmbeddedAnalysis,
    LocalityPreservingProjection,
)

SHAPES = [("YaleB-like", 38, 30, 1024), ("PIE-like", 68, 30, 1024)]
# name -> (factory, nominal size of the reduced problem as a function of (n, d))
METHODS = {
    "LPP (heat, k=5)": (lambda: LocalityPreservingProjection(), lambda n, d: min(n - 1, d)),
    "LLP (linear, k=5)": (lambda: LocalLearningProjection(), lambda n, d: min(n - 1, d)),
    "LEA d_to_d (k=5)": (lambda: LocallyEmbeddedAnalysis(), lambda n, d: min(n - 1, d)),
    "LEA d_to_1 (k=5)": (lambda: LocallyEmbeddedAnalysis(mode="d_to_1"), lambda n, d: min(n - 1, d)),
    "LFDA": (lambda: LocalFisherDiscriminantAnalysis(), lambda n, d: min(n - 1, d)),
    "Fisherfaces": (lambda: Fisherfaces(), lambda n, d: min(n - 1, d)),
    "Fisherfaces (eigen)": (lambda: Fisherfaces(solver="eigen"), lambda n, d: min(n - 1, d)),
    # the kernel matrix is the data: the reduced problem is (n - 1) x (n - 1)
    "Kernel LPP (rbf)": (lambda: KernelLPP(), lambda n, d: n - 1),
}
README = Path(__file__).with_name("README.md")
BEGIN, END = "<!-- bench_methods:begin -->", "<!-- bench_methods:end -->"


def synthetic(n_classes: int, per_class: int, d: int, seed: int = 0):
    """Face-like data: 40-dim class/pose structure in 1024 pixels plus pixel noise, 0..255."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), per_class)
    basis = rng.standard_normal((40, d))
    latent = rng.standard_normal((n_classes, 40))[y] + 0.7 * rng.standard_normal((len(y), 40))
    X = latent @ basis + 2.0 * rng.standard_normal((len(y), d))
    X = (X - X.min()) / (X.max() - X.min()) * 255
    return X, y


def limit_numpy_blas(threads: int = 1) -> str:
    """Limit numpy's bundled OpenBLAS (a second copy next to scipy's) to ``threads``.

    The solver does its dense work through scipy's BLAS/LAPACK; the few numpy BLAS calls left
    (kernel matrices, small products) would otherwise leave a second pool of threads spinning on
    the same two cores while scipy's threads work.
    """
    from threadpoolctl import ThreadpoolController

    libs = [lib for lib in ThreadpoolController().lib_controllers if "numpy" in lib.filepath]
    for lib in libs:
        lib.set_num_threads(threads)
    return f"numpy BLAS threads={threads}" if libs else "numpy BLAS threads unchanged"


def best_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        forget()  # cold: no mean, basis or neighbour lists remembered from the previous repeat
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def random_floor_time(r: int, repeat: int) -> float:
    """eigh(M, N) for random r x r SPD matrices."""
    rng = np.random.default_rng(1)
    G = rng.standard_normal((r, r))
    M = G @ G.T
    H = rng.standard_normal((r, r))
    N = H @ H.T + r * np.eye(r)
    return best_time(lambda: scipy.linalg.eigh(M, N), repeat)


def captured_floor_time(make, X, y, repeat: int) -> tuple[float, int] | None:
    """eigh(M, N) of the method's own reduced problem, captured from inside one fit
    (None if the method does not call the solver)."""
    captured = {}
    original = solvers._eigh_sorted

    def spy(M, N, *args, **kwargs):
        # copies: the solver lets LAPACK work in M and N
        captured.setdefault("MN", (M.copy(order="K"), None if N is None else N.copy(order="K")))
        return original(M, N, *args, **kwargs)

    solvers._eigh_sorted = spy
    try:
        make().fit(X, y)
    finally:
        solvers._eigh_sorted = original
    if "MN" not in captured:
        return None
    M, N = captured["MN"]  # the solver keeps only upper triangles authoritative
    return best_time(lambda: scipy.linalg.eigh(M, N, lower=False), repeat), len(M)


def run(repeat: int) -> list[tuple]:
    rows = []
    for label, c, m, d in SHAPES:
        X, y = synthetic(c, m, d)
        n = len(X)
        for name, (make, reduced_size) in METHODS.items():
            fit = best_time(lambda: make().fit(X, y), repeat)
            captured = captured_floor_time(make, X, y, repeat)  # measured next to the fit it bounds
            r = captured[1] if captured else reduced_size(n, d)
            floor = random_floor_time(r, repeat)
            own = captured[0] if captured else floor
            rows.append((name, f"{label} {n}x{d}", fit, r, floor, own, fit / floor))
            print(f"{name:22s} {label:10s} n={n:5d} r={r:5d} fit {fit:7.3f}s floor {floor:6.3f}s "
                  f"own eigh {own:6.3f}s ratio {fit / floor:5.2f}", flush=True)
    return rows


def markdown(rows, note: str = "") -> str:
    lines = ["| method | training set | r | fit s | floor s: eigh(M, N) r x r | own final eigh s | ratio fit/floor |",
             "|---|---|---:|---:|---:|---:|---:|"]
    lines += [f"| {m} | {s} | {r} | {f:.3f} | {fl:.3f} | {own:.3f} | {q:.2f} |" for m, s, f, r, fl, own, q in rows]
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "default")
    lines.append("")
    lines.append(f"Machine: {platform.machine()}, {os.cpu_count()} cores, OPENBLAS_NUM_THREADS={threads}; "
                 f"{note}; numpy {np.__version__}, scipy {scipy.__version__}; best of the repeats.")
    return "\n".join(lines)


SECTION_HEAD = """## bench_methods.py

    python benchmarks/bench_methods.py [--repeat 3] [--no-write] [--numpy-threads 1]

Fits every method on synthetic face-like training sets (38 x 30 = 1140 and 68 x 30 = 2040 samples of
1024 pixels: 40-dim class/pose structure plus pixel noise, scaled to 0..255) and compares the fit time
with its floor: one dense generalized `scipy.linalg.eigh(M, N)` of random SPD `r x r` matrices, `r` the
size of the method's reduced problem. "own final eigh" is the method's actual last eigen-solve, captured
from a fit and timed alone (for LLP a standard `eigh(M)`, its constraint being `P^T P = I`). Every repeat
is a cold fit (the per-data memo, `locproj.core._memo`, is emptied first) asking for every component, so the
solver back-transforms all eigenvectors; cross-validation asks for 300 and saves about a third of the
eigen-solve (`docs/methods.md`).

Target: every graph-embedding method within 2x of the floor. LEA and LFDA at n = 2040, and kernel LPP, sit
at its edge (LEA D-to-1 needs three `n x d x d` products against two for the other linear methods; kernel
LPP also forms the kernel matrix, a Cholesky solve and a product with `K`, all `O(n^3)`). Fisherfaces is
scikit-learn's PCA followed by `LinearDiscriminantAnalysis`, not the graph solver, and is outside the
target. The script writes the table below into this section (between its markers) unless `--no-write`;
its figures move by +-10 % from run to run on the shared machine.
"""


def write_section(table: str) -> None:
    text = README.read_text() if README.exists() else "# Benchmarks\n"
    section = f"{BEGIN}\n{SECTION_HEAD}\n{table}\n{END}"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + section + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    README.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--numpy-threads", type=int, default=1,
                        help="threads for numpy's own OpenBLAS (0: leave as is)")
    args = parser.parse_args()
    note = limit_numpy_blas(args.numpy_threads) if args.numpy_threads else "numpy BLAS threads unchanged"
    print(note)
    table = markdown(run(args.repeat), note)
    print(table)
    if not args.no_write:
        write_section(table)


if __name__ == "__main__":
    main()
