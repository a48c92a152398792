"""Memory known before it is spent (locproj.core.memory): the limits, the error, each method's estimate
against its measured peak, LFDA's sparse affinity, the config's max_memory and a recorded failed cell."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from locproj.core import memory
from locproj.core.class_graphs import local_scaling_affinity, local_scaling_knn_affinity
from locproj.core.memory import NotEnoughMemoryError, memory_limit, parse_memory
from locproj.engine.method_failures import MethodError
from locproj.engine.results import read_result
from locproj.errors import ConfigError, UserError
from locproj.experiments import job_config, run_configured_job
from locproj.methods import IsometricProjection, KernelLPP, LocalFisherDiscriminantAnalysis, fit_memory

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"


@pytest.mark.parametrize("value, expected", [(4096, 4096), ("8G", 8 * 2**30), ("8000M", 8000 * 2**20),
                                             ("16GB", 16 * 10**9), ("512MiB", 512 * 2**20),
                                             (" 1.5 g ", int(1.5 * 2**30))])
def test_amounts_of_memory_are_read_in_both_units(value, expected):
    assert parse_memory(value) == expected


@pytest.mark.parametrize("value", ["8X", "lots", "-1G", "0", 0, True, 2.5, None])
def test_a_wrong_amount_of_memory_is_a_user_error_naming_it(value):
    with pytest.raises(UserError, match=r"max_memory: .* is not an amount of memory"):
        parse_memory(value)


def test_the_smallest_limit_applies_and_says_where_it_comes_from():
    machine = memory.available_memory_bytes()
    with memory_limit("1G", "outer"), memory_limit("3G", "inner"):
        available, where = memory.available_memory()
    assert available < 2**30 <= machine and where.startswith("outer = 1.07 GB")
    assert memory.available_memory_bytes() == pytest.approx(machine, rel=0.2)    # the limits are gone


def test_a_cgroup_v2_limit_counts_what_the_cgroup_uses(tmp_path):
    folder = tmp_path / "job"
    folder.mkdir()
    (folder / "memory.max").write_text(f"{4 * 10**9}\n")
    (folder / "memory.current").write_text(f"{10**9}\n")
    (tmp_path / "memory.max").write_text("max\n")
    table = tmp_path / "cgroup"
    table.write_text("0::/job\n")
    room, where = memory._cgroup_available(tmp_path, table)
    assert room == 3 * 10**9 and "memory.max" in where
    (folder / "memory.max").write_text("max\n")
    assert memory._cgroup_available(tmp_path, table) is None


def test_fit_memory_is_the_estimators_estimate_with_its_ways_out_and_none_without_one():
    from sklearn.decomposition import PCA

    from locproj.core.memory import WAYS_OUT
    from locproj.methods import LocalityPreservingProjection

    y = np.arange(3000) % 2
    need, ways_out = fit_memory(LocalFisherDiscriminantAnalysis(), 3000, 20, y)
    assert need == LocalFisherDiscriminantAnalysis()._peak_memory_bytes(3000, 20, y) > 3000**2
    assert ways_out == LocalFisherDiscriminantAnalysis()._memory_ways_out() and ways_out != WAYS_OUT
    assert fit_memory(PCA(), 3000, 20) is None                                # not locproj's
    assert fit_memory(LocalityPreservingProjection(), 3000, 20, y) is None    # no dense n x n state


def test_lfda_too_large_fails_at_once_before_allocating_naming_n_and_the_need():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(3000, 20)), np.arange(3000) % 2
    need = LocalFisherDiscriminantAnalysis()._peak_memory_bytes(3000, 20, y)
    tracemalloc.start()
    with memory_limit(10**6), pytest.raises(NotEnoughMemoryError) as caught:
        LocalFisherDiscriminantAnalysis().fit(X, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    message = str(caught.value)
    assert peak < 10 * X.nbytes          # one n x n block of it would be 72 MB
    assert isinstance(caught.value, MemoryError) and isinstance(caught.value, UserError)
    assert "n = 3000 samples" in message and f"about {need / 1e9:.2f} GB" in message
    assert "memory_limit = 0.00 GB" in message and "affinity='knn'" in message and "smaller m" in message


def test_a_fit_under_its_limit_runs():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(60, 4)), np.arange(60) % 3
    with memory_limit("64G"):
        assert LocalFisherDiscriminantAnalysis(n_components=2).fit(X, y).components_.shape == (2, 4)


def test_the_knn_affinity_keeps_only_neighbour_pairs_and_is_the_full_one_when_k_covers_each_class():
    rng = np.random.default_rng(2)
    y = np.repeat([0, 1, 2], [6, 9, 4])
    X = rng.normal(size=(19, 5))
    full, knn = local_scaling_affinity(X, y, 8).toarray(), local_scaling_knn_affinity(X, y, 8).toarray()
    np.testing.assert_allclose(knn, full, rtol=1e-13, atol=0)
    sparse_knn = local_scaling_knn_affinity(X, y, 2).toarray()
    full_2 = local_scaling_affinity(X, y, 2).toarray()
    kept = sparse_knn != 0
    np.testing.assert_allclose(sparse_knn[kept], full_2[kept], rtol=1e-13)     # the same local scaling
    assert kept.sum() < (full_2 != 0).sum() and np.array_equal(sparse_knn, sparse_knn.T)
    assert (kept.sum(axis=1) >= 3).all()                                     # itself and its 2 neighbours


def test_lfda_with_the_knn_affinity_equals_the_full_form_when_k_covers_each_class():
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1, 2], [7, 9, 5])
    X = rng.normal(size=(21, 6)) + y[:, None]
    full = LocalFisherDiscriminantAnalysis(n_neighbors=8).fit(X, y)
    knn = LocalFisherDiscriminantAnalysis(n_neighbors=8, affinity="knn").fit(X, y)
    np.testing.assert_allclose(knn.components_, full.components_, atol=1e-10)
    np.testing.assert_allclose(knn.eigenvalues_, full.eigenvalues_, rtol=1e-9)
    few = LocalFisherDiscriminantAnalysis(n_neighbors=2, affinity="knn").fit(X, y)
    assert not np.allclose(np.abs(few.components_), np.abs(full.components_), atol=1e-3)


def test_the_knn_estimate_grows_as_n_k_and_the_full_one_as_the_squared_classes():
    y = np.arange(40_000) % 2
    full, knn = LocalFisherDiscriminantAnalysis(), LocalFisherDiscriminantAnalysis(affinity="knn")
    assert full._peak_memory_bytes(40_000, 10, y) > 100 * knn._peak_memory_bytes(40_000, 10, y)
    assert knn._peak_memory_bytes(40_000, 10, y) < 3 * knn._peak_memory_bytes(20_000, 10, y[:20_000])


CHILD = """
import json, sys, tracemalloc
import numpy as np
from locproj.methods import IsometricProjection, KernelLPP, LocalFisherDiscriminantAnalysis
n, d = 1500, 64
rng = np.random.default_rng(0)
y = np.arange(n) % 2
X = rng.normal(size=(n, d)) + 3 * rng.normal(size=(2, d))[y]
import locproj
print(locproj.__file__)
estimator = eval(sys.argv[1])
estimator.fit(X[:100], y[:100])          # the modules a fit imports, loaded before the count
tracemalloc.start()
estimator.fit(X, y)
peak = tracemalloc.get_traced_memory()[1]
print(json.dumps({'measured': peak, 'estimate': estimator._peak_memory_bytes(n, d, y)}))
"""


@pytest.mark.parametrize("estimator", ["LocalFisherDiscriminantAnalysis()", "KernelLPP()", "IsometricProjection()"])
def test_each_estimate_is_within_its_margin_of_the_measured_peak(estimator, checkout_environment):
    """The peak of the bytes a fit holds at once (numpy's arrays, which tracemalloc counts, whatever else
    runs on the machine; the peak resident memory, benchmarks/bench_memory.py, agreed within -8 % and
    +30 % when measured alone)."""
    env = checkout_environment(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-c", CHILD, estimator], capture_output=True, text=True, check=True,
                          env=env)
    imported, printed = done.stdout.splitlines()
    assert Path(imported).resolve().is_relative_to(ROOT / "src")           # the checkout under test
    sizes = json.loads(printed)
    assert 0.7 <= sizes["estimate"] / sizes["measured"] <= 2.0, sizes


def test_the_estimators_that_hold_dense_n_by_n_state_declare_an_estimate():
    for estimator in (LocalFisherDiscriminantAnalysis(), KernelLPP(), IsometricProjection()):
        assert estimator._peak_memory_bytes(10_000, 10) > 8 * 10_000**2


def test_max_memory_in_the_config_is_validated_naming_the_key():
    from locproj.engine.config_files import load_config
    from locproj.workflow import validate_config

    config = load_config(ROOT)
    config["max_memory"] = "8 gigs"
    with pytest.raises(ConfigError, match=r"config key max_memory: '8 gigs' is not an amount of memory"):
        validate_config(config, SCHEMA)
    config["max_memory"] = "8G"
    validate_config(config, SCHEMA)
    config["experiments"]["matrix"]["methods"]["kpca"]["memory"] = {"dense_n_by_n": 0}
    with pytest.raises(ConfigError, match="dense_n_by_n"):
        validate_config(config, SCHEMA)


def config_with(entry: dict) -> dict:
    return {"seed": 5, "datasets": {"digits": {"format": "sklearn_digits"}},
            "experiments": {"e": {"datasets": {"digits": [6]}, "n_splits": 2, "n_folds": 3, "p_max": 10,
                                  "methods": {"mine": entry}}}}


def run(config, digits, out):
    run_configured_job(job_config(config, "e", "digits", "mine"), "m6", [0], digits / "digits.h5",
                       digits / "splits.h5", [out])
    return read_result(out)


def test_a_declared_memory_need_too_large_is_a_failed_cell_under_record(digits_m6, tmp_path):
    entry = {"estimator": "sklearn.decomposition:KernelPCA", "ordered": True, "supervised": False,
             "fixed": {"n_components": 5}, "memory": {"dense_n_by_n": 3}}
    with memory_limit(10**6, "a test's limit"):
        recorded = run(config_with(entry), digits_m6, tmp_path / "r.h5")
    assert recorded["failed"] and recorded["error_type"] == "NotEnoughMemoryError"
    assert "n = 60 samples" in recorded["error_message"] and "a test's limit" in recorded["error_message"]
    assert not run(config_with(entry), digits_m6, tmp_path / "ok.h5").get("failed")     # no limit: it runs


def test_a_built_in_method_too_large_stops_its_job_at_once_with_the_message_and_no_output(digits_m6, tmp_path,
                                                                                          monkeypatch):
    out = tmp_path / "r.h5"
    fits, fit = [], LocalFisherDiscriminantAnalysis.fit

    def counted(self, X, y):
        fits.append(len(X))
        return fit(self, X, y)

    monkeypatch.setattr(LocalFisherDiscriminantAnalysis, "fit", counted)
    expected = r"method 'mine' failed on digits \(m6, split 0\) .*NotEnoughMemoryError: method 'lfda'.*n = 60 samples"
    with memory_limit(10**6), pytest.raises(MethodError, match=expected):
        run(config_with({"method": "lfda"}), digits_m6, out)
    assert fits == [] and not out.exists()          # refused from its estimate, before any fit


def test_a_jobs_mem_mb_bounds_the_fit_and_max_memory_the_process():
    from types import SimpleNamespace

    from locproj.workflow import job_memory_limits

    with job_memory_limits(SimpleNamespace(resources={"mem_mb": 100}, config={})):
        assert memory.available_memory() == (100 * 10**6, "the job's mem_mb resource (100) = 0.10 GB")
    with job_memory_limits(SimpleNamespace(resources={"mem_mb": 2000}, config={"max_memory": "1G"})):
        available, where = memory.available_memory()
    assert available < 2**30 and where.startswith("the config's max_memory (1G) = 1.07 GB, less the")
