"""What raising a failed bounds check at the call costs, written by hand in JAX.

``bench_writes.py``'s ``checked`` row compares 32 checked scalar writes under
``jaxtensor.jit`` with ``check_bounds=False``. This script writes the same program in plain
JAX three ways, beside jaxtensor's two, in one process on one core, rounds alternating:

* ``writes``: the 32 writes, donated ``jax.jit``, waiting for each call (the floor of an
  unchecked call);
* ``+ output``: the same, also returning the first failed check's number (computed from the
  index), read on the host after each call;
* ``+ cond``: that number computed first, the writes under ``lax.cond(number == 0, ...)``
  (nothing written on failure) and the number read: what a checked call must do to raise
  at the call and leave eager code's state;
* jaxtensor checked (the default) and ``check_bounds=False``, waiting for each call.

Run::

    python benchmarks/bench_check_floor.py   # prints a table (µs per call, ratios)
    python benchmarks/bench_check_floor.py --platform gpu
"""

from __future__ import annotations

import argparse  # noqa: E402
import os  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import _common  # noqa: F401 - single-threaded XLA: imported before jax
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

import jaxtensor as jt  # noqa: E402

N, WRITES = 10**6, 32


def _writes(x: jax.Array, i: jax.Array) -> jax.Array:
    for k in range(WRITES):
        x = lax.dynamic_update_slice(x, lax.dynamic_slice(x, (i + k,), (1,)) + 1.0, (i + k,))
    return x


def _first_failure(i: jax.Array) -> jax.Array:
    code = jnp.zeros((), i.dtype)
    for k in reversed(range(WRITES)):
        code = jnp.where((i + k >= -N) & (i + k < N), code, k + 1)
    return code


def _with_output(x: jax.Array, i: jax.Array) -> tuple[jax.Array, jax.Array]:
    return _writes(x, i), _first_failure(i)


def _with_cond(x: jax.Array, i: jax.Array) -> tuple[jax.Array, jax.Array]:
    code = _first_failure(i)
    return lax.cond(code == 0, lambda x: _writes(x, i), lambda x: x, x), code


def _scalar_writes(t: jt.Tensor, i: jax.Array) -> None:
    for k in range(WRITES):
        t[i + k] = t[i + k] + 1.0


def candidates() -> dict[str, Callable[[], None]]:
    i0 = jnp.asarray(5)
    plain = jax.jit(_writes, donate_argnums=0)
    output = jax.jit(_with_output, donate_argnums=0)
    cond = jax.jit(_with_cond, donate_argnums=0)
    bufs = {k: jnp.zeros(N, jnp.float32) for k in ("writes", "output", "cond")}

    def writes() -> None:
        bufs["writes"] = plain(bufs["writes"], i0)
        bufs["writes"].block_until_ready()

    def checked_by_hand(fn: Callable, key: str) -> Callable[[], None]:
        def run() -> None:
            bufs[key], code = fn(bufs[key], i0)
            if np.asarray(code):
                raise IndexError(int(code))
        return run

    t_chk, t_unchk = jt.zeros(N, dtype=jt.float32), jt.zeros(N, dtype=jt.float32)
    chk, unchk = jt.jit(_scalar_writes), jt.jit(_scalar_writes, check_bounds=False)

    def jt_checked() -> None:
        chk(t_chk, i0)
        t_chk._storage.array.block_until_ready()  # (to_jax would stop donation)

    def jt_unchecked() -> None:
        unchk(t_unchk, i0)
        t_unchk._storage.array.block_until_ready()

    return {"writes": writes, "+ output": checked_by_hand(output, "output"),
            "+ cond": checked_by_hand(cond, "cond"), "jaxtensor checked": jt_checked,
            "jaxtensor unchecked": jt_unchecked}


def measure(rounds: int, n: int) -> dict[str, float]:
    cands = candidates()
    for f in cands.values():
        f()
    best = dict.fromkeys(cands, float("inf"))
    for _ in range(rounds):
        for name, f in cands.items():
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            best[name] = min(best[name], (time.perf_counter() - t0) / n)
    return best


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("-n", type=int, default=300)
    p.add_argument("--platform", help="JAX platform (cpu, gpu); default: JAX's default")
    a = p.parse_args()
    if a.platform:
        os.environ["JAX_PLATFORMS"] = a.platform
    best = measure(a.rounds, a.n)
    print("| program | µs per call | / writes | / jaxtensor unchecked |")
    print("| --- | ---: | ---: | ---: |")
    for name, t in best.items():
        print(f"| {name} | {t * 1e6:.1f} | {t / best['writes']:.2f}× | "
              f"{t / best['jaxtensor unchecked']:.2f}× |")


if __name__ == "__main__":
    main()
