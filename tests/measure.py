"""Counters the tests and the benchmarks share: backend compilations and Python calls.

Neither times anything: a count is a property of the code, the same on every machine."""

from __future__ import annotations

import sys
from collections.abc import Callable

import jax

_EVENT = "/jax/core/compile/backend_compile_duration"


def count_compiles(run: Callable[[], object]) -> int:
    """Backend compilations made by ``run()`` (``jax.monitoring``)."""
    count = 0

    def listener(event: str, duration: float, **kwargs: object) -> None:
        nonlocal count
        if event == _EVENT:
            count += 1

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        run()
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)
    return count


def python_calls(f: Callable[[], object]) -> int:
    """The Python function calls one call of ``f`` makes (``sys.setprofile``)."""
    count = 0

    def prof(frame: object, event: str, arg: object) -> None:
        nonlocal count
        if event == "call":
            count += 1

    sys.setprofile(prof)
    try:
        f()
    finally:
        sys.setprofile(None)
    return count
