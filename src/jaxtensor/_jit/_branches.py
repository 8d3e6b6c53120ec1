"""The branches of a traced ``jaxtensor.cond``, run without an XLA conditional where they
are cheap.

A conditional that returns a buffer both branches may write makes XLA:CPU copy the whole
buffer on every execution (its branches cannot all update the operand in place), so in a
loop body a ``cond`` writing one element costs what the Tensor weighs. Here each branch is
traced once into a jaxpr of ``(gate, carried values, carried check) -> (new values, results,
check)`` whose every write is gated by ``gate`` (``Trace.gate``: the write puts back the
region's own values where the gate is false, at the cost of the region) and whose failed
checks count only where ``gate`` holds. Where both branches are cheap (no loops, no
effects, little work: :func:`inline_ok`) ``_loop_trace._cond_traced`` runs the true branch gated
by the predicate, then the false branch gated by its negation on the values the first left,
and selects the results: each write costs its region, as a hand-written select-then-write
does. Otherwise the same jaxprs, with the gate ``True``, are the branches of ``lax.cond``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax
from jax.extend.core import ClosedJaxpr, Jaxpr, jaxpr_as_fun, jaxprs_in_params

from .._core import _config, current_trace
from . import _trace as jtr

_LOOPS = frozenset({"while", "scan"})
_READS = frozenset({"dynamic_slice", "gather", "slice", "squeeze", "reshape",
                    "broadcast_in_dim", "expand_dims", "iota"})


def trace(carry: Any, fn: Callable[[], list], base: Any, vals: list,
          codes: tuple) -> tuple[ClosedJaxpr, list, int, int]:
    """``fn`` (which returns a list of arrays) traced as a jaxpr of ``(gate, *vals, *codes)``
    with ``carry``'s storages holding ``vals``: (the jaxpr, the storages it met that are not
    carried, the number of results, the number of new values). Every write is gated by
    ``gate`` and by ``base`` (the gate around the ``cond``); ``carry`` is ``_loop_trace._Carry``."""
    t = carry.t
    met: list = []
    n_res: list = []

    def branch(g: Any, vals: list, codes: tuple) -> tuple:
        saved = t.values, t.body, t.loop
        t.values = dict(zip(carry.storages, vals))
        t.body = current_trace()
        # (read by Trace.gate for every write in the branch, checked or not)
        start = g if base is None else base & g
        t.loop = jtr.BodyChecks(start, None, start)
        try:
            res = fn()
            new = [t.values[st] for st in carry.storages]
            known = set(carry.storages)
            met.extend(st for st in t.values if st not in known)
            if carry.checked:
                carry.made_checks |= bool(t.loop.items)
                codes = (lax.select(g, t.loop.first(codes[0]), codes[0]),)
        finally:
            t.values, t.body, t.loop = saved
        n_res.append(len(res))
        return new, res, codes

    closed = jax.make_jaxpr(branch)(jnp.bool_(True), vals, codes)
    return closed, met, n_res[-1], len(vals)


def call(closed: ClosedJaxpr, gate: Any, vals: list, codes: tuple,
         n_res: int) -> tuple[list, list, tuple]:
    """The traced branch applied: (new values, results, check)."""
    out = [o if isinstance(o, jax.Array) else jnp.asarray(o, a.dtype)  # (a literal result)
           for o, a in zip(jaxpr_as_fun(closed)(gate, *vals, *codes), closed.out_avals)]
    n = len(vals)
    return list(out[:n]), list(out[n:n + n_res]), tuple(out[n + n_res:])


def inline_ok(branches: list[ClosedJaxpr], n_vals: int) -> bool:
    """Whether running every branch (gated) costs about what an XLA conditional choosing one
    would: no loops, callbacks or effects, and work within what the branches write (the
    size of the carried buffers they write, which the conditional would copy) or
    ``_config.INLINE_BRANCH_WORK`` (about what an XLA:CPU conditional costs to enter)."""
    work = 0.0
    written = 0
    for closed in branches:
        if closed.effects:
            return False
        work += _work(closed.jaxpr)
        jaxpr = closed.jaxpr
        for k in range(n_vals):
            if jaxpr.outvars[k] is not jaxpr.invars[1 + k]:
                written += _size(jaxpr.outvars[k])
    return work <= max(_config.INLINE_BRANCH_WORK, written)


def _size(v: Any) -> int:
    shape = getattr(getattr(v, "aval", None), "shape", None)
    return 0 if shape is None else math.prod(shape)


def _work(jaxpr: Jaxpr) -> float:
    """About how many elements running ``jaxpr`` touches (infinite for a loop or callback):
    an in-place update counts its update, a read what it reads, a contraction its products,
    anything else its largest operand or result; a conditional its dearest branch."""
    total = 0.0
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name in _LOOPS or "callback" in name:
            return math.inf
        inner = [_work(j) for j in jaxprs_in_params(eqn.params)]
        if inner:
            total += max(inner) if name == "cond" else sum(inner)
        elif name == "dynamic_update_slice":
            total += _size(eqn.invars[1])
        elif name.startswith("scatter"):
            total += _size(eqn.invars[2])
        elif name in _READS:
            total += sum(_size(v) for v in eqn.outvars)
        elif name == "dot_general":
            (contract, _), _ = eqn.params["dimension_numbers"]
            shape = eqn.invars[0].aval.shape
            total += _size(eqn.outvars[0]) * math.prod(shape[d] for d in contract)
        else:
            total += max((_size(v) for v in (*eqn.invars, *eqn.outvars)), default=0)
    return total


def check_results(a: ClosedJaxpr, b: ClosedJaxpr, n_vals: int, n_res: int) -> None:
    """TypeError where the branches' results differ in shape or dtype (not in weak type),
    as ``lax.cond`` refuses them."""
    for x, y in zip(a.out_avals[n_vals:n_vals + n_res], b.out_avals[n_vals:n_vals + n_res]):
        if x.shape != y.shape or x.dtype != y.dtype:
            raise TypeError("cond(): true_fun and false_fun must return values of the same "
                            f"shapes and dtypes (got {x.str_short()} and {y.str_short()})")
