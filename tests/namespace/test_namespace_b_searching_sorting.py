"""Searching, sorting and set functions (part B): NumPy as the oracle."""

import jax
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.array_api import make_strategies_namespace

import jaxtensor as jt

xps = make_strategies_namespace(jt)
small = xps.array_shapes(min_dims=1, max_dims=3, max_side=5)


def T(a, dtype=None):
    return jt.asarray(np.asarray(a) if dtype is None else np.asarray(a, dtype=dtype))


@given(x=xps.arrays(xps.integer_dtypes(sizes=(8, 64)), small, elements={"min_value": 0,
                                                                       "max_value": 3}),
       descending=st.booleans())
def test_argsort_is_stable_in_both_directions(x, descending):
    a = x.numpy()
    got = jt.argsort(x, axis=-1, descending=descending).numpy()
    ref = np.argsort(-a.astype(np.int64) if descending else a, axis=-1, kind="stable")
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(jt.sort(x, descending=descending).numpy(),
                                  np.take_along_axis(a, ref, axis=-1))


def test_sort_nan_and_method():
    x = T([np.nan, 1.0, -np.inf, 0.5])
    assert np.isnan(jt.sort(x).numpy()[-1])
    assert np.isnan(jt.sort(x, descending=True).numpy()[0])
    assert x.argsort().tolist() == [2, 3, 1, 0]


def test_argmax_argmin_first_occurrence_and_keepdims():
    a = np.array([[1, 5, 5], [7, 7, 0]])
    assert jt.argmax(T(a), axis=1).tolist() == [1, 0]
    assert jt.argmin(T(a), axis=0, keepdims=True).tolist() == [[0, 0, 1]]
    assert jt.argmax(T(a)).dtype == jt.int64
    assert T(a).argmax().item() == 3
    with pytest.raises(ValueError):
        jt.argmax(jt.zeros((0,)))


# XLA on CPU flushes subnormals to zero (so does jax.numpy): they are not drawn here.
@given(x=xps.arrays(xps.scalar_dtypes(), small, elements={"allow_subnormal": False}))
def test_nonzero_and_count_nonzero(x):
    a = x.numpy()
    got = jt.nonzero(x)
    for g, r in zip(got, np.nonzero(a)):
        np.testing.assert_array_equal(g.numpy(), r)
    assert int(jt.count_nonzero(x)) == np.count_nonzero(a)


def test_nonzero_under_jit_needs_size():
    x = T([0, 3, 0, 4])
    f = jax.jit(lambda t: jt.nonzero(t, size=3, fill_value=-1)[0])
    assert f(x).tolist() == [1, 3, -1]
    with pytest.raises(ValueError, match="size="):
        jax.jit(lambda t: jt.nonzero(t)[0])(x)
    with pytest.raises(ValueError):
        jt.nonzero(T(1))


def test_where_scalars_are_weak():
    c = T([True, False])
    assert jt.where(c, T([1, 2], np.int8), 5).dtype == jt.int8
    assert jt.where(c, 1.5, T([1.0, 2.0], np.float32)).dtype == jt.float32
    assert jt.where(c, T([1, 2]), 0.5).dtype == jt.get_default_dtype()  # int with float
    # two Python scalars: x1 as asarray takes it, x2 weak beside it (NumPy takes them too)
    assert jt.where(c, 1, 2).tolist() == [1, 2]
    assert jt.where(c, 1, 2).dtype == jt.asarray(1).dtype
    assert jt.where(c, 1, 2.5).dtype == jt.asarray(2.5).dtype


@given(data=st.data())
def test_searchsorted_matches_numpy(data):
    a = np.sort(np.array(data.draw(st.lists(st.integers(-5, 5), min_size=1, max_size=8))))
    v = np.array(data.draw(st.lists(st.integers(-7, 7), min_size=1, max_size=5)))
    side = data.draw(st.sampled_from(["left", "right"]))
    np.testing.assert_array_equal(jt.searchsorted(T(a), T(v), side=side).numpy(),
                                  np.searchsorted(a, v, side=side))
    perm = np.random.default_rng(0).permutation(len(a))
    unsorted = a[perm]
    sorter = np.argsort(unsorted, kind="stable")
    np.testing.assert_array_equal(
        jt.searchsorted(T(unsorted), T(v), side=side, sorter=T(sorter)).numpy(),
        np.searchsorted(unsorted, v, side=side, sorter=sorter))
    assert jt.searchsorted(T(a), 0).shape == ()


@given(x=xps.arrays(xps.real_dtypes(), small))
def test_unique_matches_numpy(x):
    a = x.numpy()
    r = jt.unique_all(x)
    # NumPy >= 2.3's unique_all does not sort; np.unique does (our values are sorted)
    vals, idx, inv, counts = np.unique(a.reshape(-1), return_index=True, return_inverse=True,
                                       return_counts=True, equal_nan=False)
    np.testing.assert_array_equal(r.values.numpy(), vals)
    np.testing.assert_array_equal(r.indices.numpy(), idx)
    np.testing.assert_array_equal(r.inverse_indices.numpy().reshape(-1), inv)
    np.testing.assert_array_equal(r.counts.numpy(), counts)
    np.testing.assert_array_equal(jt.unique_values(x).numpy(), vals)
    assert r.inverse_indices.shape == x.shape


def test_unique_nans_are_distinct_and_signed_zeros_equal():
    x = T([np.nan, 0.0, -0.0, np.nan, 1.0])
    v = jt.unique_values(x).numpy()
    assert v.shape == (4,) and np.isnan(v[-2:]).all()
    c = jt.unique_counts(x)
    assert c.counts.tolist() == [2, 1, 1, 1]
    inv = jt.unique_inverse(x).inverse_indices.tolist()
    assert jt.unique_inverse(x).values.numpy()[inv].shape == (5,)


def test_unique_under_jit_needs_size():
    x = T([3, 1, 3, 2])
    f = jax.jit(lambda t: jt.unique_values(t, size=4, fill_value=0))
    assert f(x).tolist() == [1, 2, 3, 0]
    with pytest.raises(ValueError, match="size="):
        jax.jit(jt.unique_values)(x)


def test_isin():
    assert jt.isin(T([1, 2, 3]), T([3, 1])).tolist() == [True, False, True]
    assert jt.isin(T([1, 2, 3]), 2, invert=True).tolist() == [True, False, True]


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32"])
def test_searchsorted_and_isin_take_python_ints_beyond_the_dtype(dtype):
    """A Python int outside ``x1``'s dtype goes before or after every element
    (``searchsorted``) and equals none (``isin``), as NumPy's; it raised
    ``OverflowError``."""
    info = np.iinfo(dtype)
    a = np.sort(np.random.default_rng(3).integers(info.min, info.max, 7).astype(dtype))
    t = jt.asarray(a)
    for v in (info.min - 1, info.max + 1, -(2**40), 2**40, int(a[3])):
        for side in ("left", "right"):
            got = jt.searchsorted(t, v, side=side)
            assert int(got) == int(np.searchsorted(a, v, side=side)), (v, side)
        for inv in (False, True):
            np.testing.assert_array_equal(np.asarray(jt.isin(t, v, invert=inv)),
                                          np.isin(a, v, invert=inv))
            assert bool(jt.isin(v, t, invert=inv)) == bool(np.isin(v, a, invert=inv))
