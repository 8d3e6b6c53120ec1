"""Statistical, utility, linear algebra, linalg and fft functions (part B)."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.array_api import make_strategies_namespace

import jaxtensor as jt

xps = make_strategies_namespace(jt)
small = xps.array_shapes(min_dims=1, max_dims=3, max_side=4)


def T(a, dtype=None):
    return jt.asarray(np.asarray(a) if dtype is None else np.asarray(a, dtype=dtype))


@pytest.mark.parametrize(
    "dtype, expected",
    [("int8", "int64"), ("int64", "int64"), ("uint16", "uint64"), ("uint64", "uint64"),
     ("bool", "int64"), ("float32", "float32"), ("complex64", "complex64")],
)
def test_sum_prod_cumulative_dtypes(dtype, expected):
    x = T([1, 0, 1], dtype)
    for f in (jt.sum, jt.prod, jt.cumulative_sum, jt.cumulative_prod):
        assert f(x).dtype == np.dtype(expected), f
    assert jt.sum(x, dtype=jt.float64).dtype == jt.float64


@given(x=xps.arrays(xps.floating_dtypes(), small,
                    elements={"allow_nan": False, "allow_infinity": False,
                              "min_value": -100, "max_value": 100}),
       data=st.data())
def test_reductions_match_numpy(x, data):
    a = x.numpy()
    axis = data.draw(st.none() | st.integers(-a.ndim, a.ndim - 1))
    keep = data.draw(st.booleans())
    for f, g in ((jt.sum, np.sum), (jt.mean, np.mean), (jt.max, np.max), (jt.min, np.min),
                 (jt.prod, np.prod)):
        got = f(x, axis=axis, keepdims=keep).numpy()
        ref = g(a, axis=axis, keepdims=keep)
        np.testing.assert_allclose(got, ref, rtol=1e-3, atol=1e-3)
        assert got.dtype == a.dtype
    if a.dtype.kind == "f":
        np.testing.assert_allclose(jt.var(x, axis=axis, keepdims=keep).numpy(),
                                   np.var(a, axis=axis, keepdims=keep), rtol=1e-3, atol=1e-3)


def test_var_std_correction():
    x = T([1.0, 2.0, 3.0, 4.0])
    assert float(jt.var(x, correction=1)) == pytest.approx(np.var([1, 2, 3, 4], ddof=1))
    assert float(jt.std(x)) == pytest.approx(np.std([1, 2, 3, 4]))
    assert math.isnan(float(jt.var(x, correction=4)))
    assert math.isnan(float(jt.var(x, correction=5)))
    assert x.std(ddof=1).item() == pytest.approx(np.std([1, 2, 3, 4], ddof=1))


def test_empty_reductions():
    e = jt.zeros((0,))
    assert float(jt.sum(e)) == 0.0 and float(jt.prod(e)) == 1.0
    assert math.isnan(float(jt.mean(e)))
    with pytest.raises(ValueError):
        jt.max(e)


def test_cumulative_include_initial_and_axis_rules():
    a = np.arange(1, 7).reshape(2, 3)
    got = jt.cumulative_sum(T(a), axis=1, include_initial=True).numpy()
    np.testing.assert_array_equal(got, np.concatenate([np.zeros((2, 1), int),
                                                       np.cumsum(a, axis=1)], axis=1))
    got = jt.cumulative_prod(T(a), axis=0, include_initial=True).numpy()
    np.testing.assert_array_equal(got, np.concatenate([np.ones((1, 3), int),
                                                       np.cumprod(a, axis=0)], axis=0))
    with pytest.raises(ValueError, match="axis"):
        jt.cumulative_sum(T(a))
    assert T(a).cumsum().tolist() == np.cumsum(a).tolist()


def test_methods():
    x = T([[1.0, 2.0], [3.0, 4.0]])
    assert x.sum().item() == 10.0
    assert x.sum(0).tolist() == [4.0, 6.0]
    assert x.mean(axis=1, keepdims=True).shape == (2, 1)
    assert x.max(dim=0).tolist() == [3.0, 4.0]
    assert x.min().item() == 1.0
    assert x.argmin().item() == 0
    assert x.prod().item() == 24.0
    assert (x > 2).any().item() and not (x > 2).all().item()


# Pure-imaginary values are the case jnp.all/jnp.any get wrong (they read the real part):
# the elements mix zeros, real and imaginary units and NaN parts.
_parts = st.sampled_from([0.0, 1.0, -0.0, float("nan")])


@given(shape=small, data=st.data())
def test_all_any_astype_bool_every_dtype(shape, data):
    dtype = data.draw(xps.scalar_dtypes(), label="dtype")
    n = math.prod(shape)
    if dtype in (jt.complex64, jt.complex128):
        re = data.draw(st.lists(_parts, min_size=n, max_size=n), label="re")
        im = data.draw(st.lists(_parts, min_size=n, max_size=n), label="im")
        a = (np.asarray(re) + 1j * np.asarray(im)).reshape(shape).astype(str(dtype))
    else:
        a = data.draw(xps.arrays(dtype, shape), label="x")
        a = np.asarray(a.numpy() if hasattr(a, "numpy") else a)
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1), label="axis")
    keep = data.draw(st.booleans(), label="keepdims")
    x = jt.asarray(a)
    for f, ref in ((jt.all, np.all), (jt.any, np.any)):
        got = f(x, axis=axis, keepdims=keep)
        assert got.dtype == jt.bool
        np.testing.assert_array_equal(got.numpy(), ref(a, axis=axis, keepdims=keep))
    np.testing.assert_array_equal(jt.astype(x, jt.bool).numpy(), a.astype(bool))


def test_astype_complex_to_real_still_raises():
    with pytest.raises(TypeError, match="imaginary"):
        jt.astype(jt.asarray([1j]), jt.float64)


def test_all_any_diff():
    a = np.array([[1, 0, 3], [2, 2, 0]])
    assert jt.all(T(a), axis=0).tolist() == np.all(a, axis=0).tolist()
    assert jt.any(T(a), axis=(0, 1)).item() is True
    assert bool(jt.all(jt.zeros((0,))))
    np.testing.assert_array_equal(jt.diff(T(a), axis=1, n=2).numpy(), np.diff(a, axis=1, n=2))
    np.testing.assert_array_equal(
        jt.diff(T(a), axis=0, prepend=T(a[:1]), append=T(a[-1:])).numpy(),
        np.diff(a, axis=0, prepend=a[:1], append=a[-1:]))
    b = np.array([True, False, False])
    np.testing.assert_array_equal(jt.diff(T(b)).numpy(), np.diff(b))


def test_matmul_tensordot_vecdot():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((4, 5)).astype(np.float32)
    np.testing.assert_allclose(jt.matmul(T(a), T(b)).numpy(), a @ b, rtol=1e-5)
    np.testing.assert_allclose(jt.tensordot(T(a), T(b), axes=1).numpy(),
                               np.tensordot(a, b, axes=1), rtol=1e-5)
    np.testing.assert_allclose(jt.tensordot(T(a), T(a), axes=([0, 2], [0, 2])).numpy(),
                               np.tensordot(a, a, axes=([0, 2], [0, 2])), rtol=1e-4)
    c = (rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))).astype(np.complex64)
    np.testing.assert_allclose(jt.vecdot(T(c), T(c), axis=0).numpy(),
                               np.vecdot(c, c, axis=0), rtol=1e-5)
    assert jt.matmul(T([1], np.int8), T([[1]], np.uint8)).dtype == jt.int16
    with pytest.raises(ValueError):
        jt.matmul(T([1, 2]), T([1, 2, 3]))


def test_linalg_against_numpy():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 4, 4))
    spd = a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4)
    la = jt.linalg
    np.testing.assert_allclose(la.det(T(a)).numpy(), np.linalg.det(a), rtol=1e-6)
    np.testing.assert_allclose(la.inv(T(a)).numpy(), np.linalg.inv(a), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(la.cholesky(T(spd)).numpy(), np.linalg.cholesky(spd),
                               rtol=1e-6)
    np.testing.assert_allclose(la.cholesky(T(spd), upper=True).numpy(),
                               np.swapaxes(np.linalg.cholesky(spd), -1, -2), rtol=1e-6)
    np.testing.assert_allclose(la.eigvalsh(T(spd)).numpy(), np.linalg.eigvalsh(spd), rtol=1e-6)
    np.testing.assert_allclose(la.svdvals(T(a)).numpy(), np.linalg.svd(a, compute_uv=False),
                               rtol=1e-6)
    b = rng.standard_normal(4)
    np.testing.assert_allclose(la.solve(T(a), T(b)).numpy(),
                               np.linalg.solve(a, b[None, :, None])[..., 0], rtol=1e-6)
    for ord in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
        np.testing.assert_allclose(la.matrix_norm(T(a), ord=ord).numpy(),
                                   np.linalg.matrix_norm(a, ord=ord), rtol=1e-6)
    for ord in (1, 2, 3, 0, math.inf, -math.inf, 0.5):
        np.testing.assert_allclose(la.vector_norm(T(a), axis=(1, 2), ord=ord).numpy(),
                                   np.linalg.vector_norm(a, axis=(1, 2), ord=ord), rtol=1e-6)
    s, ld = la.slogdet(T(a))
    rs, rld = np.linalg.slogdet(a)
    np.testing.assert_allclose(s.numpy(), rs)
    np.testing.assert_allclose(ld.numpy(), rld, rtol=1e-6)
    assert la.matrix_rank(T(np.ones((3, 3)))).item() == 1
    np.testing.assert_allclose(la.pinv(T(a[0])).numpy(), np.linalg.pinv(a[0]), rtol=1e-5)
    assert la.trace(T(np.arange(9).reshape(3, 3)), offset=1).item() == 6
    np.testing.assert_allclose(la.cross(T([1.0, 2.0, 3.0]), T([4.0, 5.0, 6.0])).numpy(),
                               np.cross([1, 2, 3], [4, 5, 6]))
    q, r = la.qr(T(a))
    np.testing.assert_allclose((q @ r).numpy(), a, atol=1e-10)
    u, sv, vh = la.svd(T(a), full_matrices=False)
    np.testing.assert_allclose((u * sv[..., None, :]) @ vh.numpy(), a, atol=1e-10)
    w = la.eigvals(T(a[0])).numpy()
    np.testing.assert_allclose(np.sort_complex(w), np.sort_complex(np.linalg.eigvals(a[0])),
                               rtol=1e-6)
    assert la.eig(T(a[0].astype(np.float32))).eigenvectors.dtype == jt.complex64
    np.testing.assert_array_equal(la.matrix_power(T([[1, 1], [0, 1]]), 3).numpy(),
                                  [[1, 3], [0, 1]])


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_fft_against_numpy(norm):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 6))
    z = x + 1j * rng.standard_normal((4, 6))
    f = jt.fft
    np.testing.assert_allclose(f.fft(T(z), norm=norm).numpy(), np.fft.fft(z, norm=norm),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(f.ifft(T(z), n=8, axis=0, norm=norm).numpy(),
                               np.fft.ifft(z, n=8, axis=0, norm=norm), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(f.fftn(T(z), norm=norm).numpy(), np.fft.fftn(z, norm=norm),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(f.rfft(T(x), norm=norm).numpy(), np.fft.rfft(x, norm=norm),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(f.irfft(T(z), n=10, norm=norm).numpy(),
                               np.fft.irfft(z, n=10, norm=norm), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(f.rfftn(T(x), s=(4, 8), norm=norm).numpy(),
                               np.fft.rfftn(x, s=(4, 8), norm=norm), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(f.hfft(T(z), norm=norm).numpy(), np.fft.hfft(z, norm=norm),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(f.ihfft(T(x), norm=norm).numpy(), np.fft.ihfft(x, norm=norm),
                               rtol=1e-10, atol=1e-12)


def test_fft_dtypes_and_helpers():
    f = jt.fft
    assert f.fft(T([1.0, 2.0], np.float32)).dtype == jt.complex64
    assert f.irfft(T([1.0, 2.0], np.complex64)).dtype == jt.float32
    assert f.fftfreq(5, d=0.1, dtype=jt.float64).dtype == jt.float64
    np.testing.assert_allclose(f.rfftfreq(5).numpy(), np.fft.rfftfreq(5))
    a = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(f.fftshift(T(a)).numpy(), np.fft.fftshift(a))
    np.testing.assert_array_equal(f.ifftshift(T(a), axes=1).numpy(), np.fft.ifftshift(a, axes=1))
    with pytest.raises(TypeError):
        f.rfft(T([1j]))


def test_cached_kernels_serve_every_shape():
    # kernels are cached by static keys; nothing shape-dependent may leak into a closure
    for m in (2, 3, 0, 1):
        a = np.eye(m) * 2.0
        b = np.arange(m, dtype=float)
        np.testing.assert_allclose(jt.linalg.solve(T(a), T(b)).numpy(), b / 2.0)
        assert jt.linalg.solve(T(a), T(np.ones((m, 4)))).shape == (m, 4)
        assert jt.roll(T(np.arange(m)), 1).shape == (m,)
        assert jt.var(T(np.ones((m, 2))), axis=0).shape == (2,)


_POINTS = "invalid number of FFT data points"


@pytest.mark.parametrize("call, fname, msg", [
    # an empty transformed axis: NumPy's "Invalid number of FFT data points (0)", not
    # JAX's MLIR verifier error (rfft), a ZeroDivisionError (ihfft) or an empty result
    (lambda f: f.rfft(jt.zeros(0)), "rfft", _POINTS),
    (lambda f: f.rfft(jt.ones((3, 0)), axis=1), "rfft", _POINTS),
    (lambda f: f.ihfft(jt.zeros(0)), "ihfft", _POINTS),
    (lambda f: f.fft(jt.zeros(0)), "fft", _POINTS),
    (lambda f: f.ifft(jt.zeros((0, 3)), axis=0), "ifft", _POINTS),
    (lambda f: f.fftn(jt.zeros((3, 0))), "fftn", _POINTS),
    (lambda f: f.ifftn(jt.zeros((0, 3)), axes=(0,)), "ifftn", _POINTS),
    (lambda f: f.rfftn(jt.ones((0, 3))), "rfftn", _POINTS),
    (lambda f: f.fftn(jt.zeros((3, 0)), s=(2, -1)), "fftn", _POINTS),
    # an inverse real transform of one element: the default n = 2 * (m - 1) is 0
    (lambda f: f.irfft(jt.ones(1, dtype=jt.complex64)), "irfft", _POINTS),
    (lambda f: f.hfft(jt.ones(1, dtype=jt.complex64)), "hfft", _POINTS),
    (lambda f: f.irfftn(jt.ones(1, dtype=jt.complex64)), "irfftn", _POINTS),
    (lambda f: f.irfftn(jt.ones((2, 1), dtype=jt.complex64)), "irfftn", _POINTS),
    (lambda f: f.irfft(jt.ones(0, dtype=jt.complex64)), "irfft", _POINTS),
    # n, s
    (lambda f: f.irfft(jt.ones(3, dtype=jt.complex64), n=0), "irfft", "n must be positive"),
    (lambda f: f.fft(jt.ones(3), n=-2), "fft", "n must be positive"),
    (lambda f: f.fftn(jt.ones((2, 3)), s=(0, 3)), "fftn", r"s\[0\] must be positive"),
    (lambda f: f.rfftn(jt.ones((2, 3)), s=(2, -2)), "rfftn", r"s\[1\] must be positive"),
    (lambda f: f.fftn(jt.ones(3), s=(2, 3)), "fftn", "s has 2 entries"),
    (lambda f: f.irfftn(jt.ones(3), s=(3,), axes=(0, 0)), "irfftn", "same length"),
    (lambda f: f.rfftn(jt.ones((2, 3)), axes=()), "rfftn", "axes must not be empty"),
])
def test_fft_invalid_points_and_sizes_raise_value_error(call, fname, msg):
    with pytest.raises(ValueError, match=msg) as info:
        call(jt.fft)
    assert f"fft.{fname}()" in str(info.value)


@pytest.mark.parametrize("call, fname, exc", [
    (lambda f: f.fft(jt.ones(3), axis=1), "fft", IndexError),
    (lambda f: f.irfft(jt.ones(3), axis=-2), "irfft", IndexError),
    (lambda f: f.rfft(jt.asarray(1.0)), "rfft", IndexError),
    (lambda f: f.fftn(jt.ones((2, 3)), axes=(0, 2)), "fftn", IndexError),
    (lambda f: f.rfftn(jt.asarray(1.0)), "rfftn", IndexError),
    (lambda f: f.fft(jt.ones(3), n=2.0), "fft", TypeError),
    (lambda f: f.fft(jt.ones(3), n=True), "fft", TypeError),
    (lambda f: f.fft(jt.ones(3), axis=0.0), "fft", TypeError),
    (lambda f: f.fftn(jt.ones(3), s=3), "fftn", TypeError),
    (lambda f: f.fftn(jt.ones(3), axes=0), "fftn", TypeError),
    (lambda f: f.ifftn(jt.ones(3), s=(2.5,)), "ifftn", TypeError),
])
def test_fft_bad_axes_and_integers_name_the_function(call, fname, exc):
    with pytest.raises(exc) as info:
        call(jt.fft)
    assert f"fft.{fname}()" in str(info.value)


@pytest.mark.parametrize("fname", ["fftn", "ifftn", "rfftn", "irfftn"])
@pytest.mark.parametrize("axes, s", [((0, 0), None), ((1, 0, 1), None), ((0, 0), (3, 5)),
                                     ((1, 1), (4, 6))])
def test_fftn_repeated_axes_match_numpy(fname, axes, s):
    # the standard leaves repeated axes open; NumPy transforms such an axis again
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 5))
    if fname in ("ifftn", "irfftn"):
        x = x + 1j * rng.standard_normal((4, 5))
    got = getattr(jt.fft, fname)(T(x), s=s, axes=axes)
    want = getattr(np.fft, fname)(x, s=s, axes=axes)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-10)


def test_fft_sizes_numpy_accepts_still_work():
    f = jt.fft
    # padding an empty axis, an explicit n for one element, -1 in s, one irfft output
    np.testing.assert_allclose(f.fft(jt.zeros(0), n=4).numpy(), np.zeros(4))
    np.testing.assert_allclose(f.rfft(T(np.zeros((2, 0))), n=3).numpy(), np.zeros((2, 2)))
    np.testing.assert_allclose(f.irfft(T(np.array([2 + 0j])), n=1).numpy(), [2.0])
    np.testing.assert_allclose(f.hfft(T(np.array([2 + 0j])), n=2).numpy(),
                               np.fft.hfft(np.array([2 + 0j]), n=2))
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(f.fftn(T(x), s=(-1, 4), axes=(0, 1)).numpy(),
                               np.fft.fftn(x, s=(-1, 4), axes=(0, 1)))
    np.testing.assert_allclose(f.irfftn(T(x + 0j), s=(-1, -1), axes=(0, 1)).numpy(),
                               np.fft.irfftn(x + 0j, s=(-1, -1), axes=(0, 1)))
    assert f.fftn(T(x), axes=()).shape == (2, 3)


@pytest.mark.parametrize("kwargs, exc, msg", [
    ({"prepend": jt.ones((3, 3))}, ValueError, "prepend must have the shape of x"),
    ({"append": jt.ones((2, 2)), "axis": 0}, ValueError, "append must have the shape of x"),
    ({"append": jt.ones((2, 3, 1))}, ValueError, "append must have the same number"),
    ({"prepend": jt.ones((2, 1), dtype=jt.bool)}, TypeError, "prepend: no type promotion"),
    ({"axis": 2}, IndexError, "axis 2 is out of bounds"),
    ({"n": 1.5}, TypeError, "n must be an integer"),
    ({"n": -1}, ValueError, "n must be non-negative"),
])
def test_diff_bad_arguments_name_diff(kwargs, exc, msg):
    # prepend of the wrong shape raised TypeError with jax.numpy.concatenate's message
    with pytest.raises(exc, match=msg) as info:
        jt.diff(jt.ones((2, 3)), **kwargs)
    assert str(info.value).startswith("diff(): ")


def test_diff_scalar_prepend_append_broadcast_like_numpy():
    a = np.arange(6.0).reshape(2, 3) ** 2
    for axis in (0, 1, -1):
        np.testing.assert_array_equal(
            jt.diff(T(a), axis=axis, prepend=5.0, append=T(np.asarray(-1.0))).numpy(),
            np.diff(a, axis=axis, prepend=5.0, append=-1.0))
    assert jt.diff(T([1, 4, 9]), prepend=0).tolist() == [1, 3, 5]


def test_fftn_with_and_without_s_of_the_same_sizes() -> None:
    """A call with ``s`` given and one without, whose sizes coincide, are different
    programs (one kernel for both gave the input's shape where ``s`` asked another)."""
    x2 = jt.asarray(np.arange(2, dtype=np.complex64))
    x4 = jt.asarray(np.arange(4, dtype=np.complex64))
    for name in ("fftn", "ifftn", "rfftn", "irfftn"):
        f, g = getattr(jt.fft, name), getattr(np.fft, name)
        a2 = x2.real if name == "rfftn" else x2
        a4 = x4.real if name == "rfftn" else x4
        f(a2, axes=[0])
        for a in (a4, a2):
            want = g(np.asarray(a), s=(2,), axes=[0])
            got = f(a, s=(2,), axes=[0])
            assert got.shape == want.shape, name
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape, axis", [((10000,), None), ((2, 3000), 1), ((3000, 2), 0)])
def test_mean_of_half_precision_sums_in_float32_as_numpy(shape, axis):
    """``mean`` of float16 sums and divides in float32 and rounds once (NumPy's), where a
    float16 sum overflowed to inf (10**4 tens) or lost the small terms."""
    rng = np.random.default_rng(1)
    for scale in (10.0, 30000.0, 1e-3):
        w = (rng.random(shape) * scale).astype(np.float16)
        got = jt.mean(jt.asarray(w), axis=axis)
        want = np.mean(w, axis=axis)
        assert got.dtype == want.dtype == np.float16
        np.testing.assert_allclose(np.asarray(got, np.float32), np.asarray(want, np.float32),
                                   rtol=2e-3)
