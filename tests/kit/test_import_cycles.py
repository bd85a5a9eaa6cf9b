"""No import cycle in ``pytest_toolconformance`` or ``reference_host``.

Every import counts: module level, inside functions and under ``if TYPE_CHECKING:``, since a late
or type-only import that closes a cycle hides the cycle rather than removing it. Relative imports
are resolved against the importing module's package. ``from pkg import name`` is an edge to
``pkg.name`` when that is a module and to ``pkg`` otherwise; importing a submodule is not
counted as importing its parent packages (every sibling import would then be a cycle through the
package ``__init__``), so a submodule that imports its own package's ``__init__`` does count.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

from tests.paths import REPO

PACKAGES = ("pytest_toolconformance", "reference_host")

Graph = dict[str, set[str]]


def modules_under(base: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Every module of ``packages`` below ``base``, by dotted name (a package by its ``__init__``)."""
    found: dict[str, Path] = {}
    for package in packages:
        for path in sorted((base / package).rglob("*.py")):
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def import_graph(modules: Mapping[str, Path]) -> Graph:
    """Edges from each module to the modules of ``modules`` it imports, anywhere in its source."""
    graph: Graph = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text("utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                source = _absolute(node, name, is_package)
                submodules = [f"{source}.{alias.name}" for alias in node.names]
                # ``from pkg import mod`` needs only ``mod``; a name that is no module is ``pkg``'s own.
                targets = [m for m in submodules if m in modules]
                if len(targets) < len(submodules):
                    targets.append(source)
            for target in targets:
                if target in modules and target != name:
                    graph[name].add(target)
    return graph


def find_cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """One concrete cycle (``[a, b, ..., a]``) per strongly connected component that has one,
    followed by the cycles through the component's other members."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []
    counter = 0

    def connect(start: str) -> None:  # Tarjan, iterative so deep graphs cannot hit the recursion limit
        nonlocal counter
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(component)

    for node in sorted(graph):
        if node not in index:
            connect(node)
    cycles: list[list[str]] = []
    for component in components:
        covered: set[str] = set()
        for member in sorted(component):
            if member not in covered:
                cycle = _cycle_in(graph, component, member)
                covered.update(cycle)
                cycles.append(cycle)
    return cycles


def _cycle_in(graph: Mapping[str, set[str]], component: set[str], start: str) -> list[str]:
    """A shortest cycle through ``start`` inside its component, by breadth-first search."""
    parents: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for node in frontier:
            for child in sorted(graph.get(node, ()) & component):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(parents[path[-1]])
                    return [start, *reversed(path[:-1]), start] if len(path) > 1 else [start, node, start]
                if child not in parents:
                    parents[child] = node
                    nxt.append(child)
        frontier = nxt
    raise AssertionError(f"no cycle in the component {sorted(component)}")


def describe(cycles: list[list[str]]) -> str:
    return "\n".join("import cycle: " + " -> ".join(cycle) for cycle in cycles)


def test_no_import_cycle_in_the_kit_or_the_reference_host() -> None:
    modules = modules_under(REPO, PACKAGES)
    assert "reference_host.sandbox" in modules and "pytest_toolconformance.plugin" in modules
    cycles = find_cycles(import_graph(modules))
    assert not cycles, describe(cycles)


# ------------------------------------------------------------------ the detector can fail


def _write(base: Path, files: Mapping[str, str]) -> None:
    for rel, text in files.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")


@pytest.mark.parametrize(
    "b_source",
    [
        pytest.param("from . import a\n", id="relative-module-level"),
        pytest.param("def f():\n    from .a import thing\n", id="inside-a-function"),
        pytest.param(
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import A\n", id="type-checking"
        ),
        pytest.param("import pkg.a\n", id="plain-import"),
        pytest.param("from .. import top\n", id="two-levels-up"),
    ],
)
def test_a_cycle_is_found_and_printed(tmp_path: Path, b_source: str) -> None:
    top_import = "from .sub import b\n" if "top" in b_source else ""
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "from .sub import b\n",
        "pkg/top.py": top_import,
        "pkg/sub/__init__.py": "",
        "pkg/sub/b.py": b_source.replace("from . import a", "from .. import a").replace(
            "from .a import", "from ..a import"),
    })  # fmt: skip
    graph = import_graph(modules_under(tmp_path, ["pkg"]))
    cycles = find_cycles(graph)
    assert len(cycles) == 1, graph
    text = describe(cycles)
    assert "pkg.sub.b" in text and text.count(" -> ") >= 2, text
    assert cycles[0][0] == cycles[0][-1]


def test_a_dag_has_no_cycle(tmp_path: Path) -> None:
    _write(
        tmp_path, {"pkg/__init__.py": "from .a import x\n", "pkg/a.py": "from .b import y\n", "pkg/b.py": "import os\n"}
    )
    assert find_cycles(import_graph(modules_under(tmp_path, ["pkg"]))) == []


def test_every_cycle_of_a_component_is_reported() -> None:
    graph: Graph = {"x": {"y"}, "y": {"x", "z"}, "z": {"y"}}
    assert find_cycles(graph) == [["x", "y", "x"], ["z", "y", "z"]]
