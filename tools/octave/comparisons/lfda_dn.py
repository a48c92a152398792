"""LFDA with d > n: LFDA.m's eig(tSb, tSw) on a singular tSw vs our PCA + ridge; then both after PCA to n - c.

Skipped when LFDA_M is not set.  Backs LFDA departures F2 (on raw ORL and synthetic d > n data:
LFDA.m's columns lie mostly outside the data span; projected onto it, their first c - 1 span our
first c - 1) and F3 (the 1-NN accuracies of 'weighted', 'orthonormalized', 'plain' and ours after
a PCA to 160 and 100 dimensions), and the "after PCA" rows of the LFDA comparison table.

Prints, per data set, LFDA.m's column counts, the part of its leading columns inside the data span,
both quotients, ours, the principal angles, the rows after PCA (as lfda_compare.py) and the 1-NN
accuracies per p of every metric.

Usage: python lfda_dn.py
"""

import sys
import warnings

import numpy as np

from common import skipped
from common_rest import (LFDA_DIR, fmt, nn1_accuracy, octave, orl_split, principal_angles_deg, summary, synthetic,
                         unit_cols)
from lfda_compare import compare, scatters, theirs
from locproj.methods import LocalFisherDiscriminantAnalysis as LFDA

warnings.simplefilter("ignore")
np.set_printoptions(precision=4, linewidth=150)

EIG = """
Tp = LFDA(X', y(:), double(size(X,2)), 'plain', double(knn));
"""


def raw_case(label, X, y, knn):
    out, _ = octave(EIG, {"X": X, "y": y.astype(float), "knn": knn}, ["Tp"], extra_paths=[LFDA_DIR])
    Tp = out["Tp"]
    Sb, Sw = scatters(X, y, knn)
    fin = np.all(np.isfinite(Tp), axis=0)
    est = LFDA(n_neighbors=knn).fit(X, y)
    P, lam = est.components_, est.eigenvalues_
    n, c = len(y), len(np.unique(y))
    print(f"{label}: LFDA.m returned {Tp.shape[1]} columns, {int(fin.sum())} finite, first finite column index "
          f"{int(np.argmax(fin))}; rank of centred data {n-1}, of S_lw {np.linalg.matrix_rank(Sw)}")
    Tf = Tp[:, fin]
    # how much of each of their leading finite columns lies in the span of the centred data?
    U = np.linalg.svd((X - X.mean(0)).T, full_matrices=False)[0][:, :n - 1]
    share = np.linalg.norm(U.T @ unit_cols(Tf), axis=0)
    q_b = np.einsum("ij,ij->j", Tf, Sb @ Tf)
    q_w = np.einsum("ij,ij->j", Tf, Sw @ Tf)
    print(f"   their first 8 finite columns: norm of part in data span {share[:8]}")
    print(f"   t'S_lb t {q_b[:8]}\n   t'S_lw t {q_w[:8]}")
    print(f"   ours: {len(lam)} components, eigenvalues_[:{c+1}] {lam[:c+1]}; ridge used: "
          f"{getattr(est, 'regularized_', 'n/a')}")
    s, cc = summary(Tf, P, (1, 2, c - 1))
    print("   their finite columns vs ours:", fmt(s))
    Tin = U @ (U.T @ np.real(Tf[:, :c - 1]))  # their leading c-1 columns, out-of-span part removed
    print(f"   their first c-1={c-1} columns projected on the data span vs our first c-1: max principal angle "
          f"{principal_angles_deg(Tin, P, c - 1).max():.3g} deg; their t'S_lw t / t'S_lb t (max over these) "
          f"{np.max(np.abs(np.real(q_w[:c-1]) / np.real(q_b[:c-1]))):.2e}")
    return Tp, P, lam


def pca(Xtr, m):
    mu = Xtr.mean(0)
    U = np.linalg.svd(Xtr - mu, full_matrices=False)[2][:m].T
    return lambda Z: (Z - mu) @ U


if __name__ == "__main__":
    if LFDA_DIR is None:
        skipped("the LFDA comparison with d > n", "LFDA_M", "Sugiyama's LFDA.m")
        sys.exit(0)
    Xs, ys = synthetic(5, 3, 20, seed=1, sep=0.7)
    print("== synthetic 3x5, d=20, kNN=4 (= nc - 1)")
    raw_case("raw", Xs, ys, 4)
    f = pca(Xs, 15 - 3)
    compare("after PCA to n-c=12", f(Xs), ys, 4, 4, ks=(1, 2, 5, 12))
    Xtr, ytr, Xte, yte = orl_split()
    print("== ORL 5/class, kNN=4 (default 7 fails: class size 5)")
    try:
        theirs(Xtr[:, :50], ytr, 7)
    except RuntimeError as e:
        print("   LFDA.m kNN=7 on ORL:", [line for line in str(e).splitlines() if "error" in line.lower()][:1])
    Tp, P, lam = raw_case("raw d=1024", Xtr, ytr, 4)
    for m in (160, 100):
        f = pca(Xtr, m)
        Ztr, Zte = f(Xtr), f(Xte)
        Tp, Tw, To, P, lam, lam_t = compare(f"after PCA to {m}", Ztr, ytr, 4, 4, ks=(1, 2, 5, 10, 20, 39))
        if np.iscomplexobj(Tw):
            bad_w = int(np.sum(~np.all(np.isfinite(np.real(Tw)), 0))) + int(np.sum(np.any(np.imag(Tw) != 0, 0)))
        else:
            bad_w = int(np.sum(~np.all(np.isfinite(Tw), 0)))
        print(f"   eigenvalues: ours min {lam.min():.4g}, negative: {int(np.sum(lam < 0))}; their 'weighted' columns "
              f"complex/NaN: {bad_w}")
        Pc = LFDA(n_neighbors=4, column_scaling="constraint").fit(Ztr, ytr)
        mu = Ztr.mean(0)
        res = {}
        for name, T in {"LFDA.m weighted": np.real(Tw), "LFDA.m orthonormalized": To, "LFDA.m plain": Tp,
                        "ours unit": P.T, "ours constraint (=plain)": Pc.components_.T}.items():
            res[name] = {p: nn1_accuracy((Ztr - mu) @ T[:, :p], ytr, (Zte - mu) @ T[:, :p], yte)
                         for p in (5, 10, 20, 39, 60)}
        for name, r in res.items():
            print(f"   1-NN {name}: {r}")
