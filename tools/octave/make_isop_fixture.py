"""Write tests/fixtures/isop_octave.json: the authors' IsoP.m, run once under GNU Octave on small
synthetic cases, so that the tests compare isometric projection with the authors' own output.

    python tools/octave/make_isop_fixture.py --toolbox PATH/TO/MatlabFunc [--out tests/fixtures/isop_octave.json]

PATH/TO/MatlabFunc is a checkout of github.com/ZJULearning/MatlabFunc (Deng Cai's toolbox; its
``SubspaceLearning/`` and ``Tools/`` folders are put on Octave's path).  IsoP.m's ``k > 0`` paths
call a compiled ``dijkstra`` that the toolbox ships only as binaries for 32-bit Linux and Windows;
``tools/octave/dijkstra.m`` (plain Dijkstra) stands in for it.  The supervised ``k = 0`` case uses
no shortest paths at all: it is the authors' code alone.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import scipy.io

HERE = Path(__file__).resolve().parent


def cases() -> tuple[dict, dict]:
    """Small data sets and the cases run on them, covering IsoP.m's paths: supervised with k = 0
    (complete classes), with a class kNN graph beside complete ones (k at or above a class's size
    minus one), with more features than samples, and unsupervised on two clusters with no path
    between them in the kNN graph (the far distance)."""
    rng = np.random.default_rng(20071122)
    y = np.repeat([1, 2, 3], [5, 7, 9])
    classes = rng.standard_normal((len(y), 4)) + 2.0 * y[:, None] * rng.standard_normal(4)
    wide_y = np.repeat([1, 2, 3], 3)
    wide = rng.standard_normal((9, 12)) + wide_y[:, None]
    clusters = np.vstack([rng.standard_normal((10, 4)), rng.standard_normal((8, 4)) + 6.0])
    datasets = {"classes": dict(X=classes, y=y), "wide": dict(X=wide, y=wide_y),
                "clusters": dict(X=clusters, y=np.zeros(18, dtype=int))}
    runs = {
        "supervised_k0": dict(data="classes", k=0, mode="Supervised"),
        "supervised_k2": dict(data="classes", k=2, mode="Supervised"),
        "supervised_k6": dict(data="classes", k=6, mode="Supervised"),
        "supervised_k0_wide": dict(data="wide", k=0, mode="Supervised"),
        "unsupervised_k3_two_clusters": dict(data="clusters", k=3, mode="KNN"),
    }
    return datasets, runs


def run_octave(toolbox: Path, datasets: dict, runs: dict) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        scipy.io.savemat(tmp / "in.mat", {name: {"X": datasets[run["data"]]["X"], "y": datasets[run["data"]]["y"] * 1.0,
                                                 "k": run["k"], "mode": run["mode"]} for name, run in runs.items()})
        paths = [toolbox / "SubspaceLearning", toolbox / "Tools", HERE]
        script = "".join(f"addpath('{p}');" for p in paths) + f"run_isop('{tmp / 'in.mat'}', '{tmp / 'out.mat'}');"
        subprocess.run(["octave", "--quiet", "--no-gui", "--eval", script], check=True)
        out = scipy.io.loadmat(tmp / "out.mat", squeeze_me=False)
    return {name: (out[name]["eigvector"][0, 0], out[name]["eigvalue"][0, 0].ravel()) for name in runs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--toolbox", type=Path, required=True, help="a checkout of ZJULearning/MatlabFunc")
    parser.add_argument("--out", type=Path, default=Path("tests/fixtures/isop_octave.json"))
    args = parser.parse_args()
    datasets, runs = cases()
    results = run_octave(args.toolbox.resolve(), datasets, runs)
    version = subprocess.run(["octave", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    fixture = {
        "about": ("IsoP.m of github.com/ZJULearning/MatlabFunc (SubspaceLearning/), run under " + version
                  + " by tools/octave/make_isop_fixture.py; dijkstra: tools/octave/dijkstra.m. "
                  "eigvector: one column per projection (unit length); eigvalue: descending."),
        "datasets": {name: {"X": data["X"].tolist(), "y": data["y"].tolist()} for name, data in datasets.items()},
        "cases": {name: {**run, "eigvector": results[name][0].tolist(), "eigvalue": results[name][1].tolist()}
                  for name, run in runs.items()},
    }
    args.out.write_text(json.dumps(fixture) + "\n")
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
