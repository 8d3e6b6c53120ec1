"""The state of a running ``jaxtensor.jit`` trace, held per call in a context variable.

While ``jaxtensor.jit`` traces a function, storages are not changed: reads and writes of a
storage go to the trace's own overlay (the traced value of each argument storage, and of
every closed-over storage the function touches), and bounds checks of traced index values
are collected by the trace. The trace object is found through :data:`current`, a
``contextvars.ContextVar``: each thread (and each asyncio task) sees only its own, so a
trace in one thread never affects eager work in another.

Eager code pays one ``current.get()`` (a few tens of nanoseconds) where it reads or writes a
storage; nothing is ever patched onto classes or module globals.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._storage import Storage


class JitTrace:
    """What a ``jaxtensor.jit`` trace must see of the storages its function touches.

    The jit module subclasses it; :class:`~jaxtensor._core._storage.Storage` and the indexing
    code call these methods whenever :data:`current` holds a trace.
    """

    __slots__ = ()

    def read(self, storage: Storage) -> Any:
        """The value of ``storage`` inside the trace (a tracer, or a concrete value)."""
        raise NotImplementedError

    def write(self, storage: Storage, new: Any) -> None:
        """Record ``new`` as the value of ``storage`` inside the trace."""
        raise NotImplementedError

    def update(self, storage: Storage, fn: Any, args: tuple) -> None:
        """Record ``fn(value, *args)`` (a write kernel) as the value of ``storage``."""
        self.write(storage, fn(self.read(storage), *args))

    def makes_checks(self) -> bool:
        """Whether the trace checks indices (checks on)."""
        return False

    def checks_later(self) -> bool:
        """Whether the trace checks indices when its program runs (checks on): a constant
        index out of range is then checked there like a traced one, so code that never
        runs raises nothing and the writes made before it are kept, as eagerly."""
        return False

    def check_index(self, index: Any, size: int, axis: int, fname: str | None = None) -> None:
        """Check a traced index value (or array of values) against an axis of ``size``
        (``fname``: the function whose message names the axis a dimension, as eagerly)."""

    def check_window(self, start: Any, size: int, n: int, axis: int) -> None:
        """Check a traced ``ds(start, size)`` window lies inside an axis of size ``n``."""

    def check_value(self, value: Any, dtype: Any) -> None:
        """Check a traced single value assigned into an integer Tensor of ``dtype`` (NaN,
        infinity, out of range), as eager code checks a number."""

    def check_reached(self, error: Exception) -> None:
        """Make ``error`` (what eager code raises where the code traced now runs) a check
        that fails where that code runs (:func:`raised_later`)."""

    def check_matrices(self, bad: Callable[[], Any], message: str, arg: str) -> None:
        """Check a stack of matrices as eager ``jaxtensor.linalg`` does: ``bad()`` (called
        only where the trace checks) is a traced bool per matrix of the stack (its batch
        shape), and where one is set the call raises ``LinAlgError(message.format(name))``,
        ``name`` being ``arg`` or ``arg[i, j]`` for the first such matrix."""


#: The trace of the ``jaxtensor.jit`` call running in this thread/task, if any.
current: ContextVar[JitTrace | None] = ContextVar("jaxtensor_jit_trace", default=None)


def checked_later(v: Any, dtype: Any) -> Any:
    """A constant index (or index array) found out of range: as a traced value of
    ``dtype``, which the caller hands to the trace's check like any traced index, where the
    running ``jaxtensor.jit`` trace checks indices when its program runs
    (:meth:`JitTrace.checks_later`); else None (the caller raises now)."""
    jt = current.get()
    if jt is None or not jt.checks_later():
        return None
    from jax import lax

    return lax.convert_element_type(v, dtype)


def raised_later(error: Exception) -> bool:
    """Whether ``error`` (a ``ValueError`` eager code raises at this point, of shapes alone:
    ``max`` over zero elements) fails where the code runs rather than now: in a
    ``jaxtensor.jit`` trace that checks when its program runs (a loop body or ``cond``
    branch, which may never run, as the Python loop of zero iterations raises nothing).
    The caller then makes a value of its result's shape; else it raises now."""
    jt = current.get()
    if jt is None or not jt.checks_later():
        return False
    jt.check_reached(error)
    return True


def check_traced(i: Any, n: int, axis: int, fname: str | None = None) -> None:
    """Hand a traced index value to the running ``jaxtensor.jit`` trace's bounds check."""
    jt = current.get()
    if jt is not None:
        jt.check_index(i, n, axis, fname)
