"""Versioned storage: the one mutable cell behind a Tensor and all its views.

A :class:`Storage` holds the whole base value as an immutable ``jax.Array`` (or a tracer
inside a traced function), a ``version`` that every write bumps, and an ``exported`` flag
set whenever the current array is handed to the user (``to_jax``, ``__jax_array__``,
``__array__``, DLPack). Writes replace the array with the result of a compiled update
kernel; the old buffer is donated to that kernel when nobody else can hold it, so a write
costs what it writes, not a copy of the base.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax._src import core as _core

Tracer = jax.core.Tracer
_ArrayImpl = type(jnp.zeros(()))

#: Queued scalar writes are applied at the latest when this many are pending.
MAX_PENDING = 1 << 16
_IDX = np.int64 if jax.config.read("jax_enable_x64") else np.int32
_flush_kernels: dict[tuple[int, bool, bool], Callable] = {}

# Where the array lives: a storage created in one trace may not be written with the values
# of another (that would leak tracers). ``jaxtensor.jit`` installs a handler that adopts such
# storages as implicit state instead of failing.
_foreign_write_handler: list[Callable[[Storage], bool]] = []


def current_trace() -> object:
    return _core.trace_ctx.trace


class TracerLeakError(RuntimeError):
    """A Tensor created outside a traced function was mutated inside it."""


class Storage:
    """The base value of a family of aliasing Tensors.

    Attributes:
        array: the whole base value (``jax.Array`` or tracer).
        version: bumped by every write; views compare it with their cache.
        exported: the current ``array`` object has been handed out, so it must never be
            donated (donation would invalidate the user's reference).
        trace: the JAX trace the storage was created under.
    """

    __slots__ = ("_array", "version", "exported", "trace", "_pending", "_limits",
                 "__weakref__")

    def __init__(self, array: Any, *, exported: bool = False) -> None:
        self._array = array
        self.version = 0
        self.exported = exported
        self.trace = _core.trace_ctx.trace
        self._pending: tuple[list[int], list[Any]] | None = None
        self._limits: tuple | None = None

    @property
    def array(self) -> Any:
        """The whole base value, with every queued write applied."""
        if self._pending is not None:
            self._flush()
        return self._array

    @array.setter
    def array(self, new: Any) -> None:
        self._pending = None  # a whole new value supersedes queued writes
        self._array = new

    def __repr__(self) -> str:
        a = self.array
        return (
            f"Storage(shape={tuple(a.shape)}, dtype={a.dtype}, version={self.version}, "
            f"exported={self.exported})"
        )

    @property
    def traced(self) -> bool:
        return isinstance(self.array, Tracer)

    def can_donate(self) -> bool:
        """True when the current buffer is referenced by this storage alone."""
        if self.exported or isinstance(self.array, Tracer):
            return False
        # self.array, the getrefcount argument: nobody else holds the object.
        return sys.getrefcount(self.array) <= 2

    def export(self) -> Any:
        """Hand the current array out: it may never be donated afterwards."""
        self.exported = True
        return self.array

    def set(self, new: Any) -> None:
        """Install ``new`` as the base value (the result of an update of ``self.array``)."""
        if new is self._array and self._pending is None:
            return
        if isinstance(new, Tracer) and self.trace is not _core.trace_ctx.trace:
            self._check_foreign_write()
        self._pending = None
        self._array = new
        self.version += 1
        self.exported = False

    # -- queued scalar writes ------------------------------------------------------------
    def queue_scalar(self, key: Any, value: Any) -> bool:
        """Record ``base[key] = value`` for an int (tuple) key and a Python number.

        Eager loops of scalar writes are the NumPy idiom that a dispatch per write makes slow;
        queued writes are applied together, in order (the last write to an element wins), by
        one compiled, donated scatter at the next read of any alias. Returns False (nothing
        recorded) when the write is not of that simple form or would raise: the general path
        then handles it, errors included.
        """
        arr = self._array
        if type(arr) is not _ArrayImpl:
            return False
        lim = self._limits
        if lim is None:
            lim = self._limits = _limits(arr)
        kind, lo, hi, shape = lim
        if kind is None:
            return False
        tv = type(value)
        if tv is float:
            if kind != "f":
                return False
        elif tv is int:
            if kind == "f":
                if not -1e308 < value < 1e308:
                    return False
            elif not lo <= value <= hi:
                return False
        else:
            return False
        if type(key) is int:
            if len(shape) != 1:
                return False
            n = shape[0]
            if key < 0:
                key += n
            if not 0 <= key < n:
                return False
            flat = key
        else:
            if len(key) != len(shape):
                return False
            flat = 0
            for i, n in zip(key, shape):
                if type(i) is not int:
                    return False
                if i < 0:
                    i += n
                if not 0 <= i < n:
                    return False
                flat = flat * n + i
        p = self._pending
        if p is None:
            p = self._pending = ([], [])
        p[0].append(flat)
        p[1].append(value)
        self.version += 1
        if len(p[0]) >= MAX_PENDING:
            self._flush()
        return True

    def _flush(self) -> None:
        idx, vals = self._pending
        self._pending = None
        arr = self._array
        n = len(idx)
        if n == 1:
            ii = np.array(idx, dtype=_IDX)
            vv = np.array(vals, dtype=arr.dtype)
            bucket = 1
        else:
            ii = np.asarray(idx, dtype=_IDX)
            vv = np.asarray(vals, dtype=arr.dtype)
            # keep the last write to each element (the program's order), deterministically
            _, first_rev = np.unique(ii[::-1], return_index=True)
            if len(first_rev) < n:
                keep = n - 1 - first_rev
                ii, vv = ii[keep], vv[keep]
                n = len(ii)
            bucket = 1 << (n - 1).bit_length()
            if bucket > n:  # pad with dropped (out-of-bounds) writes: one kernel per size class
                ii = np.concatenate([ii, np.full(bucket - n, arr.size, _IDX)])
                vv = np.concatenate([vv, np.zeros(bucket - n, vv.dtype)])
        donate = not self.exported and sys.getrefcount(arr) <= 3
        # One write into an N-D base: XLA:CPU turns the flat form into a full-size, partitioned
        # dynamic-update-slice fusion (~25 us more); the N-D scatter stays a one-element update;
        # and a sharded base keeps its sharding only through the N-D form (a flat reshape
        # loses every sharded axis but the first)
        unravel = arr.ndim > 1 and (bucket == 1 or len(arr.sharding.device_set) > 1)
        fn = _flush_kernels.get((bucket, donate, unravel))
        if fn is None:
            fn = _flush_kernels[bucket, donate, unravel] = jax.jit(
                _scatter_unravel if unravel else _scatter_flat,
                donate_argnums=(0,) if donate else ())
        del arr
        self._array = fn(self._array, ii, vv)
        self.exported = False

    def _check_foreign_write(self) -> None:
        for handler in reversed(_foreign_write_handler):
            if handler(self):
                return
        raise TracerLeakError(
            "a Tensor created outside this traced function is being mutated inside it; "
            "under jax.jit/grad/vmap that would leak a tracer into the Tensor. Pass the "
            "Tensor as an argument and return its new value, or use jaxtensor.jit, which "
            "writes mutations of closed-over Tensors back after the call."
        )


def _scatter_flat(base: Any, idx: Any, vals: Any) -> Any:
    flat = base.reshape(-1).at[idx].set(vals, mode="drop", unique_indices=True)
    return flat.reshape(base.shape)


def _scatter_unravel(base: Any, idx: Any, vals: Any) -> Any:
    coords = jnp.unravel_index(idx, base.shape)
    return base.at[coords].set(vals, mode="drop", unique_indices=True)


def _limits(arr: Any) -> tuple:
    dt = np.dtype(arr.dtype)
    shape = tuple(arr.shape)
    if dt.kind == "f":
        return ("f", None, None, shape)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return ("i", int(info.min), int(info.max), shape)
    return (None, None, None, shape)
