"""The range interpreter (``_jit/_ranges.py``) against concrete evaluation.

This file reads internals: it traces random integer expressions of one or two loop indices
(every integer dtype, wrap-around, the primitives the interpreter models and some it does
not), asks the interpreter for the interval of the result with each index known to lie in
a range, and evaluates the same expression with JAX on every value of those ranges: every
value the device computes must lie in the interval. And a proof never outlives its loop:
an index tracer is known only while its body is traced.

The public behaviour (checks made or not, against NumPy's Python loop) is in
``tests/jit/test_loop_ranges.py``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from jaxtensor._jit import _ranges

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def _const(rng: random.Random, dt: Any) -> Any:
    info = np.iinfo(dt)
    pick = rng.choice([0, 1, 2, 3, 5, 7, 64, 100, int(info.max), int(info.min), int(info.max) - 1,
                       -1, -2, -7, int(info.min) + 1])
    return dt(min(max(pick, int(info.min)), int(info.max)))


def _expr(rng: random.Random, depth: int, dt: Any) -> Callable:
    """A random expression ``f(env) -> traced scalar of dtype dt`` (``env``: the indices)."""
    if depth == 0 or rng.random() < 0.2:
        if rng.random() < 0.75:
            k = rng.randrange(2)
            return lambda env: lax.convert_element_type(env[k], dt)
        c = _const(rng, dt)
        return lambda env: jnp.asarray(c, dt)
    a = _expr(rng, depth - 1, dt)
    b = _expr(rng, depth - 1, dt)
    c = _const(rng, dt)
    nz = c if c != 0 else dt(3)
    kind = rng.randrange(24)
    other = rng.choice(INTS)
    table: list[Callable] = [
        lambda e: a(e) + b(e), lambda e: a(e) - b(e), lambda e: a(e) * b(e),
        lambda e: -a(e), lambda e: jnp.abs(a(e)), lambda e: jnp.maximum(a(e), b(e)),
        lambda e: jnp.minimum(a(e), b(e)), lambda e: jnp.remainder(a(e), nz),
        lambda e: jnp.floor_divide(a(e), nz), lambda e: lax.rem(a(e), _divisor(b(e))),
        lambda e: lax.div(a(e), jnp.asarray(nz, dt)), lambda e: lax.rem(a(e), jnp.asarray(nz, dt)),
        lambda e: jnp.clip(a(e), jnp.minimum(b(e), c), jnp.maximum(b(e), c)),
        lambda e: lax.integer_pow(a(e), 2),
        lambda e: lax.convert_element_type(lax.convert_element_type(a(e), other), dt),
        lambda e: jnp.where(a(e) < b(e), a(e) + 1, b(e) - 1).astype(dt),
        lambda e: jnp.where((a(e) > c) & (b(e) != 0), a(e), b(e)),
        lambda e: jnp.where((a(e) >= c) | ~(b(e) <= c), b(e), a(e)),
        lambda e: lax.select(a(e) == b(e), a(e), jnp.asarray(c, dt)),
        lambda e: (a(e) != 0).astype(dt) + (b(e) == c).astype(dt),
        lambda e: jax.jit(lambda x, y: x - y)(a(e), b(e)),
        lambda e: a(e) & b(e), lambda e: jnp.cumsum(jnp.stack([a(e), b(e)]))[1].astype(dt),
        lambda e: jnp.max(jnp.stack([a(e), b(e)])),
    ]
    return table[kind]


def _divisor(b: Any) -> Any:
    """``b``, with 1 for 0 and -1 (XLA:CPU traps on a vectorised integer division by zero,
    killing the process; ``min // -1`` overflows)."""
    return jnp.where((b == 0) | (b == -1), jnp.ones_like(b), b)


def _domain(rng: random.Random, dt: Any) -> tuple[int, int]:
    info = np.iinfo(dt)
    width = rng.choice([0, 1, 3, 10, 30])
    start = rng.choice([int(info.min), int(info.max) - width, 0, -5, 1, 100, -40])
    start = min(max(start, int(info.min)), int(info.max) - width)
    return start, start + width


def _run(seed: int) -> None:
    rng = random.Random(seed)
    dt = rng.choice(INTS)
    f = _expr(rng, rng.randrange(1, 5), dt)
    doms = [_domain(rng, dt), _domain(rng, dt)]
    got: list = []

    def traced(i: Any, j: Any) -> Any:
        with _ranges.loop_index(i, doms[0][0], doms[0][1] + 1), \
                _ranges.loop_index(j, doms[1][0], doms[1][1] + 1):
            out = f((i, j))
            got.append(_ranges.interval(out))
        return out

    jax.make_jaxpr(traced)(dt(doms[0][0]), dt(doms[1][0]))
    iv = got[0]
    if iv is None:
        return
    ii, jj = np.meshgrid(np.arange(doms[0][0], doms[0][1] + 1, dtype=object),
                         np.arange(doms[1][0], doms[1][1] + 1, dtype=object))
    xs = np.array(ii.ravel(), dtype=dt)
    ys = np.array(jj.ravel(), dtype=dt)
    values = np.asarray(jax.jit(jax.vmap(lambda i, j: f((i, j))))(xs, ys))
    lo, hi = iv
    for v, x, y in zip(values.tolist(), xs.tolist(), ys.tolist()):
        assert lo <= int(v) <= hi, (seed, np.dtype(dt).name, doms, (x, y), v, iv)


@pytest.mark.parametrize("block", range(8))
def test_intervals_hold_every_value_the_device_computes(block: int) -> None:
    for seed in range(block * 60, block * 60 + 60):
        _run(seed)


def test_the_proofs_it_exists_for() -> None:
    """The expressions of real loop programs are proved (else the checks stay: no test of
    soundness would notice an interpreter that proves nothing)."""
    got: dict = {}

    def f(i: Any) -> Any:
        n = 10
        with _ranges.loop_index(i, 1, n):
            for name, e in {"i - 1": i - 1, "i + 1": i + 1, "(i + 1) % n": (i + 1) % n,
                            "(i - 1) % n": (i - 1) % n, "n - 1 - i": n - 1 - i,
                            "min(i, 3)": jnp.minimum(i, 3), "2 * i - 2": 2 * i - 2}.items():
                got[name] = _ranges.interval(e)
        return i

    jax.make_jaxpr(f)(np.int64(1))
    assert got == {"i - 1": (0, 8), "i + 1": (2, 10), "(i + 1) % n": (0, 9),
                   "(i - 1) % n": (0, 8), "n - 1 - i": (0, 8), "min(i, 3)": (1, 3),
                   "2 * i - 2": (0, 16)}


def test_an_index_is_known_only_while_its_body_is_traced() -> None:
    seen: list = []

    def f(i: Any) -> Any:
        with _ranges.loop_index(i, 0, 4):
            seen.append(_ranges.interval(i + 1))
        seen.append(_ranges.interval(i + 1))
        return i

    jax.make_jaxpr(f)(np.int32(0))
    info = np.iinfo(np.int32)
    assert seen == [(1, 4), (int(info.min), int(info.max))]


def test_without_the_private_name_nothing_is_proved(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list = []

    def f(i: Any) -> Any:
        with _ranges.loop_index(i, 0, 4):
            seen.append(_ranges.proves(i, 0, 3))
            monkeypatch.setattr(_ranges, "tracer_origin", None)
            seen.append(_ranges.proves(i, 0, 3))
        return i

    jax.make_jaxpr(f)(np.int32(0))
    assert seen == [True, False]
