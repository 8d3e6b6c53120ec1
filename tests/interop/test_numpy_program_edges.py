"""Edges NumPy programs meet: complex parts assigned, ``round``/``divmod``, big-endian
input, bool operands of ``**``, ``//`` and ``%``. NumPy is the oracle."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import jaxtensor as jt


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_parts_are_assignable_like_numpys(dtype: str) -> None:
    a = np.array([1 + 2j, 3 - 4j, -5 + 0.5j], dtype)
    x = jt.asarray(a)
    v = x[::2]  # (through a view as well)
    for stmt in ["{}.imag *= -1", "{}.real += 10", "{}.imag = 0", "{}.real = [7, 8, 9]",
                 "{}[::2].real = 1.5", "{}.imag -= {}.real"]:
        exec(stmt.format("a", "a"))  # noqa: S102
        exec(stmt.format("x", "x"))  # noqa: S102
        np.testing.assert_array_equal(x.numpy(), a, err_msg=stmt)
    v.imag = 3
    a[::2].imag = 3
    np.testing.assert_array_equal(x.numpy(), a)


def test_a_real_tensor_has_a_real_part_to_set_and_no_imaginary_one() -> None:
    a = np.array([1.0, 2.0], np.float32)
    x = jt.asarray(a)
    x.real = 5
    a.real = 5
    np.testing.assert_array_equal(x.numpy(), a)
    with pytest.raises(TypeError, match="imaginary"):
        x.imag = 0
    np.testing.assert_array_equal(x.numpy(), a)  # (unchanged)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_round_of_a_0d_tensor_is_numpys_round_of_a_scalar(dtype: str) -> None:
    vals = np.array([3.7, 2.5, -1.25, 0.5, -0.5, 15, 25, -35], dtype)
    x = jt.asarray(vals)
    for k in range(len(vals)):
        want = round(vals[k])
        got = round(x[k])
        assert type(got) is int and got == want, (vals[k], got, want)
        for nd in (1, 0, -1):
            w, g = round(vals[k], nd), round(x[k], nd)
            assert g.dtype == np.dtype(dtype) and g.shape == (), (vals[k], nd)
            assert float(g) == float(w), (vals[k], nd, g, w)
    np.testing.assert_array_equal(round(x).numpy(), np.round(vals))
    np.testing.assert_allclose(round(x, 1).numpy(), np.round(vals, 1))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int16", "int64"])
def test_round_with_ndigits_of_an_element_is_numpys(dtype: str) -> None:
    """``round(x[i], nd)`` is NumPy's ``round`` of the scalar (``round(x * 10**nd) / 10**nd``
    in the element's dtype: 2.675 to 2 places is 2.68), as ``jt.round(x, nd)`` of the array;
    it was Python's ``round`` of the float (2.67)."""
    rng = np.random.default_rng(len(dtype))
    vals = np.concatenate([rng.standard_normal(40) * 100, [2.675, 0.125, -1.005, 12.5, 250]])
    vals = vals.astype(dtype)
    x = jt.asarray(vals)
    for k in range(len(vals)):
        for nd in (-2, -1, 1, 2, 3):
            want, got = round(vals[k], nd), round(x[k], nd)
            assert got.dtype == np.asarray(want).dtype and got.shape == (), (vals[k], nd)
            np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"{vals[k]} {nd}")


def test_round_to_more_decimals_than_a_float_holds_is_numpys() -> None:
    """Beyond float64's range the power of ten is inf, as NumPy's: NaN for a float (it
    raised Python's ``OverflowError``), 0 for an integer to a unit beyond it."""
    with np.errstate(all="ignore"):
        for d in (309, 400):
            np.testing.assert_array_equal(jt.round(jt.asarray([1.5, -2.0]), d).numpy(),
                                          np.round(np.array([1.5, -2.0]), d))
        np.testing.assert_array_equal(jt.round(jt.asarray([1.5]), -400).numpy(),
                                      np.round(np.array([1.5]), -400))
    # (NumPy's integer is its cast of that NaN, INT64_MIN: the rounded value is 0)
    assert jt.round(jt.asarray([5, -7]), -400).tolist() == [0, 0]


def test_divmod_is_floor_division_and_remainder() -> None:
    a = np.array([7, -7, 5, 0], np.int64)
    x = jt.asarray(a)
    for b in [3, -2, np.array([2, 3, -4, 5])]:
        for got, want in zip(divmod(x, b), divmod(a, b)):
            np.testing.assert_array_equal(got.numpy(), want)
        r = b if np.isscalar(b) else b[:3]
        for got, want in zip(divmod(r if np.isscalar(r) else jt.asarray(r), x[:3]),
                             divmod(r, a[:3])):
            np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("dtype", [">f4", ">f8", ">i2", ">i8", ">c8", "<f4"])
def test_big_endian_arrays_convert(dtype: str) -> None:
    a = np.arange(6, dtype=dtype).reshape(2, 3)
    x = jt.asarray(a)
    assert x.dtype == a.dtype.newbyteorder("=")
    np.testing.assert_array_equal(x.numpy(), a)
    np.testing.assert_array_equal(jt.sum(a).numpy(), a.sum())


@pytest.mark.parametrize("op", [operator.pow, operator.floordiv, operator.mod])
def test_bool_operands_of_pow_floordiv_mod_give_int8(op) -> None:
    a, b = np.array([True, True, False, False]), np.array([True, False, True, False])
    with np.errstate(all="ignore"):
        want = op(a, b)
    got = op(jt.asarray(a), jt.asarray(b))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.numpy(), want)
    x = jt.asarray(a)
    iop = {operator.pow: operator.ipow, operator.floordiv: operator.ifloordiv,
           operator.mod: operator.imod}[op]
    with pytest.raises(TypeError):  # (NumPy: int8 into bool breaks same_kind)
        iop(x, jt.asarray(b))
    np.testing.assert_array_equal(x.numpy(), a)


def test_dir_offers_only_what_a_tensor_has() -> None:
    """``dir(x)`` (tab completion) leaves out NumPy's names a Tensor lacks, which raise."""
    x = jt.zeros((2, 2))
    names = dir(x)
    assert "copy" not in names and "fill" not in names
    assert {"real", "imag", "shape", "reshape", "__getitem__"} <= set(names)
    for n in names:
        try:
            getattr(x, n)
        except AttributeError:
            raise AssertionError(n) from None
