"""Glue for the thin scripts under workflow/scripts: logging to the rule's log, BLAS threads."""

from __future__ import annotations

import logging
import sys

from threadpoolctl import threadpool_limits

from .errors import UserError


def run_rule(snakemake, main) -> None:
    """Run ``main(snakemake)`` with its log in ``snakemake.log[0]`` and BLAS/OpenMP threads limited
    to the rule's ``threads``. A user error (:class:`locproj.errors.UserError`) is logged as its
    message alone, any other error in full; either way the job fails."""
    handlers = [logging.StreamHandler(sys.stderr)]
    if snakemake.log:
        handlers.append(logging.FileHandler(snakemake.log[0], mode="w"))
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
        raise
