"""Methods by import path: any scikit-learn-compatible estimator as an experiment's method entry.

A method entry names ``estimator: "module:Class"`` instead of a built-in method. The module is a
``.py`` file in one of the config's ``method_paths`` (by default the folders of the config files
given and the working directory: a file beside the config), or an installed module. What the engine
needs to know and cannot guess is config (:func:`locproj.engine.registry.method_spec`): ``supervised``,
``ordered``, ``max_components`` and, for the holdout protocol, ``classifier``.

:func:`import_estimator` finds the class and what identifies its code: the package and its version,
or the local file and the digest of its code (:func:`code_digest`: its syntax tree and those of the
local modules it imports, so a comment or a reformatting changes nothing). Both go into the jobs'
configuration, so they are recorded in every result's provenance, and a code edit of a local file
reruns exactly the jobs that use it. A local file may import the other modules of the method
folders (``from my_helpers import f``), at its top.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import difflib
import functools
import hashlib
import importlib
import importlib.util
import sys
from pathlib import Path

from ..errors import UserError
from .syntax_trees import without_docstrings


class MethodImportError(UserError):
    """A method entry's ``estimator`` that cannot be imported or used."""


def split_import_path(path) -> tuple[str, str]:
    """``'module:Class'`` -> ``('module', 'Class')``."""
    if not isinstance(path, str) or path.count(":") != 1 or not all(path.split(":")):
        raise MethodImportError(f"estimator {path!r} is not an import path 'module:Class' (e.g. "
                                f"'sklearn.neighbors:NeighborhoodComponentsAnalysis' or 'my_methods:MyProjection')")
    module, name = path.split(":")
    return module, name


def local_file(module: str, search) -> Path | None:
    """The first ``<dir>/<module path>.py`` among the folders ``search``, or None."""
    for folder in search or []:
        candidate = Path(folder) / (module.replace(".", "/") + ".py")
        if candidate.is_file():
            return candidate
    return None


@contextlib.contextmanager
def _importable(folders):
    """The method folders first on ``sys.path`` while a method file runs its imports, so that it
    finds the modules beside it (they stay in ``sys.modules`` afterwards)."""
    added = [str(folder) for folder in folders if str(folder) not in sys.path]
    sys.path[:0] = added
    try:
        yield
    finally:
        for folder in added:
            sys.path.remove(folder)


def _load_file(module: str, path: Path, search=()):
    name = f"locproj_own_methods.{module}"
    spec = importlib.util.spec_from_file_location(name, path)
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[name] = loaded
    with _importable(dict.fromkeys([path.parent, *map(Path, search)])):
        spec.loader.exec_module(loaded)
    return loaded


def _local_imports(tree: ast.AST) -> list[str]:
    """The absolute module names a syntax tree imports."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


def code_digest(path: Path, search=()) -> str:
    """The sha256 of a local method file's code: its syntax tree without docstrings (no comments, no
    layout: as locproj's own modules count, :mod:`locproj.engine.code_digests`) and those of the
    modules it imports from its own folder or the method folders ``search``, recursively."""
    trees, todo = {}, [Path(path)]
    while todo:
        file = todo.pop()
        if file in trees:
            continue
        tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
        trees[file] = ast.dump(without_docstrings(copy.deepcopy(tree)), include_attributes=False)
        folders = [file.parent, *map(Path, search)]
        todo += [found for name in _local_imports(tree) if (found := local_file(name, folders)) is not None]
    digest = hashlib.sha256()
    for file in sorted(trees, key=lambda f: f.as_posix()):
        digest.update(f"{file.name}\n{trees[file]}\n".encode())
    return digest.hexdigest()


@functools.lru_cache(maxsize=None)
def _packages_distributions() -> dict:
    """Top-level package -> its distributions. Cached: the scan of every installed package's files
    takes about 0.3 s."""
    from importlib.metadata import packages_distributions

    return packages_distributions()


@functools.lru_cache(maxsize=None)
def _distribution_version(module: str) -> dict:
    """The installed distribution and version of ``module``'s top-level package (cached: the DAG asks
    once per job)."""
    from importlib.metadata import PackageNotFoundError, version

    top = module.split(".")[0]
    for distribution in _packages_distributions().get(top, []):
        try:
            return {"package": distribution, "version": version(distribution)}
        except PackageNotFoundError:
            continue
    return {"package": top, "version": "unknown"}


def import_estimator(path: str, search=()) -> tuple[type, dict]:
    """The class of ``path`` (``'module:Class'``) and its source: ``{"estimator", "file", "search",
    "code_sha256"}`` for a local file found in ``search`` (the path as given there; the folders its
    imports are looked for in; :func:`code_digest`), else ``{"estimator", "package", "version"}``."""
    module_name, class_name = split_import_path(path)
    found = local_file(module_name, search)
    try:
        module = _load_file(module_name, found, search) if found else importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if found is not None or error.name != module_name.split(".")[0] and error.name != module_name:
            raise MethodImportError(f"importing {path!r} failed: {error}") from error
        folders = ", ".join(str(folder) for folder in search) or "none"
        raise MethodImportError(f"no module {module_name!r}: no {module_name.replace('.', '/')}.py in the "
                                f"method folders ({folders}) and no installed module of that name; put the file "
                                f"beside your config or install the package") from error
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type):
        names = [name for name in dir(module) if not name.startswith("_")]
        close = difflib.get_close_matches(class_name, names, n=3)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        raise MethodImportError(f"module {module_name!r} has no class {class_name!r}{hint}")
    if found is not None:
        folders = [str(folder) for folder in search]
        source = {"estimator": path, "file": found.as_posix(), "search": folders,
                  "code_sha256": code_digest(found, folders)}
    else:
        source = {"estimator": path, **_distribution_version(module_name)}
    return cls, source


def check_estimator_class(cls: type, path: str, needs_predict: bool = False) -> None:
    """Fail on a class without ``fit`` and ``transform`` (and ``predict`` when
    ``needs_predict``) or without scikit-learn's ``get_params``."""
    needed = ["fit", "transform", "get_params"] + (["predict"] if needs_predict else [])
    missing = [name for name in needed if not callable(getattr(cls, name, None))]
    if missing:
        raise MethodImportError(f"{path} has no {', '.join(missing)}; a method is a "
                                f"scikit-learn transformer (fit, transform, get_params: subclass "
                                f"sklearn.base.BaseEstimator and TransformerMixin)")


def check_params(allowed, params, path: str) -> None:
    """Fail on fixed or grid parameters the estimator does not take."""
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        hints = [f"{name!r} (did you mean {difflib.get_close_matches(name, allowed, n=1)[0]!r}?)"
                 if difflib.get_close_matches(name, allowed, n=1) else repr(name) for name in unknown]
        raise MethodImportError(f"{path} does not take {', '.join(hints)}; "
                                f"it takes {sorted(allowed)}")


def without_labels(cls: type):
    """A factory of ``cls`` whose ``fit`` is given no labels (an entry's ``supervised: false``)."""
    from sklearn.base import BaseEstimator, TransformerMixin, clone

    class WithoutLabels(TransformerMixin, BaseEstimator):
        def __init__(self, estimator=None):
            self.estimator = estimator

        def fit(self, X, y=None):
            self.estimator_ = clone(self.estimator).fit(X)
            return self

        def transform(self, X):
            return self.estimator_.transform(X)

    return lambda **params: WithoutLabels(cls(**params))
