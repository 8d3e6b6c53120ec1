"""Manipulation functions. Those NumPy answers with views answer with views here too:
``permute_dims``, ``matrix_transpose``, ``moveaxis``, ``expand_dims``, ``squeeze``, ``flip``
and ``reshape`` of an input whose layout allows it. An array-like input (a NumPy array, a
list) is converted with ``asarray`` first: the view is one of the converted Tensor."""

from __future__ import annotations

import math
import operator
from typing import Any

import jax.numpy as jnp
import numpy as np

from . import _args
from ._core import Tensor, _dtypes, _kernels, _view
from ._info import API_VERSION

__all__ = [
    "broadcast_arrays",
    "broadcast_shapes",
    "broadcast_to",
    "concat",
    "expand_dims",
    "flip",
    "matrix_transpose",
    "moveaxis",
    "permute_dims",
    "repeat",
    "reshape",
    "roll",
    "squeeze",
    "stack",
    "tile",
    "unstack",
]




def _resolve_shape(old: tuple[int, ...], shape: Any) -> tuple[int, ...]:
    shape = _args.shape(shape, "reshape(): shape")
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
    """Reshape; a view when NumPy would return one (``copy=None``), else a copy.

    >>> import jaxtensor as jt
    >>> x = jt.arange(6)
    >>> y = jt.reshape(x, (2, 3))
    >>> y.tolist()
    [[0, 1, 2], [3, 4, 5]]
    >>> y.base is x
    True
    """
    x = _args.tensor(x, "x", "reshape")
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
    return _args.wrap(val, x)


def permute_dims(x: Tensor, /, axes: tuple[int, ...]) -> Tensor:
    """A view of ``x`` with its axes permuted to the order ``axes``.

    >>> import jaxtensor as jt
    >>> x = jt.zeros((2, 3, 4))
    >>> y = jt.permute_dims(x, (2, 0, 1))
    >>> y.shape, y.base is x
    ((4, 2, 3), True)
    """
    x = _args.tensor(x, "x", "permute_dims")
    n = x.ndim
    axes = tuple(_args.normalize_axis(a, n, "permute_dims(): axes") for a in axes)
    if sorted(axes) != list(range(n)):
        raise ValueError(f"axes {axes} are not a permutation of the {n} dimensions")
    return x._derive(_view.compose_axes(x._view, x.shape, list(axes)))


def matrix_transpose(x: Tensor, /) -> Tensor:
    """A view of ``x`` with its last two axes swapped (``x.mT``).

    >>> import jaxtensor as jt
    >>> x = jt.asarray([[1, 2, 3], [4, 5, 6]])
    >>> jt.matrix_transpose(x).tolist()
    [[1, 4], [2, 5], [3, 6]]
    """
    x = _args.tensor(x, "x", "matrix_transpose")
    return x.mT


def moveaxis(x: Tensor, source: Any, destination: Any, /) -> Tensor:
    """A view of ``x`` with the axes ``source`` moved to the positions ``destination``.

    >>> import jaxtensor as jt
    >>> x = jt.zeros((2, 3, 4))
    >>> jt.moveaxis(x, 0, -1).shape
    (3, 4, 2)
    """
    x = _args.tensor(x, "x", "moveaxis")
    n = x.ndim
    src = _args.axes_in_order(source, n, "moveaxis(): source")
    dst = _args.axes_in_order(destination, n, "moveaxis(): destination")
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination must have the same number of axes")
    order = [a for a in range(n) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return x._derive(_view.compose_axes(x._view, x.shape, order))


def expand_dims(x: Tensor, /, axis: Any = 0) -> Tensor:
    """A view of ``x`` with an axis of size 1 inserted at each position in ``axis``.

    >>> import jaxtensor as jt
    >>> x = jt.asarray([1, 2])
    >>> jt.expand_dims(x, axis=0).shape
    (1, 2)
    >>> jt.expand_dims(x, axis=(0, 2)).shape
    (1, 2, 1)
    """
    x = _args.tensor(x, "x", "expand_dims")
    n = x.ndim + (len(axis) if isinstance(axis, (tuple, list)) else 1)
    axes = _args.axes_in_order(axis, n, "expand_dims(): axis")
    order: list[int] = []
    it = iter(range(x.ndim))
    for a in range(n):
        order.append(_view.NEWAXIS if a in axes else next(it))
    return x._derive(_view.compose_axes(x._view, x.shape, order))


def squeeze(x: Tensor, /, axis: Any = None) -> Tensor:
    """A view of ``x`` without the size-1 axes named by ``axis`` (None, NumPy's default:
    every size-1 axis).

    >>> import jaxtensor as jt
    >>> x = jt.zeros((1, 3, 1))
    >>> jt.squeeze(x, axis=0).shape
    (3, 1)
    >>> jt.squeeze(x, axis=(0, 2)).shape
    (3,)
    """
    x = _args.tensor(x, "x", "squeeze")
    if axis is None:
        axis = tuple(i for i, n in enumerate(x.shape) if n == 1)
    axes = _args.axes_in_order(axis, x.ndim, "squeeze(): axis")
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(
                f"cannot squeeze axis {a}: its size is {x.shape[a]}, not 1"
            )
    order = [a for a in range(x.ndim) if a not in axes]
    return x._derive(_view.compose_axes(x._view, x.shape, order))


def flip(x: Tensor, /, *, axis: Any = None) -> Tensor:
    """A view of ``x`` with the order of elements reversed along ``axis`` (all axes by default).

    >>> import jaxtensor as jt
    >>> x = jt.asarray([[1, 2], [3, 4]])
    >>> jt.flip(x, axis=1)
    Tensor(shape=[2, 2], dtype=int64, device=cpu,
           [[2, 1],
            [4, 3]])
    >>> jt.flip(x).tolist()
    [[4, 3], [2, 1]]
    """
    x = _args.tensor(x, "x", "flip")
    axes = range(x.ndim) if axis is None else _args.axes_in_order(
        axis, x.ndim, "flip(): axis")
    key = tuple(slice(None, None, -1) if a in axes else slice(None) for a in range(x.ndim))
    return x[key] if key else x[...]  # (x[()] of a 0-D Tensor is its value, not a view)


# -- functions returning new storage ------------------------------------------------------
def broadcast_shapes(*shapes: Any) -> tuple[int | None, ...]:
    """The shape that ``shapes`` broadcast to (``None`` stands for an unknown size).

    >>> import jaxtensor as jt
    >>> jt.broadcast_shapes((2, 1), (3,))
    (2, 3)
    """
    ndim = max((len(s) for s in shapes), default=0)
    out: list[int | None] = []
    for i in range(-ndim, 0):
        size = 1
        unknown = False
        for s in shapes:
            if len(s) < -i:
                continue
            d = s[i]
            if d is None:
                unknown = True
                continue
            d = operator.index(d)
            if d == 1:
                continue
            if size == 1:
                size = d
            elif d != size:
                raise ValueError(
                    f"shapes {', '.join(map(str, map(tuple, shapes)))} cannot be broadcast "
                    "together"
                )
        if unknown:
            size = None
        out.append(size)
    return tuple(out)


def broadcast_to(x: Tensor, /, shape: Any) -> Tensor:
    """A new Tensor holding ``x`` broadcast to ``shape``.

    >>> import jaxtensor as jt
    >>> jt.broadcast_to(jt.asarray([1, 2]), (2, 2)).shape
    (2, 2)
    """
    v = _args.value(x, "x", "broadcast_to")
    shape = _args.shape(shape, "broadcast_to(): shape")
    xs = tuple(v.shape)
    if len(shape) < len(xs) or any(
        d != 1 and d != s for d, s in zip(xs[::-1], shape[::-1])
    ):
        raise ValueError(f"cannot broadcast a Tensor of shape {xs} to shape {shape}")
    out = _kernels.call(("broadcast_to", shape), lambda: lambda a: jnp.broadcast_to(a, shape), v)
    return _args.wrap(out, x)


def broadcast_arrays(*arrays: Tensor) -> tuple[Tensor, ...]:
    """New Tensors holding ``arrays`` broadcast to one shape.

    >>> import jaxtensor as jt
    >>> [a.shape for a in jt.broadcast_arrays(jt.zeros((2, 1)), jt.zeros(3))]
    [(2, 3), (2, 3)]
    """
    if len(arrays) == 1 and isinstance(arrays[0], (list, tuple)):
        arrays = tuple(arrays[0])
    arrays = tuple(_args.tensor(a, "arrays", "broadcast_arrays") for a in arrays)
    shape = broadcast_shapes(*(a.shape for a in arrays))
    out = tuple(broadcast_to(a, shape) for a in arrays)
    return out if API_VERSION >= "2025.12" else list(out)  # a list before the 2025.12 standard


def _promoted(arrays: Any, fname: str) -> tuple[list[Any], np.dtype]:
    if isinstance(arrays, Tensor) or not isinstance(arrays, (list, tuple)):
        raise TypeError(f"{fname}() takes a list or tuple of Tensors")
    if not arrays:
        raise ValueError(f"{fname}() needs at least one Tensor")
    vals = [_args.value(a, "arrays[i]", fname) for a in arrays]
    dt = np.dtype(vals[0].dtype)
    for v in vals[1:]:
        dt = _dtypes.promote(dt, np.dtype(v.dtype))
    return vals, dt


def concat(arrays: Any, /, *, axis: int | None = 0) -> Tensor:
    """Join Tensors along an existing axis (``axis=None``: flatten them first); dtypes
    promote with the standard's rules.

    >>> import jaxtensor as jt
    >>> jt.concat([jt.asarray([1, 2]), jt.asarray([3])])
    Tensor(shape=[3], dtype=int64, device=cpu,
           [1, 2, 3])
    """
    vals, dt = _promoted(arrays, "concat")
    if axis is not None:
        nd = vals[0].ndim
        if nd == 0:
            raise ValueError("concat() cannot join 0-D Tensors; use stack()")
        for v in vals:
            if v.ndim != nd:
                raise ValueError(
                    f"concat(): all Tensors must have the same number of dimensions, got "
                    f"{[tuple(w.shape) for w in vals]}"
                )
        ax = _args.normalize_axis(axis, nd, "concat(): axis")
        for v in vals:
            if tuple(v.shape[:ax]) + tuple(v.shape[ax + 1:]) != tuple(
                    vals[0].shape[:ax]) + tuple(vals[0].shape[ax + 1:]):
                raise ValueError(
                    f"concat(): shapes {[tuple(w.shape) for w in vals]} differ off axis {ax}"
                )
    else:
        ax = None

    def build() -> Any:
        def f(*vs: Any) -> Any:
            vs = [w.astype(dt) if w.dtype != dt else w for w in vs]
            if ax is None:
                vs = [w.reshape(-1) for w in vs]
                return jnp.concatenate(vs, axis=0)
            return jnp.concatenate(vs, axis=ax)

        return f

    return _args.wrap(_kernels.call(("concat", ax, dt, len(vals)), build, *vals), *arrays)


def stack(arrays: Any, /, *, axis: int = 0) -> Tensor:
    """Join same-shaped Tensors along a new axis.

    >>> import jaxtensor as jt
    >>> jt.stack([jt.zeros(3), jt.ones(3)], axis=1).shape
    (3, 2)
    """
    vals, dt = _promoted(arrays, "stack")
    shape = tuple(vals[0].shape)
    for v in vals:
        if tuple(v.shape) != shape:
            raise ValueError(
                f"stack(): all Tensors must have the same shape, got "
                f"{[tuple(w.shape) for w in vals]}"
            )
    ax = _args.normalize_axis(axis, len(shape) + 1, "stack(): axis")

    def build() -> Any:
        def f(*vs: Any) -> Any:
            return jnp.stack([w.astype(dt) if w.dtype != dt else w for w in vs], axis=ax)

        return f

    return _args.wrap(_kernels.call(("stack", ax, dt, len(vals)), build, *vals), *arrays)


def unstack(x: Tensor, /, *, axis: int = 0) -> tuple[Tensor, ...]:
    """Split ``x`` along ``axis`` into a tuple of new Tensors.

    >>> import jaxtensor as jt
    >>> [t.tolist() for t in jt.unstack(jt.asarray([[1, 2], [3, 4]]))]
    [[1, 2], [3, 4]]
    """
    v = _args.value(x, "x", "unstack")
    if v.ndim == 0:
        raise ValueError("unstack() needs a Tensor with at least one dimension")
    ax = _args.normalize_axis(axis, v.ndim, "unstack(): axis")
    n = v.shape[ax]

    def build() -> Any:
        def f(a: Any) -> Any:
            return tuple(jnp.take(a, i, axis=ax) for i in range(n))

        return f

    outs = _kernels.call(("unstack", ax, n), build, v)
    return tuple(Tensor._wrap(o) for o in outs)


def repeat(x: Tensor, repeats: Any, /, *, axis: int | None = None) -> Tensor:
    """Repeat each element ``repeats`` times (an int, or one count per element along
    ``axis``; ``axis=None`` flattens first).

    >>> import jaxtensor as jt
    >>> jt.repeat(jt.asarray([1, 2]), jt.asarray([2, 1]))
    Tensor(shape=[3], dtype=int64, device=cpu,
           [1, 1, 2])
    """
    v = _args.value(x, "x", "repeat")
    if axis is None:
        n = v.size
        ax = None
    else:
        ax = _args.normalize_axis(axis, v.ndim, "repeat(): axis")
        n = v.shape[ax]
    if not isinstance(repeats, (int, np.integer)):  # an array of counts, any array-like
        r = _args.value(repeats, "repeats", "repeat")
        if np.dtype(r.dtype).kind not in "iu":
            raise TypeError(f"repeat(): repeats must have an integer dtype, got {r.dtype}")
        if r.ndim > 1:
            raise ValueError(f"repeat(): repeats must be 0-D or 1-D, got shape {r.shape}")
        if r.ndim == 1 and r.shape[0] not in (1, n):
            raise ValueError(
                f"repeat(): repeats has {r.shape[0]} entries; it needs 1 or {n} "
                "(the size of the axis)"
            )
        if _args.is_traced(r):
            raise ValueError(
                "repeat(): with a traced repeats Tensor the output shape is not known; pass "
                "repeats as a Python int, or call repeat outside jit"
            )
        rn = np.asarray(r).reshape(-1).astype(np.int64)
        if (rn < 0).any():
            raise ValueError("repeat(): repeats must be non-negative")
        total = int(rn.sum()) * (n if rn.size == 1 else 1)
        if rn.size == 1:
            rep = int(rn[0])

            def build() -> Any:
                return lambda a: jnp.repeat(a, rep, axis=ax)

            out = _kernels.call(("repeat", rep, ax), build, v)
        else:
            def build() -> Any:
                return lambda a, rr: jnp.repeat(a, rr, axis=ax, total_repeat_length=total)

            out = _kernels.call(("repeat_arr", total, ax), build, v, rn.astype(np.int32))
        return _args.wrap(out, x)
    rep = operator.index(repeats)
    if rep < 0:
        raise ValueError("repeat(): repeats must be non-negative")
    out = _kernels.call(("repeat", rep, ax), lambda: lambda a: jnp.repeat(a, rep, axis=ax), v)
    return _args.wrap(out, x)


def roll(x: Tensor, /, shift: Any, *, axis: Any = None) -> Tensor:
    """Shift elements cyclically along ``axis`` (``None``: over the flattened Tensor).

    >>> import jaxtensor as jt
    >>> jt.roll(jt.asarray([1, 2, 3]), 1).tolist()
    [3, 1, 2]
    """
    v = _args.value(x, "x", "roll")
    if isinstance(shift, (tuple, list)):
        sh: Any = tuple(_args.index(s, "roll(): shift") for s in shift)
    else:
        sh = _args.index(shift, "roll(): shift")
    if axis is None:
        if isinstance(sh, tuple):
            if len(sh) != 1:
                raise ValueError("roll(): with axis=None, shift must be a single int")
            sh = sh[0]
        ax: Any = None
    elif isinstance(axis, (tuple, list)):
        ax = tuple(_args.normalize_axis(a, v.ndim, "roll(): axis") for a in axis)
        if isinstance(sh, int):
            sh = (sh,) * len(ax)
        if len(sh) != len(ax):
            raise ValueError(
                f"roll(): shift {shift!r} and axis {axis!r} must have the same length"
            )
    else:
        ax = _args.normalize_axis(axis, v.ndim, "roll(): axis")
        if isinstance(sh, tuple):
            raise ValueError("roll(): a tuple shift needs a tuple axis of the same length")

    # the shift is a traced argument, so one kernel serves every shift
    def build() -> Any:
        return lambda a, s: jnp.roll(a, s, axis=ax)

    return _args.wrap(_kernels.call(("roll", ax), build, v, np.asarray(sh, np.int32)), x)


def tile(x: Tensor, repetitions: Any, /) -> Tensor:
    """Repeat the whole Tensor ``repetitions[i]`` times along each axis ``i``.

    >>> import jaxtensor as jt
    >>> jt.tile(jt.asarray([1, 2]), (2,)).tolist()
    [1, 2, 1, 2]
    """
    v = _args.value(x, "x", "tile")
    reps = _args.shape(repetitions, "tile(): repetitions")
    if any(r < 0 for r in reps):
        raise ValueError(f"tile(): repetitions must be non-negative, got {reps}")
    return _args.wrap(_kernels.call(("tile", reps), lambda: lambda a: jnp.tile(a, reps), v), x)
