"""The method forms of the reductions and scans (``x.sum(dim=0)``, ``np.max(t, initial=0)``):
positional ``axis``, PyTorch's ``dim`` and ``keepdim``, and NumPy's keywords (``dtype``,
``out``, ``ddof``, ``initial``, ``where``), so that NumPy's reduction functions, which call
the method of an object that is not an ndarray, give their answers on Tensors.
:mod:`jaxtensor._methods` binds them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ._core import Tensor, new_tensor
from ._data_type_functions import astype as _astype
from ._statistical import (
    _sum_all,
    cumulative_prod,
    cumulative_sum,
    integer_var,
    max,
    mean,
    min,
    prod,
    std,
    sum,
    var,
)
from ._utility import all, any


def _axis_arg(axis: Any, dim: Any) -> Any:
    return dim if axis is None and dim is not None else axis


def _into(out: Any, result: Tensor, name: str) -> Tensor:
    """NumPy's ``out=`` of a reduction method (``np.sum(t)`` passes ``out=None``)."""
    if out is None:
        return result
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(out=...) must be a Tensor, got {type(out).__name__}")
    out[...] = result
    return out


def _as(x: Tensor, dtype: Any) -> Tensor:
    return x if dtype is None else _astype(x, dtype)


def _reduction(fn: Callable, with_dtype: bool = False, with_correction: bool = False,
               numpy_kw: tuple[str, ...] = ()) -> Any:
    """The method form of the reduction ``fn``: positional ``axis``, PyTorch's ``dim`` and
    ``keepdim``, and NumPy's keywords (``dtype``, ``out``, ``ddof`` for ``var``/``std``, and
    those of ``numpy_kw``, ``initial``/``where``, as ``fn`` takes them), so that
    ``np.sum(t)``, ``np.std(t, ddof=1)``, ``np.max(t, initial=0)`` and the like work."""
    name = fn.__name__
    if with_dtype:
        def m(self: Tensor, axis: Any = None, dtype: Any = None, keepdims: bool = False,
              *, dim: Any = None, keepdim: bool = False, out: Any = None,
              initial: Any = None, where: Any = None) -> Tensor:
            return _into(out, fn(self, axis=_axis_arg(axis, dim), dtype=dtype,
                                 keepdims=keepdims or keepdim, initial=initial,
                                 where=where), name)
    elif with_correction:
        def m(self: Tensor, axis: Any = None, correction: Any = 0.0,
              keepdims: bool = False, *, dim: Any = None, keepdim: bool = False,
              ddof: Any = None, dtype: Any = None, out: Any = None,
              where: Any = None) -> Tensor:
            c = correction if ddof is None else ddof
            if dtype is not None and np.dtype(dtype).kind in "iu":
                return _into(out, integer_var(self, dtype, _axis_arg(axis, dim), c,
                                              keepdims or keepdim, name == "std", where),
                             name)
            return _into(out, _as(fn(_as(self, dtype), axis=_axis_arg(axis, dim),
                                     correction=c, keepdims=keepdims or keepdim,
                                     where=where), dtype), name)
    elif "initial" in numpy_kw:
        def m(self: Tensor, axis: Any = None, keepdims: bool = False, *,
              dim: Any = None, keepdim: bool = False, dtype: Any = None,
              out: Any = None, initial: Any = None, where: Any = None) -> Tensor:
            return _into(out, _as(fn(_as(self, dtype), axis=_axis_arg(axis, dim),
                                     keepdims=keepdims or keepdim, initial=initial,
                                     where=where), dtype), name)
    elif numpy_kw:
        def m(self: Tensor, axis: Any = None, keepdims: bool = False, *,
              dim: Any = None, keepdim: bool = False, dtype: Any = None,
              out: Any = None, where: Any = None) -> Tensor:
            return _into(out, _as(fn(_as(self, dtype), axis=_axis_arg(axis, dim),
                                     keepdims=keepdims or keepdim, where=where), dtype), name)
    else:
        def m(self: Tensor, axis: Any = None, keepdims: bool = False, *,
              dim: Any = None, keepdim: bool = False, dtype: Any = None,
              out: Any = None) -> Tensor:
            return _into(out, _as(fn(_as(self, dtype), axis=_axis_arg(axis, dim),
                                     keepdims=keepdims or keepdim), dtype), name)
    m.__name__, m.__qualname__ = fn.__name__, f"Tensor.{fn.__name__}"
    m.__doc__ = f"Method form of :func:`jaxtensor.{fn.__name__}` (``dim`` = ``axis``)."
    return m


_sum = _reduction(sum, with_dtype=True, numpy_kw=("initial", "where"))


def sum_method(self: Tensor, axis: Any = None, dtype: Any = None, keepdims: bool = False,
               *, dim: Any = None, keepdim: bool = False, out: Any = None,
               initial: Any = None, where: Any = None) -> Tensor:
    """Method form of :func:`jaxtensor.sum` (``dim`` = ``axis``; NumPy's ``out``,
    ``initial``, ``where``)."""
    if out is not None or initial is not None or where is not None:
        return _sum(self, axis, dtype, keepdims, dim=dim, keepdim=keepdim, out=out,
                    initial=initial, where=where)
    if axis is None and dtype is None and dim is None and not (keepdims or keepdim):
        # sum()'s fast path inlined: a call layer is a measurable part of a small x.sum()
        v = self._value()
        fn = _sum_all.get(v.dtype)
        if fn is not None:
            r = fn(v)
            if r is not v:
                return new_tensor(r)
    return _sum(self, axis, dtype, keepdims, dim=dim, keepdim=keepdim)


def cumsum_method(self: Tensor, axis: Any = None, dtype: Any = None, *,
                  dim: Any = None) -> Tensor:
    """``cumulative_sum`` (NumPy's ``cumsum``: ``axis=None`` flattens first)."""
    ax = _axis_arg(axis, dim)
    x = self if ax is not None or self.ndim <= 1 else self.reshape(-1)
    return cumulative_sum(x, axis=ax, dtype=dtype)


def cumprod_method(self: Tensor, axis: Any = None, dtype: Any = None, *,
                   dim: Any = None) -> Tensor:
    """``cumulative_prod`` (NumPy's ``cumprod``: ``axis=None`` flattens first)."""
    ax = _axis_arg(axis, dim)
    x = self if ax is not None or self.ndim <= 1 else self.reshape(-1)
    return cumulative_prod(x, axis=ax, dtype=dtype)


def all_method(self: Tensor, axis: Any = None, keepdims: bool = False, *,
               dim: Any = None, keepdim: bool = False, out: Any = None,
               where: Any = None) -> Tensor:
    """Method form of :func:`jaxtensor.all` (``dim`` = ``axis``; NumPy's ``out``,
    ``where``)."""
    return _into(out, all(self, axis=axis if dim is None else dim,
                          keepdims=keepdims or keepdim, where=where), "all")


def any_method(self: Tensor, axis: Any = None, keepdims: bool = False, *,
               dim: Any = None, keepdim: bool = False, out: Any = None,
               where: Any = None) -> Tensor:
    """Method form of :func:`jaxtensor.any` (``dim`` = ``axis``; NumPy's ``out``,
    ``where``)."""
    return _into(out, any(self, axis=axis if dim is None else dim,
                          keepdims=keepdims or keepdim, where=where), "any")


#: name -> method form, for :data:`jaxtensor._methods.METHODS` (which adds ``argmax`` and
#: ``argmin``, made by :func:`_reduction`)
REDUCTIONS: dict[str, Any] = {
    "sum": sum_method,
    "prod": _reduction(prod, with_dtype=True, numpy_kw=("initial", "where")),
    "mean": _reduction(mean, numpy_kw=("where",)),
    "max": _reduction(max, numpy_kw=("initial", "where")),
    "min": _reduction(min, numpy_kw=("initial", "where")),
    "var": _reduction(var, with_correction=True),
    "std": _reduction(std, with_correction=True),
    "all": all_method,
    "any": any_method,
    "cumsum": cumsum_method,
    "cumprod": cumprod_method,
}
