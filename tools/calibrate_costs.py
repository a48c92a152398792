"""Calibrate the job cost model (locproj.engine.job_costs.COEFFICIENTS) on a run's recorded times.

Reads an experiment's ``timing.csv`` (written by the ``cv_table`` aggregation with ``ranks: true``:
CV and final-fit seconds per split, mean over the splits of each dataset, m and method), computes
each cell's work terms from the config (:func:`locproj.engine.job_costs.split_terms`) and fits, per method,
non-negative seconds per unit of each term (``scipy.optimize.nnls`` on relative errors); ``default``
is the fit over every method. Prints the coefficients as the Python literal of ``COEFFICIENTS`` (to
paste into ``src/locproj/engine/job_costs.py``) and, per method, how far the model is from the recorded
times.

    python tools/calibrate_costs.py docs/results/matrix/timing.csv --experiment matrix

With ``--memory``, the memory model instead (:data:`locproj.engine.job_costs.MEMORY_COEFFICIENTS`,
megabytes per unit of each :func:`~locproj.engine.job_costs.memory_terms` term), fitted on the peak
resident memory (``max_rss``, less the method's own estimate of its dense state) of every fit job of
the config's experiments in Snakemake's benchmark files
(``logs/benchmarks/fit/EXPERIMENT/DATASET/PARTITION/METHOD/*.tsv``, one per job):

    python tools/calibrate_costs.py --memory logs/benchmarks --configfile config/papers_smoke.yaml
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import nnls

from locproj.engine.config_files import load_config
from locproj.errors import UserError
from locproj.engine.job_costs import MEMORY_TERMS, TERMS, split_memory_terms, split_terms
from locproj.engine.registry import entry_projects


def cells(config: dict, experiment: str, timing: pd.DataFrame):
    """(method, terms vector, recorded seconds per split) of every timed cell with a projection."""
    spec = config["experiments"][experiment]
    labels = {label: name for name, label in (spec.get("labels") or {}).items()}
    for row in timing.itertuples():
        if row.dataset == "all" or pd.isna(row.m):
            continue
        method = labels.get(row.method, row.method)
        seconds = float(row.cv_seconds) + float(row.fit_seconds)
        if not entry_projects(method, spec["methods"][method]) or seconds <= 0:
            continue
        name, terms = split_terms(config, experiment, row.dataset, f"m{int(row.m)}", method)
        yield name, np.array([terms[t] for t in TERMS], dtype=float), seconds, f"{row.dataset} m={int(row.m)}"


def memory_cells(config: dict, benchmarks: Path):
    """(method, memory terms vector, peak megabytes) of every fit job with a benchmark file, of a
    dataset whose size the config knows."""
    for path in sorted(benchmarks.glob("fit/*/*/*/*/*.tsv")):
        experiment, dataset, partition, method = path.parent.relative_to(benchmarks / "fit").parts
        spec = config.get("experiments", {}).get(experiment)
        if spec is None or method not in spec.get("methods", {}) or partition == "holdout":
            continue
        if not entry_projects(method, spec["methods"][method]):
            continue
        try:
            name, terms, own_peak = split_memory_terms(config, experiment, dataset, partition, method)
        except UserError:
            continue
        peak = pd.read_csv(path, sep="\t")["max_rss"].max() - own_peak    # the rest of the job's process
        yield name, np.array([terms[t] for t in MEMORY_TERMS], dtype=float), float(peak), str(path.parent)


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
    parser.add_argument("--configfile", type=Path, action="append", default=[],
                        help="a config the run was given (its --configfile), merged over --config")
    parser.add_argument("--memory", action="store_true",
                        help="fit the memory model on the benchmark files under TIMING (a folder)")
    args = parser.parse_args()
    config = load_config(path=args.config, configfiles=args.configfile)   # with the files they name
    if args.memory:
        report(list(memory_cells(config, args.timing)), MEMORY_TERMS, "MEMORY_COEFFICIENTS")
        return
    report(list(cells(config, args.experiment, pd.read_csv(args.timing))), TERMS, "COEFFICIENTS")


def report(rows: list, term_names, variable: str) -> None:
    """Print the coefficients fitted per method and over all (``default``), as the Python literal of
    ``variable``, and how far the model is from the recorded values."""
    by_method = {}
    for row in rows:
        by_method.setdefault(row[0], []).append(row)
    coefficients = {"default": fit(rows), **{name: fit(group) for name, group in sorted(by_method.items())}}
    print(f"{variable}: dict[str, dict[str, float]] = {{")
    for name, values in coefficients.items():
        terms = [f'"{t}": {v:.3g}' for t, v in zip(term_names, values)]
        print(f'    "{name}": {{\n        ' + ", ".join(terms[:4]) + ",\n        " + ", ".join(terms[4:]) + ",\n    },")
    print("}\n\n| method | cells | median model / recorded | worst |\n|---|---:|---:|---:|")
    for name, group in sorted(by_method.items()):
        ratios = np.array([terms @ coefficients[name] / seconds for _, terms, seconds, _ in group])
        worst = int(np.argmax(np.abs(np.log(ratios))))
        print(f"| {name} | {len(group)} | {np.median(ratios):.2f} | {ratios[worst]:.2f} ({group[worst][3]}) |")


if __name__ == "__main__":
    main()
