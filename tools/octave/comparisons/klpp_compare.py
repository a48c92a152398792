"""Kernel LPP: Deng Cai's constructW + KLPP.m (+ KGE.m, constructKernel.m) against KernelLPP.

Option map: graph as for LPP (lpp_compare.py: NeighborMode/k/WeightMode/t <-> supervised/
n_neighbors/weight/t = 2 t_graph^2); KernelType='Gaussian', t_k <-> kernel='rbf',
gamma = 1 / (2 t_k^2); 'Linear' <-> kernel='linear'; their kernel is always centred (KGE.m)
<-> center_kernel=True; their unit RKHS norm (centred K) <-> column_scaling='unit'.
Columns are compared in the RKHS: cos = a' Kc b / (|a|_Kc |b|_Kc), Kc the centred kernel.

Their default (Regu=0, the PCA branch) fails on every input (see the first lines of output), so
the table compares ours with (i) the PCA branch of a copy of KGE.m with the non-conformant
products and the normalisation fixed (the folder in KGE_PATCHED, README.md; these rows are skipped
when it is not set) and (ii) their Regu=1 branch with a small ReguAlpha (1e-6 relative to
mean(diag(K D K)); an absolute ReguAlpha follows the kernel's scale, see klpp_departures.py).

Backs the kernel LPP comparison table, kernel LPP departure K1 (the first lines: their unmodified
default fails, Regu=1 without ReguAlpha fails) and K2 (the Regu rows differ from ours by the ridge).

Prints their unmodified KLPP.m's outcome for five option sets, any complex or non-finite output of
theirs, then the markdown table of the comparison.

Usage: python klpp_compare.py
"""

import warnings

import numpy as np
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.preprocessing import KernelCenterer

from common import skipped
from common_lpp import KGE_PATCHED, compare, face_split, md_header, md_row, our_W, run_octave, synthetic
from lpp_compare import configs
from locproj.methods import KernelLPP

LEAD = 10
datasets = {
    "syn 3x10x8": (synthetic(3, 10, 8, seed=0), 3.0, 5.0),
    "syn d>n 3x5x40": (synthetic(3, 5, 40, seed=1), 6.0, 10.0),
    "ORL 5/class": (face_split("orl", 5, 0), 1000.0, 1500.0),
}
GRAPHS = ("Sup k=0 Binary", "Sup k=3 Heat", "KNN k=5 Heat", "KNN k=5 Binary")


def our_kernel(X, kname, tk):
    K = rbf_kernel(X, gamma=1 / (2 * tk * tk)) if kname == "Gaussian" else X @ X.T
    return KernelCenterer().fit_transform(K)


def main():
    # 0. their default, unmodified
    (X, y), tw, tk = datasets["syn 3x10x8"]
    g = {c[0]: c for c in configs(y, tw)}["KNN k=5 Heat"]
    base = dict(fea=X, method="KLPP", wopts=g[1])
    res = run_octave([dict(base, mopts=dict(KernelType="Gaussian", t=tk)),
                      dict(base, mopts=dict(KernelType="Gaussian", t=tk, Regu=0.0)),
                      dict(base, mopts=dict(KernelType="Linear")),
                      dict(base, mopts=dict(KernelType="Gaussian", t=tk, Regu=1.0)),
                      dict(base, mopts=dict(KernelType="Gaussian", Regu=1.0, ReguAlpha=0.01))], tag="klpp0")
    print("their KLPP.m, unmodified, syn 3x10x8, KNN k=5 heat graph:")
    for label, r in zip(("defaults (Regu unset), Gaussian t", "Regu=0, Gaussian t", "defaults, Linear",
                         "Regu=1, ReguAlpha unset", "Regu=1, ReguAlpha=0.01, Gaussian t unset (default)"), res):
        extra = ""
        if r["ok"] and r["V"].size:
            extra = f"; any NaN in eigvector: {bool(np.isnan(r['V']).any())}; eigvalue {r['e'][:3]}"
        print(f"  {label:52s}: {'ERROR: ' + r['err'] if not r['ok'] else str(r['V'].shape[1]) + ' columns'}"
              f"{extra}; t used {r['t_used']}")

    cases, meta = [], []
    if KGE_PATCHED is None:
        skipped("the rows against the fixed PCA branch of KGE.m (patched PCA branch)", "KGE_PATCHED",
                "the fixed KGE.m")
    for dname, ((X, y), tw, tk) in datasets.items():
        for cname, wopts, oo in [c for c in configs(y, tw) if c[0] in GRAPHS]:
            for kname in ("Gaussian", "Linear"):
                kopt = dict(KernelType=kname, ReducedDim=10000.0)
                if kname == "Gaussian":
                    kopt["t"] = tk
                # a ridge 1e-6 relative to the constraint K D K (KLPP.m multiplies ReguAlpha by the mean degree)
                Kc = our_kernel(X, kname, tk)
                Wg = our_W(X, y, oo["n_neighbors"], oo["weight"], oo.get("gamma"), oo["supervised"])
                deg = Wg.sum(1)
                alpha = 1e-6 * np.mean(np.einsum("ij,j,ji->i", Kc, deg, Kc)) / deg.mean()
                for variant, extra, patched in (("patched PCA branch", {}, 1.0),
                                                ("Regu=1, ReguAlpha=1e-6 rel.", dict(Regu=1.0, ReguAlpha=alpha), 0.0)):
                    if patched and KGE_PATCHED is None:
                        continue
                    cases.append(dict(fea=X, method="KLPP", wopts=wopts, mopts=dict(kopt, **extra), patched=patched))
                    meta.append((dname, cname, kname, variant, X, y, oo, tk))
    res = run_octave(cases, tag="klpp")
    rows = []
    for (dname, cname, kname, variant, X, y, oo, tk), r in zip(meta, res):
        if not r["ok"]:
            print(dname, cname, kname, variant, "their ERROR:", r["err"])
            continue
        kw = dict(n_neighbors=oo["n_neighbors"], weight=oo["weight"], t=oo.get("gamma"), supervised=oo["supervised"])
        kw.update(dict(kernel="rbf", gamma=1 / (2 * tk * tk)) if kname == "Gaussian" else dict(kernel="linear"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = KernelLPP(**kw).fit(X, y if oo["supervised"] else None)
        Kc = our_kernel(X, kname, tk)
        bad = []
        if r["complex"]:
            bad.append("complex eigenpairs (real parts used)")
        if not np.all(np.isfinite(r["V"])):
            bad.append(f"{int(np.sum(~np.all(np.isfinite(r['V']), 0)))} non-finite columns")
        if bad:
            print(f"{dname} {cname} {kname} {variant}: their output has " + ", ".join(bad))
        c = compare(r["V"], 1 - r["e"], est.dual_coef_, est.eigenvalues_, lead=LEAD, metric=Kc)
        rows.append(md_row(dname, f"{cname}, {kname}, theirs: {variant}", c))
    print()
    print(md_header(LEAD))
    print("\n".join(rows))


if __name__ == "__main__":
    main()
