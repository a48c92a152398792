"""SRDAtrain.m / SR.m (Deng Cai) vs SpectralRegressionDiscriminantAnalysis.

Backs the SRDA comparison table and SRDA departures S1 (the responses: a rand('state',0) random
orthonormal basis in SRDAtrain.m, Gram-Schmidt in ours; the same span, different columns, and our
solver fed their responses reproduces their projections, so the responses are the only difference;
the ORL 1-NN accuracies of the prefixes), S3 (bCenter=0 has no counterpart) and S4 (alpha in the
same absolute units: identical with the same responses).

Prints, per data set and alpha, the |cos| summary and angles with our responses, how their responses
relate to ours, the same with their responses fed to our solver, the ORL 1-NN accuracies of the
first p columns, and the bCenter=0 row.

Usage: python srda_compare.py
"""

import warnings

import numpy as np
import scipy.linalg

import locproj.methods.srda as srda_mod
from common_rest import fmt, nn1_accuracy, octave, orl_split, summary, synthetic, unit_cols
from locproj.methods import SpectralRegressionDiscriminantAnalysis as SRDA

warnings.simplefilter("ignore")
np.set_printoptions(precision=4, linewidth=150)

CODE = """
options = struct(); options.ReguAlpha = double(alpha); options.bCenter = double(bcenter);
model = SRDAtrain(X, y(:), options);
V = model.projection;
% the responses exactly as SRDAtrain.m builds them (same lines)
gnd = y(:); nSmp = size(X,1); ClassLabel = unique(gnd); nClass = length(ClassLabel);
rand('state',0); Yr = rand(nClass,nClass); Z = zeros(nSmp,nClass);
for i=1:nClass, idx = find(gnd==ClassLabel(i)); Z(idx,:) = repmat(Yr(i,:),length(idx),1); end
Z(:,1) = ones(nSmp,1); [Yq,R] = qr(Z,0); Yq(:,1) = [];
"""


def theirs(X, y, alpha, bcenter=1):
    out, _ = octave(CODE, {"X": X, "y": y.astype(float), "alpha": alpha, "bcenter": bcenter}, ["V", "Yq"])
    return out["V"], out["Yq"]


def ours(X, y, alpha, responses=None, **kw):
    if responses is None:
        return SRDA(alpha=alpha, **kw).fit(X, y).components_
    orig = srda_mod.srda_responses
    srda_mod.srda_responses = lambda y_index, n_classes, k=None: responses[:, :k]
    try:
        return SRDA(alpha=alpha, **kw).fit(X, y).components_
    finally:
        srda_mod.srda_responses = orig


def compare(label, X, y, alpha, ks):
    V, Yq = theirs(X, y, alpha)
    P = ours(X, y, alpha)
    s, c = summary(V, P, ks)
    print(f"{label} [our responses]: {fmt(s)}")
    Yo = srda_mod.srda_responses(np.unique(y, return_inverse=True)[1], len(np.unique(y)))
    print(f"   their responses: orthonormal {np.allclose(Yq.T @ Yq, np.eye(Yq.shape[1]))}, "
          f"orthogonal to 1: {np.abs(Yq.sum(0)).max():.1e}; span = ours: max angle "
          f"{np.degrees(scipy.linalg.subspace_angles(Yq, Yo)).max():.2e} deg; "
          f"|cos| of response columns: min {np.abs(np.sum(Yq * Yo, 0)).min():.3f}")
    P2 = ours(X, y, alpha, responses=Yq)
    s2, c2 = summary(V, P2, ks)
    print(f"{label} [their responses fed to ours]: {fmt(s2)}; max|V - P^T| = {np.abs(unit_cols(V) - P2.T).max():.2e}")
    return V, P, Yq


if __name__ == "__main__":
    X, y = synthetic(10, 3, 8, sep=0.7)
    print("== synthetic 3x10, d=8 (primal normal equations)")
    for a in (0.1, 10.0):
        compare(f"alpha={a}", X, y, a, (1, 2))
    Xs, ys = synthetic(5, 3, 20, seed=1, sep=0.7)
    print("== synthetic 3x5, d=20 (dual normal equations)")
    compare("alpha=0.1", Xs, ys, 0.1, (1, 2))
    X5, y5 = synthetic(6, 5, 8, sep=0.7)
    print("== synthetic 5x6, d=8")
    compare("alpha=1", X5, y5, 1.0, (1, 2, 4))
    Xtr, ytr, Xte, yte = orl_split()
    print("== ORL 5/class (n=200, d=1024)")
    for a in (0.1, 1e6):
        V, P, Yq = compare(f"alpha={a:g}", Xtr, ytr, a, (1, 2, 5, 10, 20, 39))
        m = Xtr.mean(0)
        accs_t = {p: nn1_accuracy((Xtr - m) @ unit_cols(V)[:, :p], ytr, (Xte - m) @ unit_cols(V)[:, :p], yte)
                  for p in (5, 10, 20, 39)}
        accs_o = {p: nn1_accuracy((Xtr - m) @ P[:p].T, ytr, (Xte - m) @ P[:p].T, yte) for p in (5, 10, 20, 39)}
        print("   1-NN test accuracy, first p columns: SRDAtrain", accs_t, " ours", accs_o)
    print("== centring: SRDAtrain bCenter=0 (no centring) vs ours (always centred), synthetic 3x10 d=8, alpha=0.1")
    V0, Yq = theirs(X, y, 0.1, bcenter=0)
    P2 = ours(X, y, 0.1, responses=Yq)
    print("  ", fmt(summary(V0, P2, (1, 2))[0]))
