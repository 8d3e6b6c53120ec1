"""Statistical functions of the Array API standard: ``cumulative_sum``,
``cumulative_prod``, ``max``, ``mean``, ``min``, ``prod``, ``std``, ``sum``, ``var``.

Result dtypes follow the standard (2023.12 and later): ``sum``/``prod``/``cumulative_*``
keep a floating-point dtype, and widen a narrower integer dtype to the default integer
dtype (``int64``; unsigned to ``uint64``); ``bool`` sums to the default integer dtype.
With ``dtype=`` the input is cast first. ``mean``/``var``/``std`` of integers give the
default floating-point dtype; ``var``/``std`` are NaN where ``N - correction <= 0``.
"""

from __future__ import annotations

import builtins
import functools
import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from . import _args
from . import _elementwise_kernels as _ek
from ._core import Tensor, _cache, _dtypes, _kernels, new_tensor, raised_later

__all__ = [
    "cumulative_prod",
    "cumulative_sum",
    "max",
    "mean",
    "min",
    "prod",
    "std",
    "sum",
    "var",
]


def accumulation_dtype(dt: np.dtype, dtype: Any) -> np.dtype:
    """Result dtype of sum/prod/cumulative_*/trace for input dtype ``dt``."""
    if dtype is not None:
        return _dtypes.as_dtype(dtype)
    if dt.kind == "b":
        return _dtypes.default_int
    if dt.kind == "i":
        return _dtypes.default_int if dt.itemsize < _dtypes.default_int.itemsize else dt
    if dt.kind == "u":
        du = np.dtype(f"uint{_dtypes.default_int.itemsize * 8}")
        return du if dt.itemsize < du.itemsize else dt
    return dt


def _reduce(name: str, fn: Any, x: Tensor, axis: Any, keepdims: bool,
            dt: np.dtype | None = None, where: Any = None, initial: Any = None,
            **static: Any) -> Tensor:
    """``fn(a, axes, keepdims, **static)`` of ``x`` (cast to ``dt``) in a cached kernel; with
    NumPy's ``where`` or ``initial``, ``fn`` also gets them (``w``, ``i``) as data."""
    v = _args.value(x, "x", name)
    axes = _args.normalize_axes(axis, v.ndim, f"{name}(): axis")
    keep = bool(keepdims)
    items = tuple(sorted(static.items()))
    w = None if where is None else _args.where_mask(where, v, name)
    i = None if initial is None else _args.initial_value(initial, v.dtype if dt is None else dt,
                                                         name)
    if w is None and i is None:
        def build() -> Any:
            def f(a: Any) -> Any:
                if dt is not None and a.dtype != dt:
                    a = a.astype(dt)
                return fn(a, axes, keep, **static)

            return f

        return _args.wrap(_kernels.call((name, axes, keep, dt, items), build, v), x)

    def build_masked() -> Any:
        def f(a: Any, w: Any, i: Any) -> Any:
            if dt is not None and a.dtype != dt:
                a = a.astype(dt)
            return fn(a, axes, keep, w=w, i=None if i is None else i.astype(a.dtype),
                      **static)

        return f

    key = (name, "where/initial", axes, keep, dt, items)
    return _args.wrap(_kernels.call(key, build_masked, v, w, i), x)


def _masked(a: Any, w: Any, fill: Any) -> Any:
    """``a`` with ``fill`` where the mask ``w`` is False (``a`` where there is no mask)."""
    return a if w is None else jnp.where(w, a, jnp.asarray(fill, a.dtype))


def _count(w: Any, shape: tuple, axes: tuple, keep: bool) -> Any:
    """How many elements of ``shape`` the mask ``w`` selects over ``axes``."""
    return jnp.sum(jnp.broadcast_to(w, shape), axis=axes, keepdims=keep,
                   dtype=_dtypes.default_int)


def _sum(a: Any, axes: tuple, keep: bool, w: Any = None, i: Any = None) -> Any:
    r = jnp.sum(_masked(a, w, 0), axis=axes, keepdims=keep, dtype=a.dtype)
    return r if i is None else r + i


def _prod(a: Any, axes: tuple, keep: bool, w: Any = None, i: Any = None) -> Any:
    r = jnp.prod(_masked(a, w, 1), axis=axes, keepdims=keep, dtype=a.dtype)
    return r if i is None else r * i


#: dtype -> the compiled sum of all elements (``x.sum()``); the dtype fixes the accumulation.
_sum_all = _cache.cache("sum-all kernels", 64)


def _sum_all_kernel(dt: np.dtype) -> Any:
    acc = accumulation_dtype(dt, None)
    fn = _sum_all[dt] = jax.jit(lambda a: jnp.sum(a.astype(acc), dtype=acc))
    return fn


def sum(x: Tensor, /, *, axis: Any = None, dtype: Any = None,  # noqa: A001
        keepdims: bool = False, initial: Any = None, where: Any = None) -> Tensor:
    """Sum of the elements over ``axis`` (all axes by default; NumPy's ``initial``, added,
    and ``where``, the elements summed).

    >>> import jaxtensor as jt
    >>> jt.sum(jt.asarray([[1, 2], [3, 4]]), axis=0).tolist()
    [4, 6]
    """
    if (axis is None and dtype is None and not keepdims and type(x) is Tensor
            and initial is None and where is None):
        # the common x.sum(): one dictionary lookup, one compiled call
        v = x._value()
        fn = _sum_all.get(v.dtype) or _sum_all_kernel(v.dtype)
        out = fn(v)
        return new_tensor(out) if out is not v else _args.wrap(out, x)
    dt = accumulation_dtype(np.dtype(_args.value(x, "x", "sum").dtype), dtype)
    return _reduce("sum", _sum, x, axis, keepdims, dt, where, initial)


def prod(x: Tensor, /, *, axis: Any = None, dtype: Any = None,
         keepdims: bool = False, initial: Any = None, where: Any = None) -> Tensor:
    """Product of the elements over ``axis`` (all axes by default; NumPy's ``initial``,
    multiplied in, and ``where``, the elements multiplied).

    >>> import jaxtensor as jt
    >>> int(jt.prod(jt.asarray([1, 2, 3, 4])))
    24
    """
    dt = accumulation_dtype(np.dtype(_args.value(x, "x", "prod").dtype), dtype)
    return _reduce("prod", _prod, x, axis, keepdims, dt, where, initial)


def _extremum(name: str, x: Tensor, axis: Any, keepdims: bool, initial: Any = None,
              where: Any = None) -> Tensor:
    v = _args.value(x, "x", name)
    if np.dtype(v.dtype).kind == "c":
        raise TypeError(f"{name}() needs a real-valued Tensor, got {v.dtype}")
    axes = _args.normalize_axes(axis, v.ndim, f"{name}(): axis")
    if initial is None and where is not None and where is not True:
        raise ValueError(f"{name}() with a where mask needs an initial value ({name} has no "
                         "identity), as in NumPy")
    if initial is None and (any(v.shape[a] == 0 for a in axes)
                            or (v.size == 0 and not axes and v.ndim == 0)):
        e = ValueError(f"{name}() over zero elements has no identity; reduce a non-empty "
                       "Tensor or give an initial value")
        if not raised_later(e):
            raise e
        initial = 0  # (where the code runs, it fails: a value of the result's shape)
    spread = multi_device() if isinstance(v, jax.core.Tracer) else _args.sharded(v)
    return _reduce(name, _extremum_kernel, x, axis, keepdims, where=where, initial=initial,
                   is_max=name == "max", spread=spread)


def _extremum_kernel(a: Any, axes: tuple, keep: bool, is_max: bool, spread: bool,
                     w: Any = None, i: Any = None) -> Any:
    """The max (``is_max``) or min over ``axes``, of the elements ``w`` selects and ``i``
    (an element not selected is the reduction's identity, not ``i``, which would tie with
    the result and take a share of its gradient: ``jnp.max``'s gradient)."""
    if w is not None:
        a = jnp.where(w, a, _identity(a.dtype, is_max))
    if i is not None and any(a.shape[d] == 0 for d in axes):
        shape = tuple(1 if d in axes else n for d, n in enumerate(a.shape) if keep or d not in axes)
        return jnp.broadcast_to(i, shape)
    r = extremum(jnp.max if is_max else jnp.min, a, axes, keep, spread=spread)
    return r if i is None else (jnp.maximum if is_max else jnp.minimum)(r, i)


def _identity(dt: Any, is_max: bool) -> Any:
    """The value no element of ``dt`` is below (``is_max``) or above: -inf/inf, or the
    integer dtype's least or greatest."""
    dt = np.dtype(dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return np.asarray(info.min if is_max else info.max, dt)
    if dt == np.bool_:
        return np.asarray(not is_max)
    return np.asarray(-np.inf if is_max else np.inf, dt)


def multi_device() -> bool:
    """Whether this process has more than one device (a traced value may be sharded)."""
    return jax.device_count() > 1


def extremum(fn: Any, a: Any, axis: Any, keepdims: bool, spread: bool | None = None,
             **kw: Any) -> Any:
    """``fn(a, axis=axis, keepdims=keepdims, **kw)`` for ``fn`` ``jnp.max`` or ``jnp.min``,
    NaN wherever a reduced element is NaN.

    XLA:CPU's vectorised max/min reductions drop NaN (and may return the initial value
    -inf). Floats are reduced instead by halving each reduced axis with the elementwise
    ``lax.max``/``lax.min``, which propagate NaN (:func:`_halving`); XLA fuses the halvings,
    about the cost of ``jnp.max``. The gradient is ``jnp.max``'s: split evenly between equal
    extrema. Halving a sharded axis would move half of it between devices at every step:
    where ``a`` may be spread over devices (``spread``; by default when the process has
    several), ``fn`` reduces and a second reduction (a ``uint8`` max of ``isnan``) finds
    NaN, two reductions that each run shard by shard and combine in one all-reduce.
    """
    if not jnp.issubdtype(a.dtype, jnp.floating):
        return fn(a, axis=axis, keepdims=keepdims, **kw)
    reduced = _args.normalize_axes(axis, a.ndim)
    if not reduced or any(a.shape[d] == 0 for d in reduced):
        return fn(a, axis=axis, keepdims=keepdims, **kw)
    if multi_device() if spread is None else spread:
        r = fn(a, axis=reduced, keepdims=keepdims, **kw)
        nan = jnp.max(jnp.isnan(a).astype(jnp.uint8), axis=reduced, keepdims=keepdims)
        return jnp.where(nan > 0, jnp.asarray(jnp.nan, r.dtype), r)
    r = _halving(a, reduced, fn is jnp.max)
    if "initial" in kw:
        r = (lax.max if fn is jnp.max else lax.min)(r, jnp.asarray(kw["initial"], r.dtype))
    return jnp.expand_dims(r, reduced) if keepdims else r


@functools.partial(jax.custom_jvp, nondiff_argnums=(1, 2))
def _halving(a: Any, axes: tuple[int, ...], is_max: bool) -> Any:
    """The max (or min) of ``a`` over ``axes`` (sorted, non-empty sides), NaN-propagating:
    each axis is halved with ``op(a[:h], a[n - h:])``, ``h = ceil(n / 2)`` (for an odd
    ``n`` the halves overlap by one element, which an extremum does not mind)."""
    op = lax.max if is_max else lax.min
    r = a
    if len(axes) == a.ndim > 1:
        r, axes = a.reshape(-1), (0,)
    for d in reversed(axes):
        n = r.shape[d]
        while n > 1:
            h = (n + 1) // 2
            r = op(lax.slice_in_dim(r, 0, h, axis=d), lax.slice_in_dim(r, n - h, n, axis=d))
            n = h
        r = lax.squeeze(r, (d,))
    return r


@_halving.defjvp
def _halving_jvp(axes: tuple[int, ...], is_max: bool, primals: tuple, tangents: tuple
                 ) -> tuple[Any, Any]:
    (a,), (t,) = primals, tangents
    r = _halving(a, axes, is_max)
    at = (a == jnp.expand_dims(r, axes)).astype(t.dtype)
    return r, jnp.sum(t * at, axis=axes) / jnp.sum(at, axis=axes)


def max(x: Tensor, /, *, axis: Any = None, keepdims: bool = False,  # noqa: A001
        initial: Any = None, where: Any = None) -> Tensor:
    """Maximum over ``axis`` (NaN if any element is NaN; NumPy's ``initial``, a value
    taken with the elements, and ``where``, the elements taken, which needs ``initial``).

    >>> import jaxtensor as jt
    >>> float(jt.max(jt.asarray([1.0, 5.0, 2.0])))
    5.0
    """
    return _extremum("max", x, axis, keepdims, initial, where)


def min(x: Tensor, /, *, axis: Any = None, keepdims: bool = False,  # noqa: A001
        initial: Any = None, where: Any = None) -> Tensor:
    """Minimum over ``axis`` (NaN if any element is NaN; NumPy's ``initial``, a value
    taken with the elements, and ``where``, the elements taken, which needs ``initial``).

    >>> import jaxtensor as jt
    >>> float(jt.min(jt.asarray([1.0, 5.0, 2.0])))
    1.0
    """
    return _extremum("min", x, axis, keepdims, initial, where)


def _float_dtype(v: Any, fname: str, complex_ok: bool) -> np.dtype:
    dt = np.dtype(v.dtype)
    if dt.kind == "c" and not complex_ok:
        raise TypeError(f"{fname}() needs a real-valued Tensor, got {dt}")
    if dt.kind in "iub":
        return _dtypes.default_float
    return dt


def _divide(s: Any, n: float) -> Any:
    """``s / n`` correctly rounded (XLA would multiply by ``1 / n``), complex ``s`` part by
    part (as NumPy's division by a real count)."""
    d = jnp.asarray(n, jnp.real(s).dtype)
    if jnp.iscomplexobj(s):
        return jax.lax.complex(_ek.divide(jnp.real(s), d), _ek.divide(jnp.imag(s), d))
    return _ek.divide(s, d)


def _mean(a: Any, axes: tuple, keep: bool, w: Any = None, i: Any = None) -> Any:
    # (half precision summed and divided in float32, as NumPy: else 10**4 tens are inf)
    acc = np.dtype(np.float32) if a.dtype in _dtypes.half_dtypes else a.dtype
    s = jnp.sum(_masked(a, w, 0), axis=axes, keepdims=keep, dtype=acc)
    if w is not None:  # (no element selected: 0 / 0, NaN)
        return _divide(s, _count(w, a.shape, axes, keep)).astype(a.dtype)
    n = math.prod(a.shape[i] for i in axes)
    if not n:
        return jnp.full(s.shape, jnp.nan, a.dtype)
    return _divide(s, n).astype(a.dtype)


def mean(x: Tensor, /, *, axis: Any = None, keepdims: bool = False,
         where: Any = None) -> Tensor:
    """Arithmetic mean over ``axis`` (NaN over zero elements; NumPy's ``where``: the elements
    averaged).

    >>> import jaxtensor as jt
    >>> float(jt.mean(jt.asarray([1.0, 2.0, 6.0])))
    3.0
    """
    dt = _float_dtype(_args.value(x, "x", "mean"), "mean", True)
    return _reduce("mean", _mean, x, axis, keepdims, dt, where)


def _var(a: Any, axes: tuple, keep: bool, correction: float, w: Any = None,
         i: Any = None) -> Any:
    mu = _mean(a, axes, True, w)
    d = _masked(a - mu, w, 0)
    ss = jnp.sum(d * d, axis=axes, keepdims=keep, dtype=a.dtype)
    if w is not None:
        den = _count(w, a.shape, axes, keep) - correction
        return jnp.where(den > 0, _divide(ss, den), jnp.nan).astype(a.dtype)
    n = math.prod(a.shape[i] for i in axes)
    den = n - correction
    if den <= 0:
        return jnp.full(ss.shape, jnp.nan, a.dtype)
    return _divide(ss, den).astype(a.dtype)


def _std(a: Any, axes: tuple, keep: bool, correction: float, w: Any = None,
         i: Any = None) -> Any:
    return jnp.sqrt(_var(a, axes, keep, correction, w))


def _integer_var(a: Any, axes: tuple, keep: bool, correction: float, into: np.dtype,
                 root: bool, w: Any = None, i: Any = None) -> Any:
    """NumPy's ``var``/``std`` with an integer ``dtype=``: the mean summed in ``into`` and
    truncated into it, the squared deviations summed in ``into``, the quotient truncated
    (and ``std`` the truncated square root of that)."""
    n: Any = math.prod(a.shape[i] for i in axes)
    if w is not None:
        n = _count(w, a.shape, axes, True)
    mu = (jnp.sum(_masked(a, w, 0), axis=axes, keepdims=True, dtype=into) / n).astype(into)
    common = np.result_type(a.dtype, into)
    d = _masked(a.astype(common) - mu.astype(common), w, 0)
    ss = jnp.sum(d * d, axis=axes, keepdims=keep, dtype=into)
    if w is not None:
        n = n if keep else jnp.squeeze(n, axes)
    r = (ss / jnp.maximum(n - correction, 0)).astype(into)
    return jnp.sqrt(r).astype(into) if root else r


def integer_var(x: Tensor, dtype: Any, axis: Any, correction: Any, keepdims: bool,
                root: bool, where: Any = None) -> Tensor:
    """``np.var(x, dtype=dtype)`` (``np.std`` where ``root``) for an integer ``dtype``."""
    name = "std" if root else "var"
    return _reduce(name, _integer_var, x, axis, keepdims, where=where,
                   correction=_correction(correction),
                   into=np.dtype(dtype), root=root)


def _correction(c: Any) -> float:
    if isinstance(c, builtins.bool) or not isinstance(c, (int, float, np.integer, np.floating)):
        raise TypeError(f"correction must be an int or a float, got {type(c).__name__}")
    if c < 0:
        raise ValueError(f"correction must be non-negative, got {c}")
    return float(c)


def var(x: Tensor, /, *, axis: Any = None, correction: Any = 0.0,
        keepdims: bool = False, ddof: Any = None, where: Any = None) -> Tensor:
    """Variance over ``axis``: ``sum(|x - mean|**2) / (N - correction)`` (``ddof``:
    NumPy's name for ``correction``; ``where``: NumPy's, the elements counted).

    >>> import jaxtensor as jt
    >>> float(jt.var(jt.asarray([1.0, 2.0, 3.0]), correction=1))
    1.0
    """
    dt = _float_dtype(_args.value(x, "x", "var"), "var", False)
    return _reduce("var", _var, x, axis, keepdims, dt, where,
                   correction=_correction(_ddof(correction, ddof, "var")))


def std(x: Tensor, /, *, axis: Any = None, correction: Any = 0.0,
        keepdims: bool = False, ddof: Any = None, where: Any = None) -> Tensor:
    """Standard deviation over ``axis`` (the square root of :func:`var`; ``ddof``: NumPy's
    name for ``correction``; ``where``: NumPy's, the elements counted).

    >>> import jaxtensor as jt
    >>> float(jt.std(jt.asarray([1.0, 3.0])))
    1.0
    """
    dt = _float_dtype(_args.value(x, "x", "std"), "std", False)
    return _reduce("std", _std, x, axis, keepdims, dt, where,
                   correction=_correction(_ddof(correction, ddof, "std")))


def _ddof(correction: Any, ddof: Any, fname: str) -> Any:
    """``correction``, or NumPy's ``ddof`` given in its place."""
    if ddof is None:
        return correction
    if not (type(correction) is float and correction == 0.0):
        raise TypeError(f"{fname}(): give correction or NumPy's ddof, not both")
    return ddof


def _cumulative(name: str, x: Tensor, axis: Any, dtype: Any, include_initial: bool) -> Tensor:
    v = _args.value(x, "x", name)
    if axis is None:
        if v.ndim > 1:
            raise ValueError(
                f"{name}() of a {v.ndim}-D Tensor needs axis=; flatten it with "
                "reshape(x, (-1,)) to accumulate over all elements"
            )
        ax = 0
    else:
        ax = _args.normalize_axis(axis, builtins.max(v.ndim, 1), f"{name}(): axis")
    dt = accumulation_dtype(np.dtype(v.dtype), dtype)
    init = bool(include_initial)
    is_sum = name == "cumulative_sum"

    def build() -> Any:
        def f(a: Any) -> Any:
            if a.ndim == 0:
                a = a.reshape(1)
            a = a.astype(dt)
            fn = jnp.cumsum if is_sum else jnp.cumprod
            out = fn(a, axis=ax, dtype=dt)
            if init:
                shape = list(a.shape)
                shape[ax] = 1
                first = jnp.full(shape, 0 if is_sum else 1, dt)
                out = jnp.concatenate([first, out], axis=ax)
            return out

        return f

    return _args.wrap(_kernels.call((name, ax, dt, init), build, v), x)


def cumulative_sum(x: Tensor, /, *, axis: int | None = None, dtype: Any = None,
                   include_initial: bool = False) -> Tensor:
    """Running sums along ``axis`` (``include_initial``: start with a 0).

    >>> import jaxtensor as jt
    >>> jt.cumulative_sum(jt.asarray([1, 2, 3]), include_initial=True).tolist()
    [0, 1, 3, 6]
    """
    return _cumulative("cumulative_sum", x, axis, dtype, include_initial)


def cumulative_prod(x: Tensor, /, *, axis: int | None = None, dtype: Any = None,
                    include_initial: bool = False) -> Tensor:
    """Running products along ``axis`` (``include_initial``: start with a 1).

    >>> import jaxtensor as jt
    >>> jt.cumulative_prod(jt.asarray([1, 2, 3])).tolist()
    [1, 2, 6]
    """
    return _cumulative("cumulative_prod", x, axis, dtype, include_initial)
