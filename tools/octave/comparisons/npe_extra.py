"""NPE extras: k=0 on a non-degenerate synthetic set, ReducedDim=0 / default, reg effect on ORL 1-NN.

Backs NPE departures D1 (ORL 1-NN accuracy for reg = 1e-12 and 1e-3, and how far the LLE weights
move), D2 (our 1-NN after NPE.m's 97 columns), D3 (NPE.m's 1-NN with its arbitrary cluster basis)
and D4 (NPE.m returns 30 columns by default and none with ReducedDim=0), and the "syn 3x6" k=0 row
of the NPE table.

Prints the synthetic rows (as npe_compare.py), the column counts per ReducedDim, the 1-NN accuracies
per p for ours (both reg) and NPE.m, and the differences between the two sets of LLE weights.

Usage: python npe_extra.py
"""

import warnings

import numpy as np

from common_rest import nn1_accuracy, octave, orl_split, synthetic, unit_cols
from locproj.methods import LocallyEmbeddedAnalysis
from locproj.core.neighbor_graphs import kneighbors
from locproj.core.reconstruction_weights import lle_weights
from npe_compare import row, theirs

warnings.simplefilter("ignore")
np.set_printoptions(precision=4, linewidth=150)

X, y = synthetic(6, 3, 8)
print("== synthetic 3x6, d=8: k=0 (5 class mates < d)")
V, ev, P, lam, c = row("sup k=0, ours 'all' reg=1e-12", X, y, 0, True, 1e-12, ks=(1, 2, 3, 5, 8))
print("   ours lam:", lam, "\n   theirs ev:", ev, "\n   |cos|:", c)
V, ev, P, lam, c = row("sup k=3, ours reg=1e-12", X, y, 3, True, 1e-12, ks=(1, 2, 3, 5, 8))

print("== ReducedDim: default (field absent) and 0, synthetic 3x10 d=8 sup k=5")
X, y = synthetic(10, 3, 8)
NPE_N = ("options = struct(); options.k = {k}; options.NeighborMode='Supervised'; options.gnd = y(:); {extra}"
         "[V, ev] = NPE(options, X); n = size(V,2) + 0;")
for code in [NPE_N.format(k=5, extra=""), NPE_N.format(k=5, extra="options.ReducedDim = 0; ")]:
    out, _ = octave(code, {"X": X, "y": y.astype(float)}, ["n"])
    print("   columns returned:", int(np.ravel(out["n"])[0]), "<-",
          ("ReducedDim=0" if "ReducedDim" in code else "ReducedDim absent (default 30)"))
Xtr, ytr, Xte, yte = orl_split()
out, _ = octave(NPE_N.format(k=4, extra=""), {"X": Xtr, "y": ytr.astype(float)}, ["n"])
print("   ORL, default ReducedDim: columns returned:", int(np.ravel(out["n"])[0]))

print("== ORL: effect of reg (1e-12 as NPE.m vs our default 1e-3) on 1-NN test accuracy (ours, unit columns)")
for reg in (1e-12, 1e-3):
    est = LocallyEmbeddedAnalysis(n_neighbors=4, reg=reg, mode="d_to_d", supervised=True).fit(Xtr, ytr)
    Ztr, Zte = est.transform(Xtr), est.transform(Xte)
    accs = {p: nn1_accuracy(Ztr[:, :p], ytr, Zte[:, :p], yte) for p in (10, 39, 50, 60, 80, 97, 120, 150, 199)}
    print(f"   reg={reg:g}:", {p: round(a, 3) for p, a in accs.items()})
V, ev = theirs(Xtr, ytr, 4, True)
Vu = unit_cols(V)
accs = {p: nn1_accuracy((Xtr - Xtr.mean(0)) @ Vu[:, :p], ytr, (Xte - Xtr.mean(0)) @ Vu[:, :p], yte)
        for p in (10, 39, 50, 60, 80, 97)}
print("   NPE.m (unit columns as returned):", {p: round(a, 3) for p, a in accs.items()})
# weights: how different are the LLE weights?
nb = kneighbors(Xtr, 4, ytr)
W12, W3 = lle_weights(Xtr, nb, reg=1e-12), lle_weights(Xtr, nb, reg=1e-3)
D = (W12 - W3).toarray()
print("   ORL LLE weights: max|w(1e-12) - w(1e-3)| =", np.abs(D).max(), " median row L1 diff =",
      np.median(np.abs(D).sum(1)), " max|w| (1e-12) =", np.abs(W12.data).max(), " (1e-3) =", np.abs(W3.data).max())
