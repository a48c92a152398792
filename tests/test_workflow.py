"""The Snakemake workflow end to end on built-in data: outputs, no-op reruns, interrupted jobs."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import h5py
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "tests" / "configs" / "tiny.yaml"


def snakemake(workdir, *args, **kwargs):
    command = [sys.executable, "-m", "snakemake", *args, "--cores", "2", "--configfile", str(TINY)]
    return subprocess.run(command, cwd=workdir, capture_output=True, text=True, **kwargs)


def kill_once_a_log_appears(process, logs: Path, timeout: float) -> None:
    """kill -9 the process group of ``process`` (Snakemake and its job) as soon as a ``*.log`` exists
    under ``logs``: the group is stopped first, so that the test can tell it was still running."""
    deadline = time.time() + timeout
    while time.time() < deadline and process.poll() is None and not (logs.exists() and any(logs.rglob("*.log"))):
        time.sleep(0.02)
    with contextlib.suppress(ProcessLookupError):       # the group is gone if the run has ended
        os.killpg(process.pid, signal.SIGSTOP)
    running = process.poll() is None
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert any(logs.rglob("*.log")), f"no log under {logs} within {timeout} s"
    assert running, "the run had ended before it could be killed: nothing was interrupted"


def test_tiny_experiment_runs_then_a_second_run_does_nothing(workdir):
    first = snakemake(workdir, "tiny")
    assert first.returncode == 0, first.stderr[-3000:]
    table = (workdir / "results" / "tiny" / "table.md").read_text()
    assert "digits" in table
    results = sorted((workdir / "results" / "tiny").rglob("split*.h5"))
    assert len(results) == 3 * 3                      # 3 methods x 3 splits, one file per split
    assert len(list((workdir / "logs" / "fit").rglob("*.log"))) == 3 * 3   # 3 methods x 3 single splits
    # the run says how long it will take and took; each fit job's seconds and peak memory are measured
    start = re.search(r"locproj: (\d+) jobs on 2 parallel slots, predicted wall time", first.stderr)
    assert start and int(start.group(1)) > 3 * 3
    assert re.search(r"locproj: \d+ jobs took .*; predicted .*times the prediction", first.stderr)
    # and its remaining time every progress_seconds (1 s in tests/configs/tiny.yaml)
    assert re.search(r"locproj: \d+ of \d+ jobs done in \d+ min \d\d s; about \d+ min \d\d s left", first.stderr)
    benchmarks = list((workdir / "logs" / "benchmarks" / "fit").rglob("*.tsv"))
    assert len(benchmarks) == 3 * 3 and all("max_rss" in path.read_text() for path in benchmarks)
    metadata = yaml.safe_load((workdir / "results" / "tiny" / "metadata.yaml").read_text())
    assert metadata["timing"]["jobs"] == 3 * 3 and metadata["timing"]["measured_seconds"] > 0
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
    kill_once_a_log_appears(process, workdir / "logs" / "fit", timeout=120)   # no chance to clean up
    for path in (workdir / "results").rglob("*.h5"):     # whatever exists is complete
        with h5py.File(path, "r"):
            pass
    assert snakemake(workdir, "tiny", "--unlock").returncode == 0   # a killed snakemake leaves its lock
    rerun = snakemake(workdir, "tiny")                 # the README's plain command (profiles/default)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert (workdir / "results" / "tiny" / "table.md").exists()


def test_an_unknown_method_parameter_fails_at_start_up(workdir, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("experiments:\n  bad:\n    datasets: {digits: [8]}\n    methods:\n      lpp:\n"
                   "        fixed: {heat_width: 2}\n")
    result = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--configfile", str(bad)], cwd=workdir,
                            capture_output=True, text=True)
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "experiment 'bad', method 'lpp'" in output and "heat_width" in output


def run_target(workdir, target, expected=()):
    """Run ``target`` of the tiny config (it must succeed); its results folder, which holds ``expected``."""
    result = snakemake(workdir, target)
    assert result.returncode == 0, result.stderr[-3000:]
    out = workdir / "results" / target
    assert set(expected) <= {p.name for p in out.iterdir()}
    return out


def assert_up_to_date(workdir, target):
    again = snakemake(workdir, target, "--dry-run")
    assert "Nothing to be done" in again.stdout + again.stderr


def test_the_dimension_curve_protocol_runs_from_config(workdir):
    out = run_target(workdir, "tiny_curve", {
        "lowest.md", "lowest.tex", "lowest.csv", "curves.csv", "metadata.yaml"})
    assert not list(out.glob("comparison.*"))        # no published numbers: nothing to compare with
    assert (workdir / "results" / "splits" / "digits_f0.05_n3.h5").exists()      # a fraction has its own splits
    assert (out / "figures" / "curve_digits.png").exists()
    with h5py.File(out / "digits" / "f0.05" / "lea" / "split02.h5") as result_file:
        assert result_file["test_error_curve"].shape == (12,)
    assert_up_to_date(workdir, "tiny_curve")


def test_the_train_test_protocol_runs_from_config(workdir):
    out = run_target(workdir, "tiny_train_test", {
        "sizes.md", "sizes.tex", "sizes.csv", "curves.csv", "metadata.yaml"})
    assert (out / "figures" / "curves_digits.png").exists()
    with h5py.File(out / "digits" / "m30" / "lle_small" / "split01.h5") as result_file:
        assert result_file["errors"].shape == (2, 1) and result_file.attrs["x"] == "n_per_class"
        assert (result_file["n_components"][()] >= 1).all()          # the dimension LLE found by v = 0.9
    assert_up_to_date(workdir, "tiny_train_test")


def test_the_holdout_protocol_runs_from_config(workdir):
    out = run_target(workdir, "tiny_holdout", {
        "holdout.md", "holdout.tex", "holdout.csv", "curves.csv", "metadata.yaml"})
    assert (out / "figures" / "curves_digits_eo_150.png").exists()
    jobs = {p.relative_to(out / "digits_eo_150" / "holdout").as_posix() for p in out.rglob("*.h5")}
    assert jobs == {"pca/r01-02.h5", "pca/r03-03.h5", "gpk/r01-03.h5", "raw/r01-03.h5"}   # raw: one flat job
    with h5py.File(out / "digits_eo_150" / "holdout" / "gpk" / "r01-03.h5") as result_file:
        assert result_file["test_accuracy"].shape == (2, 2, 10) and result_file.attrs["kind"] == "classifier"
        assert "config_hash" in result_file.attrs
    table = (out / "holdout.md").read_text()
    assert "digits_eo_150†" in table and "a tiny test view" in table
    assert_up_to_date(workdir, "tiny_holdout")


def test_the_embedding_protocol_runs_from_config(workdir):
    out = run_target(workdir, "tiny_embedding")
    assert {p.name for p in (out / "panels").iterdir()} == {
        "samples.h5", "pca_2d.h5", "lea_3d_novel.h5", "lea_basis.h5"}
    assert (out / "figures" / "overview.png").exists() and (out / "checks.md").exists()
    with h5py.File(out / "panels" / "lea_3d_novel.h5") as panel:
        assert panel["novel_embedding"].shape[1] == 3 and "config_hash" in panel.attrs
    assert_up_to_date(workdir, "tiny_embedding")


def test_a_misconfigured_panel_fails_at_start_up_naming_it(workdir, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("experiments:\n  bad:\n    protocol: embedding\n    panels:\n      p: {dataset: digits, method: lea,"
                   " params: {n_components: 1}, dims: 3}\n    figures:\n      f: {panels: [p, q]}\n")
    result = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--configfile", str(bad)], cwd=workdir,
                            capture_output=True, text=True)
    assert result.returncode != 0 and "panel 'p'" in result.stderr + result.stdout


def test_a_second_run_on_the_same_directory_is_refused_and_the_first_is_unharmed(workdir):
    first = subprocess.Popen(
        [sys.executable, "-m", "snakemake", "tiny", "--cores", "1", "--configfile", str(TINY)],
        cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    locks = workdir / ".snakemake" / "locks"
    deadline = time.time() + 120
    while time.time() < deadline and not (locks.exists() and any(locks.iterdir())):
        time.sleep(0.05)
    first.send_signal(signal.SIGSTOP)      # hold the first run inside its lock, however fast this machine is
    try:
        assert any(locks.iterdir()), "the first run ended before it could be paused"
        second = snakemake(workdir, "tiny")
    finally:
        first.send_signal(signal.SIGCONT)
    assert first.wait(timeout=600) == 0
    # Snakemake checks for incomplete outputs before it takes the lock: paused inside a job, the first run
    # leaves that job's output marked incomplete, and the second run is refused on that mark instead.
    refusal = second.stdout + second.stderr
    assert second.returncode != 0
    assert "cannot be locked" in refusal or "Incomplete files" in refusal, refusal
    assert (workdir / "results" / "tiny" / "table.md").exists()


def test_one_core_and_two_cores_give_the_same_tables(workdir, tmp_path):
    other = tmp_path / "other"
    shutil.copytree(workdir, other, ignore=shutil.ignore_patterns("other"))
    one = subprocess.run([sys.executable, "-m", "snakemake", "tiny", "--cores", "1", "--configfile", str(TINY)],
                         cwd=other, capture_output=True, text=True)
    two = snakemake(workdir, "tiny")
    assert one.returncode == 0 and two.returncode == 0
    for name in ("table.csv", "table.md", "table.tex"):
        assert (other / "results" / "tiny" / name).read_bytes() == (workdir / "results" / "tiny" / name).read_bytes()


def test_blocks_sized_by_cost_give_the_same_tables_and_touch_adopts_a_folder_made_before(workdir, tmp_path):
    """splits_per_job: auto (one job per method here: digits is cheap) against tiny's single splits:
    the same tables; in the folder made with single splits, --touch once, and nothing is left to do."""
    overlay = tmp_path / "auto.yaml"
    overlay.write_text("experiments:\n  tiny:\n    splits_per_job: auto\n")
    other = tmp_path / "other"
    shutil.copytree(workdir, other, ignore=shutil.ignore_patterns("other", "auto.yaml"))

    def run(where, *args):
        return subprocess.run([sys.executable, "-m", "snakemake", "tiny", "--cores", "2", *args,
                               "--configfile", str(TINY), str(overlay)], cwd=where, capture_output=True, text=True)

    by_cost = run(other)
    assert by_cost.returncode == 0, by_cost.stderr[-3000:]
    assert sorted(p.name for p in (other / "logs" / "fit").rglob("*.log")) == ["splits00-02.log"] * 3
    assert snakemake(workdir, "tiny").returncode == 0
    for name in ("table.csv", "table.md", "table.tex"):
        assert (other / "results" / "tiny" / name).read_bytes() == (workdir / "results" / "tiny" / name).read_bytes()
    assert "Params have changed" in run(workdir, "--dry-run").stdout       # the split lists differ
    assert run(workdir, "--touch").returncode == 0
    assert "Nothing to be done" in run(workdir, "--dry-run").stdout


@pytest.mark.parametrize("when", ["aggregate", "fit"])
def test_killing_snakemake_and_its_job_costs_only_that_job(workdir, tmp_path, when):
    """kill -9 of the whole process group (Snakemake and the running job) while a fit job or the
    aggregation runs; --unlock and the plain command (profiles/default reruns incomplete jobs) then
    complete with the tables of an uninterrupted run."""
    reference = tmp_path / "reference"
    shutil.copytree(workdir, reference, ignore=shutil.ignore_patterns("reference"))
    assert snakemake(reference, "tiny").returncode == 0
    process = subprocess.Popen(
        [sys.executable, "-m", "snakemake", "tiny", "--cores", "1", "--configfile", str(TINY)],
        cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    kill_once_a_log_appears(process, workdir / "logs" / ("aggregate" if when == "aggregate" else "fit"), timeout=300)
    assert not (workdir / "results" / "tiny" / "table.csv").exists() or when == "aggregate"
    assert snakemake(workdir, "tiny", "--unlock").returncode == 0
    rerun = snakemake(workdir, "tiny")
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    for name in ("table.csv", "table.md", "table.tex"):
        ours, theirs = workdir / "results" / "tiny" / name, reference / "results" / "tiny" / name
        assert ours.read_bytes() == theirs.read_bytes()


@pytest.mark.parametrize("victim, damage", [
    ("data/processed/digits.h5", "truncated"), ("data/processed/digits.h5", "flipped"),
    ("results/tiny/digits/m8/pca/split01.h5", "truncated"), ("results/tiny/digits/m8/pca/split01.h5", "flipped"),
    ("results/tiny/digits/m8/pca/split01.h5", "attribute"),
])
def test_a_damaged_file_fails_its_reader_naming_it_and_the_rebuild_command(workdir, victim, damage):
    """Truncated to half, 8 bytes flipped inside an array (the data's ``X``, a result's
    ``test_predictions``) or an attribute rewritten through h5py: the sha256 in the file's header no
    longer matches, the job that reads the file fails naming it, and no table is written from it."""
    assert snakemake(workdir, "tiny").returncode == 0
    path = workdir / victim
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])
    elif damage == "flipped":
        with h5py.File(path, "r") as handle:
            chunk = handle["X" if "processed" in victim else "test_predictions"].id.get_chunk_info(0)
        data = bytearray(path.read_bytes())
        middle = chunk.byte_offset + chunk.size // 2
        data[middle - 4: middle + 4] = bytes(b ^ 0xFF for b in data[middle - 4: middle + 4])
        path.write_bytes(bytes(data))
    else:
        with h5py.File(path, "r+") as handle:
            handle.attrs["test_error"] = 0.0
    table = workdir / "results" / "tiny" / "table.csv"
    table.unlink()
    os.utime(path)                            # as if rewritten: its readers are out of date
    result = snakemake(workdir, "tiny")
    assert result.returncode != 0
    logs = "".join(p.read_text() for p in (workdir / "logs").rglob("*.log"))
    assert victim in logs and f"snakemake --cores 1 --force {victim}" in logs
    assert f"{victim} is damaged: its bytes do not match the sha256 its header records" in logs
    assert "Traceback" not in logs and "Traceback" not in result.stderr   # a user error: its message alone
    assert not table.exists()                # no table from a broken input


def test_verify_lists_exactly_the_damaged_and_the_missing_files(workdir):
    assert snakemake(workdir, "tiny").returncode == 0
    whole = snakemake(workdir, "verify", "--config", "verify=[tiny]")
    assert whole.returncode == 0, whole.stderr[-2000:]
    assert "files checked: all whole" in (workdir / "logs" / "verify.log").read_text()
    damaged, deleted = "results/tiny/digits/m8/pca/split01.h5", "results/tiny/digits/m8/raw/split02.h5"
    with h5py.File(workdir / damaged, "r+") as handle:
        handle.attrs["test_error"] = 0.0
    (workdir / deleted).unlink()
    found = snakemake(workdir, "verify", "--config", "verify=[tiny]")
    assert found.returncode != 0
    lines = (workdir / "logs" / "verify.log").read_text().splitlines()
    problems = [line for line in lines if line.startswith(("results/", "data/"))]
    assert len(problems) == 2 and "files checked: 2 missing or damaged" in "\n".join(lines)
    by_path = {line.split(" ")[0].rstrip(":"): line for line in problems}
    assert by_path[damaged].startswith(f"{damaged} is damaged") and by_path[deleted].startswith(f"{deleted}: missing")
    assert all(f"snakemake --cores 1 --force {path}" in line for path, line in by_path.items())


# ----------------------------------------------------------------------------- the rules of job scripts

def test_one_loop_defines_every_job_rule_and_the_profiles_ignore_rule_text():
    """Every job rule comes from one loop (its script is a param of the rule, not a line of its own),
    and every profile reruns on params, input, mtime and software environment only: the code a job
    runs is in its params (its code digest), so the rules' text is free to change."""
    rules = (ROOT / "workflow" / "rules" / "experiments.smk").read_text()
    assert rules.count("job_kinds(") == 1 and "job_script(locals())" in rules
    for profile in sorted((ROOT / "profiles").glob("*/config.yaml")):
        triggers = yaml.safe_load(profile.read_text())["rerun-triggers"]
        assert sorted(triggers) == ["input", "mtime", "params", "software-env"], profile


TOY_PROTOCOL = '''
from pathlib import Path

from locproj.protocols.base import JobRule, Output, Protocol
from locproj.report.writers import write_text


class Toy(Protocol):
    name = "toy"

    def jobs(self, config, experiment):
        return [(dataset,) for dataset in config["experiments"][experiment]["datasets"]]

    def result_path(self, experiment, dataset):
        return f"results/{experiment}/{dataset}.txt"

    def job_rules(self, config, experiment):
        return [JobRule(name=f"toy_{experiment}", output=[self.result_path(experiment, "{dataset}")],
                        log=f"logs/toy/{experiment}/{{dataset}}.log", input={},
                        params={"letters": lambda wc: len(wc.dataset)}, script="toy_job.py", runtime=1,
                        wildcard_constraints={"dataset": "[a-z]+"})]

    def aggregate(self, spec, inputs, out_dir, seed=None, notes=None):
        write_text(Path(out_dir) / "toy.txt", "".join(Path(path).read_text() for path in inputs))

    def outputs(self, experiment, spec):
        return [Output("toy", f"results/{experiment}/toy.txt", target=True),
                Output("metadata", f"results/{experiment}/metadata.yaml")]


PROTOCOL = Toy()
'''


def test_a_new_protocols_own_job_script_runs_with_nothing_added_to_the_rules(workdir, tmp_path):
    """A protocol added as docs/protocols.md says (its module and one registry line: the schema is
    completed from the code) whose jobs run a script of its own: every job runs its script, with no
    change to the rules or the schema."""
    src = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "locproj", src / "locproj")
    (src / "locproj" / "protocols" / "toy.py").write_text(TOY_PROTOCOL)
    registry = src / "locproj" / "protocols" / "__init__.py"
    registry.write_text(registry.read_text().replace('"embedding": "embedding",',
                                                     '"embedding": "embedding",\n    "toy": "toy",'))
    (workdir / "workflow" / "scripts" / "toy_job.py").write_text(
        'from pathlib import Path\n\nPath(snakemake.output[0]).write_text(f"{snakemake.wildcards.dataset} "\n'
        '                                          f"{snakemake.params.letters}\\n")\n')
    config = tmp_path / "toy.yaml"
    config.write_text("experiments:\n  toys:\n    protocol: toy\n    datasets: {digits: [5], iris: [5]}\n"
                      "    methods: {}\n")
    done = subprocess.run([sys.executable, "-m", "snakemake", "toys", "--cores", "1", "--configfile", str(config)],
                          cwd=workdir, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(src)})
    assert done.returncode == 0, done.stderr[-3000:]
    assert (workdir / "results" / "toys" / "toy.txt").read_text() == "digits 6\niris 4\n"
