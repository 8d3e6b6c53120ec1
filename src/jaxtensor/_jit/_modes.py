"""The bounds-check modes of ``jaxtensor.jit`` and its transforms: one enum named by what the
user gets, chosen in one function (:func:`choose`), and one object per mode
(:func:`behaviour`) that makes a trace's checks and gates its writes.

A ``Trace`` check method states what is checked (a check of ``_check_kinds.py``) and hands
it to its mode's ``check``; a write asks its mode's ``gate``. Nothing outside this module
compares a mode with a member (``tests/internals/test_check_modes.py``): the call path and
the loops read the behaviour's flags, and ``_checks.py`` traces each mode's program from one
table.
"""

from __future__ import annotations

import enum
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax.core import ShapedArray
from jax.extend.core import Primitive

from .._core import current_trace
from .._core._jax_private import (
    checkify_error_preds,
    lower_fun,
    register_checkify_rule,
    register_lowering,
)


class CheckMode(enum.IntEnum):
    """How a call's bounds checks are made (an ``IntEnum``: a plan key holding one hashes as
    fast as one holding a string). No checks (``check_bounds=False``, or a call nested in a
    trace without checks of ``jaxtensor``'s around it) is no mode: ``None``."""

    #: A top-level call: its checks fold into one ``[code, value]`` output, computed ahead
    #: of its writes where they read none (``_checks._body_hoisted``); a failing call is made
    #: again by the plan's GATED program. At its first trace a plan may find its checks
    #: decided on the host (``_hostcheck.py``, ``Plan.host``: its program has none), or
    #: reading its writes (``Jitted._plain``: each write gated by the chain of the checks
    #: before it, traced once).
    HOISTED = 1
    #: The program that makes a failed HOISTED call again: each write gated by the number of
    #: the call's first failing check, so it writes what eager code wrote before raising.
    GATED = 2
    #: Checks under ``jax.experimental.checkify``: a top-level call whose function made a
    #: check where the folded output cannot carry it (a nested trace: ``Trace.missed``), or a
    #: transform's function called outside every trace. Each write is gated by checkify's
    #: error state so far (:data:`no_error_p`).
    CHECKIFY = 3
    #: A call nested in a ``jaxtensor.jit`` trace that does not check under checkify: its
    #: checks are that trace's (a check it cannot carry makes it trace again under
    #: checkify), so its plan is traced again at each call.
    INHERITED = 4
    #: A call nested in a trace checking under checkify: its checks are checkify's, reported
    #: to that trace's error state; its plan is kept.
    INHERITED_CHECKIFY = 5


def choose(check_bounds: bool, nested: bool, enclosing: Any, foldable: bool) -> CheckMode | None:
    """The check mode of a call: of a ``jaxtensor.jit`` function (``check_bounds`` its own),
    or of a transform's function (``check_bounds`` True, ``foldable`` False).

    ``nested``: made inside another trace (a JAX transformation, a loop body, another
    ``jaxtensor.jit`` function); ``enclosing``: the ``jaxtensor`` trace it is made in, if
    any; ``foldable``: its checks may be folded into its own output (False once a trace of
    the function missed a check: ``Trace.missed``)."""
    if not check_bounds:
        return None
    if nested:
        if enclosing is None:
            return None
        if _BEHAVIOURS[getattr(enclosing, "mode", None)].checkify:
            return CheckMode.INHERITED_CHECKIFY
        return CheckMode.INHERITED
    return CheckMode.HOISTED if foldable else CheckMode.CHECKIFY


def behaviour(mode: CheckMode | None) -> Any:
    """The object that makes the checks of a trace in ``mode`` and gates its writes."""
    return _BEHAVIOURS[mode]


# -- checkify's error state, read as a bool -------------------------------------------------
def _no_error_rule(error: Any) -> tuple[Any, Any]:
    preds = [jnp.any(p) for p in checkify_error_preds(error)]
    failed = preds[0] if preds else jnp.bool_(False)
    for p in preds[1:]:
        failed = failed | p
    return error, ~failed


#: ``no_error_p.bind()``: whether no check has failed so far, read from checkify's error state
#: where ``checkify`` interprets it (in a loop body: the state carried into the iteration).
#: Outside checkify nothing is known to have failed: True.
no_error_p = Primitive("jaxtensor_no_error")
no_error_p.def_impl(lambda: np.bool_(True))
no_error_p.def_abstract_eval(lambda: ShapedArray((), np.dtype(bool)))
#: Whether writes can be gated by checkify's error state (JAX's private rule table is there:
#: ``_jax_private.MISSING``); without it writes under checkify are not gated.
CHECKIFY_GATES = register_checkify_rule is not None
if CHECKIFY_GATES:
    register_lowering(no_error_p, lower_fun(lambda: [jnp.bool_(True)], multiple_results=True))
    register_checkify_rule(no_error_p, _no_error_rule)


# -- each mode's behaviour -------------------------------------------------------------------
class _Unchecked:
    """No checks: a write is gated only by a ``cond`` branch's predicate (``Trace.loop``)."""

    __slots__ = ()
    folded = False  # checks fold into the trace's ``[code, value]`` output; loops carry them
    checkify = False  # checks are checkify's (the call's own or the enclosing trace's)
    inherited = False  # checks are the enclosing trace's
    coded = False  # the plan's program reports its first failed check by number (_plans.coded)
    per_call = False  # the plan is traced again at each call
    inline_cond = True  # a ``cond``'s branches are traced inline, each write gated

    def check(self, trace: Any, c: Any) -> None:
        """Make the check ``c`` (``_check_kinds.py``) in ``trace``."""

    def gate(self, trace: Any) -> Any:
        """Whether every check made so far at the trace's level passed (a traced bool), or
        None where a write needs no gate."""
        return trace.ok if current_trace() is trace.jax_trace else None

    def body_gate(self, trace: Any) -> Any:
        """The gate of a write in a jaxtensor control-flow body: the body's checks and what
        gated the body from outside (``BodyChecks``), else the checks before it."""
        lp = trace.loop
        return trace.ok if lp is None else lp.gate()


class _Folded(_Unchecked):
    """HOISTED, GATED: each check is an item of the trace's one output (``Trace.item``); a
    check made in a nested trace other than a jaxtensor loop body is missed, and the
    function is traced again under checkify."""

    __slots__ = ("coded",)
    folded = True

    def __init__(self, coded: bool) -> None:
        self.coded = coded

    def check(self, trace: Any, c: Any) -> None:
        cur = current_trace()
        if cur is trace.jax_trace or (trace.loop is not None and cur is trace.body):
            for fail, v, msg in c.folded():
                trace.item(fail, v, msg)
        else:
            trace.missed = True


class _Checkify(_Unchecked):
    """CHECKIFY: each check is a ``checkify.check``; a write is gated by the error state so
    far (once a check was made, and in every body: an earlier iteration may have failed)."""

    __slots__ = ()
    checkify = True
    inline_cond = False  # (writes in branches are not gated by Trace.loop)

    def check(self, trace: Any, c: Any) -> None:
        c.checkify()
        trace.ok = True  # (a check was made: later writes read the error state)

    def gate(self, trace: Any) -> Any:
        return no_error_p.bind() if trace.ok is not None and CHECKIFY_GATES else None

    def body_gate(self, trace: Any) -> Any:
        return no_error_p.bind() if CHECKIFY_GATES else None


class _Inherited(_Unchecked):
    """INHERITED, INHERITED_CHECKIFY: each check is made by the enclosing trace; a write is
    gated by that trace's checks so far."""

    __slots__ = ("checkify", "per_call")
    inherited = True
    inline_cond = False

    def __init__(self, checkify: bool) -> None:
        self.checkify = checkify
        self.per_call = not checkify

    def check(self, trace: Any, c: Any) -> None:
        trace.parent.check(c)

    def gate(self, trace: Any) -> Any:
        return trace.parent._ok_so_far()

    def body_gate(self, trace: Any) -> Any:
        return no_error_p.bind() if self.checkify and CHECKIFY_GATES else None


_BEHAVIOURS: dict[CheckMode | None, Any] = {
    None: _Unchecked(),
    CheckMode.HOISTED: _Folded(coded=True),
    CheckMode.GATED: _Folded(coded=False),
    CheckMode.CHECKIFY: _Checkify(),
    CheckMode.INHERITED: _Inherited(checkify=False),
    CheckMode.INHERITED_CHECKIFY: _Inherited(checkify=True),
}
