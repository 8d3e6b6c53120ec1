"""Utility functions of the Array API standard (``all``, ``any``, ``diff``), the aliasing
query ``shares_memory``, and NumPy's comparisons ``isclose``, ``allclose``, ``array_equal``
(beyond the standard: the spellings ported NumPy code reaches for first)."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from . import _args
from ._core import Tensor, _dtypes, _kernels, _view

__all__ = [
    "all",
    "allclose",
    "any",
    "array_equal",
    "diff",
    "isclose",
    "shares_memory",
]


def shares_memory(a: Tensor, b: Tensor, /) -> bool:
    """True when a write through one of ``a``, ``b`` can change the other.

    >>> import jaxtensor as jt
    >>> x = jt.arange(6)
    >>> jt.shares_memory(x, x[::2]), jt.shares_memory(x[::2], x[1::2])
    (True, False)
    """
    a, b = _args.tensor(a, "a", "shares_memory"), _args.tensor(b, "b", "shares_memory")
    if a._storage is not b._storage:
        return False
    if a._view is None or b._view is None:
        return a.size > 0 and b.size > 0
    ca, cb = a._view.comp, b._view.comp
    if ca is not None and cb is not None and ca != cb:
        return False  # the real and the imaginary parts never overlap
    shape = a._storage.array.shape
    ea = _view.element_set(a._view, shape)
    eb = _view.element_set(b._view, shape)
    return bool(np.intersect1d(ea, eb).size)


def _logical(name: str, fn: Any, x: Tensor, axis: Any, keepdims: bool,
             where: Any = None) -> Tensor:
    v = _args.value(x, "x", name)
    axes = _args.normalize_axes(axis, v.ndim, f"{name}(): axis")
    keep = bool(keepdims)
    w = None if where is None else _args.where_mask(where, v, name)
    complex_input = jnp.issubdtype(v.dtype, jnp.complexfloating)

    def build() -> Any:
        def f(a: Any, *w: Any) -> Any:
            if complex_input or w:  # jnp.all/any look at the real part of a complex value
                a = a != 0
            if w:  # (unselected elements: True for all, False for any)
                a = jnp.logical_or(a, ~w[0]) if fn is jnp.all else jnp.logical_and(a, w[0])
            return fn(a, axis=axes, keepdims=keep)

        return f

    key = (name, axes, keep, complex_input, w is not None)
    return _args.wrap(_kernels.call(key, build, v, *(() if w is None else (w,))), x)


def all(x: Tensor, /, *, axis: Any = None, keepdims: bool = False,  # noqa: A001
        where: Any = None) -> Tensor:
    """True where every element over ``axis`` is non-zero (True over zero elements;
    NumPy's ``where``: the elements looked at).

    >>> import jaxtensor as jt
    >>> bool(jt.all(jt.asarray([1, 2, 0])))
    False
    """
    return _logical("all", jnp.all, x, axis, keepdims, where)


def any(x: Tensor, /, *, axis: Any = None, keepdims: bool = False,  # noqa: A001
        where: Any = None) -> Tensor:
    """True where some element over ``axis`` is non-zero (False over zero elements;
    NumPy's ``where``: the elements looked at).

    >>> import jaxtensor as jt
    >>> bool(jt.any(jt.asarray([0, 0, 3])))
    True
    """
    return _logical("any", jnp.any, x, axis, keepdims, where)


def diff(x: Tensor, /, n: int = 1, axis: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """The ``n``-th forward difference along ``axis``, after joining ``prepend`` and
    ``append`` to ``x`` along that axis (their dtypes promote with ``x``'s). The standard
    makes ``axis``, ``n``, ``prepend`` and ``append`` keyword-only; they may also be given
    in NumPy's positional order (``diff(x, 2)`` is the second difference).

    >>> import jaxtensor as jt
    >>> jt.diff(jt.asarray([1, 4, 9, 16])).tolist()
    [3, 5, 7]
    >>> jt.diff(jt.asarray([1, 4, 9]), prepend=jt.asarray([0])).tolist()
    [1, 3, 5]
    """
    v = _args.value(x, "x", "diff")
    if v.ndim == 0:
        raise ValueError("diff() needs a Tensor with at least one dimension")
    ax = _args.normalize_axis(axis, v.ndim, "diff(): axis")
    n = _args.integer(n, "diff(): n")
    if n < 0:
        raise ValueError(f"diff(): n must be non-negative, got {n}")
    dt = np.dtype(v.dtype)
    vals = [v]
    pre = prepend is not None
    app = append is not None
    for name, t in (("prepend", prepend), ("append", append)):
        if t is not None:
            w = _args.value(t, name, "diff")
            if w.ndim == 0:  # a scalar: one slice along axis (NumPy broadcasts it so)
                w = jnp.broadcast_to(w, v.shape[:ax] + (1,) + v.shape[ax + 1:])
            elif w.ndim != v.ndim:
                raise ValueError(
                    f"diff(): {name} must have the same number of dimensions as x "
                    f"({v.ndim}), got shape {tuple(w.shape)}"
                )
            elif w.shape[:ax] != v.shape[:ax] or w.shape[ax + 1:] != v.shape[ax + 1:]:
                raise ValueError(
                    f"diff(): {name} must have the shape of x {tuple(v.shape)} except along "
                    f"axis {ax}, got shape {tuple(w.shape)}"
                )
            try:
                dt = _dtypes.promote(dt, np.dtype(w.dtype))
            except TypeError as e:
                raise TypeError(f"diff(): {name}: {e}") from None
            vals.insert(0, w) if name == "prepend" else vals.append(w)

    def build() -> Any:
        def f(*vs: Any) -> Any:
            a = jnp.concatenate([w.astype(dt) for w in vs], axis=ax) if len(vs) > 1 else (
                vs[0].astype(dt))
            for _ in range(n):
                hi = jnp.moveaxis(a, ax, 0)
                d = hi[1:] != hi[:-1] if dt.kind == "b" else hi[1:] - hi[:-1]
                a = jnp.moveaxis(d, 0, ax)
            return a

        return f

    return _args.wrap(_kernels.call(("diff", ax, n, dt, pre, app), build, *vals), x)


def _tolerances(rtol: Any, atol: Any, fname: str) -> tuple[Any, Any]:
    # (passed as data: a new tolerance compiles nothing)
    out = []
    for name, t in (("rtol", rtol), ("atol", atol)):
        if isinstance(t, bool) or not isinstance(t, (int, float)):
            raise TypeError(f"{fname}(): {name} must be a real Python number, got "
                            f"{type(t).__name__}")
        out.append(np.float64(t))
    return out[0], out[1]


def isclose(a: Any, b: Any, /, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    """NumPy's ``isclose``: True where ``|a - b| <= atol + rtol * |b|`` element-wise
    (infinities are close to themselves; NaN to NaN only with ``equal_nan=True``).

    >>> import jaxtensor as jt
    >>> jt.isclose(jt.asarray([1.0, 1.1, float("nan")]), 1.0).tolist()
    [True, False, False]
    """
    p, q = _args.value(a, "a", "isclose"), _args.value(b, "b", "isclose")
    r, t = _tolerances(rtol, atol, "isclose")
    nan = bool(equal_nan)

    def build() -> Any:
        return lambda x, y, r, t: jnp.isclose(x, y, rtol=r, atol=t, equal_nan=nan)

    return Tensor._wrap(_kernels.call(("isclose", nan), build, p, q, r, t))


def allclose(a: Any, b: Any, /, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> Tensor:
    """NumPy's ``allclose``: whether every element of ``a`` and ``b`` is close
    (:func:`isclose`), as a 0-D bool Tensor (``if jt.allclose(a, b):`` works eagerly).

    >>> import jaxtensor as jt
    >>> bool(jt.allclose(jt.asarray([1.0, 2.0]), jt.asarray([1.0, 2.0 + 1e-9])))
    True
    """
    return all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def array_equal(a1: Any, a2: Any, /, equal_nan: bool = False) -> Tensor:
    """NumPy's ``array_equal``: whether ``a1`` and ``a2`` have the same shape and elements,
    as a 0-D bool Tensor (``if jt.array_equal(a, b):`` works eagerly).

    >>> import jaxtensor as jt
    >>> bool(jt.array_equal(jt.asarray([1, 2]), [1, 2])), bool(jt.array_equal([1], [1, 1]))
    (True, False)
    """
    p, q = _args.value(a1, "a1", "array_equal"), _args.value(a2, "a2", "array_equal")
    nan = bool(equal_nan)
    same_shape = p.shape == q.shape

    def build() -> Any:
        if not same_shape:
            return lambda x, y: jnp.zeros((), bool)
        return lambda x, y: jnp.array_equal(x, y, equal_nan=nan)

    return Tensor._wrap(_kernels.call(("array_equal", nan, same_shape), build, p, q))
