"""Shared fixtures: the repository root, the config, and the local data mirror (when present)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
MIRROR = Path(os.environ.get("LOCPROJ_DATA_MIRROR", ROOT.parent / "shared" / "datasets"))


@pytest.fixture(scope="session")
def config() -> dict:
    return yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


@pytest.fixture(scope="session")
def mirror() -> Path:
    if not (MIRROR / "MANIFEST.tsv").is_file():
        pytest.skip(f"the data mirror is absent ({MIRROR}); set LOCPROJ_DATA_MIRROR to run this test")
    return MIRROR
