"""A worked example of a protocol, ``fixed_dimension``: every method at its fixed parameters and one
dimension ``p`` (no cross-validation), the 1-NN test error of each split, one table of mean ± std
and, with ``published:``, the comparison with the paper's numbers (and so the paper's fidelity
figure).

It adds to the split jobs (:mod:`locproj.protocols.split_jobs`: seeded per-class splits, blocks of
splits per job, the rules) only what differs: a config check, the keys of a job, what one split
computes, the aggregation and the outputs; and the config key it adds, ``p``
(:attr:`config_keys`, which the workflow adds to the config schema). To make it part of locproj:
this file as ``src/locproj/protocols/fixed_dimension.py`` and one registry line in
``locproj/protocols/__init__.py`` (``"fixed_dimension": "fixed_dimension"``); see ``docs/protocols.md``.
"""

from __future__ import annotations

from locproj.protocols.base import Output, comparison_files, figures_and_metadata
from locproj.protocols.split_jobs import SplitProtocol


class FixedDimension(SplitProtocol):
    name = "fixed_dimension"
    config_keys = {"properties": {"p": {"type": "integer", "minimum": 1, "description": "the fixed dimension"}},
                   "required": ["p"]}

    def check(self, spec: dict) -> None:
        p = spec.get("p")
        if isinstance(p, bool) or not isinstance(p, int) or p < 1:
            raise ValueError(f"p: the fixed dimension must be a positive integer, got {p!r}")

    def job_keys(self, spec: dict, method: str) -> dict:
        return {"protocol": self.name, "p": spec["p"]}

    def run_split(self, job: dict, partition: str, split: int, data, train, test, output, n_jobs: int):
        from locproj.core.io import provenance_attrs
        from locproj.engine.config import partition_size
        from locproj.core.evaluation import errors_all_p
        from locproj.engine.registry import estimator_factory
        from locproj.engine.results import write_swept

        new_estimator = estimator_factory(job["method"], job["method_spec"].get("fixed", {}))
        estimator = new_estimator({"n_components": job["p"]}).fit(data.X[train], data.y[train])
        error = errors_all_p(estimator.transform(data.X[train]), data.y[train], estimator.transform(data.X[test]),
                             data.y[test], p_values=[job["p"]], n_jobs=n_jobs)[0]
        write_swept(output, {}, {**provenance_attrs(job), "experiment": job["experiment"], "dataset": job["dataset"],
                                 "m": partition_size(partition), "method": job["method"], "split": split,
                                 "test_error": error})

    def aggregate(self, spec: dict, inputs, out_dir, seed=None, notes=None) -> None:
        import numpy as np
        import pandas as pd

        from locproj.report.comparison import compare, read_published, write_comparison
        from locproj.report.writers import write_table_files
        from locproj.engine.results import read_swept

        splits = pd.DataFrame([read_swept(path, ())[0] for path in inputs])
        errors = splits.assign(test_error=100 * splits["test_error"]).groupby(["dataset", "m", "method"], sort=False)
        summary = errors["test_error"].agg(mean_error="mean", std_error="std").reset_index()
        write_table_files(out_dir, spec.get("table_name", "table"), summary.round(2), notes=notes)
        if spec.get("published"):     # the paper's numbers: dataset, m, method, mean_error, std_error
            ours = summary.assign(mean_dim=np.nan, best=False)
            write_comparison(compare(ours, read_published(spec["published"]), spec.get("reasons")), out_dir, notes)

    def outputs(self, experiment: str, spec: dict) -> list[Output]:
        out = f"results/{experiment}"
        table = f"{out}/{spec.get('table_name', 'table')}"
        return [Output("table_csv", f"{table}.csv", "../report/table.rst"),
                Output("table_md", f"{table}.md", target=True), *comparison_files(out, spec),
                figures_and_metadata(out, "../report/figures.rst")[1]]


PROTOCOL = FixedDimension()
