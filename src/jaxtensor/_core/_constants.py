"""Device copies of small host constants that a program passes to kernels again and again.

JAX converts a NumPy array or a Python number argument to a device buffer on every call of
a compiled function (on CPU as much as the rest of a small write: see docs/measurements.md,
section "Host constants kept on the device").
Values used repeatedly (the scalar of ``x * 2.0`` in a loop, the start offsets of
``x[1000:1100] = v``) are kept here as device arrays instead. A value is converted on its
second use, so a loop over distinct values (``x[i] = v`` for every ``i``) converts nothing
extra; both tables are bounded caches (``_cache.py``); nothing made while a trace is active is kept (it would be a
tracer, invalid outside that trace). Kept arrays are uncommitted: JAX moves them to wherever
the other arguments live.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import jax
import numpy as np

from . import _cache, _config
from ._jax_private import put_host

Tracer = jax.core.Tracer

#: The most values kept (and the most first uses remembered).
SIZE = 1024
_arrays = _cache.cache("kept device constants", SIZE)
_seen = _cache.cache("host constants seen once", SIZE)


def device_constant(key: Hashable, make: Callable[[], Any]) -> Any | None:
    """The kept device array for ``key``, else ``None`` (the caller passes the host value).

    ``make()`` builds the device array on the second use of ``key``; the key must determine
    the value exactly (include the dtype, and the sign of a float zero).
    """
    arr = _arrays.get(key)
    if arr is not None:
        return arr
    if key not in _seen:
        _seen[key] = None
        return None
    arr = make()
    if isinstance(arr, Tracer):  # made inside a trace: it must not outlive it
        return None
    _arrays[key] = arr
    return arr


_IDX_NP = np.int64 if _config.X64 else np.int32


def starts_array(starts: tuple[int, ...]) -> Any:
    """Integer start offsets as a kernel argument: their kept device array from the second
    use of these starts on, else a host array. Shared by every write with these starts,
    also through a view made anew for each write (a mask's frame)."""
    d = device_constant(("starts", starts), lambda: put_host(np.array(starts, _IDX_NP)))
    return np.array(starts, dtype=_IDX_NP) if d is None else d

