"""What each bounds check of a ``jaxtensor.jit`` trace checks, in the two forms a check mode
(``_modes.py``) may make it in: ``folded()``, the (fails, value, failure) items of the
trace's one ``[code, value]`` output (``_check_errors.check_error`` raises the eager error
from them on the host), and ``checkify()``, a ``checkify.check`` with the eager message.

A check is a NamedTuple made with ``tuple.__new__`` (:data:`index` ...: no Python call), so a
``Trace`` check method only says what it checks and its mode decides how. An index that
provably lies in its axis (``_ranges.py``: a loop index between its bounds) makes no check
in either form.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import checkify

from .._core import IDX as _IDX
from .._core import cache
from .._core._errors import matrix_name
from ._check_errors import (
    Failure,
    FloatFailure,
    IndexFailure,
    MatrixFailure,
    RaisedFailure,
    ValueFailure,
    WindowFailure,
    message,
    value_message,
    window_message,
)
from ._ranges import must_check

_IDX_SIZE = np.dtype(_IDX).itemsize


class Index(NamedTuple):
    """A traced index value (or array of values) against an axis of ``n``."""

    i: Any
    n: int
    axis: int
    fname: str | None  # the function whose message names the axis a dimension

    def folded(self) -> list[tuple[Any, Any, Failure]]:
        i, n = jnp.asarray(self.i), self.n
        if i.size == 0 or not must_check(self.i, -n, n - 1):  # (``_ranges.py``)
            return []
        dt = np.dtype(i.dtype)
        # Unsigned values too large for the index dtype would wrap when converted: compare
        # them in their own dtype, and undo the wrap on the host. For an array, the value
        # named is the one eager code names: the largest if it is too large, else the
        # smallest.
        wrap = dt.kind == "u" and dt.itemsize >= _IDX_SIZE
        if wrap:
            hi = jnp.max(i) if i.ndim else i
            fail = hi >= n
            v = hi.astype(_IDX)
        elif i.ndim:
            v = i.astype(_IDX)
            lo, hi = jnp.min(v), jnp.max(v)
            too_big = hi >= n
            fail = too_big | (lo < -n)
            v = lax.select(too_big, hi, lo)
        else:  # (by ``lax``: ``jax.numpy``'s operators trace a function of their own each)
            v = lax.convert_element_type(i, _IDX)
            fail = lax.bitwise_or(lax.lt(v, _IDX(-n)), lax.ge(v, _IDX(n)))
        return [(fail, v, IndexFailure(self.axis, n, wrap, self.fname))]

    def checkify(self) -> Any:
        i, n, axis, fname = jnp.asarray(self.i), self.n, self.axis, self.fname
        if i.size == 0 or not must_check(self.i, -n, n - 1):
            return jnp.bool_(True)

        def make() -> Any:
            def check(i: Any) -> Any:
                ok = (i >= -n) & (i < n)
                if i.ndim == 0:
                    bad = i
                else:  # the value eager code names: the largest if too large, else the smallest
                    hi = jnp.max(i)
                    bad = jnp.where(hi >= n, hi, jnp.min(i))
                ok = jnp.all(ok)
                checkify.check(ok, message("{}", n, axis, fname), bad)
                return ok
            return check

        return _checker(("index", n, axis, fname), make)(i)


class Window(NamedTuple):
    """A traced ``ds(start, size)`` window inside an axis of ``n``."""

    start: Any
    size: int
    n: int
    axis: int

    def folded(self) -> list[tuple[Any, Any, Failure]]:
        if not must_check(self.start, 0, self.n - self.size):
            return []
        v = jnp.asarray(self.start).astype(_IDX)
        return [((v < 0) | (v > self.n - self.size), v,
                 WindowFailure(self.axis, self.n, self.size))]

    def checkify(self) -> Any:
        size, n, axis = self.size, self.n, self.axis
        if not must_check(self.start, 0, n - size):
            return jnp.bool_(True)

        def make() -> Any:
            def check(i: Any) -> Any:
                ok = (i >= 0) & (i <= n - size)
                checkify.check(ok, window_message("{}", size, n, axis), i)
                return ok
            return check

        return _checker(("window", size, n, axis), make)(jnp.asarray(self.start))


class Value(NamedTuple):
    """A traced single value assigned into an integer Tensor of ``dtype``, checked as eager
    code checks a number: NaN or infinity raise ``ValueError``, an integer out of the
    dtype's range ``OverflowError``."""

    v: Any
    dtype: np.dtype

    def folded(self) -> list[tuple[Any, Any, Failure]]:
        v = jnp.asarray(self.v)
        if jnp.issubdtype(v.dtype, jnp.floating):
            return [_float_check(v, self.dtype)]
        return [(fail, bad, msg) for fail, bad, _, msg in _value_checks(v, self.dtype)]

    def checkify(self) -> Any:
        for fail, _, raw, msg in _value_checks(self.v, self.dtype):
            _checkify_value(fail, raw, msg)


class Matrices(NamedTuple):
    """A stack of matrices (``JitTrace.check_matrices``): ``bad()`` is a traced bool per
    matrix; the first failing one's flat index is the value recorded, and the call raises
    ``LinAlgError``."""

    bad: Callable[[], Any]
    message: str
    arg: str

    def folded(self) -> list[tuple[Any, Any, Failure]]:
        flags = self.bad()
        if not flags.size:
            return []
        return [(jnp.any(flags), jnp.argmax(flags.reshape(-1)).astype(_IDX),
                 MatrixFailure(self.message, self.arg, flags.shape))]

    def checkify(self) -> Any:
        return _checkify_matrices(self.bad(), self.message, self.arg)


class Raised(NamedTuple):
    """What eager code raises where the code being traced runs (``Trace.check_reached``):
    a check that fails wherever that code runs."""

    failure: RaisedFailure

    def folded(self) -> list[tuple[Any, Any, Failure]]:
        return [(lax.full((), True, np.bool_), lax.full((), 0, _IDX), self.failure)]

    def checkify(self) -> Any:
        text = self.failure.checkify_message()
        fn = _RAISED_CHECKS.get(text)
        if fn is None:  # (in a cached function: see _checkify_matrices)
            def check(ok: Any) -> Any:
                checkify.check(ok, text)
                return ok

            fn = _RAISED_CHECKS[text] = jax.jit(check)
        return fn(lax.full((), False, np.bool_))


_RAISED_CHECKS = cache("checkify raised checks", 256)


index = functools.partial(tuple.__new__, Index)
window = functools.partial(tuple.__new__, Window)
value = functools.partial(tuple.__new__, Value)
matrices = functools.partial(tuple.__new__, Matrices)
raised = functools.partial(tuple.__new__, Raised)


def _checker(key: tuple, make: Any) -> Any:
    """The cached ``jax.jit`` function ``make()`` of a checkify check (``key``: what its
    message and bounds depend on). Made inside a cached function, a check's error state
    carries the same metadata at every call, so the compiled functions after it are found
    again under an eager ``jaxtensor.grad`` (a bare check recompiles each of them at every
    call)."""
    fn = _CHECKERS.get(key)
    if fn is None:
        fn = _CHECKERS[key] = jax.jit(make())
    return fn


_CHECKERS = cache("checkify checks", 512)


def _checkify_value(fail: Any, raw: Any, msg: ValueFailure) -> Any:
    def make() -> Any:
        def check(fail: Any, raw: Any) -> Any:
            checkify.check(~fail, value_message(msg), raw)
            return ~fail
        return check

    return _checker(("value", msg), make)(fail, raw)


def _checkify_matrices(flags: Any, message: str, arg: str) -> Any:
    """``checkify.check`` that no matrix of a stack failed; the message names the first
    failing one as eager code does (its index in the stack: the checkify values). Made
    inside a cached ``jax.jit`` function: checkify's error state then carries the same
    metadata at every call, so the compiled functions after it are found again under an
    eager ``jaxtensor.grad`` (a bare check recompiles each of them at every call)."""
    if not flags.size:
        return jnp.bool_(True)
    fn = _MATRIX_CHECKS.get((message, arg))
    if fn is None:
        def check(flags: Any) -> Any:
            ok = ~jnp.any(flags)
            nd = flags.ndim
            index = jnp.unravel_index(jnp.argmax(flags.reshape(-1)), flags.shape) if nd else ()
            checkify.check(ok, message.format(matrix_name(arg, ["{}"] * nd)), *index)
            return ok

        fn = _MATRIX_CHECKS[message, arg] = jax.jit(check)
    return fn(flags)


_MATRIX_CHECKS = cache("checkify matrix checks", 256)


def _float_check(v: Any, dtype: np.dtype) -> tuple[Any, Any, Failure]:
    """The folded check of the float ``v`` assigned into the integer ``dtype``: one
    comparison with each end of the floats whose truncation ``dtype`` holds (NaN fails
    both), reporting the float's bits, from which the host tells NaN and infinity
    (``ValueError``) from a number out of range (``OverflowError``, naming its truncation
    exactly, as eager code does)."""
    fdt = np.dtype(v.dtype)
    low, high = _float_limits(fdt, np.dtype(dtype))
    fail = ~(lax.ge(v, np.asarray(low, fdt)) & lax.le(v, np.asarray(high, fdt)))
    bits = lax.bitcast_convert_type(v, np.dtype(f"int{8 * fdt.itemsize}"))
    return fail, lax.convert_element_type(bits, _IDX), FloatFailure(str(dtype), fdt.name)


@functools.cache
def _float_limits(fdt: np.dtype, dtype: np.dtype) -> tuple[Any, Any]:
    """The least and the greatest float of ``fdt`` whose truncation the integer ``dtype``
    holds (finite ends: floats beyond ``fdt``'s range compare as beyond them)."""
    info = np.iinfo(dtype)
    up, down = fdt.type(np.inf), fdt.type(-np.inf)

    def near(n: int) -> Any:  # (a float of fdt next to n, or an infinity)
        return np.asarray(float(n), fdt)[()]

    with np.errstate(over="ignore"):
        low = near(info.min - 1)  # the least float > min - 1
        while float(low) <= info.min - 1:
            low = np.nextafter(low, up)
        while float(np.nextafter(low, down)) > info.min - 1:
            low = np.nextafter(low, down)
        high = near(info.max + 1)  # the greatest float < max + 1
        while float(high) >= info.max + 1:
            high = np.nextafter(high, down)
        while float(np.nextafter(high, up)) < info.max + 1:
            high = np.nextafter(high, up)
    return low, high


def _value_checks(v: Any, dtype: np.dtype) -> list[tuple[Any, Any, Any, ValueFailure]]:
    """The checks of a single value assigned into the integer ``dtype``, each (fails, value
    to report in the folded output, value for checkify, what a failure reports). A float fails when it
    is not finite (reported as -1, 0 or 1 for -inf, NaN and inf: ``_FLOAT_NAMES``) and, as
    eager code does, when its truncation is out of the dtype's range (one beyond the index
    dtype's range is reported as that range's end)."""
    v = jnp.asarray(v)
    vdt = np.dtype(v.dtype)
    lo, hi = np.iinfo(dtype).min, np.iinfo(dtype).max
    if jnp.issubdtype(vdt, jnp.floating):  # (bfloat16 has kind "V")
        finite = jnp.isfinite(v)
        t = jnp.where(finite, jnp.trunc(v), 0)
        bad = t.astype(_IDX)
        return [(~finite, jnp.where(jnp.isnan(v), 0, jnp.sign(v)).astype(_IDX), v,
                 ValueFailure(str(dtype), "f", False)),
                ((t < float(lo)) | (t >= float(hi) + 1), bad, bad,
                 ValueFailure(str(dtype), "i", False))]
    vlo, vhi = np.iinfo(vdt).min, np.iinfo(vdt).max
    fail = jnp.zeros((), bool)
    if lo > vlo:
        fail = fail | (v < lo)
    if hi < vhi:
        fail = fail | (v > hi)
    unsigned = vdt.kind == "u" and vdt.itemsize >= _IDX_SIZE
    return [(fail, v.astype(_IDX), v, ValueFailure(str(dtype), "i", unsigned))]
