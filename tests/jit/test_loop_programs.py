"""Real NumPy-style programs ported to jaxtensor's loops with the fewest changes, each run
against NumPy running the same Python loop, eagerly and under ``jaxtensor.jit``.

Each program is written once against ``xp`` (NumPy or jaxtensor) and three helpers: ``loop``
(a Python ``for`` for NumPy, ``jt.fori_loop`` for jaxtensor), ``cond`` (``if``/``jt.cond``)
and ``ds`` (``slice(i, i + k)``/``jt.ds``). The changes from plain NumPy code are those:
a body function instead of a ``for`` statement, ``cond`` instead of ``if`` on a value,
``ds`` instead of a slice with a loop-dependent start.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxtensor as jt


def _np_loop(lo, hi, body):
    for i in range(lo, hi):
        body(i)


NP = SimpleNamespace(xp=np, loop=_np_loop, cond=lambda p, f, g: f() if p else g(),
                     ds=lambda i, k: slice(int(i), int(i) + k))
JT = SimpleNamespace(xp=jt, loop=jt.fori_loop, cond=jt.cond, ds=jt.ds)


# -- the programs (each mutates its arguments) ---------------------------------------------
def floyd_warshall(h, d):
    n = d.shape[0]

    def body(k):
        d[...] = h.xp.minimum(d, d[:, h.ds(k, 1)] + d[h.ds(k, 1), :])
    h.loop(0, n, body)


def lu_partial_pivoting(h, a, perm):
    xp, n = h.xp, a.shape[0]
    rows = xp.arange(n)

    def body(k):
        p = xp.argmax(xp.where(rows >= k, xp.abs(a[:, k]), -1.0))
        rk, rp = a[k], a[p]                    # row swap through views
        tmp = rk * 1.0
        rk[...] = rp
        rp[...] = tmp
        t = perm[k] * 1
        perm[k] = perm[p]
        perm[p] = t
        f = xp.where(rows > k, a[:, k] / a[k, k], 0.0)
        a[...] -= f[:, None] * xp.where(rows >= k, a[k], 0.0)[None, :]  # (L kept left of k)
        a[:, k] = xp.where(rows > k, f, a[:, k])
    h.loop(0, n - 1, body)


def gauss_seidel(h, a, b, x):
    n = a.shape[0]

    def sweep(s):
        def row(i):
            x[i] = (b[i] - h.xp.sum(a[i] * x) + a[i, i] * x[i]) / a[i, i]
        h.loop(0, n, row)
    h.loop(0, 6, sweep)


def edit_distance(h, s, t, d):
    m, n = s.shape[0], t.shape[0]

    def row(i):
        def cell(j):
            cost = h.xp.where(s[i - 1] == t[j - 1], 0, 1)
            d[i, j] = h.xp.minimum(h.xp.minimum(d[i - 1, j] + 1, d[i, j - 1] + 1),
                                   d[i - 1, j - 1] + cost)
        h.loop(1, n + 1, cell)
    h.loop(1, m + 1, row)


def sieve(h, is_p):
    n = is_p.shape[0]
    idx = h.xp.arange(n)
    is_p[0] = False
    is_p[1] = False

    def body(i):
        def mark():
            is_p[(idx >= i * i) & (idx % i == 0)] = False
        h.cond(is_p[i], mark, lambda: None)
    h.loop(2, int(n ** 0.5) + 1, body)


def game_of_life(h, g):
    xp = h.xp

    def step(s):
        nb = sum(xp.roll(xp.roll(g, dy, axis=0), dx, axis=1)
                 for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx)
        g[...] = xp.where((nb == 3) | ((g == 1) & (nb == 2)), 1, 0)
    h.loop(0, 4, step)


def histogram(h, data, w, hist):
    def body(i):
        hist[data[i]] += w[i]
    h.loop(0, data.shape[0], body)


def kmeans(h, x, c):
    xp, k = h.xp, c.shape[0]

    def it(s):
        dist = xp.sum((x[:, None, :] - c[None, :, :]) ** 2, axis=-1)
        lab = xp.argmin(dist, axis=1)
        for j in range(k):
            m = xp.astype(lab == j, x.dtype)
            cnt = xp.sum(m)
            c[j] = xp.where(cnt > 0, xp.sum(x * m[:, None], axis=0) / xp.maximum(cnt, 1.0),
                            c[j])
    h.loop(0, 3, it)


# -- inputs --------------------------------------------------------------------------------
def _inputs(name: str, rng: np.random.Generator) -> tuple:
    f32 = np.float32
    if name == "floyd_warshall":
        d = rng.integers(1, 20, (6, 6)).astype(f32)
        d[rng.random((6, 6)) < 0.4] = np.inf
        np.fill_diagonal(d, 0)
        return (d,)
    if name == "lu_partial_pivoting":
        return rng.standard_normal((5, 5)).astype(f32), np.arange(5, dtype=np.int32)
    if name == "gauss_seidel":
        a = rng.standard_normal((5, 5)).astype(f32)
        a += np.diag(np.abs(a).sum(1) + 1).astype(f32)  # diagonally dominant: converges
        return a, rng.standard_normal(5).astype(f32), np.zeros(5, f32)
    if name == "edit_distance":
        s, t = rng.integers(0, 3, 5).astype(np.int32), rng.integers(0, 3, 4).astype(np.int32)
        d = np.zeros((6, 5), np.int32)
        d[:, 0] = np.arange(6)
        d[0, :] = np.arange(5)
        return s, t, d
    if name == "sieve":
        return (np.ones(30, bool),)
    if name == "game_of_life":
        return (rng.integers(0, 2, (6, 6)).astype(np.int32),)
    if name == "histogram":
        return (rng.integers(0, 4, 12).astype(np.int32), rng.random(12).astype(f32),
                np.zeros(4, f32))
    x = rng.standard_normal((10, 2)).astype(f32)
    return x, x[:3].copy()


PROGRAMS: dict[str, Callable] = {f.__name__: f for f in (
    floyd_warshall, lu_partial_pivoting, gauss_seidel, edit_distance, sieve, game_of_life,
    histogram, kmeans)}
_JITTED = {name: jt.jit(lambda *a, _f=f: _f(JT, *a)) for name, f in PROGRAMS.items()}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@settings(deadline=None, max_examples=2)
@given(seed=st.integers(0, 2**32 - 1))
def test_program_matches_numpy_eager_and_jit(name, seed):
    arrays = _inputs(name, np.random.default_rng(seed))
    want = [a.copy() for a in arrays]
    PROGRAMS[name](NP, *want)
    for run in (lambda *a: PROGRAMS[name](JT, *a), _JITTED[name]):
        ts = [jt.asarray(a.copy()) for a in arrays]
        run(*ts)
        for t, w in zip(ts, want):
            np.testing.assert_allclose(np.asarray(t), w, rtol=2e-5, atol=1e-5)


def test_lu_factors_reconstruct_the_matrix():
    rng = np.random.default_rng(0)
    a0 = rng.standard_normal((5, 5)).astype(np.float32)
    a, perm = jt.asarray(a0.copy()), jt.arange(5, dtype=jt.int32)
    lu_partial_pivoting(JT, a, perm)
    lu = np.asarray(a)
    low = np.tril(lu, -1) + np.eye(5, dtype=np.float32)
    np.testing.assert_allclose(low @ np.triu(lu), a0[np.asarray(perm)], rtol=1e-4,
                               atol=1e-5)


# -- gradients, where they mean something ---------------------------------------------------
# Each loss runs a program on copies of its inputs and reduces what it wrote; its gradient
# through jaxtensor's loops (reverse mode: the bounds are Python ints) is checked against
# central differences of the same program run by NumPy, in float64.
def _gs_loss(h, b, a):
    x = h.xp.zeros(b.shape[0], dtype=b.dtype)
    gauss_seidel(h, a, b * 1.0, x)
    return h.xp.sum(x * x)


def _hist_loss(h, w, data):
    hist = h.xp.zeros(4, dtype=w.dtype)
    histogram(h, data, w, hist)
    return h.xp.sum(hist * hist)


def _kmeans_loss(h, x):
    c = x[:3] * 1.0
    kmeans(h, x * 1.0, c)
    return h.xp.sum(c * c)


def _fw_loss(h, d):
    d = d * 1.0
    floyd_warshall(h, d)
    return h.xp.sum(d * d)


def _grad_case(name: str, rng: np.random.Generator) -> tuple[Callable, np.ndarray, tuple]:
    f64 = np.float64
    if name == "gauss_seidel":
        a = rng.standard_normal((5, 5))
        a += np.diag(np.abs(a).sum(1) + 1)
        return _gs_loss, rng.standard_normal(5), (a,)
    if name == "histogram":
        return _hist_loss, rng.random(12), (rng.integers(0, 4, 12).astype(np.int32),)
    if name == "kmeans":
        return _kmeans_loss, rng.standard_normal((10, 2)).astype(f64), ()
    d = rng.uniform(1.0, 20.0, (5, 5))
    np.fill_diagonal(d, 0.0)
    return _fw_loss, d, ()


@pytest.mark.parametrize("name", ["gauss_seidel", "histogram", "kmeans", "floyd_warshall"])
@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "jit"])
def test_program_gradient_matches_numpy_differences(name: str, compiled: bool) -> None:
    loss, x0, extra = _grad_case(name, np.random.default_rng(7))

    def f(x):
        return loss(JT, x, *[jt.asarray(e) for e in extra])

    got = np.asarray(jt.grad(jt.jit(f) if compiled else f)(jt.asarray(x0)))
    want = np.zeros_like(x0)
    eps = 1e-6
    for k in np.ndindex(x0.shape):
        hi, lo = x0.copy(), x0.copy()
        hi[k] += eps
        lo[k] -= eps
        want[k] = (loss(NP, hi, *extra) - loss(NP, lo, *extra)) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
