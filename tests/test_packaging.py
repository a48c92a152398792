"""The package: the library installs as one, without the pipeline's dependencies, and its metadata
files agree with each other.

``pip install locproj`` installs only ``[project] dependencies``; Snakemake and what only the
pipeline uses are the ``workflow`` extra (pyproject.toml). So ``import locproj.methods`` and the
data readers must not reach Snakemake. The subprocess below makes Snakemake unimportable and
records every attempt to import it, so an import that leaks fails here even when the code catches
the ImportError. .ci/run checks the same on a built wheel in a fresh virtual environment.
"""

import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import yaml

import locproj

ROOT = Path(__file__).resolve().parent.parent
PIPELINE_ONLY = ("snakemake", "pygments")   # the workflow extra's packages

WITHOUT_THE_PIPELINE = textwrap.dedent(
    """
    import sys

    attempts = []

    class Blocker:
        # makes the workflow extra's packages unimportable and records who asked
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in {blocked!r}:
                attempts.append(name)
                raise ImportError(f"{{name}} is blocked: the core install has no workflow extra")
            return None

    sys.meta_path.insert(0, Blocker())
    for name in {blocked!r}:
        sys.modules.pop(name, None)

    import numpy as np

    import locproj
    import locproj.core.solvers
    import locproj.data
    import locproj.methods
    from locproj.methods import LocalityPreservingProjection

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 6)), np.repeat([0, 1, 2, 3], 10)
    Z = LocalityPreservingProjection(n_components=3, n_neighbors=4).fit(X, y).transform(X)
    assert Z.shape == (40, 3), Z.shape
    {extra}
    leaked = sorted(set(attempts) | {{m for m in sys.modules if m.partition(".")[0] in {blocked!r}}})
    if leaked:
        raise SystemExit(f"the library tried to import the workflow extra's packages: {{leaked}}")
    print("imported and fitted without the workflow extra")
    """
)


def run_without_the_pipeline(extra: str = "") -> subprocess.CompletedProcess:
    script = WITHOUT_THE_PIPELINE.format(blocked=PIPELINE_ONLY, extra=extra)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=300)


def test_the_library_imports_and_fits_without_the_workflow_extra():
    done = run_without_the_pipeline()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "imported and fitted without the workflow extra" in done.stdout


def test_the_check_fails_when_an_import_leaks():
    """The check itself: a Snakemake import, even one whose ImportError is caught, fails it."""
    caught = "try:\n    import snakemake.utils\nexcept ImportError:\n    pass"
    done = run_without_the_pipeline(caught)
    assert done.returncode != 0, done.stdout + done.stderr
    assert "tried to import the workflow extra's packages: ['snakemake']" in done.stderr, done.stderr


def test_snakemake_is_an_extra_not_a_core_dependency():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = lambda requirements: {r.split(">=")[0].split("[")[0] for r in requirements}   # noqa: E731
    assert not names(project["dependencies"]) & set(PIPELINE_ONLY)
    extras = project["optional-dependencies"]
    assert set(PIPELINE_ONLY) <= names(extras["workflow"])
    assert "locproj[workflow]" in extras["slurm"] and "locproj[workflow]" in extras["test"]


def test_the_package_says_it_is_typed():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert (ROOT / "src" / "locproj" / "py.typed").is_file()
    assert "py.typed" in pyproject["tool"]["setuptools"]["package-data"]["locproj"]
    assert "Typing :: Typed" in pyproject["project"]["classifiers"]


def test_citation_and_pyproject_agree():
    """CITATION.cff repeats the version, the license and the address: they cannot drift."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert citation["version"] == locproj.__version__
    assert citation["license"] == project["license"] == "BSD-3-Clause"
    assert project["license-files"] == ["LICENSE"] and (ROOT / "LICENSE").read_text().startswith("BSD 3-Clause")
    assert citation["repository-code"] == project["urls"]["Repository"]
    assert citation["url"] == project["urls"]["Homepage"]
    authors = [author["name"] for author in project["authors"]]
    assert authors == [author["name"] for author in citation["authors"]]
