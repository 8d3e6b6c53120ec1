"""Readings of a traced program (``jax.make_jaxpr(f)(*args)``) that the tests share: its
nested jaxprs and the primitives they bind. Counts, not times: a property of the program."""

from __future__ import annotations

import collections

import jax


def jaxprs(closed: jax.extend.core.ClosedJaxpr) -> list:
    """``closed``'s jaxpr and every jaxpr inside it (loop bodies, nested jits)."""
    out, todo = [], [closed.jaxpr]
    while todo:
        j = todo.pop()
        out.append(j)
        for eqn in j.eqns:
            for p in eqn.params.values():
                for sub in (p if isinstance(p, (list, tuple)) else [p]):
                    if hasattr(sub, "jaxpr"):
                        todo.append(sub.jaxpr if hasattr(sub.jaxpr, "eqns") else sub.jaxpr.jaxpr)
                    elif hasattr(sub, "eqns"):
                        todo.append(sub)
    return out


def primitives(closed: jax.extend.core.ClosedJaxpr) -> collections.Counter:
    """The primitives of ``closed`` and of every jaxpr inside it, counted."""
    return collections.Counter(eqn.primitive.name for j in jaxprs(closed) for eqn in j.eqns)
