"""The index of ``fori_loop`` behaves as the ``int`` of the Python loop (issue 28 item 5):
weakly typed (next to a Tensor it takes the Tensor's dtype, with the eager ``OverflowError``
of a Python int out of its range) and as wide as jaxtensor's index dtype whatever the
bounds' dtype. Oracle: the same body run by a Python ``for`` over ``range(lo, hi)`` on
jaxtensor eagerly (the index a Python int), values, dtypes and the error raised compared."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import jaxtensor as jt


def _python(lo, hi, body):
    for i in range(int(lo), int(hi)):
        body(i)


def _jit_loop(lo, hi, body):
    jt.jit(lambda a, b: jt.fori_loop(a, b, body))(lo, hi)


LOOPS = {"python": _python, "eager": jt.fori_loop, "jit": _jit_loop}


def _near_max(dt):
    """Bounds of dtype ``dt`` (or Python ints) ending at its largest value."""
    if dt is int:
        return 2**31 - 4, 2**31 - 1
    top = int(np.iinfo(dt).max)
    return dt(top - 3), dt(top)


def _wrap_program(lo, hi, loop):
    """``i + 10`` and ``i * 3`` beyond the bounds' dtype: a Python int does not wrap."""
    out = jt.zeros(4, dtype=jt.int64)
    acc = jt.zeros(1, dtype=jt.int64)

    def body(i):
        out[i - lo] = i * 3
        acc[0] += i + 10
    loop(lo, hi, body)
    return [out, acc]


def _square_program(lo, hi, loop):
    """``acc[0] += i * i`` past 2**31 with 32-bit bounds: Python ints do not overflow."""
    acc = jt.zeros(1, dtype=jt.int64)

    def body(i):
        acc[0] += i * i
    loop(lo, hi, body)
    return [acc]


@pytest.mark.parametrize("how", ["eager", "jit"])
@pytest.mark.parametrize("dt", [np.int8, np.uint8, np.int16, np.int32, int])
def test_index_is_as_wide_as_a_python_int_whatever_the_bounds_dtype(dt, how):
    lo, hi = _near_max(dt)
    for program in (_wrap_program, _square_program):
        want = program(lo, hi, _python)
        got = program(lo, hi, LOOPS[how])
        for g, w in zip(got, want):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def _weak_program(x, mul, loop):
    """``out[i] = (x[i] + i * mul) * 40``: a Python int next to a Tensor of ``x``'s dtype
    (in a small integer dtype the product wraps, as NumPy's does; ``i * 50`` beyond int8
    raises ``OverflowError``)."""
    out = jt.zeros(x.shape[0], dtype=x.dtype)

    def body(i):
        out[i] = (x[i] + i * mul) * 40
    err = None
    try:
        loop(0, x.shape[0], body)
    except (OverflowError, TypeError) as e:
        err = type(e)
    return out, err


@pytest.mark.parametrize("how", ["eager", "jit"])
@pytest.mark.parametrize("dt", [np.int8, np.uint8, np.int16, np.float32])
@pytest.mark.parametrize("mul", [2, 50])
def test_index_takes_the_tensors_dtype_as_a_python_int_does(dt, mul, how):
    x = jt.asarray(np.arange(6).astype(dt))
    want, want_err = _weak_program(x, mul, _python)
    got, got_err = _weak_program(x, mul, LOOPS[how])
    assert got_err is want_err
    assert got.dtype == want.dtype == x.dtype
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_index_in_arithmetic_keeps_the_tensors_dtype():
    x8 = jt.asarray(np.arange(5, dtype=np.int8))
    seen = []

    def body(i):
        seen.append((x8[i] + i * 2).dtype)
    jt.fori_loop(0, 5, body)
    assert seen and set(seen) == {x8.dtype}


# -- traces of nested bodies (issue 28 item 3) ------------------------------------------------
def _nest3(x, y, count):
    def a(i):
        count["a"] += 1

        def b(j):
            count["b"] += 1

            def c(k):
                count["c"] += 1
                x[i * 4 + j * 2 + k] += y[k] * (i + 1)
            jt.fori_loop(0, 2, c)
        jt.fori_loop(0, 2, b)
    jt.fori_loop(0, 2, a)


@pytest.mark.parametrize("how", ["eager", "jit", "closed"])
def test_bodies_nested_three_deep_are_traced_at_most_twice_on_a_first_call(how):
    """Each body of three nested checked loops is traced at most twice by a first call
    (it was traced 16 times: every level traced again to gate its checks and again for
    the storages it met, multiplying down the nest, and the whole function twice)."""
    count = {"a": 0, "b": 0, "c": 0}
    x, y = jt.zeros(8), jt.asarray([1.0, 2.0])
    if how == "eager":
        _nest3(x, y, count)
    elif how == "jit":
        jt.jit(lambda x, y: _nest3(x, y, count))(x, y)
    else:
        jt.jit(lambda: _nest3(x, y, count))()
    want = np.zeros(8, np.float32)
    for i in range(2):
        for j in range(2):
            for k in range(2):
                want[i * 4 + j * 2 + k] += [1.0, 2.0][k] * (i + 1)
    np.testing.assert_array_equal(np.asarray(x), want)
    assert max(count.values()) <= 2, count


# -- the index in arithmetic with numbers: a number's rules, not JAX's integer ones ----------
#: expressions of the index ``i`` alone (and Python numbers)
NUMBER_EXPRESSIONS = {
    "2 ** (i - 2)": lambda i: 2 ** (i - 2),
    "(i + 2) ** -1": lambda i: (i + 2) ** -1,
    "(i - 3) ** 3": lambda i: (i - 3) ** 3,
    "i // (i - 1)": lambda i: i // (i - 1),
    "i % (i - 2)": lambda i: i % (i - 2),
    "-7 // (i - 3)": lambda i: -7 // (i - 3),
    "-i % 4": lambda i: -i % 4,
    "abs(i - 3) * -i": lambda i: abs(i - 3) * -i,
    "~i": lambda i: ~i,
    "i / 4": lambda i: i / 4,
    "i * 0.5 + 1": lambda i: i * 0.5 + 1,
    "(i << 3) | (40 >> i)": lambda i: (i << 3) | (40 >> i),
    "i ^ 5": lambda i: i ^ 5,
    "(0 < i) & (i < 4)": lambda i: (0 < i) & (i < 4),
    "divmod(i + 7, i - 2)[1]": lambda i: divmod(i + 7, i - 2)[1],
}


def _as_number_argument(expr, i):
    """What ``expr`` of a Python int passed to ``jaxtensor.jit`` gives (the documented rules
    of a traced number where Python raises or turns an int into a float: a division by zero
    is NumPy's 0-D result, an int to a negative int power 0)."""
    return float(jt.jit(expr)(i))


def _number_oracle(name, expr, i):
    try:
        v = expr(i)
    except ZeroDivisionError:
        return _as_number_argument(expr, i)
    if isinstance(v, float) and "**" in name:  # (an int to a negative int power)
        return _as_number_argument(expr, i)
    return float(v)


@pytest.mark.filterwarnings("ignore::jaxtensor.RecompileWarning")  # (one body, many exprs)
@pytest.mark.parametrize("how", ["eager", "jit"])
@pytest.mark.parametrize("name", sorted(NUMBER_EXPRESSIONS))
def test_index_in_arithmetic_with_numbers_is_a_python_int(name, how):
    """Each expression of the index, written into a float64 Tensor, as Python's ``int``
    computes it (where Python raises or gives a float of ints, as a number passed to
    ``jaxtensor.jit``)."""
    expr = NUMBER_EXPRESSIONS[name]
    n = 7
    out = jt.zeros(n)

    def body(i):
        out[i] = expr(i)
    LOOPS[how](0, n, body)
    want = [_number_oracle(name, expr, i) for i in range(n)]
    np.testing.assert_array_equal(np.asarray(out), np.asarray(want), err_msg=name)


_ARR = np.arange(10.0) * 1.5
#: JAX's own functions given the index: it is the Python int to them too
JAX_USES = {
    "jnp.sin(i)": lambda i, a: jnp.sin(i),
    "a[i]": lambda i, a: a[i],
    "lax.dynamic_slice": lambda i, a: lax.dynamic_slice(a, (i,), (1,))[0],
    "jnp.where(i > 2)": lambda i, a: jnp.where(i > 2, 1.0, 0.0),
    "i * a[i]": lambda i, a: i * a[i],
    "lax.cond(i > 3)": lambda i, a: lax.cond(i > 3, lambda: 1.0, lambda: 2.0),
    "jnp.take(a, i)": lambda i, a: jnp.take(a, i),
}


@pytest.mark.filterwarnings("ignore::jaxtensor.RecompileWarning")  # (one body, many uses)
@pytest.mark.parametrize("how", ["eager", "jit"])
@pytest.mark.parametrize("name", sorted(JAX_USES))
def test_jax_functions_take_the_index_as_a_python_int(name, how):
    use = JAX_USES[name]
    a = jnp.asarray(_ARR)
    out = jt.zeros(6)

    def body(i):
        out[i] = use(i, a)
    LOOPS[how](0, 6, body)
    want = [float(use(i, a)) for i in range(6)]
    np.testing.assert_array_equal(np.asarray(out), np.asarray(want), err_msg=name)
