"""A top-level loop call costs the same loop's call inside ``jaxtensor.jit`` plus a few
Python calls (issue 28, item 4), counted with ``sys.setprofile`` (not timed).

A repeat call of ``jt.fori_loop``/``jt.while_loop`` at the top level whose bodies read the
same flat values as the last call (the same body, or a fresh closure of its code) proves so
with a few probes instead of walking what the bodies reach, and its Tensors reach the
compiled loop as ``jaxtensor.jit``'s plain arguments (a Tensor that ``cond_fun`` and
``body_fun`` both close over once, not twice), so the call takes the guarded fast path of
``jaxtensor.jit``. The results are checked against NumPy's Python loop.
"""

from __future__ import annotations

import numpy as np

import jaxtensor as jt
from measure import python_calls

#: Python calls a top-level loop call may make beyond those of the same loop's call inside
#: a ``jaxtensor.jit`` function (the loop function, the cache lookup, the probes, the
#: bodies' closure made by the caller); before the probes it was 32 and more
EXTRA = 6

SCALE = 0.5


def make_step(x, c):
    def step(i):
        x[i] = x[i - 1] * SCALE + x[i] * c
    return step


def make_while(x):
    def more():
        return x[0] < 40

    def grow():
        x[0] = x[0] * 2 + 1
        x[1] += 1
    return more, grow


def np_fori(x, n, c):
    for i in range(1, n):
        x[i] = x[i - 1] * SCALE + x[i] * c


def np_while(x):
    while x[0] < 40:
        x[0] = x[0] * 2 + 1
        x[1] += 1


def test_top_level_fori_loop_costs_the_jit_call_plus_a_few_python_calls() -> None:
    n = 6
    x, y = jt.ones(n), jt.ones(n)
    e = np.ones(n)
    step = make_step(x, 1.5)
    in_jit = jt.jit(lambda y, lo, hi: jt.fori_loop(lo, hi, make_step(y, 1.5)))
    for _ in range(2):  # (compiled, and the guards made)
        jt.fori_loop(1, n, step)
        jt.fori_loop(1, n, make_step(x, 1.5))
        in_jit(y, 1, n)
        np_fori(e, n, 1.5)
        np_fori(e, n, 1.5)
    base = python_calls(lambda: in_jit(y, 1, n))
    same = python_calls(lambda: jt.fori_loop(1, n, step))
    fresh = python_calls(lambda: jt.fori_loop(1, n, make_step(x, 1.5)))
    assert same - base <= EXTRA, (same, base)
    assert fresh - base <= EXTRA + 1, (fresh, base)  # (+ make_step)
    for _ in range(2):
        np_fori(e, n, 1.5)
    np.testing.assert_allclose(np.asarray(x), e, rtol=1e-12)


def test_top_level_while_loop_costs_the_jit_call_plus_a_few_python_calls() -> None:
    def run() -> None:
        jt.while_loop(*make_while(x))

    def run_np() -> None:
        np_while(e)

    in_jit = jt.jit(lambda y: jt.while_loop(*make_while(y)))
    x, y = jt.asarray([0.0, 0.0]), jt.asarray([0.0, 0.0])
    e = np.asarray([0.0, 0.0])
    for k in range(3):
        x[0] = k
        e[0] = k
        run()
        run_np()
        in_jit(y)
    base = python_calls(lambda: in_jit(y))
    calls = python_calls(run)
    run_np()
    assert calls - base <= EXTRA + 1, (calls, base)  # (+ make_while)
    np.testing.assert_array_equal(np.asarray(x), e)


NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1))


def make_neighbours(x, w):
    def step(i):
        for dr, dc in NEIGHBOURS:
            x[i] += dr * w + dc
    return step


def test_a_body_reading_a_global_tuple_costs_the_same() -> None:
    """A tuple of numbers (a module's table of offsets) is probed, not walked."""
    n = 5
    x, y = jt.zeros(n), jt.zeros(n)
    e = np.zeros(n)
    in_jit = jt.jit(lambda y, lo, hi: jt.fori_loop(lo, hi, make_neighbours(y, 2.0)))
    for _ in range(2):
        jt.fori_loop(0, n, make_neighbours(x, 2.0))
        in_jit(y, 0, n)
        np_fori_body(e, n, make_neighbours(e, 2.0))
    base = python_calls(lambda: in_jit(y, 0, n))
    fresh = python_calls(lambda: jt.fori_loop(0, n, make_neighbours(x, 2.0)))
    assert fresh - base <= EXTRA + 1, (fresh, base)  # (+ make_neighbours)
    np_fori_body(e, n, make_neighbours(e, 2.0))
    np.testing.assert_array_equal(np.asarray(x), e)


def np_fori_body(e, n, body):
    for i in range(n):
        body(i)


def test_python_int_bounds_of_every_call_like_range() -> None:
    """Python int bounds reach the compiled loop as one array (kept on the device once seen
    twice): each call's own bounds, in any order, at the index dtype's ends; bounds past
    them raise ``OverflowError`` naming ``fori_loop``."""
    x = jt.zeros(8, dtype=jt.int64)
    e = np.zeros(8, np.int64)

    def body(i):
        x[i % 8] += i

    lo64 = -(2**63)
    for lo, hi in [(0, 5), (2, 8), (0, 5), (5, 2), (-3, 4), (2, 8), (lo64, lo64 + 2),
                   (2**63 - 3, 2**63 - 1)]:
        if abs(lo) > 100:  # (no overflow of the sums)
            x[:] = 0
            e[:] = 0
        jt.fori_loop(lo, hi, body)
        for i in range(lo, hi):
            e[i % 8] += i
        np.testing.assert_array_equal(np.asarray(x), e)
    for lo, hi in [(0, 2**63), (-(2**63) - 1, 0)]:
        try:
            jt.fori_loop(lo, hi, body)
        except OverflowError as err:
            assert "fori_loop()" in str(err)
        else:
            raise AssertionError("no OverflowError")
    np.testing.assert_array_equal(np.asarray(x), e)
