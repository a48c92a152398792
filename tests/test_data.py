"""The data layer: fetching with checksums, reading every mirrored dataset, views, splits."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.io

from locproj.core.io import sha256_file
from locproj.data import (
    DataError, derive_view, fetch_file, make_splits, per_class_splits, prepare_dataset, read_dataset_file,
    read_splits, relabel, write_splits,
)
from locproj.data.images import area_resampling_matrix, resize_images
from locproj.data.readers import to_row_major
from locproj.data.waveform import base_waves, generate_waveform

ROOT = Path(__file__).resolve().parents[1]

UNREACHABLE = "http://127.0.0.1:9/nothing-here"   # the discard port: refused at once

EXPECTED = {  # dataset: (n, d, c), as the papers and the sources give them
    "yale": (165, 1024, 15), "orl": (400, 1024, 40), "yaleb": (2414, 1024, 38),
    "pie_pose27": (2856, 1024, 68), "pie": (11554, 1024, 68), "umist": (575, 1024, 20), "olivetti": (400, 4096, 40),
    "usps": (9298, 256, 10), "waveform": (5000, 21, 3), "thyroid": (215, 5, 3),
    "letter": (20000, 16, 26), "segmentation": (2310, 19, 7), "iris": (150, 4, 3),
}
FRONTAL_FACES = ["yale", "yale64", "orl", "yaleb", "pie_pose27", "pie", "pie_10class", "olivetti"]


def _prepare(name, config, mirror, tmp_path):
    spec = config["datasets"][name]
    paths = [mirror / f["name"] for f in spec.get("files", [])]
    return prepare_dataset(name, spec, paths, tmp_path / f"{name}.h5", seed=config["seed"])


# --- fetch -------------------------------------------------------------------------------------


def test_fetch_copies_from_mirror_and_verifies(tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "a.txt").write_text("hello")
    out = fetch_file("toy", "a.txt", sha256_file(mirror / "a.txt"), [], tmp_path / "raw" / "a.txt", mirror)
    assert out.read_text() == "hello"


def test_wrong_checksum_is_an_error_and_leaves_no_file(tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "a.txt").write_text("tampered")
    target = tmp_path / "raw" / "a.txt"
    with pytest.raises(DataError, match="sha256 mismatch") as info:
        fetch_file("toy", "a.txt", "0" * 64, [], target, mirror)
    assert "'toy'" in str(info.value) and "data_mirror" in str(info.value)
    assert list(target.parent.iterdir()) == []


def test_no_mirror_and_unreachable_url_names_dataset_addresses_and_mirror_key(tmp_path):
    target = tmp_path / "raw" / "a.mat"
    with pytest.raises(DataError) as info:
        fetch_file("yale", "a.mat", "0" * 64, [UNREACHABLE, UNREACHABLE + "2"], target, mirror=None)
    message = str(info.value)
    assert "'yale'" in message and UNREACHABLE in message and UNREACHABLE + "2" in message
    assert "data_mirror" in message
    assert not target.exists()


def test_unknown_checksum_is_recorded_with_a_warning(tmp_path, caplog):
    mirror = tmp_path / "m"
    mirror.mkdir()
    (mirror / "f.bin").write_bytes(b"\x00\x01")
    target = fetch_file("pie", "f.bin", None, [], tmp_path / "raw" / "f.bin", mirror)
    recorded = target.with_name("f.bin.sha256").read_text().split()[0]
    assert recorded == sha256_file(target)
    assert "no sha256 is configured" in caplog.text


def test_configured_checksums_match_the_manifest(config, mirror):
    manifest = {}
    for line in (mirror / "MANIFEST.tsv").read_text().splitlines()[1:]:
        fields = line.split("\t")
        manifest[fields[0]] = fields[1]
    for name, spec in config["datasets"].items():
        for f in spec.get("files", []):
            if f["name"] in manifest:
                assert f["sha256"] == manifest[f["name"]], (name, f["name"])


# --- reading -----------------------------------------------------------------------------------


def test_truncated_mat_file_is_a_clear_error(tmp_path):
    path = tmp_path / "toy.mat"
    scipy.io.savemat(path, {"fea": np.arange(64 * 16, dtype=np.uint8).reshape(64, 16), "gnd": np.ones((64, 1))})
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    spec = {"format": "mat", "x_var": "fea", "y_var": "gnd", "samples_in": "rows"}
    with pytest.raises(DataError, match="truncated or corrupt") as info:
        prepare_dataset("toy", spec, [path], tmp_path / "toy.h5")
    assert "'toy'" in str(info.value) and str(path) in str(info.value)
    assert not (tmp_path / "toy.h5").exists()


def test_nan_features_are_rejected(tmp_path):
    path = tmp_path / "nan.csv"
    path.write_text("1.0,2.0,a\nnan,3.0,b\n")
    with pytest.raises(DataError, match="NaN"):
        prepare_dataset("nan", {"format": "csv", "label_column": "last"}, [path], tmp_path / "nan.h5")
    assert not (tmp_path / "nan.h5").exists()


# --- images in a zip (the full PIE) --------------------------------------------------------------

PIE_LIKE = {"format": "image_zip", "member_pattern": r"(?:^|/)PIE/(?P<label>\d+)/(?P<index>\d+)\.jpg$",
            "image_shape": [32, 32]}


def _jpeg(image: np.ndarray) -> bytes:
    from io import BytesIO

    from PIL import Image

    buffer = BytesIO()
    Image.fromarray(image.astype(np.uint8)).save(buffer, format="JPEG", quality=95)
    return buffer.getvalue()


def _marked_image(label: int, index: int, shape=(32, 32)) -> np.ndarray:
    """A dark image with a bright top band (orientation) whose grey level codes (label, index)."""
    image = np.full(shape, 20.0)
    image[:4] = 240
    image[16:, 16:] = 40 + 10 * label + index
    return image


def _pie_like_zip(path: Path, members: dict[str, np.ndarray]) -> Path:
    import zipfile

    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for name, image in members.items():
            archive.writestr(name, _jpeg(image))
    return path


def test_image_zip_gives_upright_rows_in_label_then_index_order(tmp_path):
    # written out of order, with folders that are not classes and numbers that sort wrongly as text
    members = {f"repo-abc/db/PIE/{label}/{index}.jpg": _marked_image(label, index)
               for label in (10, 2) for index in (10, 1, 2)}
    members["repo-abc/README.jpg"] = _marked_image(0, 0)
    path = _pie_like_zip(tmp_path / "pie.zip", members)
    data = prepare_dataset("pie", PIE_LIKE, [path], tmp_path / "pie.h5")
    assert data.X.shape == (6, 1024) and data.X.dtype == np.float64 and data.image_shape == (32, 32)
    assert data.class_names == ["2", "10"] and data.y.tolist() == [0, 0, 0, 1, 1, 1]
    images = data.X.reshape(-1, 32, 32)
    assert (images[:, :4].mean(axis=(1, 2)) > 200).all() and (images[:, -4:, :8].mean(axis=(1, 2)) < 60).all()
    codes = np.round((images[:, 24, 24] - 40) / 10, 1)          # JPEG moves a flat block by < 1 level
    assert codes.tolist() == [2.1, 2.2, 3.0, 10.1, 10.2, 11.0]     # (2, 1), (2, 2), (2, 10), (10, 1), ...
    stored = read_dataset_file(tmp_path / "pie.h5")
    assert stored.attrs["content_sha256"] == data.attrs["content_sha256"]


def test_image_zip_errors_name_the_member_or_the_archive(tmp_path):
    wrong_size = _pie_like_zip(tmp_path / "a.zip",
                               {"PIE/1/1.jpg": _marked_image(1, 1), "PIE/1/2.jpg": np.zeros((30, 32))})
    with pytest.raises(DataError, match=r"PIE/1/2.jpg is 30x32, not the configured image_shape 32x32"):
        prepare_dataset("pie", PIE_LIKE, [wrong_size], tmp_path / "a.h5")
    no_match = _pie_like_zip(tmp_path / "b.zip", {"faces/1/1.jpg": _marked_image(1, 1)})
    with pytest.raises(DataError, match="no member matches member_pattern"):
        prepare_dataset("pie", PIE_LIKE, [no_match], tmp_path / "b.h5")
    truncated = tmp_path / "c.zip"
    truncated.write_bytes(wrong_size.read_bytes()[:300])
    with pytest.raises(DataError, match="truncated or corrupt") as info:
        prepare_dataset("pie", PIE_LIKE, [truncated], tmp_path / "c.h5")
    assert "'pie'" in str(info.value) and str(truncated) in str(info.value)
    assert not any(tmp_path.glob("*.h5"))


def test_content_checksum_pins_the_decoded_data(tmp_path):
    path = _pie_like_zip(tmp_path / "pie.zip", {"PIE/1/1.jpg": _marked_image(1, 1), "PIE/2/1.jpg": _marked_image(2, 1)})
    good = prepare_dataset("pie", PIE_LIKE, [path], tmp_path / "good.h5").attrs["content_sha256"]
    prepare_dataset("pie", {**PIE_LIKE, "content_sha256": good}, [path], tmp_path / "again.h5")
    with pytest.raises(DataError, match="not the configured content_sha256") as info:
        prepare_dataset("pie", {**PIE_LIKE, "content_sha256": "0" * 64}, [path], tmp_path / "bad.h5")
    assert "data/raw/pie/" in str(info.value) and not (tmp_path / "bad.h5").exists()


def test_wrong_checksum_of_the_pie_zip_fails_cleanly(config, tmp_path):
    """The configured `pie` file against a tampered mirror copy and an unreachable archive address."""
    spec = config["datasets"]["pie"]["files"][0]
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    _pie_like_zip(mirror / spec["name"], {"PIE/1/1.jpg": _marked_image(1, 1)})
    urls = [{**entry, "url": UNREACHABLE} if isinstance(entry, dict) else UNREACHABLE for entry in spec["urls"]]
    target = tmp_path / "raw" / spec["name"]
    with pytest.raises(DataError, match="sha256 mismatch") as info:
        fetch_file("pie", spec["name"], spec["sha256"], urls, target, mirror)
    assert "'pie'" in str(info.value) and UNREACHABLE in str(info.value) and "data_mirror" in str(info.value)
    assert not target.exists() and list(target.parent.iterdir()) == []


def test_an_address_with_its_own_checksum_is_checked_against_it(tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "served.bin").write_bytes(b"another packing")
    url = (mirror / "served.bin").as_uri()
    target = tmp_path / "raw" / "f.zip"
    with pytest.raises(DataError, match="sha256 mismatch"):
        fetch_file("toy", "f.zip", "1" * 64, [{"url": url, "sha256": "0" * 64}], target)
    fetch_file("toy", "f.zip", "1" * 64, [{"url": url, "sha256": sha256_file(mirror / "served.bin")}], target)
    assert target.read_bytes() == b"another packing"


def test_jpeg_round_trip_view_is_lossy_keeps_samples_and_says_so(config, tmp_path):
    digits = prepare_dataset("digits", config["datasets"]["digits"], [], tmp_path / "d.h5")
    faces = dataclasses.replace(digits, X=np.round(digits.X * 255 / 16))
    coarse, fine = (derive_view(faces, {"dataset": "digits", "jpeg_quality": q}, "v") for q in (30, 95))
    assert coarse.X.shape == faces.X.shape and np.array_equal(coarse.y, faces.y)
    error = {q: np.sqrt(np.mean((v.X - faces.X) ** 2)) for q, v in ((30, coarse), (95, fine))}
    assert 0 < error[95] < error[30] < 40
    assert "JPEG at quality 30" in coarse.attrs["source_note"]
    with pytest.raises(DataError, match="8-bit grey values"):
        derive_view(dataclasses.replace(faces, X=faces.X + 0.5), {"dataset": "digits", "jpeg_quality": 75}, "v")


def test_column_major_images_are_rewritten_row_major():
    image = np.arange(6).reshape(2, 3)                      # 2 rows, 3 columns
    stored = image.ravel(order="F")[None, :]              # MATLAB's storage
    assert np.array_equal(to_row_major(stored, (2, 3), "F")[0].reshape(2, 3), image)


def test_column_major_rgb_images_are_rewritten_row_major_and_read_back(tmp_path):
    """An RGB image stored column-major (MATLAB's ``teapots(:, i)``) comes out upright through the
    .mat reader, and the processed file gives its 3-element image shape back."""
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, size=(4, 5, 7, 3)).astype(np.uint8)       # 4 images, 5 rows, 7 columns
    stored = np.stack([image.ravel(order="F") for image in images], axis=1)  # columns are samples
    assert np.array_equal(to_row_major(stored.T.astype(float), (5, 7, 3), "F").reshape(images.shape), images)
    assert not np.array_equal(stored.T.reshape(images.shape), images)       # the C-order reading is wrong
    scipy.io.savemat(tmp_path / "rgb.mat", {"ims": stored})
    spec = {"format": "mat", "x_var": "ims", "samples_in": "columns", "image_shape": [5, 7, 3], "pixel_order": "F"}
    prepare_dataset("rgb", spec, [tmp_path / "rgb.mat"], tmp_path / "rgb.h5")
    data = read_dataset_file(tmp_path / "rgb.h5")
    assert data.image_shape == (5, 7, 3) and data.y is None
    assert np.array_equal(data.X.reshape(-1, 5, 7, 3), images)
    with pytest.raises(DataError, match="rows have 105 values, which is not an image of shape 5x7x2"):
        to_row_major(data.X, (5, 7, 2), "F")


TEAPOTS100 = {"format": "mat", "x_var": "teapots", "samples_in": "columns", "image_shape": [76, 101, 3],
              "pixel_order": "F", "files": [{"name": "teapots100.mat"}]}


def test_teapot_frames_are_upright(config, mirror, tmp_path):
    """Criteria: the images are 76 high and 101 wide, in RGB; neighbouring pixels are similar (a
    wrong-order reading scrambles them); the wall at the top (plain, corners included, and the same
    in every frame) is above the turning newspaper at the bottom (textured), so the frames are not
    upside down."""
    spec = config["datasets"].get("teapots100", TEAPOTS100)
    data = prepare_dataset("teapots100", spec, [mirror / "teapots100.mat"], tmp_path / "t.h5")
    assert data.X.shape == (100, 23028) and data.image_shape == (76, 101, 3) and data.y is None
    images = data.X.reshape(-1, 76, 101, 3)
    wrong_order = data.X.reshape(-1, 3, 101, 76).transpose(0, 3, 2, 1)     # C-stored reading of F-order rows
    assert 1.5 * _roughness(images, (76, 101, 3)) < _roughness(wrong_order, (76, 101, 3))
    top, bottom = images[:, :12], images[:, -12:]
    assert 3 * _roughness(top, top.shape[1:]) < _roughness(bottom, bottom.shape[1:])
    assert images[:, :8, :8].std(axis=(1, 2)).max() < 20 and images[:, :8, -8:].std(axis=(1, 2)).max() < 30
    assert images[:, :12].std(axis=0).mean() < 5 < 20 < images[:, 25:55, 30:70].std(axis=0).mean()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_mirrored_dataset_prepares_with_expected_shape(name, config, mirror, tmp_path):
    data = _prepare(name, config, mirror, tmp_path)
    n, d, c = EXPECTED[name]
    assert data.X.shape == (n, d) and data.X.dtype == np.float64
    assert data.n_classes == c and set(np.unique(data.y)) == set(range(c))
    stored = read_dataset_file(tmp_path / f"{name}.h5")
    assert np.array_equal(stored.X, data.X) and stored.class_names == data.class_names
    assert stored.attrs["source_sha256"] == [sha256_file(mirror / f) for f in stored.attrs["source_files"]]


def test_usps_keeps_the_official_partition(config, mirror, tmp_path):
    data = _prepare("usps", config, mirror, tmp_path)
    assert list(data.attrs["partition_sizes"]) == [7291, 2007]
    assert np.bincount(data.y).tolist()[0] == 1194 + 359   # digit 0: zip.train + zip.test


def _symmetry(image):
    def corr(a, b):
        return np.corrcoef(a.ravel(), b.ravel())[0, 1]

    return corr(image, image[:, ::-1]), corr(image, image[::-1, :])


@pytest.mark.parametrize("name", FRONTAL_FACES)
def test_frontal_faces_are_upright(name, config, mirror, tmp_path):
    """Criterion: a frontal mean face is mirror-symmetric about its vertical axis, so its left–right
    self-correlation beats its top–bottom one by a margin; a transposed face set fails this."""
    data = _prepare(name, config, mirror, tmp_path)
    mean = data.X.mean(axis=0).reshape(data.image_shape)
    left_right, top_bottom = _symmetry(mean)
    assert left_right > top_bottom + 0.2
    assert _symmetry(mean.T)[0] < _symmetry(mean.T)[1]     # the criterion does catch a transpose


def _roughness(X, shape):
    images = X.reshape(-1, *shape)
    return np.abs(np.diff(images, axis=1)).mean() + np.abs(np.diff(images, axis=2)).mean()


@pytest.mark.parametrize("name", ["umist_28x23", "frey"])
def test_non_square_images_are_read_in_their_pixel_order(name, config, mirror, tmp_path):
    """Criterion: neighbouring pixels of a real image are similar; reading a non-square image in the
    wrong order scrambles it and raises the mean neighbour difference by half or more."""
    data = _prepare(name, config, mirror, tmp_path)
    h, w = data.image_shape
    scrambled = data.X.reshape(-1, h, w).reshape(-1, w * h, order="C").reshape(-1, w, h).transpose(0, 2, 1)
    assert 1.5 * _roughness(data.X, (h, w)) < _roughness(scrambled.reshape(len(data.X), -1), (h, w))


def test_umist_32x32_is_upright(config, mirror, tmp_path):
    """UMist shows profiles, so symmetry does not apply. Criterion: each 32x32 image correlates
    better with some image of the independently stored 28x23 set (whose shape fixes its orientation)
    as it is than transposed."""
    def standardise(M):
        M = M - M.mean(axis=1, keepdims=True)
        return M / np.linalg.norm(M, axis=1, keepdims=True)

    square = _prepare("umist", config, mirror, tmp_path)
    other = _prepare("umist_28x23", config, mirror, tmp_path)
    a = resize_images(square.X, (32, 32), (16, 16))
    b = standardise(resize_images(other.X, (28, 23), (16, 16)))
    transposed = a.reshape(-1, 16, 16).transpose(0, 2, 1).reshape(len(a), -1)
    upright_match = (standardise(a) @ b.T).max(axis=1).mean()
    transposed_match = (standardise(transposed) @ b.T).max(axis=1).mean()
    assert upright_match > 0.95 > transposed_match + 0.2


def test_olivetti_gender_view_has_36_men_and_4_women(config, mirror, tmp_path):
    data = _prepare("olivetti", config, mirror, tmp_path)
    view = derive_view(data, config["views"]["olivetti_gender"], "olivetti_gender")
    assert view.class_names == ["male", "female"]
    assert np.bincount(view.y).tolist() == [360, 40]


@pytest.mark.parametrize("view_name", ["iris_2c", "thyroid_2c", "letter_2c", "segmentation_2c", "waveform_2c",
                                       "usps_eo", "usps_sl"])
def test_two_class_views(view_name, config, mirror, tmp_path):
    spec = config["views"][view_name]
    data = _prepare(spec["dataset"], config, mirror, tmp_path)
    view = derive_view(data, spec, view_name)
    assert view.n_classes == 2 and set(np.unique(view.y)) == {0, 1}
    kept = view.attrs.get("source_indices", np.arange(len(data.y)))
    for new, members in enumerate(spec["relabel"].values()):
        old = [data.class_names.index(name) for name in members]
        assert np.all(np.isin(data.y[kept][view.y == new], old))


def test_builtin_and_generated_data_need_no_files(config, tmp_path):
    digits = prepare_dataset("digits", config["datasets"]["digits"], [], tmp_path / "d.h5")
    assert digits.X.shape == (1797, 64) and digits.image_shape == (8, 8)
    wave = prepare_dataset("waveform_generated", config["datasets"]["waveform_generated"], [], tmp_path / "w.h5",
                           seed=3)
    again = prepare_dataset("waveform_generated", config["datasets"]["waveform_generated"], [], tmp_path / "w2.h5",
                            seed=3)
    assert wave.X.shape == (5000, 21) and np.array_equal(wave.X, again.X)


def test_waveform_generator_follows_breiman():
    waves = base_waves()
    assert waves.shape == (3, 21) and waves.max() == 6
    assert np.argmax(waves[0]) == 10 and np.argmax(waves[1]) == 14 and np.argmax(waves[2]) == 6
    X, y = generate_waveform(30000, seed=0)
    noise_free_mean = {0: (waves[0] + waves[1]) / 2, 1: (waves[0] + waves[2]) / 2, 2: (waves[1] + waves[2]) / 2}
    for c, expected in noise_free_mean.items():
        assert np.abs(X[y == c].mean(axis=0) - expected).max() < 0.1
    assert abs(np.bincount(y).min() / len(y) - 1 / 3) < 0.02


# --- views -------------------------------------------------------------------------------------


def test_relabel_merges_drops_and_rejects_unknown_names():
    y = np.array([0, 1, 2, 3, 2])
    keep, new, names = relabel(y, ["a", "b", "c", "d"], {"ac": ["a", "c"], "b": ["b"]})
    assert keep.tolist() == [True, True, True, False, True] and new.tolist() == [0, 1, 0, 0]
    assert names == ["ac", "b"]
    with pytest.raises(DataError, match="unknown classes"):
        relabel(y, ["a", "b", "c", "d"], {"x": ["z"]})


def test_area_resize_is_antialiased_and_preserves_constants():
    assert np.allclose(area_resampling_matrix(5, 3).sum(axis=1), 1)
    checker = (np.indices((32, 32)).sum(axis=0) % 2).astype(float).reshape(1, -1)
    assert np.allclose(resize_images(checker, (32, 32), (16, 16)), 0.5)   # no aliasing of a 2-pixel period
    ones = np.ones((2, 28 * 23))
    assert np.allclose(resize_images(ones, (28, 23), (32, 32)), 1)


# --- splits ------------------------------------------------------------------------------------


def test_splits_are_disjoint_stratified_and_reproducible(tmp_path):
    y = np.repeat(np.arange(4), [8, 9, 10, 12])
    train, test = per_class_splits(y, m=5, n_splits=20, seed=7)
    for tr, te in zip(train, test):
        assert not np.intersect1d(tr, te).size and np.union1d(tr, te).size == len(y)
        assert np.bincount(y[tr]).tolist() == [5, 5, 5, 5]
    again, _ = per_class_splits(y, m=5, n_splits=20, seed=7)
    assert np.array_equal(train, again)
    assert len({tuple(row) for row in train}) == 20           # the splits differ from each other
    path = tmp_path / "s.h5"
    write_splits(path, train, test, {"m": 5})
    assert np.array_equal(read_splits(path)["train"], train)


def test_splits_are_pinned_across_machines():
    """The PCG64 stream is specified, so these indices are the same on every platform."""
    y = np.repeat(np.arange(2), 6)
    train, _, _, attrs = make_splits(y, "per_class", 2, 1, 20070620, "pinned")
    assert attrs["seed"] == make_splits(y, "per_class", 2, 1, 20070620, "pinned")[3]["seed"]
    assert train.shape == (1, 4) and np.bincount(y[train[0]]).tolist() == [2, 2]


def test_a_class_with_at_most_m_samples_is_named(tmp_path):
    y = np.array([0] * 6 + [1] * 3)
    with pytest.raises(DataError, match=r"class 'B' \(label 1\) \(3 samples\)"):
        per_class_splits(y, m=3, n_splits=2, seed=0, class_names=["A", "B"])


def test_holdout_is_a_stratified_third_with_5x2_folds():
    y = np.repeat(np.arange(2), [90, 60])
    train, test, folds, _ = make_splits(y, "holdout", None, 1, 1, "toy")
    assert np.bincount(y[test[0]]).tolist() == [30, 20]
    assert len(folds) == 10
    for fit, validation in folds:
        assert not np.intersect1d(fit, validation).size
        assert np.array_equal(np.union1d(fit, validation), train[0])
        assert abs(np.bincount(y[validation])[0] - 30) <= 1


# --- the workflow ------------------------------------------------------------------------------


def test_snakemake_dry_run_succeeds_on_the_default_config():
    result = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--quiet"], cwd=ROOT, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr


def test_a_config_key_of_the_wrong_type_fails_at_start_up():
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--config", "n_splits=many"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode != 0 and "n_splits" in result.stdout + result.stderr


def test_a_missing_or_corrupt_dataset_file_is_named_with_its_state_and_the_rebuild_command(tmp_path):
    missing = tmp_path / "processed" / "usps.h5"
    with pytest.raises(DataError, match="it does not exist; rebuild it with `snakemake --cores 1 --force") as info:
        read_dataset_file(missing)
    assert str(missing) in str(info.value)
    missing.parent.mkdir()
    missing.write_bytes(b"not hdf5")
    with pytest.raises(DataError, match="it is truncated or corrupt"):
        read_dataset_file(missing)
