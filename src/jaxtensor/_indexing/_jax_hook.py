"""JAX's own indexing with Tensor indices: ``jnp_array[t]``, ``jnp_array.at[t]``, ``ufunc.at``.

JAX's index parser accepts only ``jax.Array`` and ``np.ndarray`` as array indices. A Tensor
is neither, and must not claim to be a ``jax.Array``: array-api-compat and the libraries
built on it dispatch on that check, and would hand a Tensor to ``jax.numpy``. Every path of
the parser (reads, ``.at[]`` updates, ``ufunc.at``) starts at one private function of JAX's
(``_jax_private.jnp_indexing.eliminate_deprecated_list_indexing``); :func:`install` wraps
that function so that a Tensor index (alone or in a tuple) is replaced by its value, as
``t.to_jax()`` gives it (so the value is marked exported: a later write to ``t`` never
donates a buffer JAX still holds). Every other index reaches JAX's function unchanged.

If a JAX release moves that function, nothing is installed, JAX's own ``IndexError`` stays,
and ``t.to_jax()`` is the way round.
"""

from __future__ import annotations

from typing import Any

from .._core import Tensor
from .._core._jax_private import jnp_indexing

_HOOK = "_jaxtensor_tensor_indices"


def _to_jax(idx: Any) -> Any:
    if isinstance(idx, Tensor):
        return idx.to_jax()
    if type(idx) is tuple:
        for i in idx:
            if isinstance(i, Tensor):
                return tuple([j.to_jax() if isinstance(j, Tensor) else j for j in idx])
    return idx


def install() -> None:
    """Make JAX's index parser take Tensors (once; nothing where JAX has moved it)."""
    if jnp_indexing is None:
        return
    original = jnp_indexing.eliminate_deprecated_list_indexing
    if getattr(original, _HOOK, False):
        return

    def eliminate_deprecated_list_indexing(idx: Any) -> Any:
        return original(_to_jax(idx))

    setattr(eliminate_deprecated_list_indexing, _HOOK, True)
    eliminate_deprecated_list_indexing.__wrapped__ = original  # type: ignore[attr-defined]
    jnp_indexing.eliminate_deprecated_list_indexing = eliminate_deprecated_list_indexing

