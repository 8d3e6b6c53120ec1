"""Loop programs benchmark (issue 28): real loop programs (``tests/loop_ports.py``), each as
the idiomatic jaxtensor port called at the top level with the default checks against the
hand-written ``jax.jit`` + ``lax`` version of the same algorithm, measured side by side in one
process on one core.

Run::

    python benchmarks/bench_loop_programs.py --quick          # small sizes, prints only
    taskset -c 1 python benchmarks/bench_loop_programs.py --write before
                      # full sizes; writes docs/benchmarks.md, section
                      # "Loop programs (issue 28): before"
    python benchmarks/bench_loop_programs.py --programs lcs,rk4 --limit 60

Per program (each measurement in its own process, killed after ``--limit`` seconds and
reported as ``> limit``; JAX's persistent compilation cache off):

* ``first``: the first call (trace, compile and run) of the ``lax`` version and of the port,
  each after ``jax.clear_caches()`` and ``jt.clear_caches()``; the ratio, and the backend
  compilations the port's first call made;
* ``steady``: later calls on fresh copies of one input, candidates interleaved in random order
  each round: the port at the top level, the ``lax`` version (donated where it updates in
  place), and the port inside ``jt.jit`` with checks on (the default) and with
  ``check_bounds=False`` (a top-level loop has no switch for its checks); the best round's
  ratio and the median of the per-round ratios;
* ``recompiles``: ``--calls`` calls of the port with fresh inputs (new arrays and new Python
  numbers, so new closures): the backend compilations (``jax.monitoring``) of calls 2..n,
  and how many calls gave NumPy's result;
* ``grad`` (the ODE): ``jt.grad`` of the port's loss on ``--calls`` fresh inputs against
  ``jax.grad`` of the ``lax`` version: right, wrong or the exception, per call.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import _common  # one core; imported before jax (which is imported per function here)

sys.path.insert(0, str(_common.ROOT / "tests"))

MEASURES = ("first", "steady", "recompiles", "grad")


# -- the child: one measurement of one program ----------------------------------------------
def _emit(**kv: Any) -> None:
    print(json.dumps(kv), flush=True)


def _block(out: Any) -> Any:
    import numpy as np
    return np.asarray(out)


def _right(p: Any, got: Any, want: Any) -> bool:
    try:
        p.check(got, want)
    except AssertionError:
        return False
    return True


def _count_compiles(run: Callable[[], Any]) -> tuple[int, Any]:
    import jax
    count = 0

    def listener(event: str, duration: float, **kwargs: object) -> None:
        nonlocal count
        if event == "/jax/core/compile/backend_compile_duration":
            count += 1

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        out = run()
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)
    return count, out


def _child(name: str, measure: str, size: int, calls: int, rounds: int, budget: float) -> None:
    import jax
    import numpy as np

    import jaxtensor as jt
    from loop_ports import PROGRAMS, rk4_loss_grad_lax, rk4_loss_port

    p = PROGRAMS[name]
    draw = [p.make_inputs(np.random.default_rng(seed), size) for seed in range(calls)]
    want = [p.numpy(*p.args(d, lambda a: a)) for d in draw]

    if measure == "first":
        for version, fn, args in (("lax", p.lax, p.lax_args), ("port", p.port, p.port_args)):
            a = args(draw[0])
            jax.clear_caches()
            jt.clear_caches()
            t0 = time.perf_counter()
            n, out = _count_compiles(lambda fn=fn, a=a: _block(fn(*a)))
            _emit(**{f"first_{version}": time.perf_counter() - t0,
                     f"first_{version}_compiles": n,
                     f"first_{version}_right": _right(p, out, want[0])})
    elif measure == "steady":
        def jitted(check: bool) -> Callable:
            return jt.jit(p.traced or p.port, static_argnums=p.static or None,
                          check_bounds=check)

        cands = {"port": (p.port, p.port_args), "lax": (p.lax, p.lax_args),
                 "jit_checked": (jitted(True), p.port_args),
                 "jit_unchecked": (jitted(False), p.port_args)}
        for k, (fn, args) in list(cands.items()):
            try:
                _block(fn(*args(draw[0])))
                _block(fn(*args(draw[0])))
            except Exception as e:  # noqa: BLE001  (reported, not hidden)
                _emit(**{f"steady_{k}_error": f"{type(e).__name__}: {str(e)[:120]}"})
                del cands[k]
        times: dict[str, list[float]] = {k: [] for k in cands}
        rng = np.random.default_rng(0)
        t_end = time.perf_counter() + budget
        for r in range(rounds):
            for k in rng.permutation(list(cands)):
                fn, args = cands[k]
                a = args(draw[0])
                t0 = time.perf_counter()
                _block(fn(*a))
                times[k].append(time.perf_counter() - t0)
            if r >= 2 and time.perf_counter() > t_end:
                break
        _emit(steady_rounds=len(times["lax"]),
              **{f"steady_{k}": min(v) for k, v in times.items()},
              **{f"steady_{k}_median_ratio": float(np.median(
                  [t / u for t, u in zip(v, times["lax"])])) for k, v in times.items()},
              **({"steady_checks_median_ratio": float(np.median(
                  [t / u for t, u in zip(times["jit_checked"], times["jit_unchecked"])]))}
                 if "jit_checked" in times and "jit_unchecked" in times else {}))
    elif measure == "recompiles":
        right = 0
        compiles = 0
        for k, d in enumerate(draw):
            try:
                n, out = _count_compiles(lambda d=d: _block(p.port(*p.port_args(d))))
            except Exception as e:  # noqa: BLE001
                _emit(**{f"call{k + 1}_error": f"{type(e).__name__}: {str(e)[:120]}"})
                continue
            right += _right(p, out, want[k])
            if k:
                compiles += n
            _emit(calls_done=k + 1, calls_right=right, recompiles=compiles)
    elif measure == "grad":
        results = []
        compiles = 0
        for k, d in enumerate(draw):
            theta, y0, dt, steps = d
            ref = np.asarray(rk4_loss_grad_lax(theta, y0, dt, steps))
            try:
                n, g = _count_compiles(lambda d=d: _block(jt.grad(rk4_loss_port)(
                    jt.asarray(d[0]), jt.asarray(d[1]), d[2], d[3])))
                results.append("right" if np.allclose(g, ref, rtol=1e-9) else "wrong")
                compiles += n if k else 0
            except Exception as e:  # noqa: BLE001
                results.append(type(e).__name__)
            _emit(grad_calls=results, grad_recompiles=compiles)


# -- the parent: one process per measurement, bounded -----------------------------------------
def measure(name: str, what: str, size: int, calls: int, rounds: int,
            limit: float) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", name, what, "--size", str(size), "--calls",
           str(calls), "--rounds", str(rounds), "--limit", str(limit)]
    env = dict(os.environ, JAXTENSOR_COMPILATION_CACHE="0", JAX_ENABLE_COMPILATION_CACHE="0",
               PYTHONPATH=os.pathsep.join(
                   [str(_common.ROOT / "src"), os.environ.get("PYTHONPATH", "")]))
    res: dict[str, Any] = {}
    try:
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=limit)
        out, err = done.stdout, done.stderr
        if done.returncode:
            res[f"{what}_crashed"] = err.strip().splitlines()[-1][:200] if err.strip() else "?"
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        res[f"{what}_timeout"] = limit
    for line in out.splitlines():
        if line.startswith("{"):
            res.update(json.loads(line))
    return res


def _ratio(r: dict, a: str, b: str) -> float | None:
    return r[a] / r[b] if a in r and b in r else None


def _fmt_first(r: dict, limit: float) -> str:
    if "first_port" not in r:
        lax = f" (lax {r['first_lax']:.2f} s)" if "first_lax" in r else ""
        return f"> {limit:.0f} s{lax}" if "first_timeout" in r else f"failed{lax}"
    return (f"{r['first_port'] / r['first_lax']:.1f}x ({r['first_port']:.2f} s / "
            f"{r['first_lax']:.2f} s; {r['first_port_compiles']} compiles)")


def _fmt_steady(r: dict, key: str, limit: float) -> str:
    if f"steady_{key}" not in r or "steady_lax" not in r:
        if f"steady_{key}_error" in r:
            return "error: " + r[f"steady_{key}_error"].split(":")[0]
        return f"> {limit:.0f} s" if "steady_timeout" in r else "failed"
    return (f"{r[f'steady_{key}'] / r['steady_lax']:.2f}x "
            f"({r[f'steady_{key}_median_ratio']:.2f}x)")


def _fmt_checks(r: dict) -> str:
    if "steady_jit_checked" not in r or "steady_jit_unchecked" not in r:
        return "n/a"
    return (f"{r['steady_jit_checked'] / r['steady_jit_unchecked']:.2f}x "
            f"({r['steady_checks_median_ratio']:.2f}x)")


def _fmt_recompiles(r: dict, calls: int, limit: float) -> str:
    errors = sorted({v.split(":")[0] for k, v in r.items() if k.endswith("_error")
                     and k.startswith("call")})
    if "calls_done" not in r:
        return (f"> {limit:.0f} s" if "recompiles_timeout" in r else "failed") + (
            f" ({', '.join(errors)})" if errors else "")
    s = f"{r['recompiles']} ({r['calls_right']}/{calls} right"
    if r["calls_done"] < calls and "recompiles_timeout" in r:
        s += f"; {r['calls_done']} calls in {limit:.0f} s"
    return s + (f"; {', '.join(errors)}" if errors else "") + ")"


def _fmt_grad(r: dict, limit: float) -> str:
    if "grad_calls" not in r:
        return f"> {limit:.0f} s" if "grad_timeout" in r else "failed"
    return ", ".join(r["grad_calls"]) + f" ({r['grad_recompiles']} recompiles)"


def run(names: list[str], quick: bool, limit: float, calls: int, rounds: int,
        measures: tuple = MEASURES) -> list[dict]:
    from loop_ports import PROGRAMS
    rows = []
    for name in names:
        p = PROGRAMS[name]
        size = p.sizes["quick" if quick else "full"]
        r: dict[str, Any] = {"name": name, "size": size, "flat": p.flat}
        for what in measures:
            if what == "grad" and name != "rk4":
                continue
            r.update(measure(name, what, size, calls, rounds, limit))
        row = {"program": f"{name} ({size}{', flat' if p.flat else ''})",
               "steady port/lax": _fmt_steady(r, "port", limit),
               "first call port/lax": _fmt_first(r, limit),
               "compiles, calls 2..n": _fmt_recompiles(r, calls, limit),
               "jt.jit checks on/off": _fmt_checks(r),
               "jt.jit(port)/lax": _fmt_steady(r, "jit_checked", limit),
               "gradient": _fmt_grad(r, limit) if name == "rk4" else ""}
        rows.append({"raw": r, **row})
        print(" | ".join(str(v) for k, v in row.items()), flush=True)
    return rows


def table(rows: list[dict]) -> list[str]:
    cols = [k for k in rows[0] if k != "raw"]
    return (["| " + " | ".join(cols) + " |", "| " + " | ".join("---" for _ in cols) + " |"]
            + ["| " + " | ".join(str(r[c]) for c in cols) + " |" for r in rows])


def write_doc(rows: list[dict], cmd: str, limit: float, calls: int, label: str) -> None:
    """Write the table as the section of docs/benchmarks.md for ``label`` (a later run with
    the same label replaces it; another label, "after" say, gets a section of its own)."""
    import jax
    begin = f"<!-- loop programs {label}: begin (benchmarks/bench_loop_programs.py) -->"
    end = f"<!-- loop programs {label}: end -->"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        begin,
        f"## Loop programs (issue 28): {label}",
        "",
        "The programs of `tests/loop_ports.py` (NumPy original, idiomatic jaxtensor port "
        "called at the top level with default checks, hand-written `jax.jit` + `lax`), "
        "single-threaded, JAX's persistent cache off, each measurement in its own process "
        f"killed after {limit:.0f} s (`> {limit:.0f} s`). Ratios: best round (median of "
        "per-round ratios). *first call*: trace + compile + run after `jax.clear_caches()` "
        "and `jt.clear_caches()`, with the backend compilations of the port's first call. "
        f"*compiles, calls 2..n*: backend compilations of calls 2..{calls} with fresh inputs "
        "(new arrays and Python numbers, new closures), and how many calls gave NumPy's "
        "result. *checks on/off*: the port inside `jt.jit` against "
        "`jt.jit(..., check_bounds=False)` (a top-level loop has no switch). Targets: steady "
        "≤ 1.5x (≤ 1.2x flat), first call ≤ 2x, 0 compiles, checks ≤ 1.3x, gradients right "
        "on every call.",
        "",
        f"Command: `{cmd}`  ",
        f"Machine: {platform.machine()}, jax {jax.__version__}, backend "
        f"{jax.default_backend()}, Python {sys.version.split()[0]}; shared and loaded (load "
        f"average {load:.1f} at the end, 2 cores): the ratios are what to read.",
        "",
        *table(rows),
        "",
        end,
    ]
    _common.write_section(begin, end, "\n".join(lines))
    print(f"wrote {_common.DOC}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes")
    ap.add_argument("--write", metavar="LABEL",
                    help="write docs/benchmarks.md, section 'Loop programs (issue 28): LABEL'")
    ap.add_argument("--programs", default="", help="comma-separated names (default: all)")
    ap.add_argument("--limit", type=float, default=None,
                    help="seconds per measurement (default 60 quick, 300 full)")
    ap.add_argument("--calls", type=int, default=4, help="calls with fresh inputs")
    ap.add_argument("--rounds", type=int, default=None, help="steady rounds (5 quick, 11)")
    ap.add_argument("--measures", default=",".join(MEASURES),
                    help="comma-separated, of " + ", ".join(MEASURES) + " (default: all)")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--size", type=int, help=argparse.SUPPRESS)
    a = ap.parse_args()
    limit = a.limit or (60.0 if a.quick else 300.0)
    rounds = a.rounds or (5 if a.quick else 11)
    if a.child:
        _child(*a.child, a.size, a.calls, rounds, budget=limit / 3)
        return
    from loop_ports import PROGRAMS
    names = [n for n in a.programs.split(",") if n] or list(PROGRAMS)
    rows = run(names, a.quick, limit, a.calls, rounds,
               tuple(m for m in a.measures.split(",") if m in MEASURES))
    if a.write:
        write_doc(rows, "python " + " ".join(sys.argv), limit, a.calls, a.write)


if __name__ == "__main__":
    main()
