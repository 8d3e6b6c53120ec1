"""Reverse-mode gradients through complex ``*``, ``/``, ``**`` and the complex element-wise
functions: ``jaxtensor.grad`` equals ``jax.grad`` of the ``jax.numpy`` version (complex64
and complex128) and central finite differences of NumPy's function (complex128), over a grid
of values (zeros, negative and large parts; off each function's branch cuts and poles), and
stays finite wherever the function is differentiable. The special values the functions
return (``tests/namespace/test_numerics.py``) are unchanged by their derivatives.

The loss is real: ``sum(a * real(f(z)) + b * imag(f(z)))`` with fixed random weights ``a``,
``b``, so that every entry of each element's 2x2 Jacobian reaches the gradient. JAX's
gradient of a real loss ``L`` at ``z = x + iy`` is ``dL/dx - i dL/dy``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxtensor as jt

_RNG = np.random.default_rng(0)

# general position: off every branch cut (the real and imaginary axes outside (-1, 1)) and
# pole of the functions below; zeros, negative and large parts included
GENERAL = [complex(r, i) for r in (-2.3, -0.6, 0.4, 1.7) for i in (-1.3, -0.2, 0.3, 2.1)]
GENERAL += [0.7j, -0.45j, 25 - 13j, -18 + 9j, 0.9 - 0.01j]
# points where only an entire function (or one whose cuts avoid them) is differentiable
REAL_AXIS = [0j, -0.6 + 0j, 1.5 + 0j, -3 + 0j, 0.5 + 0j]

# name -> (NumPy's function, the points its derivative is tested at)
UNARY: dict[str, tuple[Callable, list[complex]]] = {
    "exp": (np.exp, GENERAL + REAL_AXIS),
    "expm1": (np.expm1, GENERAL + REAL_AXIS),
    "sin": (np.sin, GENERAL + REAL_AXIS),
    "cos": (np.cos, GENERAL + REAL_AXIS),
    "tan": (np.tan, GENERAL + REAL_AXIS),
    "sinh": (np.sinh, GENERAL + REAL_AXIS),
    "cosh": (np.cosh, GENERAL + REAL_AXIS),
    "tanh": (np.tanh, GENERAL + REAL_AXIS),
    "square": (np.square, GENERAL + REAL_AXIS),
    "log": (np.log, GENERAL + [1.5 + 0j, 0.5 + 0j]),
    "log1p": (np.log1p, GENERAL + [1.5 + 0j, -0.6 + 0j]),
    "log2": (np.log2, GENERAL + [1.5 + 0j]),
    "log10": (np.log10, GENERAL + [1.5 + 0j]),
    "sqrt": (np.sqrt, GENERAL + [1.5 + 0j, 0.5 + 0j]),
    "reciprocal": (np.reciprocal, GENERAL + [-3 + 0j, 1.5 + 0j]),
    "abs": (np.abs, GENERAL + [-3 + 0j, 1.5 + 0j]),
    "asin": (np.arcsin, GENERAL + [0j, -0.6 + 0j, 0.5 + 0j]),
    "acos": (np.arccos, GENERAL + [0j, -0.6 + 0j, 0.5 + 0j]),
    "atan": (np.arctan, GENERAL + REAL_AXIS),
    "asinh": (np.arcsinh, GENERAL + REAL_AXIS),
    "acosh": (np.arccosh, GENERAL + [1.5 + 0j]),
    "atanh": (np.arctanh, GENERAL + [0j, -0.6 + 0j, 0.5 + 0j]),
}
_JNP: dict[str, Any] = {
    "asin": jnp.arcsin, "acos": jnp.arccos, "atan": jnp.arctan, "asinh": jnp.arcsinh,
    "atanh": jnp.arctanh,
    # jnp.arccosh's value, but its derivative has the wrong sign where Re z < 0 (finite
    # differences say so): the oracle is the principal formula's
    "acosh": lambda z: jnp.log(z + jnp.sqrt(z - 1) * jnp.sqrt(z + 1)),
}

# pairs (z, w) for the binary operators; z ** w needs z off the negative real axis
PAIRS = [(z, w) for z in GENERAL[::3] + [0j, -1.5 + 0j] for w in (0.8 - 0.3j, -2 + 0j, 1.3j)]
POW_PAIRS = [(z, w) for z, w in PAIRS if z != 0 and not (z.imag == 0 and z.real < 0)]
BINARY: dict[str, tuple[Callable, Callable, list[tuple[complex, complex]]]] = {
    "multiply": (lambda a, b: a * b, np.multiply, PAIRS),
    "divide": (lambda a, b: a / b, np.divide, PAIRS),
    "pow": (lambda a, b: a ** b, np.power, POW_PAIRS),
}


def _run(f: Callable, *args: Any) -> Any:
    """``jax.jit(f)(*args)`` compiled at XLA's lowest optimisation level: the complex
    functions' programs take seconds to optimise, and the values tested do not need it."""
    compiled = jax.jit(f).lower(*args).compile(
        compiler_options={"xla_backend_optimization_level": 0})
    return compiled(*args)


def _weights(n: int) -> tuple[np.ndarray, np.ndarray]:
    return _RNG.uniform(0.5, 1.5, n), _RNG.uniform(-1.5, -0.5, n)


WEIGHTS = {name: _weights(len(points)) for name, (_, points) in UNARY.items()}
WEIGHTS.update({name: _weights(len(pairs)) for name, (_, _, pairs) in BINARY.items()})


def _real_loss(y: Any, a: Any, b: Any, xp: Any) -> Any:
    if y.dtype.kind != "c":
        return xp.sum(a * y)
    return xp.sum(a * xp.real(y) + b * xp.imag(y))


def _jt_loss(y: Any, name: str) -> Any:
    a, b = WEIGHTS[name]
    return _real_loss(y, jt.asarray(a), jt.asarray(b), jt)


def _jnp_loss(y: Any, name: str) -> Any:
    a, b = WEIGHTS[name]
    return _real_loss(y, jnp.asarray(a), jnp.asarray(b), jnp)


def _np_loss(y: np.ndarray, name: str) -> np.ndarray:
    """The loss of each element (the finite differences of one element at a time)."""
    a, b = WEIGHTS[name]
    return a * y.real + b * y.imag if np.iscomplexobj(y) else a * y


def _finite_difference(f: Callable, z: np.ndarray, name: str) -> np.ndarray:
    h = 1e-6 * np.maximum(1.0, np.abs(z))
    dx = (_np_loss(f(z + h), name) - _np_loss(f(z - h), name)) / (2 * h)
    dy = (_np_loss(f(z + 1j * h), name) - _np_loss(f(z - 1j * h), name)) / (2 * h)
    return dx - 1j * dy


def _unary_grads(dtype: str) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Every unary function's gradient, from jaxtensor and from jax.numpy (one compiled
    program each)."""
    args = {n: np.asarray(pts, dtype) for n, (_, pts) in UNARY.items()}

    def jt_all(zs: dict[str, jt.Tensor]) -> dict[str, Any]:
        return {n: jt.grad(lambda z, n=n: _jt_loss(getattr(jt, n)(z), n))(z)
                for n, z in zs.items()}

    def jnp_all(zs: dict[str, Any]) -> dict[str, Any]:
        return {n: jax.grad(lambda z, n=n: _jnp_loss(_JNP.get(n, getattr(jnp, n))(z), n))(z)
                for n, z in zs.items()}

    got = _run(jt_all, {n: jt.asarray(a) for n, a in args.items()})
    want = _run(jnp_all, {n: jnp.asarray(a) for n, a in args.items()})
    return ({n: np.asarray(g.numpy()) for n, g in got.items()},
            {n: np.asarray(w) for n, w in want.items()})


_TOL = {"complex64": 2e-5, "complex128": 1e-12}


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_elementwise_gradients_are_jaxs_and_finite(dtype: str) -> None:
    got, want = _unary_grads(dtype)
    for name, g in got.items():
        assert np.isfinite(g).all(), name
        np.testing.assert_allclose(g, want[name], rtol=_TOL[dtype], atol=_TOL[dtype],
                                   err_msg=name)
    if dtype == "complex128":
        for name, (f, points) in UNARY.items():
            fd = _finite_difference(f, np.asarray(points), name)
            scale = np.maximum(1.0, np.abs(fd))
            np.testing.assert_array_less(np.abs(got[name] - fd) / scale, 1e-5, err_msg=name)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_operator_gradients_are_jaxs_and_finite(dtype: str) -> None:
    for name, (op, np_op, pairs) in BINARY.items():
        z = np.asarray([p[0] for p in pairs], dtype)
        w = np.asarray([p[1] for p in pairs], dtype)

        def jt_loss(a: Any, b: Any, name: str = name, op: Callable = op) -> Any:
            return _jt_loss(op(a, b), name)

        def jnp_loss(a: Any, b: Any, name: str = name, op: Callable = op) -> Any:
            return _jnp_loss(op(a, b), name)

        got = _run(jt.grad(jt_loss, argnums=(0, 1)), jt.asarray(z), jt.asarray(w))
        want = _run(jax.grad(jnp_loss, argnums=(0, 1)), jnp.asarray(z), jnp.asarray(w))
        for g, v in zip(got, want):
            g = np.asarray(g.numpy())
            assert np.isfinite(g).all(), name
            np.testing.assert_allclose(g, np.asarray(v), rtol=_TOL[dtype], atol=_TOL[dtype],
                                       err_msg=name)
        if dtype == "complex128":
            fd_z = _finite_difference(lambda a, f=np_op, b=w: f(a, b), z, name)
            fd_w = _finite_difference(lambda b, f=np_op, a=z: f(a, b), w, name)
            for g, fd in zip(got, (fd_z, fd_w)):
                err = np.abs(np.asarray(g.numpy()) - fd) / np.maximum(1.0, np.abs(fd))
                np.testing.assert_array_less(err, 1e-5, err_msg=name)


def test_eager_gradient_through_a_product_and_a_python_exponent() -> None:
    """Eagerly (no jax.jit around it): L = sum(|z w|^2) + sum(imag(z ** 2)), whose JAX-style
    gradients are 2 conj(z) |w|^2 - 2i z and 2 conj(w) |z|^2 (written out by hand)."""
    z = np.asarray([0.3 + 0.4j, -1.2 + 0.7j, 0j, 2 - 3j], np.complex128)
    w = np.asarray([1 - 1j, 0.5j, -2 + 0j, 0.1 + 0.2j], np.complex128)

    def loss(a: jt.Tensor, b: jt.Tensor) -> jt.Tensor:
        p = a * b
        return jt.sum(jt.real(p * jt.conj(p))) + jt.sum(jt.imag(a ** 2))

    gz, gw = jt.grad(loss, argnums=(0, 1))(jt.asarray(z), jt.asarray(w))
    np.testing.assert_allclose(gz.numpy(), 2 * z.conj() * abs(w) ** 2 - 2j * z, rtol=1e-12)
    np.testing.assert_allclose(gw.numpy(), 2 * w.conj() * abs(z) ** 2, rtol=1e-12)


def test_fft_convolution_gradient() -> None:
    """irfft(rfft(x) * rfft(k)): the gradient with respect to the signal and the kernel is
    JAX's and the finite differences' (the circular convolution's)."""
    n = 8
    x = _RNG.standard_normal(n)
    kern = _RNG.standard_normal(n)
    target = _RNG.standard_normal(n)

    def loss(a: Any, b: Any, xp: Any) -> Any:
        y = xp.fft.irfft(xp.fft.rfft(a) * xp.fft.rfft(b), n=n)
        return xp.sum((y - xp.asarray(target)) ** 2)

    got = _run(jt.grad(lambda a, b: loss(a, b, jt), argnums=(0, 1)),
               jt.asarray(x), jt.asarray(kern))
    want = _run(jax.grad(lambda a, b: loss(a, b, jnp), argnums=(0, 1)),
                jnp.asarray(x), jnp.asarray(kern))
    h = 1e-6
    for i, (g, v) in enumerate(zip(got, want)):
        g = np.asarray(g.numpy())
        np.testing.assert_allclose(g, np.asarray(v), rtol=1e-10, atol=1e-10)
        fd = np.empty(n)
        for j in range(n):
            e = np.zeros(n)
            e[j] = h
            args_p = [x + e, kern] if i == 0 else [x, kern + e]
            args_m = [x - e, kern] if i == 0 else [x, kern - e]
            fd[j] = (loss(*args_p, np) - loss(*args_m, np)) / (2 * h)
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-6)


def test_special_values_are_unchanged_by_the_derivative() -> None:
    """The C99 values survive the custom derivative, eagerly and under jax.jit: the
    infinity recovered from (inf + 0j) * (1 + 1j), exp(-inf + 1j), sqrt(-inf + 2j)."""
    cases = [
        (jt.multiply, (complex(np.inf, 0), 1 + 1j), np.multiply),
        (jt.exp, (complex(-np.inf, 1),), np.exp),
        (jt.sqrt, (complex(-np.inf, 2),), np.sqrt),
        (jt.tanh, (complex(np.inf, np.inf),), np.tanh),
    ]
    for f, args, oracle in cases:
        want = oracle(*[np.complex128(a) for a in args])
        np.testing.assert_equal(complex(f(*[jt.asarray(a) for a in args])), want)
    z = jt.asarray([complex(np.inf, 0), 1 + 1j])
    np.testing.assert_equal(complex(jax.jit(lambda t: t[0] * t[1])(z)),
                            np.complex128(complex(np.inf, 0)) * np.complex128(1 + 1j))
