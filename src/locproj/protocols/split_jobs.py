"""Jobs over seeded splits: what ``cv_table``, ``dimension_curve`` and ``train_test_curve`` share.

A result is one (experiment, dataset, partition, split, method): the method's whole
cross-validation (locproj.engine.selection) and its test error, in one file. A partition is ``m5`` (5
training samples per class) or ``f0.25`` (a quarter of each class, rounded half up). A job
computes a block of consecutive splits (``splits_per_job``) in one process, so that the
interpreter and library start-up (about 1.8 s, most of it importing scikit-learn) is paid once
per block rather than once per split; the results do not depend on the blocking. Every random
choice is derived from the config's master seed: the splits from (dataset, m), the CV folds from
(experiment, dataset, m, split) — so all methods of a split see the same folds. A view that keeps
the samples of its dataset (no ``relabel``) shares the dataset's splits and folds, so the two can
be compared split by split.

:class:`SplitProtocol` gives a protocol these jobs, their rules and their run (one split's
cross-validation, :func:`locproj.engine.selection.run_split`); a protocol on top adds the keys its jobs
need (:meth:`SplitProtocol.job_keys`), what one split computes when it differs
(:meth:`SplitProtocol.run_split`), its aggregation and its outputs.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from ..engine.config import (RAW_METHOD, data_file, n_splits, one_of, partition_key, partition_size,
                             registry_method, split_blocks, split_path, split_source)
from ..engine.method_failures import configured_on_error, on_error_of
from .base import (JobRule, Output, Protocol, estimator_source, failure_recorded, job_method,
                   table_outputs)


def experiment_jobs(config: dict, experiment: str):
    """Every (dataset, partition, method, split) of an experiment, in a stable order."""
    spec = config["experiments"][experiment]
    for dataset, sizes in spec["datasets"].items():
        for size in sizes:
            for method in spec["methods"]:
                for split in range(n_splits(config, experiment)):
                    yield dataset, partition_key(size), method, split


def result_path(experiment: str, dataset: str, partition: str, method: str, split: int) -> str:
    return f"results/{experiment}/{dataset}/{partition}/{method}/split{split:02d}.h5"


def block_shape(splits: list[int]) -> tuple[int, int] | None:
    """None for a single split; else the last digits of a block's first and last split (a block
    lies within one decade: :data:`~locproj.engine.config.BLOCK_SIZES`)."""
    if len(splits) == 1:
        return None
    if splits[0] // 10 != splits[-1] // 10:
        raise ValueError(f"a block of splits within one decade, not {splits[0]}-{splits[-1]}")
    return splits[0] % 10, splits[-1] % 10


def block_file_names(shape: tuple[int, int] | None) -> list[str]:
    """The result files of a block of ``shape`` (:func:`block_shape`), its wildcards unfilled."""
    if shape is None:
        return ["split{split}.h5"]
    return [f"split{{tens}}{unit}.h5" for unit in range(shape[0], shape[1] + 1)]


def block_stem(shape: tuple[int, int] | None) -> str:
    """The stem of the log of a block of ``shape``: ``splits00-04`` (its first and last split)."""
    if shape is None:
        return "splits{split}-{split}"
    return f"splits{{tens}}{shape[0]}-{{tens}}{shape[1]}"


def block_splits(shape: tuple[int, int] | None, wildcards) -> list[int]:
    """The splits of the block of ``shape`` that a job's ``wildcards`` name."""
    if shape is None:
        return [int(wildcards.split)]
    return [int(wildcards.tens) * 10 + unit for unit in range(shape[0], shape[1] + 1)]


@dataclass(frozen=True)
class CellPlan:
    """The jobs of one (dataset, partition, method): its ``blocks`` of splits (one job each), the cost
    model's seconds of one split on one core (None for a dataset without ``dataset_sizes``) and the
    ``memory_mb`` a job asks for (:mod:`locproj.engine.job_costs`)."""

    blocks: list[list[int]]
    split_seconds: float | None
    memory_mb: int

    def job_seconds(self, n_splits: int) -> float | None:
        """The estimated seconds of a job of ``n_splits`` splits, with its start-up."""
        from ..engine.job_costs import STARTUP_SECONDS

        return None if self.split_seconds is None else STARTUP_SECONDS + n_splits * self.split_seconds


class SplitProtocol(Protocol):
    """A protocol whose jobs are (dataset, partition, method, block of splits), one file per split."""

    table_caption = "../report/table.rst"
    figures_caption = "../report/figures.rst"
    curves_caption: str | None = None     # a protocol that writes curves.csv names its caption

    def jobs(self, config: dict, experiment: str):
        return experiment_jobs(config, experiment)

    def result_path(self, experiment: str, *job) -> str:
        return result_path(experiment, *job)

    # ``splits_per_job: auto`` sizes blocks by the cost of a cross-validated split (locproj.engine.job_costs)
    auto_blocks = True

    def job_rules(self, config: dict, experiment: str) -> list[JobRule]:
        """One rule per shape of block (:func:`block_shape`), for the cells whose blocks have it."""
        plans = self.cell_plans(config, experiment)
        cells: dict[tuple, list[str]] = {}
        for (dataset, partition, method), plan in plans.items():
            for shape in dict.fromkeys(map(block_shape, plan.blocks)):
                cells.setdefault(shape, []).append(f"{dataset}/{partition}/{method}")
        return [self._shape_rule(config, experiment, shape, served, plans) for shape, served in cells.items()]

    def cell_plans(self, config: dict, experiment: str) -> dict[tuple, CellPlan]:
        """(dataset, partition, method) -> its jobs' plan (:class:`CellPlan`): the blocks of an
        integer ``splits_per_job`` (:func:`~locproj.engine.config.split_blocks`), or with ``auto``
        sized by the cell's cost (:func:`~locproj.engine.job_costs.cell_blocks`)."""
        from ..engine.job_costs import SizeError, cell_blocks, job_memory_mb, split_seconds

        spec, count = config["experiments"][experiment], n_splits(config, experiment)
        fixed = None if spec.get("splits_per_job") == "auto" else split_blocks(config, experiment)
        plans = {}
        for dataset, sizes in spec["datasets"].items():
            for partition in map(partition_key, sizes):
                for method in spec["methods"]:
                    try:
                        seconds = split_seconds(config, experiment, dataset, partition, method)
                    except SizeError:       # a dataset without `dataset_sizes`: integer blocks only
                        seconds = None
                    blocks = fixed or cell_blocks(seconds, count)
                    memory = job_memory_mb(config, experiment, dataset, partition, method)
                    plans[dataset, partition, method] = CellPlan(blocks, seconds, memory)
        return plans

    def _shape_rule(self, config: dict, experiment: str, shape: tuple[int, int] | None, cells: list[str],
                    plans: dict[tuple, CellPlan]) -> JobRule:
        """The rule of the blocks of one shape in ``cells`` ('dataset/partition/method'): their
        experiment, dataset, partition and method are wildcards, the splits one more (``split``, a
        single split) or the decade (``tens``: splits 10-14 are tens 1 of shape (0, 4)). Its
        ``experiment`` wildcard matches only where the path goes on to one of ``cells``, so that
        the shapes' rules never compete for a file."""
        cell = "results/{experiment}/{dataset}/{partition}/{method}"
        splits = partial(block_splits, shape)
        plan = lambda wc: plans[wc.dataset, wc.partition, wc.method]  # noqa: E731
        seconds = lambda wc: plan(wc).job_seconds(len(splits(wc)))  # noqa: E731
        return JobRule(
            name="fit_split" if shape is None else f"fit_splits_x{shape[0]}_x{shape[1]}",
            output=[f"{cell}/{name}" for name in block_file_names(shape)],
            log=f"logs/fit/{{experiment}}/{{dataset}}/{{partition}}/{{method}}/{block_stem(shape)}.log",
            input=dict(
                data=lambda wc: data_file(config, wc.dataset),
                splits=lambda wc: split_path(config, wc.dataset, wc.partition, n_splits(config, experiment)),
            ),
            params=dict(job=lambda wc: self.job_config(config, experiment, wc.dataset, wc.method), splits=splits),
            script="run_job.py",
            # the largest split (pie, m=30, LPP: 180 fits) takes about 1.5 min on one core
            runtime=lambda wc: 5 + 2 * len(splits(wc)) + math.ceil(3 * (seconds(wc) or 0) / 60),
            wildcard_constraints=dict(experiment=re.escape(experiment) + f"(?=/{one_of(cells)}/)",
                                      **{"split": r"\d\d+"} if shape is None else {"tens": r"\d+"}),
            priority=lambda wc: round(seconds(wc) or 0),
            mem_mb=lambda wc: plan(wc).memory_mb,
            seconds=seconds,
        )

    def job_keys(self, spec: dict, method: str) -> dict:
        """The keys a protocol adds to :meth:`job_config` (none for ``cv_table``, whose job
        parameters and provenance carry no protocol key)."""
        return {}

    def job_config(self, config: dict, experiment: str, dataset: str, method: str, block=None) -> dict:
        spec = config["experiments"][experiment]
        source = split_source(config, dataset)
        shared = {"split_source": source} if source != dataset else {}
        return {
            "seed": config["seed"], "experiment": experiment, "dataset": dataset, "method": method, **shared,
            "method_spec": spec["methods"][method] or {},
            "n_folds": spec.get("n_folds", 5), "classifier": spec.get("classifier", "1nn"),
            "classifier_params": spec.get("classifier_params") or {}, "p_max": spec.get("p_max", 300),
            **self.job_keys(spec, method), **estimator_source(config, method, spec["methods"][method]),
            **configured_on_error(spec, spec["methods"][method]),
        }

    def run_job(self, job: dict, partition: str, splits, data, parts: dict, outputs, n_jobs: int = 1) -> None:
        for split, output in zip(splits, outputs):
            meta = {"experiment": job["experiment"], "dataset": job["dataset"], "m": partition_size(partition),
                    "method": job["method"], "split": split}
            with failure_recorded(job, partition, split, output, meta):
                self.run_split(job, partition, split, data, parts["train"][split], parts["test"][split], output,
                               n_jobs)

    def run_split(self, job: dict, partition: str, split: int, data, train, test, output, n_jobs: int):
        """One split: the method's inner cross-validation, refit and test (locproj.engine.selection)."""
        from ..core.io import provenance_attrs
        from ..data.splits import derived_seed
        from ..engine.results import write_result
        from ..engine.selection import run_split

        method, pca_first = job["method"], job["method_spec"].get("pca_first")
        samples = job.get("split_source", job["dataset"])
        training_size = partition_size(partition)      # a count per class, or a fraction of each class
        per_class = training_size if partition.startswith("m") else None    # None: the training part's smallest class
        # a count per class seeds by the int (as Table 2 always has), a fraction by its key
        fold_seed = derived_seed(job["seed"], job["experiment"], samples,
                                 partition if per_class is None else per_class, split) % (2**32)

        # by name, since raw's jobs never import the registry (nor scikit-learn, most of a job's start-up)
        spec = None if registry_method(method, job["method_spec"]) == RAW_METHOD else job_method(job)
        new_estimator = tags = None
        if spec is not None and spec.projects:     # a method that projects nothing gets no estimator
            from ..engine.registry import estimator_factory, factory_tags

            new_estimator = estimator_factory(spec, job["method_spec"].get("fixed", {}), pca_first)
            tags = factory_tags(spec, pca_first)

        if spec is not None:   # before any fit: a clear error rather than the kernel's OOM killer
            spec.check_memory(job["method_spec"].get("fixed", {}), len(train),
                              min(data.X.shape[1], pca_first or data.X.shape[1]), data.y[train])

        def p_limit(X, y):
            n_features = min(X.shape[1], pca_first or X.shape[1])
            return spec.max_components(n_samples=len(X), n_classes=len(np.unique(y)), n_features=n_features)

        result = run_split(
            data.X[train], data.y[train], data.X[test], data.y[test],
            method=method, new_estimator=new_estimator,
            grid_spec=job["method_spec"].get("grid"), m=per_class, p_max=job["p_max"], p_limit=p_limit,
            classifier=job["classifier"], classifier_params=job["classifier_params"],
            n_folds=job["n_folds"], seed=fold_seed, test_indices=test, n_jobs=n_jobs,
            test_curve=job.get("test_curve", False), ordered=spec is None or spec.ordered, on_error=on_error_of(job),
            neighbors=None if spec is None else spec.neighbor_rule(job["method_spec"].get("fixed")),
            tags=tags,
            meta={"experiment": job["experiment"], "dataset": job["dataset"], "m": training_size, "split": split},
        )
        write_result(Path(output), result, provenance_attrs(job, seed=fold_seed))
        return result

    def outputs(self, experiment: str, spec: dict) -> list[Output]:
        return table_outputs(experiment, spec, self.table_caption, self.figures_caption, self.curves_caption)

