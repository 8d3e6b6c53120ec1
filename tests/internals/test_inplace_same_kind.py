"""The in-place operators' ``same_kind`` rule over every dtype pair, half dtypes included.

NumPy is the oracle with ``bfloat16`` taken as the real floating dtype it is (kind ``"f"``,
as ``float16``): ``ml_dtypes`` registers casts that make ``np.can_cast(complex64, bfloat16,
"same_kind")`` true, which would let ``b *= 1j`` drop the imaginary part of a ``bfloat16``
Tensor silently, where ``float16``/``float32``/``float64`` raise ``TypeError``.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

import jaxtensor as jt
from jaxtensor._inplace import _same_kind

DTYPES = [np.dtype(d) for d in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128")] + [np.dtype(jt.bfloat16)]
NAMES = [str(d) for d in DTYPES]
BF16 = np.dtype(jt.bfloat16)


def _numpy_same_kind(result: np.dtype, dest: np.dtype) -> bool:
    """NumPy's verdict with bfloat16 read as a 2-byte real float (float16 stands in)."""
    def f(d: np.dtype) -> np.dtype:
        return np.dtype("float16") if d == BF16 else d
    return bool(np.can_cast(f(result), f(dest), "same_kind"))


def test_oracle_sees_the_ml_dtypes_cast() -> None:
    # why the oracle substitutes: NumPy's own answer for bfloat16 is not a float's
    assert np.can_cast(np.complex64, BF16, "same_kind")
    assert not _numpy_same_kind(np.dtype("complex64"), BF16)


@pytest.mark.parametrize("result", DTYPES, ids=NAMES)
def test_rule_every_pair(result: np.dtype) -> None:
    for dest in DTYPES:
        assert _same_kind(result, dest) == _numpy_same_kind(result, dest), (result, dest)


OPERANDS = [*DTYPES, True, 3, 2.5, 1j, 2 - 1j]
IOPS = {"+": (operator.add, operator.iadd), "*": (operator.mul, operator.imul),
        "/": (operator.truediv, operator.itruediv), "-": (operator.sub, operator.isub)}


def _operand(y: object) -> object:
    if isinstance(y, np.dtype):
        return jt.asarray(np.asarray([2, 1, 3]).astype(y))
    return y


@pytest.mark.parametrize("sym", sorted(IOPS))
@pytest.mark.parametrize("dest", DTYPES, ids=NAMES)
def test_operators_every_operand(dest: np.dtype, sym: str) -> None:
    """``x op= y`` stores ``x op y`` cast to x's dtype exactly where the rule allows; else
    ``TypeError`` and x (and its views) unchanged."""
    op, iop = IOPS[sym]
    start = np.asarray([1, 0, 4]).astype(dest)
    for y in OPERANDS:
        x = jt.asarray(start)
        view = x[1:]
        try:
            r = op(x, _operand(y))
        except TypeError:  # no promotion (bool with numbers), bool subtract: refused too
            r = None
        if r is not None and _numpy_same_kind(r.dtype, dest):
            iop(x, _operand(y))
            assert x.dtype == dest
            np.testing.assert_array_equal(np.asarray(x), np.asarray(jt.astype(r, dest)))
        else:
            with pytest.raises(TypeError, match="same_kind" if r is not None else None):
                iop(x, _operand(y))
            np.testing.assert_array_equal(np.asarray(x), start)
            np.testing.assert_array_equal(np.asarray(view), start[1:])


@pytest.mark.parametrize("dest", ["float16", "bfloat16", "float32", "float64"])
def test_complex_into_half_through_a_view_and_jit(dest: str) -> None:
    x = jt.asarray([1.0, 2.0, 3.0], dtype=dest)
    v = x[::2]
    with pytest.raises(TypeError):
        v *= 1j
    with pytest.raises(TypeError):
        x += jt.asarray([1j, 2j, 3j])

    @jt.jit
    def f(t: jt.Tensor) -> None:
        t /= 1j

    with pytest.raises(TypeError):
        f(x)
    assert x.tolist() == [1.0, 2.0, 3.0]
