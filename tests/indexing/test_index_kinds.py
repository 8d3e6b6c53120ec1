"""Index objects NumPy users pass, against NumPy as the oracle: 0-D integer arrays (an
advanced index: a copy), NumPy integer scalars and 0-D Tensors (ints: a view), ``range``
objects (integer arrays), and lists passed into ``jaxtensor.jit`` functions (indexing as
they do eagerly)."""

from __future__ import annotations

import itertools

import jax
import numpy as np
import pytest

import jaxtensor as jt

X64 = jax.config.read("jax_enable_x64")  # (jaxtensor turns it on unless the environment says no)

INT_DTYPES = ["int8", "int16", "int32", "uint8", "uint16"] + (["int64", "uint32"] if X64 else [])
A = np.arange(24.0).reshape(2, 3, 4)


def _check(key, jt_key=None):
    x = jt.asarray(A)
    want = A[key]
    got = x[key if jt_key is None else jt_key]
    np.testing.assert_array_equal(np.asarray(got), want)
    assert got.shape == want.shape
    # a view exactly when NumPy gives one
    assert jt.shares_memory(got, x) == (np.shares_memory(want, A) and want.size > 0), key
    # and the same key writes the same elements
    x2, a2 = jt.asarray(A), A.copy()
    x2[key if jt_key is None else jt_key] = -1.0
    a2[key] = -1.0
    np.testing.assert_array_equal(np.asarray(x2), a2)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_zero_d_integer_arrays_are_advanced_indices(dtype):
    for v, rest in itertools.product([0, 1, -1] if dtype[0] == "i" else [0, 1],
                                     [(), (slice(None),), (slice(1, None), 2), (Ellipsis, 1)]):
        _check((np.array(v, dtype=dtype),) + rest)
        _check((slice(None), np.array(v % 3, dtype=dtype)) + rest[:1])


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_scalars_and_zero_d_tensors_are_ints(dtype):
    for v in ([0, 1, -1] if dtype[0] == "i" else [0, 1]):
        _check(np.dtype(dtype).type(v))
        _check((slice(None), np.dtype(dtype).type(v % 3)))
        x = jt.asarray(A)
        t = jt.asarray(v, dtype=getattr(jt, dtype))
        got = x[t]
        assert jt.shares_memory(got, x)  # (PyTorch's rule for a 0-D integer tensor)
        np.testing.assert_array_equal(np.asarray(got), A[v])


@pytest.mark.parametrize("r", [range(2), range(0), range(1, 2), range(2, -1, -1), range(0, 4, 3)])
def test_ranges_index_like_integer_lists(r):
    _check((slice(None), slice(None), r))
    if max(r, default=0) < 2:
        _check(r)
    if max(r, default=0) < 3:
        _check((slice(None), r))
        _check((0, r, slice(1, 3)))


@pytest.mark.parametrize("key", [[0, 1], [1, 0, 1], [[0], [1]], [-1]])
def test_lists_inside_jaxtensor_jit_index_as_eagerly(key):
    x = jt.asarray(A)
    read = jt.jit(lambda t, k: t[k])
    np.testing.assert_array_equal(np.asarray(read(x, key)), A[np.array(key)])
    np.testing.assert_array_equal(np.asarray(read(x, (slice(None), key))), A[:, np.array(key)])
    write = jt.jit(lambda t, k, v: t.__setitem__(k, v))
    a2 = A.copy()
    a2[np.array(key)] = 7.0
    write(x, key, 7.0)
    np.testing.assert_array_equal(np.asarray(x), a2)
    with pytest.raises(IndexError, match="out of bounds"):
        read(x, [0, 5])


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16"])
@pytest.mark.parametrize("n", [200, 70000])
def test_narrow_index_dtypes_address_long_axes(dtype: str, n: int) -> None:
    """An 8- or 16-bit index (array or scalar, NumPy or Tensor, eager or compiled) on an
    axis longer than its dtype holds selects what NumPy selects: a negative index plus the
    axis's size is computed wide enough (it overflowed, or raised JAX's OverflowError)."""
    info = np.iinfo(dtype)
    vals = [v for v in (-29, 3, info.max, info.min, -1, -29)
            if info.min <= v <= info.max and -n <= v < n]
    idx = np.array(vals, dtype)
    base = np.arange(n, dtype=np.float32)
    pos = np.where(idx.astype(np.int64) < 0, idx.astype(np.int64) + n, idx)
    for index in (idx, jt.asarray(idx)):
        np.testing.assert_array_equal(jt.asarray(base)[index].numpy(), base[idx])
        x = jt.asarray(base)
        x[index] = -jt.arange(len(vals), dtype=jt.float32)
        want = base.copy()
        want[idx] = -np.arange(len(vals), dtype=np.float32)
        np.testing.assert_array_equal(x.numpy(), want)
    np.testing.assert_array_equal(
        jt.index_select(jt.asarray(base), 0, jt.asarray(idx)).numpy(), base[pos])
    np.testing.assert_array_equal(jt.take(jt.asarray(base), jt.asarray(idx)).numpy(), base[idx])
    compiled = jt.jit(lambda t, i, k: t.__setitem__(i, t[k] + 1.0))
    x = jt.asarray(base)
    compiled(x, jax.numpy.asarray(idx), jax.numpy.asarray(idx[0]))
    want = base.copy()
    want[idx] = base[idx[0]] + 1.0
    np.testing.assert_array_equal(x.numpy(), want)
