"""The cost of a small ``jaxtensor.jit`` call against ``jax.jit`` of the same function, with
and without static arguments: what a repeat call pays over the program it runs.

The function is ``y * dt + t[0]`` of a 4-element and a 2-element float64 value and a number;
the static variants mark an int (and a float) argument static on both sides. Best µs per
call of alternating rounds of 1000 calls (``_common.interleaved``), the result waited for;
one core.

    taskset -c 1 python benchmarks/bench_jit_call.py
"""

from __future__ import annotations

import _common  # noqa: F401  (one core, before jax)
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

import jaxtensor as jt  # noqa: E402


def plain(t, y, dt):
    return y * dt + t[0]


def with_int(t, y, dt, n):
    return y * (dt * n) + t[0]


def with_float(t, y, dt, n, s):
    return y * (dt * n * s) + t[0]


def main() -> None:
    t, y = jt.ones(4), jt.ones(2)
    jt_, jy = jnp.ones(4), jnp.ones(2)
    cases = {
        "no static argument": (jt.jit(plain), jax.jit(plain), ()),
        "a static int": (jt.jit(with_int, static_argnums=3),
                         jax.jit(with_int, static_argnums=3), (3,)),
        "a static int and float": (jt.jit(with_float, static_argnums=(3, 4)),
                                   jax.jit(with_float, static_argnums=(3, 4)), (3, 0.5)),
    }
    print("| call | jaxtensor.jit (µs) | jax.jit (µs) | ratio |")
    print("| --- | ---: | ---: | ---: |")
    for name, (f, g, extra) in cases.items():
        a, b = _common.interleaved(lambda f=f, extra=extra: f(t, y, 0.1, *extra)._value()
                                   .block_until_ready(),
                                   lambda g=g, extra=extra: g(jt_, jy, 0.1, *extra)
                                   .block_until_ready())
        print(f"| {name} | {a:.1f} | {b:.1f} | {a / b:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
