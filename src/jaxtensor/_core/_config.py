"""Process-wide settings: 64-bit mode and the kernel-dispatch switches.

jaxtensor turns on JAX's 64-bit mode when it is imported, unless the environment sets
``JAX_ENABLE_X64`` to a false value (``0``, ``false``, ``no``, ``off``). With 64-bit mode off,
``float64``/``int64``/``uint64``/``complex128`` are not available and the default integer
and index dtype is ``int32``; ``__array_namespace_info__()`` reports exactly that.
"""

from __future__ import annotations

import os

import jax

_FALSE = {"0", "false", "no", "off"}


def _want_x64() -> bool:
    env = os.environ.get("JAX_ENABLE_X64")
    if env is None:
        return True
    return env.strip().lower() not in _FALSE


if _want_x64():
    jax.config.update("jax_enable_x64", True)

X64: bool = bool(jax.config.read("jax_enable_x64"))
