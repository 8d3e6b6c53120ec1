"""A checked loop keeps its writes in place: no copy of a written Tensor per iteration.

With the default checks, a loop body whose checked value or index is read from the Tensor it
writes (a float written into an integer Tensor, an int64 into an int8 one, an index read
from the table), in ``fori_loop``, nested ``fori_loop``, ``while_loop`` and ``cond`` inside
a loop, compiles to XLA loops that copy no buffer of the Tensor's size (the optimized HLO's
while bodies, at two table sizes), and computes what the Python loop computes on NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest

import jaxtensor as jt
from test_cond_writes import _copied, _in_loops


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


PROGRAMS = {
    "index write": (_index_write, _index_write_np, np.float64),
    "float value into int32": (_float_into_int, _float_into_int_np, np.int32),
    "int64 value into int8": (_wide_into_int8, _wide_into_int8_np, np.int8),
    "index read from the table": (_index_from_table, _index_from_table_np, np.int32),
    "nested fori_loop": (_nested, _nested_np, np.int32),
    "while_loop": (_while, _while_np, np.int32),
    "cond writing in one branch": (_cond_one_branch, _cond_one_branch_np, np.int32),
    "cond writing two Tensors": (_cond_two_tensors, _cond_two_tensors_np, np.int32),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_checked_loops_copy_no_written_tensor(name):
    """Checks on (the default): no buffer of the table's size is copied inside any loop
    body, at 64 and at 4,096 elements; the values are the Python loop's on NumPy."""
    fn, np_fn, dtype = PROGRAMS[name]
    f = jt.jit(fn)
    for n in (64, 4096):
        shape = (8, n // 8) if fn is _nested else (n,)  # (a 2-D table for the nest)
        init = np.random.default_rng(n).integers(0, 10, shape).astype(dtype)
        text = f.lower(jt.asarray(init)).compile().as_text()
        assert _in_loops(text), "no loop in the compiled program"
        big = [c for c in _copied(text) if c >= n]
        assert big == [], f"{name}: copies of {big} elements per iteration at n={n}"
        if n == 64:
            x = jt.asarray(init)
            f(x)
            want = init.copy()
            np_fn(want)
            np.testing.assert_array_equal(x.numpy(), want)
