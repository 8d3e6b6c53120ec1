"""``Tensor.__setitem__`` against NumPy 2 as the oracle (the rules of ``docs/guide.md``,
*Assignment and dtype casting*, and ``docs/decisions.md``, *Indexing*, *Assignment casting*).

Each property copies a NumPy array, performs the same assignment on it and on a Tensor
(or on the same basic-index view of both), and compares the whole base afterwards, the
view too. Indices mix every kind (see ``indexing_strategies``); values are Python scalars,
0-D and n-D Tensors / NumPy / JAX arrays / lists that broadcast to ``x[index]`` (leading
1-sides included), of any dtype (cast like ``astype``).

Where jaxtensor deliberately differs from NumPy it is tested by hand: complex into real
is a ``TypeError`` (NumPy warns and drops the imaginary part); a Python float NaN *or* inf
into an integer Tensor is a ``ValueError`` (NumPy: ``OverflowError`` for inf). Duplicate
indices: the last value in C order wins, which is NumPy's result. A failed assignment
changes nothing, in the base and in every view.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jaxtensor as jt
from indexing_strategies import X_DTYPES, example_array, indices, shapes

VALUE_DTYPES = [np.dtype(d) for d in ("int64", "int32", "int8", "uint8", "float32", "float64",
                                      "bool", "complex64", "complex128")]


def _fits_python_int(v: int, dtype: np.dtype) -> bool:
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.min <= v <= info.max
    return True


@st.composite
def values(draw: st.DrawFn, target: tuple[int, ...], dtype: np.dtype) -> tuple[Any, Any]:
    """(jaxtensor spelling, NumPy spelling) of a value assignable to ``x[index]``.

    Values whose cast NumPy leaves undefined (negative or huge floats into unsigned or
    narrow integers, NaN into integers) are not drawn; complex values only into complex
    Tensors (complex into real is a TypeError, tested separately).
    """
    kind = draw(st.sampled_from(["int", "float", "bool", "complex", "array", "array", "array"]))
    if kind == "complex" and dtype.kind != "c":
        kind = "array"
    if kind == "int":
        lo, hi = (0, 1) if dtype.kind == "b" else (-60, 60)
        if dtype.kind == "u":
            lo = 0
        v = draw(st.integers(lo, hi) | st.sampled_from([0, 1, 2**7 - 1, -(2**7), 255, 2**31 - 1]))
        if not _fits_python_int(v, dtype) or (dtype.kind == "b" and v not in (0, 1)):
            v = 1
        return v, v
    if kind == "float":
        lo = 0.0 if dtype.kind == "u" else -60.0
        v = draw(st.floats(lo, 60.0, allow_nan=False, width=32))
        return v, v
    if kind == "bool":
        v = draw(st.booleans())
        return v, v
    if kind == "complex":
        v = complex(draw(st.integers(-9, 9)), draw(st.integers(-9, 9)))
        return v, v
    # an array whose shape broadcasts to target: a suffix with some 1-sides, or leading 1s
    nd = draw(st.integers(0, len(target)))
    vshape = tuple(1 if draw(st.integers(0, 3)) == 0 else s for s in target[len(target) - nd:])
    vshape = (1,) * draw(st.integers(0, 2)) + vshape
    vdt = draw(st.sampled_from([d for d in VALUE_DTYPES if d.kind != "c" or dtype.kind == "c"]))
    if vdt.kind == "b":
        elems = st.booleans()
    elif vdt.kind in "iu":
        info = np.iinfo(vdt)
        elems = st.integers(max(info.min, -60), min(info.max, 60))
    elif vdt.kind == "f":
        lo = 0.0 if dtype.kind == "u" else -60.0
        # (no subnormals: XLA on CPU flushes them to zero, see docs/decisions.md)
        elems = st.floats(lo, 60.0, allow_nan=False, width=32, allow_subnormal=False)
    else:
        elems = st.complex_numbers(max_magnitude=60, allow_nan=False, allow_infinity=False,
                                   width=64).map(_no_subnormal)
    arr = np.asarray(draw(hnp.arrays(vdt, vshape, elements=elems)))
    if arr.dtype.kind == "f" and dtype.kind == "i" and dtype.itemsize == 1:
        arr = np.clip(arr, -60, 60)
    spell = draw(st.sampled_from(["numpy", "jax", "tensor", "view", "list"]))
    if spell == "numpy":
        return arr, arr
    if spell == "jax":
        return jnp.asarray(arr), arr
    if spell == "tensor":
        return jt.asarray(arr), arr
    if spell == "view":  # a view of a bigger Tensor (exercises reading a view as the value)
        big = jt.asarray(np.stack([arr, arr]))
        return big[1], arr
    if arr.size == 0 or arr.ndim == 0 or vdt.kind in "uc" or dtype.kind == "u":
        return arr, arr
    # a nested Python list (jaxtensor converts it with x's dtype; NumPy refuses lists with
    # more dimensions than the target, so the oracle gets the array)
    return arr.tolist(), arr


def np_view_index(index: Any) -> Any:
    """The spelling of a basic index that always gives a view (``x[1, 0, ...]``; ``x[1, 0]``
    is the element's value in NumPy and in jaxtensor)."""
    index = index if isinstance(index, tuple) else (index,)
    return index if any(i is Ellipsis for i in index) else index + (Ellipsis,)


def _single_value_error(v_np: Any, dtype: np.dtype) -> type[Exception] | None:
    """The error jaxtensor raises for a single (0-D) value that does not fit an integer
    ``dtype``: that of the Python number it holds (NumPy itself wraps NumPy scalars)."""
    v = np.asarray(v_np)
    if v.ndim or dtype.kind not in "iu" or v.dtype.kind not in "iuf" or np.can_cast(v.dtype,
                                                                                      dtype):
        return None
    item = v.item()
    probe = np.zeros(1, dtype)
    try:
        with np.errstate(all="ignore"):
            probe[0] = item
    except (OverflowError, ValueError) as e:
        return ValueError if isinstance(item, float) and not np.isfinite(item) else type(e)
    return None


def _no_subnormal(z: complex) -> complex:
    tiny = float(np.finfo(np.float32).tiny)
    return complex(0.0 if abs(z.real) < tiny else z.real, 0.0 if abs(z.imag) < tiny else z.imag)


def check_setitem(
    base_np: np.ndarray, view_index: Any, data: st.DataObject, *, advanced: bool = True
) -> None:
    base = jt.asarray(base_np)
    base_np = base_np.copy()
    if view_index is None:
        x_np, x = base_np, base
    else:
        x_np, x = (base_np[np_view_index(view_index.np_index)],
                   base[np_view_index(view_index.jt_index)])
        assert np.shares_memory(x_np, base_np) or x_np.size == 0
    index = data.draw(indices(x_np.shape, basic_only=not advanced, invalid=True), label="index")
    try:
        target = x_np[index.np_index]
    except Exception as e:  # noqa: BLE001 - an invalid index: same class, nothing changes
        note(f"NumPy raised {type(e).__name__}: {e}")
        before = np.asarray(base).copy()
        with pytest.raises(type(e)):
            x[index.jt_index] = 0
        np.testing.assert_array_equal(np.asarray(base), before)
        return
    v_jt, v_np = data.draw(values(np.shape(target), x_np.dtype), label="value")
    err = _single_value_error(v_np, x_np.dtype)
    if err is not None:  # one value that does not fit: checked like the Python number
        before = np.asarray(base).copy()
        with pytest.raises(err):
            x[index.jt_index] = v_jt
        np.testing.assert_array_equal(np.asarray(base), before)
        return
    with np.errstate(all="ignore"):
        # with `...` NumPy's x[1, 0] is a 0-D view, as jaxtensor's write target x[1, 0] is
        # (so a (1, 1) value broadcasts into it, as it does into any other selection)
        x_np[np_view_index(index.np_index)] = v_np
    x[index.jt_index] = v_jt
    got = np.asarray(base)
    assert got.dtype == base_np.dtype
    np.testing.assert_array_equal(got, base_np)
    np.testing.assert_array_equal(np.asarray(x), x_np)
    assert x.dtype == x_np.dtype


@given(data=st.data(), shape=shapes(), dtype=st.sampled_from(X_DTYPES))
def test_setitem_matches_numpy(data: st.DataObject, shape: tuple[int, ...], dtype: np.dtype):
    check_setitem(example_array(shape, dtype), None, data)


@given(data=st.data(), shape=shapes(), dtype=st.sampled_from(X_DTYPES))
def test_basic_setitem_matches_numpy(
    data: st.DataObject, shape: tuple[int, ...], dtype: np.dtype
):
    check_setitem(example_array(shape, dtype), None, data, advanced=False)


@given(data=st.data(), shape=shapes(min_dims=1), dtype=st.sampled_from(X_DTYPES))
def test_setitem_through_a_view_matches_numpy(
    data: st.DataObject, shape: tuple[int, ...], dtype: np.dtype
):
    """Assigning into a basic-index view (any kind of index) writes into the base."""
    view_index = data.draw(indices(shape, basic_only=True), label="view index")
    check_setitem(example_array(shape, dtype), view_index, data)


# -- hand-written cases ------------------------------------------------------------------------
def test_scalar_values_cast_like_astype():
    x = jt.zeros((2, 3), dtype=jt.int32)
    x[0] = 2.7
    x[1, :2] = -2.7
    x[1, 2] = True
    np.testing.assert_array_equal(np.asarray(x), [[2, 2, 2], [-2, -2, 1]])
    f = jt.full((2, 3), 1.25)
    dt = f.dtype
    f[0] = 10
    f[1, 0] = False
    np.testing.assert_array_equal(np.asarray(f), [[10, 10, 10], [0, 1.25, 1.25]])
    assert f.dtype == dt
    b = jt.zeros(4, dtype=jt.bool)
    b[0], b[1], b[2], b[3] = 0.5, 2, -0.0, 0
    np.testing.assert_array_equal(np.asarray(b), [True, True, False, False])
    c = jt.zeros(3, dtype=jt.complex64)
    c[0], c[1], c[2] = 1 + 2j, 3, 2.5
    np.testing.assert_array_equal(np.asarray(c), [1 + 2j, 3, 2.5])


def test_array_values_cast_like_astype():
    x = jt.zeros(4, dtype=jt.int64)
    x[:] = np.array([-1.9, -0.5, 0.5, 1.9])
    np.testing.assert_array_equal(np.asarray(x), [-1, 0, 0, 1])
    x[[3, 2]] = jt.asarray([True, False])
    np.testing.assert_array_equal(np.asarray(x), [-1, 0, 0, 1])
    x[1:3] = jnp.asarray([7.99, -7.99], dtype=jnp.float32)
    np.testing.assert_array_equal(np.asarray(x), [-1, 7, -7, 1])
    b = jt.zeros(3, dtype=jt.bool)
    b[:] = jt.asarray([0.0, 0.1, -3.0])
    np.testing.assert_array_equal(np.asarray(b), [False, True, True])
    f = jt.zeros(3, dtype=jt.float32)
    f[...] = np.array([1, 2, 3], np.int64)
    f[f > 1.5] = np.array(True)
    np.testing.assert_array_equal(np.asarray(f), [1, 1, 1])
    assert f.dtype == jt.float32


def test_values_with_leading_one_dims_and_0d():
    x_np = np.zeros((3, 4))
    x = jt.asarray(x_np)
    for key, value in [((0,), np.ones((1, 1, 4))), ((slice(None), 1), np.full((1, 3), 2.0)),
                       (([0, 2],), np.arange(4.0)[None, None]), ((Ellipsis,), np.array(5.0)),
                       ((1, 2), np.ones((1, 1))), ((x_np > 4,), np.array([[[7.0]]]))]:
        x_np[np_view_index(key)] = value
        x[key] = jt.asarray(value)
        np.testing.assert_array_equal(np.asarray(x), x_np)


def test_0d_value_tensor_like_paddle():
    a = jt.ones((2, 3, 4))
    a[:, :, 1] = jt.full([], 2)
    a[:, :, 3] = jt.full([2, 1], 5)
    expected = np.ones((2, 3, 4), np.float32)
    expected[:, :, 1] = 2
    expected[:, :, 3] = 5
    np.testing.assert_array_equal(np.asarray(a), expected)


def test_overlapping_value_is_read_before_the_write():
    x_np = np.arange(10)
    x = jt.arange(10)
    x_np[1:] = x_np[:-1].copy()
    x[1:] = x[:-1]
    np.testing.assert_array_equal(np.asarray(x), x_np)
    x_np[::-1] = x_np.copy()
    x[::-1] = x
    np.testing.assert_array_equal(np.asarray(x), x_np)
    m_np = np.arange(9).reshape(3, 3)
    m = jt.asarray(m_np)
    m_np[...] = m_np.T.copy()
    m[...] = m.T
    np.testing.assert_array_equal(np.asarray(m), m_np)
    m_np[[0, 2]] = m_np[[2, 0]]
    m[[0, 2]] = m[[2, 0]]
    np.testing.assert_array_equal(np.asarray(m), m_np)


@pytest.mark.parametrize(
    "key",
    [(slice(None), [0], Ellipsis, [1]), (slice(None), 0, Ellipsis, [1, 2]),
     ([0, 1], Ellipsis, [[1], [2]], 3), (True, [1], Ellipsis, None, [2], [0])],
    ids=repr,
)
def test_advanced_dims_placement_in_assignment(key: Any):
    """The value is laid out like NumPy's ``x[key]`` (an empty ``...`` separates)."""
    x_np = np.zeros((2, 3, 4), np.int64)
    target = x_np[key]
    value = np.arange(target.size).reshape(target.shape) + 1
    x_np[key] = value
    x = jt.zeros((2, 3, 4), dtype=jt.int64)
    x[key] = value
    np.testing.assert_array_equal(np.asarray(x), x_np)


# -- duplicates: last value in C order wins ------------------------------------------------------
def test_duplicate_indices_last_wins():
    x = jt.zeros(5, dtype=jt.int64)
    x[[1, 3, 1, 1, 3]] = jt.asarray([10, 20, 30, 40, 50])
    np.testing.assert_array_equal(np.asarray(x), [0, 40, 0, 50, 0])
    m = jt.zeros((3, 3))
    rows = np.array([[0, 0], [2, 0]])
    cols = np.array([[1, 1], [1, 1]])
    m[rows, cols] = np.array([[1.0, 2.0], [3.0, 4.0]])
    m_np = np.zeros((3, 3), np.float32)
    m_np[rows, cols] = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(np.asarray(m), m_np)
    assert float(m[0, 1]) == 4.0  # (0,1) is hit at flat positions 0, 1 and 3: the last wins
    # duplicates across a sliced (non-advanced) axis, negative aliases of the same row
    t = jt.zeros((4, 2), dtype=jt.int32)
    t[[0, -4, 3, -1], :] = jt.asarray([[1, 1], [2, 2], [3, 3], [4, 4]])
    np.testing.assert_array_equal(np.asarray(t), [[2, 2], [0, 0], [0, 0], [4, 4]])


@given(
    n=st.integers(1, 3),
    # a fixed length keeps the number of compiled kernels small; duplicates abound anyway
    idx=st.lists(st.integers(-3, 2), min_size=6, max_size=6),
    dtype=st.sampled_from([np.dtype("int64"), np.dtype("float32"), np.dtype("bool")]),
)
def test_duplicate_indices_match_numpy(n: int, idx: list[int], dtype: np.dtype):
    idx = [i % n - (n if i < 0 else 0) for i in idx]
    x_np = np.zeros((n, 2), dtype)
    vals = (np.arange(2 * len(idx)).reshape(len(idx), 2) % 7 + 1).astype(dtype)
    x_np[idx] = vals
    x = jt.zeros((n, 2), dtype=dtype)
    x[jt.asarray(idx)] = vals
    np.testing.assert_array_equal(np.asarray(x), x_np)
    x2 = jt.zeros((2, n), dtype=dtype)
    x2[:, idx] = vals.T
    x2_np = np.zeros((2, n), dtype)
    x2_np[:, idx] = vals.T
    np.testing.assert_array_equal(np.asarray(x2), x2_np)


def test_duplicates_are_deterministic():
    """Many duplicates, repeated: always the last one (XLA's scatter alone promises no order)."""
    idx = np.array([0, 1, 2, 3] * 64)
    vals = np.arange(idx.size, dtype=np.float32)
    expected = np.zeros(4, np.float32)
    expected[idx] = vals
    for _ in range(5):
        x = jt.zeros(4)
        x[idx] = vals
        np.testing.assert_array_equal(np.asarray(x), expected)


# -- errors ------------------------------------------------------------------------------------
def test_complex_into_real_is_a_type_error():
    for dt in (jt.float32, jt.int64, jt.bool):
        x = jt.zeros(3, dtype=dt)
        with pytest.raises(TypeError):
            x[0] = 1 + 2j
        with pytest.raises(TypeError):
            x[:] = np.array([1j, 2, 3])
        with pytest.raises(TypeError):
            x[[0, 1]] = jt.asarray([1 + 0j, 2 + 0j])
        with pytest.raises(TypeError):
            x[...] = jnp.asarray(1j)
        np.testing.assert_array_equal(np.asarray(x), np.zeros(3, dt))


@pytest.mark.parametrize(
    ("dtype", "value"),
    [("int8", 128), ("int8", -129), ("uint8", -1), ("uint8", 256), ("int32", 2**31),
     ("int64", 2**63), ("uint64", -1), ("uint64", 2**64), ("int16", -(2**15) - 1)],
)
def test_python_int_out_of_range_is_an_overflow_error(dtype: str, value: int):
    with pytest.raises(OverflowError):
        np.zeros(2, dtype)[0] = value  # NumPy 2 agrees
    x = jt.zeros(2, dtype=dtype)
    for key in (0, slice(None), [1], (x == 0,), Ellipsis):
        with pytest.raises(OverflowError):
            x[key] = value
    np.testing.assert_array_equal(np.asarray(x), [0, 0])


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
@pytest.mark.parametrize("dtype", ["int8", "int64", "uint8", "uint32"])
def test_python_float_nan_inf_into_int_is_a_value_error(value: float, dtype: str):
    x = jt.arange(3, dtype=dtype)
    for key in (0, slice(1, None), [2, 0], (x > 0,), Ellipsis):
        with pytest.raises(ValueError):
            x[key] = value
    np.testing.assert_array_equal(np.asarray(x), [0, 1, 2])


def test_nan_inf_into_float_and_bool_are_fine():
    f = jt.zeros(3)
    f[0], f[1], f[2] = float("nan"), float("inf"), float("-inf")
    np.testing.assert_array_equal(np.asarray(f), [np.nan, np.inf, -np.inf])
    b = jt.zeros(2, dtype=jt.bool)
    b[0] = float("nan")
    b[1] = float("inf")
    np.testing.assert_array_equal(np.asarray(b), [True, True])


@pytest.mark.parametrize(
    ("key", "value", "vshape", "tshape"),
    [
        ((slice(None), slice(None), 3), np.full((2, 4), 5.0), "(2,4)", "(2,3)"),
        ((0,), np.ones(5), "(5,)", "(3,4)"),
        ((0,), np.ones((2, 3, 4)), "(2,3,4)", "(3,4)"),
        (([0, 1],), np.ones((3, 3, 4)), "(3,3,4)", "(2,3,4)"),
        ((1, [0, 2], slice(None)), np.ones((3,)), "(3,)", "(2,4)"),
        ((Ellipsis, 0), np.ones((2, 1, 2)), "(2,1,2)", "(2,3)"),
        ((np.ones((2, 3, 4), bool),), np.ones(5), "(5,)", "(24,)"),
        ((0, np.array([True, False, True])), np.ones((3, 4)), "(3,4)", "(2,4)"),
    ],
)
def test_unbroadcastable_value_is_a_value_error_naming_both_shapes(
    key: Any, value: np.ndarray, vshape: str, tshape: str
):
    x_np = np.ones((2, 3, 4))
    with pytest.raises(ValueError):
        x_np[key] = value
    x = jt.ones((2, 3, 4))
    for v in (value, jt.asarray(value), jnp.asarray(value)):
        with pytest.raises(ValueError, match=rf"{re_escape(vshape)}.*{re_escape(tshape)}"):
            x[key] = v
    np.testing.assert_array_equal(np.asarray(x), np.ones((2, 3, 4)))


def re_escape(s: str) -> str:
    import re

    return re.escape(s)


def test_index_errors_in_setitem():
    x = jt.zeros((4, 3))
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 4"):
        x[5] = 1
    with pytest.raises(IndexError, match="out of bounds"):
        x[:, [0, 3]] = 1
    with pytest.raises(IndexError):
        x[[0, 1], [0, 1, 2]] = 1
    with pytest.raises(IndexError):
        x[..., ...] = 1
    with pytest.raises(IndexError):
        x[0.0] = 1
    with pytest.raises(IndexError):
        x[np.ones(3, bool)] = 1
    with pytest.raises(ValueError):
        x[::0] = 1
    with pytest.raises(TypeError):
        x[0.5:] = 1
    with pytest.raises(TypeError):
        x[0] = "a"
    with pytest.raises(TypeError):
        x[0] = object()
    np.testing.assert_array_equal(np.asarray(x), np.zeros((4, 3)))


# -- atomicity: a failed assignment changes nothing ----------------------------------------------
FAILING: list[tuple[Any, Any, type[Exception]]] = [
    ((5,), 1.0, IndexError),
    ((slice(None), [0, 9]), 1.0, IndexError),
    (([0, 1], [0, 1, 2]), 1.0, IndexError),
    ((np.ones(2, bool),), 1.0, IndexError),
    ((0,), np.ones(7), ValueError),
    (([0, 0],), np.ones((3, 4)), ValueError),
    ((slice(None), 1), 1 + 1j, TypeError),
    (([1, 2],), np.array([1j]), TypeError),
    ((Ellipsis,), float("nan"), ValueError),
    ((0, [1]), float("inf"), ValueError),
    ((slice(1, 3),), 2**40, OverflowError),
    (([3, 0],), -(2**40), OverflowError),
    ((slice(None, None, 0),), 1, ValueError),
    ((0, 0), "x", TypeError),
]


@pytest.mark.parametrize(("key", "value", "exc"), FAILING, ids=repr)
def test_failed_setitem_changes_nothing(key: Any, value: Any, exc: type[Exception]):
    base = jt.asarray(np.arange(20, dtype=np.int32).reshape(4, 5))
    views = [base[1:], base[::-1, ::2], base.T, base[2], base[1, 2], jt.reshape(base, (20,))]
    before_views = [np.asarray(v).copy() for v in views]  # also fills the views' caches
    exported = base.to_jax()
    target = base
    if type(key[0]) is int and key == (5,):
        target, key = views[0], (4,)  # out of bounds for the 3-row view
    with pytest.raises(exc):
        target[key] = value
    np.testing.assert_array_equal(np.asarray(base), np.arange(20).reshape(4, 5))
    for v, b in zip(views, before_views):
        np.testing.assert_array_equal(np.asarray(v), b)
    np.testing.assert_array_equal(np.asarray(exported), np.arange(20).reshape(4, 5))
    # and the storage still works afterwards
    base[0, 0] = 99
    assert int(views[4]) == 7 and int(views[5][0]) == 99 and int(views[2][0, 0]) == 99


def test_failed_setitem_through_a_view_changes_nothing():
    base = jt.zeros((3, 4), dtype=jt.int8)
    v = base[1:, ::2]
    w = v.T
    for key, value, exc in [((0, 5), 1, IndexError), (([0, 1], [0, 1, 0]), 1, IndexError),
                            ((Ellipsis,), np.ones(3), ValueError), ((0,), 200, OverflowError),
                            ((0,), 1j, TypeError), ((0, 0), float("nan"), ValueError)]:
        with pytest.raises(exc):
            w[key] = value
        with pytest.raises(exc):
            v[key] = value
        assert not np.asarray(base).any() and not np.asarray(v).any() and not np.asarray(w).any()


# -- loops of scalar writes (queued and applied together at the next read) ------------------------
@given(
    data=st.data(),
    shape=shapes(max_dims=3, min_dims=1),
    dtype=st.sampled_from([np.dtype(d) for d in ("int64", "int8", "uint8", "float32", "bool")]),
)
def test_scalar_write_loops_match_numpy(
    data: st.DataObject, shape: tuple[int, ...], dtype: np.dtype
):
    """``x[i, j] = v`` in a loop, interleaved with slice writes, reads of views, exports and
    failing writes: every alias sees the writes in program order (the last one wins)."""
    if 0 in shape:
        shape = tuple(max(s, 1) for s in shape)
    x_np = example_array(shape, dtype)
    x = jt.asarray(x_np)
    x_np = x_np.copy()
    v = x[..., ::-1]  # a view, read now and then
    exports: list[tuple[Any, np.ndarray]] = []
    for step in range(data.draw(st.integers(1, 15), label="writes")):
        action = data.draw(st.sampled_from(["scalar"] * 6 + ["slice", "read", "export", "bad"]),
                           label=f"action {step}")
        if action == "scalar":
            key = tuple(data.draw(st.integers(-n, n - 1)) for n in shape)
            if len(key) == 1 and data.draw(st.booleans()):
                key = key[0]
            if dtype.kind == "f":
                value = data.draw(st.integers(-100, 100) | st.floats(-100, 100, width=32))
            elif dtype.kind == "b":
                value = data.draw(st.booleans() | st.integers(0, 1))
            else:
                info = np.iinfo(dtype)
                value = data.draw(st.integers(int(info.min), int(info.max)))
            x_np[key] = value
            x[key] = value
        elif action == "slice":
            x_np[..., :1] = 3
            x[..., :1] = 3
        elif action == "read":
            np.testing.assert_array_equal(np.asarray(v), x_np[..., ::-1])
        elif action == "export":
            exports.append((x.to_jax(), x_np.copy()))
        else:  # a write that fails changes nothing, queued writes included
            bad = (shape[0],) + (0,) * (len(shape) - 1)
            with pytest.raises(IndexError):
                x[bad] = 1
    np.testing.assert_array_equal(np.asarray(x), x_np)
    np.testing.assert_array_equal(np.asarray(v), x_np[..., ::-1])
    for arr, expected in exports:
        assert not arr.is_deleted()
        np.testing.assert_array_equal(np.asarray(arr), expected)
