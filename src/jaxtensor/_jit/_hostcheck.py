"""Bounds checks decided on the host, before a compiled call runs.

Where every bounds check of a trace is a comparison of an affine function of one scalar
integer input (``t[i + 1]``, ``t[2 * j - 1, i]``: the index of a Python loop passed to the
function), the checks pass exactly when each such input lies in a set of integers known
after the trace. :func:`analyse` computes those sets from the traced program by walking
back from its first-failure number (``Trace.check_output``) with exact integer arithmetic;
a call whose scalars are known on the host (Python or NumPy integers, or a host array's
value) and lie in their sets cannot fail a check, and runs the program without checks.

Soundness: XLA computes ``+``, ``-`` and ``*`` modulo 2**bits, which agrees with exact
arithmetic modulo 2**bits; the host trusts a comparison (or a conversion between integer
widths) only where the exact values it reads fit their dtype, so that there the device
sees the exact values too. Operations between constants are folded as the device computes
them (modulo 2**bits; ``and``/``or``/``xor``/``not`` bitwise on integers). Anything else in
the checks' computation (a primitive outside :data:`ACCEPTED`, two inputs in one
expression, an unsigned or non-scalar input) makes the analysis give up (``None``): the
call keeps its checked program. ``tests/internals/test_hostcheck_soundness.py`` runs the
interpreter against JAX's concrete evaluation for every accepted primitive.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np
from jax.extend.core import Literal

from .._core import cache

#: a set of integers: disjoint, sorted closed intervals ``(lo, hi)`` (±inf: unbounded)
Ivs = tuple[tuple[float, float], ...]

_ALL: Ivs = ((-math.inf, math.inf),)
_NONE: Ivs = ()


class _GiveUp(Exception):
    """The checks' computation has something the analysis does not follow."""


def _norm(ivs: list[tuple[float, float]]) -> Ivs:
    out: list[list[float]] = []
    for lo, hi in sorted(i for i in ivs if i[0] <= i[1]):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return tuple((lo, hi) for lo, hi in out)


def _and(a: Ivs, b: Ivs) -> Ivs:
    return _norm([(max(p, r), min(q, s)) for p, q in a for r, s in b])


def _or(a: Ivs, b: Ivs) -> Ivs:
    return _norm(list(a) + list(b))


def _not(a: Ivs) -> Ivs:
    out, lo = [], -math.inf
    for p, q in a:
        if p > lo:
            out.append((lo, p - 1))
        lo = q + 1
    if lo != math.inf:
        out.append((lo, math.inf))
    return _norm(out)


class _Aff:
    """``a * s + b`` (exact) for input ``var``, trusted where ``s`` is in ``valid``."""

    __slots__ = ("var", "a", "b", "valid")

    def __init__(self, var: int, a: int, b: int, valid: Ivs) -> None:
        self.var, self.a, self.b, self.valid = var, a, b, valid

    def where(self, lo: float, hi: float) -> Ivs:
        """The ``s`` whose value lies in ``[lo, hi]``."""
        a, b = self.a, self.b
        if a == 0:
            return _ALL if lo <= b <= hi else _NONE
        if a > 0:
            return _norm([(_ceil_div(lo - b, a), _floor_div(hi - b, a))])
        return _norm([(_ceil_div(hi - b, a), _floor_div(lo - b, a))])


def _floor_div(x: float, a: int) -> float:
    if math.isinf(x):
        return x if a > 0 else -x
    return x // a


def _ceil_div(x: float, a: int) -> float:
    if math.isinf(x):
        return x if a > 0 else -x
    return -((-x) // a)


class _Pred:
    """A boolean: true exactly where ``s`` (of input ``var``) is in ``ivs``, trusted where
    ``s`` is in ``valid``."""

    __slots__ = ("var", "ivs", "valid")

    def __init__(self, var: int, ivs: Ivs, valid: Ivs) -> None:
        self.var, self.ivs, self.valid = var, ivs, valid


class _Zero:
    """An integer that is 0 exactly where every input ``var`` lies in ``conds[var]`` (and
    nonzero elsewhere): the first-failure number."""

    __slots__ = ("conds",)

    def __init__(self, conds: dict[int, Ivs]) -> None:
        self.conds = conds


def _range(dtype: Any) -> tuple[int, int]:
    """The range of a signed integer dtype (the symbolic values are signed only)."""
    dt = np.dtype(dtype)
    if dt.kind != "i":
        raise _GiveUp
    info = np.iinfo(dt)
    return int(info.min), int(info.max)


def _wrap(v: int, dtype: Any) -> int | bool:
    """``v`` as the device holds it in ``dtype``: modulo 2**bits (two's complement for a
    signed dtype); a bool is ``v != 0``."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return bool(v)
    if dt.kind not in "iu":
        raise _GiveUp
    bits = 8 * dt.itemsize
    v = int(v) & ((1 << bits) - 1)
    if dt.kind == "i" and v >> (bits - 1):
        v -= 1 << bits
    return v


def _const(v: Any) -> Any:
    a = np.asarray(v)
    if a.ndim or a.dtype.kind not in "biu":
        raise _GiveUp
    return bool(a) if a.dtype.kind == "b" else int(a)


class _Interp:
    """Abstract evaluation of one jaxpr, of the equations a value needs only (found by
    walking back from it, then evaluated in program order: no recursion per equation, so
    a chain of thousands of checks is followed as one of two)."""

    def __init__(self, jaxpr: Any, args: Sequence[Callable[[], Any]]) -> None:
        self.jaxpr = jaxpr
        self.env: dict[Any, Any] = {}
        self.args = dict(zip(jaxpr.invars, args))
        self.producer = {v: e for e in jaxpr.eqns for v in e.outvars}
        self.order = {id(e): n for n, e in enumerate(jaxpr.eqns)}

    @classmethod
    def closed(cls, closed: Any, args: Sequence[Callable[[], Any]]) -> _Interp:
        """An interpreter of a ``ClosedJaxpr`` (or a ``Jaxpr``) whose consts are values."""
        jaxpr = getattr(closed, "jaxpr", closed)
        interp = cls(jaxpr, args)
        for cv, c in zip(jaxpr.constvars, getattr(closed, "consts", ())):
            interp.args[cv] = lambda c=c: _const(c)
        return interp

    def value(self, v: Any) -> Any:
        if isinstance(v, Literal):
            return _const(v.val)
        if v not in self.env:
            for eqn, outs in self._needed(v):
                for out, k in outs.items():
                    self.env[out] = self._eqn(eqn, k)
        return self.env[v]

    def _needed(self, v: Any) -> list[tuple[Any, dict]]:
        """The equations ``v`` depends on that are not evaluated yet, in program order,
        each with the outputs wanted of it (by position); the arguments it reads are
        evaluated on the way."""
        found: dict[int, tuple[Any, dict]] = {}
        stack = [v]
        while stack:
            u = stack.pop()
            if isinstance(u, Literal) or u in self.env:
                continue
            if u in self.args:
                self.env[u] = self.args[u]()
                continue
            eqn = self.producer.get(u)
            if eqn is None:
                raise _GiveUp
            entry = found.get(id(eqn))
            if entry is None:
                name = eqn.primitive.name
                if name not in ACCEPTED and name not in _CALLS:
                    raise _GiveUp
                entry = found[id(eqn)] = (eqn, {})
                if name not in _CALLS:  # (a call reads its inputs as its outputs need)
                    stack.extend(eqn.invars)
            entry[1][u] = eqn.outvars.index(u)
        return sorted(found.values(), key=lambda e: self.order[id(e[0])])

    def _eqn(self, eqn: Any, k: int) -> Any:
        name = eqn.primitive.name
        ins = eqn.invars
        if name in _CALLS:
            inner = eqn.params.get("jaxpr") or eqn.params.get("call_jaxpr")
            sub = _Interp.closed(inner, [(lambda v=v: self.value(v)) for v in ins])
            return sub.value(sub.jaxpr.outvars[k])
        x = [self.value(v) for v in ins]
        dtype = eqn.outvars[0].aval.dtype
        return _apply(name, x, [v.aval.dtype for v in ins], dtype)


#: a call of a nested jaxpr, followed into it
_CALLS = ("jit", "pjit", "closed_call", "core_call")


def _fit(x: _Aff, dtype: Any) -> Ivs:
    lo, hi = _range(dtype)
    return _and(x.valid, x.where(lo, hi))


def _same_var(x: Any, y: Any) -> int | None:
    vx = x.var if isinstance(x, (_Aff, _Pred)) else None
    vy = y.var if isinstance(y, (_Aff, _Pred)) else None
    if vx is not None and vy is not None and vx != vy:
        raise _GiveUp
    return vx if vx is not None else vy


def _aff(x: Any, var: int) -> _Aff:
    if isinstance(x, _Aff):
        return x
    if type(x) is int:
        return _Aff(var, 0, x, _ALL)
    raise _GiveUp


def _pred(x: Any, var: int) -> _Pred:
    if isinstance(x, _Pred):
        return x
    if type(x) is bool:
        return _Pred(var, _ALL if x else _NONE, _ALL)
    raise _GiveUp


#: where ``p - q`` lies when ``p <op> q`` holds
_CMP: dict[str, tuple[float, float]] = {
    "lt": (-math.inf, -1), "le": (-math.inf, 0), "gt": (1, math.inf), "ge": (0, math.inf),
    "eq": (0, 0)}


_FOLD: dict[str, Callable[..., Any]] = {
    "add": lambda p, q: p + q, "sub": lambda p, q: p - q, "mul": lambda p, q: p * q,
    "neg": lambda p: -p, "convert_element_type": lambda p: p, "lt": lambda p, q: p < q,
    "le": lambda p, q: p <= q, "gt": lambda p, q: p > q, "ge": lambda p, q: p >= q,
    "eq": lambda p, q: p == q, "ne": lambda p, q: p != q, "and": lambda p, q: p & q,
    "or": lambda p, q: p | q, "xor": lambda p, q: p ^ q,
    "not": lambda p: not p if type(p) is bool else ~p,
}

#: every primitive the analysis models (a nested call aside); any other gives up
ACCEPTED = frozenset(_FOLD) | {"select_n"}


def _fold(name: str, x: list, dtype: Any) -> Any:
    """An operation on constants, as the device computes it: integer arithmetic modulo
    2**bits, ``and``/``or``/``xor``/``not`` bitwise on integers (logical on bools)."""
    if name == "select_n":
        which = x[0]
        if not 0 <= which < len(x) - 1:
            raise _GiveUp  # (XLA leaves an out-of-range case undefined)
        return x[1 + which]
    if np.dtype(dtype) == np.bool_ and name in ("add", "sub", "mul", "neg"):
        raise _GiveUp
    return _wrap(_FOLD[name](*x), dtype)


def _apply(name: str, x: list, in_dtypes: list, dtype: Any) -> Any:
    if all(type(v) in (int, bool) for v in x):
        return _fold(name, x, dtype)
    if name in ("add", "sub", "mul"):
        var = _same_var(*x)
        _range(dtype)
        p, q = _aff(x[0], var), _aff(x[1], var)
        valid = _and(p.valid, q.valid)
        if name == "add":
            return _Aff(var, p.a + q.a, p.b + q.b, valid)
        if name == "sub":
            return _Aff(var, p.a - q.a, p.b - q.b, valid)
        if p.a and q.a:
            raise _GiveUp
        return _Aff(var, p.a * q.b + q.a * p.b, p.b * q.b, valid)
    if name == "neg":
        (p,) = x
        if not isinstance(p, _Aff):
            raise _GiveUp
        _range(dtype)
        return _Aff(p.var, -p.a, -p.b, p.valid)
    if name == "convert_element_type":
        (p,) = x
        if not isinstance(p, _Aff):
            raise _GiveUp
        lo, hi = _range(in_dtypes[0])
        out_lo, out_hi = _range(dtype)
        if lo < out_lo or hi > out_hi:
            raise _GiveUp  # (a narrowing conversion wraps on the device)
        return _Aff(p.var, p.a, p.b, _fit(p, in_dtypes[0]))
    if name in _CMP or name == "ne":
        var = _same_var(*x)
        p, q = _aff(x[0], var), _aff(x[1], var)
        valid = _and(_fit(p, in_dtypes[0]), _fit(q, in_dtypes[1]))
        d = _Aff(var, p.a - q.a, p.b - q.b, _ALL)  # (p - q, exact)
        if name == "ne":
            return _Pred(var, _not(d.where(0, 0)), valid)
        return _Pred(var, d.where(*_CMP[name]), valid)
    if name in ("and", "or"):
        if np.dtype(dtype) != np.bool_:
            raise _GiveUp
        var = _same_var(*x)
        p, q = _pred(x[0], var), _pred(x[1], var)
        ivs = _and(p.ivs, q.ivs) if name == "and" else _or(p.ivs, q.ivs)
        return _Pred(var, ivs, _and(p.valid, q.valid))
    if name == "not":
        (p,) = x
        if not isinstance(p, _Pred):
            raise _GiveUp
        return _Pred(p.var, _not(p.ivs), p.valid)
    if name == "select_n":
        if type(x[0]) in (bool, int):
            return _fold(name, x, dtype)
        return _select(x)
    raise _GiveUp


def _select(x: list) -> _Zero:
    """``select_n(fail, code, k)``: the first-failure chain (``k`` nonzero)."""
    if len(x) != 3:
        raise _GiveUp
    fail, code, k = x
    if not isinstance(fail, _Pred) or type(k) is not int or k == 0:
        raise _GiveUp
    if type(code) is int:
        if code != 0:
            raise _GiveUp
        code = _Zero({})
    if not isinstance(code, _Zero):
        raise _GiveUp
    conds = dict(code.conds)
    ok = _and(_not(fail.ivs), fail.valid)
    conds[fail.var] = _and(conds.get(fail.var, _ALL), ok)
    return _Zero(conds)


def analyse(closed: Any, n_inputs: int) -> dict[int, Ivs] | None:
    """For a trace with hoisted gates (``closed``, a ``ClosedJaxpr``: its inputs, then the
    failed check's number, 0 here; its last output ``[code, value]``): per scalar input
    position the set of its values for which no check fails, or None (a set per input
    does not describe the checks, or the analysis does not follow them)."""
    jaxpr = closed.jaxpr
    if len(jaxpr.invars) != n_inputs + 1:
        return None
    args: list[Callable[[], Any]] = []
    for pos, v in enumerate(jaxpr.invars[:-1]):
        aval = v.aval
        if getattr(aval, "shape", None) == () and np.dtype(aval.dtype).kind == "i":
            lo, hi = _range(aval.dtype)
            args.append(lambda pos=pos, lo=lo, hi=hi: _Aff(pos, 1, 0, _norm([(lo, hi)])))
        else:
            args.append(_opaque)
    interp = _Interp.closed(closed, args + [lambda: 0])
    out = jaxpr.outvars[-1]
    eqn = interp.producer.get(out)
    try:
        if eqn is None or eqn.primitive.name != "stack":
            raise _GiveUp
        code = interp.value(eqn.invars[0])
    except (_GiveUp, ArithmeticError, TypeError, ValueError, RecursionError):
        return None
    if type(code) is int:
        return None if code else {}
    return dict(code.conds) if isinstance(code, _Zero) else None


def _opaque() -> Any:
    raise _GiveUp


#: the value of a 0-D integer ``jax.Array`` read on the host (by ``id``, checked through a
#: weak reference: JAX arrays never change), so that one index array passed to many calls
#: is read once
_values = cache("host-checked scalars", 256)
_ArrayImpl = type(jax.numpy.zeros(()))


def _host_int(v: Any, dtype: np.dtype, weak: bool) -> int | None:
    """The integer a scalar input holds, where its type is the one the program was traced
    for (``dtype``, JAX's ``weak`` type) and the host has it or XLA:CPU does (an
    accelerator's would be a device read per call): else None."""
    t = type(v)
    if t is _ArrayImpl:
        kept = _values.get(id(v))
        if kept is not None and kept[0]() is v:
            value = kept[1]
        else:
            if v.ndim or v.dtype.kind != "i":
                return None
            try:
                (device,) = v.devices()
                if device.platform != "cpu":
                    return None
                value = int(np.asarray(v))
            except Exception:  # (deleted, or spread over processes: the program decides)
                return None
            _values[id(v)] = (weakref.ref(v), value)
        return value if v.dtype == dtype and v.weak_type == weak else None
    if (t is np.ndarray and v.ndim == 0 or isinstance(v, np.integer)) and not weak:
        return int(v) if v.dtype == dtype else None
    return None


def checker(conds: dict[int, Ivs], avals: Sequence[Any]) -> Callable[[Sequence[Any]], bool]:
    """``passes(inputs)``: whether a call's inputs (by position; ``avals``: those the program
    was traced for) are known on the host, of the traced types, and lie in ``conds``, so
    that none of its bounds checks can fail."""
    items = []
    for pos, ivs in conds.items():
        dtype, weak = np.dtype(avals[pos].dtype), bool(avals[pos].weak_type)
        # (a Python int is traced as the default integer, weakly typed)
        py = weak and dtype == np.dtype(jax.dtypes.canonicalize_dtype(int))
        bounds = (ivs[0][0], ivs[0][1]) if len(ivs) == 1 else (None, ivs)
        items.append((pos, py, dtype, weak) + bounds)

    def passes(inputs: Sequence[Any]) -> bool:
        for pos, py, dtype, weak, lo, hi in items:
            v = inputs[pos]
            if type(v) is not int or not py:
                v = _host_int(v, dtype, weak)
                if v is None:
                    return False
            if lo is not None:
                if not lo <= v <= hi:
                    return False
            elif not any(p <= v <= q for p, q in hi):
                return False
        return True

    return passes
