"""Argument helpers shared by the section modules of part B (manipulation, searching,
sorting, sets, statistics, linear algebra, linalg, fft): operand values, axis
normalisation, result wrapping that never shares a buffer with an input's storage."""

from __future__ import annotations

import operator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from array_api_compat import is_array_api_obj

from ._core import Tensor, _dtypes, asarray

Tracer = jax.core.Tracer

_SCALARS = (bool, int, float, complex)


def value(x: Any, name: str = "x") -> Any:
    """The ``jax.Array`` (or tracer) behind a Tensor; another library's array is converted
    (``asarray``); anything else raises ``TypeError``."""
    if isinstance(x, Tensor):
        return x._value()
    if is_array_api_obj(x):  # NumPy, JAX, PyTorch, CuPy, ... or any __array_namespace__
        return asarray(x)._value()
    raise TypeError(
        f"{name} must be a jaxtensor Tensor, got {type(x).__name__}; "
        "convert it with jaxtensor.asarray"
    )


def as_value(x: Any) -> Any:
    """The ``jax.Array`` (or tracer) behind a Tensor; a JAX array or tracer as it is; anything
    else ``asarray`` takes (scalars, sequences, NumPy arrays, other libraries' arrays)
    converted with it."""
    if isinstance(x, Tensor):
        return x._value()
    if isinstance(x, (jax.Array, Tracer)):
        return x
    return asarray(x)._value()


def wrap(val: Any, *inputs: Any) -> Tensor:
    """A new Tensor owning ``val``; copies ``val`` if it is an input's storage buffer
    (a jitted identity hands back its input, and two storages must never share one
    buffer, since either may donate it)."""
    for x in inputs:
        if isinstance(x, Tensor) and val is x._storage.array:
            val = jnp.array(val, copy=True)
            break
    return Tensor._wrap(val)


def normalize_axis(axis: Any, ndim: int, name: str = "axis") -> int:
    """``axis`` as a non-negative int below ``ndim``: ``TypeError`` when it is no integer,
    ``IndexError`` when it is out of range."""
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {type(axis).__name__}") from None
    if not -ndim <= a < ndim:
        raise IndexError(f"{name} {a} is out of bounds for a Tensor of dimension {ndim}")
    return a % ndim


def axes_in_order(axis: Any, ndim: int) -> tuple[int, ...]:
    """An int or a sequence of ints -> checked, non-negative axes in the order given;
    ``ValueError`` when one repeats."""
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    out = tuple(normalize_axis(a, ndim) for a in axes)
    if len(set(out)) != len(out):
        raise ValueError(f"repeated axis in {axis!r}")
    return out


def normalize_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """``None`` -> every axis; an int or a sequence of ints -> sorted, checked axes."""
    if axis is None:
        return tuple(range(ndim))
    return tuple(sorted(axes_in_order(axis, ndim)))


def scalar_or_value(x: Any, other_dtype: np.dtype) -> tuple[Any, np.dtype]:
    """Value and dtype of an operand that may be a Python scalar (weak, as in the standard's
    mixing of scalars and arrays) next to an operand of ``other_dtype``."""
    if isinstance(x, Tensor):
        v = x._value()
        return v, np.dtype(v.dtype)
    if type(x) in _SCALARS:
        dt = _dtypes.scalar_result(other_dtype, x)
        if isinstance(x, complex) and dt.kind != "c":
            raise TypeError(f"cannot combine a complex scalar with a Tensor of dtype {dt}")
        if isinstance(x, float) and dt.kind in "iub":
            raise TypeError(f"cannot combine a float scalar with a Tensor of dtype {dt}")
        try:
            return np.asarray(x, dtype=dt), dt
        except OverflowError:
            raise OverflowError(f"Python integer {x} out of bounds for {dt}") from None
    v = value(x)
    return v, np.dtype(v.dtype)


def promoted_pair(x1: Any, x2: Any, name: str = "x1") -> tuple[Any, Any, np.dtype]:
    """Values of two operands, either of which may be a Python scalar, and their promoted
    dtype. ``x1`` is taken as the array side unless only ``x2`` is a Tensor."""
    if isinstance(x1, Tensor) or not isinstance(x2, Tensor):
        a = value(x1, name)
        b, bdt = scalar_or_value(x2, np.dtype(a.dtype))
        return a, b, _dtypes.promote(np.dtype(a.dtype), bdt)
    b = x2._value()
    a, adt = scalar_or_value(x1, np.dtype(b.dtype))
    return a, b, _dtypes.promote(adt, np.dtype(b.dtype))


def is_traced(*vals: Any) -> bool:
    return any(isinstance(v, Tracer) for v in vals)


def sharded(v: Any) -> bool:
    """Whether ``v`` is an array spread over several devices (False for a traced value,
    whose placement is not known)."""
    return not isinstance(v, jax.core.Tracer) and len(v.sharding.device_set) > 1
