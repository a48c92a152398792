"""A data format added at exactly the places docs/data-formats.md names: one reader function and one
entry of locproj.data.readers.FORMATS (its name, reader, options and suffixes). Nothing else is
touched (no schema, no suffix table, no list of names), and the format is read by ``read_dataset``,
told by its suffix through ``load_dataset``, passes the start-up checks and the config schema, and
is prepared as the pipeline's ``prepare`` step does."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import numpy as np
import pytest
import yaml

from locproj.data import DataError, load_dataset, prepare_dataset, read_dataset_file
from locproj.data.checks import check_dataset_options, check_local_datasets
from locproj.data.raw import RawData
from locproj.data.readers import FORMATS, Format, read_dataset

SCHEMA = Path(__file__).resolve().parents[1] / "workflow" / "schemas" / "config.schema.yaml"


# --- the two places: a reader and a FORMATS entry -------------------------------------------------


def read_toy(spec: dict, paths: list[Path]) -> RawData:
    """Toy files: one sample a line, ``label: value value ...``, values split by ``delimiter``
    (default: white space)."""
    labels, rows, locations = [], [], []
    for path in paths:
        for number, line in enumerate(Path(path).read_text().splitlines(), start=1):
            if not line.strip():
                continue
            label, _, values = line.partition(":")
            where = f"{path}, line {number}"
            try:
                rows.append([float(v) for v in values.split(spec.get("delimiter")) if v.strip()])
            except ValueError:
                raise DataError(f"{where}: {line!r} is not 'label: value value ...'") from None
            labels.append(label.strip())
            locations.append(where)
    return RawData(np.array(rows), np.array(labels), None, {}, locations)


TOY = Format(read_toy, ("delimiter",), suffixes=(".toy",))


@pytest.fixture
def toy(monkeypatch):
    """The toy format, registered as the one FORMATS entry it needs."""
    monkeypatch.setitem(FORMATS, "toy", TOY)
    return "toy"


@pytest.fixture
def toy_file(tmp_path) -> Path:
    path = tmp_path / "pets.toy"
    path.write_text("cat: 1 2\ndog: 3 4\n\ncat: 5 6\ndog: 7 8\ncat: 9 10\ndog: 11 12\n")
    return path


# --- what the format then does ----------------------------------------------------------------------


def test_read_dataset_reads_it(toy, toy_file):
    raw = read_dataset("pets", {"format": "toy", "path": str(toy_file)}, [toy_file])
    np.testing.assert_array_equal(raw.X, [[1, 2], [3, 4], [5, 6], [7, 8], [9, 10], [11, 12]])
    assert raw.labels.tolist() == ["cat", "dog"] * 3 and raw.where([2]) == f"{toy_file}, line 4"
    with pytest.raises(DataError, match=r"dataset 'bad': .*bad.toy, line 1: 'cat: x' is not"):
        (toy_file.parent / "bad.toy").write_text("cat: x\n")
        read_dataset("bad", {"format": "toy"}, [toy_file.parent / "bad.toy"])


def test_load_dataset_tells_it_by_its_suffix(toy, toy_file):
    data = load_dataset(toy_file)
    assert data.class_names == ["cat", "dog"] and data.y.tolist() == [0, 1] * 3
    upper = toy_file.with_name("PETS.TOY")
    upper.write_text(toy_file.read_text().replace(" ", ";"))
    np.testing.assert_array_equal(load_dataset(upper, delimiter=";").X, data.X)


def test_without_its_entry_the_suffix_is_unknown(toy_file):
    assert "toy" not in FORMATS
    with pytest.raises(DataError, match=r"from its suffix '\.toy'; fix: pass format=\.\.\."):
        load_dataset(toy_file)


def test_it_passes_the_start_up_checks_and_the_schema(toy, toy_file):
    config = {"datasets": {"pets": {"format": "toy", "path": str(toy_file), "delimiter": " "}},
              "experiments": {"t": {"datasets": {"pets": [2]}, "methods": {"pca": {}}}}}
    check_dataset_options(config)
    jsonschema.Draft202012Validator(yaml.safe_load(SCHEMA.read_text())).validate({"datasets": config["datasets"]})
    check_local_datasets(config)
    with pytest.raises(DataError, match="unknown key 'label_column' for format 'toy'. Format 'toy' takes delimiter"):
        check_dataset_options({"datasets": {"pets": {"format": "toy", "path": str(toy_file), "label_column": 0}}})


def test_the_prepare_step_writes_it(toy, toy_file, tmp_path):
    prepare_dataset("pets", {"format": "toy", "path": str(toy_file)}, [], tmp_path / "pets.h5")
    data = read_dataset_file(tmp_path / "pets.h5")
    assert data.X.shape == (6, 2) and data.class_names == ["cat", "dog"]
