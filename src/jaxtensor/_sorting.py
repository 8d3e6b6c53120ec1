"""Sorting functions of the Array API standard: ``argsort`` and ``sort``.

Both are stable by default. ``descending=True`` with ``stable=True`` keeps equal elements
in their original relative order (it is not the reverse of an ascending stable sort).
NaNs sort to the end in ascending order and to the front in descending order (the
reverse), and ``-0.0`` and ``+0.0`` compare equal (kept in input order), consistently with
``searchsorted``.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from . import _args
from ._core import Tensor, _dtypes, _kernels

__all__ = ["argsort", "sort"]


def _check(v: Any, fname: str) -> None:
    if np.dtype(v.dtype).kind == "c":
        raise TypeError(f"{fname}() needs a real-valued Tensor, got {v.dtype}")


def argsort(
    x: Tensor, /, *, axis: int = -1, descending: bool = False, stable: bool = True
) -> Tensor:
    """Indices that sort ``x`` along ``axis`` (default index dtype).

    >>> import jaxtensor as jt
    >>> jt.argsort(jt.asarray([3, 1, 2])).tolist()
    [1, 2, 0]
    >>> jt.argsort(jt.asarray([1, 2, 1, 2]), descending=True).tolist()
    [1, 3, 0, 2]
    """
    v = _args.value(x, "x", "argsort")
    _check(v, "argsort")
    if v.ndim == 0:
        ax = None
    else:
        ax = _args.normalize_axis(axis, v.ndim, "argsort(): axis")
    desc = bool(descending)
    idx = _dtypes.default_index

    def build() -> Any:
        def f(a: Any) -> Any:
            if ax is None:
                return jnp.zeros((), idx)
            return jnp.argsort(a, axis=ax, stable=True, descending=desc).astype(idx)

        return f

    return Tensor._wrap(_kernels.call(("argsort", ax, desc), build, v))


def sort(
    x: Tensor, /, *, axis: int = -1, descending: bool = False, stable: bool = True
) -> Tensor:
    """A sorted copy of ``x`` along ``axis``.

    >>> import jaxtensor as jt
    >>> jt.sort(jt.asarray([3, 1, 2]), descending=True).tolist()
    [3, 2, 1]
    """
    v = _args.value(x, "x", "sort")
    _check(v, "sort")
    if v.ndim == 0:
        return _args.wrap(_kernels.call(("sort0",), lambda: lambda a: a, v), x)
    ax = _args.normalize_axis(axis, v.ndim, "sort(): axis")
    desc = bool(descending)

    def build() -> Any:
        def f(a: Any) -> Any:
            return jnp.sort(a, axis=ax, stable=True, descending=desc)

        return f

    return _args.wrap(_kernels.call(("sort", ax, desc), build, v), x)
