"""Element-wise functions of the Array API standard, generated from one table.

Each row of :data:`_BINARY` and :data:`_UNARY` is ``(name, kernel, dtype category)``, as
array-api-strict defines its element-wise functions: the kernel is a pure function of ``jax``
arrays (``jax.numpy``'s, or a corrected one from ``_elementwise_kernels`` where the standard
lists special cases that ``jax.numpy`` gets wrong); the category says which operands the
function takes and in which dtype its kernel computes:

- ``"any"``: every dtype; the kernel computes in the operands' promoted dtype;
- ``"floating-point"``: integer and boolean operands compute in the default floating dtype;
- ``"integer or boolean"`` / ``"integer"``: other Tensors raise ``TypeError``;
- ``"boolean"``: operands are tested for non-zero; the kernel takes booleans.

A function promotes its operands with the standard's table, Python scalars weak
(``_promotion``), and runs its kernel compiled once per dtype (faster than eager
``jax.numpy`` dispatch for small arrays); a function of two operands records the kernel for
the Python operators' fast path (``_fast_operators``). The docstrings are in
``_elementwise_docs`` beside this module. ``clip``, ``real`` and ``imag`` are written out
below the table.
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from . import _complex_special as cs
from . import _elementwise_kernels as k
from ._args import tensor, value, weak_scalar
from ._core import Tensor, WeakTensor, _cache, _dtypes, _kernels, _view, new_tensor, weak_number
from ._elementwise_docs import DOCS
from ._fast_operators import broadcast_failure, remember, typed_scalar
from ._promotion import SCALARS, float_of, operands

__all__ = ["clip", "imag", "real"]  # and every name of the tables, below

rc = k.real_or_complex

ANY = "any"
FLOATING = "floating-point"
INTEGER = "integer"
INTEGER_OR_BOOLEAN = "integer or boolean"
BOOLEAN = "boolean"

#: The functions of two operands: (name, kernel, dtype category).
_BINARY: tuple[tuple[str, Callable, str], ...] = (
    ("add", jnp.add, ANY),
    ("atan2", jnp.arctan2, FLOATING),
    ("bitwise_and", jnp.bitwise_and, INTEGER_OR_BOOLEAN),
    ("bitwise_left_shift", k.left_shift, INTEGER),
    ("bitwise_or", jnp.bitwise_or, INTEGER_OR_BOOLEAN),
    ("bitwise_right_shift", k.right_shift, INTEGER),
    ("bitwise_xor", jnp.bitwise_xor, INTEGER_OR_BOOLEAN),
    ("copysign", jnp.copysign, FLOATING),
    ("divide", k.divide, FLOATING),
    ("equal", jnp.equal, ANY),
    ("floor_divide", k.floor_divide, ANY),
    ("greater", jnp.greater, ANY),
    ("greater_equal", jnp.greater_equal, ANY),
    ("hypot", k.hypot, FLOATING),
    ("less", jnp.less, ANY),
    ("less_equal", jnp.less_equal, ANY),
    ("logaddexp", k.logaddexp, FLOATING),
    ("logical_and", jnp.logical_and, BOOLEAN),
    ("logical_or", jnp.logical_or, BOOLEAN),
    ("logical_xor", jnp.logical_xor, BOOLEAN),
    ("maximum", jnp.maximum, ANY),
    ("minimum", jnp.minimum, ANY),
    ("multiply", k.multiply, ANY),
    ("nextafter", k.nextafter, FLOATING),
    ("not_equal", jnp.not_equal, ANY),
    ("pow", k.pow, ANY),
    ("remainder", k.remainder, ANY),
    ("subtract", jnp.subtract, ANY),
)

#: The functions of one operand: (name, kernel, dtype category).
_UNARY: tuple[tuple[str, Callable, str], ...] = (
    ("abs", k.abs, ANY),
    ("acos", rc(jnp.arccos, cs.cacos), FLOATING),
    ("acosh", rc(jnp.arccosh, cs.cacosh), FLOATING),
    ("asin", rc(jnp.arcsin, cs.casin), FLOATING),
    ("asinh", rc(jnp.arcsinh, cs.casinh), FLOATING),
    ("atan", rc(jnp.arctan, cs.catan), FLOATING),
    ("atanh", rc(jnp.arctanh, cs.catanh), FLOATING),
    ("bitwise_invert", jnp.invert, INTEGER_OR_BOOLEAN),
    ("ceil", k.rounding(jnp.ceil), ANY),
    ("conj", rc(jnp.positive, jnp.conj), ANY),
    ("cos", rc(jnp.cos, cs.ccos), FLOATING),
    ("cosh", rc(jnp.cosh, cs.ccosh), FLOATING),
    ("exp", rc(jnp.exp, cs.cexp), FLOATING),
    ("expm1", rc(jnp.expm1, cs.cexpm1), FLOATING),
    ("floor", k.rounding(jnp.floor), ANY),
    ("isfinite", jnp.isfinite, ANY),
    ("isinf", jnp.isinf, ANY),
    ("isnan", jnp.isnan, ANY),
    ("log", rc(jnp.log, cs.clog), FLOATING),
    ("log1p", rc(jnp.log1p, cs.clog1p), FLOATING),
    ("log2", rc(jnp.log2, cs.clog2), FLOATING),
    ("log10", rc(jnp.log10, cs.clog10), FLOATING),
    ("logical_not", jnp.logical_not, BOOLEAN),
    ("negative", jnp.negative, ANY),
    ("positive", jnp.positive, ANY),
    ("reciprocal", k.reciprocal, FLOATING),
    ("round", k.rounding(rc(jnp.round, cs.cround)), ANY),
    ("sign", k.sign, ANY),
    ("signbit", jnp.signbit, ANY),
    ("sin", rc(jnp.sin, cs.csin), FLOATING),
    ("sinh", rc(jnp.sinh, cs.csinh), FLOATING),
    ("sqrt", rc(jnp.sqrt, cs.csqrt), FLOATING),
    ("square", k.square, ANY),
    ("tan", rc(jnp.tan, cs.ctan), FLOATING),
    ("tanh", rc(jnp.tanh, cs.ctanh), FLOATING),
    ("trunc", k.rounding(jnp.trunc), ANY),
)


#: The dtype kinds (``_dtypes.kind``) a function is not defined for, where the category
#: alone would let them through: NumPy refuses these too (and the standard leaves them out).
_UNDEFINED: dict[str, str] = {
    **{name: "c" for name in (
        "atan2", "ceil", "copysign", "floor", "floor_divide", "hypot", "logaddexp",
        "nextafter", "remainder", "signbit", "trunc")},
    **{name: "b" for name in ("negative", "positive", "sign", "subtract")},
    **{row[0]: "bfc" for row in _BINARY if row[2] == INTEGER},
    **{row[0]: "fc" for row in (*_BINARY, *_UNARY) if row[2] == INTEGER_OR_BOOLEAN},
}
_TAKES = {"c": "real-valued", "b": "numeric (not bool)", "bfc": "integer",
          "fc": "integer or boolean"}
_OPERATOR = {"negative": "unary -", "positive": "unary +", "subtract": "-",
             "floor_divide": "//", "remainder": "%", "bitwise_invert": "~",
             "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^",
             "bitwise_left_shift": "<<", "bitwise_right_shift": ">>"}
_INSTEAD = {"negative": "; for bool use logical_not (~)",
            "subtract": "; for bool use logical_xor (^)"}


def _refuse_undefined(name: str, dt: np.dtype) -> None:
    """``TypeError`` naming the function (and its operator) if it is not defined for ``dt``
    (before the kernel, whose JAX message would name a lax primitive)."""
    kinds = _UNDEFINED.get(name)
    if kinds is not None and _dtypes.kind(dt) in kinds:
        op = _OPERATOR.get(name)
        raise TypeError(
            f"{name}(){f' (the {op} operator)' if op else ''} needs {_TAKES[kinds]} Tensors, "
            f"got {dt}{_INSTEAD.get(name, '')}"
        )


# -- how a function runs ------------------------------------------------------------------
def _cast(a: Any, dt: np.dtype) -> Any:
    if a.dtype == dt:
        return a
    return k.bool_as_number(a, dt) if a.dtype == np.bool_ else a.astype(dt)


def _float_kernel(name: str, fn: Callable, dt: np.dtype) -> Callable:
    """``fn`` of a float-only function computing in ``dt``; a half dtype computes in float32
    and rounds once at the end, as PyTorch does (JAX would round some steps in half
    precision: its ``log2`` of ``bfloat16`` is 2 units in the last place off)."""
    if dt in _dtypes.half_dtypes and name != "nextafter":
        return lambda *xs: fn(*(x.astype(np.float32) for x in xs)).astype(dt)
    return lambda *xs: fn(*(_cast(x, dt) for x in xs))


#: (name, dtype computed in) -> the compiled kernel (the name fixes the kernel: one row each).
_binary_kernels = _cache.cache("element-wise kernels", 4096)


#: functions whose bool operands compute in int8, as NumPy's (the standard leaves bool out)
_BOOL_AS_INT8 = frozenset({"pow", "floor_divide", "remainder"})


def binary(name: str, fn: Callable[[Any, Any], Any], x1: Any, x2: Any, *,
           floating: builtins.bool = False) -> Tensor:
    """Apply a same-dtype binary ``fn`` after Array API promotion.

    With ``floating=True`` integer and boolean operands are computed in the default
    floating dtype (``divide``, ``atan2``, ...).
    """
    if x1.__class__ is WeakTensor or x2.__class__ is WeakTensor:  # (passed to jaxtensor.jit)
        x1, x2 = weak_number(x1), weak_number(x2)
    try:
        a, b, dt = operands(x1, x2, name in _ORDER, floating)
    except OverflowError:
        if name not in _ORDER:
            raise
        return _compare_out_of_range(name, x1, x2)
    except TypeError as exc:  # no promotion: say which function met it
        out = _compare_uint64(name, x1, x2) if name in _ORDER else None
        if out is not None:
            return out
        raise TypeError(f"{name}(): {exc}") from None
    if floating:
        dt = float_of(dt)
    elif dt == np.bool_ and name in _BOOL_AS_INT8:
        dt = np.dtype(np.int8)  # (NumPy's: True ** False is 1, True // True is 1)
    _refuse_undefined(name, dt)
    kernel = _binary_kernels.get((name, dt))
    if kernel is None:
        kernel = _binary_kernels[name, dt] = jax.jit(
            _float_kernel(name, fn, dt) if floating else
            lambda p, q: fn(_cast(p, dt), _cast(q, dt)))
    sdt = scalar_dtype(name, dt, floating)
    # a Python scalar goes to the kernel as a typed array, as the fast path passes it later
    # (a weakly typed scalar would compile a second kernel)
    if b.__class__ in SCALARS:
        b = typed_scalar(b, sdt)
    elif a.__class__ in SCALARS:
        a = typed_scalar(a, sdt)
    try:
        out = new_tensor(kernel(a, b))
    except (ValueError, TypeError):
        err = broadcast_failure(f"{name}()", a, b)
        if err is None:
            raise
        raise err from None
    remember(name, x1, x2, a, b, sdt, kernel)
    return out


def scalar_dtype(name: str, dt: np.dtype, floating: builtins.bool) -> np.dtype:
    """The dtype a Python scalar operand is converted to for the kernel computing in ``dt``:
    ``dt``, except float32 for a float-only function of a half dtype (it computes in
    float32: the scalar is rounded once, to float32, as PyTorch's opmath does)."""
    if floating and dt in _dtypes.half_dtypes and name != "nextafter":
        return np.dtype(np.float32)
    return dt


# a comparison with its operands swapped (``v < x`` is ``x > v``)
_ORDER = {"equal": "equal", "not_equal": "not_equal", "less": "greater",
          "less_equal": "greater_equal", "greater": "less", "greater_equal": "less_equal"}


def _compare_out_of_range(name: str, x1: Any, x2: Any) -> Tensor:
    """A comparison of an integer Tensor with a Python int outside its dtype's range: no
    element can equal it, and every element is on the same side of it (NumPy 2's rule:
    ``uint8_t == -1`` is all False, ``uint8_t > -1`` all True)."""
    if not isinstance(x1, Tensor):
        name, x1, x2 = _ORDER[name], x2, x1
    above = x2 > 0
    value = {"equal": False, "not_equal": True, "less": above, "less_equal": above,
             "greater": not above, "greater_equal": not above}[name]
    return new_tensor(jnp.full_like(x1._value(), value, dtype=bool))


def _compare_uint64(name: str, x1: Any, x2: Any) -> Tensor | None:
    """A comparison of a uint64 Tensor with a traced Python int (no wider dtype holds both):
    in uint64 where the int is not negative; a negative one is below every element, as
    eagerly (``uint64_t > -1`` is all True). None for other operands."""
    if not isinstance(x1, Tensor):
        name, x1, x2 = _ORDER[name], x2, x1
    if not (isinstance(x1, Tensor) and x1.dtype == np.uint64 and type(weak_scalar(x2)) is int):
        return None
    inner = globals()[name](x1, jnp.maximum(x2, 0).astype(np.uint64))  # (the function)
    above = {"equal": False, "not_equal": True, "less": False, "less_equal": False,
             "greater": True, "greater_equal": True}[name]
    return new_tensor(jnp.where(x2 < 0, above, inner._value()))


def _check(name: str, x: Any) -> Any:
    """The value of ``x``: a Tensor's, or anything ``asarray`` takes converted."""
    if isinstance(x, Tensor):
        return x._value()
    return value(x, "x", name)


def unary(name: str, fn: Callable[[Any], Any], x: Tensor) -> Tensor:
    """Apply ``fn`` to ``x``'s value in a cached compiled kernel."""
    v = _check(name, x)
    _refuse_undefined(name, v.dtype)
    return Tensor._wrap(_kernels.call((name,), lambda: fn, v))


def _unary_float(name: str, fn: Callable[[Any], Any], x: Tensor) -> Tensor:
    """A float-only function: integer/boolean input is computed in the default float."""
    v = _check(name, x)
    dt = float_of(v.dtype)
    return Tensor._wrap(_kernels.call((name, dt), lambda: _float_kernel(name, fn, dt), v))


def _logical_operand(name: str, x: Any, arg: str) -> Any:
    if isinstance(x, Tensor):
        return x._value()
    return np.asarray(builtins.bool(x)) if type(x) in SCALARS else value(x, arg, name)


def _logical_binary(name: str, fn: Callable, x1: Any, x2: Any) -> Tensor:
    if x1.__class__ is WeakTensor or x2.__class__ is WeakTensor:  # (passed to jaxtensor.jit)
        x1, x2 = weak_number(x1), weak_number(x2)
    a, b = _logical_operand(name, x1, "x1"), _logical_operand(name, x2, "x2")
    try:
        return Tensor._wrap(_kernels.call((name,), lambda: fn, a, b))
    except (ValueError, TypeError):
        err = broadcast_failure(f"{name}()", a, b)
        if err is None:
            raise
        raise err from None


def _bitwise_check(name: str, x: Any) -> None:
    """A Tensor operand's own dtype (before promotion: ``bool_t << int8_t`` names bool)."""
    if isinstance(x, Tensor):
        _refuse_undefined(name, x.dtype)


# -- the functions, made from the tables --------------------------------------------------
def _binary_function(name: str, kernel: Callable, category: str) -> Callable:
    if category == ANY:
        def function(x1: Any, x2: Any, /) -> Tensor:
            return binary(name, kernel, x1, x2)
    elif category == FLOATING:
        def function(x1: Any, x2: Any, /) -> Tensor:
            return binary(name, kernel, x1, x2, floating=True)
    elif category in (INTEGER, INTEGER_OR_BOOLEAN):
        def function(x1: Any, x2: Any, /) -> Tensor:
            _bitwise_check(name, x1)
            _bitwise_check(name, x2)
            return binary(name, kernel, x1, x2)
    elif category == BOOLEAN:
        on_bool = k.on_bool(kernel)

        def function(x1: Any, x2: Any, /) -> Tensor:
            return _logical_binary(name, on_bool, x1, x2)
    else:
        raise ValueError(f"{name}: unknown dtype category {category!r}")
    return _named(function, name)


def _unary_function(name: str, kernel: Callable, category: str) -> Callable:
    if category in (ANY, INTEGER_OR_BOOLEAN):  # (unary() refuses what _UNDEFINED lists)
        def function(x: Tensor, /) -> Tensor:
            return unary(name, kernel, x)
    elif category == FLOATING:
        def function(x: Tensor, /) -> Tensor:
            return _unary_float(name, kernel, x)
    elif category == BOOLEAN:
        on_bool = k.on_bool(kernel)

        def function(x: Tensor, /) -> Tensor:
            return unary(name, on_bool, x)
    else:
        raise ValueError(f"{name}: unknown dtype category {category!r}")
    return _named(function, name)


def _named(function: Callable, name: str) -> Callable:
    function.__name__ = function.__qualname__ = name
    function.__doc__ = DOCS[name]
    code = function.__code__  # named in tracebacks and profiles too
    names = {"co_name": name, **({"co_qualname": name} if hasattr(code, "co_qualname") else {})}
    function.__code__ = code.replace(**names)
    return function


for _name, _kernel, _category in _BINARY:
    globals()[_name] = _binary_function(_name, _kernel, _category)
for _name, _kernel, _category in _UNARY:
    globals()[_name] = _unary_function(_name, _kernel, _category)
__all__ += [row[0] for row in (*_BINARY, *_UNARY)]
__all__.sort()
del _name, _kernel, _category
_round_to_integer = globals()["round"]


def round(x: Tensor, /, decimals: int = 0) -> Tensor:  # noqa: A001 - the standard's name
    """Round to the nearest integer, half to even (NumPy's ``decimals``: to that many
    decimal places, ``round(x * 10**d) / 10**d``, or to tens, hundreds, ... for a
    negative ``d``, as NumPy computes it).

    >>> import jaxtensor as jt
    >>> jt.round(jt.asarray([0.5, 1.5, 2.675]), decimals=2).tolist()
    [0.5, 1.5, 2.68]
    """
    d = operator.index(decimals)
    if d == 0:
        return _round_to_integer(x)
    x = tensor(x, "x", "round")
    # (beyond float64's range the power is inf, as NumPy's: its result NaN for a float)
    e = -d if d < 0 else d  # (``abs`` here is the namespace's)
    scale = 10.0 ** e if e <= 308 else math.inf
    if x.dtype.kind in "fc":
        if d > 0:
            return _round_to_integer(x * scale) / scale
        return _round_to_integer(x / scale) * scale
    if d > 0 or x.dtype == np.bool_:  # (an integer has no decimals to round)
        return _round_to_integer(x)
    if scale == math.inf:  # (to a unit beyond every integer: 0)
        return x * 0
    return (_round_to_integer(x / scale) * scale).astype(x.dtype)


# -- written out ----------------------------------------------------------------------------
def _scalar_as(s: Any, weak: Any, dt: np.dtype) -> Any:
    """A Python scalar (or, ``weak``, a traced one) as a value of ``dt``."""
    return np.asarray(s, dtype=dt) if weak is None else s.astype(dt)


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
        raise TypeError(f"clip() needs real-valued Tensors, got {dt}")
    args = []
    kinds = []
    for bound in (min, max):
        if bound is None:
            kinds.append(None)
            continue
        # (a Python number traced by jit counts as the number it stands for)
        if bound.__class__ is WeakTensor:
            bound = bound.number()
        weak = None if type(bound) in SCALARS else weak_scalar(bound)
        sc = bound if weak is None else weak
        if isinstance(bound, Tensor):
            b = bound._value()
            kinds.append("t")
        elif type(sc) in SCALARS:
            if isinstance(sc, complex):
                raise TypeError("clip() bounds must be real")
            if dt.kind in "iu" and isinstance(sc, float):
                b = _scalar_as(bound, weak, _dtypes.default_float)
                kinds.append("f")
            elif dt.kind in "iu":
                # out-of-range integer bounds: clamp them to the dtype's range first
                info = np.iinfo(dt)
                b = (np.asarray(builtins.min(builtins.max(bound, info.min), info.max), dtype=dt)
                     if weak is None else jnp.clip(bound, info.min, info.max).astype(dt))
                kinds.append("s")
            else:
                b = _scalar_as(bound, weak, dt)
                kinds.append("s")
        else:
            b = value(bound, "min" if bound is min else "max", "clip")
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
            for kind, is_max in zip(kinds, (False, True)):
                if kind is None:
                    continue
                b = next(it)
                if dt.kind in "iu" and _dtypes.kind(b.dtype) == "f":
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

    try:
        return Tensor._wrap(_kernels.call(key, build, v, *args))
    except (ValueError, TypeError):
        err = broadcast_failure("clip()", v, *args)
        if err is None:
            raise
        raise err from None


def real(x: Tensor, /) -> Tensor:
    """The real part; a writeable view of a complex Tensor (NumPy's ``x.real``).

    >>> import jaxtensor as jt
    >>> jt.real(jt.asarray([1 + 2j]))
    Tensor(shape=[1], dtype=float64, device=cpu,
           [1.])
    """
    x = tensor(x, "x", "real")
    if x.dtype.kind == "c":
        return x._derive(_view.with_component(x._view, x.shape, "real"))
    return x._derive(_view.compose_axes(x._view, x.shape, list(range(x.ndim))))


def imag(x: Tensor, /) -> Tensor:
    """The imaginary part; a writeable view of a complex Tensor (NumPy's ``x.imag``).

    >>> import jaxtensor as jt
    >>> jt.imag(jt.asarray([1 + 2j]))
    Tensor(shape=[1], dtype=float64, device=cpu,
           [2.])
    """
    x = tensor(x, "x", "imag")
    if x.dtype.kind == "c":
        return x._derive(_view.with_component(x._view, x.shape, "imag"))
    return Tensor._wrap(_kernels.call(("imag",), lambda: jnp.zeros_like, x._value()))

