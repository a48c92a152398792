"""Helpers of the NPE, LSDA, SRDA and LFDA comparisons (npe_*.py, lsda_*.py, srda_*.py, lfda_*.py): run
the authors' MATLAB code in Octave, the data, the comparison metrics.

Octave gets the inputs through scipy.io.savemat and hands back the outputs through
save('-mat7-binary'); its path holds the toolbox's SubspaceLearning/ and Tools/ (MATLABFUNC) and,
for the LFDA scripts, the folder of Sugiyama's LFDA.m (LFDA_M).
"""

import os
import subprocess
import tempfile
import textwrap

import numpy as np
import scipy.io as sio
import scipy.linalg as sla
from scipy.spatial.distance import cdist

import common
from common import OCTAVE_TOOLS, SCRATCH, face_data, matlabfunc, optional_folder

LFDA_DIR = optional_folder("LFDA_M", "LFDA.m")


def octave(code, inputs, outputs, extra_paths=()):
    """Run `code` in Octave with `inputs` (dict of arrays) loaded; return dict of `outputs`."""
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        fin, fout = os.path.join(tmp, "in.mat"), os.path.join(tmp, "out.mat")
        sio.savemat(fin, inputs)
        toolbox = matlabfunc()
        paths = [f"{toolbox}/SubspaceLearning", f"{toolbox}/Tools", OCTAVE_TOOLS, *extra_paths]
        script = "\n".join([f"addpath('{p}');" for p in paths] +
                           ["warning('off','all');", f"load('{fin}');", textwrap.dedent(code),
                            f"save('-mat7-binary', '{fout}', {', '.join(repr(o) for o in outputs)});"])
        fs = os.path.join(tmp, "comparison_case.m")
        with open(fs, "w") as f:
            f.write(script)
        r = subprocess.run(["nice", "-n", "10", "octave", "-q", "--no-gui", fs],
                           capture_output=True, text=True, cwd=tmp)
        if not os.path.exists(fout):
            raise RuntimeError(r.stdout + r.stderr)
        out = sio.loadmat(fout)
        return {k: out[k] for k in outputs}, r.stdout


def unit_cols(V):
    V = np.asarray(V, float)
    return V / np.linalg.norm(V, axis=0, keepdims=True)


def col_cosines(V_theirs, P_ours):
    """|cos| between column j of theirs (d x p) and row j of ours (p x d)."""
    A, B = unit_cols(V_theirs), unit_cols(np.asarray(P_ours).T)
    p = min(A.shape[1], B.shape[1])
    return np.abs(np.sum(A[:, :p] * B[:, :p], axis=0))


def principal_angles_deg(V_theirs, P_ours, k):
    A, B = np.asarray(V_theirs)[:, :k], np.asarray(P_ours)[:k].T
    return np.degrees(sla.subspace_angles(A, B))


def summary(V_theirs, P_ours, ks=(1, 2, 5, 10, 20, 39)):
    c = col_cosines(V_theirs, P_ours)
    p = len(c)
    s = {"p_theirs": np.asarray(V_theirs).shape[1], "p_ours": np.asarray(P_ours).shape[0],
         "min|cos|": float(c.min()), "median|cos|": float(np.median(c)),
         "n(|cos|<0.999)": int(np.sum(c < 0.999))}
    for k in ks:
        if k <= p:
            s[f"maxangle{k}"] = float(principal_angles_deg(V_theirs, P_ours, k).max())
    return s, c


def fmt(s):
    return ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in s.items())


def synthetic(n_per=10, c=3, d=8, seed=0, sep=3.0):
    """:func:`common.synthetic` with this family's order of arguments (per class, classes, features)."""
    return common.synthetic(c, n_per, d, seed, sep)


def orl_split(name="orl", n_train=5, seed=0):
    """n_train training images per class drawn with default_rng(seed).choice, class by class; returns
    Xtr, ytr, Xte, yte with labels 1..c (the rest of the images are the test set)."""
    X, y = face_data(name)
    rng = np.random.default_rng(seed)
    tr = []
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        tr.extend(rng.choice(idx, n_train, replace=False))
    tr = np.sort(np.array(tr))
    te = np.setdiff1d(np.arange(len(y)), tr)
    _, yi = np.unique(y, return_inverse=True)
    return X[tr], yi[tr] + 1, X[te], yi[te] + 1


def nn1_accuracy(Ztr, ytr, Zte, yte):
    D = cdist(Zte, Ztr, "sqeuclidean")
    return float(np.mean(ytr[np.argmin(D, axis=1)] == yte))
