"""The branches of a traced ``jaxtensor.cond``, run without an XLA conditional where they
are cheap.

A conditional that returns a buffer both branches may write makes XLA:CPU copy the whole
buffer on every execution (its branches cannot all update the operand in place), so in a
loop body a ``cond`` writing one element costs what the Tensor weighs. Here each branch is
traced once into a jaxpr of ``(gate, carried values, carried check) -> (new values, results,
check)`` whose every write is gated by ``gate`` (``Trace.gate``: the write puts back the
region's own values where the gate is false, at the cost of the region) and whose failed
checks count only where ``gate`` holds. Where both branches are cheap (no loops, no
effects, little work: :func:`inline_ok`) ``_loop_trace._cond_traced`` runs them with
:func:`inline`: each write costs its region, as a hand-written select-then-write does.
Otherwise the same jaxprs, with the gate ``True``, are the branches of ``lax.cond``.

XLA:CPU updates a loop's carried buffer in place only where every read of it is ordered
before the write, and it duplicates cheap reads (an element read, a slice of a buffer just
written) into every fusion that uses them, which reads the old buffer after the write and
makes XLA copy it whole every iteration. So :func:`inline` writes a Tensor that each branch
writes in one place once, at the selected place with the selected value (the other
branch's reads see the Tensor before the ``cond``, as they would in a conditional), and
computes the scalars the branches close over once, with the predicate, before any write.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.extend.core import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, jaxpr_as_fun, jaxprs_in_params

from .._core import _config, _dtypes, current_trace
from . import _trace as jtr
from . import _unfused
from ._body_checks import select as select_failure

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
        t.loop = jtr.BodyChecks(start, codes, start)
        try:
            res = fn()
            new = [t.values[st] for st in carry.storages]
            known = set(carry.storages)
            met.extend(st for st in t.values if st not in known)
            if carry.checked:
                carry.made_checks |= bool(t.loop.items)
                codes = select_failure(g, t.loop.first(codes), codes)
        finally:
            t.values, t.body, t.loop = saved
        n_res.append(len(res))
        return new, res, codes

    closed = jax.make_jaxpr(branch)(jnp.bool_(True), vals, codes)
    return closed, met, n_res[-1], len(vals)


def call(closed: ClosedJaxpr, gate: Any, vals: list, codes: tuple,
         n_res: int, into: list | None = None) -> tuple[list, list, tuple]:
    """The traced branch applied: (new values, results, check); ``into``: the dtype each
    result takes (:func:`check_results`)."""
    out = [o if isinstance(o, jax.Array) else jnp.asarray(o, a.dtype)  # (a literal result)
           for o, a in zip(jaxpr_as_fun(closed)(gate, *vals, *codes), closed.out_avals)]
    n = len(vals)
    res = list(out[n:n + n_res])
    if into:
        res = [r if d is None else lax.convert_element_type(r, d) for r, d in zip(res, into)]
    return list(out[:n]), res, tuple(out[n + n_res:])


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


def check_results(a: list, b: list) -> list:
    """The dtype each result of both branches (their shapes and dtypes, weakly typed where
    a Python number) takes: None where they agree, their joined dtype where one is a
    Python number (``x[i] if c else 0.0``); TypeError where the branches' results differ in
    shape or in the dtype of a Tensor, as ``lax.cond`` refuses them."""
    into: list = []
    for x, y in zip(a, b):
        if x.shape != y.shape or (x.dtype != y.dtype and not (x.weak_type or y.weak_type)):
            raise TypeError("cond(): true_fun and false_fun must return values of the same "
                            f"shapes and dtypes (got {_short(x)} and {_short(y)})")
        into.append(None if x.dtype == y.dtype else joined_dtype(x, y))
    return into


def _short(v: Any) -> str:
    return f"{np.dtype(v.dtype).name}{list(v.shape)}"


#: a Python number of each kind, as JAX's promotion takes a weakly typed value
_NUMBERS = {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}


def joined_dtype(x: Any, y: Any) -> Any:
    """The dtype two branch results (avals) take together, one or both weakly typed (a
    Python number): jaxtensor's dtype of the other's and a Python number of its kind
    (``where(c, x, 0.5)``'s), or of two numbers the wider kind's."""
    if x.weak_type and y.weak_type:
        return max(x, y, key=lambda v: "biufc".index(np.dtype(v.dtype).kind)).dtype
    strong, weak = (y, x) if x.weak_type else (x, y)
    return _dtypes.scalar_result(np.dtype(strong.dtype), _NUMBERS[np.dtype(weak.dtype).kind])


# -- the inlined conditional ----------------------------------------------------------------
def inline(branches: tuple[ClosedJaxpr, ClosedJaxpr], pred: Any, vals: list, codes: tuple,
           n_res: tuple[int, int], into: list | None = None) -> tuple[list, list, tuple]:
    """Both traced branches run without a conditional, every write gated: the true branch
    where ``pred`` holds, then the false branch, on what the first left, where it does not.
    A carried value that each branch writes once, in regions of one shape
    (:func:`_single_writes`), is written once, after both. (new values, the taken branch's
    results, check)."""
    consts, pred = _scalars_once([c for b in branches for c in b.consts], pred)
    k = len(branches[0].consts)
    branches = (ClosedJaxpr(branches[0].jaxpr, consts[:k]),
                ClosedJaxpr(branches[1].jaxpr, consts[k:]))
    n = len(vals)
    singles = [_single_writes(b.jaxpr, n) for b in branches]
    late = [k for k in range(n) if _mergeable(singles[0].get(k), singles[1].get(k))]
    true_j, w_t = _deferred(branches[0], singles[0], late, len(codes))
    false_j, w_f = _deferred(branches[1], singles[1], late, len(codes))
    v1, r1, c1 = call(true_j, pred, vals, codes, n_res[0] + w_t)
    outs, r2, codes = call(false_j, ~pred, v1, c1, n_res[1] + w_f)
    res = [lax.select(pred, a, b) if d is None else lax.select(
        pred, lax.convert_element_type(a, d), lax.convert_element_type(b, d))
        for a, b, d in zip(r1[:n_res[0]], r2[:n_res[1]], into or [None] * n_res[0])]
    w1, w2 = r1[n_res[0]:], r2[n_res[1]:]
    for k in late:
        outs[k], w1, w2 = _merged_write(pred, outs[k], singles[0][k], w1, singles[1][k], w2)
    return outs, res, codes


def _single_writes(jaxpr: Jaxpr, n_vals: int) -> dict[int, JaxprEqn]:
    """The carried values ``k`` that the branch writes once, by one ``dynamic_update_slice``
    of the value it came with whose result nothing in the branch reads: their equations."""
    uses: dict = {}
    for v in [x for e in jaxpr.eqns for x in e.invars] + list(jaxpr.outvars):
        if not isinstance(v, Literal):
            uses[v] = uses.get(v, 0) + 1
    made = {v: e for e in jaxpr.eqns for v in e.outvars}
    found: dict[int, JaxprEqn] = {}
    for k in range(n_vals):
        out = jaxpr.outvars[k]
        e = None if isinstance(out, Literal) else made.get(out)
        if (e is not None and e.primitive.name == "dynamic_update_slice"
                and e.invars[0] is jaxpr.invars[1 + k] and uses[out] == 1):
            found[k] = e
    return found


def _mergeable(a: JaxprEqn | None, b: JaxprEqn | None) -> bool:
    """Whether the single writes ``a`` and ``b`` (``None``: none) of one carried value are
    made once after both branches: where both write regions of one shape (a write gated off
    puts back what the region held before the ``cond``, which would undo the other's in a
    region of another shape). A value one branch writes is written in that branch: the
    other's reads of it then come after the write, which keeps them ordered before any
    later write (XLA:CPU copies a buffer read by nothing ordered before its update)."""
    return (a is not None and b is not None
            and a.invars[1].aval.shape == b.invars[1].aval.shape)


def _deferred(closed: ClosedJaxpr, singles: dict, late: list,
              n_codes: int) -> tuple[ClosedJaxpr, int]:
    """``closed`` leaving the values ``late`` as they came and returning each one's write
    (its update and starts) after its results instead (before the ``n_codes`` values of the
    check); the number of values added."""
    jaxpr = closed.jaxpr
    outs = list(jaxpr.outvars)
    extra: list = []
    for k in late:
        outs[k] = jaxpr.invars[1 + k]
        extra.extend(singles[k].invars[1:])
    if not extra:
        return closed, 0
    n = len(outs) - n_codes
    outs = outs[:n] + extra + outs[n:]
    new = jaxpr.replace(outvars=outs, debug_info=jaxpr.debug_info.with_unknown_names())
    return ClosedJaxpr(new, closed.consts), len(extra)


def _merged_write(pred: Any, old: Any, e1: JaxprEqn, w1: list, e2: JaxprEqn,
                  w2: list) -> tuple[Any, list, list]:
    """``old`` with the deferred write of the branch taken: one ``dynamic_update_slice`` of
    the selected update (each gated inside its branch) at the selected starts; and what is
    left of each branch's deferred values."""
    n1, n2 = len(e1.invars) - 1, len(e2.invars) - 1
    (u1, *s1), (u2, *s2) = w1[:n1], w2[:n2]
    dt = jnp.result_type(*s1, *s2)
    starts = [lax.select(pred, jnp.asarray(a).astype(dt), jnp.asarray(b).astype(dt))
              for a, b in zip(s1, s2)]
    # (the starts are the primitive's operands, which it clamps as they are: JAX's wrap of
    # a negative start would move a write gated off by a failed check elsewhere)
    new = lax.dynamic_update_slice(old, lax.select(pred, u1, u2), starts,
                                   allow_negative_indices=False)
    return new, w1[n1:], w2[n2:]


def _scalars_once(consts: list, pred: Any) -> tuple[list, Any]:
    """``consts`` and ``pred`` with the traced real scalars among them that are read from an
    array (``_unfused.reads_array``) computed once (``_unfused.computed_once``; a float as
    the integer of its bits), before any write of the branches that uses them: else XLA:CPU
    computes a scalar read from a carried Tensor again inside each write that uses it, after
    an earlier write of that Tensor, and copies the Tensor. A scalar computed from scalars
    only reads no buffer, so it passes as it is; the values pass as int32 where they fit."""
    wide = jnp.dtype(jnp.int64 if jax.config.read("jax_enable_x64") else jnp.int32)
    picked = [k for k, c in enumerate(consts)
              if isinstance(c, jax.core.Tracer) and jnp.ndim(c) == 0
              and c.dtype.kind in "biuf" and c.dtype.itemsize <= wide.itemsize
              and not (c.dtype.kind == "u" and c.dtype.itemsize == wide.itemsize)
              and _unfused.reads_array(c)]
    with_pred = isinstance(pred, jax.core.Tracer) and _unfused.reads_array(pred)
    if not picked and not with_pred:
        return consts, pred
    ints = [_bits(consts[k]) for k in picked]
    narrow = all(v.dtype.itemsize < 4 or (v.dtype.itemsize == 4 and v.dtype.kind != "u")
                 for v in ints)
    once = _unfused.computed_once(jnp.dtype(jnp.int32) if narrow else wide,
                                  *([pred] if with_pred else []), *ints)
    consts = list(consts)
    for k, v in zip(picked, once[1:] if with_pred else once):
        c = consts[k]
        consts[k] = lax.bitcast_convert_type(v, c.dtype) if c.dtype.kind == "f" else v
    return consts, once[0] if with_pred else pred


def _bits(c: Any) -> Any:
    """A float scalar as the integer of its bits; any other as it is."""
    if c.dtype.kind != "f":
        return c
    return lax.bitcast_convert_type(c, jnp.dtype(f"int{8 * c.dtype.itemsize}"))
