"""The RK4 port (``tests/loop_ports.py``) called at the top level and inside ``jt.jit``
against the ``lax`` version, fresh inputs per call (as ``bench_loop_programs.py`` makes
them), the three interleaved for 60 rounds after 5 warm-up calls each; best times. What a
top-level loop call costs over the loop: the port's ``a, b, c, d = theta`` element reads
and ``jt.asarray(y0, copy=True)``.

    taskset -c 1 python benchmarks/bench_rk4_toplevel.py
    taskset -c 1 python benchmarks/bench_rk4_toplevel.py --steps 1   # the call alone
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import numpy as np  # noqa: E402

import jaxtensor as jt  # noqa: E402
from loop_ports import PROGRAMS  # noqa: E402

PROGRAM = PROGRAMS["rk4"]
STEPS = int(sys.argv[sys.argv.index("--steps") + 1]) if "--steps" in sys.argv else 5000
INPUTS = PROGRAM.make_inputs(np.random.default_rng(0), STEPS)
JITTED = jt.jit(PROGRAM.port, static_argnums=(3,))


def run(kind: str) -> float:
    """One call of ``kind`` on fresh inputs: its time."""
    if kind == "lax":
        args = PROGRAM.lax_args(INPUTS)
        t = time.perf_counter()
        np.asarray(PROGRAM.lax(*args))
    else:
        args = PROGRAM.port_args(INPUTS)
        t = time.perf_counter()
        np.asarray((PROGRAM.port if kind == "port" else JITTED)(*args))
    return time.perf_counter() - t


def main() -> None:
    kinds = ("lax", "port", "jit")
    for k in kinds:
        for _ in range(5):
            run(k)
    best = dict.fromkeys(kinds, float("inf"))
    for _ in range(60):
        for k in kinds:
            best[k] = min(best[k], run(k))
    print(" ".join(f"{k} {v * 1e3:.3f} ms" for k, v in best.items()),
          f"port/lax {best['port'] / best['lax']:.2f}x jit/lax {best['jit'] / best['lax']:.2f}x")


if __name__ == "__main__":
    main()
