"""``linalg.eigh``, ``eigvalsh`` and ``cholesky`` read the lower triangle of their input
(``cholesky(upper=True)`` the upper one), as NumPy's (LAPACK's): the other is ignored (JAX averages the matrix
with its conjugate transpose, which changed the answer of any input not exactly Hermitian).
Oracle: NumPy on random matrices, real and complex, single and stacked."""

from __future__ import annotations

import numpy as np
import pytest

import jaxtensor as jt

DTYPES = [np.float64, np.float32, np.complex128, np.complex64]
SHAPES = [(1, 1), (4, 4), (2, 3, 3)]


def _random(rng: np.random.Generator, shape: tuple, dtype: type) -> np.ndarray:
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def _tol(dtype: type) -> float:
    return 1e-4 if np.dtype(dtype).itemsize <= 8 and dtype is not np.float64 else 1e-10


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_eigh_and_eigvalsh_read_the_lower_triangle(shape, dtype):
    a = _random(np.random.default_rng(len(shape) * 7 + shape[-1]), shape, dtype)
    want_w, want_v = np.linalg.eigh(a)
    got = jt.linalg.eigh(jt.asarray(a))
    got_w = np.asarray(jt.linalg.eigvalsh(jt.asarray(a)))
    assert got_w.dtype == np.linalg.eigvalsh(a).dtype
    np.testing.assert_allclose(got_w, np.linalg.eigvalsh(a), atol=_tol(dtype))
    np.testing.assert_allclose(np.asarray(got.eigenvalues), want_w, atol=_tol(dtype))
    # (eigenvectors up to a phase each: compare magnitudes, and that they diagonalize)
    np.testing.assert_allclose(np.abs(np.asarray(got.eigenvectors)), np.abs(want_v),
                               atol=1e-3)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_cholesky_reads_the_lower_triangle(shape, dtype, upper):
    rng = np.random.default_rng(len(shape) * 5 + shape[-1])
    a = _random(rng, shape, dtype)
    pd = a @ np.conj(np.swapaxes(a, -1, -2)) + 4 * np.eye(shape[-1], dtype=dtype)
    noise = _random(rng, shape, dtype) * 10  # (in the triangle not read: ignored)
    m = np.triu(pd) + np.tril(noise, -1) if upper else np.tril(pd) + np.triu(noise, 1)
    got = np.asarray(jt.linalg.cholesky(jt.asarray(m), upper=upper))
    want = np.linalg.cholesky(m, upper=upper)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, atol=_tol(dtype) * 10)


def _sum_of_squares(m: np.ndarray) -> float:
    return float(np.sum(np.linalg.eigvalsh(m) ** 2))


def test_gradients_reach_the_lower_triangle_only():
    a = jt.asarray([[4.0, 7.0], [2.0, 3.0]])
    g = jt.grad(lambda m: jt.sum(jt.linalg.eigvalsh(m) ** 2))(a)
    eps = 1e-6
    want = np.zeros((2, 2))
    for i in range(2):
        for j in range(2):
            d = np.zeros((2, 2))
            d[i, j] = eps
            want[i, j] = (_sum_of_squares(np.asarray(a) + d)
                          - _sum_of_squares(np.asarray(a) - d)) / (2 * eps)
    np.testing.assert_allclose(np.asarray(g), want, atol=1e-5)
    assert float(g[0, 1]) == 0.0
