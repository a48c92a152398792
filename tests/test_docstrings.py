"""numpydoc validation of the public API's docstrings, as scikit-learn's ``sklearn/tests/test_docstrings.py``.

The public API is every name in ``__all__`` of the modules of :data:`MODULES` (the reference of docs/api/*.md,
model selection and the method registry) and the public methods and properties of each public class that
locproj defines: those of the class itself and of locproj's base classes, not those inherited from
scikit-learn or Python (scikit-learn documents them). A constant in ``__all__`` has no docstring of its own
and is not validated. A module without ``__all__`` offers the classes and functions it defines whose names
do not start with an underscore, the members that autodoc documents of it. (Adding ``__all__`` to such a
module would change its syntax tree, and so the code digest of every job that imports it: the pipeline
would rerun them.)
"""

import functools
import importlib
import inspect

import pytest

numpydoc_validation = pytest.importorskip("numpydoc.validate")

MODULES = [
    "locproj.methods",
    "locproj.methods.tags",
    "locproj.data",
    "locproj.core.solvers",
    "locproj.core.neighbor_graphs",
    "locproj.core.ties",
    "locproj.core.class_graphs",
    "locproj.core.reconstruction_weights",
    "locproj.core.evaluation",
    "locproj.engine.selection",
    "locproj.engine.registry",
]

# The numpydoc checks not enforced, each with why; every other check of numpydoc's "all" is (CHECKED).
IGNORED = {
    "GL01": "the summary may start on the line of the opening quotes (scikit-learn ignores it too)",
    "GL02": "the closing quotes may close the last line of text (scikit-learn ignores it too)",
    "RT02": "a Returns entry may name the value it returns (scikit-learn ignores it too)",
    "EX01": "the examples are in docs/library.md (scikit-learn requires them only of its own classes)",
    "SA01": "no See Also section is required (scikit-learn requires one only of its own classes)",
    "ES01": "no extended summary is required (scikit-learn requires one only of its own classes)",
}
CHECKED = set(numpydoc_validation.ERROR_MSGS) - set(IGNORED)


def _is_member(attribute) -> bool:
    """Whether a class attribute is a method or a property (what the test validates of a class)."""
    return inspect.isfunction(attribute) or isinstance(
        attribute, (classmethod, staticmethod, property, functools.cached_property))


def _members(cls) -> list[str]:
    """The public methods and properties that ``cls`` or one of locproj's classes it derives from defines."""
    names = []
    for base in cls.__mro__:
        if not base.__module__.startswith("locproj."):
            continue
        names += [name for name, attribute in vars(base).items()
                  if not name.startswith("_") and _is_member(attribute) and name not in names]
    return sorted(names)


def public_names(module) -> list[str]:
    """``module.__all__``, else the classes and functions that ``module`` defines, in source order,
    whose names do not start with an underscore."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [name for name, obj in vars(module).items() if not name.startswith("_")
            and (inspect.isclass(obj) or inspect.isfunction(obj)) and obj.__module__ == module.__name__]


def public_objects() -> list[str]:
    """The import path of every public class, function, method and property."""
    paths = []
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in public_names(module):
            obj = getattr(module, name)
            if inspect.isclass(obj):
                paths.append(f"{module_name}.{name}")
                paths += [f"{module_name}.{name}.{member}" for member in _members(obj)]
            elif callable(obj):
                paths.append(f"{module_name}.{name}")
    return paths


def _report(path: str, result: dict) -> str:
    errors = "\n".join(f" - {code}: {message}" for code, message in result["errors"])
    return f"\n\n{result['file']}:{result['file_line']}\n{path}\n\n{result['docstring']}\n\n# Errors\n{errors}"


def test_the_checks_are_numpydocs():
    """Every code ignored is one of numpydoc's, so that a typo cannot hide a check."""
    assert set(IGNORED) <= set(numpydoc_validation.ERROR_MSGS)


def test_every_module_offers_an_api():
    """Every module of :data:`MODULES` offers something, and every name of its ``__all__`` exists."""
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        assert public_names(module), module_name
        assert all(hasattr(module, name) for name in getattr(module, "__all__", ())), module_name


@pytest.mark.parametrize("path", public_objects())
def test_docstring(path):
    """The docstring of ``path`` passes numpydoc's checks (all but :data:`IGNORED`)."""
    result = numpydoc_validation.validate(path)
    result["errors"] = [(code, message) for code, message in result["errors"] if code in CHECKED]
    if result["errors"]:
        raise ValueError(_report(path, result))
