"""More loop programs written as docs/loops.md teaches, each against the same Python loop
over NumPy arrays on random inputs: in-place swaps in nested loops, a sieve over strided
slices, Floyd-Warshall over ``ds`` windows, a histogram of data-dependent writes,
Levenshtein distances, a binary search and Kadane's maximum in carry style, Gaussian
elimination with pivoting through integer-array row swaps, the game of life, a selection
sort through element reads, transposed views and masks written in loops, Tensors reached
through lists and object attributes, and a rotation by element-read swaps."""

from __future__ import annotations

import numpy as np
import pytest

import jaxtensor as jt

SEEDS = [0, 1]


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(1000 + seed)


@pytest.mark.parametrize("seed", SEEDS)
def test_bubble_sort_with_tuple_swaps(seed):
    x = _rng(seed).standard_normal(12 + seed)
    a = jt.asarray(x)
    n = a.shape[0]

    def outer(i):
        def inner(j):
            def swap():
                a[j], a[j + 1] = a[j + 1], a[j]
            jt.cond(a[j] > a[j + 1], swap, lambda: None)
        jt.fori_loop(0, n - 1 - i, inner)
    jt.fori_loop(0, n, outer)
    np.testing.assert_array_equal(np.asarray(a), np.sort(x))


@pytest.mark.parametrize("n", [30, 97])
def test_sieve_over_strided_slices(n):
    want = np.ones(n + 1, bool)
    want[:2] = False
    s = jt.ones(n + 1, dtype=jt.bool)
    s[:2] = False
    for p in range(2, int(n ** 0.5) + 1):
        if want[p]:
            want[p * p::p] = False
        if s[p]:
            s[p * p::p] = False
    np.testing.assert_array_equal(np.asarray(s), want)


@pytest.mark.parametrize("seed", SEEDS)
def test_floyd_warshall_over_ds_windows(seed):
    rng = _rng(seed)
    n = 6 + seed
    w = rng.uniform(1, 10, (n, n))
    w[rng.random((n, n)) < 0.4] = np.inf
    np.fill_diagonal(w, 0)
    want = w.copy()
    for k in range(n):
        want = np.minimum(want, want[:, k:k + 1] + want[k:k + 1, :])
    d = jt.asarray(w)

    def body(k):
        d[...] = jt.minimum(d, d[:, jt.ds(k, 1)] + d[jt.ds(k, 1), :])
    jt.fori_loop(0, n, body)
    np.testing.assert_array_equal(np.asarray(d), want)


@pytest.mark.parametrize("seed", SEEDS)
def test_histogram_of_data_dependent_writes(seed):
    x = _rng(seed).integers(0, 7, 40)
    h = jt.zeros(7, dtype=jt.int64)
    xs = jt.asarray(x)

    def body(i):
        h[xs[i]] += 1
    jt.fori_loop(0, xs.shape[0], body)
    np.testing.assert_array_equal(np.asarray(h), np.bincount(x, minlength=7))


def _levenshtein_numpy(a, b):
    m, n = len(a), len(b)
    D = np.zeros((m + 1, n + 1), np.int32)
    D[:, 0] = np.arange(m + 1)
    D[0, :] = np.arange(n + 1)
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            D[i, j] = min(D[i - 1, j] + 1, D[i, j - 1] + 1, D[i - 1, j - 1] + cost)
    return D[m, n]


@pytest.mark.parametrize("seed", SEEDS)
def test_levenshtein_in_nested_loops(seed):
    rng = _rng(seed)
    a_np, b_np = rng.integers(0, 3, rng.integers(3, 9)), rng.integers(0, 3, rng.integers(3, 9))
    a, b = jt.asarray(a_np), jt.asarray(b_np)
    m, n = a.shape[0], b.shape[0]
    D = jt.zeros((m + 1, n + 1), dtype=jt.int32)
    D[:, 0] = jt.arange(m + 1)
    D[0, :] = jt.arange(n + 1)

    def row(i):
        def col(j):
            cost = jt.where(a[i - 1] == b[j - 1], 0, 1)
            D[i, j] = jt.minimum(jt.minimum(D[i - 1, j] + 1, D[i, j - 1] + 1),
                                 D[i - 1, j - 1] + cost)
        jt.fori_loop(1, n + 1, col)
    jt.fori_loop(1, m + 1, row)
    assert int(D[m, n]) == _levenshtein_numpy(a_np, b_np)


@pytest.mark.parametrize("v", [-5.0, 0.0, 5.0, "element"])
def test_binary_search_in_carry_style(v):
    a_np = np.sort(_rng(0).standard_normal(20))
    v = a_np[3] if v == "element" else v
    a = jt.asarray(a_np)

    def body(s):
        lo, hi = s
        mid = (lo + hi) // 2
        less = a[mid] < v
        return jt.where(less, mid + 1, lo), jt.where(less, hi, mid)
    lo, _ = jt.while_loop(lambda s: s[0] < s[1], body, (0, a.shape[0]))
    assert int(lo) == int(np.searchsorted(a_np, v))


@pytest.mark.parametrize("seed", SEEDS)
def test_gaussian_elimination_with_pivoting(seed):
    rng = _rng(seed)
    A_np, b_np = rng.standard_normal((5, 5)), rng.standard_normal(5)
    A, b = jt.asarray(A_np, copy=True), jt.asarray(b_np, copy=True)
    n = b.shape[0]
    for k in range(n):
        p = k + int(jt.argmax(jt.abs(A[k:, k])))
        A[[k, p]] = A[[p, k]]
        b[[k, p]] = b[[p, k]]
        for i in range(k + 1, n):
            f = A[i, k] / A[k, k]
            A[i, k:] -= f * A[k, k:]
            b[i] -= f * b[k]
    x = jt.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (b[i] - A[i, i + 1:] @ x[i + 1:]) / A[i, i]
    np.testing.assert_allclose(np.asarray(x), np.linalg.solve(A_np, b_np), rtol=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_kadane_in_carry_style(seed):
    x_np = _rng(seed).standard_normal(15)
    want = cur = x_np[0]
    for v in x_np[1:]:
        cur = max(v, cur + v)
        want = max(want, cur)
    x = jt.asarray(x_np)

    def body(i, c):
        cur, best = c
        cur = jt.maximum(x[i], cur + x[i])
        return cur, jt.maximum(best, cur)
    got = jt.fori_loop(1, x.shape[0], body, (x[0], x[0]))[1]
    assert float(got) == want


def test_game_of_life():
    g_np = (_rng(0).random((8, 8)) < 0.4).astype(np.int32)
    g = jt.asarray(g_np)
    around = [(i, j) for i in (-1, 0, 1) for j in (-1, 0, 1) if (i, j) != (0, 0)]
    for _ in range(4):
        n = sum(np.roll(np.roll(g_np, i, 0), j, 1) for i, j in around)
        g_np = ((n == 3) | ((g_np == 1) & (n == 2))).astype(g_np.dtype)

    def body(s):
        n = sum(jt.roll(jt.roll(g, i, axis=0), j, axis=1) for i, j in around)
        g[...] = ((n == 3) | ((g == 1) & (n == 2))).astype(g.dtype)
    jt.fori_loop(0, 4, body)
    np.testing.assert_array_equal(np.asarray(g), g_np)


def test_selection_sort_through_element_reads():
    x = _rng(0).standard_normal(9)
    a = jt.asarray(x)
    for i in range(a.shape[0]):
        m = i + int(jt.argmin(a[i:]))
        tmp = a[i]
        a[i] = a[m]
        a[m] = tmp
    np.testing.assert_array_equal(np.asarray(a), np.sort(x))


def test_a_transposed_view_and_a_mask_written_in_loops():
    X = _rng(0).standard_normal((4, 4))
    want = X.copy()
    t_np = want.T
    for i in range(4):
        t_np[i, :] += want[:, i] * 0.5
    x = jt.asarray(X)
    t = x.T

    def body(i):
        t[i, :] += x[:, i] * 0.5
    jt.fori_loop(0, 4, body)
    np.testing.assert_array_equal(np.asarray(x), want)

    v_np = _rng(1).integers(-2, 6, 10)
    v = jt.asarray(v_np)
    for i in range(3):
        v_np[v_np > i] -= 1

    def masked(i):
        v[v > i] -= 1
    jt.fori_loop(0, 3, masked)
    np.testing.assert_array_equal(np.asarray(v), v_np)


def test_tensors_reached_through_a_list_and_an_attribute():
    rng = _rng(0)
    L_np = [rng.standard_normal(3), rng.standard_normal(5)]
    xs = [jt.asarray(a) for a in L_np]
    for i in range(4):
        for k in range(len(L_np)):
            L_np[k][i % L_np[k].shape[0]] += k + i

    def body(i):
        for k in range(len(xs)):
            xs[k][i % xs[k].shape[0]] += k + i
    jt.fori_loop(0, 4, body)
    for got, want in zip(xs, L_np):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-15)

    class Acc:
        def __init__(self) -> None:
            self.buf, self.scale = jt.zeros(4), 2.0
    acc, v = Acc(), rng.standard_normal(4)

    def scaled(i):
        acc.buf[i] = v[i] * acc.scale
    jt.fori_loop(0, 4, scaled)
    np.testing.assert_array_equal(np.asarray(acc.buf), v * 2.0)
    acc.scale = 3.0  # (an attribute changed between calls: the new value)
    jt.fori_loop(0, 4, scaled)
    np.testing.assert_array_equal(np.asarray(acc.buf), v * 3.0)


def test_a_rotation_by_element_read_swaps_in_a_loop():
    x = _rng(0).standard_normal(6)
    a = jt.asarray(x)

    def body(i):
        t = a[i]
        a[i] = a[i + 1]
        a[i + 1] = t
    jt.fori_loop(0, a.shape[0] - 1, body)
    np.testing.assert_array_equal(np.asarray(a), np.roll(x, -1))
