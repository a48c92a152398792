"""Glue for the Snakemake workflow: the config's validation against the schema completed from the
code, and for the thin scripts under workflow/scripts, logging to the rule's log and BLAS threads."""

from __future__ import annotations

import copy
import logging
import sys
import threading
import time
from pathlib import Path

from threadpoolctl import threadpool_limits

from .errors import ConfigError, UserError, schema_error
from .core.io import set_job_code
from .core.memory import memory_limit, parse_memory
from .engine.method_failures import set_rule_log


def config_schema(schema: dict, protocols) -> dict:
    """The config schema ``schema`` (``workflow/schemas/config.schema.yaml``) completed from the
    code, so that no name is kept twice: the protocol names (:data:`locproj.protocols.PROTOCOLS`)
    and their default, the classifier names (:data:`locproj.core.evaluation.CLASSIFIERS`), the
    ``on_error`` values, the kinds of neighbour counts, and the
    keys that each protocol of ``protocols`` (names) declares for its experiments
    (:attr:`locproj.protocols.base.Protocol.config_keys`)."""
    from .core.evaluation import CLASSIFIERS
    from .engine.method_failures import ON_ERROR
    from .engine.neighbor_counts import KINDS
    from .protocols import DEFAULT_PROTOCOL, PROTOCOLS, protocol_named

    schema = copy.deepcopy(schema)
    experiment = schema["properties"]["experiments"]["additionalProperties"]
    experiment["properties"]["protocol"].update(enum=list(PROTOCOLS), default=DEFAULT_PROTOCOL)
    method = experiment["properties"]["methods"]["additionalProperties"]["properties"]
    names = [(experiment["properties"]["classifier"], CLASSIFIERS),
             (experiment["properties"]["classifiers"]["additionalProperties"]["properties"]["classifier"], CLASSIFIERS),
             (experiment["properties"]["on_error"], ON_ERROR), (method["on_error"], ON_ERROR),
             (method["neighbours"]["additionalProperties"], KINDS)]
    for place, values in names:
        place["enum"] = list(values)
    for name in sorted(set(protocols) & set(PROTOCOLS)):
        keys = protocol_named(name).config_keys
        if keys:
            clash = sorted(set(keys.get("properties", {})) & set(experiment["properties"]))
            if clash:
                raise ValueError(f"protocol {name!r} declares config keys {clash} that the schema has already")
            experiment["properties"].update(keys.get("properties", {}))
            experiment["allOf"].append({"if": {"properties": {"protocol": {"const": name}}, "required": ["protocol"]},
                                        "then": {"required": list(keys.get("required", []))}})
    return schema


def validate_config(config: dict, schema_path) -> None:
    """Check ``config`` against the schema at ``schema_path`` completed from the code
    (:func:`config_schema`), filling in its defaults as ``snakemake.utils.validate`` does; a
    violation is a :class:`~locproj.errors.ConfigError` naming the key (an unknown protocol: the
    known ones)."""
    import jsonschema
    import yaml
    from jsonschema import Draft202012Validator, validators

    from .protocols import DEFAULT_PROTOCOL, PROTOCOLS

    named = {(spec or {}).get("protocol", DEFAULT_PROTOCOL): name
             for name, spec in (config.get("experiments") or {}).items() if isinstance(spec, dict)}
    unknown = {protocol: name for protocol, name in named.items() if protocol not in PROTOCOLS}
    if unknown:
        protocol, name = next(iter(unknown.items()))
        raise ConfigError(f"config key experiments.{name}.protocol: unknown protocol {protocol!r}; use one of "
                          f"{', '.join(PROTOCOLS)}")
    schema = config_schema(yaml.safe_load(Path(schema_path).read_text()), named)
    validate_properties = Draft202012Validator.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, subschema):
        if validator.is_type(instance, "object"):
            for key, value in properties.items():
                if "default" in value:
                    instance.setdefault(key, value["default"])
        yield from validate_properties(validator, properties, instance, subschema)

    try:
        validators.extend(Draft202012Validator, {"properties": set_defaults})(schema).validate(config)
    except jsonschema.ValidationError as error:
        raise schema_error(error) from error
    if config.get("max_memory") is not None:
        try:
            parse_memory(config["max_memory"], "config key max_memory")
        except UserError as error:
            raise ConfigError(str(error)) from None


def checked_once(config: dict, check, files, cache) -> str:
    """Run ``check(config)`` (it validates ``config`` and may fill in its defaults) once for each
    config: its outcome, the config as ``check`` leaves it, is kept in the folder ``cache`` under the
    digest of the config, of the bytes of every locproj module (the checks' code) and of ``files``
    (the schema, the job scripts; a local dataset or method file counts by its size and time of
    change) and of the installed packages' versions (a method by import path records its package's),
    and read back instead of checking again. A check that fails keeps nothing. Returns the
    digest, under which the run's planned values are kept too (:mod:`locproj.engine.planning`)."""
    import hashlib
    import pickle

    from .core.io import atomic_path

    digest = hashlib.sha256(repr(config).encode())
    for path in sorted(Path(__file__).resolve().parent.rglob("*.py")):
        digest.update(path.read_bytes())
    digest.update("\n".join(installed_distributions()).encode())
    for path in map(Path, files):
        stat = path.stat() if path.is_file() else None
        digest.update(f"{path}\n{stat and (stat.st_size, stat.st_mtime_ns)}\n".encode())
    kept = Path(cache) / f"{digest.hexdigest()}.pickle"
    if kept.is_file():
        checked = pickle.loads(kept.read_bytes())
    else:
        checked = copy.deepcopy(config)
        check(checked)
        with atomic_path(kept) as path:
            path.write_bytes(pickle.dumps(checked))
    config.clear()
    config.update(checked)
    return digest.hexdigest()


def installed_distributions() -> list[str]:
    """The installed distributions as their metadata folders name them (``scikit_learn-1.9.1.dist-info``),
    sorted: their names and versions, read from the folder names alone (milliseconds, where reading
    every distribution's metadata takes a tenth of a second)."""
    found = set()
    for entry in map(Path, sys.path):
        if entry.is_dir():
            found.update(path.name for pattern in ("*.dist-info", "*.egg-info") for path in entry.glob(pattern))
    return sorted(found)


def run_rule(snakemake, main) -> None:
    """Run ``main(snakemake)`` with its log in ``snakemake.log[0]`` and BLAS/OpenMP threads limited
    to the rule's ``threads``. A user error (:class:`locproj.errors.UserError`) is logged as its
    message alone, any other error with its traceback; either way once, and the job fails."""
    handlers = [logging.StreamHandler(sys.stderr)]
    if snakemake.log:
        handlers.append(logging.FileHandler(snakemake.log[0], mode="w"))
        set_rule_log(snakemake.log[0])
    set_job_code(snakemake.params.get("code"))     # the digest of the code it runs, for its provenance
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        handlers=handlers, force=True)
    log = logging.getLogger(f"locproj.rule.{snakemake.rule}")
    import scipy.linalg  # noqa: F401  loads scipy's BLAS, which the limit only reaches once loaded

    try:
        with threadpool_limits(limits=max(1, int(snakemake.threads))), job_memory_limits(snakemake):
            main(snakemake)
    except UserError as error:  # the config or data: the message says what to do, no traceback
        log.error("rule %s failed for %s: %s", snakemake.rule, dict(snakemake.wildcards), error)
        raise SystemExit(1) from None
    except Exception:
        log.exception("rule %s failed for %s", snakemake.rule, dict(snakemake.wildcards))
        raise SystemExit(1) from None


def job_memory_limits(snakemake):
    """The memory limits of a job (:func:`locproj.core.memory.memory_limit`): its ``mem_mb`` resource
    (a scheduling request, also met by the job cost model's estimates: the fit's need alone is held
    to it, so that no cell that ran before is refused) and the config's ``max_memory``, where set."""
    import contextlib

    stack = contextlib.ExitStack()
    mem_mb = getattr(snakemake, "resources", {}).get("mem_mb")
    if isinstance(mem_mb, (int, float)) and mem_mb > 0:
        stack.enter_context(memory_limit(int(mem_mb * 10**6), f"the job's mem_mb resource ({int(mem_mb)})",
                                         count_held=False))
    max_memory = (getattr(snakemake, "config", None) or {}).get("max_memory")
    if max_memory is not None:
        stack.enter_context(memory_limit(max_memory, f"the config's max_memory ({max_memory})"))
    return stack


def report_progress(workflow, plan, jobs, interval: float, log) -> threading.Event:
    """Log how far the run is and its remaining time (``plan``, a
    :class:`~locproj.engine.job_costs.RunPlan` of ``jobs``: :meth:`~locproj.engine.job_costs.RunPlan.progress_message`)
    every ``interval`` seconds from a thread of Snakemake's process, until the returned event is
    set. It reads which jobs the DAG has finished, so it reports under any executor (local cores, a
    cluster's jobs)."""
    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(interval):
            log(plan.progress_message([workflow.dag.finished(job) for job in jobs], time.time()))

    threading.Thread(target=loop, name="locproj progress", daemon=True).start()
    return stop


def drop_local_rate_limiter(workflow) -> None:
    """Let a local run's scheduler plan only when a job finishes (Snakemake's ``onstart`` hook).

    In Snakemake 9 (not yet in 8.17) every scheduling round re-arms a timer of one rate-limit timespan
    (``--max-jobs-per-timespan``) whose expiry starts another round, and every finished job starts
    one more round, so the timers never die out: after N finished jobs the main process replans
    N / timespan times a second, each time reading the size of every ready job's inputs
    (snakemake/snakemake#3804 reports the threads piling up). In the `papers` run it used 58 % of
    one of the 2 cores after 280 of 787 jobs, and more with every job. A local run has no
    submission rate to protect, so its limiter is dropped, as Snakemake ran before 8.17; a cluster
    run keeps it. Results do not depend on it."""
    scheduler = getattr(workflow, "scheduler", None)
    if getattr(workflow, "local_exec", False) and getattr(scheduler, "job_rate_limiter", None) is not None:
        scheduler.job_rate_limiter = None
