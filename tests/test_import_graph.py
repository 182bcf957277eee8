"""The project's import graph read from the source, function-local imports included.

tests/test_layers.py imports modules and watches what gets loaded: it cannot see an
import that sits inside a function until that function runs. This file reads every
``import`` statement (those under ``if TYPE_CHECKING:`` excepted: they never run), so
a lazy import that points the wrong way or closes a cycle is found without running it.
Why no cycles: a cycle makes the import order matter, and hiding one edge of it inside
a function (the usual escape) only moves the failure to the first call."""

from __future__ import annotations

import ast
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "exercises", "tui")
LAYERS = {"engine": set(), "exercises": {"engine"}, "tui": {"engine", "exercises"}}  # what each may import


def project_modules(root: Path = ROOT) -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _owner(name: str, modules: dict[str, Path]) -> str | None:
    """The project module a dotted name lives in (``a.b.C`` -> ``a.b``), or None."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str, source: str, modules: dict[str, Path], package: bool = False) -> set[str]:
    """The project modules ``source`` imports anywhere but under ``if TYPE_CHECKING:``."""
    tree = ast.parse(source)
    skipped = {
        id(node)
        for branch in ast.walk(tree)
        if isinstance(branch, ast.If) and "TYPE_CHECKING" in ast.unparse(branch.test)
        for node in ast.walk(branch)
    }
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".") if package else module.split(".")[:-1]
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            names = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        found |= {owner for name in names if (owner := _owner(name, modules))}
    found.discard(module)
    return found


def graph(root: Path = ROOT) -> dict[str, set[str]]:
    modules = project_modules(root)
    return {
        name: imports_of(name, path.read_text(encoding="utf-8"), modules, path.name == "__init__.py")
        for name, path in modules.items()
    }


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm,
    iterative: the graph has hundreds of modules)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_reader_sees_lazy_and_relative_imports():
    modules = {"tui.app": Path(), "tui.screens.help": Path(), "tui.screens": Path(), "engine.masks": Path()}
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from tui.app import TutorApp\n"
        "def f():\n    from engine.masks import causal\n"
        "from .help import HelpScreen\n"
    )
    assert imports_of("tui.screens.lesson", source, modules) == {"engine.masks", "tui.screens.help"}


def test_the_cycle_finder_finds_cycles():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


@given(st.dictionaries(st.sampled_from("abcdef"), st.sets(st.sampled_from("abcdef")), min_size=1))
def test_the_cycle_finder_agrees_with_reachability(edges):
    """Two modules share a component exactly when each reaches the other."""
    nodes = set(edges) | {n for targets in edges.values() for n in targets}
    edges = {node: edges.get(node, set()) for node in nodes}

    def reach(start):
        seen, todo = set(), [start]
        while todo:
            for nxt in edges[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    reachable = {node: reach(node) for node in nodes}
    together = {frozenset(c) for c in cycles(edges)}
    for a in nodes:
        for b in nodes:
            if a != b:
                mutual = b in reachable[a] and a in reachable[b]
                assert mutual == any({a, b} <= c for c in together)


def test_the_graph_covers_the_project():
    edges = graph()
    assert {"tui.app", "exercises.catalogue", "engine.masks"} <= set(edges)
    assert "tui.screens.help" in edges["tui.app"]  # a function-local import, seen


def test_no_import_cycles():
    assert cycles(graph()) == []


def test_layers_hold_for_lazy_imports_too():
    wrong = sorted(
        f"{module} -> {target}"
        for module, targets in graph().items()
        for target in targets
        if target.split(".")[0] != module.split(".")[0]
        and target.split(".")[0] not in LAYERS[module.split(".")[0]]
    )
    assert wrong == []
