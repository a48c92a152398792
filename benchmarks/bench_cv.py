"""Benchmark: our all-p cross-validation vs scikit-learn ``GridSearchCV`` on one split.

The reference is YaleB, m = 30, LPP (Wu et al. 2007, §6.2 grid): our
:func:`locproj.engine.selection.cross_validate` fits each (fold, grid point) once and
reads every p from it; the baseline is ``GridSearchCV(Pipeline([PCA, projection
(n_components=p), KNeighborsClassifier(1)]))`` over the same grid and folds, run
on a subsample of p and its time extrapolated to all p.

The projection is pluggable (``--make module:callable``, ``make(params) ->
estimator`` with an ``n_components`` parameter). The default stand-in is
scikit-learn's PCA with a ``whiten`` grid, so the machinery runs before LPP
exists; for LPP pass e.g.::

    python benchmarks/bench_cv.py --make lpp \\
        --grid '{"n_neighbors": [5, 10, 20, "m-1"], "gamma": {"sigma0_sq_times": [0.0625, 1, 16]}}'

Without the YaleB file (``--data``) a synthetic data set of the same shape is used.
"""

from __future__ import annotations

import argparse
import importlib
import json
import time
from pathlib import Path

import numpy as np
from sklearn.decomposition import PCA
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline

from locproj.engine.selection import choose, cross_validate, resolve_grid

# the data mirror beside the repo
YALEB = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "YaleB_32x32.mat"
STAND_IN_GRID = {"whiten": [False, True]}


def pca_stand_in(params):
    """Stand-in projection factory: PCA keeps every component, ordered by variance."""
    return PCA(**params)


def lpp(params):
    """Supervised heat-kernel LPP, as in the LLP paper's Table 2 (``--make lpp``)."""
    from locproj.methods import LocalityPreservingProjection

    return LocalityPreservingProjection(weight="heat", supervised=True, **params)


def load_factory(spec):
    """``'module:callable'`` -> callable; None -> the PCA stand-in."""
    if spec is None:
        return pca_stand_in
    if spec == "lpp":
        return lpp
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def load_data(path, n_classes=38, per_class=64, n_features=1024, seed=0):
    """(X, y) from a Deng Cai ``.mat`` file (``fea``, ``gnd``), or synthetic data of that shape."""
    if path is not None and Path(path).exists():
        from scipy.io import loadmat

        data = loadmat(path)
        return data["fea"].astype(np.float64), data["gnd"].ravel(), str(path)
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((n_classes, 40)) @ rng.standard_normal((40, n_features))
    y = np.repeat(np.arange(n_classes), per_class)
    return centers[y] + 2.0 * rng.standard_normal((y.size, n_features)), y, "synthetic"


def training_split(y, m, seed):
    """Indices of m random training samples per class."""
    rng = np.random.default_rng(seed)
    return np.sort(np.concatenate([rng.choice(np.flatnonzero(y == c), m, replace=False) for c in np.unique(y)]))


def ours(make, grid, X, y, n_folds, p_max, seed):
    start = time.perf_counter()
    cv = cross_validate(make, grid, X, y, n_folds=n_folds, p_max=p_max, seed=seed)
    return cv.error, time.perf_counter() - start


def baseline(make, grid, X, y, n_folds, p_values, seed, n_jobs):
    pipeline = Pipeline([("pca", PCA()), ("projection", make(grid[0])), ("knn", KNeighborsClassifier(1))])
    param_grid = [
        {**{f"projection__{k}": [v] for k, v in point.items()}, "projection__n_components": list(p_values)}
        for point in grid
    ]
    folds = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed)
    search = GridSearchCV(pipeline, param_grid, cv=folds, n_jobs=n_jobs, refit=False)
    start = time.perf_counter()
    search.fit(X, y)
    seconds = time.perf_counter() - start
    # cv_results_ lists grid points in param_grid order, p varying fastest
    error = 1 - np.asarray(search.cv_results_["mean_test_score"]).reshape(len(grid), len(p_values))
    return error, seconds


def _choice_on(error, p_values):
    """(grid point, p) of the smallest error on the subsampled p (same tie rule as ``choose``)."""
    grid_index, column = choose(error)
    return grid_index, int(p_values[column - 1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--make", help="module:callable estimator factory (default: PCA stand-in)")
    parser.add_argument("--grid", help="JSON grid spec (default: the stand-in's whiten grid)")
    parser.add_argument("--data", default=str(YALEB))
    parser.add_argument("--m", type=int, default=30)
    parser.add_argument("--p-max", type=int, default=300)
    parser.add_argument("--p-step", type=int, default=50, help="baseline evaluates p = 1, step, 2*step, ...")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-jobs", type=int, default=1, help="GridSearchCV workers")
    args = parser.parse_args(argv)

    make = load_factory(args.make)
    spec = json.loads(args.grid) if args.grid else STAND_IN_GRID
    X_all, y_all, source = load_data(args.data)
    train = training_split(y_all, args.m, args.seed)
    X, y = X_all[train], y_all[train]
    grid = resolve_grid(spec, X, y, args.m)
    p_values = np.unique(np.r_[1, np.arange(args.p_step, args.p_max + 1, args.p_step)])

    our_error, our_seconds = ours(make, grid, X, y, args.folds, args.p_max, args.seed)
    base_error, base_seconds = baseline(make, grid, X, y, args.folds, p_values, args.seed, args.n_jobs)
    extrapolated = base_seconds * args.p_max / p_values.size
    common = our_error[:, p_values - 1]
    report = {
        "data": source, "n_train": int(y.size), "grid_points": len(grid), "p_max": args.p_max,
        "ours_seconds": round(our_seconds, 2), "ours_choice": choose(our_error),
        "baseline_p_values": p_values.tolist(), "baseline_seconds": round(base_seconds, 2),
        "baseline_seconds_all_p_extrapolated": round(extrapolated, 1),
        "speed_up": round(extrapolated / our_seconds, 1),
        "ours_choice_on_baseline_p": _choice_on(common, p_values),
        "baseline_choice": _choice_on(base_error, p_values),
        "max_abs_cv_error_difference_on_common_p": float(np.nanmax(np.abs(common - base_error))),
        "differing_grid_index_and_p": [
            (int(g), int(p_values[t])) for g, t in np.argwhere(np.abs(common - base_error) > 1e-9)
        ],
    }
    print(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
