"""Every example of Paddle's indexing guide (dynamic-graph mode) with its printed result.

jaxtensor spellings: ``jt.ones``, ``jt.arange(6).reshape((2, 3))``, ``jt.full([], 1,
dtype='int32')``, ``jt.asarray`` for ``paddle.to_tensor``; Paddle's default float is float32,
jaxtensor's float64 (NumPy's), so a port of an example that relies on that default passes
``dtype="float32"`` and prints what the guide prints. Each check compares the shape
and dtype the guide prints (also in our ``repr`` head) and the values. Where Paddle raises
``ValueError`` for index arrays that do not broadcast, jaxtensor follows NumPy
(``docs/decisions.md``, *Indexing*): ``IndexError``. Section 5.2 (static-graph mode, ``paddle.static.setitem``) has no
equivalent in jaxtensor and is the only part left out.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import jaxtensor as jt


def expect(t: Any, shape: list[int], dtype: str, values: Any) -> None:
    """``t`` prints as the guide shows: ``Tensor(shape=[...], dtype=..., ...)`` and values."""
    assert isinstance(t, jt.Tensor)
    assert list(t.shape) == shape
    assert str(t.dtype) == dtype
    assert repr(t).startswith(f"Tensor(shape={shape}, dtype={dtype}")
    np.testing.assert_array_equal(np.asarray(t), np.asarray(values, dtype=dtype).reshape(shape))


# -- 1. overview table ------------------------------------------------------------------------
def test_1_overview_table_getitem():
    xn = np.arange(3 * 4 * 5 * 6).reshape(3, 4, 5, 6)
    x = jt.asarray(xn)
    # basic: y = x[0, 2:4] (paddle.slice with decrease_axes)
    y = x[0, 2:4]
    expect(y, [2, 5, 6], "int64", xn[0, 2:4])
    assert y.base is x  # basic indexing: a view (dynamic mode)
    # advanced: y = x[[0, 1], [2, 3]] (gather_nd of the stacked indices)
    y = x[[0, 1], [2, 3]]
    expect(y, [2, 5, 6], "int64", np.stack([xn[0, 2], xn[1, 3]]))
    assert y.base is None
    # combined: y = x[0, [0, 2], ..., 2:5:2, None]
    y = x[0, [0, 2], ..., 2:5:2, None]
    expect(y, [2, 5, 2, 1], "int64", xn[0, [0, 2], ..., 2:5:2, None])
    # the tuple is the index: x[(i1, i2, ..., in)] == x[i1, i2, ..., in]
    np.testing.assert_array_equal(np.asarray(x[(0, [0, 2], Ellipsis, slice(2, 5, 2), None)]),
                                  np.asarray(y))


def test_1_overview_table_setitem():
    xn = np.zeros((3, 4, 5, 6), np.float32)
    x = jt.zeros((3, 4, 5, 6), dtype="float32")
    x[0, 2:3] = jt.asarray(1.0)  # slice_scatter_
    xn[0, 2:3] = 1.0
    x[[0, 1], [2, 3]] = jt.asarray(2.0)  # index_put_
    xn[[0, 1], [2, 3]] = 2.0
    x[0, [0, 2], ..., 2:5:2, None] = 3.0
    xn[0, [0, 2], ..., 2:5:2, None] = 3.0
    expect(x, [3, 4, 5, 6], "float32", xn)


# -- 2. basic indexing ------------------------------------------------------------------------------
def test_2_1_basic_index_is_a_view():
    a = jt.ones((2, 3), dtype="float32")
    expect(a, [2, 3], "float32", [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
    b = a[0]  # b is a view of a
    expect(b, [3], "float32", [1.0, 1.0, 1.0])
    b[1] = 10  # modification of b will affect a
    expect(b, [3], "float32", [1.0, 10.0, 1.0])
    expect(a, [2, 3], "float32", [[1.0, 10.0, 1.0], [1.0, 1.0, 1.0]])


def test_2_2_integers_and_0d_tensors():
    a = jt.arange(6).reshape((2, 3))
    expect(a, [2, 3], "int64", [[0, 1, 2], [3, 4, 5]])
    b = a[1]  # select the second row in first axis
    expect(b, [3], "int64", [3, 4, 5])
    c = a[-1]  # select the last row in first axis
    expect(c, [3], "int64", [3, 4, 5])
    d = a[1, 0]  # every axis: a 0-D Tensor, not a Python scalar
    expect(d, [], "int64", 3)
    assert isinstance(d, jt.Tensor)
    b = a[1]
    expect(b, [3], "int64", [3, 4, 5])
    index = jt.full([], 1, dtype="int32")
    expect(index, [], "int32", 1)
    c = a[index]
    expect(c, [3], "int64", [3, 4, 5])
    # a 0-D NumPy array means the same
    expect(a[np.array(1)], [3], "int64", [3, 4, 5])


def test_2_3_slices():
    a = jt.arange(8).reshape((4, 2))
    expect(a, [4, 2], "int64", [[0, 1], [2, 3], [4, 5], [6, 7]])
    b = a[0:2]  # select elements [0, 2) with step 1 in first axis
    expect(b, [2, 2], "int64", [[0, 1], [2, 3]])
    c = a[::2]  # select elements [0, 4) with step 2 in first axis
    expect(c, [2, 2], "int64", [[0, 1], [4, 5]])
    d = a[::-1]  # reversed selection in first axis
    expect(d, [4, 2], "int64", [[6, 7], [4, 5], [2, 3], [0, 1]])
    # start/end/step may be 0-D Tensors/ndarrays, and negative
    zero_d = a[jt.full([], 0, dtype="int32"):jt.full([], 2, dtype="int32")]
    expect(zero_d, [2, 2], "int64", [[0, 1], [2, 3]])
    expect(a[np.array(-1):np.array(0):np.array(-2)], [2, 2], "int64", [[6, 7], [2, 3]])
    expect(a[-3:-1], [2, 2], "int64", [[2, 3], [4, 5]])


def test_2_4_ellipsis():
    a = jt.arange(8).reshape((2, 2, 2))
    expect(a, [2, 2, 2], "int64", [[[0, 1], [2, 3]], [[4, 5], [6, 7]]])
    b = a[...]  # ... covers axes 0,1,2, equals a[:,:,:]
    expect(b, [2, 2, 2], "int64", [[[0, 1], [2, 3]], [[4, 5], [6, 7]]])
    c = a[1, ...]  # ... covers axes 1,2, equals a[1,:,:]
    expect(c, [2, 2], "int64", [[4, 5], [6, 7]])
    d = a[1, ..., 0]  # ... covers axis 1, equals a[1,:,0]
    expect(d, [2], "int64", [4, 6])
    # only once
    with pytest.raises(IndexError):
        a[..., 0, ...]


def test_2_5_none():
    a = jt.arange(8).reshape((2, 4))
    expect(a, [2, 4], "int64", [[0, 1, 2, 3], [4, 5, 6, 7]])
    b = a[:, None]
    expect(b, [2, 1, 4], "int64", [[[0, 1, 2, 3]], [[4, 5, 6, 7]]])
    assert jt.shares_memory(b, a) and b.base is a.base  # a view (a itself views the arange)


# -- 3. advanced indexing -------------------------------------------------------------------------
def test_3_1_advanced_index_is_a_copy():
    a = jt.ones((2, 3), dtype="float32")
    expect(a, [2, 3], "float32", [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
    b = a[[0]]  # b is not a view of a
    expect(b, [1, 3], "float32", [[1.0, 1.0, 1.0]])
    b[0] = 10  # modify b will not affect a
    expect(b, [1, 3], "float32", [[10.0, 10.0, 10.0]])
    expect(a, [2, 3], "float32", [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
    # a list, a tuple of sequences, a Tensor and an ndarray mean the same
    for idx in ([0], jt.asarray([0]), np.array([0]), ([0],)):
        expect(a[idx], [1, 3], "float32", [[1.0, 1.0, 1.0]])


def test_3_2_integer_arrays():
    a = jt.arange(8).reshape((4, 2))
    expect(a, [4, 2], "int64", [[0, 1], [2, 3], [4, 5], [6, 7]])
    b = a[[0, 2, 1]]  # select rows 0,2 and 1 in first axis
    expect(b, [3, 2], "int64", [[0, 1], [4, 5], [2, 3]])
    c = a[[0, 1, 0]]  # row 0 was selected twice
    expect(c, [3, 2], "int64", [[0, 1], [2, 3], [0, 1]])
    index = jt.asarray([[1], [2]])
    d = a[index]  # select rows 1 and 2, combined according to index's shape
    expect(d, [2, 1, 2], "int64", [[[2, 3]], [[4, 5]]])
    e = a[[0, 2, 1], [0]]  # broadcast to [0,2,1] and [0,0,0]
    expect(e, [3], "int64", [0, 4, 2])
    # output[i_1, ..., i_m] == x[index_1[i_1, ..., i_m], ..., index_n[i_1, ..., i_m]]
    i1, i2 = np.broadcast_arrays(np.array([0, 2, 1]), np.array([0]))
    for k in range(3):
        assert int(e[k]) == int(a[int(i1[k]), int(i2[k])])
    # shape (3,) and (2,) cannot be broadcast together: Paddle's ValueError is NumPy's
    # IndexError here (docs/decisions.md, Indexing)
    with pytest.raises(IndexError, match="shape mismatch"):
        a[[0, 2, 1], [0, 1]]


def test_3_3_1_boolean_arrays():
    a = jt.arange(8).reshape((4, 2))
    expect(a, [4, 2], "int64", [[0, 1], [2, 3], [4, 5], [6, 7]])
    bool_mask = a > 4  # nonzero results are [2,1], [3,0] and [3,1]
    expect(a[bool_mask], [3], "int64", [5, 6, 7])
    expect(a[[True, False, True, False]], [2, 2], "int64", [[0, 1], [4, 5]])
    # x[bool_index] == gather_nd(x, bool_index.nonzero())
    nz = jt.nonzero(bool_mask)
    np.testing.assert_array_equal(np.asarray(a[nz]), np.asarray(a[bool_mask]))
    # rank <= x's rank and every axis must match; no match gives a 0-size Tensor
    expect(a[a > 100], [0], "int64", [])
    with pytest.raises(IndexError):
        a[[True, False]]
    with pytest.raises(IndexError):
        a[jt.ones((4, 2, 1), dtype=jt.bool)]


def test_3_3_2_python_bool():
    a = jt.arange(8).reshape((4, 2))
    expect(a, [4, 2], "int64", [[0, 1], [2, 3], [4, 5], [6, 7]])
    t = a[True]
    expect(t, [1, 4, 2], "int64", [[[0, 1], [2, 3], [4, 5], [6, 7]]])
    f = a[False]  # output is 0-Size Tensor
    expect(f, [0, 4, 2], "int64", [])
    # x[py_bool_index] == x.unsqueeze(0)[[py_bool_index]]
    for b in (True, False):
        np.testing.assert_array_equal(np.asarray(a[b]),
                                      np.asarray(jt.expand_dims(a, axis=0)[[b]]))


# -- 4. combined indexing --------------------------------------------------------------------------
def test_4_1_basic_then_advanced():
    a = jt.arange(24).reshape((2, 3, 4))
    expect(a, [2, 3, 4], "int64", np.arange(24).reshape(2, 3, 4))
    b = a[0, [1, 2], 2]  # same as (1) tmp = a[0,:,2] (2) b = tmp[[1,2]]
    expect(b, [2], "int64", [6, 10])
    tmp = a[0, :, 2]
    expect(tmp[[1, 2]], [2], "int64", [6, 10])
    assert b.base is None


def test_4_2_adjacent_and_non_adjacent():
    a = jt.arange(24).reshape((1, 2, 3, 4))
    expect(a, [1, 2, 3, 4], "int64", np.arange(24).reshape(1, 2, 3, 4))
    b = a[:, [0, 0, 1], [1, 2, 0], :]  # adjacent: the new dimension is at axis 1
    expect(b, [1, 3, 4], "int64", [[[4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]]])
    c = a[:, [0, 0, 1], [1, 2, 0], [2, 1, 0]]
    expect(c, [1, 3], "int64", [[6, 9, 12]])
    d = a[:, [1], :, [2, 1, 0]]  # not adjacent: the new dimension is at axis 0
    expect(d, [3, 1, 3], "int64", [[[14, 18, 22]], [[13, 17, 21]], [[12, 16, 20]]])


# -- 5. assignment ----------------------------------------------------------------------------------
def test_5_1_assignment_values():
    a = jt.ones((2, 3, 4), dtype="float32")
    a[:, :, 2] = 10  # value is Python Scalar
    row = [1.0, 1.0, 10.0, 1.0]
    expect(a, [2, 3, 4], "float32", [[row] * 3] * 2)
    a[:, :, 1] = jt.full([], 2)  # value is 0-D Scalar Tensor
    row = [1.0, 2.0, 10.0, 1.0]
    expect(a, [2, 3, 4], "float32", [[row] * 3] * 2)
    a[:, :, 3] = jt.full([2, 1], 5)  # shape [2,1] broadcasts to [2,3]
    row = [1.0, 2.0, 10.0, 5.0]
    expect(a, [2, 3, 4], "float32", [[row] * 3] * 2)
    with pytest.raises(ValueError, match=r"\(2,4\).*\(2,3\)"):
        a[:, :, 3] = jt.full([2, 4], 5)  # shape [2,4] cannot be broadcast to [2,3]
    expect(a, [2, 3, 4], "float32", [[row] * 3] * 2)  # unchanged
    # a 0-D ndarray is a scalar too, an n-D ndarray broadcasts like a Tensor
    a[0, 0] = np.array(-1.0)
    a[1] = np.array([[7.0], [8.0], [9.0]])
    expected = np.array([[row] * 3] * 2, np.float32)
    expected[0, 0] = -1
    expected[1] = [[7], [8], [9]]
    expect(a, [2, 3, 4], "float32", expected)


# 5.2 (static-graph mode: `paddle.static.setitem`, `__setitem__` raising RuntimeError under
# `paddle.enable_static()`) has no equivalent: jaxtensor has no static-graph mode; under
# `jax.jit` / `jaxtensor.jit` assignment keeps working (tested with the transforms).


def test_5_3_dtype_of_x_wins():
    a = jt.ones((2, 3, 4), dtype="int32")
    a[0] = 2.5  # the value is truncated since float is cast to int
    expect(a, [2, 3, 4], "int32", [[[2] * 4] * 3, [[1] * 4] * 3])
    a = jt.full([2, 3], 1.25, dtype="float32")
    a[0] = 10  # the int value is cast to float
    expect(a, [2, 3], "float32", [[10.0, 10.0, 10.0], [1.25, 1.25, 1.25]])
