"""NPE.m vs ours with reg_mode='auto' (no counterpart in NPE.m), on ORL.

Backs NPE departure D1 (its last point: reg_mode='auto' moves the directions after column 39 by
81-87 degrees, while 1-NN hardly moves) and the three ORL "Supervised k=4" rows of the NPE table
(reg = 1e-12, 1e-3 and 'auto').

Prints, per setting, the |cos| summary and principal angles against NPE.m, |cos| of columns 40-49,
the eigenvalue difference over NPE.m's 97 columns and our 1-NN accuracy at p = 60 and 97.

Usage: python npe_auto.py
"""

import warnings

import numpy as np

from common_rest import fmt, nn1_accuracy, orl_split, summary
from locproj.methods import LocallyEmbeddedAnalysis
from npe_compare import theirs

warnings.simplefilter("ignore")
Xtr, ytr, Xte, yte = orl_split()
V, ev = theirs(Xtr, ytr, 4, True)
for kw in ({"reg": 1e-12, "reg_mode": "trace"}, {"reg": 1e-3, "reg_mode": "trace"}, {"reg_mode": "auto"}):
    est = LocallyEmbeddedAnalysis(n_neighbors=4, mode="d_to_d", supervised=True, **kw).fit(Xtr, ytr)
    P, lam = est.components_, est.eigenvalues_
    s, c = summary(V, P, (39, 40, 45, 50, 60, 97))
    Ztr, Zte = est.transform(Xtr), est.transform(Xte)
    print(f"ORL sup k=4, ours {kw}: {fmt(s)}; |cos| cols 40-49: {np.round(c[39:49], 4)}; "
          f"max|1-lam - ev| over 97: {np.max(np.abs(1 - lam[:97] - ev)):.3g}; "
          f"1-NN p=60: {nn1_accuracy(Ztr[:, :60], ytr, Zte[:, :60], yte)}, "
          f"p=97: {nn1_accuracy(Ztr[:, :97], ytr, Zte[:, :97], yte)}")
