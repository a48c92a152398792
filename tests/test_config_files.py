"""The configuration in files a reader can hold, and the same configuration as before they were split.

config/config.yaml holds the options and the targets and names the files that hold the rest under
`config_files:` (the datasets, the views, one file per paper, the matrix); config/papers_smoke.yaml
names its own the same way (locproj.engine.config_files). The merged configuration of the default
run and of the runs with config/papers_smoke.yaml, config/demo.yaml and config/smoke.yaml, loaded as
the Snakefile loads it (load_config: Snakemake's loading and merging, then merge_config_files, the
function the Snakefile calls), gives every digest of tests/fixtures/config_digests.json: every
top-level key, every entry of a top-level mapping (each experiment, dataset, view, target, ...) and
the order of those entries. The fixture was made from the configuration as one file, before the
split. When the configuration changes on purpose, remake it (`python tools/config_digests.py`, from
the repository root) and commit it with the change.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
import yaml

from locproj.engine.config import paper_targets
from locproj.engine.config_files import CONFIG_FILE, load_config, merge_config_files
from locproj.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = json.loads((ROOT / "tests" / "fixtures" / "config_digests.json").read_text())
MAX_LINES = 400

_spec = importlib.util.spec_from_file_location("config_digests", ROOT / "tools" / "config_digests.py")
config_digests = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(config_digests)


@pytest.mark.parametrize("run", sorted(FIXTURE))
def test_the_merged_configuration_of_each_run_is_the_one_the_digests_record(run):
    recorded = FIXTURE[run]
    now = config_digests.config_digests(load_config(ROOT, recorded["configfiles"], recorded["values"]))
    then = recorded["digests"]
    missing, added = sorted(set(then) - set(now)), sorted(set(now) - set(then))
    changed = sorted(key for key in set(then) & set(now) if then[key] != now[key])
    assert not (missing or added or changed), (
        f"{run}: the merged configuration differs from tests/fixtures/config_digests.json: missing "
        f"{missing}, added {added}, changed {changed} (remake the fixture only for a change on purpose: "
        f"python tools/config_digests.py)")


def test_no_file_under_config_exceeds_400_lines():
    long = {str(path.relative_to(ROOT)): n for path in sorted((ROOT / "config").rglob("*"))
            if path.is_file() and (n := len(path.read_bytes().splitlines())) > MAX_LINES}
    assert not long, f"files over {MAX_LINES} lines (split them as config/config.yaml's config_files do): {long}"


def test_each_paper_target_names_the_file_of_its_experiments_and_every_file_is_named():
    """config/config.yaml labels each paper's file with the paper's target: that file holds the
    target's experiments. Every file under config/papers and config/papers_smoke is named, so none
    is left out of the configuration unnoticed."""
    files = yaml.safe_load((ROOT / CONFIG_FILE).read_text())["config_files"]
    config = load_config(ROOT)
    for target, experiments in paper_targets(config["targets"], config["experiments"]).items():
        held = yaml.safe_load((ROOT / files[target]).read_text())["experiments"]
        assert set(experiments) <= set(held), (target, files[target])
    named = {path for overlay in ROOT.glob("config/*.yaml")
             for path in (yaml.safe_load(overlay.read_text()) or {}).get("config_files", {}).values()}
    for folder in ("papers", "papers_smoke"):
        for path in (ROOT / "config" / folder).glob("*.yaml"):
            assert str(path.relative_to(ROOT)) in named, f"{path.relative_to(ROOT)} is named by no config_files"


def test_the_matrix_has_table_2s_entries_and_grids():
    """The matrix's 1-NN, PCA, LDA, LPP and LLP are llp_table2's (a YAML anchor cannot cross files)."""
    experiments = load_config(ROOT)["experiments"]
    table2 = experiments["llp_table2"]["methods"]
    assert list(table2) == ["raw", "pca", "lda", "lpp", "llp"]
    assert {name: experiments["matrix"]["methods"][name] for name in table2} == table2


def test_the_blas_kernel_check_runs_the_matrix_as_configured():
    """tools/blas_kernels_matrix.yaml restricts the matrix to five methods; what it keeps is config/matrix.yaml's."""
    matrix = load_config(ROOT)["experiments"]["matrix"]
    overlay = yaml.safe_load((ROOT / "tools" / "blas_kernels_matrix.yaml").read_text())["replace_experiments"]["matrix"]
    assert {key: value for key, value in overlay.items() if key not in ("methods", "labels", "description")} == {
        key: value for key, value in matrix.items() if key not in ("methods", "labels", "description")}
    assert overlay["methods"] == {name: matrix["methods"][name] for name in overlay["methods"]}
    assert overlay["labels"] == {name: matrix["labels"][name] for name in overlay["methods"]}


def test_named_files_lie_beneath_the_config_and_its_overlays(tmp_path):
    (tmp_path / "part.yaml").write_text(yaml.safe_dump(
        {"seed": 1, "experiments": {"a": {"n_splits": 3, "p_max": 9}, "b": {}}, "targets": {"t": ["a"]}}))
    config = {"seed": 2, "experiments": {"a": {"n_splits": 5}, "c": {}}, "config_files": {"part": "part.yaml"}}
    assert merge_config_files(config, tmp_path) is config
    assert config == {"seed": 2, "experiments": {"a": {"n_splits": 5, "p_max": 9}, "c": {}, "b": {}},
                      "targets": {"t": ["a"]}}
    assert list(config["experiments"]) == ["a", "c", "b"]      # the given entries first


def test_a_missing_or_nesting_named_file_is_an_error_naming_it(tmp_path):
    with pytest.raises(ConfigError, match=r"config_files: part: absent.yaml is not a file"):
        merge_config_files({"config_files": {"part": "absent.yaml"}}, tmp_path)
    (tmp_path / "nested.yaml").write_text("config_files: {more: more.yaml}\n")
    with pytest.raises(ConfigError, match=r"config_files: part: nested.yaml names config_files of its own"):
        merge_config_files({"config_files": {"part": "nested.yaml"}}, tmp_path)
    with pytest.raises(ConfigError, match=r"config_files must map names to file paths"):
        merge_config_files({"config_files": ["part.yaml"]}, tmp_path)
