"""The call protocol of ``jaxtensor.jit`` as a user sees it: a failed bounds check raises with
a traceback of the user's frames only (no generated ``<string>`` frame, no jaxtensor frame
but the hidden entry),
and no storage lock of the call is held while JAX traces or compiles the program that a
first failing call needs (another thread may use the call's Tensors meanwhile)."""

from __future__ import annotations

import functools
import threading
import traceback
from collections.abc import Callable
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

#: the shapes of a call, each taking another path: the guard of a plain signature, the
#: general path (a static argument), a closed-over Tensor (the guard with an implicit
#: storage), a call nested in another jaxtensor.jit function, and a Tensor passed twice, once
#: as a view (the general path with two leaves on one storage)
SHAPES = ["plain", "general", "closed-over", "nested", "view"]


def _call_of(shape: str, body: Callable, x: jt.Tensor, probe: Callable) -> Callable:
    """``call(i)`` making ``body(x, i)`` through ``shape``; ``probe()`` runs while traced."""
    if shape == "closed-over":
        def g(i: Any) -> None:
            probe()
            body(x, i)
        return jt.jit(g)

    def f(t: jt.Tensor, i: Any, *rest: Any) -> None:
        probe()
        body(t, i)

    if shape == "plain":
        return functools.partial(jt.jit(f), x)
    if shape == "general":
        g = jt.jit(f, static_argnums=2)
        return lambda i: g(x, i, "static")
    if shape == "view":
        h = jt.jit(lambda t, v, i: f(t, i))
        return lambda i: h(x, x[1:], i)
    inner = jt.jit(lambda t, i: body(t, i))

    def nest(t: jt.Tensor, i: Any) -> None:
        probe()  # (the outer function is traced again, the inner one's jax.jit trace kept)
        inner(t, i)

    outer = jt.jit(nest)
    return lambda i: outer(x, i)


#: (body, shape) pairs: every body through the guard's shapes and the general path; a
#: nested call and a view argument with one body each (the same generated protocol runs them
#: whatever the body)
CASES = [(name, shape) for name in sorted(BODIES)
         for shape in ("plain", "general", "closed-over")] + [
    ("affine", "nested"), ("squared", "view")]


@pytest.mark.parametrize("name,shape", CASES)
def test_a_failing_call_shows_user_frames_holds_no_lock_and_writes_as_eager(
        name: str, shape: str) -> None:
    """A failed check raises with a traceback of the user's frames only; the first failing
    call traces (and compiles) the program that makes eager code's writes before the
    failure with the call's storage lock free; the Tensor holds what eager code leaves,
    after the failures and after a later passing call."""
    body = BODIES[name]
    held: list[bool] = []
    x = jt.zeros(5)
    call = _call_of(shape, body, x, lambda: held.append(_held_by_this_thread(x)))
    call(1)
    call(2)  # (the guard of a plain signature makes this call and the next)
    n = len(held)
    for _ in range(2):  # the first failure (compiling what it needs) and a repeat
        with pytest.raises(IndexError) as info:
            call(7)
        files = [fr.filename for fr in traceback.extract_tb(info.value.__traceback__)]
        assert not [f for f in files if f.startswith("<")], files
        assert files[0] == __file__
        # (the entry of jaxtensor.jit is left, marked hidden, as JAX leaves its own)
        assert _own_frames(info.value) == [], files
        del info
    if shape != "nested":  # (there the checks are under checkify from the first trace on)
        assert len(held) > n  # (traced again for the failing call)
    assert held and not any(held), held
    eager = jt.zeros(5)
    for i in (1, 2):
        body(eager, i)
    for _ in range(2):
        with pytest.raises(IndexError):
            body(eager, 7)
    np.testing.assert_array_equal(np.asarray(x), np.asarray(eager))
    call(0)  # (and the Tensor is usable after)
    body(eager, 0)
    np.testing.assert_array_equal(np.asarray(x), np.asarray(eager))
