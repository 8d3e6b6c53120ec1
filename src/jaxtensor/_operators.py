"""Python operators on Tensor, including in-place ones that write through the storage."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import _elementwise as ew
from ._tensor import Tensor

_BINARY: dict[str, Callable[[Any, Any], Tensor]] = {
    "add": ew.add,
    "sub": ew.subtract,
    "mul": ew.multiply,
    "truediv": ew.divide,
    "floordiv": ew.floor_divide,
    "mod": ew.remainder,
    "pow": ew.pow,
    "and": ew.bitwise_and,
    "or": ew.bitwise_or,
    "xor": ew.bitwise_xor,
    "lshift": ew.bitwise_left_shift,
    "rshift": ew.bitwise_right_shift,
    "matmul": ew.matmul,
}
_COMPARE = {
    "eq": ew.equal,
    "ne": ew.not_equal,
    "lt": ew.less,
    "le": ew.less_equal,
    "gt": ew.greater,
    "ge": ew.greater_equal,
}
_UNARY = {"neg": ew.negative, "pos": ew.positive, "abs": ew.abs, "invert": ew.bitwise_invert}


def _forward(fn: Callable) -> Callable:
    def op(self: Tensor, other: Any) -> Any:
        try:
            return fn(self, other)
        except TypeError:
            if not isinstance(other, (Tensor, bool, int, float, complex)):
                return NotImplemented
            raise

    return op


def _reflected(fn: Callable) -> Callable:
    def op(self: Tensor, other: Any) -> Any:
        try:
            return fn(other, self)
        except TypeError:
            if not isinstance(other, (Tensor, bool, int, float, complex)):
                return NotImplemented
            raise

    return op


def _inplace(fn: Callable, name: str) -> Callable:
    def op(self: Tensor, other: Any) -> Tensor:
        result = fn(self, other)
        if result.shape != self.shape:
            raise ValueError(
                f"in-place {name}: the result has shape {result.shape}, which does not fit the "
                f"left operand's shape {self.shape}"
            )
        self._assign(result._value())
        return self

    return op


# functions that are one ``binary`` call, with no checks of their own before it
_FAST = frozenset({
    "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow", "equal",
    "not_equal", "less", "less_equal", "greater", "greater_equal",
})


def _fast(fn: Callable, slow: Callable, *, reflected: bool = False) -> Callable:
    """``slow`` behind the element-wise module's per-signature fast path, when ``fn`` is one
    of its ``binary`` functions (its ``__name__`` is then the name ``binary`` records)."""
    if fn.__name__ not in _FAST or getattr(ew, fn.__name__) is not fn:
        return slow
    return ew.fast_operator(fn.__name__, slow, reflected=reflected)


def install() -> None:
    from . import _linear_algebra

    # the public matmul lives with linear algebra; fall back to the element-wise module's
    _BINARY["matmul"] = getattr(_linear_algebra, "matmul", ew.matmul)
    for name, fn in _BINARY.items():
        setattr(Tensor, f"__{name}__", _fast(fn, _forward(fn)))
        setattr(Tensor, f"__r{name}__", _fast(fn, _reflected(fn), reflected=True))
        setattr(Tensor, f"__i{name}__", _inplace(fn, name))
    for name, fn in _COMPARE.items():
        setattr(Tensor, f"__{name}__", _fast(fn, _forward(fn)))
    for name, fn in _UNARY.items():
        setattr(Tensor, f"__{name}__", fn)
