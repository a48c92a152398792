"""The result files' layout (``locproj.engine.results``): every field back as written, with its type; the
optional parts present only where they exist; one canonical spelling of the JSON attributes; failures."""

import math

import h5py
import numpy as np
import pytest

from locproj.engine.results import (
    FAILED_RESULT,
    failures,
    read_result,
    read_swept,
    write_failure,
    write_result,
    write_swept,
)
from locproj.engine.selection import SplitResult


def _result(**changes):
    rng = np.random.default_rng(0)
    fields = dict(
        method="slle", classifier="svm",
        classifier_params={"kernel": "rbf", "C": 10.0, "grid": {"b": [1, 2], "a": 0.5}},
        grid=[{"n_neighbors": 5, "alpha": 0.1, "reg": "auto", "ordered": True},
              {"n_neighbors": 7, "alpha": 1, "reg": None, "ordered": False}],
        cv_error=rng.random((2, 4)), cv_fold_error=rng.random((3, 2, 4)), capped=[{"n_components": 8, "to": 4}],
        grid_index=1, params={"n_neighbors": 7, "alpha": 1, "reg": None}, p=3, projected=True, test_error=0.125,
        test_predictions=np.array([2, 0, 1, 1]), test_indices=np.array([10, 11, 12, 13]), fit_seconds=1.5,
        cv_seconds=2.5, n_folds=3, cv_seed=11, p_max=4, meta={"experiment": "e", "dataset": "d", "m": 5, "split": 2},
        test_error_curve=np.array([0.5, 0.25, 0.125, 0.25]), raw_cv_fold_error=np.array([0.2, 0.3, 0.1]),
        failed_fits=[{"grid_index": 0, "fold": 1, "error": "LinAlgError"}],
        skipped=[{"n_components": 100, "reason": "the data have 5 features"}], test_p=4,
    )
    return SplitResult(**{**fields, **changes})


PROVENANCE = {"config_hash": "abc", "seed": "1", "versions": {"numpy": "2.1", "h5py": "3.12"}}


def test_every_field_of_a_full_result_comes_back_with_its_type(tmp_path):
    result = _result()
    write_result(tmp_path / "r.h5", result, PROVENANCE)
    back = read_result(tmp_path / "r.h5")
    for name in ("method", "classifier", "classifier_params", "grid", "capped", "grid_index", "params", "p",
                 "projected", "test_error", "fit_seconds", "cv_seconds", "n_folds", "cv_seed", "p_max",
                 "failed_fits", "skipped", "test_p"):
        assert back[name] == getattr(result, name), name
        assert type(back[name]) is type(getattr(result, name)), name
    for name in ("cv_error", "cv_fold_error", "test_predictions", "test_indices", "test_error_curve",
                 "raw_cv_fold_error"):
        np.testing.assert_array_equal(back[name], getattr(result, name), err_msg=name)
    assert {name: back[name] for name in result.meta} == result.meta
    assert back["chosen"] == {**result.params, "reg": "null"}   # what is not a number or a string, as its JSON
    # a nested provenance value is stored as its JSON
    assert (back["config_hash"], back["versions"]) == ("abc", '{"h5py":"3.12","numpy":"2.1"}')


def test_the_optional_parts_are_absent_where_there_are_none(tmp_path):
    write_result(tmp_path / "r.h5", _result(test_indices=None, test_error_curve=None, raw_cv_fold_error=None,
                                            failed_fits=[], skipped=[], test_p=None))
    back = read_result(tmp_path / "r.h5")
    assert [back[name] for name in ("test_indices", "test_error_curve", "raw_cv_fold_error")] == [None] * 3
    assert (back["failed_fits"], back["skipped"]) == ([], [])
    with h5py.File(tmp_path / "r.h5") as handle:       # the layout of the files that have none stays as it was
        assert not {"failed_fits", "skipped", "test_p"} & set(handle.attrs)
        assert set(handle) == {"chosen", "cv_error", "cv_fold_error", "grid", "test_predictions"}


def test_the_error_arrays_are_float64_whatever_they_came_as(tmp_path):
    write_result(tmp_path / "r.h5", _result(cv_error=np.zeros((2, 4), np.float32), cv_fold_error=[[[0] * 4] * 2] * 3,
                                            test_error_curve=[0, 1, 1, 0], raw_cv_fold_error=np.ones(3, np.float32)))
    with h5py.File(tmp_path / "r.h5") as handle:
        for name in ("cv_error", "cv_fold_error", "test_error_curve", "raw_cv_fold_error"):
            assert handle[name].dtype == np.float64, name


def test_each_grid_column_has_the_type_of_its_values(tmp_path):
    grid = [{"k": np.int64(5), "alpha": 0.1, "mixed": 2, "reg": "auto", "flag": True},
            {"k": 7, "alpha": 1.0, "mixed": 0.5, "reg": None, "flag": False}]
    write_result(tmp_path / "r.h5", _result(grid=grid, grid_index=0, params=grid[0]))
    with h5py.File(tmp_path / "r.h5") as handle:
        columns = {name: handle["grid"][name] for name in handle["grid"]}
        assert {name: column.dtype.kind for name, column in columns.items()} == {
            "k": "i", "alpha": "f", "mixed": "f", "reg": "O", "flag": "O"}     # bool is not a number here
        assert columns["k"][()].tolist() == [5, 7]
        assert columns["mixed"][()].tolist() == [2.0, 0.5]
        assert [columns[name].asstr()[()].tolist() for name in ("reg", "flag")] == [["auto", "None"],
                                                                                  ["True", "False"]]
    assert read_result(tmp_path / "r.h5")["grid"] == [{**grid[0], "k": 5}, grid[1]]


def test_json_attributes_have_one_spelling_whatever_the_order_of_their_keys(tmp_path):
    """Compact JSON with sorted keys: two results that differ only in the order of a dict's keys give the same
    bytes, and the committed fingerprints (which digest these strings) hold."""
    one = _result(params={"b": 1, "a": [1, 2]}, classifier_params={"y": 2, "x": 1})
    two = _result(params={"a": [1, 2], "b": 1}, classifier_params={"x": 1, "y": 2})
    write_result(tmp_path / "one.h5", one)
    write_result(tmp_path / "two.h5", two)
    assert (tmp_path / "one.h5").read_bytes() == (tmp_path / "two.h5").read_bytes()
    with h5py.File(tmp_path / "one.h5") as handle:
        assert (handle.attrs["params"], handle.attrs["classifier_params"]) == ('{"a":[1,2],"b":1}', '{"x":1,"y":2}')
        assert handle["grid"].attrs["json"] == ('[{"alpha":0.1,"n_neighbors":5,"ordered":true,"reg":"auto"},'
                                                '{"alpha":1,"n_neighbors":7,"ordered":false,"reg":null}]')


def test_no_dataset_records_when_it_was_written(tmp_path):
    write_result(tmp_path / "r.h5", _result())
    with h5py.File(tmp_path / "r.h5") as handle:
        datasets = []
        handle.visititems(lambda name, node: datasets.append(node) if isinstance(node, h5py.Dataset) else None)
        assert len(datasets) == 6 + 4                    # 4 grid columns
        assert [h5py.h5o.get_info(node.id).ctime for node in datasets] == [0] * len(datasets)   # no time stored


def test_a_failure_reads_as_a_result_without_numbers(tmp_path):
    write_failure(tmp_path / "failed.h5", {"method": "slle", "split": 2, "failure": {"type": "MemoryError"}})
    write_result(tmp_path / "ok.h5", _result())
    back = read_result(tmp_path / "failed.h5")
    assert back["failed"] is True
    assert (back["method"], back["split"], back["failure"]) == ("slle", 2, '{"type":"MemoryError"}')
    assert math.isnan(back["test_error"]) and math.isnan(back["p"])
    assert {name: back[name] for name in FAILED_RESULT if name not in ("test_error", "p", "failed")} == {
        name: value for name, value in FAILED_RESULT.items() if name not in ("test_error", "p", "failed")}
    assert [found["method"] for found in failures([tmp_path / "ok.h5", tmp_path / "failed.h5"])] == ["slle"]
    assert read_swept(tmp_path / "failed.h5", ["curve"]) == ({"method": "slle", "split": 2, "failed": True,
                                                               "failure": '{"type":"MemoryError"}'}, {})


def test_a_swept_file_gives_back_its_arrays_and_attributes(tmp_path):
    write_swept(tmp_path / "s.h5", {"error": np.array([0.5, 0.25]), "p": np.array([1, 2])}, {"seed": 3, "m": "all"})
    attrs, arrays = read_swept(tmp_path / "s.h5", ["error", "p"])
    assert attrs == {"seed": 3, "m": "all"}
    np.testing.assert_array_equal(arrays["error"], [0.5, 0.25])
    np.testing.assert_array_equal(arrays["p"], [1, 2])
    assert failures([tmp_path / "s.h5"]) == []


@pytest.mark.parametrize("value", [np.float32(0.5), np.int64(3), np.array([1, 2]), (1, np.int32(2))])
def test_numpy_values_are_stored_as_plain_python(tmp_path, value):
    write_result(tmp_path / "r.h5", _result(meta={"experiment": "e", "extra": value}))
    stored = read_result(tmp_path / "r.h5")["extra"]
    expected = value.item() if np.ndim(value) == 0 else "[1,2]"
    assert (stored, type(stored)) == (expected, type(expected))


# --- checksums ----------------------------------------------------------------------------------------


def _flip_inside(path, dataset: str) -> None:
    """Flip the middle bytes of one chunk of ``dataset`` on disk, as a failing disk would."""
    with h5py.File(path, "r") as handle:
        chunk = handle[dataset].id.get_chunk_info(0)
    data = bytearray(path.read_bytes())
    middle = chunk.byte_offset + chunk.size // 2
    data[middle - 4: middle + 4] = bytes(b ^ 0xFF for b in data[middle - 4: middle + 4])
    path.write_bytes(bytes(data))


def test_the_header_holds_the_sha256_of_the_file_and_every_fixed_size_array_carries_fletcher32(tmp_path):
    import hashlib

    from locproj.core.io import HEADER_BYTES, HEADER_MAGIC

    write_result(tmp_path / "r.h5", _result(), PROVENANCE)
    data = (tmp_path / "r.h5").read_bytes()
    assert data[:HEADER_BYTES] == (HEADER_MAGIC + hashlib.sha256(data[HEADER_BYTES:]).hexdigest().encode()).ljust(
        HEADER_BYTES, b"\0")
    with h5py.File(tmp_path / "r.h5", "r") as handle:          # any HDF5 reader: the header is its user block
        assert handle.userblock_size == HEADER_BYTES
        arrays = {}
        handle.visititems(lambda name, obj: arrays.update({name: obj}) if isinstance(obj, h5py.Dataset) else None)
        for name, array in arrays.items():
            assert array.fletcher32 == (array.dtype.kind != "O"), name
        assert not arrays["grid/reg"].fletcher32             # a string column: HDF5 cannot filter it


def test_another_reader_of_a_flipped_array_meets_its_fletcher32_checksum(tmp_path):
    path = tmp_path / "r.h5"
    write_result(path, _result(test_predictions=np.arange(1000, 1500)), PROVENANCE)
    _flip_inside(path, "test_predictions")
    with h5py.File(path, "r") as handle, pytest.raises(OSError, match="filter returned failure"):
        handle["test_predictions"][()]


@pytest.mark.parametrize("predictions", [np.arange(1000, 1500), np.arange(500)])
def test_flipped_bytes_inside_an_array_are_refused_naming_the_file_and_its_rebuild(tmp_path, predictions):
    """Eight bytes inverted in the middle of the array, small integers or not (Fletcher-32 cannot tell a
    0x0000 word from 0xFFFF: both are 0 modulo 65535): the header's sha256 refuses the file."""
    from locproj.core.io import UnreadableFileError

    path = tmp_path / "r.h5"
    write_result(path, _result(test_predictions=predictions), PROVENANCE)
    _flip_inside(path, "test_predictions")
    with pytest.raises(UnreadableFileError, match=r"r\.h5 is damaged: its bytes do not match the sha256 its header "
                                                 r"records .*; rebuild it with `snakemake --cores 1 --force .*r\.h5`"):
        read_result(path)


@pytest.mark.parametrize("damage", ["attribute", "array", "string column", "removed array", "added attribute"])
def test_a_rewritten_attribute_or_layout_is_refused(tmp_path, damage):
    from locproj.core.io import UnreadableFileError

    path = tmp_path / "r.h5"
    write_result(path, _result(), PROVENANCE)
    with h5py.File(path, "r+") as handle:
        if damage == "attribute":
            handle.attrs["test_error"] = 0.0
        elif damage == "array":          # rewritten through HDF5, which recomputes its Fletcher-32 sum
            handle["test_predictions"][0] = 7
        elif damage == "string column":
            handle["grid/reg"][0] = "none"
        elif damage == "removed array":
            del handle["test_error_curve"]
        else:
            handle["chosen"].attrs["extra"] = 1
    with pytest.raises(UnreadableFileError, match=rf"^{path} is damaged: .*--force {path}`"):
        read_result(path)


def test_a_file_without_a_checksum_is_read_with_one_warning(tmp_path, caplog):
    from locproj.core import io

    monkey = pytest.MonkeyPatch()
    monkey.setattr(io, "_WARNED_UNCHECKED", [])
    for name in ("a.h5", "b.h5"):
        write_result(tmp_path / name, _result(), PROVENANCE)
        data = (tmp_path / name).read_bytes()
        (tmp_path / name).write_bytes(bytes(io.HEADER_BYTES) + data[io.HEADER_BYTES:])     # as files written before
    with caplog.at_level("WARNING", logger="locproj.core.io"):
        assert read_result(tmp_path / "a.h5")["test_error"] == read_result(tmp_path / "b.h5")["test_error"] == 0.125
    monkey.undo()
    warned = [record.getMessage() for record in caplog.records if "no checksum" in record.getMessage()]
    assert len(warned) == 1 and str(tmp_path / "a.h5") in warned[0]
