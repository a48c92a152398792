"""What one split of a cross-validated job costs, before any data exist: for ``splits_per_job: auto``.

A job computes a block of splits in one process (:mod:`locproj.protocols.split_jobs`). With
``auto`` the blocks are sized so that every job of an experiment costs about the same
(:data:`JOB_SECONDS`): a cheap cell keeps all its splits in one job, which pays the interpreter's
start-up once, and an expensive one gets few splits per job (one, when a split alone costs more),
so that no job holds a run back. Jobs also start in order of cost (a Snakemake ``priority``).
Results never depend on the blocking.

The estimate of one split (seconds on one core) is a sum of the work terms of the cross-validation
(:func:`work_terms`): the eigen-solves and products of every fit, the 1-NN evaluation at every p, the
neighbour searches, the test. Their coefficients per method (:data:`COEFFICIENTS`) are fitted by
non-negative least squares on recorded times (``tools/calibrate_costs.py`` on a run's
``timing.csv``), by built-in method name or by an entry's import path; a method without its own
takes ``"default"``.
The sizes come from the config's ``dataset_sizes`` (samples, classes, features; outside the datasets'
entries, so that adding one reruns no job), a view's from its dataset with its ``resize``,
``relabel`` and ``sample``.

The same sizes give a fit job's memory (:func:`job_memory_mb`, what it asks a cluster for) and a
run's predicted wall time (:class:`RunPlan`); :func:`experiment_timing` sets the estimates beside what
the jobs took. Nothing here changes a result: the code digests leave this module out.
"""

from __future__ import annotations

import heapq
import math
import re
from pathlib import Path

import numpy as np

from .config import aligned_blocks
from .planning import planned
from ..errors import UserError

# a job of this many seconds pays its start-up (about 2 s, benchmarks/README.md) below 1 %; with the
# block sizes of 10, 5 or 1 splits (locproj.engine.config.BLOCK_SIZES), 4 minutes predicts the matrix
# shorter than 2 minutes did (tools/simulate_schedule.py; docs/scale.md)
JOB_SECONDS = 240.0
STARTUP_SECONDS = 2.0

TERMS = ("fits", "eigen", "dual", "products", "evaluation", "neighbours", "test")

# seconds per unit of each work term: tools/calibrate_costs.py on docs/results/matrix/timing.csv
# (the matrix's 2880 results of its 77-minute fresh-clone run, 2 cores)
COEFFICIENTS: dict[str, dict[str, float]] = {
    "default": {
        "fits": 0.00242, "eigen": 3.42e-10, "dual": 0, "products": 2.09e-11,
        "evaluation": 6.54e-10, "neighbours": 1.92e-10, "test": 0,
    },
    "klpp": {
        "fits": 0.00634, "eigen": 0, "dual": 2.23e-10, "products": 0,
        "evaluation": 7.22e-10, "neighbours": 7.85e-10, "test": 1.08e-09,
    },
    "lda": {
        "fits": 0.00262, "eigen": 3.03e-10, "dual": 0, "products": 0,
        "evaluation": 0, "neighbours": 4.2e-10, "test": 0,
    },
    "lea": {
        "fits": 0.00345, "eigen": 0, "dual": 0, "products": 0,
        "evaluation": 0, "neighbours": 3.49e-09, "test": 1.36e-09,
    },
    "lfda": {
        "fits": 0.00309, "eigen": 0, "dual": 0, "products": 0,
        "evaluation": 0, "neighbours": 6.01e-10, "test": 0,
    },
    "llp": {
        "fits": 0.00409, "eigen": 0, "dual": 9.11e-13, "products": 5.07e-11,
        "evaluation": 6.14e-10, "neighbours": 9.77e-10, "test": 4.77e-10,
    },
    "lpp": {
        "fits": 0.00386, "eigen": 0, "dual": 2.17e-12, "products": 8.11e-11,
        "evaluation": 6.2e-10, "neighbours": 1.66e-09, "test": 1.21e-09,
    },
    "pca": {
        "fits": 0.00107, "eigen": 3.01e-10, "dual": 0, "products": 0,
        "evaluation": 0, "neighbours": 2.13e-10, "test": 0,
    },
    "sklearn.decomposition:KernelPCA": {
        "fits": 0.00456, "eigen": 0, "dual": 3.13e-11, "products": 0,
        "evaluation": 8.72e-10, "neighbours": 6.92e-10, "test": 2.83e-10,
    },
    "sklearn.manifold:Isomap": {
        "fits": 0.00672, "eigen": 0, "dual": 1.31e-10, "products": 0,
        "evaluation": 0, "neighbours": 2.2e-10, "test": 1.66e-10,
    },
    "sklearn.neighbors:NeighborhoodComponentsAnalysis": {
        "fits": 0.00288, "eigen": 7.69e-09, "dual": 5.58e-10, "products": 1.87e-09,
        "evaluation": 0, "neighbours": 1.66e-08, "test": 0,
    },
    "slle": {
        "fits": 0.0129, "eigen": 0, "dual": 2.16e-10, "products": 0,
        "evaluation": 6.78e-09, "neighbours": 3e-11, "test": 0,
    },
    # the rest of the graph-embedding family: the same script on one split of each of the matrix's
    # cells of these five (120 results, 2 cores, the matrix's grids)
    "isop": {
        "fits": 0.00796, "eigen": 0, "dual": 3.86e-12, "products": 0,
        "evaluation": 0, "neighbours": 1.17e-09, "test": 1.83e-10,
    },
    "lsda": {
        "fits": 0.00472, "eigen": 0, "dual": 0, "products": 4.04e-11,
        "evaluation": 0, "neighbours": 3.08e-09, "test": 2.62e-10,
    },
    "mfa": {
        "fits": 0.0055, "eigen": 0, "dual": 3.13e-12, "products": 0,
        "evaluation": 0, "neighbours": 4.02e-09, "test": 3.01e-10,
    },
    "olpp": {
        "fits": 0.0106, "eigen": 5.84e-08, "dual": 0, "products": 1.49e-08,
        "evaluation": 6.27e-09, "neighbours": 0, "test": 0,
    },
    "srda": {
        "fits": 0.00159, "eigen": 0, "dual": 1.76e-12, "products": 0,
        "evaluation": 0, "neighbours": 2.44e-10, "test": 0,
    },
}


class SizeError(UserError):
    """A dataset used with ``splits_per_job: auto`` has no size in the config."""


def dataset_size(config: dict, name: str) -> tuple[int, int, int]:
    """(samples, classes, features) of a dataset or view, from the config alone: ``dataset_sizes``,
    or for a view its dataset's with the view's ``resize``, ``relabel`` and ``sample``."""
    sizes = config.get("dataset_sizes") or {}
    views = config.get("views") or {}
    if name in sizes:
        size = sizes[name]
        return int(size["samples"]), int(size["classes"]), int(size["features"])
    if name in views:
        view = views[name]
        samples, classes, features = dataset_size(config, view["dataset"])
        if view.get("resize"):
            features = math.prod(view["resize"])
        if view.get("relabel"):
            classes = len(view["relabel"])
        if view.get("sample"):
            samples = int(view["sample"])
        return samples, classes, features
    raise SizeError(f"dataset {name!r} has no entry in `dataset_sizes`, which `splits_per_job: auto` needs to "
                    f"size its jobs; add `{name}: {{samples: …, classes: …, features: …}}` there, or give the "
                    f"experiment an integer `splits_per_job`")


def training_size(partition: str, samples: int, classes: int) -> tuple[int, int]:
    """(training samples, per class) of a partition: ``m5`` 5 of every class, ``f0.25`` a quarter."""
    if partition.startswith("m"):
        per_class = int(partition[1:])
        return per_class * classes, per_class
    n = int(round(float(partition[1:]) * samples))
    return n, max(1, n // classes)


def grid_points(method_entry: dict, m: int, neighbors=None) -> int:
    """Grid points of a method's inner CV at m per class (counts of neighbours within the class
    >= m dropped: ``neighbors``, the method's :class:`~locproj.engine.neighbor_counts.NeighborRule`)."""
    from .selection import resolve_grid

    X = np.ones((2, 1))
    return len(resolve_grid((method_entry or {}).get("grid"), X, np.array([0, 1]), m=m, neighbors=neighbors))


def _method_spec(config: dict, method: str, entry: dict):
    from .config import method_folders
    from .registry import method_spec

    return method_spec(method, entry, method_folders(config))


def work_terms(n_train: int, n_test: int, n_features: int, n_folds: int, n_grid: int, p_max: int,
               raw: bool = False) -> dict[str, float]:
    """The work of one split, term by term (units: multiply-adds, up to a constant per term)."""
    s = min(n_train, n_features)
    p = min(p_max, s)
    fits = 0 if raw else n_folds * n_grid + 1
    return {
        "fits": fits + 1,                      # per fit: Python and library overhead
        "eigen": fits * s**3,                  # the eigenproblem in the data's span
        "dual": fits * n_train**3,             # an n x n one (kernel methods, LLE)
        "products": fits * n_train * s * s,
        "evaluation": fits * n_train * n_train * p / max(n_folds, 1),
        "neighbours": n_folds * n_train * n_train * n_features,
        "test": n_test * n_train * (n_features if raw else p),
    }


def split_terms(config: dict, experiment: str, dataset: str, partition: str, method: str) -> tuple[str, dict]:
    """(the coefficients' name: the built-in method's, or the entry's import path; the work terms) of
    one split of (dataset, partition, method)."""
    spec = config["experiments"][experiment]
    samples, classes, features = dataset_size(config, dataset)
    n_train, per_class = training_size(partition, samples, classes)
    entry = spec["methods"][method] or {}
    if entry.get("pca_first"):
        features = min(features, int(entry["pca_first"]))
    declared = _method_spec(config, method, entry)
    raw = not declared.projects          # the classifier on the input: no fit, no grid
    n_grid = 1 if raw else grid_points(entry, per_class, declared.neighbor_rule(entry.get("fixed")))
    terms = work_terms(n_train, max(samples - n_train, 1), features, spec.get("n_folds", 5), n_grid,
                       spec.get("p_max", 300), raw=raw)
    return entry.get("estimator") or entry.get("method", method), terms


@planned
def split_seconds(config: dict, experiment: str, dataset: str, partition: str, method: str) -> float:
    """Estimated seconds of one split of (dataset, partition, method) in ``experiment``."""
    name, terms = split_terms(config, experiment, dataset, partition, method)
    coefficients = COEFFICIENTS.get(name, COEFFICIENTS["default"])
    return sum(coefficients[term] * value for term, value in terms.items())


def cell_blocks(seconds_per_split: float, n_splits: int, job_seconds: float = JOB_SECONDS) -> list[list[int]]:
    """A cell's splits in as few blocks as keep each job within ``job_seconds``
    (:func:`~locproj.engine.config.aligned_blocks`): all in one when they fit, one per job when a
    split alone costs more."""
    most = max(1, int(job_seconds // seconds_per_split)) if seconds_per_split > 0 else n_splits
    return aligned_blocks(n_splits, most)


def job_seconds(config: dict, experiment: str, dataset: str, partition: str, method: str,
                n_splits: int) -> float | None:
    """Estimated seconds of a job of ``n_splits`` splits of (dataset, partition, method), with its
    start-up; None for a dataset without ``dataset_sizes``."""
    try:
        return STARTUP_SECONDS + n_splits * split_seconds(config, experiment, dataset, partition, method)
    except SizeError:
        return None


# --- memory: what a job asks a scheduler for ---

MEMORY_TERMS = ("base", "data", "dense", "span", "scatter")

# megabytes per unit of each memory term (:func:`memory_terms`) of a job's own process (Snakemake's
# benchmark max_rss): the interpreter and libraries as measured (167-196 MB in the fit jobs of the smoke
# and papers_smoke runs, tools/calibrate_costs.py --memory), then one float64 copy of the dataset, one
# n x n, four n x d and two d x d arrays (the working set of the methods that declare no peak of their
# own, which grew by 0.1 to 1 n x n at n = 2000 to 4000: docs/scale.md, "Memory")
MEMORY_COEFFICIENTS: dict[str, dict[str, float]] = {
    "default": {"base": 200.0, "data": 8e-06, "dense": 8e-06, "span": 3.2e-05, "scatter": 1.6e-05},
}
#: a job's own process is given this much more than its estimate
MEMORY_MARGIN = 1.5
#: the job-step process of Snakemake that runs each job on a cluster node, in the same cgroup
#: (234 MB measured with the whole config loaded)
JOBSTEP_MB = 250
SMALLEST_MB = 500


def memory_terms(samples: int, features: int, n_train: int, fitted: int | None = None) -> dict[str, float]:
    """The memory of a fit job's process, term by term (units: values, up to a constant per term): the
    interpreter and libraries, the dataset held whole (``samples x features``), and the arrays of a fit
    on ``n_train`` samples of ``fitted`` features (after ``pca_first``): n x n, n x d, d x d."""
    fitted = features if fitted is None else fitted
    return {"base": 1.0, "data": samples * features, "dense": n_train**2, "span": n_train * fitted,
            "scatter": fitted**2}


def split_memory_terms(config: dict, experiment: str, dataset: str, partition: str,
                       method: str) -> tuple[str, dict, float]:
    """(the coefficients' name, the memory terms, the method's own peak in megabytes: its estimate of
    its dense state, :meth:`~locproj.engine.registry.MethodSpec.peak_memory_bytes`, else 0) of a job of
    (dataset, partition, method)."""
    spec = config["experiments"][experiment]
    samples, classes, features = dataset_size(config, dataset)
    n_train, _ = training_size(partition, samples, classes)
    entry = spec["methods"][method] or {}
    fitted = min(features, int(entry["pca_first"])) if entry.get("pca_first") else features
    declared = _method_spec(config, method, entry)
    peak = declared.peak_memory_bytes(entry.get("fixed") or {}, n_train, fitted) if declared.projects else None
    return (entry.get("estimator") or entry.get("method", method), memory_terms(samples, features, n_train, fitted),
            (peak or 0.0) / 1e6)


@planned
def job_memory_mb(config: dict, experiment: str, dataset: str, partition: str, method: str,
                  fallback: int = 1500) -> int:
    """The ``mem_mb`` of a fit job, in whole hundreds: Snakemake's job step (:data:`JOBSTEP_MB`) and
    the job's process (:func:`split_memory_terms`) with :data:`MEMORY_MARGIN`; ``fallback`` for a
    dataset without ``dataset_sizes``."""
    try:
        name, terms, own_peak = split_memory_terms(config, experiment, dataset, partition, method)
    except SizeError:
        return fallback
    coefficients = MEMORY_COEFFICIENTS.get(name, MEMORY_COEFFICIENTS["default"])
    estimate = sum(coefficients[term] * value for term, value in terms.items()) + own_peak
    return max(SMALLEST_MB, 100 * math.ceil((JOBSTEP_MB + MEMORY_MARGIN * estimate) / 100))


# --- a run's wall time, before it starts ---

def predicted_wall_seconds(job_seconds, slots: int) -> float:
    """The wall time of jobs of these seconds on ``slots`` parallel slots (cores over threads per job),
    the longest first, each on the slot that frees first: a lower bound where jobs wait for others."""
    finish = [0.0] * max(1, slots)
    for seconds in sorted(job_seconds, reverse=True):
        heapq.heapreplace(finish, finish[0] + seconds)
    return max(finish)


def _benchmark_seconds(path) -> float:
    """The wall seconds (``s``) of a Snakemake benchmark file: a header line, then one row per run."""
    header, *rows = path.read_text().splitlines()
    column = header.split("\t").index("s")
    return sum(float(row.split("\t")[column]) for row in rows if row.strip())


def experiment_timing(config: dict, experiment: str, logs="logs") -> dict:
    """The seconds of an experiment's jobs as measured (their benchmark files under ``logs``, one core
    each, summed) beside the cost model's estimate of the same jobs (those of cross-validated splits
    of a dataset in ``dataset_sizes``): for ``metadata.yaml``, measured rather than computed."""
    spec = config["experiments"][experiment]
    measured = estimated = measured_estimated = 0.0
    n_jobs = n_estimated = 0
    for path in sorted(Path(logs, "benchmarks").glob(f"*/{experiment}/**/*.tsv")):
        seconds = _benchmark_seconds(path)
        measured += seconds
        n_jobs += 1
        parts = path.relative_to(Path(logs, "benchmarks")).parts
        block = re.fullmatch(r"splits(\d+)-(\d+)\.tsv", parts[-1])
        if len(parts) != 6 or block is None or parts[4] not in spec.get("methods", {}):
            continue
        estimate = job_seconds(config, experiment, parts[2], parts[3], parts[4],
                               int(block[2]) - int(block[1]) + 1)
        if estimate is not None:
            estimated += estimate
            measured_estimated += seconds
            n_estimated += 1
    return {"jobs": n_jobs, "measured_seconds": round(measured, 1),
            "cost_model": {"jobs": n_estimated, "estimated_seconds": round(estimated, 1),
                           "measured_seconds": round(measured_estimated, 1)}}


#: what a job without an estimate (preparing data, splits, an aggregation, a figure) is counted at: its
#: start-up, which the short ones are mostly (papers_smoke: 170 jobs, 110 s on 2 cores)
UNESTIMATED_SECONDS = STARTUP_SECONDS


def _duration(seconds: float) -> str:
    minutes, seconds = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min {seconds:02d} s"


class RunPlan:
    """A run's predicted wall time: each job it will run at the cost model's estimate of its seconds
    (:data:`UNESTIMATED_SECONDS` where there is none), scheduled longest first on its parallel slots
    (:func:`predicted_wall_seconds`)."""

    def __init__(self, job_seconds: list[float | None], slots: int, started: float):
        self.n_jobs, self.n_estimated = len(job_seconds), sum(s is not None for s in job_seconds)
        self.slots, self.started = max(1, slots), started
        self.job_seconds = [UNESTIMATED_SECONDS if s is None else s for s in job_seconds]
        self.seconds = predicted_wall_seconds(self.job_seconds, self.slots)

    def remaining_seconds(self, done: list[bool], now: float) -> float:
        """The predicted wall time of the jobs not ``done`` (one flag per job, in the order given),
        at the pace of those done: their measured time over their predicted share of the run."""
        left = predicted_wall_seconds([s for s, finished in zip(self.job_seconds, done) if not finished], self.slots)
        predicted_so_far = self.seconds - left
        pace = (now - self.started) / predicted_so_far if predicted_so_far > 0 else 1.0
        return left * pace

    def progress_message(self, done: list[bool], now: float) -> str:
        """How far the run is and its remaining time (:meth:`remaining_seconds`)."""
        return (f"locproj: {sum(done)} of {self.n_jobs} jobs done in {_duration(now - self.started)}; about "
                f"{_duration(self.remaining_seconds(done, now))} left")

    def start_message(self) -> str:
        return (f"locproj: {self.n_jobs} jobs on {self.slots} parallel slots, predicted wall time "
                f"{_duration(self.seconds)} ({self.n_estimated} jobs estimated by the cost model, "
                f"the others counted at {UNESTIMATED_SECONDS:.0f} s each)")

    def end_message(self, finished: float) -> str:
        actual = finished - self.started
        ratio = f", {actual / self.seconds:.2f} times the prediction" if self.seconds > 0 else ""
        return (f"locproj: {self.n_jobs} jobs took {_duration(actual)}; predicted {_duration(self.seconds)}"
                f"{ratio}")
