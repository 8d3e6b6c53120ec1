"""``asarray(x, copy=True)`` of a whole Tensor shares ``x``'s buffer until one is written.

A ``jax.Array`` never changes, and a storage donates its buffer to a write only while
nothing else holds it, so the copy is a new storage over the same buffer: a write to
either Tensor makes a new buffer while both live, and the last one left writes in place
again. Oracle: NumPy, over random sequences of writes (eager, in ``jaxtensor.jit``, in a
top-level loop) to a Tensor, its copies and copies of copies, with some dropped on the way.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxtensor as jt

pytestmark = pytest.mark.filterwarnings("ignore::jaxtensor.RecompileWarning")

N = 6


def _pointer(t: jt.Tensor) -> int:
    return t._storage.array.unsafe_buffer_pointer()  # (queued writes applied first)


_STEPS = st.lists(st.tuples(
    st.sampled_from(["set", "iadd", "jit", "loop", "copy", "drop", "view write"]),
    st.integers(0, 7), st.integers(-5, 5)), min_size=1, max_size=12)


@jt.jit
def _jit_write(x, k, v):
    x[k] = x[k] * 2 + v


@settings(max_examples=30, deadline=None)
@given(steps=_STEPS)
def test_copies_hold_numpys_values_through_random_writes(steps):
    base = np.arange(N, dtype=np.float64)
    ours = {0: jt.asarray(base)}
    want = {0: base.copy()}
    for op, who, v in steps:
        keys = sorted(ours)
        k = keys[who % len(keys)]
        i = abs(v) % N
        if op == "copy":
            new = max(ours) + 1
            ours[new] = jt.asarray(ours[k], copy=True)
            want[new] = want[k].copy()
        elif op == "drop" and len(ours) > 1:
            del ours[k], want[k]
            gc.collect()
        elif op == "set":
            ours[k][i] = v
            want[k][i] = v
        elif op == "iadd":
            ours[k] += v
            want[k] += v
        elif op == "jit":
            _jit_write(ours[k], i, v)
            want[k][i] = want[k][i] * 2 + v
        elif op == "loop":
            def body(j, t=ours[k], v=v):
                t[j] = t[j] + v
            jt.fori_loop(0, i, body)
            want[k][:i] += v
        elif op == "view write":
            ours[k][1:][::2] = v
            want[k][1:][::2] = v
        for key in ours:
            np.testing.assert_array_equal(np.asarray(ours[key]), want[key], err_msg=str(key))


def test_a_copy_shares_the_buffer_and_a_write_to_either_leaves_the_other():
    x = jt.asarray(np.arange(4.0))
    y = jt.asarray(x, copy=True)
    assert y._storage is not x._storage and _pointer(y) == _pointer(x)
    y[0] = 10.0
    assert _pointer(y) != _pointer(x)
    np.testing.assert_array_equal(np.asarray(x), np.arange(4.0))
    z = jt.asarray(x, copy=True)
    x[1] = 20.0
    np.testing.assert_array_equal(np.asarray(z), np.arange(4.0))
    np.testing.assert_array_equal(np.asarray(x), [0.0, 20.0, 2.0, 3.0])


def test_the_last_holder_writes_in_place():
    # (a buffer XLA made: one transferred from NumPy may be NumPy's memory, which the CPU
    # client then keeps, and which a write never reuses)
    x = jt.asarray(np.arange(1000.0)) + 0.0
    y = jt.asarray(x, copy=True)
    ptr = _pointer(y)
    del x
    gc.collect()
    y[3] = -1.0  # (nothing else holds the buffer: donated, written in place)
    assert _pointer(y) == ptr
    assert float(y[3]) == -1.0 and float(y[4]) == 4.0


@pytest.mark.parametrize("export", ["to_jax", "numpy", "dlpack"])
def test_a_copy_of_an_exported_tensor_never_donates_its_buffer(export):
    """A buffer handed out (``to_jax``, ``np.asarray``, DLPack) may be read by what holds
    it without holding the Tensor: the copy is marked handed out too, and keeps it (its
    writes make new buffers)."""
    x = jt.asarray(np.arange(8.0))
    if export == "to_jax":
        out = x.to_jax()
    elif export == "numpy":
        out = np.asarray(x)
    else:
        out = np.from_dlpack(x)
    y = jt.asarray(x, copy=True)
    del x
    gc.collect()
    y[0] = 100.0
    y += 1.0
    np.testing.assert_array_equal(np.asarray(out), np.arange(8.0))
    np.testing.assert_array_equal(np.asarray(y), np.r_[101.0, np.arange(1.0, 8.0) + 1.0])


def test_a_copy_of_a_view_or_in_another_dtype_is_its_own_buffer():
    x = jt.asarray(np.arange(8.0))
    v = jt.asarray(x[2:6], copy=True)
    w = jt.asarray(x, dtype=jt.float32, copy=True)
    x[3] = -7.0
    np.testing.assert_array_equal(np.asarray(v), [2.0, 3.0, 4.0, 5.0])
    np.testing.assert_array_equal(np.asarray(w), np.arange(8.0, dtype=np.float32))
