"""NPE.m (Deng Cai) vs LocallyEmbeddedAnalysis(mode='d_to_d').

Backs the NPE comparison table (the same problem to rounding with reg = NPE.m's tol and the same
neighbour mode) and NPE departures D1 (the default ridge 1e-3 against NPE.m's 1e-12 when k <= d),
D2 (NPE.m's final cut: "ours_dropped_by_cut"), D3 (the degenerate (c-1)-fold cluster on ORL: same
span, different columns) and D5 (KNN mode: directed kNN, all 90 ORL columns equal).

Prints one line per setting (columns, |cos| summary, principal angles of the first K columns,
max|ev - (1 - lambda)|, how many of ours NPE.m's cut would drop) on synthetic data and ORL, with
the ORL details (columns kept, |cos| inside the cluster, eigenvalues).

Usage: python npe_compare.py
"""

import warnings

import numpy as np

from common_rest import fmt, octave, orl_split, summary, synthetic
from locproj.methods import LocallyEmbeddedAnalysis

warnings.simplefilter("ignore")

NPE_CODE = """
options = struct(); options.k = double(k); options.ReducedDim = double(rdim);
if mode == 1, options.NeighborMode = 'Supervised'; options.gnd = y(:); else, options.NeighborMode = 'KNN'; end
[V, ev] = NPE(options, X);
"""


def theirs(X, y, k, supervised, rdim=10000):
    out, _ = octave(NPE_CODE, {"X": X, "y": y.astype(float), "k": k, "mode": int(supervised), "rdim": rdim},
                    ["V", "ev"])
    return out["V"], out["ev"].ravel()


def ours(X, y, k, supervised, reg):
    est = LocallyEmbeddedAnalysis(n_neighbors=("all" if k == 0 else k), reg=reg, reg_mode="trace",
                                  mode="d_to_d", supervised=supervised).fit(X, y)
    return est.components_, est.eigenvalues_


def row(label, X, y, k, supervised, reg, rdim=10000, ks=(1, 2, 5, 10, 20, 39)):
    V, ev = theirs(X, y, k, supervised, rdim)
    P, lam = ours(X, y, k, supervised, reg)
    s, c = summary(V, P, ks)
    p = min(len(ev), len(lam))
    mapped = 1.0 - lam  # theirs maximise a'X'(I-M)Xa / a'X'Xa
    n_dropped = int(np.sum(mapped < 1e-10))
    s["max|ev-(1-lam)|"] = float(np.max(np.abs(ev[:p] - mapped[:p]))) if p else np.nan
    s["ours_dropped_by_cut"] = n_dropped
    print(f"{label}: {fmt(s)}")
    return V, ev, P, lam, c


if __name__ == "__main__":
    np.set_printoptions(precision=4, suppress=False, linewidth=150)
    X, y = synthetic(10, 3, 8)
    print("== synthetic 3x10, d=8 (n > d): NPE tol = 1e-12 since k <= d")
    row("sup k=5, ours reg=1e-12", X, y, 5, True, 1e-12)
    row("sup k=5, ours reg=1e-3 (default)", X, y, 5, True, 1e-3)
    row("KNN k=5, ours supervised=False reg=1e-12", X, y, 5, False, 1e-12)
    row("sup k=0 (all in class), ours 'all' reg=1e-12", X, y, 0, True, 1e-12)
    X4 = X[:, :4]
    print("== synthetic 3x10, d=4 < k=5: NPE switches to tol = 1e-3")
    row("sup k=5 d=4, ours reg=1e-3", X4, y, 5, True, 1e-3)
    row("sup k=5 d=4, ours reg=1e-12", X4, y, 5, True, 1e-12)
    Xs, ys = synthetic(5, 3, 20, seed=1)
    print("== synthetic 3x5, d=20 (d > n): PCA route of LGE")
    row("sup k=3, ours reg=1e-12", Xs, ys, 3, True, 1e-12, ks=(1, 2, 5, 10, 14))
    row("sup k=3, ours reg=1e-3 (default)", Xs, ys, 3, True, 1e-3, ks=(1, 2, 5, 10, 14))
    row("KNN k=3, ours reg=1e-12", Xs, ys, 3, False, 1e-12, ks=(1, 2, 5, 10, 14))
    Xtr, ytr, Xte, yte = orl_split()
    print("== ORL 5/class (n=200, d=1024), seed 0")
    ks = (1, 2, 5, 10, 20, 39, 60, 100, 150)
    V, ev, P, lam, c = row("sup k=4, ours reg=1e-12", Xtr, ytr, 4, True, 1e-12, ks=ks)
    print("   theirs kept", len(ev), "of", len(lam), "; ours eigenvalues >= 1 - 1e-10:", int(np.sum(1 - lam < 1e-10)),
          "; ours lam range of the dropped:", lam[1 - lam < 1e-10][[0, -1]] if np.any(1 - lam < 1e-10) else None)
    print("   first 8 |cos|:", c[:8], " last 5 of common:", c[-5:])
    print("   theirs ev[:5]", ev[:5], " 1-ours[:5]", 1 - lam[:5])
    row("sup k=4, ours reg=1e-3 (default)", Xtr, ytr, 4, True, 1e-3, ks=ks)
    row("KNN k=5, ours supervised=False reg=1e-12", Xtr, ytr, 5, False, 1e-12, ks=ks)
    V, ev, P, lam, c = row("sup k=0 (all), ours 'all' reg=1e-12", Xtr, ytr, 0, True, 1e-12, ks=ks)
    print("   first 42 |cos| (39 = c-1 degenerate cluster):", c[:42])
    print("   ours lam[:41]:", lam[:41])
