"""Sugiyama's LFDA.m vs LocalFisherDiscriminantAnalysis (skipped when LFDA_M is not set).

Backs the LFDA comparison table where n > d (identical to rounding for every metric option) and LFDA
departures F1 (kNN >= class size: LFDA.m errors, ours with kNN = 7 equals theirs with kNN = nc - 1)
and F3 (the metrics: 'plain' = our 'constraint', 'weighted' = 'constraint' * sqrt(lambda),
'orthonormalized' = QR of ours).

Prints one line per setting (|cos| summary, principal angles, eigenvalue mismatch, and how each of
LFDA.m's three metrics relates to ours) and LFDA.m's error for kNN = 7 on classes of 6.

Usage: python lfda_compare.py
"""

import sys
import warnings

import numpy as np

from common import skipped
from common_rest import LFDA_DIR, col_cosines, fmt, octave, summary, synthetic
from locproj.methods import LocalFisherDiscriminantAnalysis as LFDA
from locproj.methods.lfda import lfda_laplacians

warnings.simplefilter("ignore")
np.set_printoptions(precision=4, linewidth=150)

CODE = """
Tp = LFDA(X', y(:), double(r), 'plain', double(knn));
Tw = LFDA(X', y(:), double(r), 'weighted', double(knn));
To = LFDA(X', y(:), double(r), 'orthonormalized', double(knn));
"""


def theirs(X, y, knn, r=None):
    r = X.shape[1] if r is None else r
    out, _ = octave(CODE, {"X": X, "y": y.astype(float), "knn": knn, "r": r}, ["Tp", "Tw", "To"],
                    extra_paths=[LFDA_DIR])
    return out["Tp"], out["Tw"], out["To"]


def scatters(X, y, knn):
    L_b, L_w = lfda_laplacians(X, y, knn)
    Xc = X - X.mean(0)
    Sb = Xc.T @ (L_b @ Xc)
    Sw = Xc.T @ (L_w @ Xc).toarray() if hasattr(L_w @ Xc, "toarray") else Xc.T @ (L_w @ Xc)
    return (Sb + Sb.T) / 2, (Sw + Sw.T) / 2


def compare(label, X, y, knn_theirs, knn_ours, r=None, ks=(1, 2, 5)):
    Tp, Tw, To = theirs(X, y, knn_theirs, r)
    est = LFDA(n_neighbors=knn_ours).fit(X, y)
    P, lam = est.components_, est.eigenvalues_
    Pc = LFDA(n_neighbors=knn_ours, column_scaling="constraint").fit(X, y).components_
    Sb, Sw = scatters(X, y, knn_ours)
    lam_t = np.einsum("ij,ij->j", Tp, Sb @ Tp) / np.einsum("ij,ij->j", Tp, Sw @ Tp)
    p = min(Tp.shape[1], len(lam))
    s, c = summary(Tp, P, ks)
    s["max|lam_t-lam|/max lam"] = float(np.max(np.abs(lam_t[:p] - lam[:p])) / np.max(np.abs(lam)))
    s["plain: max|T0'SwT0-I|"] = float(np.abs(Tp.T @ Sw @ Tp - np.eye(Tp.shape[1])).max())
    sg = np.sign(np.sum(Tp[:, :p] * Pc[:p].T, axis=0))
    s["plain vs ours 'constraint': max rel diff"] = float(np.abs(Tp[:, :p] * sg - Pc[:p].T).max() / np.abs(Tp).max())
    sgw = np.sign(np.sum(Tw[:, :p] * Pc[:p].T, axis=0))
    s["weighted vs ours 'constraint'*sqrt(lam): max rel diff"] = float(
        np.abs(Tw[:, :p] * sgw - Pc[:p].T * np.sqrt(lam[:p])).max() / np.abs(Tw).max())
    Q, _ = np.linalg.qr(P[:p].T)
    s["orthonormalized vs QR(ours): min|cos|"] = float(col_cosines(To[:, :p], Q.T).min())
    print(f"{label}: {fmt(s)}")
    return Tp, Tw, To, P, lam, lam_t


if __name__ == "__main__":
    if LFDA_DIR is None:
        skipped("the LFDA comparison", "LFDA_M", "Sugiyama's LFDA.m")
        sys.exit(0)
    X, y = synthetic(10, 3, 8, sep=0.7)
    print("== synthetic 3x10, d=8 (class size 10 > kNN=7)")
    compare("kNN=7, r=d (eig)", X, y, 7, 7)
    compare("kNN=7, r=3 (eigs 'la')", X, y, 7, 7, r=3, ks=(1, 2, 3))
    compare("kNN=3", X, y, 3, 3)
    X6, y6 = synthetic(6, 3, 8, sep=0.7)
    print("== synthetic 3x6, d=8: kNN=7 >= class size 6")
    try:
        theirs(X6, y6, 7)
    except RuntimeError as e:
        print("   LFDA.m kNN=7:", [line for line in str(e).splitlines() if "error" in line.lower()][:2])
    compare("theirs kNN=5 (= nc-1) vs ours kNN=7 (capped)", X6, y6, 5, 7)
