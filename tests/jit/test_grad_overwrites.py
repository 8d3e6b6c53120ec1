"""A write whose value is a constant Tensor (no traced value: the storage takes the
Tensor's array as it is) after traced writes of the same storage, under ``grad``, ``vjp``,
``jvp``, ``vmap(grad)`` and ``jit(value_and_grad)``: the later write wins, as eagerly, for
an argument and for a closed-over Tensor. Values against the eager function, gradients
against central differences."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import jaxtensor as jt

BEFORE = {
    "x *= 3": lambda t, x: t.__imul__(3.0),
    "t[0] = 9": lambda t, x: t.__setitem__(0, 9.0),
    "t += x": lambda t, x: t.__iadd__(x),
    "t[1:] = x[:1] * 2": lambda t, x: t.__setitem__(slice(1, None), x[:1] * 2.0),
}
VALUES = {
    "asarray": lambda: jt.asarray([-1.5, 2.0]),
    "arange": lambda: jt.arange(2.0),
    "made before": None,  # (a Tensor made outside the function, closed over)
}
TARGETS = {"[:]": slice(None), "[...]": Ellipsis}
KEPT = jt.asarray([0.25, -4.0])


def _program(before: str, value: str, target: str, closed: bool):
    """``f(x)``: writes ``t`` (``x`` or a closed-over Tensor ``c``), overwrites all of it
    with a constant Tensor, writes again from ``x``, and returns a function of both."""
    c = jt.asarray([1.0, 1.0])

    def f(x):
        t = c if closed else x
        BEFORE[before](t, x)
        t[TARGETS[target]] = KEPT if VALUES[value] is None else VALUES[value]()
        t[0] += x[1] * x[1]
        return jt.sum(t * x) + jt.sum(c)

    return f, c


def _numeric_grad(f, x: np.ndarray) -> np.ndarray:
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = 1e-6
        hi = float(f(jt.asarray(x + e)))
        lo = float(f(jt.asarray(x - e)))
        g[i] = (hi - lo) / 2e-6
    return g


CASES = list(itertools.product(BEFORE, VALUES, TARGETS, [False, True]))


@pytest.mark.parametrize("before,value,target,closed", CASES)
def test_a_constant_overwrite_after_traced_writes_wins(before: str, value: str, target: str,
                                                       closed: bool) -> None:
    x0 = np.array([0.7, -1.3])
    f, c = _program(before, value, target, closed)
    want_v = float(f(jt.asarray(x0)))
    want_c = c.tolist()
    want_g = _numeric_grad(lambda x: _program(before, value, target, closed)[0](x), x0)

    for name in ("grad", "value_and_grad", "vjp", "jvp", "jit(value_and_grad)"):
        f, c = _program(before, value, target, closed)
        x = jt.asarray(x0)
        if name == "grad":
            g, v = jt.grad(f)(x), None
        elif name == "value_and_grad":
            v, g = jt.value_and_grad(f)(x)
        elif name == "jit(value_and_grad)":
            v, g = jt.jit(jt.value_and_grad(f))(x)
        elif name == "vjp":
            v, pull = jt.vjp(f, x)
            (g,) = pull(jt.asarray(1.0))
        else:
            v, d0 = jt.jvp(f, (x,), (jt.asarray([1.0, 0.0]),))
            _, d1 = jt.jvp(f, (jt.asarray(x0),), (jt.asarray([0.0, 1.0]),))
            g = jt.stack([d0, d1])
        if v is not None:
            np.testing.assert_allclose(float(v), want_v, rtol=1e-12, err_msg=name)
        np.testing.assert_allclose(np.asarray(g), want_g, rtol=1e-5, atol=1e-6, err_msg=name)
        if closed:
            np.testing.assert_allclose(c.tolist(), want_c, rtol=1e-12, err_msg=name)


def test_vmap_of_grad_with_a_constant_overwrite() -> None:
    f, _ = _program("x *= 3", "asarray", "[:]", False)
    xs = np.array([[0.7, -1.3], [2.0, 0.5]])
    got = jt.vmap(jt.grad(f))(jt.asarray(xs))
    for row, x in zip(np.asarray(got), xs, strict=True):
        want = _numeric_grad(lambda t: _program("x *= 3", "asarray", "[:]", False)[0](t), x)
        np.testing.assert_allclose(row, want, rtol=1e-5, atol=1e-6)
