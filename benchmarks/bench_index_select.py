"""index_select benchmark: jaxtensor (default dispatch, tiled kernel, out=) against
``jnp.take`` under ``jax.jit``, NumPy ``take`` and ``torch.index_select``, forward and backward,
single-threaded, side by side in one process (candidates interleaved round by round, best of
the rounds), with the effective GB/s of each next to a plain copy's.

Run::

    python benchmarks/bench_index_select.py            # full sizes; writes docs/benchmarks.md
                                                        # (section index_select) and the plot
    python benchmarks/bench_index_select.py --quick    # small sizes, prints only

Workloads (issue 4):
  * ``[8, 4096, 512]`` float32, 2048 indices on dim -2 (pypto's ``[B, S, D]``, ``[T]``);
  * an embedding table ``[100000, 256]`` float32 with 16384 indices on dim 0;
  * ``[4096, 4096]`` float32 with 1024 indices on dim -1 (column gather);
  * the ``[3, 4]`` example of the pypto page (2 indices on dim 0): per-call overhead.

Effective bandwidth = (bytes of the selected input + bytes of the output) / time, i.e.
``2 * out.nbytes / t`` for a forward pass; the copy reference moves the same bytes.
"""

from __future__ import annotations

import argparse  # noqa: E402
import os
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import _common  # single-threaded XLA: imported before jax

# One core, really: XLA:CPU splits a large loop fusion (a whole gather) over its intra-op thread
# pool, which it sizes from the cores this process may run on; the XLA_FLAGS set by _common do
# not stop that (``--xla_cpu_multi_thread_eigen=false`` covers Eigen's matmuls and convolutions,
# ``intra_op_parallelism_threads`` is not an XLA flag), so without this the direct gather ran on
# two threads when the shared machine's other core was idle while a ``while`` loop never does.
# Pinned before jax starts, every candidate (XLA, NumPy, PyTorch) runs on one core.
if hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
# The tiled loop's uninitialised output (opt-in, off by default): the recorded runs used it.
os.environ.setdefault("JAXTENSOR_UNINITIALIZED_OUTPUT", "1")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import jaxtensor as jt  # noqa: E402
from jaxtensor import _index_select  # noqa: E402
from jaxtensor._core import _config  # noqa: E402

torch = _common.torch_one_thread()
ROOT, DOC = _common.ROOT, _common.DOC
PLOT = ROOT / "docs" / "index_select_bench.png"
BEGIN, END = "<!-- index_select:begin -->", "<!-- index_select:end -->"

WORKLOADS = {
    "[8,4096,512] f32, 2048 idx, dim -2": ((8, 4096, 512), 2048, -2),
    "[100000,256] f32 embedding, 16384 idx": ((100000, 256), 16384, 0),
    "[4096,4096] f32, 1024 idx, dim -1": ((4096, 4096), 1024, -1),
    "[3,4] f32 (pypto example), 2 idx, dim 0": ((3, 4), 2, 0),
}
QUICK = {
    "[8,512,128] f32, 256 idx, dim -2": ((8, 512, 128), 256, -2),
    "[3,4] f32 (pypto example), 2 idx, dim 0": ((3, 4), 2, 0),
}


def _block(r: object) -> None:
    if isinstance(r, jt.Tensor):
        r = r._storage.array
    if isinstance(r, jax.Array) or isinstance(r, (tuple, list)):
        jax.block_until_ready(r)


def race(cands: dict[str, Callable[[], object]], rounds: int, inner: int) -> dict[str, float]:
    """Best time per call (seconds) of each candidate, interleaved round by round (in a fresh
    random order each round) so that the load of a shared machine hits every candidate alike."""
    for f in cands.values():  # compile and warm up
        _block(f())
        _block(f())
    best = {k: float("inf") for k in cands}
    order = list(cands.items())
    rng = np.random.default_rng(0)
    for _ in range(rounds):
        rng.shuffle(order)  # no candidate always runs right after the same other one
        for k, f in order:
            t0 = time.perf_counter()
            for _ in range(inner):
                r = f()
            _block(r)
            best[k] = min(best[k], (time.perf_counter() - t0) / inner)
            del r
    return best


def forward_candidates(shape: tuple, k: int, dim: int) -> tuple[dict, int]:
    rng = np.random.default_rng(0)
    xn = rng.standard_normal(shape, dtype=np.float32)
    idn = rng.integers(0, shape[dim], k).astype(np.int64)
    x, idx = jt.asarray(xn), jt.asarray(idn)
    xj, ij = x.to_jax(), idx.to_jax()
    oshape = list(shape)
    oshape[dim] = k
    oshape = tuple(oshape)
    nbytes = int(np.prod(oshape)) * 4
    d = dim % len(shape)
    tile = _index_select.default_tile(oshape, 4, "cpu")
    take_jit = jax.jit(lambda a, i: jnp.take(a, i, axis=dim))
    select_jit = jax.jit(lambda a, i: jt.index_select(a, dim, i).to_jax())
    copy_jit = jax.jit(lambda a: a + 0)
    src_copy = jnp.asarray(np.ones(int(np.prod(oshape)), np.float32))
    out_t = jt.zeros(oshape, dtype=jt.float32)
    out_d = jt.zeros(oshape, dtype=jt.float32)
    np_out = np.empty(oshape, np.float32)

    def jt_out_auto() -> object:
        return jt.index_select(x, dim, idx, out=out_t)

    def jt_direct() -> object:
        _config.INDEX_SELECT_DISPATCH = "direct"
        try:
            return jt.index_select(x, dim, idx)
        finally:
            _config.INDEX_SELECT_DISPATCH = "auto"

    def jt_out_tiled() -> object:
        return jt.index_select(x, dim, idx, out=out_d, tile_shape=tile)

    out_x = jt.zeros(oshape, dtype=jt.float32)

    def jt_out_direct() -> object:
        _config.INDEX_SELECT_DISPATCH = "direct"
        try:
            return jt.index_select(x, dim, idx, out=out_x)
        finally:
            _config.INDEX_SELECT_DISPATCH = "auto"

    c = {
        "jt.index_select (default)": lambda: jt.index_select(x, dim, idx),
        f"jt tiled {list(tile)}": lambda: jt.index_select(x, dim, idx, tile_shape=tile),
        "jt direct": jt_direct,
        "jt out= (default)": jt_out_auto,
        f"jt out= tiled {list(tile)}": jt_out_tiled,
        "jt out= direct": jt_out_direct,
        "jt.index_select in jax.jit": lambda: select_jit(xj, ij),
        "jnp.take (jit)": lambda: take_jit(xj, ij),
        "numpy take": lambda: np.take(xn, idn, axis=dim),
        "numpy take out=": lambda: np.take(xn, idn, axis=dim, out=np_out),
        "copy (jax, fresh)": lambda: copy_jit(src_copy),
        "copy (numpy, into)": lambda: np.copyto(np_out, xn.reshape(-1)[: np_out.size].reshape(
            oshape)),
    }
    if torch is not None:
        xt, it = torch.from_numpy(xn), torch.from_numpy(idn)
        t_out = torch.empty(oshape)
        c["torch.index_select"] = lambda: torch.index_select(xt, d, it)
        c["torch.index_select out="] = lambda: torch.index_select(xt, d, it, out=t_out)
    # correctness of every jaxtensor path on the benchmark inputs
    ref = np.take(xn, idn, axis=dim)
    for name in ("jt.index_select (default)", f"jt tiled {list(tile)}", "jt direct",
                 "jt.index_select in jax.jit"):
        assert np.array_equal(np.asarray(c[name]()), ref), name
    jt_out_auto()
    jt_out_tiled()
    assert np.array_equal(np.asarray(out_t), ref) and np.array_equal(np.asarray(out_d), ref)
    return c, nbytes


def backward_candidates(shape: tuple, k: int, dim: int) -> dict:
    rng = np.random.default_rng(1)
    xn = rng.standard_normal(shape, dtype=np.float32)
    idn = rng.integers(0, shape[dim], k).astype(np.int64)
    oshape = list(shape)
    oshape[dim] = k
    wn = rng.standard_normal(oshape, dtype=np.float32)
    xj, ij, wj = jnp.asarray(xn), jnp.asarray(idn), jnp.asarray(wn)
    tile = _index_select.default_tile(tuple(oshape), 4, "cpu")

    # index and weights are arguments, not closed-over constants: XLA would constant-fold
    # the whole (x-independent) gradient otherwise
    def loss_jt(v: object, i: object, w: object, tile: object = None) -> object:
        return jnp.vdot(w, jt.index_select(v, dim, i, tile_shape=tile).to_jax())

    def loss_take(v: object, i: object, w: object) -> object:
        return jnp.vdot(w, jnp.take(v, i, axis=dim))

    gj = jax.jit(jax.grad(loss_jt))
    gt = jax.jit(jax.grad(lambda v, i, w: loss_jt(v, i, w, tile)))
    gk = jax.jit(jax.grad(loss_take))
    c = {
        "jt grad (default)": lambda: gj(xj, ij, wj),
        f"jt grad tiled {list(tile)}": lambda: gt(xj, ij, wj),
        "jnp.take grad (jit)": lambda: gk(xj, ij, wj),
    }
    ref = np.asarray(c["jnp.take grad (jit)"]())
    for f in list(c.values())[:2]:
        np.testing.assert_allclose(np.asarray(f()), ref, rtol=1e-5, atol=1e-5)
    if torch is not None:
        xt = torch.from_numpy(xn.copy()).requires_grad_()
        it, wt = torch.from_numpy(idn), torch.from_numpy(wn)
        d = dim % len(shape)

        def torch_bwd() -> object:
            xt.grad = None
            (torch.index_select(xt, d, it) * wt).sum().backward()
            return xt.grad

        c["torch autograd"] = torch_bwd
        np.testing.assert_allclose(torch_bwd().numpy(), ref, rtol=1e-4, atol=1e-4)
    return c


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{cpu}, {os.cpu_count()} cores (the benchmark pins itself to one of them); Python "
            f"{platform.python_version()}, jax {jax.__version__}, numpy {np.__version__}, "
            f"torch {getattr(torch, '__version__', 'n/a')}, backend {jax.default_backend()}")


def fmt_t(s: float) -> str:
    return f"{s * 1e6:.1f} µs" if s < 1e-3 else f"{s * 1e3:.2f} ms"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--plot", metavar="PNG", help="with --quick: draw the figure there")
    args = ap.parse_args()
    work = QUICK if args.quick else WORKLOADS
    load0 = os.getloadavg()
    results = []
    for name, (shape, k, dim) in work.items():
        small = np.prod(shape) < 10_000
        inner = 200 if small else 1
        fwd, nbytes = forward_candidates(shape, k, dim)
        tf = race(fwd, args.rounds, inner)
        bwd = backward_candidates(shape, k, dim)
        tb = race(bwd, args.rounds, inner)
        results.append((name, nbytes, tf, tb))
        base = tf["jnp.take (jit)"]
        print(f"\n== {name}  (output {nbytes / 2**20:.2f} MiB)")
        for kname, t in tf.items():
            print(f"  {kname:32s} {fmt_t(t):>10s}  {t / base:5.2f}x jnp.take  "
                  f"{2 * nbytes / t / 1e9:6.2f} GB/s")
        bb = tb["jnp.take grad (jit)"]
        for kname, t in tb.items():
            print(f"  {kname:32s} {fmt_t(t):>10s}  {t / bb:5.2f}x jnp.take grad")
        sys.stdout.flush()
    load1 = os.getloadavg()
    if args.quick:
        if args.plot:
            plot(results, Path(args.plot))
        return
    write_doc(results, load0, load1, args.rounds)
    plot(results)


def write_doc(results: list, load0: tuple, load1: tuple, rounds: int) -> None:
    lines = [
        BEGIN,
        "## index_select",
        "",
        "Command: `python benchmarks/bench_index_select.py` (one core: the process pins itself "
        "to one core with `os.sched_setaffinity` before jax starts, so XLA's intra-op pool has "
        "one thread, plus `XLA_FLAGS=--xla_cpu_multi_thread_eigen=false` and "
        "`torch.set_num_threads(1)`, and "
        f"`JAXTENSOR_UNINITIALIZED_OUTPUT={os.environ['JAXTENSOR_UNINITIALIZED_OUTPUT']}` (the "
        "tiled loop's opt-in uninitialised output; the benchmark sets 1 unless the environment "
        "says otherwise); every candidate of a workload interleaved round by round in one "
        f"process, best of {rounds} rounds).",
        "",
        f"Machine: {machine()}. The machine was shared with other jobs during the run (load "
        f"average {load0[0]:.1f} before, {load1[0]:.1f} after, on {os.cpu_count()} cores): "
        "absolute times are noisy, the ratios within a workload are what to read.",
        "",
        "Times are per call; *x take* is the time relative to `jnp.take(x, idx, axis=dim)` "
        "under `jax.jit` (lower is faster); GB/s = 2 × output bytes / time (bytes gathered + "
        "bytes written). `jt.index_select` is called eagerly (its cached compiled kernel plus "
        "argument checking, including the eager bounds check), except in the row "
        "`jt.index_select in jax.jit`: a `jax.jit` function calling it, compared with the same "
        "function calling `jnp.take` — the issue's \"never slower than `jnp.take` under "
        "`jax.jit`\".",
        "",
    ]
    for name, nbytes, tf, tb in results:
        base = tf["jnp.take (jit)"]
        bb = tb["jnp.take grad (jit)"]
        lines += [f"### {name} — output {nbytes / 2**20:.2f} MiB", "",
                  "| forward | time | x take | GB/s |", "| --- | ---: | ---: | ---: |"]
        for k, t in tf.items():
            lines.append(f"| {k} | {fmt_t(t)} | {t / base:.2f} | {2 * nbytes / t / 1e9:.2f} |")
        lines += ["", "| forward + backward (grad of `sum(w * out)`) | time | x take grad |",
                  "| --- | ---: | ---: |"]
        for k, t in tb.items():
            lines.append(f"| {k} | {fmt_t(t)} | {t / bb:.2f} |")
        lines.append("")
    lines += [
        "Tiled kernel (default tile) vs direct gather, same run (both called eagerly through "
        "`jt.index_select`, the direct one with `_config.INDEX_SELECT_DISPATCH = \"direct\"`):",
        "",
        "| workload | tiled / direct, fresh output | tiled / direct, out= | default picks "
        "(fresh / out=) | default / faster of the two (fresh / out=) |",
        "| --- | ---: | ---: | --- | ---: |",
    ]
    over: list[str] = []
    slower: list[str] = []
    for name, _, tf, _ in results:
        tiled = next(v for k, v in tf.items() if k.startswith("jt tiled"))
        tiled_out = next(v for k, v in tf.items() if k.startswith("jt out= tiled"))
        direct, direct_out = tf["jt direct"], tf["jt out= direct"]
        r_fresh, r_out = tiled / direct, tiled_out / direct_out
        # the default is its own candidate (same compiled kernel as the one it picks, its own
        # timing): its time over the faster of the two kernels
        d_fresh = tf["jt.index_select (default)"] / min(tiled, direct)
        d_out = tf["jt out= (default)"] / min(tiled_out, direct_out)
        kinds = (_default_kind(name, False), _default_kind(name, True))
        short = name.split(" ")[0]
        for what, r, dr, kind in (("fresh", r_fresh, d_fresh, kinds[0]),
                                  ("out=", r_out, d_out, kinds[1])):
            if r > 1.2:
                over.append(f"{short} {what} ({r:.2f}x)")
            if dr > 1.05:
                slower.append(f"{short} {what} ({kind}, {dr:.2f}x)")
        lines.append(f"| {name} | {r_fresh:.2f} | {r_out:.2f} | {kinds[0]} / {kinds[1]} | "
                     f"{d_fresh:.2f} / {d_out:.2f} |")
    lines += [
        "",
        ("Where the tiled kernel is above 1.2x the direct gather in this run: "
         + ", ".join(over) + "." if over else
         "The tiled kernel is within 1.2x of the direct gather on every workload, for fresh "
         "outputs and for `out=`."),
        "",
        ("In this run the default call was more than 5% slower than the faster of the two "
         "kernels for: " + ", ".join(slower) + "." if slower else
         "In this run the default call was as fast as the faster of the two kernels, or within "
         "5% of it, on every workload."),
        "",
        "The default call is timed as its own candidate; where it picks the same kernel as "
        "another candidate, the two times differ only by the noise of the run (this shared "
        "machine moves single timings by 5-15% even as the best of the rounds).",
    ]
    lines += [
        "",
        "How to read it: the tiled loop starts from an uninitialised buffer (a no-op FFI call "
        "on CPU, the opt-in `JAXTENSOR_UNINITIALIZED_OUTPUT=1` this benchmark sets; XLA:CPU "
        "zero-fills a `lax.empty` or `jnp.zeros` carry, the default, a full extra pass "
        "that made the loop 1.4-4x slower than the gather before) or from the donated `out=` "
        "buffer, casts the index once, and runs one fused gather-into-the-output loop per "
        "tile: on one core it costs what the single gather costs, and less for the column "
        "gather (`dim=-1`), where XLA's code for one gather over the whole output is slower than "
        "for the same gather per tile (a code-generation effect, see `docs/index_select.md`). "
        "The default (`_index_select.choose_kernel`) therefore runs the tiled loop for short "
        "rows under leading dimensions and the direct gather elsewhere (equal there: one "
        "fusion, shorter compile); with several cores it runs the direct gather, which XLA "
        "splits over threads; traced calls (the `jt grad (default)` rows) keep the direct "
        "gather. A fresh output on CPU also pays for "
        "its allocation (page faults above ~16 MiB, whichever kernel fills it); writing into "
        "an existing buffer (`out=`, donated) removes that for both kernels — the direct "
        "gather writes into it through a full-size `dynamic_update_slice` — and is the biggest "
        "win available (compare `torch.index_select(out=)`). The machine is shared, so single "
        "runs disagree at the 5-30% level. "
        "Backward is XLA's scatter-add for every JAX path "
        "(both kernels' custom_jvp transposes to it), so the gradient ratios against "
        "`jnp.take` are ~1 up to noise — except for short rows (`dim=-1`), where jaxtensor's "
        "tangent gather transposes to a scatter-add batched row by row (cache-friendly) "
        "instead of one strided column per index. The `[3, 4]` example measures per-call "
        "overhead: an eager call repeating a signature it has seen looks up the kernel chosen "
        "then and checks the index bounds (remembered per index array: a jax Array never "
        "changes), 2-3 µs of Python around the compiled call; inside a user's `jax.jit` that "
        "overhead is gone (the same gather is traced).",
        "",
        f"![index_select benchmark]({PLOT.name})",
        "",
        END,
    ]
    _common.write_section(BEGIN, END, "\n".join(lines))
    print(f"wrote {DOC}")


def _default_kind(name: str, donated: bool) -> str:
    shape, k, dim = WORKLOADS.get(name) or QUICK[name]
    d = dim % len(shape)
    oshape = list(shape)
    oshape[d] = k
    return _index_select.choose_kernel("cpu", oshape, 4, donated, int(np.prod(shape[:d])),
                                       int(np.prod(shape[d + 1:])))


def plot(results: list, path: Path = PLOT) -> None:
    """One panel per workload and direction (forward; forward + backward): each panel's bars
    are that workload's candidates, labelled on the axis, relative to ``jnp.take``."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover
        print("matplotlib not installed: no plot")
        return
    n = len(results)
    fig, axes = plt.subplots(n, 2, figsize=(13, 3.2 * n + 0.6), squeeze=False)
    for row, (name, _nbytes, tf, tb) in enumerate(results):
        for col, (d, base_key, title) in enumerate(
                ((tf, "jnp.take (jit)", "forward"),
                 (tb, "jnp.take grad (jit)", "forward + backward"))):
            ax = axes[row][col]
            keys = [k for k in d if not k.startswith("copy")]
            vals = [d[k] / d[base_key] for k in keys]
            colors = ["#888888" if k == base_key else
                      "#1f77b4" if k.startswith("jt") else "#ff7f0e" for k in keys]
            y = np.arange(len(keys))
            ax.barh(y, vals, color=colors)
            ax.axvline(1.0, color="k", lw=0.8)
            ax.set_yticks(y)
            ax.set_yticklabels([k.split(" [")[0] for k in keys], fontsize=9)
            ax.invert_yaxis()
            ax.set_xscale("log")
            ax.set_xlabel("time / jnp.take (lower is faster)", fontsize=9)
            ax.set_title(f"{name}: {title}", fontsize=10)
            for yi, v in zip(y, vals):
                ax.text(v, yi, f" {v:.2f}", va="center", fontsize=8)
    fig.suptitle("index_select, one CPU core (shared machine); blue: jaxtensor, orange: "
                 "others, grey: the jnp.take baseline", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
