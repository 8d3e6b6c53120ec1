"""``Tensor.__getitem__`` against NumPy 2 as the oracle (the rules of ``docs/indexing.md`` and
``docs/decisions.md``, *Indexing*).

Hypothesis draws an array shape, a dtype and an index mixing every index kind (ints,
0-D integer arrays/Tensors, slices with any bounds and steps, ``...``, ``None``, integer
lists/arrays/Tensors broadcast together, boolean masks over one or more axes, Python
bools) and checks that jaxtensor gives NumPy's shape, dtype and values — or raises the
exception class NumPy raises. Hand-written cases pin the error classes and messages.

The one deliberate difference: an integer on every axis (``x[1, 0]``) gives a 0-D Tensor
(a view) where NumPy gives a scalar; the comparison is on values, shape ``()``.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

import jaxtensor as jt
from indexing_strategies import (
    X_DTYPES,
    Index,
    assert_same_array,
    example_array,
    indices,
    shapes,
    to_numpy_index,
)


def check_getitem(x_np: np.ndarray, index: Index) -> None:
    x = jt.asarray(x_np)
    try:
        expected = x_np[index.np_index]
    except Exception as e:  # noqa: BLE001 - the oracle rejects it: so must we
        if currently_in_test_context():
            note(f"NumPy raised {type(e).__name__}: {e}")
        with pytest.raises(type(e)):
            x[index.jt_index]
        return
    got = x[index.jt_index]
    assert_same_array(got, expected)
    # the index objects are not consumed/mutated, and reading twice gives the same
    assert_same_array(x[index.jt_index], expected)
    # the source is untouched
    np.testing.assert_array_equal(np.asarray(x), x_np)


@given(data=st.data(), shape=shapes(), dtype=st.sampled_from(X_DTYPES))
def test_getitem_matches_numpy(data: st.DataObject, shape: tuple[int, ...], dtype: np.dtype):
    x_np = example_array(shape, dtype)
    index = data.draw(indices(shape, invalid=True), label="index")
    check_getitem(x_np, index)


@given(data=st.data(), shape=shapes())
def test_basic_getitem_matches_numpy(data: st.DataObject, shape: tuple[int, ...]):
    x_np = example_array(shape, np.dtype("float32"))
    index = data.draw(indices(shape, basic_only=True, invalid=True), label="index")
    check_getitem(x_np, index)


@given(data=st.data(), shape=shapes(min_dims=1))
def test_getitem_of_a_view_matches_numpy(data: st.DataObject, shape: tuple[int, ...]):
    """Indexing a view (sliced, transposed, flipped) composes like NumPy's."""
    x_np = example_array(shape, np.dtype("int64"))
    x = jt.asarray(x_np)
    first = data.draw(indices(shape, basic_only=True), label="first")
    v_np = x_np[first.np_index]
    v = x[first.jt_index]
    if v_np.ndim >= 2 and data.draw(st.booleans(), label="transpose"):
        v_np, v = v_np.mT, v.mT
    index = data.draw(indices(v_np.shape, invalid=True), label="second")
    try:
        expected = v_np[index.np_index]
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)):
            v[index.jt_index]
        return
    assert_same_array(v[index.jt_index], expected)


# -- hand-written cases: every kind of the Paddle guide / NumPy manual --------------------
A = np.arange(24).reshape(2, 3, 4)

CASES: list[Any] = [
    0, -1, (1, 0), (1, 0, 2), (-2, -3, -4),
    slice(None, None, -1), (slice(None), slice(1, None, 2)), (slice(-1, -4, -1), slice(5, -9, -2)),
    (slice(3, 1),), (slice(1, 1), 0), (slice(None), slice(2, 0, 1), slice(None)),
    Ellipsis, (Ellipsis, 0), (0, Ellipsis), (1, Ellipsis, 0), (Ellipsis, None), (None, Ellipsis, None),
    None, (None, None), (0, None, 1, None), (slice(None), None, Ellipsis, None),
    [0, 1], [[0], [1]], ([0, 1], [2, 0]), ([0, 1], slice(None), [3, 0]), (slice(None), [0, 2], [1, 3]),
    ([[0], [1]], [0, 2], slice(None, None, -1)), ([], ), ([[]],), (0, [], slice(None)),
    (slice(None), [1], slice(None), ), (0, [1, 2], 2), ([1], 0, [[1, 2]]), (Ellipsis, [0, -1]),
    (None, [0, 1], None, [1, 2]), ([0, 1], None, [1, 2]),
    True, False, (True,), (False, 0), (0, True), (True, True, 0, False), (None, True, Ellipsis),
    np.bool_(True), np.array(True), np.array(False),
    (A > 5), (A[0] > 3,), (0, A[0] > 3), (A[:, :, 0] > 5, 1), (A[:, :, 0] > 5, [1, 2]),
    ([True, False],), (slice(None), [True, False, True]), ([True, False], [1], [2]),
    (np.array([True, False]), Ellipsis, [0, 2]), (np.zeros((2, 3), bool),), (Ellipsis, np.ones(4, bool)),
    (True, [[0], [1]], None, [0, 1, 2]), ([0, 1], True, [0, 2]),
    np.array([1, 0], np.uint8), (np.array(1), slice(None), np.array([0, 3], np.int8)),
    # an ellipsis covering no axis still separates advanced indices (NumPy puts them first)
    (slice(None), [0], Ellipsis, [1]), (slice(None), 0, Ellipsis, [1]), ([0], Ellipsis, [1], 2),
    ([1], [0], Ellipsis, [3]), (Ellipsis, [1], [0], [3]), ([1], Ellipsis, None, [0], [3]),
    ([True, False], Ellipsis, 1, 2), (True, [0], Ellipsis, [1], [2]),
]


@pytest.mark.parametrize("index", CASES, ids=repr)
@pytest.mark.parametrize("spell", ["plain", "tensor"])
def test_getitem_cases(index: Any, spell: str):
    def as_tensor(i: Any) -> Any:
        if isinstance(i, tuple):
            return tuple(as_tensor(j) for j in i)
        if isinstance(i, (list, np.ndarray)):
            arr = np.asarray(i)
            if arr.size == 0 and arr.dtype.kind == "f":  # [] is an integer index
                arr = arr.astype(np.int64)
            return jt.asarray(arr)
        return i

    jt_index = index if spell == "plain" else as_tensor(index)
    check_getitem(A, Index(jt_index, to_numpy_index(index)))


def test_integer_on_every_axis_is_the_elements_value():
    x = jt.arange(6).reshape((2, 3))
    d = x[1, 0]
    assert isinstance(d, jt.Tensor)
    assert d.shape == () and d.dtype == jt.int64 and int(d) == 3
    assert d.base is None and not jt.shares_memory(d, x)
    x[1, 0] = 30
    assert int(d) == 3  # NumPy's scalar: a later write does not change it
    v = x[1, 0, ...]  # NumPy's spelling of the 0-D view
    assert v.base is not None and jt.shares_memory(v, x)
    x[1, 0] = 31
    assert int(v) == 31


def test_0d_integer_indices_and_slice_bounds():
    x_np = np.arange(40).reshape(5, 8)
    x = jt.asarray(x_np)
    i = jt.full([], 1, dtype="int32")
    assert_same_array(x[i], x_np[1])
    assert_same_array(x[jnp.asarray(-1)], x_np[-1])
    assert_same_array(x[np.int8(2), np.array(-3)], x_np[2, -3])
    s = slice(jt.asarray(1), jt.asarray(-1), jt.asarray(2))
    assert_same_array(x[:, s], x_np[:, 1:-1:2])
    assert_same_array(x[jt.asarray(-1):jt.asarray(0):jt.asarray(-2)], x_np[-1:0:-2])
    assert_same_array(x[np.int64(3):, x[0, 1]], x_np[3:, 1])


def test_empty_selections():
    x_np = np.arange(12.0).reshape(3, 4)
    x = jt.asarray(x_np)
    for key in [(slice(2, 1),), (slice(None), slice(4, None)), ([],), (x_np > 100,),
                (False,), (slice(None), []), (slice(0, 0), [1, 2])]:
        assert_same_array(x[key], x_np[key])
    e = jt.zeros((0, 3))  # the default float dtype
    assert_same_array(e[:, 1], np.zeros((0, 3), e.dtype)[:, 1])
    assert_same_array(e[[]], np.zeros((0, 3), e.dtype)[[]])
    assert_same_array(e[..., None], np.zeros((0, 3), e.dtype)[..., None])


def test_index_dtypes():
    x_np = np.arange(10) * 3
    x = jt.asarray(x_np)
    for dt in [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]:
        idx = np.array([[1, 9], [0, 3]], dt)
        assert_same_array(x[idx], x_np[idx])
        assert_same_array(x[jt.asarray(idx)], x_np[idx])
        assert_same_array(x[jnp.asarray(idx)], x_np[idx])


def test_advanced_dims_placement():
    x_np = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)
    x = jt.asarray(x_np)
    i, j = np.array([[0, 1, 1]]), np.array([[1], [0]])
    for key in [(slice(None), i, j), (i, j), (slice(None), slice(None), i, j),  # adjacent
                (i, slice(None), j), (0, slice(None), i), (i, 0, j),  # non-adjacent
                (slice(None), 0, i, slice(None)),  # int adjacent to array: at the int
                (slice(None), i, None, j), (None, i, Ellipsis, j),  # a None separates
                (Ellipsis, i, j), (i, Ellipsis, j),
                (slice(None), i, Ellipsis, j, slice(None)),  # an empty ellipsis separates
                (slice(None), 0, Ellipsis, j, slice(None)),
                (slice(None), slice(None), i, Ellipsis, j)]:
        assert_same_array(x[key], x_np[key])


# -- errors: NumPy's exception classes ------------------------------------------------------
ERRORS: list[tuple[Any, type[Exception]]] = [
    (2, IndexError), (-3, IndexError), ((0, 3), IndexError), ((0, 0, -5), IndexError),
    ((0, 0, 0, 0), IndexError), ((Ellipsis, 0, 0, 0, 0), IndexError),
    ((None, 0, 0, 0, 0), IndexError),
    ((Ellipsis, Ellipsis), IndexError), ((0, Ellipsis, 1, Ellipsis), IndexError),
    (1.0, IndexError), ((0, 1.5), IndexError), ([1.0], IndexError), (np.array([0.0]), IndexError),
    ("a", IndexError), (np.array(1.0), IndexError), ((0, 1j), IndexError),
    ([2], IndexError), ([0, -3], IndexError), ((slice(None), [3]), IndexError),
    ((0, 0, [4, 0]), IndexError), ((0, np.array([[0], [-4]])), IndexError),
    (([0, 1], [0, 1, 2]), IndexError), (([[0, 1]], slice(None), [0, 1, 2]), IndexError),
    ((np.zeros((2, 2), bool),), IndexError), ((slice(None), [True, False]), IndexError),
    (([True, False, True],), IndexError), ((np.ones((2, 3, 4, 1), bool),), IndexError),
    ((A > 5, [0]), IndexError), ((A[0] > 3, [0, 1]), IndexError),
    (slice(None, None, 0), ValueError), ((0, slice(0, 3, 0)), ValueError),
    (slice(0.5, None), TypeError), (slice(None, 2.0), TypeError), (slice(0, 2, 1.0), TypeError),
    (slice(np.float64(1), None), TypeError),
]


@pytest.mark.parametrize(("index", "exc"), ERRORS, ids=repr)
def test_getitem_errors_like_numpy(index: Any, exc: type[Exception]):
    with pytest.raises(exc):
        A[index]  # the oracle agrees with the expected class
    x = jt.asarray(A)
    with pytest.raises(exc):
        x[index]


@pytest.mark.parametrize(("index", "exc"), ERRORS, ids=repr)
def test_getitem_errors_with_tensor_indices(index: Any, exc: type[Exception]):
    """The same errors when the arrays are spelled as Tensors."""

    def as_tensor(i: Any) -> Any:
        if isinstance(i, tuple):
            return tuple(as_tensor(j) for j in i)
        if isinstance(i, (list, np.ndarray)):
            return jt.asarray(i)
        return i

    x = jt.asarray(A)
    with pytest.raises(exc):
        x[as_tensor(index)]


def test_out_of_bounds_messages_name_index_axis_and_size():
    x = jt.zeros((4, 3))
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 4"):
        x[5]
    with pytest.raises(IndexError, match="index -4 is out of bounds for axis 1 with size 3"):
        x[0, -4]
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 1 with size 3"):
        x[:, [0, 7]]
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 1 with size 3"):
        x[True, :, [3]]
    with pytest.raises(IndexError, match="out of bounds"):
        x[jt.asarray(4)]
    with pytest.raises(IndexError, match="out of bounds"):
        x[jnp.asarray([[0], [-5]])]


def test_unbroadcastable_index_message():
    x = jt.zeros((4, 3))
    with pytest.raises(IndexError, match=r"shape mismatch.*\(3,\).*\(2,\)"):
        x[[0, 2, 1], [0, 1]]


@pytest.mark.parametrize(
    ("shape", "mask_shape"),
    [((6,), (0,)), ((3, 1), (0, 0)), ((3, 1), (3, 0)), ((2, 3), (2, 0)), ((0, 1), (0, 0))],
)
def test_size0_mask_axis_matches_any_axis(shape, mask_shape):
    """NumPy 2 (and the official array-api-tests) accept a size-0 boolean mask axis against
    an axis of any size: the selection is empty. A non-zero mismatch still raises."""
    a = np.arange(int(np.prod(shape))).reshape(shape)
    mask = np.zeros(mask_shape, bool)
    x = jt.asarray(a)
    assert x[mask].shape == a[mask].shape
    x[mask] = 7
    np.testing.assert_array_equal(np.asarray(x), a)


def test_nonzero_mask_mismatch_is_rejected():
    x = jt.zeros((2, 3))
    with pytest.raises(IndexError, match="boolean index did not match"):
        x[np.zeros((2, 1), bool)]
    with pytest.raises(IndexError, match="boolean index did not match"):
        x[np.zeros((0, 2), bool)]


def test_out_of_bounds_index_selecting_nothing_is_not_an_error():
    """NumPy checks index arrays' bounds only when the broadcast selection is non-empty."""
    a, x = np.zeros((1, 3)), jt.zeros((1, 3))
    assert x[[3], jt.asarray([], dtype=jt.int64)].shape == a[[3], np.array([], int)].shape
    assert x[[3], False].shape == a[[3], False].shape
    x[[3], False] = 1.0
    np.testing.assert_array_equal(np.asarray(x), a)
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 1"):
        x[3, jt.asarray([], dtype=jt.int64)]
