"""Top-level loop overhead (issue 28, item 4): an eager ``jt.fori_loop`` call against the
same loop inside a ``jaxtensor.jit`` function and a donated ``jax.jit`` + ``lax.fori_loop``,
at three amounts of loop work (the iterations of the ``lax`` version take about 0.01, 0.1
and 1 ms per call).

The loop is the recurrence ``x[i] = x[i - 1] * 0.5 + x[i]`` over a float32 Tensor; the trip
count is calibrated on the ``lax`` loop (its time per iteration). Candidates:

* ``top (same body)``: ``jt.fori_loop(1, n + 1, step)``, ``step`` made once;
* ``top (fresh closure)``: ``jt.fori_loop(1, n + 1, make(x))``, a new closure per call (the
  way a loop is usually written inside a function);
* ``in jt.jit``: ``jt.jit(lambda x, n: jt.fori_loop(1, n + 1, make(x)))(x, n)``;
* ``lax``: ``jax.jit(lambda x, n: lax.fori_loop(...), donate_argnums=0)``;
* ``top while_loop`` and ``while_loop in jt.jit``: the same recurrence as a
  ``jt.while_loop`` over a counter Tensor (set to 1 before each call), at the top level and
  inside ``jt.jit``.

Ratios are to the same loop inside ``jt.jit`` (the ``fori_loop`` one; the ``while_loop``
one for the top-level ``while_loop``).

Each round calls every candidate ``--calls`` times in random order (one process, one core),
so background load hits all alike; the table gives µs per call (best round), the ratio of
the best rounds and the median of the per-round ratios. ``--profile`` prints the Python
function calls of one repeat top-level call (``sys.setprofile``) and a cProfile of many.

Run::

    taskset -c 1 python benchmarks/bench_toplevel_loop.py            # prints the table
    taskset -c 1 python benchmarks/bench_toplevel_loop.py --profile  # and the profiles
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from collections.abc import Callable

import _common  # noqa: F401  (one core; imported before jax)
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import jaxtensor as jt

sys.path.insert(0, str(_common.ROOT / "tests"))
from measure import python_calls  # noqa: E402  (tests/measure.py)

WORK_US = (10.0, 100.0, 1000.0)


def make(x: jt.Tensor) -> Callable:
    def step(i: int) -> None:
        x[i] = x[i - 1] * 0.5 + x[i]
    return step


def make_while(x: jt.Tensor, k: jt.Tensor, n: int) -> tuple[Callable, Callable]:
    def more() -> jt.Tensor:
        return k[0] <= n

    def step() -> None:
        i = k[0]
        x[i] = x[i - 1] * 0.5 + x[i]
        k[0] += 1
    return more, step


def _lax_impl(x: jax.Array, n: jax.Array) -> jax.Array:
    return lax.fori_loop(1, n + 1, lambda i, x: x.at[i].set(x[i - 1] * 0.5 + x[i]), x)


lax_loop = jax.jit(_lax_impl, donate_argnums=0)
jit_loop = jt.jit(lambda x, n: jt.fori_loop(1, n + 1, make(x)))
jit_while = jt.jit(lambda x, k, n: jt.while_loop(*make_while(x, k, n)))


def candidates(n: int) -> dict[str, Callable[[], object]]:
    xs = {k: jt.ones(n + 1, dtype=jt.float32) for k in ("top", "fresh", "jit", "tw", "jw")}
    ks = {k: jt.ones(1, dtype=jt.int64) for k in ("tw", "jw")}
    state = [jnp.ones(n + 1, jnp.float32)]
    step = make(xs["top"])

    def top() -> None:
        jt.fori_loop(1, n + 1, step)
        xs["top"]._storage.array.block_until_ready()

    def fresh() -> None:
        jt.fori_loop(1, n + 1, make(xs["fresh"]))
        xs["fresh"]._storage.array.block_until_ready()

    def in_jit() -> None:
        jit_loop(xs["jit"], n)
        xs["jit"]._storage.array.block_until_ready()

    def lax_() -> None:
        state.append(lax_loop(state.pop(), n).block_until_ready())

    def top_while() -> None:
        ks["tw"][0] = 1
        jt.while_loop(*make_while(xs["tw"], ks["tw"], n))
        xs["tw"]._storage.array.block_until_ready()

    def while_in_jit() -> None:
        ks["jw"][0] = 1
        jit_while(xs["jw"], ks["jw"], n)
        xs["jw"]._storage.array.block_until_ready()

    return {"top (same body)": top, "top (fresh closure)": fresh, "in jt.jit": in_jit,
            "lax": lax_, "top while_loop": top_while, "while_loop in jt.jit": while_in_jit}


REF = {"top while_loop": "while_loop in jt.jit", "while_loop in jt.jit": "while_loop in jt.jit"}


def calibrate(target_us: float) -> int:
    """A trip count at which the ``lax`` loop's iterations take about ``target_us`` per call
    (beyond the call of a one-iteration loop)."""
    x = jnp.ones(100_001, jnp.float32)

    def per_call(n: int) -> float:
        nonlocal x
        x = lax_loop(x, n).block_until_ready()
        best = float("inf")
        for _ in range(50):
            t0 = time.perf_counter()
            x = lax_loop(x, n).block_until_ready()
            best = min(best, time.perf_counter() - t0)
        return best * 1e6

    base = per_call(1)
    per_iter = (per_call(20_000) - base) / 20_000
    return max(1, int(target_us / per_iter))


def measure(n: int, rounds: int, calls: int) -> dict[str, tuple[float, float, float]]:
    cands = candidates(n)
    for f in cands.values():  # (compile, and warm the fast paths)
        f()
        f()
    times: dict[str, list[float]] = {k: [] for k in cands}
    rng = np.random.default_rng(0)
    for _ in range(rounds):
        for k in rng.permutation(list(cands)):
            f = cands[k]
            t0 = time.perf_counter()
            for _ in range(calls):
                f()
            times[k].append((time.perf_counter() - t0) / calls * 1e6)
    out = {}
    for k, v in times.items():
        ref = times[REF.get(k, "in jt.jit")]
        out[k] = (min(v), min(v) / min(ref), float(np.median([a / b for a, b in zip(v, ref)])))
    return out


def profile(n: int) -> None:
    cands = candidates(n)
    for k in ("top (same body)", "top (fresh closure)", "in jt.jit", "top while_loop",
              "while_loop in jt.jit"):
        cands[k]()
        cands[k]()
        print(f"{k}: {python_calls(cands[k])} Python calls per call")
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(2000):
        cands["top (fresh closure)"]()
    pr.disable()
    pstats.Stats(pr).sort_stats("tottime").print_stats(18)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--calls", type=int, default=None, help="calls per round (default: by size)")
    ap.add_argument("--profile", action="store_true", help="print call counts and cProfile")
    a = ap.parse_args()
    print(f"jax {jax.__version__}, backend {jax.default_backend()}, Python "
          f"{sys.version.split()[0]}; µs per call (best round), ratio to `in jt.jit` "
          "(best rounds; median of per-round ratios)")
    print("| lax work | trip count | candidate | µs per call | / same loop in jt.jit |")
    print("| ---: | ---: | --- | ---: | ---: |")
    for work in WORK_US:
        n = calibrate(work)
        calls = a.calls or max(5, int(20_000 / work))
        for k, (us, best, med) in measure(n, a.rounds, calls).items():
            print(f"| {work / 1000:g} ms | {n} | {k} | {us:.1f} | {best:.2f}x ({med:.2f}x) |",
                  flush=True)
    if a.profile:
        profile(calibrate(WORK_US[0]))


if __name__ == "__main__":
    main()
