"""Internals of ``jaxtensor.jit`` that users cannot see but that make its promises cheap:
the donation of a closed-over Tensor's buffer, the read of a failed check's number."""

from __future__ import annotations

import jax
import numpy as np

import jaxtensor as jt


def _checked_writes(n):
    def f(t, i):
        for k in range(n):
            t[i + k] = t[i + k] + 1.0
    return f


def test_a_closed_over_tensor_is_donated_from_its_first_calls() -> None:
    """A function writing a Tensor it closes over writes its buffer in place once its
    plan is made (the plan is made with donation from the first call)."""
    t = jt.zeros(8, dtype=jt.float32)

    def fn(i):
        t[i] += 1.0
        t[0:2] *= 2.0

    f = jt.jit(fn)
    f(3)
    f(5)
    before = t._storage.array.unsafe_buffer_pointer()
    f(1)
    assert t._storage.array.unsafe_buffer_pointer() == before
    want = np.zeros(8, np.float32)
    for i in (3, 5, 1):
        want[i] += 1.0
        want[0:2] *= 2.0
    np.testing.assert_array_equal(t.numpy(), want)


def test_check_read_falls_back_where_an_array_has_no_buffer() -> None:
    """The first failure's number is read through the buffer protocol (XLA:CPU arrays);
    an array without one (an accelerator's) is read with ``np.asarray`` from then on."""
    x = jt.zeros(8)
    f = jt.jit(_checked_writes(2))
    f(x, jax.numpy.asarray(0))
    nonzero = f._jaxtensor_jit._guard.plan.fn.nonzero
    assert nonzero(jax.numpy.asarray(3)) and not nonzero(jax.numpy.asarray(0))

    class NoBuffer:  # (np.asarray reads it; memoryview cannot)
        def __init__(self, v: int) -> None:
            self.v = v

        def __array__(self, dtype=None, copy=None):
            return np.asarray(self.v, dtype=dtype)

    assert nonzero(NoBuffer(2)) and not nonzero(NoBuffer(0))
    assert nonzero(jax.numpy.asarray(5)) and not nonzero(jax.numpy.asarray(0))


def test_repeat_calls_with_static_arguments_take_the_guard(monkeypatch) -> None:
    """A repeat plain call whose static arguments are unchanged (by type and value, a
    float by its bits) runs the guard of its signature, without describing the call; a
    changed one (``-0.0`` after ``0.0``, ``True`` after ``1``) is described again."""
    from jaxtensor._jit._jit import Jitted

    described = []
    real = Jitted._describe

    def counting(self, args, kwargs):
        described.append(args[1:])
        return real(self, args, kwargs)

    monkeypatch.setattr(Jitted, "_describe", counting)
    f = jt.jit(lambda x, s, n: x * s + n, static_argnums=(1, 2))
    x = jt.ones(3)
    calls = [(0.0, 1), (0.0, 1), (0.0, 1), (-0.0, 1), (-0.0, 1), (0.0, True), (0.0, True)]
    for s, n in calls:
        f(x, s, n)
    assert [(str(s), type(n)) for (s, n) in described] == [
        ("0.0", int), ("-0.0", int), ("0.0", bool)]
