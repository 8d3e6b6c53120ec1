"""Real loop programs, each in three versions: the NumPy original (Python loops over NumPy
arrays, as found in public code), the idiomatic jaxtensor port (``jt.fori_loop``,
``jt.while_loop``, ``jt.cond``, ``jt.ds`` as ``docs/loops.md`` teaches, called at the top
level with the default checks, helper functions and closures made per call) and a
hand-written ``jax.jit`` + ``lax`` version of the same algorithm (buffers donated where the
program updates an array in place).

Used by ``tests/jit/test_loop_ports.py`` (each port against its NumPy original) and by
``benchmarks/bench_loop_programs.py`` (issue 28's benchmark suite); this is the one copy.

Every program takes its inputs as :class:`Program.make_inputs` draws them (NumPy arrays and
Python numbers) and returns its result; ``Program.args`` converts the arrays for a version
(``jt.asarray`` / ``jnp.asarray`` copies, so a program that writes into its input never
touches the NumPy arrays).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import jaxtensor as jt

_NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1))


# -- 1. dynamic programming: the longest-common-subsequence table --------------------------
def lcs_numpy(a, b):
    m, n = len(a), len(b)
    L = np.zeros((m + 1, n + 1), np.int32)
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            if a[i - 1] == b[j - 1]:
                L[i, j] = L[i - 1, j - 1] + 1
            else:
                L[i, j] = max(L[i - 1, j], L[i, j - 1])
    return L


def lcs_port(a, b):
    m, n = a.shape[0], b.shape[0]
    L = jt.zeros((m + 1, n + 1), dtype=jt.int32)

    def row(i):
        def cell(j):
            def match():
                L[i, j] = L[i - 1, j - 1] + 1

            def differ():
                L[i, j] = jt.maximum(L[i - 1, j], L[i, j - 1])
            jt.cond(a[i - 1] == b[j - 1], match, differ)
        jt.fori_loop(1, n + 1, cell)
    jt.fori_loop(1, m + 1, row)
    return L


@jax.jit
def lcs_lax(a, b):
    m, n = a.shape[0], b.shape[0]

    def row(i, L):
        def cell(j, L):
            v = lax.cond(a[i - 1] == b[j - 1], lambda: L[i - 1, j - 1] + 1,
                         lambda: jnp.maximum(L[i - 1, j], L[i, j - 1]))
            return L.at[i, j].set(v)
        return lax.fori_loop(1, n + 1, cell, L)
    return lax.fori_loop(1, m + 1, row, jnp.zeros((m + 1, n + 1), jnp.int32))


def _lcs_inputs(rng, n):
    return (rng.integers(0, 4, n).astype(np.int32),
            rng.integers(0, 4, n + n // 3).astype(np.int32))


# -- 2. triangular factorisation: Cholesky by loops -----------------------------------------
def cholesky_numpy(A):
    n = A.shape[0]
    L = np.zeros_like(A)
    for j in range(n):
        L[j, j] = np.sqrt(A[j, j] - np.dot(L[j, :j], L[j, :j]))
        for i in range(j + 1, n):
            L[i, j] = (A[i, j] - np.dot(L[i, :j], L[j, :j])) / L[j, j]
    return L


def cholesky_port(A):
    n = A.shape[0]
    L = jt.zeros_like(A)
    cols = jt.arange(n)

    def column(j):
        before = cols < j                      # the slice [:j], as a mask (j is traced)
        L[j, j] = jt.sqrt(A[j, j] - jt.sum(jt.where(before, L[j] * L[j], 0.0)))

        def row(i):
            L[i, j] = (A[i, j] - jt.sum(jt.where(before, L[i] * L[j], 0.0))) / L[j, j]
        jt.fori_loop(j + 1, n, row)
    jt.fori_loop(0, n, column)
    return L


@jax.jit
def cholesky_lax(A):
    n = A.shape[0]
    cols = jnp.arange(n)

    def column(j, L):
        before = cols < j
        L = L.at[j, j].set(jnp.sqrt(A[j, j] - jnp.sum(jnp.where(before, L[j] * L[j], 0.0))))

        def row(i, L):
            return L.at[i, j].set(
                (A[i, j] - jnp.sum(jnp.where(before, L[i] * L[j], 0.0))) / L[j, j])
        return lax.fori_loop(j + 1, n, row, L)
    return lax.fori_loop(0, n, column, jnp.zeros_like(A))


def _spd_inputs(rng, n):
    m = rng.standard_normal((n, n))
    return (m @ m.T + n * np.eye(n),)


# -- 3. tridiagonal solver (Thomas algorithm) -----------------------------------------------
def thomas_numpy(a, b, c, d):
    n = len(d)
    cp, dp, x = np.zeros(n), np.zeros(n), np.zeros(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def thomas_port(a, b, c, d):
    n = d.shape[0]
    cp, dp, x = jt.zeros(n, dtype=d.dtype), jt.zeros(n, dtype=d.dtype), jt.zeros(n, dtype=d.dtype)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]

    def forward(i):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    jt.fori_loop(1, n, forward)
    x[-1] = dp[-1]

    def backward(k):
        i = n - 2 - k                          # range(n - 2, -1, -1)
        x[i] = dp[i] - cp[i] * x[i + 1]
    jt.fori_loop(0, n - 1, backward)
    return x


@jax.jit
def thomas_lax(a, b, c, d):
    n = d.shape[0]
    cp = jnp.zeros_like(d).at[0].set(c[0] / b[0])
    dp = jnp.zeros_like(d).at[0].set(d[0] / b[0])

    def forward(i, s):
        cp, dp = s
        m = b[i] - a[i] * cp[i - 1]
        return cp.at[i].set(c[i] / m), dp.at[i].set((d[i] - a[i] * dp[i - 1]) / m)
    cp, dp = lax.fori_loop(1, n, forward, (cp, dp))

    def backward(k, x):
        i = n - 2 - k
        return x.at[i].set(dp[i] - cp[i] * x[i + 1])
    return lax.fori_loop(0, n - 1, backward, jnp.zeros_like(d).at[-1].set(dp[-1]))


def _thomas_inputs(rng, n):
    a, c = rng.standard_normal(n), rng.standard_normal(n)
    return a, np.abs(a) + np.abs(c) + 1.0 + rng.random(n), c, rng.standard_normal(n)


# -- 4. 2-D diffusion: explicit stencil steps -----------------------------------------------
def diffusion_numpy(u, alpha, steps):
    for _ in range(steps):
        u[1:-1, 1:-1] += alpha * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                                  - 4 * u[1:-1, 1:-1])
    return u


def diffusion_port(u, alpha, steps):
    def step(k):
        u[1:-1, 1:-1] += alpha * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                                  - 4 * u[1:-1, 1:-1])
    jt.fori_loop(0, steps, step)
    return u


@partial(jax.jit, donate_argnums=0)
def diffusion_lax(u, alpha, steps):
    def step(k, u):
        inner = u[1:-1, 1:-1]
        return u.at[1:-1, 1:-1].set(inner + alpha * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:]
                                                     + u[1:-1, :-2] - 4 * inner))
    return lax.fori_loop(0, steps, step, u)


def _diffusion_inputs(rng, n):
    return rng.random((n, n)).astype(np.float32), float(rng.uniform(0.1, 0.2)), 2 * n


# -- 5. insertion sort ----------------------------------------------------------------------
def insertion_sort_numpy(a):
    for i in range(1, len(a)):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a


def insertion_sort_port(a):
    def insert(i):
        key = a[i]

        def shift(j):
            a[j + 1] = a[j]
            return j - 1
        j = jt.while_loop(lambda j: (j >= 0) & (a[j] > key), shift, i - 1)
        a[j + 1] = key
    jt.fori_loop(1, a.shape[0], insert)
    return a


@partial(jax.jit, donate_argnums=0)
def insertion_sort_lax(a):
    def insert(i, a):
        key = a[i]

        def shift(s):
            j, a = s
            return j - 1, a.at[j + 1].set(a[j])
        j, a = lax.while_loop(lambda s: (s[0] >= 0) & (s[1][s[0]] > key), shift, (i - 1, a))
        return a.at[j + 1].set(key)
    return lax.fori_loop(1, a.shape[0], insert, a)


def _sort_inputs(rng, n):
    return (rng.standard_normal(n).astype(np.float32),)


# -- 6. union-find with path compression ----------------------------------------------------
def union_find_numpy(edges, n):
    parent = np.arange(n, dtype=np.int32)

    def find(x):
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            nxt = parent[x]
            parent[x] = root
            x = nxt
        return root

    for e in range(edges.shape[0]):
        ra, rb = find(edges[e, 0]), find(edges[e, 1])
        if ra != rb:
            parent[ra] = rb
    return parent


def union_find_port(edges, n):
    parent = jt.arange(n, dtype=jt.int32)

    def find(x):
        root = jt.while_loop(lambda r: parent[r] != r, lambda r: parent[r], x)

        def compress(x):
            nxt = parent[x]
            parent[x] = root
            return nxt
        jt.while_loop(lambda x: parent[x] != root, compress, x)
        return root

    def union(e):
        ra, rb = find(edges[e, 0]), find(edges[e, 1])

        def link():
            parent[ra] = rb
        jt.cond(ra != rb, link, lambda: None)
    jt.fori_loop(0, edges.shape[0], union)
    return parent


@partial(jax.jit, static_argnums=1)
def union_find_lax(edges, n):
    def find(parent, x):
        root = lax.while_loop(lambda r: parent[r] != r, lambda r: parent[r], x)

        def compress(s):
            x, parent = s
            return parent[x], parent.at[x].set(root)
        _, parent = lax.while_loop(lambda s: s[1][s[0]] != root, compress, (x, parent))
        return parent, root

    def union(e, parent):
        parent, ra = find(parent, edges[e, 0])
        parent, rb = find(parent, edges[e, 1])
        return lax.cond(ra != rb, lambda p: p.at[ra].set(rb), lambda p: p, parent)
    return lax.fori_loop(0, edges.shape[0], union, jnp.arange(n, dtype=jnp.int32))


def _union_find_inputs(rng, n):
    return rng.integers(0, n, (n, 2)).astype(np.int32), n


# -- 7. flood fill with an explicit stack ---------------------------------------------------
def flood_fill_numpy(img, sr, sc, new):
    h, w = img.shape
    old = img[sr, sc]
    if old == new:
        return img
    stack = np.zeros((4 * h * w + 1, 2), np.int32)
    stack[0] = sr, sc
    top = 1
    while top > 0:
        top -= 1
        r, c = stack[top]
        if img[r, c] == old:
            img[r, c] = new
            for dr, dc in _NEIGHBOURS:
                nr, nc = r + dr, c + dc
                if 0 <= nr < h and 0 <= nc < w and img[nr, nc] == old:
                    stack[top] = nr, nc
                    top += 1
    return img


def flood_fill_port(img, sr, sc, new):
    if img[sr, sc] == new:
        return img
    return flood_fill_loop(img, sr, sc, new)


def flood_fill_loop(img, sr, sc, new):
    """The port's loop: what ``jaxtensor.jit`` traces (the port's ``if`` reads a value)."""
    h, w = img.shape
    old = img[sr, sc]
    stack = jt.zeros((4 * h * w + 1, 2), dtype=jt.int32)
    stack[0] = jt.asarray([sr, sc])
    top = jt.ones((), dtype=jt.int32)

    def pop():
        top[...] -= 1
        r, c = stack[top]

        def fill():
            img[r, c] = new
            for dr, dc in _NEIGHBOURS:
                nr, nc = r + dr, c + dc
                inside = (nr >= 0) & (nr < h) & (nc >= 0) & (nc < w)

                def push(nr=nr, nc=nc):
                    stack[top] = jt.stack([nr, nc])
                    top[...] += 1

                def probe(nr=nr, nc=nc):
                    jt.cond(img[nr, nc] == old, push, lambda: None)
                jt.cond(inside, probe, lambda: None)
        jt.cond(img[r, c] == old, fill, lambda: None)
    jt.while_loop(lambda: top > 0, pop)
    return img


@partial(jax.jit, donate_argnums=0)
def flood_fill_lax(img, sr, sc, new):
    h, w = img.shape
    old = img[sr, sc]

    def fill(s):
        img, stack, top = s
        top = top - 1
        r, c = stack[top, 0], stack[top, 1]

        def paint(s):
            img, stack, top = s
            img = img.at[r, c].set(new)
            for dr, dc in _NEIGHBOURS:
                nr, nc = r + dr, c + dc
                inside = (nr >= 0) & (nr < h) & (nc >= 0) & (nc < w)
                push = inside & (img[jnp.clip(nr, 0, h - 1), jnp.clip(nc, 0, w - 1)] == old)
                stack, top = lax.cond(
                    push, lambda st, nr=nr, nc=nc: (st[0].at[st[1]].set(jnp.stack([nr, nc])),
                                                    st[1] + 1),
                    lambda st: st, (stack, top))
            return img, stack, top
        return lax.cond(img[r, c] == old, paint, lambda s: s, (img, stack, top))

    stack = jnp.zeros((4 * h * w + 1, 2), jnp.int32).at[0].set(jnp.stack([sr, sc]))
    s = (img, stack, jnp.ones((), jnp.int32))
    return lax.cond(old == new, lambda s: s[0],
                    lambda s: lax.while_loop(lambda s: s[2] > 0, fill, s)[0], s)


def _flood_inputs(rng, n):
    img = (rng.random((n, n)) < 0.6).astype(np.int32)
    r, c = (int(v) for v in rng.integers(0, n, 2))
    return img, r, c, 2


# -- 8. Ising model: Metropolis sweeps (random numbers passed in) ---------------------------
def ising_numpy(spins, beta, rand):
    L = spins.shape[0]
    for s in range(rand.shape[0]):
        for i in range(L):
            for j in range(L):
                nb = (spins[(i + 1) % L, j] + spins[i, (j + 1) % L] + spins[(i - 1) % L, j]
                      + spins[i, (j - 1) % L])
                dE = 2 * spins[i, j] * nb
                if dE <= 0 or rand[s, i, j] < np.exp(-dE * beta):
                    spins[i, j] = -spins[i, j]
    return spins


def ising_port(spins, beta, rand):
    L = spins.shape[0]

    def sweep(s):
        def row(i):
            def site(j):
                nb = (spins[(i + 1) % L, j] + spins[i, (j + 1) % L] + spins[(i - 1) % L, j]
                      + spins[i, (j - 1) % L])
                dE = 2 * spins[i, j] * nb

                def flip():
                    spins[i, j] = -spins[i, j]
                jt.cond((dE <= 0) | (rand[s, i, j] < jt.exp(-dE * beta)), flip, lambda: None)
            jt.fori_loop(0, L, site)
        jt.fori_loop(0, L, row)
    jt.fori_loop(0, rand.shape[0], sweep)
    return spins


@partial(jax.jit, donate_argnums=0)
def ising_lax(spins, beta, rand):
    L = spins.shape[0]

    def sweep(s, spins):
        def row(i, spins):
            def site(j, spins):
                nb = (spins[(i + 1) % L, j] + spins[i, (j + 1) % L] + spins[(i - 1) % L, j]
                      + spins[i, (j - 1) % L])
                dE = 2 * spins[i, j] * nb
                accept = (dE <= 0) | (rand[s, i, j] < jnp.exp(-dE * beta))
                return spins.at[i, j].set(jnp.where(accept, -spins[i, j], spins[i, j]))
            return lax.fori_loop(0, L, site, spins)
        return lax.fori_loop(0, L, row, spins)
    return lax.fori_loop(0, rand.shape[0], sweep, spins)


def _ising_inputs(rng, n):
    spins = np.where(rng.random((n, n)) < 0.5, -1, 1).astype(np.int32)
    return spins, float(rng.uniform(0.3, 0.6)), rng.random((3, n, n))


# -- 9. ODE: RK4 steps of Lotka-Volterra, differentiated w.r.t. its parameters ---------------
def rk4_numpy(theta, y0, dt, steps):
    a, b, c, d = theta

    def f(y):
        return np.array([a * y[0] - b * y[0] * y[1], c * y[0] * y[1] - d * y[1]])
    y = y0.copy()
    for _ in range(steps):
        k1 = f(y)
        k2 = f(y + dt / 2 * k1)
        k3 = f(y + dt / 2 * k2)
        k4 = f(y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


def rk4_port(theta, y0, dt, steps):
    a, b, c, d = theta

    def f(y):                                  # the right-hand side, made per call
        return jt.stack([a * y[0] - b * y[0] * y[1], c * y[0] * y[1] - d * y[1]])
    y = jt.asarray(y0, copy=True)

    def step(k):
        k1 = f(y)
        k2 = f(y + dt / 2 * k1)
        k3 = f(y + dt / 2 * k2)
        k4 = f(y + dt * k3)
        y[...] = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    jt.fori_loop(0, steps, step)
    return y


def rk4_loss_numpy(theta, y0, dt, steps):
    return float(np.sum(rk4_numpy(theta, y0, dt, steps) ** 2))


def rk4_loss_port(theta, y0, dt, steps):
    return jt.sum(rk4_port(theta, y0, dt, steps) ** 2)


def _rk4_lax_impl(theta, y0, dt, steps):
    a, b, c, d = theta

    def f(y):
        return jnp.stack([a * y[0] - b * y[0] * y[1], c * y[0] * y[1] - d * y[1]])

    def step(k, y):
        k1 = f(y)
        k2 = f(y + dt / 2 * k1)
        k3 = f(y + dt / 2 * k2)
        k4 = f(y + dt * k3)
        return y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return lax.fori_loop(0, steps, step, y0)


rk4_lax = jax.jit(_rk4_lax_impl, static_argnums=3)
rk4_loss_grad_lax = jax.jit(
    jax.grad(lambda theta, y0, dt, steps: jnp.sum(_rk4_lax_impl(theta, y0, dt, steps) ** 2)),
    static_argnums=3)


def _rk4_inputs(rng, n):
    theta = np.array([1.0, 0.4, 0.1, 0.8]) * rng.uniform(0.8, 1.2, 4)
    return theta, rng.uniform(1.0, 3.0, 2), float(rng.uniform(0.01, 0.02)), n


# -- the table ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Program:
    name: str
    numpy: Callable
    port: Callable
    lax: Callable
    make_inputs: Callable[[np.random.Generator, int], tuple]
    #: the size argument of ``make_inputs`` for the tests, the benchmark's --quick and its
    #: full run
    sizes: dict[str, int]
    #: one flat loop (the issue's ≤ 1.2x steady target) rather than nested loops
    flat: bool = False
    #: ``assert_allclose`` tolerances (``None``: exact)
    tol: dict | None = field(default=None)
    #: positions of the arguments that fix shapes or trip counts (static under a jit)
    static: tuple[int, ...] = ()
    #: what ``jaxtensor.jit`` traces of the port (None: the port), where the port's top
    #: level is Python control flow on a value (the flood fill's ``if``)
    traced: Callable | None = None

    def args(self, inputs: tuple, to: Callable) -> tuple:
        """``inputs`` with every array passed through ``to`` (a copy), numbers as they are."""
        return tuple(to(np.array(v, copy=True)) if isinstance(v, np.ndarray) else v
                     for v in inputs)

    def port_args(self, inputs: tuple) -> tuple:
        return self.args(inputs, jt.asarray)

    def lax_args(self, inputs: tuple) -> tuple:
        return self.args(inputs, jnp.asarray)

    def check(self, got: Any, want: np.ndarray) -> None:
        """``got`` (a Tensor or a JAX array) holds ``want``, dtype included."""
        got = np.asarray(got)
        assert got.dtype == want.dtype, (self.name, got.dtype, want.dtype)
        if self.tol is None:
            np.testing.assert_array_equal(got, want, err_msg=self.name)
        else:
            np.testing.assert_allclose(got, want, err_msg=self.name, **self.tol)


_CLOSE = {"rtol": 1e-9, "atol": 1e-9}
PROGRAMS: dict[str, Program] = {p.name: p for p in (
    Program("lcs", lcs_numpy, lcs_port, lcs_lax, _lcs_inputs,
            {"test": 5, "quick": 20, "full": 120}),
    Program("cholesky", cholesky_numpy, cholesky_port, cholesky_lax, _spd_inputs,
            {"test": 5, "quick": 20, "full": 100}, tol=_CLOSE),
    Program("thomas", thomas_numpy, thomas_port, thomas_lax, _thomas_inputs,
            {"test": 8, "quick": 200, "full": 5000}, flat=True, tol=_CLOSE),
    Program("diffusion", diffusion_numpy, diffusion_port, diffusion_lax, _diffusion_inputs,
            {"test": 6, "quick": 32, "full": 128}, flat=True,
            tol={"rtol": 1e-5, "atol": 1e-6}),
    Program("insertion_sort", insertion_sort_numpy, insertion_sort_port, insertion_sort_lax,
            _sort_inputs, {"test": 8, "quick": 100, "full": 500}),
    Program("union_find", union_find_numpy, union_find_port, union_find_lax,
            _union_find_inputs, {"test": 8, "quick": 100, "full": 2000}, static=(1,)),
    Program("flood_fill", flood_fill_numpy, flood_fill_port, flood_fill_lax, _flood_inputs,
            {"test": 5, "quick": 16, "full": 64}, static=(1, 2, 3), traced=flood_fill_loop),
    Program("ising", ising_numpy, ising_port, ising_lax, _ising_inputs,
            {"test": 4, "quick": 16, "full": 64}),
    Program("rk4", rk4_numpy, rk4_port, rk4_lax, _rk4_inputs,
            {"test": 10, "quick": 200, "full": 5000}, flat=True, tol={"rtol": 1e-12},
            static=(3,)),
)}
