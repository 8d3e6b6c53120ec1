"""Nested ``jt.cond``s in a loop body, writing a stack and a 0-D counter: the compiled loop
stays small.

A traced ``cond`` run without a conditional passes its predicate and the scalars its
branches close over through one integer division (``_jit/_unfused.py``), so that XLA:CPU
does not compute a scalar read from a Tensor again after a write of that Tensor. A scalar
computed from scalars only (a loop index, a bound test of a neighbour's coordinates, a value
the enclosing ``cond`` passed already, a check of a 0-D counter) reads no Tensor and passes
as it is. Flood fill (four neighbour probes, each a ``cond`` in a ``cond`` in the
``cond`` of a ``while_loop`` body) compiled to 27 kernels of 9 divisions, over XLA:CPU's
1 KiB per iteration, so its loop ran kernel by kernel (about 20x the ``lax`` version); now
XLA compiles the loop whole (``xla_cpu_small_call``); checked too, since a loop carries
its first failure in int32 words (``_jit/_body_checks.py``). The values are NumPy's.
"""

from __future__ import annotations

import re

import jax
import numpy as np
import pytest

import hlo
import jaxtensor as jt
from loop_ports import PROGRAMS, flood_fill_loop, flood_fill_numpy

cpu_only = pytest.mark.skipif(jax.default_backend() != "cpu", reason="XLA:CPU's loop runtime")


def _divisions(text: str, body: list[str]) -> int:
    """The divides in a loop body's instructions and the fusions they call (``_unfused``'s
    ``v // (odd // odd)`` is two)."""
    comps = hlo.computations(text)
    called = [m.group(1) for x in body for m in [re.search(r"calls=%?([\w.\-]+)", x)] if m]
    return sum(" divide(" in x for c in called for x in comps[c]) + sum(
        " divide(" in x for x in body)


def _text(fn, *args, check_bounds=True, static=None) -> str:
    f = jt.jit(fn, check_bounds=check_bounds, static_argnums=static)
    return f.lower(*args).compile().as_text()


@cpu_only
@pytest.mark.parametrize("n", [16, 64])
def test_flood_fill_loop_is_compiled_whole(n):
    """The flood fill's loop is compiled whole (one small kernel), checks off (of at most
    16 fused kernels; before: 27, run one by one) and on (at most 32; before: 60, then 37
    and 29 not compiled whole, its carried failure in int64), and no buffer of the image's
    or the stack's size is copied in it."""
    img, sr, sc, new = PROGRAMS["flood_fill"].make_inputs(np.random.default_rng(n), n)
    args = (jt.asarray(img), sr, sc, new)
    for check_bounds, bound in ((False, 16), (True, 32)):
        text = _text(flood_fill_loop, *args, check_bounds=check_bounds, static=(1, 2, 3))
        (body, small), = hlo.loops(text)
        kernels = hlo.kernels(body)
        assert kernels <= bound, (check_bounds, kernels)
        assert small, f"the loop is not compiled whole ({check_bounds=}, {kernels} kernels)"
        big = [c for c in hlo.copied(text) if c >= n * n]
        assert big == [], (check_bounds, big)


def _counter_loop(pred_from_tensor: bool):
    """A ``fori_loop`` whose ``cond`` pushes the index onto a stack and bumps a counter,
    its predicate read from a Tensor or computed from the index alone."""
    def f(x, stack, top):
        def body(i):
            def push():
                stack[top] = i
                top[...] += 1
            p = x[i] > 0 if pred_from_tensor else (i % 3) == 0
            jt.cond(p, push, lambda: None)
        jt.fori_loop(0, x.shape[0], body)
        return stack, top
    return f


@cpu_only
@pytest.mark.parametrize("check_bounds", [False, True])
def test_scalars_computed_from_scalars_pass_as_they_are(check_bounds):
    """A predicate and closed-over values computed from the loop index and a 0-D counter
    pass through no division (before: one per ``cond``); one read from a Tensor does
    (the control)."""
    x = np.random.default_rng(0).standard_normal(40)
    counts = []
    for from_tensor in (False, True):
        args = (jt.asarray(x), jt.zeros(41, dtype=jt.int32), jt.zeros((), dtype=jt.int32))
        text = _text(_counter_loop(from_tensor), *args, check_bounds=check_bounds)
        (body, _), = hlo.loops(text)
        counts.append(_divisions(text, body))
    assert counts[0] == 0, counts
    assert counts[1] >= 2, counts  # (the control: ``v // (odd // odd)``)


@pytest.mark.parametrize("from_tensor", [False, True])
@pytest.mark.parametrize("check_bounds", [False, True])
def test_counter_loop_values(from_tensor, check_bounds):
    x = np.random.default_rng(1).standard_normal(40)
    stack, top = jt.zeros(41, dtype=jt.int32), jt.zeros((), dtype=jt.int32)
    jt.jit(_counter_loop(from_tensor), check_bounds=check_bounds)(jt.asarray(x), stack, top)
    want = [i for i in range(40) if (x[i] > 0 if from_tensor else i % 3 == 0)]
    assert int(top) == len(want)
    np.testing.assert_array_equal(stack.numpy()[:len(want)], want)
    assert not stack.numpy()[len(want):].any()


@pytest.mark.parametrize("seed", range(6))
def test_flood_fill_values(seed):
    """Random images and seeds of 3 to 12 pixels a side: the port in ``jaxtensor.jit``
    (checks off and on) and called at the top level fills what NumPy's fills."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 13))
    img = (rng.random((n, int(rng.integers(3, 13)))) < rng.uniform(0.3, 0.8)).astype(np.int32)
    sr, sc = int(rng.integers(0, img.shape[0])), int(rng.integers(0, img.shape[1]))
    want = flood_fill_numpy(img.copy(), sr, sc, 2)
    for check_bounds in (False, True):
        got = jt.jit(flood_fill_loop, check_bounds=check_bounds, static_argnums=(1, 2, 3))(
            jt.asarray(img), sr, sc, 2)
        np.testing.assert_array_equal(np.asarray(got), want)
    got = PROGRAMS["flood_fill"].port(jt.asarray(img), sr, sc, 2)
    np.testing.assert_array_equal(np.asarray(got), want)
