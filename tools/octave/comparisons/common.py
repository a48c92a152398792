"""Set-up shared by every comparison script: where the authors' code is, the face data, a scratch folder.

Environment variables (README.md):

* ``MATLABFUNC`` (required by every script that runs Octave): a checkout of
  github.com/ZJULearning/MatlabFunc at 97504df0f597c1980ab76ddc0c9c5d669043c6c9 (Deng Cai's toolbox);
  its ``SubspaceLearning/`` and ``Tools/`` folders go on Octave's path.
* ``LFDA_M``: the folder holding Sugiyama's ``LFDA.m``; the LFDA comparisons are skipped when unset.
* ``KGE_PATCHED``: a folder holding a copy of the toolbox's ``KGE.m`` with its PCA branch fixed
  (README.md says which lines); the kernel LPP comparisons that need it are skipped when unset.
* ``KGE_PARTIAL``: a copy of ``KGE.m`` with only its two products fixed (kernel LPP departure K1,
  second line); skipped when unset.
* ``OLGE_DIAG``: a copy of ``OLGE.m`` whose ``eigs`` error message names the step and ARPACK's
  message (OLPP departure O1); without it that section runs the unmodified ``OLGE.m`` and its
  messages say only that ``eigs`` failed.
* ``LOCPROJ_DATA_MIRROR``: the data mirror with ``ORL_32x32.mat`` and ``Yale_32x32.mat``
  (default ``../shared/datasets`` relative to the repository); the face data are prepared from it
  by ``locproj.data.prepare_dataset`` with ``config/datasets.yaml``'s dataset spec, into a temporary
  folder.

Octave's working files also go to that temporary folder, removed when the script ends; nothing is
written into the repository.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
OCTAVE_TOOLS = HERE.parent  # tools/octave: dijkstra.m, the stand-in for the toolbox's compiled dijkstra
MATLABFUNC_COMMIT = "97504df0f597c1980ab76ddc0c9c5d669043c6c9"

SCRATCH = Path(tempfile.mkdtemp(prefix="locproj-comparisons-"))
atexit.register(shutil.rmtree, SCRATCH, ignore_errors=True)


def matlabfunc() -> str:
    """The toolbox folder from ``MATLABFUNC`` (absolute); exits with a clear message when it is unset or
    does not hold the toolbox."""
    value = os.environ.get("MATLABFUNC", "")
    if not value:
        sys.exit("MATLABFUNC is not set: point it at a checkout of github.com/ZJULearning/MatlabFunc "
                 f"(commit {MATLABFUNC_COMMIT}), the folder that holds SubspaceLearning/ and Tools/.")
    path = Path(value).expanduser().resolve()
    if not (path / "SubspaceLearning" / "LPP.m").is_file() or not (path / "Tools" / "constructW.m").is_file():
        sys.exit(f"MATLABFUNC={value} does not hold SubspaceLearning/LPP.m and Tools/constructW.m: point it at a "
                 f"checkout of github.com/ZJULearning/MatlabFunc (commit {MATLABFUNC_COMMIT}).")
    return str(path)


def optional_folder(variable: str, filename: str) -> str | None:
    """The folder named by the environment variable ``variable`` (absolute), or None when it is unset;
    exits with a clear message when it is set but does not hold ``filename``."""
    value = os.environ.get(variable, "")
    if not value:
        return None
    path = Path(value).expanduser().resolve()
    if not (path / filename).is_file():
        sys.exit(f"{variable}={value} does not hold {filename}.")
    return str(path)


def synthetic(n_classes=3, per_class=10, d=8, seed=0, spread=3.0):
    """Gaussian classes with random means (no exact distance ties), labels 1..n_classes."""
    rng = np.random.default_rng(seed)
    means = rng.normal(scale=spread, size=(n_classes, d))
    X = np.vstack([m + rng.normal(size=(per_class, d)) for m in means])
    y = np.repeat(np.arange(1, n_classes + 1), per_class)
    return X, y


def skipped(what: str, variable: str, holds: str) -> None:
    """Print that a comparison is skipped because ``variable`` is unset."""
    print(f"SKIPPED: {what} ({variable} is not set; point it at the folder that holds {holds}, README.md)")


def mirror() -> Path:
    return Path(os.environ.get("LOCPROJ_DATA_MIRROR", REPO.parent / "shared" / "datasets")).expanduser()


@functools.cache
def face_data(name: str) -> tuple[np.ndarray, np.ndarray]:
    """All images ``X`` (float, 0-255 pixels) and labels ``y`` of the face data set ``name`` ('orl' or
    'yale'), prepared from the data mirror as the pipeline prepares them (into the scratch folder)."""
    from locproj.data import prepare_dataset
    from locproj.engine.config_files import load_config

    spec = load_config(REPO)["datasets"][name]
    files = [mirror() / f["name"] for f in spec["files"]]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        sys.exit(f"the data mirror lacks {', '.join(missing)}: set LOCPROJ_DATA_MIRROR to the folder that holds "
                 "them (default ../shared/datasets relative to the repository).")
    data = prepare_dataset(name, spec, files, SCRATCH / f"{name}.h5")
    return np.asarray(data.X, float), np.asarray(data.y)
