"""Operands of the element-wise functions: their values and the dtype a kernel computes in.

Two Tensors promote with the standard's table (``_dtypes.promote``). A Python scalar next to
a Tensor is weak (``float32 + 1.0 -> float32``, ``int64 + 1.0 ->`` the default float dtype).
A Python scalar that fits the result dtype goes to the kernel as it is (JAX passes Python
numbers cheaply and the kernel casts them); any other is converted here, where an
out-of-range int raises ``OverflowError``. Any other operand (a NumPy or JAX array, a list,
another library's array) is converted with ``asarray`` (``_args.value``), also when neither
operand is a Tensor.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._args import check_weak, tensor, value, weak_scalar
from ._core import Tensor, _dtypes

#: The Python scalar types an element-wise function takes as an operand.
SCALARS = (bool, int, float, complex)

INT_RANGE, PASS_INT = _dtypes.INT_RANGE, _dtypes.PASS_INT


def operands(x1: Any, x2: Any, compare: bool = False, floating: bool = False
             ) -> tuple[Any, Any, np.dtype]:
    """Values of both operands and their promoted dtype (Python scalars are weak; with
    ``compare``, a traced Python int next to a narrower integer Tensor is compared in the
    wider dtype, exactly, as eager code compares an int out of the Tensor's range; with
    ``floating``, for a function computing in floating point, a Python int need only fit
    that floating dtype, as in NumPy: ``uint8_t / 300``)."""
    if isinstance(x1, Tensor):
        a = x1._value()
        if isinstance(x2, Tensor):
            b = x2._value()
            dt = _dtypes.promote(a.dtype, b.dtype)
        elif type(x2) in SCALARS:
            dt = _dtypes.scalar_result(a.dtype, x2)
            b = scalar(x2, float_of(dt) if floating else dt)
        else:
            weak = weak_scalar(x2)  # (a Python number traced by jit)
            b = value(x2, "x2")
            dt = _weak_result(a.dtype, b, weak, compare, floating)
    elif isinstance(x2, Tensor):
        b = x2._value()
        if type(x1) in SCALARS:
            dt = _dtypes.scalar_result(b.dtype, x1)
            a = scalar(x1, float_of(dt) if floating else dt)
        else:
            weak = weak_scalar(x1)
            a = value(x1, "x1")
            dt = _weak_result(b.dtype, a, weak, compare, floating)
    elif type(x1) in SCALARS and type(x2) not in SCALARS:
        return operands(x1, tensor(x2, "x2"))  # (a Python scalar stays weak next to it)
    else:  # array-likes (and two Python scalars): converted as asarray would
        return operands(tensor(x1, "x1"), x2)
    return a, b, dt


def _weak_result(dtype: np.dtype, other: Any, weak: Any, compare: bool, floating: bool
                 ) -> np.dtype:
    """The promoted dtype of a Tensor of ``dtype`` and a non-Tensor value ``other``
    (``weak``: the Python scalar it stands for, if it is a traced Python number)."""
    if weak is None or (compare and type(weak) is int and dtype.kind in "iu"):
        return _dtypes.promote(dtype, np.dtype(other.dtype))
    dt = _dtypes.scalar_result(dtype, weak)
    if not floating:
        check_weak(other, weak, dt)
    return dt


def scalar(s: Any, dt: np.dtype) -> Any:
    """A Python scalar operand for a kernel computing in ``dt``.

    In-range floats and ints are returned as they are (the element-wise function converts
    them to the dtype its kernel takes a scalar in, ``_elementwise.scalar_dtype``); the rest
    is converted here, where an out-of-range int raises ``OverflowError``.
    """
    t = type(s)
    k = "f" if dt == _dtypes.bfloat16 else dt.kind  # (ml_dtypes' bfloat16 has kind "V")
    if t is float:
        if k in "fc":
            return s
    elif t is int and -PASS_INT < s < PASS_INT:
        if k in "fc":
            return s
        if k in "iu":
            lo, hi = INT_RANGE[dt]
            if lo <= s <= hi:
                return s
    if isinstance(s, complex) and dt.kind != "c":
        raise TypeError(f"cannot combine a complex scalar with a Tensor of dtype {dt}")
    if t is int and dt in _dtypes.half_dtypes:  # (NumPy converts big ints to them badly)
        s = float(s)
    try:
        return np.asarray(s, dtype=dt)
    except OverflowError:
        raise OverflowError(
            f"Python integer {s} is out of bounds for {dt}; use a wider dtype"
        ) from None


def float_of(dt: np.dtype) -> np.dtype:
    """The floating dtype a float-only function computes in for inputs of dtype ``dt``."""
    return dt if dt.kind in "fc" or dt == _dtypes.bfloat16 else _dtypes.default_float
