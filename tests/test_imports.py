"""Dependencies point one way, down the layers of the package, and form no cycle.

The layers, from the bottom up (a module's layer is its subpackage of ``locproj``):

``foundation``  ``locproj`` itself and :mod:`locproj.errors` (the user errors every layer raises);
``core``        graphs, the solver and its linear algebra, the 1-NN evaluation, atomic I/O;
``methods``     the estimators;
``data``        fetching, reading, preparing and splitting datasets;
``engine``      the registry and own methods, neighbour counts, model selection, result files,
                job costs, failures, the config helpers;
``report``      table and figure writers, error tables, fidelity, comparison;
``protocols``   one module per protocol, with :data:`locproj.protocols.PROTOCOLS`;
``runner``      the experiment runner (:mod:`locproj.experiments`) and the workflow glue
                (:mod:`locproj.workflow`);
``script``      the thin Snakemake scripts under ``workflow/scripts``.

A module may import from its own layer or a lower one, never from a higher one, and the imports
within the project form no cycle. Every import counts, also one inside a function: it is a
dependency all the same.
"""

from __future__ import annotations

import ast
from pathlib import Path

from locproj.engine import code_digests

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("foundation", "core", "methods", "data", "engine", "report", "protocols", "runner", "script")
TOP_MODULES = {"locproj": "foundation", "locproj.errors": "foundation",
               "locproj.experiments": "runner", "locproj.workflow": "runner"}
MAX_TOP_MODULES = 6


def layer(module: str) -> str:
    if module.startswith("workflow.scripts."):
        return "script"
    if module in TOP_MODULES:
        return TOP_MODULES[module]
    package = module.split(".")[1]
    if package not in LAYERS:
        raise AssertionError(f"{module} is in no layer: add it to a subpackage named in LAYERS")
    return package


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
    """The project modules that ``module`` imports anywhere in ``source`` (what a job's code digest
    follows too: :func:`locproj.engine.code_digests.imported_modules`)."""
    is_package = any(name.startswith(module + ".") for name in known)
    return code_digests.imported_modules(module, ast.parse(source), known, is_package)


def import_graph(sources: dict[str, str]) -> dict[str, set[str]]:
    return {module: imported_modules(module, source, sources) for module, source in sources.items()}


def upward_imports(graph) -> list[str]:
    """``a -> b`` for every import against the direction of the layers."""
    rank = {name: i for i, name in enumerate(LAYERS)}
    return [f"{a} ({layer(a)}) -> {b} ({layer(b)})" for a, targets in sorted(graph.items())
            for b in sorted(targets) if rank[layer(b)] > rank[layer(a)]]


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


def test_the_runner_reaches_the_protocols_only_through_their_registry():
    graph = import_graph(project_sources())
    assert {m for m in graph["locproj.experiments"] if layer(m) == "protocols"} == {"locproj.protocols"}


def test_every_module_is_in_a_named_layer_and_few_stay_at_the_top():
    package = ROOT / "src" / "locproj"
    top = sorted(path.stem for path in package.glob("*.py"))
    assert len(top) <= MAX_TOP_MODULES, top
    assert {f"locproj.{name}" for name in top} - {"locproj.__init__"} <= set(TOP_MODULES), top
    subpackages = {path.parent.name for path in package.glob("*/__init__.py")}
    assert subpackages == set(LAYERS) - {"foundation", "runner", "script"}
    for module in project_sources():
        assert layer(module) in LAYERS


def test_a_back_import_is_caught():
    """The check fails on a deliberately added back-import: a protocol importing the runner, and a
    report module importing a protocol."""
    sources = project_sources()
    back = {**sources, "locproj.protocols.cv_table": sources["locproj.protocols.cv_table"]
            + "\n\ndef _late():\n    from ..experiments import check_experiments\n"}
    assert upward_imports(import_graph(back)) == [
        "locproj.protocols.cv_table (protocols) -> locproj.experiments (runner)"]
    down = {**sources, "locproj.report.writers": sources["locproj.report.writers"]
            + "\nfrom locproj.protocols import ranks\n"}
    assert upward_imports(import_graph(down)) == [
        "locproj.report.writers (report) -> locproj.protocols.ranks (protocols)"]


def test_a_cycle_within_a_layer_is_caught():
    sources = project_sources()
    looped = {**sources,
              "locproj.engine.config": sources["locproj.engine.config"] + "\nfrom .results import read_result\n",
              "locproj.engine.results": sources["locproj.engine.results"] + "\nfrom .config import data_notes\n"}
    assert upward_imports(import_graph(looped)) == []
    assert ["locproj.engine.config", "locproj.engine.results", "locproj.engine.config"] in cycles(import_graph(looped))


def _absolute(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")[: len(module.split(".")) - node.level + is_package]
    return ".".join(base + ([node.module] if node.module else []))


def _owner(dotted: str) -> str | None:
    """The package that owns the first private part (``_name``) of ``dotted``, or None: ``locproj.core``
    for ``locproj.core._dense.at_a`` or ``locproj.core.solvers._clusters``."""
    parts = dotted.split(".")
    private = next((i for i, part in enumerate(parts) if part.startswith("_") and not part.startswith("__")), None)
    return None if private is None else ".".join(parts[: min(private, 2)])


def private_crossings(sources: dict[str, str]) -> list[str]:
    """``importer -> name`` for every private module or name imported from outside its package."""
    found = []
    for module, source in sorted(sources.items()):
        is_package = any(name.startswith(module + ".") for name in sources)
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom):
                base = _absolute(module, node, is_package)
                names = [f"{base}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                owner = _owner(name)
                if name.startswith("locproj") and owner and not (module + ".").startswith(owner + "."):
                    found.append(f"{module} -> {name}")
    return found


def test_no_private_module_or_name_crosses_a_package():
    assert private_crossings(project_sources()) == []


def test_a_private_crossing_is_caught():
    sources = project_sources()
    crossed = {**sources, "locproj.methods.lfda": sources["locproj.methods.lfda"]
               + "\nfrom ..core._dense import at_a\nfrom ..core.solvers import _clusters\n",
               "locproj.core.solvers": sources["locproj.core.solvers"] + "\nfrom ._dense import at_b\n"}
    assert private_crossings(crossed) == ["locproj.methods.lfda -> locproj.core._dense.at_a",
                                          "locproj.methods.lfda -> locproj.core.solvers._clusters"]


MAX_FUNCTION_LINES = 80


def code_lines(function: ast.FunctionDef) -> int:
    """A function's lines without its docstring (a numpydoc docstring lists every parameter)."""
    first = function.body[0]
    docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
        first.value.value, str)
    return function.end_lineno - function.lineno + 1 - (first.end_lineno - first.lineno + 1 if docstring else 0)


def test_no_function_is_longer_than_80_lines():
    long = [f"{module}.{node.name}: {code_lines(node)} lines"
            for module, source in sorted(project_sources().items()) for node in ast.walk(ast.parse(source))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and code_lines(node) > MAX_FUNCTION_LINES]
    assert long == []
    assert code_lines(ast.parse('def f():\n    """doc\n    more"""\n    return 1\n').body[0]) == 2
