"""Manipulation functions. Those NumPy answers with views answer with views here too:
``permute_dims``, ``matrix_transpose``, ``moveaxis``, ``expand_dims``, ``squeeze``, ``flip``
and ``reshape`` of an input whose layout allows it."""

from __future__ import annotations

import math
import operator
from typing import Any

import jax.numpy as jnp

from . import _kernels, _view
from ._tensor import Tensor

__all__ = [
    "expand_dims",
    "flip",
    "matrix_transpose",
    "moveaxis",
    "permute_dims",
    "reshape",
    "squeeze",
]


def _axis(axis: Any, ndim: int, name: str = "axis") -> int:
    a = operator.index(axis)
    if not -ndim <= a < ndim:
        raise IndexError(f"{name} {a} is out of bounds for a Tensor of dimension {ndim}")
    return a % ndim


def _axes(axis: Any, ndim: int) -> tuple[int, ...]:
    axes = (axis,) if not isinstance(axis, (tuple, list)) else tuple(axis)
    out = tuple(_axis(a, ndim) for a in axes)
    if len(set(out)) != len(out):
        raise ValueError(f"repeated axis in {axis!r}")
    return out


def _resolve_shape(old: tuple[int, ...], shape: Any) -> tuple[int, ...]:
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(operator.index(s) for s in shape)
    size = math.prod(old)
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension (-1) in reshape")
    if any(s < -1 for s in shape):
        raise ValueError(f"invalid shape {shape}: negative dimensions")
    if unknown:
        known = math.prod(s for s in shape if s != -1)
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape a Tensor of size {size} into shape {shape}")
        shape = tuple(size // known if s == -1 else s for s in shape)
    if math.prod(shape) != size:
        raise ValueError(f"cannot reshape a Tensor of size {size} into shape {shape}")
    return shape


def reshape(x: Tensor, /, shape: Any, *, copy: bool | None = None) -> Tensor:
    """Reshape; a view when NumPy would return one (``copy=None``), else a copy."""
    new = _resolve_shape(x.shape, shape)
    if not copy:
        v = _view.compose_reshape(x._view, x.shape, new)
        if v is not None:
            return x._derive(v)
        if copy is False:
            raise ValueError(
                f"reshape(copy=False): a Tensor of shape {x.shape} with this layout cannot "
                f"be reshaped to {new} without copying"
            )
    val = _kernels.call(("reshape", new), lambda: lambda a: jnp.reshape(a, new), x._value())
    if val is x._storage.array:
        val = jnp.array(val, copy=True)
    return Tensor._wrap(val)


def permute_dims(x: Tensor, /, axes: tuple[int, ...]) -> Tensor:
    n = x.ndim
    axes = tuple(_axis(a, n) for a in axes)
    if sorted(axes) != list(range(n)):
        raise ValueError(f"axes {axes} are not a permutation of the {n} dimensions")
    return x._derive(_view.compose_axes(x._view, x.shape, list(axes)))


def matrix_transpose(x: Tensor, /) -> Tensor:
    return x.mT


def moveaxis(x: Tensor, source: Any, destination: Any, /) -> Tensor:
    n = x.ndim
    src, dst = _axes(source, n), _axes(destination, n)
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination must have the same number of axes")
    order = [a for a in range(n) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return x._derive(_view.compose_axes(x._view, x.shape, order))


def expand_dims(x: Tensor, /, axis: Any = 0) -> Tensor:
    n = x.ndim + (len(axis) if isinstance(axis, (tuple, list)) else 1)
    axes = _axes(axis, n)
    order: list[int] = []
    it = iter(range(x.ndim))
    for a in range(n):
        order.append(_view.NEWAXIS if a in axes else next(it))
    return x._derive(_view.compose_axes(x._view, x.shape, order))


def squeeze(x: Tensor, /, axis: Any) -> Tensor:
    axes = _axes(axis, x.ndim)
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(
                f"cannot squeeze axis {a}: its size is {x.shape[a]}, not 1"
            )
    order = [a for a in range(x.ndim) if a not in axes]
    return x._derive(_view.compose_axes(x._view, x.shape, order))


def flip(x: Tensor, /, *, axis: Any = None) -> Tensor:
    axes = range(x.ndim) if axis is None else _axes(axis, x.ndim)
    key = tuple(slice(None, None, -1) if a in axes else slice(None) for a in range(x.ndim))
    return x[key]
