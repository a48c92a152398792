"""OLPP: the experiments behind each departure from Deng Cai's OLPP.m / OLGE.m, one section each.

A. O1: eigs outcomes over 20 rand states (Octave's eigs starts ARPACK from a random vector).  With
   OLGE_DIAG set, the failure messages name the step and ARPACK's message (README.md); without it
   the unmodified OLGE.m runs and the outcomes are the same, but its message is only "eigs Error!".
B. O2: order inside the eigenvalue-1 (ours: 0) cluster of a supervised graph (p < c - 1), and
   whether it matters for 1-NN recognition on the held-out ORL images.
C. O3: the stop at beta < 1e-3 and ReducedDim (default 30).
D. O4: Regu=1 against ours.
E. O5: rank cut (mySVD's 1e-10; OLGE has no Cholesky shortcut).

Prints, per section, the outcome counts per rand state (A), angles, captured variance and 1-NN
accuracies (B), column counts (C), and |cos|, betas and the part outside the row space (D, E).

Usage: python olpp_departures.py [A B C D E]
"""

import sys
import warnings

import numpy as np

from common_lpp import OLGE_DIAG, face_split, max_angle_deg, run_octave, synthetic
from lpp_compare import configs
from locproj.methods import OrthogonalLPP

SECTIONS = sys.argv[1:] or list("ABCDE")
np.set_printoptions(precision=4, linewidth=150)
Xo, yo, Xte, yte = face_split("orl", 5, 0, test=True)
T = 1000.0


def ours(X, y, n_components=None, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return OrthogonalLPP(n_components=n_components, **kw).fit(X, y if kw.get("supervised", True) else None)


def outcome(r, d):
    if r["V"].shape[0] != d and r["V"].size:
        return f"eigs error, {r['V'].shape[1]} columns returned UNMAPPED ({r['V'].shape[0]} x m, PCA coordinates)"
    if not r["ok"]:
        return f"bSuccess=0 ({r['stdout'].strip()}) after {r['V'].shape[1]} columns"
    return f"success, {r['V'].shape[1]} columns"


def nn_accuracy(Vcols, mean, X, y, Xt, yt):
    Ztr, Zte = (X - mean) @ Vcols, (Xt - mean) @ Vcols
    d2 = (Zte**2).sum(1)[:, None] + (Ztr**2).sum(1)[None, :] - 2 * Zte @ Ztr.T
    return float(np.mean(y[np.argmin(d2, 1)] == yt))


if "A" in SECTIONS:
    print("== A. outcome of their OLPP over rand states 1..20 (Octave eigs, random ARPACK start) ==")
    if OLGE_DIAG is None:
        print("(OLGE_DIAG is not set: the unmodified OLGE.m runs, so an eigs failure's message does not name the "
              "step or ARPACK's message; README.md)")
    cfg = {c[0]: c for c in configs(yo, T)}
    for cname in ("Sup k=0 Binary", "Sup k=0 Heat", "Sup k=3 Binary", "KNN k=5 Heat"):
        _, wopts, _ = cfg[cname]
        cases = [dict(fea=Xo, method="OLPP", wopts=wopts, mopts=dict(ReducedDim=10000.0, bDisp=0.0),
                      diag_olge=float(OLGE_DIAG is not None), seed=float(s)) for s in range(1, 21)]
        res = run_octave(cases, tag="olppA")
        outs = [outcome(r, Xo.shape[1]) for r in res]
        kinds = {}
        for s, o in enumerate(outs, 1):
            kinds.setdefault(o, []).append(s)
        print(f"ORL {cname}:")
        for o, seeds in kinds.items():
            print(f"    {len(seeds):2d}/20  {o}   (seeds {seeds})")
        msgs = {r["stdout"].strip() for r in res if r["stdout"].strip()}
        for msg in sorted(msgs):
            print("    message:", msg[:200])

if "B" in SECTIONS:
    print("\n== B. order inside the 39-dimensional cluster (ORL supervised complete graph), p < c - 1 ==")
    for cname, wopts, oo in [c for c in configs(yo, T) if c[0] in ("Sup k=0 Binary", "Sup k=0 Heat")]:
        seeds = list(range(2, 9))
        res = run_octave([dict(fea=Xo, method="OLPP", wopts=wopts, mopts=dict(ReducedDim=60.0, bDisp=0.0),
                               seed=float(s)) for s in seeds], tag="olppB")
        good = [(s, r) for s, r in zip(seeds, res) if r["V"].shape[0] == Xo.shape[1] and r["V"].shape[1] >= 60]
        est = ours(Xo, yo, n_components=60, **oo)
        Po, mean = est.components_.T, est.mean_
        Xc = Xo - mean
        print(f"{cname}: their runs with 60 columns: seeds {[s for s, _ in good]}; their beta 1..39 in "
              f"[{min(r['e'][:39].min() for _, r in good):.15f}, {max(r['e'][:39].max() for _, r in good):.15f}]")
        print("  ours: variance |X~p|^2/n of the first 8 unit columns", np.round((Xc @ Po[:, :8]).var(0) * 1, 1))
        s0, r0 = good[0]
        print(f"  theirs (seed {s0}): same, first 8", np.round((Xc @ r0['V'][:, :8]).var(0), 1))
        for p in (1, 5, 10, 20, 39, 45, 60):
            ang_o = [max_angle_deg(r["V"][:, :p], Po[:, :p]) for _, r in good]
            ang_tt = [max_angle_deg(r["V"][:, :p], r0["V"][:, :p]) for _, r in good[1:]]
            var_t = [float(((Xc @ r["V"][:, :p]) ** 2).sum() / len(Xc)) for _, r in good]
            var_o = float(((Xc @ Po[:, :p]) ** 2).sum() / len(Xc))
            acc_t = [nn_accuracy(r["V"][:, :p], mean, Xo, yo, Xte, yte) for _, r in good]
            acc_o = nn_accuracy(Po[:, :p], mean, Xo, yo, Xte, yte)
            print(f"  p={p:2d}: angle theirs-vs-ours max {max(ang_o):5.1f} deg, theirs seed-vs-seed max "
                  f"{max(ang_tt):5.1f} deg | variance captured: ours {var_o:8.4g}, theirs {min(var_t):8.4g}.."
                  f"{max(var_t):8.4g} | 1-NN accuracy on the 200 held-out images: ours {acc_o:.3f}, theirs "
                  f"{min(acc_t):.3f}..{max(acc_t):.3f} (mean {np.mean(acc_t):.3f})")

if "C" in SECTIONS:
    print("\n== C. stop at beta < 1e-3 and ReducedDim ==")
    _, wopts, oo = configs(yo, T)[4]  # KNN k=5 Heat
    res = run_octave([dict(fea=Xo, method="OLPP", wopts=wopts, mopts=dict(bDisp=0.0), seed=2.0),
                      dict(fea=Xo, method="OLPP", wopts=wopts, mopts=dict(ReducedDim=10000.0, bDisp=0.0), seed=2.0)],
                     tag="olppC")
    est = ours(Xo, yo, **oo)
    lam = est.eigenvalues_
    print(f"ORL KNN k=5 heat: theirs default ReducedDim: {res[0]['V'].shape[1]} columns; ReducedDim=10000: "
          f"{res[1]['V'].shape[1]}; ours n_components=None: {len(lam)}, of which lambda <= 0.999: "
          f"{int(np.sum(lam <= 0.999))}; ours lambda around the stop: {lam[155:161]}")

if "D" in SECTIONS:
    print("\n== D. Regu=1 (ridge ReguAlpha * mean degree on X'DX, full input space, no PCA) vs ours ==")
    Xs, ys = synthetic(3, 10, 8, seed=0)
    for dname, X, y, (_, wopts, oo), alphas in (
            ("ORL KNN k=5 heat", Xo, yo, configs(yo, T)[4], [0.1, 1e-3, 1e-6]),
            ("syn 3x10x8 KNN k=5 heat", Xs, ys, configs(ys, 3.0)[4], [0.1, 1e-3, 1e-6])):
        res = run_octave([dict(fea=X, method="OLPP", wopts=wopts, mopts=dict(ReducedDim=6.0, bDisp=0.0, Regu=1.0,
                                                                               ReguAlpha=a), seed=2.0) for a in alphas],
                         tag="olppD")
        est = ours(X, y, n_components=6, **oo)
        Xc = X - X.mean(0)
        Qr = np.linalg.svd(Xc, full_matrices=False)[2]
        Qr = Qr[: np.linalg.matrix_rank(Xc)].T  # orthonormal basis of the row space
        print(f"{dname}: ours 1 - lambda: {np.round(1 - est.eigenvalues_, 6)}")
        for a, r in zip(alphas, res):
            V = r["V"]
            m = min(6, V.shape[1])
            cos = np.abs(np.sum(V[:, :m] * est.components_[:m].T, 0))
            outside = np.linalg.norm(V[:, :m] - Qr @ (Qr.T @ V[:, :m]), axis=0)
            print(f"  ReguAlpha={a:g}: {outcome(r, X.shape[1])}; beta {np.round(r['e'][:m], 6)}; |cos| with ours "
                  f"{np.round(cos, 4)}; |part outside the row space of X~| {np.array2string(outside, precision=1)}; "
                  f"|X~a| {np.array2string(np.linalg.norm(Xc @ V[:, :m], axis=0), precision=2)}")

if "E" in SECTIONS:
    print("\n== E. rank cut (mySVD: eigenvalues below 1e-10 of the largest; OLGE has no Cholesky shortcut) ==")
    rng = np.random.default_rng(5)
    for n, d in ((20, 40), (60, 10)):
        for ratio in (1e-11, 1e-13):
            r_ = min(n - 1, d)
            H = np.linalg.qr(np.column_stack([np.ones(n), rng.normal(size=(n, r_))]))[0][:, 1:]
            V = np.linalg.qr(rng.normal(size=(d, r_)))[0]
            s = np.geomspace(1.0, 1e-2, r_)
            s[-1] = np.sqrt(ratio)
            X = 100 * (H * s) @ V.T + rng.normal(size=d)
            y = np.repeat([1, 2], n // 2)
            r = run_octave([dict(fea=X, method="OLPP", wopts=dict(NeighborMode="KNN", WeightMode="Binary", k=3.0),
                                 mopts=dict(ReducedDim=10000.0, bDisp=0.0), seed=2.0)], tag="olppE")[0]
            est = ours(X, y, n_neighbors=3, weight="binary", supervised=False)
            vlast = np.linalg.svd(X - X.mean(0), full_matrices=False)[2][r_ - 1]
            print(f"n={n} d={d} last s^2/s1^2={ratio:g}: {outcome(r, d)}; ours {est.n_components_} columns "
                  f"(rank kept); tiny direction in their span: {np.linalg.norm(r['V'].T @ vlast):.3f}, in ours: "
                  f"{np.linalg.norm(est.components_ @ vlast):.3f}; angle first 3 "
                  f"{max_angle_deg(r['V'][:, :3], est.components_[:3].T):.3g} deg")
