"""Why k=0 on synthetic 3x10, d=8 disagrees: 9 class mates in 8 dims reconstruct every point exactly.

Backs the "syn 3x10, d=8, k=0" row of the NPE comparison table: every eigenvalue is about 0, so any
basis is optimal (no departure).

Prints our eigenvalues and NPE.m's (1 - ours).

Usage: python npe_k0_check.py
"""

import warnings

import numpy as np

from common_rest import synthetic
from locproj.methods import LocallyEmbeddedAnalysis
from npe_compare import theirs

warnings.simplefilter("ignore")
np.set_printoptions(precision=3, linewidth=150)
X, y = synthetic(10, 3, 8)
lam = LocallyEmbeddedAnalysis(n_neighbors="all", reg=1e-12).fit(X, y).eigenvalues_
V, ev = theirs(X, y, 0, True)
print("ours eigenvalues:", lam)
print("NPE.m eigenvalues (1 - ours):", ev)
