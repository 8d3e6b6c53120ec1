"""``x ** e`` of a float64 Tensor of 10^6 elements, the result waited for: the exponents
NumPy computes exactly (``x ** 2`` is ``x * x``) against another (2.7, XLA's ``pow``). Best
of 7 rounds of 20 calls after 5 warm-up calls, µs per call; one core.

    taskset -c 1 python benchmarks/bench_pow.py
"""

from __future__ import annotations

import timeit

import _common  # noqa: F401  (one core, before jax)
import numpy as np  # noqa: E402

import jaxtensor as jt  # noqa: E402


def main() -> None:
    x = jt.asarray(np.random.default_rng(0).uniform(0.1, 10, 10**6))
    for e in (2, 0.5, -1, 2.7):
        def f(e: float = e) -> None:
            (x ** e).to_jax().block_until_ready()
        for _ in range(5):
            f()
        best = min(timeit.repeat(f, number=20, repeat=7)) / 20 * 1e6
        print(f"x ** {e}: {best:.1f} us")


if __name__ == "__main__":
    main()
