"""The experiment engine: an experiment's protocol, its checks, jobs, outputs and aggregation.

Everything here goes through the protocol interface (:class:`locproj.protocols.base.Protocol`):
the engine knows no particular protocol. The Snakemake rules (``workflow/rules``) and scripts
(``workflow/scripts``) call this module; it calls the protocols (:mod:`locproj.protocols`), which
call the layers below them (:mod:`locproj.report`, :mod:`locproj.engine`, :mod:`locproj.data`,
:mod:`locproj.methods`, :mod:`locproj.core`).

The workflow's scripts import their entry points from here (:data:`__all__`), ``partition_size``
among them: a rule reruns its jobs when its script changes, so the scripts keep their imports.
"""

from __future__ import annotations

from .engine.config import data_notes, method_folders, partition_size
from .errors import ConfigError
from .protocols import DEFAULT_PROTOCOL, protocol_named, protocol_of

__all__ = ["aggregate_experiment", "aggregation_code", "aggregation_inputs", "aggregation_kinds", "cached_files",
           "check_experiments", "comparison_outputs", "experiment_notes", "experiment_outputs", "experiment_protocols",
           "failure_summary", "job_config", "job_code", "job_kinds", "job_rules", "paper_fidelity", "paper_points",
           "partition_size", "run_configured_job", "verify_files"]


def check_experiments(config: dict) -> None:
    """Fail at start-up, naming the experiment, on an unknown dataset, method or parameter."""
    from .engine.registry import method_spec

    known_data = set(config["datasets"]) | set(config.get("views", {}))
    for name, spec in config.get("experiments", {}).items():
        try:
            protocol = protocol_of(spec)
        except ValueError as error:
            raise ConfigError(f"experiment {name!r}: {error}") from error
        unknown = sorted(set(protocol.datasets(spec)) - known_data)
        if unknown:
            raise ConfigError(f"experiment {name!r}: unknown datasets or views {unknown}")
        try:
            protocol.check(spec)
            if spec.get("splits_per_job") == "auto":
                _check_cost_sizes(config, protocol, spec)
        except ValueError as error:
            raise ConfigError(f"experiment {name!r}: {error}") from error
        try:
            protocol.check_job_rules(config, name)
        except ValueError as error:
            raise ConfigError(f"experiment {name!r}: {error}") from error
        for method, (entry, params) in protocol.method_entries(spec).items():
            try:
                method_spec(method, entry, method_folders(config)).make(**params)
            except (ValueError, NotImplementedError) as error:
                raise ConfigError(f"experiment {name!r}, method {method!r}: {error}") from error


def _check_cost_sizes(config: dict, protocol, spec: dict) -> None:
    """``splits_per_job: auto`` needs a protocol that sizes its blocks and every dataset's size."""
    from .engine.job_costs import dataset_size

    if not protocol.auto_blocks:
        raise ConfigError(f"splits_per_job: auto sizes the blocks of cross-validated jobs; give the "
                         f"{protocol.name} protocol an integer")
    for dataset in protocol.datasets(spec):
        dataset_size(config, dataset)


def job_rules(config: dict, experiment: str, script: str | None = None, scripts=None):
    """The Snakemake rules of an experiment's jobs (:class:`locproj.protocols.base.JobRule`); with
    ``script``, those that run that script of ``workflow/scripts`` (the folder ``scripts``). Each
    rule's params carry ``code``, the digest of the code its job runs (:func:`job_code`)."""
    protocol = protocol_of(config["experiments"][experiment])
    return [_with_code(rule, protocol, scripts) for rule in protocol.job_rules(config, experiment)
            if script is None or rule.script == script]


def job_kinds(config: dict, experiments, scripts=None) -> list:
    """The Snakemake rules of the experiments' jobs, one per kind of job: the rules of one name
    from several experiments (:func:`job_rules`) as one, each of whose values is a function of the
    ``experiment`` wildcard (:func:`_merged`)."""
    by_name: dict[str, dict] = {}
    for experiment in experiments:
        for rule in job_rules(config, experiment, scripts=scripts):
            by_name.setdefault(rule.name, {})[experiment] = rule
    return [_merged(name, rules) for name, rules in by_name.items()]


def _merged(name: str, rules: dict):
    """The one rule of the job rules ``rules`` (experiment -> rule) named ``name``: the same
    outputs, log, script and param names, ``experiment`` a wildcard matching any of theirs."""
    import dataclasses
    import re

    if len(rules) == 1:
        return next(iter(rules.values()))
    first = next(iter(rules.values()))
    shared = ("output", "log", "script")
    for experiment, rule in rules.items():
        if [getattr(rule, f) for f in shared] != [getattr(first, f) for f in shared] \
                or rule.params.keys() != first.params.keys() or rule.input.keys() != first.input.keys() \
                or "{experiment}" not in rule.output[0]:
            raise ConfigError(f"the job rules named {name!r} of experiments {', '.join(rules)} differ in their "
                              "outputs, log, script or params, or name no {experiment} wildcard; name them apart")

    def by_experiment(field: str, key: str | None = None):
        values = {e: getattr(r, field) if key is None else getattr(r, field)[key] for e, r in rules.items()}
        return lambda wc: _value(values[wc.experiment], wc)

    experiment = "(?:" + "|".join(rule.wildcard_constraints.get("experiment", re.escape(e))
                                  for e, rule in rules.items()) + ")"
    return dataclasses.replace(
        first, input={key: by_experiment("input", key) for key in first.input},
        params={key: by_experiment("params", key) for key in first.params},
        runtime=by_experiment("runtime"), mem_mb=by_experiment("mem_mb"), priority=by_experiment("priority"),
        seconds=by_experiment("seconds"),
        wildcard_constraints={**{k: v for r in rules.values() for k, v in r.wildcard_constraints.items()},
                              "experiment": experiment})


def _value(value, wildcards):
    return value(wildcards) if callable(value) else value


def aggregation_kinds(config: dict, experiments) -> dict[str, list[str]]:
    """Rule name -> the experiments whose aggregations one rule computes: those of one protocol
    whose outputs have the same paths with the experiment's name as the ``{experiment}`` wildcard
    (:func:`experiment_outputs` of ``"{experiment}"``). A kind of one experiment is named after it,
    others after their protocol."""
    kinds: dict[tuple, list[str]] = {}
    for experiment in experiments:
        spec = config["experiments"][experiment]
        kinds.setdefault((protocol_of(spec).name, tuple(experiment_outputs(spec, "{experiment}"))), []).append(
            experiment)
    named = {}
    for (protocol, _), members in kinds.items():
        shared = sum(len(m) > 1 for (p, _), m in kinds.items() if p == protocol)
        name = members[0] if len(members) == 1 else protocol if shared == 1 else f"{protocol}_{members[0]}"
        named[f"aggregate_{name}"] = members
    return named


def _with_code(rule, protocol, scripts):
    import dataclasses

    from .engine.planning import recall

    def code(wildcards):
        params = {name: value(wildcards) if callable(value) else value for name, value in rule.params.items()}
        return recall(("job code", rule.name, rule.script, repr(params)), lambda: job_code(
            protocol, protocol.job_method(params), rule.script, scripts, protocol.job_estimator(params)))

    return dataclasses.replace(rule, params={**rule.params, "code": code})


def aggregation_code(config: dict, experiment: str, scripts=None) -> str:
    """The digest of the code of an experiment's aggregation: the runner's and its protocol's
    modules and the aggregation script (:func:`job_code` without a method)."""
    from .engine.planning import recall

    return recall(("aggregation code", experiment, str(scripts)),
                  lambda: job_code(protocol_of(config["experiments"][experiment]), None, "aggregate.py", scripts))


def job_code(protocol, spec, script: str, scripts=None, estimator=None) -> str:
    """The digest of the code a job of ``protocol`` runs (:mod:`locproj.engine.code_digests`): the
    runner's and the protocol's modules, the modules of the classes of the ``estimator`` it builds
    (default: its method ``spec``'s, a :class:`~locproj.engine.registry.MethodSpec`, with its
    defaults; None: no method) with what they import, its job ``script`` (found in the folder
    ``scripts`` unless absolute) and a user's method file."""
    from pathlib import Path

    from .engine.code_digests import estimator_modules, job_code_digest

    path = Path(script) if Path(script).is_absolute() or scripts is None else Path(scripts) / script
    method_code = (spec.source or {}).get("code_sha256") if spec is not None else None
    if estimator is None and spec is not None:
        estimator = spec.factory()
    methods = estimator_modules(estimator) if estimator is not None else ()
    return job_code_digest(type(protocol).__module__, path if path.is_file() else None, methods, method_code)


def job_config(config: dict, experiment: str, dataset: str, method: str, block=None) -> dict:
    """Everything one job depends on (passed to it as its params, and hashed into its provenance);
    ``block``: the r values of a ``holdout_curve`` job."""
    return protocol_of(config["experiments"][experiment]).job_config(config, experiment, dataset, method, block)


def run_configured_job(job: dict, partition: str, splits, data_path, splits_path, outputs, n_jobs: int = 1):
    """Run one job (``job`` from :func:`job_config`) on ``partition`` (:func:`locproj.engine.config.partition_key`, or
    ``holdout``): the splits ``splits`` of ``splits_path``, the result of ``splits[i]`` written to
    ``outputs[i]``; each file is complete once it exists."""
    from .data import read_dataset_file, read_splits

    if len(splits) != len(outputs):
        raise ValueError(f"{len(splits)} splits but {len(outputs)} output files")
    # cv_table jobs carry no protocol key: their recorded job configuration holds only what Table 2's protocol reads
    protocol = protocol_named(job.get("protocol", DEFAULT_PROTOCOL))
    protocol.run_job(job, partition, splits, read_dataset_file(data_path), read_splits(splits_path), outputs, n_jobs)


def aggregation_inputs(config: dict, experiment: str):
    """The result files an experiment's aggregation reads: a list, or a dict of named files."""
    return protocol_of(config["experiments"][experiment]).aggregation_inputs(config, experiment)


def aggregate_experiment(spec: dict, inputs, out_dir, seed=None, notes=None, timing=None) -> None:
    """Aggregate an experiment's results (``inputs``: the aggregation rule's input) into ``out_dir``,
    then record its configuration, seed and versions in ``metadata.yaml``, its failed cells where
    a method failed under ``on_error: record``, and the ``timing`` of its jobs; ``notes`` say where
    the public data differ from the paper's (:func:`experiment_notes`)."""
    from pathlib import Path

    from .report.writers import write_metadata  # here: the jobs, which import the engine, never need pandas

    failures = protocol_of(spec).aggregate(spec, inputs, out_dir, seed=seed, notes=notes)
    write_metadata(Path(out_dir) / "metadata.yaml", spec, seed, failures=failures, timing=timing)


def experiment_outputs(spec: dict, experiment: str):
    """What an experiment's aggregation writes (:class:`locproj.protocols.base.Output`)."""
    return protocol_of(spec).outputs(experiment, spec)


def experiment_notes(config: dict, experiment: str) -> dict[str, str]:
    """:func:`data_notes` for the datasets an experiment uses, joined with the experiment's own
    ``data_notes`` (how its paper's copy of a dataset differs from ours, e.g. another crop)."""
    spec = config["experiments"][experiment]
    notes = data_notes(config, protocol_of(spec).datasets(spec))
    for name, text in (spec.get("data_notes") or {}).items():
        notes[name] = "; ".join(part for part in (notes.get(name), " ".join(text.split())) if part)
    return notes


def comparison_outputs(config: dict, experiments) -> dict[str, str]:
    """Experiment -> the ``comparison.csv`` its aggregation writes, for those of ``experiments``
    that compare with published numbers (the inputs of a paper's fidelity figure)."""
    return {experiment: output.path for experiment in experiments
            for output in experiment_outputs(config["experiments"][experiment], experiment)
            if output.name == "comparison_csv"}


def paper_points(comparisons: dict, protocols: dict, notes: dict | None = None):
    """The fidelity points of a paper's experiments (experiment -> its ``comparison.csv``), each read
    by its protocol (experiment -> protocol name; :meth:`~locproj.protocols.base.Protocol.fidelity_points`),
    and the experiments that have none to draw (their published statements are not numbers)."""
    from .report.fidelity import Points, read_comparison

    found, empty = Points(), []
    for experiment, path in comparisons.items():
        points = protocol_named(protocols[experiment]).fidelity_points(read_comparison(path),
                                                                       (notes or {}).get(experiment))
        if not points.points:
            empty.append(experiment)
        found.add(points)
    return found, empty


def paper_fidelity(comparisons: dict, protocols: dict, stem, *, title: str, notes: dict | None = None,
                   formats=("png", "pdf")):
    """Draw a paper's fidelity figure (``<stem>.png`` and ``.pdf``) from its experiments' comparisons
    (:func:`paper_points`); ``notes``: experiment -> dataset -> data note."""
    from .report.fidelity import draw_fidelity, left_out_text

    found, empty = paper_points(comparisons, protocols, notes)
    return draw_fidelity(found.points, stem, title=title, left_out=left_out_text(found, empty), formats=formats)


def experiment_protocols(config: dict, experiments) -> dict[str, str]:
    """Experiment -> the name of its protocol."""
    return {experiment: protocol_of(config["experiments"][experiment]).name for experiment in experiments}


def failure_summary(config: dict, results: str = "results") -> str:
    """Every failed cell recorded in the experiments' ``metadata.yaml`` under ``results``, one line each
    ('' when none): what the run prints at its end (the ``onsuccess`` hook)."""
    from pathlib import Path

    import yaml

    lines = []
    for experiment in config.get("experiments", {}):
        path = Path(results) / experiment / "metadata.yaml"
        failed = (yaml.safe_load(path.read_text()) or {}).get("failed", []) if path.is_file() else []
        lines += [f"  {experiment}: {item['method']} on {item['dataset']} (m = {item['m']}, split {item['split']}): "
                  f"{item['failure']}" + (f"; log: {item['log']}" if item.get("log") else "") for item in failed]
    if not lines:
        return ""
    return (f"{len(lines)} failed split(s) recorded (on_error: record); their cells show 'failed' in the tables:\n"
            + "\n".join(lines))



def cached_files(config: dict, names, targets: dict, results: str = "results") -> list[str]:
    """The files the pipeline keeps for the experiments ``names`` (or those of the targets among them:
    ``targets``, target -> experiments), what ``snakemake verify`` checks: their result files (their
    aggregations' inputs), the data files they read, and every split file under ``results/splits``,
    without repeats, in that order. A name that is neither is a :class:`~locproj.errors.ConfigError`."""
    from pathlib import Path

    from .engine.config import data_file

    unknown = [name for name in names if name not in targets and name not in config["experiments"]]
    if unknown:
        raise ConfigError(f"config key verify: {unknown[0]!r} is neither an experiment nor a target; use one of "
                          f"{', '.join(sorted([*config['experiments'], *targets]))}")
    files = []
    for experiment in dict.fromkeys(e for name in names for e in targets.get(name, [name])):
        inputs = aggregation_inputs(config, experiment)
        files += [str(path) for path in (inputs.values() if isinstance(inputs, dict) else inputs)]
        spec = config["experiments"][experiment]
        files += [data_file(config, name) for name in protocol_of(spec).datasets(spec)]
    files += sorted(str(path) for path in Path(results, "splits").glob("*.h5"))
    return list(dict.fromkeys(files))


def verify_files(paths) -> tuple[str, list[str]]:
    """Check every file of ``paths`` as its readers do (:func:`locproj.core.io.file_problem`): the
    report (how many were checked, and one line for each missing or damaged file) and those lines."""
    from .core.io import file_problem

    problems = [problem for problem in map(file_problem, paths) if problem is not None]
    head = f"{len(paths)} files checked: " + (f"{len(problems)} missing or damaged" if problems else "all whole")
    return "\n".join([head, *problems]), problems
