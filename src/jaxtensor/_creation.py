"""Creation functions of the Array API standard (``asarray``, ``zeros``, ``arange``, ...)."""

from __future__ import annotations

import builtins
import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from . import _dtypes
from ._tensor import Tensor

__all__ = [
    "arange",
    "asarray",
    "empty",
    "empty_like",
    "full",
    "full_like",
    "ones",
    "ones_like",
    "zeros",
    "zeros_like",
]

Tracer = jax.core.Tracer


def _device_put(arr: Any, device: Any) -> Any:
    if device is None or isinstance(arr, Tracer):
        return arr
    return jax.device_put(arr, device)


def _infer_python_dtype(obj: Any) -> np.dtype:
    """Default dtype for Python scalars and (nested) sequences of them."""
    kinds = set()

    def walk(o: Any) -> None:
        if isinstance(o, (list, tuple)):
            for e in o:
                walk(e)
        elif isinstance(o, Tensor):
            kinds.add(o.dtype)
        elif isinstance(o, builtins.bool | np.bool_):
            kinds.add("b")
        elif isinstance(o, int | np.integer):
            kinds.add("i")
        elif isinstance(o, float | np.floating):
            kinds.add("f")
        elif isinstance(o, complex | np.complexfloating):
            kinds.add("c")
        else:
            kinds.add(np.asarray(o).dtype)

    walk(obj)
    dts = [k for k in kinds if isinstance(k, np.dtype)]
    if dts:
        dt = dts[0]
        for d in dts[1:]:
            dt = _dtypes.promote(dt, d)
        return dt
    if "c" in kinds:
        return _dtypes.default_complex
    if "f" in kinds:
        return _dtypes.default_float
    if "i" in kinds:
        return _dtypes.default_int
    if "b" in kinds:
        return _dtypes.bool
    return _dtypes.default_float  # empty sequence


def asarray(
    obj: Any,
    /,
    *,
    dtype: Any = None,
    device: Any = None,
    copy: builtins.bool | None = None,
) -> Tensor:
    """Convert ``obj`` to a Tensor.

    ``obj`` may be a Tensor, a Python scalar or nested sequence, a NumPy or JAX array, or any
    object supporting the Array API / DLPack / buffer protocols. With ``copy=None`` a Tensor
    (or JAX array) of the right dtype and device is shared, not copied; ``copy=False`` raises
    ``ValueError`` when a copy cannot be avoided; ``copy=True`` always copies.

    >>> import jaxtensor as jt
    >>> jt.asarray([1, 2, 3])
    Tensor(shape=[3], dtype=int64, device=cpu,
           [1, 2, 3])
    """
    dt = None if dtype is None else _dtypes.as_dtype(dtype)
    if isinstance(obj, Tensor):
        same = (dt is None or dt == obj.dtype) and (device is None or device == obj.device)
        if same and not copy:
            return obj
        if copy is False:
            raise ValueError("asarray(copy=False) cannot avoid a copy: the dtype or device differs")
        v = obj._value()
        v = v.astype(dt) if dt is not None and dt != v.dtype else jnp.array(v, copy=True)
        return Tensor._wrap(_device_put(v, device))
    if isinstance(obj, (jax.Array, Tracer)):
        if dt is not None and dt != obj.dtype:
            if copy is False:
                raise ValueError("asarray(copy=False) cannot avoid a copy: the dtype differs")
            return Tensor._wrap(_device_put(obj.astype(dt), device))
        if copy:
            return Tensor._wrap(_device_put(jnp.array(obj, copy=True), device))
        # shared with the caller: never donate this buffer
        return Tensor._wrap(_device_put(obj, device), exported=True)
    if isinstance(obj, (builtins.bool, int, float, complex, list, tuple)):
        if copy is False:
            raise ValueError("asarray(copy=False) cannot wrap a Python object without copying")
        if dt is None:
            dt = _infer_python_dtype(obj)
        if isinstance(obj, (list, tuple)) and any(isinstance(e, Tensor) for e in _flat(obj)):
            host = np.asarray([np.asarray(e) if isinstance(e, Tensor) else e for e in obj])
        else:
            host = obj
        try:
            arr = np.asarray(host, dtype=dt)
        except OverflowError:
            raise OverflowError(f"Python integer out of bounds for {dt}") from None
        return Tensor._wrap(jnp.asarray(arr, device=device))
    if isinstance(obj, (np.ndarray, np.generic)):
        if copy is False:
            raise ValueError("asarray(copy=False) cannot share NumPy memory; JAX copies it")
        arr = np.asarray(obj)
        if dt is None:
            dt = _dtypes.canonical(arr.dtype)
            _dtypes.as_dtype(dt)
        return Tensor._wrap(jnp.asarray(arr.astype(dt, copy=False), device=device))
    return _from_foreign(obj, dt, device, copy)


def _flat(obj: Any) -> list[Any]:
    out: list[Any] = []
    for e in obj:
        if isinstance(e, (list, tuple)):
            out.extend(_flat(e))
        else:
            out.append(e)
    return out


def _from_foreign(obj: Any, dt: np.dtype | None, device: Any, copy: builtins.bool | None) -> Tensor:
    """Any other Array API / DLPack / buffer-protocol object."""
    arr = None
    if hasattr(obj, "__dlpack__") and copy is not True:
        try:
            arr = jnp.from_dlpack(obj)
        except Exception:  # noqa: BLE001 - fall back to the buffer protocol
            arr = None
    if arr is None:
        if copy is False:
            raise ValueError("asarray(copy=False) cannot share this object's memory")
        try:
            host = np.asarray(obj)
        except Exception as e:  # noqa: BLE001
            raise TypeError(f"cannot convert {type(obj).__name__} to a Tensor: {e}") from None
        if host.dtype == object:
            raise TypeError(f"cannot convert {type(obj).__name__} to a Tensor")
        arr = jnp.asarray(host)
        exported = False
    else:
        exported = True
    if dt is not None and arr.dtype != dt:
        arr = arr.astype(dt)
        exported = False
    return Tensor._wrap(_device_put(arr, device), exported=exported)


def _shape_arg(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"negative dimensions are not allowed, got shape {shape}")
    return shape


def _fill(shape: Any, value: Any, dtype: np.dtype, device: Any) -> Tensor:
    return Tensor._wrap(jnp.full(_shape_arg(shape), value, dtype=dtype, device=device))


def zeros(shape: Any, *, dtype: Any = None, device: Any = None) -> Tensor:
    dt = _dtypes.default_float if dtype is None else _dtypes.as_dtype(dtype)
    return _fill(shape, 0, dt, device)


def ones(shape: Any, *, dtype: Any = None, device: Any = None) -> Tensor:
    dt = _dtypes.default_float if dtype is None else _dtypes.as_dtype(dtype)
    return _fill(shape, 1, dt, device)


def empty(shape: Any, *, dtype: Any = None, device: Any = None) -> Tensor:
    return zeros(shape, dtype=dtype, device=device)


def full(shape: Any, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Tensor:
    if isinstance(fill_value, Tensor):
        fill_value = fill_value._value()
    if dtype is None:
        dt = _infer_python_dtype(fill_value)
    else:
        dt = _dtypes.as_dtype(dtype)
    if isinstance(fill_value, (builtins.bool, int, float, complex)):
        fill_value = np.asarray(fill_value, dtype=dt)
    return _fill(shape, fill_value, dt, device)


def _like_dtype(x: Tensor, dtype: Any) -> np.dtype:
    return x.dtype if dtype is None else _dtypes.as_dtype(dtype)


def zeros_like(x: Tensor, /, *, dtype: Any = None, device: Any = None) -> Tensor:
    return _fill(x.shape, 0, _like_dtype(x, dtype), device or _dev(x))


def ones_like(x: Tensor, /, *, dtype: Any = None, device: Any = None) -> Tensor:
    return _fill(x.shape, 1, _like_dtype(x, dtype), device or _dev(x))


def empty_like(x: Tensor, /, *, dtype: Any = None, device: Any = None) -> Tensor:
    return zeros_like(x, dtype=dtype, device=device)


def full_like(x: Tensor, /, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Tensor:
    return full(x.shape, fill_value, dtype=_like_dtype(x, dtype), device=device or _dev(x))


def _dev(x: Tensor) -> Any:
    arr = x._storage.array
    return None if isinstance(arr, Tracer) else x.device


def arange(
    start: Any, /, stop: Any = None, step: Any = 1, *, dtype: Any = None, device: Any = None
) -> Tensor:
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        dt = _infer_python_dtype([start, stop, step])
    else:
        dt = _dtypes.as_dtype(dtype)
    if step == 0:
        raise ValueError("arange() step must not be zero")
    n = builtins.max(0, math.ceil((stop - start) / step))
    if dt.kind in "iu":
        vals = np.arange(start, start + n * step, step, dtype=np.int64)[:n].astype(dt)
    else:
        vals = (start + step * np.arange(n, dtype=np.float64)).astype(dt)
    return Tensor._wrap(jnp.asarray(vals, device=device))
