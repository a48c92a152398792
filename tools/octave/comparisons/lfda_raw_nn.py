"""ORL raw pixels (d=1024 > n=200): 1-NN with LFDA.m's leading columns (unit-normalised) vs ours.

Skipped when LFDA_M is not set.  Backs LFDA departure F2 (raw-ORL 1-NN: LFDA.m's columns as
returned, with their out-of-span part removed, and ours).

Prints the 1-NN accuracy with the first p = 5, 10, 20, 39, 60 columns of each.

Usage: python lfda_raw_nn.py
"""

import sys
import warnings

import numpy as np

from common import skipped
from common_rest import LFDA_DIR, nn1_accuracy, octave, orl_split, unit_cols
from locproj.methods import LocalFisherDiscriminantAnalysis as LFDA

warnings.simplefilter("ignore")
if LFDA_DIR is None:
    skipped("the LFDA comparison on raw ORL", "LFDA_M", "Sugiyama's LFDA.m")
    sys.exit(0)
Xtr, ytr, Xte, yte = orl_split()
out, _ = octave("Tp = LFDA(X', y(:), double(size(X,2)), 'plain', 4);", {"X": Xtr, "y": ytr.astype(float)}, ["Tp"],
                extra_paths=[LFDA_DIR])
T = unit_cols(np.real(out["Tp"]))
U = np.linalg.svd((Xtr - Xtr.mean(0)).T, full_matrices=False)[0][:, :199]
Tin = unit_cols(U @ (U.T @ T))
P = LFDA(n_neighbors=4).fit(Xtr, ytr).components_.T
mu = Xtr.mean(0)
for name, M in {"LFDA.m raw (unit cols)": T, "LFDA.m raw, out-of-span part removed": Tin, "ours raw (unit)": P}.items():
    print(name, {p: nn1_accuracy((Xtr - mu) @ M[:, :p], ytr, (Xte - mu) @ M[:, :p], yte)
                 for p in (5, 10, 20, 39, 60)})
