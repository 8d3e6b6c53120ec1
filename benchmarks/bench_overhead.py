"""Per-operation overhead of jaxtensor against the raw eager ``jax.numpy`` call beneath it.

Run: ``python benchmarks/bench_overhead.py`` (single-threaded). The two systems are timed in
alternating rounds of 1000 calls and the best round of each is kept, so background load
affects both alike; the ratio is what the issue's "≤ 1.0× raw eager jnp" target reads.
"""

from __future__ import annotations

import _common  # single-threaded XLA: imported before jax
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

import jaxtensor as jt  # noqa: E402

block = jax.block_until_ready
interleaved = _common.interleaved


def main() -> None:
    a, b = jt.ones(10, dtype=jt.float32), jt.ones(10, dtype=jt.float32)
    ja, jb = jnp.ones(10, jnp.float32), jnp.ones(10, jnp.float32)
    y = jt.reshape(jt.arange(100.0, dtype=jt.float32), (10, 10))
    jy = jnp.arange(100.0, dtype=jnp.float32).reshape(10, 10)
    cases = {
        "a + b (10 elements)": (lambda: block((a + b)._value()), lambda: block(ja + jb)),
        "a * 2.0 (10 elements)": (lambda: block((a * 2.0)._value()), lambda: block(ja * 2.0)),
        "jt.sum(x) (10 elements)": (lambda: block(jt.sum(a)._value()),
                                    lambda: block(jnp.sum(ja))),
        "x.sum() (10 elements)": (lambda: block(a.sum()._value()), lambda: block(ja.sum())),
        "x[1:5, 2] (view creation vs eager slice)": (lambda: y[1:5, 2], lambda: jy[1:5, 2]),
        "x[1:5, 2] read": (lambda: block(y[1:5, 2]._value()), lambda: block(jy[1:5, 2])),
    }
    print("| operation | jaxtensor µs | raw eager jnp µs | ratio |")
    print("|---|---|---|---|")
    for name, (f, g) in cases.items():
        tf, tg = interleaved(f, g)
        print(f"| {name} | {tf:.2f} | {tg:.2f} | {tf / tg:.2f}× |")
    print(f"\nJAX {jax.__version__}; command: python benchmarks/bench_overhead.py")


if __name__ == "__main__":
    main()
