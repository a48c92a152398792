"""The onstart hook that stops Snakemake's rate-limit timers from piling up in local runs."""

from __future__ import annotations

import inspect
from types import SimpleNamespace

from locproj.workflow import drop_local_rate_limiter


def _workflow(local: bool):
    return SimpleNamespace(local_exec=local, scheduler=SimpleNamespace(job_rate_limiter=object()))


def test_a_local_run_drops_the_rate_limiter_and_a_cluster_run_keeps_it():
    local, cluster = _workflow(True), _workflow(False)
    drop_local_rate_limiter(local)
    drop_local_rate_limiter(cluster)
    assert local.scheduler.job_rate_limiter is None
    assert cluster.scheduler.job_rate_limiter is not None


def test_the_hook_touches_the_attribute_snakemake_reads():
    # the hook is a no-op if Snakemake renames what its scheduling rounds consult
    import snakemake.api  # noqa: F401  (imports snakemake.workflow in the order it needs)
    from snakemake.workflow import Workflow

    try:
        from snakemake.scheduling.job_scheduler import JobScheduler
    except ImportError:  # Snakemake < 9
        from snakemake.scheduler import JobScheduler
    assert "self.job_rate_limiter" in inspect.getsource(JobScheduler)
    assert "local_exec" in dict(inspect.getmembers(Workflow))
    assert "self.scheduler = JobScheduler(" in inspect.getsource(Workflow.execute)
