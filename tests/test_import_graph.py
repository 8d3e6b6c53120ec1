"""The import graph of ``src/jaxtensor``: no cycles, and the Tensor core below the namespace.

Every module of the package is parsed with :mod:`ast` (nothing is imported). An import at
module level (including class bodies, ``try`` blocks and the like) runs when the module is
imported and is an edge of the graph; an import inside a function runs when it is called
and is listed apart; an import under ``if TYPE_CHECKING:`` never runs and is left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "src" / "jaxtensor"
MODULES = {p.stem for p in PKG.glob("*.py")}

# Imports inside functions, each with the reason it cannot be at module level.
LAZY_ALLOWED = {
    ("_methods", "__init__"): "Tensor.__array_namespace__ returns the package, which imports "
                              "_methods while it is being built",
}

# The modules the Tensor class may build on: storage, views, kernels, dtypes, configuration.
TENSOR_FLOOR = {"_cache", "_config", "_context", "_dtypes", "_kernels", "_storage", "_view"}


def _targets(node: ast.Import | ast.ImportFrom) -> set[str]:
    """The package modules an import statement loads (``__init__`` for the package)."""
    out: set[str] = set()
    if isinstance(node, ast.ImportFrom):
        if node.level == 1 or (node.level == 0 and (node.module or "").split(".")[0]
                               == "jaxtensor"):
            parts = (node.module or "").split(".")
            mod = parts[0] if node.level == 1 else (parts[1] if len(parts) > 1 else "")
            if mod:
                out.add(mod)
            else:  # from . import a, b: modules, or names of the package itself
                out |= {a.name if a.name in MODULES else "__init__" for a in node.names}
    else:
        for alias in node.names:
            parts = alias.name.split(".")
            if parts[0] == "jaxtensor":
                out.add(parts[1] if len(parts) > 1 else "__init__")
    return out & MODULES


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def _imports(source: str) -> tuple[set[str], set[str]]:
    """(modules imported at module level, modules imported inside functions)."""
    top: set[str] = set()
    lazy: set[str] = set()

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for sub in child.orelse:  # the ``else`` branch runs
                    visit(ast.Module(body=[sub], type_ignores=[]), in_function)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                (lazy if in_function else top).update(_targets(child))
            visit(child, in_function or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(ast.parse(source), False)
    return top, lazy


def _graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    top: dict[str, set[str]] = {}
    lazy: dict[str, set[str]] = {}
    for m in sorted(MODULES):
        top[m], lazy[m] = _imports((PKG / f"{m}.py").read_text(encoding="utf-8"))
        top[m].discard(m)
    return top, lazy


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` as a path ``[a, b, ..., a]``, or ``None`` if it has none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def dfs(n: str) -> list[str] | None:
        state[n] = 1
        path.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return path[path.index(m):] + [m]
            if m not in state and (found := dfs(m)):
                return found
        path.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (found := dfs(n)):
            return found
    return None


def _closure(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for m in graph.get(todo.pop(), ()):
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return seen


def _namespace_modules() -> set[str]:
    """The modules ``__init__`` takes the namespace from, the public submodules, and the
    modules above them (the method table, the package)."""
    tree = ast.parse((PKG / "__init__.py").read_text(encoding="utf-8"))
    star = {n.module for n in tree.body if isinstance(n, ast.ImportFrom) and n.module
            and any(a.name == "*" for a in n.names)}
    return star | {"fft", "linalg", "_methods", "__init__"}


def test_no_cycle_among_module_level_imports() -> None:
    top, _ = _graph()
    cycle = find_cycle(top)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_function_level_imports_are_the_documented_ones() -> None:
    _, lazy = _graph()
    found = {(m, t) for m, ts in lazy.items() for t in ts if t != m}
    unexplained = sorted(found - set(LAZY_ALLOWED))
    assert not unexplained, (
        f"imports inside functions {unexplained}: move them to module level (or, if truly "
        "unavoidable, say why here and in a comment at the import)")


def test_tensor_imports_nothing_above_it() -> None:
    top, lazy = _graph()
    assert top["_tensor"] | lazy["_tensor"] <= TENSOR_FLOOR, (
        f"_tensor imports {sorted((top['_tensor'] | lazy['_tensor']) - TENSOR_FLOOR)}")
    above = _closure(top, "_tensor") & _namespace_modules()
    assert not above, f"_tensor depends on the namespace modules {sorted(above)}"


@pytest.mark.parametrize("graph,cyclic", [
    ({"a": {"b"}, "b": {"c"}, "c": set()}, False),
    ({"a": {"b", "c"}, "b": {"c"}, "c": set()}, False),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, True),
    ({"a": {"a"}}, True),
    ({"a": set(), "b": {"c"}, "c": {"d"}, "d": {"b"}}, True),
])
def test_find_cycle_finds_cycles(graph: dict[str, set[str]], cyclic: bool) -> None:
    cycle = find_cycle(graph)
    assert (cycle is not None) == cyclic
    if cycle:
        assert cycle[0] == cycle[-1]
        assert all(b in graph[a] for a, b in zip(cycle, cycle[1:]))


def test_parser_sees_each_kind_of_import() -> None:
    top, lazy = _imports(
        "from typing import TYPE_CHECKING\n"
        "from . import _view, clear_caches\n"
        "from ._tensor import Tensor\n"
        "import jaxtensor.fft\n"
        "if TYPE_CHECKING:\n"
        "    from ._storage import Storage\n"
        "class C:\n"
        "    from ._dtypes import promote\n"
        "def f():\n"
        "    import jaxtensor\n"
        "    from .linalg import solve\n"
    )
    assert top == {"_view", "__init__", "_tensor", "fft", "_dtypes"}
    assert lazy == {"__init__", "linalg"}
