"""JAX's own indexing takes Tensor indices: ``jnp_array[t]``, ``jnp_array.at[t]``, ``ufunc.at``.

The oracle is JAX itself: an index with Tensors in it gives what the same index gives with
each Tensor replaced by the ``jax.Array`` of its values (the result, or the same error
type), and, where JAX accepts the index, what NumPy gives.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import jaxtensor as jt
from indexing_strategies import example_array, indices, shapes


def _spell(index, make):
    """``index`` (NumPy spelling) with every NumPy array replaced by ``make(array)``."""
    if type(index) is tuple:
        return tuple(_spell(i, make) for i in index)
    return make(index) if isinstance(index, np.ndarray) else index


def _outcome(fn):
    try:
        return np.asarray(fn())
    except (IndexError, TypeError, ValueError) as e:
        return type(e)


def _same(got, want) -> None:
    if isinstance(want, type):
        assert got is want, (got, want)
        return
    assert not isinstance(got, type), got
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@given(data=st.data(), shape=shapes(max_dims=3))
def test_reads_and_updates_match_jax_arrays_as_indices(data, shape) -> None:
    base = example_array(shape, np.dtype("float32"))
    a = jnp.asarray(base)
    index = data.draw(indices(shape)).np_index
    with_tensors = _spell(index, jt.asarray)
    with_jax = _spell(index, jnp.asarray)
    want = _outcome(lambda: a[with_jax])
    _same(_outcome(lambda: a[with_tensors]), want)
    items = index if type(index) is tuple else (index,)
    if not isinstance(want, type) and not any(type(i) is bool for i in items):
        # (JAX places the new axis of a Python bool otherwise than NumPy does)
        np.testing.assert_array_equal(want, base[index])
    value = jt.asarray(5.0)
    for update in ("set", "add", "multiply", "min", "max"):
        _same(_outcome(lambda u=update: getattr(a.at[with_tensors], u)(value)),
              _outcome(lambda u=update: getattr(a.at[with_jax], u)(5.0)))
    _same(_outcome(lambda: a.at[with_tensors].get(mode="fill", fill_value=-1)),
          _outcome(lambda: a.at[with_jax].get(mode="fill", fill_value=-1)))


@pytest.mark.parametrize("index_dtype", ["int8", "int32", "int64", "uint8", "bool"])
def test_index_kinds_as_numpy(index_dtype: str) -> None:
    base = np.arange(24.0, dtype=np.float32).reshape(4, 6)
    a = jnp.asarray(base)
    if index_dtype == "bool":
        np_index = base[:, 0] > 5
    else:
        np_index = np.array([3, 0, 3, 1], dtype=index_dtype)
    t = jt.asarray(np_index)
    np.testing.assert_array_equal(np.asarray(a[t]), base[np_index])
    np.testing.assert_array_equal(np.asarray(a[t, 2:5]), base[np_index, 2:5])
    last = base[0] > 2 if index_dtype == "bool" else np_index  # (an index of the last axis)
    np.testing.assert_array_equal(np.asarray(a[..., None, jt.asarray(last)]),
                                  base[..., None, last])
    got = a.at[t].add(jt.ones(6))
    want = base.copy()
    np.add.at(want, np_index, 1.0)
    np.testing.assert_array_equal(np.asarray(got), want)


def test_views_and_zero_d_tensors_as_indices() -> None:
    a = jnp.arange(10) * 10
    idx = jt.asarray([[9, 1, 4], [0, 2, 8]])
    np.testing.assert_array_equal(np.asarray(a[idx[:, ::2]]), [[90, 40], [0, 80]])
    np.testing.assert_array_equal(np.asarray(a[idx.T]), np.asarray(a)[np.asarray(idx).T])
    assert int(a[idx[0, 1]]) == 10  # a 0-D Tensor view: as a 0-D array
    assert int(a[jt.asarray(-1)]) == 90
    np.testing.assert_array_equal(np.asarray(jnp.add.at(jnp.zeros(4), jt.asarray([0, 0, 2]),
                                                         1.0, inplace=False)), [2, 0, 1, 0])


def test_under_jax_jit_and_jaxtensor_jit() -> None:
    a = jnp.arange(8.0)
    t = jt.asarray([5, 1])
    np.testing.assert_array_equal(np.asarray(jax.jit(lambda a, t: a[t])(a, t)), [5.0, 1.0])
    np.testing.assert_array_equal(
        np.asarray(jax.jit(lambda a, t: a.at[t].set(-1.0))(a, t))[[1, 5]], [-1.0, -1.0])

    @jt.jit
    def gather_into(out, t):
        out[:] = a[t]  # a jax.Array indexed by a traced Tensor inside jaxtensor.jit

    out = jt.zeros(2)
    gather_into(out, t)
    assert out.tolist() == [5.0, 1.0]


def test_results_survive_later_writes_to_the_index() -> None:
    """What JAX returns never shares a buffer a later write to the index Tensor donates."""
    a = jnp.arange(10.0)
    t = jt.asarray([0, 1, 2])
    r = a[t]
    u = a.at[t].set(-1.0)
    t[0] = 3
    t += 1

    @jt.jit
    def bump(x):
        x += 1

    for _ in range(3):
        bump(t)
    assert t.tolist() == [7, 5, 6]
    np.testing.assert_array_equal(np.asarray(r), [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(u)[:4], [-1.0, -1.0, -1.0, 3.0])
    np.testing.assert_array_equal(np.asarray(a[t]), [7.0, 5.0, 6.0])


def test_other_indices_unchanged() -> None:
    a = jnp.arange(5)
    with pytest.raises(TypeError, match="non-tuple sequence"):
        a[[[0, 1]]]
    with pytest.raises(IndexError, match="only integers, slices"):
        a[object()]
    assert int(a[np.int64(3)]) == 3
    np.testing.assert_array_equal(np.asarray(a[jnp.asarray([4, 0]), ...]), [4, 0])
