"""The Python values a ``jaxtensor.jit`` function reads by name, checked at every call.

A compiled program holds what its trace read from Python as constants. :func:`record`
writes down, as a trace starts, the values the function reads by name: its closure cells,
its defaults (keyword-only ones too) and the globals its code (and the functions defined in
it) names, and the same of the user's functions among them (a helper, a method, a
``functools.partial``'s function and arguments, the function a ``jaxtensor.jit``,
``vmap`` or other ``functools.wraps`` wrapper wraps), up to :data:`MAX_FUNCTIONS`. A call
compares them with the current values (:meth:`Named.same`): a number by its exact type and
value (a float by its bits), a tuple of up to :data:`MAX_ITEMS` items by its items, a
Tensor by identity (held weakly), anything else by identity, a list or a dict included
(their items may change at run time, through a callback, without the program depending on
them). A call that finds one changed traces the function again: no call runs a program
those values would not give. What is inside other objects (a list's or dict's items, an
attribute, a NumPy array's contents) is read when traced, as under ``jax.jit``.
"""

from __future__ import annotations

import functools
import math
import os
import types
import weakref
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from .._core import Storage, Tensor
from . import _reads

__all__ = ["MAX_FUNCTIONS", "MAX_ITEMS", "Named", "record"]

#: the most functions of the user's whose names one function's probes look into
MAX_FUNCTIONS = 64
#: the most items of a tuple compared item by item (a longer one: by identity)
MAX_ITEMS = 64

# where a value is read from: a closure cell, a global, a default, a keyword-only default
_CELL, _GLOBAL, _DEFAULT, _KWDEFAULT = range(4)
# how it is compared: exactly (type and value), a float or complex number, a NumPy scalar
# by its bytes, a Tensor by identity (weakly), anything else by identity, a tuple by its
# items (each as the rest)
_EQ, _FLOAT, _COMPLEX, _GENERIC, _TENSOR, _SAME, _ITEMS = range(7)
_ABSENT = object()  # (a global not defined, or an empty cell)
_LIBRARY_FILES = (os.path.dirname(os.path.dirname(__file__)) + os.sep,)


def _probe(v: Any, depth: int = 0) -> tuple:
    """How to compare a later value with ``v``."""
    t = type(v)
    if t in _reads._EXACT:
        return (_EQ, t, v)
    if t is float:
        return (_FLOAT, v)
    if t is complex:
        return (_COMPLEX, v)
    if isinstance(v, np.generic):
        return (_GENERIC, t, v.tobytes())
    if isinstance(v, Tensor):
        # [the Tensor, its storage where it is all of it (else None), its shape, its
        # dtype]: a list, as :meth:`Named.rebound` moves the probe to a rebound Tensor
        whole = type(v) is Tensor and v._view is None and v._base is None
        return (_TENSOR, [weakref.ref(v), weakref.ref(v._storage) if whole else None,
                          v.shape, v.dtype])
    if t is tuple and depth < 3 and len(v) <= MAX_ITEMS:
        return (_ITEMS, tuple([_probe(e, depth + 1) for e in v]))
    return (_SAME, v)


def _same_float(a: float, b: float) -> bool:
    """``a`` and ``b`` give the same program: equal, with the same sign (``-0.0`` is not
    ``0.0``), or both NaN."""
    if a == b:
        return a != 0.0 or math.copysign(1.0, a) == math.copysign(1.0, b)
    return a != a and b != b


def _same(v: Any, p: tuple) -> bool:
    k = p[0]
    if k == _SAME:
        return v is p[1]
    t = type(v)
    if k == _FLOAT:
        return t is float and _same_float(v, p[1])
    if k == _EQ:
        return t is p[1] and v == p[2]
    if k == _TENSOR:
        return p[1][0]() is v
    if k == _ITEMS:
        items = p[1]
        return t is tuple and len(v) == len(items) and all(map(_same, v, items))
    if k == _COMPLEX:
        w = p[1]
        return t is complex and _same_float(v.real, w.real) and _same_float(v.imag, w.imag)
    return t is p[1] and v.tobytes() == p[2]  # (_GENERIC)


def _key(p: tuple) -> Hashable:
    k = p[0]
    if k == _SAME:
        return (k, id(p[1]))
    if k == _TENSOR:
        return (k, id(p[1][0]))
    if k == _ITEMS:
        return (k, tuple(map(_key, p[1])))
    if k == _FLOAT:
        return (k, p[1].hex())
    if k == _COMPLEX:
        return (k, p[1].real.hex(), p[1].imag.hex())
    return p


def _shown(v: Any) -> str:
    if v is _ABSENT:
        return "undefined"
    if type(v) in (int, bool, float, complex, str) or isinstance(v, np.generic):
        return f"{type(v).__name__} {v!r}"
    return type(v).__name__


def _library(fn: types.FunctionType) -> bool:
    """Whether ``fn`` is a library's (jaxtensor's, JAX's, an installed package's): by its
    code's file, as ``functools.wraps`` copies the wrapped function's module."""
    path = fn.__code__.co_filename
    return path.startswith(_LIBRARY_FILES) or _reads._library(fn.__module__) or (
        "site-packages" in path or "dist-packages" in path)


def _followed(v: Any) -> types.FunctionType | None:
    """The function of the user's whose names a call of ``v`` reads (a method's or a
    partial's function, a callable object's ``__call__``, what a ``jaxtensor.jit`` function
    or a wrapper wraps), or None.
    (A method's object and a partial's arguments are fixed: the method or partial is
    compared by identity.)"""
    t = type(v)
    if t is types.MethodType:
        return _followed(v.__func__)
    if t is functools.partial:
        return _followed(v.func)
    if t is not types.FunctionType:
        # (an object of the user's callable class: its class's __call__)
        call = next((c.__dict__["__call__"] for c in t.__mro__ if "__call__" in c.__dict__),
                    None)
        return _followed(call) if type(call) is types.FunctionType else None
    inner = getattr(v, "_jaxtensor_jit", None)  # (a jaxtensor.jit function: its own)
    if inner is not None:
        return _followed(inner._fn)
    if _library(v):
        wrapped = getattr(v, "__wrapped__", None)
        return None if wrapped is None else _followed(wrapped)
    return v


class Named:
    """The probes of one function's names (:func:`record`)."""

    __slots__ = ("entries", "_others", "_all", "_fast")

    def __init__(self, entries: list[tuple]) -> None:
        #: (where, container, key, value, probe, label, shown): the value read is
        #: ``container[key]``'s (a cell's contents, a global, a default: :func:`_read`); the
        #: same object as ``value`` (None for a Tensor) or else compared as ``probe`` says;
        #: ``label`` and ``shown`` say which and what it was, for :meth:`explain`
        self.entries = entries
        # what :meth:`same` compares: where every global and cell holds the object traced
        # (:meth:`_identities`), the defaults alone; else every value
        self._others = [e[:5] for e in entries if e[0] != _GLOBAL and e[0] != _CELL]
        self._all = [e[:5] for e in entries]
        self._fast = self._identities()

    def _identities(self) -> Callable[[], bool]:
        """A function telling whether every global and cell holds the very object traced
        (one expression, made for these probes: about twice as fast as :meth:`same`'s
        loop); where one does not, :meth:`same` compares as the probes say."""
        ns: dict[str, Any] = {"A": _ABSENT}
        terms = []
        globs = [(e[1], e[2], e[3], e[4]) for e in self.entries if e[0] == _GLOBAL]
        cells = [(e[1][e[2]], e[3], e[4]) for e in self.entries if e[0] == _CELL]
        for j, (box, key, was, probe) in enumerate(globs):
            ns[f"b{j}"], ns[f"g{j}"] = box, probe[1] if probe[0] == _TENSOR else was
            terms.append(f"b{j}.get({key!r}, A) is g{j}" + ("[0]()" if probe[0] == _TENSOR
                                                              else ""))
        for j, (cell, was, probe) in enumerate(cells):
            ns[f"c{j}"], ns[f"v{j}"] = cell, probe[1] if probe[0] == _TENSOR else was
            terms.append(f"c{j}.cell_contents is v{j}" + ("[0]()" if probe[0] == _TENSOR
                                                          else ""))
        src = ("def fast():\n    try:\n        return " + (" and ".join(terms) or "True")
               + "\n    except ValueError:\n        return False\n")
        exec(compile(src, "<jaxtensor.jit names>", "exec"), ns)  # noqa: S102 - made above
        return ns["fast"]

    def same(self) -> bool:
        """Whether every value read by name is still the one traced."""
        for where, box, key, was, probe in self._others if self._fast() else self._all:
            v = _read(where, box, key)
            if v is not was and not _same(v, probe):
                return False
        return True

    def rebound(self) -> list[tuple[weakref.ref, Storage]] | None:
        """Where the values read by name are the ones traced but for Tensors rebound to
        others of the same shape and dtype, each all of its storage, as was the one traced,
        whose storage is gone (``W = W - lr * g`` between calls): the probes follow the new
        Tensors, and the answer is each (old storage's weak reference, new storage); else
        None. (Nothing can reach a storage that is gone, so a program that took the old
        storage as an input is the program a trace would make with the new one.)"""
        moved = []
        for where, box, key, was, probe in self._all:
            v = _read(where, box, key)
            if v is was or _same(v, probe):
                continue
            if probe[0] != _TENSOR:
                return None
            old, old_st, shape, dtype = probe[1]
            if (old_st is None or old_st() is not None or type(v) is not Tensor
                    or v._view is not None or v._base is not None or v.shape != shape
                    or v.dtype != dtype):
                return None
            moved.append((probe[1], v))
        pairs = []
        for held, v in moved:
            pairs.append((held[1], v._storage))
            held[0], held[1] = weakref.ref(v), weakref.ref(v._storage)
        return pairs

    def key(self) -> tuple:
        """A hashable summary of the values (for counting the programs traced)."""
        return tuple([_key(e[4]) for e in self.entries])

    def summary(self) -> tuple:
        """(each value's label, how it was shown, the key): what :meth:`explain` compares,
        holding none of the values (a large array rebound stays collectable)."""
        return (tuple(e[5] for e in self.entries), tuple(e[6] for e in self.entries),
                self.key())

    @staticmethod
    def explain(old: tuple, new: tuple) -> str | None:
        """What changed from the values of summary ``old`` to those of ``new``, in the
        user's words."""
        for la, lb, sa, sb, ka, kb in zip(old[0], new[0], old[1], new[1], old[2], new[2]):
            if la == lb and ka != kb:
                return f"{lb} changed ({sa} -> {sb})"
        return None


def _read(where: int, box: Any, key: Any) -> Any:
    """The value now at ``box[key]`` (as :meth:`Named.same` reads it)."""
    if where == _GLOBAL:
        return box.get(key, _ABSENT)
    if where == _CELL:
        try:
            return box[key].cell_contents
        except ValueError:
            return _ABSENT
    if where == _DEFAULT:
        d = box.__defaults__
        return d[key] if d is not None and key < len(d) else _ABSENT
    d = box.__kwdefaults__
    return _ABSENT if d is None else d.get(key, _ABSENT)


def record(fn: Callable) -> Named | None:
    """The probes of what ``fn`` reads by name now, or None where it reads nothing to
    probe (a function of a library, jaxtensor's own included)."""
    top = _followed(fn)
    if top is None:
        return None
    entries: list[tuple] = []
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
            _add(entries, todo, seen, _CELL, cells, j, v, f"the closed-over {name!r}{of}")
        for j, v in enumerate(f.__defaults__ or ()):
            _add(entries, todo, seen, _DEFAULT, f, j, v, f"default argument {j}{of}")
        for name, v in (f.__kwdefaults__ or {}).items():
            _add(entries, todo, seen, _KWDEFAULT, f, name, v, f"the default of {name!r}{of}")
        glob = f.__globals__
        for name in _reads.code_names(f.__code__)[0]:
            _add(entries, todo, seen, _GLOBAL, glob, name, glob.get(name, _ABSENT),
                 f"the global {name!r}{of}")
    return Named(entries) if entries else None


def _add(entries: list, todo: list, seen: set, where: int, box: Any, key: Any, v: Any,
         label: str) -> None:
    probe = _probe(v) if v is not _ABSENT else (_SAME, _ABSENT)
    if probe[0] == _SAME and v is not _ABSENT:
        g = _followed(v)
        if g is not None and id(g) not in seen and len(seen) < MAX_FUNCTIONS:
            seen.add(id(g))
            todo.append((g, f" of {g.__qualname__}()"))
    was = None if probe[0] == _TENSOR else v
    entries.append((where, box, key, was, probe, label, _shown(v)))
