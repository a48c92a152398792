"""Break each documented rule of the evaluation and model selection on purpose, and check that a test fails.

Every entry of :data:`MUTANTS` is a one-line change to ``src/locproj`` that breaks one rule the code
documents, with the test files that pin that rule.  In a copy of the working tree (``git ls-files``: the
committed files and the changes not yet committed), each change is applied alone and its tests are run.
A mutant is *killed* when at least one test fails; one that survives means a rule nothing pins, and makes
this script exit non-zero.  The unchanged copy is tested first, so that a failure is the mutant's.

    python tools/rule_mutants.py [--only NAME ...] [--keep]

Takes about a minute on 2 cores (each run is one test file).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from blas_kernels import copy_tree, source_files

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Mutant:
    name: str
    rule: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]


MUTANTS = [
    Mutant("single_p_ties_to_last",
           "1-NN at a single p (the reported test error): an exact tie goes to the lowest training index",
           "src/locproj/core/evaluation.py",
           "winners, rows, candidates = _settle(scores, everyone, last, chunk)",
           "winners, rows, candidates = _settle(np.ascontiguousarray(scores[:, ::-1]), everyone[::-1], last, chunk)",
           ("tests/test_evaluation.py",)),
    Mutant("choose_grid_point_first",
           "model selection: among equal CV errors the smaller p wins, then the earlier grid point",
           "src/locproj/engine/selection.py",
           "p_index, grid_index = np.argwhere(ties.T)[0]",
           "grid_index, p_index = np.argwhere(ties)[0]",
           ("tests/test_selection.py",)),
    Mutant("cv_mean_skips_missing_folds",
           "a p missing from some folds has no CV error and cannot be chosen",
           "src/locproj/engine/selection.py",
           "error=fold_error.mean(axis=0)",
           "error=np.nanmean(fold_error, axis=0)",
           ("tests/test_selection.py",)),
    Mutant("degenerate_gram_longest_first",
           "inside a cluster of equal eigenvalues and equal variances: the shortest column first",
           "src/locproj/core/solvers.py",
           "A[:, cl.start + tie.start : cl.start + tie.stop] = sub @ R",
           "A[:, cl.start + tie.start : cl.start + tie.stop] = sub @ R[:, ::-1]",
           ("tests/test_solvers.py",)),
    Mutant("requested_folds_recorded",
           "a result file's n_folds is the number of folds used (capped at the smallest class)",
           "src/locproj/engine/selection.py",
           "n_folds=folds_for(y_train, n_folds), cv_seed=seed,",
           "n_folds=n_folds, cv_seed=seed,",
           ("tests/test_selection.py",)),
    Mutant("cv_seed_not_recorded",
           "provenance: a result file names the seed of its folds (cv_seed)",
           "src/locproj/engine/results.py",
           '"fit_seconds", "cv_seconds", "n_folds", "cv_seed", "p_max",',
           '"fit_seconds", "cv_seconds", "n_folds", "p_max",',
           ("tests/test_selection.py",)),
    Mutant("symmetrize_by_min",
           "a kNN graph keeps an edge given in either direction: max(W, W^T)",
           "src/locproj/core/neighbor_graphs.py",
           "return sparse.csr_array(W.maximum(W.T))",
           "return sparse.csr_array(W.minimum(W.T))",
           ("tests/test_graphs.py",)),
]


def run_tests(copy: Path, tests) -> subprocess.CompletedProcess:
    """pytest on ``tests`` in ``copy``, importing locproj from the copy's ``src``, stopping at the first failure."""
    mirror = os.environ.get("LOCPROJ_DATA_MIRROR", str(ROOT.parent / "shared" / "datasets"))
    environment = {**os.environ, "PYTHONPATH": str(copy / "src"), "LOCPROJ_DATA_MIRROR": mirror}
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    return subprocess.run(command, cwd=copy, env=environment, capture_output=True, text=True)


class LineNotFound(Exception):
    """A mutant's line is not in the code once."""


def apply(copy: Path, mutant: Mutant) -> str:
    """Apply ``mutant`` in ``copy``; returns the original text, to restore."""
    path = copy / mutant.path
    text = path.read_text()
    if text.count(mutant.old) != 1:
        raise LineNotFound(f"{mutant.name}: {mutant.path} holds {text.count(mutant.old)} copies of the line to "
                           "change; update MUTANTS to the code")
    path.write_text(text.replace(mutant.old, mutant.new))
    return text


def failed_test(output: str) -> str:
    lines = [line for line in output.splitlines() if line.startswith(("FAILED", "ERROR"))]
    return lines[0].split(" - ")[0] if lines else output.strip().splitlines()[-1]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run these mutants only")
    parser.add_argument("--keep", action="store_true", help="keep the working-tree copy and say where")
    args = parser.parse_args(argv)
    mutants = [m for m in MUTANTS if not args.only or m.name in args.only]
    folder = Path(tempfile.mkdtemp(prefix="rule_mutants-"))
    copy = folder / "tree"
    copy_tree(ROOT, source_files(ROOT), copy)
    try:
        tests = sorted({test for mutant in mutants for test in mutant.tests})
        baseline = run_tests(copy, tests)
        if baseline.returncode != 0:
            print(f"the unchanged code fails {failed_test(baseline.stdout)}: fix that first", file=sys.stderr)
            return 2
        survivors = []
        for mutant in mutants:
            try:
                original = apply(copy, mutant)
            except LineNotFound as missing:
                print(missing, file=sys.stderr)
                return 2
            try:
                done = run_tests(copy, mutant.tests)
            finally:
                (copy / mutant.path).write_text(original)
            killed = done.returncode != 0
            print(f"{'killed' if killed else 'SURVIVED'}  {mutant.name}: {mutant.rule}")
            print(f"          {failed_test(done.stdout) if killed else 'no test failed in ' + ', '.join(mutant.tests)}")
            survivors += [] if killed else [mutant.name]
        print(f"{len(mutants) - len(survivors)} of {len(mutants)} mutants killed")
        return 1 if survivors else 0
    finally:
        if args.keep:
            print(f"the copy: {copy}")
        else:
            shutil.rmtree(folder)


if __name__ == "__main__":
    sys.exit(main())
