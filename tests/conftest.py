"""Shared fixtures: the repository root, the config, and the local data mirror (when present)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy  # noqa: F401  (loaded before the BLAS limit below, as is SciPy's own BLAS)
import pytest
import scipy.linalg  # noqa: F401
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
MIRROR = Path(os.environ.get("LOCPROJ_DATA_MIRROR", ROOT.parent / "shared" / "datasets"))

if "PYTEST_XDIST_WORKER" in os.environ:
    # `pytest -n auto` runs one worker per core: one BLAS thread each, so they do not oversubscribe
    threadpool_limits(limits=1, user_api="blas")


@pytest.fixture(scope="session")
def checkout_environment():
    """``environment(**overrides)``: this process's environment with ``overrides``, in which a child
    Python imports locproj from this checkout (its ``src`` first on PYTHONPATH), whatever is installed."""
    def environment(**overrides) -> dict:
        paths = [str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]
        return {**os.environ, **overrides, "PYTHONPATH": os.pathsep.join(path for path in paths if path)}

    return environment


@pytest.fixture(scope="session")
def config() -> dict:
    """The configuration as the Snakefile loads it: config/config.yaml and the files it names."""
    from locproj.engine.config_files import load_config

    return load_config(ROOT)


@pytest.fixture(scope="session")
def digits_m6(tmp_path_factory) -> Path:
    """A folder with scikit-learn's digits prepared (``digits.h5``) and 2 seeded splits of 6 training
    samples per class (``splits.h5``): the smallest real job of a split protocol."""
    from locproj.data import make_splits, prepare_dataset, write_splits

    folder = tmp_path_factory.mktemp("digits_m6")
    data = prepare_dataset("digits", {"format": "sklearn_digits"}, [], folder / "digits.h5")
    train, test, folds, attrs = make_splits(data.y, "per_class", 6, 2, 5, "digits")
    write_splits(folder / "splits.h5", train, test, attrs, folds)
    return folder


@pytest.fixture(scope="session")
def mirror() -> Path:
    if not (MIRROR / "MANIFEST.tsv").is_file():
        pytest.skip(f"the data mirror is absent ({MIRROR}); set LOCPROJ_DATA_MIRROR to run this test")
    return MIRROR


def _readable_curves(figure) -> list[str]:
    """Check the rules every curve figure follows and return its legend's labels: one legend, the
    figure's, lying beside the axes (on none of them); axis labels in words; a note below the axes."""
    import re

    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    assert len(figure.legends) == 1 and all(ax.get_legend() is None for ax in figure.axes)
    legend = figure.legends[0].get_window_extent(renderer)
    assert not any(legend.overlaps(ax.get_window_extent(renderer)) for ax in figure.axes)
    for ax in figure.axes:
        assert re.search(r"[a-z]{4,}", ax.get_xlabel()) and re.search(r"[a-z]{4,}", ax.get_ylabel())
    [note] = figure.texts
    lowest_axes = min(ax.get_tightbbox(renderer).y0 for ax in figure.axes)   # tick labels and x label included
    assert note.get_text() and note.get_window_extent(renderer).y1 < lowest_axes
    return [text.get_text() for text in figure.legends[0].get_texts()]


@pytest.fixture()
def readable_curves():
    """:func:`_readable_curves`, for the tests of each protocol's curve figure."""
    return _readable_curves


@pytest.fixture()
def workdir(tmp_path):
    """A copy of the workflow (not of data or results) to run in isolation."""
    import shutil

    for name in ("Snakefile", "workflow", "config", "profiles"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    return tmp_path
