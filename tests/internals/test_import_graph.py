"""The import graph of ``src/jaxtensor``: no cycles, and the Tensor core below the namespace.

Every module of the package is parsed with :mod:`ast` (nothing is imported). An import at
module level (including class bodies, ``try`` blocks and the like) runs when the module is
imported and is an edge of the graph; an import inside a function runs when it is called
and is listed apart; an import under ``if TYPE_CHECKING:`` never runs and is left out.
JAX's private modules are named by one module only, ``_core/_jax_private.py``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "src" / "jaxtensor"


def _module_name(path: Path) -> str:
    """``_core._storage`` for ``src/jaxtensor/_core/_storage.py``; a package's
    ``__init__.py`` is the package itself (``_core``; the top package is ``__init__``)."""
    parts = list(path.relative_to(PKG).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) or "__init__"


MODULES = {_module_name(p): p for p in PKG.rglob("*.py")}
SUBPACKAGES = {m for m, p in MODULES.items() if p.name == "__init__.py" and m != "__init__"}

# Imports inside functions, each with the reason it cannot be at module level.
LAZY_ALLOWED = {
    ("_methods", "__init__"): "Tensor.__array_namespace__ returns the package, which imports "
                              "_methods while it is being built",
}

#: The layers, bottom up, and what each may never import (besides itself and what is below).
LAYERS = {
    "_core": "storage, views, the Tensor class, kernels, caches, dtypes, settings",
    "_indexing": "index plans, views from basic keys, gathers/scatters, assigned values",
    "_jit": "jaxtensor.jit, its traces, grad/vmap and compiled loops",
}
MAX_LEVELS = 9


def _layer(mod: str) -> str:
    """The layer of a module: a subpackage's name, else ``namespace`` (the flat modules,
    ``fft``, ``linalg`` and the package itself)."""
    head = mod.split(".")[0]
    return head if head in SUBPACKAGES else "namespace"


def _package_of(mod: str) -> list[str]:
    """The package a module lives in, as parts (``[]`` for the top package)."""
    path = MODULES[mod]
    parts = list(path.relative_to(PKG).parent.parts)
    return parts


def _resolve(parts: list[str]) -> str | None:
    name = ".".join(parts) or "__init__"
    return name if name in MODULES else None


def _init_exports(pkg: str) -> dict[str, str]:
    """What a subpackage's curated ``__init__`` re-exports: name -> the module defining it
    (``*`` for a star import)."""
    out: dict[str, str] = {}
    for node in ast.parse(MODULES[pkg].read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            src = f"{pkg}.{node.module}" if node.module else None
            for a in node.names:
                if src is None:  # from . import _x
                    out[a.asname or a.name] = f"{pkg}.{a.name}"
                else:
                    out[a.asname or a.name] = src
    return out


def _targets(node: ast.Import | ast.ImportFrom, mod: str) -> set[str]:
    """The package modules an import statement in ``mod`` depends on. A name taken from a
    subpackage's curated ``__init__`` counts as an import of the module that defines it
    (the init only re-exports); a parent package that Python loads on the way is no
    dependency of the importing module."""
    out: set[str] = set()
    if isinstance(node, ast.ImportFrom):
        if node.level:
            base = _package_of(mod)
            if node.level > 1:
                base = base[: len(base) - (node.level - 1)]
        elif (node.module or "").split(".")[0] == "jaxtensor":
            base = []
        else:
            return out
        mparts = [p for p in (node.module or "").split(".") if p]
        if not node.level:
            mparts = mparts[1:]
        target = _resolve(base + mparts)
        for a in node.names:
            sub = _resolve(base + mparts + [a.name])
            if sub is not None:  # a submodule
                out.add(sub)
            elif target in SUBPACKAGES and target != _module_name(MODULES[mod]).rsplit(
                    ".", 1)[0]:
                exports = _init_exports(target)
                out.add(exports.get(a.name, exports.get("*", target)))
            elif target is not None:
                out.add(target)
    else:
        for alias in node.names:
            parts = alias.name.split(".")
            if parts[0] == "jaxtensor":
                m = _resolve(parts[1:])
                if m is not None:
                    out.add(m)
    return out


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def _imports(source: str, mod: str = "__init__") -> tuple[set[str], set[str]]:
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
                (lazy if in_function else top).update(_targets(child, mod))
            visit(child, in_function or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(ast.parse(source), False)
    return top, lazy


def _graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    top: dict[str, set[str]] = {}
    lazy: dict[str, set[str]] = {}
    for m in sorted(MODULES):
        top[m], lazy[m] = _imports(MODULES[m].read_text(encoding="utf-8"), m)
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


def levels(graph: dict[str, set[str]]) -> dict[str, int]:
    """Each module's import level: 1 for a module importing no package module, else one
    more than the highest level it imports (the graph has no cycle)."""
    out: dict[str, int] = {}

    def level(n: str) -> int:
        if n not in out:
            out[n] = 1 + max((level(m) for m in graph.get(n, ())), default=0)
        return out[n]

    for n in graph:
        level(n)
    return out


#: The one module that names JAX's private modules.
JAX_PRIVATE = "_core._jax_private"
_PRIVATE_JAX_TEXT = re.compile(r"\bjax\._src\b|\bjax\.interpreters\b|\bjaxlib\b")


def _is_private_jax(module: str) -> bool:
    return module.split(".")[0] == "jaxlib" or module.startswith(("jax._src", "jax.interpreters"))


def private_jax_mentions(source: str) -> list[str]:
    """Where ``source`` names JAX's private modules (``jax._src``, ``jax.interpreters``,
    ``jaxlib``): an import of one however spelled (``from jax import _src``), or any text
    naming one (code, strings, docstrings, comments)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        found += [f"line {node.lineno}: import {n}" for n in names if _is_private_jax(n)]
    found += [f"line {n}: {line.strip()}" for n, line in enumerate(source.splitlines(), 1)
              if _PRIVATE_JAX_TEXT.search(line)]
    return found


def test_only_jax_private_names_jax_internals() -> None:
    """Every private JAX name is imported in ``_core/_jax_private.py``, fenced there; no
    other module mentions JAX's private modules."""
    bad = {m: found for m, p in MODULES.items() if m != JAX_PRIVATE
           and (found := private_jax_mentions(p.read_text(encoding="utf-8")))}
    assert not bad, f"import these from {JAX_PRIVATE} instead: {bad}"
    assert private_jax_mentions(MODULES[JAX_PRIVATE].read_text(encoding="utf-8"))


@pytest.mark.parametrize("source", [
    "from jax._src import core\n",
    "from jax import _src\n",
    "from jax import interpreters\n",
    "import jax._src.core as c\n",
    "from jax.interpreters.mlir import register_lowering\n",
    "import jaxlib\n",
    "x = jax._src.core.trace_ctx\n",
    'def f():\n    """wraps jax._src.numpy.indexing"""\n',
    "y = 1  # a copy of jaxlib's structs\n",
])
def test_private_jax_mentions_sees_each_spelling(source: str) -> None:
    assert private_jax_mentions(source), source


def test_public_jax_is_no_private_mention() -> None:
    assert private_jax_mentions(
        "import jax\nfrom jax.extend.core import Primitive\nfrom jax import lax\n"
        "x = jax.core.ShapedArray\n# jax.experimental.checkify, jax.ffi\n") == []


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


def test_the_layers_exist() -> None:
    assert set(LAYERS) <= SUBPACKAGES
    for layer in LAYERS:
        assert (PKG / layer / "README.md").is_file(), f"{layer} has no README.md"


@pytest.mark.parametrize("layer,forbidden", [
    ("_core", {"_indexing", "_jit", "namespace"}),
    ("_indexing", {"_jit", "namespace"}),
    ("_jit", {"_indexing", "namespace"}),
])
def test_a_layer_never_imports_above_it(layer: str, forbidden: set[str]) -> None:
    """The core imports nothing of indexing, jit or the namespace; indexing and jit import
    nothing of the namespace (nor of each other), even through a lazy import."""
    top, lazy = _graph()
    bad = sorted((m, t) for m in MODULES if _layer(m) == layer
                 for t in top[m] | lazy[m] if _layer(t) in forbidden)
    assert not bad, f"{layer} imports above itself: {bad}"


def test_no_cycle_among_packages() -> None:
    """With each subpackage as one node (a namespace module stays itself), the graph still
    has no cycle: no subpackage imports a module that imports it back (as ``_elementwise``
    importing its docstrings from ``_docs``, which reads ``_elementwise``, did)."""
    top, _ = _graph()
    def node(m: str) -> str:
        return m.split(".")[0] if _layer(m) != "namespace" else m

    packed: dict[str, set[str]] = {}
    for m, targets in top.items():
        packed.setdefault(node(m), set()).update(node(t) for t in targets)
    for node, targets in packed.items():
        targets.discard(node)
    cycle = find_cycle(packed)
    assert cycle is None, "import cycle between packages: " + " -> ".join(cycle or [])


def test_only_the_package_imports_docs() -> None:
    """``_docs`` sits above the namespace: it reads the namespace's modules, and only the
    package's ``__init__`` imports it (to assemble the docstrings)."""
    top, lazy = _graph()
    bad = sorted((m, t) for m in MODULES if m != "__init__" and _layer(m) != "_docs"
                 for t in top[m] | lazy[m] if _layer(t) == "_docs")
    assert not bad, f"only jaxtensor/__init__.py may import _docs: {bad}"


def test_import_levels() -> None:
    """At most MAX_LEVELS levels among the modules ``import jaxtensor`` loads (the tour,
    ``__main__``, is run, never imported)."""
    top, _ = _graph()
    top.pop("__main__")
    lv = levels(top)
    deepest = max(lv.values())
    assert deepest <= MAX_LEVELS, (
        f"{deepest} import levels (at most {MAX_LEVELS}): "
        + ", ".join(f"{m}={v}" for m, v in sorted(lv.items(), key=lambda kv: -kv[1])[:5]))


def test_tensor_imports_only_the_core() -> None:
    top, lazy = _graph()
    deps = _closure(top, "_core._tensor") | lazy["_core._tensor"]
    assert all(_layer(m) == "_core" for m in deps), sorted(deps)


#: The jit layer's modules bottom up, by concern: each imports only modules before it.
JIT_ORDER = [
    "_jit._check_errors",  # the errors of failed checks, as eager code raises them
    "_jit._spec",        # what a call passes: the call spec and each leaf's description
    "_jit._errors",      # what the user sees: tracebacks, names, warnings, IndexOverflowError
    "_jit._plans",       # a compiled variant and the call it runs for
    "_jit._protocol",    # the call protocol, written once, and the code made from it
    "_jit._shardings",   # in_shardings / out_shardings
    "_jit._hostcheck",   # checks decided on the host
    "_jit._intervals",   # interval arithmetic of the integer scalar primitives
    "_jit._ranges",      # checks that cannot fail: the ranges of loop indices
    "_jit._carry_ranges",  # the ranges of a while_loop's carries, assumed then proved
    "_jit._guard",       # the guard of plain calls: signature checks, then the protocol
    "_jit._reads",       # what an eager loop body reads
    "_jit._probes",      # a repeat eager loop's cheap check of what its bodies read
    "_jit._named",       # what a jaxtensor.jit function names, checked at every call
    "_jit._unfused",     # values XLA:CPU computes once (a loop body's checks)
    "_jit._body_checks",  # a loop body's checks: its gates and carried first failure
    "_jit._check_kinds",  # what each check checks, folded or under checkify
    "_jit._modes",       # the check modes: the enum, the chooser, each mode's behaviour
    "_jit._trace",       # what one trace sees, its checks
    "_jit._pytree",      # arguments and results across the compiled function
    "_jit._batched_loops",  # a trace made again for a loop a vmap batch decides
    "_jit._checks",      # tracing with each check mode
    "_jit._branches",    # cond
    "_jit._loop_trace",  # loops inside a trace: storages carried through the XLA loop
    "_jit._jit",         # jit: the entry, plans, the call
    "_jit._elements",    # element reads lent to a top-level loop as their sources
    "_jit._loops",       # fori_loop, while_loop
    "_jit._transforms",  # grad, vmap, ...
    "_jit",              # the layer's curated exports
]

#: The most lines a module may have (a newcomer reads one concern at a time).
MAX_MODULE_LINES = 650


def test_the_jit_layer_is_ordered_by_concern() -> None:
    """Every module of ``_jit`` is listed in JIT_ORDER, and imports (at module level or
    inside a function) only modules listed before it."""
    top, lazy = _graph()
    jit_modules = {m for m in MODULES if _layer(m) == "_jit"}
    assert jit_modules == set(JIT_ORDER), "list each _jit module in JIT_ORDER"
    rank = {m: j for j, m in enumerate(JIT_ORDER)}
    bad = sorted((m, t) for m in JIT_ORDER for t in top[m] | lazy[m]
                 if t in rank and t != m and rank[t] > rank[m])
    assert not bad, f"_jit modules importing a module above them in JIT_ORDER: {bad}"


def test_modules_are_at_most_max_module_lines() -> None:
    long = {m: n for m, p in MODULES.items()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert not long, f"modules over {MAX_MODULE_LINES} lines (split them by concern): {long}"


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
        "from . import _core, clear_caches\n"
        "from ._core import _view, Tensor\n"
        "from ._indexing._plan import Plan\n"
        "import jaxtensor.fft\n"
        "if TYPE_CHECKING:\n"
        "    from ._core._storage import Storage\n"
        "class C:\n"
        "    from ._info import API_VERSION\n"
        "def f():\n"
        "    import jaxtensor\n"
        "    from .linalg import solve\n",
        "__init__",
    )
    # names from a curated init count as imports of the modules defining them
    assert top == {"_core", "__init__", "_core._view", "_core._tensor", "_indexing._plan",
                   "fft", "_info"}
    assert lazy == {"__init__", "linalg"}
    top, _ = _imports("from .._core import Tensor, _kernels\nfrom . import _plan\n",
                      "_indexing._getset")
    assert top == {"_core._tensor", "_core._kernels", "_indexing._plan"}
