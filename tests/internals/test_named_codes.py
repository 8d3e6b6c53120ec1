"""Named data in the indexing and jit layers (issue 27, item 2).

What a key, a lowered index, a call's leaf and a compiled call's result *are* is told by
named types (NamedTuples: hashed and compared as tuples, so the caches keyed by them are as
fast as before), never by a tuple's position or a string tag. The sources are read with
:mod:`ast` (nothing is imported for the scan); the types are checked by kind.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import itertools
import textwrap
import typing
from pathlib import Path

import pytest

from jaxtensor._core import _view
from jaxtensor._indexing import _advanced, _plan
from jaxtensor._jit import _check_errors, _pytree, _spec

PKG = Path(__file__).resolve().parents[2] / "src" / "jaxtensor"
#: the modules whose codes and descriptions are named
SCANNED = sorted(PKG.glob("_indexing/*.py")) + [PKG / "_jit" / n for n in (
    "_pytree.py", "_spec.py", "_check_errors.py")]

#: per family, its kinds; ``keys``: the family's codes are keys of caches, so two codes of
#: different kinds must never compare equal
FAMILIES = {
    "key codes (_indexing/_plan.py)": (typing.get_args(_plan.Code), True),
    "plan items (_indexing/_plan.py)": (typing.get_args(_plan.Item), False),
    "jnp index entries (_indexing/_advanced.py)": (
        (_advanced.JnpSlice, _advanced.JnpArray, _advanced.JnpMask), True),
    "view ops (_core/_view.py)": ((_view.TakeOp, _view.SliceOp), False),
    "leaf descriptions (_jit/_spec.py)": (
        (_spec.Value, _spec.Same, _spec.Static, _spec.OnStorage), True),
    "result descriptions (_jit/_pytree.py)": (
        (_pytree.Plain, _pytree.Argument, _pytree.OnCallStorage, _pytree.OnNewStorage), False),
}


def _positional_tests(source: str) -> list[str]:
    """The places ``source`` decodes a tuple by position against a tag or None
    (``code[0] == "s"``, ``d[1] is None``, ``k = s[0]; k == "a"``), or makes a tagged tuple
    (``("s", start, stop, step)``: a short string first)."""
    found: list[str] = []
    tree = ast.parse(source)

    def const_index(node: ast.AST) -> bool:
        return (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
                and type(node.slice.value) is int)

    def tag_or_none(node: ast.AST) -> bool:
        return isinstance(node, ast.Constant) and (
            node.value is None or type(node.value) is str)

    for fn in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.Module))]:
        picked = {t.id for n in ast.walk(fn) if isinstance(n, ast.Assign)
                  and const_index(n.value) for t in n.targets if isinstance(t, ast.Name)}
        for n in ast.walk(fn):
            if isinstance(n, ast.Compare):
                sides = [n.left, *n.comparators]
                tags = [s for s in sides if tag_or_none(s)]
                tagged = [s for s in sides if isinstance(s, ast.Tuple) and s.elts
                          and all(isinstance(e, ast.Constant) and type(e.value) is str
                                  for e in s.elts)]
                if tags or tagged:
                    for s in sides:
                        if const_index(s) or (isinstance(s, ast.Name) and s.id in picked):
                            found.append(f"line {n.lineno}: {ast.unparse(n)}")
                            break
    for n in ast.walk(tree):
        if (isinstance(n, ast.Tuple) and len(n.elts) > 0 and isinstance(n.elts[0], ast.Constant)
                and type(n.elts[0].value) is str and len(n.elts[0].value) <= 3):
            found.append(f"line {n.lineno}: {ast.unparse(n)}")
    return sorted(set(found))


@pytest.mark.parametrize("path", SCANNED, ids=lambda p: str(p.relative_to(PKG)))
def test_no_code_is_decoded_by_position_or_tag(path: Path) -> None:
    assert _positional_tests(path.read_text()) == []


def test_the_view_ops_are_decoded_by_type() -> None:
    """``_core/_view.py``'s ``compose_basic``, where a basic index's ops are lowered."""
    assert _positional_tests(textwrap.dedent(inspect.getsource(_view.compose_basic))) == []


@pytest.mark.parametrize("source", [
    'def f(s):\n    if s[0] == "s":\n        pass',
    'def f(d):\n    return d[1] is None',
    'def f(d):\n    return d[0] in ("A", "N")',
    'def f(s):\n    k = s[0]\n    if k == "a" or k == "i":\n        pass',
    'def f(a):\n    return ("s", a, None, 1)',
    'X = ("i",)',
])
def test_the_scan_sees_each_old_form(source: str) -> None:
    assert _positional_tests(source)


@pytest.mark.parametrize("source", [
    'def f(vs, a):\n    return vs[0] == 1 and a.kind == "f"',
    'def f(d):\n    return d.view is None and type(d) is int',
    'KEY = ("gather", 1)',
])
def test_the_scan_leaves_other_code_alone(source: str) -> None:
    assert _positional_tests(source) == []


def _field_lines(cls: type) -> list[tuple[str, str, str]]:
    """(field, its source line, the line above) of each field of a NamedTuple class."""
    path = Path(typing.cast(str, __import__(cls.__module__, fromlist=["_"]).__file__))
    lines = path.read_text().splitlines()
    tree = ast.parse("\n".join(lines))
    (node,) = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == cls.__name__]
    return [(st.target.id, lines[st.lineno - 1], lines[st.lineno - 2])
            for st in node.body if isinstance(st, ast.AnnAssign)
            and isinstance(st.target, ast.Name)]


@pytest.mark.parametrize("family", FAMILIES)
def test_every_kind_is_a_named_type_with_its_fields_told(family: str) -> None:
    kinds, _ = FAMILIES[family]
    assert len(kinds) >= 2
    for k in kinds:
        assert issubclass(k, tuple) and hasattr(k, "_fields"), k
        assert k.__doc__ and not k.__doc__.startswith(k.__name__ + "("), k  # its own words
        for field, line, above in _field_lines(k):
            assert "#" in line or above.strip().startswith("#"), (k, field)


def _pool(annotation: str) -> list[object]:
    """Values a field of this annotation holds (bools among ints: they are equal to them)."""
    if "Any" in annotation or "Hashable" in annotation:
        return [0, 1, False, True, None, (), (1,), "s", "static"]
    out: list[object] = []
    if "None" in annotation:
        out.append(None)
    if "int" in annotation.split("[")[0] or "bool" in annotation:
        out += [0, 1, 2, False, True]
    if "tuple" in annotation:
        out += [(), (1,), (2, 3)]
    if "str" in annotation:
        out += ["s", "static"]
    return out


def _instances(k: type) -> set[tuple]:
    """Every instance of ``k`` over small values per field, a field with a default (a tag)
    left at it, as plain tuples."""
    hints = k.__annotations__
    defaults = getattr(k, "_field_defaults", {})
    pools = [[defaults[f]] if f in defaults else _pool(str(hints[f])) for f in k._fields]
    return {tuple(vals) for vals in itertools.product(*pools)}


@pytest.mark.parametrize("family", [f for f, (_, keys) in FAMILIES.items() if keys])
def test_codes_of_different_kinds_never_compare_equal(family: str) -> None:
    """A cache finds a code by equality: two kinds alike in their fields would share a plan
    or a kernel (a static ``False`` took the plan of an argument passed twice)."""
    kinds, _ = FAMILIES[family]
    made = {k: _instances(k) for k in kinds}
    for a, b in itertools.combinations(kinds, 2):
        assert not made[a] & made[b], (a.__name__, b.__name__, sorted(made[a] & made[b],
                                                                        key=repr)[:3])


def test_signatures_hash_as_tuples() -> None:
    """The codes made for a key hash and compare as the plain tuples (the plan caches' cost)."""
    sig, _ = _plan.split((1, slice(0, None, 2), None, _plan.ds(1, 2), [0, 1], [True, False]))
    assert [type(s) for s in sig] == [
        _plan.IntCode, _plan.SliceCode, type(None), _plan.WindowCode, _plan.ArrayCode,
        _plan.MaskCode]
    assert hash(sig) == hash(tuple(tuple(s) if isinstance(s, tuple) else s for s in sig))


def test_what_failed_checks_report_is_typed_and_never_equal_across_kinds() -> None:
    """A folded check's record (kept on the program's ``Aux``, compared with other
    programs') is one frozen type per kind, which makes its eager error itself."""
    e = _check_errors
    same = [e.IndexFailure(0, 3, False, None), e.WindowFailure(0, 3, False),
            e.ValueFailure("int8", "i", False), e.MatrixFailure("{}", "x", (0,))]
    assert len(set(same)) == len(same)
    assert [type(f.error(5)) for f in same[:3]] == [IndexError, IndexError, OverflowError]
    assert str(same[0].error(5)) == "index 5 is out of bounds for axis 0 with size 3"
    for f in same:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(f, dataclasses.fields(f)[0].name, 1)
