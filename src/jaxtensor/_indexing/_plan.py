"""Index plans: any key, parsed once per (shape, key signature) into a frozen, typed plan.

A key such as ``x[1, ::2, None, idx]`` has a *static* part — where the ints, slices, new
axes, ellipsis, arrays and masks stand, the slices' bounds, the arrays' shapes — and a
*dynamic* part: the ints' values and the arrays' contents. :func:`split` separates them in
one pass over the key (``signature, values``); :func:`plan` turns the shape of the indexed
Tensor and the signature into a :class:`Plan`, memoised, so a loop ``x[i] = v`` parses its
index once. The plan is validated like NumPy 2 (too many indices, two ellipses, a mask of
the wrong shape, index arrays that do not broadcast: ``IndexError``), and lists one small
typed item per indexed position:

========================  ==============================================================
:class:`Int`              an integer (value per call; bounds checked per call)
:class:`Slice`            a normalised slice ``start, size, step`` (static)
:class:`Window`           ``ds(start, size)``: a window of static size (start per call)
:class:`NewAxis`          ``None``
:class:`IntArray`         an integer array of a given shape (values per call)
:class:`Mask`             a boolean array over ``ndim`` axes (values per call)
:class:`PyBool`           a Python ``bool`` (a new axis of size 1, selected or not)
========================  ==============================================================

Lowering is ``_getset.py``'s: a plan of ints, slices and new axes becomes a view
(``_basic.py``), anything else a gather or scatter.

>>> from jaxtensor._indexing import _plan as ip
>>> sig, values = ip.split((1, slice(None, None, 2), None))
>>> ip.plan((4, 6), sig).items
(Int(axis=0, size=4), Slice(axis=1, start=0, size=3, step=2), NewAxis())
"""

from __future__ import annotations

import functools
import operator
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .._core import Tensor, _cache

Tracer = jax.core.Tracer

INVALID = (
    "only integers, slices (`:`), ellipsis (`...`), None (new axis) and integer or "
    "boolean arrays are valid indices"
)


class NonConcreteBooleanIndexError(IndexError):
    """A boolean mask whose values are not known (inside ``jit``) selects a data-dependent shape.

    Examples
    --------
    >>> import jaxtensor as jt
    >>> @jt.jit
    ... def f(x):
    ...     return x[x > 0]
    >>> try:
    ...     f(jt.asarray([1.0, -1.0]))
    ... except jt.NonConcreteBooleanIndexError as e:
    ...     print(str(e).split(";")[0])
    a boolean mask inside jit/grad/vmap selects a data-dependent number of elements
    """


class Int(NamedTuple):
    """An integer (its value is per call; bounds checked per call)."""

    axis: int  # the axis it indexes
    size: int  # that axis' size


class Slice(NamedTuple):
    """A slice, normalised for the axis' size."""

    axis: int  # the axis it slices
    start: int  # the first element (0 when it selects none)
    size: int  # how many elements it selects
    step: int  # the step between them


class Window(NamedTuple):
    """``ds(start, size)`` (its start is per call)."""

    axis: int  # the axis it slices
    size: int  # the window's (static) size
    n: int  # the axis' size


class NewAxis(NamedTuple):
    """``None``: a new axis of size 1."""


class IntArray(NamedTuple):
    """An integer array (its values are per call)."""

    axis: int  # the axis it indexes
    size: int  # that axis' size
    shape: tuple[int, ...]  # the array's shape


class Mask(NamedTuple):
    """A boolean array over ``len(shape)`` axes (its values are per call)."""

    axis: int  # its first axis
    shape: tuple[int, ...]  # the mask's shape


class PyBool(NamedTuple):
    """A Python ``bool``: a new axis of size 1, selected (True) or not."""

    value: bool  # the bool


Item = Int | Slice | Window | NewAxis | IntArray | Mask | PyBool


# -- key codes: the static part of one key entry ------------------------------------------
# A key's signature holds one code per entry (``None``, ``...`` and Python bools stand as they
# are). NamedTuples hash and compare as tuples, so the caches keyed by signatures find them
# at a tuple's cost; codes of different kinds are made unequal by their fields (a test checks
# every pair), and are told apart by type.
class IntCode(NamedTuple):
    """An int, or a 0-D integer array or Tensor (its value is per call)."""


#: the code of every int entry
INT = IntCode()


class SliceCode(NamedTuple):
    """A slice, its bounds as given (static)."""

    start: int | None  # (None: from the axis' start, or its end for a negative step)
    stop: int | None  # (None: to the axis' end, or its start for a negative step)
    step: int | None  # (None: 1)


class WindowCode(NamedTuple):
    """``ds(start, size)`` (its start is per call)."""

    size: int  # the window's size


class ArrayCode(NamedTuple):
    """An integer array (its values are per call)."""

    shape: tuple[int, ...]  # the array's shape


class MaskCode(NamedTuple):
    """A boolean array (its values are per call)."""

    shape: tuple[int, ...]  # the mask's shape
    axes: int  # the axes it spans, len(shape) (and what tells it from an ArrayCode)


Code = IntCode | SliceCode | WindowCode | ArrayCode | MaskCode

# (``tuple.__new__`` made partial: a NamedTuple's own ``__new__`` is a Python call, which
# every key with an array would pay per call)
_new_array_code = functools.partial(tuple.__new__, ArrayCode)
_new_mask_code = functools.partial(tuple.__new__, MaskCode)

#: the code of each slice met, by its bounds: a repeated slice key looks its code up rather
#: than make a NamedTuple per call (docs/benchmarks.md, section "Named codes in the indexing
#: and jit layers")
slice_codes = _cache.cache("slice codes", 4096)


def slice_code(start: int | None, stop: int | None, step: int | None) -> SliceCode:
    """The code of a slice with these bounds (ints or None)."""
    code = slice_codes.get((start, stop, step))
    if code is None:
        code = slice_codes[(start, stop, step)] = SliceCode(start, stop, step)
    return code


class Plan(NamedTuple):
    """A validated index for one shape and key signature.

    ``items``: one per indexed position, ellipsis expanded into whole slices and trailing
    axes completed; ``basic``: only ints, slices and new axes (a view); ``shape``: the
    result's shape, or None when it depends on mask values; ``gap``: the item before which
    an ellipsis covering no axis stood (it separates advanced indices, as in NumPy);
    ``n_values``: how many dynamic values the key carries.
    """

    items: tuple[Item, ...]
    basic: bool
    shape: tuple[int, ...] | None
    gap: int | None
    n_values: int


class ds:
    """A window of ``size`` consecutive elements from ``start``: ``x[ds(i, k)]`` is
    ``x[i:i + k]`` where ``i`` may be traced (inside ``jaxtensor.jit``, a loop body) and ``k``
    is a static ``int``, as Pallas's ``pl.ds``. It stands in any index position, for reads and
    writes, and makes a view like a slice. The window must lie inside the axis
    (``0 <= start <= n - size``), else ``IndexError``: eagerly at once, inside
    ``jaxtensor.jit`` at the call like other traced indices.

    Examples
    --------
    >>> import jaxtensor as jt
    >>> x = jt.zeros(6)
    >>> x[jt.ds(2, 3)] += 1
    >>> x
    Tensor(shape=[6], dtype=float64, device=cpu,
           [0., 0., 1., 1., 1., 0.])
    """

    __slots__ = ("start", "size")

    def __init__(self, start: Any, size: int) -> None:
        if type(size) is not int:
            if isinstance(size, (Tracer, Tensor)) or not hasattr(size, "__index__"):
                raise TypeError(
                    "ds(): size must be a Python int (a window's size is static); got "
                    f"{type(size).__name__}"
                )
            size = operator.index(size)
        if size < 0:
            raise ValueError(f"ds(): size must be non-negative, got {size}")
        self.start = _window_start(start)
        self.size = size

    def __repr__(self) -> str:
        return f"ds({self.start!r}, {self.size})"


def _window_start(start: Any) -> Any:
    """A window's start as an int or a traced integer scalar."""
    if isinstance(start, Tensor):
        start = start._value()
    if isinstance(start, (Tracer, jax.Array, np.ndarray, np.generic)):
        dt = np.dtype(start.dtype)
        if dt.kind not in "iu" or start.shape != ():
            raise TypeError(
                "ds(): start must be an integer scalar; got an array of dtype "
                f"{dt} and shape {tuple(start.shape)}"
            )
        return start if isinstance(start, Tracer) else int(start)
    if type(start) is bool or not hasattr(start, "__index__"):
        raise TypeError(f"ds(): start must be an integer, got {type(start).__name__}")
    return operator.index(start)


# -- signatures ------------------------------------------------------------------------
def _bound(b: Any) -> int | None:
    if b is None or type(b) is int:
        return b
    if isinstance(b, Tensor):
        b = b._value()
    if isinstance(b, Tracer):
        raise IndexError(
            "slice bounds must be concrete: inside jit/grad/vmap a traced slice start/stop would "
            "give a data-dependent shape; use jax.lax.dynamic_slice or index with an integer "
            "array"
        )
    try:
        return operator.index(b)
    except TypeError:
        raise TypeError(
            "slice indices must be integers or None or have an __index__ method"
        ) from None


def _array_item(x: Any, values: list[Any]) -> Any:
    """The signature of an array index (a Tensor's value, a NumPy/JAX array, a converted
    list); its value is appended to ``values``."""
    dt = np.dtype(x.dtype)
    shape = tuple(x.shape)
    if dt.kind == "b":
        if not shape and not isinstance(x, Tracer):
            return bool(x)
        values.append(x)
        return _new_mask_code((shape, len(shape)))
    if dt.kind not in "iu":
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    if not shape and type(x) is not np.ndarray:
        # a 0-D Tensor, JAX array or NumPy integer scalar indexes like an int (a view), as
        # in PyTorch; a 0-D NumPy *array* is an advanced index (a copy), as in NumPy
        values.append(x if isinstance(x, Tracer) else int(x))
        return INT
    values.append(x)
    return _new_array_code((shape,))


def _item(k: Any, values: list[Any]) -> Any:
    t = type(k)
    if t is int:
        values.append(k)
        return INT
    if t is slice:
        return slice_code(_bound(k.start), _bound(k.stop), _bound(k.step))
    if t is ds:
        values.append(k.start)
        return WindowCode(k.size)
    if k is None:
        return None
    if k is Ellipsis:
        return Ellipsis
    if t is bool or isinstance(k, np.bool_):
        return bool(k)
    if isinstance(k, Tensor):
        return _array_item(k._value(), values)
    if isinstance(k, (np.ndarray, np.generic, jax.Array, Tracer)):
        return _array_item(k, values)
    if isinstance(k, (list, tuple, range)):
        arr = _sequence_index(k)
        if arr.size == 0 and arr.dtype.kind == "f":
            arr = arr.astype(np.intp)
        if arr.dtype.kind not in "iub":
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        return _array_item(arr, values)
    if hasattr(k, "__array_namespace__") or hasattr(k, "__dlpack__"):
        return _array_item(np.asarray(k), values)
    if isinstance(k, (float, complex, str, bytes)) or not hasattr(k, "__index__"):
        raise IndexError(INVALID)
    values.append(operator.index(k))
    return INT


def _sequence_index(k: Any) -> Any:
    """A list (or tuple, range) index as an array, as NumPy converts it; traced entries
    (a list passed into a ``jaxtensor.jit`` function) make a traced array."""
    if type(k) is not range and any(isinstance(e, (Tracer, jax.Array, Tensor)) for e in
                                    _flat(k)):
        return jnp.asarray(k)
    return np.asarray(k)


def _flat(k: Any) -> Any:
    for e in k:
        if isinstance(e, (list, tuple)):
            yield from _flat(e)
        else:
            yield e


def split(key: Any) -> tuple[tuple, list[Any]]:
    """``(signature, values)`` of ``key``: the static part, hashable, one entry per item (a
    :data:`Code`, or ``None``, ``Ellipsis``, a ``bool`` as they are), and the dynamic values
    in order."""
    values: list[Any] = []
    if type(key) is tuple:
        return tuple([_item(k, values) for k in key]), values
    return (_item(key, values),), values


# -- plans -----------------------------------------------------------------------------
_plans = _cache.cache("index plans", 4096)


def plan(shape: tuple[int, ...], sig: tuple) -> Plan:
    """The memoised :class:`Plan` of a key signature on a Tensor of ``shape``."""
    k = (shape, sig)
    p = _plans.get(k)
    if p is None:
        p = _plans[k] = _parse(shape, sig)
    return p


def _parse(shape: tuple[int, ...], sig: tuple) -> Plan:
    n_ell = consumed = n_values = 0
    basic = True
    windows = False
    for s in sig:
        t = type(s)
        if s is Ellipsis:
            n_ell += 1
        elif s is INT:
            consumed += 1
            n_values += 1
        elif t is SliceCode:
            consumed += 1
        elif t is WindowCode:
            consumed += 1
            n_values += 1
            windows = True
        elif t is ArrayCode:
            consumed += 1
            n_values += 1
            basic = False
        elif t is MaskCode:
            consumed += s.axes
            n_values += 1
            basic = False
        elif t is bool:
            basic = False
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if windows and not basic:
        raise IndexError(
            "a ds() window cannot be combined with integer or boolean array indices; index "
            "with the window first (x[..., ds(i, k)][idx]) or use an integer array for it"
        )
    ndim = len(shape)
    if consumed > ndim:
        raise IndexError(
            f"too many indices for array: array is {ndim}-dimensional, but {consumed} "
            "were indexed"
        )
    items: list[Item] = []
    gap = None
    axis = 0
    for s in sig:
        if s is Ellipsis:
            if ndim == consumed:
                gap = len(items)
            for _ in range(ndim - consumed):
                items.append(Slice(axis, 0, shape[axis], 1))
                axis += 1
        elif s is None:
            items.append(NewAxis())
        elif s is INT:
            items.append(Int(axis, shape[axis]))
            axis += 1
        elif type(s) is bool:
            items.append(PyBool(s))
        elif type(s) is SliceCode:
            n = shape[axis]
            if s.step == 0:
                raise ValueError("slice step cannot be zero")
            start, stop, step = slice(s.start, s.stop, s.step).indices(n)
            size = len(range(start, stop, step))
            items.append(Slice(axis, start if size else 0, size, step))
            axis += 1
        elif type(s) is WindowCode:
            # (a window wider than its axis fails its start's check where it runs: a body
            # that never runs, or a branch not taken, raises nothing, as the Python code)
            items.append(Window(axis, s.size, shape[axis]))
            axis += 1
        elif type(s) is ArrayCode:
            items.append(IntArray(axis, shape[axis], s.shape))
            axis += 1
        else:  # MaskCode
            mshape = s.shape
            for d, m in enumerate(mshape):
                if m != shape[axis + d] and m != 0:  # NumPy: a 0-length mask axis matches any
                    raise IndexError(
                        f"boolean index did not match indexed array along axis {axis + d}; "
                        f"size of axis is {shape[axis + d]} but size of corresponding boolean "
                        f"axis is {m}"
                    )
            items.append(Mask(axis, mshape))
            axis += len(mshape)
    for a in range(axis, ndim):
        items.append(Slice(a, 0, shape[a], 1))
    items_t = tuple(items)
    if basic:
        out = tuple(1 if type(it) is NewAxis else it.size for it in items_t
                    if type(it) is not Int)
        return Plan(items_t, True, out, gap, n_values)
    if any(type(it) is Mask for it in items_t):
        return Plan(items_t, False, None, gap, n_values)
    adv = [() if type(it) is Int else it.shape for it in items_t
           if type(it) in (Int, IntArray)]
    adv += [(1 if it.value else 0,) for it in items_t if type(it) is PyBool]
    bshape = broadcast_index_shapes(adv)
    return Plan(items_t, False, result_shape(items_t, bshape, gap), gap, n_values)


def broadcast_index_shapes(shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError(
            "shape mismatch: indexing arrays could not be broadcast together with shapes "
            + " ".join(str(s).replace(" ", "") for s in shapes if s != ())
        ) from None


def result_shape(items: tuple, bshape: tuple[int, ...], gap: int | None) -> tuple[int, ...]:
    """NumPy's result shape of an advanced index whose arrays broadcast to ``bshape``:
    adjacent advanced items put it where they stand, separated ones in front."""
    positions = [j for j, it in enumerate(items) if type(it) in (Int, IntArray, PyBool)]
    adjacent = positions == list(range(positions[0], positions[-1] + 1)) and not (
        gap is not None and positions[0] < gap <= positions[-1]
    )
    out: list[int] = []
    placed = False
    for it in items:
        t = type(it)
        if t in (Int, IntArray, PyBool):
            if adjacent and not placed:
                out.extend(bshape)
                placed = True
        elif t is NewAxis:
            out.append(1)
        else:
            out.append(it.size)
    if not adjacent:
        out = list(bshape) + out
    return tuple(out)
