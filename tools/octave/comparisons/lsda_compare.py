"""LSDA.m (Deng Cai) vs LocalitySensitiveDiscriminantAnalysis.

Backs the LSDA comparison table (identical vectors for beta in (0, 1) and k < n - 1) and the LSDA
departures (labelled L1-L5 in the NPE/LSDA/SRDA/LFDA comparison; not LPP's L1-L5): L1 (LSDA.m's
cut at eigenvalue < 1e-10: the columns it keeps against our negative eigenvalues), L2 (k >= n - 1
becomes all pairs in LSDA.m; ours raises for k >= n), L3 (beta outside (0, 1) becomes 0.1), L4
(degenerate clusters: k = 0, the 6-fold eigenvalue on ORL) and L5 (ev = lambda / (1 - beta)).

Prints one line per setting (columns, |cos| summary, principal angles, the eigenvalue mismatch
after scaling, how many of ours fall below LSDA.m's cut and below 0), the eigenvalues of the small
sets, the ORL counts around the cut, and the ORL columns with |cos| < 0.999 and their 2-dimensional
spans.

Usage: python lsda_compare.py
"""

import warnings

import numpy as np

from common_rest import fmt, octave, orl_split, principal_angles_deg, summary, synthetic
from locproj.methods import LocalitySensitiveDiscriminantAnalysis as LSDA

warnings.simplefilter("ignore")
np.set_printoptions(precision=4, linewidth=150)

CODE = """
options = struct(); options.k = double(k); options.beta = double(beta); options.ReducedDim = double(rdim);
[V, ev] = LSDA(y(:), options, X);
"""


def theirs(X, y, k, beta, rdim=10000):
    out, _ = octave(CODE, {"X": X, "y": y.astype(float), "k": k, "beta": beta, "rdim": rdim}, ["V", "ev"])
    return out["V"], out["ev"].ravel()


def ours(X, y, k, beta):
    est = LSDA(n_neighbors=k, beta=beta).fit(X, y)
    return est.components_, est.eigenvalues_


def row(label, X, y, k_theirs, beta_theirs, k_ours, beta_ours, ks=(1, 2, 5, 10, 20, 39), scale=None):
    V, ev = theirs(X, y, k_theirs, beta_theirs)
    P, lam = ours(X, y, k_ours, beta_ours)
    s, c = summary(V, P, ks)
    scale = 1.0 / (1.0 - beta_ours) if scale is None else scale
    p = min(len(ev), len(lam))
    s["max|ev-lam/(1-b)|/max|ev|"] = float(np.max(np.abs(ev[:p] - scale * lam[:p])) / np.max(np.abs(ev)))
    s["ours<1e-10 (after scaling)"] = int(np.sum(scale * lam < 1e-10))
    s["ours<0"] = int(np.sum(lam < 0))
    print(f"{label}: {fmt(s)}")
    return V, ev, P, lam, c


if __name__ == "__main__":
    X, y = synthetic(10, 3, 8, sep=0.7)  # overlapping classes: the kNN graph has between-class edges
    n = len(X)
    print("== synthetic 3x10, d=8, sep=0.7")
    V, ev, P, lam, c = row("k=5 beta=0.1", X, y, 5, 0.1, 5, 0.1)
    print("   theirs ev:", ev, "\n   ours lam/(1-beta):", lam / 0.9)
    row("k=5 beta=0.5", X, y, 5, 0.5, 5, 0.5)
    row("k=0 (all pairs) beta=0.1", X, y, 0, 0.1, 0, 0.1)
    row(f"theirs k=n-1={n-1} (-> 0), ours k=n-1", X, y, n - 1, 0.1, n - 1, 0.1)
    row(f"theirs k=n-1={n-1} (-> 0), ours k=0", X, y, n - 1, 0.1, 0, 0.1)
    row(f"theirs k=n={n} (-> 0), ours k=0", X, y, n, 0.1, 0, 0.1)
    try:
        LSDA(n_neighbors=n).fit(X, y)
    except ValueError as e:
        print(f"   ours k=n={n}: ValueError: {e}")
    row(f"theirs k=n-2={n-2} (kept), ours k=n-2", X, y, n - 2, 0.1, n - 2, 0.1)
    print("   beta outside (0,1): LSDA.m falls back to 0.1")
    row("theirs beta=0 (-> 0.1), ours beta=0", X, y, 5, 0.0, 5, 0.0, scale=1.0)
    row("theirs beta=0 (-> 0.1), ours beta=0.1", X, y, 5, 0.0, 5, 0.1)
    row("theirs beta=1 (-> 0.1), ours beta=0.1", X, y, 5, 1.0, 5, 0.1)
    Xs, ys = synthetic(5, 3, 20, seed=1, sep=0.7)
    print("== synthetic 3x5, d=20 (d > n)")
    V, ev, P, lam, c = row("k=3 beta=0.1", Xs, ys, 3, 0.1, 3, 0.1, ks=(1, 2, 5, 10, 14))
    print("   theirs ev:", ev, "\n   ours lam/(1-beta):", lam / 0.9)
    Xtr, ytr, Xte, yte = orl_split()
    print("== ORL 5/class (n=200, d=1024), seed 0")
    ks = (1, 2, 5, 10, 20, 39, 60, 80)
    for k in (5, 0):
        V, ev, P, lam, c = row(f"k={k} beta=0.1", Xtr, ytr, k, 0.1, k, 0.1, ks=ks)
        sc = lam / 0.9
        print(f"   theirs kept {len(ev)}, ours {len(lam)}; ours (scaled) >= 1e-10: {int(np.sum(sc >= 1e-10))}, "
              f"in (-1e-10,1e-10): {int(np.sum(np.abs(sc) < 1e-10))}, <= -1e-10: {int(np.sum(sc <= -1e-10))}")
        print("   theirs smallest kept ev:", ev[-3:], " ours scaled around the cut:", sc[len(ev) - 2:len(ev) + 3])
        print("   most negative ours scaled:", sc[-3:], "; |cos| first 10:", c[:10], " min over kept:", c.min())
    V, ev, P, lam, c = row("k=5 beta=0.1 (again)", Xtr, ytr, 5, 0.1, 5, 0.1, ks=ks)
    bad = np.flatnonzero(c < 0.999)
    print("   columns with |cos|<0.999:", bad, " their ev:", ev[bad])
    for i in bad:
        print(f"     col {i}: ev {ev[i]:.12g}; neighbours ev {ev[max(i-1,0)]:.12g} {ev[min(i+1,len(ev)-1)]:.12g};"
              f" angle of the 2-dim span [{i},{i+1}] or [{i-1},{i}]:",
              principal_angles_deg(V[:, [i - 1, i]], P[[i - 1, i]], 2).max(),
              principal_angles_deg(V[:, [i, i + 1]], P[[i, i + 1]], 2).max())
