"""Element reads made before a top-level loop and read by its body (``a, b, c, d = theta``)
are lent to the loop as what they were read from: each call computes what the same Python
loop over NumPy computes (an element read is a value: writes to its source, before or
inside the loop, do not change it; a body that writes it writes it alone), and a read at
another position, of another source of the same kind, compiles nothing.
"""

from __future__ import annotations

import numpy as np
import pytest

import jaxtensor as jt
from measure import count_compiles


def _reads(xp, x, picks):
    """The element reads ``picks`` of ``x`` (each a way of naming one element)."""
    out = []
    for kind, p in picks:
        if kind == "flat":
            out.append(x.reshape(-1)[p] if xp is np else jt.reshape(x, (-1,))[p])
        elif kind == "pair":
            out.append(x[p // x.shape[1], p % x.shape[1]])
        elif kind == "row":
            out.append(x[p // x.shape[1]][p % x.shape[1]])
        elif kind == "transposed":
            out.append(x.T[p % x.shape[1], p // x.shape[1]])
        elif kind == "negative":
            out.append(x[-(x.shape[0] - p // x.shape[1]), -(x.shape[1] - p % x.shape[1])])
        else:  # a strided view's element
            out.append(x[::-1, ::2][p % x.shape[0], p % (x.shape[1] // 2)])
    if xp is np:
        return [np.float64(v) if x.dtype == np.float64 else v[()] for v in out]
    return out


def _program(xp, x, y, picks, body_kind, n):
    """A loop over ``y`` reading the elements ``picks`` of ``x``; NumPy's Python loop or the
    port at the top level."""
    es = _reads(xp, x, picks)
    acc = xp.zeros((), dtype=y.dtype) if xp is np else jt.zeros((), dtype=y.dtype)

    def sum_body(i):
        for e in es:
            acc[...] += e * (i + 1)

    def write_source(i):  # (the elements keep the values they were read as)
        x[0, 0] += es[0]
        acc[...] += x[0, 0] + es[-1]

    def write_other(i):  # (a write into y at the loop index, reading elements of x)
        y[i % y.shape[0]] += es[1] - acc * es[0]
        acc[...] += 1

    body = {"sum": sum_body, "write source": write_source, "write other": write_other}[
        body_kind]
    if xp is np:
        for i in range(n):
            body(i)
    else:
        jt.fori_loop(0, n, body)
    return acc


@pytest.mark.parametrize("body_kind", ["sum", "write source", "write other"])
def test_lent_element_reads_as_numpys_loop(body_kind: str) -> None:
    """Random element reads of random sources, read before a loop, against NumPy's loop; the
    source and the other Tensor the body writes compared too. Calls after the first compile
    nothing (positions are data)."""
    rng = np.random.default_rng(hash(body_kind) % 2**32)
    kinds = ["flat", "pair", "row", "transposed", "negative", "strided"]
    compiles = []
    for call in range(12):
        shape = (3, 4)
        x0 = rng.standard_normal(shape)
        y0 = rng.standard_normal(5)
        n = int(rng.integers(1, 7))
        group = kinds[:3] if call < 6 else kinds[3:]
        picks = [(kind, int(rng.integers(0, 12))) for kind in group]
        xn, yn = x0.copy(), y0.copy()
        want = _program(np, xn, yn, picks, body_kind, n)
        xt, yt = jt.asarray(x0), jt.asarray(y0)
        got = []
        compiles.append(count_compiles(
            lambda xt=xt, yt=yt, picks=picks, n=n, got=got: got.append(
                _program(jt, xt, yt, picks, body_kind, n))))
        np.testing.assert_allclose(float(got[0]), float(want), rtol=1e-12, err_msg=f"{call}")
        np.testing.assert_allclose(np.asarray(xt), xn, rtol=1e-12, err_msg=f"{call}")
        np.testing.assert_allclose(np.asarray(yt), yn, rtol=1e-12, err_msg=f"{call}")
    # (the same kinds of read at other positions, of other values: nothing compiled; a
    # body that is passed the source too gets its reads computed first, by element kernels
    # compiled once per kind and number of reads)
    if body_kind != "write source":
        assert compiles[0] > 0 and compiles[1:6] == [0] * 5 and compiles[7:] == [0] * 5, (
            compiles)


def test_a_body_writing_an_element_read_writes_it_alone() -> None:
    """``e = x[1]`` then a body writing ``e``: ``e`` changes, ``x`` does not (as NumPy's
    scalar rebinding leaves the array), at the first call and the later ones."""
    for call in range(3):
        x = jt.asarray([1.0, 2.0, 3.0]) * (call + 1)
        e = x[1]

        def body(i, e=e):
            e[...] += i
        jt.fori_loop(0, 4, body)
        assert float(e) == 2.0 * (call + 1) + 6
        np.testing.assert_array_equal(np.asarray(x), np.array([1.0, 2.0, 3.0]) * (call + 1))


def test_an_element_read_keeps_its_value_across_writes_to_its_source() -> None:
    """Written before the loop, and inside it: the element is the value read."""
    x = jt.asarray([5.0, 6.0])
    e = x[0]
    x[0] = 100.0
    acc = jt.zeros(())

    def body(i):
        acc[...] += e
        x[0] = -1.0
    jt.fori_loop(0, 3, body)
    assert float(acc) == 15.0 and float(e) == 5.0
    np.testing.assert_array_equal(np.asarray(x), [-1.0, 6.0])


def _while_call(call: int) -> float:
    lim = jt.asarray([10.0, 20.0, 30.0])
    stop, step = lim[call], lim[0]
    s = jt.zeros(())
    jt.while_loop(lambda: s < stop, lambda: s.__setitem__(..., s + step / 10 * (call + 1)))
    return float(s)


def test_element_reads_in_a_while_loop_and_its_condition() -> None:
    """The condition and the body both read element reads."""
    for call in range(3):
        want = 0.0
        while want < 10.0 * (call + 1):
            want += 1.0 * (call + 1)
        assert _while_call(call) == want


def test_integer_and_complex_element_reads() -> None:
    """Other dtypes: an int8 element (the loop arithmetic wraps as NumPy's int8 scalar), a
    complex element."""
    xi = np.array([100, -7, 3], np.int8)
    xc = np.array([1 + 2j, 3 - 1j])
    for call in range(2):
        got = _int_complex_call(jt.asarray(xi)[call], jt.asarray(xc)[call])
        w8 = np.int8(0)
        wc = 0j
        for _ in range(3):
            with np.errstate(over="ignore"):
                w8 = np.int8(w8 + xi[call])
            wc += xc[call] * xc[call]
        assert got == (int(w8), wc)


def _int_complex_call(e8: jt.Tensor, ec: jt.Tensor) -> tuple[int, complex]:
    t8 = jt.zeros((), dtype=jt.int8)
    tc = jt.zeros((), dtype=jt.complex128)

    def body(i):
        t8[...] += e8
        tc[...] += ec * ec
    jt.fori_loop(0, 3, body)
    return int(t8), complex(tc)
