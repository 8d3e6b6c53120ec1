"""NumPy's ``initial=`` and ``where=`` of the reductions (``np.max(t, initial=0)``,
``np.sum(t, where=m)``, ``jt.mean(x, where=m)``) give NumPy's values, dtypes and errors,
eagerly, under ``jaxtensor.jit`` (the mask and the initial value traced) and under
``jaxtensor.grad``; and ``where(condition, x1, x2)`` takes a condition of any dtype by its
truth value, as NumPy does."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import jaxtensor as jt

INITIAL = ("sum", "prod", "max", "min")
WHERE_ONLY = ("mean", "any", "all", "var", "std")
DTYPES = [np.bool_, np.int8, np.uint8, np.int32, np.int64, np.float32, np.float64,
          np.complex64, np.complex128]
REAL_ONLY = ("max", "min", "var", "std")


def _array(rng: np.random.Generator, shape: tuple, dt: type) -> np.ndarray:
    if dt is np.bool_:
        return rng.random(shape) < 0.6
    if np.dtype(dt).kind in "iu":
        lo = 0 if np.dtype(dt).kind == "u" else -3
        return rng.integers(lo, 4, shape).astype(dt)
    a = rng.standard_normal(shape)
    if np.dtype(dt).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    if a.size and rng.random() < 0.2:
        a.flat[rng.integers(a.size)] = np.nan
    return a.astype(dt)


def _initial(rng: np.random.Generator, dt: type) -> object:
    kind = np.dtype(dt).kind
    if kind == "b":
        return bool(rng.integers(2))
    if kind in "iu":
        return int(rng.integers(0 if kind == "u" else -3, 4))
    if kind == "c":
        return complex(rng.standard_normal(), rng.standard_normal())
    return float(np.round(rng.standard_normal(), 3))


def _mask(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """A random mask of a shape that broadcasts to ``shape``: a suffix of it, some sides 1."""
    ms = list(shape[rng.integers(0, len(shape) + 1):])
    for d in range(len(ms)):
        if rng.random() < 0.3:
            ms[d] = 1
    return rng.random(tuple(ms)) < 0.5


def _cases(name: str, seed: int, count: int):
    """Random (array, keywords) of ``name``: shapes with empty sides, every dtype ``name``
    takes, axes, keepdims, masks and initial values."""
    rng = np.random.default_rng(seed)
    dtypes = [d for d in DTYPES if not (name in REAL_ONLY and np.dtype(d).kind == "c")]
    if name in ("var", "std"):
        dtypes = [d for d in dtypes if np.dtype(d).kind in "fiu"]
    for k in range(count):
        shape = tuple(int(n) for n in rng.integers(0 if k % 4 == 0 else 1, 5,
                                                   rng.integers(0, 4)))
        dt = dtypes[k % len(dtypes)]
        a = _array(rng, shape, dt)
        kw: dict = {}
        choice = rng.integers(0, 4)
        if shape and choice == 1:
            kw["axis"] = int(rng.integers(-len(shape), len(shape)))
        elif shape and choice == 2:
            kw["axis"] = tuple(int(i) for i in rng.permutation(len(shape))[
                :rng.integers(1, len(shape) + 1)])
        if rng.random() < 0.4:
            kw["keepdims"] = True
        with_where = name in WHERE_ONLY or rng.random() < 0.7
        if with_where:
            kw["where"] = _mask(rng, shape)
        if name in ("max", "min") and (with_where or rng.random() < 0.5):
            kw["initial"] = _initial(rng, dt)
        elif name in ("sum", "prod") and (not with_where or rng.random() < 0.5):
            kw["initial"] = _initial(rng, dt)
        if name in ("var", "std") and rng.random() < 0.5:
            kw["ddof"] = int(rng.integers(0, 2))
        if name in ("max", "min") and "initial" not in kw and any(
                shape[i] == 0 for i in _reduced(shape, kw.get("axis"))):
            continue  # (no identity: tested below)
        yield a, kw


def _reduced(shape: tuple, axis: object) -> tuple:
    if axis is None:
        return tuple(range(len(shape)))
    return tuple(i % len(shape) for i in np.atleast_1d(axis))


def _want(name: str, a: np.ndarray, kw: dict) -> np.ndarray:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = np.asarray(getattr(np, name)(a, **kw))
        if name in ("var", "std"):
            # NaN where the count is at most ddof (the standard's rule; NumPy divides by 0)
            n = np.sum(np.broadcast_to(kw["where"], a.shape), axis=kw.get("axis"),
                       keepdims=kw.get("keepdims", False))
            want = np.where(n - kw.get("ddof", 0) <= 0, np.nan, want).astype(want.dtype)
    return want


def _check(got: object, want: np.ndarray, what: str) -> None:
    got = np.asarray(got)
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    tol = {"float32": 2e-5, "complex64": 2e-5}.get(str(want.dtype), 1e-10)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True, err_msg=what)


@pytest.mark.parametrize("name", INITIAL + WHERE_ONLY)
def test_numpys_reductions_with_initial_and_where_eagerly(name: str) -> None:
    """``np.<name>(t, ...)`` (the method) and ``jt.<name>(t, ...)`` (the namespace function)
    against ``np.<name>(a, ...)`` over random inputs."""
    tried = 0
    for a, kw in _cases(name, 29, 90):
        want = _want(name, a, kw)
        t = jt.asarray(a)
        _check(getattr(np, name)(t, **kw), want, f"np.{name}({a!r}, **{kw})")
        jkw = {("correction" if k == "ddof" else k): v for k, v in kw.items()}
        jkw["where"] = jt.asarray(kw["where"]) if "where" in kw else None
        _check(getattr(jt, name)(t, **jkw), want, f"jt.{name}({a!r}, **{kw})")
        tried += 1
    assert tried > 60


@pytest.mark.parametrize("name", INITIAL + WHERE_ONLY)
def test_numpys_reductions_with_initial_and_where_under_jit(name: str) -> None:
    """The mask and the initial value are traced arguments of a ``jaxtensor.jit`` function
    (a Python number initial passed to it, a Tensor mask)."""
    tried = 0
    for a, kw in _cases(name, 31, 40):
        want = _want(name, a, kw)
        static = {k: v for k, v in kw.items() if k not in ("where", "initial")}

        def f(x, w, i, static=static):
            return getattr(x, name)(**static, where=w, initial=i) if i is not None else (
                getattr(x, name)(**static, where=w))

        got = jt.jit(f)(jt.asarray(a), jt.asarray(kw["where"]) if "where" in kw else None,
                        kw.get("initial"))
        _check(got, want, f"jit {name}({a!r}, **{kw})")
        tried += 1
    assert tried > 25


@pytest.mark.parametrize("dt", [np.int8, np.uint8, np.int32, np.float32, np.bool_])
@pytest.mark.parametrize("name", INITIAL)
def test_initial_is_cast_to_the_result_dtype_as_numpy(name: str, dt: type) -> None:
    """A float initial of an integer reduction is truncated (NumPy's cast), an int out of
    the result dtype's range raises NumPy's ``OverflowError``, and a 0-D Tensor is taken
    as the number; the result keeps NumPy's dtype."""
    rng = np.random.default_rng(5)
    a = _array(rng, (3, 4), dt)
    for initial in (2.75, -1.5, 0.0, 7, -2, 300, 2**40, True):
        try:
            want = np.asarray(getattr(np, name)(a, axis=1, initial=initial))
        except OverflowError:
            with pytest.raises(OverflowError, match=name):
                getattr(np, name)(jt.asarray(a), axis=1, initial=initial)
            continue
        t = jt.asarray(a)
        _check(getattr(np, name)(t, axis=1, initial=initial), want, f"{name} {initial}")
        with np.errstate(all="ignore"):
            exact = np.asarray(initial).astype(want.dtype) == initial
        if exact:  # (a 0-D Tensor of a value the result dtype holds: that value)
            _check(getattr(t, name)(axis=1, initial=jt.asarray(initial)), want,
                   f"{name} Tensor {initial}")


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_and_min_raise_where_numpy_raises(name: str) -> None:
    """No identity: a where mask without initial, and zero elements without initial, raise
    ``ValueError`` (eagerly and under jit); with initial an empty reduction is initial."""
    a = np.arange(6.0).reshape(2, 3)
    m = np.array([True, False, True])
    for t_fn in (lambda f: f(jt.asarray(a)), lambda f: jt.jit(f)(jt.asarray(a))):
        with pytest.raises(ValueError, match=f"{name}.*initial"):
            t_fn(lambda x: getattr(x, name)(where=jt.asarray(m)))
        with pytest.raises(ValueError, match=name):
            t_fn(lambda x: getattr(x, name)(axis=0, where=m))
        with pytest.raises(ValueError, match=name):
            t_fn(lambda x: getattr(jt, name)(x[:0]))
        got = t_fn(lambda x: getattr(x, name)(axis=0, initial=-4.5, keepdims=True) * 0
                   + getattr(x[:0], name)(axis=0, initial=-4.5))
        np.testing.assert_array_equal(np.asarray(got), np.full((1, 3), -4.5))
    with pytest.raises(ValueError):
        getattr(np, name)(a, where=m)


@pytest.mark.parametrize("name", INITIAL + WHERE_ONLY)
def test_bad_masks_and_initials_raise_numpys_errors(name: str) -> None:
    """A mask of another dtype is NumPy's ``TypeError``, one that does not broadcast to the
    Tensor's shape its ``ValueError`` (and a non-scalar initial ``ValueError``), each
    naming the function and the argument; the Tensor is unchanged."""
    a = np.arange(6.0).reshape(2, 3)
    t = jt.asarray(a)
    extra = {"initial": 0.0} if name in INITIAL else {}
    for bad, err in ((np.array([1, 0, 1]), TypeError), (np.ones(3), TypeError),
                     (np.ones((3, 2, 3), bool), ValueError), (np.ones(2, bool), ValueError),
                     (np.ones((2, 1, 3), bool), ValueError)):
        with pytest.raises(err):
            getattr(np, name)(a, where=bad, **extra)
        with pytest.raises(err, match=f"{name}\\(\\): .*where"):
            getattr(np, name)(t, where=bad, **extra)
        with pytest.raises(err, match=f"{name}\\(\\): .*where"):
            getattr(jt, name)(t, where=jt.asarray(bad), **extra)
    if name in INITIAL:
        with pytest.raises(ValueError, match="initial"):
            getattr(np, name)(t, initial=np.array([1.0, 2.0]))
    else:
        with pytest.raises(TypeError):
            getattr(t, name)(initial=1.0)
    np.testing.assert_array_equal(np.asarray(t), a)


@pytest.mark.parametrize("name", INITIAL + WHERE_ONLY)
def test_a_python_number_where_is_its_truth_value(name: str) -> None:
    """``where=0``, ``where=2.5``, ``where=False`` select nothing or everything, as NumPy.
    (NumPy's ``mean``, ``var``, ``std`` count a number mask as its int, ``where=2`` each
    element twice, ``where=0.5`` none: only bools are compared there.)"""
    a = np.arange(6.0).reshape(2, 3) - 2.5
    extra = {"initial": 1.0} if name in INITIAL else {}
    numbers = (True, False) if name in ("mean", "var", "std") else (
        True, False, 0, 2, 0.0, 2.5, 1j)
    for w in numbers:
        for kw in ({}, {"axis": 1}):
            want = _want(name, a, {"where": w, **kw, **extra})
            _check(getattr(np, name)(jt.asarray(a), where=w, **kw, **extra), want,
                   f"{name} where={w} {kw}")


@pytest.mark.parametrize("seed", range(4))
def test_sum_and_mean_with_where_are_differentiable(seed: int) -> None:
    """``jt.grad`` of a masked sum is the mask (times the chain rule), of a masked mean the
    mask over its count, of a max with where and initial its selected maxima."""
    rng = np.random.default_rng(seed)
    shape = tuple(int(n) for n in rng.integers(1, 5, rng.integers(1, 4)))
    a = rng.standard_normal(shape)
    m = _mask(rng, shape)
    mb = np.broadcast_to(m, shape)
    g = jt.grad(lambda x: np.sum(x * x, where=jt.asarray(m)))(jt.asarray(a))
    np.testing.assert_allclose(np.asarray(g), np.where(mb, 2 * a, 0.0), rtol=1e-12)
    g = jt.grad(lambda x: jt.sum(x.mean(axis=-1, where=m, keepdims=True)))(jt.asarray(a))
    n = mb.sum(axis=-1, keepdims=True)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(np.asarray(g), np.where(mb, 1.0 / n, 0.0), rtol=1e-12)
    g = jt.jit(jt.grad(lambda x: x.max(where=m, initial=-10.0)))(jt.asarray(a))
    want = np.zeros(shape)
    if mb.any():
        want[np.unravel_index(np.argmax(np.where(mb, a, -np.inf)), shape)] = 1.0
    np.testing.assert_allclose(np.asarray(g), want)


# -- where(condition, x1, x2): the condition's truth value --------------------------------------
@pytest.mark.parametrize("dt", [np.int8, np.uint8, np.int32, np.int64, np.float16,
                                np.float32, np.float64, np.complex64, np.complex128])
def test_where_takes_a_condition_of_any_dtype_as_numpy(dt: type) -> None:
    """A non-boolean condition selects where it is non-zero (NaN, inf, -1 and a complex
    number with one non-zero part included; -0.0 not), over random shapes that broadcast,
    eagerly and under ``jaxtensor.jit``, as ``np.where``."""
    rng = np.random.default_rng(int(np.dtype(dt).num))
    kind = np.dtype(dt).kind
    specials = {"f": [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-30, -2.5],
                "c": [0j, complex(0, -0.0), complex(np.nan, 0), 1j, 2 + 0j, complex(0, 1e-30)],
                "i": [0, 1, -1, 5], "u": [0, 1, 255]}[kind]
    for k in range(12):
        shape = tuple(int(n) for n in rng.integers(0 if k == 0 else 1, 4, rng.integers(0, 4)))
        with np.errstate(all="ignore"):
            cond = np.asarray(rng.choice(np.asarray(specials, dtype=object), shape)).astype(dt)
        x1 = rng.standard_normal(shape[1:])
        x2 = rng.standard_normal((1,) * len(shape)).astype(np.float32)
        want = np.where(cond, x1, x2)
        got = jt.where(jt.asarray(cond), jt.asarray(x1), jt.asarray(x2))
        _check(got, want, f"where({cond!r})")
        got = jt.jit(lambda c, p, q: jt.where(c, p, q))(jt.asarray(cond), jt.asarray(x1),
                                                        jt.asarray(x2))
        _check(got, want, f"jit where({cond!r})")
        _check(jt.where(jt.asarray(cond), 1.5, -2.0), np.where(cond, 1.5, -2.0),
               f"where({cond!r}, 1.5, -2.0)")


_NUMBERS = [300, -1, 2**63 - 1, float("inf"), float("nan"), 1e300, 1j, 2.5, -0.0, 7, True]


def _outcome_of(call: Any) -> Any:
    try:
        return np.asarray(call()).tolist()
    except (OverflowError, ValueError, TypeError) as e:
        return type(e)


@pytest.mark.parametrize("fname", ["min", "max", "sum", "prod"])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64"])
def test_a_traced_number_as_initial_is_checked_as_eager_code_checks_it(fname: str,
                                                                     dtype: str) -> None:
    """A Python number passed to ``jaxtensor.jit`` (or read by a loop body) as ``initial``
    raises what the number raises eagerly (it was cast unchecked: ``max(uint8,
    initial=-1)`` was 255, ``sum(int8, initial=inf)`` a huge negative)."""
    fn = getattr(jt, fname)
    x = jt.asarray(np.array([5, 3, 2], dtype))
    jitted = jt.jit(lambda x, n: fn(x, initial=n))
    for n in _NUMBERS:
        want = _outcome_of(lambda n=n: fn(x, initial=n))
        assert _outcome_of(lambda n=n: jitted(x, n)) == want, n
        out = jt.zeros((), dtype=fn(x).dtype)

        def body(i: Any, n: Any = n, out: jt.Tensor = out) -> None:
            out[...] = fn(x, initial=n)
        got = _outcome_of(lambda body=body, out=out: (jt.fori_loop(0, 1, body), out)[1])
        assert got == want, n


@pytest.mark.parametrize("fname", ["max", "min"])
def test_gradient_of_a_masked_extremum_that_ties_initial_is_jaxs(fname: str) -> None:
    """An element not selected takes no share of the gradient where the extremum ties
    ``initial`` (``jt.grad`` gave 0.25 where ``jax.grad`` gives 0.5)."""
    import jax
    import jax.numpy as jnp

    rng = np.random.default_rng(3)
    for _ in range(20):
        x = rng.choice([-1.0, 5.0, -3.0, 2.0], 5)
        m = rng.random(5) < 0.6
        init = float(rng.choice([-1.0, 2.0, 5.0]))
        got = jt.grad(lambda t, m=m, init=init: getattr(jt, fname)(
            t, where=jt.asarray(m), initial=init))(jt.asarray(x))
        want = jax.grad(lambda t, m=m, init=init: getattr(jnp, fname)(
            t, where=jnp.asarray(m), initial=init))(jnp.asarray(x))
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), err_msg=f"{x} {m} {init}")
