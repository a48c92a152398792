"""A config is checked once and its jobs planned once: locproj.workflow.checked_once and locproj.engine.planning."""

from __future__ import annotations

import os

import pytest

from locproj.engine import planning
from locproj.errors import ConfigError
from locproj.workflow import checked_once


class Check:
    """A check that fills in a default, counts its calls and fails on ``bad: true``."""

    def __init__(self):
        self.calls = 0

    def __call__(self, config):
        self.calls += 1
        if config.get("bad"):
            raise ConfigError("config key bad: must be false")
        config.setdefault("n_splits", 20)


def test_a_config_is_checked_once_and_its_outcome_read_back_with_its_defaults(tmp_path):
    check, data = Check(), tmp_path / "data.csv"
    data.write_text("1,2\n")
    first, second = {"seed": 1, "experiments": {5: "int key"}}, {"seed": 1, "experiments": {5: "int key"}}
    digest = checked_once(first, check, [data], tmp_path / "cache")
    assert checked_once(second, check, [data], tmp_path / "cache") == digest and check.calls == 1
    assert second == first == {"seed": 1, "experiments": {5: "int key"}, "n_splits": 20}    # types kept
    other = {"seed": 2, "experiments": {5: "int key"}}
    assert checked_once(other, check, [data], tmp_path / "cache") != digest and check.calls == 2


def test_a_changed_file_the_checks_read_checks_again(tmp_path):
    check, data = Check(), tmp_path / "data.csv"
    data.write_text("1,2\n")
    checked_once({"seed": 1}, check, [data], tmp_path / "cache")
    data.write_text("1,2,3\n")
    checked_once({"seed": 1}, check, [data], tmp_path / "cache")
    stat = data.stat()
    os.utime(data, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))        # the same size, a later change
    checked_once({"seed": 1}, check, [data], tmp_path / "cache")
    assert check.calls == 3


def test_a_failing_check_keeps_nothing_and_fails_again(tmp_path):
    check = Check()
    for _ in range(2):
        with pytest.raises(ConfigError, match="config key bad"):
            checked_once({"bad": True}, check, [], tmp_path / "cache")
    assert check.calls == 2 and not list((tmp_path / "cache").glob("*"))


@planning.planned
def counted(config, name, scale=1):
    config["calls"].append(name)
    return len(name) * scale


def test_a_planned_value_is_computed_once_per_file_and_without_one_every_time(tmp_path):
    config = {"calls": []}
    assert counted(config, "abc") == counted(config, "abc") == 3 and config["calls"] == ["abc", "abc"]
    try:
        planning.use(tmp_path / "planned.pickle")
        assert counted(config, "abc") == 3 and counted(config, "abc", scale=2) == 6
        assert counted(config, "abc") == 3 and config["calls"] == ["abc"] * 4
        planning.save()
        planning.use(tmp_path / "planned.pickle")          # a later run of the same config and code
        assert counted(config, "abc", scale=2) == 6 and config["calls"] == ["abc"] * 4
        planning.use(tmp_path / "other.pickle")            # another config or code: its own file
        assert counted(config, "abc") == 3 and config["calls"] == ["abc"] * 5
    finally:
        planning.stop()
