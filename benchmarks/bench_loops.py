"""Loops benchmark: the recurrence ``x[i] = x[i - 1] * 0.5 + x[i]`` as ``jaxtensor.fori_loop``
called eagerly, against a hand-written donated ``jax.jit(lax.fori_loop(...))`` and NumPy's
interpreted Python loop, and the first call's cost at two trip counts.

Everything runs single-threaded in one process; steady-state ratios are the median over
rounds of the time relative to the baseline in the same round (candidates interleaved in
random order, so they see the same machine load), with the ratio of the best rounds next to
it.

Run::

    python benchmarks/bench_loops.py           # full sizes; writes docs/benchmarks.md
                                               # (section "loops")
    python benchmarks/bench_loops.py --quick   # small sizes, prints only

Measures (the issue's targets):

* ``first call``: the first eager ``jt.fori_loop`` call (trace, compile and run) of a body
  never seen before, at ``BIG`` iterations over at 100 iterations (target ≤ 3x: trace and
  compile must not depend on the trip count, so the difference is run time), with the
  trace and compile time at each (the first call less a later call at the same count);
* ``steady state``: later calls at ``STEADY`` iterations over ``jax.jit`` of
  ``lax.fori_loop`` with ``.at[i].set``, its buffer donated (target ≤ 1.2x);
* ``vs NumPy``: NumPy's Python loop over the same recurrence at ``NUMPY`` iterations over
  the eager ``jt.fori_loop`` (target ≥ 10x);
* ``grad compile``: the first call of ``jt.grad(jt.jit(f))`` with ``f`` the recurrence
  unrolled into ``GRAD_N`` statements (a Python loop) and a sum of squares, over the first
  call of ``jax.jit(jax.grad(f_pure))`` (``.at[i].set``), each in a fresh process with no
  compilation cache (target ≤ 1.5x).
"""

from __future__ import annotations

import argparse  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import _common  # single-threaded XLA: imported before jax
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

import jaxtensor as jt  # noqa: E402

DOC = _common.DOC
BEGIN = "<!-- loops: begin (benchmarks/bench_loops.py) -->"
END = "<!-- loops: end -->"

_BODY = """
def make(x):
    def step(i):
        x[i] = x[i - 1] * 0.5 + x[i]
    return step
"""


def fresh_body() -> Callable:
    """``make(x)`` of a body with code never compiled before (a first call compiles it)."""
    ns: dict = {}
    exec(compile(_BODY, f"<recurrence {time.perf_counter_ns()}>", "exec"), ns)
    return ns["make"]


def first_call(n: int) -> tuple[float, float]:
    """Seconds of the first call at ``n`` iterations (trace, compile, run), and of the best
    of three later calls at ``n`` (run only): their difference is the trace and compile."""
    make = fresh_body()
    x = jt.ones(n + 1, dtype=jt.float32)
    times = []
    for _ in range(4):
        t0 = time.perf_counter()
        jt.fori_loop(1, n + 1, make(x))
        x._storage.array.block_until_ready()
        times.append(time.perf_counter() - t0)
    return times[0], min(times[1:])


_GRAD_PROGRAM = """
import sys, time, warnings
import jax, jax.numpy as jnp
import jaxtensor as jt
warnings.simplefilter("ignore")  # (the unrolled-loop warning)
n, which = int(sys.argv[1]), sys.argv[2]
def f_jt(x):
    for i in range(1, n):
        x[i] = x[i - 1] * 0.5 + x[i]
    return jt.sum(x * x)
def f_pure(x):
    for i in range(1, n):
        x = x.at[i].set(x[i - 1] * 0.5 + x[i])
    return jnp.sum(x * x)
x0 = jnp.linspace(0.0, 1.0, n + 1, dtype=jnp.float32)
t0 = time.perf_counter()
if which == "jax":
    jax.jit(jax.grad(f_pure))(x0).block_until_ready()
else:
    jnp.asarray(jt.grad(jt.jit(f_jt))(jt.asarray(x0))).block_until_ready()
print(time.perf_counter() - t0)
"""


def grad_compile(n: int) -> tuple[float, float]:
    """Seconds of the first call of ``jt.grad(jt.jit(f))`` and of ``jax.jit(jax.grad(f))``
    on the recurrence unrolled ``n`` times, each in a fresh process without a compilation
    cache."""
    env = dict(os.environ, JAXTENSOR_COMPILATION_CACHE="0", JAX_ENABLE_COMPILATION_CACHE="0")
    out = []
    for which in ("jt", "jax"):
        res = subprocess.run([sys.executable, "-c", _GRAD_PROGRAM, str(n), which], env=env,
                             check=True, capture_output=True, text=True)
        out.append(float(res.stdout.split()[-1]))
    return out[0], out[1]


def numpy_loop(x: np.ndarray, n: int) -> None:
    for i in range(1, n + 1):
        x[i] = x[i - 1] * 0.5 + x[i]


def _jax_loop_impl(x: jax.Array, n: jax.Array) -> jax.Array:
    return lax.fori_loop(1, n + 1, lambda i, x: x.at[i].set(x[i - 1] * 0.5 + x[i]), x)


jax_loop = jax.jit(_jax_loop_impl, donate_argnums=0)


def steady(n: int, rounds: int, numpy_n: int) -> dict[str, tuple[float, float]]:
    """(best seconds per call, median ratio over rounds) per candidate, the baseline the
    donated ``jax.jit`` loop; NumPy's loop is timed at ``numpy_n`` iterations against the
    jaxtensor loop at ``numpy_n`` iterations in the same rounds."""
    make = fresh_body()
    xt = jt.ones(n + 1, dtype=jt.float32)
    state = [jnp.ones(n + 1)]
    xs = jt.ones(numpy_n + 1, dtype=jt.float32)
    xn = np.ones(numpy_n + 1, np.float32)

    def run_jt() -> None:
        jt.fori_loop(1, n + 1, make(xt))
        xt._storage.array.block_until_ready()

    def run_jax() -> None:
        state.append(jax_loop(state.pop(), n).block_until_ready())

    def run_jt_small() -> None:
        jt.fori_loop(1, numpy_n + 1, make(xs))
        xs._storage.array.block_until_ready()

    def run_np() -> None:
        numpy_loop(xn, numpy_n)

    cands = {"jax.jit fori_loop (donated)": run_jax, "jt.fori_loop": run_jt,
             "jt.fori_loop (NumPy size)": run_jt_small, "NumPy Python loop": run_np}
    for f in cands.values():
        f()
    a, b = jt.ones(n + 1, dtype=jt.float32), jnp.ones(n + 1)
    jt.fori_loop(1, n + 1, make(a))
    np.testing.assert_allclose(np.asarray(a), np.asarray(jax_loop(b, n)), rtol=1e-6)
    rng = np.random.default_rng(0)
    best = {k: float("inf") for k in cands}
    times: dict[str, list[float]] = {k: [] for k in cands}
    for _ in range(rounds):
        for k in rng.permutation(list(cands)):
            t0 = time.perf_counter()
            cands[k]()
            dt = time.perf_counter() - t0
            times[k].append(dt)
            best[k] = min(best[k], dt)
    base, small = times["jax.jit fori_loop (donated)"], times["jt.fori_loop (NumPy size)"]
    return {
        "steady": (best["jt.fori_loop"] / best["jax.jit fori_loop (donated)"],
                   float(np.median([t / u for t, u in zip(times["jt.fori_loop"], base)]))),
        "numpy": (best["NumPy Python loop"] / best["jt.fori_loop (NumPy size)"],
                  float(np.median([t / u for t, u in zip(times["NumPy Python loop"], small)]))),
        "best": best,
    }


def bench(quick: bool) -> dict:
    big = 10**4 if quick else 10**5
    steady_n = 10**4 if quick else 10**5
    numpy_n = 10**3 if quick else 10**4
    rounds = 3 if quick else 21
    (small_first, small_run), (big_first, big_run) = first_call(100), first_call(big)
    print(f"first call: {small_first:.3f} s at 100 iterations, {big_first:.3f} s at {big} "
          f"({big_first / small_first:.2f}x); trace and compile (first call - later call): "
          f"{small_first - small_run:.3f} s and {big_first - big_run:.3f} s", flush=True)
    res = steady(steady_n, rounds, numpy_n)
    print(f"steady state at {steady_n}: jt.fori_loop / jax.jit = {res['steady'][0]:.2f}x "
          f"(median {res['steady'][1]:.2f}x)", flush=True)
    print(f"NumPy loop / jt.fori_loop at {numpy_n}: {res['numpy'][0]:.1f}x "
          f"(median {res['numpy'][1]:.1f}x)", flush=True)
    grad_n = 50 if quick else 300
    g_jt, g_jax = grad_compile(grad_n)
    print(f"grad compile at {grad_n} statements: jt.grad(jt.jit(f)) {g_jt:.1f} s, "
          f"jax.jit(jax.grad(f)) {g_jax:.1f} s ({g_jt / g_jax:.2f}x)", flush=True)
    res["grad"] = (grad_n, g_jt, g_jax)
    return {"big": big, "steady_n": steady_n, "numpy_n": numpy_n, "first": (small_first,
            big_first), "run": (small_run, big_run), **res}


def write_doc(r: dict, cmd: str) -> None:
    s, b = r["first"]
    rs, rb = r["run"]
    gn, gj, gx = r["grad"]
    lines = [
        BEGIN,
        "## loops",
        "",
        "The recurrence `x[i] = x[i - 1] * 0.5 + x[i]` as an eager `jaxtensor.fori_loop` "
        "(bounds checked, the default), single-threaded, in one process.",
        "",
        f"Command: `{cmd}`  ",
        f"Machine: {platform.machine()}, {platform.processor() or 'cpu'}, "
        f"jax {jax.__version__}, backend {jax.default_backend()}, Python "
        f"{sys.version.split()[0]}; shared machine, so read the ratios, not the absolute "
        "times.",
        "",
        "| measure | result | target |",
        "| --- | ---: | ---: |",
        f"| first call at {r['big']} iterations / first call at 100 ({s:.2f} s) | "
        f"{b / s:.2f}x | ≤ 3x |",
        f"| trace and compile (first call - later call) at {r['big']} iterations / at 100 "
        f"({s - rs:.2f} s; {b - rb:.2f} s) | {(b - rb) / (s - rs):.2f}x | 1x |",
        f"| run of a later call at {r['big']} iterations / first call at 100 | "
        f"{rb / s:.2f}x | |",
        f"| steady state at {r['steady_n']} iterations / donated `jax.jit(lax.fori_loop)` "
        f"(best rounds; median) | {r['steady'][0]:.2f}x ({r['steady'][1]:.2f}x) | ≤ 1.2x |",
        f"| NumPy's Python loop / `jt.fori_loop` at {r['numpy_n']} iterations (best; median) "
        f"| {r['numpy'][0]:.1f}x ({r['numpy'][1]:.1f}x) | ≥ 10x |",
        f"| first call of `jt.grad(jt.jit(f))`, {gn} unrolled statements ({gj:.1f} s) / "
        f"`jax.jit(jax.grad(f))` ({gx:.1f} s), fresh processes | {gj / gx:.2f}x | ≤ 1.5x |",
        "",
        END,
    ]
    _common.write_section(BEGIN, END, "\n".join(lines))
    print(f"wrote {DOC}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes; print only")
    a = ap.parse_args()
    r = bench(a.quick)
    if not a.quick:
        write_doc(r, "python benchmarks/bench_loops.py")


if __name__ == "__main__":
    main()
