"""Helpers of the LPP, OLPP and kernel LPP comparisons (graphs*.py, lpp_*.py, olpp_*.py, klpp_*.py,
spectra.py): data, running Deng Cai's constructW + LPP / OLPP / KLPP in Octave through run_cases.m,
our graph, the comparison metrics and the table rows.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile

import numpy as np
import scipy.io
import scipy.linalg
from scipy import sparse

from common import HERE, OCTAVE_TOOLS, SCRATCH, face_data, matlabfunc, optional_folder, synthetic  # noqa: F401

WORK = os.path.join(SCRATCH, "work")
os.makedirs(WORK, exist_ok=True)

# the modified copies of the authors' files that some cases put first on Octave's path (README.md)
KGE_PATCHED = optional_folder("KGE_PATCHED", "KGE.m")
KGE_PARTIAL = optional_folder("KGE_PARTIAL", "KGE.m")
OLGE_DIAG = optional_folder("OLGE_DIAG", "OLGE.m")


# --------------------------------------------------------------------------- data

def face_split(name="orl", per_class=5, seed=0, test=False):
    """per_class training images per class, drawn with default_rng(seed) class by class
    (test=True: also the remaining images as (Xte, yte))."""
    X, y = face_data(name)
    rng = np.random.default_rng(seed)
    idx = np.concatenate([np.sort(rng.permutation(np.flatnonzero(y == c))[:per_class]) for c in np.unique(y)])
    classes, yi = np.unique(y, return_inverse=True)
    yi = yi + 1  # labels 1..c
    if not test:
        return X[idx], yi[idx]
    rest = np.setdiff1d(np.arange(len(y)), idx)
    return X[idx], yi[idx], X[rest], yi[rest]


# --------------------------------------------------------------------------- Octave

def _octave_string(text):
    return "'" + str(text).replace("'", "''") + "'"


def run_octave(cases, tag="case"):
    """cases: list of dicts (fea, method, wopts, mopts, and optionally code, seed, patched,
    patched_partial, diag_olge: run_cases.m).  Returns a list of dicts with V, e, W, ok, err, t_used,
    complex (whether V or e had an imaginary part) and stdout (what Octave printed for the case)."""
    for case in cases:  # the scripts skip these cases when the folder is not set
        for key, folder, variable in (("patched", KGE_PATCHED, "KGE_PATCHED"), ("patched_partial", KGE_PARTIAL,
                                      "KGE_PARTIAL"), ("diag_olge", OLGE_DIAG, "OLGE_DIAG")):
            if case.get(key) and folder is None:
                raise RuntimeError(f"a case asks for the modified copy in {variable}, which is not set")
    files = []
    with tempfile.NamedTemporaryFile("w", dir=WORK, suffix=".txt", delete=False) as lst:
        for i, case in enumerate(cases):
            fin = os.path.join(WORK, f"{tag}_{i}_in.mat")
            fout = os.path.join(WORK, f"{tag}_{i}_out.mat")
            if os.path.exists(fout):
                os.remove(fout)
            payload = {k: v for k, v in case.items()}
            payload["fea"] = np.asarray(case["fea"], float)
            for key in ("wopts", "mopts"):
                payload[key] = {k: (np.asarray(v, float).reshape(-1, 1) if k == "gnd" else v)
                                for k, v in case.get(key, {}).items()}
                if not payload[key]:
                    payload[key] = {"dummy__": 0.0}
            scipy.io.savemat(fin, payload)
            lst.write(f"{fin} {fout}\n")
            files.append(fout)
        listfile = lst.name
    args = [listfile, matlabfunc(), OCTAVE_TOOLS, KGE_PATCHED or "", KGE_PARTIAL or "", OLGE_DIAG or ""]
    code = f"addpath({_octave_string(HERE)}); run_cases({', '.join(_octave_string(a) for a in args)})"
    cmd = ["nice", "-n", "10", "octave", "-q", "--no-gui", "--eval", code]
    proc = subprocess.run(cmd, cwd=WORK, capture_output=True, text=True)
    chunks = re.split(r"^=== case (\d+)\n", proc.stdout, flags=re.M)
    per_case = {int(chunks[i]) - 1: chunks[i + 1] for i in range(1, len(chunks) - 1, 2)}
    out = []
    for f in files:
        if not os.path.exists(f):
            raise RuntimeError(f"octave produced no {f}:\n{proc.stdout}\n{proc.stderr}")
        r = scipy.io.loadmat(f, squeeze_me=False)
        complex_out = bool(np.iscomplexobj(r["V"]) and np.abs(np.imag(r["V"])).max(initial=0) > 0) or bool(
            np.iscomplexobj(r["e"]) and np.abs(np.imag(r["e"])).max(initial=0) > 0)
        res = {
            "complex": complex_out,  # the real parts are kept below
            "V": (np.real(np.asarray(r["V"])).astype(float) if r["V"].size
                  else np.zeros((case_dim(cases, files.index(f)), 0))),
            "e": np.real(np.asarray(r["e"])).astype(float).ravel(),
            "W": np.asarray(r["W"].toarray() if sparse.issparse(r["W"]) else r["W"], float),
            "ok": int(np.asarray(r["ok"]).ravel()[0]) if np.asarray(r["ok"]).size else 1,
            "err": str(np.asarray(r["err"]).ravel()[0]) if np.asarray(r["err"]).size else "",
            "t_used": float(np.asarray(r["t_used"]).ravel()[0]),
            "stdout": per_case.get(files.index(f), ""),
        }
        out.append(res)
    return out


def case_dim(cases, i):
    c = cases[i]
    return c["fea"].shape[0] if c["method"] == "KLPP" else c["fea"].shape[1]


# --------------------------------------------------------------------------- our side

def our_W(X, y, n_neighbors, weight, gamma, supervised):
    """The symmetrised affinity our LPP / OLPP / kernel LPP build (dense)."""
    from locproj.core.neighbor_graphs import binary_weights, heat_weights, kneighbors, symmetrize
    nbhd = kneighbors(X, n_neighbors, y if supervised else None)
    W = heat_weights(nbhd, gamma) if weight == "heat" else binary_weights(nbhd)
    return symmetrize(W).toarray()


# --------------------------------------------------------------------------- comparisons

def clusters(lam, tol=1e-8):
    """Runs of (sorted) eigenvalues closer than tol (absolute: they are O(1))."""
    lam = np.asarray(lam)
    if len(lam) == 0:
        return []
    breaks = np.flatnonzero(np.abs(np.diff(lam)) > tol) + 1
    edges = np.concatenate([[0], breaks, [len(lam)]])
    return [slice(a, b) for a, b in zip(edges[:-1], edges[1:])]


def max_angle_deg(A, B):
    """Largest principal angle (degrees) between span(A) and span(B) (columns)."""
    if A.shape[1] == 0 or B.shape[1] == 0 or not (np.all(np.isfinite(A)) and np.all(np.isfinite(B))):
        return float("nan")
    ang = scipy.linalg.subspace_angles(A, B)
    return float(np.degrees(ang.max())) if ang.size else float("nan")


def compare(Vt, lam_t, P, lam_o, lead=10, tol=1e-8, metric=None):
    """Vt (d, m) their columns, lam_t their eigenvalues converted to our convention (ascending),
    P (d, p) our columns, lam_o ours.  Per-column |cos| on columns outside degenerate clusters;
    principal angles on whole clusters and on leading prefixes that end at a cluster boundary.
    metric: Gram matrix for the inner product (kernel LPP: the centred K)."""
    m = min(Vt.shape[1], P.shape[1])
    G = metric

    def inner(a, b):
        return a.T @ b if G is None else a.T @ G @ b

    def nrm(a):
        return np.sqrt(np.clip(np.einsum("ij,ij->j", a, a if G is None else G @ a), 0, None))

    cos = np.abs(np.einsum("ij,ij->j", Vt[:, :m], P[:, :m] if G is None else G @ P[:, :m])) / (
        nrm(Vt[:, :m]) * nrm(P[:, :m]))
    cl = clusters(lam_o[:m], tol)
    single = np.zeros(m, bool)
    for s in cl:
        if s.stop - s.start == 1:
            single[s] = True
    res = {
        "m_theirs": Vt.shape[1], "m_ours": P.shape[1], "m": m, "lam_t": np.asarray(lam_t),
        "dlam_max": float(np.max(np.abs(lam_t[:m] - lam_o[:m]))) if m else float("nan"),
        "dlam_rel_max": (float(np.max(np.abs(lam_t[:m] - lam_o[:m]) / np.maximum(np.abs(lam_o[:m]), 1e-12))) if m
                         else float("nan")),
        # relative difference over the eigenvalues that are not numerically zero
        "dlam_rel_nz": float(np.max((np.abs(lam_t[:m] - lam_o[:m]) / np.abs(lam_o[:m]))[np.abs(lam_o[:m]) > 1e-6]))
        if m and np.any(np.abs(lam_o[:m]) > 1e-6) else float("nan"),
        "cos": cos,
        "one_minus_cos_lead": float(np.max(1 - cos[:lead][single[:lead]])) if np.any(single[:lead]) else float("nan"),
        "one_minus_cos_all": float(np.max(1 - cos[single])) if np.any(single) else float("nan"),
        "clusters": [(s.start, s.stop) for s in cl if s.stop - s.start > 1],
    }
    # principal angles: each multi-column cluster, and prefixes at cluster boundaries
    if G is not None:  # orthonormalise in the metric: angles in the RKHS
        w, U = np.linalg.eigh(G)
        keep = w > 1e-10 * w.max()
        R = (U[:, keep] * np.sqrt(w[keep])).T  # R^T R = G on the range
        Vt_, P_ = R @ Vt, R @ P
    else:
        Vt_, P_ = Vt, P
    res["cluster_angles"] = [max_angle_deg(Vt_[:, s.start:s.stop], P_[:, s.start:s.stop])
                             for s in cl if s.stop - s.start > 1 and s.stop <= m]
    bounds = sorted({s.stop for s in cl})
    pref = {}
    for p in bounds:
        if p <= m:
            pref[p] = max_angle_deg(Vt_[:, :p], P_[:, :p])
    res["prefix_angles"] = pref
    return res


def fmt(res, lead=10):
    pa = res["prefix_angles"]
    show = {p: a for p, a in pa.items() if p <= lead or p == max(pa)} if pa else {}
    return (f"cols theirs/ours {res['m_theirs']}/{res['m_ours']}; max|dlam| {res['dlam_max']:.2e} "
            f"(rel {res['dlam_rel_max']:.2e}); max(1-|cos|) lead{lead} {res['one_minus_cos_lead']:.2e}, "
            f"all {res['one_minus_cos_all']:.2e}; clusters {res['clusters']}; cluster angles(deg) "
            f"{[round(a, 6) for a in res['cluster_angles']]}; prefix angles(deg) "
            f"{ {p: float('%.3g' % a) for p, a in show.items()} }")


def md_header(lead=10):
    return (f"| data | setting | columns theirs / ours | max abs(dlambda) (common columns) | "
            f"max rel. dlambda (lambda > 1e-6) | "
            f"max(1-abs(cos)), first {lead} non-degenerate | max(1-abs(cos)), all common non-degenerate | "
            f"largest principal angle (deg), span of the common columns | "
            f"degenerate clusters (ours), angle between spans (deg) |\n"
            "|---|---|---|---|---|---|---|---|---|")


def md_row(dname, cname, c):
    m = c["m"]
    span = c["prefix_angles"].get(m, float("nan"))
    cl = "; ".join(f"{a}-{b}: {ang:.1e}" for (a, b), ang in zip(c["clusters"], c["cluster_angles"])) or "none"
    def e(x):  # 1 - |cos| can be -2e-16 by rounding: shown as its magnitude
        return "n/a" if x != x else f"{abs(x):.1e}"
    return (f"| {dname} | {cname} | {c['m_theirs']} / {c['m_ours']} | {e(c['dlam_max'])} | {e(c['dlam_rel_nz'])} | "
            f"{e(c['one_minus_cos_lead'])} | {e(c['one_minus_cos_all'])} | {e(span)} | {cl} |")
