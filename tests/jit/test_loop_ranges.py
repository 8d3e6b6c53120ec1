"""Checks a loop index cannot fail are not made, and every other check still is.

A ``fori_loop`` body's index lies between the loop's bounds, so ``t[i - 1]`` in a loop over
``range(1, n)`` cannot fail and costs nothing (docs/loops.md, "Checks that cannot fail").
An eager loop's bounds are arguments of its program, so it assumes the index range of its
first call, widened to where every check it proved holds, and runs the calls whose index
stays inside that range with it; a call that leaves it runs a program that assumes nothing. Oracle: NumPy's Python loop (values, and the ``IndexError`` with the state
it leaves).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hlo
import jaxtensor as jt
from loop_ports import PROGRAMS
from measure import count_compiles

pytestmark = pytest.mark.filterwarnings("ignore::jaxtensor.RecompileWarning")


def _index(i, a, c, m, s):
    """``(a * i + c) % m - s`` (``m`` None: no modulo): Python's and jaxtensor's alike."""
    v = a * i + c
    return (v if m is None else v % m) - s


def _numpy_loop(n, bounds, a, c, m, s, inner):
    x = np.zeros((n, n), np.int64)
    err = None
    try:
        for i in range(*bounds):
            if inner is None:
                x[_index(i, a, c, m, s), 0] = i + 1
            else:
                for j in range(i + inner[0], inner[1]):
                    x[_index(i, a, c, m, s), j - inner[2]] += j + 1
    except IndexError as e:
        err = e
    return x, err


def _jt_loop(x, bounds, a, c, m, s, inner):
    def body(i):
        if inner is None:
            x[_index(i, a, c, m, s), 0] = i + 1
        else:
            def row(j):
                x[_index(i, a, c, m, s), j - inner[2]] += j + 1
            jt.fori_loop(i + inner[0], inner[1], row)
    jt.fori_loop(bounds[0], bounds[1], body)


def _run(n, bounds, a, c, m, s, inner, compiled):
    x = jt.zeros((n, n), dtype=jt.int64)
    err = None
    try:
        if compiled:
            jt.jit(lambda x: _jt_loop(x, bounds, a, c, m, s, inner))(x)
        else:
            _jt_loop(x, bounds, a, c, m, s, inner)
    except IndexError as e:
        err = e
    return np.asarray(x), err


def _same(n, bounds, a, c, m, s, inner, compiled):
    want, want_err = _numpy_loop(n, bounds, a, c, m, s, inner)
    got, got_err = _run(n, bounds, a, c, m, s, inner, compiled)
    np.testing.assert_array_equal(got, want)
    assert (got_err is None) == (want_err is None), (want_err, got_err)


loops = st.tuples(st.integers(-3, 6), st.integers(-3, 9))
inners = st.none() | st.tuples(st.integers(-2, 3), st.integers(0, 8), st.integers(-2, 3))
expr = st.tuples(st.sampled_from([1, -1, 2, -2, 3]), st.integers(-9, 9),
                 st.sampled_from([None, None, 3, 6, 7, -4]), st.integers(-8, 8))


@settings(max_examples=25, deadline=None)
@given(n=st.integers(3, 7), first=loops, then=st.lists(loops, min_size=1, max_size=3),
       e=expr, inner=inners)
def test_eager_loops_against_numpy_as_their_bounds_change(n, first, then, e, inner):
    """The first call fixes the range its program assumes; later calls inside it reuse the
    program, calls outside it run one that assumes nothing: every call as NumPy's loop."""
    for bounds in [first, *then]:
        _same(n, bounds, *e, inner, compiled=False)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(3, 7), bounds=loops, e=expr, inner=inners)
def test_loops_in_jit_against_numpy(n, bounds, e, inner):
    _same(n, bounds, *e, inner, compiled=True)


def test_a_call_whose_index_leaves_the_first_range_is_checked():
    x = jt.zeros(6)

    def body(i):
        x[i] = x[i] + i

    jt.fori_loop(1, 6, body)  # (index 1..5: x[i] cannot fail)
    assert count_compiles(lambda: jt.fori_loop(2, 4, body)) == 0  # (inside: same program)
    with pytest.raises(IndexError):
        jt.fori_loop(3, 8, body)  # (outside: i = 6 fails, after i = 3, 4, 5 ran)
    # (x as the failed call left it, in a buffer of its own: reading x itself, or a copy
    # of it, which shares x's buffer, would keep the next call from donating x's)
    y = x + 0

    def again():
        jt.fori_loop(1, 6, body)  # (back inside)
        jt.fori_loop(5, 5, body)  # (no iteration: any program)

    assert count_compiles(again) == 0
    np.testing.assert_array_equal(np.asarray(y), [0, 1, 4, 9, 8, 10])
    np.testing.assert_array_equal(np.asarray(x), [0, 2, 6, 12, 12, 15])


def _body_sizes(f, *args):
    return hlo.loop_kernels(f.lower(*args).compile().as_text())


@pytest.mark.parametrize("name", ["cholesky", "lcs", "thomas"])
def test_checks_that_cannot_fail_cost_nothing(name):
    """The ports whose every index is a loop index plus a constant (or a bound of an outer
    loop's index): their checked loops compile to the unchecked loops' bodies."""
    p = PROGRAMS[name]
    inputs = p.make_inputs(np.random.default_rng(0), p.sizes["test"])
    checked = _body_sizes(jt.jit(p.port), *p.port_args(inputs))
    unchecked = _body_sizes(jt.jit(p.port, check_bounds=False), *p.port_args(inputs))
    assert checked and checked == unchecked, (checked, unchecked)


def test_a_check_that_can_fail_is_still_made_in_the_same_program():
    """The control: an index read from data keeps its check (and its cost)."""
    def port(x, idx):
        def body(i):
            x[idx[i]] = i
        jt.fori_loop(0, 4, body)

    args = (jt.zeros(4), jt.asarray([0, 1, 2, 3]))
    checked = _body_sizes(jt.jit(port), *args)
    unchecked = _body_sizes(jt.jit(port, check_bounds=False), *args)
    assert sum(checked) > sum(unchecked), (checked, unchecked)


def test_the_range_is_per_argument_shape():
    """One body code over Tensors of two sizes: what the checks of one size proved says
    nothing of the other's."""
    def run(x, lo, hi):
        def body(i):
            x[i] = i + 1
        jt.fori_loop(lo, hi, body)

    big = jt.zeros(10)
    run(big, 0, 10)  # (x[i] cannot fail for i in 0..9 on 10 elements)
    small = jt.zeros(5)
    with pytest.raises(IndexError):
        run(small, 0, 10)
    np.testing.assert_array_equal(np.asarray(small), [1, 2, 3, 4, 5])
    np.testing.assert_array_equal(np.asarray(big), np.arange(1, 11))


def test_a_range_widens_to_where_its_proofs_hold():
    """The first call runs 1..9; its proofs (x[i - 1], x[i] on 2000 elements) hold for
    -1999..1999, so every trip count up to 2000 runs the same program, and a call past
    either end is checked."""
    x = jt.ones(2000)

    def body(i):
        x[i] = x[i - 1] * 0.5 + x[i]

    jt.fori_loop(1, 10, body)
    assert count_compiles(lambda: [jt.fori_loop(1, hi, body) for hi in (100, 2000, 5)]) == 0
    with pytest.raises(IndexError):
        jt.fori_loop(1, 2001, body)
    jt.fori_loop(0, 3, body)  # (x[-1] is x[1999], as in NumPy)
    with pytest.raises(IndexError):
        jt.fori_loop(-2000, -1998, body)  # (x[-2001])


_CMPS = {"lt": lambda a, b: a < b, "ge": lambda a, b: a >= b, "ne": lambda a, b: a != b}


def _cond_loop(x, n, bounds, op, k, o1, o2, xp):
    """``for i in range(*bounds): x[i + o1] += 1 if i op k else x[i + o2] += 2``, as the
    Python loop (``xp`` None) or the port (``jt.cond``)."""
    if xp is None:
        for i in range(*bounds):
            if _CMPS[op](i, k):
                x[i + o1] += 1
            else:
                x[i + o2] += 2
        return x

    def body(i):
        def yes():
            x[i + o1] += 1

        def no():
            x[i + o2] += 2
        jt.cond(_CMPS[op](i, k), yes, no)
    jt.fori_loop(bounds[0], bounds[1], body)
    return x


@settings(max_examples=25, deadline=None)
@given(n=st.integers(3, 7), bounds=loops, op=st.sampled_from(sorted(_CMPS)),
       k=st.integers(-3, 9), o1=st.integers(-9, 3), o2=st.integers(-9, 3),
       compiled=st.booleans())
def test_checks_under_a_cond_use_its_predicate(n, bounds, op, k, o1, o2, compiled):
    """A check in a ``cond`` branch is made only where the branch runs, so the predicate
    holds there (``x[i + 1]`` under ``i < n - 1``): against NumPy's loop, incl. the
    ``IndexError`` and the state it leaves."""
    want = np.zeros(n, np.int64)
    want_err = None
    try:
        _cond_loop(want, n, bounds, op, k, o1, o2, None)
    except IndexError as e:
        want_err = e
    got = jt.zeros(n, dtype=jt.int64)

    def run(x):
        return _cond_loop(x, n, bounds, op, k, o1, o2, jt)
    got_err = None
    try:
        (jt.jit(run) if compiled else run)(got)
    except IndexError as e:
        got_err = e
    np.testing.assert_array_equal(np.asarray(got), want)
    assert (got_err is None) == (want_err is None), (want_err, got_err)


def test_a_check_a_cond_predicate_proves_costs_nothing():
    def port(x, y):
        n = x.shape[0]

        def body(i):
            def inside():
                y[i] = x[i + 1] + x[i]

            def edge():
                y[i] = x[i]
            jt.cond(i < n - 1, inside, edge)
        jt.fori_loop(0, n, body)
        return y

    args = (jt.arange(10.0), jt.zeros(10))
    checked = _body_sizes(jt.jit(port), *args)
    unchecked = _body_sizes(jt.jit(port, check_bounds=False), *args)
    assert checked == unchecked, (checked, unchecked)
    np.testing.assert_array_equal(np.asarray(jt.jit(port)(*args)),
                                  [1, 3, 5, 7, 9, 11, 13, 15, 17, 9])


def _neighbour_loop(y, pos, d, lo, hi, o, xp):
    """``for i: p = pos[i] + d; if lo <= p < hi: y[p + o] += 1``: an index read from data,
    tested with Tensor operations (each a ``jit`` of its own) before the branch."""
    if xp is None:
        for i in range(len(pos)):
            p = pos[i] + d
            if (p >= lo) & (p < hi):
                y[p + o] += 1
        return y

    def body(i):
        p = pos[i] + d

        def inside():
            y[p + o] += 1
        jt.cond((p >= lo) & (p < hi), inside, lambda: None)
    jt.fori_loop(0, pos.shape[0], body)
    return y


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 6), pos=st.lists(st.integers(-8, 8), min_size=1, max_size=6),
       d=st.integers(-2, 2), lo=st.integers(-9, 2), hi=st.integers(0, 9),
       o=st.integers(-2, 2))
def test_a_bounds_test_of_a_value_read_from_data_proves_its_branch(n, pos, d, lo, hi, o):
    want = np.zeros(n, np.int64)
    want_err = got_err = None
    try:
        _neighbour_loop(want, np.asarray(pos), d, lo, hi, o, None)
    except IndexError as e:
        want_err = e
    got = jt.zeros(n, dtype=jt.int64)
    try:
        jt.jit(lambda y, p: _neighbour_loop(y, p, d, lo, hi, o, jt))(got, jt.asarray(pos))
    except IndexError as e:
        got_err = e
    np.testing.assert_array_equal(np.asarray(got), want)
    assert (got_err is None) == (want_err is None), (want_err, got_err)


def test_a_neighbour_under_its_bounds_test_costs_nothing():
    """``y[p]`` under ``(p >= 0) & (p < n)``, ``p`` read from data (flood fill's neighbour
    reads): the checked loop compiles to the unchecked one."""
    def port(y, pos):
        return _neighbour_loop(y, pos, 1, 0, 5, 0, jt)

    # (short and long: a value read from more than 16 elements is computed once, before the
    # branch, ``_unfused.py``)
    for pos in ([0, 3, 4, -1, 9], [0, 3, 4, -1, 9] * 4):
        args = (jt.zeros(5, dtype=jt.int64), jt.asarray(pos))
        checked = _body_sizes(jt.jit(port), *args)
        unchecked = _body_sizes(jt.jit(port, check_bounds=False), *args)
        assert checked == unchecked, (len(pos), checked, unchecked)
        np.testing.assert_array_equal(np.asarray(jt.jit(port)(*args)),
                                      np.array([1, 1, 0, 0, 1]) * (len(pos) // 5))


def _rmw_loop(x, idx, o1, o2, t, xp):
    """``for i: k = idx[i]; x[k] += 1; if x[k + o1] > t: x[k + o2] = x[k] * 2``: indices read
    from data, checked once each (a check of an index checked before cannot fail unless
    that one did)."""
    if xp is None:
        for i in range(len(idx)):
            k = idx[i]
            x[k] += 1
            if x[k + o1] > t:
                x[k + o2] = x[k] * 2
        return x

    def body(i):
        k = idx[i]
        x[k] += 1

        def more():
            x[k + o2] = x[k] * 2
        jt.cond(x[k + o1] > t, more, lambda: None)
    jt.fori_loop(0, idx.shape[0], body)
    return x


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 6), idx=st.lists(st.integers(-8, 8), min_size=1, max_size=6),
       o1=st.integers(-2, 2), o2=st.integers(-2, 2), t=st.integers(-1, 3),
       compiled=st.booleans())
def test_an_index_checked_once_against_numpy(n, idx, o1, o2, t, compiled):
    """Every failure where NumPy's loop raises, with the state it leaves: the second check
    of an index (``x[k] += 1`` reads and writes ``x[k]``) is not made, the first still is."""
    want = np.arange(n, dtype=np.int64)
    want_err = got_err = None
    try:
        _rmw_loop(want, np.asarray(idx), o1, o2, t, None)
    except IndexError as e:
        want_err = e
    got = jt.arange(n, dtype=jt.int64)

    def run(x, k):
        return _rmw_loop(x, k, o1, o2, t, jt)
    try:
        (jt.jit(run) if compiled else run)(got, jt.asarray(idx))
    except IndexError as e:
        got_err = e
    np.testing.assert_array_equal(np.asarray(got), want)
    assert (got_err is None) == (want_err is None), (want_err, got_err)
    if want_err is not None:
        assert str(got_err) == str(want_err), (want_err, got_err)
