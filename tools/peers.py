"""The Python peers a user might pick instead of locproj, measured against it on the same data.

* metric-learn 0.7.0's LFDA against :class:`locproj.methods.LocalFisherDiscriminantAnalysis` (which
  equals Sugiyama's ``LFDA.m`` to rounding: ``tools/octave/comparisons/lfda_compare.py``);
* lpproj 0.1's LPP against :class:`locproj.methods.LocalityPreservingProjection` (unsupervised, binary
  weights: lpproj's ``weight='adjacency'``);
* scikit-learn's ``LocallyLinearEmbedding`` against :class:`locproj.methods.SupervisedLLE` with
  ``alpha=0``.

Agreement is the mean squared cosine of the principal angles between the two subspaces (1: the same
subspace): of the projections' columns for LFDA and LPP, of the training embeddings' columns for LLE.
Neither peer runs under this project's scikit-learn and SciPy (metric-learn calls
``check_array(force_all_finite=...)``, gone in scikit-learn 1.8; lpproj calls ``eigh(turbo=...,
eigvals=...)``, gone in SciPy 1.14), so each runs in an environment of its own under ``--envs`` (made
with pip when missing, with the versions of :data:`PEERS`), on data this script writes, and returns
its projection in a file; scikit-learn's LLE runs here.

    python tools/peers.py --envs /tmp/locproj-peers      # pip the first time (a few minutes), then seconds

Prints one Markdown table (the one in ``docs/methods.md``, "Python peers").
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

#: Each peer's environment: versions under which it runs (Python 3.11 wheels exist for all).
PEERS = {
    "metric-learn": ["metric-learn==0.7.0", "scikit-learn==1.5.2", "scipy==1.13.1", "numpy==1.26.4"],
    "lpproj": ["lpproj==0.1", "scikit-learn==1.5.2", "scipy==1.13.1", "numpy==1.26.4"],
}

#: Each peer's departures from locproj, undone one by one to find what explains a difference: a
#: (text, replacement) in the source of the peer's module, made before the class is built.
FIXES = {
    # the local scale of each point from its own row of the distances (not from column k of a matrix
    # partitioned by columns), and k no longer capped at the number of features minus one
    "axis": ("np.partition(dist, k, axis=0)[:, k]", "np.partition(dist, k, axis=1)[:, k]"),
    "k": ("elif self.k >= d:", "elif False:"),
    # each point's k neighbours without itself (kneighbors_graph's include_self=True makes it one of them),
    # and the data centred before the eigenproblem (X^T D X depends on the mean; X^T L X does not)
    "self": ("mode='connectivity', include_self=True)", "mode='connectivity', include_self=False)"),
    "centre": ("        X = check_array(X)\n\n        D = np.diag",
               "        X = check_array(X)\n        X = X - X.mean(0)\n\n        D = np.diag"),
    # scikit-learn's LLE regulariser absolute (reg), not relative (reg times the trace of the local Gram)
    "absolute reg": ("R = reg * trace", "R = reg"),
}

#: The class of a module built from its source with fixes (:data:`FIXES`, as ``{text: replacement}``).
PATCHED = """
def patched(module_name, class_name, fixes):
    import importlib
    module = importlib.import_module(module_name)
    source = open(module.__file__).read()
    for old, new in fixes.items():
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    namespace = {"__name__": module_name + "_fixed", "__package__": module.__package__}
    exec(compile(source, module.__file__, "exec"), namespace)
    return namespace[class_name]
"""

#: What a peer's environment runs: fit the peer on ``data`` (its fixes made) and save its projection
#: (features x r).
WORKER = PATCHED + """
import sys
import numpy as np

peer, data, out, k, r, fixes = sys.argv[1:7]
k, r, fixes = int(k), int(r), dict(fix.split("=>") for fix in fixes.split("|") if fix)
X, y = np.load(data)["X"], np.load(data)["y"]
if peer == "metric-learn":
    projection = patched("metric_learn.lfda", "LFDA", fixes)(n_components=r, k=k).fit(X, y).components_.T
else:
    LPP = patched("lpproj.lpproj", "LocalityPreservingProjection", fixes)
    projection = LPP(n_components=r, n_neighbors=k, weight="adjacency").fit(X).projection_
np.save(out, projection)
"""


def datasets() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Digits after a PCA to 30 dimensions, wine standardised, iris as it is (scikit-learn's copies),
    and iris with a jitter of 1e-6 (seeded) that leaves no two distances equal: its measurements, to
    a tenth of a centimetre, tie many neighbours, which each library breaks its own way."""
    from sklearn.datasets import load_digits, load_iris, load_wine
    from sklearn.decomposition import PCA
    from sklearn.preprocessing import StandardScaler

    digits, wine, iris = load_digits(), load_wine(), load_iris()
    return {"digits after a PCA to 30 dimensions": (PCA(30, random_state=0).fit_transform(digits.data), digits.target),
            "wine, standardised": (StandardScaler().fit_transform(wine.data), wine.target),
            "iris": (iris.data, iris.target),
            "iris, jittered by 1e-6": (iris.data + 1e-6 * np.random.default_rng(0).standard_normal(iris.data.shape),
                                       iris.target)}


def agreement(a: np.ndarray, b: np.ndarray) -> float:
    """The mean squared cosine of the principal angles between the column spaces of ``a`` and ``b``."""
    from scipy.linalg import subspace_angles

    return float(np.mean(np.cos(subspace_angles(a, b)) ** 2))


def peer_python(envs: Path, peer: str) -> Path:
    """The Python of ``peer``'s environment under ``envs``, made with pip when missing."""
    env = envs / peer
    python = env / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", *PEERS[peer]], check=True)
    return python


def run_peer(python: Path, peer: str, X, y, k: int, r: int, folder: Path, fixes=()) -> np.ndarray:
    """``peer``'s projection of ``(X, y)`` (features x r), fitted in its environment, with the
    :data:`FIXES` named in ``fixes`` made first."""
    data, out = folder / "data.npz", folder / "projection.npy"
    np.savez(data, X=X, y=y)
    fixed = "|".join("=>".join(FIXES[name]) for name in fixes)
    subprocess.run([str(python), "-c", WORKER, peer, str(data), str(out), str(k), str(r), fixed], check=True)
    return np.load(out)


def rows(envs: Path):
    """(peer, data, setting, agreement) of every comparison."""
    from scipy.sparse.csgraph import connected_components
    from sklearn.neighbors import kneighbors_graph

    from locproj.methods import LocalFisherDiscriminantAnalysis, LocalityPreservingProjection, SupervisedLLE

    metric_learn, lpproj = peer_python(envs, "metric-learn"), peer_python(envs, "lpproj")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, (X, y) in datasets().items():
            r = len(np.unique(y)) - 1
            ours = LocalFisherDiscriminantAnalysis(r, n_neighbors=7).fit(X, y).components_.T
            for fixes in ((), ("axis",), ("axis", "k")):
                if "k" in fixes and X.shape[1] > 7:         # k is capped at d - 1 only where d <= 7
                    continue
                theirs = run_peer(metric_learn, "metric-learn", X, y, 7, r, folder, fixes)
                setting = f"k = 7, r = {r}" + (f"; fixed: {', '.join(fixes)}" if fixes else "")
                yield "metric-learn LFDA", name, setting, agreement(theirs, ours)
            ours = LocalityPreservingProjection(r, n_neighbors=5, weight="binary", supervised=False).fit(X, y)
            for fixes in ((), ("self",), ("self", "centre")):
                theirs = run_peer(lpproj, "lpproj", X, y, 5, r, folder, fixes)
                setting = f"k = 5, r = {r}, binary weights" + (f"; fixed: {', '.join(fixes)}" if fixes else "")
                yield "lpproj LPP", name, setting, agreement(theirs, ours.components_.T)
            ours = SupervisedLLE(r, n_neighbors=10, alpha=0.0, reg=1e-3, eigen_solver="dense").fit(X, y).embedding_
            parts = connected_components(kneighbors_graph(X, 10), directed=False)[0]
            for fixes in ((), ("absolute reg",)):
                namespace = {}
                exec(PATCHED, namespace)
                LLE = namespace["patched"]("sklearn.manifold._locally_linear", "LocallyLinearEmbedding",
                                           dict(FIXES[name] for name in fixes))
                theirs = LLE(n_neighbors=10, n_components=r, reg=1e-3, eigen_solver="dense").fit(X).embedding_
                setting = f"SLLE alpha = 0, reg = 1e-3, k = 10 (graph of {parts} parts), r = {r}" + (
                    f"; fixed: {', '.join(fixes)}" if fixes else "")
                yield "scikit-learn LLE", name, setting, agreement(theirs, ours)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", type=Path, required=True, help="folder of the peers' environments")
    args = parser.parse_args()
    print("| peer | data | setting | agreement with locproj |\n|---|---|---|---:|")
    for peer, name, setting, value in rows(args.envs.resolve()):
        print(f"| {peer} | {name} | {setting} | {value:.6f} |")


if __name__ == "__main__":
    main()
