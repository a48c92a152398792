"""Minimal cases for kNN tie-breaking and duplicate points: constructW.m vs our graph.

Backs section 0 of the LPP / OLPP / kernel LPP comparison ("Ties and duplicates": the same
lowest-index tie-breaking; three coincident points with k = 1 the only, harmless, difference); no
departure label.

1. Points at integer positions on a line (exact distance ties; EuDist2's |a|^2+|b|^2-2ab is exact
   on small integers), in index order and in a shuffled order.
2. Coincident points: a point with two exact copies, k = 1 and k = 2.

Prints, per case, the number of edges (pairs) that differ and both degree sequences, and the
differing pairs where there are any.

Usage: python graphs_ties.py
"""

import numpy as np

from common_lpp import our_W, run_octave

rng = np.random.default_rng(0)
line = np.arange(10, dtype=float)[:, None] * np.array([[1.0, 2.0]])  # 10 points on a line in 2-D
perm = rng.permutation(10)
dup = np.array([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [5.0, 1.0], [6.0, 3.0], [9.0, 0.0]])
y_line = np.array([1] * 5 + [2] * 5)

tests = [
    ("line, index order, KNN k=3", line, None, 3),
    ("line, shuffled, KNN k=3", line[perm], None, 3),
    ("line, index order, KNN k=1", line, None, 1),
    ("line, supervised k=1 (ties inside class)", line, y_line, 1),
    ("3 coincident points + 3, KNN k=1", dup, None, 1),
    ("3 coincident points + 3, KNN k=2", dup, None, 2),
]
cases, ours = [], []
for name, X, y, k in tests:
    if y is None:
        wopts = dict(NeighborMode="KNN", WeightMode="Binary", k=float(k))
    else:
        wopts = dict(NeighborMode="Supervised", gnd=y, WeightMode="Binary", k=float(k))
    cases.append(dict(fea=X, method="W", wopts=wopts, mopts={}))
    ours.append(our_W(X, y, n_neighbors=k, weight="binary", gamma=None, supervised=y is not None))
res = run_octave(cases, tag="ties")
for (name, X, y, k), r, Wo in zip(tests, res, ours):
    Wt = r["W"]
    diff = np.argwhere((Wt != 0) != (Wo != 0))
    print(f"{name:45s} edges differ: {len(diff)//2:3d} (pairs); degree theirs {Wt.sum(1).astype(int).tolist()} "
          f"ours {Wo.sum(1).astype(int).tolist()}")
    if len(diff):
        print("   pairs only in theirs:", [tuple(p) for p in np.argwhere((Wt != 0) & (Wo == 0)) if p[0] < p[1]],
              " only in ours:", [tuple(p) for p in np.argwhere((Wo != 0) & (Wt == 0)) if p[0] < p[1]])
