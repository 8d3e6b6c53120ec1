"""Safety of the write path: donation never invalidates user arrays, no write is lost or
reordered through any alias (queued or direct), failed writes change nothing, and writes
reuse the base buffer instead of copying it."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import jaxtensor as jt


# -- exported arrays ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "export",
    [
        lambda t: t.to_jax(),
        lambda t: jnp.asarray(t),
        lambda t: t.__jax_array__(),
        lambda t: np.asarray(t),
    ],
    ids=["to_jax", "jnp.asarray", "__jax_array__", "np.asarray"],
)
@pytest.mark.parametrize(
    "write",
    [
        lambda t: t.__setitem__(2, 9.0),  # queued scalar write
        lambda t: t.__setitem__(slice(1, 3), 9.0),  # direct slice write
        lambda t: t[1:].__setitem__(0, 9.0),  # through a view
        lambda t: t.__setitem__([0, 2], 9.0),  # advanced scatter
        lambda t: t.__iadd__(1.0),  # in-place operator
    ],
    ids=["scalar", "slice", "view", "advanced", "iadd"],
)
def test_exported_array_survives_writes(export, write):
    t = jt.arange(5.0)
    held = export(t)
    before = np.array(held)
    write(t)
    write(t)
    np.testing.assert_array_equal(np.asarray(held), before)
    assert not np.array_equal(np.asarray(t), before)


def test_exported_after_queued_writes_sees_them():
    t = jt.zeros(4)
    t[1] = 5.0
    t[3] = 7.0
    held = t.to_jax()
    np.testing.assert_array_equal(np.asarray(held), [0, 5, 0, 7])
    t[1] = -1.0
    np.testing.assert_array_equal(np.asarray(held), [0, 5, 0, 7])
    np.testing.assert_array_equal(np.asarray(t), [0, -1, 0, 7])


def test_asarray_of_jax_array_never_donates_callers_buffer():
    a = jnp.arange(6.0)
    t = jt.asarray(a)
    t[0] = 100.0
    t[1:3] = 50.0
    assert not a.is_deleted()
    np.testing.assert_array_equal(np.asarray(a), np.arange(6.0))


def test_shared_array_between_storages_is_not_donated():
    a = jt.arange(4.0)
    b = jt.asarray(a, dtype=a.dtype)  # same dtype: shares the Tensor
    assert b is a
    c = jt.reshape(a, (4,), copy=True)
    c[0:2] = 9.0
    np.testing.assert_array_equal(np.asarray(a), np.arange(4.0))


# -- ordering across the queued and the direct paths --------------------------------------------
ops = st.lists(
    st.one_of(
        st.tuples(st.just("scalar"), st.integers(-8, 7), st.integers(-50, 50)),
        st.tuples(st.just("pair"), st.integers(-2, 1), st.integers(-4, 3), st.integers(0, 9)),
        st.tuples(st.just("slice"), st.integers(0, 7), st.integers(0, 8), st.integers(-9, 9)),
        st.tuples(st.just("view"), st.integers(0, 3), st.integers(0, 9)),
        st.tuples(st.just("fancy"), st.lists(st.integers(-8, 7), max_size=4), st.integers(0, 9)),
        st.tuples(st.just("iadd"), st.integers(0, 5)),
        st.tuples(st.just("read"),),
    ),
    max_size=25,
)


@given(ops)
def test_interleaved_writes_match_numpy(program):
    a = np.zeros(8, np.float32)
    t = jt.zeros(8)
    a2, t2 = a.reshape(2, 4), t.reshape((2, 4))
    av, tv = a[2:6], t[2:6]
    for op in program:
        kind = op[0]
        if kind == "scalar":
            a[op[1]] = op[2]
            t[op[1]] = op[2]
        elif kind == "pair":
            a2[op[1], op[2]] = op[3]
            t2[op[1], op[2]] = op[3]
        elif kind == "slice":
            a[op[1]:op[2]] = op[3]
            t[op[1]:op[2]] = op[3]
        elif kind == "view":
            av[op[1]] = op[2]
            tv[op[1]] = op[2]
        elif kind == "fancy":
            a[op[1]] = op[2]
            t[op[1]] = op[2]
        elif kind == "iadd":
            a += op[1]
            t += op[1]
        else:
            np.testing.assert_array_equal(np.asarray(tv), av)
    np.testing.assert_array_equal(np.asarray(t), a)
    np.testing.assert_array_equal(np.asarray(t2), a2)
    np.testing.assert_array_equal(np.asarray(tv), av)


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4)])
def test_single_queued_write_into_nd_base(shape):
    t = jt.zeros(shape)
    a = np.zeros(shape, np.float32)
    held = None
    for k, pos in enumerate(np.ndindex(*shape)):
        neg = tuple(p - n for p, n in zip(pos, shape))  # negative indices too
        t[pos if k % 2 else neg] = float(k + 1)  # one queued write ...
        a[pos] = k + 1
        np.testing.assert_array_equal(np.asarray(t), a)  # ... applied alone at the read
        if k == 3:
            held = t.to_jax()
            held_before = np.array(held)
    np.testing.assert_array_equal(np.asarray(held), held_before)
    origin = (0,) * len(shape)
    last = np.asarray(t)  # a view of the exported buffer: the next flush must not write it
    t[origin] = -2.0
    assert float(t[origin]) == -2.0
    np.testing.assert_array_equal(last, a)
    t[origin] = -1.0
    assert float(t[origin]) == -1.0


def test_many_queued_writes_last_wins():
    t = jt.zeros(3, dtype=jt.int32)
    for k in range(1000):
        t[k % 3] = k
    np.testing.assert_array_equal(np.asarray(t), [999, 997, 998])


@pytest.mark.parametrize(
    "bad",
    [
        (10, 1.0, IndexError),
        ((0, 9), 1.0, IndexError),
        (1, 1j, TypeError),
        (slice(0, 2), np.ones(3), ValueError),
        ([0, 9], 1.0, IndexError),
    ],
)
def test_failed_write_after_queued_writes_changes_nothing(bad):
    t = jt.zeros((2, 4)) if isinstance(bad[0], tuple) else jt.zeros(4)
    flat = t.reshape((-1,))
    flat[1] = 3.0
    flat[2] = 4.0
    view = t[...]
    before = np.asarray(t).copy()
    with pytest.raises(bad[2]):
        t[bad[0]] = bad[1]
    np.testing.assert_array_equal(np.asarray(t), before)
    np.testing.assert_array_equal(np.asarray(view), before)


def test_integer_queue_errors_are_raised_at_the_write():
    t = jt.zeros(3, dtype=jt.uint8)
    t[0] = 255
    with pytest.raises(OverflowError):
        t[1] = 256
    with pytest.raises(OverflowError):
        t[1] = -1
    with pytest.raises(ValueError):
        t[1] = float("nan")
    np.testing.assert_array_equal(np.asarray(t), [255, 0, 0])


def test_float_from_python_int_and_bool_tensor_values():
    t = jt.zeros(2)
    t[0] = 3
    t[1] = True
    np.testing.assert_array_equal(np.asarray(t), [3.0, 1.0])
    b = jt.zeros(2, dtype=jt.bool)
    b[0] = 2
    b[1] = 0.0
    np.testing.assert_array_equal(np.asarray(b), [True, False])


def test_index_put_accumulate_accepts_leading_one_sides():
    out = jt.index_put(jt.zeros((3, 4)), (jt.asarray([0, 0]),), jt.ones((1, 1, 4)),
                       accumulate=True)
    np.testing.assert_array_equal(np.asarray(out), [[2] * 4, [0] * 4, [0] * 4])


def test_real_imag_attributes_are_views_and_astype_copies():
    z = jt.asarray([1 + 2j, 3 - 1j])
    z.real[0] = 10.0
    z.imag[1] = 5.0
    np.testing.assert_array_equal(np.asarray(z), [10 + 2j, 3 + 5j])
    assert z.real.base is z and jt.shares_memory(z, z.imag)
    f = z.real.astype(jt.int32)
    f[0] = 0
    assert f.dtype == jt.int32 and complex(z[0]) == 10 + 2j


# -- kept device constants (start offsets, scalar values, view offsets) -------------------------
def test_repeated_slice_writes_keep_values_exact():
    """Repeated writes pass their offsets and scalar values as kept device arrays: signed
    zeros, NaN, ints and bools must still land exactly, at the right offsets."""
    t = jt.ones(12)
    a = np.ones(12, np.float32)
    program = [(slice(1, 3), -0.0), (slice(1, 3), 0.0), (slice(1, 3), -0.0),
               (slice(5, 7), float("nan")), (slice(5, 7), 2), (slice(5, 7), True),
               (slice(5, 7), 2), (slice(8, 11), 1.5), (slice(8, 11), 1.5), (slice(2, 5), 1.5)]
    for _ in range(3):
        for key, value in program:
            t[key] = value
            a[key] = value
            got = np.asarray(t)
            np.testing.assert_array_equal(got, a)
            np.testing.assert_array_equal(np.signbit(got), np.signbit(a))
    ti = jt.zeros((2, 3), dtype=jt.int8)
    for _ in range(3):
        ti[1, 0:2] = 7
        ti[0, 1:] = -3
    np.testing.assert_array_equal(np.asarray(ti), [[0, -3, -3], [7, 7, 0]])
    with pytest.raises(OverflowError):
        ti[1, 0:2] = 300  # the value check happens before any kept constant is used
    np.testing.assert_array_equal(np.asarray(ti), [[0, -3, -3], [7, 7, 0]])


def test_views_of_one_template_keep_their_own_offsets():
    base = jt.asarray(np.arange(40.0, dtype=np.float32).reshape(8, 5))
    views = [base[i:i + 2, 1:4] for i in range(0, 6, 2)]  # one template, three offsets
    for _ in range(3):  # the second read of each view uses its kept device offsets
        for i, v in zip(range(0, 6, 2), views):
            np.testing.assert_array_equal(
                np.asarray(v), np.arange(40.0, dtype=np.float32).reshape(8, 5)[i:i + 2, 1:4])
    for k, v in enumerate(views):
        v[0, 0] = -float(k + 1)  # writes through each view land at its own offset
    assert [float(base[i, 1]) for i in (0, 2, 4)] == [-1.0, -2.0, -3.0]
