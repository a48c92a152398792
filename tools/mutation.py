"""Mutation testing of the core with mutmut: which small changes to the code no test notices.

mutmut (PyPI, ``pip install -e '.[mutation]'``) changes one operator, constant or name at a time in the
modules of :data:`MODULES`, and runs the tests that reach the changed function; a mutant that no test
fails *survived*.  It runs in a copy of the working tree (``--workdir``, default ``mutation-work/``,
git-ignored), so the checkout is never changed, and a second call with the same folder resumes where the
first stopped: ``--budget`` bounds each call's minutes.

    python tools/mutation.py [--budget 60] [--workdir mutation-work] [--module core/evaluation.py ...]
    python tools/mutation.py --report-only          # the scores of what ran, no new mutants

Tests that need the data mirror are skipped (it would take hours), as in a clone without the mirror.
A survivor is *explained* when :data:`EQUIVALENTS` lists its change (function, line before, line after) as
equivalent, with a category and the reason; the report names every survivor that is not.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from blas_kernels import copy_tree, source_files

ROOT = Path(__file__).resolve().parents[1]

#: The surviving mutants that change nothing a user can observe: one row each, matched by the changed code
#: (mutmut's numbers move with every edit), with its category and the reason.
EQUIVALENTS = ROOT / "tools" / "mutation_equivalents.tsv"

#: The modules mutated, each with the test files that pin it.
MODULES = {
    "core/evaluation.py": ["tests/test_evaluation.py", "tests/test_ties.py"],
    "core/solvers.py": ["tests/test_solvers.py"],
    "core/neighbor_graphs.py": ["tests/test_graphs.py"],
    "engine/selection.py": ["tests/test_selection.py"],
    "engine/results.py": ["tests/test_results.py", "tests/test_selection.py", "tests/test_reliability.py"],
}


def mutmut_settings(modules) -> str:
    """The ``[tool.mutmut]`` table for ``modules`` (keys of :data:`MODULES`)."""
    tests = sorted({test for module in modules for test in MODULES[module]})
    settings = {
        "source_paths": ["src/locproj"],
        "only_mutate": [f"src/locproj/{module}" for module in modules],
        "pytest_add_cli_args_test_selection": tests,
        "pytest_add_cli_args": ["-p", "no:cacheprovider"],
        "also_copy": ["config", "workflow", "Snakefile", "tools"],
    }
    return "\n[tool.mutmut]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in settings.items())


def prepare(workdir: Path, modules) -> None:
    """A copy of the working tree in ``workdir`` with mutmut's settings, unless one is there (a resumed run)."""
    if (workdir / "pyproject.toml").exists():
        return
    copy_tree(ROOT, source_files(ROOT), workdir)
    with open(workdir / "pyproject.toml", "a") as pyproject:
        pyproject.write(mutmut_settings(modules))


def run(workdir: Path, minutes: float, children: int) -> None:
    """``mutmut run`` for at most ``minutes``; what is done stays in ``workdir/mutants`` for the next call."""
    environment = {**os.environ, "LOCPROJ_DATA_MIRROR": str(workdir / "no-mirror"), "OMP_NUM_THREADS": "1",
                   "OPENBLAS_NUM_THREADS": "1"}
    process = subprocess.Popen([sys.executable, "-m", "mutmut", "run", "--max-children", str(children)], cwd=workdir,
                               env=environment, stdout=subprocess.DEVNULL, start_new_session=True)
    try:
        process.wait(timeout=60 * minutes)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGTERM)       # mutmut and the children it forked
        process.wait()
        print(f"stopped after the budget of {minutes:g} minutes; run again to go on", file=sys.stderr)


def statuses(workdir: Path) -> dict[str, str]:
    """``{mutant name: status}`` of every mutant generated so far (``mutmut results --all true``)."""
    done = subprocess.run([sys.executable, "-m", "mutmut", "results", "--all", "true"], cwd=workdir,
                          capture_output=True, text=True, check=True)
    found = {}
    for line in done.stdout.splitlines():
        name, _, status = line.strip().rpartition(": ")
        if name:
            found[name] = status
    return found


def scores(found: dict[str, str]) -> dict[str, dict[str, int]]:
    """Per module, how many mutants have each status."""
    table: dict[str, dict[str, int]] = {}
    for name, status in found.items():
        module = name.split(".x", 1)[0].removeprefix("locproj.").replace(".", "/") + ".py"
        counts = table.setdefault(module, {})
        counts[status] = counts.get(status, 0) + 1
    return table


def change(workdir: Path, name: str) -> tuple[str, str, str]:
    """``(function, line before, line after)`` of one mutant, from ``mutmut show`` (lines joined when several)."""
    shown = subprocess.run([sys.executable, "-m", "mutmut", "show", name], cwd=workdir, capture_output=True,
                           text=True, check=True).stdout.splitlines()
    before = " ".join(line[1:].strip() for line in shown if line.startswith("-") and not line.startswith("---"))
    after = " ".join(line[1:].strip() for line in shown if line.startswith("+") and not line.startswith("+++"))
    return name.split("__mutmut_")[0], before, after


def equivalents(path: Path = EQUIVALENTS) -> dict[tuple[str, str, str], tuple[str, str]]:
    """``{(function, before, after): (category, reason)}`` of :data:`EQUIVALENTS`."""
    with open(path, newline="") as table:
        return {(row["function"], row["before"], row["after"]): (row["category"], row["reason"])
                for row in csv.DictReader(table, delimiter="\t")}


def report(found: dict[str, str], workdir: Path) -> None:
    print("| module | mutants | killed | survived | timeout | no tests | not checked | score |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for module, counts in sorted(scores(found).items()):
        total, killed = sum(counts.values()), counts.get("killed", 0) + counts.get("timeout", 0)
        checked = total - counts.get("not checked", 0)
        score = f"{100 * killed / checked:.1f} %" if checked else "-"
        print(f"| `{module}` | {total} | {counts.get('killed', 0)} | {counts.get('survived', 0)} | "
              f"{counts.get('timeout', 0)} | {counts.get('no tests', 0)} | {counts.get('not checked', 0)} | {score} |")
    survivors = sorted(name for name, status in found.items() if status in ("survived", "no tests"))
    if not survivors:
        return
    known, categories, unexplained = equivalents(), {}, []
    for name in survivors:
        explained = known.get(change(workdir, name))
        if explained:
            categories[explained[0]] = categories.get(explained[0], 0) + 1
        else:
            unexplained.append(name)
    print(f"\n{len(survivors)} survived or reached by no test; explained as equivalent ({EQUIVALENTS.name}): "
          + (", ".join(f"{category} {count}" for category, count in sorted(categories.items())) or "none"))
    if unexplained:
        print(f"{len(unexplained)} not explained (show one: cd {workdir} && mutmut show NAME):")
        print("\n".join(unexplained))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--module", nargs="+", choices=sorted(MODULES), default=sorted(MODULES),
                        help="modules to mutate (under src/locproj; default: all of MODULES)")
    parser.add_argument("--workdir", type=Path, default=ROOT / "mutation-work")
    parser.add_argument("--budget", type=float, default=60, help="minutes for this call (default 60)")
    parser.add_argument("--children", type=int, default=2, help="mutants tested at once (default 2: the cores)")
    parser.add_argument("--report-only", action="store_true", help="print the scores of what ran, run nothing")
    args = parser.parse_args(argv)
    prepare(args.workdir, args.module)
    if not args.report_only:
        run(args.workdir, args.budget, args.children)
    report(statuses(args.workdir), args.workdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
