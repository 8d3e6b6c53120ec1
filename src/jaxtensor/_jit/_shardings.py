"""``in_shardings``/``out_shardings`` of ``jaxtensor.jit``.

The compiled function takes storages, not the user's arguments, so the two options are
applied around it rather than passed to ``jax.jit``:

* ``in_shardings`` (a pytree prefix of the positional arguments, ``None`` = leave as is)
  *places* the arguments before the call: a Tensor whose storage is laid out otherwise has
  its storage moved there, in place, once (later calls find it there, and its writes are
  written back with that sharding); a view's base must be placed instead. Arrays are
  ``jax.device_put``.
* ``out_shardings`` (a pytree prefix of the results) constrains the results inside the
  computation (``jax.lax.with_sharding_constraint``); a constrained result is a new
  Tensor, never a view of an argument.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax

from .._core import Tensor
from .._core import storage_layout as _layout


class _PlacementError(ValueError):
    pass


def _is_none(x: Any) -> bool:  # None marks "leave as is" in a prefix tree
    return x is None


def _is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


def _prefix_map(f: Callable[[Any, Any], Any], prefix: Any, tree: Any, what: str) -> Any:
    try:
        return jax.tree_util.tree_map(
            lambda s, sub: sub if s is None else jax.tree_util.tree_map(
                lambda leaf: f(s, leaf), sub, is_leaf=_is_tensor),
            prefix, tree, is_leaf=_is_none)
    except _PlacementError:
        raise
    except ValueError as e:
        raise ValueError(f"jaxtensor.jit: {what} must be a pytree prefix of the "
                         f"{'arguments' if what == 'in_shardings' else 'results'}: {e}") from None


def _place(s: Any, leaf: Any) -> Any:
    if isinstance(leaf, Tensor):
        v = leaf._value()
        if v.sharding.is_equivalent_to(s, v.ndim):
            return leaf
        if leaf._view is not None:
            raise _PlacementError(
                "jaxtensor.jit(in_shardings=...) names a view whose storage is laid out "
                "otherwise; place its base Tensor (jt.device_put / in_shardings on the base)"
            )
        new = jax.device_put(v, s)
        st = leaf._storage
        st.layout = _layout(new)  # (the storage's layout changes with it)
        st.replace(new)
        return leaf
    if hasattr(leaf, "__array__"):
        return jax.device_put(leaf, s)
    return leaf


def _constrain(s: Any, leaf: Any) -> Any:
    if isinstance(leaf, Tensor):
        return Tensor._wrap(jax.lax.with_sharding_constraint(leaf._value(), s))
    if isinstance(leaf, (jax.Array, jax.core.Tracer)):
        return jax.lax.with_sharding_constraint(leaf, s)
    return leaf


def constrain_results(fn: Callable, out_shardings: Any) -> Callable:
    """``fn`` with its results laid out by ``out_shardings`` (a prefix of the results)."""

    @functools.wraps(fn)
    def constrained(*args: Any, **kwargs: Any) -> Any:
        return _prefix_map(_constrain, out_shardings, fn(*args, **kwargs), "out_shardings")

    return constrained


def place_arguments(jitted: Callable, in_shardings: Any) -> Callable:
    """``jitted`` placing its positional arguments by ``in_shardings`` before each call."""
    prefix = tuple(in_shardings) if isinstance(in_shardings, list) else in_shardings

    @functools.wraps(jitted)
    def placed(*args: Any, **kwargs: Any) -> Any:
        p = prefix if isinstance(prefix, tuple) else (prefix,) * len(args)
        if len(p) < len(args):
            p = p + (None,) * (len(args) - len(p))
        args = _prefix_map(_place, p[:len(args)], args, "in_shardings")
        return jitted(*args, **kwargs)

    return placed
