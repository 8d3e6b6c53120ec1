"""Random ``while_loop`` programs over an integer carry, and NumPy's Python loop of each
(the oracle of tests/jit/test_while_ranges.py and of the ranges' soundness test)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import jaxtensor as jt

_CMP = {"ge": lambda a, b: a >= b, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b,
        "gt": lambda a, b: a > b, "ne": lambda a, b: a != b}


def program(n, outer, init, cond, step, reads, after, xp, seen=None):
    """The loop over ``x`` (NumPy's Python loop for ``xp`` None, else the port): for each
    ``i`` of ``outer`` (or once, with ``i = 0``), ``j = a * i + c``, then while ``j op
    bound & x[j + r] <= t & k < 12`` (``r`` None: no read): ``x[j + w] += x[j + s] + 1;
    j += d``; then ``x[j + e] += 100``. ``seen``: the Python loop records the values of
    ``j`` at the start of each iteration and after the loop."""
    a, c = init
    op, bound, r, t = cond
    w, s = reads
    d = step

    def numpy_loop(x):
        for i in range(*outer) if outer else [0]:
            j, k = a * i + c, 0
            while True:
                p = _CMP[op](j, bound)
                q = True if r is None else x[j + r] <= t
                if not (p and q and k < 12):
                    break
                if seen is not None:
                    seen["body"].append(j)
                x[j + w] += x[j + s] + 1
                j, k = j + d, k + 1
            if seen is not None:
                seen["after"].append(j)
            x[j + after] += 100
        return x

    if xp is None:
        return numpy_loop

    def port(x):
        def once(i):
            def cond(c):
                j, k = c
                q = _CMP[op](j, bound) & (k < 12)
                return q if r is None else q & (x[j + r] <= t)

            def body(c):
                j, k = c
                x[j + w] += x[j + s] + 1
                return j + d, k + 1
            j, _ = jt.while_loop(cond, body, (a * i + c, 0))
            x[j + after] += 100
        if outer:
            jt.fori_loop(outer[0], outer[1], once)
        else:
            once(0)
        return x
    return port


def run(f, x):
    try:
        f(x)
    except IndexError as e:
        return e
    return None


def x0(n):
    return np.random.default_rng(n).integers(-3, 4, n).astype(np.int64)


outers = st.none() | st.tuples(st.integers(-2, 4), st.integers(0, 8))
inits = st.tuples(st.sampled_from([1, -1, 0, 2]), st.integers(-6, 6))
conds = st.tuples(st.sampled_from(sorted(_CMP)), st.integers(-6, 8),
                  st.none() | st.integers(-3, 3), st.integers(-4, 4))
steps = st.sampled_from([-3, -2, -1, 1, 2])
reads = st.tuples(st.integers(-3, 3), st.integers(-3, 3))
afters = st.integers(-3, 3)
programs = st.tuples(outers, inits, conds, steps, reads, afters)


