"""Element-wise functions of the Array API standard.

Every function promotes its operands with the standard's table (``_dtypes``), treats
Python scalars as weak, casts both operands to the result dtype and runs one cached
compiled kernel (faster than eager ``jnp`` dispatch for small arrays). Where ``jax.numpy``
disagrees with a special case the standard lists (NaN, infinities, signed zeros), the
kernel here corrects it.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from . import _config, _dtypes, _kernels
from ._constants import device_constant
from ._tensor import Tensor, new_tensor

__all__ = [
    "abs",
    "acos",
    "acosh",
    "add",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "bitwise_and",
    "bitwise_invert",
    "bitwise_left_shift",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "ceil",
    "clip",
    "conj",
    "copysign",
    "cos",
    "cosh",
    "divide",
    "equal",
    "exp",
    "expm1",
    "floor",
    "floor_divide",
    "greater",
    "greater_equal",
    "hypot",
    "imag",
    "isfinite",
    "isinf",
    "isnan",
    "less",
    "less_equal",
    "log",
    "log1p",
    "log2",
    "log10",
    "logaddexp",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "maximum",
    "minimum",
    "multiply",
    "negative",
    "nextafter",
    "not_equal",
    "positive",
    "pow",
    "real",
    "reciprocal",
    "remainder",
    "round",
    "sign",
    "signbit",
    "sin",
    "sinh",
    "square",
    "sqrt",
    "subtract",
    "tan",
    "tanh",
    "trunc",
]

_SCALARS = (builtins.bool, int, float, complex)


# -- operand handling ---------------------------------------------------------------------
def _operand_value(x: Any) -> Any:
    if isinstance(x, Tensor):
        return x._value()
    from ._creation import asarray

    return asarray(x)._value()


def _binary_operands(x1: Any, x2: Any) -> tuple[Any, Any, np.dtype]:
    """Values of both operands and their promoted dtype (Python scalars are weak)."""
    if isinstance(x1, Tensor):
        a = x1._value()
        if isinstance(x2, Tensor):
            b = x2._value()
            dt = _dtypes.promote(a.dtype, b.dtype)
        elif type(x2) in _SCALARS:
            dt = _dtypes.scalar_result(a.dtype, x2)
            b = _scalar(x2, dt)
        else:
            b = _operand_value(x2)
            dt = _dtypes.promote(a.dtype, b.dtype)
    elif isinstance(x2, Tensor):
        b = x2._value()
        if type(x1) in _SCALARS:
            dt = _dtypes.scalar_result(b.dtype, x1)
            a = _scalar(x1, dt)
        else:
            a = _operand_value(x1)
            dt = _dtypes.promote(a.dtype, b.dtype)
    else:
        raise TypeError(
            f"expected at least one Tensor operand, got {type(x1).__name__} and "
            f"{type(x2).__name__}; convert one with jaxtensor.asarray"
        )
    return a, b, dt


_PASS_INT = 2**62 if _config.X64 else 2**31 - 1
_int_limits: dict[np.dtype, tuple[int, int]] = {}


def _int_range(dt: np.dtype) -> tuple[int, int]:
    lim = _int_limits.get(dt)
    if lim is None:
        info = np.iinfo(dt)
        lim = _int_limits[dt] = (int(info.min), int(info.max))
    return lim


def _scalar(s: Any, dt: np.dtype) -> Any:
    """A Python scalar operand for a kernel computing in ``dt``.

    In-range floats and ints go to the compiled kernel as they are (JAX's fast path for
    Python scalars; the kernel casts them to ``dt``); the rest is converted here, where an
    out-of-range int raises ``OverflowError``.
    """
    t = type(s)
    k = dt.kind
    if t is float:
        if k in "fc":
            return s
    elif t is int and -_PASS_INT < s < _PASS_INT:
        if k in "fc":
            return s
        if k in "iu":
            lo, hi = _int_range(dt)
            if lo <= s <= hi:
                return s
    if isinstance(s, complex) and dt.kind != "c":
        raise TypeError(f"cannot combine a complex scalar with a Tensor of dtype {dt}")
    try:
        return np.asarray(s, dtype=dt)
    except OverflowError:
        raise OverflowError(
            f"Python integer {s} is out of bounds for {dt}; use a wider dtype"
        ) from None


def _cast(a: Any, dt: np.dtype) -> Any:
    return a if a.dtype == dt else a.astype(dt)


def _float_of(dt: np.dtype) -> np.dtype:
    """The floating dtype a float-only function computes in for inputs of dtype ``dt``."""
    return dt if dt.kind in "fc" else _dtypes.default_float


def binary(name: str, fn: Callable[[Any, Any], Any], x1: Any, x2: Any, *,
           floating: builtins.bool = False) -> Tensor:
    """Apply a same-dtype binary ``fn`` after Array API promotion.

    With ``floating=True`` integer and boolean operands are computed in the default
    floating dtype (``divide``, ``atan2``, ...).
    """
    a, b, dt = _binary_operands(x1, x2)
    if floating:
        dt = _float_of(dt)
    kernel = _binary_kernels.get((name, dt))
    if kernel is None:
        kernel = _binary_kernels[name, dt] = jax.jit(
            lambda p, q: fn(_cast(p, dt), _cast(q, dt)))
    out = new_tensor(kernel(a, b))
    _remember(name, x1, x2, a, b, dt, kernel)
    return out


_binary_kernels: dict[tuple[str, np.dtype], Callable] = {}


# -- the operators' fast path -------------------------------------------------------------
# ``binary`` records, per function name and operand signature, the kernel it chose; a
# Python operator on Tensors (``a + b``, ``x * 2.0``) looks that up with one dictionary
# access and skips promotion. A signature is a pair of keys, each the operand's dtype (a
# Tensor) or ``int``/``float`` (a Python scalar); an int scalar also records the range in
# which ``_scalar`` passes it to the kernel unchanged.
_fast: dict[tuple, tuple[Callable, int | None, int | None, np.dtype]] = {}


def _remember(name: str, x1: Any, x2: Any, a: Any, b: Any, dt: np.dtype,
              kernel: Callable) -> None:
    t1, t2 = type(x1), type(x2)
    if t1 is Tensor and t2 is Tensor:
        _fast[name, a.dtype, b.dtype] = (kernel, None, None, dt)
        return
    if t1 is Tensor:
        key, s = (name, a.dtype, t2), x2
    elif t2 is Tensor:
        key, s = (name, t1, b.dtype), x1
    else:
        return
    if key in _fast:
        return
    if s.__class__ is float and dt.kind in "fc":
        _fast[key] = (kernel, None, None, dt)
    elif s.__class__ is int:
        lo, hi = -_PASS_INT + 1, _PASS_INT - 1
        if dt.kind in "iu":
            ilo, ihi = _int_range(dt)
            lo, hi = builtins.max(lo, ilo), builtins.min(hi, ihi)
        elif dt.kind not in "fc":
            return
        _fast[key] = (kernel, lo, hi, dt)


def fast_operator(name: str, slow: Callable[[Any, Any], Any], *,
                  reflected: builtins.bool = False) -> Callable[[Tensor, Any], Any]:
    """``Tensor.__op__`` (or ``__rop__``): the remembered kernel, else ``slow(self, other)``."""
    fast = _fast

    if not reflected:
        def op(self: Tensor, other: Any) -> Any:
            t = other.__class__
            if t is Tensor:
                a = self._value()
                b = other._value()
                entry = fast.get((name, a.dtype, b.dtype))
                if entry is not None:
                    return new_tensor(entry[0](a, b))
            elif t is float or t is int:
                a = self._value()
                entry = fast.get((name, a.dtype, t))
                if entry is not None and (entry[1] is None or entry[1] <= other <= entry[2]):
                    return new_tensor(entry[0](a, _scalar_arg(other, entry[3])))
            return slow(self, other)
    else:
        def op(self: Tensor, other: Any) -> Any:
            t = other.__class__
            if t is float or t is int:
                b = self._value()
                entry = fast.get((name, t, b.dtype))
                if entry is not None and (entry[1] is None or entry[1] <= other <= entry[2]):
                    return new_tensor(entry[0](_scalar_arg(other, entry[3]), b))
            return slow(self, other)

    return op


# A Python scalar used again and again (``x * 2.0`` in a loop) is passed as a kept device
# scalar (``_constants``). Zero is never kept (-0.0 == 0.0 as a key, but not as a value), nor
# NaN, nor ints a float64 cannot hold (converted through it they would be rounded twice; the
# kernel rounds them once).
_EXACT = 2**53


def _scalar_arg(s: int | float, dt: np.dtype) -> Any:
    if not s or s != s or (s.__class__ is int and dt.kind in "fc" and not -_EXACT < s < _EXACT):
        return s
    arr = device_constant((s, dt), lambda: jnp.asarray(s, dtype=dt))
    return s if arr is None else arr


def _check(name: str, x: Any) -> Any:
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{name}() expects a Tensor, got {type(x).__name__}; convert it with "
            "jaxtensor.asarray"
        )
    return x._value()


def unary(name: str, fn: Callable[[Any], Any], x: Tensor) -> Tensor:
    """Apply ``fn`` to ``x``'s value in a cached compiled kernel."""
    return Tensor._wrap(_kernels.call((name,), lambda: fn, _check(name, x)))


def _unary_float(name: str, fn: Callable[[Any], Any], x: Tensor) -> Tensor:
    """A float-only function: integer/boolean input is computed in the default float."""
    v = _check(name, x)
    dt = _float_of(v.dtype)
    return Tensor._wrap(_kernels.call((name, dt), lambda: lambda p: fn(_cast(p, dt)), v))


# -- helpers for special cases ------------------------------------------------------------
def _is_complex(a: Any) -> builtins.bool:
    return jnp.issubdtype(a.dtype, jnp.complexfloating)


def _cplx(re: Any, im: Any) -> Any:
    return lax.complex(re, im)


# -- arithmetic ---------------------------------------------------------------------------
def add(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise ``x1 + x2``.

    >>> import jaxtensor as jt
    >>> jt.add(jt.asarray([1, 2]), 3)
    Tensor(shape=[2], dtype=int64, device=cpu,
           [4, 5])
    """
    return binary("add", jnp.add, x1, x2)


def subtract(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise ``x1 - x2``.

    >>> import jaxtensor as jt
    >>> jt.subtract(jt.asarray([1.0, 2.0]), 0.5)
    Tensor(shape=[2], dtype=float32, device=cpu,
           [0.5, 1.5])
    """
    return binary("subtract", jnp.subtract, x1, x2)


def _multiply(p: Any, q: Any) -> Any:
    if not _is_complex(p):
        return jnp.multiply(p, q)
    # C99 Annex G: (a+bi)(c+di) with infinities recovered when the naive formula gives NaN.
    a, b, c, d = jnp.real(p), jnp.imag(p), jnp.real(q), jnp.imag(q)
    ac, bd, ad, bc = a * c, b * d, a * d, b * c
    re, im = ac - bd, ad + bc
    both_nan = jnp.isnan(re) & jnp.isnan(im)
    inf_ab = jnp.isinf(a) | jnp.isinf(b)
    inf_cd = jnp.isinf(c) | jnp.isinf(d)

    def box(v: Any, cond: Any) -> Any:
        return jnp.where(cond, jnp.copysign(jnp.where(jnp.isinf(v), 1.0, 0.0).astype(v.dtype), v), v)

    def unnan(v: Any) -> Any:
        return jnp.where(jnp.isnan(v), jnp.copysign(jnp.zeros_like(v), v), v)

    a2, b2 = box(a, inf_ab), box(b, inf_ab)
    c2 = jnp.where(inf_ab, unnan(c), c)
    d2 = jnp.where(inf_ab, unnan(d), d)
    c2, d2 = box(c2, inf_cd), box(d2, inf_cd)
    a2 = jnp.where(inf_cd, unnan(a2), a2)
    b2 = jnp.where(inf_cd, unnan(b2), b2)
    recalc = both_nan & (inf_ab | inf_cd)
    inf = jnp.array(jnp.inf, re.dtype)
    re = jnp.where(recalc, inf * (a2 * c2 - b2 * d2), re)
    im = jnp.where(recalc, inf * (a2 * d2 + b2 * c2), im)
    return _cplx(re, im)


def multiply(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise ``x1 * x2``.

    >>> import jaxtensor as jt
    >>> jt.multiply(jt.asarray([1, 2]), jt.asarray([3, 4]))
    Tensor(shape=[2], dtype=int64, device=cpu,
           [3, 8])
    """
    return binary("multiply", _multiply, x1, x2)


def divide(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise true division ``x1 / x2``; integers divide in the default float dtype.

    >>> import jaxtensor as jt
    >>> jt.divide(jt.asarray([1, 3]), 2)
    Tensor(shape=[2], dtype=float32, device=cpu,
           [0.5, 1.5])
    """
    return binary("divide", jnp.true_divide, x1, x2, floating=True)


def _floor_divide(p: Any, q: Any) -> Any:
    if jnp.issubdtype(p.dtype, jnp.integer):
        return jnp.floor_divide(p, q)
    if p.dtype == jnp.bool_:
        return jnp.floor_divide(p.astype(jnp.int8), q.astype(jnp.int8)).astype(p.dtype)
    # the standard prefers floor(x1 / x2) where an infinity is involved; elsewhere
    # jnp.floor_divide keeps Python's exact rounding (1 // 0.1 == 9).
    special = jnp.isinf(p) | jnp.isinf(q) | (q == 0) | (p == 0)
    r = jnp.floor_divide(p, q)
    # a zero quotient of finite non-zero operands has their (equal) sign: +0
    r = jnp.where(r == 0, jnp.zeros_like(r), r)
    return jnp.where(special, jnp.floor(p / q), r)


def floor_divide(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise floor division ``x1 // x2``.

    >>> import jaxtensor as jt
    >>> jt.floor_divide(jt.asarray([7, -7]), 2)
    Tensor(shape=[2], dtype=int64, device=cpu,
           [ 3, -4])
    """
    return binary("floor_divide", _floor_divide, x1, x2)


def _remainder(p: Any, q: Any) -> Any:
    if p.dtype == jnp.bool_:
        return jnp.remainder(p.astype(jnp.int8), q.astype(jnp.int8)).astype(p.dtype)
    if jnp.issubdtype(p.dtype, jnp.integer):
        return jnp.remainder(p, q)
    r = jnp.remainder(p, q)
    # x1 finite, x2 infinite: x1 when the signs agree (or x1 is zero), else x2
    fin_inf = jnp.isfinite(p) & jnp.isinf(q)
    same = (jnp.signbit(p) == jnp.signbit(q)) | (p == 0)
    r = jnp.where(fin_inf, jnp.where(same, p, q), r)
    # a zero result takes the sign of x2
    r = jnp.where((r == 0) & ~fin_inf, jnp.copysign(jnp.zeros_like(r), q), r)
    return jnp.where(jnp.isinf(p) | jnp.isnan(p) | jnp.isnan(q) | (q == 0), jnp.nan, r)


def remainder(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise remainder with the sign of the divisor (Python's ``%``).

    >>> import jaxtensor as jt
    >>> jt.remainder(jt.asarray([7, -7]), 3)
    Tensor(shape=[2], dtype=int64, device=cpu,
           [1, 2])
    """
    return binary("remainder", _remainder, x1, x2)


def _pow(p: Any, q: Any) -> Any:
    if p.dtype == jnp.bool_:
        return jnp.power(p.astype(jnp.int8), q.astype(jnp.int8)).astype(p.dtype)
    if jnp.issubdtype(p.dtype, jnp.integer):
        return jnp.power(p, q)
    r = jnp.power(p, q)
    # x ** 0 == 1 for every x (NaN included)
    return jnp.where(q == 0, jnp.ones_like(r), r)


def pow(x1: Any, x2: Any, /) -> Tensor:  # noqa: A001 - the standard's name
    """Element-wise ``x1 ** x2``.

    >>> import jaxtensor as jt
    >>> jt.pow(jt.asarray([1.0, 2.0, 3.0]), 2)
    Tensor(shape=[3], dtype=float32, device=cpu,
           [1., 4., 9.])
    """
    return binary("pow", _pow, x1, x2)


def negative(x: Tensor, /) -> Tensor:
    """Element-wise ``-x``.

    >>> import jaxtensor as jt
    >>> jt.negative(jt.asarray([1, -2]))
    Tensor(shape=[2], dtype=int64, device=cpu,
           [-1,  2])
    """
    return unary("negative", jnp.negative, x)


def positive(x: Tensor, /) -> Tensor:
    """Element-wise ``+x`` (a copy).

    >>> import jaxtensor as jt
    >>> jt.positive(jt.asarray([1, -2]))
    Tensor(shape=[2], dtype=int64, device=cpu,
           [ 1, -2])
    """
    return unary("positive", jnp.positive, x)


def _abs(a: Any) -> Any:
    if _is_complex(a):
        re, im = jnp.real(a), jnp.imag(a)
        return jnp.where(jnp.isinf(re) | jnp.isinf(im), jnp.inf, jnp.hypot(re, im))
    return jnp.abs(a)


def abs(x: Tensor, /) -> Tensor:  # noqa: A001 - the standard's name
    """Element-wise absolute value (the magnitude for complex input).

    >>> import jaxtensor as jt
    >>> jt.abs(jt.asarray([-1.5, 2.0]))
    Tensor(shape=[2], dtype=float32, device=cpu,
           [1.5, 2. ])
    """
    return unary("abs", _abs, x)


def square(x: Tensor, /) -> Tensor:
    """Element-wise ``x * x``.

    >>> import jaxtensor as jt
    >>> jt.square(jt.asarray([2, -3]))
    Tensor(shape=[2], dtype=int64, device=cpu,
           [4, 9])
    """
    return unary("square", lambda a: _multiply(a, a), x)


def reciprocal(x: Tensor, /) -> Tensor:
    """Element-wise ``1 / x``.

    >>> import jaxtensor as jt
    >>> jt.reciprocal(jt.asarray([2.0, 4.0]))
    Tensor(shape=[2], dtype=float32, device=cpu,
           [0.5 , 0.25])
    """
    return _unary_float("reciprocal", lambda a: jnp.ones_like(a) / a, x)


# -- comparison -----------------------------------------------------------------------------
def equal(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise ``x1 == x2``.

    >>> import jaxtensor as jt
    >>> jt.equal(jt.asarray([1, 2]), 2)
    Tensor(shape=[2], dtype=bool, device=cpu,
           [False,  True])
    """
    return binary("equal", jnp.equal, x1, x2)


def not_equal(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise ``x1 != x2``.

    >>> import jaxtensor as jt
    >>> jt.not_equal(jt.asarray([1, 2]), 2)
    Tensor(shape=[2], dtype=bool, device=cpu,
           [ True, False])
    """
    return binary("not_equal", jnp.not_equal, x1, x2)


def less(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise ``x1 < x2``.

    >>> import jaxtensor as jt
    >>> jt.less(jt.asarray([1, 2]), 2)
    Tensor(shape=[2], dtype=bool, device=cpu,
           [ True, False])
    """
    return binary("less", jnp.less, x1, x2)


def less_equal(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise ``x1 <= x2``.

    >>> import jaxtensor as jt
    >>> jt.less_equal(jt.asarray([1, 3]), 2)
    Tensor(shape=[2], dtype=bool, device=cpu,
           [ True, False])
    """
    return binary("less_equal", jnp.less_equal, x1, x2)


def greater(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise ``x1 > x2``.

    >>> import jaxtensor as jt
    >>> jt.greater(jt.asarray([1, 3]), 2)
    Tensor(shape=[2], dtype=bool, device=cpu,
           [False,  True])
    """
    return binary("greater", jnp.greater, x1, x2)


def greater_equal(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise ``x1 >= x2``.

    >>> import jaxtensor as jt
    >>> jt.greater_equal(jt.asarray([1, 2]), 2)
    Tensor(shape=[2], dtype=bool, device=cpu,
           [False,  True])
    """
    return binary("greater_equal", jnp.greater_equal, x1, x2)


def maximum(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise maximum; NaN if either operand is NaN.

    >>> import jaxtensor as jt
    >>> jt.maximum(jt.asarray([1.0, 5.0]), 3.0)
    Tensor(shape=[2], dtype=float32, device=cpu,
           [3., 5.])
    """
    return binary("maximum", jnp.maximum, x1, x2)


def minimum(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise minimum; NaN if either operand is NaN.

    >>> import jaxtensor as jt
    >>> jt.minimum(jt.asarray([1.0, 5.0]), 3.0)
    Tensor(shape=[2], dtype=float32, device=cpu,
           [1., 3.])
    """
    return binary("minimum", jnp.minimum, x1, x2)


def clip(x: Tensor, /, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """Clamp every element of ``x`` to ``[min, max]`` (either bound may be ``None``).

    The result has ``x``'s dtype and the broadcast shape of ``x``, ``min`` and ``max``;
    a NaN in any of them gives NaN.

    >>> import jaxtensor as jt
    >>> jt.clip(jt.asarray([-2, 0, 5]), -1, 3)
    Tensor(shape=[3], dtype=int64, device=cpu,
           [-1,  0,  3])
    """
    v = _check("clip", x)
    dt = v.dtype
    if dt.kind == "c":
        raise TypeError("clip() is not defined for complex Tensors")
    args = []
    kinds = []
    for bound in (min, max):
        if bound is None:
            kinds.append(None)
            continue
        if isinstance(bound, Tensor):
            b = bound._value()
            kinds.append("t")
        elif type(bound) in _SCALARS:
            if isinstance(bound, complex):
                raise TypeError("clip() bounds must be real")
            if dt.kind in "iu" and isinstance(bound, float):
                b = np.asarray(bound, dtype=_dtypes.default_float)
                kinds.append("f")
            elif dt.kind in "iu":
                # out-of-range integer bounds: clamp them to the dtype's range first
                info = np.iinfo(dt)
                b = np.asarray(builtins.min(builtins.max(bound, info.min), info.max), dtype=dt)
                kinds.append("s")
            else:
                b = np.asarray(bound, dtype=dt)
                kinds.append("s")
        else:
            b = _operand_value(bound)
            kinds.append("t")
        args.append(b)
    key = ("clip", dt, tuple(kinds))

    def build() -> Callable:
        def f(a: Any, *bs: Any) -> Any:
            it = iter(bs)
            r = a
            shapes = [a.shape] + [b.shape for b in bs]
            shape = jnp.broadcast_shapes(*shapes)
            r = jnp.broadcast_to(r, shape)
            for k, is_max in zip(kinds, (False, True)):
                if k is None:
                    continue
                b = next(it)
                if dt.kind in "iu" and b.dtype.kind == "f":
                    # float bound on an integer Tensor: compare in float, keep x's dtype
                    rf = r.astype(b.dtype)
                    rf = jnp.minimum(rf, b) if is_max else jnp.maximum(rf, b)
                    r = jnp.where(rf != r.astype(b.dtype), jnp.ceil(rf) if not is_max
                                  else jnp.floor(rf), rf).astype(dt)
                    continue
                if dt == np.bool_:
                    b = b.astype(dt)
                    r = (r & b) if is_max else (r | b)
                    continue
                if b.dtype != dt:
                    if dt.kind in "iu" and b.dtype.kind in "iu":
                        info = jnp.iinfo(dt)
                        big = jnp.promote_types(dt, b.dtype)
                        b = jnp.clip(b.astype(big), info.min, info.max)
                    b = b.astype(dt)
                r = jnp.minimum(r, b) if is_max else jnp.maximum(r, b)
            return r

        return f

    return Tensor._wrap(_kernels.call(key, build, v, *args))


# -- logical --------------------------------------------------------------------------------
def _logical(fn: Callable) -> Callable:
    return lambda p, q: fn(p.astype(jnp.bool_), q.astype(jnp.bool_))


def _logical_binary(name: str, fn: Callable, x1: Any, x2: Any) -> Tensor:
    if isinstance(x1, Tensor) and isinstance(x2, Tensor):
        a, b = x1._value(), x2._value()
    elif isinstance(x1, Tensor):
        a, b = x1._value(), np.asarray(builtins.bool(x2)) if type(x2) in _SCALARS else \
            _operand_value(x2)
    elif isinstance(x2, Tensor):
        a, b = (np.asarray(builtins.bool(x1)) if type(x1) in _SCALARS else _operand_value(x1),
                x2._value())
    else:
        raise TypeError(f"{name}() expects at least one Tensor operand")
    return Tensor._wrap(_kernels.call((name,), lambda: _logical(fn), a, b))


def logical_and(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise logical AND (non-boolean input is tested for non-zero).

    >>> import jaxtensor as jt
    >>> jt.logical_and(jt.asarray([True, False]), True)
    Tensor(shape=[2], dtype=bool, device=cpu,
           [ True, False])
    """
    return _logical_binary("logical_and", jnp.logical_and, x1, x2)


def logical_or(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise logical OR.

    >>> import jaxtensor as jt
    >>> jt.logical_or(jt.asarray([True, False]), False)
    Tensor(shape=[2], dtype=bool, device=cpu,
           [ True, False])
    """
    return _logical_binary("logical_or", jnp.logical_or, x1, x2)


def logical_xor(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise logical XOR.

    >>> import jaxtensor as jt
    >>> jt.logical_xor(jt.asarray([True, False]), True)
    Tensor(shape=[2], dtype=bool, device=cpu,
           [False,  True])
    """
    return _logical_binary("logical_xor", jnp.logical_xor, x1, x2)


def logical_not(x: Tensor, /) -> Tensor:
    """Element-wise logical NOT.

    >>> import jaxtensor as jt
    >>> jt.logical_not(jt.asarray([True, False]))
    Tensor(shape=[2], dtype=bool, device=cpu,
           [False,  True])
    """
    return unary("logical_not", lambda a: jnp.logical_not(a.astype(jnp.bool_)), x)


# -- bitwise ----------------------------------------------------------------------------------
def _bitwise_check(name: str, x: Any, shift: builtins.bool = False) -> None:
    if isinstance(x, Tensor):
        k = x.dtype.kind
        if k in "fc" or (shift and k == "b"):
            raise TypeError(
                f"{name}() needs {'integer' if shift else 'integer or boolean'} Tensors, "
                f"got {x.dtype}"
            )


def bitwise_and(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise bitwise AND of integer or boolean operands.

    >>> import jaxtensor as jt
    >>> jt.bitwise_and(jt.asarray([12, 10]), 6)
    Tensor(shape=[2], dtype=int64, device=cpu,
           [4, 2])
    """
    _bitwise_check("bitwise_and", x1)
    _bitwise_check("bitwise_and", x2)
    return binary("bitwise_and", jnp.bitwise_and, x1, x2)


def bitwise_or(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise bitwise OR of integer or boolean operands.

    >>> import jaxtensor as jt
    >>> jt.bitwise_or(jt.asarray([12, 10]), 1)
    Tensor(shape=[2], dtype=int64, device=cpu,
           [13, 11])
    """
    _bitwise_check("bitwise_or", x1)
    _bitwise_check("bitwise_or", x2)
    return binary("bitwise_or", jnp.bitwise_or, x1, x2)


def bitwise_xor(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise bitwise XOR of integer or boolean operands.

    >>> import jaxtensor as jt
    >>> jt.bitwise_xor(jt.asarray([12, 10]), 6)
    Tensor(shape=[2], dtype=int64, device=cpu,
           [10, 12])
    """
    _bitwise_check("bitwise_xor", x1)
    _bitwise_check("bitwise_xor", x2)
    return binary("bitwise_xor", jnp.bitwise_xor, x1, x2)


def _shift(left: builtins.bool) -> Callable:
    def f(p: Any, q: Any) -> Any:
        bits = p.dtype.itemsize * 8
        big = q >= bits
        qq = jnp.where(big, 0, q)
        if left:
            return jnp.where(big, jnp.zeros_like(p), jnp.left_shift(p, qq))
        r = jnp.right_shift(p, qq)
        fill = jnp.where(p < 0, -1, 0).astype(p.dtype) if p.dtype.kind == "i" else jnp.zeros_like(p)
        return jnp.where(big, fill, r)

    return f


def bitwise_left_shift(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise ``x1 << x2`` of integer operands (``x2`` must be non-negative).

    >>> import jaxtensor as jt
    >>> jt.bitwise_left_shift(jt.asarray([1, 3]), 2)
    Tensor(shape=[2], dtype=int64, device=cpu,
           [ 4, 12])
    """
    _bitwise_check("bitwise_left_shift", x1, True)
    _bitwise_check("bitwise_left_shift", x2, True)
    return binary("bitwise_left_shift", _shift(True), x1, x2)


def bitwise_right_shift(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise arithmetic ``x1 >> x2`` of integer operands.

    >>> import jaxtensor as jt
    >>> jt.bitwise_right_shift(jt.asarray([16, -16]), 2)
    Tensor(shape=[2], dtype=int64, device=cpu,
           [ 4, -4])
    """
    _bitwise_check("bitwise_right_shift", x1, True)
    _bitwise_check("bitwise_right_shift", x2, True)
    return binary("bitwise_right_shift", _shift(False), x1, x2)


def bitwise_invert(x: Tensor, /) -> Tensor:
    """Element-wise bitwise NOT (logical NOT for booleans).

    >>> import jaxtensor as jt
    >>> jt.bitwise_invert(jt.asarray([0, 5], dtype=jt.int8))
    Tensor(shape=[2], dtype=int8, device=cpu,
           [-1, -6])
    """
    _bitwise_check("bitwise_invert", x)
    return unary("bitwise_invert", jnp.invert, x)


# -- rounding -----------------------------------------------------------------------------
def _rounding(fn: Callable) -> Callable:
    def f(a: Any) -> Any:
        if a.dtype.kind in "iub":
            return a
        return fn(a)

    return f


def ceil(x: Tensor, /) -> Tensor:
    """Element-wise ceiling; integer input is returned unchanged (same dtype).

    >>> import jaxtensor as jt
    >>> jt.ceil(jt.asarray([-1.5, 1.2]))
    Tensor(shape=[2], dtype=float32, device=cpu,
           [-1.,  2.])
    """
    return unary("ceil", _rounding(jnp.ceil), x)


def floor(x: Tensor, /) -> Tensor:
    """Element-wise floor; integer input is returned unchanged (same dtype).

    >>> import jaxtensor as jt
    >>> jt.floor(jt.asarray([-1.5, 1.2]))
    Tensor(shape=[2], dtype=float32, device=cpu,
           [-2.,  1.])
    """
    return unary("floor", _rounding(jnp.floor), x)


def trunc(x: Tensor, /) -> Tensor:
    """Element-wise rounding toward zero.

    >>> import jaxtensor as jt
    >>> jt.trunc(jt.asarray([-1.5, 1.7]))
    Tensor(shape=[2], dtype=float32, device=cpu,
           [-1.,  1.])
    """
    return unary("trunc", _rounding(jnp.trunc), x)


def _round(a: Any) -> Any:
    if _is_complex(a):
        return _cplx(jnp.round(jnp.real(a)), jnp.round(jnp.imag(a)))
    return jnp.round(a)


def round(x: Tensor, /) -> Tensor:  # noqa: A001 - the standard's name
    """Element-wise rounding to the nearest integer, ties to even.

    >>> import jaxtensor as jt
    >>> jt.round(jt.asarray([0.5, 1.5, 2.4]))
    Tensor(shape=[3], dtype=float32, device=cpu,
           [0., 2., 2.])
    """
    return unary("round", _rounding(_round), x)


# -- sign -----------------------------------------------------------------------------------
def _sign(a: Any) -> Any:
    if _is_complex(a):
        re, im = jnp.real(a), jnp.imag(a)
        mag = _abs(a)
        nan = jnp.isnan(re) | jnp.isnan(im)
        zero = (re == 0) & (im == 0)
        r = a / mag.astype(a.dtype)
        r = jnp.where(zero, jnp.zeros_like(a), r)
        return jnp.where(nan, _cplx(jnp.full_like(re, jnp.nan), jnp.full_like(re, jnp.nan)), r)
    if a.dtype.kind == "u":
        return (a > 0).astype(a.dtype)
    if a.dtype.kind == "f":
        return jnp.where(a == 0, jnp.zeros_like(a), jnp.sign(a))  # +0 for -0, as NumPy
    return jnp.sign(a)


def sign(x: Tensor, /) -> Tensor:
    """Element-wise sign: -1, 0 or 1 (``x / |x|`` for complex, 0 for 0).

    >>> import jaxtensor as jt
    >>> jt.sign(jt.asarray([-3.0, 0.0, 2.0]))
    Tensor(shape=[3], dtype=float32, device=cpu,
           [-1.,  0.,  1.])
    """
    return unary("sign", _sign, x)


def signbit(x: Tensor, /) -> Tensor:
    """Element-wise test of the sign bit (True for -0.0 and negative NaNs too).

    >>> import jaxtensor as jt
    >>> jt.signbit(jt.asarray([-0.0, 0.0, -2.0]))
    Tensor(shape=[3], dtype=bool, device=cpu,
           [ True, False,  True])
    """
    return unary("signbit", jnp.signbit, x)


def copysign(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise magnitude of ``x1`` with the sign of ``x2``.

    >>> import jaxtensor as jt
    >>> jt.copysign(jt.asarray([1.0, 2.0]), -1.0)
    Tensor(shape=[2], dtype=float32, device=cpu,
           [-1., -2.])
    """
    return binary("copysign", jnp.copysign, x1, x2, floating=True)


def nextafter(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise next representable float after ``x1`` in the direction of ``x2``.

    >>> import jaxtensor as jt
    >>> bool(jt.nextafter(jt.asarray(1.0), 2.0) > 1.0)
    True
    """
    def f(p: Any, q: Any) -> Any:
        r = jnp.nextafter(p, q)
        # equal operands (including +0/-0) give x2
        return jnp.where(p == q, q, r)

    return binary("nextafter", f, x1, x2, floating=True)


# -- classification ----------------------------------------------------------------------------
def isfinite(x: Tensor, /) -> Tensor:
    """Element-wise test for finite values (integers are always finite).

    >>> import jaxtensor as jt
    >>> jt.isfinite(jt.asarray([1.0, jt.inf, jt.nan]))
    Tensor(shape=[3], dtype=bool, device=cpu,
           [ True, False, False])
    """
    return unary("isfinite", jnp.isfinite, x)


def isinf(x: Tensor, /) -> Tensor:
    """Element-wise test for infinities.

    >>> import jaxtensor as jt
    >>> jt.isinf(jt.asarray([1.0, -jt.inf, jt.nan]))
    Tensor(shape=[3], dtype=bool, device=cpu,
           [False,  True, False])
    """
    return unary("isinf", jnp.isinf, x)


def isnan(x: Tensor, /) -> Tensor:
    """Element-wise test for NaN.

    >>> import jaxtensor as jt
    >>> jt.isnan(jt.asarray([1.0, jt.inf, jt.nan]))
    Tensor(shape=[3], dtype=bool, device=cpu,
           [False, False,  True])
    """
    return unary("isnan", jnp.isnan, x)


# -- complex parts -------------------------------------------------------------------------------
def real(x: Tensor, /) -> Tensor:
    """The real part; a writeable view of a complex Tensor (NumPy's ``x.real``).

    >>> import jaxtensor as jt
    >>> jt.real(jt.asarray([1 + 2j]))
    Tensor(shape=[1], dtype=float32, device=cpu,
           [1.])
    """
    from . import _view

    _check("real", x)
    if x.dtype.kind == "c":
        return x._derive(_view.with_component(x._view, x.shape, "real"))
    return x._derive(_view.compose_axes(x._view, x.shape, list(range(x.ndim))))


def imag(x: Tensor, /) -> Tensor:
    """The imaginary part; a writeable view of a complex Tensor (NumPy's ``x.imag``).

    >>> import jaxtensor as jt
    >>> jt.imag(jt.asarray([1 + 2j]))
    Tensor(shape=[1], dtype=float32, device=cpu,
           [2.])
    """
    from . import _view

    v = _check("imag", x)
    if x.dtype.kind == "c":
        return x._derive(_view.with_component(x._view, x.shape, "imag"))
    return Tensor._wrap(_kernels.call(("imag",), lambda: jnp.zeros_like, v))


def conj(x: Tensor, /) -> Tensor:
    """Element-wise complex conjugate (a copy of real input).

    >>> import jaxtensor as jt
    >>> jt.conj(jt.asarray([1 + 2j]))
    Tensor(shape=[1], dtype=complex64, device=cpu,
           [1.-2.j])
    """
    return unary("conj", lambda a: jnp.conj(a) if _is_complex(a) else jnp.positive(a), x)


# -- exponentials and logarithms ------------------------------------------------------------------
def _exp(a: Any) -> Any:
    if not _is_complex(a):
        return jnp.exp(a)
    re, im = jnp.real(a), jnp.imag(a)
    r = jnp.exp(a)
    nan = jnp.full_like(re, jnp.nan)
    zero_im = im == 0
    # exp(x + 0j) is exactly real (keeps +0 imaginary, exp(+inf+0j) = inf+0j)
    r = jnp.where(zero_im & ~jnp.isnan(re), _cplx(jnp.exp(re), im), r)
    bad_im = ~jnp.isfinite(im)
    # +inf + (inf|nan)j -> +-inf + nan j ; -inf + (inf|nan)j -> +-0 +- 0j
    r = jnp.where((re == jnp.inf) & bad_im, _cplx(jnp.full_like(re, jnp.inf), nan), r)
    r = jnp.where((re == -jnp.inf) & bad_im, _cplx(jnp.zeros_like(re), jnp.zeros_like(re)), r)
    r = jnp.where(jnp.isfinite(re) & bad_im, _cplx(nan, nan), r)
    r = jnp.where(jnp.isnan(re) & ~zero_im, _cplx(nan, nan), r)
    r = jnp.where(jnp.isnan(re) & zero_im, _cplx(nan, im), r)
    # -inf + yj with y finite -> +0 * cis(y)
    r = jnp.where((re == -jnp.inf) & jnp.isfinite(im),
                  _cplx(0.0 * jnp.cos(im), 0.0 * jnp.sin(im)), r)
    # +inf + yj with y finite nonzero -> inf * cis(y)
    r = jnp.where((re == jnp.inf) & jnp.isfinite(im) & ~zero_im,
                  _cplx(jnp.inf * jnp.cos(im), jnp.inf * jnp.sin(im)), r)
    return r


def exp(x: Tensor, /) -> Tensor:
    """Element-wise ``e ** x``.

    >>> import jaxtensor as jt
    >>> jt.exp(jt.asarray([0.0, 1.0]))
    Tensor(shape=[2], dtype=float32, device=cpu,
           [1.       , 2.7182817])
    """
    return _unary_float("exp", _exp, x)


def _expm1(a: Any) -> Any:
    if not _is_complex(a):
        return jnp.expm1(a)
    re, im = jnp.real(a), jnp.imag(a)
    e = _exp(a)
    r = jnp.expm1(a)
    # away from the origin exp(x) - 1 is accurate; use it for non-finite parts
    nonfinite = ~jnp.isfinite(re) | ~jnp.isfinite(im)
    r = jnp.where(nonfinite, _cplx(jnp.real(e) - 1, jnp.imag(e)), r)
    # expm1(+-0 + 0j) is +0 + 0j (the imaginary zero keeps its sign)
    r = jnp.where((re == 0) & (im == 0), _cplx(jnp.zeros_like(re), im), r)
    r = jnp.where((re == jnp.inf) & (im == 0), _cplx(re, im), r)
    return r


def expm1(x: Tensor, /) -> Tensor:
    """Element-wise ``exp(x) - 1``, accurate near zero.

    >>> import jaxtensor as jt
    >>> jt.expm1(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float32, device=cpu,
           [0.])
    """
    return _unary_float("expm1", _expm1, x)


def _log(a: Any) -> Any:
    if not _is_complex(a):
        return jnp.log(a)
    re, im = jnp.real(a), jnp.imag(a)
    return _cplx(jnp.log(_abs(a)), jnp.arctan2(im, re))


def log(x: Tensor, /) -> Tensor:
    """Element-wise natural logarithm.

    >>> import jaxtensor as jt
    >>> jt.log(jt.asarray([1.0]))
    Tensor(shape=[1], dtype=float32, device=cpu,
           [0.])
    """
    return _unary_float("log", _log, x)


def log1p(x: Tensor, /) -> Tensor:
    """Element-wise ``log(1 + x)``, accurate near zero.

    >>> import jaxtensor as jt
    >>> jt.log1p(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float32, device=cpu,
           [0.])
    """
    def f(a: Any) -> Any:
        if not _is_complex(a):
            return jnp.log1p(a)
        re, im = jnp.real(a), jnp.imag(a)
        r = jnp.log1p(a)
        big = ~jnp.isfinite(re) | ~jnp.isfinite(im)
        return jnp.where(big, _log(_cplx(re + 1, im)), r)

    return _unary_float("log1p", f, x)


def log2(x: Tensor, /) -> Tensor:
    """Element-wise base-2 logarithm.

    >>> import jaxtensor as jt
    >>> jt.log2(jt.asarray([8.0]))
    Tensor(shape=[1], dtype=float32, device=cpu,
           [3.])
    """
    def f(a: Any) -> Any:
        if not _is_complex(a):
            return jnp.log2(a)
        return _log(a) / np.log(2).astype(a.real.dtype)

    return _unary_float("log2", f, x)


def log10(x: Tensor, /) -> Tensor:
    """Element-wise base-10 logarithm.

    >>> import jaxtensor as jt
    >>> jt.log10(jt.asarray([100.0]))
    Tensor(shape=[1], dtype=float32, device=cpu,
           [2.])
    """
    def f(a: Any) -> Any:
        if not _is_complex(a):
            return jnp.log10(a)
        return _log(a) / np.log(10).astype(a.real.dtype)

    return _unary_float("log10", f, x)


def logaddexp(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise ``log(exp(x1) + exp(x2))`` without overflow.

    >>> import jaxtensor as jt
    >>> jt.logaddexp(jt.asarray([0.0]), 0.0)
    Tensor(shape=[1], dtype=float32, device=cpu,
           [0.6931472])
    """
    def f(p: Any, q: Any) -> Any:
        r = jnp.logaddexp(p, q)
        nan = jnp.isnan(p) | jnp.isnan(q)
        inf = (p == jnp.inf) | (q == jnp.inf)
        return jnp.where(nan, jnp.nan, jnp.where(inf, jnp.inf, r))

    return binary("logaddexp", f, x1, x2, floating=True)


def _sqrt(a: Any) -> Any:
    if not _is_complex(a):
        return jnp.sqrt(a)
    re, im = jnp.real(a), jnp.imag(a)
    r = jnp.sqrt(a)
    inf = jnp.full_like(re, jnp.inf)
    nan = jnp.full_like(re, jnp.nan)
    r = jnp.where((re == 0) & (im == 0), _cplx(jnp.zeros_like(re), im), r)
    r = jnp.where((re == -jnp.inf) & jnp.isfinite(im) ,
                  _cplx(jnp.zeros_like(re), jnp.copysign(inf, im)), r)
    r = jnp.where((re == jnp.inf) & jnp.isfinite(im), _cplx(inf, jnp.copysign(jnp.zeros_like(re), im)), r)
    r = jnp.where((re == -jnp.inf) & jnp.isnan(im), _cplx(nan, inf), r)
    r = jnp.where((re == jnp.inf) & jnp.isnan(im), _cplx(inf, nan), r)
    r = jnp.where(jnp.isnan(re) & ~jnp.isinf(im), _cplx(nan, nan), r)
    r = jnp.where(jnp.isfinite(re) & jnp.isnan(im), _cplx(nan, nan), r)
    r = jnp.where(jnp.isinf(im), _cplx(inf, im), r)
    return r


def sqrt(x: Tensor, /) -> Tensor:
    """Element-wise square root (principal branch for complex input).

    >>> import jaxtensor as jt
    >>> jt.sqrt(jt.asarray([4.0, 9.0]))
    Tensor(shape=[2], dtype=float32, device=cpu,
           [2., 3.])
    """
    return _unary_float("sqrt", _sqrt, x)


# -- trigonometric and hyperbolic ------------------------------------------------------------------
def _make_unary_float(name: str, fn: Callable, doc: str) -> Callable:
    def f(x: Tensor, /) -> Tensor:
        return _unary_float(name, fn, x)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


def _sinh(a: Any) -> Any:
    if not _is_complex(a):
        return jnp.sinh(a)
    re, im = jnp.real(a), jnp.imag(a)
    # sinh(a + bi) = sinh(a)cos(b) + i cosh(a)sin(b), with the C99 special values
    s = _cplx(jnp.sinh(re) * jnp.cos(im), jnp.cosh(re) * jnp.sin(im))
    s = jnp.where(im == 0, _cplx(jnp.sinh(re), im), s)
    s = jnp.where(re == 0, _cplx(re, jnp.sin(im)), s)
    nan = jnp.full_like(re, jnp.nan)
    # re = +-0, im infinite or NaN -> +-0 + NaN j (sign unspecified)
    s = jnp.where((re == 0) & ~jnp.isfinite(im), _cplx(re, nan), s)
    # re infinite, im = 0 -> re + 0j ; re infinite, im infinite/NaN -> +-inf + NaN j
    s = jnp.where(jnp.isinf(re) & ~jnp.isfinite(im), _cplx(re, nan), s)
    s = jnp.where(jnp.isinf(re) & (im == 0), _cplx(re, im), s)
    # re infinite, im finite nonzero -> inf * cis(im)
    s = jnp.where(jnp.isinf(re) & jnp.isfinite(im) & (im != 0),
                  _cplx(re * jnp.cos(im), jnp.inf * jnp.sin(im)), s)
    # NaN re
    s = jnp.where(jnp.isnan(re) & (im != 0), _cplx(nan, nan), s)
    s = jnp.where(jnp.isnan(re) & (im == 0), _cplx(nan, im), s)
    # finite nonzero re, im inf/NaN -> NaN + NaN j
    s = jnp.where(jnp.isfinite(re) & (re != 0) & ~jnp.isfinite(im), _cplx(nan, nan), s)
    return s


def _cosh(a: Any) -> Any:
    if not _is_complex(a):
        return jnp.cosh(a)
    re, im = jnp.real(a), jnp.imag(a)
    c = _cplx(jnp.cosh(re) * jnp.cos(im), jnp.sinh(re) * jnp.sin(im))
    c = jnp.where(im == 0, _cplx(jnp.cosh(re), jnp.sinh(re) * im), c)
    c = jnp.where(re == 0, _cplx(jnp.cos(im), re * jnp.sin(im)), c)
    nan = jnp.full_like(re, jnp.nan)
    inf = jnp.full_like(re, jnp.inf)
    zero = jnp.zeros_like(re)
    c = jnp.where((re == 0) & ~jnp.isfinite(im), _cplx(nan, zero), c)
    c = jnp.where(jnp.isinf(re) & (im == 0), _cplx(inf, jnp.copysign(zero, re) * jnp.copysign(jnp.ones_like(re), im)), c)
    c = jnp.where(jnp.isinf(re) & jnp.isfinite(im) & (im != 0),
                  _cplx(inf * jnp.cos(im), re * jnp.sin(im)), c)
    c = jnp.where(jnp.isinf(re) & ~jnp.isfinite(im), _cplx(inf, nan), c)
    c = jnp.where(jnp.isnan(re) & (im == 0), _cplx(nan, im), c)
    c = jnp.where(jnp.isnan(re) & (im != 0), _cplx(nan, nan), c)
    c = jnp.where(jnp.isfinite(re) & (re != 0) & ~jnp.isfinite(im), _cplx(nan, nan), c)
    return c


def _tanh(a: Any) -> Any:
    if not _is_complex(a):
        return jnp.tanh(a)
    re, im = jnp.real(a), jnp.imag(a)
    t = jnp.tanh(a)
    nan = jnp.full_like(re, jnp.nan)
    zero = jnp.zeros_like(re)
    one = jnp.ones_like(re)
    t = jnp.where(im == 0, _cplx(jnp.tanh(re), im), t)
    t = jnp.where((re == 0) & ~jnp.isfinite(im), _cplx(re, nan), t)
    t = jnp.where(jnp.isfinite(re) & (re != 0) & ~jnp.isfinite(im), _cplx(nan, nan), t)
    t = jnp.where(jnp.isinf(re) & jnp.isfinite(im),
                  _cplx(jnp.copysign(one, re), jnp.copysign(zero, im)), t)
    t = jnp.where(jnp.isinf(re) & ~jnp.isfinite(im), _cplx(jnp.copysign(one, re), zero), t)
    t = jnp.where(jnp.isnan(re) & (im == 0), _cplx(nan, im), t)
    t = jnp.where(jnp.isnan(re) & (im != 0), _cplx(nan, nan), t)
    return t


def _mul_i(a: Any) -> Any:
    return _cplx(-jnp.imag(a), jnp.real(a))


def _mul_neg_i(a: Any) -> Any:
    return _cplx(jnp.imag(a), -jnp.real(a))


def _sin(a: Any) -> Any:
    if not _is_complex(a):
        return jnp.sin(a)
    return _mul_neg_i(_sinh(_mul_i(a)))  # sin(z) = -i sinh(iz)


def _cos(a: Any) -> Any:
    if not _is_complex(a):
        return jnp.cos(a)
    return _cosh(_mul_i(a))  # cos(z) = cosh(iz)


def _tan(a: Any) -> Any:
    if not _is_complex(a):
        return jnp.tan(a)
    return _mul_neg_i(_tanh(_mul_i(a)))  # tan(z) = -i tanh(iz)


def _asinh(a: Any) -> Any:
    if not _is_complex(a):
        return jnp.arcsinh(a)
    re, im = jnp.real(a), jnp.imag(a)
    r = jnp.arcsinh(a)
    nan = jnp.full_like(re, jnp.nan)
    inf = jnp.full_like(re, jnp.inf)
    zero = jnp.zeros_like(re)
    r = jnp.where((re == 0) & (im == 0), a, r)
    r = jnp.where(jnp.isfinite(re) & jnp.isinf(im),
                  _cplx(jnp.copysign(inf, re), jnp.copysign(np.pi / 2 * _ones(re), im)), r)
    r = jnp.where(jnp.isinf(re) & jnp.isfinite(im), _cplx(re, jnp.copysign(zero, im)), r)
    r = jnp.where(jnp.isinf(re) & jnp.isinf(im),
                  _cplx(re, jnp.copysign(np.pi / 4 * _ones(re), im)), r)
    r = jnp.where(jnp.isinf(re) & jnp.isnan(im), _cplx(re, nan), r)
    r = jnp.where(jnp.isnan(re) & (im == 0), _cplx(nan, im), r)
    r = jnp.where(jnp.isnan(re) & jnp.isinf(im), _cplx(inf, nan), r)
    r = jnp.where(jnp.isnan(re) & jnp.isfinite(im) & (im != 0), _cplx(nan, nan), r)
    r = jnp.where(jnp.isnan(im) & jnp.isfinite(re), _cplx(nan, nan), r)
    r = jnp.where(jnp.isnan(re) & jnp.isnan(im), _cplx(nan, nan), r)
    return r


def _ones(a: Any) -> Any:
    return jnp.ones_like(a)


def _asin(a: Any) -> Any:
    if not _is_complex(a):
        return jnp.arcsin(a)
    return _mul_neg_i(_asinh(_mul_i(a)))  # asin(z) = -i asinh(iz)


def _acos(a: Any) -> Any:
    if not _is_complex(a):
        return jnp.arccos(a)
    re, im = jnp.real(a), jnp.imag(a)
    r = jnp.arccos(a)
    nan = jnp.full_like(re, jnp.nan)
    inf = jnp.full_like(re, jnp.inf)
    pi2 = np.pi / 2 * _ones(re)
    r = jnp.where((re == 0) & ((im == 0) | jnp.isnan(im)), _cplx(pi2, -im), r)
    r = jnp.where(jnp.isfinite(re) & jnp.isinf(im), _cplx(pi2, -im), r)
    r = jnp.where((re == -jnp.inf) & jnp.isfinite(im), _cplx(np.pi * _ones(re), -jnp.copysign(inf, im)), r)
    r = jnp.where((re == jnp.inf) & jnp.isfinite(im), _cplx(jnp.zeros_like(re), -jnp.copysign(inf, im)), r)
    r = jnp.where((re == -jnp.inf) & jnp.isinf(im), _cplx(3 * np.pi / 4 * _ones(re), -im), r)
    r = jnp.where((re == jnp.inf) & jnp.isinf(im), _cplx(np.pi / 4 * _ones(re), -im), r)
    r = jnp.where(jnp.isinf(re) & jnp.isnan(im), _cplx(nan, inf), r)
    r = jnp.where(jnp.isnan(re) & jnp.isfinite(im), _cplx(nan, nan), r)
    r = jnp.where(jnp.isnan(re) & jnp.isinf(im), _cplx(nan, -im), r)
    r = jnp.where(jnp.isnan(re) & jnp.isnan(im), _cplx(nan, nan), r)
    r = jnp.where(jnp.isfinite(re) & (re != 0) & jnp.isnan(im), _cplx(nan, nan), r)
    return r


def _acosh(a: Any) -> Any:
    if not _is_complex(a):
        return jnp.arccosh(a)
    re, im = jnp.real(a), jnp.imag(a)
    nan = jnp.full_like(re, jnp.nan)
    inf = jnp.full_like(re, jnp.inf)
    # acosh(z) = +-i acos(z): the branch with non-negative real part
    ac = _acos(a)
    r = _cplx(-jnp.imag(ac), jnp.real(ac))
    r = jnp.where(jnp.signbit(jnp.real(r)) & ~jnp.isnan(jnp.real(r)), -r, r)
    r = jnp.where(jnp.signbit(im) & (jnp.imag(r) > 0), jnp.conj(r), r)
    r = jnp.where(~jnp.signbit(im) & (jnp.imag(r) < 0), jnp.conj(r), r)
    pi2 = np.pi / 2 * _ones(re)
    r = jnp.where((re == 0) & (im == 0), _cplx(jnp.zeros_like(re), jnp.copysign(pi2, im)), r)
    r = jnp.where((re == 0) & jnp.isnan(im), _cplx(nan, pi2), r)
    r = jnp.where(jnp.isfinite(re) & jnp.isinf(im), _cplx(inf, jnp.copysign(pi2, im)), r)
    r = jnp.where((re == -jnp.inf) & jnp.isfinite(im),
                  _cplx(inf, jnp.copysign(np.pi * _ones(re), im)), r)
    r = jnp.where((re == jnp.inf) & jnp.isfinite(im), _cplx(inf, jnp.copysign(jnp.zeros_like(re), im)), r)
    r = jnp.where((re == -jnp.inf) & jnp.isinf(im),
                  _cplx(inf, jnp.copysign(3 * np.pi / 4 * _ones(re), im)), r)
    r = jnp.where((re == jnp.inf) & jnp.isinf(im), _cplx(inf, jnp.copysign(np.pi / 4 * _ones(re), im)), r)
    r = jnp.where(jnp.isinf(re) & jnp.isnan(im), _cplx(inf, nan), r)
    r = jnp.where(jnp.isnan(re) & jnp.isfinite(im), _cplx(nan, nan), r)
    r = jnp.where(jnp.isnan(re) & jnp.isinf(im), _cplx(inf, nan), r)
    r = jnp.where(jnp.isnan(re) & jnp.isnan(im), _cplx(nan, nan), r)
    r = jnp.where(jnp.isfinite(re) & (re != 0) & jnp.isnan(im), _cplx(nan, nan), r)
    return r


def _atanh(a: Any) -> Any:
    if not _is_complex(a):
        return jnp.arctanh(a)
    re, im = jnp.real(a), jnp.imag(a)
    r = jnp.arctanh(a)
    nan = jnp.full_like(re, jnp.nan)
    inf = jnp.full_like(re, jnp.inf)
    zero = jnp.zeros_like(re)
    pi2 = np.pi / 2 * _ones(re)
    r = jnp.where((re == 0) & (im == 0), a, r)
    r = jnp.where((re == 0) & jnp.isnan(im), _cplx(re, nan), r)
    r = jnp.where((re == 1) & (im == 0), _cplx(inf, im), r)
    r = jnp.where(jnp.isfinite(re) & jnp.isinf(im), _cplx(jnp.copysign(zero, re), jnp.copysign(pi2, im)), r)
    r = jnp.where(jnp.isfinite(re) & (re != 0) & jnp.isnan(im), _cplx(nan, nan), r)
    r = jnp.where(jnp.isinf(re) & jnp.isfinite(im), _cplx(jnp.copysign(zero, re), jnp.copysign(pi2, im)), r)
    r = jnp.where(jnp.isinf(re) & jnp.isinf(im), _cplx(jnp.copysign(zero, re), jnp.copysign(pi2, im)), r)
    r = jnp.where(jnp.isinf(re) & jnp.isnan(im), _cplx(jnp.copysign(zero, re), nan), r)
    r = jnp.where(jnp.isnan(re) & jnp.isfinite(im), _cplx(nan, nan), r)
    r = jnp.where(jnp.isnan(re) & jnp.isinf(im), _cplx(zero, jnp.copysign(pi2, im)), r)
    r = jnp.where(jnp.isnan(re) & jnp.isnan(im), _cplx(nan, nan), r)
    return r


def _atan(a: Any) -> Any:
    if not _is_complex(a):
        return jnp.arctan(a)
    return _mul_neg_i(_atanh(_mul_i(a)))  # atan(z) = -i atanh(iz)


sin = _make_unary_float("sin", _sin, """Element-wise sine (radians).

    >>> import jaxtensor as jt
    >>> jt.sin(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float32, device=cpu,
           [0.])
    """)
cos = _make_unary_float("cos", _cos, """Element-wise cosine (radians).

    >>> import jaxtensor as jt
    >>> jt.cos(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float32, device=cpu,
           [1.])
    """)
tan = _make_unary_float("tan", _tan, """Element-wise tangent (radians).

    >>> import jaxtensor as jt
    >>> jt.tan(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float32, device=cpu,
           [0.])
    """)
asin = _make_unary_float("asin", _asin, """Element-wise inverse sine.

    >>> import jaxtensor as jt
    >>> jt.asin(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float32, device=cpu,
           [0.])
    """)
acos = _make_unary_float("acos", _acos, """Element-wise inverse cosine.

    >>> import jaxtensor as jt
    >>> jt.acos(jt.asarray([1.0]))
    Tensor(shape=[1], dtype=float32, device=cpu,
           [0.])
    """)
atan = _make_unary_float("atan", _atan, """Element-wise inverse tangent.

    >>> import jaxtensor as jt
    >>> jt.atan(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float32, device=cpu,
           [0.])
    """)
sinh = _make_unary_float("sinh", _sinh, """Element-wise hyperbolic sine.

    >>> import jaxtensor as jt
    >>> jt.sinh(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float32, device=cpu,
           [0.])
    """)
cosh = _make_unary_float("cosh", _cosh, """Element-wise hyperbolic cosine.

    >>> import jaxtensor as jt
    >>> jt.cosh(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float32, device=cpu,
           [1.])
    """)
tanh = _make_unary_float("tanh", _tanh, """Element-wise hyperbolic tangent.

    >>> import jaxtensor as jt
    >>> jt.tanh(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float32, device=cpu,
           [0.])
    """)
asinh = _make_unary_float("asinh", _asinh, """Element-wise inverse hyperbolic sine.

    >>> import jaxtensor as jt
    >>> jt.asinh(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float32, device=cpu,
           [0.])
    """)
acosh = _make_unary_float("acosh", _acosh, """Element-wise inverse hyperbolic cosine.

    >>> import jaxtensor as jt
    >>> jt.acosh(jt.asarray([1.0]))
    Tensor(shape=[1], dtype=float32, device=cpu,
           [0.])
    """)
atanh = _make_unary_float("atanh", _atanh, """Element-wise inverse hyperbolic tangent.

    >>> import jaxtensor as jt
    >>> jt.atanh(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float32, device=cpu,
           [0.])
    """)


def atan2(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise quadrant-aware inverse tangent of ``x1 / x2``.

    >>> import jaxtensor as jt
    >>> jt.atan2(jt.asarray([1.0]), 1.0)
    Tensor(shape=[1], dtype=float32, device=cpu,
           [0.7853982])
    """
    return binary("atan2", jnp.arctan2, x1, x2, floating=True)


def hypot(x1: Any, x2: Any, /) -> Tensor:
    """Element-wise ``sqrt(x1**2 + x2**2)`` without overflow.

    >>> import jaxtensor as jt
    >>> jt.hypot(jt.asarray([3.0]), 4.0)
    Tensor(shape=[1], dtype=float32, device=cpu,
           [5.])
    """
    def f(p: Any, q: Any) -> Any:
        r = jnp.hypot(p, q)
        return jnp.where(jnp.isinf(p) | jnp.isinf(q), jnp.inf, r)

    return binary("hypot", f, x1, x2, floating=True)


def matmul(x1: Tensor, x2: Tensor, /) -> Tensor:
    """Matrix product (kept here for the ``@`` operator; the public one is in linear algebra)."""
    return binary("matmul", jnp.matmul, x1, x2)
