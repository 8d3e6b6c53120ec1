"""``fori_loop``, ``while_loop`` and ``cond`` whose bodies write Tensors: against NumPy
running the same Python loop, eagerly and inside ``jaxtensor.jit``; compile counts; bounds
checks in bodies; gradients; nesting; under ``jax.jit``."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxtensor as jt
from measure import count_compiles

N = 8


def _np(x: jt.Tensor) -> np.ndarray:
    return np.asarray(x)


# Each body is written once and run on NumPy arrays by a Python loop (the oracle) and on
# Tensors by jaxtensor's loops: ``make(x, y)`` returns ``body(i)``.
def _scalar(x, y):
    def body(i):
        x[i] = x[i - 1] * 0.5 + x[i]
    return body


def _window_view(x, y):
    v = x[1:]

    def body(i):
        v[jt.ds(i % (N - 3), 2)] += y[i]
    return body


def _slice_iop(x, y):
    def body(i):
        x[2:5] *= 0.5
        y[:3] += x[i]
    return body


def _int_array(x, y):
    def body(i):
        j = i % (N - 1)
        x[jt.stack([j, j + 1])] = y[jt.stack([j + 1, j])] + 1.0
    return body


def _mask(x, y):
    def body(i):
        x[x > 4.0] = x[i] * 0.25
        y[...] += x
    return body


def _transposed(x, y):
    m = x.reshape(2, 4).T

    def body(i):
        m[i % 4, 1] -= y[i]
    return body


BODIES = {f.__name__[1:]: f for f in (_scalar, _window_view, _slice_iop, _int_array, _mask,
                                      _transposed)}


def _jitted(make):
    @jt.jit
    def f(x, y, lo, hi):
        jt.fori_loop(lo, hi, make(x, y))
    return f


_JITTED = {name: _jitted(make) for name, make in BODIES.items()}


class _NpDs:
    """``jt.ds`` for the NumPy oracle: ``ds(i, k)`` is ``slice(i, i + k)``."""

    def __new__(cls, i, k):
        return slice(int(i), int(i) + k)


def _numpy_loop(make, x, y, lo, hi, monkeypatch):
    monkeypatch.setattr(jt, "ds", _NpDs)
    monkeypatch.setattr(jt, "stack", np.stack)
    body = make(x, y)
    for i in range(lo, hi):
        body(i)
    monkeypatch.undo()


@st.composite
def runs(draw):
    data = st.lists(st.floats(-8, 8, width=32).map(lambda v: round(v, 1)), min_size=N,
                    max_size=N)
    lo = draw(st.integers(1, N - 1))
    hi = draw(st.integers(lo - 1, N))
    return np.array(draw(data), np.float32), np.array(draw(data), np.float32), lo, hi


@pytest.mark.parametrize("name", sorted(BODIES))
@settings(deadline=None, max_examples=8)
@given(run=runs())
def test_fori_loop_matches_numpy_eager_and_jit(name, run, monkeypatch_module):
    a, b, lo, hi = run
    make = BODIES[name]
    na, nb = a.copy(), b.copy()
    _numpy_loop(make, na, nb, lo, hi, monkeypatch_module)

    x, y = jt.asarray(a), jt.asarray(b)
    jt.fori_loop(lo, hi, make(x, y))
    np.testing.assert_allclose(_np(x), na, rtol=1e-6)
    np.testing.assert_allclose(_np(y), nb, rtol=1e-6)

    x, y = jt.asarray(a), jt.asarray(b)
    _JITTED[name](x, y, lo, hi)
    np.testing.assert_allclose(_np(x), na, rtol=1e-6)
    np.testing.assert_allclose(_np(y), nb, rtol=1e-6)


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


def _recurrence(x):
    def step(i):
        x[i] = x[i - 1] * 0.5 + x[i]
    return step


def test_trip_count_compiles_nothing_new():
    x = jt.ones(2000)
    jt.fori_loop(1, 10, _recurrence(x))  # compiles the loop once
    n = count_compiles(lambda: [jt.fori_loop(1, hi, _recurrence(jt.ones(2000)))
                                 for hi in (100, 1999, 2000, 5)])
    assert n == 0
    # and the program does not grow with the trip count (numbers aside: ids differ)
    text = [re.sub(r"\d+", "0", jt.jit(lambda x, hi: jt.fori_loop(1, hi, _recurrence(x))).lower(
        jt.ones(2000), hi).as_text()) for hi in (3, 1500)]
    assert text[0] == text[1]


def test_new_closure_over_other_tensors_reuses_the_loop():
    def run(z, w):
        def body(i):
            z[i] += w[i] * 2
        jt.fori_loop(0, 4, body)

    run(jt.zeros(4), jt.ones(4))
    run(jt.zeros(4), jt.ones(4))
    z, w = jt.zeros(4), jt.arange(4.0)
    assert count_compiles(lambda: run(z, w)) == 0
    np.testing.assert_array_equal(_np(z), np.arange(4.0) * 2)


@settings(deadline=None, max_examples=10)
@given(st.integers(0, 40), st.integers(1, 5))
def test_while_loop_matches_python(start, step):
    x = jt.asarray([float(start), 0.0])
    a = np.array([float(start), 0.0], np.float32)

    def body():
        x[0] += step
        x[1] += 1

    jt.while_loop(lambda: x[0] < 50, body)
    while a[0] < 50:
        a[0] += step
        a[1] += 1
    np.testing.assert_array_equal(_np(x), a)


def test_jax_forms_with_tensor_carry():
    x = jt.zeros(4)

    def body(i, c):
        x[i] = c
        return c * 2

    out = jt.fori_loop(0, 4, body, jt.asarray(1.0))
    np.testing.assert_array_equal(_np(x), [1, 2, 4, 8])
    assert isinstance(out, jt.Tensor) and float(out) == 16.0
    n, s = jt.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] + c[0]),
                         (jt.asarray(0), jt.asarray(0)))
    assert (int(n), int(s)) == (5, 10)


def test_cond_in_loop_and_nested_loops_eager_and_jit():
    def program(m):
        def outer(i):
            def inner(j):
                jt.cond((i + j) % 2 == 0, lambda: m.__setitem__((i, j), 1.0 * i),
                        lambda: m.__setitem__((i, j), m[i, j] - 1.0))
            jt.fori_loop(0, 4, inner)
        jt.fori_loop(0, 3, outer)

    want = np.zeros((3, 4), np.float32)
    for i in range(3):
        for j in range(4):
            want[i, j] = i if (i + j) % 2 == 0 else want[i, j] - 1
    m = jt.zeros((3, 4))
    program(m)
    np.testing.assert_array_equal(_np(m), want)
    m = jt.zeros((3, 4))
    jt.jit(program)(m)
    np.testing.assert_array_equal(_np(m), want)


def test_cond_returns_values_and_concrete_pred_runs_the_branch():
    x = jt.zeros(2)
    assert jt.cond(True, lambda: 1, lambda: 2) == 1

    @jt.jit
    def f(x, p):
        return jt.cond(p > 0, lambda: x[0] + 1, lambda: x[1] - 1)

    assert float(f(x, 1)) == 1.0 and float(f(x, -1)) == -1.0


def test_tensor_made_before_the_loop_inside_jit():
    @jt.jit
    def f(x):
        t = jt.zeros(3)

        def b(i):
            t[i % 3] += i
            x[0] += t[0]
        jt.fori_loop(0, 5, b)
        return t

    x = jt.zeros(2)
    t = f(x)
    np.testing.assert_array_equal(_np(t), [3, 5, 2])
    assert float(x[0]) == 0 + 0 + 0 + 3 + 3


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("n", [7, 20])
def test_bounds_check_in_body_keeps_earlier_iterations(jit, n):
    def run(y, z, n):
        def body(i):
            z[0] += 1
            y[i] = 1.0 * i
        jt.fori_loop(0, n, body)

    y, z = jt.zeros(6), jt.zeros(1)
    v = y[2:]
    with pytest.raises(IndexError, match="index 6 is out of bounds for axis 0 with size 6"):
        (jt.jit(run) if jit else run)(y, z, n)
    np.testing.assert_array_equal(_np(y), np.arange(6.0))
    np.testing.assert_array_equal(_np(v), np.arange(2.0, 6.0))
    assert float(z[0]) == 7  # the failing iteration's write before the check is kept


def test_window_out_of_range_in_body():
    x = jt.zeros(5)

    def body(i):
        x[jt.ds(i, 2)] += 1

    with pytest.raises(IndexError, match=r"ds\(4, 2\) is out of bounds"):
        jt.fori_loop(0, 5, body)
    np.testing.assert_array_equal(_np(x), [1, 2, 2, 2, 1])


def _loss(w):
    h = jt.zeros(3)

    def b(i):
        h[i] = w[i] * w[i] + h[i - 1]
    jt.fori_loop(0, 3, b)
    return h.sum()


def _loss_pure(w):
    h = jnp.zeros(3)
    for i in range(3):
        h = h.at[i].set(w[i] * w[i] + h[i - 1])
    return h.sum()


@pytest.mark.parametrize("wrap", [lambda f: f, jt.jit])
def test_grad_through_fori_loop(wrap):
    w = np.array([1.0, -2.0, 0.5], np.float32)
    got = jt.grad(wrap(_loss))(jt.asarray(w))
    np.testing.assert_allclose(_np(got), np.asarray(jax.grad(_loss_pure)(jnp.asarray(w))),
                               rtol=1e-6)


def test_under_jax_jit():
    @jax.jit
    def g(a):
        z = jt.asarray(a)

        def b(i):
            z[i] += z[i - 1]
        jt.fori_loop(1, 4, b)
        return z.to_jax()

    np.testing.assert_array_equal(np.asarray(g(jnp.ones(4))), [1, 2, 3, 4])


def test_bad_arguments():
    with pytest.raises(TypeError, match="fori_loop\\(\\): body_fun must be callable"):
        jt.fori_loop(0, 2, 3)
    with pytest.raises(TypeError, match="fori_loop\\(\\): lower must be an integer"):
        jt.fori_loop(0.5, 2, lambda i: None)
    with pytest.raises(TypeError, match="while_loop\\(\\): cond_fun must return a 0-D"):
        jt.while_loop(lambda: jt.zeros(2) < 1, lambda: None)
    x = jt.zeros(2)

    def writes():
        x[0] = 1.0
        return x[0] < 1

    with pytest.raises(ValueError, match="cond_fun must not write"):
        jt.while_loop(writes, lambda: None)
    np.testing.assert_array_equal(_np(x), [0, 0])


def test_unrolled_python_loop_warns_once_and_fori_loop_does_not():
    import warnings

    def unrolled(x):
        for i in range(1, 101):
            x[i] += x[i - 1]

    f = jt.jit(unrolled)
    with pytest.warns(jt.UnrolledLoopWarning, match="fori_loop") as rec:
        f(jt.ones(101))
        f(jt.ones(101))
    assert len([w for w in rec if w.category is jt.UnrolledLoopWarning]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", jt.UnrolledLoopWarning)
        x = jt.ones(120)
        jt.jit(lambda x: jt.fori_loop(1, 120, _recurrence_add(x)))(x)
        np.testing.assert_array_equal(_np(x), np.arange(1.0, 121.0))
        short = jt.jit(lambda x: [x.__setitem__(i, 1.0) for i in range(10)])
        short(jt.zeros(10))


def _recurrence_add(x):
    def step(i):
        x[i] += x[i - 1]
    return step


def _while_program(y, z):
    def body():
        z[0] += 1
        y[z[0].astype(jt.int32) - 1] = z[0]
    jt.while_loop(lambda: z[0] < 10, body)


def _nested_program(y, z):
    def outer(i):
        def inner(j):
            z[0] += 1
            y[i * 2 + j] = z[0]
        jt.fori_loop(0, 2, inner)
    jt.fori_loop(0, 5, outer)


def _cond_program(y, z):
    def body(i):
        z[0] += 1
        jt.cond(i % 2 == 0, lambda: y.__setitem__(i, z[0]), lambda: y.__setitem__(i + 1, -z[0]))
    jt.fori_loop(0, 8, body)


def _window_cond_program(y, z):  # a check in cond_fun: traced under checkify
    def body():
        z[0] += 1
        y[jt.ds(z[0].astype(jt.int32) - 1, 1)] = z[0]
    jt.while_loop(lambda: y[z[0].astype(jt.int32)] >= 0, body)


def _python_run(program, y, z):
    """The oracle: the same program on NumPy, with Python control flow."""
    if program is _while_program:
        while z[0] < 10:
            z[0] += 1
            y[int(z[0]) - 1] = z[0]
    elif program is _nested_program:
        for i in range(5):
            for j in range(2):
                z[0] += 1
                y[i * 2 + j] = z[0]
    elif program is _cond_program:
        for i in range(8):
            z[0] += 1
            if i % 2 == 0:
                y[i] = z[0]
            else:
                y[i + 1] = -z[0]
    else:
        while y[int(z[0])] >= 0:
            z[0] += 1
            y[int(z[0]) - 1:int(z[0])] = z[0]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("program", [_while_program, _nested_program, _cond_program,
                                     _window_cond_program])
def test_failed_check_leaves_what_python_left(program, jit):
    a, b = np.zeros(7, np.float32), np.zeros(1, np.float32)
    with pytest.raises(IndexError) as want:
        _python_run(program, a, b)
    y, z = jt.zeros(7), jt.zeros(1)
    with pytest.raises(IndexError) as got:
        (jt.jit(program) if jit else program)(y, z)
    assert str(got.value).split(" is out of bounds")[0].split()[-1] == str(
        want.value).split(" is out of bounds")[0].split()[-1]
    np.testing.assert_array_equal(_np(y), a)
    np.testing.assert_array_equal(_np(z), b)


@settings(deadline=None, max_examples=5)
# (no subnormals: XLA:CPU flushes them to zero, NumPy keeps them)
@given(st.lists(st.floats(-4, 4, width=32, allow_subnormal=False), min_size=8, max_size=8))
def test_vmap_of_a_loop_matches_numpy_rows(vals):
    a = np.array(vals, np.float32).reshape(2, 4)

    def f(x):
        def b(i):
            x[i] += x[i - 1] * 0.5
        jt.fori_loop(1, 4, b)
        return x * 1

    want = a.copy()
    for row in want:
        for i in range(1, 4):
            row[i] += row[i - 1] * 0.5
    np.testing.assert_allclose(_np(jt.vmap(f)(jt.asarray(a))), want, rtol=1e-6,
                               atol=float(np.finfo(np.float32).tiny))


def _deep_nest_program(xp, loop, b, depth):
    """``depth`` nested loops writing a Tensor made before the outermost (NumPy or jt)."""
    x = xp.zeros(b.shape[0], dtype=b.dtype)

    def level(d):
        if d == depth:
            def row(i):
                x[i] = b[i] * 2.0 + x[i] * 0.5
            loop(0, b.shape[0], row)
            return
        loop(0, 2, lambda s: level(d + 1))

    level(1)
    return x


def _py_loop(lo, hi, body):
    for i in range(lo, hi):
        body(i)


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("how", ["eager", "jit", "grad_jit"])
def test_nested_loops_write_a_tensor_made_inside_the_function(depth: int, how: str) -> None:
    """A Tensor made inside a ``jaxtensor.jit`` function (or before the loops), written by
    the innermost of nested loops: each enclosing loop carries it (the inner loop's result
    was installed into the Tensor from inside the outer body, a tracer leak)."""
    b = np.linspace(-1.0, 2.0, 5)
    want = _deep_nest_program(np, _py_loop, b, depth)

    def f(bt):
        return _deep_nest_program(jt, jt.fori_loop, bt, depth)

    if how == "eager":
        np.testing.assert_allclose(_np(f(jt.asarray(b))), want, rtol=1e-12)
    elif how == "jit":
        np.testing.assert_allclose(_np(jt.jit(f)(jt.asarray(b))), want, rtol=1e-12)
    else:
        got = jt.grad(jt.jit(lambda bt: jt.sum(f(bt) ** 2)))(jt.asarray(b))
        ref = jax.grad(lambda bb: jnp.sum(_nested_pure(bb, depth) ** 2))(jnp.asarray(b))
        np.testing.assert_allclose(_np(got), np.asarray(ref), rtol=1e-12)


def _nested_pure(b, depth):
    x = jnp.zeros_like(b)
    for _ in range(2 ** (depth - 1)):
        for i in range(b.shape[0]):
            x = x.at[i].set(b[i] * 2.0 + x[i] * 0.5)
    return x


@pytest.mark.parametrize("kind", ["fori", "while"])
def test_loop_traced_under_checkify_keeps_no_trace_that_missed_a_storage(kind):
    """A loop whose body checks an index, in a nested jaxtensor.jit (traced under checkify),
    and writes a Tensor made before the loop: the trace that found that Tensor (and did not
    carry it) stayed in the program, its checks being effects, and ran with the Tensor's
    writes lost: a false IndexError (``fori``), a loop that never ended (``while``)."""
    a, b = jt.arange(3.0), jt.zeros(1)

    def g(a, b):
        k = jt.zeros(1, dtype=jt.int32)
        if kind == "fori":
            def body(i):
                b[0] += a[i - k[0]]  # (k lost: a[i], out of bounds from i = 3)
                k[0] = i
            jt.fori_loop(0, 5, body)
        else:
            def step():
                b[0] += a[k[0]]
                k[0] += 1
            jt.while_loop(lambda: k[0] < 3, step)

    jt.jit(lambda a, b: jt.jit(g)(a, b))(a, b)
    assert b.tolist() == ([4.0] if kind == "fori" else [3.0])


@pytest.mark.parametrize("kind", ["fori", "while"])
def test_failed_check_in_a_loop_of_a_nested_jit_stops_its_writes(kind):
    """A loop in a jaxtensor.jit called inside another (traced under checkify, the nested
    trace inheriting its checks): the writes after a failed check were not gated, so the
    loop ran to its end; now it leaves what eager code leaves."""
    def g(a, b):
        k = jt.zeros(1, dtype=jt.int32)

        def step():
            b[0] += 1.0
            b[1] += a[k[0]]  # fails at k = 3, after the write to b[0]
            k[0] += 1
        if kind == "fori":
            jt.fori_loop(0, 5, lambda i: step())
        else:
            jt.while_loop(lambda: k[0] < 5, step)

    a, b = jt.arange(1.0, 4.0), jt.zeros(2)
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
        jt.jit(lambda a, b: jt.jit(g)(a, b))(a, b)
    assert b.tolist() == [4.0, 6.0]


def test_bool_bounds_are_ints_as_range_takes_them():
    """``fori_loop(False, True, body)`` runs ``range(False, True)``: once, with ``i == 0``."""
    x = jt.zeros(3)

    def body(i):
        x[i] += 5.0
    jt.fori_loop(False, True, body)
    jt.fori_loop(True, 3, body)
    np.testing.assert_array_equal(np.asarray(x), [5.0, 5.0, 5.0])


@pytest.mark.parametrize("how", ["eager", "jit"])
def test_bodies_indexing_an_empty_axis_trace_and_raise_only_where_they_run(how):
    """A traced index into an axis of length 0 (``cumsum_`` of docs/loops.md on an empty
    Tensor, a carry summing ``x[i]``, an untaken ``cond`` branch) traces, and raises the
    eager ``IndexError`` only where it runs (it raised JAX's ``TypeError`` about slice
    sizes at the trace)."""
    def cumsum_(t):
        def body(i):
            t[i] += t[i - 1]
        jt.fori_loop(1, t.shape[0], body)
        return t

    run = cumsum_ if how == "eager" else jt.jit(cumsum_)
    for n in (0, 1, 4):
        a = np.arange(float(n))
        assert np.asarray(run(jt.asarray(a))).tolist() == np.cumsum(a).tolist()
    x = jt.zeros(0)
    total = (jt.fori_loop(0, 0, lambda i, c: c + x[i], 0.0) if how == "eager" else
             jt.jit(lambda x: jt.fori_loop(0, 0, lambda i, c: c + x[i], 0.0))(x))
    assert float(total) == 0.0
    y = jt.zeros((2, 0))

    def write(i):
        y[i, i] = 1.0

    loop = jt.fori_loop if how == "eager" else (lambda a, b, f: jt.jit(
        lambda: jt.fori_loop(a, b, f))())
    loop(0, 0, write)
    with pytest.raises(IndexError, match="out of bounds for axis 1 with size 0"):
        loop(0, 1, write)
    z = jt.zeros(0)
    picked = jt.jit(lambda z, p: jt.cond(p, lambda: z[0] * 2, lambda: jt.asarray(5.0)))(
        z, jt.asarray(False))
    assert float(picked) == 5.0
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 0"):
        jt.jit(lambda t, i: t[i])(jt.zeros(0), 0)
