"""Checks on a ``while_loop``'s integer carry that cannot fail are not made; every other
check still is.

A ``while_loop`` body is traced assuming where its integer carries lie (where they start,
where ``cond_fun`` holds of them); when the trace ends the assumption is proved invariant,
or the loop is traced again assuming one found by iterating the body, or nothing
(docs/loops.md, "Checks that cannot fail"). Oracle: NumPy's Python loop, with the
condition evaluated as the port writes it (both sides of ``&``): values, and the
``IndexError`` with the state it leaves.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hlo
import jaxtensor as jt
from loop_ports import PROGRAMS
from while_programs import program, programs, run, x0

pytestmark = pytest.mark.filterwarnings("ignore::jaxtensor.RecompileWarning")


def _same(n, prog, compiled):
    want_x = x0(n)
    want = run(program(n, *prog, None), want_x)
    got_x = jt.asarray(x0(n))
    port = program(n, *prog, jt)
    got = run(jt.jit(port) if compiled else port, got_x)
    assert (got is None) == (want is None), (want, got)
    np.testing.assert_array_equal(np.asarray(got_x), want_x)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(3, 8), prog=programs)
def test_while_loops_in_jit_against_numpy(n, prog):
    _same(n, prog, compiled=True)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(3, 8), prog=programs)
def test_eager_while_loops_against_numpy(n, prog):
    _same(n, prog, compiled=False)


def _body_sizes(f, *args):
    return hlo.loop_kernels(f.lower(*args).compile().as_text())


def test_insertion_sort_checks_cost_nothing():
    """Every index of the insertion sort is a fori index or a while carry counting down
    to the bound its condition checks: its checked loops compile to the unchecked ones."""
    p = PROGRAMS["insertion_sort"]
    inputs = p.make_inputs(np.random.default_rng(0), p.sizes["test"])
    checked = _body_sizes(jt.jit(p.port), *p.port_args(inputs))
    unchecked = _body_sizes(jt.jit(p.port, check_bounds=False), *p.port_args(inputs))
    assert checked and checked == unchecked, (checked, unchecked)


def _count_up(x, n, traces):
    """A carry counting up to the bound its condition checks (not where it starts: proved
    by the body's second trace)."""
    def body(j):
        traces.append(j)
        x[j] += j
        return j + 1
    j = jt.while_loop(lambda j: j < n, body, 0)
    x[j - 1] += 1
    return x


def test_a_carry_counting_up_is_proved_by_a_second_trace():
    x = jt.zeros(6, dtype=jt.int64)
    traces: list = []
    checked = _body_sizes(jt.jit(lambda x, n: _count_up(x, n, traces), static_argnums=1),
                          x, 6)
    assert len(traces) == 2, traces
    unchecked = _body_sizes(jt.jit(lambda x, n: _count_up(x, n, []), static_argnums=1,
                                   check_bounds=False), x, 6)
    assert checked == unchecked, (checked, unchecked)
    jt.jit(lambda x, n: _count_up(x, n, []), static_argnums=1)(x, 6)
    np.testing.assert_array_equal(np.asarray(x), [0, 1, 2, 3, 4, 6])


def test_a_carry_read_from_data_keeps_its_check():
    """The control: a carry that follows pointers in the data keeps its checks."""
    def port(nxt, x):
        def body(j):
            x[j] += 1
            return nxt[j]
        jt.while_loop(lambda j: j >= 0, body, 0)
        return x

    args = (jt.asarray([2, 5, 1]), jt.zeros(3, dtype=jt.int64))
    checked = _body_sizes(jt.jit(port), *args)
    unchecked = _body_sizes(jt.jit(port, check_bounds=False), *args)
    assert sum(checked) > sum(unchecked), (checked, unchecked)
    with pytest.raises(IndexError):
        jt.jit(port)(*args)
