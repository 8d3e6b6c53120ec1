"""Element-wise functions of the Array API standard.

Every function promotes its operands with the standard's table (``_dtypes``), treats
Python scalars as weak, casts both operands to the result dtype and runs one cached
compiled kernel (faster than eager ``jnp`` dispatch for small arrays).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from . import _dtypes, _kernels
from ._tensor import Tensor

__all__ = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "floor_divide",
    "remainder",
    "pow",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "bitwise_invert",
    "negative",
    "positive",
    "abs",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_not",
    "real",
    "imag",
    "matmul",
]

_SCALARS = (bool, int, float, complex)


def _operand_value(x: Any) -> Any:
    if isinstance(x, Tensor):
        return x._value()
    from ._creation import asarray

    return asarray(x)._value()


def _binary_operands(x1: Any, x2: Any) -> tuple[Any, Any, np.dtype]:
    """Values of both operands cast to their promoted dtype (Python scalars are weak)."""
    if isinstance(x1, Tensor):
        a = x1._value()
        if isinstance(x2, Tensor):
            b = x2._value()
            dt = _dtypes.promote(a.dtype, b.dtype)
        elif type(x2) in _SCALARS:
            dt = _dtypes.scalar_result(a.dtype, x2)
            b = _scalar(x2, dt)
        else:
            b = _operand_value(x2)
            dt = _dtypes.promote(a.dtype, b.dtype)
    elif isinstance(x2, Tensor):
        b = x2._value()
        if type(x1) in _SCALARS:
            dt = _dtypes.scalar_result(b.dtype, x1)
            a = _scalar(x1, dt)
        else:
            a = _operand_value(x1)
            dt = _dtypes.promote(a.dtype, b.dtype)
    else:
        raise TypeError(
            f"expected at least one Tensor operand, got {type(x1).__name__} and "
            f"{type(x2).__name__}; convert with jaxtensor.asarray"
        )
    return a, b, dt


def _scalar(s: Any, dt: np.dtype) -> np.ndarray:
    if isinstance(s, complex) and dt.kind != "c":
        raise TypeError(f"cannot combine a complex scalar with a Tensor of dtype {dt}")
    try:
        return np.asarray(s, dtype=dt)
    except OverflowError:
        raise OverflowError(f"Python integer {s} out of bounds for {dt}") from None


def _cast(a: Any, dt: np.dtype) -> Any:
    return a if a.dtype == dt else a.astype(dt)


def binary(name: str, fn: Callable[[Any, Any], Any], x1: Any, x2: Any) -> Tensor:
    """Apply a same-dtype binary ``fn`` after Array API promotion."""
    a, b, dt = _binary_operands(x1, x2)

    def build() -> Callable:
        return lambda p, q: fn(_cast(p, dt), _cast(q, dt))

    return Tensor._wrap(_kernels.call((name, dt), build, a, b))


def unary(name: str, fn: Callable[[Any], Any], x: Tensor) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}() expects a Tensor, got {type(x).__name__}")
    return Tensor._wrap(_kernels.call((name,), lambda: fn, x._value()))


def add(x1: Any, x2: Any, /) -> Tensor:
    return binary("add", jnp.add, x1, x2)


def subtract(x1: Any, x2: Any, /) -> Tensor:
    return binary("subtract", jnp.subtract, x1, x2)


def multiply(x1: Any, x2: Any, /) -> Tensor:
    return binary("multiply", jnp.multiply, x1, x2)


def divide(x1: Any, x2: Any, /) -> Tensor:
    a, b, dt = _binary_operands(x1, x2)
    if dt.kind in "iub":
        dt = _dtypes.default_float
    return Tensor._wrap(
        _kernels.call(("divide", dt), lambda: lambda p, q: jnp.divide(_cast(p, dt), _cast(q, dt)),
                      a, b)
    )


def floor_divide(x1: Any, x2: Any, /) -> Tensor:
    return binary("floor_divide", jnp.floor_divide, x1, x2)


def remainder(x1: Any, x2: Any, /) -> Tensor:
    return binary("remainder", jnp.remainder, x1, x2)


def pow(x1: Any, x2: Any, /) -> Tensor:  # noqa: A001
    return binary("pow", jnp.power, x1, x2)


def bitwise_and(x1: Any, x2: Any, /) -> Tensor:
    return binary("bitwise_and", jnp.bitwise_and, x1, x2)


def bitwise_or(x1: Any, x2: Any, /) -> Tensor:
    return binary("bitwise_or", jnp.bitwise_or, x1, x2)


def bitwise_xor(x1: Any, x2: Any, /) -> Tensor:
    return binary("bitwise_xor", jnp.bitwise_xor, x1, x2)


def bitwise_left_shift(x1: Any, x2: Any, /) -> Tensor:
    return binary("bitwise_left_shift", jnp.left_shift, x1, x2)


def bitwise_right_shift(x1: Any, x2: Any, /) -> Tensor:
    return binary("bitwise_right_shift", jnp.right_shift, x1, x2)


def bitwise_invert(x: Tensor, /) -> Tensor:
    return unary("bitwise_invert", jnp.invert, x)


def negative(x: Tensor, /) -> Tensor:
    return unary("negative", jnp.negative, x)


def positive(x: Tensor, /) -> Tensor:
    return unary("positive", jnp.positive, x)


def abs(x: Tensor, /) -> Tensor:  # noqa: A001
    return unary("abs", jnp.abs, x)


def equal(x1: Any, x2: Any, /) -> Tensor:
    return binary("equal", jnp.equal, x1, x2)


def not_equal(x1: Any, x2: Any, /) -> Tensor:
    return binary("not_equal", jnp.not_equal, x1, x2)


def less(x1: Any, x2: Any, /) -> Tensor:
    return binary("less", jnp.less, x1, x2)


def less_equal(x1: Any, x2: Any, /) -> Tensor:
    return binary("less_equal", jnp.less_equal, x1, x2)


def greater(x1: Any, x2: Any, /) -> Tensor:
    return binary("greater", jnp.greater, x1, x2)


def greater_equal(x1: Any, x2: Any, /) -> Tensor:
    return binary("greater_equal", jnp.greater_equal, x1, x2)


def logical_and(x1: Any, x2: Any, /) -> Tensor:
    return binary("logical_and", jnp.logical_and, x1, x2)


def logical_or(x1: Any, x2: Any, /) -> Tensor:
    return binary("logical_or", jnp.logical_or, x1, x2)


def logical_not(x: Tensor, /) -> Tensor:
    return unary("logical_not", jnp.logical_not, x)


def real(x: Tensor, /) -> Tensor:
    """The real part; a writeable view of a complex Tensor (NumPy's ``x.real``)."""
    from . import _view

    if x.dtype.kind == "c":
        return x._derive(_view.with_component(x._view, x.shape, "real"))
    return x._derive(_view.compose_axes(x._view, x.shape, list(range(x.ndim))))


def imag(x: Tensor, /) -> Tensor:
    """The imaginary part; a writeable view of a complex Tensor (NumPy's ``x.imag``)."""
    from . import _view

    if x.dtype.kind == "c":
        return x._derive(_view.with_component(x._view, x.shape, "imag"))
    return Tensor._wrap(jnp.zeros(x.shape, x.dtype))


def matmul(x1: Tensor, x2: Tensor, /) -> Tensor:
    return binary("matmul", jnp.matmul, x1, x2)
