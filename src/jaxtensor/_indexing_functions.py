"""Indexing functions: the Array API's ``take``/``take_along_axis`` and the PyTorch/Paddle
gather/scatter family (``gather``, ``scatter``, ``scatter_reduce``, ``index_put``, ``index_add``,
``gather_nd``, ``scatter_nd``, ``scatter_nd_add``), with their Tensor methods.

Conventions shared by every function here:

* indices are int32/int64 (a float or bool index raises ``TypeError``; ``index_put`` also takes
  boolean masks, as PyTorch does); negative values count from the end; a value outside
  ``[-n, n)`` raises ``IndexError`` naming the value and the size before anything runs (under
  tracing the running ``jaxtensor.jit`` trace run instead);
* shape mismatches raise ``ValueError`` naming the shapes;
* duplicate indices: with ``reduce=None`` / ``accumulate=False`` the *last* value in C order of
  the index wins, deterministically on every backend (PyTorch leaves this undefined); reductions
  combine every duplicate;
* everything is differentiable with ``jax.grad``/``vjp``/``jvp`` (eager and under ``jit``);
  gradients follow PyTorch autograd (scatter-add for repeated indices, ties of ``amax``/``amin``
  share the gradient evenly). Where PyTorch's own gradient is arbitrary (the source of an
  overwritten duplicate in ``scatter``/``index_put``) ours is the mathematically exact one: zero;
* the ``*_`` methods write through the Tensor's storage, so every view sees the change, and
  reuse its buffer when nothing else holds it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from . import _args
from ._args import wrap
from ._core import Tensor, _kernels, asarray
from ._index_select import check_bounds, check_dim, index_value, normalize, select
from ._indexing import NonConcreteBooleanIndexError, prepare_value, rebuild, resolve

__all__ = [
    "gather",
    "index_add",
    "index_put",
    "scatter",
    "scatter_reduce",
    "take",
    "take_along_axis",
]

Tracer = jax.core.Tracer


def _fmt(shape: Sequence[int]) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _mode(checked: bool) -> Any:
    return "promise_in_bounds" if checked else "clip"


def _smode(checked: bool) -> Any:
    return "promise_in_bounds" if checked else "drop"


def _source(src: Any, dtype: np.dtype, fname: str, name: str = "src") -> Any:
    """A value to write into a Tensor of ``dtype``: cast like ``astype``; complex into real
    raises ``TypeError``."""
    if isinstance(src, (bool, int, float, complex)):
        if isinstance(src, complex) and dtype.kind != "c":
            raise TypeError(f"{fname}(): cannot write a complex {name} into a {dtype} Tensor")
        return np.asarray(src, dtype=dtype)
    v = _args.value(src, "src", fname)
    if np.dtype(v.dtype).kind == "c" and dtype.kind != "c":
        raise TypeError(
            f"{fname}(): cannot write a {np.dtype(v.dtype)} {name} into a {dtype} Tensor; "
            "write src.real or cast the Tensor to a complex dtype"
        )
    return v


# -- take / take_along_axis ---------------------------------------------------------------
def take(x: Any, indices: Any, /, *, axis: int | None = None) -> Tensor:
    """Elements of ``x`` at ``indices`` along ``axis`` (Array API ``take``).

    ``axis`` may be omitted only for a 1-D ``x``. Negative indices count from the end.

    >>> import jaxtensor as jt
    >>> jt.take(jt.asarray([10, 20, 30]), jt.asarray([2, -3])).tolist()
    [30, 10]
    >>> jt.take(jt.asarray([[1, 2], [3, 4]]), jt.asarray([1]), axis=1).tolist()
    [[2], [4]]
    """
    xv = _args.value(x, "x", "take")
    if axis is None:
        if xv.ndim != 1:
            raise ValueError(
                f"take(): axis is required for a {xv.ndim}-D Tensor (shape {_fmt(xv.shape)}); "
                "pass axis=, or flatten x with reshape(x, (-1,)) first"
            )
        axis = 0
    return select(x if isinstance(x, Tensor) else Tensor._wrap(xv), axis, indices,
                  fname="take", names=("axis", "indices"))


def take_along_axis(x: Any, indices: Any, /, *, axis: int = -1) -> Tensor:
    """``x`` gathered along ``axis`` at ``indices`` of the same rank (Array API
    ``take_along_axis``; NumPy's broadcasting of the other dimensions).

    >>> import jaxtensor as jt
    >>> x = jt.asarray([[10, 30, 20], [60, 40, 50]])
    >>> jt.take_along_axis(x, jt.asarray([[0], [1]]), axis=1).tolist()
    [[10], [40]]
    """
    xv = _args.value(x, "x", "take_along_axis")
    iv = index_value(indices, "take_along_axis", "indices")
    ax = check_dim(axis, xv.ndim, "take_along_axis", "axis")
    if iv.ndim != xv.ndim:
        raise ValueError(
            f"take_along_axis(): indices (shape {_fmt(iv.shape)}) must have the same number "
            f"of dimensions as x (shape {_fmt(xv.shape)})"
        )
    for d in range(xv.ndim):
        if d != ax and iv.shape[d] != xv.shape[d] and 1 not in (iv.shape[d], xv.shape[d]):
            raise ValueError(
                f"take_along_axis(): indices of shape {_fmt(iv.shape)} do not broadcast with x "
                f"of shape {_fmt(xv.shape)} outside axis {ax}"
            )
    n = xv.shape[ax]
    neg = check_bounds(iv, n, ax, "take_along_axis")
    checked = not isinstance(iv, Tracer)

    def build() -> Callable:
        def f(a: Any, i: Any) -> Any:
            return jnp.take_along_axis(a, normalize(i, n, neg), axis=ax, mode=_mode(checked))

        return f

    return wrap(_kernels.call(("jt.take_along_axis", ax, neg, checked, n), build, xv, iv), x)


# -- gather / scatter (PyTorch dim-wise) --------------------------------------------------
def _coords(idx: Any, dim: int) -> tuple[Any, ...]:
    """Full coordinates for PyTorch's ``gather``/``scatter``: ``index`` on ``dim``, the
    position itself on every other dimension."""
    shape = idx.shape
    return tuple(
        idx if d == dim else lax.broadcasted_iota(idx.dtype, shape, d) for d in range(len(shape))
    )


def _check_gs(fname: str, x: Any, dim: Any, index: Any, src: Any = None) -> tuple:
    xv = _args.value(x, "x", fname)
    iv = index_value(index, fname)
    d = check_dim(dim, xv.ndim, fname)
    if iv.ndim != xv.ndim and not (iv.ndim <= 1 and xv.ndim <= 1):
        raise ValueError(
            f"{fname}(): index (shape {_fmt(iv.shape)}) must have as many dimensions as x "
            f"(shape {_fmt(xv.shape)})"
        )
    if xv.ndim == 0:
        xv = xv.reshape(1)
    if iv.ndim == 0:
        iv = iv.reshape(1)
    for k in range(xv.ndim):
        if k != d and iv.shape[k] > xv.shape[k]:
            raise ValueError(
                f"{fname}(): index of shape {_fmt(iv.shape)} is larger than x of shape "
                f"{_fmt(xv.shape)} in dimension {k} (only dimension {d} may be larger)"
            )
    if src is not None and getattr(src, "ndim", 0) != 0:
        sshape = tuple(src.shape)
        if len(sshape) != len(iv.shape) or any(i > s for i, s in zip(iv.shape, sshape)):
            raise ValueError(
                f"{fname}(): src of shape {_fmt(sshape)} must have index's number of dimensions "
                f"and be at least as large as index (shape {_fmt(iv.shape)}) in every dimension"
            )
    n = xv.shape[d]
    neg = check_bounds(iv, n, d, fname)
    return xv, iv, d, neg, not isinstance(iv, Tracer)


def gather(x: Any, dim: int, index: Any) -> Tensor:
    """``out[i][j][k] = x[index[i][j][k]][j][k]`` for ``dim=0`` (``torch.gather``).

    ``index`` has ``x``'s rank and is no larger than ``x`` outside ``dim``; the result has
    ``index``'s shape.

    >>> import jaxtensor as jt
    >>> x = jt.asarray([[1, 2], [3, 4]])
    >>> jt.gather(x, 1, jt.asarray([[0, 0], [1, 0]])).tolist()
    [[1, 1], [4, 3]]
    """
    xv, iv, d, neg, checked = _check_gs("jt.gather", x, dim, index)
    n = xv.shape[d]
    squeeze = _args.value(x, "x", "gather").ndim == 0

    def build() -> Callable:
        def f(a: Any, i: Any) -> Any:
            r = a.at[_coords(normalize(i, n, neg), d)].get(mode=_mode(checked))
            return r.reshape(()) if squeeze else r

        return f

    return wrap(_kernels.call(("jt.gather", d, neg, checked, n, squeeze), build, xv, iv), x)


_REDUCE = {None: None, "add": "sum", "sum": "sum", "multiply": "prod", "prod": "prod",
           "mean": "mean", "amax": "amax", "amin": "amin"}


def _last_wins(lin: Any) -> Any:
    """A mask of the entries of ``lin`` (flat target positions) that are the last one to hit
    their position, in order."""
    k = lin.shape[0]
    order = jnp.argsort(lin, stable=True)
    s = lin[order]
    last = jnp.concatenate([s[1:] != s[:-1], jnp.ones((1,), bool)])
    return jnp.zeros((k,), bool).at[order].set(last)


def _segment_prod(lin: Any, vals: Any) -> tuple[Any, Any]:
    """(last-hit mask, product of all ``vals`` sharing a target position, at the last hit) —
    differentiable (a segmented ``associative_scan``; XLA's scatter-multiply has no transpose
    for repeated indices)."""
    k = lin.shape[0]
    order = jnp.argsort(lin, stable=True)
    s = lin[order]
    v = vals[order]
    start = jnp.concatenate([jnp.ones((1,), bool), s[1:] != s[:-1]])

    def comb(a: tuple, b: tuple) -> tuple:
        va, fa = a
        vb, fb = b
        return jnp.where(fb, vb, va * vb), fa | fb

    cum, _ = lax.associative_scan(comb, (v, start))
    last = jnp.concatenate([s[1:] != s[:-1], jnp.ones((1,), bool)])
    inv = jnp.zeros((k,), order.dtype).at[order].set(jnp.arange(k, dtype=order.dtype))
    return last[inv], cum[inv]


def _scatter_value(t: Any, coords: tuple, v: Any, reduce: str | None, include_self: bool,
                   checked: bool) -> Any:
    """``t`` with ``v`` scattered at ``coords`` (a tuple of same-shape index arrays)."""
    shape = t.shape
    mode = _smode(checked)
    k = math.prod(coords[0].shape) if coords else 1
    if k == 0:
        return t
    if reduce is None or reduce == "prod":
        flat = [c.reshape(-1) for c in coords]
        lin = jnp.zeros((k,), flat[0].dtype)
        for c, n in zip(flat, shape):
            lin = lin * n + c
        if reduce is None:
            keep = _last_wins(lin) if k > 1 else jnp.ones((1,), bool)
            vals = v.reshape(-1)
        else:
            keep, vals = _segment_prod(lin, v.reshape(-1))
        oob = jnp.asarray(shape[0], flat[0].dtype)
        sel = (jnp.where(keep, flat[0], oob),) + tuple(flat[1:])
        if reduce is None:
            return t.at[sel].set(vals, mode="drop")
        base = t if include_self else t.at[sel].set(jnp.ones((), t.dtype), mode="drop")
        factor = jnp.ones(shape, t.dtype).at[sel].set(vals, mode="drop")
        return base * factor
    if reduce == "sum":
        base = t if include_self else t.at[coords].set(0, mode=mode)
        return base.at[coords].add(v, mode=mode)
    if reduce == "mean":
        cnt = jnp.zeros(shape, jnp.int32).at[coords].add(1, mode=mode)
        base = t if include_self else t.at[coords].set(0, mode=mode)
        total = base.at[coords].add(v, mode=mode)
        denom = jnp.maximum(cnt + (1 if include_self else 0), 1).astype(t.dtype)
        if jnp.issubdtype(t.dtype, jnp.integer):
            res = total // denom
        else:
            res = total / denom
        return jnp.where(cnt > 0, res, t)
    if reduce in ("amax", "amin"):
        if jnp.issubdtype(t.dtype, jnp.inexact):
            ident = -jnp.inf if reduce == "amax" else jnp.inf
        elif t.dtype == jnp.bool_:
            ident = reduce != "amax"
        else:
            info = jnp.iinfo(t.dtype)
            ident = info.min if reduce == "amax" else info.max
        base = t if include_self else t.at[coords].set(ident, mode=mode)
        if reduce == "amax":
            return base.at[coords].max(v, mode=mode)
        return base.at[coords].min(v, mode=mode)
    raise AssertionError(reduce)


def _scatter_builder(d: int, n: int, neg: bool, checked: bool, reduce: str | None,
                     include_self: bool, ishape: tuple[int, ...]) -> Callable[[], Callable]:
    def build() -> Callable:
        def f(t: Any, v: Any, i: Any) -> Any:
            v = jnp.asarray(v)
            if v.ndim:
                v = v[tuple(slice(0, s) for s in ishape)]
            v = jnp.broadcast_to(v.astype(t.dtype), ishape)
            coords = _coords(normalize(i, n, neg), d)
            return _scatter_value(t, coords, v, reduce, include_self, checked)

        return f

    return build


def _scatter_prepare(fname: str, x: Any, dim: Any, index: Any, src: Any, reduce: Any) -> tuple:
    if reduce not in _REDUCE:
        raise ValueError(
            f"{fname}(): reduce must be one of None, 'add', 'multiply', 'amax', 'amin' "
            f"(or 'sum', 'prod', 'mean'), got {reduce!r}"
        )
    xv0 = _args.value(x, "x", fname)
    sv = _source(src, np.dtype(xv0.dtype), fname)
    xv, iv, d, neg, checked = _check_gs(fname, x, dim, index, sv)
    return xv, iv, sv, d, neg, checked, _REDUCE[reduce]


def scatter(x: Any, dim: int, index: Any, src: Any, *, reduce: str | None = None) -> Tensor:
    """A copy of ``x`` with ``src`` written at ``index`` along ``dim`` (``torch.scatter``).

    ``out[index[i][j]][j] = src[i][j]`` for ``dim=0``. ``src`` is a Tensor at least as large as
    ``index`` (its leading ``index.shape`` block is used) or a scalar. ``reduce`` combines instead
    of overwriting: ``"add"``, ``"multiply"``, ``"amax"``, ``"amin"`` (also PyTorch's
    ``scatter_reduce`` names ``"sum"``, ``"prod"``, ``"mean"``). Without ``reduce``, the last
    duplicate in C order of ``index`` wins.

    >>> import jaxtensor as jt
    >>> x = jt.zeros((2, 3))
    >>> jt.scatter(x, 1, jt.asarray([[2], [0]]), jt.asarray([[5.0], [7.0]])).tolist()
    [[0.0, 0.0, 5.0], [7.0, 0.0, 0.0]]
    >>> jt.scatter(jt.zeros(3), 0, jt.asarray([1, 1]), 1.0, reduce="add").tolist()
    [0.0, 2.0, 0.0]
    """
    return scatter_reduce(x, dim, index, src, reduce, include_self=True, _fname="scatter")


def scatter_reduce(x: Any, dim: int, index: Any, src: Any, reduce: str | None, *,
                   include_self: bool = True, _fname: str = "scatter_reduce") -> Tensor:
    """``torch.scatter_reduce``: combine ``src`` into a copy of ``x`` at ``index`` along
    ``dim`` with ``reduce`` in ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"``, ``"amin"``;
    ``include_self=False`` leaves ``x``'s own values out at the positions written.

    >>> import jaxtensor as jt
    >>> x = jt.asarray([1.0, 2.0, 3.0])
    >>> jt.scatter_reduce(x, 0, jt.asarray([0, 0, 2]), jt.asarray([4.0, 5.0, 6.0]), "amax",
    ...                   include_self=False).tolist()
    [5.0, 2.0, 6.0]
    """
    xv, iv, sv, d, neg, checked, red = _scatter_prepare(_fname, x, dim, index, src, reduce)
    n = xv.shape[d]
    squeeze = _args.value(x, "x", "scatter_reduce").ndim == 0
    build = _scatter_builder(d, n, neg, checked, red, bool(include_self), tuple(iv.shape))
    key = ("jt.scatter", d, n, neg, checked, red, bool(include_self), tuple(iv.shape))
    val = _kernels.call(key, build, xv, sv, iv)
    if squeeze:
        val = val.reshape(())
    return wrap(val, x)


def _scatter_inplace(fname: str, x: Tensor, dim: Any, index: Any, src: Any, reduce: Any,
                     include_self: bool = True) -> Tensor:
    xv, iv, sv, d, neg, checked, red = _scatter_prepare(fname, x, dim, index, src, reduce)
    if x.ndim == 0:
        new = scatter_reduce(x, dim, index, src, reduce, include_self=include_self)
        _kernels.assign(x._storage, x._view, new._value())
        return x
    n = xv.shape[d]
    ishape = tuple(iv.shape)
    build = _scatter_builder(d, n, neg, checked, red, bool(include_self), ishape)

    def inner() -> Callable:
        f = build()
        return lambda t, v, i: f(t, v, i)

    key = ("jt.scatter", d, n, neg, checked, red, bool(include_self), ishape)
    _kernels.write_indexed(x._storage, x._view, key, inner, sv, [iv])
    return x


# -- index_put / index_add ----------------------------------------------------------------
def _index_tuple(indices: Any, fname: str) -> tuple:
    if isinstance(indices, (list, tuple)):
        items = tuple(indices)
    else:
        items = (indices,)
    out = []
    for k, it in enumerate(items):
        if it is None:
            out.append(slice(None))
            continue
        v = index_value(it, fname, f"indices[{k}]", allow_bool=True)
        out.append(Tensor._wrap(jnp.asarray(v)) if isinstance(v, np.ndarray) else v)
    return tuple(out)


def index_put(x: Any, indices: Any, values: Any, accumulate: bool = False) -> Tensor:
    """A copy of ``x`` with ``x[indices] = values`` (``torch.index_put``).

    ``indices`` is a tuple of integer (or boolean mask) Tensors, one per leading dimension;
    they broadcast together like NumPy advanced indexing and ``values`` broadcasts to the
    selection. With duplicates the last value wins (deterministic); ``accumulate=True`` adds
    every value instead.

    >>> import jaxtensor as jt
    >>> x = jt.zeros(4)
    >>> jt.index_put(x, (jt.asarray([1, 1, 3]),), jt.asarray([1.0, 2.0, 3.0])).tolist()
    [0.0, 2.0, 0.0, 3.0]
    >>> jt.index_put(x, (jt.asarray([1, 1, 3]),), jt.asarray([1.0, 2.0, 3.0]),
    ...              accumulate=True).tolist()
    [0.0, 3.0, 0.0, 3.0]
    """
    xt = x if isinstance(x, Tensor) else Tensor._wrap(_args.value(x, "x", "index_put"))
    out = Tensor._wrap(xt._value())
    _index_put_inplace(out, indices, values, accumulate)
    return wrap(out._value(), xt)


def _index_put_inplace(x: Tensor, indices: Any, values: Any, accumulate: bool) -> Tensor:
    idx = _index_tuple(indices, "index_put")
    if not accumulate:
        x[idx] = values  # (Tensor.__setitem__)
        return x
    shape = x.shape
    p = resolve(idx, shape)
    if p.shape is None:
        raise NonConcreteBooleanIndexError(
            "index_put(accumulate=True) with a boolean mask inside jit/grad/vmap selects a "
            "data-dependent number of elements; use jaxtensor.nonzero(mask, size=...) for the "
            "indices"
        )
    v = prepare_value(values, x.dtype, p.shape)
    if math.prod(p.shape) == 0:
        return x
    struct, dyn = p.struct, p.dyn
    in_shape, out_shape = p.in_shape, p.shape

    def build() -> Callable:
        def add(t: Any, val: Any, *d: Any) -> Any:
            tshape = t.shape
            t = t.reshape(in_shape)
            val = _kernels._fit(val, t.dtype, out_shape)
            t = t.at[rebuild(struct, d, in_shape, False)].add(val, mode="drop")
            return t.reshape(tshape)

        return add

    key = ("jt.index_put_acc", struct, in_shape, out_shape)
    _kernels.write_indexed(x._storage, x._view, key, build, v, dyn)
    return x


def _check_index_add(fname: str, x: Any, dim: Any, index: Any, source: Any) -> tuple:
    xv = _args.value(x, "x", fname)
    d = check_dim(dim, xv.ndim, fname)
    iv = index_value(index, fname)
    if iv.ndim > 1:
        raise ValueError(f"{fname}(): index must be 0-D or 1-D, got shape {_fmt(iv.shape)}")
    sv = _source(source, np.dtype(xv.dtype), fname, "source")
    n = xv.shape[d] if xv.ndim else 1
    k = math.prod(iv.shape)
    want = tuple(xv.shape[:d]) + (k,) + tuple(xv.shape[d + 1:]) if xv.ndim else (k,)
    sshape = tuple(getattr(sv, "shape", ()))
    if sshape != want and not (sshape == () and (k == 1 or not xv.ndim)) and not (
            iv.ndim == 0 and sshape == tuple(xv.shape[:d]) + tuple(xv.shape[d + 1:])):
        raise ValueError(
            f"{fname}(): source of shape {_fmt(sshape)} does not match x of shape "
            f"{_fmt(xv.shape)} with {k} indices along dim {d}: expected {_fmt(want)}"
        )
    neg = check_bounds(iv, n, d, fname)
    return xv, iv.reshape(-1) if iv.ndim == 0 else iv, sv, d, n, neg, want


def _index_add_builder(d: int, n: int, neg: bool, checked: bool, want: tuple, alpha: Any,
                       flat: bool) -> Callable[[], Callable]:
    def build() -> Callable:
        def f(t: Any, v: Any, i: Any, a: Any) -> Any:
            tt = t.reshape(1) if flat else t
            v = jnp.broadcast_to(jnp.asarray(v).reshape(want) if jnp.size(v) == math.prod(want)
                                 else v, want).astype(tt.dtype)
            v = v * jnp.asarray(a).astype(tt.dtype)
            key = (slice(None),) * d + (normalize(i, n, neg),)
            r = tt.at[key].add(v, mode=_smode(checked))
            return r.reshape(t.shape)

        return f

    return build


def index_add(x: Any, dim: int, index: Any, source: Any, *, alpha: Any = 1) -> Tensor:
    """A copy of ``x`` with ``alpha * source`` added at ``index`` along ``dim``
    (``torch.index_add``); repeated indices accumulate.

    ``source`` has ``x``'s shape with dimension ``dim`` replaced by ``len(index)``.

    >>> import jaxtensor as jt
    >>> x = jt.zeros((3, 2))
    >>> jt.index_add(x, 0, jt.asarray([0, 2, 0]), jt.ones((3, 2))).tolist()
    [[2.0, 2.0], [0.0, 0.0], [1.0, 1.0]]
    """
    xv, iv, sv, d, n, neg, want = _check_index_add("jt.index_add", x, dim, index, source)
    checked = not isinstance(iv, Tracer)
    flat = xv.ndim == 0
    build = _index_add_builder(d, n, neg, checked, want, alpha, flat)
    f_key = ("jt.index_add", d, n, neg, checked, want, flat)

    def build2() -> Callable:
        f = build()
        return lambda t, v, i, a: f(t, v, i, a)

    return wrap(_kernels.call(f_key, build2, xv, sv, iv, alpha), x)


def _index_add_inplace(x: Tensor, dim: Any, index: Any, source: Any, alpha: Any) -> Tensor:
    xv, iv, sv, d, n, neg, want = _check_index_add("index_add_", x, dim, index, source)
    checked = not isinstance(iv, Tracer)
    build = _index_add_builder(d, n, neg, checked, want, alpha, xv.ndim == 0)

    def inner() -> Callable:
        f = build()
        return lambda t, v, i, a: f(t, v, i, a)

    key = ("jt.index_add", d, n, neg, checked, want, xv.ndim == 0)
    _kernels.write_indexed(x._storage, x._view, key, inner, sv, [iv, alpha])
    return x


# -- NumPy's ufunc.at: np.add.at(a, indices, b) -------------------------------------------
_AT_REDUCE = {"multiply": "prod", "minimum": "amin", "maximum": "amax"}


def _ufunc_at(name: str, negate: Callable[[Any], Any]) -> Callable[..., None]:
    """``jaxtensor.<name>.at(a, indices, b)``: NumPy's unbuffered in-place ``ufunc.at``,
    where a repeated index applies every value (``a[indices] += b`` applies the last)."""
    def at(a: Tensor, indices: Any, b: Any = None, /) -> None:
        fname = f"{name}.at"
        if not isinstance(a, Tensor):
            raise TypeError(f"{fname}(): a must be a Tensor (it is written in place), got "
                            f"{type(a).__name__}")
        if b is None:
            raise TypeError(f"{fname}() needs the values b")
        if type(b) in (int, bool) and a.dtype.kind in "iu":
            b = asarray(b, dtype=a.dtype)  # (NumPy's: b of a's dtype, -b wrapping in it)
        if name in ("add", "subtract"):
            idx = indices if isinstance(indices, tuple) else (indices,)
            _index_put_inplace(a, idx, b if name == "add" else negate(b), True)
            return
        if type(indices) is list and not indices:
            return  # (no element: NumPy's no-op)
        if a.ndim != 1 or isinstance(indices, tuple):
            raise NotImplementedError(
                f"jaxtensor.{fname}() takes a 1-D a and one index array; for more axes, "
                f"compute on the JAX value: a[...] = a.to_jax().at[indices]."
                f"{ {'prod': 'multiply', 'amin': 'min', 'amax': 'max'}[_AT_REDUCE[name]]}(b)")
        iv = _args.value(indices, "indices", fname)
        src = jnp.broadcast_to(_args.value(b, "b", fname).astype(a.dtype), iv.shape)
        _scatter_inplace(fname, a, 0, Tensor._wrap(iv), Tensor._wrap(src), _AT_REDUCE[name])

    at.__name__ = at.__qualname__ = "at"
    return at


def attach_ufunc_at(functions: dict[str, Callable]) -> None:
    """Give ``add``, ``subtract``, ``multiply``, ``minimum`` and ``maximum`` NumPy's
    ``.at`` (``functions``: the namespace's functions by name)."""
    def negate(b: Any) -> Any:
        return functions["negative"](_args.tensor(b, "b", "subtract.at"))

    for name in ("add", "subtract", *_AT_REDUCE):
        functions[name].at = _ufunc_at(name, negate)
