"""float16 and bfloat16, the half-precision extension dtypes, against PyTorch (CPU) as the
oracle: creation, casting, promotion, element-wise functions, reductions, indexing,
assignment casting, index_select/gather/scatter and gradients.

Tolerances follow the dtype: a result PyTorch and XLA both round from a float32
computation may differ by one unit in the last place (``eps``: 2**-10 for float16, 2**-7
for bfloat16); reductions also differ in the order they add.
"""

from __future__ import annotations

import zlib

import jax
import numpy as np
import pytest

import jaxtensor as jt
from optional_deps import require

torch = require("torch", "torch")  # the PyTorch oracle

HALF = ["float16", "bfloat16"]


class _Rng:
    """Draws that depend on the test (its id), not on which tests ran before it."""

    def __getattr__(self, attr: str):
        import os
        test = os.environ.get("PYTEST_CURRENT_TEST", "")
        gen = self.__dict__.get(test)
        if gen is None:
            self.__dict__.clear()
            gen = self.__dict__[test] = np.random.default_rng(zlib.crc32(test.encode()))
        return getattr(gen, attr)


RNG = _Rng()
EPS = {"float16": 2.0**-10, "bfloat16": 2.0**-7}

STANDARD = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
            "float32", "float64", "complex64", "complex128"]


def _jt(name: str):
    return getattr(jt, name)


def _t(name: str):
    return getattr(torch, name)


def _np(x: jt.Tensor) -> np.ndarray:
    """Values as float64 (NumPy has no bfloat16 of its own)."""
    a = np.asarray(x)
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)


def _tnp(t: torch.Tensor) -> np.ndarray:
    if t.is_complex():
        return t.to(torch.complex128).numpy()
    return t.to(torch.float64).numpy()


def _pair(values: np.ndarray, name: str) -> tuple[jt.Tensor, torch.Tensor]:
    """The same half-precision values in both libraries (rounded once, by PyTorch)."""
    t = torch.tensor(values, dtype=torch.float64).to(_t(name))
    return jt.asarray(t.to(torch.float64).numpy(), dtype=_jt(name)), t


def _close(got: jt.Tensor, want: torch.Tensor, name: str, ulps: float = 1.0,
           scale: float | None = None) -> None:
    assert str(got.dtype) == str(want.dtype).removeprefix("torch."), (got.dtype, want.dtype)
    g, w = _np(got), _tnp(want)
    assert g.shape == w.shape
    atol = 0.0 if scale is None else ulps * EPS[name] * scale
    np.testing.assert_allclose(g, w, rtol=ulps * EPS[name], atol=atol, equal_nan=True)


# -- the dtypes themselves -------------------------------------------------------------
@pytest.mark.parametrize("name", HALF)
def test_dtype_constants_and_inspection(name: str) -> None:
    dt = _jt(name)
    assert str(dt) == name and repr(dt) == f"jaxtensor.{name}"
    assert dt == jax.numpy.dtype(name) if name == "float16" else dt == jax.numpy.bfloat16
    assert jt.isdtype(dt, "real floating") and jt.isdtype(dt, "numeric")
    assert not jt.isdtype(dt, "integral") and not jt.isdtype(dt, "complex floating")
    assert jt.isdtype(dt, ("bool", "real floating"))
    fi, tf = jt.finfo(dt), torch.finfo(_t(name))
    assert (fi.bits, fi.eps, fi.max, fi.min, fi.smallest_normal) == (
        tf.bits, tf.eps, tf.max, tf.min, tf.smallest_normal)
    assert jt.finfo(jt.ones(1, dtype=dt)).bits == 16
    assert jt.zeros(2, dtype=name).dtype == dt  # the name is a dtype too
    with pytest.raises(TypeError):
        jt.iinfo(dt)


def test_not_listed_by_the_namespace_info() -> None:
    """The standard's inspection API knows only its own dtypes (so do the conformance suite
    and array-api-compat's torch namespace): the extensions are not listed."""
    info = jt.__array_namespace_info__()
    for kind in (None, "real floating", "numeric", ("real floating", "complex floating")):
        assert not set(info.dtypes(kind=kind)) & set(HALF)
    assert info.default_dtypes()["real floating"] != jt.float16


# -- creation ---------------------------------------------------------------------------
CREATION = {
    "zeros": (lambda d: jt.zeros((2, 3), dtype=d), lambda d: torch.zeros((2, 3), dtype=d)),
    "ones": (lambda d: jt.ones(3, dtype=d), lambda d: torch.ones(3, dtype=d)),
    "full": (lambda d: jt.full(4, 0.1, dtype=d), lambda d: torch.full((4,), 0.1, dtype=d)),
    "eye": (lambda d: jt.eye(3, 4, k=1, dtype=d), lambda d: torch.eye(3, 4, dtype=d).roll(1, 1)),
    "arange": (lambda d: jt.arange(0, 3, 0.3, dtype=d),
               lambda d: torch.arange(0, 3, 0.3, dtype=torch.float64).to(d)),
    "linspace": (lambda d: jt.linspace(-1, 7, 9, dtype=d),
                 lambda d: torch.linspace(-1, 7, 9, dtype=torch.float64).to(d)),
    "asarray(list)": (lambda d: jt.asarray([0.1, 1e5, -3.3, 65519.0], dtype=d),
                      lambda d: torch.tensor([0.1, 1e5, -3.3, 65519.0], dtype=d)),
    "asarray(numpy)": (lambda d: jt.asarray(np.array([0.1, 2.7]), dtype=d),
                       lambda d: torch.tensor([0.1, 2.7], dtype=d)),
    "zeros_like": (lambda d: jt.zeros_like(jt.ones(2, dtype=d)),
                   lambda d: torch.zeros_like(torch.ones(2, dtype=d))),
    "full_like": (lambda d: jt.full_like(jt.ones(2, dtype=d), 1 / 3),
                  lambda d: torch.full_like(torch.ones(2, dtype=d), 1 / 3)),
    "tril": (lambda d: jt.tril(jt.ones((3, 3), dtype=d)),
             lambda d: torch.tril(torch.ones((3, 3), dtype=d))),
}


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("case", sorted(CREATION))
def test_creation(case: str, name: str) -> None:
    ours, theirs = CREATION[case]
    got, want = ours(_jt(name)), theirs(_t(name))
    _close(got, want, name, ulps=0)


@pytest.mark.parametrize("name", HALF)
def test_asarray_keeps_half_arrays(name: str) -> None:
    a = np.asarray(jax.numpy.asarray([1.5, 2.5], dtype=name))
    x = jt.asarray(a)
    assert x.dtype == _jt(name)
    assert jt.asarray(jax.numpy.ones(2, dtype=name)).dtype == _jt(name)
    assert jt.asarray([x[0], x[1]]).dtype == _jt(name)
    assert jt.empty(3, dtype=name).dtype == _jt(name)


# -- casting ----------------------------------------------------------------------------
VALUES = np.array([0.0, -0.0, 1 / 3, -2.5, 3.5, 1e-3, 257.0, 65504.0, 7e4, 1e-8, -1e38,
                   np.inf, -np.inf])


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("src", ["float32", "float64", "int32", "int64", "uint8", "bool"])
def test_astype_into_half_rounds_like_torch(src: str, name: str) -> None:
    if src in ("float32", "float64"):
        vals = VALUES
    elif src == "bool":
        vals = np.array([True, False])
    else:
        vals = np.array([0, 1, 255, 2049, 4097, 70000, -3])
        vals = vals[(vals >= np.iinfo(src).min) & (vals <= np.iinfo(src).max)]
    x, t = jt.asarray(vals, dtype=src), torch.tensor(vals.astype(src))
    _close(jt.astype(x, _jt(name)), t.to(_t(name)), name, ulps=0)


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("dst", ["float32", "float64", "complex64", "int32", "int8", "bool"])
def test_astype_from_half(dst: str, name: str) -> None:
    vals = np.array([0.0, 1 / 3, -2.5, 3.7, -99.9, 126.0, 1e3])
    x, t = _pair(vals, name)
    got, want = jt.astype(x, _jt(dst)), t.to(_t(dst))
    if dst == "int8":  # out of range is undefined in C; compare what fits
        keep = np.abs(vals) < 128
        got, want = got[jt.asarray(keep)], want[torch.tensor(keep)]
    assert str(got.dtype) == dst
    np.testing.assert_array_equal(np.asarray(got), want.numpy())


@pytest.mark.parametrize("name", HALF)
def test_astype_between_halves_and_complex_refused(name: str) -> None:
    other = "bfloat16" if name == "float16" else "float16"
    x, t = _pair(VALUES, name)
    _close(jt.astype(x, _jt(other)), t.to(_t(other)), other, ulps=0)
    with pytest.raises(TypeError):
        jt.astype(jt.ones(2, dtype=jt.complex64), _jt(name))


# -- promotion --------------------------------------------------------------------------
@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("other", STANDARD + HALF)
def test_promotion_with_tensors_matches_torch(name: str, other: str) -> None:
    a = jt.ones(2, dtype=name)
    b = jt.ones(2, dtype=other)
    if other == "bool":  # the standard mixes no bool with numbers (PyTorch gives the float)
        with pytest.raises(TypeError):
            jt.result_type(a, b)
        with pytest.raises(TypeError):
            a + b
        return
    want = str(torch.promote_types(_t(name), _t(other))).removeprefix("torch.")
    assert str(jt.result_type(a, b)) == str(jt.result_type(_jt(other), _jt(name))) == want
    assert str((a + b).dtype) == str((b * a).dtype) == want
    assert str(jax.numpy.promote_types(name, other)) == want or other.startswith("uint")


@pytest.mark.parametrize("name", HALF)
def test_promotion_with_python_scalars(name: str) -> None:
    x = jt.ones(2, dtype=name)
    t = torch.ones(2, dtype=_t(name))
    for s in (True, 2, 2.5):
        assert str((x + s).dtype) == str((s * x).dtype) == name == str((t + s).dtype)[6:]
        assert str(jt.result_type(x, s)) == name
    # a complex scalar: complex64 (JAX; PyTorch's complex32 does not exist here)
    assert (x * 1j).dtype == jt.complex64 == jax.numpy.result_type(jax.numpy.ones(2, name), 1j)
    with np.errstate(over="ignore"):  # a float too large for the dtype is infinity, as in torch
        assert float((x + 2**70)[0]) == float(torch.tensor(2.0**70, dtype=_t(name)) + 1)
        assert float((x * 1e300)[0]) == float((t * 1e300)[0])


# -- element-wise -----------------------------------------------------------------------
UNARY = ["abs", "negative", "positive", "sin", "cos", "tan", "tanh", "exp", "expm1", "log",
         "log1p", "log2", "log10", "sqrt", "floor", "ceil", "trunc", "round", "sign", "square",
         "asin", "atan", "sinh", "isnan", "isinf", "isfinite", "signbit", "logical_not"]
TORCH_UNARY = {"positive": lambda t: +t, "logical_not": torch.logical_not}


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("fn", UNARY)
def test_unary_matches_torch(fn: str, name: str) -> None:
    vals = np.concatenate([RNG.uniform(-3, 3, 40), [0.0, -0.0, 0.5, 1.5, -2.5, np.nan, np.inf]])
    if fn in ("log", "log2", "log10", "sqrt"):
        vals = np.abs(vals)
    if fn in ("log1p",):
        vals = np.abs(vals) - 0.5
    if fn == "asin":
        vals = np.clip(vals, -1, 1)
    x, t = _pair(vals, name)
    got = getattr(jt, fn)(x)
    want = TORCH_UNARY.get(fn, getattr(torch, fn))(t)
    if fn == "sign":  # torch.sign(nan) is 0; the standard and NumPy say NaN
        want = torch.where(t.isnan(), t, want)
    if want.dtype == torch.bool:
        np.testing.assert_array_equal(np.asarray(got), want.numpy())
        return
    _close(got, want, name, ulps=1.0, scale=1e-3)


BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "pow", "atan2",
          "hypot", "copysign", "floor_divide", "remainder", "equal", "less", "greater_equal",
          "logaddexp"]
TORCH_BINARY = {"divide": torch.div, "pow": torch.pow, "floor_divide":
                lambda a, b: torch.div(a, b, rounding_mode="floor"), "equal": torch.eq,
                "less": torch.lt, "greater_equal": torch.ge}


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("fn", BINARY)
def test_binary_matches_torch(fn: str, name: str) -> None:
    a = RNG.uniform(-4, 4, 50)
    b = np.concatenate([RNG.uniform(-4, 4, 48), [1.0, -2.0]])
    if fn == "pow":
        a = np.abs(a)
    if fn in ("floor_divide", "remainder"):
        b = np.where(np.abs(b) < 0.5, 1.5, b)
    x, t = _pair(a, name)
    y, u = _pair(b, name)
    got = getattr(jt, fn)(x, y)
    want = TORCH_BINARY.get(fn, getattr(torch, fn, None))(t, u)
    if want.dtype == torch.bool:
        np.testing.assert_array_equal(np.asarray(got), want.numpy())
        return
    if fn in ("floor_divide", "remainder"):
        # PyTorch rounds a / b to half before flooring; XLA floors the exact quotient,
        # which may be one lower at an integer boundary: compare with the exact result
        q = np.floor(_np(x) / _np(y))
        exact = q if fn == "floor_divide" else _np(x) - q * _np(y)
        assert got.dtype == _jt(name)
        np.testing.assert_allclose(_np(got), exact, rtol=EPS[name], atol=EPS[name] * 4)
        return
    _close(got, want, name, ulps=1.0, scale=1e-3)


@pytest.mark.parametrize("name", HALF)
def test_operators_and_in_place(name: str) -> None:
    x, t = _pair(RNG.uniform(-3, 3, 20), name)
    _close(x * 3 - 0.1, t * 3 - 0.1, name, ulps=1, scale=1e-2)
    _close(1 / (x + 10), 1 / (t + 10), name, ulps=1)
    _close(x ** 2, t ** 2, name, ulps=1, scale=1e-3)
    v, w = x[2:8], t[2:8]
    v *= 2.5
    w *= 2.5
    _close(x, t, name, ulps=0)
    x[::3] += 1
    t[::3] += 1
    _close(x, t, name, ulps=0)
    assert x.dtype == _jt(name)


# -- reductions -------------------------------------------------------------------------
REDUCTIONS = {
    "sum": (lambda x: jt.sum(x, axis=1), lambda t: t.sum(1)),
    "prod": (lambda x: jt.prod(x, axis=0), lambda t: t.prod(0)),
    "mean": (lambda x: jt.mean(x), lambda t: t.mean()),
    "max": (lambda x: jt.max(x, axis=1), lambda t: t.amax(1)),
    "min": (lambda x: jt.min(x), lambda t: t.min()),
    "var": (lambda x: jt.var(x, axis=0, correction=1), lambda t: t.var(0)),
    "std": (lambda x: jt.std(x, axis=1), lambda t: t.std(1, correction=0)),
    "cumulative_sum": (lambda x: jt.cumulative_sum(x, axis=1), lambda t: t.cumsum(1)),
    "Tensor.sum": (lambda x: x.sum(), lambda t: t.sum()),
    "Tensor.mean(axis)": (lambda x: x.mean(axis=0), lambda t: t.mean(0)),
    "vecdot": (lambda x: jt.vecdot(x, x), lambda t: (t * t).sum(-1)),
    "matmul": (lambda x: x @ x.T, lambda t: t @ t.T),
}


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("case", sorted(REDUCTIONS))
def test_reductions_match_torch(case: str, name: str) -> None:
    vals = RNG.uniform(0.5, 1.5, (6, 10)) * RNG.choice([-1, 1], (6, 10))
    x, t = _pair(vals, name)
    ours, theirs = REDUCTIONS[case]
    got, want = ours(x), theirs(t)
    scale = float(np.abs(_tnp(t)).sum()) if case not in ("prod", "max", "min") else 1.0
    _close(got, want, name, ulps=2.0, scale=scale)


@pytest.mark.parametrize("name", HALF)
def test_search_and_sort(name: str) -> None:
    vals = np.array([3.0, -1.0, np.nan, 2.0, -1.0, 7.5, 0.0])
    x, t = _pair(vals, name)
    assert int(jt.argmax(x[jt.asarray([0, 1, 3, 4, 5, 6])])) == 4
    assert int(jt.argmin(x)) == int(jt.argmax(x)) == np.argmin(vals) == 2  # NaN first
    s = jt.sort(x)
    np.testing.assert_array_equal(_np(s), np.sort(vals))
    np.testing.assert_array_equal(np.asarray(jt.argsort(x[:2])), [1, 0])
    assert bool(jt.isnan(jt.max(x)))
    np.testing.assert_array_equal(_np(jt.unique_values(x[jt.asarray([0, 1, 4])])), [-1.0, 3.0])
    np.testing.assert_array_equal(np.asarray(jt.nonzero(x)[0]), [0, 1, 2, 3, 4, 5])
    assert bool(jt.any(x)) and not bool(jt.all(x))
    np.testing.assert_array_equal(_np(jt.where(x > 0, x, 0.5)),
                                  _tnp(torch.where(t > 0, t, 0.5)))
    assert jt.where(x > 0, x, 0.5).dtype == _jt(name)
    np.testing.assert_array_equal(_np(jt.clip(x, -0.5, 2.5)), _tnp(torch.clamp(t, -0.5, 2.5)))


# -- indexing and assignment ------------------------------------------------------------
@pytest.mark.parametrize("name", HALF)
def test_getitem_matches_torch(name: str) -> None:
    x, t = _pair(RNG.uniform(-10, 10, (4, 5)), name)
    keys = [(1,), (slice(1, 3), slice(None, None, 2)), (Ellipsis, -1), (None, 2),
            ([0, 3, 3],), (slice(None), [4, 0]), ([1, 2], [0, 4])]
    for key in keys:
        tk = tuple(torch.tensor(k) if isinstance(k, list) else k for k in key)
        _close(x[key], t[tk], name, ulps=0)
    mask = np.asarray(t > 0)
    _close(x[jt.asarray(mask)], t[torch.tensor(mask)], name, ulps=0)
    assert x[1:3].base is x and float(x[2, 3]) == float(t[2, 3])


@pytest.mark.parametrize("name", HALF)
def test_setitem_rounds_and_truncates_like_torch(name: str) -> None:
    x, t = _pair(np.zeros((3, 4)), name)
    writes = [((0, 1), 1 / 3), ((1,), 7.9), ((slice(None), 2), 65519.0), ((2, 0), 70000),
              ((2, slice(1, 3)), np.array([0.1, -1e-8])), ((0, 3), 2049),
              ((0, 0), -0.0), ((1, 1), np.float64(1e39))]
    for key, v in writes:
        x[key] = v
        t[key] = torch.tensor(v) if isinstance(v, np.ndarray) else float(v)
    _close(x, t, name, ulps=0)
    assert np.signbit(_np(x)[0, 0])
    # a write through a view, and from the other half dtype
    other = "bfloat16" if name == "float16" else "float16"
    y, u = _pair(np.array([1.3, 2.6, 3.9]), other)
    x[0, 1:] = y
    t[0, 1:] = u
    _close(x, t, name, ulps=0)


@pytest.mark.parametrize("name", HALF)
def test_half_values_into_integers_truncate(name: str) -> None:
    v, _ = _pair(np.array([2.7, -3.9, 100.5]), name)
    i = jt.zeros(4, dtype=jt.int16)
    i[:3] = v
    np.testing.assert_array_equal(np.asarray(i), [2, -3, 100, 0])
    i[3] = v[0]
    assert int(i[3]) == 2
    with pytest.raises(ValueError):
        i[0] = jt.asarray(float("nan"), dtype=name)
    with pytest.raises(OverflowError):
        jt.zeros(2, dtype=jt.int8)[0] = jt.asarray(300.0, dtype=name)
    with pytest.raises(TypeError):
        jt.ones(2, dtype=name)[0] = 1j
    b = jt.zeros(3, dtype=jt.bool)
    b[:] = jt.asarray([0.0, 0.5, -2.0], dtype=name)
    assert np.asarray(b).tolist() == [False, True, True]


@pytest.mark.parametrize("name", HALF)
def test_index_select_gather_scatter_match_torch(name: str) -> None:
    x, t = _pair(RNG.uniform(-5, 5, (4, 6)), name)
    idx = np.array([3, 0, 0, 2])
    _close(jt.index_select(x, 0, jt.asarray(idx)), torch.index_select(t, 0, torch.tensor(idx)),
           name, ulps=0)
    g = RNG.integers(0, 6, (4, 3))
    _close(jt.gather(x, 1, jt.asarray(g)), torch.gather(t, 1, torch.tensor(g)), name, ulps=0)
    src, s = _pair(RNG.uniform(-5, 5, (4, 3)), name)
    gu = np.stack([RNG.permutation(6)[:3] for _ in range(4)])  # no duplicates per row
    _close(jt.scatter(x, 1, jt.asarray(gu), src), t.scatter(1, torch.tensor(gu), s), name, ulps=0)
    _close(jt.scatter_reduce(x, 1, jt.asarray(g), src, "sum"),
           t.scatter_reduce(1, torch.tensor(g), s, "sum"), name, ulps=1, scale=10)
    _close(jt.index_add(x, 0, jt.asarray(idx), src[:, :1] * jt.ones(6, dtype=name)),
           t.index_add(0, torch.tensor(idx), s[:, :1] * torch.ones(6, dtype=_t(name))),
           name, ulps=1, scale=10)
    _close(jt.index_put(x, (jt.asarray([0, 2]), jt.asarray([1, 1])), jt.asarray(0.3, dtype=name)),
           t.index_put((torch.tensor([0, 2]), torch.tensor([1, 1])),
                       torch.tensor(0.3, dtype=_t(name))), name, ulps=0)
    _close(jt.take(x, jt.asarray([0, 7]), axis=None) if False else
           jt.take(jt.reshape(x, (-1,)), jt.asarray([0, 7])),
           t.reshape(-1)[torch.tensor([0, 7])], name, ulps=0)


# -- gradients --------------------------------------------------------------------------
@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("name", HALF)
def test_grad_matches_torch(name: str, jit: bool) -> None:
    xv = RNG.uniform(-2, 2, (4, 5))
    wv = RNG.uniform(-2, 2, 5)
    idx = [0, 2, 2]

    def f(x, w):
        y = x * 1.0
        y[1:3, ::2] = jt.sin(x[1:3, ::2]) * 2
        return jt.sum(y[idx] * w) + jt.sum(jt.exp(x[-1]) ** 2) + jt.mean(jt.gather(x, 1, g))

    def ft(x, w):
        y = x * 1.0
        y[1:3, ::2] = torch.sin(x[1:3, ::2]) * 2
        return (y[idx] * w).sum() + (torch.exp(x[-1]) ** 2).sum() + torch.gather(x, 1, gt).mean()

    g = jt.asarray(RNG.integers(0, 5, (4, 2)))
    gt = torch.tensor(np.asarray(g))
    x, t = _pair(xv, name)
    w, u = _pair(wv, name)
    t.requires_grad_(True)
    u.requires_grad_(True)
    ft(t, u).backward()
    fn = jt.jit(f) if jit else f
    gx, gw = jt.grad(fn, argnums=(0, 1))(x, w)
    assert gx.dtype == gw.dtype == _jt(name)
    _close(gx, t.grad, name, ulps=4, scale=1.0)
    _close(gw, u.grad, name, ulps=4, scale=4.0)
    # jax.grad over jaxtensor code
    jgx = jax.grad(lambda a: f(jt.asarray(a), w).to_jax())(x.to_jax())
    assert jgx.dtype == x.dtype
    np.testing.assert_allclose(np.asarray(jgx, dtype=np.float64), _np(gx), rtol=EPS[name])


# -- linalg and fft: computed in float32, rounded to the half dtype ----------------------
LINALG = {
    "inv": (lambda x: jt.linalg.inv(x), lambda t: torch.linalg.inv(t)),
    "solve": (lambda x: jt.linalg.solve(x, x[:, :1]), lambda t: torch.linalg.solve(t, t[:, :1])),
    "svdvals": (lambda x: jt.linalg.svdvals(x), lambda t: torch.linalg.svdvals(t)),
    "det": (lambda x: jt.linalg.det(x), lambda t: torch.linalg.det(t)),
    "eigvalsh": (lambda x: jt.linalg.eigvalsh(x + x.mT), lambda t: torch.linalg.eigvalsh(t + t.mT)),
    "vector_norm": (lambda x: jt.linalg.vector_norm(x), lambda t: torch.linalg.vector_norm(t)),
    "matrix_norm": (lambda x: jt.linalg.matrix_norm(x, ord="nuc"),
                    lambda t: torch.linalg.matrix_norm(t, ord="nuc")),
    "matmul": (lambda x: jt.linalg.matmul(x, x), lambda t: t @ t),
}


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("case", sorted(LINALG))
def test_linalg_in_float32_rounded_to_half(case: str, name: str) -> None:
    vals = RNG.uniform(-1, 1, (3, 3)) + 3 * np.eye(3)
    x, t = _pair(vals, name)
    ours, theirs = LINALG[case]
    want = theirs(t.to(torch.float32)).to(_t(name))  # (PyTorch's CPU has no half LAPACK)
    _close(ours(x), want, name, ulps=2.0, scale=4.0)


@pytest.mark.parametrize("name", HALF)
def test_fft_of_half_is_complex64(name: str) -> None:
    x, t = _pair(RNG.uniform(-1, 1, 8), name)
    got = jt.fft.fft(x)
    assert got.dtype == jt.complex64 and jt.fft.rfft(x).dtype == jt.complex64
    np.testing.assert_allclose(np.asarray(got), torch.fft.fft(t.to(torch.float32)).numpy(),
                               rtol=1e-5, atol=1e-5)
    assert jt.fft.irfft(jt.fft.rfft(x)).dtype == jt.float32
