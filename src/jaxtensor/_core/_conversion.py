"""Conversion of any input to a Tensor's value: ``asarray``'s rules, and ``device=``.

Python scalars and nested sequences, NumPy and JAX arrays, Tensors, and other libraries'
arrays (through DLPack or the buffer protocol) become Tensors here. The creation functions
(``_creation.py``) re-export :func:`asarray`; the value checks of assignment
(``_indexing/_values.py``) and the operand helpers of the namespace use it, so none of them
imports the namespace.
"""

from __future__ import annotations

import builtins
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from . import _dtypes
from ._jax_private import put_host
from ._storage import _ArrayImpl
from ._tensor import Tensor, WeakTensor, new_tensor

Tracer = jax.core.Tracer
_PY_SCALARS = (builtins.bool, int, float, complex)


def as_device(device: Any) -> Any:
    """A ``device=`` argument checked: None, a ``jax.Device`` or a ``jax.sharding.Sharding``
    as they are; a platform name (``"cpu"``, ``"gpu"``/``"cuda"``, ``"tpu"``, optionally with
    ``":N"``) as that device of the platform. Anything else raises ``ValueError``.

    >>> import jaxtensor as jt
    >>> jt.zeros(2, device="cpu").device == jt.zeros(2).device
    True
    """
    if device is None or isinstance(device, (jax.Device, jax.sharding.Sharding)):
        return device
    if isinstance(device, str):
        name, _, num = device.partition(":")
        platform = {"cuda": "gpu", "rocm": "gpu"}.get(name, name)
        try:
            devs = jax.devices(platform)
            return devs[int(num) if num else 0]
        except (RuntimeError, ValueError, IndexError):
            have = sorted({d.platform for d in jax.devices()})
            raise ValueError(
                f"device {device!r} is not available here; the platforms are {have} (pass "
                "e.g. 'cpu', 'cpu:0', a jax.Device or a jax.sharding.Sharding)"
            ) from None
    raise ValueError(
        f"device must be None, a jax.Device, a jax.sharding.Sharding or a platform name such "
        f"as 'cpu'; got {type(device).__name__} {device!r}"
    )


def host_to_device(arr: np.ndarray, device: Any, shared: builtins.bool = False) -> Any:
    """A NumPy array on ``device`` (None: the default device, uncommitted).

    ``jax.device_put``, not ``jnp.asarray``: in JAX 0.10 the latter compiles a small
    program for every new shape and dtype (docs/measurements.md, section "device_put, not
    jnp.asarray"), the former only transfers. On CPU
    ``device_put`` may keep the NumPy buffer itself (even with ``may_alias=False``), so an
    array the caller may change afterwards (``shared``: the user's own array or buffer) is
    copied on the host first: the Tensor then holds memory nobody else can write."""
    if shared:
        arr = np.array(arr, copy=True, order="C")
    device = as_device(device)
    return put_host(arr) if device is None else jax.device_put(arr, device)


def _device_put(arr: Any, device: Any) -> Any:
    device = as_device(device)
    if device is None or isinstance(arr, Tracer):
        return arr
    return jax.device_put(arr, device)


def _on_device(arr: Any, device: Any) -> builtins.bool:
    """Whether ``arr`` already lives on ``device`` (None means: anywhere is fine)."""
    device = as_device(device)
    if device is None or isinstance(arr, Tracer):
        return True
    devs = arr.devices()
    if isinstance(device, jax.sharding.Sharding):
        return arr.sharding == device
    return len(devs) == 1 and next(iter(devs)) == device


def _infer_python_dtype(obj: Any) -> np.dtype:
    """Default dtype for Python scalars and (nested) sequences of them."""
    kinds = set()
    dts: list[np.dtype] = []

    def walk(o: Any) -> None:
        if isinstance(o, (list, tuple)):
            for el in o:
                walk(el)
        elif isinstance(o, Tensor):
            dts.append(o.dtype)
        elif isinstance(o, (jax.Array, Tracer)):
            dts.append(_dtypes.canonical(np.dtype(o.dtype)))
        elif isinstance(o, np.generic) and _dtypes.kind(o.dtype) in "biufc":
            dts.append(_dtypes.canonical(o.dtype))  # a NumPy scalar keeps its dtype
        elif isinstance(o, builtins.bool):
            kinds.add("b")
        elif isinstance(o, int):
            kinds.add("i")
        elif isinstance(o, float):
            kinds.add("f")
        elif isinstance(o, complex):
            kinds.add("c")
        else:
            dt = np.asarray(o).dtype
            if _dtypes.kind(dt) not in "biufc":  # (a string, bytes, a date, an object)
                _dtypes.as_dtype(dt)  # raises TypeError naming the dtype
            dts.append(_dtypes.canonical(dt))

    walk(obj)
    if dts:
        dt = dts[0]
        for d in dts[1:]:
            dt = _dtypes.promote(dt, d)
        for k in kinds:
            dt = _dtypes.scalar_result(dt, {"b": True, "i": 1, "f": 1.0, "c": 1j}[k])
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


def _host_value(obj: Any) -> Any:
    """Nested sequences with Tensors inside become nested sequences of NumPy values."""
    if isinstance(obj, (list, tuple)):
        return [_host_value(o) for o in obj]
    if isinstance(obj, Tensor):
        return np.asarray(obj)
    return obj


def _has_traced(obj: Any) -> builtins.bool:
    """Whether nested sequences hold a traced value (of a Tensor, or a JAX tracer)."""
    if isinstance(obj, (list, tuple)):
        return builtins.any(_has_traced(o) for o in obj)
    if isinstance(obj, Tensor):
        obj = obj._value()
    return isinstance(obj, Tracer)


def _stacked(obj: Any, dt: np.dtype) -> Any:
    """Nested sequences holding traced values, stacked into one traced array of ``dt`` (the
    host cannot read them; a ragged nesting is NumPy's ``ValueError``)."""
    if isinstance(obj, (list, tuple)):
        parts = [_stacked(o, dt) for o in obj]
        if not parts:
            return jnp.zeros((0,), dt)
        shapes = {p.shape for p in parts}
        if len(shapes) > 1:
            raise ValueError(
                "asarray(): the sequence is ragged (its elements have shapes "
                f"{sorted(shapes)}); NumPy refuses it too")
        return jnp.stack(parts)
    if isinstance(obj, Tensor):
        obj = obj._value()
    if isinstance(obj, complex) and dt.kind != "c":
        raise TypeError(f"asarray() cannot convert a complex number to {dt}")
    return jnp.asarray(obj).astype(dt)


def _has_tensor(obj: Any) -> builtins.bool:
    if isinstance(obj, (list, tuple)):
        return builtins.any(_has_tensor(o) for o in obj)
    return isinstance(obj, Tensor)


def asarray(
    obj: Any,
    /,
    dtype: Any = None,
    *,
    device: Any = None,
    copy: builtins.bool | None = None,
) -> Tensor:
    """Convert ``obj`` to a Tensor.

    ``obj`` may be a Tensor, a Python scalar or nested sequence, a NumPy or JAX array, or any
    object supporting the Array API / DLPack / buffer protocols (PyTorch, CuPy,
    array-api-strict, ...). ``copy=None`` shares ``obj`` when it already has the right dtype
    and device (a Tensor is returned as is); ``copy=False`` raises ``ValueError`` when a
    copy cannot be avoided; ``copy=True`` always gives new storage.

    >>> import jaxtensor as jt
    >>> jt.asarray([1, 2, 3])
    Tensor(shape=[3], dtype=int64, device=cpu,
           [1, 2, 3])
    >>> x = jt.asarray([1.0, 2.0])
    >>> jt.asarray(x) is x, jt.asarray(x, copy=True) is x
    (True, False)
    """
    dt = None if dtype is None else _dtypes.as_dtype(dtype)
    if isinstance(obj, Tensor):
        v = obj._value()
        same = (dt is None or dt == v.dtype) and _on_device(v, device)
        if same and not copy:
            # (a number passed to jaxtensor.jit: the Tensor asarray makes of the number)
            return obj if obj.__class__ is not WeakTensor else new_tensor(v)
        if copy is False:
            raise ValueError(
                "asarray(copy=False) cannot avoid a copy: the dtype or device differs; pass "
                "copy=None to allow one"
            )
        if dt is not None and dt != v.dtype:
            if v.dtype.kind == "c" and dt.kind != "c":
                raise TypeError(f"asarray() cannot cast complex {v.dtype} to {dt}; take the "
                                "real or imaginary part first")
            v = v.astype(dt)
        elif same and obj._view is None and type(v) is _ArrayImpl:
            # the buffer shared, not copied: a jax.Array never changes, and a storage
            # donates its buffer only while nothing else holds it, so a write to either
            # Tensor makes a new buffer while both live (a copy made when it is needed)
            return Tensor._wrap(v, exported=obj._storage.exported)
        else:
            v = jnp.array(v, copy=True)
        return Tensor._wrap(_device_put(v, device))
    if isinstance(obj, (jax.Array, Tracer)):
        if dt is not None and dt != obj.dtype:
            if copy is False:
                raise ValueError("asarray(copy=False) cannot avoid a copy: the dtype differs")
            return Tensor._wrap(_device_put(obj.astype(dt), device))
        if copy:
            return Tensor._wrap(_device_put(jnp.array(obj, copy=True), device))
        if copy is False and not _on_device(obj, device):
            raise ValueError("asarray(copy=False) cannot avoid a copy: the device differs")
        # shared with the caller: never donate this buffer
        return Tensor._wrap(_device_put(obj, device), exported=True)
    # (np.float64/np.complex128 subclass float/complex: they keep their dtype, below)
    if isinstance(obj, (*_PY_SCALARS, list, tuple)) and not isinstance(obj, np.generic):
        if copy is False:
            raise ValueError(
                "asarray(copy=False) cannot wrap a Python object without copying; pass "
                "copy=None"
            )
        if dt is None:
            dt = _infer_python_dtype(obj)
        if isinstance(obj, (list, tuple)) and _has_traced(obj):
            return Tensor._wrap(_device_put(_stacked(obj, dt), device))
        host = _host_value(obj) if isinstance(obj, (list, tuple)) and _has_tensor(obj) else obj
        try:
            arr = np.asarray(host, dtype=dt)
        except OverflowError:
            raise OverflowError(
                f"a Python integer in the input is out of bounds for {dt}; pass a wider dtype"
            ) from None
        if arr.dtype == object:
            raise TypeError(f"cannot convert {type(obj).__name__} to a Tensor")
        return Tensor._wrap(host_to_device(arr, device))
    if isinstance(obj, (np.ndarray, np.generic)):
        arr = np.asarray(obj)
        if not arr.dtype.isnative:  # (big-endian data: JAX holds native byte order)
            arr = arr.astype(arr.dtype.newbyteorder("="))
        if dt is None:
            dt = _dtypes.canonical(arr.dtype)
            _dtypes.as_dtype(dt)
        if copy is False:
            if arr.dtype != dt:
                raise ValueError("asarray(copy=False) cannot avoid a copy: the dtype differs")
            try:
                shared = jnp.from_dlpack(arr, device=as_device(device), copy=False)
            except Exception:  # noqa: BLE001 - report as the standard asks
                raise ValueError(
                    "asarray(copy=False) cannot share this NumPy array's memory with JAX "
                    "(alignment, layout or device); pass copy=None"
                ) from None
            return Tensor._wrap(shared, exported=True)
        return Tensor._wrap(host_to_device(arr.astype(dt, copy=False), device, shared=True))
    return _from_foreign(obj, dt, device, copy)


def _from_foreign(obj: Any, dt: np.dtype | None, device: Any, copy: builtins.bool | None) -> Tensor:
    """Any other Array API / DLPack / buffer-protocol object."""
    arr = None
    if hasattr(obj, "__dlpack__") and copy is not True:
        try:
            arr = jnp.from_dlpack(obj, copy=copy)
        except Exception:  # noqa: BLE001 - fall back to the buffer protocol
            arr = None
    if arr is None:
        if copy is False:
            raise ValueError(
                f"asarray(copy=False) cannot share the memory of a {type(obj).__name__}; "
                "pass copy=None"
            )
        try:
            host = np.asarray(obj)
        except Exception as exc:  # noqa: BLE001
            raise TypeError(f"cannot convert {type(obj).__name__} to a Tensor: {exc}") from None
        if host.dtype == object:
            raise TypeError(f"cannot convert {type(obj).__name__} to a Tensor")
        if dt is None:
            dt = _dtypes.canonical(host.dtype)
            _dtypes.as_dtype(dt)
        arr = host_to_device(host.astype(dt, copy=False), None, shared=True)
        exported = False
    else:
        exported = True
    if dt is not None and arr.dtype != dt:
        if copy is False:
            raise ValueError("asarray(copy=False) cannot avoid a copy: the dtype differs")
        arr = arr.astype(dt)
        exported = False
    return Tensor._wrap(_device_put(arr, device), exported=exported)
