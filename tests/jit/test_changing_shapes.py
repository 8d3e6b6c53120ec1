"""Eager code over changing shapes compiles at most one program per operation per new
shape, as eager ``jax.numpy`` does (it compiles more: five per length for the step below),
and nothing for a shape met before. The knapsack step ``dp[w:] = maximum(dp[w:], dp[:-w] +
v)`` has four operations (the two slices share one reader); NumPy is the oracle for the
values. Compilations are counted with JAX's backend-compile event."""

from __future__ import annotations

import numpy as np

import jaxtensor as jt
from measure import count_compiles


def test_knapsack_compiles_one_program_per_operation_per_new_length() -> None:
    cap = 23
    dp, ref = jt.zeros(cap + 1, jt.float64), np.zeros(cap + 1)

    def step(w: int, v: float) -> None:
        dp[w:] = jt.maximum(dp[w:], dp[:-w] + v)
        ref[w:] = np.maximum(ref[w:], ref[:-w] + v)

    step(1, 1.0)  # (one-off conversions of the first call)
    new = [count_compiles(lambda w=w: step(w, float(w % 5 + 1))) for w in (3, 5, 7, 9)]
    assert max(new) <= 4, new  # read, add, maximum, write
    again = [count_compiles(lambda w=w: step(w, 2.5)) for w in (3, 5, 7, 9)]
    assert again == [0, 0, 0, 0]
    np.testing.assert_array_equal(dp.numpy(), ref)
