"""The gather/scatter family against PyTorch (values and autograd gradients), NumPy oracles,
finite differences; deterministic duplicates; in-place forms through views; errors."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxtensor as jt
from optional_deps import require

torch = require("torch", "torch")  # the PyTorch oracle

REDUCES = ["sum", "prod", "mean", "amax", "amin"]


@st.composite
def gs_case(draw, dtype=None):
    """x, dim, index (no larger than x outside dim, duplicates likely), src (>= index)."""
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    dim = draw(st.integers(-rank, rank - 1))
    ishape = tuple(
        draw(st.integers(0 if d == dim % rank else 0, s + 2 if d == dim % rank else s))
        for d, s in enumerate(shape)
    )
    sshape = tuple(i + draw(st.integers(0, 1)) for i in ishape)
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, shape[dim], ishape).astype(draw(st.sampled_from([np.int32, np.int64])))
    dt = dtype or draw(st.sampled_from(["float64", "float32", "int64"]))
    if dt.startswith("int"):
        x = rng.integers(-5, 6, shape).astype(dt)
        src = rng.integers(-5, 6, sshape).astype(dt)
    else:
        x = rng.standard_normal(shape).astype(dt)
        src = rng.standard_normal(sshape).astype(dt)
    return x, dim, idx, src


def _t(a):
    return torch.from_numpy(np.array(a, copy=True))  # torch's in-place ops must not touch a


def _scatter_oracle(x, dim, idx, src):
    """Sequential C-order loop: the last duplicate wins."""
    out = x.copy()
    for pos in np.ndindex(*idx.shape):
        tgt = list(pos)
        tgt[dim] = idx[pos]
        out[tuple(tgt)] = src[pos]
    return out


@settings(max_examples=30)
@given(gs_case())
def test_gather_matches_torch(case):
    x, dim, idx, _ = case
    ref = torch.gather(_t(x), dim, _t(idx.astype(np.int64))).numpy()
    got = jt.gather(jt.asarray(x), dim, jt.asarray(idx))
    np.testing.assert_array_equal(np.asarray(got), ref)
    np.testing.assert_array_equal(np.asarray(jt.asarray(x).gather(dim, jt.asarray(idx))), ref)


@settings(max_examples=30)
@given(gs_case())
def test_scatter_last_duplicate_wins(case):
    x, dim, idx, src = case
    got = jt.scatter(jt.asarray(x), dim, jt.asarray(idx), jt.asarray(src))
    np.testing.assert_array_equal(np.asarray(got), _scatter_oracle(x, dim, idx, src))


@settings(max_examples=30)
@given(gs_case(), st.sampled_from(REDUCES), st.booleans())
def test_scatter_reduce_matches_torch(case, reduce, include_self):
    x, dim, idx, src = case
    ref = torch.scatter_reduce(_t(x), dim, _t(idx.astype(np.int64)), _t(src), reduce,
                               include_self=include_self).numpy()
    got = jt.scatter_reduce(jt.asarray(x), dim, jt.asarray(idx), jt.asarray(src), reduce,
                            include_self=include_self)
    np.testing.assert_allclose(np.asarray(got), ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reduce,torch_reduce", [("add", "add"), ("multiply", "multiply")])
def test_scatter_legacy_reduce_matches_torch(reduce, torch_reduce):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4))
    idx = np.array([[0, 1, 0, 0], [2, 1, 1, 0]])
    src = rng.standard_normal((2, 4))
    ref = _t(x).scatter(0, _t(idx), _t(src), reduce=torch_reduce).numpy()
    got = jt.scatter(jt.asarray(x), 0, jt.asarray(idx), jt.asarray(src), reduce=reduce)
    np.testing.assert_allclose(np.asarray(got), ref)
    ref_v = _t(x).scatter(1, _t(idx), 2.0, reduce=torch_reduce).numpy()
    got_v = jt.asarray(x).scatter(1, jt.asarray(idx), value=2.0, reduce=reduce)
    np.testing.assert_allclose(np.asarray(got_v), ref_v)


@st.composite
def put_case(draw):
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    k = draw(st.integers(1, rank))
    n = draw(st.integers(0, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    idx = tuple(rng.integers(-shape[a], shape[a], n) for a in range(k))
    vshape = (n,) + shape[k:]
    vals = rng.standard_normal(vshape)
    if draw(st.booleans()) and vals.size:
        vals = vals[(0,) * len(vshape)]  # a broadcast scalar-like value
    return rng.standard_normal(shape), idx, np.asarray(vals)


@settings(max_examples=20)
@given(put_case(), st.booleans())
def test_index_put_matches_torch(case, accumulate):
    x, idx, vals = case
    t_idx = tuple(_t(np.where(i < 0, i + x.shape[a], i)) for a, i in enumerate(idx))
    got = jt.index_put(jt.asarray(x), tuple(jt.asarray(i) for i in idx), jt.asarray(vals),
                       accumulate)
    if accumulate:
        ref = _t(x).index_put_(t_idx, _t(vals), accumulate=True).numpy()
        np.testing.assert_allclose(np.asarray(got), ref, rtol=1e-12)
    else:  # torch leaves duplicates undefined; ours: the last one wins (NumPy's loop order)
        ref = x.copy()
        b = np.broadcast_to(vals, (len(idx[0]),) + x.shape[len(idx):])
        for j in range(len(idx[0])):
            ref[tuple(i[j] for i in idx)] = b[j]
        np.testing.assert_array_equal(np.asarray(got), ref)
    y = jt.asarray(x)
    y.index_put_(tuple(jt.asarray(i) for i in idx), jt.asarray(vals), accumulate=accumulate)
    np.testing.assert_array_equal(np.asarray(y), np.asarray(got))


def test_index_put_bool_mask_and_none():
    x = np.arange(12.0).reshape(3, 4)
    m = np.array([True, False, True])
    ref = _t(x).index_put_((_t(m),), torch.tensor(-1.0)).numpy()
    got = jt.index_put(jt.asarray(x), (jt.asarray(m),), -1.0)
    np.testing.assert_array_equal(np.asarray(got), ref)


@settings(max_examples=15)
@given(gs_case(dtype="float64"), st.sampled_from([1, 2.5]))
def test_index_add_matches_torch(case, alpha):
    x, dim, _, _ = case
    rng = np.random.default_rng(1)
    idx = rng.integers(0, x.shape[dim], 5)
    shape = list(x.shape)
    shape[dim] = 5
    src = rng.standard_normal(shape)
    ref = torch.index_add(_t(x), dim, _t(idx), _t(src), alpha=alpha).numpy()
    got = jt.index_add(jt.asarray(x), dim, jt.asarray(idx), jt.asarray(src), alpha=alpha)
    np.testing.assert_allclose(np.asarray(got), ref, rtol=1e-12)
    y = jt.asarray(x)
    y.index_add_(dim, jt.asarray(idx), jt.asarray(src), alpha=alpha)
    np.testing.assert_allclose(np.asarray(y), ref, rtol=1e-12)


def test_take_and_take_along_axis_match_numpy():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 5))
    idx = np.array([4, -1, 0, 0])
    np.testing.assert_array_equal(np.asarray(jt.take(jt.asarray(x), jt.asarray(idx), axis=1)),
                                  np.take(x, idx, axis=1))
    np.testing.assert_array_equal(np.asarray(jt.take(jt.asarray(x[0]), jt.asarray(idx))),
                                  np.take(x[0], idx))
    ia = rng.integers(-5, 5, (4, 3))
    np.testing.assert_array_equal(
        np.asarray(jt.take_along_axis(jt.asarray(x), jt.asarray(ia), axis=1)),
        np.take_along_axis(x, np.where(ia < 0, ia + 5, ia), axis=1))
    ib = rng.integers(0, 4, (2, 1))  # broadcasts along axis 1
    np.testing.assert_array_equal(
        np.asarray(jt.take_along_axis(jt.asarray(x), jt.asarray(ib), axis=0)),
        np.take_along_axis(x, ib, axis=0))
    with pytest.raises(ValueError, match="axis is required"):
        jt.take(jt.asarray(x), jt.asarray(idx))


TAKE_ERRORS = [
    (IndexError, r"^take\(\): index 5 is out of bounds for dimension 0 with size 2$",
     lambda x: jt.take(x, jt.asarray([5]), axis=0)),
    (IndexError, r"^take\(\): index -3 is out of bounds for dimension 1 with size 2$",
     lambda x: jt.take(x, jt.asarray([0, -3]), axis=1)),
    (IndexError, r"^take\(\): axis 3 is out of range .* \(expected axis in \[-2, 1\]\)$",
     lambda x: jt.take(x, jt.asarray([0]), axis=3)),
    (TypeError, r"^take\(\): axis must be an integer, got float$",
     lambda x: jt.take(x, jt.asarray([0]), axis=1.5)),
    (TypeError, r"^take\(\): indices must have an integer dtype",
     lambda x: jt.take(x, jt.asarray([0.5]), axis=0)),
    (TypeError, r"^take\(\): indices must be an array \(a Tensor or anything jaxtensor\.asarray "
                r"takes\), got str$",
     lambda x: jt.take(x, "a", axis=0)),
    (IndexError, r"^take\(\): index 7 is out of bounds for dimension 1 with size 2$",
     lambda x: jt.jit(lambda x, i: jt.take(x, i, axis=1))(x, jt.asarray([7]))),
    (IndexError, r"^take\(\): index 7 is out of bounds for dimension 1 with size 2$",
     lambda x: jt.jit(lambda x, i: jt.take(x, i, axis=1))(x, 7)),
]


@pytest.mark.parametrize("kind, message, call", TAKE_ERRORS)
def test_take_errors_name_take_and_its_parameters(kind, message, call):
    """take's errors say take() and name axis/indices (index_select's say index_select())."""
    x = jt.asarray([[1, 2], [3, 4]])
    with pytest.raises(kind, match=message):
        call(x)
    assert x.tolist() == [[1, 2], [3, 4]]
    with pytest.raises(IndexError, match=r"^index_select\(\): index 5 is out of bounds"):
        jt.index_select(x, 0, jt.asarray([5]))


def test_gather_nd_and_scatter_nd_match_numpy():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4, 5))
    for k in (1, 2, 3):
        idx = np.stack([rng.integers(0, x.shape[a], (2, 6)) for a in range(k)], -1)
        got = jt.gather_nd(jt.asarray(x), jt.asarray(idx))
        ref = x[tuple(idx[..., a] for a in range(k))]
        np.testing.assert_array_equal(np.asarray(got), ref)
        upd = rng.standard_normal(idx.shape[:-1] + x.shape[k:])
        ref2 = np.zeros(x.shape)
        np.add.at(ref2, tuple(idx[..., a] for a in range(k)), upd)
        np.testing.assert_allclose(
            np.asarray(jt.scatter_nd(jt.asarray(idx), jt.asarray(upd), x.shape)), ref2)
        ref3 = x.copy()
        np.add.at(ref3, tuple(idx[..., a] for a in range(k)), upd)
        np.testing.assert_allclose(
            np.asarray(jt.scatter_nd_add(jt.asarray(x), jt.asarray(idx), jt.asarray(upd))), ref3)


def test_inplace_forms_write_through_views():
    base = jt.zeros((3, 4))
    row = base[1]
    row.scatter_(0, jt.asarray([3, 0]), jt.asarray([5.0, 6.0]))
    np.testing.assert_array_equal(np.asarray(base[1]), [6, 0, 0, 5])
    base.index_add_(0, jt.asarray([1, 1]), jt.ones((2, 4)))
    np.testing.assert_array_equal(np.asarray(row), [8, 2, 2, 7])
    col = base[:, 2]
    col.index_put_((jt.asarray([0, 2, 0]),), jt.asarray([1.0, 2.0, 3.0]), accumulate=True)
    np.testing.assert_array_equal(np.asarray(base[:, 2]), [4, 2, 2])
    base.scatter_add_(1, jt.asarray([[0, 0], [0, 0], [0, 0]]), jt.ones((3, 2)))
    np.testing.assert_array_equal(np.asarray(base[:, 0]), [2, 10, 2])
    base.scatter_reduce_(1, jt.asarray([[3], [3], [3]]), jt.full((3, 1), 100.0), "amax")
    np.testing.assert_array_equal(np.asarray(base[:, 3]), [100, 100, 100])


def test_errors():
    x = jt.zeros((3, 4))
    i = jt.asarray([[0, 1], [1, 0]])
    with pytest.raises(IndexError, match="dim 2 is out of range"):
        jt.gather(x, 2, i)
    with pytest.raises(TypeError, match="integer dtype"):
        jt.gather(x, 0, jt.asarray([[0.0]]))
    with pytest.raises(TypeError, match="integer dtype"):
        jt.scatter(x, 0, jt.asarray([[True]]), 1.0)
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 1 with size 4"):
        jt.gather(x, 1, jt.asarray([[4]]))
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        jt.scatter(x, 0, jt.asarray([[3]]), 1.0)
    with pytest.raises(ValueError, match=r"\[5, 1\].*\[3, 4\]"):
        jt.gather(x, 1, jt.zeros((5, 1), dtype=jt.int64))
    with pytest.raises(ValueError, match="same number|as many dimensions"):
        jt.gather(x, 1, jt.asarray([0]))
    with pytest.raises(ValueError, match=r"src of shape \[1, 1\].*\[2, 2\]"):
        jt.scatter(x, 0, i, jt.ones((1, 1)))
    with pytest.raises(ValueError, match="reduce must be one of"):
        jt.scatter(x, 0, i, 1.0, reduce="max")
    with pytest.raises(ValueError, match=r"source of shape \[3, 4\].*expected \[3, 2\]"):
        jt.index_add(x, 1, jt.asarray([0, 1]), jt.ones((3, 4)))
    with pytest.raises(ValueError, match="could not broadcast"):
        jt.index_put(x, (jt.asarray([0, 1]),), jt.ones((3, 4)))
    with pytest.raises(IndexError, match="out of bounds"):
        jt.index_put(x, (jt.asarray([5]),), 1.0)
    with pytest.raises(TypeError, match="integer dtype"):
        jt.index_put(x, (jt.asarray([0.5]),), 1.0)
    with pytest.raises(ValueError, match="updates of shape"):
        jt.scatter_nd_add(x, jt.asarray([[0]]), jt.ones((2, 4)))
    with pytest.raises(TypeError, match="complex"):
        jt.scatter(x, 0, i, jt.asarray([[1j, 1j], [1j, 1j]]))
    y = jt.ones((3, 4))
    with pytest.raises(IndexError):
        y.scatter_(0, jt.asarray([[9]]), 0.0)
    np.testing.assert_array_equal(np.asarray(y), 1)  # a failed in-place op changes nothing


# -- gradients --------------------------------------------------------------------------------
def _torch_grads(fn, *arrays):
    ts = [_t(a).requires_grad_() for a in arrays]
    out = fn(*ts)
    w = torch.from_numpy(np.random.default_rng(9).standard_normal(tuple(out.shape)))
    (out * w).sum().backward()
    return [t.grad.numpy() if t.grad is not None else np.zeros(t.shape) for t in ts], w.numpy()


def _jax_grads(fn, w, *arrays, use_jit=False):
    def loss(*vs):
        return jnp.sum(jnp.asarray(w) * jnp.asarray(fn(*vs)))

    g = jax.grad(loss, argnums=tuple(range(len(arrays))))
    if use_jit:
        g = jax.jit(g)
    return [np.asarray(a) for a in g(*[jnp.asarray(a) for a in arrays])]


@settings(max_examples=12)
@given(gs_case(dtype="float64"), st.sampled_from(REDUCES + ["gather", "add"]), st.booleans(),
       st.booleans())
def test_grads_match_torch_autograd(case, op, include_self, use_jit):
    x, dim, idx, src = case
    src = src[tuple(slice(0, n) for n in idx.shape)]  # torch's backward needs src == index
    src = src + np.sign(src) * 0.5  # keep prod's factors away from zero
    ti = _t(idx.astype(np.int64))
    ji = jt.asarray(idx)
    if op == "gather":
        tg, w = _torch_grads(lambda a: torch.gather(a, dim, ti), x)
        jg = _jax_grads(lambda a: jt.gather(a, dim, ji), w, x, use_jit=use_jit)
    elif op == "add":
        tg, w = _torch_grads(lambda a, s: a.scatter_add(dim, ti, s), x, src)
        jg = _jax_grads(lambda a, s: jt.scatter(a, dim, ji, s, reduce="add"), w, x, src,
                        use_jit=use_jit)
    else:
        if op in ("amax", "amin"):  # ties make the (sub)gradient ambiguous: make values unique
            x = x + np.arange(x.size).reshape(x.shape) * 1e-3
            src = src + 10 + np.arange(src.size).reshape(src.shape) * 1e-3
        tg, w = _torch_grads(
            lambda a, s: torch.scatter_reduce(a, dim, ti, s, op, include_self=include_self),
            x, src)
        jg = _jax_grads(
            lambda a, s: jt.scatter_reduce(a, dim, ji, s, op, include_self=include_self),
            w, x, src, use_jit=use_jit)
    for a, b in zip(jg, tg):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)


def test_amax_ties_share_gradient_like_torch():
    x = np.array([1.0, 5.0, 0.0])
    src = np.array([5.0, 5.0, 2.0])
    idx = np.array([1, 1, 2])
    tg, w = _torch_grads(lambda a, s: torch.scatter_reduce(a, 0, _t(idx), s, "amax"), x, src)
    jg = _jax_grads(lambda a, s: jt.scatter_reduce(a, 0, jt.asarray(idx), s, "amax"), w, x, src)
    for a, b in zip(jg, tg):
        np.testing.assert_allclose(a, b)


def test_grads_index_add_index_put_unique_scatter():
    rng = np.random.default_rng(11)
    x = rng.standard_normal((4, 3))
    src = rng.standard_normal((5, 3))
    idx = np.array([0, 3, 3, 1, 0])
    tg, w = _torch_grads(lambda a, s: torch.index_add(a, 0, _t(idx), s, alpha=2.0), x, src)
    jg = _jax_grads(lambda a, s: jt.index_add(a, 0, jt.asarray(idx), s, alpha=2.0), w, x, src)
    for a, b in zip(jg, tg):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    for acc in (True, False):
        u = np.array([2, 0, 1]) if not acc else np.array([2, 0, 2])
        v = rng.standard_normal((3, 3))
        tg, w = _torch_grads(lambda a, s, u=u, acc=acc: a.index_put((_t(u),), s, accumulate=acc),
                             x, v)
        for use_jit in (False, True):
            jg = _jax_grads(lambda a, s, u=u, acc=acc: jt.index_put(a, (jt.asarray(u),), s, acc),
                            w, x, v, use_jit=use_jit)
            for a, b in zip(jg, tg):
                np.testing.assert_allclose(a, b, rtol=1e-12)
    iu = np.array([[2, 0, 1], [0, 1, 2]])
    s2 = rng.standard_normal((2, 3))
    tg, w = _torch_grads(lambda a, s: torch.scatter(a, 0, _t(iu), s), x, s2)
    jg = _jax_grads(lambda a, s: jt.scatter(a, 0, jt.asarray(iu), s), w, x, s2)
    for a, b in zip(jg, tg):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_overwritten_duplicate_gets_zero_gradient():
    x = jnp.zeros(3)
    src = jnp.asarray([1.0, 2.0])
    g = jax.grad(lambda s: jnp.sum(jnp.asarray(jt.scatter(x, 0, jnp.asarray([1, 1]), s))))(src)
    np.testing.assert_array_equal(np.asarray(g), [0.0, 1.0])


def test_finite_differences_and_jvp():
    from jax.test_util import check_grads

    rng = np.random.default_rng(12)
    x = jnp.asarray(rng.standard_normal((3, 4)))
    src = jnp.asarray(rng.standard_normal((3, 4)) + 3)
    idx = jnp.asarray([[0, 1, 2, 0], [0, 0, 1, 1], [2, 2, 2, 2]])
    fns = [
        lambda a, s: jt.scatter_reduce(a, 0, idx, s, "prod").to_jax(),
        lambda a, s: jt.scatter_reduce(a, 0, idx, s, "mean", include_self=False).to_jax(),
        lambda a, s: jt.gather_nd(a, idx[:2].T[:, :2] % 3).to_jax().sum() * s,
        lambda a, s: jt.index_add(a, 1, jnp.asarray([0, 0, 3, 1]), s).to_jax(),
    ]
    for f in fns:
        check_grads(jax.jit(f), (x, src), order=1, modes=["fwd", "rev"], atol=1e-6, rtol=1e-6)


def test_under_jaxtensor_jit_inplace_and_checked_bounds():
    x = jt.zeros((4, 3))

    @jt.jit
    def f(x, idx, src):
        x.index_add_(0, idx, src)
        x.scatter_(1, jt.zeros((4, 1), dtype=jt.int64), 9.0)

    f(x, jt.asarray([1, 1]), jt.ones((2, 3)))
    np.testing.assert_array_equal(np.asarray(x), [[9, 0, 0], [9, 2, 2], [9, 0, 0], [9, 0, 0]])
    with pytest.raises(IndexError, match="out of bounds"):
        jt.jit(lambda t, i: jt.gather(t, 0, i))(x, jt.asarray([[7, 0, 0]]))
