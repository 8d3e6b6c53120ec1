"""Sharding benchmark: the same jaxtensor work on 8 devices against 1 device, with the bytes
each device holds.

On CPU the 8 devices are simulated (``--xla_force_host_platform_device_count=8``, set here
before JAX starts; they share the host's cores, so the times show the cost of partitioning and
dispatch rather than a speed-up); on a machine with several accelerators the real ones are
used. Workloads on ``x`` of shape ``[N, D]`` float32, rows sharded (``P("x", None)``):

* ``index_select`` of ``K`` indices along dim 1 (not the sharded axis: each device gathers
  from its own rows, no communication) and along dim 0 (the sharded axis: each device
  gathers the rows it holds, one all-reduce makes the result whole on every device);
* a write loop: ``W`` queued scalar writes ``x[i, j] = v`` then one read (one scatter);
* slice writes ``x[:, j:j + R] = v`` (along the unsharded axis) and ``x += 1``.

Run::

    python benchmarks/bench_sharding.py           # full sizes, prints a Markdown table
    python benchmarks/bench_sharding.py --quick   # tiny sizes (a smoke run)
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

if "jax" not in sys.modules and not os.environ.get("JT_BENCH_REAL_DEVICES"):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "")
                               + " --xla_force_host_platform_device_count=8").strip()
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import jax  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding, SingleDeviceSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

import jaxtensor as jt  # noqa: E402


def best_us(f: Callable[[], object], rounds: int, n: int) -> float:
    """Best µs per call over ``rounds`` rounds of ``n`` calls (results waited for)."""
    f().to_jax().block_until_ready()  # (compiles)
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            r = f()
        r.to_jax().block_until_ready()
        best = min(best, (time.perf_counter() - t0) / n * 1e6)
    return best


def per_device_bytes(t: jt.Tensor) -> int:
    """The most bytes any one device holds of ``t``."""
    held: dict = {}
    for s in t.to_jax().addressable_shards:
        held[s.device] = held.get(s.device, 0) + s.data.nbytes
    return max(held.values())


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB"):
        if n < 2**10 or unit == "MiB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 2**10
    return ""


def workloads(x: jt.Tensor, k: int, w: int, r: int) -> dict[str, Callable[[], object]]:
    n, d = x.shape
    rng = np.random.default_rng(0)
    i1 = jt.asarray(rng.integers(0, d, k).astype(np.int32))
    i0 = jt.asarray(rng.integers(0, n, k).astype(np.int32))
    cells = [(int(a), int(b)) for a, b in zip(rng.integers(0, n, w), rng.integers(0, d, w))]
    # (column slices: a dynamic start along the sharded axis compiles to an all-gather, and
    # hundreds of those on 8 simulated CPU devices abort in XLA:CPU's rendezvous on a 2-core
    # machine, plain JAX included; see docs/benchmarks.md)
    starts = [int(s) for s in rng.integers(0, d - r, 16)]

    def writes() -> object:
        for c in cells:
            x[c] = 1.0
        return x

    def slices() -> object:
        for s in starts:
            x[:, s:s + r] = 2.0
        return x

    def iadd() -> object:
        x.__iadd__(1.0)
        return x

    return {
        f"index_select dim 1 ({k} idx)": lambda: jt.index_select(x, 1, i1),
        f"index_select dim 0 ({k} idx)": lambda: jt.index_select(x, 0, i0),
        f"{w} scalar writes + flush": writes,
        f"16 slice writes of {r} columns": slices,
        "x += 1": iadd,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="tiny sizes (a smoke run)")
    args = ap.parse_args()
    n, d, k, w, r = (64, 16, 8, 8, 2) if args.quick else (65536, 512, 4096, 1000, 64)
    rounds, calls = (2, 2) if args.quick else (7, 20)
    devs = jax.devices()
    base = np.random.default_rng(1).standard_normal((n, d)).astype(np.float32)
    layouts = {
        "1 device": SingleDeviceSharding(devs[0]),
        f"{len(devs)} devices": NamedSharding(Mesh(np.array(devs), ("x",)), P("x", None)),
    }
    print(f"x: [{n}, {d}] float32 ({base.nbytes / 2**20:.1f} MiB), backend "
          f"{jax.default_backend()}, {len(devs)} devices\n")
    rows: dict[str, dict[str, str]] = {}
    for name, sh in layouts.items():
        x = jt.asarray(base, device=sh)
        for what, f in workloads(x, k, w, r).items():
            t = best_us(f, rounds, calls)
            out = f()
            held = per_device_bytes(out if isinstance(out, jt.Tensor) else x)
            rows.setdefault(what, {})[name] = f"{t:,.0f} µs, {_size(held)}/device"
    names = list(layouts)
    print("| workload | " + " | ".join(names) + " |")
    print("| --- | " + " | ".join("---" for _ in names) + " |")
    for what, cols in rows.items():
        print(f"| {what} | " + " | ".join(cols[nm] for nm in names) + " |")


if __name__ == "__main__":
    main()
