"""The fast path for the commonest indices: Python ints and int/None-bounded slices.

``x[i]``, ``x[i, j]``, ``x[a:b]``, ``x[i, ::2]``... are parsed once per *signature* (the
slices' bounds and where the ints stand, not the ints' values) into a :class:`Template`:
the static view steps of the result, and the result's start offsets as an affine function
of the ints (``starts = old + const + sum(i_j * coef_j)``). A call then only checks the
ints' bounds, evaluates that function and calls a compiled kernel the template holds, so a
loop ``x[i] = v`` costs one dictionary lookup and one kernel dispatch per write.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from . import _kernels, _view
from ._constants import device_constant
from ._view import View

Tracer = jax.core.Tracer
_IDX_NP = _view._IDX_NP

_base_templates: dict[tuple, Template | None] = {}
_MAX_CACHE = 4096


class _Lin:
    """``const + sum(coefs[j] * i_j)``: tracks how a start offset depends on the ints."""

    __slots__ = ("const", "coefs")

    def __init__(self, const: int = 0, coefs: dict[int, int] | None = None) -> None:
        self.const = const
        self.coefs = coefs or {}

    def __add__(self, other: Any) -> _Lin:
        if isinstance(other, _Lin):
            c = dict(self.coefs)
            for k, v in other.coefs.items():
                c[k] = c.get(k, 0) + v
            return _Lin(self.const + other.const, c)
        return _Lin(self.const + other, self.coefs)

    __radd__ = __add__

    def __mul__(self, k: int) -> _Lin:
        return _Lin(self.const * k, {j: v * k for j, v in self.coefs.items()})

    __rmul__ = __mul__


class Template:
    """Everything about ``x[key]`` that does not depend on the ints' values."""

    __slots__ = (
        "steps", "comp", "shape", "key", "n_old", "const", "int_terms", "int_checks",
        "size", "_read", "_write", "_write_donate", "view_fast",
    )

    def __init__(self, view: View, n_old: int, int_checks: list[tuple[int, int]]) -> None:
        self.steps = view.steps
        self.comp = view.comp
        self.shape = view.shape
        self.key = view.key
        self.size = math.prod(view.shape)
        self.n_old = n_old
        const, terms = [], []
        for pos, s in enumerate(view.starts):
            if isinstance(s, _Lin):
                const.append(s.const)
                for j, c in s.coefs.items():
                    if c:
                        terms.append((pos, j, c))
            else:
                const.append(s)
        self.const = tuple(const)
        self.int_terms = tuple(terms)
        self.int_checks = tuple(int_checks)  # (axis, size) per int in the key
        self._read = self._write = self._write_donate = None
        self.view_fast: dict = {}  # shared by every view this template makes

    def starts(self, old: tuple, ints: list[int]) -> list[int]:
        for j, (axis, n) in enumerate(self.int_checks):
            i = ints[j]
            if i < 0:
                if i < -n:
                    raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
                ints[j] = i + n
            elif i >= n:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
        out = list(self.const)
        for p in range(len(old)):
            out[p] += old[p]
        for pos, j, c in self.int_terms:
            out[pos] += ints[j] * c
        return out

    def view(self, starts: list[int]) -> View:
        v = object.__new__(View)
        v.steps, v.starts, v.comp, v.shape, v.key, v.fast, v.dyn_cache = (
            self.steps, tuple(starts), self.comp, self.shape, self.key, self.view_fast, None)
        return v

    # -- kernels ---------------------------------------------------------------------------
    def read_fn(self) -> Callable:
        fn = self._read
        if fn is None:
            fn = self._read = jax.jit(self._read_py())
        return fn

    def _read_py(self) -> Callable:
        steps, comp = self.steps, self.comp
        return lambda base, dyn: _view.chain_forward(steps, comp, base, dyn)

    def write_py(self) -> Callable:
        steps, comp, shape = self.steps, self.comp, self.shape

        def write(base: Any, dyn: Any, v: Any) -> Any:
            v = _kernels._fit(v, _kernels._view_dtype(base, comp), shape)
            return _view.chain_backward(steps, comp, base, dyn, v)

        return write

    def write_fn(self, donate: bool) -> Callable:
        if donate:
            fn = self._write_donate
            if fn is None:
                fn = self._write_donate = jax.jit(self.write_py(), donate_argnums=(0,))
        else:
            fn = self._write
            if fn is None:
                fn = self._write = jax.jit(self.write_py())
        return fn


def _slice_sig(k: slice) -> tuple | None:
    a, b, c = k.start, k.stop, k.step
    if (a is None or type(a) is int) and (b is None or type(b) is int) and (
            c is None or type(c) is int):
        return (a, b, c)
    return None


def signature(key: Any) -> tuple | None:
    """The static signature of an int/slice-only key (one item per entry), else None."""
    t = type(key)
    if t is int:
        return ("i",)
    if t is slice:
        s = _slice_sig(key)
        return None if s is None else (s,)
    if t is tuple:
        sig = []
        for k in key:
            tk = type(k)
            if tk is int:
                sig.append("i")
            elif tk is slice:
                s = _slice_sig(k)
                if s is None:
                    return None
                sig.append(s)
            else:
                return None
        return tuple(sig)
    return None


def ints_of(key: Any) -> list[int]:
    if type(key) is int:
        return [key]
    if type(key) is tuple:
        return [k for k in key if type(k) is int]
    return []


def template(view: View | None, shape: tuple[int, ...], sig: tuple) -> Template | None:
    """The cached template for indexing a tensor (``view`` of a base, ``shape``) by ``sig``."""
    if view is None:
        cache, ck = _base_templates, (shape, sig)
    else:
        cache = view.fast
        if cache is None:
            cache = view.fast = {}
        ck = sig
    try:
        return cache[ck]
    except KeyError:
        pass
    tpl = _build(view, shape, sig)
    if len(cache) < _MAX_CACHE:
        cache[ck] = tpl
    return tpl


def _build(view: View | None, shape: tuple[int, ...], sig: tuple) -> Template | None:
    if len(sig) > len(shape):
        return None  # the slow path raises the right IndexError
    if view is not None and any(isinstance(s, Tracer) for s in view.starts):
        return None
    ops: list[tuple] = []
    checks: list[tuple[int, int]] = []
    for axis, it in enumerate(sig):
        n = shape[axis]
        if it == "i":
            ops.append(("i", _Lin(0, {len(checks): 1})))
            checks.append((axis, n))
        else:
            a, b, c = it
            if c == 0:
                return None
            start, stop, step = slice(a, b, c).indices(n)
            size = len(range(start, stop, step))
            ops.append(("s", start if size else 0, size, step))
    for axis in range(len(sig), len(shape)):
        ops.append(("s", 0, shape[axis], 1))
    zero = None if view is None else View(view.steps, (0,) * len(view.starts), view.comp)
    new = _view.compose_basic(zero, shape, ops)
    return Template(new, 0 if view is None else len(view.starts), checks)


def getitem(x: Any, key: Any, sig: tuple) -> Any:
    """``x[key]`` for an int/slice key, or None when the key needs the general path."""
    v = x._view
    tpl = template(v, x.shape, sig)
    if tpl is None:
        return None
    return x._derive(tpl.view(tpl.starts(() if v is None else v.starts, ints_of(key))))


def setitem(x: Any, key: Any, sig: tuple, value: Any) -> bool:
    """``x[key] = value`` for an int/slice key; False when the key needs the general path."""
    from ._indexing import prepare_value

    v = x._view
    tpl = template(v, x.shape, sig)
    if tpl is None:
        return False
    starts = tpl.starts(() if v is None else v.starts, ints_of(key))
    val = prepare_value(value, x.dtype, tpl.shape)
    if tpl.size == 0:
        return True
    storage = x._storage
    arr = storage.array
    if isinstance(arr, Tracer) or isinstance(val, Tracer):
        new = tpl.write_py()(arr, np.array(starts, dtype=_IDX_NP), val)
    else:
        # repeated starts and scalar values go to the kernel as kept device arrays
        st = tuple(starts)
        dyn = device_constant(("starts", st), lambda: jnp.asarray(np.array(st, _IDX_NP)))
        if dyn is None:
            dyn = np.array(st, dtype=_IDX_NP)
        t = type(value)
        if t is float or t is int or t is bool:
            v0 = val
            key = ("value", t, value, v0.dtype, math.copysign(1.0, value) if t is float else 0)
            kept = device_constant(key, lambda: jnp.asarray(v0))
            if kept is not None:
                val = kept
        # arr, storage.array and the argument: nobody else holds the buffer
        donate = not storage.exported and sys.getrefcount(arr) <= 3
        new = tpl.write_fn(donate)(arr, dyn, val)
    storage.set(new)
    return True
