"""``__getitem__``/``__setitem__``: parse an index, validate it like NumPy 2, lower it.

Basic indices (ints, slices, ``None``, ``...``, 0-D integer arrays) become views (see
``_view.py``); anything with an integer array, a boolean mask or a Python ``bool`` is
*advanced* and lowers to a gather (getitem, a copy) or a scatter (setitem) on the tensor's
value, compiled once per index structure. Out-of-bounds integers raise ``IndexError``
before anything runs, so a failed operation changes nothing.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np

from . import _fastpath, _kernels, _view

if TYPE_CHECKING:
    from ._tensor import Tensor

Tracer = jax.core.Tracer

_INVALID = (
    "only integers, slices (`:`), ellipsis (`...`), None (new axis) and integer or "
    "boolean arrays are valid indices"
)


class NonConcreteBooleanIndexError(IndexError):
    """A boolean mask whose values are not known (inside ``jit``) selects a data-dependent shape."""


# Under ``jaxtensor.jit`` a checker is installed here to verify traced index values
# (``jax.experimental.checkify``); plain tracing clamps them as JAX does.
traced_bounds_checks: list[Callable[[Any, int, int], None]] = []


def _bounds_error(i: int, axis: int, n: int) -> IndexError:
    return IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")


def _check_traced(i: Any, n: int, axis: int) -> None:
    for check in traced_bounds_checks:
        check(i, n, axis)


# -- parsing --------------------------------------------------------------------------
def _array_like_kind(x: Any) -> tuple[str, Any]:
    """Classify an array index: ('i', int) for 0-D integer, ('a', arr), ('m', mask), ('b', b)."""
    dt = np.dtype(x.dtype)
    nd = len(x.shape)
    if dt.kind == "b":
        if nd == 0:
            return "b", x
        return "m", x
    if dt.kind not in "iu":
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    if nd == 0:
        if isinstance(x, Tracer):
            return "i", x
        return "i", int(x)
    return "a", x


def _classify(item: Any) -> tuple[str, Any]:
    from ._tensor import Tensor

    if item is None:
        return "n", None
    if item is Ellipsis:
        return "e", None
    t = type(item)
    if t is int:
        return "i", item
    if t is slice:
        return "s", item
    if t is bool or isinstance(item, np.bool_):
        return "b", bool(item)
    if isinstance(item, Tensor):
        return _array_like_kind(item._value())
    if isinstance(item, (np.ndarray, np.generic, jax.Array, Tracer)):
        return _array_like_kind(item)
    if isinstance(item, (list, tuple)):
        arr = np.asarray(item)
        if arr.size == 0 and arr.dtype.kind == "f":
            arr = arr.astype(np.intp)
        if arr.dtype.kind not in "iub":
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        if arr.ndim == 0:  # e.g. x[(True,),] is not reachable; keep NumPy's meaning
            return _array_like_kind(arr)
        return ("m" if arr.dtype.kind == "b" else "a"), arr
    if hasattr(item, "__array_namespace__") or hasattr(item, "__dlpack__"):
        return _array_like_kind(np.asarray(item))
    if isinstance(item, (float, complex, str, bytes)) or not hasattr(item, "__index__"):
        raise IndexError(_INVALID)
    return "i", operator.index(item)


def _slice_bound(b: Any) -> int | None:
    if b is None or type(b) is int:
        return b
    from ._tensor import Tensor

    if isinstance(b, Tensor):
        b = b._value()
    if isinstance(b, Tracer):
        raise IndexError(
            "slice bounds must be concrete: inside jit a traced slice start/stop would give a "
            "data-dependent shape; use jax.lax.dynamic_slice or index with an integer array"
        )
    try:
        return operator.index(b)
    except TypeError:
        raise TypeError(
            "slice indices must be integers or None or have an __index__ method"
        ) from None


class Parsed:
    """A validated index: per-entry items with the axis each one consumes."""

    __slots__ = ("entries", "advanced", "shape", "in_shape", "expand", "gap")

    def __init__(
        self,
        entries: list[tuple],
        advanced: bool,
        shape: tuple[int, ...] | None,
        in_shape: tuple[int, ...] = (),
        expand: tuple[int, ...] = (),
        gap: int | None = None,
    ) -> None:
        self.entries = entries  # ("n",), ("i", v, axis), ("s", start, size, step, axis),
        #                         ("a", arr, axis), ("m", mask, axis) after expansion
        self.advanced = advanced
        self.shape = shape  # shape of x[index] (None: data-dependent, a traced mask)
        self.in_shape = in_shape  # the indexed shape, with the Python-bool axes inserted
        self.expand = expand  # where Python-bool axes were inserted
        self.gap = gap  # the entry before which an ellipsis covering no axis stood


def parse(key: Any, shape: tuple[int, ...]) -> Parsed:
    items = key if type(key) is tuple else (key,)
    classified = [_classify(it) for it in items]
    n_ell = 0
    consumed = 0
    advanced = False
    for kind, v in classified:
        if kind == "e":
            n_ell += 1
        elif kind in "isa":
            consumed += 1
            advanced |= kind == "a"
        elif kind == "m":
            consumed += len(v.shape)
            advanced = True
        elif kind == "b":
            advanced = True
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    ndim = len(shape)
    if consumed > ndim:
        raise IndexError(
            f"too many indices for array: array is {ndim}-dimensional, but {consumed} "
            "were indexed"
        )
    entries: list[tuple] = []
    ell_gap = None  # where an ellipsis covering no axis stands (it still separates, below)
    axis = 0
    for kind, v in classified:
        if kind == "e":
            if ndim == consumed:
                ell_gap = len(entries)
            for _ in range(ndim - consumed):
                entries.append(("s", 0, shape[axis], 1, axis))
                axis += 1
        elif kind == "n":
            entries.append(("n",))
        elif kind == "i":
            n = shape[axis]
            if isinstance(v, Tracer):
                _check_traced(v, n, axis)
                v = jnp.where(v < 0, v + n, v)
            else:
                if not -n <= v < n:
                    raise _bounds_error(v, axis, n)
                if v < 0:
                    v += n
            entries.append(("i", v, axis))
            axis += 1
        elif kind == "s":
            n = shape[axis]
            start, stop, step = _slice_bound(v.start), _slice_bound(v.stop), _slice_bound(v.step)
            if step == 0:
                raise ValueError("slice step cannot be zero")
            start, stop, step = slice(start, stop, step).indices(n)
            size = len(range(start, stop, step))
            entries.append(("s", start if size else 0, size, step, axis))
            axis += 1
        elif kind == "b":
            entries.append(("B", v))
        elif kind == "a":
            entries.append(("a", v, axis))
            axis += 1
        else:  # mask
            k = len(v.shape)
            for d in range(k):
                if v.shape[d] != shape[axis + d] and v.shape[d] != 0:  # NumPy: 0 matches any
                    raise IndexError(
                        f"boolean index did not match indexed array along axis {axis + d}; "
                        f"size of axis is {shape[axis + d]} but size of corresponding boolean "
                        f"axis is {v.shape[d]}"
                    )
            entries.append(("m", v, axis))
            axis += k
    for a in range(axis, ndim):
        entries.append(("s", 0, shape[a], 1, a))
    if not advanced:
        out = tuple(
            1 if e[0] == "n" else e[2] for e in entries if e[0] != "i"
        )
        return Parsed(entries, False, out)
    return _parse_advanced(entries, shape, ell_gap)


def _parse_advanced(
    entries: list[tuple], shape: tuple[int, ...], ell_gap: int | None = None
) -> Parsed:
    """Resolve masks to integer arrays, check bounds and broadcasting, compute the shape.

    A Python ``bool`` inserts a real axis of size 1 (recorded in ``Parsed.expand``) indexed
    by ``[0]`` (True) or ``[]`` (False), which is exactly NumPy's meaning. ``ell_gap`` is the
    entry before which an ellipsis covering no axis stood: as in NumPy, advanced indices on
    both sides of it are not adjacent (``x[:, [0], ..., [1]]`` on 3-D puts them in front).
    """
    resolved: list[tuple] = []
    expand: list[int] = []
    shift = 0
    pos = 0  # input axes consumed so far, in the expanded shape
    gap = None  # ell_gap as a position in ``resolved``
    for j, e in enumerate(entries):
        if j == ell_gap:
            gap = len(resolved)
        k = e[0]
        if k == "B":
            v = e[1]
            if isinstance(v, Tracer):
                resolved.append(("m", jnp.reshape(v, (1,)), pos))
            else:
                resolved.append(("a", np.zeros(1 if v else 0, np.intp), pos))
            expand.append(pos)
            shift += 1
            pos += 1
        elif k == "n":
            resolved.append(e)
        elif k == "m":
            mask, axis = e[1], e[2] + shift
            nd = len(mask.shape)
            if isinstance(mask, Tracer):
                resolved.append(("m", mask, axis))
            else:
                for d, idx in enumerate(np.nonzero(np.asarray(mask))):
                    resolved.append(("a", idx, axis + d))
            pos = axis + nd
        else:
            e = e[:-1] + (e[-1] + shift,)
            resolved.append(e)
            pos = e[-1] + 1
    if expand:
        shape = list(shape)
        for p in expand:
            shape.insert(p, 1)
        shape = tuple(shape)
    if any(e[0] == "m" for e in resolved):
        return Parsed(resolved, True, None, shape, tuple(expand))
    adv_shapes = []
    arrays = []
    for e in resolved:
        if e[0] == "a":
            adv_shapes.append(tuple(e[1].shape))
            arrays.append(e)
        elif e[0] == "i":
            adv_shapes.append(())
    try:
        bshape = np.broadcast_shapes(*adv_shapes)
    except ValueError:
        raise IndexError(
            "shape mismatch: indexing arrays could not be broadcast together with shapes "
            + " ".join(str(s).replace(" ", "") for s in adv_shapes if s != ())
        ) from None
    if math.prod(bshape):  # NumPy checks bounds only when something is selected
        for _, arr, axis in arrays:
            n = shape[axis]
            if isinstance(arr, Tracer):
                _check_traced(arr, n, axis)
                continue
            a_np = np.asarray(arr)
            lo, hi = int(a_np.min()), int(a_np.max())
            if lo < -n or hi >= n:
                bad = hi if hi >= n else lo
                raise _bounds_error(bad, axis - sum(p < axis for p in expand), n)
    positions = [j for j, e in enumerate(resolved) if e[0] in "ai"]
    adjacent = positions == list(range(positions[0], positions[-1] + 1)) and not (
        gap is not None and positions[0] < gap <= positions[-1]
    )
    out: list[int] = []
    placed = False
    for e in resolved:
        if e[0] in "ai":
            if adjacent and not placed:
                out.extend(bshape)
                placed = True
        elif e[0] == "n":
            out.append(1)
        else:
            out.append(e[2])
    if not adjacent:
        out = list(bshape) + out
    return Parsed(resolved, True, tuple(out), shape, tuple(expand), gap)


# -- lowering advanced indices to jnp indexing ----------------------------------------
def _index_structure(parsed: Parsed) -> tuple[tuple, list[Any]]:
    """Split a parsed advanced index into a static structure and its dynamic arguments."""
    struct, dyn = [], []
    for j, e in enumerate(parsed.entries):
        if j == parsed.gap:  # keeps NumPy's placement: advanced indices around it are apart
            struct.append(("e",))
        k = e[0]
        if k == "n":
            struct.append(("n",))
        elif k == "s":
            start, size, step = e[1], e[2], e[3]
            stop = start + size * step
            struct.append(("s", start, None if stop < 0 else stop, step, e[4]))
        elif k == "i":
            struct.append(("i", e[2]))
            dyn.append(e[1])
        elif k == "a":
            arr = e[1]
            struct.append(("a", e[2]))
            # (a jax.Array has a ``_value`` attribute too: test for a Tensor explicitly)
            dyn.append(arr._value() if isinstance(arr, _tensor_type()) else arr)
        else:
            struct.append(("m", e[2]))
            dyn.append(e[1])
    return tuple(struct), dyn


def _tensor_type() -> type:
    from ._tensor import Tensor

    return Tensor


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


# -- values assigned by __setitem__ -----------------------------------------------------
def _value_dtype_error(vdt: np.dtype, dtype: np.dtype) -> TypeError:
    return TypeError(
        f"cannot assign a value of dtype {vdt} to a Tensor of dtype {dtype}: complex values do "
        "not fit a real Tensor; assign value.real, or cast the Tensor to a complex dtype"
    )


def prepare_value(value: Any, dtype: np.dtype, target: tuple[int, ...]) -> Any:
    """Validate and convert an assigned value: cast rules of ``astype``, NumPy's shape rule.

    Python scalars are converted here (with NumPy 2's ``OverflowError`` for out-of-range
    ints and ``ValueError`` for NaN/inf into integers); arrays are cast in the kernel.
    """
    from ._tensor import Tensor

    t = type(value)
    if t is float or t is int or t is bool or t is complex:
        if t is complex and dtype.kind != "c":
            raise _value_dtype_error(np.dtype(complex), dtype)
        if t is float and dtype.kind in "iu" and not math.isfinite(value):
            raise ValueError(
                f"cannot convert float {value} to integer: a Tensor of dtype {dtype} cannot "
                "hold NaN or infinity"
            )
        return np.asarray(value, dtype=dtype)
    if isinstance(value, Tensor):
        arr = value._value()
    elif isinstance(value, (jax.Array, Tracer)):
        arr = value
    elif isinstance(value, (np.ndarray, np.generic)):
        arr = np.asarray(value)
    elif isinstance(value, (list, tuple)):
        try:
            arr = np.asarray(value)
        except ValueError as e:
            raise ValueError(f"could not convert the assigned sequence to an array: {e}") from None
        if arr.dtype.kind == "c" and dtype.kind != "c":
            raise _value_dtype_error(arr.dtype, dtype)
        arr = np.asarray(value, dtype=dtype)
    elif isinstance(value, (np.bool_, np.number)):
        arr = np.asarray(value)
    elif hasattr(value, "__array_namespace__") or hasattr(value, "__dlpack__"):
        from ._creation import asarray

        arr = asarray(value)._value()
    else:
        raise TypeError(
            f"cannot assign an object of type {t.__name__} to a Tensor; assign a number, a "
            "Tensor, or a NumPy/JAX array"
        )
    vdt = np.dtype(arr.dtype)
    if vdt.kind == "c" and dtype.kind != "c":
        raise _value_dtype_error(vdt, dtype)
    vs = tuple(arr.shape)
    stripped = vs
    while len(stripped) > len(target) and stripped[0] == 1:
        stripped = stripped[1:]
    ok = len(stripped) <= len(target)
    if ok:
        try:
            ok = np.broadcast_shapes(stripped, target) == target
        except ValueError:
            ok = False
    if not ok:
        raise ValueError(
            "could not broadcast input array from shape "
            f"{_fmt(vs)} into shape {_fmt(target)}"
        )
    if isinstance(arr, np.ndarray) and arr.dtype != dtype:
        with np.errstate(all="ignore"):
            arr = arr.astype(dtype)
    return arr


def _fmt(shape: tuple[int, ...]) -> str:
    return "(" + ",".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


# -- the operations ---------------------------------------------------------------------
def _ops(parsed: Parsed) -> list[tuple]:
    return [e[:-1] if e[0] in "is" else e for e in parsed.entries]


def getitem(x: Tensor, key: Any) -> Tensor:
    from ._tensor import Tensor

    sig = _fastpath.signature(key)
    if sig is not None:
        out = _fastpath.getitem(x, key, sig)
        if out is not None:
            return out
    shape = x.shape
    p = parse(key, shape)
    if not p.advanced:
        return x._derive(_view.compose_basic(x._view, shape, _ops(p)))
    if p.shape is None:
        raise NonConcreteBooleanIndexError(
            "a boolean mask inside jit selects a data-dependent number of elements; use "
            "jaxtensor.where(mask, x, other), or jaxtensor.nonzero(mask, size=...) for a "
            "static-size index"
        )
    struct, dyn = _index_structure(p)
    in_shape = p.in_shape
    val = _kernels.call(
        ("gather", struct, in_shape), lambda: _gather_fn(struct, in_shape), x._value(), *dyn
    )
    return Tensor._wrap(val)


def setitem(x: Tensor, key: Any, value: Any) -> None:
    sig = _fastpath.signature(key)
    if sig is not None and _fastpath.setitem(x, key, sig, value):
        return
    shape = x.shape
    p = parse(key, shape)
    if p.shape is None:
        _masked_assign(x, p, value)
        return
    v = prepare_value(value, x.dtype, p.shape)
    if math.prod(p.shape) == 0:
        return
    if not p.advanced:
        view = _view.compose_basic(x._view, shape, _ops(p))
        _kernels.write_view(x._storage, view, v)
        return
    struct, dyn = _index_structure(p)
    in_shape, out_shape = p.in_shape, p.shape
    _kernels.write_indexed(
        x._storage,
        x._view,
        (struct, in_shape, out_shape),  # out_shape: the closure uses it
        lambda: _scatter_fn(struct, in_shape, out_shape),
        v,
        dyn,
    )


def _masked_assign(x: Tensor, p: Parsed, value: Any) -> None:
    """``x[mask] = value`` with a traced mask: ``where(mask, value, x)`` (static shape)."""
    masks = [e for e in p.entries if e[0] == "m"]
    others = [e for e in p.entries if e[0] != "m"]
    full = all(e[0] == "s" and e[1] == 0 and e[3] == 1 and e[2] == p.in_shape[e[4]]
               for e in others)
    if len(masks) != 1 or not full:
        raise NonConcreteBooleanIndexError(
            "inside jit, a boolean mask can only be assigned through alone (x[mask] = value, "
            "lowered to where); for anything else use jaxtensor.where(mask, value, x)"
        )
    _, mask, axis = masks[0]
    in_shape = p.in_shape
    v = prepare_value(value, x.dtype, x.shape)
    m = jnp.reshape(
        mask, (1,) * axis + tuple(mask.shape) + (1,) * (len(in_shape) - axis - len(mask.shape))
    )
    cur = x._value()
    new = jnp.where(
        m, _kernels._fit(v, x.dtype, x.shape).reshape(in_shape), cur.reshape(in_shape)
    ).reshape(x.shape)
    x._assign(new)
