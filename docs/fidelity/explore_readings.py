"""Try the readings the LLP paper leaves open (centring, pixel scaling, column length) on a few splits.

Usage: python docs/fidelity/explore_readings.py DATASET M N_SPLITS
Prints the mean test error (%) of each reading; results are recorded in docs/fidelity/README.md.
"""

import itertools
import sys

import numpy as np

from locproj.data import read_dataset_file, read_splits, scale
from locproj.engine.registry import estimator_factory
from locproj.engine.registry import max_components
from locproj.engine.selection import run_split

dataset, m, n_splits = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = read_dataset_file(f"data/processed/{dataset}.h5")
splits = read_splits(f"results/splits/{dataset}_m{m}.h5")
GAMMAS = {"sigma0_sq_times": [0.0625, 0.125, 0.25, 0.5, 1, 2, 4, 8, 16]}
NEIGHBORS = [5, 10, 20, "m-1"]

readings = {
    **{f"llp scale={s} center={c}": ("llp", s, {"kernel": "linear", "center": c},
                                      {"n_neighbors": NEIGHBORS, "reg": [0.1, 1, 10]})
       for s, c in itertools.product(["raw", "unit_interval", "unit_norm"], [True, False])},
    **{f"lpp scale={s} columns={cs}": ("lpp", s, {"weight": "heat", "column_scaling": cs},
                                       {"n_neighbors": NEIGHBORS, "gamma": GAMMAS})
       for s, cs in itertools.product(["raw", "unit_norm"], ["unit", "constraint"])},
    **{f"lda scale={s} columns={cs}": ("lda", s, {"column_scaling": cs}, None)
       for s, cs in itertools.product(["raw"], ["unit", "constraint"])},
}
if len(sys.argv) > 4:
    readings = {k: v for k, v in readings.items() if any(word in k for word in sys.argv[4:])}

for label, (method, how, fixed, grid) in readings.items():
    errors, dims = [], []
    X = scale(data.X, how)
    for split in range(n_splits):
        tr, te = splits["train"][split], splits["test"][split]
        result = run_split(
            X[tr], data.y[tr], X[te], data.y[te], method=method, new_estimator=estimator_factory(method, fixed),
            grid_spec=grid, m=m, p_max=300, seed=split,
            p_limit=lambda A, y: max_components(method, n_samples=len(A), n_classes=len(np.unique(y)),
                                                n_features=A.shape[1]),
        )
        errors.append(100 * result.test_error)
        dims.append(result.p)
    print(f"{dataset} m={m} {label:40s} {np.mean(errors):5.1f} ± {np.std(errors, ddof=1):4.1f}  p={np.mean(dims):6.1f}",
          flush=True)
