"""Creation functions of the Array API standard (``asarray``, ``zeros``, ``arange``, ...)."""

from __future__ import annotations

import builtins
import math
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from . import _args
from ._core import Tensor, WeakTensor, _dtypes, _kernels, _view
from ._core._conversion import (
    _infer_python_dtype,
    _on_device,
    as_device,
    asarray,
    host_to_device,
)
from ._core._jax_private import EvalTrace, trace_state
from ._info import API_VERSION

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
        arr = host_to_device(host, device, shared=True)
    return Tensor._wrap(arr, exported=not copy)


def _shape_arg(shape: Any, fname: str) -> tuple[int, ...]:
    shape = _args.shape(shape, f"{fname}(): shape")
    if builtins.any(s < 0 for s in shape):
        raise ValueError(f"negative dimensions are not allowed, got shape {shape}")
    return shape


def _created(fn: Any, device: Any, *static: Any) -> Tensor:
    """``fn(*static, device=device)``, a ``jax.numpy`` creation function of static arguments:
    eagerly one compiled kernel per arguments and device (``jnp.full`` and ``jnp.eye``
    dispatch two to six primitives, several times the cost of one cached call); inside any
    trace, traced as it is."""
    if type(trace_state.value) is not EvalTrace:
        return Tensor._wrap(fn(*static, device=device))
    return Tensor._wrap(_kernels.placed((fn, *static), partial(partial, fn, *static), device))


def _fill(shape: Any, value: Any, dtype: np.dtype, device: Any, fname: str) -> Tensor:
    shape, device = _shape_arg(shape, fname), as_device(device)
    if type(value) is not int and type(trace_state.value) is EvalTrace:
        # a value other than zeros' and ones' (already of ``dtype``): the kernel's argument
        return Tensor._wrap(_kernels.placed(("fill", shape, dtype), partial(
            _filler, shape, dtype), device, value))
    return _created(jnp.full, device, shape, value, dtype)


def _filler(shape: tuple[int, ...], dtype: np.dtype) -> Any:
    return lambda value: jnp.full(shape, value, dtype)


def zeros(shape: Any, dtype: Any = None, *, device: Any = None) -> Tensor:
    """A new Tensor of zeros (default dtype: the default float, float64 in 64-bit mode).

    >>> import jaxtensor as jt
    >>> jt.zeros((2,), dtype=jt.int8)
    Tensor(shape=[2], dtype=int8, device=cpu,
           [0, 0])
    """
    dt = _dtypes.default_float if dtype is None else _dtypes.as_dtype(dtype)
    return _fill(shape, 0, dt, device, "zeros")


def ones(shape: Any, dtype: Any = None, *, device: Any = None) -> Tensor:
    """A new Tensor of ones (default dtype: the default float, float64 in 64-bit mode).

    >>> import jaxtensor as jt
    >>> jt.ones(2)
    Tensor(shape=[2], dtype=float64, device=cpu,
           [1., 1.])
    """
    dt = _dtypes.default_float if dtype is None else _dtypes.as_dtype(dtype)
    return _fill(shape, 1, dt, device, "ones")


def empty(shape: Any, dtype: Any = None, *, device: Any = None) -> Tensor:
    """A new Tensor with unspecified contents (zeros here: XLA has no uninitialised memory).

    >>> import jaxtensor as jt
    >>> jt.empty((1, 2)).shape
    (1, 2)
    """
    dt = _dtypes.default_float if dtype is None else _dtypes.as_dtype(dtype)
    return _fill(shape, 0, dt, device, "empty")


def full(shape: Any, fill_value: Any, dtype: Any = None, *, device: Any = None) -> Tensor:
    """A new Tensor filled with ``fill_value``; the dtype follows the value's Python type
    (bool, default int, default float, default complex) unless ``dtype`` is given.

    >>> import jaxtensor as jt
    >>> jt.full((2,), 7)
    Tensor(shape=[2], dtype=int64, device=cpu,
           [7, 7])
    """
    if fill_value.__class__ is WeakTensor:  # (a number passed to jaxtensor.jit: the number)
        fill_value = fill_value.number()
    if isinstance(fill_value, Tensor):
        fill_value = fill_value._value()
    weak = _args.weak_scalar(fill_value)  # (a Python number traced by jit: as the number)
    if isinstance(fill_value, Tracer):
        if dtype is not None:
            dt = _dtypes.as_dtype(dtype)
        else:
            dt = np.dtype(fill_value.dtype) if weak is None else _infer_python_dtype(weak)
        if isinstance(weak, complex) and dt.kind != "c":
            raise TypeError(f"cannot fill a {dt} Tensor with a complex value")
        if not (isinstance(weak, float) and dt.kind in "iu"):  # (converted as astype)
            _args.check_weak(fill_value, weak, dt)
        return _fill(shape, fill_value.astype(dt), dt, device, "full")
    if dtype is None:
        dt = _infer_python_dtype(fill_value)
    else:
        dt = _dtypes.as_dtype(dtype)
    if isinstance(fill_value, _PY_SCALARS):
        if isinstance(fill_value, complex) and dt.kind != "c":
            raise TypeError(f"cannot fill a {dt} Tensor with a complex value")
        if dt.kind in "iu" and isinstance(fill_value, float):
            fill_value = _float_to_int(fill_value, dt)
        try:
            fill_value = np.asarray(fill_value, dtype=dt)
        except OverflowError:
            raise OverflowError(f"fill value {fill_value} is out of bounds for {dt}") from None
    return _fill(shape, fill_value, dt, device, "full")


def _float_to_int(v: float, dt: np.dtype) -> int:
    """A float fill value of an integer Tensor, converted as ``astype`` converts: toward
    zero, saturating at the dtype's bounds (infinities included), NaN to 0."""
    info = np.iinfo(dt)
    if v != v:
        return 0
    return int(info.max) if v >= info.max else int(info.min) if v <= info.min else int(v)


def _like(x: Any, fname: str) -> Tensor:
    """``x`` of a ``*_like`` function: a Tensor, or an array-like converted by ``asarray``."""
    return _args.tensor(x, "x", fname)


def _like_dtype(x: Tensor, dtype: Any) -> np.dtype:
    return x.dtype if dtype is None else _dtypes.as_dtype(dtype)


def _dev(x: Tensor, device: Any) -> Any:
    if device is not None:
        return as_device(device)
    arr = x._storage.array
    return None if isinstance(arr, Tracer) else x.device


def zeros_like(x: Tensor, /, dtype: Any = None, *, device: Any = None) -> Tensor:
    """Zeros with ``x``'s shape, dtype and device unless told otherwise.

    >>> import jaxtensor as jt
    >>> jt.zeros_like(jt.asarray([1, 2]))
    Tensor(shape=[2], dtype=int64, device=cpu,
           [0, 0])
    """
    x = _like(x, "zeros_like")
    return _fill(x.shape, 0, _like_dtype(x, dtype), _dev(x, device), "zeros_like")


def ones_like(x: Tensor, /, dtype: Any = None, *, device: Any = None) -> Tensor:
    """Ones with ``x``'s shape, dtype and device unless told otherwise.

    >>> import jaxtensor as jt
    >>> jt.ones_like(jt.asarray([1, 2]))
    Tensor(shape=[2], dtype=int64, device=cpu,
           [1, 1])
    """
    x = _like(x, "ones_like")
    return _fill(x.shape, 1, _like_dtype(x, dtype), _dev(x, device), "ones_like")


def empty_like(x: Tensor, /, dtype: Any = None, *, device: Any = None) -> Tensor:
    """An uninitialised (here: zero) Tensor like ``x``.

    >>> import jaxtensor as jt
    >>> jt.empty_like(jt.asarray([1, 2])).shape
    (2,)
    """
    return zeros_like(_like(x, "empty_like"), dtype=dtype, device=device)


def full_like(x: Tensor, /, fill_value: Any, dtype: Any = None, *, device: Any = None) -> Tensor:
    """``fill_value`` with ``x``'s shape, dtype and device unless told otherwise.

    >>> import jaxtensor as jt
    >>> jt.full_like(jt.asarray([1.0, 2.0]), 3)
    Tensor(shape=[2], dtype=float64, device=cpu,
           [3., 3.])
    """
    x = _like(x, "full_like")
    return full(x.shape, fill_value, dtype=_like_dtype(x, dtype), device=_dev(x, device))


class ZeroStepError(ValueError, ZeroDivisionError):
    """A zero ``step``: a ``ValueError`` (a bad argument), and NumPy's ``ZeroDivisionError``
    for code ported from it."""


ZeroStepError.__module__ = "builtins"  # (a traceback names it alone, not this module)


def arange(
    start: Any, /, stop: Any = None, step: Any = 1, dtype: Any = None, *, device: Any = None
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
        raise ZeroStepError("arange(): step must not be zero")
    if dt.kind in "iu" and builtins.all(
        isinstance(v, int) for v in (start, stop, step)
    ):
        n = len(range(start, stop, step))
        info = np.iinfo(dt)
        for v in (start, start + step)[:n]:  # (NumPy's rule: the first two must fit)
            if not info.min <= v <= info.max:
                raise OverflowError(f"arange(): {v} is out of bounds for {dt.name}")
        if n:
            # exact modulo 2**64, so exact once cast to ``dt``: the values after the first
            # two wrap into it, as NumPy's arange and array-api-strict's do
            # (``np.array(range(...))`` costs a Python int per element)
            vals = (np.arange(n, dtype=np.uint64) * np.uint64(step % 2**64)
                    + np.uint64(start % 2**64)).astype(dt)
        else:
            vals = np.zeros(0, dtype=dt)
    else:
        n = builtins.max(0, math.ceil((stop - start) / step))
        vals = None
        if dt.type in (np.float32, np.float64):  # (half precision: rounded once, as PyTorch)
            # NumPy's values: ``start``, ``start + step``, then ``start + i * delta`` with
            # ``delta`` the difference of the first two, in ``dt`` (not ``start + i * step``)
            vals = np.arange(start, stop, step, dtype=dt)
            if len(vals) != n:  # (NumPy's own length rule disagreed: the standard's wins)
                vals = None
        if vals is None:
            vals = (start + step * np.arange(n, dtype=np.float64)).astype(dt)
    return Tensor._wrap(host_to_device(vals, device))


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
    n = _args.index(n_rows, "eye(): n_rows")
    m = n if n_cols is None else _args.index(n_cols, "eye(): n_cols")
    if n < 0 or m < 0:
        raise ValueError(f"eye() needs non-negative sizes, got {n} x {m}")
    k = _args.index(k, "eye(): k")
    return _created(jnp.eye, as_device(device), n, m, k, dt)


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
    Tensor(shape=[5], dtype=float64, device=cpu,
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
    num = _args.index(num, "linspace(): num")
    if num < 0:
        raise ValueError(f"linspace() needs num >= 0, got {num}")
    work = np.complex128 if dt.kind == "c" else np.float64
    vals = np.linspace(start, stop, num, endpoint=endpoint, dtype=work)
    if num > 0:
        vals[0] = start
        if endpoint and num > 1:
            vals[-1] = stop
    if dt.kind in "iu":  # (NumPy 2 floors toward -inf, not toward 0)
        vals = np.floor(vals)
    return Tensor._wrap(host_to_device(vals.astype(dt), device))


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
        a = _args.tensor(a, "arrays", "meshgrid")
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
    x = _args.tensor(x, "x", name)
    if x.ndim < 2:
        raise ValueError(f"{name}() needs at least 2 dimensions, got shape {x.shape}")
    k = _args.index(k, f"{name}(): k")
    return Tensor._wrap(_kernels.call((name, k), lambda: lambda a: fn(a, k=k), x._value()))


def tril(x: Tensor, /, k: int = 0) -> Tensor:  # (``k`` positional too: NumPy's)
    """The lower triangle of the last two axes (elements above diagonal ``k`` zeroed).

    >>> import jaxtensor as jt
    >>> jt.tril(jt.ones((2, 2), dtype=jt.int8))
    Tensor(shape=[2, 2], dtype=int8, device=cpu,
           [[1, 0],
            [1, 1]])
    """
    return _tri("tril", jnp.tril, x, k)


def triu(x: Tensor, /, k: int = 0) -> Tensor:  # (``k`` positional too: NumPy's)
    """The upper triangle of the last two axes (elements below diagonal ``k`` zeroed).

    >>> import jaxtensor as jt
    >>> jt.triu(jt.ones((2, 2), dtype=jt.int8))
    Tensor(shape=[2, 2], dtype=int8, device=cpu,
           [[1, 1],
            [0, 1]])
    """
    return _tri("triu", jnp.triu, x, k)
