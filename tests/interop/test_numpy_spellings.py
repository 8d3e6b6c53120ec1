"""NumPy's spellings of standard functions that clients and ported code use: ``diff(x, n,
axis)`` positionally and ``where(condition)`` (NumPy's ``nonzero``), against NumPy; and
scikit-learn's ranking metrics, which use both, against their NumPy results."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import jaxtensor as jt


@pytest.mark.parametrize("seed", range(6))
def test_diff_takes_n_and_axis_in_numpys_order(seed: int) -> None:
    rng = np.random.default_rng(seed)
    shape = tuple(rng.integers(1, 5, rng.integers(1, 4)))
    a = rng.integers(-9, 9, shape)
    for axis in range(-a.ndim, a.ndim):
        for n in range(a.shape[axis] + 1):
            want = np.diff(a, n, axis)
            got = jt.diff(jt.asarray(a), n, axis)
            assert got.shape == want.shape
            np.testing.assert_array_equal(np.asarray(got), want)
            np.testing.assert_array_equal(np.asarray(jt.diff(jt.asarray(a), n=n, axis=axis)),
                                          want)


@pytest.mark.parametrize("dtype", ["bool", "int32", "float64"])
@pytest.mark.parametrize("ndim", [0, 1, 2, 3])
def test_where_of_a_condition_alone_is_nonzero(dtype: str, ndim: int) -> None:
    rng = np.random.default_rng(ndim)
    a = (rng.integers(0, 3, (3,) * ndim) * (rng.random((3,) * ndim) < 0.6)).astype(dtype)
    if ndim == 0:
        with pytest.raises(ValueError):
            jt.where(jt.asarray(a))
        return
    want = np.where(a)
    got = jt.where(jt.asarray(a))
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(np.asarray(g), w)


def test_where_with_one_of_x1_x2_raises() -> None:
    with pytest.raises(ValueError, match="both x1 and x2"):
        jt.where(jt.asarray([True, False]), 1.0)


def test_sklearn_ranking_metrics_on_tensors() -> None:
    """``roc_curve`` calls ``xp.diff(x, 2)`` and ``xp.where(mask)``: on Tensors it gives what
    it gives on NumPy arrays (a subprocess: SciPy reads ``SCIPY_ARRAY_API`` at import)."""
    pytest.importorskip("sklearn")
    code = textwrap.dedent("""
        import numpy as np, sklearn, jaxtensor as jt
        from sklearn.metrics import average_precision_score, roc_auc_score, roc_curve
        sklearn.set_config(array_api_dispatch=True)
        rng = np.random.default_rng(0)
        for _ in range(5):
            y = rng.integers(0, 2, 40)
            s = np.round(rng.random(40), 1)
            for f in (roc_curve, roc_auc_score, average_precision_score):
                want = f(y, s)
                got = f(jt.asarray(y), jt.asarray(s))
                if f is not roc_curve:
                    want, got = (want,), (got,)
                for w, g in zip(want, got, strict=True):
                    np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12)
        print("ok")
    """)
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-3000:]


@pytest.mark.parametrize("fname", ["std", "var"])
def test_std_and_var_take_numpys_ddof(fname: str) -> None:
    a = np.random.default_rng(1).random((3, 5))
    for ddof in (0, 1, 2, 1.5):
        for axis in (None, 0, 1, (0, 1)):
            want = getattr(np, fname)(a, axis=axis, ddof=ddof)
            got = getattr(jt, fname)(jt.asarray(a), axis=axis, ddof=ddof)
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
    with pytest.raises(TypeError, match="not both"):
        getattr(jt, fname)(jt.asarray(a), correction=1, ddof=1)


def test_tril_triu_k_positional_squeeze_without_axis_and_finfo_tiny() -> None:
    """NumPy's spellings ``triu(x, 1)``, ``squeeze(x)`` (every size-1 axis) and
    ``finfo(...).tiny`` work (they raised), with NumPy's results."""
    rng = np.random.default_rng(5)
    for shape in [(3, 3), (2, 4, 3), (4, 2)]:
        a = rng.standard_normal(shape)
        for k in (-2, -1, 0, 1, 3):
            np.testing.assert_array_equal(np.asarray(jt.triu(jt.asarray(a), k)), np.triu(a, k))
            np.testing.assert_array_equal(np.asarray(jt.tril(jt.asarray(a), k)), np.tril(a, k))
    for shape in [(1, 3, 1), (1,), (2, 3), (1, 1, 1), ()]:
        z = np.zeros(shape)
        assert jt.squeeze(jt.asarray(z)).shape == np.squeeze(z).shape
    for dt in (jt.float16, jt.float32, jt.float64, float):
        assert jt.finfo(dt).tiny == float(np.finfo(dt).tiny)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "complex128"])
def test_round_takes_numpys_decimals(dtype: str) -> None:
    """``jt.round(x, d)`` rounds to ``d`` decimal places (tens, hundreds for a negative
    ``d``) as NumPy computes it, half to even (it raised: the standard's ``round`` has no
    ``decimals``)."""
    rng = np.random.default_rng(len(dtype))
    a = rng.standard_normal(60) * 1000
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(60) * 10
    a = np.concatenate([a, [2.675, 0.125, -0.5, 15, 25]]).astype(dtype)
    t = jt.asarray(a)
    for d in (-2, -1, 0, 1, 2, 3):
        want = np.round(a, d)
        got = jt.round(t, d)
        assert np.asarray(got).dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"{dtype} {d}")
