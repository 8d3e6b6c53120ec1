"""The call protocol of ``jaxtensor.jit`` is written once, in ``_jit/_protocol.py``: no other
module of the jit layer lends a storage's value, restores one, puts back what a failed call
consumed, compiles a gated program for a call or writes back a call's results, in code or
in code it generates; and every top-level call, whatever its path, runs code made from the
protocol's one template (a change of the template reaches them all)."""

from __future__ import annotations

import ast
import linecache
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import jaxtensor as jt
from jaxtensor._jit import _protocol

JIT = Path(__file__).resolve().parents[2] / "src" / "jaxtensor" / "_jit"

#: the protocol's steps, as methods called (``Storage.lend``/``restore``, ``Unready``'s
#: ``put_back``/``ready``, ``Jitted._finish``)
STEPS = {"lend", "restore", "put_back", "ready", "_finish"}


def _steps_outside(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in STEPS):
            found.append(f"{path.name}:{node.lineno}: .{node.func.attr}(...)")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found += [f"{path.name}:{node.lineno}: generates .{s}(" for s in STEPS
                      if f".{s}(" in node.value]
        elif isinstance(node, ast.FunctionDef) and node.name in ("lock", "unlock"):
            found.append(f"{path.name}:{node.lineno}: def {node.name}")
    return found


def test_only_the_protocol_module_writes_the_protocols_steps() -> None:
    modules = sorted(JIT.glob("*.py"))
    assert JIT / "_protocol.py" in modules and len(modules) > 10
    assert _steps_outside(JIT / "_protocol.py")  # (the check sees the steps where they are)
    outside = [f for p in modules if p.name != "_protocol.py" for f in _steps_outside(p)]
    assert not outside, outside


def _marked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The protocol's template, changed: each call it runs counts itself on the Jitted."""
    step = "    if plan.stale:\n"
    assert _protocol._LOCKED.count(step) == 1
    monkeypatch.setattr(_protocol, "_LOCKED", _protocol._LOCKED.replace(
        step, "    self.protocol_runs += 1\n" + step))
    monkeypatch.setattr(_protocol, "_GENERAL", {})  # (made before the change)


y = jt.zeros(6)

#: a top-level call by each path: (function, arguments of one call with i)
PATHS: dict[str, tuple[Callable, Callable[[Any, int], tuple]]] = {
    # the guard of a plain signature: a plain program, checks decided on the host, checks
    # hoisted in the program, a closed-over Tensor
    "guard unchecked": (jt.jit(lambda x, i: x.__setitem__(i, 1.0), check_bounds=False),
                        lambda x, i: (x, i)),
    "guard host-decided": (lambda x, i: x.__setitem__(i + 1, 1.0), lambda x, i: (x, i)),
    "guard hoisted": (lambda x, i: x.__setitem__(i * i, 1.0), lambda x, i: (x, i)),
    "guard closed-over": (lambda x, i: (y.__setitem__(i, 1.0), x.__setitem__(i, 2.0)),
                          lambda x, i: (x, i)),
    # the general path: a view argument, a keyword argument, a pytree
    "general view": (lambda x, i: x.__setitem__(i, 1.0), lambda x, i: (x[1:], i)),
    "general keyword": (lambda x, i: x.__setitem__(i, 1.0), lambda x, i: (x, i)),
    "general pytree": (lambda d, i: d["x"].__setitem__(i, 1.0),
                       lambda x, i: ({"x": x}, i)),
}


@pytest.mark.parametrize("path", sorted(PATHS))
def test_every_top_level_call_runs_the_one_template(
        path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _marked(monkeypatch)
    fn, args = PATHS[path]
    f = fn if hasattr(fn, "_jaxtensor_jit") else jt.jit(fn)
    state = f._jaxtensor_jit
    state.protocol_runs = 0
    x, want = jt.zeros(5), np.zeros(5)
    for i in (0, 2, 1):
        if path == "general keyword":
            f(x, i=i)
        else:
            f(*args(x, i))
        if f is fn:  # (the unchecked one, made with its option)
            want[i] = 1.0
        else:
            fn(*args(want, i))
    assert state.protocol_runs == 3
    np.testing.assert_array_equal(np.asarray(x), want)


def _fixed_lines(template: str) -> list[str]:
    return [line.strip() for line in template.split("\n")
            if line.strip() and "{" not in line]


def _in_order(lines: list[str], text: str) -> bool:
    it = iter(line.strip() for line in text.split("\n"))
    return all(any(got == want for got in it) for want in lines)


def test_the_generated_code_is_the_template_named_as_a_package_file() -> None:
    """Each generated protocol holds the template's steps in order, and is named as a file
    of the package (its frames leave tracebacks with jaxtensor's own, never ``<string>``)."""
    for _, (fn, args) in sorted(PATHS.items()):
        f = fn if hasattr(fn, "_jaxtensor_jit") else jt.jit(fn)
        x = jt.zeros(5)
        for i in (0, 2):
            f(*args(x, i))
    made = {name: "".join(entry[2]) for name, entry in list(linecache.cache.items())
            if name.startswith(str(JIT) + "/<")}
    kinds = {name.split("/<")[1].split(" ")[0] for name in made}
    assert {"guard", "call", "coded"} <= kinds, sorted(made)
    locked = _fixed_lines(_protocol._LOCKED)
    run = [line for line in _fixed_lines(_protocol._RUN) if line != "else:"]
    assert len(locked) > 8 and len(run) == 2
    for name, text in made.items():
        if "def guard" in text or "def protocol" in text:
            assert _in_order(locked, text), (name, text)
        if "coded" in name.split("/<")[1]:
            assert _in_order(run, text), (name, text)
