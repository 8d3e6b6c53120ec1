"""Numerical edge cases where XLA's CPU code differs from IEEE/NumPy: max/min (and the norms
built on them) propagate NaN at every size, division is correctly rounded when the
divisor is broadcast (a Python scalar, a 0-D or lower-rank Tensor), eagerly and under
``jaxtensor.jit``, and integer division by zero is 0. NumPy is the oracle, compared bit
for bit."""

from __future__ import annotations

import math
import operator

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jaxtensor as jt

SIZES = [0, 1, 2, 7, 100, 4095, 4096, 4097, 5000, 8191, 8192, 8193, 12288, 16384, 20000]


def _positions(n: int) -> list[int]:
    return sorted({0, 1, n // 2, n - 2, n - 1} & set(range(n)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["max", "min"])
def test_extremum_propagates_nan_at_every_size(name: str, dtype: str):
    f_np, f_jt = getattr(np, name), getattr(jt, name)
    for n in SIZES:
        if n == 0:
            continue
        base = (np.arange(n) % 7).astype(dtype)
        got = float(f_jt(jt.asarray(base)))
        assert got == f_np(base), (n, got)
        for pos in _positions(n):
            a = base.copy()
            a[pos] = np.nan
            got = float(f_jt(jt.asarray(a)))
            assert math.isnan(got), (n, pos, got)
            a[pos] = np.inf if name == "max" else -np.inf
            assert float(f_jt(jt.asarray(a))) == a[pos], (n, pos)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("shape,axis", [((3, 5000), 1), ((3, 5000), 0), ((5000, 3), 0),
                                        ((2, 3, 2048), (0, 2)), ((2, 3, 2048), -1),
                                        ((4097,), 0), ((2, 4096), None), ((7, 9, 5), (0, 2)),
                                        ((3, 1, 6001), (1, 2)), ((5, 3), ()), ((1,), None)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_extremum_nan_over_axes(name: str, dtype: str, shape, axis, keepdims: bool):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape).astype(dtype)
    flat = a.reshape(-1)
    flat[rng.choice(flat.size, min(3, flat.size - 1), replace=False)] = np.nan
    t = jt.asarray(a)
    expected = getattr(np, name)(a, axis=axis, keepdims=keepdims)
    for got in (getattr(jt, name)(t, axis=axis, keepdims=keepdims),
                getattr(t, name)(axis=axis, keepdims=keepdims),
                jt.jit(lambda x: getattr(jt, name)(x, axis=axis, keepdims=keepdims))(t)):
        np.testing.assert_array_equal(np.asarray(got), expected)


def test_norms_propagate_nan():
    a = np.ones((3, 5000), np.float32)
    a[1, 17] = np.nan
    t = jt.asarray(a)
    for o in (math.inf, -math.inf):
        np.testing.assert_array_equal(
            np.asarray(jt.linalg.vector_norm(t, axis=1, ord=o)),
            np.linalg.norm(a, axis=1, ord=o))
    m = np.ones((2, 4100, 3), np.float32)
    m[1, 5, 0] = np.nan
    for o in (1, -1, math.inf, -math.inf):
        np.testing.assert_array_equal(
            np.asarray(jt.linalg.matrix_norm(jt.asarray(m), ord=o)),
            np.linalg.norm(m, axis=(-2, -1), ord=o))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_consumers_at_large_sizes(dtype: str):
    """argmax/argmin, sort, searchsorted and clip over NaN, past XLA's 4096-element limit."""
    for n in (4095, 4096, 4097, 9000):
        for pos in _positions(n):
            a = (np.arange(n) % 11).astype(dtype)
            a[pos] = np.nan
            t = jt.asarray(a)
            assert int(jt.argmax(t)) == np.argmax(a)
            assert int(jt.argmin(t)) == np.argmin(a)
            np.testing.assert_array_equal(np.asarray(jt.sort(t)), np.sort(a))
            s = np.sort(a)
            q = np.asarray([0.0, 5.0, np.nan], dtype)
            np.testing.assert_array_equal(
                np.asarray(jt.searchsorted(jt.asarray(s), jt.asarray(q))), np.searchsorted(s, q))
            np.testing.assert_array_equal(np.asarray(jt.clip(t, 1.0, 5.0)), np.clip(a, 1.0, 5.0))


# -- correctly rounded division -------------------------------------------------------------
def _values(dtype: str, n: int = 4000) -> np.ndarray:
    rng = np.random.default_rng(1)
    a = rng.standard_normal(n) * np.exp2(rng.integers(-20, 20, n))
    return a.astype(dtype)


def _normal(r: np.ndarray) -> np.ndarray:
    """Where a result is a normal number or zero/inf/NaN (XLA flushes subnormals to zero)."""
    return ~((np.abs(r) < np.finfo(r.dtype).tiny) & (r != 0))


def _same_bits(got: np.ndarray, expected: np.ndarray) -> None:
    ok = _normal(expected)
    np.testing.assert_array_equal(got[ok], expected[ok])


DIVISORS = [3.0, 7.0, 10.0, 0.1, -1.7, 1e-30, 3e37, 1e38, -7e37, 1e300, math.inf, -0.0, 0.0,
            math.nan]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_division_by_scalar_is_correctly_rounded(dtype: str):
    a = _values(dtype)
    a[:4] = [np.inf, -np.inf, np.nan, 0.0]
    t = jt.asarray(a)
    with np.errstate(all="ignore"):
        for d in DIVISORS:
            s = np.asarray(d, dtype)
            if not np.isfinite(s) and np.isfinite(d):
                continue  # 1e300 in float32
            expected = a / s
            for got in (t / d, t / d, jt.divide(t, d), t / jt.asarray(d, dtype=dtype),
                        jt.divide(t, jt.asarray(s))):
                _same_bits(np.asarray(got), expected)
            _same_bits(np.asarray(d / t), s / a)
            u = jt.asarray(a)
            u /= d
            _same_bits(np.asarray(u), expected)
            if np.isfinite(s) and s != 0:  # (the standard's infinities differ from NumPy's)
                fin = np.isfinite(a)
                _same_bits(np.asarray(t // d)[fin], (a // s)[fin])
                _same_bits(np.asarray(t % d)[fin], (a % s)[fin])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_division_by_broadcast_operand_is_correctly_rounded(dtype: str):
    a = _values(dtype, 60 * 50).reshape(60, 50)
    rows = _values(dtype, 60).reshape(60, 1) + np.asarray(0.5, dtype)
    cols = _values(dtype, 50) - np.asarray(0.25, dtype)
    t = jt.asarray(a)
    for d in (rows, cols, cols[None], a[:1], a[::-1] + np.asarray(0.5, dtype)):
        _same_bits(np.asarray(t / jt.asarray(d)), a / d)
        _same_bits(np.asarray(jt.asarray(d) / t), d / a)
        _same_bits(np.asarray(jt.floor_divide(t, jt.asarray(d))), a // d)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_division_under_jit_is_correctly_rounded(dtype: str):
    a = _values(dtype)
    t = jt.asarray(a)

    @jt.jit
    def f(x, d):
        y = x / 3.0
        z = x / d
        x /= 7.0
        return y, z

    y, z = f(t, jt.asarray(np.asarray(10.0, dtype)))
    _same_bits(np.asarray(y), a / np.asarray(3.0, dtype))
    _same_bits(np.asarray(z), a / np.asarray(10.0, dtype))
    _same_bits(np.asarray(t), a / np.asarray(7.0, dtype))
    g = jt.jit(lambda x: x / jt.broadcast_to(jt.asarray(np.asarray(3.0, dtype)), x.shape))
    _same_bits(np.asarray(g(jt.asarray(a))), a / np.asarray(3.0, dtype))


def test_integer_division_by_scalar_is_correctly_rounded():
    a = np.random.default_rng(2).integers(-10**6, 10**6, 4000)
    t = jt.asarray(a)
    f = jt.float32 if t.dtype == np.int32 else jt.float64
    expected = a.astype(np.dtype(str(f))) / np.asarray(3.0, np.dtype(str(f)))
    got = np.asarray(t / 3)
    np.testing.assert_array_equal(got.astype(expected.dtype), expected.astype(got.dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_basic_arithmetic_by_scalar_is_exact(dtype: str):
    a = _values(dtype)
    t = jt.asarray(a)
    for s in (3.0, 0.1, -1.7, 1e-30):
        v = np.asarray(s, dtype)
        _same_bits(np.asarray(t + s), a + v)
        _same_bits(np.asarray(t - s), a - v)
        _same_bits(np.asarray(s - t), v - a)
        _same_bits(np.asarray(t * s), a * v)
    _same_bits(np.asarray(jt.sqrt(jt.abs(t))), np.sqrt(np.abs(a)))
    _same_bits(np.asarray(jt.reciprocal(t)), 1 / a)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mean_divides_correctly_rounded(dtype: str):
    """Where the sum is exact (small integers), the mean is the correctly rounded quotient."""
    a = np.random.default_rng(3).integers(-1000, 1000, (500, 3)).astype(dtype)
    t = jt.asarray(a)
    np.testing.assert_array_equal(np.asarray(jt.mean(t, axis=1)), np.mean(a, axis=1))
    np.testing.assert_array_equal(np.asarray(jt.mean(t, axis=1, keepdims=True)),
                                  np.mean(a, axis=1, keepdims=True))
    np.testing.assert_array_equal(np.asarray(t.mean(axis=1)), np.mean(a, axis=1))
    c = a[:, :2] + 1j * a[:, 1:]
    np.testing.assert_allclose(np.asarray(jt.mean(jt.asarray(c), axis=1)), np.mean(c, axis=1),
                               rtol=1e-6)


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 2), -1])
def test_extremum_gradient_splits_ties_as_jax(name: str, axis) -> None:
    """The gradient of max/min is jnp.max's (and PyTorch's amax's): split evenly between
    equal extrema, whatever order the reduction compares them in."""
    rng = np.random.default_rng(1)
    a = rng.integers(0, 3, (5, 7, 3)).astype(np.float32)  # many ties
    f_jt, f_jnp = getattr(jt, name), getattr(jnp, name)
    got = jt.grad(lambda x: (f_jt(x, axis=axis) * jt.arange(1.0, 1.0 + np.max(
        a, axis=axis).size).reshape(np.max(a, axis=axis).shape)).sum())(jt.asarray(a))
    want = jax.grad(lambda x: (f_jnp(x, axis=axis) * jnp.arange(1.0, 1.0 + np.max(
        a, axis=axis).size).reshape(np.max(a, axis=axis).shape)).sum())(jnp.asarray(a))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


@pytest.mark.parametrize("dtypes", [("float64", "float32"), ("float32", "float32"),
                                    ("float32", "float64")])
def test_floor_divide_broadcasts_like_numpy(dtypes) -> None:
    """Float floor division of operands of different shapes and ranks (found by the
    official suite: ``(1,) // (1, 1)``)."""
    rng = np.random.default_rng(0)
    shapes = [(), (1,), (3,), (1, 1), (2, 3), (2, 1), (1, 3), (4, 2, 3)]
    for sa in shapes:
        for sb in shapes:
            try:
                np.broadcast_shapes(sa, sb)
            except ValueError:
                continue
            a = (rng.standard_normal(sa) * 10).astype(dtypes[0])
            b = (rng.standard_normal(sb) * 3).astype(dtypes[1])
            want = np.floor_divide(a, b)
            for got in (jt.floor_divide(jt.asarray(a), jt.asarray(b)),
                        jt.asarray(a) // jt.asarray(b)):
                np.testing.assert_array_equal(np.asarray(got), want.astype(got.dtype))


INTEGRAL = [str(d) for d in jt.__array_namespace_info__().dtypes(kind="integral").values()]
# (bool arithmetic is outside the standard: // and % of bools give int8, NumPy's, and the
# in-place forms refuse to store int8 into bool, as NumPy's same_kind rule)
JITTED = {operator.floordiv: jt.jit(operator.floordiv), operator.mod: jt.jit(operator.mod)}


@given(data=st.data(), dtype=st.sampled_from([*INTEGRAL, "bool"]))
def test_integer_floor_divide_and_remainder_by_zero_give_zero(data, dtype: str) -> None:
    """``x // 0`` and ``x % 0`` of integers are 0, as in NumPy (XLA's quotient was -1, -2
    or the unsigned maximum by sign; found by marray's suite), by every route."""
    shape = data.draw(st.sampled_from([(), (7,), (2, 3)]))  # (few shapes: few compilations)
    a = data.draw(hnp.arrays(dtype, shape))
    divisors = st.sampled_from([0, 1, -1] if dtype[0] == "i" else [0, 1]).map(
        np.dtype(dtype).type) | hnp.from_dtype(np.dtype(dtype))
    b = data.draw(hnp.arrays(dtype, shape, elements=divisors))
    with np.errstate(all="ignore"):
        want = {"floor_divide": np.floor_divide(a, b), "remainder": np.remainder(a, b)}
    routes = (("floor_divide", operator.floordiv, operator.ifloordiv),
              ("remainder", operator.mod, operator.imod))
    for name, op, iop in routes:
        x, y = jt.asarray(a), jt.asarray(b)
        if dtype == "bool":
            with pytest.raises(TypeError, match="same_kind"):
                iop(jt.asarray(a), y)
            results = (getattr(jt, name)(x, y), op(x, y), JITTED[op](x, y))
        else:
            results = (getattr(jt, name)(x, y), op(x, y), JITTED[op](x, y),
                       iop(jt.asarray(a), y))
        for got in results:
            assert got.dtype == want[name].dtype
            np.testing.assert_array_equal(np.asarray(got), want[name], name)


def test_complex_atanh_and_atan_near_the_branch_points() -> None:
    """atanh(z) for z near 1 or -1 with a tiny imaginary part is finite (NumPy's), where
    XLA's real part overflows (found by the official suite: 1 + 1.77e-202j)."""
    zs = []
    for s in (1, -1):
        for e in (-300, -202, -160, -100, -30, -8, 0):
            for sg in (1, -1):
                zs += [s + sg * 1.3 * 10.0**e * 1j, s * (1 - 1e-16) + sg * 10.0**e * 1j]
    z = np.array(zs, np.complex128)
    np.testing.assert_allclose(np.asarray(jt.atanh(jt.asarray(z))), np.arctanh(z), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(jt.atan(jt.asarray(1j * z))), np.arctan(1j * z),
                               rtol=1e-12)
