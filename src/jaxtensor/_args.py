"""Argument helpers shared by the section modules of part B (manipulation, searching,
sorting, sets, statistics, linear algebra, linalg, fft): operand values, axis
normalisation, result wrapping that never shares a buffer with an input's storage."""

from __future__ import annotations

import operator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ._core import Tensor, WeakTensor, _dtypes, asarray, current, strong, weak_number
from ._core._errors import nonfinite_error

Tracer = jax.core.Tracer

_SCALARS = (bool, int, float, complex)

#: an axis out of range: NumPy's class, both an ``IndexError`` (the standard's) and a
#: ``ValueError`` (what ported NumPy code catches)
AxisError = np.exceptions.AxisError


def value(x: Any, name: str = "x", fname: str | None = None) -> Any:
    """The ``jax.Array`` (or tracer) behind an array argument: a Tensor's value, a JAX array
    or tracer as it is, anything else ``asarray`` takes (NumPy and other libraries' arrays,
    nested sequences, Python scalars) converted with it. What ``asarray`` refuses raises
    ``TypeError`` naming the function ``fname`` and the argument ``name``."""
    if isinstance(x, Tensor):
        return x._value()
    if isinstance(x, (jax.Array, Tracer)):
        return x
    return tensor(x, name, fname)._value()


def tensor(x: Any, name: str = "x", fname: str | None = None) -> Tensor:
    """An array argument as a Tensor: a Tensor itself, anything else ``asarray`` takes
    converted (so a view of it is a view of the converted Tensor, never of the caller's
    array); what ``asarray`` refuses raises ``TypeError`` naming ``fname`` and ``name``."""
    if isinstance(x, Tensor):
        return x if x.__class__ is not WeakTensor else strong(x)
    try:
        return asarray(x)
    except (TypeError, ValueError) as exc:
        where = f"{fname}(): " if fname else ""
        # (why asarray refused an array or a sequence; a string or a dict needs no reason)
        why = f": {exc}" if isinstance(x, (list, tuple)) or hasattr(x, "dtype") else ""
        raise TypeError(
            f"{where}{name} must be an array (a Tensor or anything jaxtensor.asarray takes), "
            f"got {type(x).__name__}{why}"
        ) from None


def wrap(val: Any, *inputs: Any) -> Tensor:
    """A new Tensor owning ``val``; copies ``val`` if it is an input's storage buffer
    (a jitted identity hands back its input, and two storages must never share one
    buffer, since either may donate it)."""
    for x in inputs:
        if isinstance(x, Tensor) and val is x._storage.array:
            val = jnp.array(val, copy=True)
            break
    return Tensor._wrap(val)


def integer(k: Any, name: str) -> int:
    """``k`` as a Python int, not a bool: ``TypeError`` naming ``name`` (``"diff(): n"``)."""
    if isinstance(k, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, got bool")
    return index(k, name)


def index(k: Any, name: str) -> int:
    """``operator.index(k)``: ``TypeError`` naming ``name`` (``"eye(): k"``)."""
    try:
        return operator.index(k)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {type(k).__name__}") from None


def shape(shape: Any, name: str) -> tuple[int, ...]:
    """An int or a sequence of ints as a shape: ``TypeError`` naming ``name``
    (``"zeros(): shape"``, ``"zeros(): shape[1]"``) otherwise. (The names are made only
    for an error: this runs for every creation and reshape.)"""
    if type(shape) is int:
        return (shape,)
    if type(shape) is not tuple:
        if hasattr(shape, "__index__"):
            return (operator.index(shape),)
        if isinstance(shape, (str, bytes)):
            items: Any = None
        else:
            try:
                items = tuple(shape)
            except TypeError:
                items = None
        if items is None:
            raise TypeError(f"{name} must be an int or a sequence of ints, got "
                            f"{type(shape).__name__}")
        shape = items
    try:
        return tuple([operator.index(s) for s in shape])
    except TypeError:
        for j, s in enumerate(shape):
            index(s, f"{name}[{j}]")
        raise


def normalize_axis(axis: Any, ndim: int, name: str = "axis") -> int:
    """``axis`` as a non-negative int below ``ndim``: ``TypeError`` when it is no integer,
    ``AxisError`` (NumPy's: an ``IndexError`` and a ``ValueError``) when it is out of
    range."""
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {type(axis).__name__}") from None
    if not -ndim <= a < ndim:
        raise AxisError(f"{name} {a} is out of bounds for a Tensor of dimension {ndim}")
    return a % ndim


def axes_in_order(axis: Any, ndim: int, name: str = "axis") -> tuple[int, ...]:
    """An int or a sequence of ints -> checked, non-negative axes in the order given;
    ``ValueError`` when one repeats (``name``: the argument, ``"sum(): axis"``)."""
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    out = tuple(normalize_axis(a, ndim, name) for a in axes)
    if len(set(out)) != len(out):
        raise ValueError(f"{name} repeats an axis: {axis!r}")
    return out


def normalize_axes(axis: Any, ndim: int, name: str = "axis") -> tuple[int, ...]:
    """``None`` -> every axis; an int or a sequence of ints -> sorted, checked axes."""
    if axis is None:
        return tuple(range(ndim))
    return tuple(sorted(axes_in_order(axis, ndim, name)))


#: a Python scalar of each kind, for the dtype rules of a weakly typed traced scalar
_KIND_SCALAR = {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}


def declines(other: Any) -> bool:
    """Whether ``other`` asks array operators to let it answer (NumPy's protocol: its
    ``__array_ufunc__`` is None; a traced mask's selection ``x[m]`` does): an operator that
    failed on it returns ``NotImplemented``, so Python calls ``other``'s reflected one."""
    return getattr(type(other), "__array_ufunc__", 0) is None


def weak_scalar(x: Any) -> Any:
    """The kind of Python scalar ``x`` stands for (``False``, ``0``, ``0.0`` or ``0j``) when
    it is a weakly typed 0-D traced value, else None. ``jax.jit`` (and so
    ``jaxtensor.jit``) traces a Python number argument as one, and arithmetic on it stays
    weak: next to a Tensor it promotes as the number would eagerly (``uint8 + 10`` stays
    uint8), not as a 64-bit array."""
    if isinstance(x, Tracer) and x.weak_type and not x.ndim:
        return _KIND_SCALAR.get(np.dtype(x.dtype).kind)
    return None


def check_weak(x: Any, weak: Any, dt: np.dtype) -> None:
    """A traced Python number (``weak``, see :func:`weak_scalar`) used as a value of the
    integer ``dt``: an int out of ``dt``'s range (or a float NaN, infinite or out of range)
    raises at the call of ``jaxtensor.jit`` as the number raises eagerly (under plain
    ``jax.jit`` it is converted as there)."""
    if type(weak) not in (int, float) or dt.kind not in "iu":
        return
    if type(weak) is int:
        have, want = np.iinfo(x.dtype), np.iinfo(dt)
        if want.min <= have.min and want.max >= have.max:
            return
    trace = current.get()
    if trace is not None:
        trace.check_value(x, dt)


def scalar_or_value(x: Any, other_dtype: np.dtype, fname: str | None = None
                    ) -> tuple[Any, np.dtype]:
    """Value and dtype of an operand that may be a Python scalar (weak, as in the standard's
    mixing of scalars and arrays) next to an operand of ``other_dtype``."""
    if x.__class__ is WeakTensor:  # (a Python number passed to jaxtensor.jit: the number)
        x = x.number()
    if isinstance(x, Tensor):
        v = x._value()
        return v, np.dtype(v.dtype)
    weak = None if type(x) in _SCALARS else weak_scalar(x)  # (a Python number traced by jit)
    s = x if weak is None else weak
    if type(s) in _SCALARS:
        dt = _dtypes.scalar_result(other_dtype, s)
        if isinstance(s, complex) and dt.kind != "c":
            raise TypeError(f"cannot combine a complex scalar with a Tensor of dtype {dt}")
        if isinstance(s, float) and dt.kind in "iub":
            raise TypeError(f"cannot combine a float scalar with a Tensor of dtype {dt}")
        if weak is not None:
            check_weak(x, weak, dt)
            return x.astype(dt), dt
        try:
            return np.asarray(x, dtype=dt), dt
        except OverflowError:
            raise OverflowError(f"Python integer {x} out of bounds for {dt}") from None
    v = value(x, "x2", fname)
    return v, np.dtype(v.dtype)


def promoted_pair(x1: Any, x2: Any, name: str = "x1", fname: str | None = None
                  ) -> tuple[Any, Any, np.dtype]:
    """Values of two operands, either of which may be a Python scalar, and their promoted
    dtype. ``x1`` is taken as the array side unless only ``x2`` is a Tensor (or only ``x1``
    is a Python scalar)."""
    if x1.__class__ is WeakTensor or x2.__class__ is WeakTensor:  # (numbers passed to jit)
        x1, x2 = weak_number(x1), weak_number(x2)
    if isinstance(x1, Tensor) or not (isinstance(x2, Tensor) or type(x1) in _SCALARS
                                      or weak_scalar(x1) is not None):
        a = value(x1, name, fname)
        b, bdt = scalar_or_value(x2, np.dtype(a.dtype), fname)
        return a, b, _dtypes.promote(np.dtype(a.dtype), bdt)
    b = value(x2, "x2", fname)
    a, adt = scalar_or_value(x1, np.dtype(b.dtype), fname)
    return a, b, _dtypes.promote(adt, np.dtype(b.dtype))


def is_traced(*vals: Any) -> bool:
    return any(isinstance(v, Tracer) for v in vals)


def sharded(v: Any) -> bool:
    """Whether ``v`` is an array spread over several devices (False for a traced value,
    whose placement is not known)."""
    return not isinstance(v, jax.core.Tracer) and len(v.sharding.device_set) > 1


def where_mask(where: Any, v: Any, fname: str) -> Any:
    """The value of a reduction's ``where=`` (NumPy's: the elements it reduces), a boolean
    array broadcasting to the reduced array ``v``'s shape; None for every element (``where``
    None or True; a Python number is its truth value, as in NumPy)."""
    if type(where) in (int, float, complex):
        where = bool(where)
    if where is None or where is True:
        return None
    w = value(where, "where", fname)
    if np.dtype(w.dtype) != np.bool_:
        raise TypeError(f"{fname}(): where must be a boolean mask, got dtype {w.dtype}")
    try:
        fits = np.broadcast_shapes(tuple(w.shape), tuple(v.shape)) == tuple(v.shape)
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"{fname}(): a where mask of shape {tuple(w.shape)} does not "
                         f"broadcast to the Tensor's shape {tuple(v.shape)}")
    return w


def initial_value(initial: Any, dt: Any, fname: str) -> Any:
    """A reduction's ``initial=`` as a 0-D value of the result's dtype ``dt`` (NumPy's cast: a
    float truncated into an integer dtype, a Python int out of its range ``OverflowError``);
    a Tensor or a traced value is cast in the kernel. None where not given."""
    if initial is None:
        return None
    dt = np.dtype(dt)
    if isinstance(initial, (Tensor, jax.Array, Tracer)):
        i = value(initial, "initial", fname)
        # (a Python number passed to jaxtensor.jit, or a loop's: checked as the number)
        weak = weak_scalar(initial.number() if initial.__class__ is WeakTensor else i)
        if type(weak) is complex and dt.kind != "c":
            raise TypeError(f"{fname}(): initial: a complex number does not fit {dt}")
        check_weak(i, weak, dt)
    else:
        if np.ndim(initial):
            raise ValueError(f"{fname}(): initial must be a scalar, got shape "
                             f"{np.shape(initial)}")
        if type(initial) is float and dt.kind in "iu" and not np.isfinite(initial):
            # (as a traced number's check, and an assigned one's: one error for both)
            raise nonfinite_error(initial, dt)
        try:
            return np.asarray(initial, dtype=dt)
        except OverflowError as exc:
            raise OverflowError(f"{fname}(): initial: {exc}") from None
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{fname}(): initial must be a number: {exc}") from None
    if i.ndim:
        raise ValueError(f"{fname}(): initial must be a scalar, got shape {tuple(i.shape)}")
    return i
