"""The call protocol of ``jaxtensor.jit`` as a user sees it: a failed bounds check raises with
a traceback of the user's frames only (no generated ``<string>`` frame, no jaxtensor frame
but the hidden entry),
and no storage lock of the call is held while JAX traces or compiles the program that a
first failing call needs (another thread may use the call's Tensors meanwhile)."""

from __future__ import annotations

import threading
import traceback
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import jaxtensor as jt

PKG = str(Path(jt.__file__).resolve().parent)


def _own_frames(e: BaseException) -> list[str]:
    """jaxtensor's frames in ``e``'s traceback that are not marked hidden."""
    tb, own = e.__traceback__, []
    while tb is not None:
        f = tb.tb_frame
        if f.f_code.co_filename.startswith(PKG) and not f.f_locals.get("__tracebackhide__"):
            own.append(f"{f.f_code.co_filename}:{f.f_code.co_name}")
        tb = tb.tb_next
    return own


def _held_by_this_thread(t: jt.Tensor) -> bool:
    """Whether this thread holds ``t``'s storage lock: another thread cannot take it."""
    lk = t._storage._lock
    if lk is None:
        return False
    got: list[bool] = []

    def take() -> None:
        ok = lk.acquire(blocking=False)
        if ok:
            lk.release()
        got.append(ok)

    th = threading.Thread(target=take)
    th.start()
    th.join()
    return not got[0]


# (each writes x at an index computed from i: affine, decided on the host; squared, checked
# in the program; through a loop, checked inside it)
BODIES = {
    "affine": lambda x, i: x.__setitem__(i + 1, 2.0),
    "squared": lambda x, i: x.__setitem__(i * i, 2.0),
    "two writes": lambda x, i: (x.__setitem__(0, 1.0), x.__setitem__(i, 2.0)),
}


@pytest.mark.parametrize("name", sorted(BODIES))
def test_a_failed_check_of_a_plain_call_shows_only_user_frames(name: str) -> None:
    body = BODIES[name]

    def f(x: jt.Tensor, i: Any) -> None:
        body(x, i)

    g = jt.jit(f)
    x = jt.zeros(5)
    g(x, 1)
    g(x, 2)  # (the guard of the plain signature makes this call and the next)
    for _ in range(2):  # the first failure (compiling what it needs) and a repeat
        with pytest.raises(IndexError) as info:
            g(x, 7)
        files = [fr.filename for fr in traceback.extract_tb(info.value.__traceback__)]
        assert not [f for f in files if f.startswith("<")], files
        assert files[0] == __file__
        # (the entry of jaxtensor.jit is left, marked hidden, as JAX leaves its own)
        assert _own_frames(info.value) == [], files
    eager = jt.zeros(5)
    body(eager, 1)
    body(eager, 2)
    with pytest.raises(IndexError):
        body(eager, 7)
    np.testing.assert_array_equal(np.asarray(x), np.asarray(eager))


@pytest.mark.parametrize("plain", [True, False], ids=["plain call", "general call"])
@pytest.mark.parametrize("name", sorted(BODIES))
def test_no_lock_is_held_while_a_failing_call_traces(name: str, plain: bool) -> None:
    """The first failing call traces (and compiles) the program that makes eager code's
    writes before the failure: the call's storage lock is free meanwhile."""
    body = BODIES[name]
    held: list[bool] = []

    def f(x: jt.Tensor, i: Any, *rest: Any) -> None:
        held.append(_held_by_this_thread(x))
        body(x, i)

    g = jt.jit(f, static_argnums=2) if not plain else jt.jit(f)
    extra = () if plain else ("static",)
    x = jt.zeros(5)
    g(x, 1, *extra)
    g(x, 2, *extra)
    n = len(held)
    with pytest.raises(IndexError):
        g(x, 7, *extra)
    assert len(held) > n  # (traced again for the failing call)
    assert not any(held), held
    eager = jt.zeros(5)
    for i in (1, 2):
        body(eager, i)
    with pytest.raises(IndexError):
        body(eager, 7)
    np.testing.assert_array_equal(np.asarray(x), np.asarray(eager))
    g(x, 0, *extra)  # (and the Tensor is usable after)
    body(eager, 0)
    np.testing.assert_array_equal(np.asarray(x), np.asarray(eager))
