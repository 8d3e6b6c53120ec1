"""The loop programs of ``tests/loop_ports.py`` (issue 28's benchmark suite): each idiomatic
jaxtensor port, called at the top level with the default checks, against its NumPy original
(the same Python loops over NumPy arrays), on two calls with fresh inputs (a second call must
not reuse anything of the first that its own inputs would not produce); the hand-written
``jax.jit`` + ``lax`` versions the benchmark compares against, against the same oracle; and
the gradient of the RK4 integrator through ``jt.grad``, on a first and a later call, against
``jax.grad`` of the ``lax`` version and central differences of the NumPy original.

Sizes are tiny: what is tested is what each call computes, not its speed.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

import jaxtensor as jt
from loop_ports import PROGRAMS, rk4_loss_grad_lax, rk4_loss_numpy, rk4_loss_port


def _numpy_result(p, inputs):
    return p.numpy(*p.args(inputs, lambda a: a))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_port_matches_numpy_on_two_calls_with_fresh_inputs(name: str) -> None:
    p = PROGRAMS[name]
    for seed in (1, 2):
        inputs = p.make_inputs(np.random.default_rng(seed), p.sizes["test"])
        want = _numpy_result(p, inputs)
        p.check(p.port(*p.port_args(inputs)), want)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_lax_version_matches_numpy(name: str) -> None:
    p = PROGRAMS[name]
    inputs = p.make_inputs(np.random.default_rng(3), p.sizes["test"])
    p.check(p.lax(*p.lax_args(inputs)), _numpy_result(p, inputs))


@pytest.mark.parametrize("check", [True, False])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_port_inside_jaxtensor_jit_matches_numpy(name: str, check: bool) -> None:
    """What the benchmark's ``jt.jit`` columns run (the port, or the part of it that
    ``jaxtensor.jit`` traces), with and without checks."""
    p = PROGRAMS[name]
    f = jt.jit(p.traced or p.port, static_argnums=p.static or None, check_bounds=check)
    inputs = p.make_inputs(np.random.default_rng(9), p.sizes["test"])
    p.check(f(*p.port_args(inputs)), _numpy_result(p, inputs))


def _central_differences(theta: np.ndarray, rest: tuple, eps: float = 1e-6) -> np.ndarray:
    out = np.zeros_like(theta)
    for k in range(theta.size):
        hi, lo = theta.copy(), theta.copy()
        hi[k] += eps
        lo[k] -= eps
        out[k] = (rk4_loss_numpy(hi, *rest) - rk4_loss_numpy(lo, *rest)) / (2 * eps)
    return out


def _check_rk4_gradient(seed: int) -> None:
    p = PROGRAMS["rk4"]
    theta, y0, dt, steps = p.make_inputs(np.random.default_rng(seed), p.sizes["test"])
    got = jt.grad(rk4_loss_port)(jt.asarray(theta), jt.asarray(y0), dt, steps)
    assert got.dtype == jt.float64
    want = rk4_loss_grad_lax(jnp.asarray(theta), jnp.asarray(y0), dt, steps)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-10)
    np.testing.assert_allclose(np.asarray(got), _central_differences(theta, (y0, dt, steps)),
                               rtol=1e-6)


def test_rk4_gradient_right_on_a_first_call() -> None:
    _check_rk4_gradient(4)


def test_rk4_gradient_right_on_a_later_call() -> None:
    _check_rk4_gradient(5)
    _check_rk4_gradient(6)


def test_rk4_plain_call_after_a_gradient() -> None:
    _check_rk4_gradient(7)
    p = PROGRAMS["rk4"]
    inputs = p.make_inputs(np.random.default_rng(8), p.sizes["test"])
    p.check(p.port(*p.port_args(inputs)), _numpy_result(p, inputs))
