"""A ``jaxtensor.jit`` function's compiled variants (:class:`Plan`) and how one is called: the
call it runs for (:data:`CALL`, read by the trace JAX may start), and the compiled function
of a plan whose checks are hoisted or decided on the host (:func:`coded`), which makes a
failed call again with the plan's gated program."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import Any

import numpy as np

from .._core import Storage


class Call:
    """What a trace started by a call needs: its storages, the JAX trace and the
    ``jaxtensor.jit`` trace it was made under. (A plain call passes just the list.)"""

    __slots__ = ("storages", "outer", "parent", "concrete")

    def __init__(self, storages: list[Storage], outer: Any, parent: Any,
                 concrete: Sequence | None = None) -> None:
        self.storages = storages
        self.outer = outer
        self.parent = parent
        self.concrete = concrete  # the compiled function's arguments, when being traced


#: The call whose compiled function is running or being lowered, for the trace JAX may start
#: (its storages, or a :class:`Call`).
CALL: ContextVar[Any] = ContextVar("jaxtensor_jit_call", default=None)


class Retrace(Exception):
    """A check was made in a nested trace: the call is traced again in checkify mode."""


class Unready(Exception):
    """A call needs its plan's gated program, which is not compiled yet. Raised where the
    call holds its storages' locks: the caller puts back the values the call consumed
    (:meth:`put_back`, holding the locks), releases the locks, compiles the gated program
    (:meth:`ready`, holding none: no lock is held while JAX traces or compiles) and makes
    the call again."""

    def __init__(self, make: Callable[[], Callable], values: tuple, args: tuple) -> None:
        super().__init__("the gated program is not compiled yet")
        self.make = make
        self.values = values  # (storage number, its value unchanged) per donated storage
        self.inputs = args  # the gated program's arguments (to compile it for)
        self.call = CALL.get()

    def put_back(self, storages: list[Storage]) -> None:
        for k, v in self.values:
            storages[k]._install(v)  # (the caller holds the storages' locks)
        self.values = ()  # (a reference kept would keep the next call from donating)

    def ready(self) -> None:
        """Trace and compile the gated program (raises :class:`Retrace` as a trace may)."""
        tok = CALL.set(self.call)
        try:
            self.make().lower(*self.inputs).compile()  # (kept by jax.jit for the next call)
        finally:
            CALL.reset(tok)
            del self.inputs


def coded(fast: Callable, plan: Plan, make_gated: Callable[[], Callable]) -> Callable:
    """The compiled function of a HOISTED plan (``_modes.CheckMode``): its program ``fast``, whose last
    output is the number of the first failed check when the trace's checks were hoisted
    ahead of the writes (``Aux.coded``): then a failed call, which wrote nothing, is made
    again by the plan's gated program (made by ``make_gated()`` after the first failure,
    :class:`Unready`), whose results carry the error and the writes eager code makes
    before it. Where the
    plan's checks are decided on the host (``plan.host``), ``fast`` has no checks and runs
    only the calls the host clears; the others run the gated program (``slow``).

    The guard of a plain call (``_guard.py``) makes the same steps inline, with the
    function's attributes ``fast``, ``nonzero``, ``again`` and ``slow``. (Plain functions,
    not an object's ``__call__``: docs/measurements.md, section "The coded call".)"""
    gated: list[Callable] = []
    positions = plan.positions
    buffer_read = [True]

    def nonzero(code: Any) -> bool:
        # Read with the buffer protocol where the array has one (XLA:CPU; it waits for
        # the value), not np.asarray: docs/measurements.md, section "The coded call".
        if buffer_read[0]:
            try:
                return any(memoryview(code).tobytes())
            except Exception:  # (an accelerator's buffer: BufferError; np.asarray tells the rest)
                buffer_read[0] = False
        return bool(np.asarray(code))

    def make() -> Callable:
        if not gated:
            gated.append(make_gated())
        return gated[0]

    def slow(*ins: Any) -> Any:
        if not gated:  # (nothing was run: the values lent are unchanged)
            raise Unready(make, (), ins)
        return gated[0](*ins)

    def again(ins: tuple, aux: Any, outs: tuple) -> Any:
        args = list(ins)
        for j, k in aux.pairs:  # (the values the failed call was given, unchanged)
            args[positions[k]] = outs[j]
        if not gated:  # (the failed call wrote nothing: its outputs are the values lent)
            raise Unready(make, tuple([(k, outs[j]) for j, k in aux.pairs]), tuple(args))
        return gated[0](*args)

    def call(*ins: Any) -> Any:
        host = plan.host
        if host is not None and not host(ins):
            return slow(*ins)
        res = fast(*ins)
        for aux in res:
            if aux.coded and nonzero(res[aux][-1]):
                return again(ins, aux, res[aux])
        return res

    call.fast = fast  # type: ignore[attr-defined]
    call.nonzero = nonzero  # type: ignore[attr-defined]
    call.again = again  # type: ignore[attr-defined]
    call.slow = slow  # type: ignore[attr-defined]
    call.lower = fast.lower  # type: ignore[attr-defined]
    return call


class Plan:
    """One compiled variant: the ``jax.jit`` function and where its inputs go.

    The call being made (its storages, or a :class:`Call`) is in :data:`CALL` while
    ``fn`` runs or is lowered: the trace JAX may start reads it there (a context variable:
    each thread and task sees its own call).
    """

    __slots__ = ("fn", "donated", "positions", "stale", "ready", "discovered", "host",
                 "host_decided")

    def __init__(self, fn: Callable, donated: tuple, positions: tuple) -> None:
        self.fn = fn
        self.donated = donated
        self.positions = positions  # where each storage's array goes among the arguments
        # dropped by Jitted._forget: a guard that another thread fetched before the drop
        # must not run it (it may hold a closed-over value as a constant)
        self.stale = False
        self.ready = False  # traced and compiled (Jitted._ready)
        self.discovered: tuple = ()  # closed-over storages the last trace met (weakly)
        # HOISTED mode: whether a call's inputs pass every bounds check, decided on the host
        # (``_hostcheck.checker``), where the first trace found that possible; its program
        # then has no checks, and a call the host cannot clear runs the gated program
        self.host: Callable[[Sequence], bool] | None = None
        self.host_decided = False

