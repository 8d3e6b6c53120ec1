"""A cheap proof that an eager loop's bodies read what they read at an earlier call.

The eager loop cache (``_reads.py``) walks everything a body reaches on every call and
keys the compiled loop by what the walk read. Most bodies reach only *flat* values: numbers,
strings, Tensors and arrays (the loop's arguments), library modules, types and functions.
For such bodies :func:`record` writes down, per value read, how to prove that the value a
later call reads gives the same atoms (its exact type, and its value as the walk compares it:
a float by its bits, a library object by identity); :func:`match` checks those probes on the
bodies of a call and returns the call's arguments, or ``None`` when anything may differ (or a
body reaches more than flat values): then the walk decides, as before. A match is never
weaker than the walk's key: every probe compares at least what the walk's atoms compare.
"""

from __future__ import annotations

import types
from typing import Any

import jax.numpy as jnp
import numpy as np

from .._core import Tensor
from . import _reads

__all__ = ["match", "record"]

# probe kinds
_ARG, _EQ, _FLOAT, _COMPLEX, _GENERIC, _SAME, _LIBFN, _ABSENT = range(8)
_ArrayImpl = type(jnp.zeros(0))
_ARG_TYPES = (Tensor, _ArrayImpl, np.ndarray)
_MISSING = object()


def _probe(v: Any) -> tuple | None:
    """How to prove that a later value is ``v`` as :class:`~._reads.Reader` reads it from a
    body (a Tensor or array is the loop's argument); ``None`` for a value that is not flat."""
    t = type(v)
    if t in _reads._EXACT:
        return (_EQ, t, v)
    if t is float:
        return (_FLOAT, v.hex())
    if t is complex:
        return (_COMPLEX, v.real.hex(), v.imag.hex())
    if isinstance(v, _ARG_TYPES) and _reads.dynamic(v):
        return (_ARG, t)
    if isinstance(v, np.generic):
        return (_GENERIC, t, v.tobytes())
    if t is types.FunctionType:
        return (_LIBFN, v, v.__code__) if _reads._library(v.__module__) else None
    if t is types.ModuleType:
        return (_SAME, v) if _reads._library(v.__name__) else None
    if isinstance(v, type):
        return (_SAME, v) if _reads._library(v.__module__) else None
    if t is types.BuiltinFunctionType:
        return (_SAME, v)
    return None


def _holds(p: tuple, v: Any) -> bool:
    kind = p[0]
    if kind == _EQ:
        return type(v) is p[1] and v == p[2]
    if kind == _ARG:
        return type(v) is p[1]
    if kind == _FLOAT:
        return type(v) is float and v.hex() == p[1]
    if kind == _SAME:
        return v is p[1]
    if kind == _LIBFN:
        return v is p[1] and v.__code__ is p[2]
    if kind == _COMPLEX:
        return type(v) is complex and v.real.hex() == p[1] and v.imag.hex() == p[2]
    if kind == _GENERIC:
        return type(v) is p[1] and v.tobytes() == p[2]
    return v is _MISSING  # _ABSENT: a global that was not defined


def _function(fn: Any) -> tuple | None:
    """The probes of one body (in the order :meth:`~._reads.Reader.function` reads)."""
    if type(fn) is not types.FunctionType or fn.__kwdefaults__ is not None:
        return None
    cells = []
    for c in fn.__closure__ or ():
        try:
            p = _probe(c.cell_contents)
        except ValueError:  # (an empty cell)
            return None
        if p is None:
            return None
        cells.append(p)
    defaults = None
    if fn.__defaults__ is not None:
        if not fn.__defaults__:
            return None
        defaults = tuple(map(_probe, fn.__defaults__))
        if None in defaults:
            return None
    names = []
    g = fn.__globals__
    for name in _reads.code_names(fn.__code__)[0]:
        v = g.get(name, _MISSING)
        p = (_ABSENT,) if v is _MISSING else _probe(v)
        if p is None:
            return None
        names.append((name, p))
    return (fn.__code__, g, tuple(cells), defaults, tuple(names))


def record(fns: tuple) -> tuple | None:
    """The probes of a call's bodies, or ``None`` if one reaches more than flat values."""
    out = []
    for fn in fns:
        p = _function(fn)
        if p is None:
            return None
        out.append(p)
    return tuple(out)


def match(probes: tuple, fns: tuple) -> list | None:
    """The loop's arguments read from ``fns`` (the Tensors and arrays they close over, take
    as defaults or name as globals, in the walk's order) if every probe of ``probes`` (made
    by :func:`record`) holds for them, else ``None``."""
    if len(fns) != len(probes):
        return None
    args: list = []
    for fn, (code, g, cells, defaults, names) in zip(fns, probes):
        if type(fn) is not types.FunctionType or fn.__code__ is not code or (
                fn.__globals__ is not g or fn.__kwdefaults__ is not None):
            return None
        if cells:
            for c, p in zip(fn.__closure__, cells):
                try:
                    v = c.cell_contents
                except ValueError:
                    return None
                if p[0] == _ARG:
                    if type(v) is not p[1]:
                        return None
                    args.append(v)
                elif not _holds(p, v):
                    return None
        d = fn.__defaults__
        if defaults is None:
            if d is not None:
                return None
        else:
            if d is None or len(d) != len(defaults):
                return None
            for v, p in zip(d, defaults):
                if p[0] == _ARG:
                    if type(v) is not p[1]:
                        return None
                    args.append(v)
                elif not _holds(p, v):
                    return None
        for name, p in names:
            v = g.get(name, _MISSING)
            if p[0] == _ARG:
                if type(v) is not p[1]:
                    return None
                args.append(v)
            elif not _holds(p, v):
                return None
    return args
