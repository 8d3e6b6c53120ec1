"""``__getitem__``/``__setitem__``: plan an index (``_plan.py``), then lower it.

A key is split into its static signature and its values and planned once per (shape,
signature). A basic plan (ints, slices, ``None``, ``...``, 0-D integer Tensors) becomes a
view through a template (``_basic.py``); anything with an integer array, a boolean
mask or a Python ``bool`` is *advanced* and lowers to a gather (getitem, a copy) or a
scatter (setitem) on the tensor's value, compiled once per index structure. Out-of-bounds
integers raise ``IndexError`` before anything runs, so a failed operation changes nothing.

Both functions are bound as ``Tensor.__getitem__``/``__setitem__`` by ``_methods.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .._core import Tensor, _kernels, check_traced, device_constant
from .._core import current as _current_jit
from . import _basic, _plan, _values
from ._plan import Int, IntArray, Mask, NewAxis, NonConcreteBooleanIndexError, Plan, PyBool, Slice

__all__ = ["NonConcreteBooleanIndexError"]

Tracer = jax.core.Tracer
_ArrayImpl = type(jnp.zeros(()))
_IDX_NP = np.int64 if jax.config.read("jax_enable_x64") else np.int32
prepare_value = _values.prepare_value


# -- the operations ---------------------------------------------------------------------
def _basic_sig(key: Any) -> tuple | None:
    """The signature of a key of ints, slices (int/None bounds), ``None`` and ``...``
    without building its value list, else None (the cheap first test of the commonest
    keys: their values are the ints, see :func:`_ints`)."""
    t = type(key)
    if t is int:
        return _INT_SIG
    if t is slice:
        a, b, c = key.start, key.stop, key.step
        if (a is None or type(a) is int) and (b is None or type(b) is int) and (
                c is None or type(c) is int):
            return (("s", a, b, c),)
        return None
    if t is tuple:
        sig = []
        for k in key:
            tk = type(k)
            if tk is int:
                sig.append("i")
            elif tk is slice:
                a, b, c = k.start, k.stop, k.step
                if not ((a is None or type(a) is int) and (b is None or type(b) is int) and (
                        c is None or type(c) is int)):
                    return None
                sig.append(("s", a, b, c))
            elif k is None or k is Ellipsis:
                sig.append(k)
            else:
                return None
        return tuple(sig)
    return None


_INT_SIG = ("i",)


def _ints(key: Any) -> list[int]:
    if type(key) is int:
        return [key]
    if type(key) is tuple:
        return [k for k in key if type(k) is int]
    return []


def getitem(x: Tensor, key: Any) -> Tensor:
    """``x[key]``: a view for a basic index, a new Tensor for an advanced one."""
    v = x._view
    sig = _basic_sig(key)
    if sig is not None:
        tpl = _basic.lookup(v, x.shape, sig)
        ints = _ints(key)
        return x._derive(tpl.view(tpl.starts(() if v is None else v.starts, ints),
                                  (v, tpl, ints)))
    shape = x.shape
    sig, values = _plan.split(key)
    plan = _plan.plan(shape, sig)
    if plan.basic:
        tpl = _basic.template(v, shape, sig, plan)
        return x._derive(tpl.view(tpl.starts(() if v is None else v.starts, values),
                                  (v, tpl, values)))
    adv = _advanced(plan, values, shape)
    if adv.shape is None:
        where = ("inside jit" if any(isinstance(d, Tracer) for d in adv.dyn) else
                 "over the devices of several processes (each process would need the others' "
                 "part of it)")
        raise NonConcreteBooleanIndexError(
            f"a boolean mask {where} selects a data-dependent number of elements; use "
            "jaxtensor.where(mask, x, other), or jaxtensor.nonzero(mask, size=...) for a "
            "static-size index"
        )
    struct, in_shape = adv.struct, adv.in_shape
    val = _kernels.call(
        ("gather", struct, in_shape), lambda: _gather_fn(struct, in_shape), x._value(),
        *adv.dyn)
    return Tensor._wrap(val)


def setitem(x: Tensor, key: Any, value: Any) -> None:
    """``x[key] = value``: written through ``x``'s storage, so every alias sees it."""
    v = x._view
    tk = type(key)
    if v is None and (tk is int or tk is tuple) and _queue_scalar(x, key, value):
        return
    sig = _basic_sig(key)
    if sig is not None:
        tpl = _basic.lookup(v, x.shape, sig)
        ints = _ints(key)
        if type(value) is Tensor and _is_target(value, x, tpl, ints):
            return
        _write_basic(x, tpl, tpl.starts(() if v is None else v.starts, ints), value)
        return
    shape = x.shape
    sig, values = _plan.split(key)
    plan = _plan.plan(shape, sig)
    if plan.basic:
        tpl = _basic.template(v, shape, sig, plan)
        if type(value) is Tensor and _is_target(value, x, tpl, values):
            return
        _write_basic(x, tpl, tpl.starts(() if v is None else v.starts, values), value)
        return
    adv = _advanced(plan, values, shape)
    if adv.shape is None:
        _masked_assign(x, adv, value)
        return
    val = prepare_value(value, x.dtype, adv.shape)
    if math.prod(adv.shape) == 0:
        return
    struct, in_shape, out_shape = adv.struct, adv.in_shape, adv.shape
    _kernels.write_indexed(
        x._storage,
        v,
        (struct, in_shape, out_shape),  # out_shape: the closure uses it
        lambda: _scatter_fn(struct, in_shape, out_shape),
        val,
        adv.dyn,
    )


def _is_target(value: Tensor, x: Tensor, tpl: _basic.Template, ints: list) -> bool:
    """Whether ``value`` is the view ``x[key]`` made (``tpl`` and ``ints``: the template and
    the int values of ``key``): the second half of ``x[key] op= v`` (Python runs
    ``t = x[key]; t op= v; x[key] = t``), whose in-place op already wrote. Compared by the
    view's origin, so traced int values (inside ``jaxtensor.jit``) match by identity."""
    vv = value._view
    if vv is None or value._storage is not x._storage:
        return False
    o = vv.origin
    return o is not None and o[0] is x._view and o[1] is tpl and _same(o[2], ints)


def _write_basic(x: Tensor, tpl: _basic.Template, starts: list[Any], value: Any) -> None:
    val = prepare_value(value, x.dtype, tpl.shape)
    if tpl.size == 0:
        return
    storage = x._storage
    if isinstance(val, Tracer) or any(type(s) is not int for s in starts):
        storage.update(tpl.pick, _starts_array(starts), val)
        return
    # repeated starts and scalar values go to the kernel as kept device arrays
    st = tuple(starts)
    dyn = device_constant(("starts", st), lambda: jnp.asarray(np.array(st, _IDX_NP)))
    if dyn is None:
        dyn = np.array(st, dtype=_IDX_NP)
    t = type(value)
    if t is float or t is int or t is bool:
        v0 = val
        k = ("value", t, value, v0.dtype, math.copysign(1.0, value) if t is float else 0)
        kept = device_constant(k, lambda: jnp.asarray(v0))
        if kept is not None:
            val = kept
    storage.update(tpl.pick, dyn, val)


def _same(a: list, b: list) -> bool:
    """Whether two lists of index values are equal (traced ones only if identical)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is not y and (type(x) is not int or type(y) is not int or x != y):
            return False
    return True


def _starts_array(starts: list[Any]) -> Any:
    if any(isinstance(s, Tracer) for s in starts):
        return jnp.stack([jnp.asarray(s, _IDX_NP) for s in starts])
    return np.array(starts, dtype=_IDX_NP)


# -- queued scalar writes ---------------------------------------------------------------
def _queue_scalar(x: Tensor, key: Any, value: Any) -> bool:
    """``x[key] = value`` for a base tensor, an int (tuple) key and a Python number: queued
    on the storage (:meth:`Storage.queue`). False (nothing done) when the write is not of
    that simple form or would raise: the general path then handles it, errors included."""
    st = x._storage
    arr = st._array  # (read once: another thread's write may mark the slot busy)
    if type(arr) is not _ArrayImpl or _current_jit.get() is not None:
        return False
    lim = st.meta
    if lim is None:
        lim = st.meta = _limits(arr)
    del arr
    kind, lo, hi, shape = lim
    if kind is None:
        return False
    tv = type(value)
    if tv is float:
        if kind != "f":
            return False
    elif tv is int:
        if kind == "f":
            if not -1e308 < value < 1e308:
                return False
        elif not lo <= value <= hi:
            return False
    else:
        return False
    if type(key) is int:
        if len(shape) != 1:
            return False
        n = shape[0]
        if key < 0:
            key += n
        if not 0 <= key < n:
            return False
        flat = key
    else:
        if len(key) != len(shape):
            return False
        flat = 0
        for i, n in zip(key, shape):
            if type(i) is not int:
                return False
            if i < 0:
                i += n
            if not 0 <= i < n:
                return False
            flat = flat * n + i
    st.queue(flat, value)
    return True


def _limits(arr: Any) -> tuple:
    """(kind, min, max, shape) of a storage's value, for queued writes."""
    dt = np.dtype(arr.dtype)
    shape = tuple(arr.shape)
    if dt.kind == "f":
        return ("f", None, None, shape)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return ("i", int(info.min), int(info.max), shape)
    return (None, None, None, shape)


# -- advanced indices -----------------------------------------------------------------
class _Advanced:
    """An advanced plan resolved for one call: the static structure of the jnp index
    (``struct``), its dynamic arrays (``dyn``), the indexed shape with Python-bool axes
    inserted (``in_shape``) and the result's shape (None: a traced mask)."""

    __slots__ = ("struct", "dyn", "in_shape", "shape", "mask")

    def __init__(self, struct: tuple, dyn: list[Any], in_shape: tuple[int, ...],
                 shape: tuple[int, ...] | None, mask: Any = None) -> None:
        self.struct, self.dyn, self.in_shape, self.shape, self.mask = (
            struct, dyn, in_shape, shape, mask)


def _bounds_error(i: int, axis: int, n: int) -> IndexError:
    return IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")


def _spans_processes(a: Any) -> bool:
    """Whether ``a`` is a global array this process holds only part of."""
    return type(a) is _ArrayImpl and not a.is_fully_addressable


def _advanced(plan: Plan, values: list[Any], shape: tuple[int, ...]) -> _Advanced:
    """Resolve masks to integer arrays, check bounds and compute the jnp index structure.

    A Python ``bool`` inserts a real axis of size 1 indexed by ``[0]`` (True) or ``[]``
    (False), which is exactly NumPy's meaning. An ellipsis covering no axis (``plan.gap``)
    separates the advanced indices on its two sides, as in NumPy.
    """
    struct: list[tuple] = []
    dyn: list[Any] = []
    arrays: list[tuple[Any, int, int]] = []  # (array, axis in the user's shape, size)
    resolved: list[Any] = []  # typed items after mask resolution, for the result shape
    expand: list[int] = []
    gap = None
    shift = 0
    pos = 0  # input axes consumed so far, in the expanded shape
    traced_mask = None
    it = iter(values)
    for j, item in enumerate(plan.items):
        if j == plan.gap:
            gap = len(resolved)
            struct.append(("e",))
        t = type(item)
        if t is NewAxis:
            struct.append(("n",))
            resolved.append(item)
        elif t is Slice:
            # a slice of at most one element takes step 1: its own step may exceed the
            # int32 arithmetic of JAX's indexing (x[::2**31, [0]])
            step = item.step if item.size > 1 else 1
            stop = item.start + item.size * step
            struct.append(("s", item.start, None if stop < 0 else stop, step,
                           item.axis + shift))
            resolved.append(Slice(item.axis + shift, item.start, item.size, step))
            pos = item.axis + shift + 1
        elif t is Int:
            i = next(it)
            n = item.size
            if isinstance(i, Tracer):
                check_traced(i, n, item.axis)
            elif not -n <= i < n:
                raise _bounds_error(i, item.axis, n)
            struct.append(("i", item.axis + shift))
            dyn.append(i)
            resolved.append(item)
            pos = item.axis + shift + 1
        elif t is IntArray:
            a = next(it)
            struct.append(("a", item.axis + shift))
            dyn.append(a)
            arrays.append((a, item.axis, item.size))
            resolved.append(IntArray(item.axis + shift, item.size, item.shape))
            pos = item.axis + shift + 1
        elif t is PyBool:
            idx = np.zeros(1 if item.value else 0, np.intp)
            struct.append(("a", pos))
            dyn.append(idx)
            resolved.append(IntArray(pos, 1, idx.shape))
            expand.append(pos)
            shift += 1
            pos += 1
        else:  # Mask
            m = next(it)
            axis = item.axis + shift
            if not item.shape:  # a 0-D mask: a new axis of size 1, selected or not
                m = (jnp.reshape(m, (1,)) if isinstance(m, Tracer) or _spans_processes(m)
                     else np.reshape(m, (1,)))
                expand.append(pos)
                shift += 1
                axis = pos
            if isinstance(m, Tracer) or _spans_processes(m):
                # (a mask known only on device: lowered to where when written through)
                if traced_mask is not None:
                    traced_mask = ()  # more than one: not lowerable to where
                else:
                    traced_mask = (m, axis)
                struct.append(("m", axis))
                dyn.append(m)
                resolved.append(item)
            else:
                for d, idx in enumerate(np.nonzero(np.asarray(m))):
                    struct.append(("a", axis + d))
                    dyn.append(idx)
                    resolved.append(IntArray(axis + d, 0, idx.shape))
            pos = axis + max(len(item.shape), 1)
    in_shape = shape
    if expand:
        s = list(shape)
        for p in expand:
            s.insert(p, 1)
        in_shape = tuple(s)
    if traced_mask is not None:
        return _Advanced(tuple(struct), dyn, in_shape, None, (traced_mask, resolved))
    if plan.shape is not None:
        out = plan.shape
        bsize = _broadcast_size(arrays, plan)
    else:
        adv = [() if type(r) is Int else r.shape for r in resolved
               if type(r) in (Int, IntArray)]
        bshape = _plan.broadcast_index_shapes(adv)
        out = _plan.result_shape(tuple(resolved), bshape, gap)
        bsize = math.prod(bshape)
    # NumPy checks array bounds only when something is selected, except a 0-D array's (it
    # is checked like the integer it holds)
    for a, axis, n in arrays:
        if bsize or not a.ndim:
            if isinstance(a, Tracer):
                check_traced(a, n, axis)
                continue
            if _spans_processes(a):  # (no process holds it whole: reduced on device)
                if not a.size:
                    continue
                lo, hi = int(jnp.min(a)), int(jnp.max(a))
            else:
                a_np = np.asarray(a)
                if not a_np.size:
                    continue
                lo, hi = int(a_np.min()), int(a_np.max())
            if lo < -n or hi >= n:
                raise _bounds_error(hi if hi >= n else lo, axis, n)
    return _Advanced(tuple(struct), dyn, in_shape, out)


def _broadcast_size(arrays: list, plan: Plan) -> int:
    shapes = [it.shape for it in plan.items if type(it) is IntArray]
    shapes += [(1 if it.value else 0,) for it in plan.items if type(it) is PyBool]
    return math.prod(np.broadcast_shapes(*shapes)) if shapes else 1


def resolve(key: Any, shape: tuple[int, ...]) -> _Advanced:
    """An advanced ``key`` on a Tensor of ``shape``, planned and resolved for one call (for
    the gather/scatter functions that lower like ``__setitem__``)."""
    sig, values = _plan.split(key)
    plan = _plan.plan(shape, sig)
    return _advanced(plan, values, shape)


# -- lowering advanced indices to jnp indexing ----------------------------------------
def _rebuild(struct: tuple, dyn: tuple, shape: tuple[int, ...], dedupe: bool) -> tuple:
    """The jnp index for ``struct``; with ``dedupe``, later duplicates win (earlier dropped)."""
    idx: list[Any] = []
    adv: list[tuple[int, int]] = []  # (position in idx, axis size)
    d = 0
    for s in struct:
        k = s[0]
        if k == "n":
            idx.append(None)
        elif k == "e":
            idx.append(Ellipsis)
        elif k == "s":
            idx.append(slice(s[1], s[2], s[3]))
        else:
            v = jnp.asarray(dyn[d])
            d += 1
            n = shape[s[1]]
            adv.append((len(idx), n))
            idx.append(jnp.where(v < 0, v + n, v))
    if dedupe and adv:
        arrays = jnp.broadcast_arrays(*[idx[p] for p, _ in adv])
        bshape = arrays[0].shape
        k = math.prod(bshape)
        if k > 1:
            lin = jnp.zeros(bshape, arrays[0].dtype)
            for a, (_, n) in zip(arrays, adv):
                lin = lin * n + a
            lin = lin.ravel()
            order = jnp.argsort(lin, stable=True)
            s_lin = lin[order]
            last = jnp.concatenate([s_lin[1:] != s_lin[:-1], jnp.ones((1,), bool)])
            keep = jnp.zeros((k,), bool).at[order].set(last).reshape(bshape)
            p0, n0 = adv[0]
            idx[p0] = jnp.where(keep, arrays[0], n0)
            for (p, _), a in zip(adv[1:], arrays[1:]):
                idx[p] = a
    return tuple(idx)


def _gather_fn(struct: tuple, in_shape: tuple[int, ...]) -> Callable:
    def gather(v: Any, *dyn: Any) -> Any:
        v = v.reshape(in_shape)
        return v.at[_rebuild(struct, dyn, in_shape, False)].get(mode="clip")

    return gather


def _scatter_fn(struct: tuple, in_shape: tuple[int, ...], out_shape: tuple[int, ...]) -> Callable:
    def scatter(t: Any, v: Any, *dyn: Any) -> Any:
        shape = t.shape
        t = t.reshape(in_shape)
        v = _kernels._fit(v, t.dtype, out_shape)  # also drops a value's leading 1-sides
        t = t.at[_rebuild(struct, dyn, in_shape, True)].set(v, mode="drop")
        return t.reshape(shape)

    return scatter


def _masked_assign(x: Tensor, adv: _Advanced, value: Any) -> None:
    """``x[mask] = value`` with a traced mask: ``where(mask, value, x)`` (static shape)."""
    (mask_axis, resolved) = adv.mask
    others = [r for r in resolved if type(r) is not Mask]
    in_shape = adv.in_shape
    full = mask_axis != () and all(
        type(r) is Slice and r.start == 0 and r.step == 1 and r.size == in_shape[r.axis]
        for r in others)
    if not full:
        raise NonConcreteBooleanIndexError(
            "inside jit or over the devices of several processes, a boolean mask can only be "
            "assigned through alone (x[mask] = value, lowered to where); for anything else "
            "use jaxtensor.where(mask, value, x)"
        )
    mask, axis = mask_axis
    v = prepare_value(value, x.dtype, x.shape)
    m = jnp.reshape(
        mask, (1,) * axis + tuple(mask.shape) + (1,) * (len(in_shape) - axis - len(mask.shape))
    )
    cur = x._value()
    new = jnp.where(
        m, _kernels._fit(v, x.dtype, x.shape).reshape(in_shape), cur.reshape(in_shape)
    ).reshape(x.shape)
    _kernels.assign(x._storage, x._view, new)
