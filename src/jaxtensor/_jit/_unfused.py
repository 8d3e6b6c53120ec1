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
folds the failure carried in and the checks made so far into one ``[code, low]`` vector
and passes it through one division per write (:func:`vector_once`): two values, however
many checks, so a write's fusion holds only the checks since the last write, and the body
keeps few kernels (XLA:CPU runs a loop body of many kernels on its thread pool).

Only on the CPU backend, where this was measured; elsewhere the values pass unchanged.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from .._core._jax_private import tracer_origin


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
    duplicates into its users (as :func:`computed_once`, kept one vector); as it is where
    it reads no array (:func:`reads_array`), which XLA may compute again at no cost."""
    if not _on_cpu() or not reads_array(v):
        return v
    odd = v | 1  # never 0, so odd // odd is 1
    return lax.div(v, lax.div(odd, odd))


#: arrays of at most this many elements count as scalars for :func:`reads_array`: XLA
#: copying one where a fusion reads it after a write costs less than the division
SMALL = 16


def reads_array(x: Any, limit: int = 400) -> bool:
    """Whether the traced ``x`` may be computed, in its own trace, from an array of
    more than :data:`SMALL` elements (an element or a sum read from a Tensor): XLA:CPU would
    compute it again inside each fusion that uses it, reading that array there, after a
    write of it, and copy the array. A value computed from scalars and small arrays only is
    not: from the trace's inputs (a carried failure, a 0-D Tensor), literals,
    values of an enclosing trace (which that trace passes once where they read an array)
    and values already passed through the division of :func:`computed_once` or
    :func:`vector_once`. True where it cannot tell (no ``tracer_origin``, past ``limit``
    values)."""
    if tracer_origin is None:
        return True
    seen: set[int] = set()
    todo = [x]
    while todo:
        t = todo.pop()
        if id(t) in seen or _once(t):
            continue
        seen.add(id(t))
        if len(seen) > limit:
            return True
        got = tracer_origin(t)
        if got is None:  # (not a tracer of a jax.jit trace: a constant, or unknown)
            if isinstance(t, jax.core.Tracer):
                return True
            continue
        made, _ = got
        if made is None:  # (an input, a literal, a value of an enclosing trace)
            continue
        for u in made[2]:
            if math.prod(jnp.shape(u)) > SMALL and not _once(u):
                return True
            todo.append(u)
    return False


def _once(t: Any) -> bool:
    """Whether the tracer ``t`` is the result of the division of :func:`vector_once`
    (``v // (odd // odd)``, which XLA computes once)."""
    got = tracer_origin(t)
    made = got and got[0]
    if not made or made[0] != "div":
        return False
    got = tracer_origin(made[2][1])
    made = got and got[0]
    return bool(made) and made[0] == "div" and made[2][0] is made[2][1]
