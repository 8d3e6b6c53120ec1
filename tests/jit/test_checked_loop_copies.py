"""A checked loop keeps its writes in place: no copy of a written Tensor per iteration.

With the default checks, a loop body whose checked value or index is read from the Tensor it
writes (a float written into an integer Tensor, an int64 into an int8 one, an index read
from the table), in ``fori_loop``, nested ``fori_loop``, ``while_loop`` (its condition
reading the Tensor too) and ``cond`` inside a loop (nested, as an Ising sweep writes),
compiles to XLA loops that copy no buffer of the Tensor's size (the optimized HLO's while
bodies, at two table sizes), and computes what the Python loop computes on NumPy.

And a checked loop body costs a few kernels more than the unchecked one, however many checks
it makes: XLA:CPU runs a loop body of more than 8 kernels on its thread pool (about a
microsecond per iteration, tens on a loaded core) unless the whole loop is "small" (under
1 KiB accessed per iteration: then it is one kernel); so the innermost loop of an Ising-like
nest is one small kernel checked as unchecked, and its checked body has as many extra
kernels with 6 checked reads as with 1 (the optimized HLO, on the CPU backend).
"""

from __future__ import annotations

import re

import jax
import numpy as np
import pytest

import hlo
import jaxtensor as jt
from loop_ports import insertion_sort_port as _insertion_sort


def _index_write(x):
    def body(i):
        x[i] = x[i - 1] * 0.5 + x[i]
    jt.fori_loop(1, x.shape[0], body)


def _index_write_np(x):
    for i in range(1, x.shape[0]):
        x[i] = x[i - 1] * 0.5 + x[i]


def _float_into_int(x):
    def body(i):
        x[i] = x[i - 1] * 1.5 % 1000.0 + 1.0
    jt.fori_loop(1, x.shape[0], body)


def _float_into_int_np(x):
    for i in range(1, x.shape[0]):
        x[i] = x[i - 1] * 1.5 % 1000.0 + 1.0


def _wide_into_int8(x):
    def body(i):
        x[i] = x[i - 1].astype(jt.int64) * 3 % 100 + x[i]
    jt.fori_loop(1, x.shape[0], body)


def _wide_into_int8_np(x):
    for i in range(1, x.shape[0]):
        x[i] = np.int64(x[i - 1]) * 3 % 100 + x[i]


def _index_from_table(x):
    n = x.shape[0]

    def body(i):
        j = x[i - 1] % n
        x[j] = x[j] + 1
    jt.fori_loop(1, n, body)


def _index_from_table_np(x):
    n = x.shape[0]
    for i in range(1, n):
        j = x[i - 1] % n
        x[j] = x[j] + 1


def _nested(t):
    def row(i):
        def col(j):
            t[i, j] = t[i - 1, j] * 1.5 % 1000.0 + t[i, j - 1]
        jt.fori_loop(1, t.shape[1], col)
    jt.fori_loop(1, t.shape[0], row)


def _nested_np(t):
    for i in range(1, t.shape[0]):
        for j in range(1, t.shape[1]):
            t[i, j] = t[i - 1, j] * 1.5 % 1000.0 + t[i, j - 1]


def _while(x):
    k = jt.zeros((), dtype=jt.int64)

    def body():
        x[k + 1] = x[k] * 1.5 % 1000.0 + 1.0
        k[...] += 1
    jt.while_loop(lambda: k < x.shape[0] - 1, body)


def _while_np(x):
    for k in range(x.shape[0] - 1):
        x[k + 1] = x[k] * 1.5 % 1000.0 + 1.0


def _cond_one_branch(x):
    def body(i):
        jt.cond(x[i - 1] > 4, lambda: x.__setitem__(i, x[i - 1] * 1.5 % 1000.0 + 1.0),
                lambda: None)
    jt.fori_loop(1, x.shape[0], body)


def _cond_one_branch_np(x):
    for i in range(1, x.shape[0]):
        if x[i - 1] > 4:
            x[i] = x[i - 1] * 1.5 % 1000.0 + 1.0


def _cond_two_tensors(x):
    y = jt.zeros_like(x)

    def body(i):
        jt.cond(x[i - 1] > 4, lambda: x.__setitem__(i, x[i - 1] * 1.5 % 1000.0 + 1.0),
                lambda: y.__setitem__(i, x[i] * 2.5 % 1000.0))
    jt.fori_loop(1, x.shape[0], body)
    x[0] = y.sum() % 1000


def _cond_two_tensors_np(x):
    y = np.zeros_like(x)
    for i in range(1, x.shape[0]):
        if x[i - 1] > 4:
            x[i] = x[i - 1] * 1.5 % 1000.0 + 1.0
        else:
            y[i] = x[i] * 2.5 % 1000.0
    x[0] = y.sum() % 1000


def _sweep(t):
    n, m = t.shape

    def row(i):
        def site(j):
            nb = t[(i + 1) % n, j] + t[i, (j + 1) % m] + t[(i - 1) % n, j] + t[i, (j - 1) % m]

            def flip():
                t[i, j] = -t[i, j] + nb % 3
            jt.cond(t[i, j] * nb <= 0, flip, lambda: None)
        jt.fori_loop(0, m, site)
    jt.fori_loop(0, n, row)


def _sweep_np(t):
    n, m = t.shape
    for i in range(n):
        for j in range(m):
            nb = t[(i + 1) % n, j] + t[i, (j + 1) % m] + t[(i - 1) % n, j] + t[i, (j - 1) % m]
            if t[i, j] * nb <= 0:
                t[i, j] = -t[i, j] + nb % 3


def _insertion_sort_np(a):
    a.sort(kind="stable")


PROGRAMS = {
    "index write": (_index_write, _index_write_np, np.float64),
    "float value into int32": (_float_into_int, _float_into_int_np, np.int32),
    "int64 value into int8": (_wide_into_int8, _wide_into_int8_np, np.int8),
    "index read from the table": (_index_from_table, _index_from_table_np, np.int32),
    "nested fori_loop": (_nested, _nested_np, np.int32),
    "while_loop": (_while, _while_np, np.int32),
    "cond writing in one branch": (_cond_one_branch, _cond_one_branch_np, np.int32),
    "cond writing two Tensors": (_cond_two_tensors, _cond_two_tensors_np, np.int32),
    "cond in a nested fori_loop (a sweep)": (_sweep, _sweep_np, np.int32),
    "while_loop whose condition reads the Tensor": (_insertion_sort, _insertion_sort_np,
                                                    np.int32),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_checked_loops_copy_no_written_tensor(name):
    """Checks on (the default): no buffer of the table's size is copied inside any loop
    body, at 64 and at 4,096 elements; the values are the Python loop's on NumPy."""
    fn, np_fn, dtype = PROGRAMS[name]
    f = jt.jit(fn)
    for n in (64, 4096):
        shape = (8, n // 8) if fn in (_nested, _sweep) else (n,)  # (2-D tables for nests)
        init = np.random.default_rng(n).integers(0, 10, shape).astype(dtype)
        text = f.lower(jt.asarray(init)).compile().as_text()
        assert hlo.in_loops(text), "no loop in the compiled program"
        big = [c for c in hlo.copied(text) if c >= n]
        assert big == [], f"{name}: copies of {big} elements per iteration at n={n}"
        if n == 64:
            x = jt.asarray(init)
            f(x)
            want = init.copy()
            np_fn(want)
            np.testing.assert_array_equal(x.numpy(), want)


# -- kernels per iteration ------------------------------------------------------------------
def _innermost(text: str) -> tuple[int, bool]:
    """(kernels of the innermost loop's body, whether XLA:CPU compiles that loop as one small
    kernel) in the optimized HLO ``text`` of a two-level loop nest."""
    comps = hlo.computations(text)
    small = {m.group(1) for lines in comps.values() for x in lines if "xla_cpu_small_call" in x
             for m in [re.search(r"to_apply=%?([\w.\-]+)", x)] if m}

    def loops_in(c: str) -> bool:  # (whether computation c runs a loop, directly or not)
        called = [n for x in comps.get(c, []) for m in re.finditer(
            r"(?:calls|to_apply|body|condition)=%?([\w.\-]+)", x) for n in [m.group(1)]]
        return any(" while(" in x for x in comps.get(c, [])) or any(map(loops_in, called))

    found = []
    for name, lines in comps.items():
        for x in lines:
            m = re.search(r" while\(.*body=%?([\w.\-]+)", x)
            if m and not loops_in(m.group(1)):
                found.append((hlo.kernels(comps[m.group(1)]), name in small))
    assert len(found) == 1, found
    return found[0]


def _neighbours(k: int):
    """A sweep of a 16 x 16 table reading ``k`` neighbours of each site (each read checks two
    indices) and writing the site under ``cond`` (two more checks)."""
    def sweep(t):
        n = t.shape[0]

        def row(i):
            def site(j):
                s = t[i, j] * 0
                for m in range(k):
                    s = s + t[(i + m + 1) % n, (j + 2 * m + 1) % n]
                jt.cond(s > 0, lambda: t.__setitem__((i, j), -t[i, j]), lambda: None)
            jt.fori_loop(0, n, site)
        jt.fori_loop(0, n, row)
    return sweep


@pytest.mark.skipif(jax.default_backend() != "cpu", reason="XLA:CPU's loop runtime")
def test_checked_loop_body_adds_few_kernels_however_many_checks():
    """The innermost loop of the sweep, with 1 and with 6 checked neighbour reads: one small
    kernel with checks on as with checks off, and its body's extra kernels with checks on
    (against off) no more with 6 reads than with 1 (before: 18 against 6 kernels, 28 against
    11, never small)."""
    t = jt.asarray(np.ones((16, 16), np.int32))
    extra = []
    for k in (1, 6):
        (on, on_small), (off, off_small) = (
            _innermost(jt.jit(_neighbours(k), check_bounds=c).lower(t).compile().as_text())
            for c in (True, False))
        assert off_small, "the unchecked loop is no longer one small kernel: re-measure"
        assert on_small, f"{k} reads: the checked loop is not one small kernel ({on} kernels)"
        extra.append(on - off)
    assert extra[1] <= extra[0], f"extra kernels grow with the checks: {extra}"
