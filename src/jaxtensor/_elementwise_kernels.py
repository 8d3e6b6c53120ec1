"""Kernels of the element-wise functions where ``jax.numpy``'s own differs from the standard.

A kernel is a pure function of ``jax`` arrays, traced once per dtype into a compiled kernel
(``_elementwise``). The ones here correct ``jax.numpy`` for real input where the standard
lists a special case (signed zeros, infinities, NaN) or where ``jax.numpy`` does not take a
dtype (``bool`` for ``//``, ``%`` and ``**``); :func:`real_or_complex` joins a real kernel to
its complex counterpart from ``_complex_special``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
from jax import lax

from . import _complex_special as cs


def is_complex(a: Any) -> bool:
    return jnp.issubdtype(a.dtype, jnp.complexfloating)


def real_or_complex(real: Callable, complex_: Callable) -> Callable:
    """A kernel running ``complex_`` on complex input and ``real`` on any other (the choice
    is made while tracing, from the dtype of the first operand)."""
    def kernel(a: Any, *rest: Any) -> Any:
        return complex_(a, *rest) if is_complex(a) else real(a, *rest)

    return kernel


def on_bool(fn: Callable) -> Callable:
    """``fn`` applied to its operands tested for non-zero (the logical functions)."""
    return lambda *args: fn(*(a.astype(jnp.bool_) for a in args))


def rounding(fn: Callable) -> Callable:
    """``fn`` for floating input; integer and boolean input is returned unchanged."""
    def f(a: Any) -> Any:
        if a.dtype.kind in "iub":
            return a
        return fn(a)

    return f


# -- arithmetic ---------------------------------------------------------------------------
multiply = real_or_complex(jnp.multiply, cs.cmul)
abs = real_or_complex(jnp.abs, cs.cabs)  # noqa: A001 - the standard's name


def bool_as_number(a: Any, dt: Any) -> Any:
    """The bool array ``a`` as 0s and 1s of ``dt``, through int8: XLA rewrites
    ``convert(bool) * x`` as ``select(bool, x, 0)``, so ``mask * x`` gave 0, not NaN, where
    ``x`` is infinite or NaN and the mask False (``0 * inf``), and ``-0.0 * True`` +0."""
    return a.astype(jnp.int8).astype(dt) if jnp.dtype(dt).kind in "fc" else a.astype(dt)


def square(a: Any) -> Any:
    if a.dtype == jnp.bool_:  # (NumPy's: no bool loop, the smallest integer; outside the standard)
        a = a.astype(jnp.int8)
    return multiply(a, a)


def full_divisor(p: Any, q: Any) -> Any:
    """``q`` broadcast to the shape of ``p / q`` behind an optimization barrier.

    XLA rewrites a division by a broadcast divisor (a scalar, a lower-rank operand) into a
    multiplication by its reciprocal: 1 ulp off on about a third of the elements, and 0
    where the reciprocal is subnormal (``x / 1e38``). Its rewrites cannot see through the
    barrier; the broadcast is still fused into the division (no full-size copy).
    """
    shape = jnp.broadcast_shapes(jnp.shape(p), jnp.shape(q))
    return lax.optimization_barrier(jnp.broadcast_to(q, shape))


def divide(p: Any, q: Any) -> Any:
    """``p / q``, correctly rounded."""
    return jnp.true_divide(p, full_divisor(p, q))


def reciprocal(a: Any) -> Any:
    return jnp.ones_like(a) / a


def floor_divide(p: Any, q: Any) -> Any:
    if jnp.issubdtype(p.dtype, jnp.integer):
        # by zero: 0, as NumPy (and as remainder); XLA's quotient there depends on the sign
        return jnp.where(q == 0, jnp.zeros((), p.dtype), jnp.floor_divide(p, q))
    if p.dtype == jnp.bool_:
        return floor_divide(p.astype(jnp.int8), q.astype(jnp.int8)).astype(p.dtype)
    # the standard prefers floor(x1 / x2) where an infinity is involved; elsewhere
    # jnp.floor_divide keeps Python's exact rounding (1 // 0.1 == 9).
    q = full_divisor(p, q)
    p = jnp.broadcast_to(p, q.shape)  # (lax.rem does not broadcast)
    special = jnp.isinf(p) | jnp.isinf(q) | (q == 0) | (p == 0)
    # NumPy's divmod: (p - fmod(p, q)) / q is an integer up to rounding, which floor()
    # then rounds half down (jnp.floor_divide rounds half away from zero)
    mod = lax.rem(p, q)
    div = (p - mod) / q
    div = jnp.where((mod != 0) & ((q < 0) != (mod < 0)), div - 1, div)
    r = jnp.floor(div)
    r = jnp.where(div - r > 0.5, r + 1, r)
    # a zero quotient of finite non-zero operands has their (equal) sign: +0
    r = jnp.where(r == 0, jnp.zeros_like(r), r)
    return jnp.where(special, jnp.floor(p / q), r)


def remainder(p: Any, q: Any) -> Any:
    if p.dtype == jnp.bool_:
        return jnp.remainder(p.astype(jnp.int8), q.astype(jnp.int8)).astype(p.dtype)
    if jnp.issubdtype(p.dtype, jnp.integer):
        return jnp.remainder(p, q)
    return _real_remainder(p, q)


@cs.differentiated_as(jnp.remainder)  # (the signed zeros below are constants: no gradient)
def _real_remainder(p: Any, q: Any) -> Any:
    r = jnp.remainder(p, q)
    # x1 finite and non-zero, x2 infinite: x1 when the signs agree, else x2
    fin_inf = jnp.isfinite(p) & (p != 0) & jnp.isinf(q)
    r = jnp.where(fin_inf, jnp.where(jnp.signbit(p) == jnp.signbit(q), p, q), r)
    # a zero result (x1 a zero and x2 infinite included) takes the sign of x2
    r = jnp.where((r == 0) & ~fin_inf, jnp.copysign(jnp.zeros_like(r), q), r)
    return jnp.where(jnp.isinf(p) | jnp.isnan(p) | jnp.isnan(q) | (q == 0), jnp.nan, r)


def pow(p: Any, q: Any) -> Any:  # noqa: A001 - the standard's name
    if p.dtype == jnp.bool_:
        return jnp.power(p.astype(jnp.int8), q.astype(jnp.int8)).astype(p.dtype)
    if jnp.issubdtype(p.dtype, jnp.integer):
        return _int_pow(p, q)
    if is_complex(p):
        return cs.cpow(p, q)
    return _real_pow(p, q)


@cs.differentiated_as(jnp.power)
def _real_pow(p: Any, q: Any) -> Any:
    """A real ``p ** q`` (its derivative ``jnp.power``'s, whichever branch gives the
    value)."""
    r = jnp.power(p, q)
    # the exponents NumPy computes exactly (x ** 2 is x * x; XLA's pow is off by an ulp in
    # about one case of a thousand): 2, 1, -1, 0.5 (the standard's +0 for -0 ** 0.5 and
    # +inf for -inf ** 0.5, where sqrt gives -0 and NaN)
    half = jnp.where(p == -jnp.inf, jnp.inf, jnp.where(p == 0, jnp.zeros_like(p),
                                                        jnp.sqrt(p)))
    r = jnp.where(q == 2, p * p, jnp.where(q == 1, p, jnp.where(
        q == -1, 1 / p, jnp.where(q == 0.5, half, r))))
    # x ** 0 == 1 for every x (NaN included)
    return jnp.where(q == 0, jnp.ones_like(p), r)


def _int_pow(p: Any, q: Any) -> Any:
    """Integer power by squaring over every bit of the exponent, wrapping as NumPy does
    (``jnp.power`` gives ``x ** (n mod 64)``-like results for large ``n`` in small dtypes).
    A negative exponent gives the integer part of ``1 / x ** -n``: ``x ** (n mod 2)`` for
    ``x`` of 1 or -1, else 0 (``0 ** -n`` too, as integer division by zero gives 0)."""
    q = jnp.broadcast_to(q, jnp.broadcast_shapes(jnp.shape(p), jnp.shape(q)))
    p = jnp.broadcast_to(p, q.shape)
    e = jnp.where(q < 0, jnp.zeros_like(q), q)
    result, base = jnp.ones_like(p), p
    for _ in range(jnp.iinfo(q.dtype).bits):
        result = jnp.where((e & 1) == 1, result * base, result)
        base = base * base
        e = e >> 1
    unit = (p == 1) | (p == -1)
    reciprocal = jnp.where(unit, jnp.where((q & 1) == 1, p, jnp.ones_like(p)), 0)
    return jnp.where(q < 0, reciprocal.astype(p.dtype), result)


def logaddexp(p: Any, q: Any) -> Any:
    r = jnp.logaddexp(p, q)
    nan = jnp.isnan(p) | jnp.isnan(q)
    inf = (p == jnp.inf) | (q == jnp.inf)
    return jnp.where(nan, jnp.nan, jnp.where(inf, jnp.inf, r))


def hypot(p: Any, q: Any) -> Any:
    r = jnp.hypot(p, q)
    return jnp.where(jnp.isinf(p) | jnp.isinf(q), jnp.inf, r)


# -- sign ---------------------------------------------------------------------------------
def _real_sign(a: Any) -> Any:
    if a.dtype.kind == "u":
        return (a > 0).astype(a.dtype)
    if a.dtype.kind == "f" or a.dtype == jnp.bfloat16:
        return jnp.where(a == 0, jnp.zeros_like(a), jnp.sign(a))  # +0 for -0, as NumPy
    return jnp.sign(a)


sign = real_or_complex(_real_sign, cs.csign)


def nextafter(p: Any, q: Any) -> Any:
    r = jnp.nextafter(p, q)
    # equal operands (including +0/-0) give x2
    return jnp.where(p == q, q, r)


# -- bitwise ------------------------------------------------------------------------------
def _shift(left: bool) -> Callable:
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


left_shift = _shift(True)
right_shift = _shift(False)
