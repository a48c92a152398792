"""The documentation of the methods follows the registry: the blocks tools/method_docs.py writes (the
registry's table, the library's table of estimators, the API reference's classes) are committed as
it writes them, ``locproj.methods`` exports exactly the classes of the registry, and every class the
table of methods (docs/methods.md) names is one of them."""

from __future__ import annotations

import dataclasses
import importlib.util
import re
import sys
from pathlib import Path

import pytest

import locproj.methods
from locproj.engine import registry

ROOT = Path(__file__).resolve().parents[1]
SPEC = importlib.util.spec_from_file_location("method_docs", ROOT / "tools" / "method_docs.py")
method_docs = sys.modules["method_docs"] = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(method_docs)


def registry_classes() -> dict[str, type]:
    """name -> class of every class of ``locproj.methods`` that a registry entry builds."""
    classes = map(method_docs.estimator_class, registry.METHODS.values())
    return {cls.__name__: cls for cls in classes if method_docs.is_locproj(cls)}


@pytest.mark.parametrize("relative", sorted(method_docs.BLOCKS))
def test_the_committed_docs_are_what_the_generator_writes(relative):
    assert (ROOT / relative).read_text(encoding="utf-8") == method_docs.generated(relative), (
        f"{relative} is out of date: run python tools/method_docs.py")


def test_a_new_entry_makes_its_tables_stale_until_the_generator_runs(monkeypatch):
    """A new entry of a class already documented (as ``lle`` beside ``slle``): a row in each table, the
    API reference as it was."""
    monkeypatch.setitem(registry.METHODS, "toy", dataclasses.replace(registry.METHODS["lpp"], name="toy"))
    for relative in ("docs/methods.md", "docs/library.md"):
        assert method_docs.generated(relative) != (ROOT / relative).read_text(encoding="utf-8"), relative
    assert "| `toy` | `LocalityPreservingProjection` | yes |" in method_docs.generated("docs/methods.md")
    assert method_docs.generated("docs/api/methods.md") == (ROOT / "docs/api/methods.md").read_text(encoding="utf-8")


def test_a_file_without_its_markers_is_refused():
    with pytest.raises(SystemExit, match="docs/x.md: no block between the lines"):
        method_docs.with_block("# x\n", ["| a |"], "docs/x.md")


def test_the_package_exports_exactly_the_classes_of_the_registry():
    assert sorted(locproj.methods.__all__) == sorted(registry_classes())
    for name, cls in registry_classes().items():
        assert getattr(locproj.methods, name) is cls, name


def test_every_class_the_table_of_methods_names_is_in_the_registry():
    text = (ROOT / "docs" / "methods.md").read_text(encoding="utf-8")
    table = text.split("| method (class) |", 1)[1].split("\n\n", 1)[0]
    named = {name for row in table.splitlines()[2:] for name in re.findall(r"`(\w+)`", row.split("|")[1])}
    assert named and named <= set(registry_classes()), sorted(named - set(registry_classes()))


def test_every_estimator_module_opens_with_the_method_and_its_source():
    """The first paragraph of each method module's docstring is one line of the library's table: a
    sentence, no reStructuredText role."""
    for name, spec in registry.METHODS.items():
        text = method_docs.method_text(spec)
        assert text.endswith(".") and ":mod:" not in text and len(text) < 160, (name, text)
