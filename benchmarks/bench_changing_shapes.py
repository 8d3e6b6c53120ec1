"""Eager code over changing shapes: what the first run of a loop whose slices get a new
length every step compiles and costs (issue 29, item 3).

The 0/1 knapsack's step ``dp[w:] = maximum(dp[w:], dp[:-w] + v)`` has a new slice length
for every new weight ``w``. Each library runs ``--items`` items of distinct weights in a
fresh process (JAX's persistent compilation cache off), on one core:

* ``jaxtensor``: the NumPy code ported with ``xp = jt``;
* ``jax.numpy``: the same step written ``dp = dp.at[w:].set(jnp.maximum(dp[w:], dp[:-w] +
  v))``, eagerly;
* ``numpy``: the original.

For each: the first run (compiling), programs compiled (JAX's backend-compile event), per
new length, and a second run over the same weights (nothing new to compile).

Run::

    python benchmarks/bench_changing_shapes.py            # prints a table
    python benchmarks/bench_changing_shapes.py --items 30
"""

from __future__ import annotations

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402


def _knapsack(lib: str, weights: list[int], values: list[float], cap: int) -> float:
    if lib == "numpy":
        import numpy as xp

        dp = xp.zeros(cap + 1)
        for w, v in zip(weights, values):
            dp[w:] = xp.maximum(dp[w:], dp[:-w] + v)
        return float(dp[-1])
    if lib == "jaxtensor":
        import jaxtensor as xp

        dp = xp.zeros(cap + 1, xp.float64)
        for w, v in zip(weights, values):
            dp[w:] = xp.maximum(dp[w:], dp[:-w] + v)
        return float(dp[-1])
    import jax.numpy as jnp

    d = jnp.zeros(cap + 1, jnp.float64)
    for w, v in zip(weights, values):
        d = d.at[w:].set(jnp.maximum(d[w:], d[:-w] + v))
    return float(d[-1])


def _child(lib: str, items: int) -> None:
    import _common  # noqa: F401 - single-threaded XLA: imported before jax
    import jax

    jax.config.update("jax_enable_x64", True)
    sys.path.insert(0, str(_common.ROOT / "tests"))
    from measure import count_compiles  # tests/measure.py

    weights = list(range(1, items + 1))
    values = [float((7 * w) % 11 + 1) for w in weights]
    cap = 2 * items + 1
    results: list[float] = []
    t = time.perf_counter()
    compiled = count_compiles(lambda: results.append(_knapsack(lib, weights, values, cap)))
    t_first = time.perf_counter() - t
    first = results[0]
    t = time.perf_counter()
    second = _knapsack(lib, weights, values, cap)
    t_second = time.perf_counter() - t
    print(json.dumps({"lib": lib, "first_s": t_first, "compiles": compiled,
                      "steady_s": t_second, "result": [first, second]}))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=20)
    ap.add_argument("--child", default=None)
    args = ap.parse_args()
    if args.child:
        _child(args.child, args.items)
        return
    env = {**os.environ, "JAXTENSOR_COMPILATION_CACHE": "0", "JAX_ENABLE_X64": "1"}
    rows = []
    for lib in ("jaxtensor", "jax.numpy", "numpy"):
        out = subprocess.run([sys.executable, __file__, "--child", lib, "--items",
                              str(args.items)], env=env, capture_output=True, text=True,
                             check=True).stdout.strip().splitlines()[-1]
        rows.append(json.loads(out))
    results = {tuple(r["result"]) for r in rows}
    assert len(results) == 1, results  # the three agree
    print(f"knapsack, {args.items} items of distinct weights (a new slice length each)")
    print("| library | first run (s) | programs compiled | per new length | second run (s) |")
    print("| --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['lib']} | {r['first_s']:.2f} | {r['compiles']} | "
              f"{r['compiles'] / args.items:.1f} | {r['steady_s']:.3f} |")


if __name__ == "__main__":
    main()
