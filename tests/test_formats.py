"""The table of data formats (locproj.data.readers.FORMATS) against the config schema and
docs/data-formats.md, and the guide's worked example: a LIBSVM reader added at run time."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from locproj.data import DataError, load_dataset
from locproj.data import readers
from locproj.data.readers import FORMATS, Format, check_options, read_dataset

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
GUIDE = DOCS / "data-formats.md"
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"


def test_the_schema_format_enum_is_the_table():
    schema = yaml.safe_load(SCHEMA.read_text())
    enum = schema["properties"]["datasets"]["additionalProperties"]["properties"]["format"]["enum"]
    missing, extra = sorted(set(FORMATS) - set(enum)), sorted(set(enum) - set(FORMATS))
    assert not missing and not extra, (
        f"{SCHEMA.relative_to(ROOT)}: the format enum lacks {missing} (in FORMATS) and has {extra} (not in "
        "FORMATS); fix: make the enum list the keys of locproj.data.readers.FORMATS"
    )


def test_the_guide_lists_every_format_and_its_options():
    rows = re.findall(r"^\| (`.*?) \| .*? \| (.*?) \|$", GUIDE.read_text(), flags=re.M)
    listed = {name: set(re.findall(r"`(\w+)`", options))
              for names, options in rows for name in re.findall(r"`(\w+)`", names)}
    assert set(listed) == set(FORMATS), f"docs/data-formats.md lists {sorted(listed)}, FORMATS has {sorted(FORMATS)}"
    for name, form in FORMATS.items():
        assert listed[name] == set(form.options), name


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
    data = load_dataset(path, format="libsvm")                      # n_features: the largest index
    assert data.X.shape == (3, 3) and data.class_names == ["-1", "1", "2"]
    np.testing.assert_array_equal(data.y, [1, 0, 2])
    assert readers.FORMATS["libsvm"].source == "files"


def test_the_libsvm_example_names_the_line_and_the_fix(libsvm, tmp_path):
    path = tmp_path / "bad.libsvm"
    path.write_text("1 1:0.5\n1 2=3\n")
    with pytest.raises(DataError, match=rf"dataset 'bad': {re.escape(str(path))}, line 2: '1 2=3' is not "
                                        r"'label index:value \.\.\.'; fix"):
        read_dataset("bad", {"format": "libsvm", "path": str(path)}, [path])
    with pytest.raises(DataError, match="unknown key 'n_feature' .*did you mean 'n_features'"):
        check_options("bad", {"format": "libsvm", "path": str(path), "n_feature": 3})
