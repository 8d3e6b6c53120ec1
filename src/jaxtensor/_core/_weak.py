"""A Python number passed to ``jaxtensor.jit``: a :class:`WeakTensor`.

``jax.jit`` traces a Python ``int``, ``float`` or ``complex`` argument as a weakly typed 0-D
value. ``jaxtensor.jit`` hands it to the function as a WeakTensor (``_jit/_pytree.py``,
:func:`weak_argument`): a 0-D Tensor of the default dtype of its kind (as ``asarray`` makes
of the number) whose operators are the number's, on both sides (``_weak_operators.py``
binds them). Wherever a jaxtensor function takes a Python scalar beside a Tensor
(operators, element-wise functions, ``where``, ``clip``, ``full``, in-place operators,
assigned values), :func:`weak_number` turns a WeakTensor into the weakly typed value it
stands for, which those functions take as the number (``_args.weak_scalar``). Taken as an
array (``jaxtensor.sin(v)``, ``v.reshape(1)``), it is the Tensor ``asarray`` makes of the
number, as eagerly.

Only ``jaxtensor.jit`` makes WeakTensors; no user-facing constructor does
(``jaxtensor.asarray(v)`` gives a plain Tensor).
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from ._jax_private import pytype_aval_mappings, register_canonicalize_value_handler
from ._tensor import Tensor, WeakTensor, new_tensor

Tracer = jax.core.Tracer


def weak_number(x: Any) -> Any:
    """``x``, or the number a :class:`WeakTensor` ``x`` stands for."""
    return x.number() if x.__class__ is WeakTensor else x


def strong(x: Tensor) -> Tensor:
    """``x``, or for a :class:`WeakTensor` the plain Tensor ``asarray`` makes of the number."""
    return new_tensor(x._value()) if x.__class__ is WeakTensor else x


def weak_argument(x: Any) -> Any:
    """A traced argument of a ``jaxtensor.jit`` function as the function gets it: a Python
    number (a weakly typed 0-D value) as a :class:`WeakTensor`, anything else as it is."""
    if isinstance(x, Tracer) and x.weak_type and not x.ndim and (
            np.dtype(x.dtype).kind in "iufc"):
        return as_weak(new_tensor(jax.lax.convert_element_type(x, x.dtype)))
    return x


def as_weak(t: Tensor) -> WeakTensor:
    """The new base Tensor ``t`` (a result of numbers only) as a number again."""
    t.__class__ = WeakTensor
    return t  # type: ignore[return-value]


def _register_with_jax() -> None:
    """JAX's functions (``jax.numpy.sin(v)``) take a WeakTensor as the number."""
    if pytype_aval_mappings is None:
        return
    pytype_aval_mappings[WeakTensor] = lambda t: jax.typeof(t.number())
    register_canonicalize_value_handler(WeakTensor, WeakTensor.number)


_register_with_jax()
