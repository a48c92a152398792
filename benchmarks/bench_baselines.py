"""Benchmark: what the modern baselines (NCA, kernel PCA, Isomap) would cost in the cross-paper matrix.

One split's whole cross-validation and refit (the matrix's protocol: 5 folds, p_max 300, 1-NN) of
scikit-learn's NeighborhoodComponentsAnalysis, KernelPCA and Isomap, each entered by import path
(docs/own-method.md) with the matrix's grid (config/config.yaml), on the matrix's heaviest cells. The matrix has 10
splits per cell, so ten times a split's seconds is a cell's CPU time; the matrix's 52-minute run
spent 90.8 CPU-minutes fitting, against a 90-minute budget on 2 cores.

    snakemake --cores 2 results/splits/pie_m20.h5 results/splits/yaleb_m20.h5 \\
        results/splits/usps_m50.h5 results/splits/letter_m50.h5 results/splits/waveform_m100.h5 \\
        --config data_mirror=../shared/datasets
    python benchmarks/bench_baselines.py            # one BLAS thread, as a Snakemake job

Prints a Markdown table: cell, method, seconds for one split, the p chosen and the test error.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path


CELLS = [("pie", 20), ("yaleb", 20), ("usps", 50), ("letter", 50), ("waveform", 100)]
BASELINES = ("nca", "kpca", "isomap")


def baselines(config: dict) -> dict:
    """The matrix's entries of scikit-learn's NCA, kernel PCA and Isomap (config/config.yaml)."""
    return {name: config["experiments"]["matrix"]["methods"][name] for name in BASELINES}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=".", help="the working tree holding data/ and results/splits/")
    parser.add_argument("--split", type=int, default=0)
    args = parser.parse_args()
    from threadpoolctl import threadpool_limits

    from locproj.experiments import job_config, run_configured_job
    from locproj.engine.config_files import load_config
    from locproj.engine.results import read_result

    root = Path(args.root)
    config = load_config(root)
    rows = ["| cell | method | seconds (one split) | p | test error (%) |", "|---|---|---:|---:|---:|"]
    with tempfile.TemporaryDirectory() as tmp, threadpool_limits(limits=1):
        for dataset, m in CELLS:
            methods = baselines(config)
            config["experiments"]["bench"] = {"datasets": {dataset: [m]}, "n_splits": 10, "n_folds": 5,
                                              "classifier": "1nn", "p_max": 300, "methods": methods}
            for method in methods:
                job = job_config(config, "bench", dataset, method)
                out = Path(tmp) / f"{dataset}_{method}.h5"
                start = time.perf_counter()
                run_configured_job(job, f"m{m}", [args.split], root / "data" / "processed" / f"{dataset}.h5",
                                   root / "results" / "splits" / f"{dataset}_m{m}.h5", [out])
                seconds = time.perf_counter() - start
                result = read_result(out)
                rows.append(f"| {dataset} m={m} | {method} | {seconds:.1f} | {result['p']} | "
                            f"{100 * result['test_error']:.1f} |")
                print(rows[-1], flush=True)
    print("\n".join(rows))


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
