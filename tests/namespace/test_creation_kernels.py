"""Eager creation functions run one cached kernel per call (``zeros``, ``ones``, ``full``, the
``*_like`` ones, ``eye``); an integer ``arange`` is computed on the host: each call, the
first, which compiles, and the later ones, gives NumPy's values, dtype and placement, and an
integer ``arange`` compiles nothing."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import jaxtensor as jt
from measure import count_compiles

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
DTYPES = [*INTS, "bool", "float32", "float64", "complex64", "complex128"]
DEV = jax.devices()[0]
shapes = st.lists(st.integers(0, 4), max_size=3).map(tuple)


def _same(got: jt.Tensor, want: np.ndarray) -> None:
    g = np.asarray(got)
    assert g.dtype == want.dtype and g.shape == want.shape
    np.testing.assert_array_equal(g, want)
    if want.dtype.kind == "f":  # (signed zeros)
        np.testing.assert_array_equal(np.signbit(g), np.signbit(want))


def _thrice(make, want: np.ndarray) -> None:
    """``make()`` three times (the first call, the one that compiles, a compiled one)."""
    for _ in range(3):
        _same(make(), want)


@given(shape=shapes, dtype=st.sampled_from(DTYPES), device=st.sampled_from([None, "cpu", DEV]))
def test_zeros_ones_empty_match_numpy(shape, dtype, device):
    _thrice(lambda: jt.zeros(shape, dtype=dtype, device=device), np.zeros(shape, dtype))
    _thrice(lambda: jt.ones(shape, dtype=dtype, device=device), np.ones(shape, dtype))
    _thrice(lambda: jt.empty(shape, dtype=dtype, device=device), np.zeros(shape, dtype))
    x = jt.zeros(shape, dtype=dtype)
    _thrice(lambda: jt.zeros_like(x), np.zeros(shape, dtype))
    _thrice(lambda: jt.ones_like(x, dtype="float32"), np.ones(shape, np.float32))
    _thrice(lambda: jt.empty_like(x), np.zeros(shape, dtype))


@given(shape=shapes, dtype=st.sampled_from(DTYPES), data=st.data())
def test_full_matches_numpy(shape, dtype, data):
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        value = data.draw(st.integers(int(info.min), int(info.max)))
    elif dt.kind == "b":
        value = data.draw(st.booleans())
    elif dt.kind == "f":
        value = data.draw(st.floats(width=dt.itemsize * 8))
    else:
        part = st.floats(width=dt.itemsize * 4)
        value = complex(data.draw(part), data.draw(part))
    want = np.full(shape, value, dt)
    _thrice(lambda: jt.full(shape, value, dtype=dtype), want)
    x = jt.zeros(shape, dtype=dtype)
    _thrice(lambda: jt.full_like(x, value), want)


@pytest.mark.parametrize("make", [
    lambda d: jt.zeros(3, device=d), lambda d: jt.ones((2, 2), device=d),
    lambda d: jt.full(3, 2.5, device=d), lambda d: jt.eye(3, device=d),
    lambda d: jt.arange(4, device=d), lambda d: jt.full(2, 3, dtype="int8", device=d)])
@pytest.mark.parametrize("device", [None, DEV])
def test_placement_as_jax_numpy(make, device):
    """A device given commits the result there; none leaves it uncommitted, as ``jnp``."""
    want = jnp.zeros(3, device=device).committed
    for _ in range(3):
        arr = make(device).to_jax()
        assert arr.committed == want
        assert arr.devices() == {DEV}


@given(n=st.integers(0, 6), m=st.none() | st.integers(0, 6), k=st.integers(-7, 7),
       dtype=st.sampled_from(DTYPES))
def test_eye_matches_numpy(n, m, k, dtype):
    _thrice(lambda: jt.eye(n, m, k=k, dtype=dtype), np.eye(n, m, k=k, dtype=dtype))


@given(dtype=st.sampled_from(INTS), data=st.data())
def test_integer_arange_matches_numpy(dtype, data):
    """Ranges anywhere in the dtype's span, both ends at its edges included, any step."""
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    edge = st.sampled_from([lo, lo + 1, hi - 1, hi, 0, -1 if lo < 0 else 1])
    start = data.draw(edge | st.integers(lo, hi))
    count = data.draw(st.integers(0, 6))
    step = data.draw(st.integers(1, max(1, (hi - lo) // max(count, 1))) | st.integers(1, 3))
    step = step if data.draw(st.booleans()) else -step
    stop = start + count * step
    last = start + (count - 1) * step
    if count and not lo <= last <= hi:
        return  # (values out of the dtype: test_creation_arguments' wrapping test)
    want = np.array(range(start, stop, step), dtype=dtype)
    _thrice(lambda: jt.arange(start, stop, step, dtype=dtype), want)


def test_integer_arange_out_of_range_raises_or_wraps_as_numpy_each_time():
    """Called again (its host value cached or not): the same answer as the first call."""
    for _ in range(2):
        with pytest.raises(OverflowError):
            jt.arange(250, 300, 7, dtype="uint8")
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(jt.arange(0, 300, 7, dtype="uint8")),
                                      np.arange(0, 300, 7, dtype="uint8"))


def test_integer_arange_compiles_nothing():
    """An integer ``arange`` is computed on the host and transferred: ranges met once or
    again and again compile nothing (code whose ranges change call to call pays no compile
    per range)."""
    base = 10_000 + int(np.random.default_rng().integers(0, 10**9))  # (never met before)

    def run() -> None:
        for j in range(40):
            for _ in range(1 + j % 3):
                np.testing.assert_array_equal(
                    np.asarray(jt.arange(base + j, base + 2 * j, 3, dtype="int64")),
                    np.arange(base + j, base + 2 * j, 3))
    assert count_compiles(run) == 0


def test_creation_in_traces_is_traced():
    """Under ``jax.jit`` and ``jaxtensor.jit`` the creation functions are part of the trace
    (a kernel's result would be a constant of it)."""
    @jax.jit
    def f(v):
        return jt.zeros(3).to_jax() + jt.arange(3).to_jax() + jt.eye(3)[0].to_jax() + v

    @jt.jit
    def g(v):
        return jt.full(3, 2.0) + jt.ones(3) * v
    for v in (1.0, 2.0):
        np.testing.assert_array_equal(np.asarray(f(v)), np.array([1.0, 1, 2]) + v)
        np.testing.assert_array_equal(np.asarray(g(v)), 2.0 + v * np.ones(3))
