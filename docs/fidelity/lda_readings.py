"""Candidate readings of the paper's "LDA" (Fisherface) for Wu et al. 2007 Table 2.

Each reading is a scikit-learn style transformer: fit(X, y), transform(X) -> columns in order
of discriminative power (first p columns = the p-dim projection).

Run from the repository root after the pipeline has prepared the data and splits:
    python docs/fidelity/lda_readings.py DATASET M FIRST-LAST READING [READING ...]
e.g. ``yaleb 30 0-19 R1_pca_n_minus_c R10b_fisherfaces``; one JSON line per job is appended to
``lda_readings.jsonl``.  The numbers are in docs/fidelity/README.md.
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import json
import sys
import time

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from threadpoolctl import threadpool_limits

from locproj.data import read_dataset_file, read_splits
from locproj.data.splits import derived_seed
from locproj.methods import Fisherfaces
from locproj.engine.registry import max_components
from locproj.engine.selection import run_split

DATA = "data/processed/{}.h5"
SPLITS = "results/splits/{}_m{}.h5"


def _unit(P):
    n = np.linalg.norm(P, axis=0)
    return P / np.where(n > 0, n, 1.0)


def _pca(X):
    """Centred SVD: mean, right singular vectors (d x r, all), singular values."""
    mean = X.mean(axis=0)
    _, s, Vt = np.linalg.svd(X - mean, full_matrices=False)
    return mean, Vt.T, s


class PcaLda(TransformerMixin, BaseEstimator):
    """PCA to ``n_pca`` components, then sklearn LDA(solver='svd') in the PCA space.

    n_pca: 'nc' -> min(n - c, rank) (locproj's Fisherfaces before the change); 'rank' -> all non-zero components;
    int -> fixed number (capped by rank); float in (0, 1) -> smallest k with that share of variance.
    scaling: 'unit' -> unit-length columns in pixel space (as locproj); 'lda' -> sklearn's
    scalings_ (within-class whitened coordinates).
    """

    def __init__(self, n_pca="nc", scaling="unit"):
        self.n_pca = n_pca
        self.scaling = scaling

    def fit(self, X, y):
        X = np.asarray(X, float)
        n, d = X.shape
        c = len(np.unique(y))
        mean, V, s = _pca(X)
        tol = 10 * max(n, d) * np.finfo(float).eps
        ev = s**2
        rank = int(np.sum(ev > tol * ev[0]))
        if self.n_pca == "nc":
            k = min(n - c, rank)
        elif self.n_pca == "mnc":   # min(n, d) - c: drop c - 1 more than the rank of St allows
            k = min(min(n, d) - c, rank)
        elif self.n_pca == "rankc":   # rank(St) - (c - 1)
            k = rank - (c - 1)
        elif self.n_pca == "rank":
            k = rank
        elif isinstance(self.n_pca, float):
            k = int(np.searchsorted(np.cumsum(ev) / ev.sum(), self.n_pca) + 1)
            k = min(k, rank)
        else:
            k = min(int(self.n_pca), rank)
        k = max(k, 1)
        Vk = V[:, :k]
        Z = (X - mean) @ Vk
        lda = LinearDiscriminantAnalysis(solver="svd").fit(Z, y)
        a = min(c - 1, k, lda.scalings_.shape[1])
        P = Vk @ lda.scalings_[:, :a]
        if self.scaling == "unit":
            P = _unit(P)
        self.mean_, self.P_, self.k_ = mean, P, k
        return self

    def transform(self, X):
        return (np.asarray(X, float) - self.mean_) @ self.P_


class RawLda(TransformerMixin, BaseEstimator):
    """sklearn LinearDiscriminantAnalysis directly on raw pixels (R2: svd; R5: eigen+shrinkage)."""

    def __init__(self, solver="svd", shrinkage=None, scaling="lda"):
        self.solver = solver
        self.shrinkage = shrinkage
        self.scaling = scaling

    def fit(self, X, y):
        X = np.asarray(X, float)
        c = len(np.unique(y))
        lda = LinearDiscriminantAnalysis(solver=self.solver, shrinkage=self.shrinkage).fit(X, y)
        a = min(c - 1, lda.scalings_.shape[1])
        P = lda.scalings_[:, :a]
        if self.scaling == "unit":
            P = _unit(P)
        # centring is irrelevant for 1-NN; use the overall training mean
        self.mean_ = X.mean(axis=0)
        self.P_ = P
        return self

    def transform(self, X):
        return (np.asarray(X, float) - self.mean_) @ self.P_


class CaiLda(TransformerMixin, BaseEstimator):
    """Deng Cai's LDA.m (bPCA branch): SVD of centred data keeping eigenvalues of X X^T above
    1e-10 * max (mySVD), data -> U (total scatter whitened), SVD of Hb (rows sqrt(n_i) * class
    mean in U space), drop singular values < 1e-3, eigvector = V S^-1 W, columns unit norm.
    Solves Sb a = lambda St a (total scatter in the denominator)."""

    def __init__(self, scaling="unit", hb_tol=1e-3):
        self.scaling = scaling
        self.hb_tol = hb_tol

    def fit(self, X, y):
        X = np.asarray(X, float)
        mean = X.mean(axis=0)
        Xc = X - mean
        U, s, Vt = np.linalg.svd(Xc, full_matrices=False)
        keep = (s**2) / (s[0] ** 2) >= 1e-10
        U, s, V = U[:, keep], s[keep], Vt[keep].T
        classes = np.unique(y)
        Hb = np.stack([np.sqrt(np.sum(y == k)) * U[y == k].mean(axis=0) for k in classes])
        _, sb, Wt = np.linalg.svd(Hb, full_matrices=False)
        ok = sb >= self.hb_tol
        W = Wt[ok].T
        P = (V / s) @ W
        if self.scaling == "unit":
            P = _unit(P)
        self.mean_, self.P_ = mean, P[:, : len(classes) - 1]
        return self

    def transform(self, X):
        return (np.asarray(X, float) - self.mean_) @ self.P_


READINGS = {
    "R1_pca_n_minus_c": lambda: PcaLda("nc", "unit"),
    "R1s_pca_nc_lda_sklearnscal": lambda: PcaLda("nc", "lda"),
    "R2_sklearn_svd_raw": lambda: RawLda("svd", None, "lda"),
    "R2u_sklearn_svd_raw_unit": lambda: RawLda("svd", None, "unit"),
    "R3_pca_rank_lda": lambda: PcaLda("rank", "unit"),
    "R10_pca_min_nd_minus_c": lambda: PcaLda("mnc", "unit"),
    "R10b_pca_rank_minus_c1": lambda: PcaLda("rankc", "unit"),
    "R10b_fisherfaces": lambda: Fisherfaces(),  # locproj's: the same reading
    "R4_pca300_lda": lambda: PcaLda(300, "unit"),
    "R4_pca500_lda": lambda: PcaLda(500, "unit"),
    "R4_pca700_lda": lambda: PcaLda(700, "unit"),
    "R4_pca800_lda": lambda: PcaLda(800, "unit"),
    "R4_pca900_lda": lambda: PcaLda(900, "unit"),
    "R4_pca950_lda": lambda: PcaLda(950, "unit"),
    "R4_pca1000_lda": lambda: PcaLda(1000, "unit"),
    "R4_pca975_lda": lambda: PcaLda(975, "unit"),
    # R9: PCA dimension fixed at (CV-fold n) - c = c (0.8 m - 1), used in CV and refit
    "R9_pca874_lda": lambda: PcaLda(874, "unit"),   # m = 30
    "R9_pca570_lda": lambda: PcaLda(570, "unit"),   # m = 20
    "R9_pca266_lda": lambda: PcaLda(266, "unit"),   # m = 10
    "R5_shrinkage_lw": lambda: RawLda("eigen", "auto", "lda"),
    "R5u_shrinkage_lw_unit": lambda: RawLda("eigen", "auto", "unit"),
    "R6_cai_lda": lambda: CaiLda("unit"),
    "R7_pca90_lda": lambda: PcaLda(0.90, "unit"),
    "R7_pca95_lda": lambda: PcaLda(0.95, "unit"),
    "R7_pca97_lda": lambda: PcaLda(0.97, "unit"),
    "R7_pca98_lda": lambda: PcaLda(0.98, "unit"),
    "R7_pca99_lda": lambda: PcaLda(0.99, "unit"),
}


def p_limit(X, y):  # as the pipeline
    return max_components("lda", n_samples=len(X), n_classes=len(np.unique(y)), n_features=X.shape[1])


def main():
    dataset, m, splits = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    names = sys.argv[4:]
    lo, hi = (int(v) for v in splits.split("-"))
    data = read_dataset_file(DATA.format(dataset))
    sp = read_splits(SPLITS.format(dataset, m))
    out = open("lda_readings.jsonl", "a")
    with threadpool_limits(1):
        for name in names:
            for split in range(lo, hi + 1):
                tr, te = sp["train"][split], sp["test"][split]
                seed = derived_seed(20070620, "llp_table2", dataset, m, split) % 2**32
                t0 = time.perf_counter()
                r = run_split(data.X[tr], data.y[tr], data.X[te], data.y[te], method="lda",
                            new_estimator=lambda params, name=name: READINGS[name](), grid_spec=None, m=m,
                            p_max=300, p_limit=p_limit, classifier="1nn", n_folds=5, seed=seed)
                dt = time.perf_counter() - t0
                rec = dict(reading=name, dataset=dataset, m=m, split=split,
                           test_error=r.test_error, p=r.p, seconds=dt)
                out.write(json.dumps(rec) + "\n")
                out.flush()
                print(f"{name:32s} {dataset} m{m} s{split:02d} err={100*r.test_error:5.1f} p={r.p:3d} {dt:5.1f}s",
                      flush=True)


if __name__ == "__main__":
    main()
