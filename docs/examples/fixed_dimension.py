"""A worked example of a protocol, ``fixed_dimension``: every method at its fixed parameters and one
dimension ``p`` (no cross-validation), the 1-NN test error of each split, one table of mean ± std.

It adds to the split jobs (:mod:`locproj.protocols.split_jobs`: seeded per-class splits, blocks of
splits per job, the rules) only what differs: a config check, the keys of a job, what one split
computes, the aggregation and the outputs. To make it part of locproj: this file as
``src/locproj/protocols/fixed_dimension.py``, one registry line in ``locproj/protocols/__init__.py``
(``"fixed_dimension": "fixed_dimension"``) and its schema entry (``docs/protocols.md``).
"""

from __future__ import annotations

from locproj.protocols.base import Output
from locproj.protocols.split_jobs import SplitProtocol


class FixedDimension(SplitProtocol):
    name = "fixed_dimension"

    def check(self, spec: dict) -> None:
        p = spec.get("p")
        if isinstance(p, bool) or not isinstance(p, int) or p < 1:
            raise ValueError(f"p: the fixed dimension must be a positive integer, got {p!r}")

    def job_keys(self, spec: dict, method: str) -> dict:
        return {"protocol": self.name, "p": spec["p"]}

    def run_split(self, job: dict, partition: str, split: int, data, train, test, output, n_jobs: int):
        from locproj._io import provenance_attrs, writing_h5
        from locproj.evaluation import errors_all_p
        from locproj.registry import estimator_factory

        new_estimator = estimator_factory(job["method"], job["method_spec"].get("fixed", {}))
        estimator = new_estimator({"n_components": job["p"]}).fit(data.X[train], data.y[train])
        error = errors_all_p(estimator.transform(data.X[train]), data.y[train], estimator.transform(data.X[test]),
                             data.y[test], p_values=[job["p"]], n_jobs=n_jobs)[0]
        with writing_h5(output) as h5:
            h5.attrs.update({**provenance_attrs(job), "dataset": job["dataset"], "m": partition,
                             "method": job["method"], "split": split, "test_error": error})

    def aggregate(self, spec: dict, inputs, out_dir, seed=None, notes=None) -> None:
        import pandas as pd

        from locproj._io import reading_h5
        from locproj.reporting import write_table_files

        rows = []
        for path in inputs:
            with reading_h5(path) as h5:
                rows.append({key: h5.attrs[key] for key in ("dataset", "m", "method", "test_error")})
        errors = pd.DataFrame(rows).groupby(["dataset", "m", "method"], sort=False)["test_error"]
        table = (100 * errors.agg(["mean", "std"])).round(2).reset_index()
        write_table_files(out_dir, spec.get("table_name", "table"), table, notes=notes)

    def outputs(self, experiment: str, spec: dict) -> list[Output]:
        out = f"results/{experiment}"
        table = f"{out}/{spec.get('table_name', 'table')}"
        return [Output("table_csv", f"{table}.csv", "../report/table.rst"),
                Output("table_md", f"{table}.md", target=True),
                Output("metadata", f"{out}/metadata.yaml", "../report/metadata.rst")]


PROTOCOL = FixedDimension()
