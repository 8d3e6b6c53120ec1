"""A call's plan is made for the donation its call finds: the prediction
(``Storage.can_donate``) and the call's lending (``Storage.lend``) agree.

An element read not computed yet (``old = x[3]``) holds ``x``'s buffer until it is read
or ``x`` is written; a call that donates ``x`` settles it first (``lend``), so the
prediction counts it as settled. Before, the plan was made for ``x`` not donated, the call
then found it donatable, and a second plan was traced and compiled: flood fill's ``old =
img[sr, sc]`` before its top-level ``while_loop`` compiled the loop twice on every first
call."""

from __future__ import annotations

import numpy as np
import pytest

import jaxtensor as jt
from jaxtensor._jit import _jit


@pytest.fixture
def lowered(monkeypatch: pytest.MonkeyPatch) -> list:
    """The specs of the plans traced and compiled (``Jitted._lower``), in order."""
    made: list = []
    lower = _jit.Jitted._lower

    def counted(self, spec, d):
        made.append(spec)
        return lower(self, spec, d)

    monkeypatch.setattr(_jit.Jitted, "_lower", counted)
    return made


def _jit_call(x: jt.Tensor, old: jt.Tensor) -> None:
    def program(x: jt.Tensor, old: jt.Tensor) -> None:
        x[:] = x * 2 + old
    jt.jit(program)(x, old)


def _loop_call(x: jt.Tensor, old: jt.Tensor) -> None:
    def body(i):
        x[i] = x[i] + old
    jt.fori_loop(0, 4, body)


def _closed_call(x: jt.Tensor, old: jt.Tensor) -> None:
    def program() -> None:
        x[1:] = x[:-1] + old
    jt.jit(program)()


@pytest.mark.parametrize("reads", [1, 3])
@pytest.mark.parametrize("call", [_jit_call, _loop_call, _closed_call])
def test_a_call_after_an_element_read_of_what_it_writes_makes_one_plan(lowered, call, reads):
    jt.clear_caches()  # (the loop's compiled program, cached by its body's code)
    x_np = np.arange(10.0)
    x = jt.asarray(x_np)
    olds = [x[3] for _ in range(reads)]  # (each holds x's buffer)
    call(x, olds[0])
    assert len(lowered) == 1, lowered
    assert lowered[0].donated[0] is True  # (x's buffer is reused: the reads were settled)
    assert all(float(o) == 3.0 for o in olds)  # (they read x before the call wrote it)
    want = x_np.copy()
    if call is _jit_call:
        want = want * 2 + 3
    elif call is _loop_call:
        want[:4] += 3
    else:
        want[1:] = x_np[:-1] + 3
    np.testing.assert_array_equal(np.asarray(x), want)


def test_a_read_that_keeps_the_buffer_is_not_donated(lowered):
    """A reference the call cannot settle (the array itself, held by the caller) keeps the
    buffer: the plan is made not donating it, once."""
    x = jt.asarray(np.arange(10.0))
    kept = x._storage._array  # noqa: F841 - (held: x's buffer cannot be donated)
    _jit_call(x, x[3])
    assert len(lowered) == 1 and lowered[0].donated[0] is False, lowered
    np.testing.assert_array_equal(np.asarray(x), np.arange(10.0) * 2 + 3)
