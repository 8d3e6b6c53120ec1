"""Bounds checks of Tensor code under ``jt.grad``/``vjp``/``jvp``/``vmap`` (and composed with
``jaxtensor.jit`` both ways): a ``jaxtensor.jit`` function or a loop called inside a transform
checks its indices, so an index out of bounds raises the eager ``IndexError`` (not a clamped
write or read); in bounds the derivatives are those of a hand-written JAX program."""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxtensor as jt

N = 4  # the size of every written / read Tensor


@jt.jit
def _put(h: jt.Tensor, w: jt.Tensor, i: int, k: int) -> None:
    h[i + k] = w[0] * (i + 1) + w[1]


# Each program: (jaxtensor version, hand-written JAX version) of a function of w (2 floats)
# and an offset k; out of bounds for k = 2 (the index i + k reaches 4 on 4 elements).
def _fori(w: jt.Tensor, k: int) -> jt.Tensor:
    h = jt.zeros(N)

    def body(i: int) -> None:
        h[i + k] = w[0] * (i + 1) + w[1]

    jt.fori_loop(0, 3, body)
    return (h * h).sum()


def _fori_jax(w: jax.Array, k: int) -> jax.Array:
    h = jnp.zeros(N)
    for i in range(3):
        h = h.at[i + k].set(w[0] * (i + 1) + w[1])
    return (h * h).sum()


def _nested(w: jt.Tensor, k: int) -> jt.Tensor:
    h = jt.zeros(N)

    def outer(i: int) -> None:
        def inner(j: int) -> None:
            h[i + j + k] += w[0] * w[1] + j
        jt.fori_loop(0, 2, inner)

    jt.fori_loop(0, 2, outer)
    return (h * h).sum()


def _nested_jax(w: jax.Array, k: int) -> jax.Array:
    h = jnp.zeros(N)
    for i in range(2):
        for j in range(2):
            h = h.at[i + j + k].add(w[0] * w[1] + j)
    return (h * h).sum()


def _helper(w: jt.Tensor, k: int) -> jt.Tensor:
    h = jt.zeros(N)
    jt.fori_loop(0, 3, lambda i: _put(h, w, i, k))
    return (h * h).sum()


def _read(w: jt.Tensor, k: int) -> jt.Tensor:
    x = jt.zeros(N)
    x[:2] = w
    h = jt.zeros(N)

    def body(i: int) -> None:
        h[i] = x[i + k] * w[0]

    jt.fori_loop(0, 3, body)
    return (h * h).sum()


def _read_jax(w: jax.Array, k: int) -> jax.Array:
    x = jnp.zeros(N).at[:2].set(w)
    h = jnp.zeros(N)
    for i in range(3):
        h = h.at[i].set(x[i + k] * w[0])
    return (h * h).sum()


def _window(w: jt.Tensor, k: int) -> jt.Tensor:
    h = jt.zeros(N)

    def body(i: int) -> None:
        h[jt.ds(i + k, 2)] += w * (i + 1)

    jt.fori_loop(0, 2, body)
    return (h * h).sum()


def _window_jax(w: jax.Array, k: int) -> jax.Array:
    h = jnp.zeros(N)
    for i in range(2):
        h = h.at[i + k:i + k + 2].add(w * (i + 1))
    return (h * h).sum()


def _while(w: jt.Tensor, k: int) -> jt.Tensor:
    h = jt.zeros(N)
    c = jt.zeros(1, dtype=jt.int32)

    def body() -> None:
        h[c[0] + k] = w[0] * (c[0] + 1) + w[1]
        c[0] += 1

    jt.while_loop(lambda: c[0] < 3, body)
    return (h * h).sum()


def _arg_write(w: jt.Tensor, k: int) -> jt.Tensor:
    w[0] = w[0] * 2  # (on the transform's copy of the argument)
    w[1:] *= 3.0
    return _fori(w, k)


def _arg_write_jax(w: jax.Array, k: int) -> jax.Array:
    return _fori_jax(jnp.stack([w[0] * 2, w[1] * 3]), k)


PROGRAMS = {
    "fori": (_fori, _fori_jax),
    "nested": (_nested, _nested_jax),
    "jit_helper": (_helper, _fori_jax),
    "read": (_read, _read_jax),
    "window": (_window, _window_jax),
    "while": (_while, _fori_jax),
    "arg_write": (_arg_write, _arg_write_jax),
}
# (reverse-mode differentiation of a while_loop is JAX's error: forward mode and vmap only)
REVERSE = ["fori", "nested", "jit_helper", "read", "window", "arg_write"]

W = np.array([1.5, -0.5], np.float32)
T = np.array([0.25, 2.0], np.float32)


def _jt_grad(f: Callable, w: np.ndarray) -> np.ndarray:
    return np.asarray(jt.grad(f)(jt.asarray(w)))


def _jt_vjp(f: Callable, w: np.ndarray) -> np.ndarray:
    out, back = jt.vjp(f, jt.asarray(w))
    return np.asarray(back(jnp.ones((), out.dtype))[0])  # (a cotangent of the output's dtype)


def _jit_grad(f: Callable, w: np.ndarray) -> np.ndarray:
    return np.asarray(jt.jit(jt.grad(f))(jt.asarray(w)))


def _grad_jit(f: Callable, w: np.ndarray) -> np.ndarray:
    return np.asarray(jt.grad(jt.jit(f))(jt.asarray(w)))


REVERSE_TRANSFORMS = {"grad": _jt_grad, "vjp": _jt_vjp, "jit_grad": _jit_grad,
                      "grad_jit": _grad_jit}


def _eager_error(f: Callable, k: int) -> str:
    """The eager program's IndexError message (no transform)."""
    with pytest.raises(IndexError) as e:
        f(jt.asarray(W), k)
    return str(e.value)


# every program under grad; the composed and vjp forms on a loop and a jaxtensor.jit helper
# (not jit_grad on the helper: after the eager program's failed call, the helper called in a
# loop inside jaxtensor.jit skips its check with or without grad, a defect of its own)
REVERSE_CASES = ([(name, "grad") for name in REVERSE]
                 + [("fori", how) for how in ("vjp", "jit_grad", "grad_jit")]
                 + [("jit_helper", how) for how in ("vjp", "grad_jit")])


@pytest.mark.parametrize(("name", "how"), REVERSE_CASES)
def test_reverse_mode(name: str, how: str) -> None:
    f, oracle = PROGRAMS[name]
    run = REVERSE_TRANSFORMS[how]
    # (the eager program first: see the report on a jaxtensor.jit helper in an eager loop)
    msg = _eager_error(f, 2)
    with pytest.raises(IndexError) as e:
        run(lambda w: f(w, 2), W)
    assert str(e.value) == msg
    got = run(lambda w: f(w, 1), W)  # in bounds: JAX's gradient of the hand-written program
    np.testing.assert_allclose(got, jax.grad(oracle)(jnp.asarray(W), 1), rtol=1e-6)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_jvp(name: str) -> None:
    f, oracle = PROGRAMS[name]
    msg = _eager_error(f, 2)
    with pytest.raises(IndexError) as e:
        jt.jvp(lambda w: f(w, 2), (jt.asarray(W),), (jt.asarray(T),))
    assert str(e.value) == msg
    y, t = jt.jvp(lambda w: f(w, 1), (jt.asarray(W),), (jt.asarray(T),))
    y0, t0 = jax.jvp(lambda w: oracle(w, 1), (jnp.asarray(W),), (jnp.asarray(T),))
    np.testing.assert_allclose([float(y), float(t)], [y0, t0], rtol=1e-6)


@pytest.mark.parametrize("name", ["fori", "jit_helper", "while"])
def test_vmap(name: str) -> None:
    f, oracle = PROGRAMS[name]
    ws = np.stack([W, T])
    msg = _eager_error(f, 2)
    with pytest.raises(IndexError) as e:
        jt.vmap(lambda w: f(w, 2))(jt.asarray(ws))
    assert str(e.value) == msg
    got = jt.vmap(lambda w: f(w, 1))(jt.asarray(ws))
    np.testing.assert_allclose(np.asarray(got), jax.vmap(lambda w: oracle(w, 1))(ws),
                               rtol=1e-6)


def _closed_program(h: jt.Tensor, k: int) -> Callable:
    """A loss writing the Tensor ``h`` it closes over: directly (a value of w) before and
    after a loop whose writes reach ``i + k``."""

    def loss(w: jt.Tensor) -> jt.Tensor:
        h[0] = w[0] * 3
        jt.fori_loop(0, 3, lambda i: h.__setitem__(i + k, w[1] * i))
        h[1] = 7.0
        return (w * w).sum()

    return loss


@pytest.mark.parametrize("how", ["grad", "vjp"])
@pytest.mark.parametrize("k", [1, 2])
def test_closed_over_writes_as_eager(how: str, k: int) -> None:
    # the closed-over Tensor holds what the eager program leaves (in bounds: every write;
    # out of bounds: the writes before the failing check), and the error is the eager one
    eager = jt.zeros(N + 1)[:N]
    try:
        _closed_program(eager, k)(jt.asarray(W))
        err = None
    except IndexError as e:
        err = str(e)
    h = jt.zeros(N + 1)[:N]  # (a view: the write-back goes through its base)
    run = REVERSE_TRANSFORMS[how]
    if err is None:
        np.testing.assert_allclose(run(_closed_program(h, k), W), 2 * W)
    else:
        with pytest.raises(IndexError) as e:
            run(_closed_program(h, k), W)
        assert str(e.value) == err
    assert h.tolist() == eager.tolist()
    assert (k == 2) == (err is not None)


# a transform inside another (the inner one reports its checks to the outer's checkify)
COMPOSED = {
    "grad_grad": (lambda f: jt.grad(lambda v: jt.grad(f)(v)[0]),
                  lambda f: jax.grad(lambda v: jax.grad(f)(v)[0])),
    "vmap_grad": (lambda f: lambda w: jt.vmap(jt.grad(f))(jt.stack([w, 2 * w])),
                  lambda f: lambda w: jax.vmap(jax.grad(f))(jnp.stack([w, 2 * w]))),
    "grad_vmap": (lambda f: jt.grad(lambda w: jt.vmap(f)(jt.stack([w, 2 * w])).sum()),
                  lambda f: jax.grad(lambda w: jax.vmap(f)(jnp.stack([w, 2 * w])).sum())),
}


@pytest.mark.parametrize("how", list(COMPOSED))
def test_composed(how: str) -> None:
    mine, theirs = COMPOSED[how]
    msg = _eager_error(_fori, 2)
    with pytest.raises(IndexError) as e:
        mine(lambda w: _fori(w, 2))(jt.asarray(W))
    assert str(e.value) == msg
    got = mine(lambda w: _fori(w, 1))(jt.asarray(W))
    want = theirs(lambda w: _fori_jax(w, 1))(jnp.asarray(W))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)


def _grad_programs() -> dict[str, Callable]:
    def index(w):  # a traced index read
        return jt.sum((w * w[jt.argmax(w)]) ** 2)

    def write(w):  # a traced index write
        y = w * 1.0
        y[jt.argmin(w)] = 0.0
        return jt.sum(y * y)

    def window(w):  # a ds() window at a traced start
        y = w * 1.0
        return jt.sum(y[jt.ds(jt.argmin(w), 2)] ** 2)

    def value(w):  # a traced value written into an int Tensor
        k = jt.zeros(2, dtype=jt.int32)
        k[0] = jt.argmax(w)
        return jt.sum(w * w) + jt.sum(k)

    return {"index": index, "write": write, "window": window, "value": value}


@pytest.mark.parametrize("name", ["index", "write", "window", "value"])
def test_eager_grad_with_checks_compiles_nothing_on_later_calls(name: str) -> None:
    """A check made under an eager ``jt.grad`` is made in a cached function: later calls
    find every compiled kernel again (a bare checkify check recompiled them all at every
    call, 0.1-0.8 s per call of a 3-element gradient)."""
    from measure import count_compiles

    fn = _grad_programs()[name]
    g = jt.grad(fn)
    w = np.asarray([1.0, 3.0, 2.0])
    want = np.asarray(jax.grad(lambda a: _jnp_value(name, a))(jnp.asarray(w)))
    for _ in range(2):
        np.testing.assert_allclose(np.asarray(g(jt.asarray(w))), want, rtol=1e-12)
    x = jt.asarray(w)
    assert count_compiles(lambda: g(x)) == 0


def _jnp_value(name: str, a: jax.Array) -> jax.Array:
    if name == "index":
        return jnp.sum((a * a[jnp.argmax(a)]) ** 2)
    if name == "write":
        return jnp.sum(a.at[jnp.argmin(a)].set(0.0) ** 2)
    if name == "window":
        return jnp.sum(jax.lax.dynamic_slice(a, (jnp.argmin(a),), (2,)) ** 2)
    return jnp.sum(a * a) + jnp.argmax(a)
