"""Dependencies point one way: scripts -> engine -> protocols -> library, and no import cycles.

The layers: the Snakemake scripts (``workflow/scripts``) call the engine
(:mod:`locproj.experiments`), which calls the protocols (:mod:`locproj.protocols` and its
modules), which call the library (every other module of ``locproj``: config helpers, reporting,
selection, evaluation, registry, data, methods, I/O). A module may import from its own layer or a
lower one, never from a higher one, and the imports within ``locproj`` form no cycle. Every
import counts, also one inside a function: it is a dependency all the same.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = {"script": 3, "engine": 2, "protocol": 1, "library": 0}


def layer(module: str) -> str:
    if module.startswith("workflow.scripts."):
        return "script"
    if module == "locproj.experiments":
        return "engine"
    if module == "locproj.protocols" or module.startswith("locproj.protocols."):
        return "protocol"
    return "library"


def project_sources() -> dict[str, str]:
    """Module name -> source, for ``src/locproj`` and ``workflow/scripts``."""
    sources = {}
    for path in sorted((ROOT / "src" / "locproj").rglob("*.py")):
        parts = path.relative_to(ROOT / "src").with_suffix("").parts
        sources[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path.read_text()
    for path in sorted((ROOT / "workflow" / "scripts").glob("*.py")):
        sources[f"workflow.scripts.{path.stem}"] = path.read_text()
    return sources


def imported_modules(module: str, source: str, known) -> set[str]:
    """The project modules that ``module`` imports anywhere in ``source`` (the most specific
    known module of each import: ``from .x import f`` -> ``pkg.x``, ``from . import y`` -> ``pkg.y``)."""
    is_package = any(name.startswith(module + ".") for name in known)
    package = module if is_package else module.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(source)):
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
                found.add(target)
                break
    return found


def import_graph(sources: dict[str, str]) -> dict[str, set[str]]:
    return {module: imported_modules(module, source, sources) for module, source in sources.items()}


def upward_imports(graph) -> list[str]:
    """``a -> b`` for every import against the direction of the layers."""
    return [f"{a} ({layer(a)}) -> {b} ({layer(b)})" for a, targets in sorted(graph.items())
            for b in sorted(targets) if LAYERS[layer(b)] > LAYERS[layer(a)]]


def cycles(graph) -> list[list[str]]:
    """One cycle (a list of modules, first = last) per strongly connected group of modules."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group) + [sorted(group)[0]])

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_project_imports_one_way_without_cycles():
    graph = import_graph(project_sources())
    assert "locproj.experiments" in graph and "locproj.protocols.cv_table" in graph
    assert upward_imports(graph) == []
    assert cycles(graph) == []


def test_the_engine_reaches_the_protocols_only_through_their_registry():
    graph = import_graph(project_sources())
    assert {m for m in graph["locproj.experiments"] if layer(m) == "protocol"} == {"locproj.protocols"}


def test_a_back_import_is_caught():
    """The check fails on a deliberately added back-import: a protocol importing the engine (as
    protocols once imported ``write_metadata`` from it), and a library module importing a protocol."""
    sources = project_sources()
    back = {**sources, "locproj.protocols.cv_table": sources["locproj.protocols.cv_table"]
            + "\n\ndef _late():\n    from ..experiments import check_experiments\n"}
    assert upward_imports(import_graph(back)) == [
        "locproj.protocols.cv_table (protocol) -> locproj.experiments (engine)"]
    down = {**sources, "locproj.report.writers": sources["locproj.report.writers"]
            + "\nfrom locproj.protocols import ranks\n"}
    assert upward_imports(import_graph(down)) == [
        "locproj.report.writers (library) -> locproj.protocols.ranks (protocol)"]


def test_a_cycle_within_a_layer_is_caught():
    sources = project_sources()
    looped = {**sources,
              "locproj.engine.config": sources["locproj.engine.config"] + "\nfrom ..report.writers import DAGGER\n",
              "locproj.report.writers": sources["locproj.report.writers"]
              + "\nfrom ..engine.config import data_notes\n"}
    assert upward_imports(import_graph(looped)) == []
    assert ["locproj.engine.config", "locproj.report.writers", "locproj.engine.config"] in cycles(import_graph(looped))
