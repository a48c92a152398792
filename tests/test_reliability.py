"""Reliability: a full disk costs only the failing write, BLAS threads do not change a
job's result, and a result file names everything needed to rerun its job."""

from __future__ import annotations

import errno
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

import locproj.core.io
from locproj.core.io import config_hash
from locproj.data import Dataset, make_splits, prepare_dataset, read_dataset_file, read_splits, write_splits
from locproj.data.prepare import write_dataset
from locproj.engine.config import partition_key
from locproj.experiments import job_config, run_configured_job
from locproj.engine.results import read_result, write_result
from locproj.engine.selection import SplitResult

# --------------------------------------------------------------------------- a full disk


def _write_result(path):
    rng = np.random.default_rng(0)
    result = SplitResult(
        method="lpp", classifier="1nn", classifier_params={}, grid=[{"n_neighbors": 3}, {"n_neighbors": 5}],
        cv_error=rng.random((2, 40)), cv_fold_error=rng.random((5, 2, 40)), capped=[], grid_index=1,
        params={"n_neighbors": 5}, p=7, projected=True, test_error=0.25, test_predictions=rng.integers(0, 9, 3000),
        test_indices=np.arange(3000), fit_seconds=0.0, cv_seconds=0.0, n_folds=5, cv_seed=1, p_max=40,
        meta={"experiment": "e", "dataset": "d", "m": 5, "split": 0},
    )
    write_result(path, result, {"config_hash": "abc", "seed": "1"})


def _write_splits(path):
    rng = np.random.default_rng(1)
    train = np.sort(rng.permutation(4000)[:2000]).reshape(2, 1000)
    write_splits(path, train, train[::-1], {"mode": "per_class", "m": 5, "seed": 3, "dataset": "d"},
                 folds=[(train[0, :500], train[0, 500:]), (train[1, :500], train[1, 500:])])


def _write_dataset(path):
    rng = np.random.default_rng(2)
    write_dataset(path, Dataset(rng.random((300, 64)), rng.integers(0, 3, 300), ["a", "b", "c"], (8, 8),
                                {"name": "d", "scaling": "raw"}))


WRITERS = {"result": _write_result, "splits": _write_splits, "dataset": _write_dataset}


class _DiskWithRoomFor(io.FileIO):
    """A file on a disk that fills up after ``room`` bytes: a write beyond it stores what fits,
    then raises ``OSError(ENOSPC)`` (what ``write(2)`` does on a full disk)."""

    room = 0

    def write(self, data):
        data = memoryview(data).cast("B")
        left = max(self.room - self.tell(), 0)
        if len(data) > left:
            super().write(data[:left])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), self.name)
        return super().write(data)


@pytest.mark.parametrize("previous", [False, True], ids=["new", "rewrite"])
@pytest.mark.parametrize("fraction", [0.0, 0.5, 0.99])
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_full_disk_fails_the_write_with_enospc_and_leaves_no_partial_file(writer, fraction, previous,
                                                                            tmp_path, monkeypatch):
    """The disk fills up when ``fraction`` of the file is written: the caller gets the OSError,
    nothing is left at the output path (or the previous complete file stays as it was) and no
    temporary file remains."""
    WRITERS[writer](tmp_path / "complete.h5")
    size = (tmp_path / "complete.h5").stat().st_size
    folder = tmp_path / "out"
    folder.mkdir()
    target = folder / "file.h5"
    if previous:
        target.write_bytes(b"an earlier complete version")

    class Disk(_DiskWithRoomFor):
        room = int(fraction * size)

    monkeypatch.setattr(locproj.core.io, "open", Disk, raising=False)  # the one file write of writing_h5
    with pytest.raises(OSError) as failure:
        WRITERS[writer](target)
    assert failure.value.errno == errno.ENOSPC
    assert sorted(p.name for p in folder.iterdir()) == (["file.h5"] if previous else [])
    if previous:
        assert target.read_bytes() == b"an earlier complete version"


def _fill_disk_in_child(folder: str) -> None:
    """Run every writer under a file-size limit (``RLIMIT_FSIZE``) that the kernel enforces in
    ``write(2)`` (``EFBIG``, as a full disk gives ``ENOSPC``), from nothing to one byte short of the
    complete file; print one JSON record per attempt."""
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # else the kernel kills the process at the limit
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    for name, write in sorted(WRITERS.items()):
        complete = Path(folder) / f"{name}_complete.h5"
        write(complete)
        size = complete.stat().st_size
        for limit in sorted({0, 512, 4096, size // 2, size - 1}):
            out = Path(folder) / f"{name}_{limit}"
            out.mkdir()
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
            try:
                write(out / "file.h5")
                error = None
            except Exception as raised:  # noqa: BLE001  recorded, and checked by the parent
                error = raised
            finally:
                resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
            print(json.dumps({"writer": name, "limit": limit, "size": size, "error": type(error).__name__,
                              "errno": getattr(error, "errno", None), "message": str(error)[:200],
                              "left": sorted(p.name for p in out.iterdir())}), flush=True)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_FSIZE and SIGXFSZ as on Linux")
def test_a_real_failing_disk_write_is_a_clean_error_and_leaves_no_file(tmp_path):
    """The same with the operating system refusing the writes: HDF5 writing to the disk itself
    crashed h5py in File.close (segmentation fault) when an early write failed, leaving the
    temporary file behind; every writer now fails with the OSError and leaves nothing."""
    code = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
            f"import test_reliability; test_reliability._fill_disk_in_child({str(tmp_path)!r})")
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    records = [json.loads(line) for line in child.stdout.splitlines()]
    assert child.returncode == 0, (
        f"the writer process died ({child.returncode}) after {records}: {child.stderr[-2000:]}")
    assert {r["writer"] for r in records} == set(WRITERS) and len(records) >= 3 * 4
    for record in records:
        assert (record["error"], record["errno"], record["left"]) == ("OSError", errno.EFBIG, []), record


# --------------------------------------------------------------------------- one job, rerun

# A Table 2 job (LLP, cross-validated over k and lambda, 1-NN at the chosen p) on scikit-learn's digits
CONFIG = {
    "seed": 11,
    "datasets": {"digits": {"format": "sklearn_digits"}},
    "experiments": {"t2": {
        "datasets": {"digits": [6]}, "n_splits": 3, "n_folds": 5, "classifier": "1nn", "p_max": 40,
        "methods": {"llp": {"fixed": {"kernel": "linear", "supervised": True, "center": False},
                            "grid": {"n_neighbors": [3, "m-1"], "reg": [0.1, 10]}}},
    }},
}
SPLIT = 2


@pytest.fixture(scope="module")
def table2_job(tmp_path_factory):
    """The data and split files of the job, and its result file (computed with 1 BLAS thread)."""
    folder = tmp_path_factory.mktemp("table2")
    data = prepare_dataset("digits", CONFIG["datasets"]["digits"], [], folder / "digits.h5")
    train, test, folds, attrs = make_splits(data.y, "per_class", 6, 3, CONFIG["seed"], "digits")
    write_splits(folder / "splits.h5", train, test, attrs, folds)
    job = job_config(CONFIG, "t2", "digits", "llp")
    with threadpool_limits(limits=1):
        run_configured_job(job, "m6", [SPLIT], folder / "digits.h5", folder / "splits.h5", [folder / "one.h5"])
    return folder


def _same_result(a: dict, b: dict) -> None:
    """Equal in everything but the timings (the only attributes that vary between reruns)."""
    arrays = ("cv_error", "cv_fold_error", "test_predictions", "test_indices")
    for name in arrays:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)
    rest = set(a) - set(arrays) - {"fit_seconds", "cv_seconds", "test_error_curve"}
    assert set(b) - {"fit_seconds", "cv_seconds", "test_error_curve"} == rest | set(arrays)
    assert {k: a[k] for k in rest} == {k: b[k] for k in rest}


def test_one_and_two_blas_threads_give_the_same_choice_and_test_error(table2_job):
    job = job_config(CONFIG, "t2", "digits", "llp")
    two = table2_job / "two.h5"
    with threadpool_limits(limits=2):
        blas = [pool for pool in threadpool_info() if pool["user_api"] == "blas"]
        if not any(pool["num_threads"] == 2 for pool in blas):
            pytest.skip(f"no BLAS here runs 2 threads: {blas}")
        run_configured_job(job, "m6", [SPLIT], table2_job / "digits.h5", table2_job / "splits.h5", [two])
    one, two = read_result(table2_job / "one.h5"), read_result(two)
    assert (one["params"], one["p"], one["test_error"]) == (two["params"], two["p"], two["test_error"])
    _same_result(one, two)


def test_a_result_file_names_everything_needed_to_rerun_its_job(table2_job, tmp_path):
    """From the result file's attributes alone (and the dataset file it names): the job's
    configuration, partition and split; the split is redrawn from the master seed, and the
    rerun gives the same result."""
    first = read_result(table2_job / "one.h5")
    job = json.loads(first["config_json"])
    assert config_hash(job) == first["config_hash"]
    assert job == json.loads(json.dumps(job_config(CONFIG, "t2", "digits", "llp")))  # all of it
    partition, split = partition_key(first["m"]), first["split"]
    samples = job.get("split_source", job["dataset"])
    y = read_dataset_file(table2_job / f"{job['dataset']}.h5").y
    train, test, folds, attrs = make_splits(y, "per_class", first["m"], split + 1, job["seed"], samples)
    write_splits(tmp_path / "splits.h5", train, test, attrs, folds)
    assert np.array_equal(read_splits(tmp_path / "splits.h5")["test"][split], first["test_indices"])
    run_configured_job(job, partition, [split], table2_job / f"{job['dataset']}.h5", tmp_path / "splits.h5",
                       [tmp_path / "again.h5"])
    _same_result(first, read_result(tmp_path / "again.h5"))
