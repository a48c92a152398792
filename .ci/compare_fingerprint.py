"""Compare a run's fingerprint (.ci/fingerprint.py) with the one committed as expected output, and
say on what machine: the CPU model and the BLAS libraries in use (threadpoolctl).

    python .ci/compare_fingerprint.py .ci/expected/demo_smoke.tsv fingerprint.tsv

Exits 1, naming every entry that differs, is missing or is new, when the two are not identical.
docs/reliability.md lists the machines and library versions on which they were.
"""

from __future__ import annotations

import platform
import sys
from pathlib import Path


def entries(path: Path) -> dict[tuple[str, str], str]:
    lines = (line.split("\t") for line in Path(path).read_text().splitlines() if line)
    return {(file, item): digest for file, item, digest in lines}


def machine() -> str:
    """The CPU model and the BLAS libraries loaded by numpy and scipy."""
    import numpy
    import scipy.linalg  # noqa: F401  loads scipy's own BLAS
    from threadpoolctl import threadpool_info

    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() \
        else platform.processor()
    blas = [f"{pool['internal_api']} {pool['version']} ({pool.get('architecture', '?')} kernels, "
            f"{Path(pool['filepath']).name})" for pool in threadpool_info() if pool["user_api"] == "blas"]
    return (f"CPU: {model} ({platform.machine()}, {__import__('os').cpu_count()} cores)\n"
            f"BLAS: {'; '.join(blas)}\nnumpy {numpy.__version__}, scipy {scipy.__version__}, "
            f"Python {platform.python_version()}")


def main(expected_path: str, actual_path: str) -> int:
    expected, actual = entries(Path(expected_path)), entries(Path(actual_path))
    differ = sorted(key for key in expected.keys() & actual.keys() if expected[key] != actual[key])
    missing, new = sorted(expected.keys() - actual.keys()), sorted(actual.keys() - expected.keys())
    print(machine())
    for label, keys in (("differs", differ), ("missing", missing), ("new", new)):
        for file, item in keys:
            print(f"{label}: {file} {item}".rstrip())
    if differ or missing or new:
        print(f"fingerprint: {len(differ)} entries differ, {len(missing)} missing, {len(new)} new, "
              f"of {len(expected)} expected in {expected_path}")
        return 1
    print(f"fingerprint: all {len(expected)} entries identical to {expected_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
