"""In-place operators (``x += y`` ... ``x @= y``): one kernel computes and writes the result.

``x op= y`` stores ``x op y`` in ``x``'s dtype where NumPy's ``same_kind`` casting allows
it (``float32_t += float64_t``, ``int8_t += int64_t``); a result of another kind raises
``TypeError`` and changes nothing. The rule and the result's shape are decided on the first
call of a signature without touching the device (``jax.eval_shape`` of the operator).

The write is one compiled program: it reads ``x``'s value from its storage's base (through
``x``'s view), applies the element-wise kernel, casts, and writes the result back through the
view. Its first argument, the base buffer, is donated whenever nobody else holds it
(``Storage.donatable``), so XLA updates the buffer in place: no second copy of the array
exists at any moment, as in NumPy. Kernels are keyed by (operator, view structure,
destination dtype, operand kind), so a repeat costs one lookup and one dispatch; a Python
scalar operand goes to the kernel as a typed array (kept on the device from its second use).
Under ``jaxtensor.jit`` the same function becomes part of the traced program.

>>> import jaxtensor as jt
>>> x = jt.ones(4)
>>> v = x[1:3]
>>> v *= 5          # written through the view, in place
>>> x.tolist()
[1.0, 5.0, 5.0, 1.0]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import numpy as np

from ._args import check_weak, weak_scalar
from ._args import value as _arg_value
from ._core import (
    Deferred,
    Tensor,
    _cache,
    _dtypes,
    _kernels,
    _view,
    current,
    new_tensor,
    over,
    weak_number,
)
from ._fast_operators import _by_signature, _scalar_arg, broadcast_failure

Tracer = jax.core.Tracer

#: (result dtype, destination dtype) -> whether an in-place operator may store the result:
#: NumPy's ``same_kind`` casting (decided once per pair)
_INPLACE_CASTS = _cache.cache("in-place casts", 1024)

_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
            "pow": "**", "matmul": "@", "and": "&", "or": "|", "xor": "^", "lshift": "<<",
            "rshift": ">>"}


def _inplace_dtype_error(name: str, rdt: np.dtype, dt: np.dtype) -> TypeError:
    return TypeError(
        f"in-place {name}: the result dtype {rdt} cannot be cast to the left operand's dtype "
        f"{dt} (NumPy's same_kind rule); write x = x {_SYMBOLS.get(name, name)} y, or cast "
        "the operands first"
    )


#: NumPy's ``same_kind`` order of kinds: a result may be stored into a destination whose
#: kind is not lower (``bool`` < unsigned < signed < real floating < complex)
_KIND_ORDER = {"b": 0, "u": 1, "i": 2, "f": 3, "c": 4}


def _same_kind(rdt: np.dtype, dt: np.dtype) -> bool:
    """NumPy's ``same_kind`` casting from ``rdt`` to ``dt``, with ``bfloat16`` a real
    floating dtype (``np.can_cast`` follows ``ml_dtypes``' registered casts instead, which
    let complex into ``bfloat16``)."""
    ok = _INPLACE_CASTS.get((rdt, dt))
    if ok is None:
        ok = _INPLACE_CASTS[rdt, dt] = (
            _KIND_ORDER[_dtypes.kind(rdt)] <= _KIND_ORDER[_dtypes.kind(dt)])
    return ok


class _Entry(NamedTuple):
    """The kernels of one in-place signature: ``pick`` (a :class:`~._core._kernels.Kernels`)
    and, for a Python scalar operand, the range of ints it takes (None: any) and the dtype
    the scalar is converted to."""

    pick: _kernels.Kernels
    lo: int | None
    hi: int | None
    sdt: np.dtype | None


#: (operator, view structure, destination dtype, operand key) -> _Entry
_entries = _cache.cache("in-place operator kernels", 4096)


def inplace(fn: Callable, name: str) -> Callable:
    """``x.__iop__(y)``: ``fn(x, y)`` computed and written into ``x``'s storage by one
    donating kernel (see the module docs)."""
    fname = fn.__name__  # (what the element-wise fast path records the kernel under)

    def op(self: Tensor, other: Any) -> Tensor:
        try:
            t = other.__class__
            if t is Tensor:
                b = other._value()
                okey = b.dtype
            elif t is int or t is float:
                b = other
                okey = t
            else:  # arrays, lists, NumPy scalars, bool, complex, numbers passed to jit
                return _first(self, weak_number(other), fn, fname, name)
            view = self._view
            e = _entries.get((name, None if view is None else view.key, self.dtype, okey))
            if e is None or (e.lo is not None and not e.lo <= other <= e.hi):
                return _first(self, other, fn, fname, name)
            if view is None:
                d = self._storage._pending
                if type(d) is Deferred and d.then is None:  # an element not read yet
                    # (a Tensor operand by the value it has now)
                    d.then = _later(op, new_tensor(b) if t is Tensor else other)
                    return self
            if e.sdt is not None:
                b = _scalar_arg(other, e.sdt)
            _run(self, e.pick, b)
            return self
        except (ValueError, TypeError):  # (found while tracing: nothing was written)
            err = broadcast_failure(
                f"in-place {name} (x {_SYMBOLS.get(name, name)}= y)", self, other)
            if err is None:
                raise
            raise err from None

    op.__name__ = f"__i{name}__"
    return op


def _later(op: Callable, other: Any) -> Callable[[Any], Any]:
    """``x op= other`` on an element not read yet, left for its first read (``target``: its
    storage) or for ``x[i] = element`` (``target``: the view ``x[i, ...]``), which then writes
    ``x[i] op other`` with one kernel (``_indexing/_getset.py``, ``_fuse``)."""
    return lambda target: op(target if type(target) is Tensor else over(target), other)


def _run(x: Tensor, pick: _kernels.Kernels, b: Any) -> None:
    view = x._view
    if view is None:
        x._storage.update(pick, b)
    else:
        x._storage.update(pick, view.dyn(), b)


def _first(x: Tensor, other: Any, fn: Callable, fname: str, name: str) -> Tensor:
    """The first call of a signature (or an operand kind without a fast path): check the
    dtype rule and the result's shape abstractly, make the kernel, remember it, run it."""
    dt, shape = x.dtype, x.shape
    spec = jax.ShapeDtypeStruct(shape, dt)
    t = other.__class__
    if t is Tensor:
        spec_b: Any = jax.ShapeDtypeStruct(other.shape, other.dtype)
        res = jax.eval_shape(lambda a, b: fn(new_tensor(a), new_tensor(b))._value(), spec,
                             spec_b)
    else:
        res = jax.eval_shape(lambda a: fn(new_tensor(a), other)._value(), spec)
    rdt = np.dtype(res.dtype)
    if rdt != dt and not _same_kind(rdt, dt):
        raise _inplace_dtype_error(name, rdt, dt)
    if tuple(res.shape) != shape:
        raise ValueError(
            f"in-place {name}: the result has shape {tuple(res.shape)}, which does not fit the "
            f"left operand's shape {shape}"
        )
    view = x._view
    vkey = None if view is None else view.key
    comp = None if view is None else view.comp
    steps = None if view is None else view.steps
    if t is Tensor or t is int or t is float:
        okey = other.dtype if t is Tensor else t
        entry = _by_signature.get((fname, dt, okey))
        if entry is not None and (t is not int or entry[1] is None
                                  or entry[1] <= other <= entry[2]):
            # (an int beyond the kernel's argument range is a constant: below)
            kernel, lo, hi, sdt = entry
            if t is Tensor:
                lo = hi = sdt = None
            compute = kernel
            b = other._value() if t is Tensor else _scalar_arg(other, sdt)
            pick = _kernels.kernels(("inplace", name, vkey, dt, okey),
                                    _builder(compute, steps, comp, name))
            _entries[name, vkey, dt, okey] = _Entry(pick, lo, hi, sdt)
            _run(x, pick, b)
            return x
    weak = weak_scalar(other)
    if weak is not None:
        # a Python number traced by jit: an argument of the kernel that stays weak, its
        # range checked here (in the jit trace), as eager code checks the number
        check_weak(other, weak, rdt if rdt.kind in "iu" else dt)
        b = other
        compute = _on_weak(fn)
        key: tuple = ("inplace", name, vkey, dt, "weak", np.dtype(b.dtype))
    elif t is Tensor or not (t is bool or t is int or t is float or t is complex):
        # a Tensor or any array-like: its value is an argument of the kernel
        b = other._value() if t is Tensor else _arg_value(other, "other")
        compute = _on_tensors(fn)
        key = ("inplace", name, vkey, dt, "array", np.dtype(b.dtype))
    else:  # a Python scalar without a fast-path kernel: a constant of the kernel
        b = np.zeros((), np.int8)
        compute = _with_constant(fn, other)
        key = ("inplace", name, vkey, dt, t, other, math.copysign(1.0, other.real)
               if t is float or t is complex else 0)
    _run(x, _kernels.kernels(key, _builder(compute, steps, comp, name)), b)
    return x


def _on_tensors(fn: Callable) -> Callable:
    return lambda a, b: fn(new_tensor(a), new_tensor(b))._value()


def _on_weak(fn: Callable) -> Callable:
    def compute(a: Any, b: Any) -> Any:
        tok = current.set(None)  # (checked by the caller, in the enclosing jit trace)
        try:
            return fn(new_tensor(a), b)._value()
        finally:
            current.reset(tok)

    return compute


def _with_constant(fn: Callable, s: Any) -> Callable:
    return lambda a, b: fn(new_tensor(a), s)._value()


def _builder(compute: Callable, steps: tuple | None, comp: str | None,
             name: str) -> Callable[[], Callable]:
    """The write kernel's maker: ``(base, b) -> new base`` on a base Tensor,
    ``(base, dyn, b) -> new base`` through a view."""

    def fit(a: Any, r: Any) -> Any:
        if r.shape != a.shape:  # (an operand of another shape, traced anew: decided here)
            raise ValueError(
                f"in-place {name}: the result has shape {r.shape}, which does not fit the "
                f"left operand's shape {a.shape}"
            )
        return r if r.dtype == a.dtype else r.astype(a.dtype)

    if steps is None:
        def build() -> Callable:
            def write(base: Any, b: Any) -> Any:
                return fit(base, compute(base, b))

            return write
    else:
        def build() -> Callable:
            def write(base: Any, dyn: Any, b: Any) -> Any:
                a = _view.chain_forward(steps, comp, base, dyn, True)
                return _view.chain_backward(steps, comp, base, dyn, fit(a, compute(a, b)))

            return write
    return build
