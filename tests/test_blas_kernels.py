"""The two-kernel check (tools/blas_kernels.py) on made-up results folders: what it compares, what
it leaves out as measured, its tolerance on floats, its exit status; and its choice of kernels."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest
import yaml

SPEC = importlib.util.spec_from_file_location(
    "blas_kernels", Path(__file__).resolve().parents[1] / "tools" / "blas_kernels.py")
blas_kernels = sys.modules["blas_kernels"] = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(blas_kernels)


def write_results(root: Path, *, predictions=(0, 1, 1, 2), embedding_shift=0.0, error=0.25, table="a,b\n1,95.0\n",
                  seconds=1.0, version="1.0", timing=3.0) -> Path:
    """One table, one metadata.yaml, one timing table and one result file."""
    (root / "exp" / "m5").mkdir(parents=True, exist_ok=True)
    (root / "exp" / "table.csv").write_text(table)
    (root / "exp" / "timing.csv").write_text(f"seconds\n{timing}\n")
    (root / "exp" / "metadata.yaml").write_text(yaml.safe_dump({"rows": 4, "versions": {"numpy": version},
                                                                "timing": {"total": timing}}))
    with h5py.File(root / "exp" / "m5" / "split00.h5", "w") as h5:
        h5["test_predictions"] = np.array(predictions)
        h5["cv_error"] = np.array([error, 0.5])
        h5["train_embedding"] = np.linspace(1.0, 2.0, 6).reshape(3, 2) + embedding_shift
        h5.attrs["fit_seconds"] = seconds
        h5.attrs["version_numpy"] = version
        h5.attrs["params"] = '{"n_neighbors": 5}'
    return root


def outcome(tmp_path, rtol=blas_kernels.DEFAULT_RTOL, **changes):
    a = write_results(tmp_path / "a")
    b = write_results(tmp_path / "b", **changes)
    return blas_kernels.compare(a, b, rtol)


def test_equal_folders_match_and_measured_items_are_left_out(tmp_path):
    result = outcome(tmp_path, seconds=2.5, version="2.0", timing=9.0)
    assert not result.failed and not result.within
    assert result.fingerprint_differing == 0 and result.summary(1e-9).startswith("MATCH")


def test_a_changed_table_and_a_changed_prediction_fail(tmp_path):
    result = outcome(tmp_path, table="a,b\n1,95.5\n", predictions=(0, 1, 2, 2))
    found = {(d.path, d.item, d.kind) for d in result.differences}
    assert found == {("exp/table.csv", "", "table"), ("exp/m5/split00.h5", "test_predictions", "decision")}
    table = next(d for d in result.differences if d.kind == "table")
    assert "1 of 2 rows differ" in table.text and "largest difference 0.5" in table.text
    assert result.failed and result.fingerprint_differing == 2


def test_errors_are_decisions_compared_exactly(tmp_path):
    result = outcome(tmp_path, error=0.25 + 1e-15)
    assert [(d.item, d.kind) for d in result.differences] == [("cv_error", "decision")]


def test_floats_within_the_tolerance_pass_and_beyond_it_fail(tmp_path):
    within = outcome(tmp_path, embedding_shift=1e-12)
    assert not within.failed and [d.item for d in within.within] == ["train_embedding"]
    beyond = outcome(tmp_path, rtol=1e-14, embedding_shift=1e-12)
    assert [(d.item, d.kind) for d in beyond.differences] == [("train_embedding", "float")]


def test_a_file_missing_on_one_side_fails(tmp_path):
    a, b = write_results(tmp_path / "a"), write_results(tmp_path / "b")
    (b / "exp" / "table.csv").unlink()
    result = blas_kernels.compare(a, b)
    assert [(d.path, d.kind, d.text) for d in result.differences] == [("exp/table.csv", "missing", "only in A")]


def test_main_exits_1_on_a_difference_and_0_without(tmp_path, capsys):
    a, b = write_results(tmp_path / "a"), write_results(tmp_path / "b", predictions=(1, 1, 1, 2))
    assert blas_kernels.main(["--compare", str(a), str(b)]) == 1
    assert "decision  exp/m5/split00.h5 test_predictions: 1 of 4 entries differ" in capsys.readouterr().out
    assert blas_kernels.main(["--compare", str(a), str(a)]) == 0


@pytest.mark.parametrize("flags, kernels", [
    ("fpu sse2 avx avx2 avx512f", ("SkylakeX", "Haswell")),
    ("fpu sse2 avx avx2", ("Haswell", "Sandybridge")),
    ("fpu sse2 avx", ("Sandybridge", "Nehalem")),
])
def test_kernels_follow_the_cpu_flags(tmp_path, flags, kernels):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(f"processor\t: 0\nflags\t\t: {flags}\n")
    assert blas_kernels.default_kernels(cpuinfo) == kernels
