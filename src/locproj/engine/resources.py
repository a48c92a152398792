"""What a job asks a cluster for: its minutes and megabytes, at every attempt.

Each rule gives an estimate of its ``runtime`` (minutes) and ``mem_mb`` (a number, or a function of
the wildcards); four config keys turn them into what a scheduler is asked for, each one number that a
command line sets (``--config max_runtime=1440``):

``resources_scale``
    multiplies every runtime and memory (a slower cluster, a larger dataset): one setting for all
    rules, which Snakemake's ``--set-resources`` cannot reach since rule names are per job;
``runtime_scale``
    multiplies every runtime once more (a slower or faster cluster), memory not;
``resources_growth``
    a retried job (a profile's ``retries``) asks for this many times more at each attempt, so that
    a job killed at its time or memory limit gets a second chance with more;
``max_runtime``, ``max_mem_mb``
    the caps (a partition's limits, ``sinfo -o "%P %l %m"``): no attempt asks for more.

The values never enter a job's params, so changing them reruns nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable

#: the config's keys where it says nothing
DEFAULTS = {"resources_scale": 1.0, "runtime_scale": 1.0, "resources_growth": 2.0, "max_runtime": None,
            "max_mem_mb": None}


def settings(config: dict) -> dict:
    """The config's resource keys, over :data:`DEFAULTS`."""
    return {key: default if config.get(key) is None else config[key] for key, default in DEFAULTS.items()}


def at_attempt(estimate: float, attempt: int, chosen: dict, cap: str) -> int:
    """An estimate scaled, grown for ``attempt`` (1 for the first) and capped (``cap``: ``max_runtime``
    or ``max_mem_mb``), in whole units."""
    scale = chosen["resources_scale"] * (chosen["runtime_scale"] if cap == "max_runtime" else 1)
    value = math.ceil(estimate * scale * chosen["resources_growth"] ** (attempt - 1))
    return min(value, int(chosen[cap])) if chosen.get(cap) else value


def _per_attempt(estimate: float | Callable, chosen: dict, cap: str) -> Callable:
    def resource(wildcards, attempt):
        value = estimate(wildcards) if callable(estimate) else estimate
        return at_attempt(value, attempt, chosen, cap)

    return resource


def job_resources(config: dict, mem_mb: float | Callable, runtime: float | Callable) -> dict:
    """A rule's ``resources:``: ``mem_mb`` and ``runtime`` as functions of its wildcards and attempt."""
    chosen = settings(config)
    return {
        "mem_mb": _per_attempt(mem_mb, chosen, "max_mem_mb"),
        "runtime": _per_attempt(runtime, chosen, "max_runtime"),
    }
