"""Jobs sized by cost: ``splits_per_job: auto`` and locproj.engine.job_costs."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from locproj.engine.config import aligned_blocks
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
    (0.01, 20, [10, 10]),                   # cheap: a decade of splits per job, the most a job holds
    (0.01, 7, [7]),                         # a whole cell of at most ten
    (30.0, 20, [5] * 4),                    # eight would fit in JOB_SECONDS: five, a size that divides ten
    (95.8, 20, [1] * 20),                   # PIE m = 30 LPP: two would fit, but 2 is no block size
    (500.0, 20, [1] * 20),                  # a split alone beyond JOB_SECONDS: one per job
    (50.0, 7, [1] * 7),                     # four would fit, but seven splits come in blocks of 1 or all 7
    (45.0, 20, [5] * 4),
])
def test_blocks_cover_every_split_once_each_within_one_decade_and_within_the_job_time(seconds, n_splits, sizes):
    blocks = cell_blocks(seconds, n_splits)
    assert [len(block) for block in blocks] == sizes
    assert [split for block in blocks for split in block] == list(range(n_splits))
    assert all(len(block) * seconds <= max(JOB_SECONDS, seconds) for block in blocks)
    assert all(block[0] // 10 == block[-1] // 10 for block in blocks)


@pytest.mark.parametrize("n, most, blocks", [
    (5, 2, [[0], [1], [2], [3], [4]]),      # 2 is no block size: single splits
    (5, 5, [[0, 1, 2, 3, 4]]),
    (20, 20, [list(range(10)), list(range(10, 20))]),
    (15, 10, [list(range(5)), list(range(5, 10)), list(range(10, 15))]),
    (12, 10, [[split] for split in range(12)]),
])
def test_integer_blocks_are_at_most_splits_per_job_and_divide_the_decades(n, most, blocks):
    assert aligned_blocks(n, most) == blocks


def producers(rules, path: str) -> list:
    """The rules whose outputs match ``path``, as Snakemake matches them (each wildcard's constraint)."""
    from snakemake.io import regex_from_filepattern

    found = []
    for rule in rules:
        for output in rule.output:
            pattern = output
            for name, constraint in rule.wildcard_constraints.items():
                pattern = pattern.replace(f"{{{name}}}", f"{{{name},{constraint}}}")
            if match := re.match(regex_from_filepattern(pattern), path):
                found.append((rule, SimpleNamespace(**match.groupdict())))
    return found


def test_integer_blocks_make_one_rule_with_the_cells_as_wildcards(config):
    config = copy.deepcopy(config)
    config["experiments"]["llp_table2"]["splits_per_job"] = 10
    (rule,) = job_rules(config, "llp_table2")
    assert rule.name == "fit_splits_x0_x9" and len(rule.output) == 10
    assert rule.output[3] == "results/{experiment}/{dataset}/{partition}/{method}/split{tens}3.h5"
    assert rule.log == "logs/fit/{experiment}/{dataset}/{partition}/{method}/splits{tens}0-{tens}9.log"
    ((found, wildcards),) = producers([rule], "results/llp_table2/pie/m30/lpp/split13.h5")
    assert found is rule and rule.params["splits"](wildcards) == list(range(10, 20))
    assert not producers([rule], "results/llp_table2/pie/m30/unknown/split13.h5")
    assert not producers([rule], "results/matrix/pie/m30/lpp/split13.h5")


def test_auto_gives_every_split_of_every_cell_one_rule_and_its_costliest_jobs_first(config):
    assert config["experiments"]["llp_table2"]["splits_per_job"] == "auto"      # the README's main job
    spec = config["experiments"]["llp_table2"]
    rules = job_rules(config, "llp_table2")
    assert sorted(rule.name for rule in rules) == ["fit_split", "fit_splits_x0_x4", "fit_splits_x0_x9",
                                                   "fit_splits_x5_x9"]
    for dataset, sizes in spec["datasets"].items():
        for partition in (f"m{m}" for m in sizes):
            for method in spec["methods"]:
                for split in range(20):
                    path = f"results/llp_table2/{dataset}/{partition}/{method}/split{split:02d}.h5"
                    ((rule, wildcards),) = producers(rules, path)
                    splits = rule.params["splits"](wildcards)
                    assert split in splits and rule.output[splits.index(split)].format(**vars(wildcards)) == path
                    assert rule.priority(wildcards) == round(
                        STARTUP_SECONDS + len(splits) * split_seconds(config, "llp_table2", dataset, partition, method))
    ((single, wildcards),) = producers(rules, "results/llp_table2/pie/m30/lpp/split07.h5")
    assert single.name == "fit_split"                       # PIE m = 30 LPP: one split per job
    ((cheap, wildcards),) = producers(rules, "results/llp_table2/yale/m5/raw/split17.h5")
    assert cheap.params["splits"](wildcards) == list(range(10, 20))      # raw on Yale: a decade per job


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
