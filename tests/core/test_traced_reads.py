"""A view read inside a trace at Python-int offsets is a static slice: the program has no
dynamic slice, no optimization barrier and no input for the offsets (a device array of them
was a constant input of every program that read a view, 24 of them in an RK4 step's loop),
and its value is NumPy's, for every kind of basic index."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxtensor as jt
from jaxprs import jaxprs as _jaxprs
from jaxprs import primitives as _primitives

SHAPE = (5, 6, 4)


def _basic_index(draw: st.DrawFn) -> tuple:
    """A basic index of ``SHAPE``: per axis an int (either sign), a slice (any step, either
    sign, bounds past the ends) or a new axis; sometimes a trailing ellipsis."""
    out: list = []
    for n in SHAPE[: draw(st.integers(1, 3))]:
        kind = draw(st.sampled_from(["int", "slice", "newaxis"]))
        if kind == "int":
            out.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            step = draw(st.sampled_from([None, 1, 2, 3, -1, -2]))
            out.append(slice(draw(st.none() | st.integers(-n - 2, n + 2)),
                             draw(st.none() | st.integers(-n - 2, n + 2)), step))
        else:
            out.extend([None, slice(None)])
    if draw(st.booleans()):
        out.append(Ellipsis)
    return tuple(out)


basic_indices = st.composite(_basic_index)


@settings(max_examples=60, deadline=None)
@given(idx=basic_indices())
def test_a_traced_read_at_python_int_offsets_is_a_static_slice(idx):
    x_np = np.arange(np.prod(SHAPE), dtype=np.float64).reshape(SHAPE)
    want = x_np[idx]

    def f(a):
        return jt.asarray(a)[idx].to_jax()

    closed = jax.make_jaxpr(f)(x_np)
    assert not closed.consts and len(closed.jaxpr.invars) == 1, closed
    names = _primitives(closed)
    assert "dynamic_slice" not in names and "optimization_barrier" not in names, closed
    np.testing.assert_array_equal(np.asarray(jax.jit(f)(x_np)), want)
    np.testing.assert_array_equal(np.asarray(jt.jit(lambda t: t[idx])(jt.asarray(x_np))), want)


@pytest.mark.parametrize("k", [0, 1, -1])
def test_element_reads_in_a_loop_body_add_no_program_inputs(k):
    """``t[0]``, ``t[1]``, ``t[-1]`` read in a ``fori_loop`` body (as the RK4 step's
    right-hand side reads ``y[0]``, ``y[1]``) and one element written: the loop's only
    integer input and only dynamic slice are the write's (its offsets stay hidden from XLA's
    constant folding: docs/measurements.md), the reads are static slices; the result NumPy's."""
    y_np = np.array([1.5, -0.5, 2.0])

    def body(t):
        def step(i):
            t[k] = t[0] * 0.5 + t[1] - t[-1] * 0.25
        return step

    def run(y):
        t = jt.asarray(y, copy=True)
        jt.fori_loop(0, 4, body(t))
        return t.to_jax()

    closed = jax.make_jaxpr(run)(y_np)
    names = _primitives(closed)
    assert names["dynamic_slice"] == 1 and names["dynamic_update_slice"] == 1, closed
    assert names["slice"] == 3, closed
    int_inputs = [v for j in _jaxprs(closed) for v in j.constvars
                  if np.dtype(v.aval.dtype).kind in "iu"]
    int_inputs += [v for v in closed.jaxpr.invars if np.dtype(v.aval.dtype).kind in "iu"]
    assert len(int_inputs) == 1, closed
    want = y_np.copy()
    for _ in range(4):
        want[k] = want[0] * 0.5 + want[1] - want[-1] * 0.25
    np.testing.assert_allclose(np.asarray(jax.jit(run)(y_np)), want)
    got = jt.asarray(y_np, copy=True)
    jt.fori_loop(0, 4, body(got))  # (eagerly: the loop compiled at the top level)
    np.testing.assert_allclose(np.asarray(got), want)
