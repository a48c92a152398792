"""Kernel LPP: the experiments behind each departure from Deng Cai's KLPP.m / KGE.m, one section each.

A. K1: the PCA branch (Regu = 0, the default) cannot run: products and the normalisation
   (unmodified; with KGE_PARTIAL, only the two products fixed; with KGE_PATCHED, fully fixed).
B. K3: constructKernel's default width t = sqrt(mean(min(D, [], 2))) includes the zero diagonal.
C. K4: kernel rank cut: theirs 1e-6 relative (always at least one eigenvalue dropped); ours the
   Householder basis of 1^perp when rcond(Q'KQ) > 1e-8, else sqrt(10 n eps) relative.
D. K5: new points: theirs K(x,:) * eigvector with the uncentred kernel; ours centres k(x, X).
E. K2: Regu=1: ReguAlpha is absolute (times the mean degree); convergence to ours as it shrinks.
F. the kernel-type map of the option table: Polynomial / PolyPlus <-> kernel='poly' with gamma=1,
   coef0=0 / 1.

Sections C, D and F run the fixed PCA branch of KGE.m and are skipped when KGE_PATCHED is not set
(README.md); A then prints only the unmodified run (and the partial fix when KGE_PARTIAL is set).

Prints, per section, the errors of their PCA branch (A), their default width and kernel (B), the
kernel components kept, angles and 1-NN accuracies (C), the centring offset and 1-NN accuracies (D),
the spurious columns and the distance to ours per ReguAlpha (E), and the angles per kernel map (F).

Usage: python klpp_departures.py [A B C D E F]
"""

import os
import sys
import warnings

import numpy as np
import scipy.io
from sklearn.metrics.pairwise import pairwise_kernels, rbf_kernel
from sklearn.preprocessing import KernelCenterer

from common import skipped
from common_lpp import (KGE_PARTIAL, KGE_PATCHED, WORK, compare, face_split, max_angle_deg, our_W, run_octave,
                        synthetic)
from lpp_compare import configs
from locproj.methods import KernelLPP

SECTIONS = sys.argv[1:] or list("ABCDEF")
np.set_printoptions(precision=4, linewidth=150)
Xs, ys = synthetic(3, 10, 8, seed=0)
Xo, yo, Xte, yte = face_split("orl", 5, 0, test=True)
GS = {c[0]: c for c in configs(ys, 3.0)}["KNN k=5 Heat"]   # syn graph: KNN k=5, t=3
GO = {c[0]: c for c in configs(yo, 1000.0)}["KNN k=5 Heat"]  # ORL graph: KNN k=5, t=1000


def ours(X, y, g, **kw):
    oo = g[2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return KernelLPP(n_neighbors=oo["n_neighbors"], weight=oo["weight"], t=oo.get("gamma"),
                         supervised=oo["supervised"], **kw).fit(X, y if oo["supervised"] else None)


def _rk(Kc, A, B):
    """A and B mapped to coordinates in which the RKHS inner product (centred Kc) is Euclidean."""
    w, U = np.linalg.eigh(Kc)
    keep = w > 1e-10 * w.max()
    R = (U[:, keep] * np.sqrt(w[keep])).T
    return R @ A, R @ B


def centered(K):
    return KernelCenterer().fit_transform(K)


if "A" in SECTIONS:
    print("== A. the PCA branch of KGE.m (Regu = 0, default) ==")
    base = dict(fea=Xs, method="KLPP", wopts=GS[1], mopts=dict(KernelType="Gaussian", t=5.0))
    variants = [("unmodified", base)]
    if KGE_PARTIAL is None:
        skipped("A's run with only the two products of KGE.m fixed", "KGE_PARTIAL", "that KGE.m")
    else:
        variants.append(("only the two products fixed (KGE_PARTIAL)", dict(base, patched_partial=1.0)))
    if KGE_PATCHED is None:
        skipped("A's run with the fixed PCA branch of KGE.m", "KGE_PATCHED", "the fixed KGE.m")
    else:
        variants.append(("fully patched (KGE_PATCHED)", dict(base, patched=1.0)))
    res = run_octave([case for _, case in variants], tag="klA")
    for (label, _), r in zip(variants, res):
        print(f"  {label:48s}: " + (f"ERROR: {r['err']}" if not r["ok"] else f"{r['V'].shape[1]} columns"))

if "B" in SECTIONS:
    print("\n== B. constructKernel's default Gaussian width ==")
    code = ("[K, o] = constructKernel(fea, [], struct('KernelType', 'Gaussian')); Dd = EuDist2(fea, [], 0); "
            "off = K - diag(diag(K)); "
            "e = [o.t, sum(isnan(K(:))), max(off(:)), min(diag(K)), max(diag(K)), max(diag(Dd))];")
    res = run_octave([dict(fea=X, method="EVAL", wopts=dict(NeighborMode="KNN", k=1.0, WeightMode="Binary"), mopts={},
                           code=code) for X in (Xs, Xo)], tag="klB")
    for name, r in zip(("syn 3x10x8", "ORL"), res):
        t, nnan, offmax, dmin, dmax, dd = r["e"]
        print(f"  {name}: default t = {t:.3g}; NaN entries of K: {int(nnan)}; largest off-diagonal K: {offmax:.3g}; "
              f"diagonal of K in [{dmin:.3g}, {dmax:.3g}]; largest EuDist2 self-distance D(i,i): {dd:.3g}")
    est = ours(Xo, yo, GO)
    print(f"  ours: gamma=None is scikit-learn's 1/n_features = {1 / Xo.shape[1]:.3g} "
          f"(their t = {np.sqrt(Xo.shape[1] / 2):.3g}); on ORL pixels off-diagonal k = "
          f"{np.sort(rbf_kernel(Xo, gamma=1 / Xo.shape[1]), axis=None)[-Xo.shape[0] - 1]:.3g} at most")

if "C" in SECTIONS and KGE_PATCHED is None:
    print("\n== C. kernel rank cut ==")
    skipped("section C runs the fixed PCA branch of KGE.m", "KGE_PATCHED", "the fixed KGE.m")
if "C" in SECTIONS and KGE_PATCHED is not None:
    print("\n== C. kernel rank cut: theirs eigenvalues of Kc >= 1e-6 max (at least one dropped); ours "
          "Householder 1^perp basis if rcond(Q'KcQ) > 1e-8, else eigenvalues > sqrt(10 n eps) max ==")
    n = len(Xs)
    for tk in (5.0, 15.0, 30.0, 60.0, 120.0):
        Kc = centered(rbf_kernel(Xs, gamma=1 / (2 * tk * tk)))
        lam = np.sort(np.linalg.eigvalsh(Kc))[::-1]
        theirs_keep = int(np.sum(lam / lam[0] >= 1e-6))
        r = run_octave([dict(fea=Xs, method="KLPP", wopts=GS[1], mopts=dict(KernelType="Gaussian", t=tk,
                                                                             ReducedDim=1000.0), patched=1.0),
                        ], tag="klC")[0]
        est = ours(Xs, ys, GS, kernel="rbf", gamma=1 / (2 * tk * tk))
        c = compare(r["V"], 1 - r["e"], est.dual_coef_, est.eigenvalues_, metric=Kc)
        print(f"  syn t_k={tk:5.0f}: lambda_(n-1)/lambda_1 = {lam[n - 2] / lam[0]:.2e}; theirs keeps {theirs_keep} of "
              f"{n - 1} kernel components; ours {len(est.eigenvalues_)}; columns after the beta cut theirs/ours "
              f"{c['m_theirs']}/{int(np.sum(est.eigenvalues_ <= 0.999))}; max|dlam| first 5 "
              f"{np.max(np.abs((1 - r['e'][:5]) - est.eigenvalues_[:5])):.2e}; clusters {c['clusters']}; "
              f"angle (deg) of the first 2 / 3 / 5 columns' spans: {c['prefix_angles'].get(2, float('nan')):.2g} / "
              f"{max_angle_deg(*(M_[:, :3] for M_ in _rk(Kc, r['V'], est.dual_coef_))):.2g} / "
              f"{max_angle_deg(*(M_[:, :5] for M_ in _rk(Kc, r['V'], est.dual_coef_))):.2g}; first lambda theirs "
              f"{np.round(1 - r['e'][:4], 5)}, ours {np.round(est.eigenvalues_[:4], 5)}")
    print("  ORL (KNN k=5 heat graph), wider kernels; 1-NN on the 200 held-out images with the first p columns:")
    n = len(Xo)
    for tk in (1500.0, 4000.0, 8000.0, 16000.0):
        g = 1 / (2 * tk * tk)
        Kc = centered(rbf_kernel(Xo, gamma=g))
        lam = np.sort(np.linalg.eigvalsh(Kc))[::-1]
        r = run_octave([dict(fea=Xo, method="KLPP", wopts=GO[1],
                             mopts=dict(KernelType="Gaussian", t=tk, ReducedDim=1000.0), patched=1.0)], tag="klC2")[0]
        est = ours(Xo, yo, GO, kernel="rbf", gamma=g)
        cen = KernelCenterer().fit(rbf_kernel(Xo, gamma=g))
        Ktr, Kte = cen.transform(rbf_kernel(Xo, gamma=g)), cen.transform(rbf_kernel(Xte, Xo, gamma=g))
        def acc(A, p):
            Ytr, Yte = Ktr @ A[:, :p], Kte @ A[:, :p]
            d2 = (Yte**2).sum(1)[:, None] + (Ytr**2).sum(1)[None, :] - 2 * Yte @ Ytr.T
            return np.mean(yo[np.argmin(d2, 1)] == yte)
        accs = " ".join(f"p={p}: {acc(r['V'], p):.3f}/{acc(est.dual_coef_, p):.3f}" for p in (10, 20, 40)
                        if p <= min(r["V"].shape[1], est.dual_coef_.shape[1]))
        print(f"    t_k={tk:6.0f}: lambda_(n-1)/lambda_1 {lam[n - 2] / lam[0]:.1e}; kernel components kept theirs "
              f"{int(np.sum(lam / lam[0] >= 1e-6))}, ours {len(est.eigenvalues_)}; angle first 10 "
              f"{max_angle_deg(*(M_[:, :10] for M_ in _rk(Kc, r['V'], est.dual_coef_))):.3g} deg; "
              f"1-NN theirs/ours {accs}")

if "D" in SECTIONS and KGE_PATCHED is None:
    print("\n== D. embedding new points ==")
    skipped("section D runs the fixed PCA branch of KGE.m", "KGE_PATCHED", "the fixed KGE.m")
if "D" in SECTIONS and KGE_PATCHED is not None:
    print("\n== D. embedding new points: theirs K(x,:) * eigvector (uncentred), ours centred ==")
    tk = 1500.0
    r = run_octave([dict(fea=Xo, method="KLPP", wopts=GO[1], mopts=dict(KernelType="Gaussian", t=tk, ReducedDim=1000.0),
                         patched=1.0)], tag="klD")[0]
    A = r["V"]
    est = ours(Xo, yo, GO, kernel="rbf", gamma=1 / (2 * tk * tk))
    Kte = rbf_kernel(Xte, Xo, gamma=1 / (2 * tk * tk))
    Ktr = rbf_kernel(Xo, gamma=1 / (2 * tk * tk))
    Y_unc_te, Y_unc_tr = Kte @ A, Ktr @ A
    cen = KernelCenterer().fit(Ktr)
    Y_c_te, Y_c_tr = cen.transform(Kte) @ A, cen.transform(Ktr) @ A
    diff = np.vstack([Y_unc_te - Y_c_te, Y_unc_tr - Y_c_tr])
    print(f"  their {A.shape[1]} columns: max |1'alpha| / |alpha|_1 = "
          f"{np.max(np.abs(A.sum(0)) / np.abs(A).sum(0)):.2e}; "
          f"uncentred minus centred embedding: spread (max-min over all 400 points, per column) at most "
          f"{np.max(np.ptp(diff, 0)):.2e}, offset up to {np.max(np.abs(diff.mean(0))):.3g} "
          f"(embedding scale {np.max(np.abs(Y_c_te)):.3g})")
    def nn(Ytr, Yte):
        d2 = (Yte**2).sum(1)[:, None] + (Ytr**2).sum(1)[None, :] - 2 * Yte @ Ytr.T
        return yo[np.argmin(d2, 1)]
    p = 20
    print(f"  1-NN on the 200 held-out images with the first {p} columns: uncentred "
          f"{np.mean(nn(Y_unc_tr[:, :p], Y_unc_te[:, :p]) == yte):.3f}, "
          f"centred {np.mean(nn(Y_c_tr[:, :p], Y_c_te[:, :p]) == yte):.3f}, ours transform "
          f"{np.mean(nn(est.transform(Xo)[:, :p], est.transform(Xte)[:, :p]) == yte):.3f}; "
          f"max |ours transform - centred theirs| (|cos| sign-aligned) "
          f"{np.max(np.abs(np.abs(est.transform(Xte)[:, :p]) - np.abs(Y_c_te[:, :p]))):.2e}")

if "E" in SECTIONS:
    print("\n== E. Regu=1: absolute ReguAlpha (times mean degree) ==")
    deg = our_W(Xo, None, 5, "heat", 2e6, False).sum(1)
    for kname, tk in (("Gaussian", 1500.0), ("Linear", None)):
        K = rbf_kernel(Xo, gamma=1 / (2 * tk * tk)) if kname == "Gaussian" else Xo @ Xo.T
        Kc = centered(K)
        scale = np.mean(np.einsum("ij,j,ji->i", Kc, deg, Kc))  # mean diag of K D K
        kw = dict(kernel="rbf", gamma=1 / (2 * tk * tk)) if kname == "Gaussian" else dict(kernel="linear")
        est = ours(Xo, yo, GO, **kw)
        alphas = [0.1, 1e-2, 1e-4, 1e-6, 1e-8]
        mo = dict(KernelType=kname, ReducedDim=1000.0, Regu=1.0)
        if tk:
            mo["t"] = tk
        res = run_octave([dict(fea=Xo, method="KLPP", wopts=GO[1], mopts=dict(mo, ReguAlpha=a)) for a in alphas],
                         tag="klE")
        complex_cols = []
        for i in range(len(alphas)):  # which eigenvector columns came back complex
            Vraw = scipy.io.loadmat(os.path.join(WORK, f"klE_{i}_out.mat"))["V"]
            complex_cols.append(np.abs(np.imag(Vraw)).max(0) > 0 if np.iscomplexobj(Vraw)
                                else np.zeros(Vraw.shape[1], bool))
        print(f"  ORL KNN heat, {kname} kernel: mean diag(K D K) = {scale:.3g}, mean degree {deg.mean():.3g}")
        for a, r, cplx in zip(alphas, res, complex_cols):
            # a W/D quotient cannot exceed 1: larger beta, or a complex eigenvector, is spurious
            spurious = (r["e"] > 1 + 1e-9) | cplx | ~np.all(np.isfinite(r["V"]), 0)
            keep = ~spurious
            c = compare(r["V"][:, keep], 1 - r["e"][keep], est.dual_coef_, est.eigenvalues_, metric=Kc)
            p = min(10, c["m"])
            print(f"    ReguAlpha={a:g} (relative {a * deg.mean() / scale:.1e}): first beta {np.round(r['e'][:3], 4)}; "
                  f"spurious columns (beta > 1 or complex eigenvector): {int(spurious.sum())} at "
                  f"{np.flatnonzero(spurious).tolist()}"
                  f"; the others vs ours: cols {c['m_theirs']}/{int(np.sum(est.eigenvalues_ <= 0.999))}, "
                  f"max|dlam| first {p} "
                  f"{np.max(np.abs(c['lam_t'][:p] - est.eigenvalues_[:p])):.2e}, max angle first {p} "
                  f"{c['prefix_angles'].get(p, float('nan')):.3g} deg")

if "F" in SECTIONS and KGE_PATCHED is None:
    print("\n== F. kernel types ==")
    skipped("section F runs the fixed PCA branch of KGE.m", "KGE_PATCHED", "the fixed KGE.m")
if "F" in SECTIONS and KGE_PATCHED is not None:
    print("\n== F. kernel types: Polynomial (x'y)^d, PolyPlus (x'y+1)^d <-> kernel='poly', gamma=1, coef0=0/1 ==")
    Xn = Xs / 5.0
    for kname, coef0 in (("Polynomial", 0.0), ("PolyPlus", 1.0)):
        r = run_octave([dict(fea=Xn, method="KLPP", wopts=GS[1], mopts=dict(KernelType=kname, d=2.0, ReducedDim=1000.0),
                             patched=1.0)], tag="klF")[0]
        for label, kw in (("gamma=1, coef0=%g" % coef0, dict(kernel="poly", degree=2, gamma=1.0, coef0=coef0)),
                          ("our defaults gamma=None, coef0=1", dict(kernel="poly", degree=2))):
            est = ours(Xn, ys, GS, **kw)
            Kc = centered(pairwise_kernels(Xn, metric="poly", degree=2, gamma=kw.get("gamma"),
                                           coef0=kw.get("coef0", 1)))
            c = compare(r["V"], 1 - r["e"], est.dual_coef_, est.eigenvalues_, metric=Kc)
            print(f"  {kname} d=2 vs ours {label:32s}: cols {c['m_theirs']}/{c['m_ours']}; "
                  f"max|dlam| {c['dlam_max']:.2e}; "
                  f"max angle of the common span {c['prefix_angles'].get(c['m'], float('nan')):.3g} deg")
