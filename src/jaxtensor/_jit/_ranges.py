"""Bounds checks that cannot fail: the range of a traced integer index, proved at trace time.

While a ``fori_loop`` body is traced, its index is known to lie between the loop's bounds
(:func:`loop_index`). :func:`proves` walks back from a traced scalar index over the
equations that computed it (``_jax_private.tracer_origin``), with exact interval arithmetic,
to the loop indices, literals and inputs it depends on; a check whose index provably lies
in the axis is not made. ``t[i - 1]``, ``t[j + 1, i]``, ``t[(i + 1) % n]`` in a loop over
``range(1, n)`` are proved; an index read from data is not. What else a trace knows:
a ``while_loop``'s integer carries lie in an :class:`Invariant` (assumed while its body is
traced, proved when it has been: ``_carry_ranges.py``) and its results in what that proof
gives (:func:`exits`); a ``cond``'s predicate holds in its branch (:func:`in_branch`); an
index checked before, in the same body or one around it, lies in what it was checked
against (:func:`checked`).

Soundness: every value is over-approximated by a closed integer interval. A result whose
exact interval does not fit its dtype (where the device wraps) is widened to the dtype's
whole range, as is the result of any primitive the interpreter does not model, so an
interval always contains every value the device can compute. A ``select_n`` is followed
into each case under the facts its predicate implies there (``jnp.remainder``'s sign
fix-up: ``r < 0`` in one case, ``r >= 0`` in the other). The walk gives up (no proof) past
:data:`_BUDGET` steps. ``tests/internals/test_ranges_soundness.py`` runs the interpreter
against JAX's concrete evaluation.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import jax
import numpy as np
from jax.extend.core import Literal

from .._core._jax_private import tracer_origin
from ._intervals import (
    CALLS,
    CMP,
    MODELLED,
    NEGATE,
    SAME,
    SWAP,
    Iv,
    apply,
    const,
    dtype_range,
    fit,
    is_scalar,
    restrict,
)

#: the interval of a case that cannot happen under the facts assumed
_EMPTY = None
_BUDGET = 4000
_MAX_CASES = 8

#: the index dtype's range (of the bounds of an eager loop's :class:`Range`)
_WIDEST: Iv = (int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max))
#: loop indices being traced: id -> (the index tracer, lower, upper, the Range and span
#: assumed or None, and the span the trace finds its proofs hold in, narrowed by each)
_KNOWN: dict[int, tuple[Any, Any, Any, tuple | None, list]] = {}
#: the integer carries of ``while_loop`` bodies being traced: id -> (the carry's tracer in
#: the body, the :class:`Invariant` assumed, its position)
_CARRIED: dict[int, tuple[Any, Invariant, int]] = {}
#: the integer results of ``while_loop``s traced: id -> (a weak reference to the result,
#: its interval, what a proof through it relies on: invariants, ranges)
_EXITS: dict[int, tuple[Any, Iv, frozenset, dict]] = {}


class Range:
    """The range ``span = (lo, hi)`` of an eager ``fori_loop``'s index that the programs of
    one loop may assume (their bounds are traced, so nothing else says where it lies): a
    call whose index stays in it runs them. It starts as the first call's range; the first
    trace to end widens it to the widest span around it in which every check that trace
    proved still holds, and every later trace (which starts from a span inside it, a
    call's) narrows it to where its own proofs hold, so every program's proofs hold in it.
    ``span`` is one tuple, read and set at once (traces may end in other threads)."""

    __slots__ = ("span", "settled")

    def __init__(self, lo: int, hi: int) -> None:
        self.span: Iv = (lo, hi)
        self.settled = False

    def end_trace(self, found: Iv) -> None:
        """A trace that assumed a span inside ``span`` found its proofs hold in ``found``."""
        if not self.settled:
            self.span, self.settled = found, True
        else:
            lo, hi = self.span
            self.span = (max(lo, found[0]), min(hi, found[1]))


#: the predicates known to hold where a check is made: (tracer, value) for each ``cond``
#: whose branch is being traced (a check in a branch counts only where it runs)
_HOLDING: ContextVar[tuple] = ContextVar("jaxtensor_ranges_holding", default=())


#: the indices checked so far in the loop bodies and branches being traced, one list per
#: body or branch, innermost last: (index, lo, hi). A later check of the same index within
#: those bounds cannot fail unless that one did, whose failure is the one reported (and
#: the writes after it are gated off), so it is not made (``x[k] += 1``: one check)
_CHECKED: ContextVar[tuple] = ContextVar("jaxtensor_ranges_checked", default=())


@contextmanager
def scope() -> Iterator[None]:
    """A loop body or branch being traced: the checks it makes are known to hold in it
    after they are made, and in the bodies and branches nested in it."""
    tok = _CHECKED.set((*_CHECKED.get(), []))
    try:
        yield
    finally:
        _CHECKED.reset(tok)


def must_check(x: Any, lo: int, hi: int) -> bool:
    """Whether a check that the traced integer ``x`` lies in ``[lo, hi]`` must be made (it
    is not :func:`proves`'d); if so, it is recorded as made (:func:`checked`)."""
    if proves(x, lo, hi):
        return False
    checked(x, lo, hi)
    return True


def checked(x: Any, lo: int, hi: int) -> None:
    """A check that the traced integer scalar ``x`` lies in ``[lo, hi]`` was made."""
    stack = _CHECKED.get()
    if stack and isinstance(x, jax.core.Tracer) and tracer_origin is not None and (
            tracer_origin(x) is not None and dtype_range(x.aval) is not None):
        stack[-1].append((x, lo, hi))


def mark() -> tuple:
    """Where the record of checks made stands (to :func:`rewind` to: a trace abandoned)."""
    return tuple(len(s) for s in _CHECKED.get())


def rewind(at: tuple) -> None:
    for s, n in zip(_CHECKED.get(), at):
        del s[n:]


@contextmanager
def in_branch(p: Any, v: bool) -> Iterator[None]:
    """While a ``cond`` branch is traced, its predicate ``p`` is ``v``."""
    with scope():
        if tracer_origin is None or not isinstance(p, jax.core.Tracer) or (
                tracer_origin(p) is None):
            yield
            return
        tok = _HOLDING.set((*_HOLDING.get(), (p, int(v))))
        try:
            yield
        finally:
            _HOLDING.reset(tok)


class Invariant:
    """Intervals ``ivs`` (one per carry) assumed for the integer scalar carries of a
    ``while_loop`` at the start of each iteration, while its body is traced;
    ``relied``: a check was not made because of them (the trace is kept only if they are
    proved to hold when it ends: ``_carry_ranges.py``)."""

    __slots__ = ("ivs", "relied")

    def __init__(self, ivs: list[Iv]) -> None:
        self.ivs = ivs
        self.relied = False


@contextmanager
def carries(ins: list, inv: Invariant) -> Iterator[None]:
    """While a ``while_loop`` body is traced, its carries ``ins`` (tracers of the body) lie
    in ``inv.ivs`` at the start of an iteration (a carry whose interval is its dtype's
    range assumes nothing)."""
    keys = []
    for k, v in enumerate(ins):
        full = dtype_range(v.aval) if isinstance(v, jax.core.Tracer) else None
        if full is not None and inv.ivs[k] != full:
            _CARRIED[id(v)] = (v, inv, k)
            keys.append(id(v))
    try:
        yield
    finally:
        for key in keys:
            _CARRIED.pop(key, None)


def exits(outs: list, ivs: list[Iv], invariants: frozenset, ranges: dict) -> None:
    """The results ``outs`` of a ``while_loop`` (tracers of the trace around it) lie in
    ``ivs``, proved from the ``invariants`` and eager loops' ``ranges`` named (a proof
    through them relies on those)."""
    for v, iv in zip(outs, ivs):
        full = dtype_range(v.aval) if isinstance(v, jax.core.Tracer) else None
        if full is None or iv == full:
            continue
        key = id(v)
        _EXITS[key] = (weakref.ref(v, lambda _, key=key: _EXITS.pop(key, None)), iv,
                       invariants, ranges)


class _GiveUp(Exception):
    """The walk is too long."""


@contextmanager
def loop_index(i: Any, lower: Any, upper: Any, hint: tuple | None = None
               ) -> Iterator[None]:
    """While the body is traced, the index ``i`` of a ``fori_loop(lower, upper)`` lies in
    ``[lower, upper - 1]`` (the body never runs when that is empty), and, with ``hint``
    ``(range, span)``, in ``span`` (the span of a :class:`Range` that the caller runs the
    program in); the trace then tells the range where its proofs hold."""
    if tracer_origin is None:
        yield
        return
    found = list(_WIDEST)
    _KNOWN[id(i)] = (i, lower, upper, hint, found)
    try:
        with scope():
            yield
        if hint is not None:  # (``found`` holds ``span``: each search starts inside it)
            hint[0].end_trace((found[0], found[1]))
    finally:
        _KNOWN.pop(id(i), None)


def interval(x: Any) -> Iv | None:
    """An interval holding every value the traced integer scalar ``x`` can take (None: not
    an integer scalar of a ``jax.jit`` trace, or the walk gave up)."""
    return _Walk().interval(x)


def proves(x: Any, lo: int, hi: int, checks: bool = True) -> bool:
    """Whether the traced integer scalar ``x`` lies in ``[lo, hi]`` whatever it computes
    (``checks``: where the checks made so far pass; not for the value a check reports if
    it fails). A proof that assumes an eager loop's :class:`Range` narrows the range that
    trace will widen it to, to where the proof still holds."""
    walk = _Walk()
    tok = None if checks else _CHECKED.set(())
    try:
        iv = walk.interval(x)
    finally:
        if tok is not None:
            _CHECKED.reset(tok)
    if iv is None or not (lo <= iv[0] and iv[1] <= hi):
        return False
    walk.rely()
    for r, (span, found) in walk.ranges.items():
        if r not in walk.pins:
            _narrow(r, span, found, x, lo, hi)
    return True


def pin(span: Iv, found: list) -> None:
    """A proof holds in the ``span`` of a :class:`Range` it assumed, and is not searched
    further (it went through an invariant proved there): ``found`` narrowed to it."""
    found[:] = max(found[0], span[0]), min(found[1], span[1])


def _narrow(r: Range, span: Iv, found: list, x: Any, lo: int, hi: int) -> None:
    """Narrow ``found`` (where the trace's proofs hold) to a span around ``span`` (the one
    assumed) where ``x`` stays in ``[lo, hi]`` (intervals only grow with the index's
    span: a search on each end)."""
    def holds(a: int, b: int) -> bool:
        iv = _Walk({r: (a, b)}).interval(x)
        return iv is not None and lo <= iv[0] and iv[1] <= hi

    top = _search(lambda b: holds(span[0], b), span[1], found[1])
    bottom = -_search(lambda a: holds(-a, top), -span[0], -found[0])
    found[:] = max(found[0], bottom), min(found[1], top)


def _search(ok: Any, good: int, limit: int) -> int:
    """The largest ``b`` in ``[good, limit]`` with ``ok(b)``, for ``ok`` true up to some
    point and false after it, and ``ok(good)`` true."""
    if ok(limit):
        return limit
    step, bad = 1, limit
    while good + step < limit:
        if not ok(good + step):
            bad = good + step
            break
        good += step
        step *= 2
    while bad - good > 1:
        mid = (good + bad) // 2
        if ok(mid):
            good = mid
        else:
            bad = mid
    return good


# -- the nodes: tracers of the trace, and variables of the jaxprs they were made with --------
class _Node:
    """A value: a tracer (``frame`` None), or a variable of an inner jaxpr's ``frame``."""

    __slots__ = ("v", "frame", "key")

    def __init__(self, v: Any, frame: _Frame | None) -> None:
        self.v, self.frame = v, frame
        self.key = (id(v), id(frame))

    @staticmethod
    def of(t: Any) -> _Node:
        return _Node(t, None)

    def aval(self) -> Any:
        return self.v.aval

    def origin(self) -> tuple:
        """``("const", value)``, ``("alias", node)`` (the same value in an enclosing trace),
        ``("input",)`` or ``(primitive, params, inputs, k)``."""
        if self.frame is None:
            got = tracer_origin(self.v)
            if got is None:
                return ("input",)
            made, const = got
            if const is not None:  # (a tracer of an enclosing trace, lifted into this one)
                return ("alias", _Node.of(const)) if tracer_origin(const) else ("const", const)
            if made is None:
                return ("input",)
            name, params, ins, k = made
            return (name, params, [_Node.of(t) for t in ins], k)
        return self.frame.origin(self.v)


class _Frame:
    """An inner jaxpr (of a ``jit`` equation) whose inputs are the nodes ``ins``."""

    __slots__ = ("jaxpr", "ins", "consts", "made")

    def __init__(self, closed: Any, ins: list[_Node]) -> None:
        self.jaxpr = closed.jaxpr
        self.ins = dict(zip(self.jaxpr.invars, ins))
        self.consts = dict(zip(self.jaxpr.constvars, closed.consts))
        self.made = {v: (e, k) for e in self.jaxpr.eqns for k, v in enumerate(e.outvars)}

    def node(self, v: Any) -> _Node | tuple:
        if isinstance(v, Literal):
            return ("const", v.val)
        if v in self.ins:
            return self.ins[v]
        return _Node(v, self)

    def origin(self, v: Any) -> tuple:
        if v in self.consts:
            return ("const", self.consts[v])
        eqn, k = self.made[v]
        ins = [self.node(u) for u in eqn.invars]
        return (eqn.primitive.name, eqn.params, ins, k)


class _Facts:
    """Intervals assumed for some nodes (in one case of a ``select_n``)."""

    __slots__ = ("known",)
    NONE: _Facts

    def __init__(self, known: dict) -> None:
        self.known = known

    def add(self, key: Any, iv: Iv) -> _Facts | None:
        """These facts and the node of ``key`` in ``iv`` (None: they contradict)."""
        old = self.known.get(key)
        if old is not None:
            iv = (max(iv[0], old[0]), min(iv[1], old[1]))
            if iv[0] > iv[1]:
                return None
        known = dict(self.known)
        known[key] = iv
        return _Facts(known)


_Facts.NONE = _Facts({})


def _checked_facts() -> _Facts:
    """The facts the checks made so far say (:data:`_CHECKED`)."""
    known: dict = {}
    for s in _CHECKED.get():
        for x, lo, hi in s:
            key = _Node.of(x).key
            old = known.get(key)
            iv = (lo, hi) if old is None else (max(lo, old[0]), min(hi, old[1]))
            if iv[0] <= iv[1]:
                known[key] = iv
    return _Facts(known) if known else _Facts.NONE


def _known_as(facts: _Facts, x: _Node, r: Iv) -> _Facts | None:
    """``facts`` and ``x`` in ``r``, and so the value ``x`` converts without change (a
    weakly typed loop index or number made strong, an alias in an enclosing trace): a fact
    about ``i < n`` computed by a kernel holds for the ``i`` other kernels take."""
    while True:
        facts = facts.add(x.key, r)
        if facts is None:
            return None
        origin = x.origin()
        if origin[0] == "alias":
            x = origin[1]
            continue
        if origin[0] not in ("convert_element_type", *SAME) or isinstance(origin[2][0], tuple):
            return facts
        src = origin[2][0]
        have, into = dtype_range(src.aval()), dtype_range(x.aval())
        if have is None or into is None or into == (0, 1) or not (
                into[0] <= have[0] and have[1] <= into[1]):
            return facts  # (a conversion that can change the value says nothing of it)
        x = src


class _Walk:
    """One proof: intervals of nodes under facts, memoised, within :data:`_BUDGET` steps;
    ``ranges``: the eager loops' ranges it assumed."""

    __slots__ = ("memo", "steps", "ranges", "frames", "instead", "given", "invariants",
                 "pins")

    def __init__(self, instead: dict | None = None, given: dict | None = None) -> None:
        self.memo: dict = {}
        self.steps = 0
        self.ranges: dict[Range, tuple] = {}  # (each: the span assumed, the span found)
        self.frames: list[_Frame] = []  # (kept alive: their ids are in the keys)
        self.instead = instead  # ranges assumed instead of the Ranges' own (a search)
        # intervals given for some tracers: id -> (tracer, interval) (a carry's, to prove an
        # invariant)
        self.given = given
        self.invariants: set[Invariant] = set()  # (the while carries' assumed)
        self.pins: dict[Range, tuple] = {}  # (ranges a proof holds in only as assumed)

    def rely(self) -> None:
        """What this walk assumed is relied on (a check is not made because of it)."""
        for inv in self.invariants:
            inv.relied = True
        for span, found in self.pins.values():
            pin(span, found)

    def interval(self, x: Any) -> Iv | None:
        """(Under the predicates of the branches being traced: ``_HOLDING``.)"""
        if tracer_origin is None or tracer_origin(x) is None:
            return None
        try:
            cases = [_checked_facts()]
            for p, v in _HOLDING.get():
                cases = [g for f in cases for g in self.assume(_Node.of(p), v, f)]
                if len(cases) > _MAX_CASES:  # (dropping facts is sound, only less precise)
                    cases = [_Facts.NONE]
                    break
            out: Iv | None = _EMPTY
            node = _Node.of(x)
            for facts in cases:
                iv = self.value(node, facts)
                if iv is not _EMPTY:
                    out = iv if out is _EMPTY else (min(out[0], iv[0]), max(out[1], iv[1]))
            return out
        except _GiveUp:
            return None

    def index(self, known: tuple, facts: _Facts, full: Iv) -> Iv:
        """The interval of a loop index (``_KNOWN``): its bounds', and its range's."""
        _, lower, upper, hint, found = known
        lo, hi = self.bound(lower, facts), self.bound(upper, facts)
        iv = full if lo is None or hi is None else (lo[0], max(lo[0], hi[1] - 1))
        if hint is not None:
            r, span = hint
            self.ranges[r] = (span, found)
            rlo, rhi = self.instead[r] if self.instead and r in self.instead else span
            a = max(iv[0], rlo)
            iv = (a, max(a, min(iv[1], rhi)))
        return iv

    def bound(self, b: Any, facts: _Facts) -> Iv | None:
        if type(b) is int:
            return (b, b)
        if tracer_origin(b) is None:  # (concrete, or a tracer of another kind)
            return None if isinstance(b, jax.core.Tracer) else const(b)
        node = _Node.of(b)
        return self.value(node, facts) if is_scalar(node) else None

    def value(self, node: Any, facts: _Facts) -> Iv | None:
        """``node``'s interval under ``facts`` (``_EMPTY``: the facts cannot hold)."""
        if isinstance(node, tuple):  # a literal of an inner jaxpr
            iv = const(node[1])
            if iv is None:  # (not an integer: ``_EMPTY`` would say "cannot happen")
                raise _GiveUp
            return iv
        key = (node.key, id(facts))
        if key in self.memo:
            return self.memo[key][0]
        self.steps += 1
        if self.steps > _BUDGET:
            raise _GiveUp
        full = dtype_range(node.aval())
        if full is None:
            raise _GiveUp  # (an index computed from a float or an array: no proof)
        iv = self._compute(node, facts, full)
        if iv is not _EMPTY:
            iv = fit(iv, full)
            fact = facts.known.get(node.key)
            if fact is not None:
                iv = (max(iv[0], fact[0]), min(iv[1], fact[1]))
                if iv[0] > iv[1]:
                    iv = _EMPTY
        self.memo[key] = (iv, facts)  # (``facts`` kept alive: its id is in the key)
        return iv

    def _compute(self, node: _Node, facts: _Facts, full: Iv) -> Iv | None:
        if node.frame is None and _EXITS:
            out = _EXITS.get(id(node.v))
            if out is not None and out[0]() is node.v:
                _, iv, invariants, ranges = out
                self.invariants |= invariants
                self.pins.update(ranges)
                self.ranges.update(ranges)
                return iv
        origin = node.origin()
        kind = origin[0]
        if kind == "const":
            return const(origin[1]) or full
        if kind == "alias":
            return self.value(origin[1], facts)
        if kind == "input":
            if node.frame is not None:
                return full
            key = id(node.v)
            if self.given:
                got = self.given.get(key)
                if got is not None and got[0] is node.v:
                    return got[1]
            carried = _CARRIED.get(key)
            if carried is not None and carried[0] is node.v:
                self.invariants.add(carried[1])
                return carried[1].ivs[carried[2]]
            known = _KNOWN.get(key)
            if known is not None and known[0] is node.v:
                return self.index(known, facts, full)
            return full
        name, params, ins, k = origin
        if name in CALLS:
            inner = params.get("jaxpr") or params.get("call_jaxpr")
            if inner is None or not hasattr(inner, "consts"):
                return full
            frame = _Frame(inner, ins)
            self.frames.append(frame)
            return self.value(frame.node(frame.jaxpr.outvars[k]), facts)
        if name == "select_n":
            return self._select(ins, facts, full)
        if name == "optimization_barrier":
            return self.value(ins[k], facts)
        if name not in MODELLED or not all(is_scalar(a) for a in ins):
            return full
        args = []
        for a in ins:
            iv = self.value(a, facts)
            if iv is _EMPTY:
                return _EMPTY
            args.append(iv)
        return apply(name, params, args, ins, full)

    def _select(self, ins: list, facts: _Facts, full: Iv) -> Iv | None:
        p, cases = ins[0], ins[1:]
        if not all(is_scalar(a) for a in ins):
            return full
        piv = self.value(p, facts)
        if piv is _EMPTY:
            return _EMPTY
        out: Iv | None = _EMPTY
        for c in range(max(piv[0], 0), min(piv[1], len(cases) - 1) + 1):
            for assumed in self.assume(p, c, facts):
                iv = self.value(cases[c], assumed)
                if iv is not _EMPTY:
                    out = iv if out is _EMPTY else (min(out[0], iv[0]), max(out[1], iv[1]))
        return out

    def assume(self, p: Any, v: int, facts: _Facts) -> list[_Facts]:
        """The cases of ``facts`` in which the bool or integer node ``p`` equals ``v``: a
        disjunction of fact sets (none: impossible). Dropping a fact never breaks a proof's
        soundness, only its precision."""
        if isinstance(p, tuple):
            return [facts] if const(p[1]) == (v, v) else []
        base = facts.add(p.key, (v, v))
        if base is None:
            return []
        origin = p.origin()
        if origin[0] == "alias":
            return self.assume(origin[1], v, base)
        if origin[0] in ("const", "input"):
            return [base]
        name, params, ins, k = origin
        if name in CALLS:
            inner = params.get("jaxpr") or params.get("call_jaxpr")
            if inner is None or not hasattr(inner, "consts"):
                return [base]
            frame = _Frame(inner, ins)
            self.frames.append(frame)
            return self.assume(frame.node(frame.jaxpr.outvars[k]), v, base)
        is_bool = np.dtype(p.aval().dtype) == np.bool_
        if name == "not" and is_bool:
            return self.assume(ins[0], 1 - v, base)
        if (name == "convert_element_type" or name in SAME) and is_bool and not isinstance(
                ins[0], tuple) and np.dtype(ins[0].aval().dtype) == np.bool_:
            return self.assume(ins[0], v, base)  # (a weak bool made strong: the same)
        if name in ("and", "or") and is_bool:
            both = v == (name == "and")  # (each operand then equals v)
            if both:
                cases = [base]
                for a in ins:
                    cases = [g for f in cases for g in self.assume(a, v, f)]
                return cases if len(cases) <= _MAX_CASES else [base]
            cases = [g for a in ins for g in self.assume(a, v, base)]
            return cases if len(cases) <= _MAX_CASES else [base]
        if name in CMP and len(ins) == 2 and all(is_scalar(a) for a in ins):
            op = name if v else NEGATE[name]
            a, b = ins
            out = base
            for x, y, o in ((a, b, op), (b, a, SWAP[op])):
                if isinstance(x, tuple):
                    continue
                xi, yi = self.value(x, out), self.value(y, out)
                if xi is _EMPTY or yi is _EMPTY:
                    return []
                r = restrict(o, xi, yi)
                if r is None:
                    return []
                nxt = _known_as(out, x, r)
                if nxt is None:
                    return []
                out = nxt
            if op in ("eq", "ne"):  # (bool operands: ``x != y``, ``y`` known, is ``x``)
                for x, y in ((a, b), (b, a)):
                    if isinstance(x, tuple) or np.dtype(x.aval().dtype) != np.bool_:
                        continue
                    yi = self.value(y, out)
                    if yi is not _EMPTY and yi[0] == yi[1]:
                        return self.assume(x, yi[0] if op == "eq" else 1 - yi[0], out)
            return [out]
        return [base]
