"""Set functions of the Array API standard: ``unique_all``, ``unique_counts``,
``unique_inverse``, ``unique_values`` and ``isin``.

The number of unique values is data-dependent: the ``unique_*`` functions work eagerly, and
under ``jit`` need ``size=`` (an extension, as in ``jax.numpy.unique``): the outputs then
have exactly ``size`` entries, padded with ``fill_value`` (default: the smallest unique
value). As the standard asks, NaNs are all distinct and ``-0.0 == +0.0``; ``values`` are
sorted, NaNs last.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax.numpy as jnp
import numpy as np

from . import _args
from ._core import Tensor, WeakTensor, _dtypes, _kernels

__all__ = ["isin", "unique_all", "unique_counts", "unique_inverse", "unique_values"]


class UniqueAllResult(NamedTuple):
    values: Tensor
    indices: Tensor
    inverse_indices: Tensor
    counts: Tensor


class UniqueCountsResult(NamedTuple):
    values: Tensor
    counts: Tensor


class UniqueInverseResult(NamedTuple):
    values: Tensor
    inverse_indices: Tensor


def _unique_host(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """values, first indices, inverse (flat), counts; NaNs distinct, -0 == +0."""
    flat = a.reshape(-1)
    if _dtypes.kind(flat.dtype) in "fc":
        nan = np.isnan(flat)
        if nan.any():
            keep = np.flatnonzero(~nan)
            vals, first, inv, counts = np.unique(
                flat[keep], return_index=True, return_inverse=True, return_counts=True)
            nan_pos = np.flatnonzero(nan)
            inverse = np.empty(flat.shape, np.int64)
            inverse[keep] = inv.reshape(-1)
            inverse[nan_pos] = len(vals) + np.arange(len(nan_pos))
            return (
                np.concatenate([vals, flat[nan_pos]]),
                np.concatenate([keep[first], nan_pos]),
                inverse,
                np.concatenate([counts, np.ones(len(nan_pos), counts.dtype)]),
            )
    vals, first, inv, counts = np.unique(
        flat, return_index=True, return_inverse=True, return_counts=True)
    return vals, first, inv.reshape(-1), counts


def _unique(x: Tensor, fname: str, size: int | None, fill_value: Any) -> tuple[Any, ...]:
    """(values, indices, inverse (shaped like x), counts) as jax arrays."""
    v = _args.value(x, "x", fname)
    idx = _dtypes.default_index
    if size is None:
        if _args.is_traced(v):
            raise ValueError(
                f"{fname}() inside jit/grad/vmap: the number of unique values is "
                "data-dependent. Pass size= (and fill_value=) for a static output shape, or "
                "call it outside the traced function"
            )
        vals, first, inv, counts = _unique_host(np.asarray(v))
        dev = next(iter(v.devices()))
        return (
            jnp.asarray(vals.astype(v.dtype), device=dev),
            jnp.asarray(first.astype(idx), device=dev),
            jnp.asarray(inv.astype(idx).reshape(v.shape), device=dev),
            jnp.asarray(counts.astype(idx), device=dev),
        )
    size = int(size)
    fill = fill_value
    shape = tuple(v.shape)

    def build() -> Any:
        def f(a: Any) -> Any:
            vals, first, inv, counts = jnp.unique(
                a.reshape(-1), return_index=True, return_inverse=True, return_counts=True,
                size=size, fill_value=fill, equal_nan=False)
            return vals, first.astype(idx), inv.reshape(shape).astype(idx), counts.astype(idx)

        return f

    return _kernels.call(("unique", size, fill, shape), build, v)


def unique_all(x: Tensor, /, *, size: int | None = None,
               fill_value: Any = None) -> UniqueAllResult:
    """Unique values, the index of each one's first occurrence, the inverse indices (shaped
    like ``x``) and the counts.

    >>> import jaxtensor as jt
    >>> r = jt.unique_all(jt.asarray([3, 1, 3]))
    >>> r.values.tolist(), r.indices.tolist(), r.inverse_indices.tolist(), r.counts.tolist()
    ([1, 3], [1, 0], [1, 0, 1], [1, 2])
    """
    vals, first, inv, counts = _unique(x, "unique_all", size, fill_value)
    return UniqueAllResult(Tensor._wrap(vals), Tensor._wrap(first), Tensor._wrap(inv),
                           Tensor._wrap(counts))


def unique_counts(x: Tensor, /, *, size: int | None = None,
                  fill_value: Any = None) -> UniqueCountsResult:
    """Unique values and how often each occurs.

    >>> import jaxtensor as jt
    >>> r = jt.unique_counts(jt.asarray([3, 1, 3]))
    >>> r.values.tolist(), r.counts.tolist()
    ([1, 3], [1, 2])
    """
    vals, _, _, counts = _unique(x, "unique_counts", size, fill_value)
    return UniqueCountsResult(Tensor._wrap(vals), Tensor._wrap(counts))


def unique_inverse(x: Tensor, /, *, size: int | None = None,
                   fill_value: Any = None) -> UniqueInverseResult:
    """Unique values and, for each element of ``x``, the index of its value in them.

    >>> import jaxtensor as jt
    >>> r = jt.unique_inverse(jt.asarray([3, 1, 3]))
    >>> r.values.tolist(), r.inverse_indices.tolist()
    ([1, 3], [1, 0, 1])
    """
    vals, _, inv, _ = _unique(x, "unique_inverse", size, fill_value)
    return UniqueInverseResult(Tensor._wrap(vals), Tensor._wrap(inv))


def unique_values(x: Tensor, /, *, size: int | None = None, fill_value: Any = None) -> Tensor:
    """The sorted unique values of ``x`` (NaNs are all distinct).

    >>> import jaxtensor as jt
    >>> jt.unique_values(jt.asarray([3, 1, 3])).tolist()
    [1, 3]
    """
    return Tensor._wrap(_unique(x, "unique_values", size, fill_value)[0])


def isin(x1: Any, x2: Any, /, *, invert: bool = False) -> Tensor:
    """For each element of ``x1``, whether it occurs in ``x2`` (``invert``: whether not).

    >>> import jaxtensor as jt
    >>> jt.isin(jt.asarray([1, 2, 3]), jt.asarray([2, 5])).tolist()
    [False, True, False]
    """
    inv = bool(invert)
    for t, v in ((x1, x2), (x2, x1)):
        if not isinstance(t, Tensor) or t.dtype.kind not in "iu":
            continue
        if type(v) is int and not np.iinfo(t.dtype).min <= v <= np.iinfo(t.dtype).max:
            # (a Python int beyond the other's dtype equals none of its elements, as NumPy)
            shape = x1.shape if t is x1 else ()
            return Tensor._wrap(jnp.full(shape, inv, dtype=bool))
        if v.__class__ is WeakTensor and v.dtype.kind in "iu" and t.dtype != np.uint64:
            # (a traced Python int, whose value may lie beyond t's dtype: compared wide)
            wide = _dtypes.default_int
            a, n = t._value().astype(wide), v.number().astype(wide)
            return Tensor._wrap(jnp.isin(a, n, invert=inv) if t is x1 else
                                jnp.isin(n, a, invert=inv))
    a, b, dt = _args.promoted_pair(x1, x2, fname="isin")

    def build() -> Any:
        def f(p: Any, q: Any) -> Any:
            return jnp.isin(p.astype(dt), q.astype(dt), invert=inv)

        return f

    return Tensor._wrap(_kernels.call(("isin", dt, inv), build, a, b))
