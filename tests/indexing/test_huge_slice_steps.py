"""Slices with huge steps, starts and stops next to an advanced index, against NumPy.

NumPy takes any Python int in a slice; JAX's indexing computes with int32, so a step of
2**31 or more beside an integer array or mask (``x[::2**31, [0]]``) raised
``OverflowError`` where a basic index of the same slice worked. Reads and writes, every
position of the slice, arrays, lists and masks as the advanced part.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxtensor as jt

BIG = [2**31 - 1, 2**31, 2**32 + 3, 2**40, 2**62, 2**63 - 1, 2**63, 2**70]
bounds = st.one_of(st.none(), st.integers(-6, 6), st.sampled_from(BIG + [-b for b in BIG]))
steps = st.one_of(st.sampled_from(BIG + [-b for b in BIG]), st.integers(1, 3),
                  st.integers(-3, -1))


@st.composite
def keys(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple, tuple]:
    """(shape, jaxtensor key, NumPy key): one huge-step slice and one advanced index."""
    ndim = draw(st.integers(2, 3))
    shape = tuple(draw(st.integers(0 if i else 1, 4)) for i in range(ndim))
    at = draw(st.integers(0, ndim - 1))
    adv_axis = draw(st.sampled_from([i for i in range(ndim) if i != at]))
    key: list = [slice(None)] * ndim
    key[at] = slice(draw(bounds), draw(bounds), draw(steps))
    n = shape[adv_axis]
    kind = draw(st.sampled_from(["list", "array", "tensor", "mask"]))
    if kind == "mask":
        mask = np.asarray(draw(st.lists(st.booleans(), min_size=n, max_size=n)), bool)
        jt_adv, np_adv = (jt.asarray(mask) if draw(st.booleans()) else mask), mask
    else:
        idx = draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=3)) if n else []
        np_adv = np.asarray(idx, dtype=np.int64)
        jt_adv = {"list": idx, "array": np_adv, "tensor": jt.asarray(np_adv)}[kind]
    jt_key, np_key = list(key), list(key)
    jt_key[adv_axis], np_key[adv_axis] = jt_adv, np_adv
    return shape, tuple(jt_key), tuple(np_key)


@settings(max_examples=150, deadline=None)
@given(keys())
def test_read(case: tuple) -> None:
    shape, jt_key, np_key = case
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    want = a[np_key]
    got = jt.asarray(a)[jt_key]
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)


@settings(max_examples=150, deadline=None)
@given(keys(), st.booleans())
def test_write(case: tuple, scalar: bool) -> None:
    shape, jt_key, np_key = case
    a = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    sel = a[np_key]
    value = -1 if scalar else -np.arange(sel.size, dtype=np.int32).reshape(sel.shape) - 1
    x = jt.asarray(a)
    alias = x[...]
    a[np_key] = value
    x[jt_key] = value
    np.testing.assert_array_equal(np.asarray(x), a)
    np.testing.assert_array_equal(np.asarray(alias), a)


def test_reported_keys() -> None:
    a = np.arange(12).reshape(3, 4)
    for key in ((slice(None, None, 2**31), [0]), ([0], slice(None, None, 2**40)),
                (slice(None, None, -2**40), [1, 2]), (slice(2**40, None, 2**33), [0]),
                (slice(-2**40, None, 2**35), np.asarray([True, False, True, False]))):
        x = jt.asarray(a)
        np.testing.assert_array_equal(np.asarray(x[key]), a[key])
        b = a.copy()
        b[key] = 99
        x[key] = 99
        np.testing.assert_array_equal(np.asarray(x), b)


def test_under_jit() -> None:
    a = np.arange(12).reshape(3, 4)

    @jt.jit
    def f(x: jt.Tensor) -> jt.Tensor:
        x[::2**31, [1, 3]] = 0
        return x[[2], ::-2**40]

    x = jt.asarray(a)
    got = f(x)
    b = a.copy()
    b[::2**31, [1, 3]] = 0
    np.testing.assert_array_equal(np.asarray(got), b[[2], ::-2**40])
    np.testing.assert_array_equal(np.asarray(x), b)
