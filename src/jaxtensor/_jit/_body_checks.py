"""The checks of one trace of a jaxtensor control-flow body (``fori_loop``, ``while_loop``,
``cond`` inside a ``jaxtensor.jit`` trace, OWN check mode): gates of its writes, and the
first failure the construct carries.

The failure is carried in int32 (a tuple, :func:`no_failure`): one vector ``[code, low]``
(code 0: none; else the number of the failed check, as ``Trace`` numbers them, negative
where the failed value needs a high word too; ``low``: its low 32 bits) and, with 64-bit
indices, one scalar ``high`` that only a check whose value may not fit int32 sets. In
int32, not int64, the vector a checked loop body passes from check to check keeps the
loop under the bytes per iteration up to which XLA:CPU compiles a loop whole (flood fill's
checked loop); a body whose checks' values are all proved to fit int32 (an int32 index, a
loop index) carries ``high`` through untouched, and XLA drops it.

At each gated write the failure carried in and the checks made so far are folded into that
vector, passed once through ``_unfused.vector_once`` (so that XLA:CPU neither recomputes
the checks after the write nor copies the written Tensor; a vector that reads no array
passes as it is), and the gate reads it. A body
then has a few kernels more than the unchecked one, however many checks it makes: XLA:CPU
runs a loop body of more than 8 kernels on its thread pool, and compiles a loop whole into
one kernel only while it stays small (docs/decisions.md, "Checks in loop bodies cost a few
kernels, not one per check").
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from .._core import IDX as _IDX
from . import _ranges
from ._unfused import vector_once

#: the dtype of a carried failure
CODE = jnp.int32
#: the code of no failure
_NONE = np.int32(0)
#: whether a failed value may need a high word (64-bit indices)
_WIDE = np.dtype(_IDX).itemsize > 4
_LOW = 2**31


def no_failure() -> tuple:
    """The carried failure of a construct none of whose checks failed yet."""
    vec = jnp.zeros(2, CODE)
    return (vec, jnp.zeros((), CODE)) if _WIDE else (vec,)


def failure(codes: tuple) -> tuple[Any, Any]:
    """(the number of the failed check, its value), both ``IDX``, of the carried failure
    ``codes`` (number 0: none failed)."""
    code = lax.convert_element_type(_at(codes[0], 0), _IDX)
    low = lax.convert_element_type(_at(codes[0], 1), _IDX)
    if not _WIDE:
        return code, low
    high = lax.shift_left(lax.convert_element_type(codes[1], _IDX), _IDX(32))
    both = lax.bitwise_or(high, lax.bitwise_and(low, _IDX(2**32 - 1)))
    return lax.abs(code), lax.select(lax.lt(code, _IDX(0)), both, low)


class BodyChecks:
    """The checks of one trace of a jaxtensor control-flow body (OWN mode): ``items``
    (fails, value, code) in order; ``ok``: whether every check so far passed (with what
    gated the body from outside), which gates the body's writes. A construct carries its
    first failure as :func:`no_failure` does."""

    __slots__ = ("items", "ok", "fresh", "base", "carried", "high", "folded", "merged")

    def __init__(self, ok: Any, codes: tuple, base: Any = None, folds: bool = False) -> None:
        self.items: list[tuple] = []
        self.ok = ok
        self.base = base  # the gate around the body (None: none)
        # the first failure of earlier iterations (``codes``, the construct's), folded into
        # the body's at its first write where ``folds`` (the body's writes are gated by it)
        self.carried = codes if folds else None
        # the high word the construct carries in, kept where no check of the body sets it
        self.high = codes[1:]
        self.folded: tuple | None = None  # the last folded failure, ``items[0]`` from then on
        self.merged = False  # whether ``carried`` is folded in
        self.fresh = 0  # the checks made since the last write

    def gate(self) -> Any:
        """``ok`` for a write. The failure carried in and the checks so far are folded into
        one failure, computed once, before the write (``_unfused.py``: else XLA:CPU
        recomputes the checks after it, and copies the written Tensor), which is what the
        construct carries on and what ``ok`` reads. So a checked body adds a few kernels to
        the unchecked one's whatever the number of its checks (XLA:CPU runs a loop body of
        many kernels on its thread pool: docs/decisions.md, "Checks in loop bodies cost a
        few kernels, not one per check")."""
        if self.fresh and self.ok is not None:
            self._fold(True)
        return self.ok

    def _fold(self, once: bool) -> tuple:
        """Fold the failure carried in and the checks so far into one failure (computed
        once if ``once``), which ``ok`` reads from then on."""
        items = self.items
        if self.carried is not None and not self.merged:
            items = [_failure_item(self.carried), *items]
        self._set(_first_failure(items, once, self.high))
        return self.folded

    def _set(self, codes: tuple) -> None:
        self.fresh = 0
        self.merged = self.carried is not None
        self.folded = codes
        self.items = [_failure_item(codes)]
        ok = clean(codes)
        self.ok = ok if self.base is None else lax.bitwise_and(self.base, ok)

    def current(self) -> tuple:
        """The first failure so far, the one carried in included: what a construct nested
        here starts from, so that what it carries out is this body's first failure after it
        (:meth:`leave`), with no fold of its own."""
        if self.fresh or (self.items and self.folded is None):
            return self._fold(False)  # (it enters a loop's carry: computed once)
        if self.folded is not None:
            return self.folded
        if self.carried is not None:
            return self.carried
        return (jnp.zeros(2, CODE), *self.high) if self.high else no_failure()

    def saved(self) -> tuple:
        """The state, for :meth:`rewind` after a trace of a nested construct is abandoned."""
        return list(self.items), self.ok, self.fresh, self.folded, self.merged

    def rewind(self, state: tuple) -> None:
        items, self.ok, self.fresh, self.folded, self.merged = state
        self.items = list(items)

    def leave(self, codes: tuple) -> None:
        """A construct nested here that started from :meth:`current` ended with ``codes``."""
        self._set(codes)

    def first(self, codes: tuple) -> tuple:
        """The first failure: ``codes`` (the failure carried in, code 0: none) if it failed,
        else this trace's first failing check."""
        if not self.items:  # (carried unchanged: a loop invariant, which XLA folds away)
            return codes
        if self.folded is not None and len(self.items) == 1 and self.merged:
            return self.folded
        mine = _first_failure(self.items, False, codes[1:])
        return mine if self.merged else select(lax.ne(_at(codes[0], 0), _NONE),
                                                      codes, mine)


def select(p: Any, a: tuple, b: tuple) -> tuple:
    """The carried failure ``a`` where ``p``, else ``b`` (a word the two share as it is)."""
    return tuple(x if x is y else lax.select(p, x, y) for x, y in zip(a, b))


class _Carried(tuple):
    """The value of a carried failure as an item of :class:`BodyChecks`: (low, high)."""


def _failure_item(codes: tuple) -> tuple:
    vec = codes[0]  # (two reads of the code: one shared, XLA:CPU fuses the flood fill's
    # checked loop into two more kernels)
    return lax.ne(_at(vec, 0), _NONE), _Carried((_at(vec, 1), *codes[1:])), _at(vec, 0)


def clean(codes: tuple) -> Any:
    """Whether the carried failure ``codes`` is none (its code is 0)."""
    return lax.eq(_at(codes[0], 0), _NONE)


def _at(vec: Any, k: int) -> Any:
    """``vec[k]`` of a 1-D vector, by ``lax`` (``jax.numpy``'s indexing and operators trace
    a function of their own at each call: a trace of many checks spent most of its time
    there)."""
    return lax.index_in_dim(vec, k, keepdims=False)


def _stack(values: list) -> Any:
    """``jnp.stack`` of 0-D values of one dtype, by ``lax``."""
    return lax.concatenate([lax.broadcast_in_dim(v, (1,), ()) for v in values], 0)


def _words(v: Any) -> tuple[Any, Any]:
    """(low word, high word or None where ``v`` is proved to fit int32) of the ``IDX``
    value ``v``."""
    v = lax.convert_element_type(v, _IDX)
    low = lax.convert_element_type(v, CODE)  # (wraps)
    if not _WIDE or _ranges.proves(v, -_LOW, _LOW - 1, checks=False):
        return low, None
    return low, lax.convert_element_type(lax.shift_right_arithmetic(v, _IDX(32)), CODE)


def _first_failure(items: list[tuple], once: bool, high: tuple = ()) -> tuple:
    """The carried failure of the first failing check of ``items`` ((fails, value, code)
    each, the first of them the failure carried in, if any; code 0 where none failed),
    computed once if ``once`` (:func:`~._unfused.vector_once`). Its high word is the one
    carried in (else ``high``'s) where no check sets it."""
    start = items[0][1] if items and type(items[0][1]) is _Carried else None
    high = start[1:] if start is not None else high
    high = high[0] if high and _WIDE else None
    wide = False  # (whether a check set the high word)
    c, b = lax.full((), 0, CODE), lax.full((), 0, CODE)
    h = lax.full((), 0, CODE) if high is None else high
    for fail, v, k in reversed(items):
        if type(v) is _Carried:
            low, hi = v[0], (v[1] if wide else None)
        else:
            low, hi = _words(v)
            k = lax.convert_element_type(k, CODE)
            if hi is not None:
                k, wide = -k, True
        c = lax.select(fail, k, c)
        b = lax.select(fail, low, b)
        if hi is not None:
            h = lax.select(fail, hi, h)
    if not _WIDE:
        vec = _stack([c, b])
        return (vector_once(vec) if once else vec,)
    if not wide:  # (the high word carried through untouched: XLA drops it)
        vec = _stack([c, b])
        return (vector_once(vec) if once else vec, h)
    vec = _stack([c, b, h])
    if once:
        vec = vector_once(vec)
    return lax.slice_in_dim(vec, 0, 2), _at(vec, 2)
