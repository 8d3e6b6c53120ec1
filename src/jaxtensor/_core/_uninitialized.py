"""An output buffer XLA does not fill: for kernels that write every element of their result.

``index_select``'s tiled loop writes each output tile once; starting it from ``lax.empty``
costs a zero fill on XLA:CPU (a full extra pass over the output). With
``JAXTENSOR_UNINITIALIZED_OUTPUT=1`` in the environment, :func:`uninitialized` avoids it with
a no-op FFI target registered once per process; by default it is ``lax.empty``
(``docs/decisions.md``, *index_select's uninitialised output is opt-in*).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from typing import Any

import jax
import numpy as np
from jax import lax

from . import _config
from ._jax_private import make_noop_ffi_handler

#: The FFI target that hands XLA:CPU an output buffer without writing it (see
#: :func:`uninitialized`).
UNINIT_TARGET = "jaxtensor_uninitialized"
_uninit_ok: bool | None = None  # None: not decided yet; False: off, or registration failed
_uninit_handler: Any = None  # keeps the ctypes callback alive
_uninit_lock = threading.Lock()


def _register_uninit() -> bool:
    """Register :data:`UNINIT_TARGET` on CPU once, if the environment said
    ``JAXTENSOR_UNINITIALIZED_OUTPUT=1`` (``_config.UNINITIALIZED_OUTPUT``); False when it
    did not or registration fails."""
    global _uninit_ok, _uninit_handler
    with _uninit_lock:
        if _uninit_ok is not None:
            return _uninit_ok
        if not _config.UNINITIALIZED_OUTPUT:
            _uninit_ok = False
            return False
        try:
            _uninit_handler = make_noop_ffi_handler()
            jax.ffi.register_ffi_target(UNINIT_TARGET, jax.ffi.pycapsule(_uninit_handler),
                                        platform="cpu")
            _uninit_ok = True
        except Exception:  # noqa: BLE001 - no ctypes or no FFI: fall back to lax.empty
            _uninit_ok = False
        return _uninit_ok


def uninitialized(shape: Sequence[int], dtype: Any) -> Any:
    """An array whose values are undefined, for outputs every element of which is written.

    GPU and TPU lower ``lax.empty`` to an allocation (``AllocateBuffer``); XLA:CPU lowers it to a
    zero fill — a full extra pass over the output (docs/measurements.md, section "The zero fill
    of an output on XLA:CPU"). With
    ``JAXTENSOR_UNINITIALIZED_OUTPUT=1``, the buffer on CPU comes instead from a no-op FFI call
    (:data:`UNINIT_TARGET`): XLA allocates its result and the handler returns at once.
    The handler is a ``ctypes`` callback, so each call takes the GIL (same section):
    below ``_config.UNINIT_MIN_BYTES`` the zero fill is cheaper and is kept. By default, on
    GPU/TPU, or where the target cannot be registered, this is ``lax.empty``.
    """
    shape = tuple(shape)
    if (math.prod(shape) * np.dtype(dtype).itemsize < _config.UNINIT_MIN_BYTES
            or not _register_uninit()):
        return lax.empty(shape, dtype)
    aval = jax.ShapeDtypeStruct(shape, dtype)
    return lax.platform_dependent(
        cpu=lambda: jax.ffi.ffi_call(UNINIT_TARGET, aval)(),
        default=lambda: lax.empty(shape, dtype),
    )
