"""Advanced indices (integer arrays, boolean masks, Python bools) as gathers and scatters.

A plan with an advanced item is *resolved* for each call (:func:`resolve_plan`): masks
become integer arrays (their nonzero positions), bounds are checked (``IndexError`` before
anything runs), and the jnp index's static structure is separated from its arrays, so the
gather (a read, a copy) or scatter (a write) compiles once per structure.

Duplicate positions in a write: the last value in C order wins (``docs/decisions.md``).
When the index arrays are known on the host (they were read there for the bounds check),
the winners are chosen there with NumPy (:func:`host_dedupe`: usually a sort showing the
positions are unique, so the scatter needs no deduplication at all); a traced or
multi-process index is deduplicated on the device by a stable sort. What the host learns
of a ``jax.Array`` index (its bounds, whether its positions are unique) is kept per array
object (:data:`_facts`; JAX arrays never change), so writing through the same index Tensor
again reads nothing back and sorts nothing.
"""

from __future__ import annotations

import functools
import math
import weakref
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .._core import IDX as _IDX
from .._core import _cache, _kernels, check_traced, checked_later
from . import _plan
from ._plan import Int, IntArray, NewAxis, Plan, PyBool, Slice

Tracer = jax.core.Tracer
_ArrayImpl = type(jnp.zeros(()))

#: how a scatter treats duplicate positions: none to treat (unique), earlier ones already
#: sent out of bounds on the host (dropped), or sorted out on the device
UNIQUE, DROPPED, DEVICE = "unique", "dropped", "device"

#: per ``jax.Array`` index (by ``id``, checked through a weak reference): ``[ref, lo, hi,
#: unique]``, its smallest and largest entries and whether its positions are unique (None
#: until a write asks)
_facts = _cache.cache("index array facts", 256)


# -- the jnp index's static structure: one entry per entry of the jnp index (``None`` and
# ``...`` stand as they are). Gathers and scatters are cached by it: NamedTuples hash as
# tuples, and the kinds differ in their fields (a test checks every pair).
class JnpSlice(NamedTuple):
    """A slice of the indexed value."""

    start: int  # the first element
    stop: int | None  # (None: past the front of the axis, for a negative step)
    step: int  # the step between the elements
    axis: int  # the axis it slices (in the shape with Python-bool axes inserted)


class JnpArray(NamedTuple):
    """An integer array or an int: the next of the dynamic arrays, negatives wrapped."""

    axis: int  # the axis it indexes (in the shape with Python-bool axes inserted)


class JnpMask(NamedTuple):
    """A mask known only on the device: a data-dependent shape, never lowered here."""

    axis: int  # its first axis (in the shape with Python-bool axes inserted)
    axes: int  # how many axes it spans


# (``tuple.__new__`` made partial: a NamedTuple's own ``__new__`` is a Python call per entry)
_new_slice = functools.partial(tuple.__new__, JnpSlice)
_new_array = functools.partial(tuple.__new__, JnpArray)


def _facts_of(a: Any) -> list | None:
    f = _facts.get(id(a))
    return f if f is not None and f[0]() is a else None


class Advanced:
    """An advanced plan resolved for one call: the static structure of the jnp index
    (``struct``), its dynamic arrays (``dyn``), the indexed shape with Python-bool axes
    inserted (``in_shape``) and the result's shape (None: a traced mask)."""

    __slots__ = ("struct", "dyn", "in_shape", "shape", "host", "facts")

    def __init__(self, struct: tuple, dyn: list[Any], in_shape: tuple[int, ...],
                 shape: tuple[int, ...] | None, host: dict[int, np.ndarray] | None = None,
                 facts: dict[int, list] | None = None) -> None:
        self.struct, self.dyn, self.in_shape, self.shape = struct, dyn, in_shape, shape
        self.host = host  # host copies of index arrays of ``dyn``, by position
        self.facts = facts  # the :data:`_facts` entries of device index arrays, by position


def bounds_error(i: int, axis: int, n: int) -> IndexError:
    return IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")


def spans_processes(a: Any) -> bool:
    """Whether ``a`` is a global array this process holds only part of."""
    return type(a) is _ArrayImpl and not a.is_fully_addressable


def resolve_plan(plan: Plan, values: list[Any], shape: tuple[int, ...]) -> Advanced:
    """Resolve masks to integer arrays, check bounds and compute the jnp index structure.

    A Python ``bool`` inserts a real axis of size 1 indexed by ``[0]`` (True) or ``[]``
    (False), which is exactly NumPy's meaning. An ellipsis covering no axis (``plan.gap``)
    separates the advanced indices on its two sides, as in NumPy.
    """
    struct: list[Any] = []  # (JnpSlice, JnpArray, JnpMask, None, ...)
    dyn: list[Any] = []
    arrays: list[tuple[Any, int, int]] = []  # (array, axis in the user's shape, size)
    resolved: list[Any] = []  # typed items after mask resolution, for the result shape
    expand: list[int] = []
    gap = None
    shift = 0
    pos = 0  # input axes consumed so far, in the expanded shape
    on_device = False
    it = iter(values)
    for j, item in enumerate(plan.items):
        if j == plan.gap:
            gap = len(resolved)
            struct.append(Ellipsis)
        t = type(item)
        if t is NewAxis:
            struct.append(None)
            resolved.append(item)
        elif t is Slice:
            # a slice of at most one element takes step 1: its own step may exceed the
            # int32 arithmetic of JAX's indexing (x[::2**31, [0]])
            step = item.step if item.size > 1 else 1
            stop = item.start + item.size * step
            struct.append(_new_slice((item.start, None if stop < 0 else stop, step,
                                      item.axis + shift)))
            resolved.append(Slice(item.axis + shift, item.start, item.size, step))
            pos = item.axis + shift + 1
        elif t is Int:
            i = next(it)
            n = item.size
            if not isinstance(i, Tracer) and not -n <= i < n:
                t = checked_later(i, _IDX)  # (checked when the program runs: a loop body)
                if t is None:
                    raise bounds_error(i, item.axis, n)
                i = t
            if isinstance(i, Tracer):
                check_traced(i, n, item.axis)
            struct.append(_new_array((item.axis + shift,)))
            dyn.append(i)
            resolved.append(item)
            pos = item.axis + shift + 1
        elif t is IntArray:
            a = next(it)
            struct.append(_new_array((item.axis + shift,)))
            dyn.append(a)
            arrays.append((a, item.axis, item.size, len(dyn) - 1))
            resolved.append(IntArray(item.axis + shift, item.size, item.shape))
            pos = item.axis + shift + 1
        elif t is PyBool:
            idx = np.zeros(1 if item.value else 0, np.intp)
            struct.append(_new_array((pos,)))
            dyn.append(idx)
            resolved.append(IntArray(pos, 1, idx.shape))
            expand.append(pos)
            shift += 1
            pos += 1
        else:  # Mask
            m = next(it)
            axis = item.axis + shift
            if not item.shape:  # a 0-D mask: a new axis of size 1, selected or not
                m = (jnp.reshape(m, (1,)) if isinstance(m, Tracer) or spans_processes(m)
                     else np.reshape(m, (1,)))
                expand.append(pos)
                shift += 1
                axis = pos
            if isinstance(m, Tracer) and not math.prod(m.shape):
                m = np.zeros(m.shape, bool)  # (an empty mask selects nothing, traced or not)
            if isinstance(m, Tracer) or spans_processes(m):
                # (a mask known only on device: a data-dependent shape; writes that can be
                # lowered to where never get here, see _masks.py)
                on_device = True
                struct.append(JnpMask(axis, max(len(item.shape), 1)))
                dyn.append(m)
                resolved.append(item)
            else:
                for d, idx in enumerate(np.nonzero(np.asarray(m))):
                    struct.append(_new_array((axis + d,)))
                    dyn.append(idx)
                    resolved.append(IntArray(axis + d, 0, idx.shape))
            pos = axis + max(len(item.shape), 1)
    in_shape = shape
    if expand:
        s = list(shape)
        for p in expand:
            s.insert(p, 1)
        in_shape = tuple(s)
    if on_device:
        return Advanced(tuple(struct), dyn, in_shape, None)
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
    host: dict[int, np.ndarray] = {}
    facts: dict[int, list] = {}
    for a, axis, n, pos in arrays:
        if bsize or not a.ndim:
            if isinstance(a, Tracer):
                check_traced(a, n, axis)
                continue
            if not a.size:
                continue
            f = _facts_of(a) if type(a) is _ArrayImpl else None
            if f is not None:
                lo, hi = f[1], f[2]
                facts[pos] = f
            elif spans_processes(a):  # (no process holds it whole: reduced on device)
                lo, hi = int(jnp.min(a)), int(jnp.max(a))
            else:
                a_np = host[pos] = np.asarray(a)
                lo, hi = int(a_np.min()), int(a_np.max())
                if type(a) is _ArrayImpl:
                    f = facts[pos] = _facts[id(a)] = [weakref.ref(a), lo, hi, None]
            if lo < -n or hi >= n:
                t = checked_later(a, a.dtype)  # (checked when the program runs)
                if t is None:
                    raise bounds_error(hi if hi >= n else lo, axis, n)
                a = dyn[pos] = t
                host.pop(pos, None)
                facts.pop(pos, None)
                check_traced(a, n, axis)
    return Advanced(tuple(struct), dyn, in_shape, out, host=host, facts=facts)


def _broadcast_size(arrays: list, plan: Plan) -> int:
    shapes = [it.shape for it in plan.items if type(it) is IntArray]
    shapes += [(1 if it.value else 0,) for it in plan.items if type(it) is PyBool]
    if len(shapes) == 1:  # (one index array, the commonest; docs/measurements.md, section
        # "One index array's broadcast size")
        return math.prod(shapes[0])
    return math.prod(np.broadcast_shapes(*shapes)) if shapes else 1


def resolve(key: Any, shape: tuple[int, ...]) -> Advanced:
    """An advanced ``key`` on a Tensor of ``shape``, planned and resolved for one call (for
    the gather/scatter functions that lower like ``__setitem__``)."""
    sig, values = _plan.split(key)
    plan = _plan.plan(shape, sig)
    return resolve_plan(plan, values, shape)


# -- lowering advanced indices to jnp indexing ----------------------------------------
def host_dedupe(adv: Advanced) -> tuple[list[Any], str]:
    """The index arrays of a write and how its scatter treats duplicates: when every
    advanced entry is known on the host, NumPy decides (:data:`UNIQUE`, or :data:`DROPPED`
    with the earlier duplicates sent out of bounds, so the last in C order wins); else
    :data:`DEVICE` (a sort inside the kernel)."""
    dyn = list(adv.dyn)
    entries: list[tuple[int, int]] = []  # (position in dyn, axis size)
    d = 0
    for s in adv.struct:
        if type(s) is JnpArray:
            entries.append((d, adv.in_shape[s.axis]))
            d += 1
    host = adv.host or {}
    facts = adv.facts or {}
    known = facts.get(entries[0][0]) if len(entries) == 1 else None
    if known is not None and known[3]:
        return dyn, UNIQUE  # (this index array was found unique before)
    vals = []
    for pos, _ in entries:
        v = host.get(pos)
        if v is None:
            v = dyn[pos]
            if pos in facts:  # (a device array whose bounds were known: read it now)
                v = np.asarray(v)
            elif type(v) is not int and not isinstance(v, np.ndarray):
                return dyn, DEVICE  # (traced, or a device array never read on the host)
        vals.append(np.asarray(v))
    dyn, how = _decide(dyn, vals, entries)
    if known is not None:
        known[3] = how == UNIQUE
    return dyn, how


def _wide(a: np.ndarray, n: int) -> np.ndarray:
    """``a`` in a dtype that holds its entries plus ``n`` (the axis size added to the
    negative ones)."""
    bits = 8 * a.dtype.itemsize - (a.dtype.kind == "i")
    return a if n < (1 << bits) - n else a.astype(np.int64)


def _decide(dyn: list[Any], vals: list[np.ndarray], entries: list[tuple[int, int]]
            ) -> tuple[list[Any], str]:
    """:func:`host_dedupe`'s decision on the host copies ``vals`` of the index arrays."""
    arrays = np.broadcast_arrays(*[_wide(v, n) for v, (_, n) in zip(vals, entries)])
    k = arrays[0].size
    if k <= 1:
        return dyn, UNIQUE
    if len(entries) == 1:
        lin = arrays[0].ravel()
        if (lin < 0).any():
            lin = np.where(lin < 0, lin + entries[0][1], lin)
    else:
        lin = np.zeros(arrays[0].shape, np.int64)
        for a, (_, n) in zip(arrays, entries):
            lin = lin * n + np.where(a < 0, a + n, a)
        lin = lin.ravel()
    if not (lin[1:] > lin[:-1]).all():  # (an increasing index needs no sort)
        s = np.sort(lin)
        if (s[1:] == s[:-1]).any():
            # the last occurrence of each position wins: earlier ones go out of bounds
            _, first_rev = np.unique(lin[::-1], return_index=True)
            keep = np.zeros(k, bool)
            keep[k - 1 - first_rev] = True
            pos0, n0 = entries[0]
            dyn[pos0] = np.where(keep.reshape(arrays[0].shape), arrays[0], n0)
            for (pos, _), a in zip(entries[1:], arrays[1:]):
                dyn[pos] = a
            return dyn, DROPPED
    return dyn, UNIQUE


def rebuild(struct: tuple, dyn: tuple, shape: tuple[int, ...], dedupe: bool) -> tuple:
    """The jnp index for ``struct``; with ``dedupe``, later duplicates win (earlier dropped)."""
    idx: list[Any] = []
    adv: list[tuple[int, int]] = []  # (position in idx, axis size)
    d = 0
    for s in struct:
        if s is None or s is Ellipsis:
            idx.append(s)
        elif type(s) is JnpSlice:
            idx.append(slice(s.start, s.stop, s.step))
        else:  # JnpArray (a struct with a JnpMask is never lowered)
            # (in the index dtype: an int8 index array of an axis of 200 would wrap)
            v = jnp.asarray(dyn[d], _IDX)
            d += 1
            n = shape[s.axis]
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
            keep = _last_occurrences(lin.ravel(), math.prod(n for _, n in adv)).reshape(bshape)
            p0, n0 = adv[0]
            idx[p0] = jnp.where(keep, arrays[0], n0)
            for (p, _), a in zip(adv[1:], arrays[1:]):
                idx[p] = a
    return tuple(idx)


def _last_occurrences(lin: Any, space: int) -> Any:
    """Whether each entry of ``lin`` (positions below ``space``) is the last one with its
    value. One sort of ``lin * k + position`` (XLA:CPU sorts one key faster than a key with a
    payload, as an argsort does: docs/measurements.md, section "Last occurrences by one
    sort"), else, where that product could overflow the index dtype, a stable argsort."""
    k = lin.shape[0]
    idt = jnp.dtype(jnp.int64 if jax.config.read("jax_enable_x64") else jnp.int32)
    if space * k < np.iinfo(idt).max:
        pos = jax.lax.iota(idt, k)
        key = jnp.sort(lin.astype(idt) * k + pos)
        s, order = key // k, key % k
    else:
        order = jnp.argsort(lin, stable=True)
        s = lin[order]
    last = jnp.concatenate([s[1:] != s[:-1], jnp.ones((1,), bool)])
    return jnp.zeros((k,), bool).at[order].set(last, unique_indices=True)


def gather_fn(struct: tuple, in_shape: tuple[int, ...]) -> Callable:
    def gather(v: Any, *dyn: Any) -> Any:
        v = v.reshape(in_shape)
        return v.at[rebuild(struct, dyn, in_shape, False)].get(mode="clip")

    return gather


def scatter_fn(struct: tuple, in_shape: tuple[int, ...], out_shape: tuple[int, ...],
               duplicates: str = DEVICE) -> Callable:
    """The scatter of a write; ``duplicates`` says how repeated positions are treated
    (:func:`host_dedupe`)."""

    def scatter(t: Any, v: Any, *dyn: Any) -> Any:
        shape = t.shape
        t = t.reshape(in_shape)
        v = _kernels._fit(v, t.dtype, out_shape)  # also drops a value's leading 1-sides
        idx = rebuild(struct, dyn, in_shape, duplicates == DEVICE)
        t = t.at[idx].set(v, mode="drop", unique_indices=duplicates == UNIQUE)
        return t.reshape(shape)

    return scatter
