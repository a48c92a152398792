"""SR.m's LSQR branch: lsqr2(data, Y, ReguAlpha, nRepeat) uses damp = ReguAlpha, i.e. the ridge ReguAlpha^2.

Backs SRDA departure S2: SR.m forced into LSQR (options.LSQR=1, MAX_MATRIX_SIZE=1) agrees with the
ridge alpha^2, its normal equations with the ridge alpha, and our solver='lsqr' with the ridge alpha.

Prints, per data set, alpha and nRepeat, the smallest |cos| of SR.m's LSQR columns against ridge(alpha)
and ridge(alpha^2) and of its normal-equation columns against ridge(alpha); then ours against ridge(alpha).

Usage: python srda_lsqr.py
"""

import warnings

import numpy as np

import locproj.methods.srda as srda_mod
from common_rest import col_cosines, octave, orl_split, synthetic, unit_cols
from locproj.methods import SpectralRegressionDiscriminantAnalysis as SRDA

warnings.simplefilter("ignore")

CODE = """
opt = struct(); opt.ReguAlpha = double(alpha); opt.LSQR = 1; opt.MAX_MATRIX_SIZE = 1; opt.nRepeat = double(nrep);
Vl = SR(opt, Y, Xc);
opt2 = struct(); opt2.ReguAlpha = double(alpha);
Vn = SR(opt2, Y, Xc);
"""


def ridge_unit(Xc, Y, lam):
    A = np.linalg.solve(Xc.T @ Xc + lam * np.eye(Xc.shape[1]), Xc.T @ Y)
    return unit_cols(A)


for name, (X, y) in {"synthetic 3x10 d=8": synthetic(10, 3, 8, sep=0.7), "ORL 5/class": orl_split()[:2]}.items():
    Xc = X - X.mean(0)
    Y = srda_mod.srda_responses(np.unique(y, return_inverse=True)[1], len(np.unique(y)))
    alphas = (10.0, 1e3) if name.startswith("syn") else (1e3, 1e5)
    for alpha in alphas:
        for nrep in (20, 2000):
            out, _ = octave(CODE, {"Xc": Xc, "Y": Y, "alpha": alpha, "nrep": nrep}, ["Vl", "Vn"])
            Vl, Vn = out["Vl"], out["Vn"]
            c_a = col_cosines(Vl, ridge_unit(Xc, Y, alpha).T)
            c_a2 = col_cosines(Vl, ridge_unit(Xc, Y, alpha ** 2).T)
            c_n = col_cosines(Vn, ridge_unit(Xc, Y, alpha).T)
            print(f"{name}, alpha={alpha:g}, nRepeat={nrep}: SR LSQR vs ridge(alpha): min|cos|={c_a.min():.6f}; "
                  f"vs ridge(alpha^2): min|cos|={c_a2.min():.6f}; SR normal eq. vs ridge(alpha): "
                  f"min|cos|={c_n.min():.12f}")
        P = SRDA(alpha=alpha, solver="lsqr", tol=1e-12, max_iter=5000).fit(X, y).components_
        print(f"   ours solver='lsqr' vs ridge(alpha): min|cos|={col_cosines(ridge_unit(Xc, Y, alpha), P).min():.10f}")
