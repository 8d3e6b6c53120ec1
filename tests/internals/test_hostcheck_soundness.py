"""The host-check interpreter (``_jit/_hostcheck.py``) against concrete evaluation.

This file reads internals: it runs the interpreter on traced programs and compares what it
derives with JAX evaluating the same program on concrete values (the device's own integer
arithmetic, wrap-around included). For every primitive the interpreter accepts:

- on constants, over small exhaustive domains of every integer dtype (and bool), its value
  must be the one the device computes;
- on a scalar input, random check chains mixing every accepted primitive (and some it does
  not model) must give either no answer (the checked program is kept) or sets of passing
  values inside which the program's concrete first-failure number is 0, over every value of
  the 8- and 16-bit dtypes and around the extremes and the sets' ends of the wider ones;
- any primitive it does not model makes it give up.

The public behaviour (eager code against ``jaxtensor.jit``) is in ``test_host_checks.py``.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.extend.core import jaxpr_as_fun

from jaxtensor._jit import _hostcheck

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]

BINARY: dict[str, Callable] = {
    "add": lax.add, "sub": lax.sub, "mul": lax.mul, "and": lax.bitwise_and,
    "or": lax.bitwise_or, "xor": lax.bitwise_xor, "lt": lax.lt, "le": lax.le, "gt": lax.gt,
    "ge": lax.ge, "eq": lax.eq, "ne": lax.ne}
UNARY: dict[str, Callable] = {"neg": lax.neg, "not": lax.bitwise_not}
LOGICAL = ("and", "or", "xor", "not", "lt", "le", "gt", "ge", "eq", "ne")


def _domain(dtype: Any, small: bool) -> list[int]:
    """Every value of an 8-bit dtype (``small``: the extremes, their neighbours, values
    around 0 and at the half range), as Python ints."""
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    if not small and hi - lo < 256:
        return list(range(lo, hi + 1))
    half = 1 << (info.bits // 2)
    vals = {lo, lo + 1, hi, hi - 1, half, hi // 2 + 1} | set(range(-2, 3))
    return sorted(v for v in vals if lo <= v <= hi)


def _array(values: Any, dtype: Any) -> np.ndarray:
    return np.array(list(values), dtype=object).astype(dtype)


def _concrete(fns: list[tuple[Any, list[np.ndarray]]]) -> list[list[np.ndarray]]:
    """Each ``closed`` evaluated by JAX at every row of its ``columns`` (one column per
    input): one compiled program for all, its outputs of one dtype and length stacked (so
    that XLA compiles a few kernels, not one per operation)."""
    shapes: list[list[tuple]] = []

    def run(columns: list) -> dict:
        groups: dict[tuple, list] = {}
        for (closed, _), cols in zip(fns, columns):
            outs = jax.vmap(jaxpr_as_fun(closed))(*cols)
            keys = []
            for o in outs:
                key = (str(o.dtype), o.shape)
                keys.append((key, len(groups.setdefault(key, []))))
                groups[key].append(o)
            shapes.append(keys)
        return {k: jnp.stack(v) for k, v in groups.items()}

    args = [cols for _, cols in fns]
    # (XLA's optimisations cost seconds here and change no integer result)
    stacked = jax.jit(run).lower(args).compile(_FAST_COMPILE)(args)
    host = {k: np.asarray(v) for k, v in stacked.items()}
    return [[host[key][n] for key, n in keys] for keys in shapes]


_FAST_COMPILE = {"xla_backend_optimization_level": 0, "xla_llvm_disable_expensive_passes": True}


def _interpret(closed: Any, values: tuple, k: int = 0) -> Any:
    """The interpreter's value of ``closed``'s output ``k`` at constant inputs ``values``,
    or ``"gave up"``."""
    interp = _hostcheck._Interp.closed(closed, [(lambda v=v: v) for v in values])
    try:
        return interp.value(closed.jaxpr.outvars[k])
    except _hostcheck._GiveUp:
        return "gave up"


def test_constants_fold_as_the_device_computes() -> None:
    """Every accepted primitive on constants of every integer dtype (and bool), its
    operands over small exhaustive domains: the interpreter's value is the device's
    (``6 & 3`` is 2, ``~0`` is -1, ``int8(100) + 100`` is -56)."""
    fns: list[tuple[Any, list[np.ndarray]]] = []
    with jax.enable_x64(True):
        for dt in INTS + [np.bool_]:
            is_bool = dt is np.bool_
            dom = [False, True] if is_bool else _domain(dt, small=True)
            pairs = list(itertools.product(dom, dom))
            a, b = _array((p for p, _ in pairs), dt), _array((q for _, q in pairs), dt)
            full = _array(dom if is_bool else _domain(dt, small=False), dt)
            z = np.zeros((), dt)
            # (one program per dtype and operand kind, one output per operation: XLA
            # compiles a few kernels instead of one per operation)
            binary = [op for name, op in BINARY.items() if not is_bool or name in LOGICAL]
            fns.append((jax.make_jaxpr(lambda p, q, ops=binary: [op(p, q) for op in ops])(z, z),
                        [a, b]))
            unary = [op for name, op in UNARY.items() if not is_bool or name in LOGICAL]
            unary += [lambda v, to=to: lax.convert_element_type(v, to)
                      for to in INTS + [np.bool_] if to is not dt]
            fns.append((jax.make_jaxpr(lambda v, ops=unary: [op(v) for op in ops])(z), [full]))
            if not is_bool:
                p2 = (np.arange(len(a)) % 2).astype(np.bool_)
                p3 = (np.arange(len(a)) % 3).astype(np.int32)
                closed = jax.make_jaxpr(lambda p2, p3, a, b, c: [
                    lax.select_n(p2, a, b), lax.select_n(p3, a, b, c)])(
                    np.bool_(0), np.int32(0), z, z, z)
                fns.append((closed, [p2, p3, a, b, a ^ b]))
        outs = _concrete(fns)
    seen: set = set()
    for (closed, columns), wants in zip(fns, outs):
        assert len(closed.jaxpr.eqns) == len(wants)  # (one equation per output)
        seen |= {e.primitive.name for e in closed.jaxpr.eqns}
        rows = list(zip(*[c.tolist() for c in columns]))
        for k, want in enumerate(wants):
            for values, w in zip(rows, want.tolist()):
                got = _interpret(closed, values, k)
                assert got == w and type(got) is type(w), (closed, k, values, got, w)
    assert seen == _hostcheck.ACCEPTED


# -- random check chains over one scalar input ----------------------------------------------

SIGNED = [np.int8, np.int16, np.int32, np.int64]
#: primitives the analysis does not model (each must make it give up where the checks read it)
UNMODELLED: dict[str, Callable] = {
    "rem": lax.rem, "div": lax.div, "max": lax.max, "min": lax.min,
    "shift_left": lax.shift_left, "shift_right_arithmetic": lax.shift_right_arithmetic}


class _Gen:
    """Random programs of one scalar input ``s``: the check chain ``Trace.check_output``
    makes of random predicates over integer expressions of ``s`` and constants (extremes
    included, so the device wraps). ``free``: any accepted or unmodelled primitive
    anywhere; else the forms the analysis models (bitwise operations between constants,
    signed types, a select on a constant) with some it gives up on (narrowing)."""

    def __init__(self, rng: random.Random, s_dtype: Any, free: bool) -> None:
        self.rng, self.s_dtype, self.free = rng, s_dtype, free
        self.types = INTS if free else SIGNED

    def const(self, dt: Any, depth: int = 1) -> Any:
        rng = self.rng
        if depth > 0 and rng.random() < 0.4:  # (folded: bitwise among constants)
            op = rng.choice(["and", "or", "xor", "add", "mul", "not", "neg"])
            if op in UNARY:
                return UNARY[op](jnp.asarray(self.const(dt, depth - 1)))
            return BINARY[op](jnp.asarray(self.const(dt, depth - 1)), self.const(dt, 0))
        info = np.iinfo(dt)
        v = rng.choice([0, 1, 2, 3, 6, -1, -2, -7, 100, int(info.max), int(info.min),
                        int(info.max) // 2 + 1])
        return np.array(v if info.min <= v <= info.max else 1, dtype=dt)

    def expr(self, s: Any, dt: Any, depth: int) -> Any:
        rng = self.rng
        r = rng.random()
        if depth <= 0 or r < 0.25:
            if rng.random() < 0.8:
                return lax.convert_element_type(s, dt) if s.dtype != dt else s
            return self.const(dt)
        if r < 0.6:
            ops = ["add", "sub", "mul"] + (["and", "or", "xor"] if self.free else [])
            op = rng.choice(ops)
            x = self.expr(s, dt, depth - 1)
            y = self.const(dt) if op == "mul" or rng.random() < 0.6 else \
                self.expr(s, dt, depth - 1)
            return BINARY[op](x, y)
        if r < 0.7:
            ops = [lax.neg, lax.bitwise_not] if self.free else [lax.neg]
            return rng.choice(ops)(self.expr(s, dt, depth - 1))
        if r < 0.85:  # a conversion (widening, narrowing, signedness)
            src = rng.choice(self.types)
            return lax.convert_element_type(self.expr(s, src, depth - 1), dt)
        if r < 0.92 and self.free:
            op = rng.choice(list(UNMODELLED.values()))
            return op(self.expr(s, dt, depth - 1), np.array(rng.randint(1, 3), dt))
        if self.free or rng.random() < 0.2:
            pred = self.pred(s, depth - 1)
        else:
            pred = np.bool_(rng.random() < 0.5)
        return lax.select_n(pred, self.expr(s, dt, depth - 1), self.expr(s, dt, depth - 1))

    def pred(self, s: Any, depth: int) -> Any:
        rng = self.rng
        r = rng.random()
        if depth <= 0 or r < 0.6:
            dt = rng.choice([self.s_dtype] * 3 + self.types)
            op = rng.choice(["lt", "le", "gt", "ge", "eq", "ne"])
            return BINARY[op](self.expr(s, dt, depth), self.expr(s, dt, depth - 1))
        if r < 0.9:
            op = rng.choice(["and", "or", "xor"] if self.free else ["and", "or"])
            return BINARY[op](self.pred(s, depth - 1), self.pred(s, depth - 1))
        if r < 0.95 or not self.free:
            return lax.bitwise_not(self.pred(s, depth - 1))
        return lax.convert_element_type(self.expr(s, self.s_dtype, depth - 1), np.bool_)

    def program(self) -> Callable:
        n_checks = self.rng.randint(1, 3)

        def fn(s: Any, zero: Any) -> Any:
            code = lax.full((), 0, np.int32)
            for j in range(n_checks, 0, -1):
                code = lax.select(self.pred(s, 3), lax.full((), j, np.int32), code)
            return jnp.stack([code, zero])

        return fn


def _points(dtype: Any, ends: set, rng: random.Random) -> np.ndarray:
    """Every value of a 16-bit dtype or narrower; for wider ones, values around the
    extremes, around 0, around powers of two and around ``ends``, and random ones."""
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    if info.bits <= 16:
        return np.arange(lo, hi + 1).astype(dtype)
    pts = set(range(lo, lo + 64)) | set(range(hi - 63, hi + 1)) | set(range(-300, 300))
    pts |= {rng.randint(lo, hi) for _ in range(300)}
    pts |= {(1 << k) + d for k in range(info.bits) for d in (-1, 0, 1)}
    pts |= {-(1 << k) + d for k in range(info.bits) for d in (-1, 0, 1)}
    pts |= {int(e) + d for e in ends for d in range(-3, 4)}
    return _array(sorted(v for v in pts if lo <= v <= hi), dtype)


def _inside(values: np.ndarray, ivs: tuple) -> np.ndarray:
    return np.array([any(p <= v <= q for p, q in ivs) for v in values.tolist()], bool)


def test_derived_sets_are_sound_for_random_check_chains() -> None:
    """For random check chains of one scalar input of each integer dtype: where the
    analysis answers, every input value it clears has no failing check when the program is
    evaluated concretely; with an unmodelled primitive among the checks it gives up."""
    rng = random.Random(0)
    answered: list[tuple[Any, dict, Any]] = []
    counts = dict.fromkeys(INTS, 0)
    with jax.enable_x64(True):
        for s_dtype in INTS:
            for n in range(60):
                gen = _Gen(random.Random(rng.random()), s_dtype, free=n % 3 == 0)
                closed = jax.make_jaxpr(gen.program())(np.zeros((), s_dtype), np.int32(0))
                conds = _hostcheck.analyse(closed, 1)
                names = {e.primitive.name for e in closed.jaxpr.eqns}
                if names & set(UNMODELLED):
                    # (every equation of these programs is read by the checks)
                    assert conds is None, (closed, conds)
                if conds is not None:
                    answered.append((closed, conds, s_dtype))
                    counts[s_dtype] += 1
        fns, pts_of = [], {}
        for s_dtype in INTS:  # (one set of values per dtype: the programs' outputs stack)
            ends = {e for _, conds, dt in answered if dt is s_dtype
                    for ivs in conds.values() for iv in ivs for e in iv
                    if abs(e) != float("inf")}
            pts_of[s_dtype] = _points(s_dtype, ends, rng)
        for closed, _, s_dtype in answered:
            pts = pts_of[s_dtype]
            fns.append((closed, [pts, np.zeros(len(pts), np.int32)]))
        outs = _concrete(fns)
    for (closed, conds, _), (_, (pts, _)), (out,) in zip(answered, fns, outs):
        cleared = _inside(pts, conds[0]) if 0 in conds else np.ones(len(pts), bool)
        bad = pts[cleared & (out[:, 0] != 0)]
        assert not len(bad), (closed, conds, bad[:5])
    # (the test exercises the symbolic paths)
    assert sum(counts.values()) >= 40 and all(counts[dt] >= 3 for dt in SIGNED), counts


def test_unmodelled_primitives_give_up() -> None:
    """Each primitive the interpreter does not model, in an otherwise affine check, makes
    the analysis give up (the call keeps its checked program)."""
    for name, op in UNMODELLED.items():
        def fn(s: Any, zero: Any, op: Callable = op) -> Any:
            fail = op(s + 1, np.int32(2)) >= 5
            return jnp.stack([lax.select(fail, np.int32(1), np.int32(0)), zero])

        closed = jax.make_jaxpr(fn)(np.int32(0), np.int32(0))
        assert name in {e.primitive.name for e in closed.jaxpr.eqns}
        assert _hostcheck.analyse(closed, 1) is None, name


def test_bitwise_constants_shift_the_sets_exactly() -> None:
    """``i + (6 & 3) < 5`` clears ``i < 3``, not ``i < 2`` (``6 and 3`` is 3);
    ``i + ~0 >= 0`` clears ``i >= 1``."""

    def fn(s: Any, zero: Any) -> Any:
        fail1 = s + (np.int32(6) & np.int32(3)) >= 5
        fail2 = s + ~np.int32(0) < 0
        code = lax.select(fail1, np.int32(1), lax.select(fail2, np.int32(2), np.int32(0)))
        return jnp.stack([code, zero])

    closed = jax.make_jaxpr(fn)(np.int32(0), np.int32(0))
    assert _hostcheck.analyse(closed, 1) == {0: ((1, 2),)}


def test_a_deep_chain_of_checks_is_followed() -> None:
    """Thousands of chained checks are analysed without recursing per check."""
    n = 600

    def fn(s: Any, zero: Any) -> Any:
        code = lax.full((), 0, np.int32)
        for j in range(n, 0, -1):
            code = lax.select((s + j % 7 < 0) | (s + j % 7 >= 10), np.int32(j), code)
        return jnp.stack([code, zero])

    closed = jax.make_jaxpr(fn)(np.int32(0), np.int32(0))
    assert _hostcheck.analyse(closed, 1) == {0: ((0, 3),)}
