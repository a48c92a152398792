"""Jobs sized by cost: ``splits_per_job: auto`` and locproj.engine.job_costs."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pandas as pd
import pytest

from locproj.engine.config import consecutive_blocks, split_blocks
from locproj.experiments import check_experiments, job_rules
from locproj.engine.job_costs import (COEFFICIENTS, JOB_SECONDS, STARTUP_SECONDS, SizeError, cell_blocks, dataset_size,
                                split_seconds)

ROOT = Path(__file__).resolve().parents[1]


def auto(config: dict, experiment: str) -> dict:
    config = copy.deepcopy(config)
    config["experiments"][experiment]["splits_per_job"] = "auto"
    return config


def test_the_config_sizes_are_the_data_files_sizes(config, mirror):
    manifest = pd.read_csv(mirror / "MANIFEST.tsv", sep="\t").set_index("file")
    for name, size in config["dataset_sizes"].items():
        files = [f["name"] for f in config["datasets"][name].get("files", [])]
        if not files:                                   # scikit-learn's digits: no file
            continue
        rows = manifest.loc[files]
        assert size["samples"] == rows["n_samples"].sum(), name
        assert size["features"] == rows["n_features"].iloc[0] and size["classes"] == rows["n_classes"].max(), name


def test_a_view_takes_its_datasets_size_with_its_resize_relabel_and_sample(config):
    assert dataset_size(config, "olivetti_32") == (400, 40, 1024)            # resize [32, 32]
    assert dataset_size(config, "usps_eo_1500") == (1500, 2, 256)            # relabel, then sample
    with pytest.raises(SizeError, match=r"dataset 'frey' has no entry in `dataset_sizes`.*integer `splits_per_job`"):
        dataset_size(config, "frey")


@pytest.mark.parametrize("seconds, n_splits, sizes", [
    (0.01, 20, [20]),                       # cheap: one job pays the start-up once
    (30.0, 20, [4] * 5),                    # 600 s in five jobs of JOB_SECONDS
    (95.8, 20, [1] * 20),                   # PIE m = 30 LPP: one split per job
    (500.0, 20, [1] * 20),                  # a split alone beyond JOB_SECONDS: one per job
    (50.0, 7, [2, 2, 2, 1]),
    (45.0, 20, [2] * 10),                   # two fit in a job, three do not
])
def test_blocks_cover_every_split_once_in_consecutive_blocks_of_about_the_same_cost(seconds, n_splits, sizes):
    blocks = cell_blocks(seconds, n_splits)
    assert [len(block) for block in blocks] == sizes
    assert [split for block in blocks for split in block] == list(range(n_splits))
    assert all(len(block) * seconds <= max(JOB_SECONDS, seconds) for block in blocks)


def test_integer_blocks_are_the_rules_of_before(config):
    assert consecutive_blocks(20, 10) == [list(range(10)), list(range(10, 20))]
    config = copy.deepcopy(config)
    config["experiments"]["llp_table2"]["splits_per_job"] = 10               # Table 2's blocks before cost sizing
    rules = job_rules(config, "llp_table2")
    assert [rule.name for rule in rules] == ["fit_llp_table2_splits00-09", "fit_llp_table2_splits10-19"]
    assert all(rule.priority == 0 and rule.wildcard_constraints == {"method": r"[A-Za-z0-9_]+"} for rule in rules)
    assert split_blocks(config, "slle_features") == [list(range(5)), list(range(5, 10))]


def cell_of(rule) -> tuple[str, str, str]:
    """(dataset, partition, method) of a cost-sized rule: the dataset and the method are written in its
    paths, the partition is its one wildcard, pinned by its constraint."""
    dataset, method = re.fullmatch(r"results/\w+/([^/]+)/\{partition\}/([^/]+)/split\d+\.h5", rule.output[0]).groups()
    assert set(rule.wildcard_constraints) == {"partition"}
    return dataset, rule.wildcard_constraints["partition"].replace("\\", ""), method


def test_auto_gives_each_cell_its_own_blocks_costliest_first(config):
    assert config["experiments"]["llp_table2"]["splits_per_job"] == "auto"      # the README's main job
    spec = config["experiments"]["llp_table2"]
    rules = job_rules(config, "llp_table2")
    assert len({rule.name for rule in rules}) == len(rules)
    covered = {}
    for rule in rules:
        cell = cell_of(rule)
        assert rule.log.startswith(f"logs/fit/llp_table2/{cell[0]}/{{partition}}/{cell[2]}/")
        for output in rule.output:
            split = int(re.search(r"split(\d+)\.h5$", output)[1])
            assert (cell, split) not in covered
            covered[cell, split] = rule
    cells = {(d, f"m{m}", method) for d, ms in spec["datasets"].items() for m in ms for method in spec["methods"]}
    assert set(covered) == {(cell, split) for cell in cells for split in range(20)}
    for rule in rules:                  # the priority is the job's estimated seconds: costliest first
        assert rule.priority == round(STARTUP_SECONDS + len(rule.output) * split_seconds(config, "llp_table2",
                                                                                        *cell_of(rule)))
    per_split = max(rules, key=lambda rule: rule.priority / len(rule.output))
    assert per_split.name.startswith("fit_llp_table2_pie_m30_lpp_") and len(per_split.output) == 1
    yale_raw = [rule for rule in rules if rule.name.startswith("fit_llp_table2_yale_m5_raw_")]
    assert [rule.name for rule in yale_raw] == ["fit_llp_table2_yale_m5_raw_splits00-19"]    # one job


def test_the_estimates_order_table2s_cells_as_their_work_grows(config):
    seconds = {m: split_seconds(config, "llp_table2", "pie", f"m{m}", "lpp") for m in (10, 20, 30)}
    assert seconds[10] < seconds[20] < seconds[30]
    assert split_seconds(config, "llp_table2", "pie", "m30", "lpp") > split_seconds(config, "llp_table2", "pie",
                                                                                    "m30", "llp")
    assert split_seconds(config, "llp_table2", "yale", "m5", "lpp") < 1.0


def test_the_model_follows_the_recorded_times_it_was_calibrated_on(config):
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("calibrate_costs", ROOT / "tools" / "calibrate_costs.py")
    calibrate = sys.modules["calibrate_costs"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(calibrate)
    rows = list(calibrate.cells(config, "matrix", pd.read_csv(ROOT / "docs" / "results" / "matrix" / "timing.csv")))
    assert len(rows) >= 100
    ratios = pd.Series([sum(c * t for c, t in zip(COEFFICIENTS[name].values(), terms)) / seconds
                        for name, terms, seconds, _ in rows])
    assert {name for name, *_ in rows} <= set(COEFFICIENTS)
    assert 0.5 < ratios.median() < 2.0 and (ratios.between(0.2, 5.0)).mean() > 0.9


def test_auto_needs_sizes_and_a_cross_validated_protocol(config):
    from snakemake.utils import validate

    config = auto(config, "matrix")
    validate(config, str(ROOT / "workflow" / "schemas" / "config.schema.yaml"))
    del config["dataset_sizes"]["iris"]
    with pytest.raises(ValueError, match=r"experiment 'matrix': dataset 'iris' has no entry in `dataset_sizes`"):
        check_experiments(config)
    config = auto(config, "slle_features")
    config["experiments"].pop("matrix")
    with pytest.raises(ValueError, match=r"experiment 'slle_features': splits_per_job: auto sizes the blocks of "
                                         r"cross-validated jobs; give the train_test_curve protocol an integer"):
        check_experiments(config)
