"""``LinAlgError`` where NumPy raises it: ``solve``, ``inv`` and ``matrix_power`` (negative
powers) of singular matrices, ``cholesky`` of matrices that are not positive definite,
matrices that are not square. NumPy is the oracle over singular, near-singular, indefinite,
NaN-holding and batched inputs: where NumPy raises, jaxtensor raises a
``jaxtensor.linalg.LinAlgError`` (caught as NumPy's ``LinAlgError`` and as ``ValueError``);
where it does not, the results agree. The same checks inside ``jaxtensor.jit``, loops and
transforms: ``test_linalg_traced_errors.py``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import jaxtensor as jt

_RNG = np.random.default_rng(7)


def _regular() -> np.ndarray:
    return _RNG.standard_normal((3, 3)) + 3 * np.eye(3)


def _with_row(i: int, row: Any) -> np.ndarray:
    a = _regular()
    a[i] = row(a)
    return a


# singular matrices whose LU factorization has an exactly zero pivot in every floating
# dtype (a repeated row, a row twice another, a zero row or column): NumPy's test. Every
# matrix is 3x3, and the stacks are of 3x3 matrices (few shapes, few compilations)
SQUARE = {
    "repeated_row": _with_row(2, lambda a: a[0]),
    "twice_a_row": _with_row(1, lambda a: 2 * a[2]),
    "zero_row": _with_row(0, lambda a: 0.0),
    "zero_column": _regular() * [1.0, 0.0, 1.0],
    "zeros": np.zeros((3, 3)),
    "ones": np.ones((3, 3)),
    "near_singular": _with_row(2, lambda a: a[0] + 1e-3 * a[1]),
    "regular": _regular(),
    "nan": _with_row(1, lambda a: np.nan),
    "batch_regular": np.stack([np.stack([_regular(), _regular()]),
                               np.stack([_regular(), _regular()])]),
    "batch_2d_singular": np.stack([np.stack([_regular(), _regular()]),
                                   np.stack([_regular(), np.zeros((3, 3))])]),
    "batch_one_singular": np.stack([np.stack([np.ones((3, 3)), _regular()]),
                                    np.stack([_regular(), _regular()])]),
}
SYMMETRIC = {
    "positive_definite": (lambda b: b @ b.T + 3 * np.eye(3))(_RNG.standard_normal((3, 3))),
    "indefinite": np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
    "negative_definite": -np.eye(3),
    "semidefinite": np.ones((3, 3)),
    "zero": np.zeros((3, 3)),
    "nan": np.where(np.eye(3) == 0, np.nan, 1.0),
    "batch_one_indefinite": np.stack([np.eye(3), np.diag([1.0, -1.0, 1.0])]),
}


def _outcome(f: Callable[[], Any]) -> Any:
    try:
        return f()
    except np.linalg.LinAlgError as e:
        return e


def _agree(got: Any, want: Any, name: str, a: np.ndarray) -> None:
    if isinstance(want, Exception):
        assert isinstance(got, jt.linalg.LinAlgError), (name, got)
        assert isinstance(got, ValueError)
        return
    assert not isinstance(got, Exception), (name, got)
    # rounding errors grow with the condition number (near-singular results are large)
    cond = np.linalg.cond(a.astype(float)) if np.isfinite(a).all() else 1.0
    tol = 1e-4 + 10 * np.max(cond) * np.finfo(a.dtype).eps
    scale = np.nanmax(np.abs(want), initial=1.0)
    np.testing.assert_allclose(np.asarray(got) / scale, want / scale, rtol=tol, atol=tol,
                               err_msg=name)


def _calls(a: np.ndarray, x: jt.Tensor, dtype: str) -> list[tuple[str, Callable, Callable]]:
    """(name, NumPy's call, jaxtensor's) of each checked function of the matrices ``a``."""
    b = np.ones(a.shape[-1], dtype)
    return [
        ("inv", lambda: np.linalg.inv(a), lambda: jt.linalg.inv(x).numpy()),
        ("solve", lambda: np.linalg.solve(a, b),
         lambda: jt.linalg.solve(x, jt.asarray(b)).numpy()),
        ("solve_matrix", lambda: np.linalg.solve(a, np.ones(a.shape, dtype)),
         lambda: jt.linalg.solve(x, jt.ones(a.shape, dtype=dtype)).numpy()),
        ("matrix_power", lambda: np.linalg.matrix_power(a, -2),
         lambda: jt.linalg.matrix_power(x, -2).numpy()),
    ]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_singular_matrices_raise_as_numpys(dtype: str) -> None:
    for name, a in SQUARE.items():
        if dtype == "float32" and a.ndim > 2:
            continue  # (a stack compiles its own kernels: float64 covers it)
        a = a.astype(dtype)
        x = jt.asarray(a)
        for fname, np_call, jt_call in _calls(a, x, dtype):
            want = _outcome(np_call)
            _agree(_outcome(jt_call), want, f"{fname}({name}, {dtype})", a)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cholesky_of_matrices_not_positive_definite_raises_as_numpys(dtype: str) -> None:
    for name, a in SYMMETRIC.items():
        a = a.astype(dtype)
        want = _outcome(lambda a=a: np.linalg.cholesky(a))
        got = _outcome(lambda a=a: jt.linalg.cholesky(jt.asarray(a)).numpy())
        _agree(got, want, name, a)
        if not isinstance(want, Exception):
            up = jt.linalg.cholesky(jt.asarray(a), upper=True).numpy()
            np.testing.assert_allclose(up, np.swapaxes(want, -1, -2), rtol=1e-5, atol=1e-5)


def test_the_error_names_the_function_and_the_matrix() -> None:
    stack = jt.asarray(SQUARE["batch_2d_singular"])  # (its [1, 1] is all zeros)
    with pytest.raises(np.linalg.LinAlgError, match=r"linalg\.inv\(\): x\[1, 1\] is singular"):
        jt.linalg.inv(stack)
    with pytest.raises(jt.linalg.LinAlgError, match=r"linalg\.solve\(\): x1 is singular"):
        jt.linalg.solve(jt.zeros((3, 3)), jt.ones(3))
    with pytest.raises(ValueError, match=r"linalg\.cholesky\(\): x\[1\] is not positive"):
        jt.linalg.cholesky(jt.asarray(SYMMETRIC["batch_one_indefinite"]))


@pytest.mark.parametrize("fname", ["inv", "cholesky", "det", "eigh", "slogdet"])
def test_non_square_input_is_numpys_linalg_error(fname: str) -> None:
    a = np.ones((2, 3))
    with pytest.raises(np.linalg.LinAlgError):
        getattr(np.linalg, fname)(a)
    with pytest.raises(jt.linalg.LinAlgError, match="square"):
        getattr(jt.linalg, fname)(jt.asarray(a))


def test_empty_matrices_have_empty_inverses() -> None:
    assert jt.linalg.inv(jt.zeros((0, 0))).shape == np.linalg.inv(np.zeros((0, 0))).shape


#: the functions computed by an SVD: (name, NumPy's, jaxtensor's)
SVD_FUNCTIONS = [
    ("svd", lambda a: np.linalg.svd(a)[1], lambda x: jt.linalg.svd(x).S),
    ("svd_reduced", lambda a: np.linalg.svd(a, full_matrices=False)[0],
     lambda x: jt.linalg.svd(x, full_matrices=False).U),
    ("svdvals", lambda a: np.linalg.svd(a, compute_uv=False), jt.linalg.svdvals),
    ("pinv", np.linalg.pinv, jt.linalg.pinv),
    ("matrix_rank", np.linalg.matrix_rank, jt.linalg.matrix_rank),
    ("norm_2", lambda a: np.linalg.norm(a, 2, axis=(-2, -1)),
     lambda x: jt.linalg.matrix_norm(x, ord=2)),
    ("norm_-2", lambda a: np.linalg.norm(a, -2, axis=(-2, -1)),
     lambda x: jt.linalg.matrix_norm(x, ord=-2)),
    ("norm_nuc", lambda a: np.linalg.norm(a, "nuc", axis=(-2, -1)),
     lambda x: jt.linalg.matrix_norm(x, ord="nuc")),
]


@pytest.mark.parametrize("shape", [(1, 1), (3, 2), (2, 2, 3)])
@pytest.mark.parametrize("fill", [np.nan, np.inf, None])
def test_an_svd_of_a_nan_matrix_raises_as_numpys(shape: tuple, fill: Any) -> None:
    """NumPy's LAPACK does not converge on a matrix holding a NaN (an infinity it takes):
    NumPy's ``LinAlgError``, naming the function and the first such matrix of a stack."""
    rng = np.random.default_rng(hash((shape, str(fill))) % 2**32)
    for _ in range(3):
        a = rng.standard_normal(shape)
        if fill is not None:
            a[tuple(rng.integers(0, s) for s in shape)] = fill
        for name, np_f, jt_f in SVD_FUNCTIONS:
            want = _outcome(lambda np_f=np_f, a=a: np_f(a))
            got = _outcome(lambda jt_f=jt_f, a=a: np.asarray(jt_f(jt.asarray(a))))
            if isinstance(want, Exception):
                assert isinstance(got, jt.linalg.LinAlgError), (name, a, got)
                assert "SVD did not converge" in str(got)
                fname = {"svd_reduced": "svd", "norm_2": "matrix_norm", "norm_-2": "matrix_norm",
                         "norm_nuc": "matrix_norm"}.get(name, name)
                assert str(got).startswith(f"linalg.{fname}(): "), got
                continue
            assert not isinstance(got, Exception), (name, a, got)
            if fill is None:
                np.testing.assert_allclose(np.abs(got), np.abs(want), rtol=1e-9, atol=1e-9,
                                           err_msg=name)


def test_the_svd_error_names_the_matrix_of_a_stack() -> None:
    a = np.ones((2, 3, 2, 2))
    a[1, 2, 0, 1] = np.nan
    with pytest.raises(np.linalg.LinAlgError, match=r"linalg\.pinv\(\): SVD did not "
                       r"converge: x\[1, 2\] holds a NaN"):
        jt.linalg.pinv(jt.asarray(a))
