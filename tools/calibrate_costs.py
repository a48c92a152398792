"""Calibrate the job cost model (locproj.engine.job_costs.COEFFICIENTS) on a run's recorded times.

Reads an experiment's ``timing.csv`` (written by the ``cv_table`` aggregation with ``ranks: true``:
CV and final-fit seconds per split, mean over the splits of each dataset, m and method), computes
each cell's work terms from the config (:func:`locproj.engine.job_costs.split_terms`) and fits, per method,
non-negative seconds per unit of each term (``scipy.optimize.nnls`` on relative errors); ``default``
is the fit over every method. Prints the coefficients as the Python literal of ``COEFFICIENTS`` (to
paste into ``src/locproj/engine/job_costs.py``) and, per method, how far the model is from the recorded
times.

    python tools/calibrate_costs.py docs/results/matrix/timing.csv --experiment matrix
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import nnls

from locproj.engine.config_files import load_config
from locproj.engine.job_costs import TERMS, split_terms


def cells(config: dict, experiment: str, timing: pd.DataFrame):
    """(method, terms vector, recorded seconds per split) of every timed cell with a projection."""
    labels = {label: name for name, label in (config["experiments"][experiment].get("labels") or {}).items()}
    for row in timing.itertuples():
        if row.dataset == "all" or pd.isna(row.m):
            continue
        method = labels.get(row.method, row.method)
        seconds = float(row.cv_seconds) + float(row.fit_seconds)
        if method == "raw" or seconds <= 0:
            continue
        name, terms = split_terms(config, experiment, row.dataset, f"m{int(row.m)}", method)
        yield name, np.array([terms[t] for t in TERMS], dtype=float), seconds, f"{row.dataset} m={int(row.m)}"


def fit(rows: list) -> np.ndarray:
    A = np.array([terms / seconds for _, terms, seconds, _ in rows])
    scale = A.max(axis=0)
    scale[scale == 0] = 1.0
    coefficients, _ = nnls(A / scale, np.ones(len(rows)))
    return coefficients / scale


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("timing", type=Path)
    parser.add_argument("--experiment", default="matrix")
    parser.add_argument("--config", type=Path, default=Path("config/config.yaml"))
    args = parser.parse_args()
    config = load_config(path=args.config)      # with the files it names (config_files)
    rows = list(cells(config, args.experiment, pd.read_csv(args.timing)))
    by_method = {}
    for row in rows:
        by_method.setdefault(row[0], []).append(row)
    coefficients = {"default": fit(rows), **{name: fit(group) for name, group in sorted(by_method.items())}}
    print("COEFFICIENTS: dict[str, dict[str, float]] = {")
    for name, values in coefficients.items():
        terms = [f'"{t}": {v:.3g}' for t, v in zip(TERMS, values)]
        print(f'    "{name}": {{\n        ' + ", ".join(terms[:4]) + ",\n        " + ", ".join(terms[4:]) + ",\n    },")
    print("}\n\n| method | cells | median model / recorded | worst |\n|---|---:|---:|---:|")
    for name, group in sorted(by_method.items()):
        ratios = np.array([terms @ coefficients[name] / seconds for _, terms, seconds, _ in group])
        worst = int(np.argmax(np.abs(np.log(ratios))))
        print(f"| {name} | {len(group)} | {np.median(ratios):.2f} | {ratios[worst]:.2f} ({group[worst][3]}) |")


if __name__ == "__main__":
    main()
