"""Shared fixtures: the repository root, the config, and the local data mirror (when present)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy  # noqa: F401  (loaded before the BLAS limit below, as is SciPy's own BLAS)
import pytest
import scipy.linalg  # noqa: F401
import yaml
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
MIRROR = Path(os.environ.get("LOCPROJ_DATA_MIRROR", ROOT.parent / "shared" / "datasets"))

if "PYTEST_XDIST_WORKER" in os.environ:
    # `pytest -n auto` runs one worker per core: one BLAS thread each, so they do not oversubscribe
    threadpool_limits(limits=1, user_api="blas")


@pytest.fixture(scope="session")
def config() -> dict:
    return yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


@pytest.fixture(scope="session")
def mirror() -> Path:
    if not (MIRROR / "MANIFEST.tsv").is_file():
        pytest.skip(f"the data mirror is absent ({MIRROR}); set LOCPROJ_DATA_MIRROR to run this test")
    return MIRROR
