"""A ``jt.cond`` whose one branch returns a Tensor (or a JAX value) and the other a Python
number: ``x[i] if x[i] > 0 else 0.0``. The result is a Tensor of the dtype the two take
together (jaxtensor's rule for a Tensor and a Python number, ``where(c, x, 0.0)``'s), in a
loop body at the top level, inside ``jaxtensor.jit`` with and without checks, under
``vmap`` and ``grad`` (the branches as a conditional of their own there). It raised
"must return the same structure (got PyTreeDef(*) and PyTreeDef(*))". Oracle: NumPy's
elements chosen one by one, in that dtype."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import jaxtensor as jt

pytestmark = pytest.mark.filterwarnings("ignore::jaxtensor.RecompileWarning")

DTYPES = ["int8", "int32", "float32", "float64"]
NUMBERS = [3, 0.5, -2]


def _looped(x: jt.Tensor, number: Any, tensor_first: bool) -> jt.Tensor:
    # (the result's dtype: a value written in another would be cast, and 0.5 into int8 seen)
    out = jt.zeros(x.shape, dtype=jt.where(x > 0, x, number).dtype)

    def body(i: Any) -> None:
        take = (lambda: x[i]), (lambda: number)
        out[i] = jt.cond(x[i] > 0, *(take if tensor_first else take[::-1]))

    jt.fori_loop(0, x.shape[0], body)
    return out


HOW: dict[str, Callable[..., Any]] = {
    "top level": _looped,
    "jit": jt.jit(_looped, static_argnums=(1, 2)),
    "jit unchecked": jt.jit(_looped, static_argnums=(1, 2), check_bounds=False),
    "vmap": lambda x, n, first: jt.vmap(lambda v: jt.cond(
        v > 0, *((lambda: v), (lambda: n))[::1 if first else -1]))(x),
}


@pytest.mark.parametrize("how", sorted(HOW))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("number", NUMBERS)
@pytest.mark.parametrize("tensor_first", [True, False])
def test_a_number_in_one_branch_takes_the_tensors_dtype(how: str, dtype: str, number: Any,
                                                       tensor_first: bool) -> None:
    a = np.array([1, -2, 3, 0, 5], dtype)
    x = jt.asarray(a)
    got = HOW[how](x, number, tensor_first)
    dt = jt.where(x > 0, x, number).dtype  # (jaxtensor's rule for a Tensor and a number)
    pick = a > 0 if tensor_first else ~(a > 0)
    want = np.where(pick, a.astype(dt), np.asarray(number).astype(dt))
    if not tensor_first:
        want = np.where(a > 0, np.asarray(number).astype(dt), a.astype(dt))
    assert got.dtype == dt
    np.testing.assert_array_equal(got.numpy(), want)


def test_the_gradient_goes_through_the_tensors_branch() -> None:
    def loss(x: jt.Tensor) -> jt.Tensor:
        out = jt.zeros(3)

        def body(i: Any) -> None:
            out[i] = jt.cond(x[i] > 0, lambda: x[i] * 2.0, lambda: 0.5)
        jt.fori_loop(0, 3, body)
        return (out * out).sum()

    a = np.array([1.0, -2.0, 3.0])
    np.testing.assert_array_equal(jt.grad(loss)(jt.asarray(a)).numpy(),
                                  np.where(a > 0, 8.0 * a, 0.0))


def test_shapes_that_differ_still_raise() -> None:
    with pytest.raises(TypeError, match=r"same shapes and dtypes \(got float64\[\] and "
                                        r"float64\[2\]\)"):
        jt.vmap(lambda v: jt.cond(v > 0, lambda: v, lambda: jt.zeros(2)))(jt.ones(2))
    with pytest.raises(TypeError, match="same shapes and dtypes"):
        jt.jit(lambda x: jt.cond(x[0] > 0, lambda: 7, lambda: x))(jt.ones(2))


def test_python_numbers_in_both_branches_are_a_traced_number() -> None:
    """Two Python numbers give what ``jaxtensor.jit`` makes of a number passed to it (a
    weakly typed Tensor: ``uint8 + cond(p, 3, 5)`` stays uint8), a bool a bool Tensor, and
    a Python bool next to a Tensor takes the Tensor's dtype (it raised, or came back as a
    64-bit JAX array)."""
    u8 = jt.asarray(np.array([7, 9], np.uint8))
    x16 = jt.asarray(np.array([1.5, 2.0], np.float16))
    f = jt.jit(lambda x: x + jt.cond(x[0] > 0, lambda: 3, lambda: 5))
    assert f(u8).dtype == np.uint8 and f(u8).tolist() == [10, 12]
    g = jt.jit(lambda x: jt.cond(x[0] > 0, lambda: 2.5, lambda: 1.0) * x)
    assert isinstance(g(x16), jt.Tensor) and g(x16).dtype == np.float16
    h = jt.jit(lambda x: jt.cond(x[0] > 0, lambda: x[1], lambda: True))
    assert h(x16).dtype == np.float16 and float(h(x16)) == 2.0
    assert h(-x16).dtype == np.float16 and float(h(-x16)) == 1.0
    b = jt.jit(lambda x: jt.cond(x[0] > 0, lambda: True, lambda: False))
    assert isinstance(b(x16), jt.Tensor) and b(x16).dtype == np.bool_ and bool(b(x16))

    def body(i: Any) -> None:
        u8[...] %= jt.cond(u8[0] > 0, lambda: 3, lambda: 5)
    jt.fori_loop(0, 1, body)
    assert u8.tolist() == [1, 0] and u8.dtype == np.uint8


@pytest.mark.parametrize("number", [300, -129, 2**63 - 1, 127, -128])
def test_a_python_int_the_joined_dtype_cannot_hold_raises_as_where_does(number: int) -> None:
    """``cond(p, lambda: x8[0], lambda: 300)``: the joined dtype is int8's, and 300 raises
    ``where(p, x8[0], 300)``'s ``OverflowError`` (it wrapped to 44)."""
    x8 = jt.asarray([1, 2], dtype=jt.int8)
    try:
        jt.where(x8[0] > 5, x8[0], number)
        want: Any = None
    except OverflowError:
        want = OverflowError
    f = jt.jit(lambda p, x: jt.cond(p > 0, lambda: x[0], lambda: number))
    try:
        got = f(jt.asarray(-1), x8)
        assert want is None and int(got) == number
    except OverflowError:
        assert want is OverflowError
