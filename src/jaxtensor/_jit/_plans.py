"""A ``jaxtensor.jit`` function's compiled variants (:class:`Plan`) and the call one runs for
(:data:`CALL`, read by the trace JAX may start). How a plan is called: ``_protocol.py``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import Any

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

