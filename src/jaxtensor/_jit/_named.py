"""The Python values a ``jaxtensor.jit`` function reads by name, checked at every call.

A compiled program holds what its trace read from Python as constants. :class:`Named`
writes down, when a function is traced, the values it reads by name: its closure cells,
its default arguments and the globals its code (and the functions defined in it) names,
and the same of the user's functions among them (a helper, a nested ``jaxtensor.jit``
function), up to :data:`MAX_FUNCTIONS`. A call compares them with the current values
(:meth:`Named.same`): a number by its exact type and value (a float by its bits), a list,
tuple or dict of up to :data:`MAX_ITEMS` items by its items (256 items in all), a Tensor
by identity (held weakly), anything else by identity. A call that finds one changed traces
the function again (a global rebound to another Tensor, a closed-over number rebound, a list item
changed): no call runs a program those values would not give. What is inside other
objects (an attribute, a NumPy array's contents, a longer list) is read when traced, as
under ``jax.jit``.
"""

from __future__ import annotations

import types
import weakref
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from .._core import Tensor
from . import _reads

__all__ = ["MAX_FUNCTIONS", "MAX_ITEMS", "Named", "record"]

#: the most functions of the user's whose names one function's probes look into
MAX_FUNCTIONS = 16

# where a value is read from: a closure cell, a global, a default argument
_CELL, _GLOBAL, _DEFAULT = range(3)
# how it is compared: exactly (type and value), by its bits, by identity (a Tensor weakly),
# a function of the user's (by identity, its own names probed after it), a list, tuple or
# dict by its items (each as the rest)
_EQ, _FLOAT, _COMPLEX, _GENERIC, _TENSOR, _SAME, _FN, _ITEMS, _DICT = range(9)
#: the most items of a list, tuple or dict compared item by item (a longer one: by
#: identity), and of all of one function's containers together
MAX_ITEMS = 64
_ALL_ITEMS = 256
_DEPTH = 3  # (containers in containers compared item by item, this deep)
_ABSENT = object()  # (a global not defined, or an empty cell)


def _probe(v: Any, budget: list[int], depth: int = 0) -> tuple:
    """How to compare a later value with ``v`` (``budget``: the items containers may still
    be compared by, shared by all of a function's probes)."""
    t = type(v)
    if t in _reads._EXACT:
        return (_EQ, t, v)
    if t is float:
        return (_FLOAT, v.hex())
    if t is complex:
        return (_COMPLEX, v.real.hex(), v.imag.hex())
    if isinstance(v, np.generic):
        return (_GENERIC, t, v.tobytes())
    if isinstance(v, Tensor):
        return (_TENSOR, weakref.ref(v))
    if (t is list or t is tuple or t is dict) and depth < _DEPTH and len(v) <= min(
            MAX_ITEMS, budget[0]):
        budget[0] -= len(v)
        if t is dict:
            return (_DICT, tuple(v), tuple([_probe(e, budget, depth + 1) for e in v.values()]))
        return (_ITEMS, t, tuple([_probe(e, budget, depth + 1) for e in v]))
    return (_SAME, v)


def _same(v: Any, p: tuple) -> bool:
    k = p[0]
    if k == _SAME or k == _FN:
        return v is p[1]
    t = type(v)
    if k == _EQ:
        return t is p[1] and v == p[2]
    if k == _FLOAT:
        return t is float and v.hex() == p[1]
    if k == _TENSOR:
        return p[1]() is v
    if k == _ITEMS:
        items = p[2]
        return t is p[1] and len(v) == len(items) and all(map(_same, v, items))
    if k == _DICT:
        items = p[2]
        return (t is dict and len(v) == len(items) and tuple(v) == p[1]
                and all(map(_same, v.values(), items)))
    if k == _COMPLEX:
        return t is complex and (v.real.hex(), v.imag.hex()) == p[1:]
    return t is p[1] and v.tobytes() == p[2]  # (_GENERIC)


def _key(p: tuple) -> Hashable:
    k = p[0]
    if k == _SAME or k == _FN or k == _TENSOR:
        return (k, id(p[1]))
    if k == _ITEMS or k == _DICT:
        return (k, p[1], tuple(map(_key, p[2])))
    return p


def _shown(v: Any) -> str:
    if v is _ABSENT:
        return "undefined"
    if type(v) in (int, bool, float, complex, str) or isinstance(v, np.generic):
        return f"{type(v).__name__} {v!r}"
    return type(v).__name__


def _user_function(v: Any) -> Callable | None:
    """The function of the user's whose names ``v`` reads (a ``jaxtensor.jit`` function's
    own), or None for any other value."""
    if type(v) is not types.FunctionType:
        return None
    inner = getattr(v, "_jaxtensor_jit", None)
    if inner is not None:
        v = inner._fn
        if type(v) is not types.FunctionType:
            return None
    return None if _reads._library(v.__module__) else v


class Named:
    """The probes of one function's names (:func:`record`)."""

    __slots__ = ("entries",)

    def __init__(self, entries: list[tuple]) -> None:
        #: (where, container, key, probe, label, shown): the value is ``container[key]``'s
        #: (a cell's contents, a global, a default), compared as ``probe`` says; ``label``
        #: and ``shown`` say which and what it was, for :meth:`explain`
        self.entries = entries

    def same(self) -> bool:
        """Whether every value read by name is still the one traced."""
        for where, box, key, probe, _, _ in self.entries:
            if where == _GLOBAL:
                v = box.get(key, _ABSENT)
            elif where == _CELL:
                try:
                    v = box[key].cell_contents
                except ValueError:
                    v = _ABSENT
            else:
                d = box.__defaults__
                v = d[key] if d is not None and key < len(d) else _ABSENT
            if not _same(v, probe):
                return False
        return True

    def key(self) -> tuple:
        """A hashable summary of the values (for counting the programs traced)."""
        return tuple([_key(p) for _, _, _, p, _, _ in self.entries])

    def explain(self, old: Named) -> str | None:
        """What changed from ``old`` to these values, in the user's words."""
        for a, b, ka, kb in zip(old.entries, self.entries, old.key(), self.key()):
            if a[4] == b[4] and ka != kb:
                return f"{b[4]} changed ({a[5]} -> {b[5]})"
        return None


def record(fn: Callable) -> Named | None:
    """The probes of what ``fn`` reads by name now, or None where it reads nothing to
    probe (a function of a library, jaxtensor's own included)."""
    top = _user_function(fn)
    if top is None:
        return None
    entries: list[tuple] = []
    budget = [_ALL_ITEMS]
    seen = {id(top)}
    todo: list[tuple[types.FunctionType, str]] = [(top, "")]
    while todo:
        f, of = todo.pop()
        cells = f.__closure__ or ()
        for j, (name, cell) in enumerate(zip(f.__code__.co_freevars, cells)):
            try:
                v = cell.cell_contents
            except ValueError:
                v = _ABSENT
            _add(entries, todo, seen, budget, _CELL, cells, j, v,
                 f"the closed-over {name!r}{of}")
        for j, v in enumerate(f.__defaults__ or ()):
            _add(entries, todo, seen, budget, _DEFAULT, f, j, v, f"default argument {j}{of}")
        glob = f.__globals__
        for name in _reads.code_names(f.__code__)[0]:
            _add(entries, todo, seen, budget, _GLOBAL, glob, name, glob.get(name, _ABSENT),
                 f"the global {name!r}{of}")
    return Named(entries) if entries else None


def _add(entries: list, todo: list, seen: set, budget: list[int], where: int, box: Any,
         key: Any, v: Any, label: str) -> None:
    if v is _ABSENT:
        probe: tuple = (_SAME, _ABSENT)
    else:
        g = _user_function(v)
        if g is not None and id(g) not in seen and len(seen) < MAX_FUNCTIONS:
            seen.add(id(g))
            todo.append((g, f" of {g.__qualname__}()"))
            probe = (_FN, v)
        else:
            probe = _probe(v, budget)
    entries.append((where, box, key, probe, label, _shown(v)))
