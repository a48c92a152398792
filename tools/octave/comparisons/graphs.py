"""constructW.m (Deng Cai's toolbox) against our LPP graph (locproj.core.neighbor_graphs), option by option.

Backs section 0 of the LPP / OLPP / kernel LPP comparison (the graph all three share) and the LPP
departures L2 (heat width: gamma = 2 t^2, the "gamma=t (wrong map)" rows), L3 (default heat width:
their default t against ours, and against gamma = 2 t_cai^2) and L4 (default graph: the option map),
on the synthetic sets and ORL with 5 images per class; the last row of each set shows the self-loops
of bSelfConnected=1, which has no counterpart (section 0).

Prints, per data set and case, max |W_theirs - W_ours|, the number of edges that differ and the
largest diagonal entry of their W.

Usage: python graphs.py
"""

import numpy as np
from scipy.spatial.distance import pdist

from common_lpp import face_split, our_W, run_octave, synthetic

datasets = {
    "syn 3x10x8": synthetic(3, 10, 8, seed=0),
    "syn d>n 3x5x40": synthetic(3, 5, 40, seed=1),
    "ORL 5/class": face_split("orl", 5, 0),
}

t_syn = 3.0
cases, labels, ours = [], [], []
for dname, (X, y) in datasets.items():
    t = t_syn if dname.startswith("syn") else 2000.0
    configs = [
        ("Supervised k=0 Binary", dict(NeighborMode="Supervised", gnd=y, WeightMode="Binary", k=0.0),
         dict(n_neighbors="all", weight="binary", gamma=None, supervised=True)),
        ("Supervised k=0 Heat t", dict(NeighborMode="Supervised", gnd=y, WeightMode="HeatKernel", k=0.0, t=t),
         dict(n_neighbors="all", weight="heat", gamma=2 * t * t, supervised=True)),
        ("Supervised k=3 Binary", dict(NeighborMode="Supervised", gnd=y, WeightMode="Binary", k=3.0),
         dict(n_neighbors=3, weight="binary", gamma=None, supervised=True)),
        ("Supervised k=3 Heat t", dict(NeighborMode="Supervised", gnd=y, WeightMode="HeatKernel", k=3.0, t=t),
         dict(n_neighbors=3, weight="heat", gamma=2 * t * t, supervised=True)),
        ("KNN k=5 Binary", dict(NeighborMode="KNN", WeightMode="Binary", k=5.0),
         dict(n_neighbors=5, weight="binary", gamma=None, supervised=False)),
        ("KNN k=5 Heat t", dict(NeighborMode="KNN", WeightMode="HeatKernel", k=5.0, t=t),
         dict(n_neighbors=5, weight="heat", gamma=2 * t * t, supervised=False)),
        ("KNN k=5 Heat t, gamma=t (wrong map)", dict(NeighborMode="KNN", WeightMode="HeatKernel", k=5.0, t=t),
         dict(n_neighbors=5, weight="heat", gamma=t, supervised=False)),
        ("KNN k=5 Heat default t vs our default", dict(NeighborMode="KNN", WeightMode="HeatKernel", k=5.0),
         dict(n_neighbors=5, weight="heat", gamma=None, supervised=False)),
        ("KNN k=5 Heat default t vs gamma=2*mean(dist)^2",
         dict(NeighborMode="KNN", WeightMode="HeatKernel", k=5.0),
         dict(n_neighbors=5, weight="heat", gamma="auto_cai", supervised=False)),
        ("Supervised k=0 Heat default t vs our default",
         dict(NeighborMode="Supervised", gnd=y, WeightMode="HeatKernel"),
         dict(n_neighbors="all", weight="heat", gamma=None, supervised=True)),
        ("KNN k=5 Binary bSelfConnected=1", dict(NeighborMode="KNN", WeightMode="Binary", k=5.0, bSelfConnected=1.0),
         dict(n_neighbors=5, weight="binary", gamma=None, supervised=False)),
    ]
    for name, wopts, oopts in configs:
        if oopts["gamma"] == "auto_cai":
            # their default t: the mean of all n^2 Euclidean distances (zero diagonal included)
            n = len(X)
            tc = pdist(X).sum() * 2 / n**2
            oopts = dict(oopts, gamma=2 * tc * tc)
        cases.append(dict(fea=X, method="W", wopts=wopts, mopts={}))
        labels.append((dname, name))
        ours.append(our_W(X, y, **oopts))

res = run_octave(cases, tag="graphs")
print(f"{'data':16s} {'case':48s} {'max|dW|':>10s} {'edges differ':>12s} {'diag theirs':>11s}")
for (dname, name), r, Wo in zip(labels, res, ours):
    if not r["ok"]:
        print(dname, name, "ERROR", r["err"])
        continue
    Wt = r["W"]
    dW = np.abs(Wt - Wo)
    edges = int(np.sum((Wt != 0) != (Wo != 0)))
    print(f"{dname:16s} {name:48s} {dW.max():10.2e} {edges:12d} {np.abs(np.diag(Wt)).max():11.3g}")
