"""An operator with a NumPy (or JAX) operand answers as its function form does, both
ways round: the same Tensor, or the same ``TypeError`` where the standard's promotion has
no answer (bool with numbers, uint64 with signed integers). Before, the refusal returned
``NotImplemented`` and NumPy's or Python's fallback answered: ``x * np.True_`` a NumPy
array, ``x == np.True_`` Python's ``False``. (With a JAX array on the left its own operator
runs first and answers with a JAX array: only the Tensor on the left is compared there.)"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np
import pytest

import jaxtensor as jt

OPS: dict[str, tuple[Callable, Callable]] = {
    "+": (operator.add, jt.add), "*": (operator.mul, jt.multiply),
    "==": (operator.eq, jt.equal), "!=": (operator.ne, jt.not_equal),
    "<": (operator.lt, jt.less), "&": (operator.and_, jt.bitwise_and),
}
TENSORS = {"float64": [1.0, 0.0], "int64": [1, 0], "uint8": [1, 0], "bool": [True, False]}
OTHERS: dict[str, Callable[[], Any]] = {
    "np.True_": lambda: np.True_, "np.uint64(1)": lambda: np.uint64(1),
    "np.float32(2)": lambda: np.float32(2), "np.int8(3)": lambda: np.int8(3),
    "np bool array": lambda: np.asarray([True, True]),
    "np uint64 array": lambda: np.asarray([1, 2], np.uint64),
    "jnp bool array": lambda: jnp.asarray([True, False]),
}


def answer(fn: Callable) -> Any:
    try:
        r = fn()
    except TypeError as e:
        return "TypeError", str(e)
    assert isinstance(r, jt.Tensor), type(r)
    return r.dtype, r.tolist()


@pytest.mark.parametrize("sym", sorted(OPS))
@pytest.mark.parametrize("dtype", sorted(TENSORS))
@pytest.mark.parametrize("other", sorted(OTHERS))
def test_an_operator_with_a_numpy_operand_answers_as_its_function(sym: str, dtype: str,
                                                                   other: str) -> None:
    op, fn = OPS[sym]
    x = jt.asarray(TENSORS[dtype], dtype=dtype)
    o = OTHERS[other]()
    # (with a JAX array on the left its own operator runs first, and answers)
    orders = [(x, o)] if other.startswith("jnp") else [(x, o), (o, x)]
    for a, b in orders:
        want = answer(lambda a=a, b=b: fn(a, b))
        got = answer(lambda a=a, b=b: op(a, b))
        if want[0] == "TypeError":
            assert got[0] == "TypeError"
        else:
            assert got == want
