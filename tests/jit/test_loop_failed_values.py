"""A check that fails in a loop body names the value the eager check names, however wide.

A loop carries its first failure in int32 words: the check's number and the low word of
its value, and a high word that only a check whose value may not fit int32 sets
(``_jit/_body_checks.py``). Oracle: the same program run as a Python loop over the same
Tensors, eagerly (each ``x[i]`` checked as it runs): the error's type and message, and
every Tensor's state when it raised; NumPy's loop too where NumPy raises the same error
(not for a uint64 index past int64, where it raises ``OverflowError``). The indices are
read from data of each integer dtype, at the edges of int32, uint32 and int64, and the
programs run in ``fori_loop``, ``while_loop``, a ``cond`` in a loop, and nested loops,
both at the top level and inside ``jaxtensor.jit``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxtensor as jt
from test_loop_checks import PY  # (Python's loops: the oracle's)

pytestmark = pytest.mark.filterwarnings("ignore::jaxtensor.RecompileWarning")

N = 6  # the length of the index data; X has 8 elements


class JT:
    fori = staticmethod(jt.fori_loop)
    while_ = staticmethod(jt.while_loop)
    cond = staticmethod(jt.cond)


# Each program reads indices from D (the dtype drawn) and E (int32, whose values fit int32:
# a check whose value needs no high word, before or after a wide one), and writes X
# (int64[8]) and the counter C (int32[1]).
def fori_add(h, D, E, X, C):
    def body(i):
        X[D[i]] += 1
    h.fori(0, N, body)


def while_set(h, D, E, X, C):
    def body():
        X[D[C[0]]] = C[0] + 1
        C[0] += 1
    h.while_(lambda: C[0] < N, body)


def fori_narrow_then_wide(h, D, E, X, C):
    def body(i):
        X[E[i]] += 2
        X[D[i]] -= 1
    h.fori(0, N, body)


def fori_cond_read(h, D, E, X, C):
    def body(i):
        def yes():
            C[0] += X[D[i]].astype(C.dtype) + 1

        def no():
            X[E[i]] = 3
        h.cond(E[i] % 2 == 0, yes, no)
    h.fori(0, N, body)


def nested(h, D, E, X, C):
    def outer(i):
        def inner(j):
            X[D[2 * i + j]] += j + 1
        h.fori(0, 2, inner)
        C[0] = 0

        def w():
            X[E[i + C[0]]] += 1
            C[0] += 1
        h.while_(lambda: C[0] < 2, w)
    h.fori(0, N // 2, outer)


PROGRAMS = {f.__name__: f for f in (fori_add, while_set, fori_narrow_then_wide,
                                    fori_cond_read, nested)}
DTYPES = ["int8", "int32", "uint32", "int64", "uint64"]


def _edges(dtype: str) -> list[int]:
    """Values at the edges where a value stops fitting a narrower word, in ``dtype``."""
    info = np.iinfo(dtype)
    out = [0, 1, 7, 8, -1, -8, -9, 2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**32 - 1, 2**32,
           -2**32, 2**40 + 3, info.min, info.max, info.max - 1]
    return [v for v in out if info.min <= v <= info.max]


def _values(dtype: str):
    inside = st.integers(-8, 7) if np.iinfo(dtype).min < 0 else st.integers(0, 7)
    return st.lists(st.one_of(inside, inside, st.sampled_from(_edges(dtype))),
                    min_size=N, max_size=N)


def _run(prog, h, D, E, X, C):
    try:
        prog(h, D, E, X, C)
    except Exception as e:  # noqa: BLE001 - compared with the oracle's
        return type(e), str(e)
    return None


_JITTED: dict = {}


def _jitted(name: str):
    """One ``jaxtensor.jit`` function per program, its Tensors as arguments: each
    example's data runs the compiled program."""
    if name not in _JITTED:
        prog = PROGRAMS[name]
        _JITTED[name] = jt.jit(lambda D, E, X, C: prog(JT, D, E, X, C))
    return _JITTED[name]


@settings(max_examples=8, deadline=None)
@given(data=st.data())
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_a_failed_check_in_a_loop_names_the_value_eager_code_names(name, dtype, data):
    d = np.array(data.draw(_values(dtype), label="D"), dtype)
    e = np.array(data.draw(st.lists(st.integers(-9, 8), min_size=N, max_size=N),
                           label="E"), np.int32)
    prog = PROGRAMS[name]

    def tensors():
        return (jt.asarray(d), jt.asarray(e), jt.zeros(8, dtype=jt.int64),
                jt.zeros(1, dtype=jt.int32))

    want_ts = tensors()
    want = _run(prog, PY, *want_ts)
    if d.dtype != np.uint64 or (d <= np.iinfo(np.int64).max).all():
        ref = [d.copy(), e.copy(), np.zeros(8, np.int64), np.zeros(1, np.int32)]
        assert _run(prog, PY, *ref) == want  # (NumPy's loop says what eager jaxtensor says)
        np.testing.assert_array_equal(np.asarray(want_ts[2]), ref[2])
    for way in ("top level", "jit"):
        ts = tensors()
        got = _run(prog, JT, *ts) if way == "top level" else _run_jit(name, ts)
        assert got == want, (way, d.tolist(), e.tolist())
        for a, b in zip(ts, want_ts):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=way)


def _run_jit(name, ts):
    try:
        _jitted(name)(*ts)
    except Exception as e:  # noqa: BLE001 - compared with the oracle's
        return type(e), str(e)
    return None
