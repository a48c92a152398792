"""LPP: the experiments behind each departure from Deng Cai's LPP.m, one section each.

A. L1: which columns are returned (beta < 1e-3 dropped, ReducedDim 30 by default, 0 gives none).
B. L3: default heat width (theirs the mean distance over all n^2 pairs, ours the mean squared edge).
C. L8: Regu=1 (ridge) against ours, as ReguAlpha shrinks.
D. L7: rank cut of the PCA step (1e-10 against 10 max(n, d) eps; their Cholesky shortcut).
E. L5: order inside the 39-dimensional eigenvalue-0 cluster (ORL, supervised complete graph).
F. L6: column signs.
G. L10: options with no counterpart (bSelfConnected=1, keepMean=1).
H. L9: PCARatio < 1 (CutonRatio sums singular values of D^1/2 X~).

Prints, per section, the column counts, eigenvalue differences, principal angles and (E) held-out
1-NN accuracies the departures quote.

Usage: python lpp_departures.py [A B ...]   (default: all sections)
"""

import sys
import warnings

import numpy as np
from scipy.spatial.distance import pdist

from common_lpp import compare, face_split, max_angle_deg, our_W, run_octave, synthetic
from locproj.methods import LocalityPreservingProjection
from locproj.core.neighbor_graphs import default_heat_gamma, kneighbors

SECTIONS = sys.argv[1:] or list("ABCDEFGH")
np.set_printoptions(precision=4, linewidth=150)


def ours(X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return LocalityPreservingProjection(**kw).fit(X, y if kw.get("supervised", True) else None)


def cai_t(X):
    """constructW's default t: mean(mean(EuDist2(fea))), all n^2 Euclidean distances, zeros included."""
    return pdist(X).sum() * 2 / len(X) ** 2


Xo, yo, Xte, yte = face_split("orl", 5, 0, test=True)


def nn_accuracy(V, mean, p):
    """1-NN accuracy on the 200 held-out ORL images with the first p columns of V."""
    Ztr, Zte = (Xo - mean) @ V[:, :p], (Xte - mean) @ V[:, :p]
    d2 = (Zte**2).sum(1)[:, None] + (Ztr**2).sum(1)[None, :] - 2 * Zte @ Ztr.T
    return float(np.mean(yo[np.argmin(d2, 1)] == yte))


Xs, ys = synthetic(3, 10, 8, seed=0)
Xd, yd = synthetic(3, 5, 40, seed=1)
KNN_HEAT = dict(NeighborMode="KNN", WeightMode="HeatKernel", k=5.0, t=1000.0)
OUR_KNN_HEAT = dict(n_neighbors=5, weight="heat", gamma=2 * 1000.0**2, supervised=False)

# --------------------------------------------------------------------------------------------
if "A" in SECTIONS:
    print("== A. eigenvalue cut (beta < 1e-3) and ReducedDim ==")
    cases = [dict(fea=Xo, method="LPP", wopts=KNN_HEAT, mopts={}),
             dict(fea=Xo, method="LPP", wopts=KNN_HEAT, mopts=dict(ReducedDim=10000.0)),
             dict(fea=Xo, method="LPP", wopts=KNN_HEAT, mopts=dict(ReducedDim=0.0)),
             dict(fea=Xo, method="LPP", wopts=dict(NeighborMode="Supervised", gnd=yo, WeightMode="Binary", k=0.0),
                  mopts=dict(ReducedDim=10000.0))]
    r = run_octave(cases, tag="depA")
    est = ours(Xo, yo, **OUR_KNN_HEAT)
    lam = est.eigenvalues_
    print("ORL KNN k=5 heat: their columns with default options (ReducedDim=30):", r[0]["V"].shape[1],
          "; ReducedDim=10000:", r[1]["V"].shape[1], "; ReducedDim=0 (doc: 'all'):", r[2]["V"].shape[1], r[2]["err"])
    print("  ours (n_components=None):", len(lam), "; ours with lambda <= 0.999 (= their beta >= 1e-3):",
          int(np.sum(lam <= 1 - 1e-3)))
    print("  their smallest kept beta:", r[1]["e"].min(), "; ours lambda around the cut:", lam[76:80])
    est = ours(Xo, yo, n_neighbors="all", weight="binary")
    print("ORL supervised complete binary graph: their columns", r[3]["V"].shape[1], "; ours eigenvalues 36..44:",
          est.eigenvalues_[36:44], "; distinct values after the 39-cluster:",
          np.unique(np.round(est.eigenvalues_[39:], 9)))

# --------------------------------------------------------------------------------------------
if "B" in SECTIONS:
    print("\n== B. default heat width: theirs t = mean Euclidean distance over all n^2 pairs, "
          "w = exp(-d^2/(2t^2)); ours gamma = mean squared edge length, w = exp(-d^2/gamma) ==")
    for dname, X, y in (("syn 3x10x8", Xs, ys), ("syn d>n", Xd, yd), ("ORL", Xo, yo)):
        for mode in ("KNN", "Supervised"):
            wopts = dict(NeighborMode="KNN", WeightMode="HeatKernel", k=5.0) if mode == "KNN" else \
                dict(NeighborMode="Supervised", gnd=y, WeightMode="HeatKernel")
            oo = dict(n_neighbors=5, weight="heat", supervised=False) if mode == "KNN" else \
                dict(n_neighbors="all", weight="heat", supervised=True)
            r = run_octave([dict(fea=X, method="LPP", wopts=wopts, mopts=dict(ReducedDim=10000.0))], tag="depB")[0]
            tc = cai_t(X)
            g_ours = default_heat_gamma(kneighbors(X, oo["n_neighbors"], y if oo["supervised"] else None))
            fits = {}
            for label, gamma in (("our default gamma", None), ("gamma = 2 t_cai^2", 2 * tc * tc)):
                est = fits[label] = ours(X, y, gamma=gamma, **oo)
                c = compare(r["V"], 1 - r["e"], est.components_.T, est.eigenvalues_)
                p = min(10, c["m"])
                ang = max_angle_deg(r["V"][:, :p], est.components_[:p].T)
                cl = f", degenerate clusters {c['clusters']}" if c["clusters"] else ""
                print(f"{dname:10s} {mode:10s} t_cai={tc:9.4g} (2t^2={2*tc*tc:9.4g}) our default gamma={g_ours:9.4g} | "
                      f"{label:18s}: cols {c['m_theirs']}/{c['m_ours']}, max|dlam| {c['dlam_max']:.2e}, "
                      f"angle first {p} cols {ang:.3g} deg, |cos| col1 {c['cos'][0]:.6f}{cl}")
            a, b = fits["our default gamma"], fits["gamma = 2 t_cai^2"]
            q = min(len(a.eigenvalues_), 10 + max([s_[1] for s_ in c["clusters"]], default=0))
            print(f"{'':21s} ours default vs ours 2 t_cai^2, all {len(a.eigenvalues_)} eigenvalues: max|dlam| "
                  f"{np.max(np.abs(a.eigenvalues_ - b.eigenvalues_)):.3g}; angle first {q} cols "
                  f"{max_angle_deg(a.components_[:q].T, b.components_[:q].T):.3g} deg")

# --------------------------------------------------------------------------------------------
if "C" in SECTIONS:
    print("\n== C. Regu=1 (ridge ReguAlpha * mean degree on X'DX, no PCA) vs ours (PCA, no ridge) ==")
    alphas = [None, 0.1, 1e-2, 1e-4, 1e-6, 1e-8]
    for dname, X, y, wopts, oo in (
            ("ORL KNN heat", Xo, yo, KNN_HEAT, OUR_KNN_HEAT),
            ("syn 3x10x8 KNN heat", Xs, ys, dict(NeighborMode="KNN", WeightMode="HeatKernel", k=5.0, t=3.0),
             dict(n_neighbors=5, weight="heat", gamma=18.0, supervised=False))):
        cases = []
        for a in alphas:
            mo = dict(ReducedDim=10000.0, Regu=1.0)
            if a is not None:
                mo["ReguAlpha"] = a
            cases.append(dict(fea=X, method="LPP", wopts=wopts, mopts=mo))
        res = run_octave(cases, tag="depC")
        est = ours(X, y, **oo)
        for a, r in zip(alphas, res):
            if not r["ok"]:
                print(f"{dname}: Regu=1, ReguAlpha unset -> error: {r['err']}")
                continue
            c = compare(r["V"], 1 - r["e"], est.components_.T, est.eigenvalues_)
            p = min(10, c["m"])
            print(f"{dname}: ReguAlpha={a:g}: cols {c['m_theirs']}/{c['m_ours']}, max|dlam| first {p} "
                  f"{np.max(np.abs((1 - r['e'][:p]) - est.eigenvalues_[:p])):.2e}, angle first {p} cols "
                  f"{max_angle_deg(r['V'][:, :p], est.components_[:p].T):.3g} deg, |cos| col1 {c['cos'][0]:.6f}")

# --------------------------------------------------------------------------------------------
if "D" in SECTIONS:
    print("\n== D. rank cut: theirs drops eigenvalues of (D^1/2 X~)(D^1/2 X~)' below 1e-10 of the largest "
          "(chol shortcut when n > d); ours drops squared singular values of X~ below 10 max(n,d) eps ==")
    rng = np.random.default_rng(5)

    def designed(n, d, ratio_last, r=None):
        r = r or min(n - 1, d)
        H = np.linalg.qr(np.column_stack([np.ones(n), rng.normal(size=(n, r))]))[0][:, 1:]  # orthonormal, _|_ 1
        V = np.linalg.qr(rng.normal(size=(d, r)))[0]
        s = np.geomspace(1.0, 1e-2, r)
        s[-1] = np.sqrt(ratio_last)  # squared singular value ratio of the last component
        return 100 * (H * s) @ V.T + rng.normal(size=d)

    for n, d in ((20, 40), (60, 10)):
        y = np.repeat([1, 2], n // 2)
        for ratio in (1e-8, 1e-11, 1e-13, 1e-20):
            X = designed(n, d, ratio)
            wk = dict(NeighborMode="KNN", WeightMode="Binary", k=3.0)
            chol_code = ("X = fea - repmat(mean(fea), size(fea, 1), 1); Dg = full(sum(W, 2)); "
                         "X = repmat(Dg.^.5, 1, size(X, 2)) .* X; DP = full(X' * X); DP = max(DP, DP'); "
                         "[R, pchol] = chol(DP); e = pchol;")
            r, rc = run_octave([dict(fea=X, method="LPP", wopts=wk, mopts=dict(ReducedDim=10000.0)),
                                dict(fea=X, method="EVAL", wopts=wk, mopts={}, code=chol_code)], tag="depD")
            est = ours(X, y, n_neighbors=3, weight="binary", supervised=False)
            Xc = X - X.mean(0)
            sv = np.linalg.svd(Xc, compute_uv=False)
            # how much of each solution lies along the tiny direction (last right singular vector)
            vlast = np.linalg.svd(Xc, full_matrices=False)[2][min(n - 1, d) - 1]
            w_t = np.abs(vlast @ r["V"]) / np.linalg.norm(r["V"], axis=0) if r["V"].shape[1] else np.array([np.nan])
            w_o = np.abs(est.components_ @ vlast)
            p = min(5, r["V"].shape[1], est.n_components_)
            chol = "" if n <= d else f"[LGE's chol(X'DX) {'succeeds: no PCA' if rc['e'][0] == 0 else 'fails: PCA'}] "
            print(f"n={n} d={d} last s^2/s1^2={ratio:g} (measured {sv[min(n-1,d)-1]**2/sv[0]**2:.2e}) {chol}: "
                  f"their cols {r['V'].shape[1]} (PCA dim before cut <= {min(n-1, d)}), ours {est.n_components_} "
                  f"(lambda<=0.999: {int(np.sum(est.eigenvalues_ <= 0.999))}); angle first {p} "
                  f"{max_angle_deg(r['V'][:, :p], est.components_[:p].T):.3g} deg; |cos| with tiny direction, "
                  f"first 3 cols: theirs {np.round(w_t[:3], 3)}, ours {np.round(w_o[:3], 3)}")

# --------------------------------------------------------------------------------------------
if "E" in SECTIONS:
    print("\n== E. order inside the 39-dimensional eigenvalue-0 cluster (ORL, supervised complete graph) ==")
    rng = np.random.default_rng(1)
    perm = rng.permutation(len(Xo))
    wo = dict(NeighborMode="Supervised", gnd=yo, WeightMode="HeatKernel", k=0.0, t=1000.0)
    wp = dict(wo, gnd=yo[perm])
    res = run_octave([dict(fea=Xo, method="LPP", wopts=wo, mopts=dict(ReducedDim=10000.0)),
                      dict(fea=Xo[perm], method="LPP", wopts=wp, mopts=dict(ReducedDim=10000.0))], tag="depE")
    oo = dict(n_neighbors="all", weight="heat", gamma=2e6)
    est, estp = ours(Xo, yo, **oo), ours(Xo[perm], yo[perm], **oo)
    Vt, Vtp, Po, Pop = res[0]["V"], res[1]["V"], est.components_.T, estp.components_.T
    Xc = Xo - Xo.mean(0)

    def var(V):
        return np.sum((Xc @ (V / np.linalg.norm(V, axis=0))) ** 2, axis=0) / len(Xc)

    print("their beta in cluster: range", res[0]["e"][:39].min(), res[0]["e"][:39].max())
    print("per-column |cos| theirs vs ours, first 8 of the cluster:",
          np.round(np.abs(np.sum(Vt[:, :8] * Po[:, :8], 0)), 3))
    for p in (1, 5, 10, 20, 39):
        print(f"p={p:2d}: angle(theirs, ours) {max_angle_deg(Vt[:, :p], Po[:, :p]):6.2f} deg; "
              f"theirs vs theirs-permuted {max_angle_deg(Vt[:, :p], Vtp[:, :p]):6.2f}; ours vs ours-permuted "
              f"{max_angle_deg(Po[:, :p], Pop[:, :p]):8.2e}; variance of the p projections: theirs "
              f"{var(Vt[:, :p]).sum():.4g}, ours {var(Po[:, :p]).sum():.4g}; 1-NN held-out: theirs "
              f"{nn_accuracy(Vt, Xo.mean(0), p):.3f}, theirs-permuted {nn_accuracy(Vtp, Xo.mean(0), p):.3f}, ours "
              f"{nn_accuracy(Po, Xo.mean(0), p):.3f}")
    print("variance per unit column, first 6: theirs", np.round(var(Vt[:, :6]), 1), "ours", np.round(var(Po[:, :6]), 1))
    Dg = our_W(Xo, yo, "all", "heat", 2e6, True).sum(1)

    def ratio(V):
        return np.sum((Xc @ V) ** 2, 0) / np.sum(Dg[:, None] * (Xc @ V) ** 2, 0)

    print("variance per constraint-normalised column (|X~p|^2 / p'X~'DX~p), first 6 (ours sorts by this): theirs",
          np.round(ratio(Vt[:, :6]), 5), "ours", np.round(ratio(Po[:, :6]), 5))

# --------------------------------------------------------------------------------------------
if "F" in SECTIONS:
    print("\n== F. column signs ==")
    r = run_octave([dict(fea=Xo, method="LPP", wopts=KNN_HEAT, mopts=dict(ReducedDim=10000.0))], tag="depF")[0]
    est = ours(Xo, yo, **OUR_KNN_HEAT)
    m = r["V"].shape[1]
    dots = np.sum(r["V"] * est.components_[:m].T, 0)
    Vt = r["V"]
    big = Vt[np.argmax(np.abs(Vt), 0), np.arange(m)]
    print(f"ORL KNN heat: {m} columns, theirs opposite to ours in {int(np.sum(dots < 0))}; their columns whose "
          f"largest-|entry| is negative (our convention makes it positive): {int(np.sum(big < 0))}")

# --------------------------------------------------------------------------------------------
if "G" in SECTIONS:
    print("\n== G. options with no counterpart: bSelfConnected=1, keepMean=1 ==")
    wsc = dict(NeighborMode="KNN", WeightMode="Binary", k=5.0, bSelfConnected=1.0)
    wb = dict(NeighborMode="KNN", WeightMode="Binary", k=5.0)
    res = run_octave([dict(fea=Xo, method="LPP", wopts=wsc, mopts=dict(ReducedDim=10000.0)),
                      dict(fea=Xo, method="LPP", wopts=wb, mopts=dict(ReducedDim=10000.0, keepMean=1.0)),
                      dict(fea=Xs, method="LPP", wopts=wb, mopts=dict(ReducedDim=10000.0, keepMean=1.0))], tag="depG")
    est = ours(Xo, yo, n_neighbors=5, weight="binary", supervised=False)
    ests = ours(Xs, ys, n_neighbors=5, weight="binary", supervised=False)
    for label, r, e in (("ORL bSelfConnected=1", res[0], est), ("ORL keepMean=1", res[1], est),
                        ("syn 3x10x8 keepMean=1", res[2], ests)):
        c = compare(r["V"], 1 - r["e"], e.components_.T, e.eigenvalues_)
        p = min(10, c["m"])
        print(f"{label}: cols {c['m_theirs']}/{c['m_ours']}, max|dlam| first {p} "
              f"{np.max(np.abs((1 - r['e'][:p]) - e.eigenvalues_[:p])):.3g}, angle first {p} "
              f"{max_angle_deg(r['V'][:, :p], e.components_[:p].T):.3g} deg, |cos| col1 {c['cos'][0]:.4f}")

# --------------------------------------------------------------------------------------------
if "H" in SECTIONS:
    print("\n== H. PCARatio < 1: CutonRatio sums singular values (not variances) of D^1/2 X~ ==")
    W = our_W(Xo, None, 5, "heat", 2e6, False)
    Dg = W.sum(1)
    Xc = Xo - Xo.mean(0)
    for ratio in (0.9, 0.98):
        r = run_octave([dict(fea=Xo, method="LPP", wopts=KNN_HEAT,
                             mopts=dict(ReducedDim=10000.0, PCARatio=ratio))], tag="depH")[0]
        _, sD, VDt = np.linalg.svd(np.sqrt(Dg)[:, None] * Xc, full_matrices=False)
        _, sX, VXt = np.linalg.svd(Xc, full_matrices=False)
        r_sing = int(np.searchsorted(np.cumsum(sD) / sD.sum(), ratio) + 1)   # CutonRatio's rule
        r_var = int(np.searchsorted(np.cumsum(sX**2) / (sX**2).sum(), ratio) + 1)  # sklearn PCA(ratio)
        def resid(B):
            Q = B.T
            return float(np.max(np.linalg.norm(r["V"] - Q @ (Q.T @ r["V"]), axis=0)))
        print(f"PCARatio={ratio}: their columns {r['V'].shape[1]}; CutonRatio rule on D^1/2 X~ keeps {r_sing}; "
              f"variance ratio on X~ (sklearn PCA({ratio})) keeps {r_var}; max residual of their unit columns "
              f"outside top-{r_sing} of D^1/2 X~: {resid(VDt[:r_sing]):.2e}, outside top-{r_sing} of X~: "
              f"{resid(VXt[:r_sing]):.2e}")
