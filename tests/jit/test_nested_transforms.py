"""Transforms nested in ``jaxtensor.jit`` or ``jaxtensor.vmap`` as at the top level: a
function that writes its argument, or a Tensor it closes over, differentiated inside them.

``jt.vmap(jt.grad(f))`` where ``f`` writes its argument, ``jt.jit(jt.grad(f))`` where it
also reads at a traced index (checked), and ``jt.jit(jt.grad(f))`` where it writes a
closed-over Tensor (straight or in a loop) raised ``TracerLeakError``: the nested
transform wrote its copies through the trace around. Oracles: the top-level ``jt.grad`` on
each member (its gradients and what it leaves in the closed-over Tensor), and the same
function written with ``jax.numpy``'s ``.at[]`` under ``jax.vmap(jax.grad(...))``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxtensor as jt

pytestmark = pytest.mark.filterwarnings("ignore::jaxtensor.RecompileWarning")


# functions of w (3 elements) that write w, each with its jax.numpy twin
def set_first(w: Any) -> Any:
    w[0] = 1.0
    return jt.sum(w * w)


def set_first_jnp(w: Any) -> Any:
    w = w.at[0].set(1.0)
    return jnp.sum(w * w)


def scale_tail(w: Any) -> Any:
    w[1:] *= w[0]
    return jt.sum(w * w)


def scale_tail_jnp(w: Any) -> Any:
    w = w.at[1:].multiply(w[0])
    return jnp.sum(w * w)


def add_at(w: Any) -> Any:
    w[[0, 2, 0]] += w[1]
    return jt.sum(jt.sin(w))


def add_at_jnp(w: Any) -> Any:
    w = w.at[jnp.asarray([0, 2])].add(w[1])  # (a repeated index adds once, as NumPy's)
    return jnp.sum(jnp.sin(w))


def masked(w: Any) -> Any:
    w[w > 0.5] = 0.0
    return jt.sum(w * w * w)


def masked_jnp(w: Any) -> Any:
    w = jnp.where(w > 0.5, 0.0, w)
    return jnp.sum(w * w * w)


PAIRS: dict[str, tuple[Callable, Callable]] = {
    "set": (set_first, set_first_jnp), "scale": (scale_tail, scale_tail_jnp),
    "add at": (add_at, add_at_jnp), "mask": (masked, masked_jnp),
}


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(sorted(PAIRS)), seed=st.integers(0, 2**16),
       how=st.sampled_from(["vmap(grad)", "jit(vmap(grad))", "vmap(value_and_grad)"]))
def test_per_example_gradients_of_a_function_writing_its_argument(name: str, seed: int,
                                                                  how: str) -> None:
    f, f_jnp = PAIRS[name]
    w = np.random.default_rng(seed).uniform(-1, 1, (4, 3))
    want = np.asarray(jax.vmap(jax.grad(f_jnp))(jnp.asarray(w)))
    if how == "vmap(grad)":
        got = jt.vmap(jt.grad(f))(jt.asarray(w))
    elif how == "jit(vmap(grad))":
        got = jt.jit(jt.vmap(jt.grad(f)))(jt.asarray(w))
    else:
        got = jt.vmap(jt.value_and_grad(f))(jt.asarray(w))[1]
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)


def read_at(x: jt.Tensor, i: Any) -> jt.Tensor:
    x[0] = 1.0
    return jt.sum(x * x) + x[i] * 3.0


@pytest.mark.parametrize("checks", [True, False])
@pytest.mark.parametrize("i", [1, 3, -2])
def test_jit_of_grad_writing_its_argument_with_a_checked_index(i: int, checks: bool) -> None:
    x = jt.arange(4.0)
    want = jt.grad(read_at)(x, i)
    f = jt.jit(jt.grad(read_at), check_bounds=checks)
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(f(x, i)), np.asarray(want))
    if checks:
        with pytest.raises(IndexError, match="index 9 is out of bounds"):
            f(x, 9)
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]


def _closed_straight(acc: jt.Tensor) -> Callable:
    def f(x: jt.Tensor) -> jt.Tensor:
        acc[...] *= x
        return jt.sum(acc * x)
    return f


def _closed_loop(acc: jt.Tensor) -> Callable:
    def f(x: jt.Tensor) -> jt.Tensor:
        def body(i: Any) -> None:
            acc[i] = x[i] * 2.0 + acc[i - 1]
        jt.fori_loop(1, 4, body)
        return jt.sum(acc * acc)
    return f


@pytest.mark.parametrize("make", [_closed_straight, _closed_loop])
@pytest.mark.parametrize("how", ["jit(grad)", "jit(value_and_grad)", "jit(grad) unchecked"])
def test_jit_of_grad_writing_a_closed_over_tensor_as_the_top_level_grad(
        make: Callable, how: str) -> None:
    x = jt.asarray([1.5, 2.0, -1.0, 0.5])
    acc = jt.ones(4)
    want = np.asarray(jt.grad(make(acc))(x))
    want_acc = acc.tolist()
    for _ in range(2):  # (the compiled call again: a fresh trace each time the same)
        acc[...] = 1.0
        f = make(acc)
        if how == "jit(grad)":
            got = jt.jit(jt.grad(f))(x)
        elif how == "jit(value_and_grad)":
            got = jt.jit(jt.value_and_grad(f))(x)[1]
        else:
            got = jt.jit(jt.grad(f), check_bounds=False)(x)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
        assert acc.tolist() == want_acc
