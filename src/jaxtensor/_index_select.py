"""``index_select``: a tiled ``lax.fori_loop`` over the output, compiled by XLA.

The operation (pypto's ``index_select``, PyTorch's ``torch.index_select``)::

    out[s_0, ..., s_{d-1}, i..., s_{d+1}, ...] = x[s_0, ..., s_{d-1}, index[i...], s_{d+1}, ...]

has two kernels:

* **tiled** — the output is cut into tiles of ``tile_shape`` (one entry per output dimension,
  pypto's TileShape ``[b1, t1, d1]`` for input ``[B, S, D]``, index ``[T]`` and ``dim=-2``). A
  ``lax.fori_loop`` walks the tile grid. The index is normalised and cast to int32 **once**,
  before the loop; each step slices the tile's part of it (``dynamic_slice``), gathers the tile
  with one bare ``lax.gather`` from a ``dynamic_slice`` window of ``x`` (contiguous row copies
  when the tile spans whole inner rows) and writes it with ``dynamic_update_slice`` into the
  loop-carried output; XLA fuses the three into one in-place loop per step. The carried output
  starts as :func:`~jaxtensor._core._uninitialized.uninitialized` gives it (``lax.empty``, a
  zero fill on XLA:CPU; uninitialised with the opt-in ``JAXTENSOR_UNINITIALIZED_OUTPUT=1``)
  or, with ``out=``, as the donated buffer. A remainder tile (sizes that do not
  divide) is *fused*: the last tile along a dimension starts at ``size - tile`` instead of
  running past the end, so it overlaps its neighbour and rewrites identical values — one loop
  body, no padding, no second kernel. The default tile is the largest block of whole inner rows
  within the backend's byte budget (``_config.TILE_BUDGET``).
* **direct** — one XLA gather (``mode=promise_in_bounds`` once the indices were checked eagerly,
  ``clip`` under tracing).

Which one runs (``tile_shape=None``) is decided by :func:`choose_kernel` from the measurements
of ``benchmarks/bench_index_select.py`` (``docs/benchmarks.md``, ``docs/index_select.md``): on
one CPU core the tiled loop is faster for column gathers (short rows under leading dimensions)
and equal elsewhere; with several cores XLA splits the single gather over threads, which a
``while`` loop cannot do; on GPU/TPU one gather is a single fused kernel. An explicit
``tile_shape`` always runs the tiled kernel. ``_config.INDEX_SELECT_DISPATCH`` overrides the
choice process-wide
(``"auto"``, ``"direct"``, ``"tiled"``).

Both kernels are differentiable (``jax.grad``/``vjp``/``jvp``, eager and under ``jit``): the
tiled one carries a ``custom_jvp`` whose tangent is the direct gather, so its transpose — the
gradient — is a scatter-add of the cotangent into zeros, repeated indices accumulating as in
PyTorch autograd.
"""

from __future__ import annotations

import math
import operator
import os
import weakref
from collections.abc import Sequence
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from . import _args
from ._args import sharded
from ._core import IDX as _IDX
from ._core import (
    Tensor,
    _cache,
    _config,
    _kernels,
    check_traced,
    checked_later,
    new_tensor,
)
from ._core._uninitialized import uninitialized

__all__ = ["index_select"]

Tracer = jax.core.Tracer
_ArrayImpl = type(jnp.zeros(()))



# -- argument checking (shared with _indexing_functions) -----------------------------------
def check_dim(dim: Any, ndim: int, fname: str, name: str = "dim") -> int:
    """``dim`` as a non-negative int; ``AxisError`` (an ``IndexError``) when it is out of
    range."""
    try:
        d = operator.index(dim)
    except TypeError:
        raise TypeError(f"{fname}(): {name} must be an integer, got {type(dim).__name__}") from None
    n = max(ndim, 1)
    if not -n <= d < n:
        raise _args.AxisError(
            f"{fname}(): {name} {d} is out of range for a Tensor of dimension {ndim} "
            f"(expected {name} in [{-n}, {n - 1}])"
        )
    return d % n


def index_value(index: Any, fname: str, name: str = "index", *, allow_bool: bool = False) -> Any:
    """The jax/NumPy value of an integer index; ``TypeError`` for float, complex or bool."""
    if isinstance(index, Tensor):
        v = index._value()
    elif isinstance(index, (jax.Array, Tracer, np.ndarray)):
        v = index
    elif isinstance(index, (bool, np.bool_)):
        v = np.asarray(index)
    elif isinstance(index, (int, np.integer)):
        v = np.asarray(index, dtype=np.int64)
    elif isinstance(index, (list, tuple)):
        v = np.asarray(index)
        if v.size == 0 and v.dtype.kind == "f":
            v = v.astype(np.int64)
    else:  # anything else asarray takes (a range, a buffer, another library's array)
        v = _args.value(index, name, fname)
    dt = np.dtype(v.dtype)
    if dt.kind == "b" and allow_bool:
        return v
    if dt.kind not in "iu":
        raise TypeError(
            f"{fname}(): {name} must have an integer dtype (int32 or int64), got "
            f"{dt}; convert it with .astype(jaxtensor.int64)"
            + ("" if dt.kind != "b" else " or use jaxtensor.nonzero(mask) for a boolean mask")
        )
    # (8- and 16-bit indices cannot hold an axis's size added to a negative one)
    return v.astype(_IDX) if dt.itemsize < 4 else v


def check_bounds(idx: Any, size: int, axis: int, fname: str) -> bool:
    """Check every index value is in ``[-size, size)``; returns True when some are negative.

    Concrete indices are checked now (``IndexError`` naming the value and the size); traced
    ones go to the running ``jaxtensor.jit`` trace's check (in its checked mode) and are
    clamped by the kernel otherwise, as JAX does.
    """
    if isinstance(idx, Tracer):
        check_traced(idx, size, axis, fname)
        return True
    if not math.prod(idx.shape):
        return False
    lo, hi = min_max(idx)
    if hi >= size or lo < -size:
        t = checked_later(idx, idx.dtype)  # (checked when the program runs: a loop body)
        if t is not None:
            check_traced(t, size, axis, fname)
            return True
        bad = hi if hi >= size else lo
        raise IndexError(
            f"{fname}(): index {bad} is out of bounds for dimension {axis} with size {size}"
        )
    return lo < 0


# A jax.Array never changes, so the extremes of an index array are computed once per array
# (an eager call with the same index again skips the device-to-host copy and two reductions);
# keyed by id, checked by a weak reference (an id is reused only after its array died).
_extremes = _cache.cache("index_select index extremes", 4096)


def min_max(idx: Any) -> tuple[int, int]:
    """``(min, max)`` of a concrete, non-empty integer index (remembered for jax Arrays)."""
    if type(idx) is not _ArrayImpl:
        a = np.asarray(idx)
        return int(a.min()), int(a.max())
    key = id(idx)
    e = _extremes.get(key)
    if e is not None and e[0]() is idx:
        return e[1], e[2]
    a = np.asarray(idx)
    lo, hi = int(a.min()), int(a.max())
    _extremes[key] = (weakref.ref(idx, lambda _, k=key: _extremes.pop(k, None)), lo, hi)
    return lo, hi


def normalize(idx: Any, size: int, neg: bool) -> Any:
    """Wrap negative indices (traceable); a no-op when none can be negative."""
    idx = jnp.asarray(idx)
    if not neg or np.dtype(idx.dtype).kind == "u":
        return idx
    return jnp.where(idx < 0, idx + size, idx)


# -- kernels ---------------------------------------------------------------------------------
def _mode(checked: bool) -> Any:
    return (lax.GatherScatterMode.PROMISE_IN_BOUNDS if checked
            else lax.GatherScatterMode.CLIP)


def _direct(x: Any, idx: Any, dim: int, checked: bool) -> Any:
    """One XLA gather: ``x[..., idx, ...]`` along ``dim`` (``idx`` already non-negative)."""
    key = (slice(None),) * dim + (idx,)
    return x.at[key].get(mode=_mode(checked), unique_indices=False)




def _tangent_gather(t: Any, idx: Any, dim: int, checked: bool) -> Any:
    """The gather applied to tangents; its transpose is the gradient's scatter-add.

    For short rows (e.g. ``dim`` is the last dimension) the plain form transposes to a scatter
    whose every update is a strided column — one cache miss per element. Written instead as a
    gather with explicit coordinates ``t3[p, idx[k], :]`` over ``t`` viewed as ``[P, N, Q]``, its
    transpose walks the output row by row (``p`` outer), keeping each row of the gradient in
    cache (docs/measurements.md, section "index_select's gradient on short rows").
    """
    shape = t.shape
    P = math.prod(shape[:dim])
    N = shape[dim]
    Q = math.prod(shape[dim + 1:])
    if P <= 1 or Q * np.dtype(t.dtype).itemsize >= _config.BATCHED_GRAD_ROW_BYTES or not idx.size:
        return _direct(t, idx, dim, checked)
    it = jnp.int32 if max(P, N) < 2**31 else jnp.int64
    flat = idx.reshape(-1).astype(it)
    p = lax.broadcasted_iota(it, (P, flat.shape[0]), 0)
    r = t.reshape(P, N, Q).at[p, flat[None, :]].get(mode=_mode(checked))
    return r.reshape(out_shape(shape, idx.shape, dim))


@partial(jax.custom_jvp, nondiff_argnums=(2, 3))
def _direct_diff(x: Any, idx: Any, dim: int, checked: bool) -> Any:
    """:func:`_direct` whose derivative goes through :func:`_tangent_gather`."""
    return _direct(x, idx, dim, checked)


@_direct_diff.defjvp
def _direct_diff_jvp(dim: int, checked: bool, primals: tuple, tangents: tuple) -> tuple:
    x, idx = primals
    return _direct(x, idx, dim, checked), _tangent_gather(jnp.asarray(tangents[0]), idx, dim,
                                                         checked)


def direct_gather(x: Any, idx: Any, dim: int, checked: bool) -> Any:
    """The direct kernel on jax values (``idx`` non-negative); differentiable."""
    if jnp.issubdtype(x.dtype, jnp.inexact):
        return _direct_diff(x, idx, dim, checked)
    return _direct(x, idx, dim, checked)


def out_shape(xshape: Sequence[int], ishape: Sequence[int], dim: int) -> tuple[int, ...]:
    return tuple(xshape[:dim]) + tuple(ishape) + tuple(xshape[dim + 1:])


def default_tile(shape: Sequence[int], itemsize: int, backend: str) -> tuple[int, ...]:
    """The largest tile of whole inner rows of ``shape`` within the backend's byte budget.

    >>> default_tile((8, 2048, 512), 4, "cpu")
    (1, 128, 512)
    """
    budget = _config.TILE_BUDGET.get(backend, _config.TILE_BUDGET["cpu"])
    tile = [1] * len(shape)
    inner = itemsize
    for d in reversed(range(len(shape))):
        s = max(shape[d], 1)
        if inner * s <= budget:
            tile[d] = s
            inner *= s
        else:
            tile[d] = max(1, budget // inner)
            break
    return tuple(tile)


def _gather_dims(rank: int, dim: int, nidx: int) -> lax.GatherDimensionNumbers:
    """Dimension numbers of ``x[..., idx, ...]`` along ``dim`` (``idx[..., None]`` as indices)."""
    return lax.GatherDimensionNumbers(
        offset_dims=tuple(range(dim)) + tuple(range(dim + nidx, rank - 1 + nidx)),
        collapsed_slice_dims=(dim,),
        start_index_map=(dim,),
    )


def _rows(x: Any, idx: Any, dim: int, checked: bool) -> Any:
    """One XLA gather of ``x`` at the (non-negative, int32/int64) ``idx`` along ``dim``: no
    index normalisation inside (done once before the loop), so the loop body is the gather."""
    sizes = tuple(x.shape[:dim]) + (1,) + tuple(x.shape[dim + 1:])
    return lax.gather(x, idx[..., None], _gather_dims(x.ndim, dim, idx.ndim), sizes,
                      mode=_mode(checked))


def _tiled_impl(x: Any, idx: Any, init: Any, dim: int, tile: tuple[int, ...],
                checked: bool) -> Any:
    oshape = out_shape(x.shape, idx.shape, dim)
    nidx = idx.ndim
    grid = [-(-s // t) if s else 0 for s, t in zip(oshape, tile)]
    ntiles = math.prod(grid)
    if ntiles == 0:
        return jnp.zeros(oshape, x.dtype) if init is None else init
    if init is None:
        init = uninitialized(oshape, x.dtype)
    it = jnp.int32 if max(oshape + tuple(x.shape), default=0) < 2**31 else jnp.int64
    idx = idx.astype(it)  # once, before the loop
    zero = jnp.zeros((), it)
    win = tuple(tile[:dim]) + (x.shape[dim],) + tuple(tile[dim + nidx:])

    def body(i: Any, out: Any) -> Any:
        starts = []
        rem = i.astype(it)
        for d in reversed(range(len(oshape))):  # fused remainder: clamp the last tile back
            g = grid[d]
            if g == 1:
                starts.append(zero)
            else:
                starts.append(jnp.minimum((rem % g) * tile[d], oshape[d] - tile[d]).astype(it))
                rem = rem // g
        starts.reverse()
        xs = x
        if win != tuple(x.shape):
            xs = lax.dynamic_slice(x, starts[:dim] + [zero] + starts[dim + nidx:], win)
        ti = lax.dynamic_slice(idx, starts[dim:dim + nidx], tile[dim:dim + nidx])
        return lax.dynamic_update_slice(out, _rows(xs, ti, dim, checked), starts)

    return lax.fori_loop(zero, jnp.asarray(ntiles, it), body, init)


@partial(jax.custom_jvp, nondiff_argnums=(3, 4, 5))
def _tiled(x: Any, idx: Any, init: Any, dim: int, tile: tuple[int, ...], checked: bool) -> Any:
    return _tiled_impl(x, idx, init, dim, tile, checked)


@_tiled.defjvp
def _tiled_jvp(dim: int, tile: tuple[int, ...], checked: bool, primals: tuple,
               tangents: tuple) -> tuple[Any, Any]:
    x, idx, init = primals
    out = _tiled_impl(x, idx, init, dim, tile, checked)
    # ``init`` is overwritten everywhere, so only x's tangent flows: the direct gather of it,
    # which is linear and transposes to a scatter-add (the gradient).
    return out, _tangent_gather(jnp.asarray(tangents[0]), idx, dim, checked)


def tiled_gather(x: Any, idx: Any, dim: int, tile: Sequence[int], *, init: Any = None,
                 checked: bool = False) -> Any:
    """The tiled kernel on jax values (``idx`` non-negative); traceable and differentiable."""
    oshape = out_shape(x.shape, idx.shape, dim)
    tile = tuple(min(int(t), s) if s else 1 for t, s in zip(tile, oshape))
    if not jnp.issubdtype(x.dtype, jnp.inexact):  # nothing to differentiate
        return _tiled_impl(x, idx, init, dim, tile, checked)
    return _tiled(x, idx, init, dim, tile, checked)


def _affinity() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _cpu_threads() -> int:
    """Threads XLA:CPU may split one fusion over: ``_config.INDEX_SELECT_CPU_THREADS``, or
    if None the cores this process may run on (``os.sched_getaffinity``), which is how XLA
    sizes its intra-op thread pool."""
    n = _config.INDEX_SELECT_CPU_THREADS
    return _affinity() if n is None else n


def choose_kernel(backend: str, oshape: Sequence[int], itemsize: int, donated_out: bool,
                  lead: int = 2, row: int = 1) -> str:
    """The default kernel for a call: ``"tiled"`` or ``"direct"``
    (``_config.INDEX_SELECT_DISPATCH`` overrides it).

    ``lead`` is the product of the dimensions before ``dim``, ``row`` of those after it. The
    rule comes from the measurements in ``docs/benchmarks.md`` (section index_select) and
    ``docs/index_select.md``, one core, repeated because the machine is shared. Fresh
    outputs and ``out=`` follow the same rule (``donated_out`` does not change it): where the
    rule picks the tiled loop, it beats the direct gather from a zero-filled output too.

    * CPU, one thread: for short rows under leading dimensions (a column gather, ``dim=-1``;
      ``row * itemsize < _config.TILED_MAX_ROW_BYTES``) the loop is faster, with the opt-in
      uninitialised output and from a zero-filled one (XLA:CPU's code for one gather over the
      whole output is slower there than for the same gather per tile) -> tiled when the
      output is more than one tile. Everywhere else — row gathers (embedding lookups) and
      batches of long rows — both kernels are equal within noise -> direct, one fusion and
      the shorter compile (the ratios: docs/measurements.md, section "index_select's kernel
      choice");
    * CPU, several threads: XLA splits a large gather fusion over its intra-op thread pool,
      a ``while`` loop runs on one thread -> direct;
    * GPU/TPU: one gather is a single fused kernel, the loop runs tile after tile -> direct.

    :func:`index_select` consults it for eager calls; traced calls (inside a user's ``jit``)
    keep the direct gather unless ``INDEX_SELECT_DISPATCH`` or ``tile_shape`` says otherwise.

    >>> choose_kernel("cpu", (4096, 1024), 4, False, lead=4096, row=1) in ("tiled", "direct")
    True
    >>> choose_kernel("cpu", (16384, 256), 4, donated_out=True, lead=1, row=256)
    'direct'
    >>> choose_kernel("gpu", (4096, 1024), 4, False, lead=4096, row=1)
    'direct'
    """
    dispatch = _config.INDEX_SELECT_DISPATCH
    if dispatch != "auto":
        return dispatch
    if backend != "cpu" or _cpu_threads() > 1:
        return "direct"
    if lead <= 1 or row * itemsize >= _config.TILED_MAX_ROW_BYTES:
        return "direct"
    return "tiled" if math.prod(oshape) * itemsize > _config.TILE_BUDGET["cpu"] else "direct"


def _backend(v: Any) -> str:
    if isinstance(v, Tracer):
        return jax.default_backend()
    try:
        return next(iter(v.devices())).platform
    except Exception:  # noqa: BLE001 - e.g. a NumPy array
        return jax.default_backend()


def _check_tile(tile_shape: Any, rank: int) -> tuple[int, ...]:
    try:
        tile = tuple(operator.index(t) for t in tile_shape)
    except TypeError:
        raise TypeError(
            f"index_select(): tile_shape must be a sequence of {rank} positive ints, got "
            f"{tile_shape!r}"
        ) from None
    if len(tile) != rank or any(t < 1 for t in tile):
        raise ValueError(
            f"index_select(): tile_shape must have the output's rank ({rank}) and positive "
            f"entries, got {list(tile)}"
        )
    return tile


# -- the function ----------------------------------------------------------------------------
def index_select(x: Any, dim: int, index: Any, *, tile_shape: Sequence[int] | None = None,
                 out: Tensor | None = None) -> Tensor:
    """Select entries of ``x`` along ``dim`` at ``index`` (``torch.index_select``).

    The result has shape ``x.shape[:dim] + index.shape + x.shape[dim+1:]``. ``index`` is an
    int32/int64 Tensor or array of any rank (0-D as in ``take``); negative values count from the
    end. ``tile_shape`` (one positive int per output dimension) runs the tiled ``fori_loop``
    kernel with that tile; sizes that do not divide get a remainder tile. Without it the faster
    kernel for the backend is chosen (see the module docs). ``out=`` writes the result into an
    existing Tensor of the result's shape and dtype (its buffer is reused when nothing else
    holds it) and returns it.

    Raises ``IndexError`` for ``dim`` out of range or an index value out of bounds,
    ``TypeError`` for a float or bool index.

    >>> import jaxtensor as jt
    >>> x = jt.asarray([[0.1427, 0.0231, -0.5414, -1.0009],
    ...                 [-0.4664, 0.2647, -0.1228, -1.1068],
    ...                 [-1.1734, -0.6571, 0.7230, -0.6004]])
    >>> idx = jt.asarray([0, 2], dtype=jt.int32)
    >>> jt.index_select(x, 0, idx).tolist() == [x[0].tolist(), x[2].tolist()]
    True
    >>> jt.index_select(x, 1, idx, tile_shape=[2, 1]).shape
    (3, 2)
    >>> x.index_select(-1, jt.asarray(3)).shape
    (3,)
    """
    return select(x, dim, index, tile_shape, out)


def select(x: Any, dim: Any, index: Any, tile_shape: Sequence[int] | None = None,
           out: Tensor | None = None, fname: str = "index_select",
           names: tuple[str, str] = ("dim", "index")) -> Tensor:
    """:func:`index_select`, its errors naming the function ``fname`` and its parameters
    ``names`` (``take`` calls it with its own)."""
    if out is None and x.__class__ is Tensor and index.__class__ is Tensor:
        # a repeat of an eager call's signature: the kernel it chose, after the bounds check
        xv, iv = x._value(), index._value()
        if type(xv) is _ArrayImpl and type(iv) is _ArrayImpl:
            try:
                e = _repeat.get(_repeat_key(xv, dim, iv, tile_shape))
            except TypeError:  # not a sequence of ints: the full path says what is wrong
                e = None
            if e is not None:
                n, kernels = e
                lo, hi = min_max(iv) if iv.size else (0, 0)
                if -n <= lo and hi < n:
                    kernel = kernels.get(lo < 0)
                    if kernel is not None:
                        return new_tensor(kernel(xv, iv))
    xv = _args.value(x, "x", fname)
    d = check_dim(dim, xv.ndim, fname, names[0])
    iv = index_value(index, fname, names[1])
    n = xv.shape[d] if xv.ndim else 1
    if xv.ndim == 0:
        xv = xv.reshape(1)
    neg = check_bounds(iv, n, d, fname)
    traced = isinstance(iv, Tracer) or isinstance(xv, Tracer)
    checked = not isinstance(iv, Tracer)
    if not isinstance(iv, (jax.Array, Tracer)):
        iv = jnp.asarray(iv)
    oshape = out_shape(xv.shape, iv.shape, d)
    if len(oshape) == 0 and tile_shape is not None and len(tuple(tile_shape)) == 0:
        tile_shape = None
    tile = None if tile_shape is None else _check_tile(tile_shape, len(oshape))
    donated = False
    if out is not None:
        if not isinstance(out, Tensor):
            raise TypeError(f"index_select(): out must be a Tensor, got {type(out).__name__}")
        if tuple(out.shape) != oshape or out.dtype != xv.dtype:
            raise ValueError(
                f"index_select(): out has shape {tuple(out.shape)} and dtype {out.dtype}, the "
                f"result has shape {oshape} and dtype {np.dtype(xv.dtype)}; allocate out with "
                "jaxtensor.empty(shape, dtype=x.dtype)"
            )
        donated = out._view is None and out._storage.can_donate() and not traced
    itemsize = np.dtype(xv.dtype).itemsize
    # The rule runs for eager calls above the smallest tile budget (smaller outputs are one
    # tile: direct on every backend). Traced calls (inside a user's jit/grad) keep the direct
    # gather: their program stays free of the CPU-only FFI target of the tiled loop, which
    # jax.export cannot serialise; an explicit tile_shape or INDEX_SELECT_DISPATCH still applies.
    dispatch = _config.INDEX_SELECT_DISPATCH
    if tile is None and (dispatch != "auto" or (
            not traced and math.prod(oshape) * itemsize > min(_config.TILE_BUDGET.values()))):
        backend = _backend(xv)
        # a sharded x: one gather, which the partitioner splits by shard (a loop of
        # dynamic slices over a sharded axis would gather it onto every device)
        kind = choose_kernel(backend, oshape, itemsize, donated, math.prod(xv.shape[:d]),
                             math.prod(xv.shape[d + 1:]))
        if dispatch == "auto" and sharded(xv):
            kind = "direct"
        if kind == "tiled":
            tile = default_tile(oshape, itemsize, backend)
    key = ("jt.index_select", d, tile, neg, checked, n)

    if out is not None and out._view is None:
        def build_into() -> Any:
            def f(buf: Any, xa: Any, ia: Any) -> Any:
                ia = normalize(ia, n, neg)
                if tile is None:
                    # a full-size dynamic_update_slice lets XLA write the gather straight
                    # into the donated buffer (a bare gather result gets a fresh allocation)
                    v = direct_gather(xa, ia, d, checked).astype(buf.dtype)
                    return lax.dynamic_update_slice(buf, v, (0,) * buf.ndim)
                return tiled_gather(xa, ia, d, tile, init=buf, checked=checked)

            return f

        _kernels.update(out._storage, ("into",) + key, build_into, xv, iv)
        return out

    def build() -> Any:
        def f(xa: Any, ia: Any) -> Any:
            ia = normalize(ia, n, neg)
            if tile is None:
                return direct_gather(xa, ia, d, checked)
            return tiled_gather(xa, ia, d, tile, checked=checked)

        return f

    val = _kernels.call(key, build, xv, iv)
    if out is not None:
        _kernels.assign(out._storage, out._view, val)
        return out
    if (x.__class__ is Tensor and index.__class__ is Tensor and type(xv) is _ArrayImpl
            and type(iv) is _ArrayImpl and x.ndim):
        _repeat.setdefault(_repeat_key(xv, dim, iv, tile_shape), (n, {}))[1][neg] = (
            _kernels._pure[key])
    return Tensor._wrap(val)


# eager signature (see _repeat_key) -> (size along dim, {index has negatives: kernel})
_repeat = _cache.cache("index_select eager kernels", 1024)


def _repeat_key(xv: Any, dim: Any, iv: Any, tile_shape: Any) -> tuple:
    """Every input of an eager call's kernel choice besides the index values: shapes,
    dtypes, placement, the dispatch settings (``TypeError`` when ``tile_shape`` is not a
    sequence of hashable entries)."""
    c = _config
    return (xv.shape, xv.dtype, xv.sharding, dim, iv.shape, iv.dtype, c.INDEX_SELECT_DISPATCH,
            c.INDEX_SELECT_CPU_THREADS, *c.TILE_BUDGET.values(), c.TILED_MAX_ROW_BYTES,
            None if tile_shape is None else tuple(tile_shape))
