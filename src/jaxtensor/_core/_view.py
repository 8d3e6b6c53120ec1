"""Views: how a Tensor derives from its storage's base value, and how writes flow back.

A view is a short chain of steps, each with a ``forward(base) -> view`` and a
``backward(base, new_view) -> new_base`` (PyTorch functionalization's ViewMeta idea):

* :class:`AxisStep` — everything NumPy expresses with strides over the axes of its input:
  basic indexing (ints, slices with any step, ``None``), ``permute_dims``/``.T``/``.mT``/
  ``moveaxis``, ``flip``, ``squeeze``, ``expand_dims``. Consecutive ones fold into one, so a
  chain of slices costs one slice, and a write through it is one update of the base.
* :class:`ReshapeStep` — ``reshape`` of an input whose memory layout allows it without a copy
  (NumPy's rule).
* a trailing component (``real``/``imag`` of a complex value), which commutes with the rest.

The static structure of a view (its steps) keys compiled kernels; the start offsets are
passed to them as data, so ``x[i]`` for a varying ``i`` compiles once.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from . import _cache, _config
from ._context import current as _current_jit
from ._jax_private import put_host
from ._strides import c_strides, nocopy_strides

NEWAXIS = -1  # an inserted axis of size 1
EMPTYAXIS = -2  # an inserted axis sliced down to size 0

_IDX_NP = np.int64 if _config.X64 else np.int32
Tracer = jax.core.Tracer
_read_kernels = _cache.cache("view read kernels", 4096)


class AxisStep(NamedTuple):
    """Strided selection over the axes of the input, then a reordering with new axes.

    For input axis ``a``: ``sizes[a]`` elements from the (dynamic) start with stride
    ``steps[a]`` (negative strides walk backwards); ``fixed[a]`` drops the axis (an integer
    index). ``out`` lists the output axes: an input axis number, ``NEWAXIS`` or ``EMPTYAXIS``.
    """

    in_shape: tuple[int, ...]
    sizes: tuple[int, ...]
    steps: tuple[int, ...]
    fixed: tuple[bool, ...]
    out: tuple[int, ...]

    @property
    def out_shape(self) -> tuple[int, ...]:
        s = self.sizes
        return tuple(s[e] if e >= 0 else (1 if e == NEWAXIS else 0) for e in self.out)

    @staticmethod
    def identity(shape: tuple[int, ...]) -> AxisStep:
        n = len(shape)
        return AxisStep(shape, shape, (1,) * n, (False,) * n, tuple(range(n)))

    def is_identity(self) -> bool:
        return (
            self.sizes == self.in_shape
            and all(k == 1 for k in self.steps)
            and not any(self.fixed)
            and self.out == tuple(range(len(self.in_shape)))
        )

    # -- lowering ---------------------------------------------------------------------
    def _reshapable(self, strides: list[int]) -> bool:
        """Whether every strided axis's length is a multiple of its stride (the strided
        elements are then a column of the axis viewed as ``(n // k, k)``), in an eager
        kernel. Inside a ``jaxtensor.jit`` trace the window is sliced and updated instead:
        in a larger program XLA:CPU copied the reshaped base (docs/measurements.md, section
        "Strided writes inside jaxtensor.jit")."""
        if _current_jit.get() is not None:
            return False
        return all(n % k == 0 for n, k in zip(self.in_shape, strides))

    def _window(self, starts: Any) -> tuple[list[Any], list[int], bool]:
        lows, lens, whole = [], [], True
        for a, (n, size, k) in enumerate(zip(self.in_shape, self.sizes, self.steps)):
            length = (size - 1) * abs(k) + 1
            lens.append(length)
            if length == n:
                lows.append(0)
            else:
                whole = False
                s = starts[a]
                lows.append(s if k > 0 else s + (size - 1) * k)
        return lows, lens, whole

    def forward(self, t: Any, starts: Any, write: bool = False) -> Any:
        """The view of ``t``. ``write``: read as the write kernels write (a strided axis as
        a column of ``(n // k, k)``), so a read-modify-write updates a donated buffer in
        place; a plain read takes strided slices (whose sharding JAX propagates as for
        ``jax.numpy`` slicing)."""
        out_shape = self.out_shape
        if math.prod(out_shape) == 0:
            return jnp.zeros(out_shape, t.dtype)
        lows, lens, whole = self._window(starts)
        strides = [abs(k) for k in self.steps]
        if write and any(k != 1 for k in strides) and self._reshapable(strides):
            w = _take_reshaped(t, lows, strides, self.sizes)
        else:
            w = _region(t, lows, lens, whole)
            if any(k != 1 for k in strides):
                w = lax.slice(w, [0] * w.ndim, w.shape, strides)
        rev = tuple(a for a, k in enumerate(self.steps) if k < 0)
        if rev:
            w = lax.rev(w, rev)
        kept = [a for a in range(len(self.in_shape)) if not self.fixed[a]]
        if len(kept) != w.ndim:
            w = w.reshape([self.sizes[a] for a in kept])
        order = [e for e in self.out if e >= 0]
        if order != kept:
            w = jnp.transpose(w, [kept.index(e) for e in order])
        if w.shape != out_shape:
            w = w.reshape(out_shape)
        return w

    def backward(self, t: Any, v: Any, starts: Any, ok: Any = None) -> Any:
        """``t`` with the view's elements replaced by ``v``; with ``ok`` (a traced bool)
        only if it holds: the region's old elements are selected back where it does not
        (in the region's own shape: a select between reshapes of the region read would
        keep XLA:CPU from fusing the read into the in-place update)."""
        if math.prod(self.out_shape) == 0:
            return t
        order = [e for e in self.out if e >= 0]
        kept = sorted(order)
        v = v.reshape([self.sizes[e] for e in order])
        if order != kept:
            v = jnp.transpose(v, [order.index(e) for e in kept])
        v = v.reshape(self.sizes)
        rev = tuple(a for a, k in enumerate(self.steps) if k < 0)
        if rev:
            v = lax.rev(v, rev)
        lows, lens, whole = self._window(starts)
        strides = [abs(k) for k in self.steps]
        if any(k != 1 for k in strides):
            if self._reshapable(strides):
                if ok is not None:
                    v = jnp.where(ok, v, _take_reshaped(t, lows, strides, self.sizes))
                return _put_reshaped(t, v, lows, strides)
            w = _region(t, lows, lens, whole)
            v = _put_strided(w, v, strides, 0)
            if ok is not None:
                v = jnp.where(ok, v, w)
        elif ok is not None:
            v = jnp.where(ok, v, t if whole else _slice_at(t, lows, lens))
        if whole:
            return v
        return _update_at(t, v, lows)


def _split(t: Any, lows: list[Any], strides: list[int], sizes: tuple[int, ...]
           ) -> tuple[list[int], list[Any], list[int]]:
    """Each strided axis of ``t`` split as ``(n // k, k)``: the split shape, the start of the
    strided elements in it and the shape of the view's elements there."""
    shape: list[int] = []
    idx: list[Any] = []
    vshape: list[int] = []
    for n, k, lo, m in zip(t.shape, strides, lows, sizes):
        if k == 1:
            shape.append(n)
            idx.append(lo)
            vshape.append(m)
        else:
            shape += [n // k, k]
            if type(lo) is int:
                idx += [lo // k, lo % k]
            else:  # (a traced offset, never negative: no floor fix-up)
                lo = lax.convert_element_type(lo, _IDX_NP)
                idx += [lax.div(lo, _IDX_NP(k)), lax.rem(lo, _IDX_NP(k))]
            vshape += [m, 1]
    return shape, idx, vshape


def _take_reshaped(t: Any, lows: list[Any], strides: list[int], sizes: tuple[int, ...]) -> Any:
    """The strided elements of ``t`` (see :func:`_put_reshaped`), shaped ``sizes``."""
    shape, idx, vshape = _split(t, lows, strides, sizes)
    return _slice_at(t.reshape(shape), idx, vshape).reshape(sizes)


def _put_reshaped(t: Any, v: Any, lows: list[Any], strides: list[int]) -> Any:
    """``t`` with ``v`` written at every ``strides[d]``-th position from ``lows[d]`` on each
    axis, where each strided axis's length is a multiple of its stride: the axis is viewed
    as ``(n // k, k)`` (a reshape XLA makes without copying) and ``v`` goes to column
    ``low % k`` from row ``low // k``, one dynamic-update-slice, so a donated buffer is
    updated in place."""
    shape, idx, vshape = _split(t, lows, strides, v.shape)
    return _update_at(t.reshape(shape), v.reshape(vshape), idx).reshape(t.shape)


def _put_strided(w: Any, v: Any, strides: list[int], a: int) -> Any:
    """``w`` with ``v`` written at every ``strides[d]``-th position of each axis ``d >= a``.

    Axis by axis: take the on-stride rows, fill them recursively, and interleave them back
    with the off-stride rows by a reshape (``(s - 1) * k`` elements viewed as ``(s - 1, k)``,
    column 0 replaced) plus the last row. XLA:CPU runs this about twice as fast as a
    ``pad`` + ``where`` spread and far faster than a scatter.
    """
    nd = w.ndim
    while a < nd and strides[a] == 1:
        a += 1
    if a == nd:
        return v
    k = strides[a]
    s = v.shape[a]
    step = [1] * nd
    step[a] = k
    rows = lax.slice(w, [0] * nd, w.shape, step)
    rows = _put_strided(rows, v, strides, a + 1)
    if s == 1:
        return rows
    head_len = (s - 1) * k
    head = lax.slice_in_dim(w, 0, head_len, axis=a)
    shape = list(head.shape)
    grid = head.reshape(shape[:a] + [s - 1, k] + shape[a + 1:])
    first = lax.slice_in_dim(rows, 0, s - 1, axis=a)
    first = jnp.expand_dims(first, a + 1)
    grid = jnp.concatenate([first, lax.slice_in_dim(grid, 1, k, axis=a + 1)], axis=a + 1)
    return jnp.concatenate(
        [grid.reshape(shape), lax.slice_in_dim(rows, s - 1, s, axis=a)], axis=a
    )


class ReshapeStep(NamedTuple):
    """``reshape`` of a layout that NumPy can reshape without copying."""

    in_shape: tuple[int, ...]
    out_shape: tuple[int, ...]

    def forward(self, t: Any, starts: Any, write: bool = False) -> Any:
        return t.reshape(self.out_shape)

    def backward(self, t: Any, v: Any, starts: Any) -> Any:
        return v.reshape(self.in_shape)


Step = AxisStep | ReshapeStep


def _region(t: Any, lows: list[Any], lens: list[int], whole: bool) -> Any:
    """The window of ``t`` at ``lows``, ``lens`` long (static offsets: a slice, as jnp's)."""
    if whole:
        return t
    if all(type(v) is int for v in lows):
        return lax.slice(t, lows, [lo + n for lo, n in zip(lows, lens)])
    return _slice_at(t, lows, lens)


# A view's offsets are never negative (an index is wrapped when the view is made), so the
# dynamic slices take them as they are: JAX's own wrap of a negative start would add a
# comparison, an addition and a select per axis to every traced read and write.
def _slice_at(t: Any, lows: list[Any], lens: list[int]) -> Any:
    if _wider(lens, t.shape):  # (an element of an empty axis: a value no run can read)
        return jnp.zeros(lens, t.dtype)
    return lax.dynamic_slice(t, lows, lens, allow_negative_indices=False)


def _update_at(t: Any, v: Any, lows: list[Any]) -> Any:
    if _wider(v.shape, t.shape):  # (a write into an empty axis: no run can make it)
        return t
    return lax.dynamic_update_slice(t, v, lows, allow_negative_indices=False)


def _wider(lens: Any, shape: tuple) -> bool:
    """Whether a region of ``lens`` cannot lie in ``shape`` (a traced index of an axis of
    length 0, in a body that never runs or whose check fails where it runs: its trace must
    still make something of the region's shape)."""
    return any(n > m for n, m in zip(lens, shape))


def _n_dyn(step: Step) -> int:
    return len(step.in_shape) if type(step) is AxisStep else 0


class View:
    """An immutable view description: steps, their start offsets and a component."""

    __slots__ = ("steps", "starts", "comp", "shape", "key", "fast", "dyn_cache", "origin")

    def __init__(
        self, steps: tuple[Step, ...], starts: tuple[Any, ...], comp: str | None = None
    ) -> None:
        self.steps = steps
        self.starts = starts  # flat: the dynamic starts of every AxisStep, in order
        self.comp = comp
        self.shape = steps[-1].out_shape if steps else None
        self.key = (steps, comp)
        self.fast: _cache.Cache | None = None  # see memo()
        self.dyn_cache: Any = None  # this view's own: see dyn()
        # (the parent's view, the index template and the int values of the ``x[key]`` that
        # made this view, when it was made by indexing: see _indexing.setitem)
        self.origin: tuple | None = None

    def __repr__(self) -> str:
        return f"View(steps={self.steps}, starts={self.starts}, comp={self.comp})"

    def dyn(self) -> Any:
        """The start offsets as one integer array (a kernel argument); where some are traced,
        one scalar each (:func:`traced_offsets`).

        Host array on first use; from the second use on, a device copy kept on the view (JAX
        would otherwise convert the host array on every kernel call).
        """
        d = self.dyn_cache
        if d is not None:
            if type(d) is np.ndarray:
                dev = put_host(d)  # (jnp.asarray would compile a conversion)
                if not isinstance(dev, Tracer):
                    self.dyn_cache = d = dev
            return d
        try:
            d = np.array(self.starts, dtype=_IDX_NP)
        except Exception:  # noqa: BLE001 - a traced start (an index inside jit)
            return traced_offsets(self.starts)
        self.dyn_cache = d
        return d

    def memo(self) -> _cache.Cache:
        """The memo of this view's structure: its compiled read kernel and the templates of
        keys on it, shared by every view of that structure (a fresh ``x.T`` finds what an
        earlier one planned)."""
        f = self.fast
        if f is None:
            f = self.fast = memo_of(self.key)
        return f

    def reader(self) -> Any:
        """The compiled ``chain_forward`` of this view's structure (``fn(base, dyn)``)."""
        f = self.fast
        if f is None:
            f = self.fast = memo_of(self.key)
        fn = f.get("read")
        if fn is None:
            steps, comp = self.steps, self.comp
            fn = f["read"] = _read_kernels.get_or_make(
                self.key, lambda: jax.jit(partial(chain_forward, steps, comp)))
        return fn

    def memory_strides(self) -> tuple[int, ...] | None:
        """Element strides of the view in the base's C-order memory (None if not strided)."""
        shape = self.steps[0].in_shape
        strides = c_strides(shape)
        for st in self.steps:
            if type(st) is AxisStep:
                strides = tuple(
                    strides[e] * st.steps[e] if e >= 0 else 0 for e in st.out
                )
                shape = st.out_shape
            else:
                strides = nocopy_strides(shape, strides, st.out_shape)
                if strides is None:
                    return None
                shape = st.out_shape
        return strides


def read(view: View, base: Any) -> Any:
    """The value ``view`` derives from ``base`` (its compiled reader, or the plain function
    on traced values, at Python-int offsets static: a device array of them would be a
    constant input of the program, and its reads dynamic slices)."""
    if isinstance(base, Tracer):
        s = view.starts
        return chain_forward(view.steps, view.comp, base,
                             s if all(type(v) is int for v in s) else view.dyn())
    dyn = view.dyn()
    if type(dyn) is tuple or isinstance(dyn, Tracer):
        return chain_forward(view.steps, view.comp, base, dyn)
    return view.reader()(base, dyn)


def traced_offsets(starts: Any) -> tuple[Any, ...]:
    """Start offsets of which some are traced, as kernels take them inside a trace: one
    index-dtype scalar per axis, not stacked (the reads and writes take them one by one, and
    a stacked vector costs a concatenation and a slice per axis)."""
    return tuple(lax.convert_element_type(v, _IDX_NP) if isinstance(v, Tracer) else _IDX_NP(v)
                 for v in starts)


#: view structure (``View.key``) -> its memo (:meth:`View.memo`)
_memos = _cache.cache("view structure memos", 4096)


def memo_of(key: tuple) -> _cache.Cache:
    """The memo of a view structure (see :meth:`View.memo`), made on first use."""
    m = _memos.get(key)
    if m is None:
        m = _memos.get_or_make(key, lambda: _cache.Cache("view structure memo", 256))
    return m


# -- the whole chain as pure functions (traceable) ------------------------------------
def _opaque(dyn: Any) -> Any:
    """Start offsets known while tracing (a write inside a traced function at Python-int
    positions) hidden from XLA's constant folding: a dynamic-update-slice at constant
    indices becomes a loop over the whole buffer on XLA:CPU (docs/measurements.md, section
    "Start offsets behind an optimization barrier"), at runtime indices an in-place update of
    the region."""
    if type(dyn) is tuple or isinstance(dyn, Tracer) or not len(dyn):
        return dyn  # (traced offsets: ``View.dyn``'s tuple)
    return lax.optimization_barrier(jnp.asarray(dyn))


def chain_forward(steps: tuple[Step, ...], comp: str | None, base: Any, dyn: Any,
                  write: bool = False) -> Any:
    """The view's value (``write``: read as a write kernel reads, see ``AxisStep.forward``;
    only a write kernel hides its offsets from XLA, see ``_opaque``)."""
    if write:
        dyn = _opaque(dyn)
    t, off = base, 0
    for st in steps:
        n = _n_dyn(st)
        t = st.forward(t, None if n == 0 else [dyn[off + i] for i in range(n)], write)
        off += n
    if comp == "real":
        t = jnp.real(t)
    elif comp == "imag":
        t = jnp.imag(t)
    return t


def chain_backward(
    steps: tuple[Step, ...], comp: str | None, base: Any, dyn: Any, v: Any, ok: Any = None
) -> Any:
    """The new base after the view's value is replaced by ``v``; with ``ok`` (a traced
    bool, the first step an :class:`AxisStep`) only if ``ok`` holds."""
    dyn = _opaque(dyn)
    ts, starts, t, off = [], [], base, 0
    for st in steps:
        n = _n_dyn(st)
        s = None if n == 0 else [dyn[off + i] for i in range(n)]
        off += n
        ts.append(t)
        starts.append(s)
        t = st.forward(t, s, True)
    if comp == "real":
        v = lax.complex(v.astype(jnp.real(t).dtype), jnp.imag(t))
    elif comp == "imag":
        v = lax.complex(jnp.real(t), v.astype(jnp.imag(t).dtype))
    for st, t_in, s in zip(reversed(steps[1:]), reversed(ts[1:]), reversed(starts[1:])):
        v = st.backward(t_in, v, s)
    if steps:
        first = steps[0]
        v = (first.backward(base, v, starts[0]) if ok is None
             else first.backward(base, v, starts[0], ok))  # type: ignore[call-arg]
    if isinstance(v, Tracer) and _reshapes(steps):
        # XLA:CPU may fuse a later read of this value with a later in-place write into it
        # and overwrite what it still reads (docs/decisions.md, "Compiled writes"): the
        # barrier keeps a write made through a reshape out of later fusions
        v = lax.optimization_barrier(v)
    return v


def _reshapes(steps: tuple[Step, ...]) -> bool:
    """Whether a write through ``steps`` reshapes the base (a reshape view, or a strided
    axis written as a column of ``(n // k, k)``, which ``AxisStep._reshapable`` decides)."""
    return any(type(st) is ReshapeStep or (
        any(k != 1 for k in st.steps) and st._reshapable([abs(k) for k in st.steps]))
        for st in steps)


# -- building views -------------------------------------------------------------------
def base_view(shape: tuple[int, ...]) -> View:
    return View((AxisStep.identity(shape),), (0,) * len(shape))


def _axis_tail(view: View | None, shape: tuple[int, ...]) -> View:
    """``view`` with an AxisStep last (appending an identity step when needed)."""
    if view is None:
        return base_view(shape)
    if type(view.steps[-1]) is AxisStep:
        return view
    return View(view.steps + (AxisStep.identity(shape),), view.starts + (0,) * len(shape),
                view.comp)


def _replace_tail(view: View, step: AxisStep, tail_starts: list[Any]) -> View:
    n = len(step.in_shape)
    starts = view.starts[: len(view.starts) - n] + tuple(tail_starts)
    return View(view.steps[:-1] + (step,), starts, view.comp)


class TakeOp(NamedTuple):
    """An int of a basic index: its axis is taken at ``index`` and dropped."""

    index: Any  # non-negative; possibly traced, or affine in a key's ints


class SliceOp(NamedTuple):
    """A normalised slice of a basic index: ``size`` elements from ``start``, every ``step``."""

    start: Any  # possibly traced, or affine in a key's ints (a ds() window)
    size: int  # how many elements it selects
    step: int  # the step between them


def compose_basic(
    view: View | None, shape: tuple[int, ...], ops: list[TakeOp | SliceOp | None]
) -> View:
    """Fold a parsed basic index (on a tensor of ``shape`` with view ``view``) into a view:
    ``ops`` holds one :class:`TakeOp` or :class:`SliceOp` per consumed axis in order, and
    ``None`` per new axis; unconsumed trailing axes are kept whole.
    """
    view = _axis_tail(view, shape)
    st: AxisStep = view.steps[-1]
    n_in = len(st.in_shape)
    starts = list(view.starts[len(view.starts) - n_in:])
    sizes, steps, fixed = list(st.sizes), list(st.steps), list(st.fixed)
    out: list[int] = []
    j = 0
    for op in ops:
        if op is None:
            out.append(NEWAXIS)
            continue
        e = st.out[j]
        j += 1
        if e < 0:  # an inserted axis of size 1 (or 0)
            if type(op) is SliceOp:
                out.append(NEWAXIS if op.size == 1 else EMPTYAXIS)
            continue
        if type(op) is TakeOp:
            starts[e] = starts[e] + op.index * steps[e]
            sizes[e], steps[e], fixed[e] = 1, 1, True
        else:
            s, size, k = op.start, op.size, op.step
            if size > 0:
                starts[e] = starts[e] + s * steps[e]
                steps[e] = steps[e] * k if size > 1 else 1
            sizes[e] = size
            out.append(e)
    out.extend(st.out[j:])
    new = AxisStep(st.in_shape, tuple(sizes), tuple(steps), tuple(fixed), tuple(out))
    return _replace_tail(view, new, starts)


_new_view = object.__new__

#: (view structure or base shape, output order) -> (steps, component, zeros appended to the
#: starts, shape, key, memo): ``x.T``, ``permute_dims``, ``squeeze``... made again on a fresh view cost a lookup
_axes_memo = _cache.cache("axis reorderings", 4096)


def compose_axes(view: View | None, shape: tuple[int, ...], out_order: list[int]) -> View:
    """Reorder/insert/remove output axes: ``out_order`` lists old output axes (or NEWAXIS).

    Old axes missing from ``out_order`` must have size 1 and are dropped (squeeze). The
    start offsets are the old view's (reordering moves no window), so the new structure is
    memoised by the old one and the order.
    """
    k = (shape if view is None else view.key, tuple(out_order))
    hit = _axes_memo.get(k)
    if hit is None:
        zero = None if view is None else View(view.steps, (0,) * len(view.starts), view.comp)
        made = _compose_axes(zero, shape, out_order)
        hit = _axes_memo[k] = (made.steps, made.comp, len(made.starts) - len(
            () if view is None else view.starts), made.shape, made.key, made.memo(),
            None if view is None else False)
    if view is None:  # (of a base: every such view is the same value, so one object serves)
        shared = hit[6]
        if shared is None:
            shared = _new_view(View)
            (shared.steps, shared.comp, extra, shared.shape, shared.key, shared.fast) = hit[:6]
            shared.starts = (0,) * extra
            shared.dyn_cache = shared.origin = None
            _axes_memo[k] = hit[:6] + (shared,)
        return shared
    old = view.starts
    v = _new_view(View)
    (v.steps, v.comp, extra, v.shape, v.key, v.fast) = hit[:6]
    v.starts = old + (0,) * extra if extra else old
    v.dyn_cache = v.origin = None
    return v


def _compose_axes(view: View | None, shape: tuple[int, ...], out_order: list[int]) -> View:
    view = _axis_tail(view, shape)
    st: AxisStep = view.steps[-1]
    n_in = len(st.in_shape)
    starts = list(view.starts[len(view.starts) - n_in:])
    sizes, steps, fixed = list(st.sizes), list(st.steps), list(st.fixed)
    present = set(j for j in out_order if j >= 0)
    for j, e in enumerate(st.out):
        if j not in present and e >= 0:
            fixed[e], sizes[e], steps[e] = True, 1, 1
    out = tuple(st.out[j] if j >= 0 else NEWAXIS for j in out_order)
    new = AxisStep(st.in_shape, tuple(sizes), tuple(steps), tuple(fixed), out)
    return _replace_tail(view, new, starts)


def compose_reshape(
    view: View | None, shape: tuple[int, ...], new_shape: tuple[int, ...]
) -> View | None:
    """A view for ``reshape`` when NumPy would return one; None when a copy is needed."""
    if view is None:
        if shape == new_shape:
            return base_view(shape)
        return View((ReshapeStep(shape, new_shape),), ())
    strides = view.memory_strides()
    if strides is None or nocopy_strides(shape, strides, new_shape) is None:
        return None
    steps, starts = view.steps, view.starts
    last = steps[-1]
    if type(last) is ReshapeStep:
        steps = steps[:-1]
        in_shape = last.in_shape
    elif last.is_identity():
        starts = starts[: len(starts) - len(last.in_shape)]
        steps = steps[:-1]
        in_shape = last.in_shape
    else:
        in_shape = shape
    if not steps and in_shape == new_shape:
        return View((AxisStep.identity(new_shape),), (0,) * len(new_shape), view.comp)
    return View(steps + (ReshapeStep(in_shape, new_shape),), starts, view.comp)


def with_component(view: View | None, shape: tuple[int, ...], comp: str) -> View:
    view = _axis_tail(view, shape)
    return View(view.steps, view.starts, comp)


def element_set(view: View | None, base_shape: tuple[int, ...]) -> np.ndarray:
    """Flat indices (into the base) of the elements a view covers, for overlap tests."""
    ids = np.arange(math.prod(base_shape), dtype=np.int64).reshape(base_shape)
    if view is None:
        return ids.ravel()
    return np.asarray(chain_forward(view.steps, None, jnp.asarray(ids), view.dyn())).ravel()
