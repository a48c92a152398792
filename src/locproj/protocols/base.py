"""The protocol contract: everything the experiment engine needs from a protocol.

An experiment's ``protocol`` (config key, default ``cv_table``) names one :class:`Protocol` object
of the registry in :mod:`locproj.protocols`. The engine (:mod:`locproj.experiments`) and the
Snakemake rules only ever call the methods of :class:`Protocol`, whose docstrings are the contract.
A protocol is one module that subclasses :class:`Protocol` (or
:class:`locproj.protocols.split_jobs.SplitProtocol`, for jobs over seeded splits) and ends with
``PROTOCOL = TheProtocol()``, plus one line in the registry (``docs/protocols.md``); the config keys
it adds are its :attr:`Protocol.config_keys`. A subclass that lacks a required method cannot be instantiated, so the
module fails when it is imported, that is when its protocol is first asked for.

This module also holds what protocols share: the rule and output records (:class:`JobRule`,
:class:`Output`) and small helpers for a job's method and its errors.
"""

from __future__ import annotations

import contextlib
import inspect
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..engine.config import method_folders
from ..engine.planning import planned


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
    ``script`` is a file of ``workflow/scripts``; ``runtime`` (minutes), ``mem_mb``, ``priority``
    and ``seconds`` (the cost model's estimate of the job on one core, None where it has none) a
    number or a function of the wildcards.

    Rules of the same ``name`` from several experiments become one Snakemake rule
    (:func:`locproj.experiments.job_kinds`): their outputs and log name ``{experiment}`` as a
    wildcard, and each constrains it to its own experiment (and, where the experiments' rules of
    that name would compete for a file, to the paths it computes:
    :func:`locproj.engine.config.one_of`)."""

    name: str
    output: list[str]
    log: str
    input: dict[str, Any]
    params: dict[str, Any]
    script: str
    runtime: Callable | int
    mem_mb: Callable | int = 1500
    wildcard_constraints: dict[str, str] = field(default_factory=dict)
    priority: Callable | int = 0
    seconds: Callable | float | None = None

    @property
    def benchmark(self) -> str:
        """Snakemake's measure of the job (its seconds and peak memory, ``max_rss``), beside its log
        and outside ``results/``: what ``tools/calibrate_costs.py --memory`` fits the cost model on."""
        return "logs/benchmarks/" + self.log.removeprefix("logs/").removesuffix(".log") + ".tsv"


class Protocol(ABC):
    """An experiment protocol. Required: :attr:`name` and the abstract methods; the others have
    defaults. The engine calls nothing else."""

    #: The protocol's config name (``protocol:`` of an experiment); a concrete protocol sets it.
    name = ""
    #: Whether it accepts ``splits_per_job: auto`` (blocks sized by :mod:`locproj.engine.job_costs`).
    auto_blocks = False
    #: The config keys its experiments take besides those of the schema
    #: (``workflow/schemas/config.schema.yaml``), as JSON schema: ``{"properties": {key: schema},
    #: "required": [key, ...]}``; the workflow adds them to the schema it validates the config with
    #: (:func:`locproj.workflow.config_schema`).
    config_keys: dict = {}

    def __init_subclass__(cls, **options):
        super().__init_subclass__(**options)
        if not inspect.isabstract(cls) and not cls.name:
            raise TypeError(f"protocol class {cls.__name__} sets no `name` (its config name)")

    # ---------------------------------------------------------------- required

    @abstractmethod
    def jobs(self, config: dict, experiment: str):
        """The experiment's units of work as wildcard tuples, in a stable order, one result file
        each: a split protocol's ``(dataset, partition, method, split)``, a panel's ``(panel,)``."""

    @abstractmethod
    def result_path(self, experiment: str, *job) -> str:
        """The result file of one of :meth:`jobs` (``results/<experiment>/...``): what its rule writes and
        the aggregation reads."""

    @abstractmethod
    def job_rules(self, config: dict, experiment: str) -> list[JobRule]:
        """The Snakemake rules that compute the experiment's jobs (:class:`JobRule`): output
        patterns with their wildcards, the script that runs a job and its params. A rule whose
        script is ``run_job.py`` runs :meth:`run_job`; any other script of ``workflow/scripts`` (or
        an absolute path) gets a rule too, with nothing to add to the workflow."""

    @abstractmethod
    def aggregate(self, spec: dict, inputs, out_dir, seed=None, notes=None) -> None:
        """Write every output of the experiment (:meth:`outputs`) into ``out_dir`` from its result
        files (``inputs``: the aggregation rule's input, :meth:`aggregation_inputs` in order),
        atomically (:mod:`locproj.report.writers`). ``notes``: dataset -> how its public data differ
        from the paper's, to be said in every output that uses it. Return the failed splits or jobs
        (dicts with ``experiment, dataset, m, method, split, failure, log``; a result file of
        :func:`locproj.engine.results.write_failure` is one), or None. The engine then writes
        ``metadata.yaml`` (configuration, seed, config hash, versions, the failures): list it in
        :meth:`outputs`, never write it here."""

    @abstractmethod
    def outputs(self, experiment: str, spec: dict) -> list[Output]:
        """What the aggregation writes (:class:`Output`): its rule's outputs, their report captions
        and which of them the experiment's target asks for. An output named ``comparison_csv`` is
        the comparison with the paper (:meth:`fidelity_points` reads it for the paper's figure)."""

    # ---------------------------------------------------------------- optional

    def check(self, spec: dict) -> None:
        """Fail with a ``ValueError`` naming the key on a config the protocol cannot run (the schema
        has checked the types already); called before any job runs. Default: nothing to check."""
        return None

    def job_method(self, params: dict):
        """The :class:`~locproj.engine.registry.MethodSpec` of the method a job runs, from its rule's
        params evaluated for the job (what its code digest covers), or None. Default: that of the
        job configuration ``params["job"]`` (:func:`job_method`)."""
        return job_method(params["job"]) if "job" in params else None

    def job_estimator(self, params: dict):
        """The unfitted estimator a job builds, from its rule's params evaluated for the job: its
        method with its fixed parameters, after its ``pca_first`` step (the classes whose modules its
        code digest covers), or None. Default: that of the job configuration ``params["job"]``
        (:func:`job_estimator`)."""
        return job_estimator(params["job"]) if "job" in params else None

    def datasets(self, spec: dict) -> list[str]:
        """The datasets and views the experiment reads. Default: the keys of ``datasets``."""
        return list(spec["datasets"])

    def method_entries(self, spec: dict) -> dict[str, tuple[dict, dict]]:
        """``{entry name: (entry, parameters it sets)}``, checked against the method registry
        (:func:`locproj.engine.registry.method_spec`) before any job runs. Default: every entry of
        ``methods``, with its ``fixed`` parameters and the names of its ``grid``."""
        entries = {}
        for entry_name, entry in spec["methods"].items():
            entry = entry or {}
            entries[entry_name] = (entry, {**entry.get("fixed", {}), **dict.fromkeys(entry.get("grid", {}))})
        return entries

    def aggregation_inputs(self, config: dict, experiment: str) -> list[str] | dict[str, str]:
        """The aggregation's input files: a list, or a dict (named inputs). Default: the result path
        of every job, in the order of :meth:`jobs`."""
        return [self.result_path(experiment, *job) for job in self.jobs(config, experiment)]

    def job_config(self, config: dict, experiment: str, dataset: str, method: str, block=None) -> dict:
        """Everything one job depends on, for protocols whose job rules pass it as a param (a change
        reruns the job) and hash it into the results' provenance. A job of ``run_job.py`` reads its
        protocol from it (``protocol``, absent for ``cv_table``)."""
        raise NotImplementedError(f"the {self.name} protocol has no job configuration of this form")

    def run_job(self, job: dict, partition: str, splits, data, parts: dict, outputs, n_jobs: int = 1) -> None:
        """Compute one job of a rule whose script is ``run_job.py``: ``job`` its configuration,
        ``data`` the dataset, ``parts`` its split file, ``outputs`` the files to write, one per
        split of ``splits``. Required when :meth:`job_rules` use ``run_job.py`` (the engine checks
        this at start-up); a protocol whose rules run another script has no need of it."""
        raise NotImplementedError(f"the {self.name} protocol runs no run_job.py jobs")

    def fidelity_points(self, comparison, notes=None):
        """The rows of the experiment's ``comparison.csv`` (a DataFrame) as points of its paper's
        fidelity figure (:class:`locproj.report.fidelity.Points`: the numbers drawn and the statements left
        out, counted by kind); ``notes``: dataset -> data note, marking stand-in data. Default:
        the cell rows of :func:`locproj.report.comparison.compare` (``published_mean`` and ``ours_mean`` of
        each dataset, m and method, :func:`locproj.report.fidelity.cell_points`)."""
        from ..report.fidelity import cell_points

        return cell_points(comparison, notes)

    # ---------------------------------------------------------------- provided

    def check_job_rules(self, config: dict, experiment: str) -> None:
        """Fail when a job rule runs ``run_job.py`` and the protocol has no :meth:`run_job` (the
        engine calls this before any job runs; a protocol does not override it)."""
        if type(self).run_job is Protocol.run_job and any(
                rule.script == "run_job.py" for rule in self.job_rules(config, experiment)):
            raise ValueError(f"the {self.name} protocol's job rules run run_job.py, but it has no run_job "
                             "method; define it (docs/protocols.md)")


@planned
def estimator_source(config: dict, entry_name: str, entry: dict | None) -> dict:
    """``{"estimator_source": ...}`` for a method entry by import path (its package and version, or
    its local file and sha256: :func:`locproj.engine.own_methods.import_estimator`), to be part of its jobs'
    configuration: the provenance names the code, and an edit of a local file reruns exactly the
    jobs that use it. ``{}`` for a built-in method, whose jobs' configuration stays as it was."""
    if "estimator" not in (entry or {}):
        return {}
    from ..engine.registry import method_spec

    return {"estimator_source": method_spec(entry_name, entry, method_folders(config)).source}


def job_method(job: dict):
    """The :class:`locproj.engine.registry.MethodSpec` of a job's method entry (inside the job: an
    entry by import path is imported from the source its job configuration records)."""
    from ..engine.registry import method_spec

    entry = job.get("method_spec") or {"method": job.get("registry_method", job["method"])}
    return method_spec(job["method"], entry, source=job.get("estimator_source"))


def job_estimator(job: dict):
    """The unfitted estimator of a job's method entry as the registry's factory builds it
    (:func:`locproj.engine.registry.estimator_factory`): the entry's ``fixed`` parameters and its
    ``pca_first`` step, from the job's ``method_spec`` or (the holdout protocol's jobs) the job itself."""
    from ..engine.registry import estimator_factory

    entry = job.get("method_spec") or job
    return estimator_factory(job_method(job), entry.get("fixed") or {}, entry.get("pca_first"))({})


@contextlib.contextmanager
def failure_recorded(job: dict, partition: str, split, output, meta: dict):
    """Run one split (or job) of a method: a failure stops the job, naming the method and the cell,
    or, under ``on_error: record``, becomes its result file ``output`` (what it is of: ``meta``; the
    provenance, the failure's record and the job's log); see :mod:`locproj.engine.method_failures`."""
    from ..core.io import provenance_attrs
    from ..engine.method_failures import handled, rule_log
    from ..engine.results import write_failure

    def write(record: dict) -> None:
        write_failure(output, {**provenance_attrs(job), **meta, **record, "log": rule_log()})

    with handled(job, partition, split, write):
        yield


def figures_and_metadata(out: str, figures_caption: str) -> list[Output]:
    """The two outputs every experiment has: its figures folder and ``metadata.yaml``."""
    return [Output("figures", f"{out}/figures", figures_caption, folder=True),
            Output("metadata", f"{out}/metadata.yaml", "../report/metadata.rst")]


def comparison_files(out: str, spec: dict) -> list[Output]:
    """``comparison.csv`` and ``.md`` in ``out`` where the experiment names its paper's numbers
    (``published``); none otherwise (nothing to compare with)."""
    if not spec.get("published"):
        return []
    return [Output("comparison_csv", f"{out}/comparison.csv", "../report/comparison.rst"),
            Output("comparison_md", f"{out}/comparison.md", target=True)]


def table_outputs(experiment: str, spec: dict, table_caption: str, figures_caption: str,
                  curves_caption: str | None = None) -> list[Output]:
    """A table protocol's outputs: the table (csv, md, tex), its comparison with the paper (only
    where the experiment names the paper's numbers, ``published``), the figures, the metadata and,
    with ``curves_caption``, ``curves.csv``."""
    out = f"results/{experiment}"
    table = f"{out}/{spec.get('table_name', 'table')}"
    outputs = [
        Output("table_csv", f"{table}.csv", table_caption),
        Output("table_md", f"{table}.md", target=True),
        Output("table_tex", f"{table}.tex"),
        *comparison_files(out, spec),
        *figures_and_metadata(out, figures_caption),
    ]
    if curves_caption:
        outputs.append(Output("curves", f"{out}/curves.csv", curves_caption, target=True))
    return outputs
