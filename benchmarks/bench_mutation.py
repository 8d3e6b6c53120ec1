"""Mutation benchmarks: what a write costs in jaxtensor, NumPy, PyTorch and raw JAX.

Run (single-threaded, everything side by side in one process)::

    python benchmarks/bench_mutation.py            # full sizes, writes docs/benchmarks.md
    python benchmarks/bench_mutation.py --quick    # small sizes, prints only

Workloads (issue: "Mutation that costs what it writes"):
  * eager scalar write ``x[i] = v`` against array size, each write observed by a read, and a
    loop of 1000 writes followed by one read;
  * slice writes ``x[a:b] = v`` and writes through a view;
  * per-operation overhead: view creation, small ``a + b``, reading a view after a write;
  * a mutating function under ``jaxtensor.jit`` vs NumPy in place and pure JAX;
  * peak RSS of a write loop on a 10^8-element array (no second copy of the base).
"""

from __future__ import annotations

import argparse  # noqa: E402
import os
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import _common  # single-threaded XLA: imported before jax
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import jaxtensor as jt  # noqa: E402

torch = _common.torch_one_thread()
ROOT, DOC = _common.ROOT, _common.DOC
BEGIN, END = "<!-- mutation:begin -->", "<!-- mutation:end -->"


def per_call(fn: Callable[[], object], n: int, repeat: int = 5) -> float:
    """Best-of-``repeat`` mean time of ``fn`` in microseconds over ``n`` calls."""
    fn()
    fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e6


def block(x: object) -> None:
    jax.block_until_ready(x)


# -- scalar writes against size ----------------------------------------------------------------
def scalar_writes(sizes: list[int]) -> dict[str, dict[int, float]]:
    out: dict[str, dict[int, float]] = {k: {} for k in (
        "jaxtensor write+read", "jaxtensor loop (per write)", "JAX eager .at[].set",
        "JAX jit donated .at[].set", "NumPy", "PyTorch")}
    upd = jax.jit(lambda b, i, v: b.at[i].set(v), donate_argnums=0)
    for n in sizes:
        _scalar_at(n, out, upd)
    return out


def _scalar_at(n: int, out: dict[str, dict[int, float]], upd: Callable) -> None:
    x = jt.zeros(n, dtype=jt.float32)
    state = {"i": 0}

    def jt_write_read() -> None:
        state["i"] = (state["i"] + 7919) % n
        x[state["i"]] = 1.5
        block(x._value())

    out["jaxtensor write+read"][n] = per_call(jt_write_read, 200)

    def jt_loop() -> None:
        for k in range(1000):
            x[(k * 7919) % n] = 2.5
        block(x._value())

    out["jaxtensor loop (per write)"][n] = per_call(jt_loop, 3) / 1000

    ja = {"a": jnp.zeros(n, jnp.float32)}
    reps = 20 if n >= 10**6 else 200

    def jax_eager() -> None:
        ja["a"] = ja["a"].at[state["i"]].set(1.5)
        block(ja["a"])

    out["JAX eager .at[].set"][n] = per_call(jax_eager, reps)

    def jax_donated() -> None:
        ja["a"] = upd(ja["a"], np.int64(state["i"]), np.float32(1.5))
        block(ja["a"])

    out["JAX jit donated .at[].set"][n] = per_call(jax_donated, 200)

    a = np.zeros(n, np.float32)

    def np_loop() -> None:
        for k in range(1000):
            a[(k * 7919) % n] = 2.5

    out["NumPy"][n] = per_call(np_loop, 3) / 1000
    if torch is not None:
        t = torch.zeros(n)

        def torch_loop() -> None:
            for k in range(1000):
                t[(k * 7919) % n] = 2.5

        out["PyTorch"][n] = per_call(torch_loop, 3) / 1000


# -- slices, views, overhead --------------------------------------------------------------------
def slice_and_view_writes(n: int) -> list[tuple[str, float, float, float]]:
    """(workload, jaxtensor µs, JAX jit donated µs, NumPy µs)."""
    rows = []
    x = jt.zeros(n, dtype=jt.float32)
    a = np.zeros(n, np.float32)
    upd = jax.jit(lambda b, s, v: jax.lax.dynamic_update_slice(b, v, (s,)), donate_argnums=0)
    ja = {"a": jnp.zeros(n, jnp.float32)}
    ones = jnp.ones(100, jnp.float32)

    def jt_slice() -> None:
        x[1000:1100] = 3.0
        block(x._value())

    def jax_slice() -> None:
        ja["a"] = upd(ja["a"], np.int64(1000), ones)
        block(ja["a"])

    def np_slice() -> None:
        a[1000:1100] = 3.0

    rows.append(("slice write x[1000:1100] = v", per_call(jt_slice, 200),
                 per_call(jax_slice, 200), per_call(np_slice, 2000)))
    v = x[5000:9000]
    av = a[5000:9000]

    def jt_view() -> None:
        v[10:20] = 4.0
        block(x._value())

    def np_view() -> None:
        av[10:20] = 4.0

    rows.append(("write through a view v[10:20] = v", per_call(jt_view, 200),
                 per_call(jax_slice, 200), per_call(np_view, 2000)))
    cols = 1000
    x2 = jt.zeros((n // cols, cols), dtype=jt.float32)
    a2 = np.zeros((n // cols, cols), np.float32)
    upd2 = jax.jit(lambda b, i, j, v: b.at[i, j].set(v), donate_argnums=0)
    ja2 = {"a": jnp.zeros((n // cols, cols), jnp.float32)}
    ij = [0]

    def jt_2d() -> None:
        ij[0] = (ij[0] + 7919) % n
        x2[ij[0] // cols, ij[0] % cols] = 5.0
        block(x2._value())

    def jax_2d() -> None:
        ij[0] = (ij[0] + 7919) % n
        ja2["a"] = upd2(ja2["a"], np.int64(ij[0] // cols), np.int64(ij[0] % cols), 5.0)
        block(ja2["a"])

    def np_2d() -> None:
        ij[0] = (ij[0] + 7919) % n
        a2[ij[0] // cols, ij[0] % cols] = 5.0

    rows.append((f"scalar write into a 2-D base [{n // cols}, {cols}]: x[i, j] = v",
                 per_call(jt_2d, 200), per_call(jax_2d, 200), per_call(np_2d, 2000)))
    return rows


def overheads() -> list[tuple[str, float, float, float | None]]:
    """(operation, jaxtensor µs, raw JAX µs, NumPy µs); jaxtensor and raw JAX in alternating
    rounds (``_common.interleaved``) for the per-call costs of a few µs."""
    rows = []
    y = jt.reshape(jt.arange(100.0, dtype=jt.float32), (10, 10))
    jy = jnp.arange(100.0, dtype=jnp.float32).reshape(10, 10)
    ny = np.arange(100.0, dtype=np.float32).reshape(10, 10)
    rows.append(("view creation x[1:5, 2]", *_common.interleaved(
        lambda: y[1:5, 2], lambda: jy[1:5, 2], rounds=10, n=200),
        per_call(lambda: ny[1:5, 2], 2000)))
    a, b = jt.ones(10, dtype=jt.float32), jt.ones(10, dtype=jt.float32)
    ja, jb = jnp.ones(10, jnp.float32), jnp.ones(10, jnp.float32)
    na, nb = np.ones(10, np.float32), np.ones(10, np.float32)
    small = {
        "small a + b (10 elements)": (lambda: block((a + b)._value()), lambda: block(ja + jb),
                                      lambda: na + nb),
        "small a * 2.0 (10 elements)": (lambda: block((a * 2.0)._value()),
                                        lambda: block(ja * 2.0), lambda: na * 2.0),
        "small x.sum() (10 elements)": (lambda: block(a.sum()._value()),
                                        lambda: block(ja.sum()), lambda: na.sum()),
        "small jt.sum(x) / jnp.sum(x)": (lambda: block(jt.sum(a)._value()),
                                         lambda: block(jnp.sum(ja)), lambda: np.sum(na)),
    }
    for name, (f, g, h) in small.items():
        rows.append((name, *_common.interleaved(f, g), per_call(h, 2000)))
    big_a, big_b = jt.ones(10**7, dtype=jt.float32), jt.ones(10**7, dtype=jt.float32)
    jba, jbb = jnp.ones(10**7, jnp.float32), jnp.ones(10**7, jnp.float32)
    rows.append(("large a + b (10^7 elements)", *_common.interleaved(
        lambda: block((big_a + big_b)._value()), lambda: block(jba + jbb), rounds=10, n=20),
        None))
    rows.append(("large x.sum() (10^7 elements)", *_common.interleaved(
        lambda: block(big_a.sum()._value()), lambda: block(jba.sum()), rounds=10, n=20), None))
    base = jt.zeros((1000, 1000), dtype=jt.float32)
    view = base[10:20, 5]

    def read_after_write() -> None:
        base[0, 0] = 1.0
        block(view._value())

    rows.append(("write base, read a 10-element view", per_call(read_after_write, 500),
                 float("nan"), None))
    return rows


# -- compiled mutation ---------------------------------------------------------------------------
def compiled_mutation(n: int) -> list[tuple[str, float]]:
    rows: list[tuple[str, float]] = []

    w = 10**4  # ten writes of 10^4 elements: NumPy ~tens of µs (docs/benchmarks.md)

    def np_fn(a: np.ndarray) -> None:
        for k in range(10):
            a[k * 2 * w:k * 2 * w + w] = k

    a = np.zeros(n, np.float32)
    rows.append(("NumPy in place", per_call(lambda: np_fn(a), 200)))

    def pure(b: jax.Array) -> jax.Array:
        for k in range(10):
            b = b.at[k * 2 * w:k * 2 * w + w].set(k)
        return b

    pure_j = jax.jit(pure, donate_argnums=0)
    st = {"b": jnp.zeros(n, jnp.float32)}

    def run_pure() -> None:
        st["b"] = pure_j(st["b"])
        block(st["b"])

    rows.append(("pure JAX .at[].set, jit + donate", per_call(run_pure, 200)))
    if hasattr(jt, "jit"):
        def mutate(x: jt.Tensor) -> None:
            for k in range(10):
                x[k * 2 * w:k * 2 * w + w] = k

        jm = jt.jit(mutate)
        x = jt.zeros(n, dtype=jt.float32)

        def run_jt() -> None:
            jm(x)
            block(x._value())

        rows.append(("jaxtensor.jit, in place", per_call(run_jt, 200)))
        try:
            jm_nc = jt.jit(mutate, check_bounds=False)

            def run_nc() -> None:
                jm_nc(x)
                block(x._value())

            rows.append(("jaxtensor.jit(check_bounds=False)", per_call(run_nc, 200)))
        except TypeError:
            pass
    return rows


# -- memory --------------------------------------------------------------------------------------
_RSS_CHILD = r"""
import os, resource, sys
os.environ["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false"
import jax, jaxtensor as jt
n = int(sys.argv[1])
x = jt.zeros(n, dtype=jt.float32)
jax.block_until_ready(x._value())
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
for k in range(200):
    x[(k * 7919) % n] = 1.0
    if k % 50 == 0:
        jax.block_until_ready(x._value())
for k in range(50):
    x[k * 1000:k * 1000 + 10] = 2.0
jax.block_until_ready(x._value())
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(base, peak)
"""


def peak_rss(n: int) -> tuple[float, float, float]:
    """(MiB of the array, RSS MiB after creating it, peak RSS MiB after the write loop)."""
    out = subprocess.run([sys.executable, "-c", _RSS_CHILD, str(n)], capture_output=True,
                         text=True, check=True).stdout.split()
    return n * 4 / 2**20, int(out[0]) / 1024, int(out[1]) / 1024


# -- report --------------------------------------------------------------------------------------
def fmt(v: float | None) -> str:
    if v is None or v != v:
        return "–"
    return f"{v:.2f}" if v < 10 else f"{v:.1f}" if v < 1000 else f"{v:,.0f}"


def plot(scalar: dict[str, dict[int, float]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, pts in scalar.items():
        if pts:
            xs = sorted(pts)
            ax.loglog(xs, [pts[s] for s in xs], marker="o", label=name)
    ax.set_xlabel("array size (float32 elements)")
    ax.set_ylabel("µs per scalar write")
    ax.set_title("Cost of an eager scalar write x[i] = v (single thread)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes; print only")
    args = ap.parse_args()
    sizes = [10**3, 10**5, 10**6] if args.quick else [10**3, 10**4, 10**5, 10**6, 10**7]
    big = 10**6 if args.quick else 10**7
    scalar = scalar_writes(sizes)
    lines = [BEGIN, "## Mutation (eager writes, views, per-operation overhead)", ""]
    cmd = "python benchmarks/bench_mutation.py" + (" --quick" if args.quick else "")
    lines += [
        f"Command: `{cmd}` — single-threaded (the process pinned to one core before JAX starts, XLA eigen threads off, torch 1 thread), all "
        "systems side by side in one process; best of 5 repeats.",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, JAX {jax.__version__}, NumPy {np.__version__}"
        + (f", PyTorch {torch.__version__}" if torch is not None else "")
        + f"; {time.strftime('%Y-%m-%d')}.",
        "",
        "### Scalar write `x[i] = v`, µs per write, against array size",
        "",
        "| system | " + " | ".join(f"{s:.0e}" for s in sizes) + " |",
        "|---|" + "---|" * len(sizes),
    ]
    for name, pts in scalar.items():
        lines.append(f"| {name} | " + " | ".join(fmt(pts.get(s)) for s in sizes) + " |")
    jd = scalar["JAX jit donated .at[].set"]
    wr = scalar["jaxtensor write+read"]
    lp = scalar["jaxtensor loop (per write)"]
    npl = scalar["NumPy"]
    lines += [
        "",
        f"* size independence: jaxtensor write+read at {sizes[-1]:.0e} / at {sizes[1]:.0e} = "
        f"{wr[sizes[-1]] / wr[sizes[1]]:.2f}× (target ≤ 1.5×)",
        f"* jaxtensor write+read / one jitted donated `.at[i].set`: "
        f"{max(wr[s] / jd[s] for s in sizes):.2f}× at worst (target ≤ 2×)",
        f"* loop of 1000 writes then one read, / NumPy's loop: "
        f"{max(lp[s] / npl[s] for s in sizes):.1f}× at worst (stretch target ≤ 20×)",
        "",
        "`jaxtensor write+read` forces the write to land (one compiled, donated update per write);"
        " `jaxtensor loop` queues the 1000 scalar writes and applies them as one ordered, "
        "donated scatter at the read.",
        "",
        "![cost per write](mutation_writes.png)",
        "",
        f"### Slice writes and writes through views ({big:.0e} elements), µs",
        "",
        "| workload | jaxtensor | JAX jit donated dynamic_update_slice (`.at[i, j].set` for the"
        " 2-D write) | NumPy |",
        "|---|---|---|---|",
    ]
    for name, a, b, c in slice_and_view_writes(big):
        lines.append(f"| {name} | {fmt(a)} | {fmt(b)} | {fmt(c)} |")
    lines += ["", "### Per-operation overhead, µs", "",
              "| operation | jaxtensor | raw JAX (eager jnp) | NumPy |", "|---|---|---|---|"]
    for name, a, b, c in overheads():
        ratio = f" ({a / b:.2f}×)" if b == b and b else ""
        lines.append(f"| {name} | {fmt(a)}{ratio} | {fmt(b)} | {fmt(c)} |")
    lines += [
        "",
        "The small and large operations and view creation are timed with jaxtensor and raw eager `jnp` "
        "in alternating rounds of calls (best round each), so background load hits both alike; "
        "`python benchmarks/bench_overhead.py` prints the same comparison on its own. Each "
        "includes blocking on the result. A small operation is one cached compiled call "
        "(~4 µs here) plus Python around it: for an operator, one dictionary lookup of the "
        "kernel chosen for that operand signature, and a Python scalar used again is passed "
        "as a cached device scalar (JAX converts a Python number on every call, ~1.4 µs).",
    ]
    lines += ["", f"### A mutating function (10 slice writes of 10^4) on {big:.0e} elements, "
              "µs per call",
              "", "| system | µs |", "|---|---|"]
    for name, a in compiled_mutation(big):
        lines.append(f"| {name} | {fmt(a)} |")
    rss_n = 10**7 if args.quick else 10**8
    arr_mib, rss0, rss1 = peak_rss(rss_n)
    lines += [
        "",
        f"### Memory: 250 writes into a {rss_n:.0e}-element float32 Tensor ({arr_mib:.0f} MiB)",
        "",
        f"RSS after creating it: {rss0:.0f} MiB; peak RSS after the write loop: {rss1:.0f} MiB "
        f"(growth {rss1 - rss0:.0f} MiB: {'no' if rss1 - rss0 < 0.5 * arr_mib else 'a'} second "
        "copy of the base).",
        END,
    ]
    text = "\n".join(lines)
    print(text)
    if not args.quick:
        plot(scalar, DOC.parent / "mutation_writes.png")
        _common.write_section(BEGIN, END, text)


if __name__ == "__main__":
    main()
