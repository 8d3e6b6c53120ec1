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
from jax._src import core as _core

Tracer = jax.core.Tracer

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

    __slots__ = ("array", "version", "exported", "trace", "__weakref__")

    def __init__(self, array: Any, *, exported: bool = False) -> None:
        self.array = array
        self.version = 0
        self.exported = exported
        self.trace = _core.trace_ctx.trace

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
        if new is self.array:
            return
        if isinstance(new, Tracer) and self.trace is not _core.trace_ctx.trace:
            self._check_foreign_write()
        self.array = new
        self.version += 1
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
