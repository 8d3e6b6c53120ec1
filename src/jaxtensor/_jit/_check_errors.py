"""The errors of failed checks, as eager code raises them: the messages (also in checkify's
format) and the exception a failed check's ``[code, value]`` or checkify error state
becomes."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from .._core._config import X64
from .._core._errors import LinAlgError, matrix_name

#: bytes of the index dtype (an unsigned check's value wraps at its width)
_IDX_SIZE = 8 if X64 else 4


def message(v: Any, n: int, axis: int, fname: str | None) -> str:
    """The eager code's bounds message (``{}`` for the value: a checkify format)."""
    if fname is None:
        return f"index {v} is out of bounds for axis {axis} with size {n}"
    return f"{fname}(): index {v} is out of bounds for dimension {axis} with size {n}"


def window_message(v: Any, size: int, n: int, axis: int) -> str:
    """The eager message of a ``ds()`` window out of bounds (``{}``: a checkify format)."""
    return (f"ds({v}, {size}) is out of bounds for axis {axis} with size {n} (a window's "
            f"start must be between 0 and {n - size})")


_LINALG = re.compile(r"(at mapped index [0-9, ]+: )*linalg\.")

_FLOAT_NAMES = {-1: "-inf", 0: "nan", 1: "inf"}


def value_error(msg: tuple, v: Any) -> Exception:
    _, dtype, kind, _ = msg
    if kind == "f":
        name = _FLOAT_NAMES.get(int(v), v) if not isinstance(v, str) else v
        return ValueError(f"cannot convert float {name} to integer: a Tensor of dtype {dtype} "
                          "cannot hold NaN or infinity")
    return OverflowError(f"Python integer {v} out of bounds for {dtype}")


def value_message(msg: tuple) -> str:
    """The checkify form of a value check's message (``{}``: the value)."""
    return str(value_error(msg, "{}"))


def check_error(checks: tuple, chk: Any) -> Exception | None:
    """The error of the first failing check in ``chk`` (``[code, value]``), or None:
    ``IndexError`` for an index, ``ValueError``/``OverflowError`` for an assigned value,
    ``LinAlgError`` for a matrix."""
    c = np.asarray(chk)
    code = int(c[0])
    if not code:
        return None
    entry = checks[code - 1]
    v = int(c[1])
    if entry[0] == "window":
        _, axis, n, size = entry
        return IndexError(window_message(v, size, n, axis))
    if entry[0] == "value":
        if entry[3]:
            v %= 1 << (8 * _IDX_SIZE)
        return value_error(entry, v)
    if entry[0] == "linalg":
        _, text, arg, shape = entry
        return LinAlgError(text.format(matrix_name(arg, np.unravel_index(v, shape))))
    axis, n, unsigned, fname = entry
    if unsigned:
        v %= 1 << (8 * _IDX_SIZE)
    return IndexError(message(v, n, axis, fname))


def checkify_error(err: Any) -> Exception | None:
    """The error of a checkify error state (``IndexError``, the value checks'
    ``ValueError``/``OverflowError``, or the matrix checks' ``LinAlgError``), or None."""
    msg = err.get()
    if msg is None:
        return None
    first = msg.split("\n")[0]
    suffix = " (`check` failed)"
    text = first[:-len(suffix)] if first.endswith(suffix) else first
    if text.startswith("cannot convert float"):
        return ValueError(text)
    if text.startswith("Python integer"):
        return OverflowError(text)
    if _LINALG.match(text):
        return LinAlgError(text)
    return IndexError(text)
