"""Data types, the Array API promotion table, Python-scalar (weak) promotion and the
default floating dtypes.

The dtype objects are NumPy ``dtype`` instances (``jt.float32 == np.dtype("float32")``), so
they interoperate with NumPy and JAX without conversion. The default real and complex
floating dtypes are ``float64``/``complex128`` in 64-bit mode (NumPy's and ``jax.numpy``'s
defaults there) and ``float32``/``complex64`` with it off; ``JAXTENSOR_DEFAULT_FLOAT``
(``float32`` or ``float64``) in the environment before import, or
``jaxtensor.set_default_dtype``, chooses the other; every caller reads them as
``_dtypes.default_float``/``_dtypes.default_complex`` at call time.
"""

from __future__ import annotations

import builtins

import jax.numpy as jnp
import numpy as np

from . import _config
from ._config import X64

bool = np.dtype("bool")  # noqa: A001 - the standard's name
int8 = np.dtype("int8")
int16 = np.dtype("int16")
int32 = np.dtype("int32")
int64 = np.dtype("int64")
uint8 = np.dtype("uint8")
uint16 = np.dtype("uint16")
uint32 = np.dtype("uint32")
uint64 = np.dtype("uint64")
float32 = np.dtype("float32")
float64 = np.dtype("float64")
complex64 = np.dtype("complex64")
complex128 = np.dtype("complex128")
#: The half-precision extension dtypes (JAX's and PyTorch's; not in the standard).
float16 = np.dtype("float16")
bfloat16 = np.dtype(jnp.bfloat16)  # NumPy kind "V": ask kind(), not .kind
half_dtypes = (float16, bfloat16)

_WIDE = (int64, uint64, float64, complex128)
_signed_ints = (int8, int16, int32, int64)
_unsigned_ints = (uint8, uint16, uint32, uint64)
_all_dtypes_x64 = (
    bool, *_signed_ints, *_unsigned_ints, float32, float64, complex64, complex128,
)
#: Every dtype this process can hold (64-bit ones only in 64-bit mode).
all_dtypes = _all_dtypes_x64 if X64 else tuple(d for d in _all_dtypes_x64 if d not in _WIDE)

integer_dtypes = tuple(d for d in all_dtypes if d.kind in "iu")
real_floating_dtypes = tuple(d for d in all_dtypes if d.kind == "f")
complex_floating_dtypes = tuple(d for d in all_dtypes if d.kind == "c")
numeric_dtypes = tuple(d for d in all_dtypes if d.kind in "iufc")

#: The default real floating dtype (``set_default_float`` changes it, with ``default_complex``).
default_float = float64 if X64 else float32
default_complex = complex128 if X64 else complex64
default_int = int64 if X64 else int32
default_index = default_int

#: Every dtype a Tensor may have: the standard's and the half-precision extensions.
supported_dtypes = (*_all_dtypes_x64, *half_dtypes)
_NAMES = {str(d): d for d in supported_dtypes}


def kind(dt: np.dtype) -> str:
    """NumPy's kind character of ``dt``, with ``"f"`` for ``bfloat16`` (NumPy says ``"V"``)."""
    return "f" if dt == bfloat16 else dt.kind


def _kind_rank(dt: np.dtype) -> int:
    return {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}[kind(dt)]


def _promote_pair(a: np.dtype, b: np.dtype) -> np.dtype:
    """The standard's table; int with float gives the float dtype (no widening)."""
    if a == b:
        return a
    ka, kb = _kind_rank(a), _kind_rank(b)
    if ka == 0 or kb == 0:
        if ka == 0 and kb == 0:
            return bool
        raise TypeError(
            f"no type promotion between {a} and {b}: the Array API does not mix bool with "
            "numeric dtypes; cast one of them with astype()"
        )
    if ka != kb:
        hi, lo = (a, b) if ka > kb else (b, a)
        if _kind_rank(hi) == 3 and _kind_rank(lo) == 2:
            return complex128 if max(hi.itemsize // 2, lo.itemsize) == 8 else complex64
        return hi
    if ka >= 2:
        if a.itemsize == b.itemsize:  # float16 with bfloat16 (JAX and PyTorch)
            return float32
        return a if a.itemsize >= b.itemsize else b
    if a.kind == b.kind:
        return a if a.itemsize >= b.itemsize else b
    s, u = (a, b) if a.kind == "i" else (b, a)
    if s.itemsize > u.itemsize:
        return s
    if u.itemsize < 8:
        return np.dtype(f"int{u.itemsize * 16}")
    raise TypeError(
        f"no type promotion between {a} and {b}: uint64 and a signed integer have no common "
        "integer dtype; cast one of them with astype()"
    )


def _promote_checked(a: np.dtype, b: np.dtype) -> np.dtype:
    out = _promote_pair(a, b)
    if not X64 and out in _WIDE:
        raise TypeError(
            f"promoting {a} with {b} gives {out}, which needs JAX's 64-bit mode (it is off: "
            "JAX_ENABLE_X64=0); cast one operand with astype()"
        )
    return out


_table: dict[tuple[np.dtype, np.dtype], np.dtype] = {}
for _a in supported_dtypes:
    for _b in supported_dtypes:
        try:
            _table[_a, _b] = _promote_checked(_a, _b)
        except TypeError:
            pass


def promote(a: np.dtype, b: np.dtype) -> np.dtype:
    """Promote two dtypes with the Array API table (raises ``TypeError`` off the table)."""
    out = _table.get((a, b))
    return _promote_checked(np.dtype(a), np.dtype(b)) if out is None else out


def scalar_result(dtype: np.dtype, scalar: object) -> np.dtype:
    """Dtype of ``tensor(dtype) <op> scalar`` for a Python scalar (weak promotion)."""
    if isinstance(scalar, builtins.bool):
        return dtype
    if isinstance(scalar, int):
        return dtype if dtype.kind != "b" else default_int
    if isinstance(scalar, float):
        return dtype if dtype.kind in "fc" or dtype == bfloat16 else default_float
    if isinstance(scalar, complex):
        if dtype.kind == "c":
            return dtype
        if kind(dtype) == "f":
            return complex128 if dtype == float64 else complex64
        return default_complex
    raise TypeError(f"unsupported scalar type {type(scalar).__name__}")


def set_default_float(dtype: object) -> None:
    """Make ``dtype`` (``float32`` or ``float64``) the default real floating dtype and its
    complex counterpart the default complex dtype. The caller clears the caches whose
    decisions depend on them."""
    global default_float, default_complex
    try:
        dt = None if dtype is None else np.dtype(dtype.dtype if isinstance(dtype, DType) else dtype)
    except TypeError:
        dt = None
    if dt is None or dt not in (float32, float64):
        raise TypeError(
            f"the default floating dtype must be float32 or float64, got {dtype!r}"
        )
    if dt == float64 and not X64:
        raise ValueError(
            "float64 cannot be the default floating dtype: JAX's 64-bit mode is off "
            "(JAX_ENABLE_X64=0), so float64 Tensors do not exist; unset JAX_ENABLE_X64"
        )
    default_float = dt
    default_complex = complex128 if dt == float64 else complex64


def _default_from_env() -> None:
    name = _config.DEFAULT_FLOAT
    if not name:
        return
    try:
        set_default_float(name)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"JAXTENSOR_DEFAULT_FLOAT={name!r}: {exc}") from None


def as_dtype(dtype: object) -> np.dtype:
    """Normalise a dtype argument (dtype, name, NumPy/JAX scalar type) to a jaxtensor dtype."""
    if isinstance(dtype, np.dtype):
        dt = dtype
    elif isinstance(dtype, str) and dtype in _NAMES:
        dt = _NAMES[dtype]
    else:
        try:
            dt = np.dtype(dtype)
        except TypeError:
            raise TypeError(f"{dtype!r} is not a dtype; use e.g. jaxtensor.float32") from None
    if dt not in supported_dtypes:
        raise TypeError(
            f"dtype {dt} is not supported; jaxtensor supports "
            f"{', '.join(map(str, (*all_dtypes, *half_dtypes)))}"
        )
    if not X64 and dt in _WIDE:
        raise TypeError(
            f"dtype {dt} needs JAX's 64-bit mode, which is off (JAX_ENABLE_X64=0); "
            "unset JAX_ENABLE_X64 or use a 32-bit dtype"
        )
    return dt


def canonical(dt: np.dtype) -> np.dtype:
    """The dtype a JAX array of dtype ``dt`` is held as in this process."""
    if X64 or dt not in _WIDE:
        return dt
    return {int64: int32, uint64: uint32, float64: float32, complex128: complex64}[dt]


class DType:
    """A public dtype constant (``jaxtensor.float32``, ...): the NumPy dtype it wraps in every
    respect (attributes, hash, equality with dtypes, scalar types and names, NumPy and JAX
    accept it anywhere a dtype goes), except that it is never equal to ``None``, which
    ``np.dtype`` instances are (``np.dtype(None)`` is float64).

    >>> import numpy as np, jaxtensor as jt
    >>> jt.float32 == np.dtype("float32"), jt.ones(2).dtype == jt.float64, jt.float64 == None
    (True, True, False)
    """

    __slots__ = ("dtype",)

    def __init__(self, dtype: np.dtype) -> None:
        object.__setattr__(self, "dtype", np.dtype(dtype))

    def __eq__(self, other: object) -> builtins.bool:
        if other is None:
            return False
        if isinstance(other, DType):
            return self.dtype == other.dtype
        try:
            return self.dtype == np.dtype(other)
        except Exception:  # noqa: BLE001 - comparing with a non-dtype is simply unequal
            return NotImplemented

    def __ne__(self, other: object) -> builtins.bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash(self.dtype)

    def __getattr__(self, name: str) -> object:
        return getattr(self.dtype, name)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("jaxtensor dtypes are immutable")

    def __repr__(self) -> str:
        return f"jaxtensor.{self.dtype.name}"

    def __str__(self) -> str:
        return self.dtype.name

    def __reduce__(self) -> tuple:
        return (DType, (self.dtype,))


_default_from_env()

#: The public constants, by name.
public = {str(d): DType(d) for d in supported_dtypes}


#: Python ints strictly inside ``(-PASS_INT, PASS_INT)`` go to a kernel unconverted (JAX
#: converts them to its default int without overflow).
PASS_INT = 2**62 if X64 else 2**31 - 1

#: ``(min, max)`` of every integer dtype.
INT_RANGE: dict[np.dtype, tuple[int, int]] = {
    dt: (int(np.iinfo(dt).min), int(np.iinfo(dt).max))
    for dt in (*_signed_ints, *_unsigned_ints)
}
