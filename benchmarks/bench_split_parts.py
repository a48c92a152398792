"""Benchmark: each part of a Table 2 split against its own floor.

``bench_split_floor.py`` splits one split's time into eigen-solves, products, evaluation, transform
and the rest. This script times, in one process with one BLAS thread, the least work each of those
parts must do for PIE m = 30 LPP (5 folds x 36 grid points + 1 refit = 181 fits; a fold fits 1632
samples and holds out 408, of 1024 pixels; CV reads p <= 300) and LLP (5 x 12 + 1 = 61 fits, one
Gram product each), with the BLAS kernels alone:

- products: per LPP fit the two Gram matrices the pencil needs, ``Y^T L Y`` and ``Y^T D Y``, each one
  ``dsyrk`` of the fit's 1632 x 1024 coordinates (half a ``dgemm``: the result is symmetric). Every
  formula for the pencil needs two matrices that change with the grid point (L and D both depend on
  the heat width), so two rank-n updates per fit is the floor;
- transform: the fit and held-out samples projected on 300 columns, a ``dgemm`` each;
- evaluation: the all-p 1-NN pass of one fold and grid point, as :mod:`locproj.core.evaluation` runs it
  (a rank-2 update of the (references x test rows) score block and one ``argmin`` per p, references
  that can no longer win dropped every 48 columns), against its two kernels alone without the
  dropping: p rank-2 updates and p ``argmin`` calls on a block of the same size. Each streams the
  block through the cache once per p; the pass as run is already below the two alone, so what is
  left needs the update and the argmin fused in compiled code, which NumPy cannot do.

    python benchmarks/bench_split_parts.py            # seconds per split, as bench_split_floor.py counts
"""

from __future__ import annotations

import time

import numpy as np
from scipy.linalg import blas
from threadpoolctl import threadpool_limits

FIT, HELD, D, P = 1632, 408, 1024, 300
# Gram products per fit and fits per split (5 folds x grid points + the refit): LPP's pencil needs
# Y^T L Y and Y^T D Y; LLP's constraint is P^T P = I, so only Y^T T Y (T = (I - A)^T (I - A))
CELLS = {"PIE m=30 LPP": (2, 5 * 36 + 1), "PIE m=30 LLP": (1, 5 * 12 + 1)}
CHUNK = (1 << 20) // (8 * FIT)  # test rows per block of locproj.core.evaluation (its 1 MiB budget)


def best_of(function, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    from locproj.core.evaluation import nearest_indices
    from locproj.core._dense import a_b

    rng = np.random.default_rng(0)
    Y = rng.standard_normal((FIT, D))
    A = rng.standard_normal((D, P))
    Z_fit, Z_held = rng.standard_normal((FIT, P)), rng.standard_normal((HELD, P))
    with threadpool_limits(1):
        square = rng.standard_normal((D, D))
        peak = 2 * D**3 / best_of(lambda: blas.dgemm(1.0, square, square)) / 1e9
        syrk = best_of(lambda: blas.dsyrk(1.0, Y.T))
        held = np.ascontiguousarray(Y[:HELD])
        transform = best_of(lambda: (a_b(Y, A), a_b(held, A)))
        evaluation = best_of(lambda: nearest_indices(Z_fit, Z_held), repeat=3)
        scores = np.zeros((FIT, CHUNK), order="F")
        terms, test_terms = rng.standard_normal((2, FIT)), rng.standard_normal((CHUNK, 2))
        update = best_of(lambda: [blas.dgemm(1.0, terms.T, test_terms, beta=1.0, c=scores, trans_b=True,
                                             overwrite_c=True) for _ in range(P)], repeat=3)
        argmin = best_of(lambda: [scores.argmin(axis=0) for _ in range(P)], repeat=3)
    blocks = -(-HELD // CHUNK)
    print("| cell | part | seconds per split | note |\n|---|---|---:|---|")
    for cell, (grams, fits) in CELLS.items():
        evaluations = fits - 1  # every fit but the refit is evaluated on its held-out fold
        rows = [
            (f"products: {grams} dsyrk per fit", grams * fits * syrk,
             f"{FIT * D * D / syrk / 1e9:.0f} GFLOP/s (dgemm peak {peak:.0f})"),
            ("transform: 2 dgemm per fit", fits * transform,
             f"{2 * (FIT + HELD) * D * P / transform / 1e9:.0f} GFLOP/s"),
            ("evaluation as run (all-p 1-NN)", evaluations * evaluation, f"{blocks} blocks of {CHUNK} rows"),
            ("evaluation kernels alone, no dropping: updates + argmin", evaluations * blocks * (update + argmin),
             f"update {blocks * update * 1e3:.0f} ms + argmin {blocks * argmin * 1e3:.0f} ms per fold and grid point"),
        ]
        for name, seconds, note in rows:
            print(f"| {cell} | {name} | {seconds:.1f} | {note} |")


if __name__ == "__main__":
    main()
