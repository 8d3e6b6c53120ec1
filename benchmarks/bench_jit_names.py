"""What the values a ``jaxtensor.jit`` function names cost a repeat call (each checked at
every call, ``_jit/_named.py``): a function writing ``x[0] += 1.0`` into a 4-element
float64 Tensor that names 0, 5 or 50 globals (floats and a module, alternately) besides
``jt``, against ``jax.jit`` of ``x.at[0].add(1.0)`` naming the same globals. Best µs per
call of alternating rounds of 1000 calls (``_common.interleaved``); one core. A function's
globals are not read on a path that does not run (``if x is None``): the cost is the
check's alone.

Then a function taking a default argument and naming 20 globals (its defaults are compared
at every call), and a global rebound at every call (``W = W - 0.1 * g`` after ``g = grad_step(x)``, which
reads the global ``W`` of 256 float64 elements): µs per step, against ``jax.jit`` taking
``W`` as its argument (the best of 5 rounds of 200 steps).

    taskset -c 1 python benchmarks/bench_jit_names.py
"""

from __future__ import annotations

import time
import timeit
import types

import _common  # noqa: F401  (one core, before jax)
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import jaxtensor as jt  # noqa: E402


def _module(n: int) -> dict:
    """A script's module with ``n`` globals and two functions that name them all."""
    src = "".join(f"G{i} = {i}.5\n" if i % 2 else f"G{i} = np\n" for i in range(n))
    names = " + ".join(f"(G{i} if isinstance(G{i}, float) else 0)" for i in range(n)) or "0"
    src += (f"def f(x):\n    if x is None:\n        return {names}\n    x[0] += 1.0\n"
            f"def g(x):\n    if x is None:\n        return {names}\n"
            f"    return x.at[0].add(1.0)\n")
    mod = types.ModuleType("__main__")
    mod.__dict__.update(np=np, jt=jt)
    exec(compile(src, "<bench>", "exec"), mod.__dict__)  # noqa: S102 - the benchmark's code
    return mod.__dict__


def main() -> None:
    print("| globals named | jaxtensor.jit (µs) | jax.jit (µs) | ratio |")
    print("| ---: | ---: | ---: | ---: |")
    for n in (0, 5, 50):
        ns = _module(n)
        f, g = jt.jit(ns["f"]), jax.jit(ns["g"], donate_argnums=0)
        x = jt.zeros(4)
        box = [jnp.zeros(4)]

        def run_g(g: object = g, box: list = box) -> None:
            box[0] = g(box[0])

        a, b = _common.interleaved(lambda f=f, x=x: f(x), run_g)
        box[0].block_until_ready()
        print(f"| {n} | {a:.2f} | {b:.2f} | {a / b:.2f}x |", flush=True)
    print()
    with_default()
    print()
    rebound()


def with_default() -> None:
    """The same write by a function that takes a default argument (``s=1.0``) and names 20
    globals: the defaults are read at every call, the globals by the one expression."""
    ns = _module(20)
    src = "def h(x, s=1.0):\n    if x is None:\n        return f(None)\n    x[0] += s\n"
    exec(compile(src, "<bench>", "exec"), ns)  # noqa: S102 - the benchmark's code
    h = jt.jit(ns["h"])
    x = jt.zeros(4)
    for _ in range(10):
        h(x)
    best = min(timeit.repeat(lambda: h(x), number=2000, repeat=9)) / 2000 * 1e6
    print(f"a default argument and 20 globals named: {best:.2f} µs a call")


def rebound() -> None:
    """A step reading a global Tensor that the caller rebinds after each call."""
    ns = {"jt": jt}
    exec(compile("W = jt.zeros(256)\n@jt.jit\ndef step(x):\n    return x * W + 1.0\n",  # noqa: S102
                 "<bench>", "exec"), ns)
    step = ns["step"]
    x = jt.ones(256)
    g = jax.jit(lambda w, x: x * w + 1.0)
    xj = jnp.ones(256)
    box = [jnp.zeros(256)]

    def ours() -> None:
        ns["W"] = ns["W"] - 0.1 * step(x)

    def theirs() -> None:
        box[0] = box[0] - 0.1 * g(box[0], xj)

    best = {}
    for name, run in (("jaxtensor.jit, W a global", ours), ("jax.jit, W an argument", theirs)):
        for _ in range(3):
            run()
        times = []
        for _ in range(5):
            t = time.perf_counter()
            for _ in range(200):
                run()
            np.asarray(ns["W"])
            times.append((time.perf_counter() - t) / 200)
        best[name] = min(times) * 1e6
    print("| step | µs per step |")
    print("| --- | ---: |")
    for name, v in best.items():
        print(f"| {name} | {v:.1f} |")


if __name__ == "__main__":
    main()
