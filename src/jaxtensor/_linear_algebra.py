"""Linear algebra functions of the Array API standard's main namespace: ``matmul``,
``tensordot``, ``vecdot`` (``matrix_transpose`` lives with the manipulation functions, as
it returns a view). Operands promote with the standard's table, not JAX's."""

from __future__ import annotations

import operator
from typing import Any

import jax.numpy as jnp
import numpy as np

from . import _args
from ._core import Tensor, _dtypes, _kernels
from ._manipulation import broadcast_shapes

__all__ = ["matmul", "tensordot", "vecdot"]


def operands(x1: Any, x2: Any, fname: str) -> tuple[Any, Any, np.dtype]:
    a = _args.value(x1, "x1", fname)
    b = _args.value(x2, "x2", fname)
    dt = _dtypes.promote(np.dtype(a.dtype), np.dtype(b.dtype))
    return a, b, dt


def matmul(x1: Tensor, x2: Tensor, /) -> Tensor:
    """Matrix product (NumPy's ``@``: 1-D operands are vectors, stacks broadcast).

    >>> import jaxtensor as jt
    >>> jt.matmul(jt.asarray([[1, 2], [3, 4]]), jt.asarray([1, 1])).tolist()
    [3, 7]
    """
    a, b, dt = operands(x1, x2, "matmul")
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul() does not take 0-D Tensors; use multiply() for scalars")
    k1 = a.shape[-1]
    k2 = b.shape[0] if b.ndim == 1 else b.shape[-2]
    if k1 != k2:
        raise ValueError(
            f"matmul(): shapes {tuple(a.shape)} and {tuple(b.shape)} do not align "
            f"({k1} != {k2})"
        )
    if a.ndim > 2 and b.ndim > 2:
        broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))

    def build() -> Any:
        def f(p: Any, q: Any) -> Any:
            return jnp.matmul(p.astype(dt), q.astype(dt), preferred_element_type=dt)

        return f

    return Tensor._wrap(_kernels.call(("matmul", dt), build, a, b))


def tensordot(x1: Tensor, x2: Tensor, /, *, axes: Any = 2) -> Tensor:
    """Sum of products over the last ``axes`` axes of ``x1`` and the first of ``x2``
    (or over the explicit axis lists ``axes = (axes1, axes2)``).

    >>> import jaxtensor as jt
    >>> jt.tensordot(jt.ones((2, 3)), jt.ones((3, 4)), axes=1).shape
    (2, 4)
    """
    a, b, dt = operands(x1, x2, "tensordot")
    if isinstance(axes, (tuple, list)):
        if len(axes) != 2:
            raise ValueError("tensordot(): axes must be an int or a pair of axis sequences")
        ax1 = tuple(_args.normalize_axis(i, a.ndim) for i in
                    (axes[0] if isinstance(axes[0], (tuple, list)) else (axes[0],)))
        ax2 = tuple(_args.normalize_axis(i, b.ndim) for i in
                    (axes[1] if isinstance(axes[1], (tuple, list)) else (axes[1],)))
        if len(ax1) != len(ax2):
            raise ValueError("tensordot(): the two axis sequences must have the same length")
    else:
        n = operator.index(axes)
        if n < 0 or n > a.ndim or n > b.ndim:
            raise ValueError(
                f"tensordot(): axes={n} must be between 0 and the smaller rank "
                f"({min(a.ndim, b.ndim)})"
            )
        ax1 = tuple(range(a.ndim - n, a.ndim))
        ax2 = tuple(range(n))
    for i, j in zip(ax1, ax2):
        if a.shape[i] != b.shape[j]:
            raise ValueError(
                f"tensordot(): axis {i} of x1 (size {a.shape[i]}) and axis {j} of x2 "
                f"(size {b.shape[j]}) differ"
            )

    def build() -> Any:
        def f(p: Any, q: Any) -> Any:
            return jnp.tensordot(p.astype(dt), q.astype(dt), axes=(ax1, ax2),
                                 preferred_element_type=dt)

        return f

    return Tensor._wrap(_kernels.call(("tensordot", dt, ax1, ax2), build, a, b))


def vecdot(x1: Tensor, x2: Tensor, /, *, axis: int = -1) -> Tensor:
    """Dot products ``sum(conj(x1) * x2)`` along ``axis`` (other axes broadcast).

    >>> import jaxtensor as jt
    >>> jt.vecdot(jt.asarray([[1., 2.], [3., 4.]]), jt.asarray([1., 1.])).tolist()
    [3.0, 7.0]
    """
    a, b, dt = operands(x1, x2, "vecdot")
    ax = operator.index(axis)
    n = min(a.ndim, b.ndim)
    if n == 0:
        raise ValueError("vecdot() needs Tensors with at least one dimension")
    if ax >= 0:
        nd = max(a.ndim, b.ndim)
        if ax >= nd:
            raise _args.AxisError(f"vecdot(): axis {ax} is out of bounds")
        ax = ax - nd
    if not -n <= ax <= -1:
        raise _args.AxisError(
            f"vecdot(): axis {axis} is out of bounds for Tensors of rank {a.ndim} and {b.ndim}"
        )
    if a.shape[ax] != b.shape[ax]:
        raise ValueError(
            f"vecdot(): the contracted axis has size {a.shape[ax]} in x1 and {b.shape[ax]} "
            "in x2"
        )
    broadcast_shapes(tuple(np.delete(np.array(a.shape, dtype=object), ax)),
                     tuple(np.delete(np.array(b.shape, dtype=object), ax)))

    def build() -> Any:
        def f(p: Any, q: Any) -> Any:
            p = jnp.moveaxis(p.astype(dt), ax, -1)
            q = jnp.moveaxis(q.astype(dt), ax, -1)
            if dt.kind == "c":
                p = jnp.conj(p)
            return jnp.matmul(p[..., None, :], q[..., :, None],
                              preferred_element_type=dt)[..., 0, 0]

        return f

    return Tensor._wrap(_kernels.call(("vecdot", dt, ax), build, a, b))
