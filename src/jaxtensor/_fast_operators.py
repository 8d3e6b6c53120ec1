"""The operators' fast path: ``a + b`` and ``x * 2.0`` in one dictionary lookup.

Each call of an element-wise function of two operands (``_elementwise.binary``) records,
with :func:`remember`, the compiled kernel it chose for its function name and operand
signature. The signature is a pair of keys, each the operand's dtype (a Tensor) or
``int``/``float`` (a Python scalar); an int scalar also records the range in which
``_promotion.scalar`` passes it to the kernel unchanged. A Python operator on Tensors
(:func:`fast_operator`) looks the signature up and, when it was seen, calls the kernel
directly, skipping promotion; otherwise it takes the ordinary path, which records it.

A Python scalar used again and again (``x * 2.0`` in a loop) is passed to the kernel as a
kept device scalar (``_constants``). Zero is never kept (-0.0 == 0.0 as a key, but not as a
value), nor NaN, nor ints a float64 cannot hold (converted through it they would be rounded
twice; the kernel rounds them once).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from ._core import Tensor, _cache, device_constant, new_tensor
from ._core._dtypes import INT_RANGE, PASS_INT

#: (name, key of x1, key of x2) -> (kernel, lowest int scalar, highest int scalar, dtype the
#: kernel computes in); the int bounds are None unless a key is ``int``. The kernel is a
#: pure function of the key (the name fixes the function, the dtypes its promotion).
_by_signature = _cache.cache("operator fast path", 4096)


def remember(name: str, x1: Any, x2: Any, a: Any, b: Any, dt: np.dtype,
             kernel: Callable) -> None:
    """Record ``kernel`` (computing in ``dt``) for ``name`` on operands like ``x1``, ``x2``
    (values ``a``, ``b``)."""
    t1, t2 = type(x1), type(x2)
    if t1 is Tensor and t2 is Tensor:
        _by_signature[name, a.dtype, b.dtype] = (kernel, None, None, dt)
        return
    if t1 is Tensor:
        key, s = (name, a.dtype, t2), x2
    elif t2 is Tensor:
        key, s = (name, t1, b.dtype), x1
    else:
        return
    if key in _by_signature:
        return
    if s.__class__ is float and dt.kind in "fc":
        _by_signature[key] = (kernel, None, None, dt)
    elif s.__class__ is int:
        lo, hi = -PASS_INT + 1, PASS_INT - 1
        if dt.kind in "iu":
            ilo, ihi = INT_RANGE[dt]
            lo, hi = max(lo, ilo), min(hi, ihi)
        elif dt.kind not in "fc":
            return
        _by_signature[key] = (kernel, lo, hi, dt)


def broadcast_failure(label: str, *operands: Any) -> ValueError | None:
    """After a kernel of ``operands`` failed: a ``ValueError`` naming ``label`` (the
    function, ``"add()"``) if their shapes do not broadcast, else ``None`` (the failure was
    another one). Only a failure pays for this check; the success path has none."""
    shapes = []
    for o in operands:
        sh = getattr(o, "shape", None)
        if sh is None:
            try:
                sh = np.shape(o)
            except Exception:  # (not array-like: not a broadcasting failure)
                return None
        shapes.append(tuple(sh))
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        return ValueError(f"{label}: operands could not be broadcast together with shapes "
                          + " ".join(str(sh) for sh in shapes))
    return None


def fast_operator(name: str, slow: Callable[[Any, Any], Any], *,
                  reflected: bool = False) -> Callable[[Tensor, Any], Any]:
    """``Tensor.__op__`` (or ``__rop__``): the remembered kernel, else ``slow(self, other)``."""
    lookup = _by_signature.get

    if not reflected:
        def op(self: Tensor, other: Any) -> Any:
            t = other.__class__
            if t is Tensor:
                a = self._value()
                b = other._value()
                entry = lookup((name, a.dtype, b.dtype))
                if entry is not None:
                    try:
                        return new_tensor(entry[0](a, b))
                    except (ValueError, TypeError):  # (shapes that do not broadcast)
                        pass  # the ordinary path says what failed
            elif t is float or t is int:
                a = self._value()
                entry = lookup((name, a.dtype, t))
                if entry is not None and (entry[1] is None or entry[1] <= other <= entry[2]):
                    return new_tensor(entry[0](a, _scalar_arg(other, entry[3])))
            return slow(self, other)
    else:
        def op(self: Tensor, other: Any) -> Any:
            t = other.__class__
            if t is float or t is int:
                b = self._value()
                entry = lookup((name, t, b.dtype))
                if entry is not None and (entry[1] is None or entry[1] <= other <= entry[2]):
                    return new_tensor(entry[0](_scalar_arg(other, entry[3]), b))
            return slow(self, other)

    return op


_EXACT = 2**53


def typed_scalar(s: Any, dt: np.dtype) -> Any:
    """A Python number as a 0-D array of ``dt`` for a kernel (every call of a kernel then has
    the same argument types: one compilation). An int a float64 cannot hold exactly stays a
    Python int for a float kernel (converted through float64 it would be rounded twice; the
    kernel rounds it once)."""
    if s.__class__ is int and dt.kind in "fc" and not -_EXACT < s < _EXACT:
        return s
    return np.asarray(s, dtype=dt)


def _scalar_arg(s: int | float, dt: np.dtype) -> Any:
    """:func:`typed_scalar`, as a kept device array from its second use (zero, whose sign a
    key cannot tell, and NaN are converted each time)."""
    if not s or s != s or (s.__class__ is int and dt.kind in "fc" and not -_EXACT < s < _EXACT):
        return typed_scalar(s, dt)
    arr = device_constant((s, dt), lambda: jax.device_put(np.asarray(s, dtype=dt)))
    return np.asarray(s, dtype=dt) if arr is None else arr
