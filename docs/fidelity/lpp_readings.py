"""LPP's PCA pre-step: the readings the LLP paper leaves open (the ORL LPP cells of Table 2 not resolved).

Paper 000 §4.1 says that LPP, like LDA, is preceded by PCA, citing He et al. 2005 (Laplacianfaces),
but not how many components it keeps. The readings:

* ``rank``   -- every non-zero component (the pipeline's LPP; the LLP paper's rule for LLP);
* ``rank-c`` -- rank(S_T) − (c − 1) components, the pipeline's Fisherfaces rule (N − c when n ≤ d);
* ``v98``    -- the components holding 98 % of the variance (Laplacianfaces' choice).

Usage, from the repository root after the pipeline has prepared the data and splits:
    python docs/fidelity/lpp_readings.py DATASET M N_SPLITS [READING ...]
Prints mean test error (%) ± std over the splits and the mean chosen p, with the Table 2 grid,
5-fold CV and the pipeline's fold seeds; the numbers are in docs/fidelity/README.md.
"""

from __future__ import annotations

import sys

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.decomposition import PCA

from locproj.data import derived_seed, read_dataset_file, read_splits
from locproj.methods import LocalityPreservingProjection
from locproj.engine.registry import max_components
from locproj.engine.selection import run_split

GRID = {"n_neighbors": [5, 10, 20, "m-1"], "gamma": {"sigma0_sq_times": [0.0625, 0.125, 0.25, 0.5, 1, 2, 4, 8, 16]}}


class PcaThenLpp(TransformerMixin, BaseEstimator):
    """PCA to ``keep`` components ('rank-c' or a variance fraction), then supervised heat LPP."""

    def __init__(self, keep="rank-c", n_neighbors=5, gamma=None):
        self.keep = keep
        self.n_neighbors = n_neighbors
        self.gamma = gamma

    def fit(self, X, y):
        if self.keep == "rank-c":
            rank = np.linalg.matrix_rank(X - X.mean(axis=0))
            keep = rank - (len(np.unique(y)) - 1)
        else:
            keep = float(self.keep)
        self.pca_ = PCA(n_components=keep, svd_solver="full").fit(X)
        self.lpp_ = LocalityPreservingProjection(n_neighbors=self.n_neighbors, gamma=self.gamma).fit(
            self.pca_.transform(X), y)
        return self

    def transform(self, X):
        return self.lpp_.transform(self.pca_.transform(X))


def make(reading):
    if reading == "rank":
        return lambda params: LocalityPreservingProjection(weight="heat", supervised=True, **params)
    return lambda params: PcaThenLpp(keep=reading, **params)


def main():
    dataset, m, n_splits = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    readings = sys.argv[4:] or ["rank", "rank-c", "0.98"]
    path = f"data/processed/{dataset}.h5"
    data = read_dataset_file(path)
    splits = read_splits(f"results/splits/{dataset}_m{m}.h5")
    for reading in readings:
        errors, dims = [], []
        for split in range(n_splits):
            tr, te = splits["train"][split], splits["test"][split]
            seed = derived_seed(20070620, "llp_table2", dataset, m, split) % (2**32)   # Table 2's folds
            result = run_split(
                data.X[tr], data.y[tr], data.X[te], data.y[te], method="lpp", new_estimator=make(reading),
                grid_spec=GRID,
                m=m, p_max=300, seed=seed,
                p_limit=lambda A, y: max_components("lpp", n_samples=len(A), n_classes=len(np.unique(y)),
                                                    n_features=A.shape[1]),
            )
            errors.append(100 * result.test_error)
            dims.append(result.p)
        print(f"{dataset} m={m} LPP PCA {reading:7s} {np.mean(errors):5.1f} ± {np.std(errors, ddof=1):4.1f} "
              f"(p {np.mean(dims):5.1f})  splits 0-{n_splits - 1}: {np.round(errors, 1).tolist()}", flush=True)


if __name__ == "__main__":
    main()
