"""A read or write at a traced integer index costs what the index needs: its offset is
wrapped once (``i < 0``: ``i + n``) and taken by the dynamic slice as it is, one scalar per
axis (no stacked vector of offsets sliced apart again, no multiplication by a stride of 1,
no second wrap inside ``lax.dynamic_slice``, no ``jax.numpy`` function traced per offset),
and its value is NumPy's for every kind of basic index, in range, and JAX's out of range
under plain ``jax.jit`` (clamped, as ``jax.numpy`` indexing is)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings

import jaxtensor as jt
from indexing_strategies import indices
from jaxprs import primitives as _primitives

SHAPE = (5, 6, 4)


def _with_ints(ix) -> tuple[tuple, list[int]]:
    """A basic index as a tuple, and the positions of its ints."""
    idx = ix.np_index if type(ix.np_index) is tuple else (ix.np_index,)
    return idx, [p for p, v in enumerate(idx) if type(v) is int]


# a basic index of SHAPE with at least one int (either sign), and the positions of its ints
indices_with_ints = (indices(SHAPE, basic_only=True).map(_with_ints)
                     .filter(lambda case: bool(case[1])))


def _traced(idx: tuple, ints: list[int], values: tuple) -> tuple:
    out = list(idx)
    for p, v in zip(ints, values):
        out[p] = v
    return tuple(out)


def _x() -> np.ndarray:
    return np.arange(np.prod(SHAPE), dtype=np.float64).reshape(SHAPE)


@settings(max_examples=80, deadline=None)
@given(case=indices_with_ints)
def test_reads_and_writes_at_traced_ints_match_numpy(case):
    idx, ints = case
    vals = tuple(np.int64(idx[p]) for p in ints)
    x_np = _x()
    want_read = x_np[idx]
    want_write = x_np.copy()
    want_write[idx] = -1.0
    want_add = x_np.copy()
    want_add[idx] += 10.0

    def read(a, *v):
        return jt.asarray(a)[_traced(idx, ints, v)].to_jax()

    def write(a, *v):
        t = jt.asarray(a)
        t[_traced(idx, ints, v)] = -1.0
        return t.to_jax()

    def add(a, *v):
        t = jt.asarray(a)
        t[_traced(idx, ints, v)] += 10.0
        return t.to_jax()

    for fn, want in ((read, want_read), (write, want_write), (add, want_add)):
        np.testing.assert_array_equal(np.asarray(jax.jit(fn)(x_np, *vals)), want)

    def jt_read(t, *v):
        return t[_traced(idx, ints, v)]

    def jt_write(t, *v):
        t[_traced(idx, ints, v)] = -1.0

    def jt_add(t, *v):
        t[_traced(idx, ints, v)] += 10.0

    np.testing.assert_array_equal(np.asarray(jt.jit(jt_read)(jt.asarray(x_np), *vals)),
                                  want_read)
    for fn, want in ((jt_write, want_write), (jt_add, want_add)):
        t = jt.asarray(x_np)
        jt.jit(fn)(t, *vals)
        np.testing.assert_array_equal(np.asarray(t), want)


@settings(max_examples=40, deadline=None)
@given(case=indices_with_ints)
def test_a_traced_read_wraps_each_int_once_and_stacks_nothing(case):
    idx, ints = case
    vals = tuple(np.int64(idx[p]) for p in ints)

    def read(a, *v):
        return jt.asarray(a)[_traced(idx, ints, v)].to_jax()

    names = _primitives(jax.make_jaxpr(read)(_x(), *vals))
    k = len(ints)
    # one wrap per traced int: a comparison, an addition, a select
    assert names["lt"] == k and names["select_n"] == k and names["add"] == k, names
    for extra in ("concatenate", "stack", "mul", "squeeze", "pjit", "jit"):
        assert extra not in names, (extra, names)


def test_a_strided_write_at_a_traced_offset_divides_without_floor_fix_ups():
    def write(a, i):
        t = jt.asarray(a)
        t[i, ::2] = 7.0
        return t.to_jax()

    x = np.arange(24.0).reshape(4, 6)
    closed = jax.make_jaxpr(write)(x, np.int64(2))
    names = _primitives(closed)
    assert names["div"] <= 2 and "sign" not in names and "jit" not in names, names
    for i in range(-4, 4):
        want = x.copy()
        want[i, ::2] = 7.0
        np.testing.assert_array_equal(np.asarray(jax.jit(write)(x, np.int64(i))), want)


@pytest.mark.parametrize("n", [1, 5])
def test_out_of_range_under_plain_jax_jit_is_clamped_as_jax_numpy(n):
    """Plain ``jax.jit`` of Tensor code makes no checks: an index out of range reads and
    writes where ``jax.numpy`` does (wrapped once if negative, then clamped)."""
    x = np.arange(n * 3.0).reshape(n, 3)

    @jax.jit
    def ours(a, i):
        t = jt.asarray(a)
        r = t[i, 1]
        t[i, 2] = -1.0
        return r.to_jax(), t.to_jax()

    @jax.jit
    def theirs(a, i):
        a = jnp.asarray(a)
        return a[i, 1], a.at[i, 2].set(-1.0, mode="clip")

    for i in range(-3 * n - 1, 3 * n + 2):
        got, want = ours(x, np.int64(i)), theirs(x, np.int64(i))
        if -n <= i < n:
            w = x.copy()
            w[i, 2] = -1.0
            np.testing.assert_array_equal(np.asarray(got[1]), w)
        np.testing.assert_array_equal(np.asarray(got[0]), np.asarray(want[0]), err_msg=str(i))


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("o2", [-8, -7, -5, -4, -3, 1, 3, 4])
def test_a_failed_check_in_a_branch_writes_nothing_wherever_the_index_points(o2, compiled):
    """Both branches of a ``cond`` in a loop write the Tensor, merged into one write at the
    start of the branch taken; a check failing there (``x[i + o2]`` out of range on either
    side, past ``-n`` too) leaves every element as the Python loop left it when it raised
    (and a negative index in range is NumPy's)."""
    n = 3
    want = np.zeros(n, np.int32)
    want_err = None
    try:
        for i in range(3):
            if i < 1:
                want[i] += 1
            else:
                want[i + o2] += 2
    except IndexError as e:
        want_err = str(e)
    x = jt.zeros(n, dtype=jt.int32)

    def run(x):
        def body(i):
            def yes():
                x[i] += 1

            def no():
                x[i + o2] += 2
            jt.cond(i < 1, yes, no)
        jt.fori_loop(0, 3, body)

    got_err = None
    try:
        (jt.jit(run) if compiled else run)(x)
    except IndexError as e:
        got_err = str(e)
    assert got_err == want_err
    np.testing.assert_array_equal(np.asarray(x), want)
