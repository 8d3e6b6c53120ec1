"""One loop program of ``tests/loop_ports.py`` in four forms, side by side in one process
on one core: the ``lax`` version (donated), the port at the top level (its loops checked,
as a top-level loop always is), and the port inside ``jaxtensor.jit`` with checks off and
on. Prints the median time of each and the ratios to the ``lax`` version (ratio of the
medians, and the median of the per-round ratios). The flood fill's ``jaxtensor.jit`` forms run
its port's loop (``flood_fill_loop``: the port's ``if`` on a value cannot be traced); the
inputs drawn never take that ``if``.

    taskset -c 1 python benchmarks/bench_loop_candidates.py flood_fill 64 30
    taskset -c 1 python benchmarks/bench_loop_candidates.py lcs 120 15
"""

from __future__ import annotations

import argparse
import sys
import time

import _common  # noqa: F401  (one core, before jax)
import numpy as np

import jaxtensor as jt

sys.path.insert(0, str(_common.ROOT / "tests"))
import loop_ports  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("program", choices=sorted(loop_ports.PROGRAMS))
    ap.add_argument("size", type=int)
    ap.add_argument("rounds", type=int, nargs="?", default=30)
    a = ap.parse_args()
    p = loop_ports.PROGRAMS[a.program]
    port = loop_ports.flood_fill_loop if p.name == "flood_fill" else p.port
    static = p.static or None
    d = p.make_inputs(np.random.default_rng(0), a.size)
    want = p.numpy(*p.args(d, lambda v: v))
    cands = {"lax": (p.lax, p.lax_args), "top": (p.port, p.port_args),
             "unchecked": (jt.jit(port, static_argnums=static, check_bounds=False), p.port_args),
             "checked": (jt.jit(port, static_argnums=static), p.port_args)}
    for fn, args in cands.values():
        p.check(fn(*args(d)), want)
        fn(*args(d))
    times: dict[str, list[float]] = {k: [] for k in cands}
    rng = np.random.default_rng(0)
    for _ in range(a.rounds):
        for k in rng.permutation(list(cands)):
            fn, args = cands[k]
            ins = args(d)
            t0 = time.perf_counter()
            np.asarray(fn(*ins))
            times[k].append(time.perf_counter() - t0)
    lax = np.median(times["lax"])
    for k, v in times.items():
        per_round = np.median([t / u for t, u in zip(v, times["lax"])])
        print(f"{a.program} ({a.size}) {k:9s} {np.median(v) * 1e3:9.3f} ms  "
              f"{np.median(v) / lax:6.2f}x ({per_round:.2f}x)")


if __name__ == "__main__":
    main()
