"""Tensors refuse to hash, as NumPy arrays, ``jax.Array`` and array_api_strict arrays do.

``==`` compares values, so a hash by identity let equal 0-D elements miss each other as dict
keys and set members silently. Every Tensor (any dtype, rank, view, empty, traced) raises
``TypeError`` whose message says to key on ``.item()``; the oracles raise ``TypeError`` too.
"""

from __future__ import annotations

import array_api_strict as xps
import jax.numpy as jnp
import numpy as np
import pytest

import jaxtensor as jt

DTYPES = ["bool", "int8", "uint16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128"]
SHAPES = [(), (1,), (3,), (2, 3), (0,), (2, 0, 1)]


def _views(t: jt.Tensor) -> list[jt.Tensor]:
    out = [t, t[...]]
    if t.ndim:
        out += [t[::-1], jt.flip(t), t.T if t.ndim == 2 else t[None]]
        if t.shape[0]:
            out.append(t[0])
    return out


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_tensor_refuses_like_the_oracles(dtype: str, shape: tuple) -> None:
    a = (np.arange(int(np.prod(shape))) % 3).reshape(shape).astype(jnp.dtype(dtype))
    oracles = [a, jnp.asarray(a)]
    if dtype not in ("float16", "bfloat16"):
        oracles.append(xps.asarray(a))
    for o in oracles:
        with pytest.raises(TypeError):
            hash(o)
    for t in _views(jt.asarray(a)):
        with pytest.raises(TypeError, match=r"unhashable.*item\(\)"):
            hash(t)
        with pytest.raises(TypeError, match="unhashable"):
            {t: 1}  # noqa: B018 - building the dict is the check
        with pytest.raises(TypeError, match="unhashable"):
            {t}  # noqa: B018


def test_item_keys_match_where_identity_did_not() -> None:
    x = jt.asarray([1, 2, 1, 3])
    counts: dict = {}
    for i in range(x.shape[0]):
        counts[x[i].item()] = counts.get(x[i].item(), 0) + 1
    assert counts == {1: 2, 2: 1, 3: 1}
    assert x[0].item() in {x[2].item()}


def test_under_jit_the_traced_tensor_refuses() -> None:
    @jt.jit
    def f(t: jt.Tensor) -> jt.Tensor:
        hash(t)
        return t

    with pytest.raises(TypeError, match="unhashable"):
        f(jt.ones(2))


def test_jaxtensor_does_not_hash_its_tensors() -> None:
    """The paths that key on Tensor arguments (jit's storages and repeats, transforms,
    ``in``) keep working without a Tensor hash."""
    x = jt.arange(4.0)
    v = x[1:]

    @jt.jit
    def g(a: jt.Tensor, b: jt.Tensor, c: jt.Tensor) -> jt.Tensor:
        a[0] = 10.0
        return a + b + c

    np.testing.assert_array_equal(np.asarray(g(x, x, v[:1])), [21.0, 3.0, 5.0, 7.0])
    assert x.tolist() == [10.0, 1.0, 2.0, 3.0]
    assert jt.grad(lambda t: jt.sum(t * t))(jt.ones(3)).tolist() == [2.0, 2.0, 2.0]
    assert jt.vmap(lambda t: t * 2)(jt.ones((2, 2))).tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert 2.0 in x and x[2] in [x[2]]
