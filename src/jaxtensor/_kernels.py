"""Compiled kernels cached by static structure, and the one update path into a storage.

Eager calls go through ``jax.jit`` functions cached here by a static key (view structure,
index structure); everything that varies between calls (start offsets, index arrays,
values) is an argument, so a loop ``x[i] = v`` compiles once. Inside a trace the same
functions are called directly and become part of the caller's computation.

:func:`update` is the only way a storage's array is replaced by a computed value: the old
buffer is donated to the kernel when nobody else can hold it (``Storage.can_donate``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp

from . import _view
from ._storage import Storage

Tracer = jax.core.Tracer

_pure: dict[Hashable, Callable] = {}
_donating: dict[Hashable, Callable] = {}
_keeping: dict[Hashable, Callable] = {}


def _traced(args: tuple) -> bool:
    for a in args:
        if isinstance(a, Tracer):
            return True
    return False


def call(key: Hashable, build: Callable[[], Callable], *args: Any) -> Any:
    """Run the pure function ``build()`` on ``args``, compiled once per ``key``.

    Inside a trace the compiled function simply becomes part of the caller's computation.
    """
    fn = _pure.get(key)
    if fn is None:
        fn = _pure[key] = jax.jit(build())
    return fn(*args)


def update(storage: Storage, key: Hashable, build: Callable[[], Callable], *args: Any) -> None:
    """``storage.array = build()(storage.array, *args)``, donating the old buffer if safe."""
    donate = storage.can_donate()
    arr = storage.array
    if isinstance(arr, Tracer) or _traced(args):
        new = build()(arr, *args)
    else:
        cache = _donating if donate else _keeping
        fn = cache.get(key)
        if fn is None:
            fn = cache[key] = jax.jit(build(), donate_argnums=(0,) if donate else ())
        del arr
        new = fn(storage.array, *args)
    storage.set(new)


# -- views -----------------------------------------------------------------------------
def read_view(storage: Storage, view: _view.View) -> Any:
    arr = storage.array
    dyn = view.dyn()
    if isinstance(arr, Tracer) or isinstance(dyn, Tracer):
        return _view.chain_forward(view.steps, view.comp, arr, dyn)
    cache = view.fast
    if cache is None:
        cache = view.fast = {}
    fn = cache.get("read")
    if fn is None:
        key = ("read", view.key)
        fn = _pure.get(key)
        if fn is None:
            fn = _pure[key] = jax.jit(partial(_view.chain_forward, view.steps, view.comp))
        cache["read"] = fn
    return fn(arr, dyn)


def _fit(v: Any, dtype: Any, shape: tuple[int, ...]) -> Any:
    """Cast ``v`` to ``dtype`` and broadcast it to ``shape`` (leading 1-axes dropped)."""
    v = jnp.asarray(v)
    if v.dtype != dtype:
        v = v.astype(dtype)
    if v.ndim > len(shape):
        v = v.reshape(v.shape[v.ndim - len(shape):])
    if v.shape != shape:
        v = jnp.broadcast_to(v, shape)
    return v


def _view_dtype(base: Any, comp: str | None) -> Any:
    return base.dtype if comp is None else jnp.real(jnp.zeros((), base.dtype)).dtype


def write_view(storage: Storage, view: _view.View, value: Any) -> None:
    """Replace the elements ``view`` covers by ``value`` (broadcast, cast to the dtype)."""
    steps, comp, shape = view.steps, view.comp, view.shape

    def build() -> Callable:
        def write(base: Any, dyn: Any, v: Any) -> Any:
            v = _fit(v, _view_dtype(base, comp), shape)
            return _view.chain_backward(steps, comp, base, dyn, v)

        return write

    update(storage, ("write", view.key), build, view.dyn(), value)


def assign(storage: Storage, view: _view.View | None, value: Any) -> None:
    """Replace a whole tensor's value (an in-place operator's result) through its view."""
    if view is not None:
        write_view(storage, view, value)
        return
    arr = storage.array
    if value.dtype != arr.dtype or value.shape != arr.shape:
        dtype, shape = arr.dtype, tuple(arr.shape)
        value = call(("fit", dtype, shape), lambda: partial(_fit, dtype=dtype, shape=shape), value)
    storage.set(value)


def write_indexed(
    storage: Storage,
    view: _view.View | None,
    key: Hashable,
    scatter: Callable[[], Callable],
    value: Any,
    dyn: list[Any],
) -> None:
    """Scatter ``value`` into the tensor (``view`` of ``storage``) at an advanced index."""
    if view is None:
        update(storage, ("scatter", key), scatter, value, *dyn)
        return
    steps, comp = view.steps, view.comp

    def build() -> Callable:
        inner = scatter()

        def write(base: Any, vdyn: Any, v: Any, *idyn: Any) -> Any:
            t = _view.chain_forward(steps, comp, base, vdyn)
            t = inner(t, v, *idyn)
            return _view.chain_backward(steps, comp, base, vdyn, t)

        return write

    update(storage, ("scatter", view.key, key), build, view.dyn(), value, *dyn)
