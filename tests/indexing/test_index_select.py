"""index_select: values against torch.index_select / NumPy take, tiled kernel with dividing
and non-dividing tiles, dispatch, out=, errors, and gradients against torch autograd and
finite differences (eager and under jit)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxtensor as jt
from optional_deps import require

torch = require("torch", "torch")  # the PyTorch oracle

_HAVE = set(jt.__array_namespace_info__().dtypes())  # no 64-bit dtypes with JAX_ENABLE_X64=0
DTYPES = [d for d in ("float32", "float64", "int32", "int64", "int8", "uint8", "bool",
                      "complex64") if d in _HAVE]
FLOAT = "float64" if "float64" in _HAVE else "float32"


@st.composite
def cases(draw, max_rank=3, index_rank=None):
    rank = draw(st.integers(1, max_rank))
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    dim = draw(st.integers(-rank, rank - 1))
    n = shape[dim]
    irank = draw(st.sampled_from([0, 1, 1, 1, 2])) if index_rank is None else index_rank
    ishape = tuple(draw(st.lists(st.integers(0, 6), min_size=irank, max_size=irank)))
    size = int(np.prod(ishape)) if ishape else 1
    vals = draw(st.lists(st.integers(-n, n - 1), min_size=size, max_size=size))
    idx = np.asarray(vals, dtype=draw(st.sampled_from([np.int32, np.int64]))).reshape(ishape)
    dtype = draw(st.sampled_from(DTYPES))
    seed = draw(st.integers(0, 2**16))
    x = _values(shape, dtype, seed)
    return x, dim, idx


def _values(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.startswith(("int", "uint")):
        return rng.integers(0, 100, shape).astype(dtype)
    if dtype.startswith("complex"):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _expected(x, dim, idx):
    return np.take(x, idx, axis=dim)


@settings(max_examples=30)
@given(cases(index_rank=1))
def test_matches_torch_index_select(case):
    x, dim, idx = case
    idx = np.where(idx < 0, idx + x.shape[dim], idx)  # torch rejects negative indices
    ref = torch.index_select(torch.from_numpy(x), dim, torch.from_numpy(idx.astype(np.int64)))
    got = jt.index_select(jt.asarray(x), dim, jt.asarray(idx))
    assert got.shape == tuple(ref.shape)
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(np.asarray(got), ref.numpy())


@settings(max_examples=30)
@given(cases(), st.data())
def test_tiled_kernel_any_tile(case, data):
    """Explicit tile shapes (dividing the output or not) give exactly NumPy's take."""
    x, dim, idx = case
    out_shape = _expected(x, dim, idx).shape
    tile = [data.draw(st.integers(1, max(s, 1) + 2)) for s in out_shape]
    got = jt.index_select(jt.asarray(x), dim, jt.asarray(idx), tile_shape=tile)
    np.testing.assert_array_equal(np.asarray(got), _expected(x, dim, idx))


@settings(max_examples=30)
@given(cases(max_rank=5))
def test_default_dispatch_any_rank_and_index_rank(case):
    x, dim, idx = case
    got = jt.index_select(jt.asarray(x), dim, jt.asarray(idx))
    exp = _expected(x, dim, idx)
    assert got.shape == exp.shape
    np.testing.assert_array_equal(np.asarray(got), exp)


def test_pypto_example():
    x = jt.asarray([[0.1427, 0.0231, -0.5414, -1.0009],
                    [-0.4664, 0.2647, -0.1228, -1.1068],
                    [-1.1734, -0.6571, 0.7230, -0.6004]])
    idx = jt.asarray([0, 2], dtype=jt.int32)
    xn = np.asarray(x)
    np.testing.assert_array_equal(np.asarray(jt.index_select(x, 0, idx)), xn[[0, 2]])
    np.testing.assert_array_equal(np.asarray(jt.index_select(x, 1, idx)), xn[:, [0, 2]])
    np.testing.assert_array_equal(np.asarray(x.index_select(1, idx)), xn[:, [0, 2]])
    # pypto's TileShape [b1, t1, d1] over the output of [B, S, D], index [T], dim -2
    big = np.arange(2 * 7 * 6, dtype=np.float32).reshape(2, 7, 6)
    i = np.array([6, 0, 3, 3, 1], np.int64)
    for tile in ([1, 2, 4], [2, 5, 6], [1, 3, 5], [2, 1, 1]):
        got = jt.index_select(jt.asarray(big), -2, jt.asarray(i), tile_shape=tile)
        np.testing.assert_array_equal(np.asarray(got), big[:, i])


def test_empty_index_and_empty_input():
    x = jt.asarray(np.ones((3, 4), np.float32))
    assert jt.index_select(x, 1, jt.asarray(np.zeros(0, np.int64))).shape == (3, 0)
    assert jt.index_select(x, 0, [], tile_shape=[2, 2]).shape == (0, 4)
    z = jt.asarray(np.ones((0, 4), np.float32))
    assert jt.index_select(z, 1, jt.asarray([1, 2])).shape == (0, 2)


@pytest.mark.parametrize("dtype", [d for d in ("float32", "bool", "int8", "complex64", "float64")
                                   if d in _HAVE])
def test_tiled_output_is_fully_written(dtype):
    """Every element of the tiled kernel's output is written, remainder tiles included, fresh,
    under jit and differentiated (with the opt-in uninitialised output, garbage would show:
    tests/internals/test_internals.py runs the same there)."""
    rng = np.random.default_rng(11)
    x = _values((37, 300, 9), dtype, 12)
    idx = rng.integers(-300, 300, 501)
    exp = np.take(x, idx, axis=1)
    for tile in ([5, 64, 9], [37, 7, 4], [1, 501, 9], [2, 3, 2]):
        got = jt.index_select(jt.asarray(x), 1, jt.asarray(idx), tile_shape=tile)
        np.testing.assert_array_equal(np.asarray(got), exp)
    f = jax.jit(lambda v, i: jt.index_select(v, -2, i, tile_shape=[8, 100, 9]).to_jax())
    np.testing.assert_array_equal(np.asarray(f(jnp.asarray(x), jnp.asarray(idx))), exp)
    if dtype == "float32":
        w = rng.standard_normal(exp.shape).astype(np.float32)
        g = jax.grad(lambda v: jnp.vdot(w, jt.index_select(v, 1, idx, tile_shape=[8, 64, 9])
                                        .to_jax()))(jnp.asarray(x))
        ref = np.zeros_like(x)
        np.add.at(ref, (slice(None), np.where(idx < 0, idx + 300, idx)), w)
        np.testing.assert_allclose(np.asarray(g), ref, rtol=1e-5, atol=1e-5)


def test_out_writes_into_the_given_tensor():
    x = np.random.default_rng(1).standard_normal((64, 300)).astype(np.float32)
    idx = np.random.default_rng(2).integers(0, 64, 500)
    out = jt.zeros((500, 300), dtype=jt.float32)
    r = jt.index_select(jt.asarray(x), 0, jt.asarray(idx), out=out)
    assert r is out
    np.testing.assert_array_equal(np.asarray(out), x[idx])
    # into a view: the base sees it
    base = jt.zeros((2, 500, 300), dtype=jt.float32)
    jt.index_select(jt.asarray(x), 0, jt.asarray(idx), out=base[1])
    np.testing.assert_array_equal(np.asarray(base[1]), x[idx])
    np.testing.assert_array_equal(np.asarray(base[0]), 0)
    # an exported buffer is never donated: the user's array stays valid
    out2 = jt.zeros((500, 300), dtype=jt.float32)
    held = out2.to_jax()
    jt.index_select(jt.asarray(x), 0, jt.asarray(idx), out=out2, tile_shape=[7, 300])
    np.testing.assert_array_equal(np.asarray(held), 0)
    np.testing.assert_array_equal(np.asarray(out2), x[idx])
    out3 = jt.zeros((500, 300), dtype=jt.float32)  # the tiled kernel into a donated buffer
    jt.index_select(jt.asarray(x), 0, jt.asarray(idx), out=out3, tile_shape=[64, 300])
    np.testing.assert_array_equal(np.asarray(out3), x[idx])
    with pytest.raises(ValueError, match=r"\(500, 300\)"):
        jt.index_select(jt.asarray(x), 0, jt.asarray(idx), out=jt.zeros((5, 300), dtype=jt.float32))


def test_errors():
    x = jt.asarray(np.zeros((3, 4), np.float32))
    with pytest.raises(IndexError, match="dim 2 is out of range"):
        jt.index_select(x, 2, jt.asarray([0]))
    with pytest.raises(IndexError, match="dim -3"):
        jt.index_select(x, -3, jt.asarray([0]))
    with pytest.raises(TypeError, match="integer dtype"):
        jt.index_select(x, 0, jt.asarray([0.0]))
    with pytest.raises(TypeError, match="integer dtype"):
        jt.index_select(x, 0, jt.asarray([True, False, True]))
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 1 with size 4"):
        jt.index_select(x, 1, jt.asarray([0, 4]))
    with pytest.raises(IndexError, match="index -5 is out of bounds for dimension 1 with size 4"):
        jt.index_select(x, 1, jt.asarray([-5]))
    with pytest.raises(ValueError, match="tile_shape"):
        jt.index_select(x, 1, jt.asarray([0]), tile_shape=[1])
    with pytest.raises(ValueError, match="tile_shape"):
        jt.index_select(x, 1, jt.asarray([0]), tile_shape=[0, 1])


def test_traced_index_is_bounds_checked_under_jaxtensor_jit():
    x = jt.reshape(jt.arange(12.0), (3, 4))
    f = jt.jit(lambda v, i: jt.index_select(v, 1, i))
    np.testing.assert_array_equal(np.asarray(f(x, jnp.asarray([1, 3]))),
                                  np.arange(12.0).reshape(3, 4)[:, [1, 3]])
    for bad, named in (([0, 4], 4), ([-5, 1], -5)):
        with pytest.raises(IndexError) as eager:
            jt.index_select(x, 1, jt.asarray(bad))
        with pytest.raises(IndexError, match=f"index {named} is out of bounds"):
            f(x, jnp.asarray(bad))
        assert str(named) in str(eager.value)
    g = jt.jit(lambda v, i: jt.index_select(v, 1, i), check_bounds=False)
    assert g(x, jnp.asarray([0, 4])).shape == (3, 2)  # unchecked: clamped, as in JAX


def test_under_jit_and_vmap():
    x = np.random.default_rng(3).standard_normal((4, 5, 6)).astype(np.float32)
    idx = np.array([4, 0, 0, 2])
    f = jax.jit(lambda v, i: jt.index_select(v, 1, i, tile_shape=[2, 3, 4]))
    got = f(jt.asarray(x), jt.asarray(idx))
    assert isinstance(got, jt.Tensor)
    np.testing.assert_array_equal(np.asarray(got), x[:, idx])
    g = jax.vmap(lambda v: jt.index_select(v, 0, idx).to_jax())(jnp.asarray(x))
    np.testing.assert_array_equal(np.asarray(g), x[:, idx])


# -- gradients --------------------------------------------------------------------------------
@settings(max_examples=15)
@given(cases(max_rank=3, index_rank=1), st.booleans(), st.booleans())
def test_grad_matches_torch_autograd(case, tiled, use_jit):
    x, dim, idx = case
    x = _values(x.shape, FLOAT, 7)
    idx = np.where(idx < 0, idx + x.shape[dim], idx).astype(np.int64)
    w = np.random.default_rng(5).standard_normal(np.take(x, idx, axis=dim).shape)
    tile = [2] * x.ndim if tiled else None

    def loss(v):
        return jnp.sum(jnp.asarray(w) * jt.index_select(v, dim, jt.asarray(idx),
                                                          tile_shape=tile).to_jax())

    grad = jax.grad(loss)
    if use_jit:
        grad = jax.jit(grad)
    got = grad(jnp.asarray(x))
    tx = torch.from_numpy(x).requires_grad_()
    (torch.from_numpy(w) * torch.index_select(tx, dim, torch.from_numpy(idx))).sum().backward()
    np.testing.assert_allclose(np.asarray(got), tx.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_grad_repeated_indices_is_scatter_add_and_tensor_pytree():
    x = jt.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    idx = jt.asarray([2, 2, 0, 2])
    for tile in (None, [2, 3]):
        def loss(t, tile=tile):
            return jnp.sum(jnp.asarray(jt.index_select(t, 0, idx, tile_shape=tile)))

        g = jax.grad(loss)(x)
        assert isinstance(g, jt.Tensor)  # a Tensor is a pytree whose leaf is its value
        np.testing.assert_array_equal(np.asarray(g), [[1] * 4, [0] * 4, [3] * 4])


def test_jvp_vjp_and_finite_differences():
    from jax.test_util import check_grads

    x = jnp.asarray(np.random.default_rng(4).standard_normal((3, 5, 4)))
    idx = jnp.asarray([4, 1, 1, 0, 3, 4, 4])
    for tile in (None, [2, 3, 3]):
        f = lambda v, tile=tile: jt.index_select(v, 1, idx, tile_shape=tile).to_jax()  # noqa: E731
        check_grads(f, (x,), order=1, modes=["fwd", "rev"])
        t = jnp.ones_like(x)
        _, tan = jax.jvp(f, (x,), (t,))
        np.testing.assert_array_equal(np.asarray(tan), np.ones((3, 7, 4)))
        out, vjp = jax.vjp(f, x)
        (ct,) = vjp(jnp.ones_like(out))
        np.testing.assert_array_equal(np.asarray(ct)[0, :, 0], [1, 2, 0, 1, 3])


def test_repeated_eager_calls_check_every_index():
    """Eager calls with a signature seen before take a shorter path (the kernel chosen the
    first time, the index's extremes remembered per jax array): every call must still give
    NumPy's answer, raise for out-of-bounds values and handle negative ones."""
    rng = np.random.default_rng(5)
    xn = rng.standard_normal((6, 5)).astype(np.float32)
    x = jt.asarray(xn)
    for k in range(60):  # new index arrays of one shape: ids get reused as arrays die
        idx = rng.integers(-6, 6, 4) if k % 3 else rng.integers(0, 6, 4)
        got = jt.index_select(x, 0, jt.asarray(idx))
        np.testing.assert_array_equal(np.asarray(got), xn[idx])
        got = x.index_select(-1, jt.asarray(idx % 5))
        np.testing.assert_array_equal(np.asarray(got), xn[:, idx % 5])
    same = jt.asarray(np.array([1, -1, 0, 2]))
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(jt.index_select(x, 0, same)),
                                      xn[[1, -1, 0, 2]])
    for bad in ([0, 6, 1, 2], [-7, 0, 0, 0]):
        with pytest.raises(IndexError, match=f"index {bad[1] if bad[1] == 6 else -7} is out"):
            jt.index_select(x, 0, jt.asarray(np.array(bad)))
    for _ in range(3):  # explicit tiles repeat too; bad tiles keep their message
        np.testing.assert_array_equal(
            np.asarray(jt.index_select(x, 1, jt.asarray(np.array([4, -5, 2])), tile_shape=[4, 2])),
            xn[:, [4, 0, 2]])
        with pytest.raises(TypeError, match="tile_shape must be a sequence"):
            jt.index_select(x, 1, jt.asarray(np.array([4, 0])), tile_shape=[2.5, 2])
    empty = jt.asarray(np.zeros(0, np.int64))
    for _ in range(2):
        assert jt.index_select(x, 0, empty).shape == (0, 5)

