"""LFDA eigenvalue spread after PCA to 160 / 100 on ORL (why 'weighted' and 'plain' 1-NN collapse at 160).

Backs LFDA departure F3 (at PCA-160 S_lw is nearly singular: lambda_1 = 2.1e7 and the first 'plain'
column dominates the distances).  Runs ours only (no Octave), so it runs without LFDA_M too.

Prints, per PCA dimension, our leading, 39th-41st and last eigenvalues and the norms of the
'constraint' (= LFDA.m 'plain') columns.

Usage: python lfda_eigs.py
"""

import warnings

import numpy as np

from common_rest import orl_split
from lfda_dn import pca
from locproj.methods import LocalFisherDiscriminantAnalysis as LFDA

warnings.simplefilter("ignore")
np.set_printoptions(precision=3, linewidth=150)
Xtr, ytr, Xte, yte = orl_split()
for m in (160, 100):
    f = pca(Xtr, m)
    est = LFDA(n_neighbors=4, column_scaling="constraint").fit(f(Xtr), ytr)
    lam = est.eigenvalues_
    nrm = np.linalg.norm(est.components_, axis=1)
    print(f"PCA {m}: eigenvalues first 5 {lam[:5]}, 39-41 {lam[38:41]}, last {lam[-1]:.3g}; "
          f"'plain' column norms first 3 {nrm[:3]}, median {np.median(nrm):.3g}")
