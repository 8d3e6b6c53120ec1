"""Bounds checks decided on the host (``_jit/_hostcheck.py``).

Where every bounds check of a ``jaxtensor.jit`` function compares an affine function of one
scalar integer input, a call whose scalars the host knows runs the program without checks
once the host has found that they pass; any other call runs the checked (gated) program.
The oracle is eager jaxtensor (itself tested against NumPy): random functions of that
form, called with every value around their bounds, each integer type a scalar can come
as, and the extremes of the dtypes (where the device's arithmetic wraps), must give eager
code's values and errors, call after call.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxtensor as jt
from jaxtensor._jit import _hostcheck

X64 = bool(jax.config.read("jax_enable_x64"))


def _outcome(fn: Callable, x: jt.Tensor, *args: Any) -> tuple[str | None, list]:
    try:
        with np.errstate(over="ignore"):  # (eager NumPy scalars wrap, as the device does)
            fn(x, *args)
        err = None
    except (IndexError, OverflowError, ValueError, TypeError) as e:
        err = f"{type(e).__name__}: {e}"
    return err, x.tolist()


def _affine(rng: random.Random, var: str) -> str:
    a = rng.choice([1, 1, 1, -1, 2, -2, 3])
    b = rng.randint(-12, 12)
    return f"{a} * {var} + {b}" if rng.random() < 0.8 else f"{b} - {var}"


def _program(rng: random.Random) -> tuple[str, tuple[int, ...]]:
    """A function of a Tensor ``t`` and scalars ``i``, ``j`` whose indices are affine."""
    two_d = rng.random() < 0.5
    shape = (rng.randint(3, 9), rng.randint(3, 9)) if two_d else (rng.randint(4, 20),)
    lines = ["def fn(t, i, j):"]
    for k in range(rng.randint(1, 5)):
        key = [_affine(rng, rng.choice("ij")) for _ in shape]
        if rng.random() < 0.25:  # a window: t[ds(start, size)]
            key[0] = f"jt.ds({key[0]}, {rng.randint(1, 3)})"
        idx = ", ".join(key)
        if rng.random() < 0.5:
            lines.append(f"    t[{idx}] = t[{idx}] + {k + 1}")
        else:
            lines.append(f"    t[{idx}] = {k + 1}")
    return "\n".join(lines), shape


def _scalar_kinds() -> list[Callable[[int], Any]]:
    kinds: list[Callable[[int], Any]] = [int, jnp.asarray]
    kinds += [np.int64, np.int32, lambda v: np.asarray(v, np.int16)]
    kinds += [lambda v: jnp.asarray(v, jnp.int8), lambda v: jnp.asarray(v, jnp.int32)]
    return kinds


def _fits(kind: Callable[[int], Any], v: int) -> bool:
    if kind is int and abs(v) > 2**60:
        # (eager code computes with a Python int exactly, the call in int64: an index
        # past int64 is named differently in the two errors)
        return False
    try:
        out = kind(v)
    except (OverflowError, ValueError):
        return False
    return int(np.asarray(out)) == v


@pytest.mark.parametrize("seed", range(10))
def test_random_affine_checks_agree_with_eager(seed: int) -> None:
    rng = random.Random(seed)
    src, shape = _program(rng)
    ns: dict[str, Any] = {"jt": jt}
    exec(src, ns)  # noqa: S102 - a generated test program
    fn = ns["fn"]
    jitted = jt.jit(fn)
    n = max(shape)
    big = [2**31 - 1, -(2**31), 2**31, 2**62, -(2**63), 2**63 - 1] if X64 else [2**31 - 1]
    values = list(range(-n - 14, n + 14)) + [127, -128, 128, 32767, 2**15] + big
    kinds = _scalar_kinds()
    eager_x = jt.asarray(np.arange(np.prod(shape), dtype=np.float32).reshape(shape))
    jit_x = jt.asarray(eager_x.numpy())
    first_passed = None
    for _ in range(60):
        kind = rng.choice(kinds)
        i, j = rng.choice(values), rng.choice(values)
        if not (_fits(kind, i) and _fits(kind, j)):
            continue
        want = _outcome(fn, eager_x, kind(i), kind(j))
        got = _outcome(jitted, jit_x, kind(i), kind(j))
        assert got == want, (src, kind, i, j)
        if first_passed is None:
            first_passed = want[0] is None
    # (decided at the first trace: on the host from then on if that call passed)
    plans = list(jitted._jaxtensor_jit._plans.values())
    assert len(plans) == 1 and (plans[0].host is not None) == first_passed, src


def test_a_call_the_host_cannot_clear_runs_the_checked_program() -> None:
    """Values of another type than the traced one, values read from the device, and
    values out of their bounds all raise or write as eager code does."""

    def fn(t: jt.Tensor, i: Any) -> None:
        t[i + 1] = t[i] + 1.0

    f = jt.jit(fn)
    x = jt.zeros(5)
    f(x, 1)  # (traced for a Python int: decided on the host from here on)
    assert f._jaxtensor_jit._guard.plan.host is not None
    want = np.zeros(5, np.float32)
    want[2] = 1.0
    for v, ok in [(np.int64(2), True), (jnp.asarray(3, jnp.int32), True), (4, False),
                  (np.int8(-6), False), (jnp.asarray(-5), True), (-1, True), (-6, False),
                  (3, True)]:
        if ok:
            f(x, v)
            want[int(v) + 1] = want[int(v)] + 1.0
        else:
            with pytest.raises(IndexError, match="out of bounds for axis 0 with size 5"):
                f(x, v)
        np.testing.assert_array_equal(x.numpy(), want)


def test_analysis_gives_up_where_one_set_per_input_cannot_tell() -> None:
    """Two inputs in one index, a non-affine index or an index read from a Tensor keep
    the checked program (and its errors)."""
    cases = [
        (lambda t, i, j: t.__setitem__(i + j, 1.0), (2, 1), (3, 2)),
        (lambda t, i, j: t.__setitem__(i * i, 1.0), (2, 0), (3, 0)),
        (lambda t, i, j: t.__setitem__(i // 2, 1.0), (4, 0), (10, 0)),
        (lambda t, i, j: t.__setitem__(t[i].astype(jt.int64), 1.0), (0, 0), (1, 0)),
    ]
    for fn, good, bad in cases:
        f = jt.jit(fn)
        x = jt.zeros(5)
        x[1] = 7.0
        f(x, *good)
        assert f._jaxtensor_jit._guard.plan.host is None
        with pytest.raises(IndexError):
            f(x, *bad)


def _jaxpr(fn: Callable, *args: Any) -> tuple[Any, int]:
    """The trace ``_hostcheck.analyse`` reads: ``fn``'s hoisted-check trace."""
    traced = []
    real = jax.jit

    class Spy:
        def __init__(self, f: Callable) -> None:
            self.jitted = real(f)

        def trace(self, *a: Any) -> Any:
            t = self.jitted.trace(*a)
            traced.append((t.jaxpr, len(a) - 1))
            return t

        def __call__(self, *a: Any) -> Any:
            return self.jitted(*a)

    from jaxtensor._jit import _jit

    _jit.jax.jit = lambda f, **kw: Spy(f) if not kw else real(f, **kw)
    try:
        jt.jit(fn)(*args)
    finally:
        _jit.jax.jit = real
    return traced[0]


def test_analysis_finds_the_exact_sets() -> None:
    """The sets are exact: every value inside passes every check, every value outside
    (within the input's dtype) fails one."""

    def fn(t: jt.Tensor, i: Any, j: Any) -> None:
        t[i + 1, 2 * j - 1] = t[i - 1, j] + 1.0
        t[jt.ds(3 - i, 2), -j] = 0.0

    closed, n = _jaxpr(fn, jt.zeros((10, 8)), 2, 2)
    conds = _hostcheck.analyse(closed, n)
    assert conds is not None
    (i_pos, i_ivs), (j_pos, j_ivs) = sorted(conds.items())
    # i: -10 <= i + 1 <= 9, -10 <= i - 1 <= 9, 0 <= 3 - i <= 8
    assert i_ivs == ((-5, 3),)
    # j: -8 <= 2j - 1 <= 7, -8 <= j <= 7, -8 <= -j <= 7
    assert j_ivs == ((-3, 4),)


def test_wrapping_values_are_left_to_the_device() -> None:
    """An int8 index whose affine value wraps on the device is not cleared on the host
    (the exact value is out of int8); eager code and the call agree on where it writes."""

    def fn(t: jt.Tensor, i: Any) -> None:
        t[i + 100] = 1.0

    f = jt.jit(fn)
    for v in [-100, -90, 27, 28, 50, 127, -128]:
        x, y = jt.zeros(200), jt.zeros(200)
        want = _outcome(fn, x, jnp.asarray(v, jnp.int8))
        got = _outcome(f, y, jnp.asarray(v, jnp.int8))
        assert got == want, v


def _bitwise_offset(rng: random.Random) -> str:
    """A constant offset computed on the device with bitwise operations."""
    a, b = rng.randint(-8, 8), rng.randint(-8, 8)
    return rng.choice([f"(jnp.asarray({a}) & {b})", f"(jnp.asarray({a}) | {b})",
                       f"(~jnp.asarray({a}))",
                       f"(jnp.asarray({a}, jnp.int8) & jnp.int8({b})).astype(jnp.int32)"])


@pytest.mark.parametrize("seed", range(4))
def test_offsets_made_with_bitwise_operations_agree_with_eager(seed: int) -> None:
    """Indices ``i + c`` where ``c`` is computed with ``&``, ``|``, ``~`` on device
    constants (``x[i + (jnp.asarray(6) & 3)] = 1``): called in bounds first (the host takes
    over the checks), then around and past the bounds, the calls raise and write as eager
    code does."""
    rng = random.Random(seed)
    lines = ["def fn(t, i):"]
    if seed == 0:  # (the case found: ``6 & 3`` was folded as ``6 and 3``)
        lines.append("    t[i + (jnp.asarray(6) & 3)] = 1")
    for k in range(rng.randint(1, 3) if seed else 0):
        lines.append(f"    t[i + {_bitwise_offset(rng)}] = {k + 1}")
    src = "\n".join(lines)
    ns: dict[str, Any] = {"jt": jt, "jnp": jnp}
    exec(src, ns)  # noqa: S102 - a generated test program
    fn = ns["fn"]
    jitted = jt.jit(fn)
    eager_x, jit_x = jt.arange(6.0), jt.arange(6.0)
    # first a call in bounds (the one that decides on the host), then all around the bounds
    first = [i for i in range(-6, 6) if _outcome(fn, jt.arange(6.0), i)[0] is None]
    assert first, src
    for i in first[:1] + list(range(-20, 20)):
        want = _outcome(fn, eager_x, i)
        assert _outcome(jitted, jit_x, i) == want, (src, i)


def test_a_long_chain_of_checked_writes() -> None:
    """400 checked writes (a Python loop unrolled into the program): the analysis of their
    checks follows the whole chain (it recursed per check, and raised RecursionError)."""

    def fn(t: jt.Tensor, i: Any) -> None:
        for k in range(400):
            t[i + k % 3] = k

    f = jt.jit(fn)
    x = jt.zeros(4)
    with pytest.warns(jt.UnrolledLoopWarning):
        f(x, 1)
    want = [0.0, 399.0, 397.0, 398.0]  # (the last write of each position)
    assert x.tolist() == want
    with pytest.raises(IndexError, match="index 4 is out of bounds"):
        f(x, 2)
    want[2:] = [0.0, 1.0]  # (the writes before the failing third one are kept, as eagerly)
    assert x.tolist() == want
