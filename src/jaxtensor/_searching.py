"""Searching functions of the Array API standard: ``argmax``, ``argmin``,
``count_nonzero``, ``nonzero``, ``searchsorted``, ``where``.

``nonzero`` has a data-dependent output shape: it works eagerly, and under ``jit`` it
needs ``size=`` (and optionally ``fill_value=``), as ``jax.numpy.nonzero`` does.
"""

from __future__ import annotations

import operator
from typing import Any

import jax.numpy as jnp
import numpy as np

from . import _args
from ._core import Tensor, _dtypes, _kernels, raised_later
from ._manipulation import broadcast_shapes

__all__ = [
    "argmax",
    "argmin",
    "count_nonzero",
    "nonzero",
    "searchsorted",
    "where",
]


def _arg_reduce(name: str, fn: Any, x: Tensor, axis: Any, keepdims: bool) -> Tensor:
    v = _args.value(x, "x", name)
    dt = np.dtype(v.dtype)
    if dt.kind == "c":
        raise TypeError(f"{name}() needs a real-valued Tensor, got {dt}")
    ax = None if axis is None else _args.normalize_axis(axis, v.ndim, f"{name}(): axis")
    keep = bool(keepdims)
    idx = _dtypes.default_index
    # (an empty result, from a zero-size axis not reduced, is fine: NumPy's rule)
    if (v.size == 0 and ax is None) or (ax is not None and v.shape[ax] == 0):
        e = ValueError(f"{name}() of an empty Tensor: there is no {name[3:]}imum" if ax is None
                       else f"{name}() along axis {ax} of size 0 (shape {v.shape}): there is "
                       f"no {name[3:]}imum")
        if not raised_later(e):
            raise e
        axes = range(v.ndim) if ax is None else (ax,)
        shape = tuple(1 if d in axes else n for d, n in enumerate(v.shape)
                      if keep or d not in axes)
        return Tensor._wrap(jnp.zeros(shape, idx))  # (where the code runs, it fails)

    def build() -> Any:
        def f(a: Any) -> Any:
            return fn(a, axis=ax, keepdims=keep).astype(idx)

        return f

    return Tensor._wrap(_kernels.call((name, ax, keep), build, v))


def argmax(x: Tensor, /, *, axis: int | None = None, keepdims: bool = False) -> Tensor:
    """Index of the first maximum (over the flattened Tensor when ``axis`` is None).

    >>> import jaxtensor as jt
    >>> int(jt.argmax(jt.asarray([1, 3, 3])))
    1
    """
    return _arg_reduce("argmax", jnp.argmax, x, axis, keepdims)


def argmin(x: Tensor, /, *, axis: int | None = None, keepdims: bool = False) -> Tensor:
    """Index of the first minimum (over the flattened Tensor when ``axis`` is None).

    >>> import jaxtensor as jt
    >>> int(jt.argmin(jt.asarray([2, 0, 0])))
    1
    """
    return _arg_reduce("argmin", jnp.argmin, x, axis, keepdims)


def count_nonzero(x: Tensor, /, *, axis: Any = None, keepdims: bool = False) -> Tensor:
    """Number of non-zero elements (in the default index dtype).

    >>> import jaxtensor as jt
    >>> int(jt.count_nonzero(jt.asarray([0, 1, 2])))
    2
    """
    v = _args.value(x, "x", "count_nonzero")
    axes = _args.normalize_axes(axis, v.ndim, "count_nonzero(): axis")
    keep = bool(keepdims)
    idx = _dtypes.default_index

    def build() -> Any:
        def f(a: Any) -> Any:
            return jnp.sum(a != 0, axis=axes, keepdims=keep, dtype=idx)

        return f

    return Tensor._wrap(_kernels.call(("count_nonzero", axes, keep), build, v))


def nonzero(
    x: Tensor, /, *, size: int | None = None, fill_value: Any = None
) -> tuple[Tensor, ...]:
    """Indices of the non-zero elements, one index Tensor per dimension, in C order.

    The number of non-zeros is data-dependent. Eagerly that is fine; under ``jit`` pass
    ``size=`` (an extension): the result then has exactly ``size`` entries, truncated or
    padded with ``fill_value`` (default 0).

    >>> import jaxtensor as jt
    >>> [i.tolist() for i in jt.nonzero(jt.asarray([[0, 1], [2, 0]]))]
    [[0, 1], [1, 0]]
    >>> [i.tolist() for i in jt.nonzero(jt.asarray([0, 5]), size=3, fill_value=-1)]
    [[1, -1, -1]]
    """
    v = _args.value(x, "x", "nonzero")
    if v.ndim == 0:
        raise ValueError(
            "nonzero() of a 0-D Tensor is not allowed by the Array API standard; use "
            "nonzero(jaxtensor.reshape(x, (1,))) or x != 0"
        )
    idx = _dtypes.default_index
    if size is None:
        if _args.is_traced(v):
            raise ValueError(
                "nonzero() inside jit/grad/vmap: the number of non-zeros is data-dependent. "
                "Pass size= (and fill_value=) for a static output shape, or use "
                "jaxtensor.where(cond, x, y) instead"
            )
        dev = next(iter(v.devices())) if hasattr(v, "devices") else None
        if dev is None or dev.platform == "cpu":
            out = np.nonzero(np.asarray(v))
            return tuple(Tensor._wrap(jnp.asarray(o.astype(idx))) for o in out)
        size = int(_kernels.call(("nonzero_count",), lambda: jnp.count_nonzero, v))
    size = operator.index(size)
    if size < 0:
        raise ValueError(f"nonzero(): size must be non-negative, got {size}")
    fill = fill_value
    if isinstance(fill, (tuple, list)):
        fill = tuple(operator.index(f) for f in fill)
    elif fill is not None:
        fill = operator.index(fill)

    def build() -> Any:
        def f(a: Any) -> Any:
            return tuple(o.astype(idx) for o in jnp.nonzero(a, size=size, fill_value=fill))

        return f

    return tuple(Tensor._wrap(o) for o in _kernels.call(("nonzero", size, fill), build, v))


def where(condition: Tensor, x1: Any = None, x2: Any = None, /) -> Any:
    """Elements of ``x1`` where ``condition`` is True (non-zero, as NumPy reads a condition
    of another dtype), else of ``x2`` (both broadcast; Python scalars mix with the other
    operand's dtype as the standard says). With neither given, NumPy's one-argument form:
    ``nonzero(condition)``.

    >>> import jaxtensor as jt
    >>> jt.where(jt.asarray([True, False]), jt.asarray([1, 2]), 0).tolist()
    [1, 0]
    >>> [i.tolist() for i in jt.where(jt.asarray([0, 3, 0, 5]))]
    [[1, 3]]
    """
    if x1 is None or x2 is None:
        if x1 is None and x2 is None:
            return nonzero(condition)
        raise ValueError("where(): give both x1 and x2, or neither (for nonzero(condition))")
    c = _args.value(condition, "condition", "where")
    a, b, dt = _args.promoted_pair(x1, x2, fname="where")
    _args_shapes = (tuple(c.shape), tuple(np.shape(a)), tuple(np.shape(b)))
    broadcast_shapes(*_args_shapes)

    def build() -> Any:
        def f(cc: Any, p: Any, q: Any) -> Any:
            if cc.dtype != np.bool_:  # (NumPy's truth value: non-zero, NaN included)
                cc = cc != 0
            return jnp.where(cc, p.astype(dt), q.astype(dt))

        return f

    return _args.wrap(_kernels.call(("where", dt), build, c, a, b))


def searchsorted(
    x1: Tensor, x2: Any, /, *, side: str = "left", sorter: Tensor | None = None
) -> Tensor:
    """Insertion indices of ``x2`` into the sorted 1-D ``x1`` (or ``x1[sorter]``).

    >>> import jaxtensor as jt
    >>> jt.searchsorted(jt.asarray([1, 3, 5]), jt.asarray([3, 6]), side="right").tolist()
    [2, 3]
    """
    a = _args.value(x1, "x1", "searchsorted")
    if a.ndim != 1:
        raise ValueError(f"searchsorted(): x1 must be 1-D, got shape {tuple(a.shape)}")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted(): side must be 'left' or 'right', got {side!r}")
    adt = np.dtype(a.dtype)
    if adt.kind == "c":
        raise TypeError("searchsorted(): x1 must be real-valued")
    if type(x2) is int and adt.kind in "iu" and not (
            np.iinfo(adt).min <= x2 <= np.iinfo(adt).max):
        # (a Python int beyond x1's dtype goes before or after every element, as NumPy's)
        return Tensor._wrap(jnp.asarray(0 if x2 < 0 else a.shape[0], _dtypes.default_index))
    b, bdt = _args.scalar_or_value(x2, adt)
    if bdt.kind == "c":
        raise TypeError("searchsorted(): x2 must be real-valued")
    dt = _dtypes.promote(adt, bdt)
    idx = _dtypes.default_index
    args = [a, b]
    if sorter is not None:
        s = _args.value(sorter, "sorter", "searchsorted")
        if np.dtype(s.dtype).kind not in "iu" or tuple(s.shape) != tuple(a.shape):
            raise ValueError("searchsorted(): sorter must be an integer Tensor shaped like x1")
        args.append(s)
    has_sorter = sorter is not None

    def build() -> Any:
        def f(p: Any, q: Any, *s: Any) -> Any:
            if s:
                p = jnp.take(p, s[0], mode="clip")
            p = p.astype(dt)
            q = jnp.asarray(q).astype(dt)
            # method="sort" agrees with sort()'s total order (NaNs last, -0 before +0)
            return jnp.searchsorted(p, q, side=side).astype(idx)

        return f

    return Tensor._wrap(_kernels.call(("searchsorted", side, dt, has_sorter), build, *args))

