"""Tensor methods about data exchange and devices (bound by ``_methods``): ``__dlpack__``,
``__dlpack_device__``, ``to_device``; and the namespace function ``device_put``.
"""

from __future__ import annotations

import builtins
from typing import Any

import jax
import jax.numpy as jnp

from ._core import Tensor
from ._core._conversion import _on_device, as_device, asarray

__all__ = ["device_put"]

Tracer = jax.core.Tracer


def _dlpack(
    self: Tensor,
    /,
    *,
    stream: Any = None,
    max_version: tuple[int, int] | None = None,
    dl_device: Any = None,
    copy: builtins.bool | None = None,
) -> Any:
    """Export as a DLPack capsule (the consumer side is ``from_dlpack``).

    The buffer is shared unless ``copy=True``; a shared buffer is marked exported, so later
    writes to this Tensor never change what the consumer sees. ``max_version`` below
    ``(1, 0)`` gives the legacy unversioned capsule.
    """
    v = self._value()
    if isinstance(v, Tracer):
        raise BufferError("cannot export a traced Tensor through DLPack inside jit/grad/vmap")
    if dl_device is not None:
        here = v.__dlpack_device__()
        if (int(dl_device[0]), int(dl_device[1])) != (int(here[0]), int(here[1])):
            if copy is False:
                raise BufferError(
                    f"__dlpack__(copy=False) cannot export to device {dl_device}: the Tensor "
                    f"lives on {here}"
                )
            raise BufferError(
                f"__dlpack__ cannot move data to DLPack device {dl_device}; move the Tensor "
                "first with to_device()"
            )
    if copy:
        v = jnp.array(v, copy=True)
        v.block_until_ready()
    elif v is self._storage.array:
        self._storage.exported = True
    if max_version is None or tuple(max_version) < (1, 0):
        return v.__dlpack__(stream=stream)
    return v.__dlpack__(stream=stream, max_version=tuple(max_version))


def _dlpack_device(self: Tensor, /) -> tuple[Any, int]:
    """``(device type, device id)`` as DLPack enumerates them (CPU is ``(1, 0)``)."""
    v = self._value()
    if isinstance(v, Tracer):
        raise BufferError("a traced Tensor has no DLPack device")
    kind, ident = v.__dlpack_device__()
    return kind, int(ident)


def _to_device(self: Tensor, device: Any, /, *, stream: Any = None) -> Tensor:
    """This Tensor on ``device`` (itself when it is already there).

    >>> import jax, jaxtensor as jt
    >>> x = jt.ones(2)
    >>> x.to_device(jax.devices()[0]) is x
    True
    """
    if stream is not None:
        raise ValueError("to_device(stream=...) is not supported: JAX orders transfers itself")
    device = as_device(device)
    v = self._value()
    if _on_device(v, device):
        return self
    return Tensor._wrap(jax.device_put(v, device))


def device_put(x: Any, device: Any, /) -> Tensor:
    """``x`` as a Tensor on ``device``: a ``jax.Device``, a ``jax.sharding.Sharding`` (the
    Tensor is laid out over its devices) or a platform name such as ``"cpu"``.

    A Tensor already placed so is returned as is (``x.to_device(device)``); anything else
    is converted as by ``asarray(x, device=device)``.

    >>> import jax, jaxtensor as jt
    >>> x = jt.device_put(jt.ones(4), jax.sharding.SingleDeviceSharding(jax.devices()[0]))
    >>> x.sharding.device_set == {jax.devices()[0]}
    True
    """
    if isinstance(x, Tensor):
        return _to_device(x, device)
    return asarray(x, device=device)
