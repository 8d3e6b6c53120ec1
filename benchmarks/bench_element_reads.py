"""Element reads (``x[i]`` with an integer on every axis) and the NumPy idioms built on them.

Each workload is timed in two spellings in one process, one core, alternating rounds: with
``x[i, ...]`` (a 0-D view: what ``x[i]`` made before issue 29) and with ``x[i]`` (the
element's value now). A ratio is that of the best rounds (on a shared machine a round
takes 20x longer whenever another process runs, hitting either spelling, so medians of
per-round ratios are not reported). Writes
are waited for (the written storage's value); its buffer is never exported, so writes may
donate it. A float32 Tensor of 10**6 elements:

* ``read``: ``x[i]``, the element never used (no device work in either spelling);
* ``read_use``: ``x[i] * 2.0``, waited for (the read's kernel and the multiply);
* ``swap``: ``x[i], x[j] = x[j], x[i]`` (the view spelling gives a wrong result);
* ``temp_swap``: ``t = x[i]; x[i] = x[j]; x[j] = t`` (the same);
* ``iadd``: ``x[i] += 1.0``;
* ``read_then_write``: ``e = x[i]; x[j] = 2.0`` (queued), waited for, ``e`` alive (the write
  computes ``e`` first, a second kernel; the view was never read);
* ``unpack``: ``a, b, c, d = (x[k] for k in four positions)``, then ``a + b + c + d``,
  waited (the four values are computed together, by one kernel, at the first use);
* ``insertion_sort``: an insertion sort of 32 random values (µs per sort; wrong with views);
* ``scalar``: ``float(x[i])`` (the Python number of an element: on CPU read from the
  buffer in host memory where the element is a value, a kernel and a transfer for a view).

Run::

    python benchmarks/bench_element_reads.py            # prints the table
    python benchmarks/bench_element_reads.py --write    # and writes its section of
                                                        # docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _common  # noqa: E402  (one core, before jax)

N = 10**6


def workloads() -> dict[str, tuple[Callable[[], None], Callable[[], None], int]]:
    """name -> (view spelling, value spelling, calls per round)."""
    import jax
    import numpy as np

    import jaxtensor as jt

    x = jt.zeros(N)
    x += 1.0
    rng = np.random.default_rng(0)
    pos = [int(k) for k in rng.integers(0, N, 8)]
    i, j = pos[1], pos[2]
    vals = rng.permutation(32).astype(np.float32)
    E = (Ellipsis,)

    def wait() -> None:
        jax.block_until_ready(x._value())

    def both(make: Callable[[tuple], Callable[[], None]]) -> tuple[Callable, Callable]:
        return make(E), make(())

    def read(e: tuple) -> Callable[[], None]:
        keys = [(k, *e) for k in pos]

        def f() -> None:
            for k in keys:
                x[k]
        return f

    def read_use(e: tuple) -> Callable[[], None]:
        return lambda: jax.block_until_ready((x[(i, *e)] * 2.0)._value())

    def swap(e: tuple) -> Callable[[], None]:
        a, b = (i, *e), (j, *e)

        def f() -> None:
            x[a], x[b] = x[b], x[a]
            wait()
        return f

    def temp_swap(e: tuple) -> Callable[[], None]:
        a, b = (i, *e), (j, *e)

        def f() -> None:
            t = x[a]
            x[a] = x[b]
            x[b] = t
            wait()
        return f

    def iadd(e: tuple) -> Callable[[], None]:
        a = (pos[5], *e)

        def f() -> None:
            x[a] += 1.0
            wait()
        return f

    def read_then_write(e: tuple) -> Callable[[], None]:
        a = (pos[5], *e)

        def f() -> None:
            el = x[a]
            x[pos[6]] = 2.0
            wait()
            del el
        return f

    def unpack(e: tuple) -> Callable[[], None]:
        keys = [(k, *e) for k in pos[:4]]

        def f() -> None:
            a, b, c, d = (x[k] for k in keys)
            jax.block_until_ready((a + b + c + d)._value())
        return f

    def insertion_sort(e: tuple) -> Callable[[], None]:
        def f() -> None:
            arr = jt.asarray(vals)
            for k in range(1, len(arr)):
                key = arr[(k, *e)]
                m = k - 1
                while m >= 0 and arr[(m, *e)] > key:
                    arr[m + 1] = arr[(m, *e)]
                    m -= 1
                arr[m + 1] = key
            jax.block_until_ready(arr._value())
        return f

    def scalar(e: tuple) -> Callable[[], None]:
        a = (pos[3], *e)
        return lambda: float(x[a])

    makers = {"read": (read, 200), "read_use": (read_use, 50), "swap": (swap, 50),
              "temp_swap": (temp_swap, 50), "iadd": (iadd, 50),
              "read_then_write": (read_then_write, 50), "unpack": (unpack, 50),
              "insertion_sort": (insertion_sort, 1), "scalar": (scalar, 50)}
    return {k: (*both(m), n) for k, (m, n) in makers.items()}


def measure(rounds: int) -> dict[str, tuple[float, float, float]]:
    """name -> (view µs, value µs, best-rounds ratio); per read for ``read``."""
    out = {}
    for name, (view, value, n) in workloads().items():
        per = 8 if name == "read" else 1
        view()
        value()
        best = [float("inf"), float("inf")]
        for _ in range(rounds):
            for slot, f in enumerate((view, value)):
                t0 = time.perf_counter()
                for _ in range(n):
                    f()
                best[slot] = min(best[slot], (time.perf_counter() - t0) / n / per * 1e6)
        out[name] = (best[0], best[1], best[1] / best[0])
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    res = measure(a.rounds)
    rows = "\n".join(f"| `{k}` | {v[0]:,.1f} | {v[1]:,.1f} | {v[2]:.2f}× |"
                     for k, v in res.items())
    block = f"""<!-- element reads: begin (benchmarks/bench_element_reads.py) -->
## Element reads: values, not 0-D views (issue 29)

Each workload in two spellings in one process, one core, alternating rounds: `x[i, ...]`
(a 0-D view, what `x[i]` made before) and `x[i]` (the element's value now). µs per
operation (per read for `read`, per sort of 32 values for `insertion_sort`) of the best
round, and their ratio (a round took up to 20x longer whenever another process ran on the
shared core, in either spelling, so per-round ratios say nothing). The view spelling gives
wrong results for the swaps and the sort. Both spellings run the same number of kernels:
`x[i] op= v` is one write, and a swap two reads and two writes. A float32 Tensor of 10^6
elements.

Command: `python benchmarks/bench_element_reads.py --write`<br>
Machine: {platform.machine()}, Python {platform.python_version()}; a shared machine, so read the ratios.

| workload | 0-D view µs | value µs | value / view |
| --- | --- | --- | --- |
{rows}

<!-- element reads: end -->"""
    print(block)
    if a.write:
        _common.write_section("<!-- element reads: begin", "<!-- element reads: end -->", block)


if __name__ == "__main__":
    main()
