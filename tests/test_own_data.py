"""Your own data (docs/own-data.md): every reader on generated files, every start-up error, the
provenance of a local file, and the guide's example end to end (config, command, Python snippet)."""

from __future__ import annotations

import hashlib
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import h5py
import numpy as np
import pytest
import yaml

from locproj.data import DataError, load_dataset, prepare_dataset, read_dataset_file
from locproj.data.checks import check_dataset_options, check_local_datasets
from locproj.data.readers import COMMON_OPTIONS, FORMATS, read_dataset
from locproj.data.sources import local_files, sha256_path

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "own-data.md"
EXAMPLE = ROOT / "config" / "own_data_example.yaml"


def read(spec: dict, name: str = "mine"):
    """Read a local dataset as the prepare step does."""
    paths = spec["path"] if isinstance(spec["path"], list) else [spec["path"]]
    return read_dataset(name, spec, [Path(p) for p in paths])


# --- readers -----------------------------------------------------------------------------------


def test_csv_with_a_header_a_named_label_column_quotes_and_an_ignored_id(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text('id,width,label,height\n7,1.5,"cat, small",2\n8,2.5,dog,3\n\n9,-1e3,"cat, small",4.25\n')
    raw = read({"format": "csv", "path": str(path), "label_column": "label", "ignore_columns": ["id"]})
    np.testing.assert_array_equal(raw.X, [[1.5, 2], [2.5, 3], [-1000, 4.25]])
    assert raw.labels.tolist() == ["cat, small", "dog", "cat, small"]
    assert raw.locations == [f"{path}, line 2", f"{path}, line 3", f"{path}, line 5"]   # blank line 4 skipped
    data = load_dataset(path, label_column="label", ignore_columns=["id"])              # csv from the suffix
    assert data.y.tolist() == [0, 1, 0] and data.class_names == ["cat, small", "dog"]


@pytest.mark.parametrize("label_column, expected_label", [("first", 0), (0, 0), (-1, 3), ("last", 3), (2, 2)])
def test_csv_without_a_header_takes_the_label_column_by_index(tmp_path, label_column, expected_label):
    path = tmp_path / "plain.csv"
    rows = np.array([[1, 10, 100, 5], [2, 20, 200, 6], [3, 30, 300, 5]], dtype=float)
    path.write_text("".join(",".join(f"{v:g}" for v in row) + "\n" for row in rows))
    raw = read({"format": "csv", "path": str(path), "label_column": label_column})
    np.testing.assert_array_equal(raw.labels.astype(float), rows[:, expected_label])
    np.testing.assert_array_equal(raw.X, np.delete(rows, expected_label, axis=1))


@pytest.mark.parametrize("fmt, delimiter, separator", [("tsv", None, "\t"), ("csv", ";", ";"), ("csv", "tab", "\t"),
                                                       ("csv", "whitespace", "   ")])
def test_tsv_and_other_delimiters(tmp_path, fmt, delimiter, separator):
    path = tmp_path / "mine.txt"
    path.write_text(f"a{separator}b{separator}class\n1{separator}2{separator}x\n3{separator}4{separator}y\n")
    spec = {"format": fmt, "path": str(path), "label_column": "class",
            **({"delimiter": delimiter} if delimiter else {})}
    raw = read(spec)
    np.testing.assert_array_equal(raw.X, [[1, 2], [3, 4]])
    assert raw.labels.tolist() == ["x", "y"]


def test_npz_and_npy_pairs(tmp_path):
    rng = np.random.default_rng(0)
    images, y = rng.integers(0, 255, size=(6, 4, 5)).astype(np.uint8), np.array([3, 1, 3, 1, 2, 2])
    np.savez(tmp_path / "images.npz", X=images, y=y)
    raw = read({"format": "npz", "path": str(tmp_path / "images.npz")})
    assert raw.image_shape == (4, 5)                                  # (n, h, w) are images, kept upright
    np.testing.assert_array_equal(raw.X.reshape(6, 4, 5), images)
    np.testing.assert_array_equal(raw.labels, y)

    X = rng.normal(size=(6, 3))
    np.savez(tmp_path / "keys.npz", features=X, target=y.astype(float), other=np.zeros(2))
    raw = read({"format": "npz", "path": str(tmp_path / "keys.npz"), "x_key": "features", "y_key": "target"})
    np.testing.assert_array_equal(raw.X, X)
    assert raw.labels.dtype == np.int64                               # integral float labels become classes

    np.save(tmp_path / "X.npy", X)
    np.save(tmp_path / "y.npy", np.array(["b", "a", "b", "a", "c", "c"]))
    spec = {"format": "npy", "path": [str(tmp_path / "X.npy"), str(tmp_path / "y.npy")]}
    raw = read(spec)
    np.testing.assert_array_equal(raw.X, X)
    assert raw.labels.tolist() == ["b", "a", "b", "a", "c", "c"]
    assert load_dataset([tmp_path / "X.npy", tmp_path / "y.npy"]).class_names == ["a", "b", "c"]


@pytest.mark.parametrize("samples_in", ["rows", "columns"])
@pytest.mark.parametrize("pixel_order", ["C", "F"])
def test_mat_in_any_layout_gives_upright_rows(tmp_path, samples_in, pixel_order):
    import scipy.io

    rng = np.random.default_rng(1)
    images = rng.integers(0, 255, size=(5, 3, 4)).astype(float)             # 5 images of 3 x 4
    flat = images.reshape(5, -1, order=pixel_order)                       # each image flattened in that order
    stored = flat if samples_in == "rows" else flat.T
    scipy.io.savemat(tmp_path / "faces.mat", {"faces": stored, "ids": np.array([[1, 2, 1, 2, 2]])})
    spec = {"format": "mat", "path": str(tmp_path / "faces.mat"), "x_var": "faces", "y_var": "ids",
            "samples_in": samples_in, "image_shape": [3, 4], "pixel_order": pixel_order}
    raw = read(spec)
    np.testing.assert_array_equal(raw.X.reshape(5, 3, 4), images)
    np.testing.assert_array_equal(raw.labels, [1, 2, 1, 2, 2])


def _image(path: Path, array: np.ndarray) -> None:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(array.astype(np.uint8)).save(path)


def test_an_image_folder_reads_any_pillow_format_in_grey_and_resizes(tmp_path):
    folder = tmp_path / "pets"
    grey = np.tile(np.arange(0, 240, 20, dtype=np.uint8), (8, 1))[:, :8]     # 8 x 8, brighter to the right
    _image(folder / "cat" / "1.png", grey)
    _image(folder / "cat" / "2.bmp", grey[::-1])
    _image(folder / "cat" / "3.tiff", grey)
    _image(folder / "dog" / "a.gif", grey)
    rgb = np.stack([grey, grey, grey], axis=-1)
    _image(folder / "dog" / "b.png", rgb)                                 # colour: converted to grey
    (folder / "dog" / ".DS_Store").write_bytes(b"not an image")            # hidden: skipped
    (folder / "README.txt").write_text("files at the top are not samples")
    raw = read({"format": "image_folder", "path": str(folder)})
    assert raw.labels.tolist() == ["cat", "cat", "cat", "dog", "dog"] and raw.image_shape == (8, 8)
    np.testing.assert_array_equal(raw.X[0].reshape(8, 8), grey)
    np.testing.assert_array_equal(raw.X[1].reshape(8, 8), grey[::-1])
    np.testing.assert_allclose(raw.X[4].reshape(8, 8), grey, atol=1)
    assert raw.locations[3] == str(folder / "dog" / "a.gif")

    _image(folder / "dog" / "c.jpg", np.full((16, 12), 100, dtype=np.uint8))   # another size: resized
    raw = read({"format": "image_folder", "path": str(folder), "image_shape": [4, 4]})
    assert raw.X.shape == (6, 16) and raw.image_shape == (4, 4)
    np.testing.assert_allclose(raw.X[5], 100, atol=1)                     # area averaging keeps a constant
    np.testing.assert_allclose(raw.X[0].reshape(4, 4)[0], [10, 50, 90, 130])   # pairs of columns averaged
    assert load_dataset(folder, image_shape=[4, 4]).class_names == ["cat", "dog"]


def test_the_schema_lists_no_format_and_needs_no_line_for_a_new_option():
    """The format names and their option keys are FORMATS alone: the schema's dataset entry takes
    keys it does not describe (check_dataset_options has checked them against the format before);
    the options it does describe (their types) are all some format's."""
    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    dataset = schema["properties"]["datasets"]["additionalProperties"]
    assert "enum" not in dataset["properties"]["format"]     # the names: FORMATS alone (tests/test_formats.py)
    assert dataset["additionalProperties"] is True
    options = {key for form in FORMATS.values() for key in form.options} | set(COMMON_OPTIONS)
    assert set(dataset["properties"]) <= options


# --- errors, each before any job runs ------------------------------------------------------------


def test_an_unknown_key_is_named_with_the_keys_its_format_takes():
    config = {"datasets": {"mine": {"format": "csv", "path": "x.csv", "label_col": "label"}}}
    with pytest.raises(DataError) as info:
        check_dataset_options(config)
    message = str(info.value)
    assert "datasets.mine" in message and "'label_col'" in message and "did you mean 'label_column'" in message
    assert "label_column, header, delimiter, ignore_columns" in message
    config = {"datasets": {"mine": {"format": "npz", "path": "x.npz", "x_var": "X"}}}    # a key of another format
    with pytest.raises(DataError, match="unknown key 'x_var'.*Format 'npz' takes x_key, y_key"):
        check_dataset_options(config)
    with pytest.raises(DataError, match="either `path:`.*or `files:`"):
        check_dataset_options({"datasets": {"mine": {"format": "csv", "path": "x.csv", "files": []}}})


def test_a_missing_label_column_names_the_file_the_columns_and_the_fix(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text("width,height,kind\n1,2,a\n3,4,b\n")
    with pytest.raises(DataError) as info:
        read({"format": "csv", "path": str(path), "label_column": "class"})
    assert str(path) in str(info.value) and "'width', 'height', 'kind'" in str(info.value)
    assert "set `label_column:` to one of them" in str(info.value)
    with pytest.raises(DataError, match=r"label_column 5 is not a column: line 2 has 3 columns"):
        read({"format": "csv", "path": str(path), "label_column": 5, "header": True})
    with pytest.raises(DataError, match="names a column, but the file is read without a header"):
        read({"format": "csv", "path": str(path), "label_column": "kind", "header": False})
    np.savez(tmp_path / "mine.npz", X=np.zeros((2, 2)), labels=np.arange(2))
    with pytest.raises(DataError, match=r"has no array 'y' \(it has X, labels\); fix: set `y_key:`"):
        read({"format": "npz", "path": str(tmp_path / "mine.npz")})


def test_non_numeric_features_name_the_file_the_line_the_column_and_the_fix(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text("width,height,label\n1,2,a\n3,n/a,b\n")
    with pytest.raises(DataError) as info:
        read({"format": "csv", "path": str(path), "label_column": "label"})
    assert f"{path}, line 3, column 'height': 'n/a' is not a number" in str(info.value)
    assert "ignore_columns" in str(info.value)
    with pytest.raises(DataError, match="line 1, column 0: 'width' is not a number.*set `header: true`"):
        read({"format": "csv", "path": str(path), "label_column": "last"})       # a header read as data
    np.savez(tmp_path / "mine.npz", X=np.array([["1", "x"], ["2", "3"]]), y=np.arange(2))
    with pytest.raises(DataError, match=r"mine.npz\['X'\]: sample 0, feature 1: 'x' is not a number"):
        read({"format": "npz", "path": str(tmp_path / "mine.npz")})
    np.save(tmp_path / "X.npy", np.array([[1, None]], dtype=object), allow_pickle=True)
    np.save(tmp_path / "y.npy", np.arange(1))
    with pytest.raises(DataError, match="holds Python objects"):
        read({"format": "npy", "path": [str(tmp_path / "X.npy"), str(tmp_path / "y.npy")]})
    path.write_text("1,2,a\n3,nan,b\n")
    with pytest.raises(DataError, match=rf"NaN/inf feature values in 1 samples \({re.escape(str(path))}, line 2\)"):
        prepare_dataset("mine", {"format": "csv", "path": str(path)}, [], tmp_path / "mine.h5")
    assert not (tmp_path / "mine.h5").exists()


def test_images_of_mixed_sizes_without_image_shape_name_both_images_and_the_fix(tmp_path):
    _image(tmp_path / "pets" / "cat" / "1.png", np.zeros((32, 32)))
    _image(tmp_path / "pets" / "dog" / "3.png", np.zeros((48, 40)))
    config = {"datasets": {"pets": {"format": "image_folder", "path": str(tmp_path / "pets")}}}
    with pytest.raises(DataError) as info:
        check_local_datasets(config)
    message = str(info.value)
    assert f"image {tmp_path / 'pets' / 'dog' / '3.png'} is 48x40" in message
    assert (f"{tmp_path / 'pets' / 'cat' / '1.png'} is 32x32" in message
            and "set `image_shape: [height, width]`" in message)
    (tmp_path / "pets" / "dog" / "notes.txt").write_text("not an image")
    config["datasets"]["pets"]["image_shape"] = [8, 8]
    with pytest.raises(DataError, match=r"notes.txt is not an image Pillow can read.*move it out of the folder"):
        check_local_datasets(config)


def _class_sizes_config(path: Path, sizes) -> dict:
    return {
        "datasets": {"mine": {"format": "csv", "path": str(path), "label_column": "label"}},
        "views": {"mine_ab": {"dataset": "mine", "relabel": {"ab": ["a", "b"], "c": ["c"]}}},
        "experiments": {"compare": {"datasets": {"mine": sizes}, "methods": {"raw": {}}}},
    }


def test_a_class_with_too_few_samples_for_m_names_the_class_its_lines_and_the_fix(tmp_path):
    path = tmp_path / "mine.csv"
    labels = ["a"] * 8 + ["b"] * 4 + ["c"] * 6
    path.write_text("x,label\n" + "".join(f"{i},{label}\n" for i, label in enumerate(labels)))
    check_local_datasets(_class_sizes_config(path, [3]))                  # every class has m + 1 = 4
    with pytest.raises(DataError) as info:
        check_local_datasets(_class_sizes_config(path, [3, 5]))
    message = str(info.value)
    assert "experiment 'compare' trains on m = 5 per class, which needs at least 6 samples in every class" in message
    assert f"class 'b' has 4 (at {path}, line 10; {path}, line 11; {path}, line 12 and 1 more)" in message
    assert "lower m to at most 3 in `experiments.compare.datasets.mine`" in message
    with pytest.raises(DataError, match="a fraction 0.1 of each class"):
        check_local_datasets(_class_sizes_config(path, [0.1]))            # rounds to 0 training samples for b
    config = _class_sizes_config(path, [6])
    config["experiments"]["compare"]["datasets"] = {"mine_ab": [6]}       # a view merging a and b: 12 and 6
    with pytest.raises(DataError, match=r"through view 'mine_ab'.*class 'c' has 6"):
        check_local_datasets(config)


ERROR_CASES = {
    "unknown key": ({"label_col": "label"}, None, "unknown key 'label_col' (did you mean 'label_column'?)"),
    "missing label column": ({"label_column": "class"}, None, "label_column 'class' is not a column of the header"),
    "non-numeric feature": ({}, "x,y,label\n1,2,a\n1,oops,a\n", "line 3, column 'y': 'oops' is not a number"),
    "class smaller than m": ({}, "x,y,label\n" + "1,2,a\n" * 6 + "1,2,b\n" * 3, "class 'b' has 3"),
    "mixed image sizes": ({"format": "image_folder", "path": "data/own/pets", "label_column": None}, None,
                          "is 9x7 (height x width), but"),
}


@pytest.mark.parametrize("case", ERROR_CASES)
def test_every_error_stops_snakemake_before_any_job(tmp_path, case):
    options, text, expected = ERROR_CASES[case]
    workdir = _workdir(tmp_path)
    csv = workdir / "data" / "own" / "my_data.csv"
    csv.write_text(text or "x,y,label\n" + "1,2,a\n2,3,b\n" * 6)
    _image(workdir / "data" / "own" / "pets" / "a" / "1.png", np.zeros((8, 8)))
    _image(workdir / "data" / "own" / "pets" / "b" / "1.png", np.zeros((9, 7)))
    config = yaml.safe_load(EXAMPLE.read_text())
    config["datasets"]["my_data"].update(options)
    config["datasets"]["my_data"] = {k: v for k, v in config["datasets"]["my_data"].items() if v is not None}
    (workdir / "config" / "bad.yaml").write_text(yaml.safe_dump(config))
    result = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1", "my_comparison", "--configfile",
                             "config/bad.yaml"], cwd=workdir, capture_output=True, text=True)
    output = result.stdout + result.stderr
    assert result.returncode != 0 and expected in output, output[-3000:]
    assert "Traceback" not in output and ".smk" not in output, output[-3000:]   # the message alone
    assert not (workdir / "logs").exists() and not (workdir / "data" / "processed").exists()   # no job ran


# --- a local file is a dataset: provenance and reruns --------------------------------------------


def test_a_local_file_or_folder_needs_no_checksum_and_its_sha256_is_recorded(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("data/own").mkdir(parents=True)
    Path("data/own/mine.csv").write_text("1,2,a\n3,4,b\n")
    prepare_dataset("mine", {"format": "csv", "path": "data/own/mine.csv"}, [], "data/processed/mine.h5")
    data = read_dataset_file("data/processed/mine.h5")
    assert data.attrs["source_files"] == ["data/own/mine.csv"]            # relative, as configured
    assert data.attrs["source_sha256"] == [hashlib.sha256(b"1,2,a\n3,4,b\n").hexdigest()]

    for name, size in (("a/1.png", 4), ("b/2.png", 4), ("b/sub/3.png", 4)):
        _image(Path("data/own/pets") / name, np.full((size, size), 7))
    Path("data/own/pets/.cache").mkdir()
    (Path("data/own/pets/.cache") / "x").write_text("ignored")
    spec = {"format": "image_folder", "path": "data/own/pets"}
    assert local_files(spec) == ["data/own/pets/a/1.png", "data/own/pets/b/2.png", "data/own/pets/b/sub/3.png"]
    prepare_dataset("pets", spec, [], "data/processed/pets.h5")
    digest = read_dataset_file("data/processed/pets.h5").attrs["source_sha256"][0]
    lines = "".join(f"{p}\0{hashlib.sha256((Path('data/own/pets') / p).read_bytes()).hexdigest()}\n"
                    for p in ("a/1.png", "b/2.png", "b/sub/3.png"))
    assert digest == hashlib.sha256(lines.encode()).hexdigest()
    Path("data/own/pets/b/2.png").rename("data/own/pets/b/4.png")          # a rename changes the folder's digest
    assert sha256_path("data/own/pets") != digest

    pinned = dict(spec, sha256=digest)
    with pytest.raises(DataError, match=r"has changed since it was pinned.*set `datasets.pets.sha256`"):
        prepare_dataset("pets", pinned, [], "data/processed/pets2.h5")
    assert not Path("data/processed/pets2.h5").exists()
    with pytest.raises(DataError, match=r"data/own/gone.csv does not exist \(a relative path is read from"):
        check_local_datasets({"datasets": {"gone": {"format": "csv", "path": "data/own/gone.csv"}}})


# --- the guide, end to end ---------------------------------------------------------------------


def _workdir(tmp_path: Path) -> Path:
    """A copy of the workflow (as tests/test_workflow.py makes) with a data/own folder."""
    workdir = tmp_path / "work"
    workdir.mkdir()
    for name in ("Snakefile", "workflow", "config"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, workdir / name)
    (workdir / "data" / "own").mkdir(parents=True)
    return workdir


def _guide_commands() -> list[str]:
    """The indented shell lines of the guide that make the CSV and run the example."""
    lines = [line.strip() for line in GUIDE.read_text().splitlines() if line.startswith("    ")]
    make = [line for line in lines if line.startswith(("mkdir -p data/own", "python -c"))]
    run = [line for line in lines if line.startswith("snakemake --cores 2 my_comparison")]
    assert len(make) == 2 and len(run) == 1, (make, run)
    return make + run


def _code_block(language: str) -> str:
    blocks = re.findall(rf"^```{language}\n(.*?)^```", GUIDE.read_text(), flags=re.S | re.M)
    return blocks[0]


def test_the_guide_shows_the_example_config_as_it_is():
    assert _code_block("yaml") == EXAMPLE.read_text()
    assert "docs/own-data.md" in (ROOT / "README.md").read_text()


def test_the_guide_example_runs_end_to_end_and_a_changed_file_reruns_it(tmp_path):
    workdir = _workdir(tmp_path)
    make_dir, make_csv, run = _guide_commands()
    subprocess.run(shlex.split(make_dir), cwd=workdir, check=True)
    subprocess.run([sys.executable, *shlex.split(make_csv)[1:]], cwd=workdir, check=True)
    csv = workdir / "data" / "own" / "my_data.csv"
    command = [sys.executable, "-m", *shlex.split(run)]
    start = time.perf_counter()
    result = subprocess.run(command, cwd=workdir, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    assert result.returncode == 0, result.stderr[-3000:]
    print(f"the guide's example ran in {elapsed:.1f} s")

    out = workdir / "results" / "my_comparison"
    table = (out / "table.md").read_text()
    assert table.splitlines()[0] == "| dataset | m | 1-NN | PCA | LDA | LPP | kernel LPP | LLP | LEA | LFDA | SLLE |"
    assert table.splitlines()[0] in GUIDE.read_text()                      # the guide shows this table
    assert table.splitlines()[2].startswith("| my_data | 5 | ")
    assert {"table.csv", "table.tex", "metadata.yaml"} <= {p.name for p in out.iterdir()}
    assert (out / "figures" / "cv_curves_my_data.png").stat().st_size > 0
    assert (out / "figures" / "cv_curves_my_data.pdf").stat().st_size > 0
    results = sorted(out.rglob("split*.h5"))
    assert len(results) == 9 * 5                                           # every method, every split
    with h5py.File(workdir / "data" / "processed" / "my_data.h5") as h5:
        assert list(h5.attrs["source_files"]) == ["data/own/my_data.csv"]
        assert list(h5.attrs["source_sha256"]) == [sha256_path(csv)]

    again = subprocess.run(command + ["--dry-run"], cwd=workdir, capture_output=True, text=True)
    assert "Nothing to be done" in again.stdout + again.stderr
    csv.write_text(csv.read_text().replace("14.23,", "14.25,", 1))         # the user edits the file
    changed = subprocess.run(command + ["--dry-run"], cwd=workdir, capture_output=True, text=True)
    plan = changed.stdout + changed.stderr
    assert changed.returncode == 0 and re.search(r"^prepare\s+1$", plan, flags=re.M), plan[-3000:]
    assert re.search(r"^fit_splits_x0_x4\s+9$", plan, flags=re.M)
    assert re.search(r"^aggregate_my_comparison\s+1$", plan, flags=re.M)


def test_the_guide_python_example_runs(tmp_path, monkeypatch, capsys):
    from sklearn.datasets import load_wine

    monkeypatch.chdir(tmp_path)
    Path("data/own").mkdir(parents=True)
    load_wine(as_frame=True).frame.rename(columns={"target": "label"}).to_csv("data/own/my_data.csv", index=False)
    exec(compile(_code_block("python"), str(GUIDE), "exec"), {})
    printed = capsys.readouterr().out
    assert "llp__n_components" in printed and re.search(r"test accuracy 0\.\d{3}", printed)
    accuracy = float(re.search(r"test accuracy (\S+)", printed).group(1))
    assert accuracy > 0.8
