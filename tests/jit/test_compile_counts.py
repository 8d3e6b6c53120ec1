"""No recompilation traps: a write or read at a new position compiles nothing.

Every write kind compiles once per shape and index *structure*; slice starts, int indices
and view offsets are data. Compilations are counted with JAX's own backend-compile event
(``jax.monitoring``), over 100 calls at changing positions after two warm-up calls (a
couple of one-off conversions are allowed; before the fix each write compiled anew).
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import numpy as np
import pytest

import jaxtensor as jt
from measure import count_compiles

ALLOWED = 2  # one-off helpers (a kept device constant of a new shape)


def compiles(f: Callable[[int], object], n: int = 100) -> int:
    """Backend compilations made by ``f(i)`` for ``i`` in ``2 .. n + 1`` (after ``f(0)``,
    ``f(1)``)."""
    f(0)
    f(1)
    return count_compiles(lambda: [f(i) for i in range(2, n + 2)])


def _cases() -> dict[str, Callable[[], Callable[[int], object]]]:
    def slice_write():
        x, v = jt.zeros(200), jt.ones(5)
        return lambda i: x.__setitem__(slice(i, i + 5), v)

    def slice_iadd():
        x = jt.zeros(200)

        def f(i):
            x[i:i + 5] += 1.0
        return f

    def transposed():
        X = jt.zeros((40, 40))
        return lambda i: X.T.__setitem__((3, i % 40), 1.0)

    def reshaped():
        x = jt.zeros(200)
        return lambda i: x.reshape(10, 20).__setitem__((i % 10, i % 20), 2.0)

    def expanded():
        x = jt.zeros(200)
        return lambda i: jt.expand_dims(x, axis=0).__setitem__((0, i), 3.0)

    def block():
        X = jt.zeros((40, 40))
        return lambda i: X.__setitem__((slice(i % 37, i % 37 + 3), slice(1, 4)), 1.0)

    def view_of_view():
        X = jt.zeros((40, 40))
        return lambda i: X[:, i % 40].__setitem__(2, 5.0)

    def strided():
        x = jt.zeros(200)
        return lambda i: x[i::7].__setitem__(1, 1.0)

    def read_slices():
        x = jt.arange(200.0)
        return lambda i: float(x[i:i + 5].sum())

    def read_through_transpose():
        X = jt.reshape(jt.arange(1600.0), (40, 40))
        return lambda i: float(X.T[i % 40, 1:4][1])

    return {f.__name__: f for f in (slice_write, slice_iadd, transposed, reshaped, expanded,
                                    block, view_of_view, strided, read_slices,
                                    read_through_transpose)}


@pytest.mark.parametrize("case", sorted(_cases()))
def test_eager_writes_and_reads_compile_once(case: str) -> None:
    f = _cases()[case]()
    assert compiles(f) <= ALLOWED


def _jitted_body(x, X, i, v):
    x[i] = v
    X.T[3, i] = 1.0
    x.reshape(10, 20)[1, i] = 2.0
    jt.expand_dims(x, axis=0)[0, i + 1] = 3.0
    return x[i] + X[i, 3]


@pytest.mark.parametrize("kind", ["python int", "0-D Tensor", "jax scalar"])
def test_jit_with_changing_positions_compiles_once(kind: str) -> None:
    """Python ints (and 0-D Tensors / jax scalars) are traced arguments of
    ``jaxtensor.jit``: a new value compiles nothing."""
    f = jt.jit(_jitted_body)
    x, X = jt.zeros(200), jt.zeros((20, 20))
    conv = {"python int": int, "0-D Tensor": jt.asarray, "jax scalar": jax.numpy.asarray}[kind]
    assert compiles(lambda i: f(x, X, conv(i % 19), 1.0)) <= ALLOWED
    ex, eX = jt.zeros(200), jt.zeros((20, 20))
    for i in range(102):
        _jitted_body(ex, eX, i % 19, 1.0)
    np.testing.assert_array_equal(np.asarray(x), np.asarray(ex))
    np.testing.assert_array_equal(np.asarray(X), np.asarray(eX))


def test_jit_with_views_at_changing_offsets_compiles_once() -> None:
    """A view argument's start offsets are data of the compiled call."""
    f = jt.jit(lambda t, v: t.__setitem__(slice(None), v))
    x = jt.zeros(200)
    assert compiles(lambda i: f(x[i:i + 5], float(i))) <= ALLOWED
    assert np.asarray(x)[97:106].tolist() == [97.0, 98.0, 99.0, 100.0] + [101.0] * 5


def _mixed_sequence() -> Callable[[int], object]:
    """Operators with Python scalars, reductions, views, every write kind and in-place
    operators, as NumPy-style code mixes them."""
    x = jt.zeros((8, 6))
    y = jt.ones(6)
    idx = jt.asarray([0, 3, 5])
    m = jt.asarray(np.arange(6) % 2 == 0)

    def run(k: int) -> object:
        nonlocal x  # (x += 1 rebinds the name, to the same Tensor)
        z = x * 2.0 + 1
        z = z - y
        s = jt.sum(z) + jt.max(z, axis=0) - z.mean()
        v = x[1:3]
        v += 1.0
        x[2] = 3.0
        x[1:3] = 2
        x[0, 1] = 5.0
        x[:, 2] *= 2
        x.T[1][:6] = y
        x[idx] = 1.0
        x[0][m] = 0.0
        x[[1, 2], 0] = jt.asarray([1.0, 2.0])
        x[x > 10] = 10.0
        x += 1
        x *= 0.5
        x[k % 8] -= 0.25
        w = jt.reshape(x, (48,))
        w[k] = 7.0
        return float(s.sum()) + float(x[k % 8, 0]) + x[::2, 1:].sum().item()

    return run


def test_repeated_mixed_sequence_compiles_nothing() -> None:
    """After one run, every later run of a mixed sequence of eager operations (new index
    values included) compiles nothing: no second kernel for an operator once its Python
    scalar becomes a kept device constant, none for the second basic write."""
    assert compiles(_mixed_sequence(), n=6) == 0


@pytest.mark.parametrize("op", ["x * 2.5", "x + 3", "x / 3.5", "3 - x", "x ** 2",
                                "x += 1.5", "x[1:] *= 3", "bf16 / 3.3"])
def test_operator_with_python_scalar_compiles_once(op: str) -> None:
    x = jt.ones(10)
    b = jt.ones(10, dtype=jt.bfloat16)
    n = [0]

    def run(i: int) -> None:
        n[0] += 1
        exec(op, {"x": x, "bf16": b})

    first = count_compiles(lambda: run(0))
    later = count_compiles(lambda: [run(i) for i in range(1, 6)])
    assert first >= 1 and later == 0, (first, later)


def test_asarray_of_new_shapes_compiles_nothing() -> None:
    """Moving NumPy data, lists and scalars in compiles no program (``jnp.asarray`` of a
    NumPy array compiles one per shape in JAX 0.10)."""
    assert compiles(lambda i: (jt.asarray(np.arange(i + 3.0)), jt.asarray([i] * (i + 1)),
                               jt.asarray(float(i)))) == 0
