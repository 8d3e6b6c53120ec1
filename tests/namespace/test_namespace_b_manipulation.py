"""Manipulation functions (part B): NumPy as the oracle, view/copy semantics."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.array_api import make_strategies_namespace

import jaxtensor as jt

xps = make_strategies_namespace(jt)


def T(a, dtype=None):
    return jt.asarray(np.asarray(a) if dtype is None else np.asarray(a, dtype=dtype))


@given(x=xps.arrays(xps.scalar_dtypes(), xps.array_shapes(min_dims=1, max_dims=3, max_side=4)),
       data=st.data())
def test_roll_matches_numpy(x, data):
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1))
    shift = data.draw(st.integers(-6, 6))
    np.testing.assert_array_equal(jt.roll(x, shift, axis=axis).numpy(),
                                  np.roll(x.numpy(), shift, axis=axis))


def test_roll_tuple_axes():
    a = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(jt.roll(T(a), (1, -2), axis=(0, 1)).numpy(),
                                  np.roll(a, (1, -2), axis=(0, 1)))


def test_concat_and_stack_promote_like_the_standard():
    a = T([1, 2], np.int8)
    b = T([3], np.uint8)
    out = jt.concat([a, b])
    assert out.dtype == jt.int16
    assert out.tolist() == [1, 2, 3]
    assert jt.concat([T([[1, 2]]), T([[3]])], axis=None).tolist() == [1, 2, 3]
    s = jt.stack([T([1.0, 2.0], np.float32), T([3.0, 4.0], np.float64)], axis=-1)
    assert s.dtype == jt.float64 and s.shape == (2, 2)
    with pytest.raises(TypeError):
        jt.concat([T([1]), T([True])])
    with pytest.raises(ValueError):
        jt.stack([T([1, 2]), T([1])])


def test_repeat_tile_unstack():
    a = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(jt.repeat(T(a), 2, axis=1).numpy(), np.repeat(a, 2, axis=1))
    np.testing.assert_array_equal(jt.repeat(T(a), T([1, 0, 2]), axis=1).numpy(),
                                  np.repeat(a, [1, 0, 2], axis=1))
    np.testing.assert_array_equal(jt.repeat(T(a), 3).numpy(), np.repeat(a, 3))
    np.testing.assert_array_equal(jt.tile(T(a), (2, 1, 2)).numpy(), np.tile(a, (2, 1, 2)))
    parts = jt.unstack(T(a), axis=1)
    assert len(parts) == 3 and parts[2].tolist() == [2, 5]
    with pytest.raises(ValueError):
        jt.repeat(T(a), T([1, 2]), axis=1)


def test_broadcast():
    assert jt.broadcast_shapes((2, 1), (1, 3), (3,)) == (2, 3)
    assert jt.broadcast_shapes() == ()
    assert jt.broadcast_shapes((None, 1), (1, 3)) == (None, 3)
    with pytest.raises(ValueError):
        jt.broadcast_shapes((2,), (3,))
    a, b = jt.broadcast_arrays(T([[1], [2]]), T([1, 2, 3]))
    assert a.shape == b.shape == (2, 3)
    with pytest.raises(ValueError):
        jt.broadcast_to(T([1, 2]), (3,))


def test_new_storage_results_never_alias_the_input():
    x = T([1.0, 2.0, 3.0])
    for out in (jt.roll(x, 0), jt.broadcast_to(x, (3,)), jt.tile(x, (1,)),
                jt.concat([x]), jt.repeat(x, 1)):
        assert not jt.shares_memory(out, x)
        out[0] = 100.0
        assert x.tolist() == [1.0, 2.0, 3.0]


def test_view_functions_still_return_views():
    x = jt.zeros((2, 3))
    for v in (jt.permute_dims(x, (1, 0)), jt.matrix_transpose(x), jt.moveaxis(x, 0, 1),
              jt.expand_dims(x, axis=0), jt.flip(x), jt.reshape(x, (6,)),
              jt.squeeze(jt.expand_dims(x, axis=0), axis=0)):
        assert jt.shares_memory(v, x)


def test_manipulation_methods():
    a = np.arange(6).reshape(2, 3, 1)
    x = T(a)
    np.testing.assert_array_equal(x.transpose().numpy(), a.transpose())
    np.testing.assert_array_equal(x.transpose(2, 0, 1).numpy(), a.transpose(2, 0, 1))
    np.testing.assert_array_equal(x.transpose(0, 1).numpy(), a.swapaxes(0, 1))  # torch style
    np.testing.assert_array_equal(x.permute(1, 2, 0).numpy(), a.transpose(1, 2, 0))
    np.testing.assert_array_equal(x.squeeze().numpy(), a.squeeze())
    np.testing.assert_array_equal(x.flatten().numpy(), a.flatten())
    np.testing.assert_array_equal(x.flip(dims=1).numpy(), np.flip(a, 1))
    np.testing.assert_array_equal(x.roll(1, 1).numpy(), np.roll(a, 1, 1))
    assert jt.shares_memory(x.ravel(), x) and not jt.shares_memory(x.flatten(), x)
    v = x.swapaxes(0, 1)
    v[0, 0, 0] = 100
    assert int(x[0, 0, 0]) == 100
