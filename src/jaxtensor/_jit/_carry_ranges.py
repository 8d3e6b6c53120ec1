"""The ranges of a ``while_loop``'s integer carries: assumed while its body is traced, proved
when it has been.

A ``while_loop`` carry is an input of its body's trace, so nothing in the trace says where
it lies. The body is traced assuming an interval for each integer scalar carry (an
:class:`~._ranges.Invariant`): first, where the carry starts (its initial value, where
``cond_fun`` holds of it), which is where a loop that counts down to a bound ``cond_fun``
checks stays (``while j >= 0 ...: j -= 1``). When the trace ends, the assumption is proved
an invariant: it holds of the initial values where ``cond_fun`` holds, and the body maps
every value in it, where ``cond_fun`` holds of the result, back into it. If it is not and a
check was not made because of it, the loop is traced again assuming the invariant found
by iterating the body's intervals from the start (widened where they grow, then narrowed),
or, if there is none, nothing. The loop's results lie in what the loop starts from or the
body gives (:func:`~._ranges.exits`), for the checks after it (``a[j + 1] = key``).
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import Any

import jax

from ._intervals import Iv, dtype_range
from ._ranges import (
    _EMPTY,
    Invariant,
    _Facts,
    _GiveUp,
    _Node,
    _Walk,
    carries,
    tracer_origin,
)
from ._ranges import exits as _exits
from ._ranges import pin as _pin

_GROW = 3  # iterations before a bound still growing is widened
_ITERATIONS = 12


def _hull(a: Iv | None, b: Iv | None) -> Iv | None:
    if a is None:
        return b
    if b is None:
        return a
    return (min(a[0], b[0]), max(a[1], b[1]))


def _within(a: Iv | None, b: Iv) -> bool:
    return a is None or (b[0] <= a[0] and a[1] <= b[1])


class _Eval:
    """One evaluation of intervals in a walk: what it relies on is recorded on it."""

    def __init__(self, given: dict | None = None) -> None:
        self.walk = _Walk(given=given)

    def cases(self, p: Any, holds: bool) -> list[_Facts]:
        """The facts under which ``p`` (a predicate computed by ``cond_fun``) is ``holds``."""
        if type(p) is bool or not isinstance(p, jax.core.Tracer):
            try:
                return [_Facts.NONE] if bool(p) == holds else []
            except (TypeError, jax.errors.ConcretizationTypeError):
                return [_Facts.NONE]
        if tracer_origin(p) is None:
            return [_Facts.NONE]
        try:
            return self.walk.assume(_Node.of(p), int(holds), _Facts.NONE)
        except _GiveUp:
            return [_Facts.NONE]

    def value(self, v: Any, facts: _Facts, full: Iv) -> Iv | None:
        """``v``'s interval under ``facts`` (None: the facts cannot hold)."""
        if isinstance(v, jax.core.Tracer):
            if tracer_origin(v) is None:
                return full
            try:
                iv = self.walk.value(_Node.of(v), facts)
            except _GiveUp:
                return full
            return iv if iv is _EMPTY else (max(iv[0], full[0]), min(iv[1], full[1]))
        try:
            x = int(v)
        except (TypeError, ValueError, jax.errors.ConcretizationTypeError):
            return full
        return (x, x)

    def values(self, vs: list, fulls: list, cases: list[_Facts]) -> list | None:
        """The hull over ``cases`` of the intervals of ``vs`` (None: no case can hold)."""
        out: list | None = None
        for facts in cases:
            ivs = [None if full is None else self.value(v, facts, full)
                   for v, full in zip(vs, fulls)]
            if any(iv is _EMPTY and full is not None for iv, full in zip(ivs, fulls)):
                continue  # (a case the facts rule out)
            out = ivs if out is None else [_hull(a, b) for a, b in zip(out, ivs)]
        return out


class WhileRanges:
    """The intervals of one traced ``while_loop``'s integer scalar carries: ``init``, the
    carries' initial values, of which ``first`` is ``cond_fun``; ``guess``, the intervals
    to assume (None: where the carries start)."""

    def __init__(self, init: list, first: Any, guess: list | None) -> None:
        self.init = init
        self.guessed = guess is not None
        self.fulls = [_full_range(v) for v in init]
        self.active = tracer_origin is not None and any(f is not None for f in self.fulls)
        self.invariant: Invariant | None = None
        # (when the trace ends: the invariant proved, and the intervals of the results)
        self.held: list | None = None
        self.results: list | None = None
        if not self.active:
            return
        ev = _Eval()
        self.start = ev.values(init, self.fulls, ev.cases(first, True))
        self.relies = (frozenset(ev.walk.invariants), dict(ev.walk.ranges))
        assumed = guess if guess is not None else self.start
        if assumed is not None:
            self.invariant = Invariant([self._full(k) if iv is None else iv
                                        for k, iv in enumerate(assumed)])

    def _full(self, k: int) -> Iv:
        full = self.fulls[k]
        return full if full is not None else (0, 0)  # (not an integer: never registered)

    def assume(self, ins: list) -> AbstractContextManager:
        """While the body is traced: its carries ``ins`` lie in the intervals assumed."""
        if self.invariant is None:
            return nullcontext()
        return carries(ins, self.invariant)

    def end(self, ins: list, outs: list, p: Any, results: list) -> list | None:
        """The body traced (its carries ``ins``, the carries ``outs`` it gave, ``p`` what
        ``cond_fun`` says of them) and the loop's ``results``: None if the trace holds,
        else the intervals to trace the loop again assuming."""
        if not self.active:
            return None
        inv = self.invariant
        if self.start is None:  # (the body never runs: whatever was assumed holds)
            return None
        assumed = inv.ivs if inv is not None else None
        # what the proof relies on: where the loop starts, and the body's step
        invariants, ranges = set(self.relies[0]), dict(self.relies[1])
        ok = assumed is not None and self._inductive(assumed, ins, outs, p,
                                                     (invariants, ranges))
        if not ok and inv is not None and inv.relied:
            # (the invariant found, then, if that did not hold either, nothing assumed)
            found = None if self.guessed else self._fixpoint(ins, outs, p)
            return found if found is not None else [self._full(k) for k in range(len(ins))]
        if not ok:
            invariants, ranges = set(self.relies[0]), dict(self.relies[1])
            held = self._fixpoint(ins, outs, p, (invariants, ranges))
        else:
            held = assumed
        self.held = held
        if held is None:
            return None
        if ok and inv.relied:
            for other in invariants:
                other.relied = True
            for span, found in ranges.values():
                _pin(span, found)
        # the results: the initial values (the loop may not run, or stop at a failed check)
        # or what the body gave
        ev = _Eval(self._given(ins, held))
        after = ev.values(outs, self.fulls, [_Facts.NONE])
        before = ev.values(self.init, self.fulls, [_Facts.NONE])
        if after is not None and before is not None:
            invariants |= ev.walk.invariants
            ranges.update(ev.walk.ranges)
            self.results = [_hull(a, b) for a, b in zip(before, after)]
            tracked = [k for k, f in enumerate(self.fulls) if f is not None]
            _exits([results[k] for k in tracked], [self.results[k] for k in tracked],
                   frozenset(invariants), ranges)
        return None

    def _given(self, ins: list, ivs: list) -> dict:
        return {id(v): (v, ivs[k]) for k, v in enumerate(ins)
                if self.fulls[k] is not None and isinstance(v, jax.core.Tracer)}

    def _step(self, ivs: list, ins: list, outs: list, p: Any,
              record: tuple | None = None) -> list | None:
        """The intervals of the carries the body gives from carries in ``ivs``, where
        ``cond_fun`` holds of them (None: it never does)."""
        ev = _Eval(self._given(ins, ivs))
        out = ev.values(outs, self.fulls, ev.cases(p, True))
        if record is not None:
            record[0].update(ev.walk.invariants)
            record[1].update(ev.walk.ranges)
        return out

    def _inductive(self, ivs: list, ins: list, outs: list, p: Any,
                   record: tuple | None = None) -> bool:
        """Whether ``ivs`` holds where the loop starts and the body keeps it (``record``:
        what the proof of the step read, added to it)."""
        if not all(_within(a, b) for a, b in zip(self.start, ivs)):
            return False
        nxt = self._step(ivs, ins, outs, p, record)
        return nxt is None or all(_within(a, b) for a, b in zip(nxt, ivs))

    def _fixpoint(self, ins: list, outs: list, p: Any,
                  record: tuple | None = None) -> list | None:
        """An invariant found by iterating the body from where the loop starts (a bound that
        keeps growing widened to half its dtype's range, then narrowed); None if the
        iteration finds none."""
        ivs = [self._full(k) if iv is None else iv for k, iv in enumerate(self.start)]
        for n in range(_ITERATIONS):
            nxt = self._step(ivs, ins, outs, p)
            if nxt is None:
                return ivs
            grown = [_hull(a, b) for a, b in zip(ivs, nxt)]
            if grown == ivs:
                break
            if n >= _GROW:
                grown = [self._widen(k, a, b) for k, (a, b) in enumerate(zip(ivs, grown))]
            ivs = grown
        else:
            return None
        for _ in range(_GROW):  # (narrowing: each step keeps an invariant one)
            nxt = self._step(ivs, ins, outs, p)
            if nxt is None:
                break
            narrower = [_hull(a, b) if a is not None else b
                        for a, b in zip(self.start, nxt)]
            narrower = [self._full(k) if iv is None else iv for k, iv in enumerate(narrower)]
            if narrower == ivs:
                break
            ivs = narrower
        return ivs if self._inductive(ivs, ins, outs, p, record) else None

    def _widen(self, k: int, old: Iv, new: Iv) -> Iv:
        full = self._full(k)
        lo = new[0] if new[0] >= old[0] else full[0] // 2
        hi = new[1] if new[1] <= old[1] else full[1] // 2
        return (lo, hi)


def _full_range(v: Any) -> Iv | None:
    """The values of ``v``'s dtype if it is an integer or bool scalar (a tracer, an array,
    a Python number), else None."""
    if isinstance(v, jax.core.Tracer):
        return dtype_range(v.aval)
    try:
        return dtype_range(jax.typeof(v))
    except TypeError:
        return None
