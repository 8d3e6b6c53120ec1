"""Static arguments of ``jaxtensor.jit``: a call never runs the program of a static value
that ``==`` confuses with its own, and repeat calls with static arguments give what eager
calls give, whatever order the values come in.

Values that compare equal yet trace differently: ``True`` and ``1`` (as an index: a new
axis selected, or element 1), ``0.0`` and ``-0.0`` (a product's sign), ``1`` and ``1.0``
(a result's dtype), ``(1,)`` and ``(True,)``, a NumPy ``int8`` and a Python ``int``. Oracle:
the same function called eagerly. Repeat calls with unchanged static values take the
guarded path (``tests/internals/test_jit_internals.py`` counts it); they must return the
arguments a function returns as the very objects passed.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxtensor as jt

pytestmark = pytest.mark.filterwarnings("ignore::jaxtensor.RecompileWarning")


def index(x: jt.Tensor, k: Any) -> jt.Tensor:
    return x[k] * 1


def times(x: jt.Tensor, k: Any) -> jt.Tensor:
    return x * k


def index_tuple(x: jt.Tensor, k: Any) -> jt.Tensor:
    return x[k] + 0


#: (function, values that are == to one another but must not share a program)
CASES = {
    "bool vs int index": (index, [True, 1, False, 0]),
    "signed zeros": (times, [0.0, -0.0]),
    "int vs float": (times, [1, 1.0, True]),
    "NumPy scalar vs int": (times, [np.int8(3), 3, np.float32(3.0), 3.0]),
    "tuples": (index_tuple, [(1,), (True,), (1.0 == 1,)]),
    "nan": (times, [math.nan, math.nan, 0.5]),
}


def same(got: Any, want: Any) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
    np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(np.signbit(g), np.signbit(w))


@settings(max_examples=30, deadline=None)
@given(case=st.sampled_from(sorted(CASES)), order=st.lists(st.integers(0, 9), min_size=2,
                                                           max_size=8))
def test_static_values_equal_under_eq_do_not_share_a_program(case: str, order: list[int]
                                                              ) -> None:
    fn, values = CASES[case]
    f = jt.jit(fn, static_argnums=1)
    x = jt.asarray([2.0, -3.0, 4.0]) if fn is not index_tuple else jt.asarray(
        [[1.0, 2.0], [3.0, 4.0]])
    for k in order:
        v = values[k % len(values)]
        same(f(x, v), fn(x, v))


def test_repeat_calls_return_the_arguments_passed() -> None:
    f = jt.jit(lambda a, s, b: (b, a, s), static_argnums=1)
    a, b = jt.ones(2), jt.zeros(3)
    for s in (5, 5, 7, 5, 7):
        r = f(a, s, b)
        assert r[0] is b and r[1] is a and r[2] == s


def test_repeat_calls_write_in_place_with_static_arguments() -> None:
    def add(x: jt.Tensor, k: int, n: int) -> None:
        x[k] += n

    f = jt.jit(add, static_argnums=(1, 2))
    x, want = jt.zeros(4), np.zeros(4)
    for k, n in [(0, 1), (0, 1), (3, 2), (0, 1), (-1, 5), (3, 2)]:
        f(x, k, n)
        want[k] += n
        np.testing.assert_array_equal(np.asarray(x), want)
