"""``jt.cond`` writing one element per iteration of a 1,000-step loop, on Tensors of 10^3 and
10^5 elements: microseconds per iteration of ``jaxtensor.jit`` (checks off and on) against a
hand-written ``jax.jit`` + ``lax.fori_loop`` that selects the value under the condition and
writes once (its buffer donated), and a hand-written ``lax.cond`` returning the whole buffer.

Both branches write (the LCS table's cell: ``L[i, j] = ...`` in each branch), so a
conditional returning the buffer costs a copy of it per iteration on XLA:CPU; the written
value costs the same at both sizes.

Run (one core; candidates interleaved, best of rounds)::

    taskset -c 1 python benchmarks/bench_cond_writes.py
"""

from __future__ import annotations

import time

import _common  # noqa: F401  (one core: before jax)
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import jaxtensor as jt

STEPS = 1000
A = np.array([0.1, 0.9, 0.7, 0.2, 0.6], np.float32)


def port(n: int):
    def f(x, a):
        def body(i):
            j = i % n

            def match():
                x[j] = x[j - 1] + 1.0

            def differ():
                x[j] = jt.maximum(x[j], x[(j + 1) % n])
            jt.cond(a[i % 5] > 0.5, match, differ)
        jt.fori_loop(0, STEPS, body)
    return f


def select_then_write(n: int):
    def f(x, a):
        def body(i, x):
            j = i % n
            v = jnp.where(a[i % 5] > 0.5, x[j - 1] + 1.0, jnp.maximum(x[j], x[(j + 1) % n]))
            return x.at[j].set(v)
        return lax.fori_loop(0, STEPS, body, x)
    return jax.jit(f, donate_argnums=0)


def whole_buffer_cond(n: int):
    def f(x, a):
        def body(i, x):
            j = i % n
            return lax.cond(a[i % 5] > 0.5, lambda x: x.at[j].set(x[j - 1] + 1.0),
                            lambda x: x.at[j].set(jnp.maximum(x[j], x[(j + 1) % n])), x)
        return lax.fori_loop(0, STEPS, body, x)
    return jax.jit(f, donate_argnums=0)


def main() -> None:
    rounds = 7
    print(f"{'n':>7} {'candidate':<34} {'us/iter':>9}")
    for n in (1_000, 100_000):
        a_t, a_j = jt.asarray(A), jnp.asarray(A)
        cands = {}
        for label, checks in (("jaxtensor jit, checks off", False),
                              ("jaxtensor jit, checks on", True)):
            f = jt.jit(port(n), check_bounds=checks)
            x = jt.zeros(n)
            cands[label] = (lambda f=f, x=x, a=a_t: (f(x, a), x[0].item()))
        for label, make in (("lax select-then-write", select_then_write),
                            ("lax.cond of the whole buffer", whole_buffer_cond)):
            g = make(n)
            state = [jnp.zeros(n)]

            def run(g=g, state=state, a=a_j):
                state[0] = g(state[0], a)
                state[0].block_until_ready()
            cands[label] = run
        best = {k: np.inf for k in cands}
        for fn in cands.values():
            fn()
        for _ in range(rounds):
            for k, fn in cands.items():
                t = time.perf_counter()
                fn()
                best[k] = min(best[k], time.perf_counter() - t)
        for k, v in best.items():
            print(f"{n:>7} {k:<34} {v / STEPS * 1e6:>9.3f}", flush=True)


if __name__ == "__main__":
    main()
