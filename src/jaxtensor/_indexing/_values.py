"""Values assigned by ``__setitem__``: validated and converted like NumPy 2 does.

The value is cast to the destination dtype with ``astype``'s rules (floats truncate into
integers, nonzero becomes True); complex into real raises ``TypeError``; a Python int out of
the destination's range raises ``OverflowError`` (as NumPy 2 does) and a float NaN or
infinity into integers ``ValueError`` (one error for both: ``docs/decisions.md``, *Assignment
casting*; NumPy raises ``OverflowError`` for an infinity); the value must broadcast to the selection's shape (leading
1-axes may be dropped), else ``ValueError`` naming both shapes.

A single value gets these checks whatever its Python type: a NumPy scalar, a 0-D NumPy
array, a 0-D Tensor or ``jax.Array`` is checked like the Python number it holds when its
dtype does not cast safely to the destination's (NumPy itself wraps ``np.int64(300)`` into
``uint8`` silently; jaxtensor raises, see ``docs/decisions.md``). Non-numeric values
(``np.datetime64``, strings) raise ``TypeError``. Any other value is taken exactly when
``asarray`` takes it (``range``, ``memoryview``, ``array.array``, other libraries' arrays),
then cast by these rules. Inside ``jaxtensor.jit`` a traced single value is checked by the
trace (the call raises the same error); under plain ``jax.jit`` it is cast without the
check.
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .._core import Tensor, _dtypes, asarray, device_constant, raised_later
from .._core import current as _current_jit
from .._core._errors import nonfinite_error

Tracer = jax.core.Tracer


def _value_dtype_error(vdt: np.dtype, dtype: np.dtype) -> TypeError:
    return TypeError(
        f"cannot assign a value of dtype {vdt} to a Tensor of dtype {dtype}: complex values do "
        "not fit a real Tensor; assign value.real, or cast the Tensor to a complex dtype"
    )


def prepare_value(value: Any, dtype: np.dtype, target: tuple[int, ...]) -> Any:
    """Validate and convert an assigned value: cast rules of ``astype``, NumPy's shape rule.

    Python scalars are converted here (with NumPy 2's ``OverflowError`` for out-of-range
    ints, ``ValueError`` for NaN/inf into integers); arrays are cast in the kernel.
    """
    t = type(value)
    if t is float or t is int or t is bool or t is complex:
        e: Exception | None = None
        if t is complex and dtype.kind != "c":
            e = _value_dtype_error(np.dtype(complex), dtype)
        elif t is float and dtype.kind in "iu" and not math.isfinite(value):
            e = nonfinite_error(value, dtype)
        else:
            try:
                return np.asarray(value, dtype=dtype)
            except OverflowError:
                if t is complex:
                    raise
                e = OverflowError(f"Python integer {int(value)} out of bounds for {dtype}")
        if raised_later(e):  # (in a body that may not run: a check where it runs)
            return np.zeros((), dtype)
        raise e
    if isinstance(value, Tensor):
        arr = value._value()
    elif isinstance(value, (jax.Array, Tracer)):
        arr = value
    elif isinstance(value, (np.ndarray, np.generic)):
        arr = np.asarray(value)
    elif isinstance(value, (list, tuple)) and _has_traced(value):
        # (a list passed into a jaxtensor.jit function: its numbers are traced)
        arr = jnp.asarray(_values_of(value))
        if arr.dtype.kind == "c" and dtype.kind != "c":
            raise _value_dtype_error(np.dtype(arr.dtype), dtype)
        arr = arr.astype(dtype)
    elif isinstance(value, (list, tuple)):
        try:
            arr = np.asarray(value)
        except ValueError as e:
            raise ValueError(f"could not convert the assigned sequence to an array: {e}") from None
        if arr.dtype.kind == "c" and dtype.kind != "c":
            raise _value_dtype_error(arr.dtype, dtype)
        arr = np.asarray(value, dtype=dtype)
    else:  # anything asarray takes: ranges, buffers, other libraries' arrays
        arr = _converted(value)
    vdt = np.dtype(arr.dtype)
    if vdt.kind == "c" and dtype.kind != "c":
        raise _value_dtype_error(vdt, dtype)
    if vdt.kind not in "biufc" and vdt != _dtypes.bfloat16:
        raise TypeError(
            f"cannot assign a value of dtype {vdt} to a Tensor of dtype {dtype}: only numbers "
            "and booleans can be stored; convert the value first"
        )
    if (arr.ndim == 0 and dtype.kind in "iu" and (vdt.kind in "iuf" or vdt == _dtypes.bfloat16)
            and not np.can_cast(vdt, dtype)):
        # a single value that may not fit: checked like the Python number it holds (a
        # traced one by the running jaxtensor.jit trace, raising the same error at the call)
        if not isinstance(arr, Tracer):
            prepare_value(arr.item(), dtype, target)
        else:
            jt = _current_jit.get()
            if jt is not None:
                jt.check_value(arr, dtype)
    vs = tuple(arr.shape)
    stripped = vs
    while len(stripped) > len(target) and stripped[0] == 1:
        stripped = stripped[1:]
    ok = len(stripped) <= len(target)
    if ok and stripped != target and stripped:
        try:
            ok = np.broadcast_shapes(stripped, target) == target
        except ValueError:
            ok = False
    if not ok:
        raise ValueError(
            "could not broadcast input array from shape "
            f"{_fmt(vs)} into shape {_fmt(target)}"
        )
    if isinstance(arr, np.ndarray) and arr.dtype != dtype:
        with np.errstate(all="ignore"):
            arr = arr.astype(dtype)
    return arr


def _converted(value: Any) -> Any:
    """``asarray(value)``'s array, or the ``TypeError`` of a value it does not take."""
    try:
        return asarray(value)._value()
    except (TypeError, ValueError):
        raise TypeError(
            f"cannot assign an object of type {type(value).__name__} to a Tensor; assign a "
            "number, a Tensor, or anything jaxtensor.asarray takes (a sequence, a NumPy, JAX "
            "or other library's array, a buffer)"
        ) from None


def _has_traced(seq: Any) -> bool:
    for e in seq:
        if isinstance(e, (list, tuple)):
            if _has_traced(e):
                return True
        elif isinstance(e, Tracer) or (isinstance(e, Tensor) and isinstance(e._value(), Tracer)):
            return True  # (a traced number, or a Tensor: a number passed to jaxtensor.jit)
    return False


def _values_of(seq: Any) -> list:
    """``seq`` (nested lists and tuples) with each Tensor replaced by its value."""
    return [_values_of(e) if isinstance(e, (list, tuple))
            else e._value() if isinstance(e, Tensor) else e for e in seq]


def _fmt(shape: tuple[int, ...]) -> str:
    return "(" + ",".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def kept_scalar(value: Any, val: Any) -> Any:
    """``val`` (the prepared ``value``), as a kept device array when ``value`` is a Python
    number written again and again (JAX would copy it to the device on every call: on an
    accelerator, a host-to-device transfer per write)."""
    t = type(value)
    if t is float or t is int or t is bool:
        k = ("value", t, value, val.dtype, np.shape(val),
             math.copysign(1.0, value) if t is float else 0)
        kept = device_constant(k, lambda: jax.device_put(val))
        if kept is not None:
            return kept
    return val

