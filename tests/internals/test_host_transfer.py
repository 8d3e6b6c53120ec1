"""A NumPy array or a Python list becomes a Tensor by XLA's transfer, without
``jax.device_put``'s Python path (docs/measurements.md, "device_put, not jnp.asarray"): the array is
what ``jax.device_put`` makes (values, dtype, the default device, uncommitted, honouring
``jax.default_device``), for every dtype and layout; a dtype the transfer would convert
takes ``jax.device_put``."""

from __future__ import annotations

import jax
import ml_dtypes
import numpy as np
import pytest

import jaxtensor as jt
from jaxtensor._core import _jax_private
from multidevice import run

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]


def _hosts(dt: type) -> list[np.ndarray]:
    """Arrays of ``dt`` of several shapes and layouts (0-D, empty, strided, reversed,
    Fortran order, read-only)."""
    rng = np.random.default_rng(0)
    base = (rng.standard_normal((4, 6)) * 50).astype(dt)
    ro = base.copy()
    ro.flags.writeable = False
    return [base, base[0, 0].reshape(()), base[:0], base[::2, 1::3], base[::-1],
            np.asfortranarray(base), ro, base.T]


@pytest.fixture
def no_device_put(monkeypatch):
    """``jax.device_put`` made to fail: what the transfer path would still call of it."""
    calls = []

    def refuse(*args, **kwargs):
        calls.append(args)
        raise AssertionError("jax.device_put called")
    monkeypatch.setattr(jax, "device_put", refuse)
    return calls


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_a_host_array_is_what_device_put_makes(dt):
    for host in _hosts(dt):
        want = jax.device_put(host)
        got = _jax_private.put_host(host)
        assert type(got) is type(want)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.committed is want.committed is False
        assert got.sharding == want.sharding
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_asarray_transfers_without_device_put(dt, no_device_put):
    for host in _hosts(dt):
        t = jt.asarray(host)
        got = np.asarray(t)  # (in 32-bit mode a 64-bit dtype is converted, as by jnp)
        np.testing.assert_array_equal(got, host.astype(got.dtype))
        assert not t.to_jax().committed
    t = jt.asarray([[1, 2], [3, 4]], dtype=jt.int16)
    assert t.dtype == jt.int16 and t.tolist() == [[1, 2], [3, 4]]
    assert jt.arange(5, dtype=jt.int32).tolist() == [0, 1, 2, 3, 4]
    assert not no_device_put


def test_the_transfer_copies_the_users_array():
    """A Tensor made from a NumPy array never sees later writes to that array."""
    host = np.arange(6.0)
    t = jt.asarray(host)
    host[:] = -1.0
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_a_dtype_the_transfer_would_convert_takes_device_put():
    host = np.arange(4.0).astype(ml_dtypes.bfloat16)
    got = _jax_private.put_host(host)
    assert got.dtype == jax.device_put(host).dtype
    np.testing.assert_array_equal(np.asarray(got, dtype=np.float32), np.arange(4.0))


def test_the_transfer_honours_the_default_device():
    """Under ``jax.default_device(d)``, as ``jax.device_put`` (uncommitted, on ``d``)."""
    out = run("""
        d = jax.devices()[3]
        with jax.default_device(d):
            t = jt.asarray(np.arange(3.0))
            u = jt.asarray([1, 2])
        for a in (t.to_jax(), u.to_jax()):
            assert a.devices() == {d} and not a.committed, (a.devices(), a.committed)
        v = jt.asarray(np.arange(3.0))
        assert v.to_jax().devices() == {jax.devices()[0]}
        print("ok")
    """, devices=4)
    assert out.strip().endswith("ok")
