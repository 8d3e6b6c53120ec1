"""Bounds checks of a ``jaxtensor.jit`` function called inside loop bodies and other
``jaxtensor.jit`` functions: every call that goes out of bounds raises the eager IndexError,
whatever ran before (a nested program traced for one enclosing trace is never reused by
another without its checks)."""

from __future__ import annotations

import numpy as np
import pytest

import jaxtensor as jt


@jt.jit
def _put(h, j):
    h[j] = 1.0


@pytest.mark.parametrize("ks", [(0, 2), (2, 2), (1, 0, 2), (0, 1, 2)])
@pytest.mark.parametrize("way", ["eager", "jit"])
def test_a_jit_helper_in_a_loop_body_checks_on_every_call(ks, way):
    """A ``jaxtensor.jit`` function called in a loop body whose closed-over offset changes
    between calls (each offset a new compiled loop) raises the eager IndexError on every
    call that goes out of bounds, whatever ran before (its nested program, traced once for
    an earlier enclosing trace, was reused without its checks)."""
    def run(k):
        h = jt.zeros(4)
        jt.fori_loop(0, 3, lambda i: _put(h, i + k))
        return h

    f = run if way == "eager" else (lambda k: jt.jit(run, static_argnums=0)(k))
    for k in ks:
        want = np.zeros(4)
        try:
            for i in range(3):
                want[i + k] = 1.0
        except IndexError:
            with pytest.raises(IndexError, match="index 4 is out of bounds"):
                f(k)
        else:
            np.testing.assert_array_equal(np.asarray(f(k)), want)
