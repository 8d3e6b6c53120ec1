"""Element-wise functions and operators refuse a dtype they are not defined for by name.

Every element-wise function, over every dtype (half dtypes included), takes exactly the
dtypes NumPy's ufunc takes (NumPy is the oracle; ``float16`` stands in for ``bfloat16``),
except where the standard leaves a dtype out and jaxtensor refuses it: shifts of ``bool``
and ``clip`` of complex. A refusal is a ``TypeError`` that names the function (and its
operator) and the dtype, never the lax primitive or ``jax.numpy`` function underneath
(``rem``, ``neg``, ``lt``); a promotion error names the function and is not chained onto an
internal ``KeyError``.
"""

from __future__ import annotations

import operator
import warnings

import jax
import numpy as np
import pytest

import jaxtensor as jt
from jaxtensor import _elementwise

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
SCALARS = [True, 2, 1.5, 1j]
NUMPY_NAME = {"acos": "arccos", "asin": "arcsin", "atan": "arctan", "acosh": "arccosh",
              "asinh": "arcsinh", "atanh": "arctanh", "atan2": "arctan2",
              "bitwise_invert": "invert", "bitwise_left_shift": "left_shift",
              "bitwise_right_shift": "right_shift", "pow": "power", "conj": "conjugate"}
UNARY = sorted(row[0] for row in _elementwise._UNARY)
BINARY = sorted(row[0] for row in _elementwise._BINARY)
#: (function, dtype) pairs the standard leaves out and jaxtensor refuses, NumPy takes
NOT_NUMPY = {("bitwise_left_shift", "bool"), ("bitwise_right_shift", "bool")}
#: words of JAX's own messages that must not reach the user
LEAKS = ("does not accept dtype", "at position", "lax", "jnp.", "jax.numpy", "KeyError")


def test_every_elementwise_function_is_covered() -> None:
    assert set(UNARY) | set(BINARY) | {"clip", "real", "imag"} == set(_elementwise.__all__)


def _np_dtype(d: str) -> np.dtype:
    return np.dtype("float16") if d == "bfloat16" else np.dtype(d)


def _tensor(d: str) -> jt.Tensor:
    return jt.asarray(np.asarray([1, 0, 2]).astype(_np_dtype(d)), dtype=d)


def _traced(f, *operands: object) -> BaseException | None:
    """``f`` of Tensors of the dtypes named in ``operands`` (other operands as they are),
    run under ``jax.eval_shape``: the dtype checks and JAX's own are those of an eager
    call, and sweeping every function over every dtype compiles nothing."""
    names = [o for o in operands if isinstance(o, str)]
    specs = [jax.ShapeDtypeStruct((3,), jt.asarray(0, dtype=d).dtype) for d in names]

    def g(*arrays: object) -> object:
        it = iter(arrays)
        args = [jt.asarray(next(it)) if isinstance(o, str) else o for o in operands]
        return f(*args).to_jax()

    return _outcome(jax.eval_shape, g, *specs)


def _numpy_takes(name: str, d: str, n: int) -> bool:
    a = np.asarray([1, 0, 2]).astype(_np_dtype(d))
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            getattr(np, NUMPY_NAME.get(name, name))(*[a] * n)
    except TypeError:
        return False
    return True


def _check_refusal(exc: BaseException, name: str) -> None:
    msg = str(exc)
    assert type(exc) is TypeError, (name, type(exc), msg)
    assert msg.startswith(f"{name}()"), msg
    assert not any(w in msg for w in LEAKS), msg
    assert exc.__context__ is None or exc.__suppress_context__, repr(exc.__context__)


def _outcome(f, *args: object) -> BaseException | None:
    try:
        f(*args)
    except Exception as e:  # noqa: BLE001 - the exception is what is checked
        return e
    return None


@pytest.mark.parametrize("name", UNARY + BINARY)
def test_accepted_dtypes_are_numpys(name: str) -> None:
    n = 1 if name in UNARY else 2
    for d in DTYPES:
        exc = _traced(getattr(jt, name), *[d] * n)
        expected = _numpy_takes(name, d, n) and (name, d) not in NOT_NUMPY
        if expected:
            assert exc is None, (name, d, exc)
        else:
            assert exc is not None, (name, d)
            _check_refusal(exc, name)
            assert d in str(exc), str(exc)


@pytest.mark.parametrize("name", BINARY)
def test_mixed_operands_refuse_by_name(name: str) -> None:
    """Tensors of every two dtypes and Python scalars, both orders: a failure (no
    promotion, an undefined result dtype) names the function, never the kernel."""
    f = getattr(jt, name)
    for d1 in DTYPES:
        cases = [(d1, d2) for d2 in DTYPES]  # (both orders: d1 and d2 range over all)
        cases += [c for s in SCALARS for c in ((d1, s), (s, d1))]
        for args in cases:
            exc = _traced(f, *args)
            if exc is not None:
                _check_refusal(exc, name)


def test_clip() -> None:
    for d in DTYPES:
        exc = _outcome(jt.clip, _tensor(d), 0, 1)
        if _np_dtype(d).kind == "c":
            _check_refusal(exc, "clip")
            assert d in str(exc)
        else:
            assert exc is None, (d, exc)
    for d in DTYPES:
        for f in (jt.real, jt.imag):
            assert _outcome(f, _tensor(d)) is None


UNARY_OPS = {"negative": operator.neg, "positive": operator.pos, "abs": abs,
             "bitwise_invert": operator.invert}
BINARY_OPS = {"add": operator.add, "subtract": operator.sub, "multiply": operator.mul,
              "divide": operator.truediv, "floor_divide": operator.floordiv,
              "remainder": operator.mod, "pow": operator.pow, "bitwise_and": operator.and_,
              "bitwise_or": operator.or_, "bitwise_xor": operator.xor,
              "bitwise_left_shift": operator.lshift, "bitwise_right_shift": operator.rshift,
              "less": operator.lt, "greater_equal": operator.ge}
INPLACE = {"subtract": operator.isub, "floor_divide": operator.ifloordiv,
           "remainder": operator.imod, "bitwise_and": operator.iand,
           "bitwise_left_shift": operator.ilshift}


@pytest.mark.parametrize("name", sorted(UNARY_OPS))
def test_unary_operators(name: str) -> None:
    for d in DTYPES:
        exc = _outcome(UNARY_OPS[name], _tensor(d))
        if _numpy_takes(name, d, 1):
            assert exc is None, (name, d, exc)
        else:
            _check_refusal(exc, name)
            assert "operator" in str(exc) and d in str(exc)


@pytest.mark.parametrize("name", sorted(BINARY_OPS))
def test_binary_and_inplace_operators(name: str) -> None:
    for d in DTYPES:
        x = _tensor(d)
        exc = _outcome(BINARY_OPS[name], x, x)
        if _numpy_takes(name, d, 2) and (name, d) not in NOT_NUMPY:
            assert exc is None, (name, d, exc)
            continue
        _check_refusal(exc, name)
        if name in INPLACE:
            exc = _outcome(INPLACE[name], x, _tensor(d))
            _check_refusal(exc, name)
            np.testing.assert_array_equal(np.asarray(x).astype(_np_dtype(d)),
                                          np.asarray([1, 0, 2]).astype(_np_dtype(d)))


@pytest.mark.parametrize(("expr", "words"), [
    (lambda: jt.asarray([1 + 1j], dtype=jt.complex64) // jt.asarray([1j], dtype=jt.complex64), ("floor_divide()", "//", "complex64")),
    (lambda: -jt.asarray([True]), ("negative()", "unary -", "bool", "logical_not")),
    (lambda: jt.floor(jt.asarray([1j], dtype=jt.complex64)), ("floor()", "complex64")),
    (lambda: jt.sign(jt.asarray([True])), ("sign()", "bool")),
    (lambda: jt.signbit(jt.asarray([1j], dtype=jt.complex64)), ("signbit()", "complex64")),
    (lambda: jt.nextafter(jt.asarray([1j], dtype=jt.complex64), 1.0), ("nextafter()", "complex64")),
    (lambda: jt.asarray([1.0], dtype=jt.float32) % 1j, ("remainder()", "%", "complex64")),
    (lambda: jt.asarray([True]) + jt.asarray([1]), ("add()", "bool", "int64")),
])
def test_reported_examples(expr, words: tuple) -> None:
    with pytest.raises(TypeError) as info:
        expr()
    _check_refusal(info.value, words[0][:-2])
    for w in words:
        assert w in str(info.value)


def test_promotion_error_is_not_chained() -> None:
    for f in (jt.concat, jt.result_type):
        args = ([jt.asarray([True]), jt.asarray([1])],) if f is jt.concat else (
            jt.bool, jt.int8)
        with pytest.raises(TypeError, match="promotion") as info:
            f(*args)
        assert info.value.__context__ is None or info.value.__suppress_context__
