"""Basic indices (ints, slices, new axes) as views: a plan lowered once into a template.

``x[i]``, ``x[i, j]``, ``x[a:b]``, ``x[i, ::2, None]``... are lowered once per *plan* (the
slices' bounds and where the ints stand, not the ints' values; see ``_plan.py``) into
a :class:`Template`: the static view steps of the result, and the result's start offsets
as an affine function of the ints (``starts = old + const + sum(i_j * coef_j)``). A call
then only checks the ints' bounds, evaluates that function and, for a write, calls a
compiled kernel the template holds, so a loop ``x[i] = v`` costs one dictionary lookup
and one kernel dispatch per write.
"""

from __future__ import annotations

import math
from typing import Any

import jax
from jax import lax

from .._core import View, _cache, _kernels, _view, checked_later
from .._core import current as _current_jit
from .._core._errors import window_message
from . import _plan
from ._plan import Int, NewAxis, Plan, Slice, Window

Tracer = jax.core.Tracer
_IDX_NP = _view._IDX_NP

#: Templates of keys on base Tensors, by (shape, signature); those of keys on a view live
#: in the view structure's own table (``View.fast``), shared by every view of that structure.
_base_templates = _cache.cache("basic index templates", 4096)


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


class IntCheck:
    """The bounds check of one int (or ``ds()`` start) of a key.

    (A class with slots, not a NamedTuple: read on every call with an int, and CPython
    reads a slot faster than it unpacks a tuple subclass.)
    """

    __slots__ = ("axis", "size", "window")

    def __init__(self, axis: int, size: int, window: int | None) -> None:
        self.axis = axis  # the axis it indexes
        self.size = size  # that axis' size
        self.window = window  # a ds() window's size, or None: an int


class Template:
    """Everything about ``x[key]`` that does not depend on the ints' values."""

    __slots__ = (
        "steps", "comp", "shape", "key", "n_old", "const", "int_terms", "int_checks",
        "size", "pick", "view_fast", "flat", "element",
    )

    def __init__(self, view: View, n_old: int, int_checks: list[IntCheck]) -> None:
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
        self.int_checks = tuple(int_checks)
        # the write kernels, the ``pick`` argument of Storage.update: shared by every
        # template of this view structure (x[2:7] and x[3:8], or X.T[3, 0] made from a new
        # X.T each time, differ only in start offsets, which are data), so writes at new
        # positions compile nothing
        self.pick = _kernels.view_kernels(view)
        # the memo of the views this template makes (all of one structure)
        self.view_fast = _view.memo_of(view.key)
        # one element of a strided view of the base: its flat index is the starts dotted
        # with these (a scalar write through it can be queued like one into the base)
        st0 = view.steps[0]
        self.flat = (_view.c_strides(st0.in_shape) if self.size == 1 and len(view.steps) == 1
                     and type(st0) is _view.AxisStep and view.comp is None else None)
        # an integer on every axis (no ``...``): a read gives the element's value, not a view
        self.element = False

    def starts(self, old: tuple, ints: list[Any]) -> list[Any]:
        """The view's start offsets for these int values (bounds checked, negatives wrapped;
        ``ints`` itself is left as it is)."""
        wrapped = ints
        for j, chk in enumerate(self.int_checks):
            i = ints[j]
            n = chk.size
            if chk.window is not None:  # a ds() window's start: not wrapped
                s = _window_check(i, chk.window, n, chk.axis)
                if s is not i:  # (out of range, checked when the program runs)
                    if wrapped is ints:
                        wrapped = list(ints)
                    wrapped[j] = s
                continue
            if type(i) is int:
                if i < 0:
                    if i >= -n:
                        if wrapped is ints:
                            wrapped = list(ints)
                        wrapped[j] = i + n
                        continue
                elif i < n:
                    continue
                i = _out_of_range(i, n, chk.axis)  # (raises, or checked when it runs)
            # traced (inside jit): checked by the trace, wrapped here
            jt = _current_jit.get()
            if jt is not None:
                jt.check_index(i, n, chk.axis)
            if wrapped is ints:
                wrapped = list(ints)
            # (in the index dtype: an int8 index of an axis of 200 would wrap)
            i = lax.convert_element_type(i, _IDX_NP)
            wrapped[j] = lax.select(lax.lt(i, _IDX_NP(0)), lax.add(i, _IDX_NP(n)), i)
        out = list(self.const)
        for p in range(len(old)):
            o = old[p]
            out[p] = out[p] + o if type(o) is int else _plus(out[p], o)
        for pos, j, c in self.int_terms:
            i = wrapped[j]
            o = out[pos]
            if type(i) is int and type(o) is int:
                out[pos] = o + i * c
            else:
                out[pos] = _plus(o, i * c if type(i) is int else _times(i, c))
        return out

    def view(self, starts: list[int], origin: tuple | None = None) -> View:
        v = object.__new__(View)
        v.steps, v.starts, v.comp, v.shape, v.key, v.fast, v.dyn_cache, v.origin = (
            self.steps, tuple(starts), self.comp, self.shape, self.key, self.view_fast, None,
            origin)
        return v


def _plus(a: Any, b: Any) -> Any:
    """``a + b`` of two start offsets (ints, or traced where an index is): a traced sum in
    the index dtype, made by ``lax`` (``jax.numpy``'s ``+`` traces a function of its own at
    every call), and none where one of them is the int 0."""
    if type(a) is int:
        if type(b) is int:
            return a + b
        if a == 0:
            return lax.convert_element_type(b, _IDX_NP)
    elif type(b) is int and b == 0:
        return lax.convert_element_type(a, _IDX_NP)
    return lax.add(lax.convert_element_type(a, _IDX_NP), lax.convert_element_type(b, _IDX_NP))


def _times(i: Any, c: int) -> Any:
    """``i * c`` for a traced index ``i`` and an int coefficient, in the index dtype."""
    i = lax.convert_element_type(i, _IDX_NP)
    return i if c == 1 else lax.mul(i, _IDX_NP(c))


def _out_of_range(i: int, n: int, axis: int) -> Any:
    """The constant index ``i`` out of an axis of ``n``: traced, where the running trace
    checks it when its program runs (a loop body, a ``cond`` branch), else ``IndexError``."""
    t = checked_later(i, _IDX_NP)
    if t is None:
        raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
    return t


def _window_check(i: Any, size: int, n: int, axis: int) -> Any:
    """A ``ds(i, size)`` window must lie inside its axis: ``0 <= i <= n - size``. Returns
    the start: ``i``, or a constant out of range traced where the running trace checks it
    when its program runs (else ``IndexError``)."""
    if type(i) is int:
        if 0 <= i <= n - size:
            return i
        t = checked_later(i, _IDX_NP)
        if t is None:
            raise IndexError(window_message(i, size, n, axis))
        i = t
    jt = _current_jit.get()  # traced: checked by the trace
    if jt is not None:
        jt.check_window(i, size, n, axis)
    return i


def template(view: View | None, shape: tuple[int, ...], sig: tuple, plan: Plan) -> Template:
    """The template for a basic ``plan`` (of signature ``sig``) on a tensor (``view`` of a
    base, of ``shape``)."""
    if view is None:
        cache, ck = _base_templates, (shape, sig)
    else:
        cache = view.memo()
        ck = sig
    tpl = cache.get(ck)
    if tpl is None:
        tpl = _build(view, shape, plan)
        tpl.element = tpl.shape == () and not any(s is Ellipsis for s in sig)
        cache[ck] = tpl
    return tpl


def lookup(view: View | None, shape: tuple[int, ...], sig: tuple) -> Template:
    """The template of the basic key signature ``sig`` on a tensor (``view`` of a base, of
    ``shape``): a memo lookup for a repeated key, else planned and made."""
    if view is None:
        tpl = _base_templates.get((shape, sig))
    else:
        memo = view.fast  # (the structure's memo, once made: View.memo without the call)
        tpl = (memo if memo is not None else view.memo()).get(sig)
    if tpl is None:
        # (a slice's code in ``sig`` may be the plain tuple its SliceCode equals: the
        # fast path's signature, ``_getset._basic_sig``, builds no object per call, and
        # the template is kept under it, so a hit compares tuples of one type)
        named = tuple(_plan.slice_code(*c) if type(c) is tuple else c for c in sig)
        tpl = template(view, shape, sig, _plan.plan(shape, named))
    return tpl


def _build(view: View | None, shape: tuple[int, ...], plan: Plan) -> Template:
    ops: list[_view.TakeOp | _view.SliceOp | None] = []
    checks: list[IntCheck] = []
    for it in plan.items:
        t = type(it)
        if t is Int:
            ops.append(_view.TakeOp(_Lin(0, {len(checks): 1})))
            checks.append(IntCheck(it.axis, it.size, None))
        elif t is Window:
            ops.append(_view.SliceOp(_Lin(0, {len(checks): 1}), it.size, 1))
            checks.append(IntCheck(it.axis, it.n, it.size))
        elif t is Slice:
            ops.append(_view.SliceOp(it.start, it.size, it.step))
        elif t is NewAxis:
            ops.append(None)
    zero = None if view is None else View(view.steps, (0,) * len(view.starts), view.comp)
    new = _view.compose_basic(zero, shape, ops)
    return Template(new, 0 if view is None else len(view.starts), checks)
