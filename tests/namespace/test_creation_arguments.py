"""Creation arguments every creation function shares: ``device=`` (None, a ``jax.Device``,
a ``jax.sharding.Sharding`` or a platform name; anything else one ``ValueError``) and values
of kinds jaxtensor cannot hold (``TypeError`` naming the dtype)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxtensor as jt

CPU = jax.devices("cpu")[0]
MAKERS = {
    "asarray": lambda d: jt.asarray([1.0, 2.0], device=d),
    "zeros": lambda d: jt.zeros(2, device=d),
    "ones": lambda d: jt.ones(2, device=d),
    "empty": lambda d: jt.empty(2, device=d),
    "full": lambda d: jt.full(2, 3.0, device=d),
    "zeros_like": lambda d: jt.zeros_like(jt.ones(2), device=d),
    "ones_like": lambda d: jt.ones_like(jt.ones(2), device=d),
    "empty_like": lambda d: jt.empty_like(jt.ones(2), device=d),
    "full_like": lambda d: jt.full_like(jt.ones(2), 3.0, device=d),
    "arange": lambda d: jt.arange(2, device=d),
    "eye": lambda d: jt.eye(2, device=d),
    "linspace": lambda d: jt.linspace(0.0, 1.0, 2, device=d),
    "from_dlpack": lambda d: jt.from_dlpack(np.ones(2), device=d),
    "to_device": lambda d: jt.ones(2).to_device(d),
}


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_every_creation_function_takes_the_same_devices(name):
    make = MAKERS[name]
    for d in (None, CPU, "cpu", "cpu:0", jax.sharding.SingleDeviceSharding(CPU)):
        t = make(d)
        assert t.device == CPU, (name, d)
    for bad in (7, object(), "no-such-platform", "cpu:99"):
        with pytest.raises(ValueError, match="device"):
            make(bad)


@pytest.mark.parametrize("value", [["a", "b"], "text", np.array(["a"]), [b"x"], [1, "a"],
                                   [np.datetime64("2020-01-01")], np.array([1], dtype=object),
                                   np.array(["2020-01-01"], dtype="datetime64[D]")])
def test_unsupported_kinds_raise_type_error_naming_the_dtype(value):
    kind = np.asarray(value).dtype.kind
    want = {"U": "<U", "S": "|S", "M": "datetime64", "O": "object"}[kind]
    with pytest.raises(TypeError, match="is not supported") as e:
        jt.asarray(value)
    assert f"dtype {want}" in str(e.value)


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "int64", "uint8",
                                   "uint16", "uint32", "uint64", "float16", "float32",
                                   "float64", "complex64", "complex128"])
@pytest.mark.parametrize("nest", [lambda v: [v, v], lambda v: [[v], [v]], lambda v: (v,)])
def test_asarray_of_numpy_scalars_keeps_their_dtype(dtype: str, nest) -> None:
    obj = nest(np.dtype(dtype).type(1))
    assert jt.asarray(obj).dtype == np.asarray(obj).dtype
    np.testing.assert_array_equal(np.asarray(jt.asarray(obj)), np.asarray(obj))


def test_asarray_of_mixed_numpy_scalars_promotes_them() -> None:
    obj = [np.int8(1), np.int32(2), np.uint8(3)]
    assert jt.asarray(obj).dtype == np.asarray(obj).dtype == np.int32
    # a Python scalar beside them is weak, as beside a Tensor (NumPy would widen to int64)
    assert jt.asarray([np.int8(1), 2]).dtype == jt.int8


FLOAT_FILLS = [float("inf"), -float("inf"), float("nan"), 1e30, -1e300, 300.0, -300.0, 2.7,
               -2.7, 0.5, -0.0, 2.0**63, -(2.0**63), 2.0**64, np.float64(-1e20)]


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32",
                                   "int64", "uint64"])
def test_a_float_fill_of_an_integer_tensor_converts_as_astype(dtype: str) -> None:
    """``full``/``full_like`` of a float that an integer dtype cannot hold convert it as
    ``astype`` (and JAX) do: toward zero, saturating, NaN to 0 (NumPy's ``full`` casts
    unsafely, with platform-dependent results; a library's ``full_like(x, -inf)`` for a
    running maximum works)."""
    dt = getattr(jt, dtype)
    for v in FLOAT_FILLS:
        want = np.asarray(jnp.full(3, float(v), dtype=np.dtype(dtype)))
        assert jt.full(3, v, dtype=dt).tolist() == want.tolist(), v
        assert jt.full_like(jt.zeros(3, dtype=dt), v).tolist() == want.tolist(), v
        assert jt.asarray([v] * 3).astype(dt).tolist() == want.tolist(), v


def test_a_python_int_fill_out_of_range_still_raises() -> None:
    with pytest.raises(OverflowError, match="300"):
        jt.full(2, 300, dtype=jt.int8)


def test_integer_arange_wraps_and_raises_as_numpy():
    """An integer ``arange`` whose values leave its dtype: NumPy's answer, the values after
    the first two wrapped into the dtype (``arange(200, dtype=int8)``, array-api-extra's
    ``one_hot`` of int8 classes), ``OverflowError`` where the first two do not fit."""
    rng = np.random.default_rng(3)
    for dt in ("int8", "uint8", "int16", "uint16", "int32", "int64", "uint64"):
        for _ in range(150):
            start, stop = (int(v) for v in rng.integers(-300, 300, 2))
            step = int(rng.choice([-70, -3, -1, 1, 2, 50, 129]))
            try:
                want = np.arange(start, stop, step, dtype=dt)
            except OverflowError:
                with pytest.raises(OverflowError, match="arange"):
                    jt.arange(start, stop, step, dtype=getattr(jt, dt))
                continue
            got = np.asarray(jt.arange(start, stop, step, dtype=getattr(jt, dt)))
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want, err_msg=f"{start} {stop} {step} {dt}")
