"""The code a job runs, as one digest: what its rule's params carry, so that a change to that code
reruns the job and no other.

A job's code is the import closure, inside locproj, of the runner and its protocol's module (without
:mod:`locproj.methods`: the registry imports every method, and a job runs one), the closure of the
module of the method it runs, its job script, and a user's method file with its sibling imports
(:func:`locproj.engine.own_methods.code_digest`). The modules that only plan jobs (their size, order,
resources and these digests: :data:`PLANNING`) count by nothing: calibrating the cost model reruns no
job. Each module counts by its syntax tree without
docstrings (:func:`ast.dump`), so comments, docstrings and layout do not; a new Python version may
dump trees differently and rerun every job once. Other packages count by nothing: a package upgrade
reruns no job (the dependency floors and the latest versions gave the same bits).
"""

from __future__ import annotations

import ast
import functools
import hashlib
from collections.abc import Iterable
from pathlib import Path

from .syntax_trees import without_docstrings

#: The folder holding the ``locproj`` package.
SOURCE_ROOT = Path(__file__).resolve().parents[2]
#: The job's runner: what every job script imports.
RUNNER = ("locproj.experiments", "locproj.workflow")
#: Left out of the closure of the runner and the protocols: a job adds the module of its own method.
METHODS = "locproj.methods"
#: What plans jobs and never computes a result: left out of every closure.
PLANNING = ("locproj.engine.job_costs", "locproj.engine.code_digests", "locproj.engine.planning")
#: The modules of :data:`METHODS` every job runs whatever its method: the tags that model selection
#: and the registry read.
EVERY_JOB = ("locproj.methods.tags",)


@functools.lru_cache(maxsize=None)
def _known_modules() -> frozenset[str]:
    package = SOURCE_ROOT / "locproj"
    names = set()
    for path in package.rglob("*.py"):
        parts = path.relative_to(SOURCE_ROOT).with_suffix("").parts
        names.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return frozenset(names)


def _module_file(module: str) -> Path:
    base = SOURCE_ROOT.joinpath(*module.split("."))
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


def imported_modules(module: str, tree: ast.AST, known, is_package: bool) -> set[str]:
    """The modules of ``known`` that ``module`` (a package if ``is_package``) imports anywhere in its
    syntax tree ``tree``, also inside a function: the most specific known module of each import
    (``from .x import f`` -> ``pkg.x``, ``from . import y`` -> ``pkg.y``)."""
    package = module if is_package else module.rpartition(".")[0]
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != module:
                imported.add(target)
                break
    return imported


@functools.lru_cache(maxsize=None)
def _parsed(module: str) -> tuple[str, frozenset[str]]:
    """A module's syntax tree without docstrings (dumped) and the locproj modules it imports."""
    tree = ast.parse(_module_file(module).read_text(encoding="utf-8"))
    imported = imported_modules(module, tree, _known_modules(), _module_file(module).name == "__init__.py")
    return ast.dump(without_docstrings(tree), include_attributes=False), frozenset(imported)


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def closure(roots: Iterable[str], skip: Iterable[str] = ()) -> set[str]:
    """The locproj modules ``roots`` import, directly or not, with the roots (those inside a package
    of ``skip`` left out, and what only they import)."""
    found, todo = set(), [root for root in roots if root in _known_modules()]
    while todo:
        module = todo.pop()
        if module in found or any(_in(module, package) for package in skip):
            continue
        found.add(module)
        todo += _parsed(module)[1]
    return found


def _file_tree(path: Path) -> str:
    return ast.dump(without_docstrings(ast.parse(Path(path).read_text(encoding="utf-8"))), include_attributes=False)


def estimator_modules(estimator) -> tuple[str, ...]:
    """The modules that define the classes of ``estimator`` and of every estimator nested in it (a
    pipeline's steps, a meta-estimator's estimator: its parameters, deep), with their base classes,
    sorted: the method side of the code a job runs (those outside locproj count by nothing)."""
    from sklearn.base import BaseEstimator

    estimators = [estimator] + [value for value in estimator.get_params(deep=True).values()
                                if isinstance(value, BaseEstimator)]
    return tuple(sorted({cls.__module__ for item in estimators for cls in type(item).__mro__}))


def job_modules(protocol_module: str, method_modules: Iterable[str] = ()) -> set[str]:
    """The locproj modules a job's code digest hashes: the closure of the runner and
    ``protocol_module`` without the methods, the methods' modules every job runs (:data:`EVERY_JOB`)
    and the closure of ``method_modules`` (:func:`estimator_modules` of the estimator it builds)."""
    modules = closure([*RUNNER, protocol_module], skip=(METHODS, *PLANNING))
    return modules | closure([*EVERY_JOB, *method_modules], skip=PLANNING)


@functools.lru_cache(maxsize=None)
def job_code_digest(protocol_module: str, script: Path | None, method_modules: tuple[str, ...] = (),
                    method_code: str | None = None) -> str:
    """The sha256 of the code of a job: the modules of :func:`job_modules`, the job ``script`` (a
    file) and ``method_code`` (the digest of a user's method file, if any)."""
    modules = job_modules(protocol_module, method_modules)
    digest = hashlib.sha256()
    for module in sorted(modules):
        digest.update(f"{module}\n{_parsed(module)[0]}\n".encode())
    if script is not None:
        digest.update(f"script\n{_file_tree(script)}\n".encode())
    if method_code:
        digest.update(f"method file\n{method_code}\n".encode())
    return digest.hexdigest()
