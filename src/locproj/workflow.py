"""Glue for the thin scripts under workflow/scripts: logging to the rule's log, BLAS threads."""

from __future__ import annotations

import logging
import sys

from threadpoolctl import threadpool_limits

from .errors import UserError
from .engine.method_failures import set_rule_log


def run_rule(snakemake, main) -> None:
    """Run ``main(snakemake)`` with its log in ``snakemake.log[0]`` and BLAS/OpenMP threads limited
    to the rule's ``threads``. A user error (:class:`locproj.errors.UserError`) is logged as its
    message alone, any other error with its traceback; either way once, and the job fails."""
    handlers = [logging.StreamHandler(sys.stderr)]
    if snakemake.log:
        handlers.append(logging.FileHandler(snakemake.log[0], mode="w"))
        set_rule_log(snakemake.log[0])
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        handlers=handlers, force=True)
    log = logging.getLogger(f"locproj.rule.{snakemake.rule}")
    import scipy.linalg  # noqa: F401  loads scipy's BLAS, which the limit only reaches once loaded

    try:
        with threadpool_limits(limits=max(1, int(snakemake.threads))):
            main(snakemake)
    except UserError as error:  # the config or data: the message says what to do, no traceback
        log.error("rule %s failed for %s: %s", snakemake.rule, dict(snakemake.wildcards), error)
        raise SystemExit(1) from None
    except Exception:
        log.exception("rule %s failed for %s", snakemake.rule, dict(snakemake.wildcards))
        raise SystemExit(1) from None


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
