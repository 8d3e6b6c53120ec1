"""A cheap proof that an eager loop's bodies read what they read at an earlier call.

The eager loop cache (``_reads.py``) walks everything a body reaches on every call and
keys the compiled loop by what the walk read. Most bodies reach only numbers, strings,
tuples of them, Tensors and arrays, library modules, types and functions, and functions
of the user's that reach only such values (a helper ``def``, an ODE's right-hand side).
For such bodies :func:`record` writes down, per value the walk reads, how to prove that
the value a later call reads gives the same atoms: its exact type, and its value as the
walk compares it (a float by its bits, a tuple by its elements', a library object by
identity, a function of the user's by its code, globals and what it reaches in turn).
:func:`match` checks those probes on the bodies of a call and returns the call's
arguments, or ``None`` when anything may differ (or a body reaches more): then the walk
decides, as before. A match is never weaker than the walk's key: every probe compares at
least what the walk's atoms compare, and the user's functions and defaults tuples met
(which the walk numbers by identity) must be distinct objects, as when the probes were
made. (One exception, which no trace can tell: a tuple of numbers the walk met twice, one
object, matches two equal tuples.)
"""

from __future__ import annotations

import types
from typing import Any

import jax.numpy as jnp
import numpy as np

from .._core import Tensor
from . import _reads

__all__ = ["match", "record"]

# probe kinds: a body's Tensor or array (an argument of the loop), a Tensor reached deeper
# (an argument after the bodies'), a value compared as the walk compares it, a function of
# the user's (probed in turn)
_ARG, _DEEP, _EQ, _FLOAT, _COMPLEX, _GENERIC, _SAME, _LIBFN, _ABSENT, _FN, _TUPLE = range(11)
_ArrayImpl = type(jnp.zeros(0))
_ARG_TYPES = (Tensor, _ArrayImpl, np.ndarray)
_MISSING = object()
#: the most functions of the user's one call's bodies may reach through the probes
_MAX_FUNCTIONS = 16


def _probe(v: Any, deep: bool, fns: set[int], numbers: bool = False) -> tuple | None:
    """How to prove that a later value is ``v`` as :class:`~._reads.Reader` reads it from a
    body (``deep``: from a function the bodies reach; ``numbers``: a body's own floats and
    complex numbers are arguments); ``None`` if the probes cannot."""
    t = type(v)
    if numbers and not deep and t in _reads.NUMBERS:
        return (_ARG, t)
    if t in _reads._EXACT:
        return (_EQ, t, v)
    if t is float:
        return (_FLOAT, v.hex())
    if t is complex:
        return (_COMPLEX, v.real.hex(), v.imag.hex())
    if deep:
        if isinstance(v, Tensor):
            return (_DEEP, t)
        if t is _ArrayImpl:
            return (_SAME, v)
    elif isinstance(v, _ARG_TYPES) and _reads.dynamic(v):
        return (_ARG, t)
    if isinstance(v, np.generic):
        return (_GENERIC, t, v.tobytes())
    if t is tuple:
        frozen = _frozen(v, 0)
        return None if frozen is None else (_TUPLE, v, frozen)
    if t is types.FunctionType:
        if _reads._library(v.__module__):
            return (_LIBFN, v, v.__code__)
        if id(v) in fns or len(fns) >= _MAX_FUNCTIONS:
            return None  # (reached twice, or recursive: the walk decides)
        fns.add(id(v))
        f = _function(v, True, fns)
        return None if f is None else (_FN, f)
    if t is types.ModuleType:
        return (_SAME, v) if _reads._library(v.__name__) else None
    if isinstance(v, type):
        return (_SAME, v) if _reads._library(v.__module__) else None
    if t is types.BuiltinFunctionType:
        return (_SAME, v)
    return None


def _frozen(v: Any, depth: int) -> tuple | None:
    """A tuple of numbers, strings and such tuples as the walk compares it (each element by
    its exact type and value, a float by its bits), or ``None`` for any other value."""
    t = type(v)
    if t in _reads._EXACT:
        return (t, v)
    if t is float:
        return (float, v.hex())
    if t is complex:
        return (complex, v.real.hex(), v.imag.hex())
    if t is tuple and depth < 8:
        out = []
        for e in v:
            f = _frozen(e, depth + 1)
            if f is None:
                return None
            out.append(f)
        return (tuple, tuple(out))
    return None


def _function(fn: Any, deep: bool, fns: set[int], numbers: bool = False) -> tuple | None:
    """The probes of a body (``deep``: of a function a body reaches), in the order
    :meth:`~._reads.Reader.function` reads."""
    if type(fn) is not types.FunctionType or fn.__kwdefaults__ is not None or fn.__dict__:
        return None  # (a function's attributes: the walk reads them)
    cells = []
    for c in fn.__closure__ or ():
        try:
            p = _probe(c.cell_contents, deep, fns, numbers)
        except ValueError:  # (an empty cell)
            return None
        if p is None:
            return None
        cells.append(p)
    defaults = None
    if fn.__defaults__ is not None:
        if not (deep or fn.__defaults__):
            return None
        defaults = tuple(_probe(v, deep, fns, numbers) for v in fn.__defaults__)
        if None in defaults:
            return None
    names = []
    g = fn.__globals__
    read = _reads.code_names(fn.__code__)
    if read[2]:
        return None  # (it imports modules: the walk reads them)
    for name in read[0]:
        v = g.get(name, _MISSING)
        p = (_ABSENT,) if v is _MISSING else _probe(v, deep, fns, numbers)
        if p is None:
            return None
        names.append((name, p))
    return (fn.__code__, g, tuple(cells), defaults, tuple(names))


def record(fns: tuple, numbers: bool) -> tuple | None:
    """The probes of a call's bodies (``numbers``: their own floats and complex numbers are
    arguments), or ``None`` if they reach what the probes cannot prove unchanged."""
    out = []
    met: set[int] = set()
    for fn in fns:
        p = _function(fn, False, met, numbers)
        if p is None:
            return None
        out.append(p)
    return tuple(out)


#: what a match collects: (the bodies' arguments, the Tensors reached deeper, the ids of the
#: user's functions and defaults tuples met, which must be distinct)
_Found = tuple[list, list, list]


def match(probes: tuple, fns: tuple) -> list | None:
    """The loop's arguments read from ``fns`` (the Tensors and arrays they close over, take
    as defaults or name as globals, in the walk's order, then the Tensors reached deeper) if
    every probe of ``probes`` (made by :func:`record`) holds for them, else ``None``."""
    if len(fns) != len(probes):
        return None
    found: _Found = ([], [], [])
    for fn, p in zip(fns, probes):
        if not _matches(fn, p, False, found):
            return None
    args, deep, ids = found
    if ids and len(set(ids)) != len(ids):
        return None
    return args + deep if deep else args


def _matches(fn: Any, probe: tuple, deep: bool, found: _Found) -> bool:
    code, g, cells, defaults, names = probe
    if type(fn) is not types.FunctionType or fn.__code__ is not code or (
            fn.__globals__ is not g or fn.__kwdefaults__ is not None):
        return False
    read = []  # (value, probe) in the walk's order: cells, defaults, globals
    if cells:
        for c, p in zip(fn.__closure__, cells):
            try:
                read.append((c.cell_contents, p))
            except ValueError:  # (an empty cell)
                return False
    d = fn.__defaults__
    if defaults is None:
        if d is not None:
            return False
    else:
        if d is None or len(d) != len(defaults):
            return False
        if deep:
            found[2].append(id(d))
        read += zip(d, defaults)
    for name, p in names:
        read.append((g.get(name, _MISSING), p))
    args = found[0]
    for v, p in read:
        kind = p[0]
        if kind == _ARG:
            if type(v) is not p[1]:
                return False
            args.append(v)
        elif kind == _EQ:
            if type(v) is not p[1] or v != p[2]:
                return False
        elif kind == _FLOAT:
            if type(v) is not float or v.hex() != p[1]:
                return False
        elif not _value(p, v, found):
            return False
    return True


def _value(p: tuple, v: Any, found: _Found) -> bool:
    kind = p[0]
    if kind == _SAME:
        return v is p[1]
    if kind == _FN:
        if type(v) is not types.FunctionType:
            return False
        found[2].append(id(v))
        return _matches(v, p[1], True, found)
    if kind == _DEEP:
        if type(v) is not p[1]:
            return False
        found[1].append(v)
        return True
    if kind == _LIBFN:
        return v is p[1] and v.__code__ is p[2]
    if kind == _COMPLEX:
        return type(v) is complex and v.real.hex() == p[1] and v.imag.hex() == p[2]
    if kind == _GENERIC:
        return type(v) is p[1] and v.tobytes() == p[2]
    if kind == _TUPLE:  # (the same tuple, or one of equal elements: immutable either way)
        return v is p[1] or (type(v) is tuple and _frozen(v, 0) == p[2])
    return v is _MISSING  # _ABSENT: a global that was not defined
