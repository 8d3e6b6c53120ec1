"""Creation functions of the Array API standard (``asarray``, ``zeros``, ``arange``, ...)."""

from __future__ import annotations

import builtins
import math
import operator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from . import _dtypes, _kernels, _view
from ._info import API_VERSION
from ._tensor import Tensor

__all__ = [
    "arange",
    "asarray",
    "e",
    "empty",
    "empty_like",
    "eye",
    "from_dlpack",
    "full",
    "full_like",
    "inf",
    "linspace",
    "meshgrid",
    "nan",
    "newaxis",
    "ones",
    "ones_like",
    "pi",
    "tril",
    "triu",
    "zeros",
    "zeros_like",
]

#: The standard's constants (Python floats, and ``None`` for ``newaxis``).
e = math.e
inf = math.inf
nan = math.nan
pi = math.pi
newaxis = None

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


def _has_tensor(obj: Any) -> builtins.bool:
    if isinstance(obj, (list, tuple)):
        return builtins.any(_has_tensor(o) for o in obj)
    return isinstance(obj, Tensor)


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
            return obj
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
        host = _host_value(obj) if isinstance(obj, (list, tuple)) and _has_tensor(obj) else obj
        try:
            arr = np.asarray(host, dtype=dt)
        except OverflowError:
            raise OverflowError(
                f"a Python integer in the input is out of bounds for {dt}; pass a wider dtype"
            ) from None
        if arr.dtype == object:
            raise TypeError(f"cannot convert {type(obj).__name__} to a Tensor")
        return Tensor._wrap(jnp.asarray(arr, device=as_device(device)))
    if isinstance(obj, (np.ndarray, np.generic)):
        arr = np.asarray(obj)
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
        return Tensor._wrap(jnp.asarray(arr.astype(dt, copy=False), device=as_device(device)))
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
        arr = jnp.asarray(host.astype(dt, copy=False))
        exported = False
    else:
        exported = True
    if dt is not None and arr.dtype != dt:
        if copy is False:
            raise ValueError("asarray(copy=False) cannot avoid a copy: the dtype differs")
        arr = arr.astype(dt)
        exported = False
    return Tensor._wrap(_device_put(arr, device), exported=exported)


def from_dlpack(x: Any, /, *, device: Any = None, copy: builtins.bool | None = None) -> Tensor:
    """A Tensor from any object implementing ``__dlpack__`` (NumPy, PyTorch, JAX, ...).

    Without a copy the result shares ``x``'s buffer; a jaxtensor Tensor gives a view of the
    same storage, so writes through either are seen by both. ``copy=True`` always copies;
    ``copy=False`` raises ``ValueError`` when sharing is impossible.

    >>> import numpy as np, jaxtensor as jt
    >>> jt.from_dlpack(np.arange(3.0))
    Tensor(shape=[3], dtype=float64, device=cpu,
           [0., 1., 2.])
    """
    if isinstance(x, Tensor):
        v = x._value()
        if not copy and _on_device(v, device):
            return x._derive(_view.compose_axes(x._view, x.shape, list(range(x.ndim))))
        if copy is False:
            raise ValueError("from_dlpack(copy=False) cannot move a Tensor to another device")
        return Tensor._wrap(jax.device_put(jnp.array(v, copy=True), as_device(device)))
    if not hasattr(x, "__dlpack__"):
        raise TypeError(
            f"from_dlpack() needs an object with __dlpack__, got {type(x).__name__}; use "
            "jaxtensor.asarray for other objects"
        )
    try:
        arr = jnp.from_dlpack(x, device=as_device(device), copy=copy)
    except BufferError:
        raise
    except Exception as exc:  # noqa: BLE001
        if copy is False:
            raise ValueError(f"from_dlpack(copy=False) cannot share this buffer: {exc}") from None
        host = np.from_dlpack(x)
        arr = jax.device_put(jnp.asarray(host), as_device(device))
    return Tensor._wrap(arr, exported=not copy)


def _shape_arg(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)) or hasattr(shape, "__index__"):
        shape = (operator.index(shape),)
    shape = tuple(operator.index(s) for s in shape)
    if builtins.any(s < 0 for s in shape):
        raise ValueError(f"negative dimensions are not allowed, got shape {shape}")
    return shape


def _fill(shape: Any, value: Any, dtype: np.dtype, device: Any) -> Tensor:
    return Tensor._wrap(jnp.full(_shape_arg(shape), value, dtype=dtype, device=as_device(device)))


def zeros(shape: Any, *, dtype: Any = None, device: Any = None) -> Tensor:
    """A new Tensor of zeros (default dtype float32).

    >>> import jaxtensor as jt
    >>> jt.zeros((2,), dtype=jt.int8)
    Tensor(shape=[2], dtype=int8, device=cpu,
           [0, 0])
    """
    dt = _dtypes.default_float if dtype is None else _dtypes.as_dtype(dtype)
    return _fill(shape, 0, dt, device)


def ones(shape: Any, *, dtype: Any = None, device: Any = None) -> Tensor:
    """A new Tensor of ones (default dtype float32).

    >>> import jaxtensor as jt
    >>> jt.ones(2)
    Tensor(shape=[2], dtype=float32, device=cpu,
           [1., 1.])
    """
    dt = _dtypes.default_float if dtype is None else _dtypes.as_dtype(dtype)
    return _fill(shape, 1, dt, device)


def empty(shape: Any, *, dtype: Any = None, device: Any = None) -> Tensor:
    """A new Tensor with unspecified contents (zeros here: XLA has no uninitialised memory).

    >>> import jaxtensor as jt
    >>> jt.empty((1, 2)).shape
    (1, 2)
    """
    return zeros(shape, dtype=dtype, device=device)


def full(shape: Any, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Tensor:
    """A new Tensor filled with ``fill_value``; the dtype follows the value's Python type
    (bool, default int, default float, default complex) unless ``dtype`` is given.

    >>> import jaxtensor as jt
    >>> jt.full((2,), 7)
    Tensor(shape=[2], dtype=int64, device=cpu,
           [7, 7])
    """
    if isinstance(fill_value, Tensor):
        fill_value = fill_value._value()
    if dtype is None:
        dt = _infer_python_dtype(fill_value)
    else:
        dt = _dtypes.as_dtype(dtype)
    if isinstance(fill_value, _PY_SCALARS):
        if isinstance(fill_value, complex) and dt.kind != "c":
            raise TypeError(f"cannot fill a {dt} Tensor with a complex value")
        try:
            fill_value = np.asarray(fill_value, dtype=dt)
        except OverflowError:
            raise OverflowError(f"fill value {fill_value} is out of bounds for {dt}") from None
    return _fill(shape, fill_value, dt, device)


def _like_dtype(x: Tensor, dtype: Any) -> np.dtype:
    return x.dtype if dtype is None else _dtypes.as_dtype(dtype)


def _dev(x: Tensor, device: Any) -> Any:
    if device is not None:
        return as_device(device)
    arr = x._storage.array
    return None if isinstance(arr, Tracer) else x.device


def zeros_like(x: Tensor, /, *, dtype: Any = None, device: Any = None) -> Tensor:
    """Zeros with ``x``'s shape, dtype and device unless told otherwise.

    >>> import jaxtensor as jt
    >>> jt.zeros_like(jt.asarray([1, 2]))
    Tensor(shape=[2], dtype=int64, device=cpu,
           [0, 0])
    """
    return _fill(x.shape, 0, _like_dtype(x, dtype), _dev(x, device))


def ones_like(x: Tensor, /, *, dtype: Any = None, device: Any = None) -> Tensor:
    """Ones with ``x``'s shape, dtype and device unless told otherwise.

    >>> import jaxtensor as jt
    >>> jt.ones_like(jt.asarray([1, 2]))
    Tensor(shape=[2], dtype=int64, device=cpu,
           [1, 1])
    """
    return _fill(x.shape, 1, _like_dtype(x, dtype), _dev(x, device))


def empty_like(x: Tensor, /, *, dtype: Any = None, device: Any = None) -> Tensor:
    """An uninitialised (here: zero) Tensor like ``x``.

    >>> import jaxtensor as jt
    >>> jt.empty_like(jt.asarray([1, 2])).shape
    (2,)
    """
    return zeros_like(x, dtype=dtype, device=device)


def full_like(x: Tensor, /, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Tensor:
    """``fill_value`` with ``x``'s shape, dtype and device unless told otherwise.

    >>> import jaxtensor as jt
    >>> jt.full_like(jt.asarray([1.0, 2.0]), 3)
    Tensor(shape=[2], dtype=float32, device=cpu,
           [3., 3.])
    """
    return full(x.shape, fill_value, dtype=_like_dtype(x, dtype), device=_dev(x, device))


def arange(
    start: Any, /, stop: Any = None, step: Any = 1, *, dtype: Any = None, device: Any = None
) -> Tensor:
    """Evenly spaced values in ``[start, stop)``: ``ceil((stop - start) / step)`` of them.

    >>> import jaxtensor as jt
    >>> jt.arange(1, 7, 2)
    Tensor(shape=[3], dtype=int64, device=cpu,
           [1, 3, 5])
    """
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        dt = _infer_python_dtype([start, stop, step])
    else:
        dt = _dtypes.as_dtype(dtype)
    if step == 0:
        raise ValueError("arange() step must not be zero")
    if dt.kind in "iu" and builtins.all(
        isinstance(v, int) for v in (start, stop, step)
    ):
        vals = np.array(range(start, stop, step), dtype=dt) if builtins.abs(stop - start) // \
            builtins.abs(step) < 4096 else np.arange(start, stop, step, dtype=dt)
    else:
        n = builtins.max(0, math.ceil((stop - start) / step))
        vals = (start + step * np.arange(n, dtype=np.float64)).astype(dt)
    return Tensor._wrap(jnp.asarray(vals, device=as_device(device)))


def eye(
    n_rows: int,
    n_cols: int | None = None,
    /,
    *,
    k: int = 0,
    dtype: Any = None,
    device: Any = None,
) -> Tensor:
    """A 2-D Tensor with ones on the ``k``-th diagonal and zeros elsewhere.

    >>> import jaxtensor as jt
    >>> jt.eye(2, 3, k=1, dtype=jt.int8)
    Tensor(shape=[2, 3], dtype=int8, device=cpu,
           [[0, 1, 0],
            [0, 0, 1]])
    """
    dt = _dtypes.default_float if dtype is None else _dtypes.as_dtype(dtype)
    n = operator.index(n_rows)
    m = n if n_cols is None else operator.index(n_cols)
    if n < 0 or m < 0:
        raise ValueError(f"eye() needs non-negative sizes, got {n} x {m}")
    k = operator.index(k)
    return Tensor._wrap(jnp.eye(n, m, k=k, dtype=dt, device=as_device(device)))


def linspace(
    start: Any,
    stop: Any,
    /,
    num: int,
    *,
    dtype: Any = None,
    device: Any = None,
    endpoint: builtins.bool = True,
) -> Tensor:
    """``num`` evenly spaced values from ``start`` to ``stop`` (included when ``endpoint``).

    The first value is exactly ``start`` and, with ``endpoint=True``, the last exactly
    ``stop``; values are computed in double precision, then cast.

    >>> import jaxtensor as jt
    >>> jt.linspace(0, 1, 5)
    Tensor(shape=[5], dtype=float32, device=cpu,
           [0.  , 0.25, 0.5 , 0.75, 1.  ])
    """
    if isinstance(start, Tensor):
        start = start.item()
    if isinstance(stop, Tensor):
        stop = stop.item()
    cplx = isinstance(start, complex) or isinstance(stop, complex)
    if dtype is None:
        dt = _dtypes.default_complex if cplx else _dtypes.default_float
    else:
        dt = _dtypes.as_dtype(dtype)
        if cplx and dt.kind != "c":
            raise TypeError(f"linspace() with complex bounds needs a complex dtype, got {dt}")
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"linspace() needs num >= 0, got {num}")
    work = np.complex128 if dt.kind == "c" else np.float64
    vals = np.linspace(start, stop, num, endpoint=endpoint, dtype=work)
    if num > 0:
        vals[0] = start
        if endpoint and num > 1:
            vals[-1] = stop
    return Tensor._wrap(jnp.asarray(vals.astype(dt), device=as_device(device)))


def meshgrid(*arrays: Tensor, indexing: str = "xy") -> Any:
    """Coordinate matrices from 1-D Tensors (Cartesian ``"xy"`` or matrix ``"ij"`` indexing).

    Returns a tuple (a list when answering as a standard version before 2025.12).

    >>> import jaxtensor as jt
    >>> X, Y = jt.meshgrid(jt.asarray([1, 2, 3]), jt.asarray([4, 5]))
    >>> X.shape, Y.shape
    ((2, 3), (2, 3))
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid() indexing must be 'xy' or 'ij', got {indexing!r}")
    vals = []
    for a in arrays:
        if not isinstance(a, Tensor):
            raise TypeError(f"meshgrid() expects Tensors, got {type(a).__name__}")
        if a.ndim != 1:
            raise ValueError(f"meshgrid() expects 1-D Tensors, got shape {a.shape}")
        vals.append(a._value())
    if vals:
        dt = vals[0].dtype
        for v in vals[1:]:
            dt = _dtypes.promote(dt, v.dtype)
        vals = [v.astype(dt) for v in vals]
    outs = [Tensor._wrap(o) for o in jnp.meshgrid(*vals, indexing=indexing)]
    return tuple(outs) if API_VERSION >= "2025.12" else outs


def _tri(name: str, fn: Any, x: Tensor, k: int) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}() expects a Tensor, got {type(x).__name__}")
    if x.ndim < 2:
        raise ValueError(f"{name}() needs at least 2 dimensions, got shape {x.shape}")
    k = operator.index(k)
    return Tensor._wrap(_kernels.call((name, k), lambda: lambda a: fn(a, k=k), x._value()))


def tril(x: Tensor, /, *, k: int = 0) -> Tensor:
    """The lower triangle of the last two axes (elements above diagonal ``k`` zeroed).

    >>> import jaxtensor as jt
    >>> jt.tril(jt.ones((2, 2), dtype=jt.int8))
    Tensor(shape=[2, 2], dtype=int8, device=cpu,
           [[1, 0],
            [1, 1]])
    """
    return _tri("tril", jnp.tril, x, k)


def triu(x: Tensor, /, *, k: int = 0) -> Tensor:
    """The upper triangle of the last two axes (elements below diagonal ``k`` zeroed).

    >>> import jaxtensor as jt
    >>> jt.triu(jt.ones((2, 2), dtype=jt.int8))
    Tensor(shape=[2, 2], dtype=int8, device=cpu,
           [[1, 1],
            [0, 1]])
    """
    return _tri("triu", jnp.triu, x, k)
