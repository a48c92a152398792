"""The table of data formats (locproj.data.readers.FORMATS), the one place a format is declared:
the config schema takes its names without listing them, an unknown name fails at start-up, the
suffixes load_dataset tells a format by come from it (one format a suffix), docs/data-formats.md
lists it, and docs/own-data.md explains the options of those it lists; and the guide's worked
example: a LIBSVM reader added at run time."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import jsonschema
import numpy as np
import pytest
import yaml

from locproj.data import DataError, load_dataset
from locproj.data import readers
from locproj.data.checks import check_dataset_options
from locproj.data.load import _format_of
from locproj.data.readers import FORMATS, Format, check_options, read_dataset, suffix_formats
from locproj.errors import UserError

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
GUIDE = DOCS / "data-formats.md"
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"


# --- the schema and the start-up check ----------------------------------------------------------


def _schema() -> dict:
    return yaml.safe_load(SCHEMA.read_text())


def test_the_schema_lists_no_format_names():
    entry = _schema()["properties"]["datasets"]["additionalProperties"]["properties"]["format"]
    assert "enum" not in entry and entry["type"] == "string"
    assert "locproj.data.readers.FORMATS" in " ".join(entry["description"].split())


@pytest.mark.parametrize("name", list(FORMATS))
def test_the_schema_takes_every_format(name):
    entry = {"format": name, **({"path": "data/own/x"} if FORMATS[name].reads_files else {})}
    jsonschema.Draft202012Validator(_schema()).validate({"datasets": {"mine": entry}})


def test_an_unknown_format_fails_at_start_up_naming_the_dataset_and_the_formats():
    config = {"datasets": {"mine": {"format": "nosuch", "path": "data/own/mine.csv"}}}
    with pytest.raises(UserError) as info:
        check_dataset_options(config)
    message = str(info.value)
    assert "datasets.mine" in message and "unknown format 'nosuch'" in message
    assert f"set `format:` to one of {', '.join(FORMATS)}" in message
    # the pipeline runs this check when the Snakefile is parsed, before the schema and any job
    common = (ROOT / "workflow" / "rules" / "common.smk").read_text()
    assert 0 < common.index("check_dataset_options(config)") < common.index("validate_config(")


# --- suffixes -------------------------------------------------------------------------------------


def test_each_suffix_belongs_to_one_format():
    assert suffix_formats() == {suffix: name for name, form in FORMATS.items() for suffix in form.suffixes}
    assert {".csv", ".txt", ".tsv", ".tab", ".npz", ".mat"} <= set(suffix_formats())
    claimed = [suffix for form in FORMATS.values() for suffix in form.suffixes]
    assert len(claimed) == len(set(claimed)), f"a suffix claimed by two formats: {sorted(claimed)}"


def test_a_suffix_claimed_by_two_formats_is_an_error(monkeypatch, tmp_path):
    monkeypatch.setitem(FORMATS, "text", Format(readers.read_csv, suffixes=(".dat", ".txt")))
    with pytest.raises(ValueError, match=r"suffix '\.txt' is claimed by formats 'csv' and 'text'"):
        suffix_formats()
    with pytest.raises(ValueError, match="claimed by formats"):
        load_dataset(tmp_path / "mine.dat")


@pytest.mark.parametrize("path, expected", [("a.csv", "csv"), ("a.TXT", "csv"), ("dir/a.b.tsv", "tsv"),
                                            ("a.Tab", "tsv"), ("a.npz", "npz"), ("a.MAT", "mat")])
def test_the_format_from_a_suffix(path, expected):
    assert _format_of(path) == expected


def test_a_path_without_a_known_suffix_is_named_with_the_fix(tmp_path):
    with pytest.raises(DataError) as info:
        _format_of("data/own/mine.xlsx")
    assert str(info.value) == ("cannot tell the format of data/own/mine.xlsx from its suffix '.xlsx'; fix: pass "
                               "format=... (one of csv, tsv, npz, npy, mat, image_folder)")
    assert _format_of(str(tmp_path)) == "image_folder"
    assert _format_of(["X.npy", "y.npy"]) == "npy"
    with pytest.raises(DataError, match=r"cannot tell the format of \['X.npy'\]; fix: pass format=\.\.\. \(two"):
        _format_of(["X.npy"])


@pytest.mark.parametrize("suffixes", ["csv", ("csv",), (".CSV",), (".tar.gz",), ("",)])
def test_a_suffix_is_lower_case_with_its_dot(suffixes):
    with pytest.raises(ValueError, match="suffix"):
        Format(read_dataset, (), suffixes=suffixes)


# --- the guide --------------------------------------------------------------------------------------


def _guide_rows() -> list[tuple[str, str, str]]:
    return re.findall(r"^\| (`.*?) \| (.*?) \| (.*?) \|$", GUIDE.read_text(), flags=re.M)


def test_the_guide_lists_every_format_and_its_options():
    listed = {name: set(re.findall(r"`(\w+)`", options))
              for names, _, options in _guide_rows() for name in re.findall(r"`(\w+)`", names)}
    assert set(listed) == set(FORMATS), f"docs/data-formats.md lists {sorted(listed)}, FORMATS has {sorted(FORMATS)}"
    for name, form in FORMATS.items():
        assert listed[name] == set(form.options), name


def test_the_guide_names_every_suffix_in_its_formats_row():
    for names, reads, _ in _guide_rows():
        shown = set(re.findall(r"`(\.\w+)`", reads))
        for name in re.findall(r"`(\w+)`", names):
            assert set(FORMATS[name].suffixes) <= shown, f"docs/data-formats.md, row of {name}: {reads}"


def test_the_user_guide_explains_every_option_of_the_formats_it_lists():
    rows = re.findall(r"^\| (`.*?) \| .*? \| (.*?) \|$", (DOCS / "own-data.md").read_text(), flags=re.M)
    assert rows
    for names, options in rows:
        for name in re.findall(r"`(\w+)`", names):
            assert name in FORMATS, f"docs/own-data.md lists {name!r}, which FORMATS does not have"
            missing = set(FORMATS[name].options) - set(re.findall(r"`(\w+)", options))
            assert not missing, f"docs/own-data.md, row of {name}: no word on {sorted(missing)}"


@pytest.mark.parametrize("name", list(FORMATS))
def test_the_source_decides_which_entries_take_files(name):
    form = FORMATS[name]
    with_path, without = {"format": name, "path": "x"}, {"format": name}
    check_options("d", with_path if form.reads_files else without)
    with pytest.raises(DataError, match="reads files" if form.reads_files else "reads no files"):
        check_options("d", without if form.reads_files else with_path)


def test_an_unknown_source_is_refused():
    with pytest.raises(ValueError, match="'url' is not one of files, folder, generated, builtin"):
        Format(read_dataset, (), "url")


# --- the worked example of docs/data-formats.md ---------------------------------------------------


@pytest.fixture
def libsvm(monkeypatch):
    """The guide's ``libsvm`` format, registered with the FORMATS entry the guide shows."""
    monkeypatch.syspath_prepend(str(DOCS))
    from examples.libsvm_format import read_libsvm

    (entry,) = re.findall(r"^    (\"libsvm\": Format\(.*\)),$", GUIDE.read_text(), flags=re.M)
    table = eval(f"{{{entry}}}", {"Format": Format, "read_libsvm": read_libsvm})   # the guide's line
    monkeypatch.setitem(FORMATS, "libsvm", table["libsvm"])
    yield read_libsvm
    sys.modules.pop("examples.libsvm_format", None)


def test_the_guide_shows_the_example_reader():
    block = re.findall(r"^```python\n(.*?)^```", GUIDE.read_text(), flags=re.S | re.M)[0]
    assert block.startswith("def read_libsvm") and block in (DOCS / "examples" / "libsvm_format.py").read_text()


def test_the_libsvm_example_reads_through_read_dataset(libsvm, tmp_path):
    path = tmp_path / "tiny.libsvm"
    path.write_text("# two classes\n+1 1:0.5 3:2\n-1 2:1.5\n\n2 1:1 2:1 3:1  # a comment\n")
    spec = {"format": "libsvm", "path": str(path), "n_features": 4}
    check_options("tiny", spec)
    raw = read_dataset("tiny", spec, [path])
    np.testing.assert_array_equal(raw.X, [[0.5, 0, 2, 0], [0, 1.5, 0, 0], [1, 1, 1, 0]])
    np.testing.assert_array_equal(raw.labels, [1, -1, 2])
    assert raw.X.dtype == np.float64 and raw.where([2]) == f"{path}, line 5"
    data = load_dataset(path)                         # libsvm from the suffix; n_features: the largest index
    assert data.X.shape == (3, 3) and data.class_names == ["-1", "1", "2"]
    np.testing.assert_array_equal(data.y, [1, 0, 2])
    np.testing.assert_array_equal(load_dataset(path, format="libsvm").X, data.X)
    assert readers.FORMATS["libsvm"].source == "files"


def test_the_libsvm_example_names_the_line_and_the_fix(libsvm, tmp_path):
    path = tmp_path / "bad.libsvm"
    path.write_text("1 1:0.5\n1 2=3\n")
    with pytest.raises(DataError, match=rf"dataset 'bad': {re.escape(str(path))}, line 2: '1 2=3' is not "
                                        r"'label index:value \.\.\.'; fix"):
        read_dataset("bad", {"format": "libsvm", "path": str(path)}, [path])
    with pytest.raises(DataError, match="unknown key 'n_feature' .*did you mean 'n_features'"):
        check_options("bad", {"format": "libsvm", "path": str(path), "n_feature": 3})
