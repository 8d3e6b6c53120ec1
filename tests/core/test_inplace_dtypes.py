"""In-place operators store their result only where NumPy's ``same_kind`` casting allows.

``x op= y`` computes ``x op y`` (the standard's promotion) and stores it in ``x``'s dtype
when ``np.can_cast(result, x.dtype, "same_kind")``; otherwise it raises ``TypeError`` (NumPy
raises ``UFuncTypeError``, a ``TypeError``; PyTorch ``RuntimeError``) and changes nothing,
for every operator, every dtype pair and Python scalar kind, through views, and under
``jaxtensor.jit``. NumPy is the oracle for which pairs raise and for the stored values.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

import jaxtensor as jt

IOPS = {
    "+": operator.iadd, "-": operator.isub, "*": operator.imul, "/": operator.itruediv,
    "//": operator.ifloordiv, "%": operator.imod, "**": operator.ipow, "&": operator.iand,
    "|": operator.ior, "^": operator.ixor, "<<": operator.ilshift, ">>": operator.irshift,
    "@": operator.imatmul,
}
OPS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "&": operator.and_,
    "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
    "@": operator.matmul,
}
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64", "complex64", "complex128"]
SOME = ["bool", "int8", "uint64", "float32", "complex64"]
X = [[1, 2], [3, 1]]
Y = [[1, 2], [1, 1]]


def _np(values: list, dtype: str) -> np.ndarray:
    return np.asarray(values).astype(dtype)


def _np_kind_differs(sym: str, d1: str, d2: str, r: jt.Tensor) -> bool:
    """Pairs whose NumPy result kind is not jaxtensor's, outside the standard (uint64 with
    a signed int goes to float64 in NumPy; NumPy's bool arithmetic gives integers)."""
    kind, n = _outcome(lambda: OPS[sym](_np(X, d1), _np(Y, d2)))
    return kind != "ok" or n.dtype.kind != r.dtype.kind


def _outcome(f, *args: object) -> tuple[str, object]:
    try:
        return "ok", f(*args)
    except Exception as e:  # noqa: BLE001 (the type is what is compared)
        return type(e).__name__, e


# every dtype pair for an operator of each result rule (arithmetic, float-valued, bitwise,
# shift); every operator for the pairs of a dtype of each kind (compiling a kernel per
# operator and result dtype for all 13 x 13 x 13 would take minutes)
CASES = [(sym, d1, DTYPES) for sym in ("+", "/", "&", "<<") for d1 in DTYPES] + [
    (sym, d1, SOME) for sym in sorted(set(IOPS) - {"+", "/", "&", "<<"}) for d1 in SOME]


@pytest.mark.parametrize(("sym", "d1", "others"), CASES)
def test_tensor_operand_dtype_pairs(sym: str, d1: str, others: list[str]) -> None:
    for d2 in others:
        x = jt.asarray(_np(X, d1))
        y = jt.asarray(_np(Y, d2))
        alias = x[1:]
        kind, r = _outcome(OPS[sym], x, y)
        if kind != "ok":
            # an operator the pair does not support in-place either, with the same error
            with pytest.raises(type(r)):
                IOPS[sym](x, y)
            np.testing.assert_array_equal(np.asarray(x), _np(X, d1))
            continue
        allowed = bool(np.can_cast(r.dtype, np.dtype(d1), "same_kind"))
        if not _np_kind_differs(sym, d1, d2, r):
            a = _np(X, d1)
            nkind, _ = _outcome(IOPS[sym], a, _np(Y, d2))
            assert (nkind == "ok") == allowed, (d1, d2, sym, nkind, r.dtype)
        if not allowed:
            with pytest.raises(TypeError, match="same_kind"):
                IOPS[sym](x, y)
            np.testing.assert_array_equal(np.asarray(x), _np(X, d1))
            np.testing.assert_array_equal(np.asarray(alias), _np(X, d1)[1:])
            continue
        want = np.asarray(r).astype(d1)
        out = IOPS[sym](x, y)
        assert out is x and x.dtype == np.dtype(d1)
        np.testing.assert_array_equal(np.asarray(x), want)
        np.testing.assert_array_equal(np.asarray(alias), want[1:])


SCALARS = [True, 2, 1.5, 1j]


@pytest.mark.parametrize("sym", sorted(set(IOPS) - {"@"}))
@pytest.mark.parametrize("d1", DTYPES)
def test_python_scalar_operand(sym: str, d1: str) -> None:
    for s in SCALARS:
        x = jt.asarray(_np(X, d1))
        kind, r = _outcome(OPS[sym], x, s)
        if kind != "ok":
            with pytest.raises(type(r)):
                IOPS[sym](x, s)
            np.testing.assert_array_equal(np.asarray(x), _np(X, d1))
            continue
        allowed = bool(np.can_cast(r.dtype, np.dtype(d1), "same_kind"))
        # NumPy 2 treats Python scalars as weak too: its in-place verdict is the same
        a = _np(X, d1)
        okind, n = _outcome(OPS[sym], a, s)
        nkind, _ = _outcome(IOPS[sym], a, s)
        if okind == "ok" and n.dtype.kind == r.dtype.kind:
            assert (nkind == "ok") == allowed, (d1, s, sym, nkind, r.dtype)
        if not allowed:
            with pytest.raises(TypeError, match="same_kind"):
                IOPS[sym](x, s)
            np.testing.assert_array_equal(np.asarray(x), _np(X, d1))
            continue
        IOPS[sym](x, s)
        np.testing.assert_array_equal(np.asarray(x), np.asarray(r).astype(d1))


@pytest.mark.parametrize("view", ["slice", "T", "reshape", "real", "expand_dims"])
def test_refused_through_views_changes_no_alias(view: str) -> None:
    base = jt.reshape(jt.arange(6, dtype=jt.float32), (2, 3))
    v = {"slice": lambda: base[:, 1:], "T": lambda: base.T,
         "reshape": lambda: base.reshape(6), "real": lambda: jt.real(base),
         "expand_dims": lambda: jt.expand_dims(base, axis=0)}[view]()
    other = base[1]
    for bad in (1j, jt.asarray(1j, dtype=jt.complex64)):
        with pytest.raises(TypeError, match="same_kind"):
            v *= bad
    np.testing.assert_array_equal(np.asarray(base), np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(np.asarray(other), [3.0, 4.0, 5.0])
    with pytest.raises(TypeError, match="same_kind"):
        base[0] += 1j  # through a fresh view, then setitem: never reached
    with pytest.raises(TypeError, match="same_kind"):
        ib = jt.arange(4)
        ib[1:3] /= 2
    np.testing.assert_array_equal(np.asarray(base), np.arange(6.0).reshape(2, 3))


def test_allowed_casts_through_views() -> None:
    x = jt.arange(6, dtype=jt.int8)
    v = x[::2]
    v += jt.asarray([100, 100, 100], dtype=jt.int64)  # same kind: cast (and wraps), as NumPy
    a = np.arange(6, dtype=np.int8)
    b = a[::2]
    b += np.array([100, 100, 100], dtype=np.int64)
    np.testing.assert_array_equal(np.asarray(x), a)
    f = jt.ones(3, dtype=jt.float32)
    f += jt.asarray([1, 2, 3], dtype=jt.int64)
    f *= jt.asarray([0.5, 0.5, 0.5], dtype=jt.float64)
    np.testing.assert_array_equal(np.asarray(f), [1.0, 1.5, 2.0])


@pytest.mark.parametrize("sym", ["+", "*", "/", "**"])
def test_under_jit_refused_and_unchanged(sym: str) -> None:
    def f(x, y):
        IOPS[sym](x, y)

    g = jt.jit(f)
    x = jt.arange(4)
    alias = x[1:]
    with pytest.raises(TypeError, match="same_kind"):
        g(x, jt.asarray(1.5))
    with pytest.raises(TypeError, match="same_kind"):
        g(x, 1.5)
    with pytest.raises(TypeError, match="same_kind"):
        g(alias, jt.asarray([1j, 1j, 1j]))
    np.testing.assert_array_equal(np.asarray(x), [0, 1, 2, 3])
    z = jt.asarray([1.0, 2.0], dtype=jt.float32)
    g(z, jt.asarray([2, 2], dtype=jt.int32))  # allowed: float result into float
    want = OPS[sym](np.asarray([1.0, 2.0], np.float32), np.asarray([2, 2], np.int32))
    np.testing.assert_allclose(np.asarray(z), want)


def test_inplace_methods_follow_setitem_rule() -> None:
    """``scatter_``/``index_put_``/``index_add_`` write values like ``__setitem__``: cast
    like ``astype`` (floats truncate into integers), complex into real refused."""
    x = jt.zeros(3, dtype=jt.int32)
    x.index_put_((jt.asarray([0]),), jt.asarray([2.7]))
    assert x.tolist() == [2, 0, 0]
    with pytest.raises(TypeError):
        x.index_put_((jt.asarray([1]),), jt.asarray([1j]))
    with pytest.raises(TypeError):
        x.scatter_(0, jt.asarray([1]), jt.asarray([1j]))
    assert x.tolist() == [2, 0, 0]
