"""The Snakemake workflow end to end on built-in data: outputs, no-op reruns, interrupted jobs."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import h5py
import pytest

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "tests" / "configs" / "tiny.yaml"


@pytest.fixture()
def workdir(tmp_path):
    """A copy of the workflow (not of data or results) to run in isolation."""
    for name in ("Snakefile", "workflow", "config"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    return tmp_path


def snakemake(workdir, *args, **kwargs):
    command = [sys.executable, "-m", "snakemake", *args, "--cores", "2", "--configfile", str(TINY)]
    return subprocess.run(command, cwd=workdir, capture_output=True, text=True, **kwargs)


def test_tiny_experiment_runs_then_a_second_run_does_nothing(workdir):
    first = snakemake(workdir, "tiny")
    assert first.returncode == 0, first.stderr[-3000:]
    table = (workdir / "results" / "tiny" / "table.md").read_text()
    assert "digits" in table
    results = sorted((workdir / "results" / "tiny").rglob("split*.h5"))
    assert len(results) == 3 * 3                      # 3 methods x 3 splits, one file per split
    assert len(list((workdir / "logs" / "fit").rglob("*.log"))) == 3 * 2   # 3 methods x 2 blocks
    second = snakemake(workdir, "tiny", "--dry-run")
    assert second.returncode == 0 and "Nothing to be done" in second.stdout + second.stderr


def test_tables_are_byte_identical_when_regenerated(workdir):
    assert snakemake(workdir, "tiny").returncode == 0
    out = workdir / "results" / "tiny"
    before = {p.name: p.read_bytes() for p in out.glob("*.*")}
    for path in out.glob("*.*"):
        path.unlink()
    shutil.rmtree(out / "figures")
    assert snakemake(workdir, "tiny").returncode == 0
    assert {p.name: p.read_bytes() for p in out.glob("*.*")} == before


def test_a_job_killed_mid_run_leaves_no_result_and_the_rerun_completes(workdir):
    process = subprocess.Popen(
        [sys.executable, "-m", "snakemake", "tiny", "--cores", "1", "--configfile", str(TINY)],
        cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    fit_logs = workdir / "logs" / "fit"
    deadline = time.time() + 120
    while time.time() < deadline and not (fit_logs.exists() and any(fit_logs.rglob("*.log"))):
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)            # no chance to clean up
    process.wait()
    for path in (workdir / "results").rglob("*.h5"):     # whatever exists is complete
        with h5py.File(path, "r"):
            pass
    assert snakemake(workdir, "tiny", "--unlock").returncode == 0   # a killed snakemake leaves its lock
    rerun = snakemake(workdir, "tiny", "--rerun-incomplete")
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert (workdir / "results" / "tiny" / "table.md").exists()


def test_an_unknown_method_parameter_fails_at_start_up(workdir, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("experiments:\n  bad:\n    datasets: {digits: [8]}\n    methods:\n      lpp:\n        fixed: {heat_width: 2}\n")
    result = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--configfile", str(bad)], cwd=workdir,
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert "experiment 'bad', method 'lpp'" in result.stdout + result.stderr and "heat_width" in result.stdout + result.stderr
