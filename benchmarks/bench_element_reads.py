"""Element reads (``x[i]`` with an integer on every axis) and the NumPy idioms built on them.

Workloads on a float32 Tensor of 10**6 elements (each timed to completion: the written
storage's value is waited for; the base buffer is never exported, so writes may donate it):

* ``read``: ``x[i]``, the element never used (no device work: a 0-D view before, an unread
  value after);
* ``read_use``: ``x[i] * 2.0``, waited for (the read's kernel and the multiply);
* ``swap``: ``x[i], x[j] = x[j], x[i]``;
* ``temp_swap``: ``t = x[i]; x[i] = x[j]; x[j] = t``;
* ``iadd``: ``x[i] += 1.0``;
* ``iadd_view``: ``x[i, ...] += 1.0`` (the 0-D view spelling);
* ``insertion_sort``: an insertion sort of 32 random values (µs per sort; before, wrong).

Run::

    python benchmarks/bench_element_reads.py                     # this checkout
    python benchmarks/bench_element_reads.py --compare OTHER/src
        # OTHER's jaxtensor (before) and this one (after), alternating fresh subprocesses,
        # the best of each; writes the section "Element reads" of docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _common  # noqa: E402  (one core, before jax)

N = 10**6
NAMES = ["read", "read_use", "swap", "temp_swap", "iadd", "iadd_view", "insertion_sort"]


def measure(rounds: int = 7, n: int = 200) -> dict[str, float]:
    import jax
    import numpy as np

    import jaxtensor as jt

    x = jt.zeros(N)
    x += 1.0
    rng = np.random.default_rng(0)
    pos = [int(k) for k in rng.integers(0, N, 64)]

    def wait() -> None:
        jax.block_until_ready(x._value())

    def read() -> None:
        for k in pos[:8]:
            x[k]

    def read_use() -> None:
        jax.block_until_ready((x[pos[3]] * 2.0)._value())

    def swap() -> None:
        i, j = pos[1], pos[2]
        x[i], x[j] = x[j], x[i]
        wait()

    def temp_swap() -> None:
        i, j = pos[1], pos[2]
        t = x[i]
        x[i] = x[j]
        x[j] = t
        wait()

    def iadd() -> None:
        x[pos[5]] += 1.0
        wait()

    def iadd_view() -> None:
        x[pos[5], ...] += 1.0
        wait()

    vals = rng.permutation(32).astype(np.float32)

    def insertion_sort() -> None:
        arr = jt.asarray(vals)
        for i in range(1, len(arr)):
            key = arr[i]
            j = i - 1
            while j >= 0 and arr[j] > key:
                arr[j + 1] = arr[j]
                j -= 1
            arr[j + 1] = key
        jax.block_until_ready(arr._value())

    fns = {"read": read, "read_use": read_use, "swap": swap, "temp_swap": temp_swap,
           "iadd": iadd, "iadd_view": iadd_view, "insertion_sort": insertion_sort}
    reps = {"read": n, "insertion_sort": 2}
    best = {k: float("inf") for k in fns}
    for f in fns.values():
        f()
    for _ in range(rounds):
        for k, f in fns.items():
            m = reps.get(k, n // 4)
            t0 = time.perf_counter()
            for _ in range(m):
                f()
            dt = (time.perf_counter() - t0) / m * 1e6
            best[k] = min(best[k], dt / 8 if k == "read" else dt)
    return best


def _run(src: str) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=src, JAXTENSOR_COMPILATION_CACHE="0")
    out = subprocess.run([sys.executable, __file__, "--json"], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--compare", metavar="BEFORE_SRC")
    ap.add_argument("--pairs", type=int, default=3)
    a = ap.parse_args()
    if a.json:
        print(json.dumps(measure()))
        return
    if not a.compare:
        for k, v in measure().items():
            print(f"{k:16s} {v:10.1f} µs")
        return
    after_src = str(HERE.parent / "src")
    before: dict[str, float] = {}
    after: dict[str, float] = {}
    for _ in range(a.pairs):  # alternating fresh processes: load affects both alike
        for res, src in ((before, a.compare), (after, after_src)):
            for k, v in _run(src).items():
                res[k] = min(res.get(k, float("inf")), v)
    rows = "\n".join(f"| `{k}` | {before[k]:,.1f} | {after[k]:,.1f} | {after[k] / before[k]:.2f}× |"
                     for k in NAMES)
    block = f"""<!-- element reads: begin (benchmarks/bench_element_reads.py) -->
## Element reads: values, not 0-D views (issue 29)

µs per operation on a float32 Tensor of 10^6 elements, one core, the best of {a.pairs} fresh
processes per side, alternating (`read`: per read, never used; `insertion_sort`: one sort of
32 values, which *before* gave a wrong result). *Before* is a checkout of the code with 0-D
views (its `src` given to `--compare`), *after* this tree.

Command: `python benchmarks/bench_element_reads.py --compare <before checkout>/src`

| workload | before µs | after µs | after / before |
| --- | --- | --- | --- |
{rows}

<!-- element reads: end -->"""
    print(block)
    _common.write_section("<!-- element reads: begin", "<!-- element reads: end -->", block)


if __name__ == "__main__":
    main()
