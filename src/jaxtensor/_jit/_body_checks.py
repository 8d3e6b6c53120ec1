"""The checks of one trace of a jaxtensor control-flow body (``fori_loop``, ``while_loop``,
``cond`` inside a ``jaxtensor.jit`` trace, OWN check mode): gates of its writes, and the
first failure the construct carries, one vector ``[code, value]`` (code 0: none; else the
number of the failed check, as ``Trace`` numbers them).

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
from jax import lax

from .._core import IDX as _IDX
from ._unfused import vector_once


class BodyChecks:
    """The checks of one trace of a jaxtensor control-flow body (OWN mode): ``items``
    (fails, value, code) in order; ``ok``: whether every check so far passed (with what
    gated the body from outside), which gates the body's writes. A construct carries its
    first failure as one vector ``[code, value]`` (code 0: none)."""

    __slots__ = ("items", "ok", "fresh", "base", "carried", "folded", "merged")

    def __init__(self, ok: Any, carried: Any = None, base: Any = None) -> None:
        self.items: list[tuple] = []
        self.ok = ok
        self.base = base  # the gate around the body (None: none)
        # the first failure of earlier iterations, folded into the body's at its first write
        self.carried = carried
        self.folded: Any = None  # the last folded failure, ``items[0]`` from then on
        self.merged = False  # whether ``carried`` is folded in
        self.fresh = 0  # the checks made since the last write

    def gate(self) -> Any:
        """``ok`` for a write. The failure carried in and the checks so far are folded into
        one ``[code, value]``, computed once, before the write (``_unfused.py``: else
        XLA:CPU recomputes the checks after it, and copies the written Tensor), which is
        what the construct carries on and what ``ok`` reads. So a checked body adds a few
        kernels to the unchecked one's whatever the number of its checks (XLA:CPU runs a
        loop body of many kernels on its thread pool: docs/decisions.md, "Checks in loop
        bodies cost a few kernels, not one per check")."""
        if self.fresh and self.ok is not None:
            self._fold(vector_once)
        return self.ok

    def _fold(self, once: Any) -> Any:
        """Fold the failure carried in and the checks so far into ``[code, value]``
        (passed through ``once``), which ``ok`` reads from then on."""
        items = self.items
        if self.carried is not None and not self.merged:
            items = [_failure_item(self.carried), *items]
        self._set(once(_first_failure(items)))
        return self.folded

    def _set(self, codes: Any) -> None:
        self.fresh = 0
        self.merged = self.carried is not None
        self.folded = codes
        self.items = [_failure_item(codes)]
        clean = codes[0] == 0
        self.ok = clean if self.base is None else self.base & clean

    def current(self) -> Any:
        """``[code, value]`` of the first failure so far, the one carried in included: what
        a construct nested here starts from, so that what it carries out is this body's
        first failure after it (:meth:`leave`), with no fold of its own."""
        if self.fresh or (self.items and self.folded is None):
            return self._fold(lambda v: v)  # (it enters a loop's carry: computed once)
        if self.folded is not None:
            return self.folded
        if self.carried is not None:
            return self.carried
        return jnp.zeros(2, _IDX)

    def saved(self) -> tuple:
        """The state, for :meth:`rewind` after a trace of a nested construct is abandoned."""
        return list(self.items), self.ok, self.fresh, self.folded, self.merged

    def rewind(self, state: tuple) -> None:
        items, self.ok, self.fresh, self.folded, self.merged = state
        self.items = list(items)

    def leave(self, codes: Any) -> None:
        """A construct nested here that started from :meth:`current` ended with ``codes``."""
        self._set(codes)

    def first(self, codes: Any) -> Any:
        """``[code, value]`` of the first failure: ``codes`` (the failure carried in, 0: none)
        if it failed, else this trace's first failing check."""
        if not self.items:  # (carried unchanged: a loop invariant, which XLA folds away)
            return codes
        if self.folded is not None and len(self.items) == 1 and self.merged:
            return self.folded
        mine = _first_failure(self.items)
        return mine if self.merged else lax.select(codes[0] != 0, codes, mine)


def _failure_item(codes: Any) -> tuple:
    return codes[0] != 0, codes[1], codes[0]


def _first_failure(items: list[tuple]) -> Any:
    """``[code, value]`` of the first failing check of ``items`` ((fails, value, code)
    each); zeros where none failed."""
    c, b = lax.full((), 0, _IDX), lax.full((), 0, _IDX)
    for fail, v, k in reversed(items):
        c = lax.select(fail, jnp.asarray(k, _IDX), c)
        b = lax.select(fail, jnp.asarray(v, _IDX), b)
    return jnp.stack([c, b])
