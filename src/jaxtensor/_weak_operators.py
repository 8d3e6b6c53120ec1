"""The operators of a Python number passed to ``jaxtensor.jit`` (a ``WeakTensor``).

Eagerly ``v + x`` with ``v`` a Python number and ``x`` a Tensor runs ``x.__radd__(v)``:
the number is a weak scalar beside the Tensor (``uint8_t + 10`` stays uint8, an int out
of range raises ``OverflowError``). Inside ``jaxtensor.jit`` the number is a WeakTensor,
whose operators call the same element-wise functions with the number as the scalar
operand, on either side. Between numbers (``v * 2``, ``-v``, ``v < 3``) the result is a
number again: a WeakTensor of the kind Python gives (``v / 2`` a float, ``v < 3`` a bool),
so that ``(1 - v) * x`` promotes as it does eagerly. ``v += 1`` rebinds ``v``, as it does
for a Python number.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import _elementwise as ew
from ._args import declines, weak_scalar
from ._core import Tensor, WeakTensor, as_weak, weak_number

_NUMBERS = (bool, int, float, complex)

#: operator name (without underscores) -> the element-wise function
_BINARY = {
    "add": ew.add, "sub": ew.subtract, "mul": ew.multiply, "truediv": ew.divide,
    "floordiv": ew.floor_divide, "mod": ew.remainder, "pow": ew.pow,
    "and": ew.bitwise_and, "or": ew.bitwise_or, "xor": ew.bitwise_xor,
    "lshift": ew.bitwise_left_shift, "rshift": ew.bitwise_right_shift,
}
#: comparisons (Python reflects ``3 < v`` as ``v > 3`` itself)
_COMPARE = {"eq": ew.equal, "ne": ew.not_equal, "lt": ew.less, "le": ew.less_equal,
            "gt": ew.greater, "ge": ew.greater_equal}
#: the ordering comparisons' symbols (Python numbers: not for complex ones)
_ORDER = {"lt": "<", "le": "<=", "gt": ">", "ge": ">="}
_KIND_NAMES = {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}
_UNARY = {"neg": ew.negative, "pos": ew.positive, "abs": ew.abs, "invert": ew.bitwise_invert}


def _is_number(x: Any) -> bool:
    return type(x) in _NUMBERS or weak_scalar(x) is not None


def _type_name(x: Any) -> str:
    """The Python type a number (or a traced one) is."""
    return type(x).__name__ if type(x) in _NUMBERS else _KIND_NAMES[x.dtype.kind]


def _binary(fn: Callable, reflected: bool, order: str | None = None
            ) -> Callable[[WeakTensor, Any], Any]:
    def op(self: WeakTensor, other: Any) -> Any:
        o = weak_number(other)
        s = self.number()
        if order is not None and _is_number(o) and "complex" in (
                _type_name(s), _type_name(o)):
            raise TypeError(f"'{order}' not supported between instances of "
                            f"'{_type_name(s)}' and '{_type_name(o)}'")
        try:
            r = fn(o, s) if reflected else fn(s, o)
        except TypeError:
            if not isinstance(other, (Tensor, *_NUMBERS)):
                return NotImplemented
            raise
        except IndexError:
            if declines(other):
                return NotImplemented
            raise
        return as_weak(r) if _is_number(o) else r

    return op


def _unary(fn: Callable) -> Callable[[WeakTensor], WeakTensor]:
    def op(self: WeakTensor) -> WeakTensor:
        return as_weak(fn(self))

    return op


def _divmod(self: WeakTensor, other: Any) -> Any:
    q = self.__floordiv__(other)
    return NotImplemented if q is NotImplemented else (q, self.__mod__(other))


def _rdivmod(self: WeakTensor, other: Any) -> Any:
    q = self.__rfloordiv__(other)
    return NotImplemented if q is NotImplemented else (q, self.__rmod__(other))


def _bind() -> None:
    """Set the operators on :class:`WeakTensor` (its other methods are Tensor's)."""
    for name, fn in _BINARY.items():
        forward = _binary(fn, False)
        setattr(WeakTensor, f"__{name}__", forward)
        setattr(WeakTensor, f"__r{name}__", _binary(fn, True))
        setattr(WeakTensor, f"__i{name}__", forward)  # (a number is rebound, not written)
    for name, fn in _COMPARE.items():
        setattr(WeakTensor, f"__{name}__", _binary(fn, False, _ORDER.get(name)))
    for name, fn in _UNARY.items():
        setattr(WeakTensor, f"__{name}__", _unary(fn))
    WeakTensor.__divmod__ = _divmod  # type: ignore[method-assign]
    WeakTensor.__rdivmod__ = _rdivmod  # type: ignore[method-assign]


_bind()
