"""NumPy's reduction functions called on Tensors (``np.sum(t)``, ``np.std(t, ddof=1)``, ...)
reach the Tensor methods with NumPy's keywords (``axis``, ``dtype``, ``out``, ``keepdims``,
``ddof``) and give NumPy's values."""

from __future__ import annotations

import numpy as np
import pytest

import jaxtensor as jt

A = np.arange(12.0).reshape(3, 4) - 4.5
REDUCTIONS = ["sum", "mean", "max", "min", "prod", "std", "var", "any", "all"]


@pytest.mark.parametrize("name", REDUCTIONS)
def test_numpy_reductions_take_tensors(name):
    f = getattr(np, name)
    t = jt.asarray(A)
    kws = [{}, {"axis": 0}, {"axis": 1}, {"axis": 1, "keepdims": True}, {"axis": (0, 1)}]
    if name not in ("max", "min", "any", "all"):
        kws.append({"axis": 0, "dtype": np.float32})
    if name in ("std", "var"):
        kws += [{"ddof": 1}, {"axis": 0, "ddof": 2}]
    for kw in kws:
        got, want = f(t, **kw), f(A, **kw)
        assert isinstance(got, jt.Tensor), (name, kw)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, err_msg=f"{name} {kw}")
        assert got.shape == np.shape(want)


@pytest.mark.parametrize("name", ["sum", "mean", "max", "prod", "any"])
def test_out_takes_a_tensor(name):
    f = getattr(np, name)
    t = jt.asarray(A)
    want = f(A, axis=0)
    out = jt.zeros(4, dtype=jt.bool if name == "any" else jt.float64)
    res = f(t, axis=0, out=out)
    assert res is out
    np.testing.assert_allclose(np.asarray(out), want)
    with pytest.raises(TypeError, match="must be a Tensor"):
        getattr(t, name)(axis=0, out=np.zeros(4))


def test_cumsum_and_the_method_forms_keep_their_torch_spellings():
    t = jt.asarray(A)
    np.testing.assert_array_equal(np.asarray(np.cumsum(t, axis=1)), np.cumsum(A, axis=1))
    np.testing.assert_array_equal(np.asarray(t.sum(dim=0, keepdim=True)),
                                  A.sum(axis=0, keepdims=True))
    np.testing.assert_allclose(np.asarray(t.std(dim=1, correction=1)), A.std(axis=1, ddof=1))


@pytest.mark.parametrize("name", ["mean", "std", "var"])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float32])
def test_a_dtype_asked_for_is_the_results(name, dtype):
    """``np.mean(t, dtype=np.int64)`` is an int64 (NumPy truncates the mean), not the
    float mean of the values cast; an integer ``var``/``std`` is NumPy's too (its sums are
    of that dtype: each value and each squared deviation truncated, the mean and the
    quotient truncated)."""
    a = np.array([[1.5, 2.5], [3.5, 4.5], [-7.25, 8.0]])
    for kw in ({}, {"axis": 0}, {"axis": 1}):
        try:
            want = getattr(np, name)(a, dtype=dtype, **kw)
        except TypeError:  # (NumPy's integer std along an axis cannot cast its sqrt)
            continue
        got = getattr(np, name)(jt.asarray(a), dtype=dtype, **kw)
        assert np.asarray(got).dtype == np.asarray(want).dtype, (name, kw)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, err_msg=f"{name} {kw}")


@pytest.mark.parametrize("name", ["std", "var"])
def test_integer_var_and_std_are_numpys_over_random_inputs(name):
    """``np.var(t, dtype=int...)`` and ``t.std(dtype=...)``: NumPy's truncations, over random
    shapes, axes, ``ddof``, ``keepdims`` and source dtypes (integer and float)."""
    rng = np.random.default_rng(3)
    sources = [np.int8, np.int32, np.int64, np.uint8, np.float64]
    tried = 0
    for k in range(100):
        shape = tuple(int(n) for n in rng.integers(1, 5, rng.integers(1, 4)))
        src, into = sources[k % 5], [np.int64, np.int32, np.int16][k % 3]
        a = (rng.standard_normal(shape) * 40).astype(src) if src is not np.uint8 else (
            rng.integers(0, 200, shape).astype(src))
        axis = [None, 0, -1, (0, -1)][k % 4 if len(shape) > 1 else k % 3]
        ddof, kd = [0, 1, 0.5][k % 3], bool(k % 2)
        n = a.size if axis is None else int(np.prod([shape[i] for i in np.atleast_1d(axis)]))
        if n - ddof <= 0:  # (NumPy casts an inf or nan quotient: the platform's value)
            continue
        with np.errstate(all="ignore"):
            try:
                want = getattr(np, name)(a, dtype=into, axis=axis, ddof=ddof, keepdims=kd)
            except TypeError:  # (NumPy's integer std along an axis cannot cast its sqrt)
                continue
        got = getattr(np, name)(jt.asarray(a), dtype=into, axis=axis, ddof=ddof, keepdims=kd)
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"{a!r} {axis} {ddof}")
        tried += 1
    assert tried > 25


def test_argsort_method_of_axis_none_flattens_as_numpy():
    a = np.array([[3, 1, 7], [2, 0, 5]])
    got = jt.asarray(a).argsort(axis=None)
    np.testing.assert_array_equal(np.asarray(got), a.argsort(axis=None, kind="stable"))
    np.testing.assert_array_equal(np.asarray(jt.asarray(a).argsort(1)),
                                  a.argsort(1, kind="stable"))
