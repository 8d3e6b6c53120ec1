"""What a NumPy program ported with ``xp = jaxtensor`` meets at its rough edges: the truth
value of a Tensor, NumPy's spellings (positional ``dtype``, ``array_equal``, ``allclose``,
ufunc ``.at``). NumPy is the oracle: the same exception type, the same result."""

from __future__ import annotations

from typing import Any

import jax
import numpy as np
import pytest

import jaxtensor as jt


def _outcome(f: Any) -> Any:
    try:
        return ("value", f())
    except Exception as e:  # noqa: BLE001 - the oracle's exception type is the answer
        return ("error", type(e))


SHAPES = [(), (1,), (1, 1), (2,), (3, 1), (0,), (2, 0), (1, 0, 1)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("fill", [0, 1, 2.5, True, False])
def test_truth_value_is_numpys(shape: tuple[int, ...], fill: Any) -> None:
    a = np.full(shape, fill)
    x = jt.asarray(a)
    want = _outcome(lambda: bool(a))
    got = _outcome(lambda: bool(x))
    assert got == want


@pytest.mark.parametrize("shape", [(2,), (2, 3), (0,), (3, 0)], ids=str)
def test_truth_value_error_gives_numpys_advice(shape: tuple[int, ...]) -> None:
    x = jt.zeros(shape)
    with pytest.raises(ValueError) as info:
        if x:  # the spelling ported code has
            pass
    with pytest.raises(ValueError) as oracle:
        bool(np.zeros(shape))
    if 0 in shape:
        assert "empty" in str(info.value) and "size > 0" in str(info.value)
    else:
        assert "Use a.any() or a.all()" in str(info.value)
        assert str(shape) in str(info.value)
    for words in ("The truth value of", "is ambiguous. Use"):
        assert words in str(oracle.value) and words in str(info.value)


# -- a traced value used as a Python value ---------------------------------------------------
_ADVICE = ("jaxtensor.where", "jaxtensor.cond", "jaxtensor.fori_loop", "static_argnums")
_INTERNAL = ("_loops.py", "_loop_trace.py", "_jit.py", "_trace.py", "_tensor.py", "state[", "step at")


def _raised(f: Any, *args: Any) -> BaseException:
    with pytest.raises(Exception) as info:  # noqa: PT011 - the type is checked by the caller
        f(*args)
    return info.value


def _branch(x: jt.Tensor) -> jt.Tensor:
    if x[0] > 0:
        return x + 1
    return x


def _body(i: Any, x: jt.Tensor) -> jt.Tensor:
    if x[0] > 0:
        x[i] = 0
    return x


def _cond_body(x: jt.Tensor) -> Any:
    return x[0] > 0 and x[1] > 0


def _as_int(x: jt.Tensor) -> jt.Tensor:
    return jt.zeros(int(x[0]))


def _as_numpy(x: jt.Tensor) -> jt.Tensor:
    return jt.asarray(np.asarray(x) + 1)


def _as_list(x: jt.Tensor) -> Any:
    return x.tolist()


CASES = {
    "jit if": (lambda x: jt.jit(_branch)(x), _branch, "if x[0] > 0:",
               jax.errors.TracerBoolConversionError),
    "fori_loop body if": (lambda x: jt.fori_loop(0, 2, _body, x), _body, "if x[0] > 0:",
                          jax.errors.TracerBoolConversionError),
    "while_loop cond and": (lambda x: jt.while_loop(_cond_body, lambda t: t * 0, x),
                            _cond_body, "return x[0] > 0 and x[1] > 0",
                            jax.errors.TracerBoolConversionError),
    "jit int()": (lambda x: jt.jit(_as_int)(x), _as_int, "jt.zeros(int(x[0]))",
                  jax.errors.ConcretizationTypeError),
    "jit np.asarray": (lambda x: jt.jit(_as_numpy)(x), _as_numpy, "np.asarray(x) + 1)",
                       jax.errors.TracerArrayConversionError),
    "jit tolist": (lambda x: jt.jit(_as_list)(x), _as_list, "x.tolist()",
                   jax.errors.TracerArrayConversionError),
}


@pytest.mark.parametrize("case", list(CASES))
def test_traced_value_errors_name_the_users_code_and_the_fix(case: str) -> None:
    call, fn, source, jax_type = CASES[case]
    err = _raised(call, jt.asarray([1.0, 2.0]))
    assert isinstance(err, jax_type)  # JAX's own class: `except` clauses for JAX's work
    msg = str(err)
    code = fn.__code__
    assert f"in {code.co_name} at {code.co_filename}:" in msg
    assert f"{source}`" in msg  # the line, and the Tensor expression in it
    for hint in _ADVICE:
        assert hint in msg
    for internal in _INTERNAL:
        assert internal not in msg, internal
    if case.startswith("jit"):  # JAX's account of the argument the value came from
        assert "depends on the value of the argument x" in msg


# -- asarray of Tensors inside jit -----------------------------------------------------------
SEQUENCES = {
    "pair": lambda a, b: (a[0], b[1]),
    "list of rows": lambda a, b: [a, b],
    "nested with numbers": lambda a, b: [[a[0], 2.0], [b[1], a[1] * b[0]]],
    "tensor and int": lambda a, b: (a[1], 3),
    "empty inner": lambda a, b: [[], []],
}


@pytest.mark.parametrize("name", list(SEQUENCES))
def test_asarray_of_tensors_inside_jit_is_the_eager_result(name: str) -> None:
    build = SEQUENCES[name]
    a, b = jt.asarray([1.5, -2.0]), jt.asarray([3.0, 4.0])
    want = jt.asarray(build(a, b))
    got = jt.jit(lambda p, q: jt.asarray(build(p, q)))(a, b)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    ref = np.asarray(build(a.numpy(), b.numpy()))  # NumPy's shape for the same nesting
    assert got.shape == ref.shape


def test_asarray_of_a_ragged_sequence_inside_jit_raises_valueerror() -> None:
    with pytest.raises(ValueError, match="ragged"):
        jt.jit(lambda a: jt.asarray([a, a[:1]]))(jt.ones(2))
    with pytest.raises(ValueError):
        np.asarray([np.ones(2), np.ones(1)])


# -- NumPy's spellings -------------------------------------------------------------------------
POSITIONAL_DTYPE = [
    ("zeros", lambda m, dt: m.zeros((2, 3), dt)),
    ("ones", lambda m, dt: m.ones(4, dt)),
    ("empty", lambda m, dt: m.empty((2,), dt).shape),
    ("full", lambda m, dt: m.full((3,), 7, dt)),
    ("zeros_like", lambda m, dt: m.zeros_like(m.asarray([1.5, 2.5]), dt)),
    ("ones_like", lambda m, dt: m.ones_like(m.asarray([1.5, 2.5]), dt)),
    ("full_like", lambda m, dt: m.full_like(m.asarray([1.5, 2.5]), 3, dt)),
    ("empty_like", lambda m, dt: m.empty_like(m.asarray([1.5, 2.5]), dt).shape),
    ("arange", lambda m, dt: m.arange(1, 7, 2, dt)),
    ("asarray", lambda m, dt: m.asarray([1, 2], dt)),
]


@pytest.mark.parametrize(("name", "make"), POSITIONAL_DTYPE, ids=[n for n, _ in POSITIONAL_DTYPE])
@pytest.mark.parametrize("dtype", ["int64", "float64", "int8", "complex64"])
def test_dtype_may_be_positional_as_numpys(name: str, make: Any, dtype: str) -> None:
    want = make(np, np.dtype(dtype))
    got = make(jt, getattr(jt, dtype))
    if isinstance(want, tuple):
        assert got == want
        return
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.numpy(), want)


COMPARE = {
    "equal": ([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]),
    "tiny difference": ([1.0, 2.0], [1.0, 2.0 + 1e-9]),
    "relative difference": ([1e6, 1.0], [1e6 + 5, 1.0]),
    "different": ([1.0, 2.0], [1.0, 2.1]),
    "nan": ([1.0, float("nan")], [1.0, float("nan")]),
    "infinities": ([float("inf"), -float("inf")], [float("inf"), float("inf")]),
    "broadcast": ([[1.0, 2.0], [1.0, 2.0]], [1.0, 2.0]),
    "other shape": ([1.0, 2.0], [1.0, 2.0, 3.0]),
    "integers": ([1, 2, 3], [1, 2, 3]),
    "empty": ([], []),
}


@pytest.mark.parametrize("case", list(COMPARE))
@pytest.mark.parametrize("equal_nan", [False, True])
def test_array_equal_allclose_isclose_are_numpys(case: str, equal_nan: bool) -> None:
    a, b = (np.asarray(v) for v in COMPARE[case])
    x, y = jt.asarray(a), jt.asarray(b)
    assert bool(jt.array_equal(x, y, equal_nan=equal_nan)) == np.array_equal(
        a, b, equal_nan=equal_nan)
    assert bool(jt.array_equal(x, b, equal_nan=equal_nan)) == np.array_equal(
        a, b, equal_nan=equal_nan)  # (any array-like operand)
    for rtol, atol in [(1e-5, 1e-8), (1e-12, 0.0), (0.1, 0.0)]:
        want = _outcome(lambda r=rtol, t=atol: np.isclose(a, b, r, t, equal_nan))
        got = _outcome(lambda r=rtol, t=atol: jt.isclose(x, y, r, t, equal_nan).numpy())
        if want[0] == "error":
            assert got[0] == "error"
            continue
        np.testing.assert_array_equal(got[1], want[1])
        assert bool(jt.allclose(x, y, rtol, atol, equal_nan)) == np.allclose(
            a, b, rtol, atol, equal_nan)


UFUNC_AT = [
    ("repeated", [0, 0, 2, 4, 4, 4], [2.0, 3.0, 4.0, 5.0, 6.0, 7.0]),
    ("negative", [-1, 0, -1], [1.5, 2.5, 3.5]),
    ("scalar value", [1, 1, 3], 2.0),
    ("one index", 2, 9.0),
    ("no index", [], 5.0),
]


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "minimum", "maximum"])
@pytest.mark.parametrize(("case", "indices", "values"), UFUNC_AT, ids=[c[0] for c in UFUNC_AT])
def test_ufunc_at_is_numpys(name: str, case: str, indices: Any, values: Any) -> None:
    a = np.arange(5.0) - 2
    x = jt.asarray(a)
    getattr(np, name).at(a, indices, values)
    assert getattr(jt, name).at(x, indices, values) is None  # (in place, as NumPy's)
    np.testing.assert_array_equal(x.numpy(), a)


def test_add_at_takes_a_tuple_of_index_arrays_and_a_view() -> None:
    a = np.zeros((3, 4))
    x = jt.asarray(a)
    idx = (np.array([0, 0, 2]), np.array([1, 1, 3]))
    np.add.at(a, idx, [1.0, 2.0, 3.0])
    jt.add.at(x, idx, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(x.numpy(), a)
    np.add.at(a[1], [0, 0], 5.0)
    jt.add.at(x[1], [0, 0], 5.0)  # through a view: the base changes
    np.testing.assert_array_equal(x.numpy(), a)
    with pytest.raises(NotImplementedError, match=r"to_jax\(\)\.at\[indices\]\.max"):
        jt.maximum.at(x, idx, 1.0)
    with pytest.raises(TypeError, match="must be a Tensor"):
        jt.add.at(np.zeros(2), [0], 1.0)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32"])
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "minimum", "maximum"])
def test_ufunc_at_of_a_python_int_takes_the_arrays_dtype(name: str, dtype: str) -> None:
    """``np.subtract.at(uint8 a, idx, 1)``: the int is of ``a``'s dtype, and ``-1`` wraps in
    it (jaxtensor checked the negated int against uint8 and raised ``OverflowError``)."""
    info = np.iinfo(dtype)
    for b in (1, 0, info.max, info.min, True):
        a = np.array([10, 20, 30], dtype=dtype)
        x = jt.asarray(a)
        getattr(np, name).at(a, [0, 0, 2], b)
        getattr(jt, name).at(x, [0, 0, 2], b)
        np.testing.assert_array_equal(x.numpy(), a, err_msg=f"{b}")
