"""Complex kernels of the element-wise functions, with the special values of C99 Annex G.

``jax.numpy`` computes complex functions by their textbook formulas, which give NaN (or a
wrong sign of zero) where the standard, following C99 Annex G, asks for an infinity, a
signed zero or a NaN with a defined companion part (``exp(-inf + 1j)``, ``sqrt(-0 + 0j)``,
``(inf + 0j) * (1 + 1j)``, ...). Each function here takes complex arrays only (the caller,
``_elementwise_kernels.real_or_complex``, picks it while tracing) and corrects those cases
with ``jnp.where``; elsewhere it keeps ``jax.numpy``'s result. Names are C99's
(``cexp``, ``csqrt``, ...). The trigonometric functions follow from the hyperbolic ones
(``sin(z) = -i sinh(iz)``), as C99 defines them.

Each function's derivative is that of its ``jax.numpy`` formula (:func:`differentiated_as`):
the ``jnp.where`` corrections select special values, and a reverse-mode gradient through a
``where`` sends a zero cotangent into the branch not taken, where ``0 * inf`` is NaN.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.custom_derivatives import SymbolicZero


def _cplx(re: Any, im: Any) -> Any:
    return lax.complex(re, im)


def _ones(a: Any) -> Any:
    return jnp.ones_like(a)


def _mul_i(a: Any) -> Any:
    return _cplx(-jnp.imag(a), jnp.real(a))


def _mul_neg_i(a: Any) -> Any:
    return _cplx(jnp.imag(a), -jnp.real(a))


def differentiated_as(plain: Callable) -> Callable[[Callable], Callable]:
    """The decorated function, with the derivative of ``plain`` (its ``jax.numpy``
    formula): forward and reverse mode then agree with ``jax.grad`` of ``plain``, and the
    special-value branches (infinities recovered from NaN, ...) never reach a gradient."""
    def wrap(special: Callable) -> Callable:
        f = jax.custom_jvp(special)

        def _jvp(primals: tuple, tangents: tuple) -> tuple[Any, Any]:
            # (only the operands differentiated: a constant exponent's term of ``x ** c``,
            # ``log(x) * x ** c * 0``, is NaN where ``x < 0``)
            live = [not isinstance(t, SymbolicZero) for t in tangents]
            out = special(*primals)
            if not any(live):
                return out, jnp.zeros_like(out)

            def of_live(*xs: Any) -> Any:
                it = iter(xs)
                return plain(*(next(it) if k else p for p, k in zip(primals, live)))

            _, tangent = jax.jvp(of_live, [p for p, k in zip(primals, live) if k],
                                 [t for t, k in zip(tangents, live) if k])
            return out, tangent

        f.defjvp(_jvp, symbolic_zeros=True)
        return functools.wraps(special)(f)

    return wrap


# -- symmetries ---------------------------------------------------------------------------
# XLA's complex sqrt, arccos, arcsinh, ... read a zero of either sign as +0, so on a branch
# cut they give the value of one side for both signed zeros (sqrt(-1 - 0j) = 1j). C99 (and
# the standard) ask for f(conj(z)) == conj(f(z)), and asinh, atanh (so asin, atan) are odd.
# These wrappers compute f where the signs are non-negative, where XLA's result (and the
# special cases below) are right, and carry the signs of the operand's parts over to the
# result by those symmetries. A NaN part carries no sign.
def _conj_symmetric(f: Callable) -> Callable:
    """``f`` from the closed upper half-plane: ``f(conj(z)) = conj(f(z))``."""
    @functools.wraps(f)
    def g(a: Any) -> Any:
        re, im = jnp.real(a), jnp.imag(a)
        r = f(_cplx(re, jnp.abs(im)))
        return jnp.where(jnp.signbit(im) & ~jnp.isnan(im), jnp.conj(r), r)

    return g


def _odd_conj_symmetric(f: Callable) -> Callable:
    """``f`` from the closed first quadrant: ``f(conj(z)) = conj(f(z))``, ``f(-z) = -f(z)``,
    so each part of ``f(z)`` takes the sign of the same part of ``z``."""
    @functools.wraps(f)
    def g(a: Any) -> Any:
        re, im = jnp.real(a), jnp.imag(a)
        r = f(_cplx(jnp.abs(re), jnp.abs(im)))
        rr, ri = jnp.real(r), jnp.imag(r)
        rr = jnp.where(jnp.signbit(re) & ~jnp.isnan(re), -rr, rr)
        ri = jnp.where(jnp.signbit(im) & ~jnp.isnan(im), -ri, ri)
        return _cplx(rr, ri)

    return g


# -- arithmetic ---------------------------------------------------------------------------
@differentiated_as(jnp.abs)
def cabs(a: Any) -> Any:
    re, im = jnp.real(a), jnp.imag(a)
    return jnp.where(jnp.isinf(re) | jnp.isinf(im), jnp.inf, jnp.hypot(re, im))


@differentiated_as(jnp.multiply)
def cmul(p: Any, q: Any) -> Any:
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


@differentiated_as(jnp.power)
def cpow(p: Any, q: Any) -> Any:
    p, q = jnp.broadcast_arrays(p, q)  # (the parts below are combined element by element)
    r = jnp.power(p, q)
    pr, pi, qr, qi = jnp.real(p), jnp.imag(p), jnp.real(q), jnp.imag(q)
    # a positive real base to a real exponent is real: exp(x2 * log(x1)) keeps its zero
    # imaginary part (10 ** 400.0 is inf + 0j, as NumPy; jnp.power gives inf + nan j)
    real = (pi == 0) & (pr > 0) & (qi == 0)
    r = jnp.where(real, _cplx(jnp.power(pr, qr), jnp.zeros_like(pr)), r)
    # an integer exponent |n| < 100 by repeated multiplication, as NumPy (z ** 2 is z * z,
    # exactly: 1j ** 2 is -1 + 0j, where exp(2 * log(1j)) leaves -8.7e-08j in complex64)
    small = (qi == 0) & (jnp.floor(qr) == qr) & (jnp.abs(qr) < 100)
    n = jnp.where(small, jnp.abs(qr), 0).astype(jnp.int32)
    square = cmul(p, p)
    acc = jnp.where(n == 1, p, jnp.where(n == 2, square, jnp.where(n == 3, cmul(p, square),
                                                                     _ones(p))))
    base = p
    for bit in range(7):  # (n >= 4: bit by bit from 1, as NumPy)
        take = (n >= 4) & (((n >> bit) & 1) == 1)
        acc = jnp.where(take, cmul(acc, base), acc)
        base = cmul(base, base)
    acc = jnp.where(qr < 0, _ones(p) / acc, acc)
    r = jnp.where(small & (n > 0), acc, r)
    # exp(x2 * log(0)) with real(x2) > 0 is 0 whatever imag(x2) is (NumPy's answer;
    # jnp.power gives NaN where imag(x2) != 0)
    r = jnp.where((pr == 0) & (pi == 0) & (qr > 0), jnp.zeros_like(r), r)
    # x ** 0 == 1 for every x (NaN included)
    return jnp.where(q == 0, jnp.ones_like(r), r)


@differentiated_as(jnp.sign)
def csign(a: Any) -> Any:
    re, im = jnp.real(a), jnp.imag(a)
    mag = cabs(a)
    nan = jnp.isnan(re) | jnp.isnan(im)
    zero = (re == 0) & (im == 0)
    r = a / mag.astype(a.dtype)
    r = jnp.where(zero, jnp.zeros_like(a), r)
    return jnp.where(nan, _cplx(jnp.full_like(re, jnp.nan), jnp.full_like(re, jnp.nan)), r)


def cround(a: Any) -> Any:
    return _cplx(jnp.round(jnp.real(a)), jnp.round(jnp.imag(a)))


# -- exponentials and logarithms ----------------------------------------------------------
@differentiated_as(jnp.exp)
def cexp(a: Any) -> Any:
    re, im = jnp.real(a), jnp.imag(a)
    r = jnp.exp(a)
    nan = jnp.full_like(re, jnp.nan)
    zero_im = im == 0
    # exp(x + 0j) is exactly real (keeps +0 imaginary, exp(+inf+0j) = inf+0j)
    r = jnp.where(zero_im & ~jnp.isnan(re), _cplx(jnp.exp(re), im), r)
    bad_im = ~jnp.isfinite(im)
    # +inf + (inf|nan)j -> +-inf + nan j ; -inf + (inf|nan)j -> +-0 +- 0j
    r = jnp.where((re == jnp.inf) & bad_im, _cplx(jnp.full_like(re, jnp.inf), nan), r)
    # (the standard leaves the signs of the zeros unspecified; the imaginary zero takes the
    # sign of b, so that exp(conj(x)) == conj(exp(x)), as NumPy)
    r = jnp.where((re == -jnp.inf) & bad_im,
                  _cplx(jnp.zeros_like(re), jnp.copysign(jnp.zeros_like(re), im)), r)
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


@differentiated_as(jnp.expm1)
def cexpm1(a: Any) -> Any:
    re, im = jnp.real(a), jnp.imag(a)
    e = cexp(a)
    r = jnp.expm1(a)
    # away from the origin exp(x) - 1 is accurate; use it for non-finite parts
    nonfinite = ~jnp.isfinite(re) | ~jnp.isfinite(im)
    r = jnp.where(nonfinite, _cplx(jnp.real(e) - 1, jnp.imag(e)), r)
    # expm1(x + 0j) is expm1(x) + 0j, the imaginary zero keeping its sign (exp(x) * sin(+-0);
    # XLA reads -0 as +0); expm1(+-0 + 0j) is +0 + 0j, as the standard says (NumPy: -0 + 0j
    # for -0 + 0j)
    r = jnp.where((im == 0) & ~jnp.isnan(re), _cplx(jnp.expm1(re), im), r)
    r = jnp.where((re == 0) & (im == 0), _cplx(jnp.zeros_like(re), im), r)
    return r


@differentiated_as(jnp.log)
def clog(a: Any) -> Any:
    re, im = jnp.real(a), jnp.imag(a)
    mag = cabs(a)
    # |a| overflows where a is finite but near the largest float (3e38 + 3e38j in
    # complex64): log|a| = log|a / 2| + log 2 there
    big = jnp.isinf(mag) & jnp.isfinite(re) & jnp.isfinite(im)
    half = jnp.hypot(jnp.where(big, re, 0) * 0.5, jnp.where(big, im, 0) * 0.5)
    logmag = jnp.where(big, jnp.log(half) + np.log(2).astype(re.dtype), jnp.log(mag))
    return _cplx(logmag, jnp.arctan2(im, re))


@differentiated_as(jnp.log1p)
def clog1p(a: Any) -> Any:
    re, im = jnp.real(a), jnp.imag(a)
    r = jnp.log1p(a)
    big = ~jnp.isfinite(re) | ~jnp.isfinite(im)
    return jnp.where(big, clog(_cplx(re + 1, im)), r)


def _clog_base(a: Any, base: float) -> Any:
    # log(a) / log(base), dividing each part by the real constant: a complex division
    # ((inf + yj) / (c + 0j)) would give a NaN imaginary part wherever log|a| is infinite
    r = clog(a)
    c = np.log(base).astype(r.real.dtype)
    return _cplx(jnp.real(r) / c, jnp.imag(r) / c)


@differentiated_as(jnp.log2)
def clog2(a: Any) -> Any:
    return _clog_base(a, 2)


@differentiated_as(jnp.log10)
def clog10(a: Any) -> Any:
    return _clog_base(a, 10)


@differentiated_as(jnp.sqrt)
@_conj_symmetric
def csqrt(a: Any) -> Any:
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


# -- hyperbolic and trigonometric ---------------------------------------------------------
@differentiated_as(jnp.sinh)
def csinh(a: Any) -> Any:
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


@differentiated_as(jnp.cosh)
def ccosh(a: Any) -> Any:
    re, im = jnp.real(a), jnp.imag(a)
    c = _cplx(jnp.cosh(re) * jnp.cos(im), jnp.sinh(re) * jnp.sin(im))
    # cosh(x + 0j): the imaginary part sinh(x) * 0 is a zero whose sign is that of x times
    # that of the zero (sinh(x) itself overflows to inf for large x, and inf * 0 is NaN)
    c = jnp.where(im == 0, _cplx(jnp.cosh(re), jnp.copysign(jnp.zeros_like(re), re) * im), c)
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


@differentiated_as(jnp.tanh)
def ctanh(a: Any) -> Any:
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


@differentiated_as(jnp.arcsinh)
@_odd_conj_symmetric
def casinh(a: Any) -> Any:
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


def _acosh_formula(a: Any) -> Any:
    # jnp.arccosh's derivative, rsqrt((z - 1)(z + 1)), has the wrong sign where Re z < 0
    # (the square root of the product is on another branch than the product of the roots)
    return jnp.log(a + jnp.sqrt(a - 1) * jnp.sqrt(a + 1))


@differentiated_as(_acosh_formula)
@_conj_symmetric
def cacosh(a: Any) -> Any:
    re, im = jnp.real(a), jnp.imag(a)
    nan = jnp.full_like(re, jnp.nan)
    inf = jnp.full_like(re, jnp.inf)
    # acosh(z) = +-i acos(z): the branch with non-negative real part
    ac = cacos(a)
    r = _cplx(-jnp.imag(ac), jnp.real(ac))
    r = jnp.where(jnp.signbit(jnp.real(r)) & ~jnp.isnan(jnp.real(r)), -r, r)
    r = jnp.where(jnp.imag(r) < 0, jnp.conj(r), r)
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


@differentiated_as(jnp.arctanh)
@_odd_conj_symmetric
def catanh(a: Any) -> Any:
    re, im = jnp.real(a), jnp.imag(a)
    r = jnp.arctanh(a)
    # near z = 1 or -1 with a tiny imaginary part XLA's real part overflows to inf (the
    # square of the imaginary part underflows); log|1 + z| - log|1 - z| does not
    fix = jnp.isfinite(re) & jnp.isfinite(im) & ~jnp.isfinite(jnp.real(r)) & (im != 0)
    r = jnp.where(fix, _cplx(0.5 * (jnp.log(jnp.abs(1 + a)) - jnp.log(jnp.abs(1 - a))),
                             jnp.imag(r)), r)
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


@differentiated_as(jnp.sin)
def csin(a: Any) -> Any:
    return _mul_neg_i(csinh(_mul_i(a)))  # sin(z) = -i sinh(iz)


@differentiated_as(jnp.cos)
def ccos(a: Any) -> Any:
    return ccosh(_mul_i(a))  # cos(z) = cosh(iz)


@differentiated_as(jnp.tan)
def ctan(a: Any) -> Any:
    return _mul_neg_i(ctanh(_mul_i(a)))  # tan(z) = -i tanh(iz)


@differentiated_as(jnp.arcsin)
def casin(a: Any) -> Any:
    return _mul_neg_i(casinh(_mul_i(a)))  # asin(z) = -i asinh(iz)


@differentiated_as(jnp.arccos)
@_conj_symmetric
def cacos(a: Any) -> Any:
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


@differentiated_as(jnp.arctan)
def catan(a: Any) -> Any:
    return _mul_neg_i(catanh(_mul_i(a)))  # atan(z) = -i atanh(iz)
