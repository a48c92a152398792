"""The protocol interface: everything the experiment engine needs from a protocol.

An experiment's ``protocol`` (config key, default ``cv_table``) names one :class:`Protocol` object
of the registry in :mod:`locproj.protocols`. The engine (:mod:`locproj.experiments`) and the
Snakemake rules only ever call the methods below, so a protocol is one module that subclasses
:class:`Protocol` (or :class:`locproj.protocols.split_jobs.SplitProtocol`, for jobs over seeded
splits), plus its entry in the config schema and one line in the registry (``docs/protocols.md``).

Required (each raises ``NotImplementedError`` here):

``name``
    The protocol's config name (a class attribute).
``jobs(config, experiment)``
    The experiment's units of work as wildcard tuples, in a stable order (a split protocol's
    ``(dataset, partition, method, split)``, a panel's ``(panel,)``), one result file each.
``result_path(experiment, *job)``
    The result file of one of :meth:`jobs`.
``job_rules(config, experiment)``
    The Snakemake rules of the experiment's jobs (:class:`JobRule`): output patterns with their
    wildcards, the script that runs a job and its params.
``job_config(config, experiment, dataset, method, block)``
    Everything one job depends on: passed to it as a param (so a change reruns it) and hashed
    into its provenance. It names the protocol (``protocol``) unless the protocol is ``cv_table``.
``run_job(job, partition, splits, data, parts, outputs, n_jobs)``
    Compute one job (the ``run_job.py`` script): ``data`` the dataset, ``parts`` its split file,
    ``outputs`` the files to write, one per split of ``splits``. A protocol whose job rules run
    another script (the embedding's panels: ``embed_panel.py``) has no need of it.
``aggregate(spec, inputs, out_dir, seed, notes)``
    Every output of the experiment from its result files (``inputs``: the Snakemake input of the
    aggregation rule, :meth:`aggregation_inputs` in order), written atomically with
    :mod:`locproj.reporting`; the engine then writes ``metadata.yaml`` (configuration, seed,
    config hash and versions), so a protocol lists it in :meth:`outputs` but never writes it.
``outputs(experiment, spec)``
    What the aggregation writes (:class:`Output`): its rule's outputs, their report captions, and
    which of them the experiment's target asks for.

Optional (defaults here):

``check(spec)``
    Fail with a ``ValueError`` naming the key on a config the protocol cannot run (the schema
    has checked the types already). Default: nothing to check.
``datasets(spec)``
    The datasets and views the experiment reads (default: the keys of ``datasets``).
``method_entries(spec)``
    ``{entry name: (entry, parameters it sets)}`` for the engine to check against the method
    registry (:func:`locproj.registry.method_spec`) before any job runs (default: every entry of
    ``methods``).
``aggregation_inputs(config, experiment)``
    The aggregation's input files: a list, or a dict (named inputs). Default: the result path of
    every job, in the order of :meth:`jobs`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..config import method_folders


@dataclass(frozen=True)
class Output:
    """One file or folder that an experiment's aggregation writes.

    ``name`` is the aggregation rule's output name; ``caption`` its report caption
    (``workflow/report/*.rst``, relative to the rules), None if it is not in the report;
    ``folder`` marks a folder of figures (``{name}.png`` in the report); ``target``: the
    experiment's target rule asks for it.
    """

    name: str
    path: str
    caption: str | None = None
    folder: bool = False
    target: bool = False


@dataclass(frozen=True)
class JobRule:
    """One Snakemake rule that computes an experiment's jobs, as ``workflow/rules/experiments.smk``
    defines it: ``input`` and ``params`` map names to values or to functions of the wildcards;
    ``script`` is a file of ``workflow/scripts``; ``runtime`` (minutes) a number or a function of
    the wildcards."""

    name: str
    output: list[str]
    log: str
    input: dict[str, Any]
    params: dict[str, Any]
    script: str
    runtime: Callable | int
    mem_mb: int = 1500
    wildcard_constraints: dict[str, str] = field(default_factory=dict)
    priority: int = 0


class Protocol:
    """Base class of the protocols; the module docstring is the contract."""

    name = ""
    auto_blocks = False   # accepts ``splits_per_job: auto`` (blocks sized by locproj.job_costs)

    def check(self, spec: dict) -> None:
        return None

    def datasets(self, spec: dict) -> list[str]:
        return list(spec["datasets"])

    def method_entries(self, spec: dict) -> dict[str, tuple[dict, dict]]:
        entries = {}
        for entry_name, entry in spec["methods"].items():
            entry = entry or {}
            entries[entry_name] = (entry, {**entry.get("fixed", {}), **dict.fromkeys(entry.get("grid", {}))})
        return entries

    def aggregation_inputs(self, config: dict, experiment: str) -> list[str] | dict[str, str]:
        return [self.result_path(experiment, *job) for job in self.jobs(config, experiment)]

    def jobs(self, config: dict, experiment: str):
        raise NotImplementedError

    def result_path(self, experiment: str, *job) -> str:
        raise NotImplementedError

    def job_rules(self, config: dict, experiment: str) -> list[JobRule]:
        raise NotImplementedError

    def job_config(self, config: dict, experiment: str, dataset: str, method: str, block=None) -> dict:
        raise NotImplementedError

    def run_job(self, job: dict, partition: str, splits, data, parts: dict, outputs, n_jobs: int = 1) -> None:
        raise NotImplementedError

    def aggregate(self, spec: dict, inputs, out_dir, seed=None, notes=None) -> None:
        raise NotImplementedError

    def outputs(self, experiment: str, spec: dict) -> list[Output]:
        raise NotImplementedError


def estimator_source(config: dict, entry_name: str, entry: dict | None) -> dict:
    """``{"estimator_source": ...}`` for a method entry by import path (its package and version, or
    its local file and sha256: :func:`locproj.own_methods.import_estimator`), to be part of its jobs'
    configuration: the provenance names the code, and an edit of a local file reruns exactly the
    jobs that use it. ``{}`` for a built-in method, whose jobs' configuration stays as it was."""
    if "estimator" not in (entry or {}):
        return {}
    from ..registry import method_spec

    return {"estimator_source": method_spec(entry_name, entry, method_folders(config)).source}


def job_method(job: dict):
    """The :class:`locproj.registry.MethodSpec` of a job's method entry (inside the job: an
    entry by import path is imported from the source its job configuration records)."""
    from ..registry import method_spec

    entry = job.get("method_spec") or {"method": job.get("registry_method", job["method"])}
    return method_spec(job["method"], entry, source=job.get("estimator_source"))


@contextlib.contextmanager
def failing_with_context(job: dict, partition: str, split=None):
    """Re-raise an error inside a job's computation with its method, dataset, partition and split
    named, and the original message (the other jobs' results stay)."""
    try:
        yield
    except Exception as error:
        where = f", split {split}" if split is not None else ""
        raise RuntimeError(f"method {job['method']!r} failed on {job['dataset']} ({partition}{where}) in "
                           f"experiment {job['experiment']!r}: {type(error).__name__}: {error}") from error


def figures_and_metadata(out: str, figures_caption: str) -> list[Output]:
    """The two outputs every experiment has: its figures folder and ``metadata.yaml``."""
    return [Output("figures", f"{out}/figures", figures_caption, folder=True),
            Output("metadata", f"{out}/metadata.yaml", "../report/metadata.rst")]


def table_outputs(experiment: str, spec: dict, table_caption: str, figures_caption: str,
                  curves_caption: str | None = None) -> list[Output]:
    """A table protocol's outputs: the table (csv, md, tex), its comparison with the paper, the
    figures, the metadata and, with ``curves_caption``, ``curves.csv``."""
    out = f"results/{experiment}"
    table = f"{out}/{spec.get('table_name', 'table')}"
    outputs = [
        Output("table_csv", f"{table}.csv", table_caption),
        Output("table_md", f"{table}.md", target=True),
        Output("table_tex", f"{table}.tex"),
        Output("comparison_csv", f"{out}/comparison.csv", "../report/comparison.rst"),
        Output("comparison_md", f"{out}/comparison.md", target=True),
        *figures_and_metadata(out, figures_caption),
    ]
    if curves_caption:
        outputs.append(Output("curves", f"{out}/curves.csv", curves_caption, target=True))
    return outputs
