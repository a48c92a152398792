"""LPP: Deng Cai's constructW + LPP.m (+ LGE.m, mySVD.m) against LocalityPreservingProjection.

Equivalent settings: NeighborMode='Supervised' (k=0) <-> supervised=True, n_neighbors='all';
NeighborMode='Supervised', k>0 <-> supervised=True, n_neighbors=k; NeighborMode='KNN', k <->
supervised=False, n_neighbors=k; WeightMode='HeatKernel', t <-> weight='heat', gamma=2 t^2;
'Binary' <-> weight='binary'; ReducedDim large (theirs defaults to 30); column_scaling='unit'.
Their eigenvalues beta (max  a'X'WXa / a'X'DXa) map to ours as lambda = 1 - beta.

Backs the LPP comparison table (equal to rounding under equivalent settings, on syn 3x10x8, syn d>n
3x5x40 and ORL with 5 images per class) and LPP departure L1 (their column count against ours with
lambda > 0.999) and L5 (the degenerate clusters, same span, different basis).

Prints one line per data set and graph (columns theirs / ours, eigenvalue differences, 1 - |cos|,
clusters, principal angles, our count above their cut), then the markdown table of the comparison.

Usage: python lpp_compare.py [--lead N]
"""

import sys
import warnings

import numpy as np

from common_lpp import compare, face_split, fmt, md_header, md_row, run_octave, synthetic
from locproj.methods import LocalityPreservingProjection

LEAD = int(sys.argv[sys.argv.index("--lead") + 1]) if "--lead" in sys.argv else 10

datasets = {
    "syn 3x10x8": (synthetic(3, 10, 8, seed=0), 3.0),
    "syn d>n 3x5x40": (synthetic(3, 5, 40, seed=1), 6.0),
    "ORL 5/class": (face_split("orl", 5, 0), 1000.0),
}


def configs(y, t):
    return [
        ("Sup k=0 Binary", dict(NeighborMode="Supervised", gnd=y, WeightMode="Binary", k=0.0),
         dict(n_neighbors="all", weight="binary", supervised=True)),
        ("Sup k=0 Heat", dict(NeighborMode="Supervised", gnd=y, WeightMode="HeatKernel", k=0.0, t=t),
         dict(n_neighbors="all", weight="heat", gamma=2 * t * t, supervised=True)),
        ("Sup k=3 Heat", dict(NeighborMode="Supervised", gnd=y, WeightMode="HeatKernel", k=3.0, t=t),
         dict(n_neighbors=3, weight="heat", gamma=2 * t * t, supervised=True)),
        ("Sup k=3 Binary", dict(NeighborMode="Supervised", gnd=y, WeightMode="Binary", k=3.0),
         dict(n_neighbors=3, weight="binary", supervised=True)),
        ("KNN k=5 Heat", dict(NeighborMode="KNN", WeightMode="HeatKernel", k=5.0, t=t),
         dict(n_neighbors=5, weight="heat", gamma=2 * t * t, supervised=False)),
        ("KNN k=5 Binary", dict(NeighborMode="KNN", WeightMode="Binary", k=5.0),
         dict(n_neighbors=5, weight="binary", supervised=False)),
    ]


def main():
    cases, meta = [], []
    for dname, ((X, y), t) in datasets.items():
        for cname, wopts, oopts in configs(y, t):
            cases.append(dict(fea=X, method="LPP", wopts=wopts, mopts=dict(ReducedDim=10000.0)))
            meta.append((dname, cname, X, y, oopts))
    res = run_octave(cases, tag="lpp")
    rows = []
    for (dname, cname, X, y, oopts), r in zip(meta, res):
        if not r["ok"]:
            print(dname, cname, "their ERROR:", r["err"])
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = LocalityPreservingProjection(**oopts).fit(X, y if oopts["supervised"] else None)
        P = est.components_.T
        lam_t = 1 - r["e"]
        c = compare(r["V"], lam_t, P, est.eigenvalues_, lead=LEAD)
        n_cut = int(np.sum(est.eigenvalues_ > 1 - 1e-3))
        print(f"{dname:15s} {cname:15s} {fmt(c, LEAD)}; ours with lambda > 0.999 (their cut): {n_cut}")
        rows.append(md_row(dname, cname, c))
    print()
    print(md_header(LEAD))
    print("\n".join(rows))
    return rows


if __name__ == "__main__":
    main()
