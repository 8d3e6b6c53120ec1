"""Gradients through getitem, setitem, views and in-place operators.

Oracles: PyTorch autograd (same program written with torch tensors) and central finite
differences of the eager jaxtensor function, all in float64.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

import jaxtensor as jt
from optional_deps import require

torch = require("torch", "torch")  # the PyTorch oracle

RNG = np.random.default_rng(0)


def _fd(f, args, wrt, eps=1e-6):
    """Central differences of ``f`` (NumPy arrays in, float out) w.r.t. argument ``wrt``."""
    x = args[wrt]
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[i] += eps
        lo[i] -= eps
        a_hi = list(args)
        a_lo = list(args)
        a_hi[wrt], a_lo[wrt] = hi, lo
        g[i] = (f(*a_hi) - f(*a_lo)) / (2 * eps)
    return g


def _eager_value(fn):
    def f(*arrays):
        return float(fn(*[jt.asarray(a) for a in arrays]))

    return f


def _torch_grad(fn, args, wrt):
    ts = [torch.tensor(a, requires_grad=(i in wrt)) for i, a in enumerate(args)]
    fn(*ts).backward()
    return [ts[i].grad.numpy() for i in wrt]


def _jt_grad(fn, args, wrt, jit=False):
    f = jt.jit(fn) if jit else fn
    gs = jt.grad(f, argnums=tuple(wrt))(*[jt.asarray(a) for a in args])
    for g in gs:
        assert isinstance(g, jt.Tensor)
    return [np.asarray(g) for g in gs]


def _check(fn_jt, fn_torch, args, wrt, fd=True):
    """Gradients eagerly and under jaxtensor.jit == torch autograd == finite differences."""
    want_t = _torch_grad(fn_torch, args, wrt) if fn_torch is not None else None
    want_fd = [_fd(_eager_value(fn_jt), args, i) for i in wrt] if fd else None
    for jit in (False, True):
        got = _jt_grad(fn_jt, args, wrt, jit=jit)
        if want_t is not None:
            for g, want in zip(got, want_t):
                np.testing.assert_allclose(g, want, rtol=1e-10, atol=1e-12)
        if want_fd is not None:
            for g, want in zip(got, want_fd):
                np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-6)


def _x(*shape):
    return RNG.standard_normal(shape)


# -- getitem ---------------------------------------------------------------------------------
def test_grad_basic_getitem():
    def f(x, w):
        return jt.sum(x[1:3, ::2] ** 2) + jt.sum(x[-1, ::-1] * w) + x[0, 1] * 3.0

    def ft(x, w):
        return (x[1:3, ::2] ** 2).sum() + (x[-1].flip(0) * w).sum() + x[0, 1] * 3.0

    _check(f, ft, [_x(4, 5), _x(5)], [0, 1])


def test_grad_advanced_getitem_with_duplicates():
    idx = [0, 2, 2, 3]

    def f(x):
        return jt.sum(x[idx, 1:] ** 2) + jt.sum(x[:, [4, 4]])

    def ft(x):
        return (x[idx, 1:] ** 2).sum() + x[:, [4, 4]].sum()

    _check(f, ft, [_x(4, 5)], [0])


def test_grad_boolean_mask_getitem_eager_mask():
    mask = np.array([[True, False, True], [False, False, True]])

    def f(x):
        return jt.sum(x[mask] ** 3)

    def ft(x):
        return (x[torch.from_numpy(mask)] ** 3).sum()

    _check(f, ft, [_x(2, 3)], [0])


def test_grad_index_select():
    idx = np.array([2, 0, 2])

    def f(x):
        return jt.sum(jt.index_select(x, 1, jt.asarray(idx)) ** 2)

    def ft(x):
        return (torch.index_select(x, 1, torch.from_numpy(idx)) ** 2).sum()

    _check(f, ft, [_x(3, 4)], [0])


# -- setitem ---------------------------------------------------------------------------------
def test_grad_setitem_overwritten_region_gets_zero():
    c = _x(6)

    def f(x, v):
        y = x * 1.0
        y[1:3] = v * 2.0
        return jt.sum(y * y * jt.asarray(c))

    def ft(x, v):
        y = x.clone()
        y[1:3] = v * 2.0
        return (y * y * torch.from_numpy(c)).sum()

    _check(f, ft, [_x(6), _x(2)], [0, 1])
    gx, _ = _jt_grad(f, [_x(6), _x(2)], [0, 1])
    assert (gx[1:3] == 0).all()


def test_grad_setitem_duplicates_last_wins():
    c = _x(5)

    def f(x, v):
        y = x * 1.0
        y[[1, 1, 3, 1]] = v
        return jt.sum(y * jt.asarray(c))

    x, v = _x(5), _x(4)
    _check(f, None, [x, v], [0, 1])
    _, gv = _jt_grad(f, [x, v], [0, 1])
    np.testing.assert_allclose(gv, [0.0, 0.0, c[3], c[1]])


def test_grad_scatter_with_traced_index_under_jit():
    def f(x, v, i):
        y = x * 1.0
        y[i] = v
        return jt.sum(y * y)

    x, v = _x(4), np.asarray(_x())
    for i in range(4):
        gx, gv = jt.grad(jt.jit(f), argnums=(0, 1))(jt.asarray(x), jt.asarray(v), i)
        want = 2 * x
        want[i] = 0.0
        np.testing.assert_allclose(np.asarray(gx), want)
        np.testing.assert_allclose(float(gv), 2 * v)


# -- views and in-place operators --------------------------------------------------------------
def test_grad_writes_through_views():
    def f(x, v):
        y = x * 1.0
        z = y.T
        z[0] += v
        w = y[::-1]
        w[1] *= 3.0
        r = jt.reshape(y, (-1,))
        r[::4] = r[1::4] * 2.0
        return jt.sum(y ** 2)

    def ft(x, v):
        y = x.clone()
        z = y.T
        z[0] += v
        w = y.flip(0)  # torch flip copies: write back explicitly
        w[1] *= 3.0
        y = w.flip(0)
        r = y.reshape(-1).clone()
        r[::4] = r[1::4] * 2.0
        return (r ** 2).sum()

    _check(f, ft, [_x(4, 3), _x(4)], [0, 1])


def test_grad_inplace_operators():
    def f(x):
        y = x * 1.0
        y *= x
        y[1:] += y[:-1]
        y -= 1.0
        y[::2] /= 2.0
        return jt.sum(y ** 2)

    def ft(x):
        y = x.clone()
        y *= x
        y[1:] += y[:-1].clone()
        y -= 1.0
        y[::2] /= 2.0
        return (y ** 2).sum()

    _check(f, ft, [_x(7)], [0])


def test_grad_mutating_jitted_function_with_loop():
    def f(x):
        y = x * 1.0
        for i in range(1, y.shape[0]):
            y[i] = y[i] * y[i - 1]
        return jt.sum(y)

    def ft(x):
        ys = [x[0]]
        for i in range(1, x.shape[0]):
            ys.append(x[i] * ys[-1])
        return torch.stack(ys).sum()

    _check(f, ft, [_x(5) + 1.5], [0])


# -- the other transforms ---------------------------------------------------------------------
def test_value_and_grad_has_aux():
    def f(x):
        y = x * 1.0
        y[0] = 0.0
        return jt.sum(y * y), {"first": y[1]}

    (val, aux), g = jt.value_and_grad(f, has_aux=True)(jt.asarray([1.0, 2.0, 3.0]))
    assert isinstance(val, jt.Tensor) and float(val) == 13.0
    assert float(aux["first"]) == 2.0
    assert np.asarray(g).tolist() == [0.0, 4.0, 6.0]
    g2, aux2 = jt.grad(f, has_aux=True)(jt.asarray([1.0, 2.0, 3.0]))
    assert np.asarray(g2).tolist() == [0.0, 4.0, 6.0] and float(aux2["first"]) == 2.0


def test_plain_jax_grad_on_tensors():
    def f(x):
        y = x * 1.0
        y[1] = 0.0
        return jt.sum(y ** 2).to_jax()  # jax.grad needs a JAX scalar output

    g = jax.grad(f)(jt.asarray([1.0, 2.0, 3.0]))
    assert isinstance(g, jt.Tensor)
    assert np.asarray(g).tolist() == [2.0, 0.0, 6.0]
    with pytest.raises((TypeError, ValueError)):  # JAX refuses pytree (Tensor) outputs: use jt.grad
        jax.grad(lambda x: jt.sum(x))(jt.ones(2))


def test_vjp_and_jvp_match_torch():
    x, ct = _x(3, 4), _x(2, 4)

    def f(x):
        y = x * 1.0
        y[1] *= 2.0
        return y[::2] * y[1:]

    out, back = jt.vjp(f, jt.asarray(x))
    assert isinstance(out, jt.Tensor) and out.shape == (2, 4)
    (gx,) = back(jt.asarray(ct))
    (gx2,) = back(ct)  # a NumPy cotangent works too

    xt = torch.tensor(x, requires_grad=True)
    yt = xt.clone()
    yt[1] *= 2.0
    (yt[::2] * yt[1:]).backward(torch.tensor(ct))
    np.testing.assert_allclose(np.asarray(gx), xt.grad.numpy())
    np.testing.assert_allclose(np.asarray(gx2), xt.grad.numpy())

    t = _x(3, 4)
    y, ty = jt.jvp(f, (jt.asarray(x),), (t,))
    _, ty_t = torch.func.jvp(
        lambda a: (lambda b: (b[::2] * b[1:]))(torch.cat([a[:1], a[1:2] * 2.0, a[2:]])),
        (torch.tensor(x),), (torch.tensor(t),))
    assert isinstance(ty, jt.Tensor)
    np.testing.assert_allclose(np.asarray(ty), ty_t.numpy())


def test_vmap_of_grad_per_example():
    xs = _x(5, 3)

    def loss(x):
        y = x * 1.0
        y[0] = y[0] * y[2]
        return jt.sum(y ** 2)

    gs = jt.vmap(jt.grad(loss))(jt.asarray(xs))
    assert isinstance(gs, jt.Tensor) and gs.shape == (5, 3)
    for row, g in zip(xs, np.asarray(gs)):
        np.testing.assert_allclose(g, _fd(_eager_value(loss), [row], 0), rtol=1e-5)


# -- the gather/scatter family -----------------------------------------------------------------
def test_grad_gather_scatter_index_put_index_add():
    gi = np.array([[0, 2, 2], [1, 0, 3]])
    si = np.array([[3, 0], [1, 2]])
    rows = np.array([0, 2, 0])
    ai = np.array([1, 1])

    def f(x, src, vals, add):
        y = jt.gather(x, 1, jt.asarray(gi))
        z = x * 1.0
        z.scatter_(1, jt.asarray(si), src)  # overwritten elements: no gradient to x
        z.index_put_((jt.asarray(rows),), vals, accumulate=True)
        z.index_add_(0, jt.asarray(ai), add)
        return jt.sum(y ** 2) + jt.sum(z * z)

    def ft(x, src, vals, add):
        y = torch.gather(x, 1, torch.from_numpy(gi))
        z = x.clone()
        z = z.scatter(1, torch.from_numpy(si), src)
        z = z.index_put((torch.from_numpy(rows),), vals, accumulate=True)
        z = z.index_add(0, torch.from_numpy(ai), add)
        return (y ** 2).sum() + (z * z).sum()

    _check(f, ft, [_x(3, 4), _x(2, 2), _x(3, 4), _x(2, 4)], [0, 1, 2, 3])


def _loop_programs() -> dict:
    def while_body(x):
        y = x * 1.0

        def cond(s):
            return s[0] < 3

        def body(s):
            s[0] += 1
            y[1] *= y[0]
            return s

        jt.while_loop(cond, body, jt.zeros(1))
        return y.sum()

    def fori_traced_bounds(x, n):
        y = x * 1.0

        def body(i):
            y[i] = y[i] * y[i] + 1.0

        jt.fori_loop(0, n, body)
        return y.sum()

    return {"while": (while_body, ()), "fori_traced": (fori_traced_bounds, (jt.asarray(2),))}


@pytest.mark.parametrize("name", ["while", "fori_traced"])
@pytest.mark.parametrize("how", ["grad", "value_and_grad", "vjp", "jit_grad"])
def test_reverse_mode_through_a_while_loop_names_the_function_and_what_works(name, how):
    fn, extra = _loop_programs()[name]
    x = jt.asarray([1.5, 2.0, 3.0])
    before = x.tolist()
    with pytest.raises(ValueError, match=r"reverse-mode differentiation cannot go through "
                       r"jaxtensor.while_loop.*jaxtensor.jvp") as info:
        if how == "grad":
            jt.grad(fn)(x, *extra) if name == "while" else jt.jit(jt.grad(fn))(x, *extra)
        elif how == "value_and_grad":
            jt.jit(jt.value_and_grad(fn))(x, *extra)
        elif how == "vjp":
            jt.jit(lambda a, *e: jt.vjp(lambda b: fn(b, *e), a)[1](jt.asarray(1.0)))(x, *extra)
        else:
            jt.jit(jt.grad(fn))(x, *extra)
    assert ("jaxtensor.vjp(" if how == "vjp" else fn.__name__) in str(info.value)
    assert x.tolist() == before
    # forward mode works and agrees with central differences
    e = np.zeros(3)
    e[1] = 1.0
    _, t = jt.jit(lambda a, v, *r: jt.jvp(lambda b: fn(b, *r), (a,), (v,)))(
        x, jt.asarray(e), *extra)
    h = 1e-6
    fd = (float(fn(jt.asarray(np.asarray(before) + h * e), *extra))
          - float(fn(jt.asarray(np.asarray(before) - h * e), *extra))) / (2 * h)
    assert abs(float(t) - fd) < 1e-4 * max(1.0, abs(fd))
