"""Experiments from the config: blocks of splits per job, views that share their dataset's splits."""

from __future__ import annotations

import numpy as np
import pytest

from locproj.data import make_splits, prepare_dataset, write_splits
from locproj.engine.config import split_blocks, split_source
from locproj.experiments import job_config, run_configured_job
from locproj.engine.results import read_result

CONFIG = {
    "seed": 7,
    "datasets": {"digits": {"format": "sklearn_digits"}},
    "views": {"digits_jpeg": {"dataset": "digits", "jpeg_quality": 75},
              "digits_small": {"dataset": "digits_jpeg", "resize": [4, 4]},
              "digits_2c": {"dataset": "digits", "relabel": {"low": ["0", "1"], "high": ["2"]}}},
    "experiments": {"e": {"datasets": {"digits": [6]}, "n_splits": 5, "splits_per_job": 2,
                          "methods": {"lpp": {"fixed": {"weight": "heat", "supervised": True},
                                              "grid": {"n_neighbors": [3, "m-1"]}}}, "p_max": 10}},
}


def test_splits_come_in_blocks_of_at_most_splits_per_job_of_a_size_that_divides_ten():
    assert split_blocks(CONFIG, "e") == [[0], [1], [2], [3], [4]]          # 2 does not divide 5
    whole = {**CONFIG, "experiments": {"e": {**CONFIG["experiments"]["e"], "splits_per_job": 5}}}
    assert split_blocks(whole, "e") == [[0, 1, 2, 3, 4]]


def test_a_view_that_keeps_the_samples_shares_its_datasets_splits_and_folds():
    assert split_source(CONFIG, "digits_jpeg") == "digits"
    assert split_source(CONFIG, "digits_small") == "digits"        # through a chain of views
    assert split_source(CONFIG, "digits_2c") == "digits_2c"        # other samples: its own splits
    assert job_config(CONFIG, "e", "digits_jpeg", "lpp")["split_source"] == "digits"
    assert "split_source" not in job_config(CONFIG, "e", "digits", "lpp")   # Table 2's provenance unchanged


@pytest.fixture(scope="module")
def digits_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("digits")
    data = prepare_dataset("digits", CONFIG["datasets"]["digits"], [], folder / "digits.h5")
    train, test, folds, attrs = make_splits(data.y, "per_class", 6, 5, CONFIG["seed"], "digits")
    write_splits(folder / "splits.h5", train, test, attrs, folds)
    return folder


def test_a_block_of_splits_gives_the_results_of_one_job_per_split(digits_files):
    job = job_config(CONFIG, "e", "digits", "lpp")
    data, splits = digits_files / "digits.h5", digits_files / "splits.h5"
    blocked = [digits_files / f"block{s}.h5" for s in (1, 2, 3)]
    run_configured_job(job, "m6", [1, 2, 3], data, splits, blocked)
    for split, path in zip((1, 2, 3), blocked):
        alone = digits_files / f"alone{split}.h5"
        run_configured_job(job, "m6", [split], data, splits, [alone])
        a, b = read_result(path), read_result(alone)
        assert a["split"] == split and a["seed"] == b["seed"]
        assert a["test_error"] == b["test_error"] and a["p"] == b["p"] and a["params"] == b["params"]
        assert np.array_equal(a["cv_error"], b["cv_error"])
        assert np.array_equal(a["test_predictions"], b["test_predictions"])
    assert len({read_result(p)["seed"] for p in blocked}) == 3           # each split has its own CV folds


def test_splits_and_outputs_must_pair_up(digits_files):
    job = job_config(CONFIG, "e", "digits", "lpp")
    with pytest.raises(ValueError, match="2 splits but 1 output files"):
        run_configured_job(job, "m6", [0, 1], digits_files / "digits.h5", digits_files / "splits.h5",
                           [digits_files / "x.h5"])
