"""Paddle's N-dimensional gather and scatter: ``gather_nd``, ``scatter_nd``,
``scatter_nd_add`` (the last axis of ``index`` holds coordinates into the leading axes).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from . import _args
from ._args import wrap
from ._core import Tensor, _kernels, check_traced
from ._index_select import check_bounds, index_value, normalize
from ._indexing_functions import _fmt, _mode, _smode, _source

__all__ = ["gather_nd", "scatter_nd", "scatter_nd_add"]

Tracer = jax.core.Tracer


# -- gather_nd / scatter_nd (Paddle) ------------------------------------------------------
def _check_nd(fname: str, shape: Sequence[int], index: Any) -> tuple[Any, int, bool]:
    iv = index_value(index, fname)
    if iv.ndim == 0:
        raise ValueError(f"{fname}(): index must have at least one dimension, got a 0-D index")
    k = iv.shape[-1]
    if k > len(shape):
        raise ValueError(
            f"{fname}(): index's last dimension ({k}, shape {_fmt(iv.shape)}) cannot exceed the "
            f"rank of the indexed shape {_fmt(shape)}"
        )
    neg = False
    if isinstance(iv, Tracer):
        for a in range(k):
            check_traced(iv[..., a], shape[a], a, fname)
        neg = True
    elif math.prod(iv.shape):
        a_np = np.asarray(iv)
        for a in range(k):
            neg |= check_bounds(a_np[..., a], shape[a], a, fname)
    return iv, k, neg


def _nd_coords(i: Any, shape: Sequence[int], k: int, neg: bool) -> tuple:
    i = jnp.asarray(i)
    return tuple(normalize(i[..., a], shape[a], neg) for a in range(k))


def gather_nd(x: Any, index: Any) -> Tensor:
    """``out[i...] = x[index[i..., 0], ..., index[i..., k-1]]`` (``paddle.gather_nd``): the
    result has shape ``index.shape[:-1] + x.shape[k:]``.

    >>> import jaxtensor as jt
    >>> x = jt.asarray([[1, 2], [3, 4]])
    >>> jt.gather_nd(x, jt.asarray([[1, 0], [0, 1]])).tolist()
    [3, 2]
    >>> jt.gather_nd(x, jt.asarray([[1]])).tolist()
    [[3, 4]]
    """
    xv = _args.value(x, "x", "gather_nd")
    shape = tuple(xv.shape)
    iv, k, neg = _check_nd("jt.gather_nd", shape, index)
    checked = not isinstance(iv, Tracer)

    def build() -> Callable:
        def f(a: Any, i: Any) -> Any:
            if k == 0:
                return jnp.broadcast_to(a, i.shape[:-1] + a.shape)
            return a.at[_nd_coords(i, shape, k, neg)].get(mode=_mode(checked))

        return f

    return wrap(_kernels.call(("jt.gather_nd", k, neg, checked, shape), build, xv, iv), x)


def scatter_nd_add(x: Any, index: Any, updates: Any) -> Tensor:
    """A copy of ``x`` with ``updates`` added at ``index`` (``paddle.scatter_nd_add``):
    ``updates`` has shape ``index.shape[:-1] + x.shape[k:]``; repeated indices accumulate.

    >>> import jaxtensor as jt
    >>> jt.scatter_nd_add(jt.zeros(3), jt.asarray([[1], [1]]), jt.ones(2)).tolist()
    [0.0, 2.0, 0.0]
    """
    xv = _args.value(x, "x", "scatter_nd_add")
    shape = tuple(xv.shape)
    iv, k, neg = _check_nd("jt.scatter_nd_add", shape, index)
    uv = _source(updates, np.dtype(xv.dtype), "scatter_nd_add", "updates")
    want = tuple(iv.shape[:-1]) + shape[k:]
    ushape = tuple(getattr(uv, "shape", ()))
    if ushape != want and ushape != ():
        raise ValueError(
            f"scatter_nd_add(): updates of shape {_fmt(ushape)} do not match index of shape "
            f"{_fmt(iv.shape)} into x of shape {_fmt(shape)}: expected {_fmt(want)}"
        )
    checked = not isinstance(iv, Tracer)

    def build() -> Callable:
        def f(a: Any, u: Any, i: Any) -> Any:
            u = jnp.broadcast_to(jnp.asarray(u).astype(a.dtype), want)
            if k == 0:
                return a + u.reshape((-1,) + shape).sum(0)
            return a.at[_nd_coords(i, shape, k, neg)].add(u, mode=_smode(checked))

        return f

    return wrap(_kernels.call(("jt.scatter_nd_add", k, neg, checked, shape, want), build, xv, uv,
                               iv), x)


def scatter_nd(index: Any, updates: Any, shape: Sequence[int]) -> Tensor:
    """Zeros of ``shape`` with ``updates`` added at ``index`` (``paddle.scatter_nd``).

    >>> import jaxtensor as jt
    >>> jt.scatter_nd(jt.asarray([[1], [3], [1]]), jt.asarray([9.0, 10.0, 11.0]), [5]).tolist()
    [0.0, 20.0, 0.0, 10.0, 0.0]
    """
    uv = _args.value(updates, "updates", "scatter_nd")
    shape = tuple(operator.index(s) for s in shape)
    return scatter_nd_add(Tensor._wrap(jnp.zeros(shape, uv.dtype)), index, uv)
