"""Flood fill's loop (``tests/loop_ports.py``) in ``jt.jit`` checked and unchecked, the
top-level port, and the hand-written ``lax`` version, at 64 x 64 (seed 1: a large fill),
best of 15 calls, two rounds: what a checked loop costs where XLA:CPU compiles it whole,
or not.

    taskset -c 1 python benchmarks/bench_flood_fill_checks.py
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import jaxtensor as jt  # noqa: E402
from loop_ports import PROGRAMS, flood_fill_lax, flood_fill_loop  # noqa: E402

PROGRAM = PROGRAMS["flood_fill"]
IMG, SR, SC, NEW = PROGRAM.make_inputs(np.random.default_rng(1), 64)


def best(call: Callable[[], None], to: Callable) -> float:
    """The best of 15 calls of ``call`` on a fresh copy of the image (made by ``to``)."""
    out = float("inf")
    for _ in range(15):
        img = to(IMG.copy())
        t = time.perf_counter()
        np.asarray(call(img))
        out = min(out, time.perf_counter() - t)
    return out


def main() -> None:
    checked = jt.jit(flood_fill_loop, static_argnums=(1, 2, 3))
    unchecked = jt.jit(flood_fill_loop, check_bounds=False, static_argnums=(1, 2, 3))

    def run_jt(f: Callable) -> Callable:
        def call(img: jt.Tensor) -> jt.Tensor:
            f(img, SR, SC, NEW)
            return img
        return call

    for _ in range(2):
        lax_s = best(lambda img: flood_fill_lax(img, SR, SC, NEW), jnp.asarray)
        times = {"jit checked": best(run_jt(checked), jt.asarray),
                 "jit unchecked": best(run_jt(unchecked), jt.asarray),
                 "top-level port": best(run_jt(PROGRAM.port), jt.asarray)}
        print(f"lax {lax_s * 1e3:.3f} ms  " + "  ".join(
            f"{k} {v * 1e3:.3f} ms ({v / lax_s:.2f}x)" for k, v in times.items()))


if __name__ == "__main__":
    main()
