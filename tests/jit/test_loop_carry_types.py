"""A loop body returning a carry of other shapes or dtypes than ``init_val``: a
``TypeError`` naming the loop, ``body_fun``, ``init_val`` and both types (JAX's message
named its own carry paths, ``loop_carry[2][1][0]``), at the top level and inside
``jaxtensor.jit``, for ``fori_loop`` with static or traced bounds and ``while_loop``; a
Tensor the body wrote before returning is left as it was. A weakly typed carry (a Python
number) still takes the dtype the body computes, as JAX's loop does."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import jaxtensor as jt

pytestmark = pytest.mark.filterwarnings("ignore::jaxtensor.RecompileWarning")

#: body results of another type than the float64[4] carry: (what, its type's words)
CHANGES: dict[str, tuple[Callable[[Any], Any], str]] = {
    "longer": (lambda c: jt.concat([c, c]), "float64[8]"),
    "shorter": (lambda c: c[:2] + 1.0, "float64[2]"),
    "more axes": (lambda c: c[None], "float64[1, 4]"),
    "int": (lambda c: c.astype(jt.int32), "int32[4]"),
    "float32": (lambda c: c.astype(jt.float32), "float32[4]"),
    "0-D": (lambda c: c.sum(), "float64[]"),
}


def loops(change: Callable[[Any], Any], log: jt.Tensor) -> dict[str, Callable[[Any], Any]]:
    def fori(c: Any, n: Any = 3) -> Any:
        def body(i: Any, c: Any) -> Any:
            log[0] += 1.0
            return change(c)
        return jt.fori_loop(0, n, body, c)

    def while_(c: Any) -> Any:
        def body(c: Any) -> Any:
            log[0] += 1.0
            return change(c)
        return jt.while_loop(lambda c: c[0] < 10.0, body, c)

    return {
        "fori_loop static": fori,
        "fori_loop traced": lambda c: jt.jit(fori)(c, jt.asarray(3)),
        "fori_loop in jit": jt.jit(fori),
        "while_loop": while_,
        "while_loop in jit": jt.jit(while_),
    }


@pytest.mark.parametrize("change", sorted(CHANGES))
@pytest.mark.parametrize("how", sorted(loops(lambda c: c, jt.zeros(1))))
def test_a_carry_of_another_type_names_both(change: str, how: str) -> None:
    fn, words = CHANGES[change]
    log = jt.zeros(1)
    loop = loops(fn, log)[how]
    x = jt.arange(4.0)
    name = how.split()[0]
    want = (f"{name}(): body_fun must return a carry of init_val's shapes and dtypes: "
            f"init_val is float64[4], body_fun returned {words}")
    with pytest.raises(TypeError, match=re.escape(want)):
        loop(x)
    assert log.tolist() == [0.0]
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_the_leaf_of_a_tuple_carry_is_named() -> None:
    with pytest.raises(TypeError, match=re.escape(
            "init_val (its leaf 1) is float64[2], body_fun returned float64[3]")):
        jt.fori_loop(0, 2, lambda i, c: (c[0], jt.ones(3)), (jt.ones(1), jt.ones(2)))


def test_a_bool_carry_is_not_weakly_typed() -> None:
    t8 = jt.asarray(np.arange(1, 6, dtype=np.int8))
    with pytest.raises(TypeError, match=re.escape(
            "init_val is bool[], body_fun returned int8[]")):
        jt.fori_loop(0, 5, lambda i, c: c + t8[i], True)


@pytest.mark.parametrize("init", [0, 0.0, 0j])
def test_a_python_number_carry_takes_the_bodys_dtype(init: Any) -> None:
    x8 = np.arange(1, 6, dtype=np.int8)
    t8 = jt.asarray(x8)
    got = jt.fori_loop(0, 5, lambda i, c: c + t8[i], init)
    want = init
    for v in x8:
        want = want + v
    assert np.asarray(got).dtype == np.asarray(want).dtype
    assert np.asarray(got) == want
