"""A Python float or complex number that an eager loop's body reads is data of the compiled
loop: a new value compiles nothing, and the body computes what the Python loop computes.

Each program runs as a Python loop on NumPy (the oracle) and through ``jt.fori_loop`` /
``jt.while_loop`` over a sequence of values (signed zeros, infinities, NaN, complex), read
from the body's closure, a default argument or a module global, in fresh closures of the
same code; compilations of calls 2..n are counted (JAX's compile events). Bodies that need
a number's concrete value (a Python ``if``, ``math``, ``int()``, a shape) get it, as
constants keyed by the value, as before; a failed call raises what the eager loop raises
and leaves the Tensors as they were.
"""

from __future__ import annotations

import functools
import math
import types

import numpy as np
import pytest

import jaxtensor as jt
from measure import count_compiles
from test_loop_cache import np_fori, np_while

N = 4
FLOATS = (0.5, -2.25, -0.0, 0.0, float("inf"), float("nan"), 1e-300, 3.0)


@functools.cache
def _module(src: str) -> dict:
    """``src`` run as a script's top level (its names are globals of a module of its own),
    once: every call of its ``run`` makes fresh closures of the same code."""
    mod = types.ModuleType("__main__")
    mod.__dict__.update(np=np, jt=jt, math=math)
    exec(compile(src, "<user_script>", "exec"), mod.__dict__)
    return mod.__dict__


# Each ``run(xp, fori, while_, x, a)`` writes ``x`` reading the number ``a`` in its body.
PROGRAMS = {
    "closure": """
def run(xp, fori, while_, x, a):
    def body(i):
        x[i] = x[i] * a + i * a
    fori(0, 4, body)
""",
    "default argument": """
def run(xp, fori, while_, x, a):
    def body(i, a=a):
        x[i] += a - i
    fori(1, 4, body)
""",
    "module global": """
A = 0.0
def body(i):
    x[i] = x[i] - A * i
def run(xp, fori, while_, x_, a):
    global A, x
    A, x = a, x_
    fori(0, 4, body)
""",
    "while condition and body": """
def run(xp, fori, while_, x, a):
    k = xp.zeros((), dtype=xp.int64)
    def more():
        return k < 3
    def body():
        x[k] = x[k + 1] + a
        k[...] += 1
    while_(more, body)
""",
    "nested loops": """
def run(xp, fori, while_, x, a):
    def outer(i):
        def inner(j):
            x[j] = x[j] * 0.5 + a * (i + 1)
        fori(0, i + 1, inner)
    fori(0, 4, outer)
""",
}


def _numpy(src: str, x0: np.ndarray, a: object) -> np.ndarray:
    x = x0.copy()
    with np.errstate(all="ignore"):
        _module(src + "\n")["run"](np, np_fori, np_while, x, a)
    return x


def _ours(src: str, x0: np.ndarray, a: object) -> np.ndarray:
    x = jt.asarray(x0.copy())
    _module(src)["run"](jt, jt.fori_loop, jt.while_loop, x, a)
    return np.asarray(x)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_new_numbers_compile_nothing_and_match_numpy(name: str) -> None:
    src = PROGRAMS[name]
    x0 = np.linspace(-1.0, 2.0, N + 1)
    got = []
    calls = lambda: got.extend(_ours(src, x0, a) for a in FLOATS[2:])  # noqa: E731
    got += [_ours(src, x0, a) for a in FLOATS[:2]]
    assert count_compiles(calls) == 0
    for a, g in zip(FLOATS, got):
        want = _numpy(src, x0, a)
        np.testing.assert_array_equal(np.signbit(g), np.signbit(want), err_msg=repr(a))
        np.testing.assert_allclose(g, want, rtol=1e-12, err_msg=repr(a))


def test_complex_numbers_are_data_too() -> None:
    src = PROGRAMS["closure"]
    x0 = np.linspace(-1.0, 2.0, N + 1).astype(np.complex128)
    _ours(src, x0, 1 + 2j)
    got = []
    assert count_compiles(lambda: got.extend(_ours(src, x0, a) for a in (-1j, 0.5 - 3j))) == 0
    for a, g in zip((-1j, 0.5 - 3j), got):
        np.testing.assert_allclose(g, _numpy(src, x0, a), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "int32", "complex64"])
def test_a_number_takes_the_tensors_dtype_as_eagerly(dtype: str) -> None:
    """The number is weakly typed, as the Python float of the eager loop: a float32 Tensor
    stays float32, an int Tensor's expression takes the default float."""
    def run(x, a, fori):
        out = jt.zeros(N, dtype=jt.float64 if dtype == "int32" else getattr(jt, dtype))

        def body(i):
            out[i] = x[i] * a
        fori(0, N, body)
        return out

    x = jt.asarray(np.arange(N), dtype=getattr(jt, dtype))
    eager = run(x, 0.1, np_fori)
    for a in (0.1, 2.7):
        got = run(x, a, jt.fori_loop)
        want = run(x, a, np_fori)
        assert got.dtype == want.dtype == eager.dtype
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


# bodies that need the concrete value of the number they read
CONCRETE = {
    "python if": """
def run(xp, fori, while_, x, a):
    def body(i):
        if a > 1:
            x[i] += a
        else:
            x[i] -= 1.0
    fori(0, 4, body)
""",
    "math": """
def run(xp, fori, while_, x, a):
    def body(i):
        x[i] += math.exp(a) + math.floor(a)
    fori(0, 4, body)
""",
    "int of it": """
def run(xp, fori, while_, x, a):
    def body(i):
        x[i] += [10.0, 20.0, 30.0, 40.0][int(a) % 4]
    fori(0, 4, body)
""",
    "a shape": """
def run(xp, fori, while_, x, a):
    def body(i):
        x[i] += xp.sum(xp.ones(int(a) + 1))
    fori(0, 4, body)
""",
    "a method of float": """
def run(xp, fori, while_, x, a):
    def body(i):
        x[i] += 1.0 if a.is_integer() else 2.0
    fori(0, 4, body)
""",
}


@pytest.mark.parametrize("name", sorted(CONCRETE))
def test_bodies_that_need_the_value_get_it(name: str) -> None:
    src = CONCRETE[name]
    x0 = np.arange(N + 1.0)
    for a in (0.5, 2.0, 3.5, 2.0):
        np.testing.assert_array_equal(_ours(src, x0, a), _numpy(src, x0, a), err_msg=repr(a))


def test_a_failed_call_raises_as_eagerly_and_changes_nothing() -> None:
    def run(x, a, fori):
        def body(i):
            x[i] = x[i] * a  # (a complex value into a real Tensor: TypeError)
        fori(0, N, body)

    for a in (0.5, 1j, 2.0):
        x, y = jt.arange(float(N)), jt.arange(float(N))
        errors = []
        for t, fori in ((x, jt.fori_loop), (y, np_fori)):
            try:
                run(t, a, fori)
                errors.append(None)
            except TypeError as e:
                errors.append(type(e))
        assert errors[0] == errors[1]
        if errors[0] is not None:
            np.testing.assert_array_equal(np.asarray(x), np.arange(float(N)))
        else:
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
