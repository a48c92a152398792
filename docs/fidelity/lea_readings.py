"""Paper 001, Fig. 4: how LEA's lowest error depends on who chooses k and r (docs/fidelity, "Paper 001").

For the first partitions of each dataset (the pipeline's own split files), fits supervised LEA
for every (k, r) of the experiment's grid on the whole training part and prints the mean over
partitions of the lowest test error over the dimensions for: each grid point, the best grid point
per partition (test data choose k, r and the dimension), and the inner-CV choice (the pipeline's).

    python docs/fidelity/lea_readings.py [n_partitions]     # after `snakemake lea_recognition`
"""

import sys

import numpy as np

from locproj.data import read_dataset_file, read_splits
from locproj.core.evaluation import errors_all_p
from locproj.methods import LocallyEmbeddedAnalysis
from locproj.engine.selection import read_result

DATASETS = {"orl": "m3", "yale": "m6", "umist": "f0.25"}
GRID = [(k, r) for k in (1, 2, 4, 8, "all") for r in (0.001, 0.01, 0.1)]


def lowest_errors(X, y, train, test):
    """Lowest test error over the dimensions for each (k, r) of GRID (k='all': the class size - 1)."""
    smallest = np.bincount(y[train]).min()
    out = {}
    for k, r in GRID:
        k_used = smallest - 1 if k == "all" else k
        if k_used >= smallest:
            continue
        lea = LocallyEmbeddedAnalysis(n_neighbors=k_used, reg=r, supervised=True).fit(X[train], y[train])
        out[(k, r)] = errors_all_p(lea.transform(X[train]), y[train], lea.transform(X[test]), y[test]).min()
    return out


def main(n_partitions):
    for dataset, partition in DATASETS.items():
        data = read_dataset_file(f"data/processed/{dataset}.h5")
        splits = read_splits(f"results/splits/{dataset}_{partition}_n100.h5")
        per_point, best, cv = {}, [], []
        for split in range(n_partitions):
            errors = lowest_errors(data.X, data.y, splits["train"][split], splits["test"][split])
            for key, value in errors.items():
                per_point.setdefault(key, []).append(value)
            best.append(min(errors.values()))
            result = read_result(f"results/lea_recognition/{dataset}/{partition}/lea/split{split:02d}.h5")
            cv.append(np.min(result["test_error_curve"]))
        print(f"{dataset} ({n_partitions} partitions), lowest test error over dimensions, %:")
        for key, values in per_point.items():
            print(f"  k={key[0]!s:>3} r={key[1]:<6} {100 * np.mean(values):5.1f}")
        print(f"  best (k, r) per partition (test data choose): {100 * np.mean(best):5.1f}")
        print(f"  (k, r) chosen by inner CV (the pipeline):      {100 * np.mean(cv):5.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
