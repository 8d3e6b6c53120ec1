"""Peak memory of a write, per write pattern, against NumPy, PyTorch and donated ``jax.jit``.

Run: ``python benchmarks/bench_memory.py [--mib 256] [--platform cpu]``. Each (pattern,
system) runs in a fresh subprocess: it makes a float32 array of ``--mib`` MiB, runs the
write once (compiling what it needs), then resets the kernel's peak-RSS mark
(``/proc/self/clear_refs``), runs the write again and reports how far the peak rose above
the resident size before it, as a fraction of the array. A write that holds a second copy
of the array at any moment reads 1.0; an in-place write reads close to 0.

``--platform gpu`` measures device memory instead (``jax.Device.memory_stats()``'s
``peak_bytes_in_use``, as PyTorch's ``torch.cuda.max_memory_allocated``), where the device
offers it. The result table goes to docs/benchmarks.md between the ``memory`` markers.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

PATTERNS = {
    "x += 1": "inc",
    "x *= 2": "mul",
    "x[1:] += 1": "view_inc",
    "x.T += 1 (2-D)": "t_inc",
    "x[::2] += 1": "strided_inc",
    "x[1000:2000] = 1.0": "slice_set",
    "x[i] = v (1000 writes)": "scalar_set",
    "x[idx] = v (1000 indices)": "fancy_set",
    "x[mask] = 0.0 (half True)": "mask_set",
}
SYSTEMS = ["jaxtensor", "numpy", "torch", "jax.jit (donated)"]

CHILD = r'''
import os, sys, json, gc
platform = sys.argv[3]
if platform == "cpu":
    os.environ["JAX_PLATFORMS"] = "cpu"
import numpy as np

def rss():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024

def peak():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024

def reset_peak():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")

system, pattern, n = sys.argv[1], sys.argv[2], int(sys.argv[4])
rng = np.random.default_rng(0)
idx_np = rng.choice(n, 1000, replace=False)
mask_np = rng.random(n) < 0.5
side = int(n ** 0.5)

if system == "numpy":
    x = np.zeros(n, np.float32)
    xt = x[: side * side].reshape(side, side)
    ops = {
        "inc": lambda: x.__iadd__(1), "mul": lambda: x.__imul__(2),
        "view_inc": lambda: x[1:].__iadd__(1), "t_inc": lambda: xt.T.__iadd__(1),
        "strided_inc": lambda: x[::2].__iadd__(1),
        "slice_set": lambda: x.__setitem__(slice(1000, 2000), 1.0),
        "scalar_set": lambda: [x.__setitem__(i, 2.0) for i in range(1000)],
        "fancy_set": lambda: x.__setitem__(idx_np, 3.0),
        "mask_set": lambda: x.__setitem__(mask_np, 0.0),
    }
    sync = lambda: None
elif system == "torch":
    import torch
    torch.set_num_threads(1)
    dev = "cuda" if platform == "gpu" else "cpu"
    x = torch.zeros(n, dtype=torch.float32, device=dev)
    xt = x[: side * side].view(side, side)
    idx, mask = torch.as_tensor(idx_np, device=dev), torch.as_tensor(mask_np, device=dev)
    ops = {
        "inc": lambda: x.__iadd__(1), "mul": lambda: x.__imul__(2),
        "view_inc": lambda: x[1:].__iadd__(1), "t_inc": lambda: xt.T.__iadd__(1),
        "strided_inc": lambda: x[::2].__iadd__(1),
        "slice_set": lambda: x.__setitem__(slice(1000, 2000), 1.0),
        "scalar_set": lambda: [x.__setitem__(i, 2.0) for i in range(1000)],
        "fancy_set": lambda: x.__setitem__(idx, 3.0),
        "mask_set": lambda: x.__setitem__(mask, 0.0),
    }
    sync = (lambda: torch.cuda.synchronize()) if dev == "cuda" else (lambda: None)
else:
    import jax
    import jax.numpy as jnp
    from jax import lax
    if system == "jaxtensor":
        import jaxtensor as jt
        x = jt.zeros(n, dtype=jt.float32)
        xt = jt.reshape(x[: side * side], (side, side))
        idx, mask = jt.asarray(idx_np), jt.asarray(mask_np)

        def scalar_writes():
            for i in range(1000):
                x[i] = 2.0

        ops = {
            "inc": lambda: x.__iadd__(1), "mul": lambda: x.__imul__(2),
            "view_inc": lambda: x[1:].__iadd__(1), "t_inc": lambda: xt.T.__iadd__(1),
            "strided_inc": lambda: x[::2].__iadd__(1),
            "slice_set": lambda: x.__setitem__(slice(1000, 2000), 1.0),
            "scalar_set": scalar_writes,
            "fancy_set": lambda: x.__setitem__(idx, 3.0),
            "mask_set": lambda: x.__setitem__(mask, 0.0),
        }
        sync = lambda: x._value().block_until_ready()
    else:  # donated jax.jit: the functional form of each write
        state = {"x": jnp.zeros(n, jnp.float32)}
        idx, mask = jnp.asarray(idx_np), jnp.asarray(mask_np)

        def run(f, *args):
            state["x"] = f(state["x"], *args)

        def jit(f):
            return jax.jit(f, donate_argnums=0)

        def t_inc(a):
            m = a[: side * side].reshape(side, side)
            return lax.dynamic_update_slice(a, (m.T + 1).T.reshape(-1), (0,))

        def scalars(a, i):
            return lax.fori_loop(0, 1000, lambda k, a: a.at[k].set(2.0), a)

        fns = {
            "inc": jit(lambda a: a + 1), "mul": jit(lambda a: a * 2),
            "view_inc": jit(lambda a: a.at[1:].add(1)), "t_inc": jit(t_inc),
            "strided_inc": jit(lambda a: a.at[::2].add(1)),
            "slice_set": jit(lambda a, s: lax.dynamic_update_slice(
                a, jnp.ones(1000, a.dtype), (s,))),
            "scalar_set": jit(scalars),
            "fancy_set": jit(lambda a, i: a.at[i].set(3.0, unique_indices=True)),
            "mask_set": jit(lambda a, m: jnp.where(m, 0.0, a)),
        }
        extra = {"slice_set": (1000,), "scalar_set": (0,), "fancy_set": (idx,),
                 "mask_set": (mask,)}
        ops = {k: (lambda k=k: run(fns[k], *extra.get(k, ()))) for k in fns}
        sync = lambda: state["x"].block_until_ready()

op = ops[pattern]
if platform == "gpu":
    import jax
    dev = jax.devices()[0]
    op(); sync(); gc.collect()
    if system == "torch":
        import torch
        torch.cuda.reset_peak_memory_stats()
        before = torch.cuda.memory_allocated()
        op(); sync()
        growth = torch.cuda.max_memory_allocated() - before
    else:
        stats = dev.memory_stats() or {}
        before = stats.get("bytes_in_use", 0)
        base_peak = stats.get("peak_bytes_in_use", 0)
        op(); sync()
        after = dev.memory_stats() or {}
        growth = max(0, after.get("peak_bytes_in_use", 0) - max(before, 0)) \
            if after.get("peak_bytes_in_use", 0) > base_peak else 0
    print(json.dumps({"growth": growth, "before": before}))
else:
    op(); sync(); gc.collect()
    before = rss()
    reset_peak()
    op(); sync()
    print(json.dumps({"growth": max(0, peak() - before), "before": before}))
'''


def measure(system: str, pattern: str, n: int, platform: str) -> float | None:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, system, pattern, platform, str(n)],
        capture_output=True, text=True, timeout=900,
        env={**os.environ, "OMP_NUM_THREADS": "1",
             "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false"},
    )
    if proc.returncode != 0:
        print(f"  {system} / {pattern}: failed\n{proc.stderr[-2000:]}", file=sys.stderr)
        return None
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    return out["growth"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--platform", default="cpu", choices=["cpu", "gpu"])
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--patterns", default=",".join(PATTERNS.values()))
    ap.add_argument("--no-write", action="store_true", help="print only, leave the docs")
    args = ap.parse_args()
    n = args.mib * 2**20 // 4
    nbytes = n * 4
    systems = args.systems.split(",")
    wanted = set(args.patterns.split(","))
    rows = []
    for label, key in PATTERNS.items():
        if key not in wanted:
            continue
        cells = []
        for system in systems:
            g = measure(system, key, n, args.platform)
            cells.append("failed" if g is None else f"{g / nbytes:.2f}")
        rows.append(f"| `{label}` | " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)
    unit = "device memory" if args.platform == "gpu" else "peak RSS"
    block = "\n".join([
        "<!-- memory:begin -->",
        "## Memory: peak growth of one write",
        "",
        f"Command: `python benchmarks/bench_memory.py --mib {args.mib} --platform "
        f"{args.platform}`. Each cell is a fresh process: a float32 array of {args.mib} MiB, "
        f"the write run once (compiling), then the {unit} peak rise of a second run of the "
        "write over the resident size before it, **as a fraction of the array** (1.00: a "
        "second copy of the array existed; 0.00: in place). `x.T += 1` runs on the array's "
        "leading square viewed 2-D.",
        "",
        "| write | " + " | ".join(systems) + " |",
        "| --- | " + " | ".join("---:" for _ in systems) + " |",
        *rows,
        "<!-- memory:end -->",
    ])
    print(block)
    if not args.no_write:
        sys.path.insert(0, str(HERE))
        import _common  # noqa: F401  (pins this process; the children are measured alone)

        _common.write_section("<!-- memory:begin -->", "<!-- memory:end -->", block)


if __name__ == "__main__":
    main()
