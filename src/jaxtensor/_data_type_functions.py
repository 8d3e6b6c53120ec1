"""Data type functions of the Array API standard: ``astype``, ``can_cast``, ``finfo``,
``iinfo``, ``isdtype``, ``result_type``; and PyTorch's ``set_default_dtype`` and
``get_default_dtype`` (the default floating dtype)."""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from . import _args
from ._core import Tensor, _cache, _dtypes, _kernels, asarray
from ._elementwise_kernels import bool_as_number

__all__ = [
    "astype", "can_cast", "finfo", "get_default_dtype", "iinfo", "isdtype", "result_type",
    "set_default_dtype",
]


def astype(x: Tensor, dtype: Any, /, *, copy: builtins.bool = True, device: Any = None) -> Tensor:
    """Cast ``x`` to ``dtype``, ignoring promotion rules.

    ``copy=False`` returns ``x`` itself when nothing changes. Complex to a real dtype raises
    ``TypeError`` (take ``real``/``imag`` first); complex to ``bool`` is ``x != 0`` (both
    parts count); ``True`` casts to 1 and non-zero casts to ``True``.

    >>> import jaxtensor as jt
    >>> jt.astype(jt.asarray([1.7, -1.7]), jt.int32)
    Tensor(shape=[2], dtype=int32, device=cpu,
           [ 1, -1])
    """
    x = _args.tensor(x, "x", "astype")
    dt = _dtypes.as_dtype(dtype)
    src = x.dtype
    if src.kind == "c" and dt.kind not in "cb":
        raise TypeError(
            f"astype() from {src} to {dt} would drop the imaginary part; cast "
            "jaxtensor.real(x) or jaxtensor.imag(x) instead"
        )
    same_device = device is None or device == x.device
    if dt == src and same_device and not copy:
        return x
    v = x._value()
    if dt == src:
        out = _kernels.call(("copy",), lambda: _copy, v)
    elif src.kind == "c" and dt.kind == "b":
        out = _kernels.call(("nonzero_mask",), lambda: _nonzero, v)
    elif src.kind == "b":  # (as 0s and 1s XLA cannot fold into a select: ``_elementwise``)
        out = _kernels.call(("astype from bool", dt), lambda: partial(bool_as_number, dt=dt), v)
    else:
        out = _kernels.call(("astype", dt), lambda: lambda a: a.astype(dt), v)
    if not same_device:
        out = jax.device_put(out, device)
    return Tensor._wrap(out)


def _copy(a: Any) -> Any:
    return a.copy()


def _nonzero(a: Any) -> Any:
    return a != 0


def _dtype_of(obj: Any, fname: str, *, metadata: builtins.bool = False) -> np.dtype:
    """The dtype ``obj`` names; ``metadata=True`` also accepts the 64-bit dtypes when 64-bit
    mode is off (their limits and kinds are facts, not Tensors)."""
    if isinstance(obj, Tensor):
        return obj.dtype
    if isinstance(obj, _dtypes.DType):  # the public constants
        obj = obj.dtype
    if hasattr(obj, "dtype") and not isinstance(obj, (type, np.dtype)):
        obj = obj.dtype
    if metadata and isinstance(obj, np.dtype) and obj in _dtypes.supported_dtypes:
        return obj
    try:
        return _dtypes.as_dtype(obj)
    except TypeError as exc:
        if "64-bit" in str(exc):
            raise
    if not isinstance(obj, (str, type, np.dtype)):  # an array-like: the dtype asarray gives
        try:
            return asarray(obj).dtype
        except (TypeError, ValueError):
            pass
    raise TypeError(f"{fname}() expects a dtype or an array, got {obj!r}")


def can_cast(from_: Any, to: Any, /) -> builtins.bool:
    """Whether ``from_`` converts to ``to`` without losing its kind of value.

    Within a kind this is the standard's promotion table (``int8`` to ``int32`` yes, back
    no); across kinds it is NumPy's *safe* casting (``bool`` to anything, integers to a
    float that holds them, real to complex). Complex to real is never allowed.

    >>> import jaxtensor as jt
    >>> jt.can_cast(jt.int8, jt.int32), jt.can_cast(jt.int32, jt.int8)
    (True, False)
    """
    a = _dtype_of(from_, "can_cast")
    b = _dtypes.as_dtype(to)
    return a == b or builtins.bool(np.can_cast(a, b, casting="safe"))


@dataclass(frozen=True)
class finfo_object:  # noqa: N801 - the standard's name
    """Machine limits of a floating dtype (Python floats, as the standard asks)."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: np.dtype

    @property
    def tiny(self) -> float:
        """NumPy's name for :attr:`smallest_normal`."""
        return self.smallest_normal


@dataclass(frozen=True)
class iinfo_object:  # noqa: N801 - the standard's name
    """Machine limits of an integer dtype (Python ints)."""

    bits: int
    max: int
    min: int
    dtype: np.dtype


_finfo_cache = _cache.cache("finfo", 16)


def finfo(type: Any, /) -> finfo_object:  # noqa: A002 - the standard's name
    """Machine limits of a floating-point dtype (of its components, for complex).

    >>> import jaxtensor as jt
    >>> jt.finfo(jt.float32).bits, jt.finfo(jt.complex64).dtype
    (32, dtype('float32'))
    """
    dt = _dtype_of(type, "finfo", metadata=True)
    if _dtypes.kind(dt) not in "fc":
        raise TypeError(f"finfo() needs a floating-point dtype, got {dt}; use iinfo() for integers")
    out = _finfo_cache.get(dt)
    if out is None:
        fi = jnp.finfo(dt)
        real = np.dtype(fi.dtype)
        out = _finfo_cache[dt] = finfo_object(
            bits=int(fi.bits), eps=float(fi.eps), max=float(fi.max), min=float(fi.min),
            smallest_normal=float(fi.smallest_normal), dtype=real,
        )
    return out


def iinfo(type: Any, /) -> iinfo_object:  # noqa: A002 - the standard's name
    """Machine limits of an integer dtype.

    >>> import jaxtensor as jt
    >>> jt.iinfo(jt.int8)
    iinfo_object(bits=8, max=127, min=-128, dtype=dtype('int8'))
    """
    dt = _dtype_of(type, "iinfo", metadata=True)
    if dt.kind not in "iu":
        raise TypeError(f"iinfo() needs an integer dtype, got {dt}; use finfo() for floats")
    ii = np.iinfo(dt)
    return iinfo_object(bits=int(ii.bits), max=int(ii.max), min=int(ii.min), dtype=dt)


_KINDS = {
    "bool": "b",
    "signed integer": "i",
    "unsigned integer": "u",
    "integral": "iu",
    "real floating": "f",
    "complex floating": "c",
    "numeric": "iufc",
}


def isdtype(dtype: Any, kind: Any) -> builtins.bool:
    """Whether ``dtype`` is ``kind``: a dtype, a kind name (``"integral"``, ``"numeric"``,
    ``"real floating"``, ...) or a tuple of them.

    >>> import jaxtensor as jt
    >>> jt.isdtype(jt.int8, "integral"), jt.isdtype(jt.float32, ("bool", "complex floating"))
    (True, False)
    """
    if not isinstance(dtype, np.dtype):
        try:
            dtype = _dtype_of(dtype, "isdtype", metadata=True)
        except TypeError:
            raise TypeError(f"isdtype() expects a dtype as its first argument, got {dtype!r}") from None
    if isinstance(kind, tuple):
        return builtins.any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, str):
        try:
            return _dtypes.kind(dtype) in _KINDS[kind]
        except KeyError:
            raise ValueError(
                f"unknown dtype kind {kind!r}; use one of {', '.join(map(repr, _KINDS))}"
            ) from None
    return dtype == _dtype_of(kind, "isdtype", metadata=True)


def result_type(*arrays_and_dtypes: Any) -> np.dtype:
    """The dtype the standard's promotion rules give for these Tensors, dtypes and Python
    scalars (scalars are weak: they never widen a Tensor's dtype). A NumPy scalar counts
    as its dtype, as in NumPy and in jaxtensor's operators (``np.float64(1)`` is a float,
    but not a weak one).

    >>> import jaxtensor as jt
    >>> jt.result_type(jt.int8, jt.int16), jt.result_type(jt.float32, 1.0)
    (dtype('int16'), dtype('float32'))
    """
    dt = None
    scalars = []
    for a in arrays_and_dtypes:
        if isinstance(a, (builtins.bool, int, float, complex)) and not isinstance(a, np.generic):
            scalars.append(a)
            continue
        d = _dtype_of(a, "result_type")
        dt = d if dt is None else _dtypes.promote(dt, d)
    if dt is None:
        raise ValueError(
            "result_type() needs at least one Tensor or dtype; Python scalars alone have no "
            "dtype"
        )
    for s in scalars:
        dt = _dtypes.scalar_result(dt, s)
    return dt


def set_default_dtype(d: Any, /) -> None:
    """Make ``d`` (``float32`` or ``float64``) the default real floating dtype, and its complex
    counterpart (``complex64`` or ``complex128``) the default complex dtype, as
    ``torch.set_default_dtype`` does. The defaults are ``float64``/``complex128`` in 64-bit mode
    (as NumPy's) and ``float32``/``complex64`` with it off.

    Every function that picks a floating dtype by default follows it: ``asarray`` of Python
    floats, ``zeros``/``ones``/``empty``/``full``/``eye``/``linspace``/``arange`` without
    ``dtype``, float-only functions of integers (``divide``, ``sin``, ``mean``, ``fft``,
    ``linalg``), ``int_tensor + 1.0``, and ``__array_namespace_info__().default_dtypes()``.
    Setting ``JAXTENSOR_DEFAULT_FLOAT=float32`` (or ``float64``) in the environment before
    import does the same for the whole process. ``float64`` needs JAX's 64-bit mode (on unless
    ``JAX_ENABLE_X64=0``): without it this raises ``ValueError``. The setting is process-wide;
    set it at the start of a program: it empties jaxtensor's and JAX's compilation caches, so
    functions compiled before it are traced again with the new default.

    >>> import jaxtensor as jt
    >>> jt.set_default_dtype(jt.float32)
    >>> jt.asarray([1.5]).dtype, jt.mean(jt.asarray([1, 2])).dtype
    (dtype('float32'), dtype('float32'))
    >>> jt.set_default_dtype(jt.float64)
    >>> jt.get_default_dtype()
    dtype('float64')
    """
    before = _dtypes.default_float
    _dtypes.set_default_float(d)
    if _dtypes.default_float != before:
        _cache.clear_caches()
        jax.clear_caches()


def get_default_dtype() -> np.dtype:
    """The default real floating dtype (``float64`` in 64-bit mode, ``float32`` with it off,
    unless changed with :func:`set_default_dtype` or ``JAXTENSOR_DEFAULT_FLOAT``), as
    ``torch.get_default_dtype``.

    >>> import jaxtensor as jt
    >>> jt.get_default_dtype()
    dtype('float64')
    """
    return _dtypes.default_float
