"""Creation functions, ``copy=``/``device=`` semantics, DLPack both ways, Tensor scalars."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.array_api import make_strategies_namespace

import jaxtensor as jt
from optional_deps import require

torch = require("torch", "torch")  # the PyTorch oracle

xps = make_strategies_namespace(jt)
DEV = jax.devices()[0]
DEFAULTS = jt.__array_namespace_info__().default_dtypes()
FLOAT, COMPLEX = DEFAULTS["real floating"], DEFAULTS["complex floating"]


# -- asarray ---------------------------------------------------------------------------------
def test_asarray_default_dtypes():
    assert jt.asarray(True).dtype == jt.bool
    assert jt.asarray(1).dtype == jt.__array_namespace_info__().default_dtypes()["integral"]
    assert jt.asarray(1.0).dtype == FLOAT
    assert jt.asarray(1j).dtype == COMPLEX
    assert jt.asarray([1, 2.5]).dtype == FLOAT
    assert jt.asarray([]).dtype == FLOAT


def test_asarray_copy_semantics_of_tensors():
    x = jt.asarray([1.0, 2.0])
    assert jt.asarray(x) is x
    assert jt.asarray(x, copy=False) is x
    y = jt.asarray(x, copy=True)
    x[0] = 9.0
    assert float(y[0]) == 1.0
    with pytest.raises(ValueError, match="copy"):
        jt.asarray(x, dtype=jt.float32 if x.dtype != jt.float32 else jt.int32, copy=False)


def test_asarray_copy_false_of_python_objects_raises():
    with pytest.raises(ValueError, match="copy"):
        jt.asarray([1, 2], copy=False)


def test_asarray_of_tensor_list():
    out = jt.asarray([jt.asarray(1.0), jt.asarray(2.0)])
    np.testing.assert_array_equal(np.asarray(out), [1.0, 2.0])
    assert out.dtype == FLOAT


def test_asarray_foreign_objects():
    t = torch.arange(4, dtype=torch.int32)
    out = jt.asarray(t)
    assert out.dtype == jt.int32
    np.testing.assert_array_equal(np.asarray(out), [0, 1, 2, 3])
    import array_api_strict as xs

    s = xs.asarray([1.5, 2.5])
    np.testing.assert_array_equal(np.asarray(jt.asarray(s)), [1.5, 2.5])
    j = jnp.arange(3)
    assert jt.asarray(j).to_jax() is j


def test_namespace_functions_take_foreign_arrays():
    t = torch.tensor([3.0, 1.0, 2.0])
    assert jt.sum(t).item() == 6.0
    assert jt.sort(t).tolist() == [1.0, 2.0, 3.0]
    assert jt.add(jt.ones(3), t).tolist() == [4.0, 2.0, 3.0]
    assert jt.sum([1.0, 2.0]).item() == 3.0  # anything asarray takes (docs/decisions.md)
    with pytest.raises(TypeError, match=r"sum\(\): x must be an array"):
        jt.sum({"a": 1.0})


def test_asarray_device():
    x = jt.asarray([1, 2], device=DEV)
    assert x.device == DEV
    assert jt.zeros(3, device=DEV).device == DEV
    assert jt.zeros_like(x).device == DEV


@given(x=xps.arrays(dtype=st.sampled_from(list(jt.__array_namespace_info__().dtypes().values())),
                   shape=xps.array_shapes(max_dims=3)))
def test_asarray_roundtrips_through_numpy(x):
    back = jt.asarray(np.asarray(x))
    assert back.dtype == x.dtype
    np.testing.assert_array_equal(np.asarray(back), np.asarray(x))


# -- other creation functions ------------------------------------------------------------------
@pytest.mark.parametrize("n, m, k", [(3, None, 0), (2, 4, 1), (4, 2, -1), (0, 3, 0), (3, 3, 5)])
def test_eye_matches_numpy(n, m, k):
    np.testing.assert_array_equal(np.asarray(jt.eye(n, m, k=k)), np.eye(n, m, k=k))


@pytest.mark.parametrize("k", [-2, -1, 0, 1, 3])
def test_tril_triu_match_numpy(k):
    a = np.arange(2 * 3 * 4).reshape(2, 3, 4)
    x = jt.asarray(a)
    np.testing.assert_array_equal(np.asarray(jt.tril(x, k=k)), np.tril(a, k=k))
    np.testing.assert_array_equal(np.asarray(jt.triu(x, k=k)), np.triu(a, k=k))
    with pytest.raises(ValueError, match="2 dimensions"):
        jt.tril(jt.ones(3))


@given(start=st.floats(-1e6, 1e6), stop=st.floats(-1e6, 1e6), num=st.integers(0, 50),
       endpoint=st.booleans())
def test_linspace_endpoints_are_exact(start, stop, num, endpoint):
    out = jt.linspace(start, stop, num, endpoint=endpoint)
    assert out.shape == (num,) and out.dtype == FLOAT
    if num:
        assert float(out[0]) == float(np.asarray(start, FLOAT))
    if endpoint and num > 1:
        assert float(out[-1]) == float(np.asarray(stop, FLOAT))
    if not endpoint:
        ref = jt.linspace(start, stop, num + 1)[:-1]
        np.testing.assert_array_equal(np.asarray(out), np.asarray(ref))


def test_linspace_complex():
    out = jt.linspace(0, 1 + 1j, 3)
    assert out.dtype == COMPLEX
    np.testing.assert_allclose(np.asarray(out), [0, 0.5 + 0.5j, 1 + 1j])


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid_matches_numpy(indexing):
    a, b, c = np.arange(3), np.arange(4), np.arange(2)
    outs = jt.meshgrid(jt.asarray(a), jt.asarray(b), jt.asarray(c), indexing=indexing)
    assert isinstance(outs, tuple)
    for o, e in zip(outs, np.meshgrid(a, b, c, indexing=indexing)):
        np.testing.assert_array_equal(np.asarray(o), e)


def test_arange():
    np.testing.assert_array_equal(np.asarray(jt.arange(5)), np.arange(5))
    np.testing.assert_array_equal(np.asarray(jt.arange(10, 0, -3)), [10, 7, 4, 1])
    assert jt.arange(0.0, 1.0, 0.25).shape == (4,)
    big = jt.arange(2**63, 2**63 + 3, dtype=jt.uint64) if "uint64" in \
        jt.__array_namespace_info__().dtypes() else None
    if big is not None:
        assert int(big[2]) == 2**63 + 2


def test_full_dtype_from_value():
    assert jt.full(2, True).dtype == jt.bool
    assert jt.full(2, 1.5).dtype == FLOAT
    assert jt.full(2, 1j).dtype == COMPLEX
    with pytest.raises(TypeError, match="complex"):
        jt.full(2, 1j, dtype=jt.float32)


def test_constants():
    assert jt.e == math.e and jt.pi == math.pi and jt.inf == math.inf
    assert math.isnan(jt.nan) and jt.newaxis is None


# -- DLPack and devices ---------------------------------------------------------------------
def test_dlpack_to_numpy_and_torch():
    x = jt.asarray([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(np.from_dlpack(x), [1.0, 2.0, 3.0])
    t = torch.from_dlpack(x)
    assert t.tolist() == [1.0, 2.0, 3.0]
    # the consumer's buffer is never changed by later writes to the Tensor
    x[0] = 7.0
    assert t.tolist() == [1.0, 2.0, 3.0]
    assert float(x[0]) == 7.0


def test_dlpack_arguments():
    x = jt.arange(4)
    x.__dlpack__(copy=True)
    x.__dlpack__(max_version=(1, 0), dl_device=(1, 0))
    x.__dlpack__(max_version=(0, 0))  # legacy capsule
    kind, ident = x.__dlpack_device__()
    assert int(kind) == 1 and ident == 0


def test_from_dlpack_numpy_and_torch():
    out = jt.from_dlpack(np.arange(3.0))
    assert out.dtype == jt.float64 if "float64" in jt.__array_namespace_info__().dtypes() \
        else True
    out = jt.from_dlpack(torch.arange(3, dtype=torch.int32))
    np.testing.assert_array_equal(np.asarray(out), [0, 1, 2])
    with pytest.raises(TypeError, match="__dlpack__"):
        jt.from_dlpack([1, 2])


def test_from_dlpack_of_a_tensor_shares_its_storage():
    x = jt.asarray([1, 2, 3])
    y = jt.from_dlpack(x)
    y[0] = 10
    assert int(x[0]) == 10
    z = jt.from_dlpack(x, copy=True)
    z[1] = 0
    assert int(x[1]) == 2


def test_to_device_and_namespace():
    x = jt.ones(2)
    assert x.to_device(DEV) is x
    assert x.device == DEV
    assert x.__array_namespace__() is jt
    assert x.__array_namespace__(api_version="2024.12") is jt
    with pytest.raises(ValueError):
        x.__array_namespace__(api_version="1999.01")


# -- conversion to Python scalars ------------------------------------------------------------
def test_scalar_conversions():
    assert bool(jt.asarray(1.5)) is True
    assert int(jt.asarray(-2.7)) == -2
    assert float(jt.asarray(3)) == 3.0
    assert complex(jt.asarray(1 + 2j)) == 1 + 2j
    assert [10, 20, 30][jt.asarray(1)] == 20
    with pytest.raises(TypeError):
        [1, 2][jt.asarray(1.0)]
    with pytest.raises(ValueError):
        int(jt.asarray(math.nan))
    with pytest.raises(OverflowError):
        int(jt.asarray(math.inf))
    with pytest.raises(TypeError, match="one element"):
        float(jt.ones(3))
    with pytest.raises(ValueError, match="ambiguous"):  # as NumPy
        bool(jt.ones(3))


def test_float_arange_and_integer_linspace_are_numpys_values():
    """``arange`` of floats gives NumPy's values (``start + i * delta``, ``delta`` the
    difference of the first two values in the dtype, not ``start + i * step``: 130 of
    133 elements of ``arange(-3.3, 10, 0.1)`` differed), and an integer ``linspace`` floors
    as NumPy 2's (it truncated toward zero). Random bounds and steps against NumPy."""
    rng = np.random.default_rng(44)
    for k in range(300):
        a, b = sorted(rng.uniform(-100, 100, 2))
        step = float(rng.choice([0.1, 1 / 3, 0.7, -0.25, 2.5, 0.01]))
        if step < 0:
            a, b = b, a
        for dt in (np.float64, np.float32):  # (float16: computed in float64, as PyTorch's)
            want = np.arange(a, b, step, dtype=dt)
            got = np.asarray(jt.arange(a, b, step, dtype=dt))
            assert got.shape == want.shape and got.dtype == want.dtype
            np.testing.assert_array_equal(got, want, err_msg=f"arange({a}, {b}, {step})")
        num, (lo, hi) = int(rng.integers(0, 20)), (int(v) for v in rng.integers(-50, 50, 2))
        for dt in (np.int64, np.int32, np.int8):
            want = np.linspace(lo, hi, num, dtype=dt, endpoint=bool(k % 2))
            got = np.asarray(jt.linspace(lo, hi, num, dtype=dt, endpoint=bool(k % 2)))
            np.testing.assert_array_equal(got, want, err_msg=f"linspace({lo}, {hi}, {num})")
