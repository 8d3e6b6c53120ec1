"""Arrays that leave a Tensor (to JAX, NumPy, DLPack) are never invalidated or changed by
later writes to the Tensor, whatever the write kind (writes may donate the Tensor's buffer,
but never one that escaped); JAX's functions and ``jax.lax`` take Tensors; NumPy copies
are writeable, NumPy views read-only."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import jaxtensor as jt


def _jit_write(t: jt.Tensor) -> None:
    @jt.jit
    def f(x):
        x[1:3] = -5.0
        x += 1.0

    f(t)


WRITES = {
    "scalar": lambda t: t.__setitem__(2, 9.0),  # queued
    "slice": lambda t: t.__setitem__(slice(1, 3), 9.0),
    "view": lambda t: t[1:].__setitem__(0, 9.0),
    "advanced": lambda t: t.__setitem__([0, 2], 9.0),
    "iadd": lambda t: t.__iadd__(1.0),
    "jit": _jit_write,
}

ESCAPES = {
    "to_jax": lambda t: t.to_jax(),
    "__jax_array__": lambda t: t.__jax_array__(),
    "jnp.asarray": lambda t: jnp.asarray(t),
    "jnp.array(copy=False)": lambda t: jnp.array(t, copy=False),
    "np.asarray": lambda t: np.asarray(t),
    "np.from_dlpack": lambda t: np.from_dlpack(t),
    "jnp.from_dlpack": lambda t: jnp.from_dlpack(t),
    "jax.device_put": lambda t: jax.device_put(t),
    "jax.device_put(device)": lambda t: jax.device_put(t, jax.devices()[0]),
    "tree_leaves": lambda t: jax.tree_util.tree_leaves(t)[0],
    "jax.jit identity": lambda t: jax.jit(lambda x: x)(t),
    "lax.convert_element_type": lambda t: lax.convert_element_type(t, t.dtype),
    "lax.add": lambda t: lax.add(t, jnp.zeros((), t.dtype)),
}


@pytest.mark.parametrize("write", list(WRITES), ids=list(WRITES))
@pytest.mark.parametrize("escape", list(ESCAPES), ids=list(ESCAPES))
def test_escaped_array_survives_writes(escape: str, write: str):
    t = jt.arange(6.0)
    if write == "scalar":
        t[0] = 0.0  # a queued write pending when the value escapes
    held = ESCAPES[escape](t)
    before = np.arange(6.0, dtype=np.float32)
    WRITES[write](t)
    WRITES[write](t)
    np.testing.assert_array_equal(np.asarray(held), before)
    assert not np.array_equal(np.asarray(t), before)
    if isinstance(held, jax.Array):
        assert not held.is_deleted()
    if isinstance(held, jt.Tensor):  # writing into what came back leaves t alone
        now = np.asarray(t).copy()
        WRITES[write](held)
        np.testing.assert_array_equal(np.asarray(t), now)


@pytest.mark.parametrize("write", list(WRITES), ids=list(WRITES))
def test_escaped_view_values_survive_writes(write: str):
    t = jt.arange(6.0)
    held = [jnp.asarray(t[1:4]), np.asarray(t.reshape(2, 3)), jax.device_put(t[::2]),
            jnp.asarray(t[...])]
    before = [np.array(h) for h in held]
    WRITES[write](t)
    WRITES[write](t)
    for h, b in zip(held, before):
        np.testing.assert_array_equal(np.asarray(h), b)


def test_numpy_view_is_read_only_and_copies_are_writeable():
    t = jt.arange(4.0)
    view = np.asarray(t)
    assert not view.flags.writeable
    with pytest.raises(ValueError):
        view[0] = 1.0
    copies = [np.array(t), np.asarray(t, copy=True), np.array(t, dtype=np.float64),
              t.numpy(), np.asarray(t).copy(), np.array(t[1:3]), np.array(t.reshape(2, 2).T)]
    for c in copies:
        assert c.flags.writeable and c.flags.owndata or c.base is not None and c.flags.writeable
        c[0] = 100.0
    np.testing.assert_array_equal(np.asarray(t), np.arange(4.0))
    assert t.numpy().dtype == t.dtype


def test_numpy_copy_is_independent_of_later_writes():
    t = jt.arange(4.0)
    c = np.array(t)
    t[0] = 7.0
    t += 1.0
    np.testing.assert_array_equal(c, np.arange(4.0))


def test_numpy_output_arguments_write_into_a_copy():
    """scipy.signal/sklearn idiom: an ``out=`` array made from a Tensor."""
    t = jt.asarray([1.0, 4.0, 9.0])
    out = np.array(t)
    np.sqrt(out, out=out)
    np.testing.assert_array_equal(out, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(np.asarray(t), [1.0, 4.0, 9.0])


def test_jax_functions_take_tensors():
    t = jt.asarray([1.0, -2.0, 3.0], dtype=jt.float32)
    a = np.asarray([1.0, -2.0, 3.0], np.float32)
    np.testing.assert_array_equal(np.asarray(lax.neg(t)), -a)
    np.testing.assert_array_equal(np.asarray(lax.add(t, t)), a + a)
    np.testing.assert_array_equal(np.asarray(lax.max(t, jnp.zeros(3, jnp.float32))), np.maximum(a, 0))
    np.testing.assert_array_equal(
        np.asarray(lax.dynamic_slice(t, (jt.asarray(1),), (2,))), a[1:])
    np.testing.assert_array_equal(np.asarray(jax.jit(lax.abs)(t)), np.abs(a))
    np.testing.assert_allclose(np.asarray(jnp.sin(t)), np.sin(a), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(jnp.zeros(3).at[1].set(t[0])), [0, 1, 0])
    moved = jax.device_put(t)
    assert isinstance(moved, jt.Tensor)
    np.testing.assert_array_equal(np.asarray(moved), a)
