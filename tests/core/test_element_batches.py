"""Element reads not computed yet are computed together: the first use of one of
``a, b, c, d = x`` computes the four by one kernel. Each keeps the value it was read with,
whatever was written to the source between the reads and the use, and whatever the order
of the uses: random programs of reads, writes and uses against NumPy's scalars."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxtensor as jt

SHAPES = [(9,), (3, 4)]


def _op(shape: tuple[int, ...]) -> st.SearchStrategy:
    pos = st.tuples(*(st.integers(-n, n - 1) for n in shape))
    return st.one_of(
        st.tuples(st.just("read"), pos),
        st.tuples(st.just("unpack"), st.integers(0, shape[0] - 1)),
        st.tuples(st.just("write"), pos, st.integers(-50, 50)),
        st.tuples(st.just("fill"), st.integers(-50, 50)),
        st.tuples(st.just("use"), st.integers(0, 40)),
        st.tuples(st.just("add"), st.integers(0, 40), st.integers(0, 40)),
        st.tuples(st.just("drop"), st.integers(0, 40)),
    )


def _run(xp, x, ops):
    """Run ``ops`` on ``x`` (a NumPy array or a Tensor); the values used, as floats."""
    kept: list = []
    used: list[float] = []
    for op in ops:
        kind = op[0]
        if kind == "read":
            kept.append(x[op[1]])
        elif kind == "unpack":
            row = x[op[1]] if x.ndim > 1 else x
            kept.extend(list(row) if x.ndim == 1 else [*row])
        elif kind == "write":
            x[op[1]] = op[2]
        elif kind == "fill":
            x[...] = op[1]
        elif kind == "use" and kept:
            used.append(float(kept[op[1] % len(kept)]))
        elif kind == "add" and kept:
            used.append(float(kept[op[1] % len(kept)] + kept[op[2] % len(kept)]))
        elif kind == "drop" and kept:
            kept.pop(op[1] % len(kept))
    used.extend(float(v) for v in kept)
    return used, np.asarray(x).tolist()


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_element_reads_keep_their_values_in_any_order_of_use(shape, dtype):
    @settings(max_examples=60, deadline=None)
    @given(ops=st.lists(_op(shape), max_size=30))
    def check(ops):
        base = np.arange(np.prod(shape)).reshape(shape).astype(dtype)
        want = _run(np, base.copy(), ops)
        got = _run(jt, jt.asarray(base.copy()), ops)
        assert got == want

    check()


def test_an_unpack_used_after_writes_and_inside_a_loop():
    theta = jt.asarray([1.0, 2.0, 3.0, 4.0])
    a, b, c, d = theta
    theta[1] = 20.0
    acc = jt.zeros(())

    def body(i):
        acc[...] += a + 10 * b + 100 * c + 1000 * d

    jt.fori_loop(0, 3, body)
    assert float(acc) == 3 * 4321.0
    theta[...] = 0.0
    assert [float(v) for v in (a, b, c, d)] == [1.0, 2.0, 3.0, 4.0]
