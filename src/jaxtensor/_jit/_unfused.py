"""Check values computed once per iteration, so a checked loop keeps its writes in place.

XLA:CPU duplicates cheap computations into every fusion that uses them. A check in a loop
body whose value is read from a carried Tensor (``x[i] = x[i - 1] * 1.5`` into an integer
Tensor: the value is checked; ``x[x[i]] = 0``: the index is) is used twice: by the gate of
the writes after it and by the loop's carried first failure. Each use then reads the Tensor
in a fusion of its own; the one computing the carried failure is not ordered before the
write, so the write cannot update the buffer in place and XLA copies the whole Tensor every
iteration. An integer division by a divisor that is not a constant is one of the
operations XLA never duplicates: passing a check's values through one (dividing by 1,
computed so that XLA cannot fold it) computes them once, before the write that their gate
feeds, and the carried failure reads that result, not the Tensor. ``BodyChecks.gate``
folds the failure carried in and the checks made so far into one ``[code, value]`` vector
and passes it through one division per write (:func:`vector_once`): two values, however
many checks, so a write's fusion holds only the checks since the last write, and the body
keeps few kernels (XLA:CPU runs a loop body of many kernels on its thread pool).

Only on the CPU backend, where this was measured; elsewhere the values pass unchanged.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax


@cache
def _on_cpu() -> bool:
    return jax.default_backend() == "cpu"


def computed_once(dtype: Any, *values: Any) -> tuple[Any, ...]:
    """``values`` (traced 0-D bools and integers that ``dtype`` holds exactly) through one
    division that XLA neither folds nor duplicates into their users."""
    if not _on_cpu() or any(jnp.ndim(v) for v in values):
        return values
    arrays = [jnp.asarray(v) for v in values]
    stacked = jnp.stack([a.astype(dtype) for a in arrays])
    odd = stacked | 1  # never 0, so odd // odd is 1
    stacked = lax.div(stacked, lax.div(odd, odd))
    return tuple(stacked[k] != 0 if a.dtype == bool else stacked[k].astype(a.dtype)
                 for k, a in enumerate(arrays))


def vector_once(v: Any) -> Any:
    """A traced 1-D integer vector through one division that XLA neither folds nor
    duplicates into its users (as :func:`computed_once`, kept one vector)."""
    if not _on_cpu():
        return v
    odd = v | 1  # never 0, so odd // odd is 1
    return lax.div(v, lax.div(odd, odd))

