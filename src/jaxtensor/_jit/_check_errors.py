"""The errors of failed checks, as eager code raises them: the messages (also in checkify's
format) and the exception a failed check's ``[code, value]`` or checkify error state
becomes."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core._config import X64
from .._core._errors import LinAlgError, matrix_name, nonfinite_error, window_message

#: bytes of the index dtype (an unsigned check's value wraps at its width)
_IDX_SIZE = 8 if X64 else 4


def message(v: Any, n: int, axis: int, fname: str | None) -> str:
    """The eager code's bounds message (``{}`` for the value: a checkify format)."""
    if fname is None:
        return f"index {v} is out of bounds for axis {axis} with size {n}"
    return f"{fname}(): index {v} is out of bounds for dimension {axis} with size {n}"


_LINALG = re.compile(r"(at mapped index [0-9, ]+: )*linalg\.")

_FLOAT_NAMES = {-1: "-inf", 0: "nan", 1: "inf"}


def value_error(dtype: str, kind: str, v: Any) -> Exception:
    """The eager error of a number that does not fit the integer ``dtype`` (``kind``: "f" for
    a NaN or infinity, reported as -1, 0, 1; "i" for an integer out of range)."""
    if kind == "f":
        name = _FLOAT_NAMES.get(int(v), v) if not isinstance(v, str) else v
        return nonfinite_error(name, dtype)
    return OverflowError(f"Python integer {v} out of bounds for {dtype}")


# What a folded check records of itself, for the error of its failure (the trace's
# ``msgs``, kept on the program's ``Aux``): one frozen type per kind, so two kinds never
# compare equal, each making its eager error from the value the check reported.
@dataclass(frozen=True, slots=True)
class IndexFailure:
    """An index out of an axis of ``n``; ``fname``: the public function checked, if any."""

    axis: int
    n: int
    unsigned: bool  # the value reported wraps at the index dtype's width
    fname: str | None

    def error(self, v: int) -> Exception:
        if self.unsigned:
            v %= 1 << (8 * _IDX_SIZE)
        return IndexError(message(v, self.n, self.axis, self.fname))


@dataclass(frozen=True, slots=True)
class WindowFailure:
    """A ``ds(start, size)`` window out of an axis of ``n``."""

    axis: int
    n: int
    size: int

    def error(self, v: int) -> Exception:
        return IndexError(window_message(v, self.size, self.n, self.axis))


@dataclass(frozen=True, slots=True)
class ValueFailure:
    """A number assigned into an integer Tensor of ``dtype`` that it does not fit."""

    dtype: str
    kind: str  # "f": a NaN or infinity (reported as 0, -1, 1); "i": an integer out of range
    unsigned: bool  # the value reported wraps at the index dtype's width

    def error(self, v: Any) -> Exception:
        if self.unsigned and not isinstance(v, str):
            v %= 1 << (8 * _IDX_SIZE)
        return value_error(self.dtype, self.kind, v)


@dataclass(frozen=True, slots=True)
class FloatFailure:
    """A float assigned into an integer Tensor of ``dtype``: NaN, an infinity, or a number
    whose truncation ``dtype`` does not hold. The value reported is the float's bits (a
    signed integer of its width)."""

    dtype: str
    source: str  # the float's dtype

    def error(self, v: int) -> Exception:
        fdt = np.dtype(self.source)
        f = float(np.asarray(v, f"int{8 * fdt.itemsize}").view(fdt))
        if not math.isfinite(f):
            return value_error(self.dtype, "f", repr(f))
        return value_error(self.dtype, "i", int(f))


@dataclass(frozen=True, slots=True)
class MatrixFailure:
    """A matrix of a stack of ``shape`` that a ``linalg`` function cannot take."""

    text: str  # the message, ``{}`` for the matrix's name
    arg: str  # the argument's name
    shape: tuple[int, ...]  # the stack's shape (the value reported is a flat index in it)

    def error(self, v: int) -> Exception:
        return LinAlgError(self.text.format(matrix_name(self.arg, np.unravel_index(v, self.shape))))


#: the checkify messages of checks made of an eager raise, and the class of each
_RAISED: dict[str, type[Exception]] = {}


@dataclass(frozen=True, slots=True)
class RaisedFailure:
    """What eager code raises where the code runs (``Trace.check_reached``)."""

    kind: type[Exception]  # the exception's class (a builtin's: made with its message)
    text: str

    def error(self, v: Any) -> Exception:
        return self.kind(self.text)

    def checkify_message(self) -> str:
        """The checkify form (braces doubled: a format), known to :func:`checkify_error`."""
        _RAISED[self.text] = self.kind
        return self.text.replace("{", "{{").replace("}", "}}")


Failure = (IndexFailure | WindowFailure | ValueFailure | FloatFailure | MatrixFailure
           | RaisedFailure)


def value_message(failure: ValueFailure) -> str:
    """The checkify form of a value check's message (``{}``: the value)."""
    return str(value_error(failure.dtype, failure.kind, "{}"))


def check_error(checks: tuple[Failure, ...], chk: Any) -> Exception | None:
    """The error of the first failing check in ``chk`` (``[code, value]``), or None:
    ``IndexError`` for an index, ``ValueError``/``OverflowError`` for an assigned value,
    ``LinAlgError`` for a matrix."""
    c = np.asarray(chk)
    code = int(c[0])
    if not code:
        return None
    return checks[code - 1].error(int(c[1]))


def checkify_error(err: Any) -> Exception | None:
    """The error of a checkify error state (``IndexError``, the value checks'
    ``ValueError``/``OverflowError``, or the matrix checks' ``LinAlgError``), or None."""
    msg = err.get()
    if msg is None:
        return None
    first = msg.split("\n")[0]
    suffix = " (`check` failed)"
    text = first[:-len(suffix)] if first.endswith(suffix) else first
    kind = _RAISED.get(text)
    if kind is not None:
        return kind(text)
    if text.startswith("cannot convert float"):
        return ValueError(text)
    if text.startswith("Python integer"):
        return OverflowError(text)
    if _LINALG.match(text):
        return LinAlgError(text)
    return IndexError(text)
