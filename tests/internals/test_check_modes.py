"""The bounds-check modes are one enum chosen in one function (``_jit/_modes.py``): nothing
else compares a mode with a member, the ``Trace`` check methods hold no ladder, the chooser
gives each context its mode, and a real call in each context gets that mode."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import jax
import pytest
from jax import lax

import jaxtensor as jt
from jaxtensor._core._context import current
from jaxtensor._jit import _modes
from jaxtensor._jit._modes import CheckMode, behaviour, choose
from jaxtensor._jit._trace import CheckedTrace

PACKAGE = Path(jt.__file__).parent
MEMBERS = set(CheckMode.__members__)
#: the names modes had before the enum (strings and constants compared with ``==``)
OLD_NAMES = {"OWN", "INHERIT", "CHECKIFY", "GATED"}
OLD_STRINGS = {"own", "inherit", "checkify", "gated"}
#: what holds a mode: comparing one of these is a ladder on the mode
MODE_HOLDERS = {"mode", "check", "how"}
CHECK_METHODS = {"check_index", "check_window", "check_value", "check_matrices", "check",
                 "gate", "_ok_so_far"}


def _mode_operand(node: ast.AST, in_jit: bool) -> str | None:
    """What makes ``node`` (an operand of a comparison) a mode, or None."""
    if isinstance(node, ast.Attribute):
        if isinstance(node.value, ast.Name) and node.value.id == "CheckMode":
            return f"CheckMode.{node.attr}"
        if node.attr in MEMBERS or (in_jit and node.attr in OLD_NAMES | MODE_HOLDERS):
            return ast.unparse(node)
    if isinstance(node, ast.Name) and (node.id in MEMBERS or (
            in_jit and node.id in OLD_NAMES | MODE_HOLDERS)):
        return node.id
    if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("effective_mode"):
        return ast.unparse(node)
    if in_jit and isinstance(node, ast.Constant) and node.value in OLD_STRINGS:
        return repr(node.value)
    return None


def mode_ladders(package: Path) -> list[str]:
    """Every comparison with a check mode outside ``_jit/_modes.py`` (file:line: source),
    and every branch in a check method of ``Trace`` (``_jit/_trace.py``)."""
    found = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        if rel == "_jit/_modes.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        in_jit = rel.startswith("_jit/")
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                ops = [node.left, *node.comparators]
                if any(_mode_operand(o, in_jit) for o in ops):
                    found.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
        if rel != "_jit/_trace.py":
            continue
        for cls in tree.body:
            if isinstance(cls, ast.ClassDef) and cls.name == "Trace":
                for fn in cls.body:
                    if isinstance(fn, ast.FunctionDef) and fn.name in CHECK_METHODS - {"gate"}:
                        for node in ast.walk(fn):
                            if isinstance(node, (ast.If, ast.IfExp, ast.Match)):
                                found.append(f"{rel}:{node.lineno}: a branch in "
                                             f"Trace.{fn.name}")
    return found


def test_no_mode_is_compared_outside_the_mode_module() -> None:
    assert mode_ladders(PACKAGE) == []


def test_the_ladder_finder_sees_each_kind_of_ladder(tmp_path: Path) -> None:
    jit = tmp_path / "_jit"
    jit.mkdir()
    (jit / "_x.py").write_text(
        "if spec.check == jtr.OWN: pass\n"
        "if t.mode is CheckMode.HOISTED: pass\n"
        "if mode != 'checkify': pass\n"
        "if effective_mode(t) == c: pass\n"
        "if self.how == 'top': pass\n"
        "if n == 3 and x.size != 0: pass\n")  # (not a mode: not reported)
    (jit / "_trace.py").write_text(
        "class Trace:\n"
        "    def check_index(self, i):\n"
        "        if i: return\n"
        "    def read(self, st):\n"
        "        if st: return\n")
    (jit / "_modes.py").write_text("if mode == CheckMode.GATED: pass\n")
    (tmp_path / "_take.py").write_text("if mode == 'wrap': pass\nif m is CheckMode.GATED: pass\n")
    assert mode_ladders(tmp_path) == [
        "_jit/_trace.py:3: a branch in Trace.check_index",
        "_jit/_x.py:1: spec.check == jtr.OWN",
        "_jit/_x.py:2: t.mode is CheckMode.HOISTED",
        "_jit/_x.py:3: mode != 'checkify'",
        "_jit/_x.py:4: effective_mode(t) == c",
        "_jit/_x.py:5: self.how == 'top'",
        "_take.py:2: m is CheckMode.GATED",
    ]


class _Enclosing:
    """A stand-in for an enclosing trace in ``mode``."""

    def __init__(self, mode: CheckMode | None) -> None:
        self.mode = mode


_NO = object()  # no jaxtensor trace around the call
M = CheckMode

#: (check_bounds, nested, the enclosing trace's mode, foldable) -> the mode chosen
CHOICES = [
    # a top-level call: its own checks, folded until a check was missed
    (True, False, _NO, True, M.HOISTED),
    (True, False, _NO, False, M.CHECKIFY),
    (False, False, _NO, True, None),
    (False, False, _NO, False, None),
    # nested in a JAX trace with no jaxtensor trace around it: no checks
    (True, True, _NO, True, None),
    (True, True, _NO, False, None),
    # nested in a jaxtensor trace: that trace's checks
    (True, True, None, True, M.INHERITED),
    (True, True, M.HOISTED, True, M.INHERITED),
    (True, True, M.GATED, True, M.INHERITED),
    (True, True, M.INHERITED, False, M.INHERITED),
    (True, True, M.CHECKIFY, True, M.INHERITED_CHECKIFY),
    (True, True, M.CHECKIFY, False, M.INHERITED_CHECKIFY),
    (True, True, M.INHERITED_CHECKIFY, True, M.INHERITED_CHECKIFY),
    (False, True, M.CHECKIFY, True, None),
    (False, True, M.HOISTED, True, None),
]


@pytest.mark.parametrize("check_bounds,nested,enclosing,foldable,want", CHOICES)
def test_the_chooser_gives_each_context_its_mode(check_bounds: bool, nested: bool,
                                                 enclosing: Any, foldable: bool,
                                                 want: CheckMode | None) -> None:
    around = None if enclosing is _NO else _Enclosing(enclosing)
    assert choose(check_bounds, nested, around, foldable) is want


def test_a_transform_inside_checkify_inherits_it() -> None:
    assert choose(True, True, CheckedTrace(), False) is M.INHERITED_CHECKIFY
    assert choose(True, False, None, False) is M.CHECKIFY  # (a top-level transform)


#: mode -> (folded, checkify, inherited, coded, per_call, inline_cond)
FLAGS = {
    None: (False, False, False, False, False, True),
    M.HOISTED: (True, False, False, True, False, True),
    M.GATED: (True, False, False, False, False, True),
    M.CHECKIFY: (False, True, False, False, False, False),
    M.INHERITED: (False, False, True, False, True, False),
    M.INHERITED_CHECKIFY: (False, True, True, False, False, False),
}


@pytest.mark.parametrize("mode", list(FLAGS), ids=str)
def test_each_mode_has_its_behaviour(mode: CheckMode | None) -> None:
    b = behaviour(mode)
    assert (b.folded, b.checkify, b.inherited, b.coded, b.per_call, b.inline_cond) == FLAGS[mode]


def test_the_modes_are_all_listed() -> None:
    assert set(FLAGS) == set(CheckMode) | {None}
    assert set(_modes._BEHAVIOURS) == set(FLAGS)
    # (an IntEnum: a plan key holding a mode hashes as one holding a string does)
    assert all(type(m).__hash__ is int.__hash__ for m in CheckMode)


def _modes_seen(run: Any) -> list:
    """The check mode of every jaxtensor trace ``run`` makes."""
    seen: list = []

    def note() -> None:
        t = current.get()
        seen.append(getattr(t, "mode", "no trace"))

    run(note)
    return seen


def test_real_calls_get_the_chosen_mode() -> None:
    x = jt.zeros(4)

    def plain(note: Any) -> None:
        @jt.jit
        def f(x: Any, i: Any) -> None:
            note()
            x[i] = 1.0

        f(x, 1)

    def unchecked(note: Any) -> None:
        @jt.jit(check_bounds=False)
        def f(x: Any, i: Any) -> None:
            note()
            x[i] = 1.0

        f(x, 1)

    def missed(note: Any) -> None:  # a check in a lax loop body: traced again under checkify
        @jt.jit
        def f(x: Any, n: Any) -> None:
            note()

            def body(k: Any, v: Any) -> Any:
                v[k] = 1.0
                return v

            x[...] = lax.fori_loop(0, n, body, x)

        f(x, 2)

    def nested(note: Any) -> None:
        @jt.jit
        def inner(x: Any, i: Any) -> None:
            note()
            x[i] = 2.0

        @jt.jit
        def outer(x: Any, i: Any) -> None:
            inner(x, i)

        outer(x, 1)

    def in_plain_jax(note: Any) -> None:
        @jt.jit
        def inner(v: Any) -> Any:
            note()
            return v + 1

        jax.jit(lambda a: inner(a))(jax.numpy.zeros(2))

    def in_vmap(note: Any) -> None:
        @jt.jit
        def inner(r: Any) -> Any:
            note()
            r[0] = 0.0
            return r

        jt.vmap(inner)(jt.ones((2, 3)))

    H, C, IN, IC = M.HOISTED, M.CHECKIFY, M.INHERITED, M.INHERITED_CHECKIFY
    # (a HOISTED trace then its gated one only where a call fails: none here)
    assert _modes_seen(plain) == [H]
    assert _modes_seen(unchecked) == [None]
    assert _modes_seen(missed) == [H, C]
    # (the outer function's check in a nested trace is missed: traced again under checkify)
    assert _modes_seen(nested) == [IN, IC]
    assert _modes_seen(in_plain_jax) == [None]
    assert _modes_seen(in_vmap) == [IC]


def test_a_failing_call_runs_the_gated_program() -> None:
    @jt.jit
    def f(x: Any, i: Any) -> None:
        seen.append(current.get().mode)
        x[0] = 5.0
        x[i] = 1.0

    seen: list = []
    x = jt.zeros(3)
    f(x, 1)
    with pytest.raises(IndexError, match="index 7 is out of bounds"):
        f(x, 7)
    # (the gated program traces the function in its folded, hoisted form)
    assert seen == [M.HOISTED, M.HOISTED]
    assert x.tolist() == [5.0, 1.0, 0.0]
    assert [p for p in f._jaxtensor_jit._plans] and all(
        s.check is M.HOISTED for s in f._jaxtensor_jit._plans)
