"""Integer edge cases against NumPy 2.

Comparing an integer Tensor with a Python int outside its dtype's range gives NumPy 2's
answer (``uint8_t == -1`` is all False, ``uint8_t > -1`` all True) for every comparison,
both operand orders, the operators and the namespace functions, eagerly and under jit;
``x ** n`` wraps as NumPy's does for every exponent, and a negative integer exponent gives
the integer part of ``1 / x ** -n``."""

from __future__ import annotations

import operator

import jax
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jaxtensor as jt

X64 = jax.config.read("jax_enable_x64")  # (jaxtensor turns it on unless the environment says no)

DTYPES = ["uint8", "int8", "uint16", "int16", "int32", "uint32"] + (
    ["int64", "uint64"] if X64 else [])
VALUES = [-1, 256, -129, 128, 2**16, -(2**31) - 1, 2**32, -(2**40), 2**64, -(2**70), 5, 0]
OPS = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater",
       "ge": "greater_equal"}


@pytest.mark.parametrize("dt", DTYPES)
def test_every_comparison_matches_numpy(dt):
    a = np.array([[0, 1], [100, 7]], dt)
    t = jt.asarray(a)
    for op, fname in OPS.items():
        f = getattr(operator, op)
        for v in VALUES:
            want = f(a, v)
            np.testing.assert_array_equal(np.asarray(f(t, v)), want, err_msg=f"{op} {v}")
            np.testing.assert_array_equal(np.asarray(f(v, t)), f(v, a), err_msg=f"{v} {op}")
            np.testing.assert_array_equal(np.asarray(getattr(jt, fname)(t, v)), want)
            got = f(t, v)
            assert got.dtype == jt.bool and got.shape == a.shape


def test_under_jit_and_with_arithmetic_still_raising():
    u = jt.asarray([0, 1, 255], dtype=jt.uint8)
    f = jt.jit(lambda x: (x == -1, x > -1, x < 300))
    eq, gt, lt = f(u)
    assert eq.tolist() == [False] * 3 and gt.tolist() == [True] * 3 and lt.tolist() == [True] * 3
    with pytest.raises(OverflowError, match="out of bounds"):
        u + 300  # arithmetic keeps NumPy 2's OverflowError


INT_POW_DTYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32"] + (
    ["int64", "uint64"] if X64 else [])


@pytest.mark.parametrize("dt", INT_POW_DTYPES)
def test_integer_power_wraps_like_numpy_for_every_exponent(dt):
    info = np.iinfo(dt)
    a = np.array([3, 2, 1, 0, 5, 7] + ([-3, -2] if info.min < 0 else []), dt)
    t = jt.asarray(a)
    for n in (0, 1, 2, 7, 8, 9, 31, 32, 33, 63, 64, 65, 100, 127, 128, 200, 255, 1000, 2**20 + 3):
        if n > info.max:
            continue
        with np.errstate(all="ignore"):
            want = a ** np.array(n, dt)
        np.testing.assert_array_equal(np.asarray(t ** n), want, err_msg=f"{dt} ** {n}")
        np.testing.assert_array_equal(np.asarray(jt.pow(t, jt.asarray(np.array(n, dt)))), want)
        e = np.full(a.shape, n, dt)  # an exponent array
        np.testing.assert_array_equal(np.asarray(jt.pow(t, jt.asarray(e))), want)


SIGNED = [d for d in INT_POW_DTYPES if d.startswith("int")]
POW_JIT = jt.jit(operator.pow)


def _int_power(x: np.integer, n: np.integer) -> int:
    """NumPy's wrapping power for ``n >= 0``; else the integer part of ``1 / x ** -n`` (0
    for ``x == 0``)."""
    if n < 0:
        return 0 if abs(int(x)) != 1 else int(x) ** (-int(n) % 2)
    with np.errstate(all="ignore"):
        return int(x ** n)


@given(data=st.data(), dt=st.sampled_from(SIGNED))
def test_integer_power_with_a_negative_exponent_is_the_truncated_reciprocal(data, dt):
    """NumPy and PyTorch raise here (the standard leaves it undefined); XLA's answer was
    arbitrary (``int8(3) ** -2`` was 57; found by marray's suite)."""
    info = np.iinfo(dt)
    bases = st.sampled_from([0, 1, -1, 2, -2]) | hnp.from_dtype(np.dtype(dt))
    exponents = st.integers(info.min, -1) | st.integers(info.min, info.max)
    a = data.draw(hnp.arrays(dt, 6, elements=bases))
    e = data.draw(hnp.arrays(dt, 6, elements=exponents))
    want = [_int_power(x, n) for x, n in zip(a, e)]
    t, u = jt.asarray(a), jt.asarray(e)
    inplace = jt.asarray(a)
    inplace **= u
    for got in (jt.pow(t, u), t ** u, POW_JIT(t, u), inplace):
        assert got.dtype == np.dtype(dt) and got.tolist() == want
    n = data.draw(st.integers(-70, -1))  # a Python int exponent
    assert (t ** n).tolist() == [_int_power(x, n) for x in a]
