"""Write costs: each kind of write against the cheapest hand-written JAX that does the same.

Every workload pairs a jaxtensor candidate with an anchor (donated ``jax.jit``, or another
jaxtensor form of the same write) and times them in alternating rounds in one process, one
core; a ratio is the median over rounds of candidate / anchor within a round (robust to load
on a shared machine), with the ratio of the best rounds beside it. Everything is forced to
finish inside the timed region (``block_until_ready`` on the written value).

Run::

    python benchmarks/bench_writes.py                 # prints the table
    python benchmarks/bench_writes.py --quick         # small sizes, a quick check
    python benchmarks/bench_writes.py --compare ../base/src
        # the same workloads on another checkout's jaxtensor (before) and on this one
        # (after), each in a fresh subprocess; writes the section "Write costs" of
        # docs/benchmarks.md
    python benchmarks/bench_writes.py --platform gpu  # on an accelerator, if JAX has one

Workloads (issue targets in brackets):

* ``iadd``: ``x += 1`` on a 1e7 float32 Tensor, against donated ``jax.jit(a + 1)`` [<= 1.2x];
* ``jit_slices``: 10 read-modify-writes ``x[s:s+1000] = x[s:s+1000] * 0.5 + k`` at Python-int
  positions inside ``jaxtensor.jit`` (1e7), against a donated ``lax.dynamic_update_slice``
  version given the starts as an array (with constant starts XLA:CPU loops over the whole
  buffer per write, which would flatter jaxtensor) [<= 2x];
* ``fancy``: ``x[idx] = 3.0``, 1000 unique indices into 1e6, against donated
  ``.at[idx].set`` [<= 3x];
* ``mask``: ``x[mask] = 0.0``, half of 1e6 True, against donated ``jnp.where`` [<= 2x];
* ``fresh_view``: 1000 writes ``X.T[i, j] = v`` through a fresh ``.T`` each time, against the
  same writes through a ``.T`` kept in a variable [<= 1.3x];
* ``checked``: 32 scalar writes at traced positions under ``jaxtensor.jit``, bounds checked
  (the default) against ``check_bounds=False`` [<= 1.5x]; the position a 0-D array;
* ``checked_int``: the same with the position a Python int (a loop's variable) [<= 1.5x];
* ``second_process``: a small program's first calls in a second fresh process against the
  first process (same compilation cache directory) [<= 0.4x].
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGETS = {"iadd": 1.2, "jit_slices": 2.0, "fancy": 3.0, "mask": 2.0, "fresh_view": 1.3,
           "checked": 1.5, "checked_int": 1.5, "second_process": 0.4}
ANCHORS = {
    "iadd": "donated jax.jit(a + 1)",
    "jit_slices": "donated jax.jit, lax.dynamic_update_slice",
    "fancy": "donated jax.jit .at[idx].set",
    "mask": "donated jax.jit jnp.where",
    "fresh_view": "the same writes through a kept view",
    "checked": "jaxtensor.jit check_bounds=False",
    "checked_int": "jaxtensor.jit check_bounds=False",
    "second_process": "first process (first calls)",
}

# a small program for second_process: its first calls, timed in a fresh process
PROGRAM = """
import time
import jaxtensor as jt
t0 = time.perf_counter()  # (the first calls, not the imports)
x = jt.zeros((64, 64), dtype=jt.float32)
x[1:3] = 2.0
x[:, 5] += 1
y = jt.sum(x * 2.0 + 1, axis=0)
x[jt.asarray([1, 2, 7])] = 4.0
x[x > 3] = 0.0
@jt.jit
def f(a, i):
    a[i] = a[i] * 0.5 + 1
    return a.sum()
f(x, 3)
float(y[0] + f(x, 4))
print(time.perf_counter() - t0)
"""


def _rounds(cand: Callable[[], None], anchor: Callable[[], None], n: int,
            rounds: int) -> tuple[float, float, float]:
    """(best µs per call of the anchor, ratio of the best rounds, median ratio over rounds)."""
    for f in (cand, anchor, cand, anchor):
        f()
    tc, ta, ratios = [], [], []
    for _ in range(rounds):
        pair = []
        for f in (cand, anchor):
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            pair.append((time.perf_counter() - t0) / n)
        tc.append(pair[0])
        ta.append(pair[1])
        ratios.append(pair[0] / pair[1])
    return min(ta) * 1e6, min(tc) / min(ta), statistics.median(ratios)


def measure(quick: bool) -> dict[str, list[float]]:
    import _common  # noqa: F401  (one core, before jax)
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    import jaxtensor as jt

    big = 10**5 if quick else 10**7
    mid = 10**4 if quick else 10**6
    rounds = 3 if quick else 15
    rng = np.random.default_rng(0)
    out: dict[str, list[float]] = {}

    def block(t: jt.Tensor) -> None:
        t._storage.array.block_until_ready()

    # iadd
    x = jt.zeros(big, dtype=jt.float32)
    inc = jax.jit(lambda a: a + 1.0, donate_argnums=0)
    st = [jnp.zeros(big, jnp.float32)]  # (x64 is on: say float32)

    def c_iadd() -> None:
        nonlocal x
        x += 1.0
        block(x)

    def a_iadd() -> None:
        st[0] = inc(st[0])
        st[0].block_until_ready()

    out["iadd"] = list(_rounds(c_iadd, a_iadd, 20, rounds))

    # jit_slices
    starts = [int(s) for s in np.linspace(0, big - 1000, 10)]

    @jt.jit
    def slices(t: jt.Tensor) -> None:
        for k, s in enumerate(starts):
            t[s:s + 1000] = t[s:s + 1000] * 0.5 + k

    def slices_jax(a: jax.Array, at: jax.Array) -> jax.Array:
        # (the starts as data: a constant start makes XLA:CPU loop over the whole buffer)
        for k in range(len(starts)):
            w = lax.dynamic_slice(a, (at[k],), (1000,))
            a = lax.dynamic_update_slice(a, w * 0.5 + k, (at[k],))
        return a

    sj = jax.jit(slices_jax, donate_argnums=0)
    at_starts = jnp.asarray(starts)
    y = jt.zeros(big, dtype=jt.float32)
    st2 = [jnp.zeros(big, jnp.float32)]

    def c_slices() -> None:
        slices(y)
        block(y)

    def a_slices() -> None:
        st2[0] = sj(st2[0], at_starts)
        st2[0].block_until_ready()

    out["jit_slices"] = list(_rounds(c_slices, a_slices, 50, rounds))

    # fancy and mask
    idx_np = rng.choice(mid, 1000, replace=False)
    idx, jidx = jt.asarray(idx_np), jnp.asarray(idx_np)
    mask_np = rng.random(mid) < 0.5
    mask, jmask = jt.asarray(mask_np), jnp.asarray(mask_np)
    z = jt.zeros(mid, dtype=jt.float32)
    at = jax.jit(lambda a, i: a.at[i].set(3.0), donate_argnums=0)
    wh = jax.jit(lambda a, m: jnp.where(m, 0.0, a), donate_argnums=0)
    st3 = [jnp.zeros(mid, jnp.float32)]

    def c_fancy() -> None:
        z[idx] = 3.0
        block(z)

    def a_fancy() -> None:
        st3[0] = at(st3[0], jidx)
        st3[0].block_until_ready()

    def c_mask() -> None:
        z[mask] = 0.0
        block(z)

    def a_mask() -> None:
        st3[0] = wh(st3[0], jmask)
        st3[0].block_until_ready()

    out["fancy"] = list(_rounds(c_fancy, a_fancy, 50, rounds))
    out["mask"] = list(_rounds(c_mask, a_mask, 20, rounds))

    # fresh_view
    X = jt.zeros((1000, 1000), dtype=jt.float32)
    XT = X.T
    ij = [(int(i), int(j)) for i, j in rng.integers(0, 1000, (1000, 2))]

    def c_fresh() -> None:
        for i, j in ij:
            X.T[i, j] = 1.0
        block(X)

    def a_kept() -> None:
        for i, j in ij:
            XT[i, j] = 2.0
        block(X)

    out["fresh_view"] = list(_rounds(c_fresh, a_kept, 2, rounds))

    # checked
    def scalar_writes(t: jt.Tensor, i: jax.Array) -> None:
        for k in range(32):
            t[i + k] = t[i + k] + 1.0

    chk = jt.jit(scalar_writes)
    unchk = jt.jit(scalar_writes, check_bounds=False)
    w = jt.zeros(mid, dtype=jt.float32)
    i0 = jnp.asarray(5)

    def c_chk() -> None:
        chk(w, i0)
        block(w)

    def a_unchk() -> None:
        unchk(w, i0)
        block(w)

    out["checked"] = list(_rounds(c_chk, a_unchk, 200, rounds))

    # (new functions: a Python int is traced as another type than a 0-D array)
    chk_int = jt.jit(scalar_writes)
    unchk_int = jt.jit(scalar_writes, check_bounds=False)

    def c_chk_int() -> None:
        chk_int(w, 5)
        block(w)

    def a_unchk_int() -> None:
        unchk_int(w, 5)
        block(w)

    out["checked_int"] = list(_rounds(c_chk_int, a_unchk_int, 200, rounds))
    return out


def second_process(src: str | None) -> list[float]:
    """First calls of PROGRAM in a first and a second fresh process sharing a new cache."""
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    with tempfile.TemporaryDirectory() as d:
        env["JAXTENSOR_COMPILATION_CACHE"] = d
        env["XDG_CACHE_HOME"] = d
        times = [float(subprocess.run([sys.executable, "-c", PROGRAM], env=env, check=True,
                                      capture_output=True, text=True).stdout)
                 for _ in range(2)]
    return [times[0] * 1e6, times[1] / times[0], times[1] / times[0]]


def run_in(src: str | None, quick: bool) -> dict[str, list[float]]:
    """``measure`` in a fresh subprocess importing jaxtensor from ``src`` (None: this tree)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = src or str(HERE.parent / "src")
    args = [sys.executable, str(Path(__file__)), "--json"] + (["--quick"] if quick else [])
    res = subprocess.run(args, env=env, check=True, capture_output=True, text=True)
    out = json.loads(res.stdout.strip().splitlines()[-1])
    out["second_process"] = second_process(env["PYTHONPATH"])
    return out


def table(before: dict | None, after: dict) -> str:
    head = ("| write | anchor | target | before: ratio (median) | after: ratio (median) | "
            "anchor µs |" if before else "| write | anchor | target | ratio (median) | anchor µs |")
    lines = [head, "|" + " --- |" * (6 if before else 5)]
    for name, (us, best, med) in after.items():
        cells = [f"`{name}`", ANCHORS[name], f"≤ {TARGETS[name]}×"]
        if before:
            b = before.get(name)
            cells.append(f"{b[1]:.2f}× ({b[2]:.2f}×)" if b else "—")
        cells += [f"{best:.2f}× ({med:.2f}×)", f"{us:,.1f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--json", action="store_true", help="print the raw results as JSON")
    p.add_argument("--compare", metavar="SRC", help="another checkout's src: before/after")
    p.add_argument("--platform", help="JAX platform (cpu, gpu); default: JAX's default")
    a = p.parse_args()
    if a.platform:
        os.environ["JAX_PLATFORMS"] = a.platform
    if a.json:
        print(json.dumps(measure(a.quick)))
        return
    if not a.compare:
        after = run_in(None, a.quick)
        print(table(None, after))
        return
    before = run_in(a.compare, a.quick)
    after = run_in(None, a.quick)
    print(table(before, after))
    if a.quick:
        return
    import platform

    import _common
    rev = subprocess.run(["git", "-C", a.compare, "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True).stdout.strip() or "unknown"
    cmd = "python benchmarks/bench_writes.py --compare <a checkout of the before commit>/src"
    block = "\n".join([
        "<!-- writes: begin (benchmarks/bench_writes.py) -->",
        "## Write costs: every write kind against hand-written JAX (issue 19)",
        "",
        "Each write beside its anchor in one process, one core, alternating rounds; a cell is "
        "the ratio of the best rounds and, in parentheses, the median of the ratios within "
        f"rounds. *Before* is commit {rev} (given to `--compare`: the code before issue 19's "
        "work), *after* this tree; each ran in its own fresh subprocess. `second_process` is "
        "a small program's first calls in a second fresh process over the first's time, "
        "sharing one new compilation cache directory.",
        "",
        f"Command: `{cmd}`  ",
        f"Machine: {platform.machine()}, Python {platform.python_version()}; a shared "
        "machine, so read the ratios, not the absolute times.",
        "",
        table(before, after),
        "",
        "<!-- writes: end -->",
    ])
    _common.write_section("<!-- writes: begin", "<!-- writes: end -->", block)


if __name__ == "__main__":
    main()
