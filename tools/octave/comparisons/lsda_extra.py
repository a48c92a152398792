"""LSDA extras: the degenerate cluster on ORL, near-zero eigenvalues cut, 1-NN with/without the cut directions.

Backs the LSDA departures (the NPE/LSDA/SRDA/LFDA comparison's labels, not LPP's): L1 (1-NN of ours
with and without the 30 directions LSDA.m cuts on ORL; with d > n and no between-class edge the cut
also removes exact zeros) and L4 (the span of the 6-fold eigenvalue cluster on ORL agrees).

Prints the cluster's columns and principal angles, the points without a between-class edge, the
1-NN accuracies per p of ours and LSDA.m, and the well-separated d > n row with both eigenvalue
lists.

Usage: python lsda_extra.py
"""

import warnings

import numpy as np

from common_rest import nn1_accuracy, orl_split, principal_angles_deg, synthetic, unit_cols
from locproj.core.class_graphs import lsda_graphs
from locproj.methods import LocalitySensitiveDiscriminantAnalysis as LSDA
from lsda_compare import ours, row, theirs

warnings.simplefilter("ignore")
np.set_printoptions(precision=4, linewidth=150)

Xtr, ytr, Xte, yte = orl_split()
V, ev = theirs(Xtr, ytr, 5, 0.1)
P, lam = ours(Xtr, ytr, 5, 0.1)
cl = np.flatnonzero(np.abs(lam - 0.02) < 1e-9)
print("ORL k=5: ours eigenvalues equal to 0.02 at columns", cl)
print("  max principal angle of that cluster's span, theirs vs ours (deg):",
      principal_angles_deg(V[:, cl], P[cl], len(cl)).max())
print("  max principal angle of the 169 kept columns' span:", principal_angles_deg(V, P, 169).max())
Ww, Wb = lsda_graphs(Xtr, ytr, 5)
deg_b = np.asarray(Wb.sum(1)).ravel()
deg_w = np.asarray(Ww.sum(1)).ravel()
print("  points with no between-class edge:", int(np.sum(deg_b == 0)),
      "; within-class degree (incl. self) of those with degree 1:", int(np.sum(deg_w == 1)))
print("== 1-NN accuracy (ORL test, ours unit columns) with the first p columns; theirs stop at", len(ev))
est = LSDA(n_neighbors=5, beta=0.1).fit(Xtr, ytr)
Ztr, Zte = est.transform(Xtr), est.transform(Xte)
print("  ours:", {p: nn1_accuracy(Ztr[:, :p], ytr, Zte[:, :p], yte) for p in (10, 39, 60, 100, 150, 169, 199)})
Vu = unit_cols(V)
m = Xtr.mean(0)
print("  LSDA.m:", {p: nn1_accuracy((Xtr - m) @ Vu[:, :p], ytr, (Xte - m) @ Vu[:, :p], yte)
                  for p in (10, 39, 60, 100, 150, 169)})
print("== d > n with well-separated classes (no between-class edge): near-zero eigenvalues are cut too")
Xs, ys = synthetic(5, 3, 20, seed=1, sep=3.0)
V, ev, P, lam, c = row("k=3 beta=0.1 sep=3", Xs, ys, 3, 0.1, 3, 0.1, ks=(1, 2, 5))
print("   theirs ev:", ev, "\n   ours lam/(1-beta):", lam / 0.9)
