"""How a ``jaxtensor.jit`` function is traced with its bounds checks: the traced program of
each check mode (``_modes.CheckMode``), from one table (:data:`_PROGRAMS`, see :func:`body`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import checkify

from .._core import IDX
from .._core._jax_private import DebugInfo as _DebugInfo
from .._core._jax_private import initial_result_paths as _initial_result_paths
from . import _hostcheck
from . import _trace as jtr
from ._batched_loops import checked_or_mapped
from ._errors import source_info
from ._modes import CheckMode
from ._plans import CALL, Plan, Retrace
from ._spec import Spec

if TYPE_CHECKING:
    from ._jit import Jitted


def body(jitted: Jitted, spec: Spec, plan: Plan, *inputs: Any) -> Any:
    """The traced function: the user's function run over a :class:`~._trace.Trace`, in the
    program of its check mode. A check the folded output cannot carry (in a nested trace)
    abandons the trace (``Retrace``): the call is traced again under checkify. The
    closed-over storages the trace met are left on the plan (``plan.discovered``)."""
    return _PROGRAMS[spec.check](jitted, spec, plan, CALL.get(), inputs)


def _once(jitted: Jitted, spec: Spec, plan: Plan, call: Any, inputs: tuple) -> Any:
    """No checks, or inherited: the function traced once."""
    jitted._note_trace(spec, inputs)
    return _traced_once(jitted, spec, plan, call, inputs)


def _hoisted(jitted: Jitted, spec: Spec, plan: Plan, call: Any, inputs: tuple) -> Any:
    """A top-level call's program, its checks hoisted (:func:`_body_hoisted`)."""
    jitted._note_trace(spec, inputs)
    return _body_hoisted(jitted, spec, plan, call, inputs)


def _gated(jitted: Jitted, spec: Spec, plan: Plan, call: Any, inputs: tuple) -> Any:
    """The gated program of a HOISTED plan (not counted as a program of its own)."""
    return _body_hoisted(jitted, spec._replace(check=CheckMode.HOISTED), plan, call, inputs,
                         True)


def _checkified(jitted: Jitted, spec: Spec, plan: Plan, call: Any, inputs: tuple) -> Any:
    """The function traced under checkify, its error state the program's first output."""
    jitted._note_trace(spec, inputs)

    def run(*ins: Any) -> dict:
        out, trace = jitted._run(spec, call, ins)
        plan.discovered = jtr.weak(trace.discovered)
        jitted._warn_unrolled(trace)
        return out

    return checked_or_mapped(
        lambda: checkify.checkify(run, errors=checkify.user_checks)(*inputs))


def _traced_once(jitted: Any, spec: Any, plan: Any, call: Any, inputs: tuple) -> Any:
    """The function traced once in its check mode: its storages found, a check it could not
    make here sent to checkify (``Retrace``), a long unrolled trace warned of."""
    out, trace = jitted._run(spec, call, inputs)
    plan.discovered = jtr.weak(trace.discovered)
    if trace.missed:
        raise Retrace
    jitted._warn_unrolled(trace)
    return out


def _body_hoisted(jitted: Jitted, spec: Spec, plan: Plan, call: Any, inputs: tuple,
                  gated: bool = False) -> Any:
    """The traced function with bounds checks (HOISTED mode), its checks hoisted.

    The user's function is traced once, as a function of the number of the first
    failing check (``code``, see ``Trace.code``); each write is gated by one comparison
    with it. Applied with ``code = 0`` (every write made), the traced program gives the
    true first failure, since every check up to it sees what eager code sees. Where the
    checks read no write and no loop, they are computed ahead of the writes, and the
    call's program on XLA:CPU is ``cond(code == 0, every write ungated, nothing
    written)`` with the code as its last output (read by :func:`~._protocol.coded`): a passing call
    pays no gate (elsewhere the call's program is the gated one below).
    A failing one is made again by the *gated* program (``gated``: the traced program
    applied with that code, whose writes are what eager code leaves), compiled at the
    plan's first failure. Where the checks read a write or a loop, or the function has
    effects (which would run in both applications), it is traced again with each write
    gated by the checks before it (a chain of every earlier check, fused into every
    write by XLA: docs/measurements.md, section "Gated writes in jaxtensor.jit")."""
    if jitted._plain and not gated:  # (a trace found its checks not hoistable)
        return _traced_once(jitted, spec, plan, call, inputs)
    traces: list[jtr.Trace] = []

    def inner(*ins: Any) -> dict:
        out, trace = jitted._run(spec, call, ins[:-1], ins[-1])
        traces.append(trace)
        return out

    if _DebugInfo is not None:
        inner.__fun_debug_info__ = _DebugInfo(  # type: ignore[attr-defined]
            "jaxtensor.jit", source_info(jitted._fn),
            jitted._input_names(spec) + ("the number of a failed check",),
            _initial_result_paths)
    fn = jax.jit(inner)
    zero = jnp.zeros((), IDX)
    traced = fn.trace(*inputs, zero)
    trace = traces[-1]
    plan.discovered = jtr.weak(trace.discovered)
    if trace.missed:
        raise Retrace
    jitted._warn_unrolled(trace)
    if not trace.items:
        return fn(*inputs, zero)
    if trace.code is None and not gated:  # (a loop's check made it the plain trace)
        jitted._plain = True
        return fn(*inputs, zero)
    if jitted._plain or traced.jaxpr.effects or not jtr.hoistable(traced.jaxpr.jaxpr):
        # (an effect, a jax.debug.print say, would run in both applications)
        jitted._plain = True  # (its next traces skip the hoisted one: a loop's check say)
        if trace.discovered:  # (never run: the call is described and traced again)
            return fn(*inputs, zero)
        out, _ = jitted._run(spec, call, inputs)
        return out
    ((aux, first),) = fn(*inputs, zero).items()
    if not (gated or trace.discovered) and _decide_on_host(plan, traced, inputs,
                                                               call):
        return {aux.without_checks(): first[:-1]}  # (the writes, ungated: code is 0)
    # (an accelerator reads a cond's predicate back to the host in the middle of the
    # program; XLA:CPU reads it in place: docs/measurements.md, section "Gated writes in
    # jaxtensor.jit")
    if gated or jax.default_backend() != "cpu":
        # (a sort, which XLA never fuses into its users: otherwise XLA:CPU computes
        # every check again inside every gated write)
        code = jnp.sort(jnp.stack([first[-1][0]] * 2))[0]
        ((aux, outs),) = fn(*inputs, code).items()
        return {aux: outs[:-1] + (first[-1],)}
    if trace.discovered:  # (never run: the call is described and traced again)
        return {aux: first}
    positions = plan.positions

    def passed(ins: tuple) -> tuple:
        return next(iter(fn(*ins, zero).values()))[:-1]

    def unchanged(ins: tuple) -> tuple:
        same = [ins[positions[k]] for _, k in aux.pairs]
        rest = first[len(same):-1]  # (None for a Tensor among the results)
        return tuple(same + [None if o is None else lax.full_like(o, 0) for o in rest])

    code = first[-1][0]
    outs = lax.cond(code == 0, passed, unchanged, tuple(inputs))
    return {aux.with_code(): tuple(outs) + (code,)}

def _decide_on_host(plan: Plan, traced: Any, inputs: tuple, call: Any) -> bool:
    """At the first trace of ``plan``: whether its checks can be decided on the host
    (``_hostcheck``) and this call, being traced, passes them; then ``plan.host`` is
    set and the program is the writes without checks."""
    if plan.host_decided:
        return False
    plan.host_decided = True
    concrete = getattr(call, "concrete", None)
    if concrete is None:
        return False
    conds = _hostcheck.analyse(traced.jaxpr, len(inputs))
    if conds is None:
        return False
    passes = _hostcheck.checker(conds, [v.aval for v in traced.jaxpr.jaxpr.invars])
    if not passes(concrete):
        return False
    plan.host = passes
    return True


#: the traced program of each check mode (None: no checks)
_PROGRAMS = {None: _once, CheckMode.HOISTED: _hoisted, CheckMode.GATED: _gated,
             CheckMode.CHECKIFY: _checkified, CheckMode.INHERITED: _once,
             CheckMode.INHERITED_CHECKIFY: _once}
