"""Benchmark: what the modern baselines of issue 22 (item 5) would cost in the cross-paper matrix.

One split's whole cross-validation and refit (the matrix's protocol: 5 folds, p_max 300, 1-NN) of
scikit-learn's NeighborhoodComponentsAnalysis, KernelPCA and Isomap, each entered by import path
(docs/own-method.md) with a candidate grid, on the matrix's heaviest cells. The matrix has 10
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

import yaml

CELLS = [("pie", 20), ("yaleb", 20), ("usps", 50), ("letter", 50), ("waveform", 100)]
FACES = {"pie", "yaleb"}


def baselines(dataset: str) -> dict:
    """Candidate matrix entries: NCA after a PCA to 100 dimensions on the face sets (1024 pixels),
    kernel PCA with an RBF kernel on the data's scale, Isomap with its out-of-sample map."""
    nca = {"estimator": "sklearn.neighbors:NeighborhoodComponentsAnalysis",
           "fixed": {"random_state": 0, "max_iter": 50}, "grid": {"n_components": [10, 30, 60]}}
    if dataset in FACES:
        nca["pca_first"] = 100
    return {
        "nca": nca,
        "kpca": {"estimator": "sklearn.decomposition:KernelPCA", "ordered": True,
                 "fixed": {"kernel": "rbf", "n_components": 300, "eigen_solver": "dense"},
                 "grid": {"gamma": {"per_sigma0_sq_times": [0.25, 1, 4]}}},
        "isomap": {"estimator": "sklearn.manifold:Isomap", "ordered": True,
                   "fixed": {"n_components": 100}, "grid": {"n_neighbors": [5, 10]}},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=".", help="the working tree holding data/ and results/splits/")
    parser.add_argument("--split", type=int, default=0)
    args = parser.parse_args()
    from threadpoolctl import threadpool_limits

    from locproj.experiments import job_config, run_configured_job
    from locproj.selection import read_result

    root = Path(args.root)
    config = yaml.safe_load((root / "config" / "config.yaml").read_text())
    rows = ["| cell | method | seconds (one split) | p | test error (%) |", "|---|---|---:|---:|---:|"]
    with tempfile.TemporaryDirectory() as tmp, threadpool_limits(limits=1):
        for dataset, m in CELLS:
            methods = baselines(dataset)
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
