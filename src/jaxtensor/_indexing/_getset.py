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
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .._core import Deferred, Tensor, _kernels, _view, element, starts_array
from .._core import current as _current_jit
from . import _advanced, _basic, _masks, _plan, _values
from ._plan import INT, MaskCode, NonConcreteBooleanIndexError

__all__ = ["NonConcreteBooleanIndexError"]

Tracer = jax.core.Tracer
_ArrayImpl = type(jnp.zeros(()))
_IDX_NP = np.int64 if jax.config.read("jax_enable_x64") else np.int32
prepare_value = _values.prepare_value
kept_scalar = _values.kept_scalar


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
            return ((a, b, c),)  # (equal to its SliceCode: named on a miss, _basic.lookup)
        return None
    if t is tuple:
        sig = []
        for k in key:
            tk = type(k)
            if tk is int:
                sig.append(INT)
            elif tk is slice:
                a, b, c = k.start, k.stop, k.step
                if not ((a is None or type(a) is int) and (b is None or type(b) is int) and (
                        c is None or type(c) is int)):
                    return None
                sig.append((a, b, c))
            elif k is None or k is Ellipsis:
                sig.append(k)
            else:
                return None
        return tuple(sig)
    return None


_INT_SIG = (INT,)
_NO_INTS: list[int] = []  # (the ints of a slice key: never changed, see Template.starts)


def _ints(key: Any) -> list[int]:
    if type(key) is int:
        return [key]
    if type(key) is tuple:
        return [k for k in key if type(k) is int]
    return []


def getitem(x: Tensor, key: Any) -> Tensor:
    """``x[key]``: a view for a basic index, a new Tensor for an advanced one, the element's
    value (a 0-D Tensor of its own) for an integer on every axis."""
    v = x._view
    sig = _basic_sig(key)
    if sig is not None:
        tpl = _basic.lookup(v, x.shape, sig)
        tk = type(key)  # (the ints of an int or a slice key without a call)
        ints = [key] if tk is int else _NO_INTS if tk is slice else _ints(key)
        view = tpl.view(tpl.starts(() if v is None else v.starts, ints), (v, tpl, ints))
        return element(x, view) if tpl.element else x._derive(view)
    shape = x.shape
    sig, values = _plan.split(key)
    plan = _plan.plan(shape, sig)
    if plan.basic:
        tpl = _basic.template(v, shape, sig, plan)
        view = tpl.view(tpl.starts(() if v is None else v.starts, values), (v, tpl, values))
        return element(x, view) if tpl.element else x._derive(view)
    adv = _advanced.resolve_plan(plan, values, shape)
    if adv.shape is None:
        f = _masks.frame(x, plan, sig, values, key)
        if _masks.traced(f):  # (x[m] op= v, x[m] = x[m] * 2: see _masks.py)
            return _masks.read(x, f)  # type: ignore[return-value]
        where = ("inside jit/grad/vmap" if any(isinstance(d, Tracer) for d in adv.dyn) else
                 "over the devices of several processes (each process would need the others' "
                 "part of it)")
        raise NonConcreteBooleanIndexError(
            f"a boolean mask {where} selects a data-dependent number of elements; use "
            "jaxtensor.where(mask, x, other), or jaxtensor.nonzero(mask, size=...) for a "
            "static-size index"
        )
    struct, in_shape = adv.struct, adv.in_shape
    val = _kernels.call(
        ("gather", struct, in_shape), lambda: _advanced.gather_fn(struct, in_shape), x._value(),
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
        ints = [key] if tk is int else _NO_INTS if tk is slice else _ints(key)
        if type(value) is Tensor and _is_target(value, x, tpl, ints):
            return
        starts = tpl.starts(() if v is None else v.starts, ints)
        if tpl.element and type(value) is Tensor and _fuse(x, tpl, starts, value):
            return
        _write_basic(x, tpl, starts, value)
        return
    shape = x.shape
    sig, values = _plan.split(key)
    plan = _plan.plan(shape, sig)
    if plan.basic:
        tpl = _basic.template(v, shape, sig, plan)
        if type(value) is Tensor and _is_target(value, x, tpl, values):
            return
        starts = tpl.starts(() if v is None else v.starts, values)
        if tpl.element and type(value) is Tensor and _fuse(x, tpl, starts, value):
            return
        _write_basic(x, tpl, starts, value)
        return
    if type(value) is _masks.MaskedSelection:  # (x[m] op= v inside jit/grad/vmap: see _masks.py)
        _assign_selection(x, plan, sig, values, value, key)
        return
    if any(type(s) is MaskCode for s in sig) and _masks.write(
            x, plan, sig, values, value):
        return
    adv = _advanced.resolve_plan(plan, values, shape)
    if adv.shape is None:  # (not expressible as where: _masks raised or declined)
        raise NonConcreteBooleanIndexError(
            "inside jit/grad/vmap or over the devices of several processes, a boolean mask can be "
            "assigned through only alone or with ints, slices and new axes, with a value "
            "that does not depend on the number of True values; otherwise use "
            "jaxtensor.where(mask, value, x)"
        )
    val = prepare_value(value, x.dtype, adv.shape)
    if math.prod(adv.shape) == 0:
        return
    val = kept_scalar(value, val)
    dyn, duplicates = _advanced.host_dedupe(adv)
    struct, in_shape, out_shape = adv.struct, adv.in_shape, adv.shape
    _kernels.write_indexed(
        x._storage,
        v,
        (struct, in_shape, out_shape, duplicates),  # out_shape: the closure uses it
        lambda: _advanced.scatter_fn(struct, in_shape, out_shape, duplicates),
        val,
        dyn,
    )


def _assign_selection(x: Tensor, plan: _plan.Plan, sig: tuple, values: list[Any],
                      value: _masks.MaskedSelection, key: Any) -> None:
    """``x[key] = value`` (an advanced key, planned) with ``value`` a selection through a
    traced mask."""
    f = _masks.frame(x, plan, sig, values, key)
    if not _masks.traced(f):
        raise NonConcreteBooleanIndexError(_masks.READ_ERROR)
    _masks.assign(x, f, value)


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


def _fuse(x: Tensor, tpl: _basic.Template, starts: list[Any], value: Tensor) -> bool:
    """``x[key] = value`` where ``value`` is ``x[key]`` read with no write to ``x`` since and
    an in-place operator applied to it, not read yet: the second half of ``x[key] op= v``
    (Python runs ``t = x[key]; t op= v; x[key] = t``), written as ``x[key, ...] op= v``, one
    kernel. ``value`` then reads the element just written (the same value). False (nothing
    done) for any other value."""
    d = value._storage._pending
    if type(d) is not Deferred or d.then is None:
        return False
    st = x._storage
    if d.source is not st:
        return False
    with st.lock():
        then, dv = d.then, d.view
        if (value._storage._pending is not d or then is None or st._array is not d.array
                or st._pending or dv.starts != tuple(starts)
                or (dv.key is not tpl.key and dv.key != tpl.key)):
            return False
        d.array = d.then = None  # (nothing else holds the base: the write may donate it)
        try:
            then(x._derive(tpl.view(starts)))
        except BaseException:  # (nothing was written)
            d.array, d.then = st._array, then
            raise
        d.array = st._array
        st.register(value._storage)
    return True


def _write_basic(x: Tensor, tpl: _basic.Template, starts: list[Any], value: Any) -> None:
    flat = tpl.flat
    if flat is not None and (type(value) is float or type(value) is int):
        i = 0
        for s, k in zip(starts, flat):
            if type(s) is not int:
                break
            i += s * k
        else:
            if _queue_flat(x._storage, i, value):
                return
    val = prepare_value(value, x.dtype, tpl.shape)
    if tpl.size == 0:
        return
    storage = x._storage
    if isinstance(val, Tracer) or any(type(s) is not int for s in starts):
        storage.update(tpl.pick, _starts_array(starts), val)
        return
    # repeated starts and scalar values go to the kernel as kept device arrays
    storage.update(tpl.pick, starts_array(tuple(starts)), kept_scalar(value, val))


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
        return _view.traced_offsets(starts)
    return np.array(starts, dtype=_IDX_NP)


# -- queued scalar writes ---------------------------------------------------------------
def _queue_scalar(x: Tensor, key: Any, value: Any) -> bool:
    """``x[key] = value`` for a base tensor, an int (tuple) key and a Python number: queued
    on the storage (:meth:`Storage.queue`). False (nothing done) when the write is not of
    that simple form or would raise: the general path then handles it, errors included."""
    st = x._storage
    lim = st.meta
    if lim is None:
        arr = st._array  # (read once: another thread's write may mark the slot busy)
        if type(arr) is not _ArrayImpl:
            return False
        lim = st.meta = _limits(arr)
        del arr
    shape = lim.shape
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
    return _queue_flat(st, flat, value)


def _queue_flat(st: Any, flat: int, value: Any) -> bool:
    """Queue ``value`` (a Python number) at the flat position ``flat`` (checked) of the
    storage's base, if it needs no error and no trace is running; False otherwise."""
    if type(st._array) is not _ArrayImpl or _current_jit.get() is not None:
        return False
    lim = st.meta
    if lim is None:
        lim = st.meta = _limits(st._array)
    tv = type(value)
    if tv is float:
        if not lim.floating:
            return False
    elif tv is int:
        if lim.floating:
            if not -1e308 < value < 1e308:
                return False
        elif lim.lo is None or not lim.lo <= value <= lim.hi:
            return False
    else:
        return False
    st.queue(flat, value)
    return True


class Limits:
    """What a queued scalar write needs of a storage's value (kept as ``Storage.meta``).

    (A class with slots, not a NamedTuple: its fields are read on every queued write, and
    CPython reads a slot faster than it unpacks or indexes a tuple subclass.)
    """

    __slots__ = ("shape", "floating", "lo", "hi")

    def __init__(self, shape: tuple[int, ...], floating: bool, lo: int | None,
                 hi: int | None) -> None:
        self.shape = shape  # the value's shape
        self.floating = floating  # a float dtype: floats and ints (up to 1e308) are queued
        self.lo = lo  # an integer dtype's range (None: neither float nor integer: not queued)
        self.hi = hi


def _limits(arr: Any) -> Limits:
    """The :class:`Limits` of a storage's value."""
    dt = np.dtype(arr.dtype)
    shape = tuple(arr.shape)
    if dt.kind == "f":
        return Limits(shape, True, None, None)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return Limits(shape, False, int(info.min), int(info.max))
    return Limits(shape, False, None, None)
