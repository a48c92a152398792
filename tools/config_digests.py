"""Write tests/fixtures/config_digests.json: digests of the merged configuration of each run below.

For the default configuration and for it with each overlay of ``MERGES`` (``--configfile`` and
``--config`` as their documented commands give them), loaded as the Snakefile loads it
(:func:`locproj.engine.config_files.load_config`), the sha256 of the canonical JSON
(``json.dumps(value, sort_keys=True)``) of every top-level key, of every entry of a top-level mapping
(``experiments/lea_recognition``, ``datasets/yale``, ...) and of the order of those entries.
tests/test_config_files.py checks that the configuration still gives every digest. Rerun this, from
the repository root, only when the configuration changes on purpose, and commit the fixture with it:

    python tools/config_digests.py
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "config_digests.json"
MIRROR = {"data_mirror": "../shared/datasets"}

#: name -> (--configfile files, --config values): the runs whose configuration the fixture pins
MERGES = {
    "default": ([], {}),
    "papers_smoke": (["config/papers_smoke.yaml"], MIRROR),
    "demo": (["config/demo.yaml"], {}),
    "smoke": (["config/smoke.yaml"], MIRROR),
}


def digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


def config_digests(config: dict) -> dict[str, str]:
    """Key -> digest: every top-level key, every entry of a top-level mapping (``key/entry``) and the
    order of those entries (``key/ (order)``)."""
    digests = {}
    for key, value in config.items():
        digests[key] = digest(value)
        if isinstance(value, dict):
            digests[f"{key}/ (order)"] = digest(list(value))
            digests.update({f"{key}/{entry}": digest(item) for entry, item in value.items()})
    return digests


def main() -> None:
    from locproj.engine.config_files import load_config

    fixture = {name: {"configfiles": configfiles, "values": values,
                      "digests": config_digests(load_config(ROOT, configfiles, values))}
               for name, (configfiles, values) in MERGES.items()}
    FIXTURE.write_text(json.dumps(fixture, indent=1, sort_keys=True) + "\n")
    print(f"wrote {FIXTURE.relative_to(ROOT)}: {sum(len(m['digests']) for m in fixture.values())} digests")


if __name__ == "__main__":
    main()
