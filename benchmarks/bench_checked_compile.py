"""Compile time of checked loop bodies (issue 28 item 2): a ``fori_loop`` body of ``k``
writes, each at a traced position (a bounds check) with a value read from the same Tensor,
traced and compiled by ``jaxtensor.jit`` with checks on (the default) and off, for several
``k``. Prints seconds (trace + lower + compile, best of ``--repeat`` fresh functions) and the
ratio checked/unchecked; compile time should grow linearly in ``k`` and the ratio stay
within 1.5x.

    JAXTENSOR_COMPILATION_CACHE=0 taskset -c 1 python benchmarks/bench_checked_compile.py \
        [--ks 10,40,160] [--repeat 2] [--kinds float,value]
"""

from __future__ import annotations

import argparse
import time

import _common  # noqa: F401  (one core, before jax)

import jaxtensor as jt

N = 1024


def make(k: int, value_checked: bool):
    """A new function (so nothing is cached) whose loop body makes ``k`` checked writes."""

    def f(x):
        def body(i):
            for m in range(k):
                v = x[(i + 2 * m + 1) % N] * 0.5 + 1.0
                x[(i + m) % N] = v % 100.0 if value_checked else v
        jt.fori_loop(0, 100, body)
    return f


def compile_seconds(k: int, checks: bool, value_checked: bool, repeat: int) -> float:
    dtype = jt.int32 if value_checked else jt.float64
    best = float("inf")
    for _ in range(repeat):
        f = jt.jit(make(k, value_checked), check_bounds=checks)
        x = jt.zeros(N, dtype=dtype)
        t0 = time.perf_counter()
        f.lower(x).compile()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ks", default="10,40,160", help="body lengths (writes)")
    ap.add_argument("--repeat", type=int, default=2, help="fresh functions per measurement")
    ap.add_argument("--kinds", default="float,value", help="float (float64 Tensor), value "
                    "(a float written into an int32 Tensor: a value check too)")
    a = ap.parse_args()
    print("| writes k | value | checks on (s) | checks off (s) | on/off |")
    print("| ---: | --- | ---: | ---: | ---: |")
    for value_checked in [k == "value" for k in a.kinds.split(",")]:
        for k in map(int, a.ks.split(",")):
            on = compile_seconds(k, True, value_checked, a.repeat)
            off = compile_seconds(k, False, value_checked, a.repeat)
            kind = "float into int32 (value check)" if value_checked else "float64"
            print(f"| {k} | {kind} | {on:.2f} | {off:.2f} | {on / off:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
