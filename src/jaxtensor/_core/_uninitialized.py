"""An output buffer XLA does not fill: for kernels that write every element of their result.

``index_select``'s tiled loop writes each output tile once; starting it from ``lax.empty``
costs a zero fill on XLA:CPU (a full extra pass over the output). :func:`uninitialized`
avoids it with a no-op FFI target registered once per process (set
``JAXTENSOR_UNINITIALIZED_OUTPUT=0`` to turn it off).
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Sequence
from typing import Any

import jax
import numpy as np
from jax import lax

#: The FFI target that hands XLA:CPU an output buffer without writing it (see
#: :func:`uninitialized`).
UNINIT_TARGET = "jaxtensor_uninitialized"
#: Outputs smaller than this are zero-filled (``lax.empty``): cheaper than the FFI call.
UNINIT_MIN_BYTES = 16 * 1024
_uninit_ok: bool | None = None  # None: not registered yet; False: registration failed
_uninit_handler: Any = None  # keeps the ctypes callback alive
_uninit_lock = threading.Lock()


def _register_uninit() -> bool:
    """Register :data:`UNINIT_TARGET` on CPU once; False when that is not possible or the
    environment says ``JAXTENSOR_UNINITIALIZED_OUTPUT=0``."""
    global _uninit_ok, _uninit_handler
    with _uninit_lock:
        if _uninit_ok is not None:
            return _uninit_ok
        if os.environ.get("JAXTENSOR_UNINITIALIZED_OUTPUT", "1") == "0":
            _uninit_ok = False
            return False
        try:
            _uninit_handler = _make_uninit_handler()
            jax.ffi.register_ffi_target(UNINIT_TARGET, jax.ffi.pycapsule(_uninit_handler),
                                        platform="cpu")
            _uninit_ok = True
        except Exception:  # noqa: BLE001 - no ctypes or no FFI: fall back to lax.empty
            _uninit_ok = False
        return _uninit_ok


def _make_uninit_handler() -> Any:
    """The XLA FFI handler (``XLA_FFI_Error* handler(XLA_FFI_CallFrame*)``) as a ctypes callback.

    It reads only the head of the call frame (the structs below mirror
    ``xla/ffi/api/c_api.h``). At execution it returns NULL (success) at once: XLA has allocated
    the output and leaving it untouched is the whole point. The only other call is XLA's
    metadata query when it compiles a program that uses the target: the handler reports the
    runtime's own API version (it uses nothing version-dependent) and no traits.
    """
    import ctypes

    class _Ext(ctypes.Structure):  # XLA_FFI_Extension_Base
        _fields_ = [("struct_size", ctypes.c_size_t), ("type", ctypes.c_int),
                    ("next", ctypes.c_void_p)]

    class _Version(ctypes.Structure):  # XLA_FFI_Api_Version
        _fields_ = [("struct_size", ctypes.c_size_t), ("extension_start", ctypes.c_void_p),
                    ("major", ctypes.c_int), ("minor", ctypes.c_int)]

    class _Api(ctypes.Structure):  # the head of XLA_FFI_Api
        _fields_ = [("struct_size", ctypes.c_size_t), ("extension_start", ctypes.c_void_p),
                    ("api_version", _Version)]

    class _Metadata(ctypes.Structure):  # XLA_FFI_Metadata
        _fields_ = [("struct_size", ctypes.c_size_t), ("api_version", _Version),
                    ("traits", ctypes.c_uint32), ("state_type_id", ctypes.c_int64)]

    class _MetadataExt(ctypes.Structure):  # XLA_FFI_Metadata_Extension
        _fields_ = [("base", _Ext), ("metadata", ctypes.POINTER(_Metadata))]

    class _Frame(ctypes.Structure):  # the head of XLA_FFI_CallFrame
        _fields_ = [("struct_size", ctypes.c_size_t), ("extension_start", ctypes.POINTER(_Ext)),
                    ("api", ctypes.POINTER(_Api))]

    metadata_extension = 1  # XLA_FFI_Extension_Metadata

    def handler(frame_ptr: int) -> None:
        frame = _Frame.from_address(frame_ptr)
        ext = frame.extension_start
        if ext and ext.contents.type == metadata_extension:
            meta = ctypes.cast(ext, ctypes.POINTER(_MetadataExt)).contents.metadata.contents
            v = frame.api.contents.api_version
            meta.api_version = _Version(ctypes.sizeof(_Version), None, v.major, v.minor)
            meta.traits = 0
        return None

    return ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)(handler)


def uninitialized(shape: Sequence[int], dtype: Any) -> Any:
    """An array whose values are undefined, for outputs every element of which is written.

    GPU and TPU lower ``lax.empty`` to an allocation (``AllocateBuffer``); XLA:CPU lowers it to a
    zero fill — a full extra pass over the output (16 MiB: 1.1-1.8 ms on one core here, 0.7-0.8x
    the time of the whole gather of the embedding workload). On CPU the buffer comes instead
    from a no-op FFI call (:data:`UNINIT_TARGET`): XLA allocates its result and the handler
    returns at once.
    The handler is a ``ctypes`` callback, so each call takes the GIL for about a microsecond:
    below :data:`UNINIT_MIN_BYTES` the zero fill is cheaper and is kept. On GPU/TPU, or where
    the target cannot be registered, this is ``lax.empty``.
    """
    shape = tuple(shape)
    if math.prod(shape) * np.dtype(dtype).itemsize < UNINIT_MIN_BYTES or not _register_uninit():
        return lax.empty(shape, dtype)
    aval = jax.ShapeDtypeStruct(shape, dtype)
    return lax.platform_dependent(
        cpu=lambda: jax.ffi.ffi_call(UNINIT_TARGET, aval)(),
        default=lambda: lax.empty(shape, dtype),
    )
