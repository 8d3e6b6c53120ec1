"""Compiled kernels cached by static structure, and the one update path into a storage.

Eager calls go through ``jax.jit`` functions cached here by a static key (view structure,
index structure); everything that varies between calls (start offsets, index arrays,
values) is an argument, so a loop ``x[i] = v`` compiles once. Inside a trace the same
functions are called directly and become part of the caller's computation.

:func:`update` is how a storage's array is replaced by a computed value (through
:meth:`Storage.update`, the one read-modify-write path): the old
buffer is donated to the kernel when nobody else can hold it (``Storage.donatable``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp

from . import _cache, _view
from ._storage import Storage

Tracer = jax.core.Tracer

_pure = _cache.cache("pure kernels", 4096)
_families = _cache.cache("write kernels", 4096)


def call(key: Hashable, build: Callable[[], Callable], *args: Any) -> Any:
    """Run the pure function ``build()`` on ``args``, compiled once per ``key``.

    Inside a trace the compiled function simply becomes part of the caller's computation.
    """
    fn = _pure.get(key)
    if fn is None:
        fn = _pure[key] = jax.jit(build())
    return fn(*args)


def placed(key: Hashable, build: Callable[[], Callable], device: Any, *args: Any) -> Any:
    """:func:`call` of a kernel whose result is made on ``device`` (None: the default device,
    uncommitted; a ``jax.Device`` or a ``Sharding``: committed there, as ``jnp``'s
    ``device=`` makes it). For creation functions, which have no input to follow."""
    k = (key, device)
    fn = _pure.get(k)
    if fn is None:
        if device is None:
            fn = jax.jit(build())
        else:
            out = (device if isinstance(device, jax.sharding.Sharding)
                   else jax.sharding.SingleDeviceSharding(device))
            fn = jax.jit(build(), out_shardings=out)
        _pure[k] = fn
    return fn(*args)


class Kernels:
    """The kernels of one write: ``kernels(None)`` the plain function (for traced values),
    ``kernels(True)``/``kernels(False)`` it compiled, donating / keeping its first argument.
    The ``pick`` argument of :meth:`Storage.update`."""

    __slots__ = ("build", "pure", "donating", "keeping")

    def __init__(self, build: Callable[[], Callable]) -> None:
        self.build = build
        self.pure: Callable | None = None
        self.donating: Callable | None = None
        self.keeping: Callable | None = None

    def __call__(self, donate: bool | None) -> Callable:
        if donate is None:
            fn = self.pure
            if fn is None:
                fn = self.pure = self.build()
        elif donate:
            fn = self.donating
            if fn is None:
                fn = self.donating = jax.jit(self.build(), donate_argnums=(0,))
        else:
            fn = self.keeping
            if fn is None:
                fn = self.keeping = jax.jit(self.build())
        return fn


def kernels(key: Hashable, build: Callable[[], Callable]) -> Kernels:
    """The cached :class:`Kernels` of ``key`` (``build`` makes its plain function)."""
    k = _families.get(key)
    if k is None:
        k = _families[key] = Kernels(build)
    return k


def update(storage: Storage, key: Hashable, build: Callable[[], Callable], *args: Any) -> None:
    """``storage``'s value becomes ``build()(value, *args)``, compiled once per ``key``, the
    old buffer donated when safe (see :meth:`Storage.update`)."""
    storage.update(kernels(key, build), *args)


# -- views -----------------------------------------------------------------------------
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


def view_writer(steps: tuple, comp: str | None, shape: tuple[int, ...]) -> Callable:
    """The write kernel of a view structure: ``write(base, dyn, v)`` puts ``v`` (cast and
    broadcast) where the view lies; ``write.gated(ok, base, dyn, v)`` writes only if the
    traced bool ``ok`` holds, at the cost of the region written (otherwise the region's own
    values are written back: ``jaxtensor.jit``'s checks). The one builder of the kernel key
    ``("write", view.key)``, whichever path asks first."""

    def write(base: Any, dyn: Any, v: Any) -> Any:
        v = _fit(v, _view_dtype(base, comp), shape)
        return _view.chain_backward(steps, comp, base, dyn, v)

    def gated(ok: Any, base: Any, dyn: Any, v: Any) -> Any:
        v = _fit(v, _view_dtype(base, comp), shape)
        if steps and type(steps[0]) is _view.AxisStep:  # (the select fuses into the write)
            return _view.chain_backward(steps, comp, base, dyn, v, ok)
        old = _view.chain_forward(steps, comp, base, dyn, True)
        return write(base, dyn, jnp.where(ok, v, old))

    write.gated = gated  # type: ignore[attr-defined]
    return write


def view_kernels(view: _view.View) -> Kernels:
    """The cached write kernels of ``view``'s structure."""
    steps, comp, shape = view.steps, view.comp, view.shape
    return kernels(("write", view.key), lambda: view_writer(steps, comp, shape))


def write_view(storage: Storage, view: _view.View, value: Any) -> None:
    """Replace the elements ``view`` covers by ``value`` (broadcast, cast to the dtype)."""
    storage.update(view_kernels(view), view.dyn(), value)


def assign(storage: Storage, view: _view.View | None, value: Any) -> None:
    """Replace a whole tensor's value (an in-place operator's result) through its view."""
    if view is not None:
        write_view(storage, view, value)
        return
    arr = storage.array
    if value.dtype != arr.dtype or value.shape != arr.shape:
        dtype, shape = arr.dtype, tuple(arr.shape)
        value = call(("fit", dtype, shape), lambda: partial(_fit, dtype=dtype, shape=shape), value)
    del arr
    storage.replace(value)


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
            t = _view.chain_forward(steps, comp, base, vdyn, True)
            t = inner(t, v, *idyn)
            return _view.chain_backward(steps, comp, base, vdyn, t)

        return write

    update(storage, ("scatter", view.key, key), build, view.dyn(), value, *dyn)
