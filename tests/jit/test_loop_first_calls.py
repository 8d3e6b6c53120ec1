"""A first call of nested loops traces each body at most twice and compiles one program
(issue 28 item 3), whatever the nesting and wherever the written Tensor comes from: passed
in, closed over, made by the function, made by an outer body. Results against the same
loops run by NumPy."""

from __future__ import annotations

import collections
from collections.abc import Callable

import numpy as np
import pytest

import jaxtensor as jt
from test_compile_counts import count_compiles


# Each program writes ``out`` (8 elements) from ``y`` (2 elements) with loops nested three
# deep; ``out`` is None when the program makes it (then it is returned).
def fori3(out, y, n: collections.Counter, made: str):
    def a(i):
        n["a"] += 1
        inner = jt.zeros(4) if made == "outer body" else None

        def b(j):
            n["b"] += 1

            def c(k):
                n["c"] += 1
                if inner is None:
                    out[i * 4 + j * 2 + k] += y[k] * (i + 1)
                else:
                    inner[j * 2 + k] += y[k] * (i + 1)
            jt.fori_loop(0, 2, c)
        jt.fori_loop(0, 2, b)
        if inner is not None:
            out[jt.ds(i * 4, 4)] = inner
    jt.fori_loop(0, 2, a)


def fori3_numpy(y):
    out = np.zeros(8)
    for i in range(2):
        for j in range(2):
            for k in range(2):
                out[i * 4 + j * 2 + k] += y[k] * (i + 1)
    return out


def while_in_fori(out, y, n: collections.Counter, made: str):
    def a(i):
        n["a"] += 1
        k = jt.zeros((), dtype=jt.int64)  # (the counter: made by the outer body)

        def test():
            n["test"] += 1
            return k < 4

        def b():
            n["b"] += 1
            out[i * 4 + k] += y[k % 2] * (i + 1)
            k[()] += 1
        jt.while_loop(test, b)
    jt.fori_loop(0, 2, a)


def while_in_fori_numpy(y):
    out = np.zeros(8)
    for i in range(2):
        k = 0
        while k < 4:
            out[i * 4 + k] += y[k % 2] * (i + 1)
            k += 1
    return out


def cond_fori_while(out, y, n: collections.Counter, made: str):
    m = jt.asarray(0)  # (eagerly: a device copy, no program compiled)

    def test():
        n["test"] += 1
        return m < 2

    def body():
        n["body"] += 1

        def a(i):
            n["a"] += 1

            def yes():
                n["yes"] += 1
                out[m * 4 + i] += y[i % 2]

            def no():
                n["no"] += 1
                out[m * 4 + i] -= 1.0
            jt.cond(y[i % 2] > 1.5, yes, no)
        jt.fori_loop(0, 4, a)
        m[()] += 1
    jt.while_loop(test, body)


def cond_fori_while_numpy(y):
    out = np.zeros(8)
    for m in range(2):
        for i in range(4):
            if y[i % 2] > 1.5:
                out[m * 4 + i] += y[i % 2]
            else:
                out[m * 4 + i] -= 1.0
    return out


PROGRAMS: dict[str, tuple[Callable, Callable]] = {
    "fori in fori in fori": (fori3, fori3_numpy),
    "while in fori": (while_in_fori, while_in_fori_numpy),
    "cond in fori in while": (cond_fori_while, cond_fori_while_numpy),
}
CASES = [(p, "jit", made) for p in PROGRAMS for made in ("closed over", "made by the function")
         ] + [(p, "eager", "closed over") for p in PROGRAMS] + [
    ("fori in fori in fori", "jit", "passed in")] + [
    ("fori in fori in fori", how, "outer body") for how in ("eager", "jit")]


def _first_call(program: Callable, how: str, made: str, y: jt.Tensor,
                n: collections.Counter) -> Callable[[], jt.Tensor]:
    """The call to make once, returning the written Tensor (eagerly: a Tensor made at the
    top level, which the bodies close over)."""
    if how == "eager":
        out = jt.zeros(8)
        return lambda: (program(out, y, n, made), out)[1]
    if made == "passed in":
        f = jt.jit(lambda out, y: program(out, y, n, made))
        out = jt.zeros(8)
        return lambda: (f(out, y), out)[1]
    if made == "closed over":
        out = jt.zeros(8)
        f = jt.jit(lambda: program(out, y, n, made))
        return lambda: (f(), out)[1]

    def g(y):
        out = jt.zeros(8)
        program(out, y, n, made)
        return out
    f = jt.jit(g)
    return lambda: f(y)


@pytest.mark.parametrize("name,how,made", CASES)
def test_a_first_call_traces_each_body_at_most_twice_and_compiles_one_program(name, how, made):
    """Each body of the nest is traced at most twice by the first call (a Tensor made by the
    function and written only in an inner loop, or made by an outer body, was traced again
    per level, 4 to 8 times three deep; and an eager loop traced every body twice, a first
    trace with hoisted checks being thrown away; eagerly, where the bodies make no Tensor,
    each is traced once), the call compiles one program, and the result is NumPy's."""
    program, oracle = PROGRAMS[name]
    y_np = np.array([1.0, 2.0])
    y = jt.asarray(y_np)
    n: collections.Counter = collections.Counter()  # (traces of each body)
    call = _first_call(program, how, made, y, n)
    got: list = []
    compiles = count_compiles(lambda: got.append(np.asarray(call())))
    np.testing.assert_allclose(got[0], oracle(y_np))
    # (a while_loop's condition is traced where it is evaluated, before the loop and at the
    # end of an iteration, so that its checks are carried ones: twice per trace of the loop)
    loops = {k: v / 2 if k == "test" else v for k, v in n.items()}
    assert loops and max(loops.values()) <= 2, dict(n)
    if how == "eager" and made == "closed over" and name != "while in fori":
        # (every Tensor the bodies write exists before the call: nothing to find, each body
        # traced once; it was traced twice)
        assert max(loops.values()) == 1, dict(n)
    assert compiles <= 1, compiles


@pytest.mark.parametrize("how", ["eager", "jit"])
def test_a_first_call_given_elements_not_read_yet_compiles_its_program_once(how):
    """Elements read from a Tensor (``a, b = theta``: computed at their first use) passed to
    a loop or a ``jaxtensor.jit`` function: the first call compiles its program once (the
    call foresaw that they could not be donated, found at the call that they could, and
    traced and compiled a second program; the value lent to the first try was then held,
    so nothing was donated)."""
    warm, _ = jt.asarray([0.0, 0.0])  # (the element readers of this structure, compiled:
    np.asarray(warm * 1.0)  # two reads made together are computed by one kernel; float()
    # of an element reads host memory and compiles nothing)
    theta_np, y_np = np.array([0.5, 2.0]), np.array([1.0, 3.0])
    y = jt.asarray(y_np)
    a, b = jt.asarray(theta_np)

    def step(i):
        y[...] = y * a + b + i

    if how == "eager":
        compiles = count_compiles(lambda: jt.fori_loop(0, 3, step))
    else:
        def f(y, a, b):
            for i in range(3):
                y[...] = y * a + b + i
        compiles = count_compiles(lambda: jt.jit(f)(y, a, b))
    want = y_np.copy()
    for i in range(3):
        want = want * theta_np[0] + theta_np[1] + i
    np.testing.assert_allclose(np.asarray(y), want)
    assert (float(a), float(b)) == (0.5, 2.0)  # (lent, donated, still theirs)
    assert compiles == 1, compiles
