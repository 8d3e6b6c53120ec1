"""What one ``jaxtensor.jit`` trace sees: its own value of every storage it touches, and its
checks (bounds of traced indices, traced single values assigned into integer Tensors).
Every write is gated by the checks made before it (``Trace.ok``), so a call that fails a
check leaves what eager code would have left when it raised.

A :class:`Trace` is installed in :data:`jaxtensor._core._context.current` while the function is
traced (see ``_jit.py``); storages and the indexing code call its methods instead of
changing anything. Nothing here raises to steer control flow: a closed-over storage met
during the trace is *discovered* (read once as a constant, and reported to the caller, which
makes it an input of the next compilation). A bounds check made in the body of a jaxtensor
loop or ``cond`` (``_loop_trace.py``: ``Trace.body``, ``Trace.loop``) is recorded in the body's
:class:`BodyChecks`, whose first failure the loop carries and reports as one check after
it (nested in another body: starting from that body's first failure, and carrying it on);
one made inside any other nested trace (``lax`` control flow, ``vmap``, a nested jit) is
*missed* (reported, and the caller traces the function again under
``jax.experimental.checkify``). Under checkify a write is gated by the error state itself
(:data:`no_error_p`), so a check in a loop body gates the writes after the loop.
"""

from __future__ import annotations

import weakref
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.extend.core import Literal

from .._core import IDX as _IDX
from .._core import JitTrace, Storage, TracerLeakError, current_trace
from .._core._jax_private import EvalTrace
from . import _check_kinds as ck
from ._body_checks import BodyChecks
from ._check_errors import RaisedFailure
from ._modes import CHECKIFY_GATES as GATED
from ._modes import CheckMode, behaviour, no_error_p

Tracer = jax.core.Tracer
_MISSING = object()
#: the ``fails`` of a check's place in ``Trace.items`` where a loop carries the check
_NEVER = np.bool_(False)
# A gated write of a Tensor of at most this many elements with a kernel that has no gated
# form selects the whole new value: cheaper than entering an XLA:CPU conditional.
_SELECTED = 256


class Trace(JitTrace):
    """The state of one trace of a ``jaxtensor.jit`` function.

    Attributes:
        values: per storage touched, its value inside the trace (argument storages start
            with their input tracers).
        initial: the value each storage of ``values`` started the trace with.
        discovered: storages from outside the call met during the trace, in order.
        mode: the bounds-check mode (``_modes.CheckMode``; None: no checks), whose
            ``behaviour`` (``checks``) makes the checks and gates the writes.
        missed: a check was made where a folded mode cannot carry it out.
    """

    __slots__ = ("values", "initial", "outer", "parent", "jax_trace", "discovered", "mode",
                 "checks", "missed", "items", "msgs", "ok", "body", "n_writes", "loop", "code")

    def __init__(self, storages: list[Storage], arrays: list[Any], outer: Any,
                 parent: JitTrace | None, mode: CheckMode | None, code: Any = None) -> None:
        self.values: dict[Storage, Any] = dict(zip(storages, arrays))
        self.initial = dict(self.values)
        self.outer = outer  # the JAX trace the jaxtensor.jit call was made under
        self.parent = parent  # the enclosing jaxtensor.jit trace, if any
        self.jax_trace = current_trace()
        self.discovered: list[Storage] = []
        self.mode = mode
        self.checks = behaviour(mode)
        self.missed = False
        self.items: list[tuple[Any, Any]] = []  # folded modes: (fails, offending value) per check
        # ... and what each reports when it fails (``_check_errors.Failure``)
        self.msgs: list = []
        # whether every check made so far (in this JAX trace) passed: a traced bool that
        # gates every later write, so a call that fails a check changes nothing from there on
        self.ok: Any = None
        # the JAX trace of the innermost jaxtensor control-flow body (``_loop_trace.py``) being
        # traced, where storages are carried: ``values`` then holds the carried values
        self.body: Any = None
        self.n_writes = 0  # writes traced at the top level (a Python loop unrolls into many)
        # folded modes: the checks of the jaxtensor control-flow body being traced
        self.loop: BodyChecks | None = None
        # folded modes, hoisted gates: the number of the call's first failing check (0: none),
        # an input of the trace computed before it (see ``_checks._body_hoisted``); a write
        # after ``m`` checks is then gated by ``code == 0 | code > m``, not by a chain of
        # every check before it
        self.code = code

    # -- storages ------------------------------------------------------------------------
    def _from_outside(self, st: Storage) -> bool:
        """Whether ``st`` existed before this call (rather than being made by the trace)."""
        return st.trace is self.outer or isinstance(st.trace, EvalTrace)

    def _discover(self, st: Storage) -> Any:
        # Read now (a constant for this call only: the caller compiles the next call with
        # the storage as an input, so it never goes stale).
        if self.parent is not None:
            v = self.parent.read(st)
        else:
            v = st.settled()  # (queued scalar writes are applied eagerly: Storage._flush)
        self.values[st] = self.initial[st] = v
        self.discovered.append(st)
        return v

    def known(self, st: Storage, value: Any) -> None:
        """Give ``st``, made outside the call and not one of its inputs, the value ``value``
        (computed from its inputs: an element read lent as its source, ``_elements.py``)."""
        self.values[st] = self.initial[st] = value

    def read(self, st: Storage) -> Any:
        v = self.values.get(st, _MISSING)
        if v is not _MISSING:
            return v
        if self._from_outside(st):
            return self._discover(st)
        return st.settled()

    def owns(self, st: Storage) -> bool:
        """Whether a write of ``st`` from a transform nested in this trace belongs here:
        a storage this trace holds, made at its level, or made before the call."""
        return (st in self.values or st.trace is self.jax_trace or st.trace is self.body
                or self._from_outside(st))

    def gate(self) -> Any:
        """Whether every check made so far passed (a traced bool), or None where no write
        needs gating: no check yet, or a write inside a loop body or branch (it reaches the
        call's Tensors only through a write at this level, which is gated). The mode says how
        (``_modes.py``): under checkify the error state so far is read (:data:`no_error_p`),
        which includes checks made in loop bodies, branches and nested jits."""
        cur = current_trace()
        if cur is not self.jax_trace:
            return self.checks.body_gate(self) if cur is self.body else None
        return self.checks.gate(self)

    def _ok_so_far(self) -> Any:
        """The gate of this trace's level, asked by a call nested in it."""
        return self.checks.gate(self)

    def update(self, st: Storage, fn: Any, args: tuple) -> None:
        """``st``'s value becomes ``fn(value, *args)`` (a write kernel), only if every check
        so far passed: under ``lax.cond``, which XLA runs in place on a donated buffer."""
        old = self.read(st)
        ok = self.gate()
        if ok is None:
            self._write(st, fn(old, *args))
        else:
            gated = getattr(fn, "gated", None)  # (a basic-index write: costs what it writes)
            if gated is not None:
                self._write(st, gated(ok, old, *args))
            elif old.size <= _SELECTED:  # (``top[...] += 1``: no conditional to enter)
                self._write(st, lax.select(ok, fn(old, *args), old))
            else:
                self._write(st, lax.cond(ok, lambda b: fn(b, *args), lambda b: b, old))

    def write(self, st: Storage, new: Any) -> None:
        """``new`` (computed from the current value) becomes ``st``'s value, only if every
        check so far passed."""
        self.write_if(st, new, self.gate())

    def write_if(self, st: Storage, new: Any, ok: Any) -> None:
        """``new`` becomes ``st``'s value if ``ok`` (a traced bool; None: always). A nested
        ``jaxtensor.jit`` call's results are written back so, with ``ok`` whether the checks
        made before the call passed: its own writes are gated inside it, so those made
        before a check of its own fails are kept, as eagerly."""
        if ok is not None:
            old = self.read(st)
            if old.shape == new.shape and old.dtype == new.dtype:
                new = lax.select(ok, new, old)
        self._write(st, new)

    def _write(self, st: Storage, new: Any) -> None:
        known = st in self.values
        cur = current_trace()
        if cur is self.jax_trace:
            self.n_writes += 1
        if known or self._from_outside(st):
            if cur is not self.jax_trace and cur is not self.body:
                raise TracerLeakError(
                    "a Tensor from outside a nested trace (a loop body, cond, vmap or nested "
                    "jit inside the jaxtensor.jit function) is written inside it; pass it "
                    "through the loop carry (or the branch operands) and write the result "
                    "back after the loop instead"
                )
            if not known:
                self._discover(st)
            self.values[st] = new
            return
        if cur is self.body and st.trace is not cur:
            # made by the trace outside this body: carried through it (``_loop_trace.py``)
            self.values[st] = new
            return
        # a storage the trace made: an ordinary write (its own leak check included)
        st.install(new)

    def written(self, st: Storage) -> bool:
        # (a storage discovered in a loop body that a thrown-away trace did not carry, see
        # ``_loop_trace._discarded``, is not in ``values``)
        v = self.initial[st]
        return self.values.get(st, v) is not v

    # -- bounds checks: each method says what is checked, the mode how (``_modes.py``) ------
    def makes_checks(self) -> bool:
        """Whether the trace checks indices at all (its own mode, or its parent's)."""
        c = self.checks
        if c.inherited:
            return self.parent is not None and self.parent.makes_checks()
        return c.folded or c.checkify

    def checks_later(self) -> bool:
        """Inside a jaxtensor control-flow body (a loop body or ``cond`` branch, which may
        never run), or a nested call made in one; at the function's top level a constant
        index out of range raises where it is traced, as eagerly (code around it may catch
        the ``IndexError``)."""
        if not self.makes_checks():
            return False
        return self.later_here() or current_trace() is not self.jax_trace

    def later_here(self) -> bool:
        """Whether code traced now at this trace's level may never run: in a jaxtensor
        control-flow body, or in a nested call made where its enclosing trace is."""
        if self.loop is not None or self.body is not None:
            return True
        return bool(self.checks.inherited and self.parent is not None
                    and self.parent.later_here())

    def check_index(self, i: Any, n: int, axis: int, fname: str | None = None) -> None:
        self.checks.check(self, ck.index((i, n, axis, fname)))

    def check_window(self, i: Any, size: int, n: int, axis: int) -> None:
        self.checks.check(self, ck.window((i, size, n, axis)))

    def check_value(self, v: Any, dtype: np.dtype) -> None:
        """Check a traced single value assigned into an integer Tensor of ``dtype`` as eager
        code checks a number (``_check_kinds.Value``)."""
        self.checks.check(self, ck.value((v, dtype)))

    def check_matrices(self, bad: Any, message: str, arg: str) -> None:
        """Check a stack of matrices (``JitTrace.check_matrices``, ``_check_kinds.Matrices``)."""
        self.checks.check(self, ck.matrices((bad, message, arg)))

    def check_reached(self, error: Exception) -> None:
        """``JitTrace.check_reached`` (``_check_kinds.Raised``)."""
        self.checks.check(self, ck.raised((RaisedFailure(type(error), str(error)),)))

    def check(self, c: Any) -> None:
        """Make the check ``c`` of a call nested in this trace, in this trace's mode."""
        self.checks.check(self, c)

    def _here(self) -> bool:
        """Whether a check made now can be recorded (folded modes): at the top level of the
        trace, or in a jaxtensor control-flow body, whose checks are carried through it."""
        cur = current_trace()
        return cur is self.jax_trace or (self.loop is not None and cur is self.body)

    def item(self, fail: Any, v: Any, msg: Any, code: Any = None) -> None:
        """Record a check (``code``: a traced code for a loop's carried checks, else the
        check's own number). In a body the check goes to the body's list (the loop carries
        the first failure) and a placeholder keeps the numbering."""
        if current_trace() is self.jax_trace:
            if code is not None and self.ok is None:
                # (a loop's check, the first at this level: its checks read the loop's
                # writes, so they are not hoistable; no write was gated yet, so this trace
                # goes on as the plain one, whose writes the chain of checks gates, rather
                # than being made again: ``_checks._body_hoisted``)
                self.code = None
            self.items.append((fail, v, code))
            self.msgs.append(msg)
            ok, code = lax.bitwise_not(fail), self.code
            if code is not None:  # (hoisted gates: one comparison with the code)
                self.ok = lax.bitwise_or(lax.eq(code, np.zeros((), code.dtype)),
                                         lax.gt(code, np.asarray(len(self.items), code.dtype)))
            else:
                self.ok = ok if self.ok is None else lax.bitwise_and(self.ok, ok)
            return
        if not self._here():  # (a loop's carried check inside another JAX transformation)
            self.missed = True
            return
        lp = self.loop
        self.items.append((_NEVER, np.asarray(0, _IDX), None))
        self.msgs.append(msg)
        lp.items.append((fail, v, len(self.msgs) if code is None else code))
        ok = lax.bitwise_not(fail)
        lp.ok = ok if lp.ok is None else lax.bitwise_and(lp.ok, ok)
        lp.fresh += 1

    def check_output(self) -> Any:
        """The recorded checks folded into ``[code, value]``: ``code`` is 0 when every check
        passed, else 1 + the number of the first failing one. A chain of scalar selects,
        which XLA fuses into one kernel."""
        code = bad = lax.full((), 0, _IDX)
        for j in range(len(self.items) - 1, -1, -1):  # the first failing check wins
            fail, v, c = self.items[j]
            if fail is _NEVER:  # (the place of a check a loop carries)
                continue
            code = lax.select(fail, lax.full((), j + 1, _IDX) if c is None else c, code)
            bad = lax.select(fail, v, bad)
        return jnp.stack([code, bad])


class CheckedTrace(JitTrace):
    """Bounds checks for a function transformed under ``checkify`` outside ``jaxtensor.jit``
    (``jaxtensor.vmap``, ``grad``, ...): storages are read and written as they are; traced
    index values are checked with ``checkify.check``.

    With ``closed`` (``grad``/``vjp``/``jvp``), a traced value written into a storage made
    outside the function's trace is kept here (gated by the checks so far); those made
    outside every trace (Tensors the function closes over), ``written()``, the transform
    installs after it."""

    __slots__ = ("closed", "outer", "checks")

    @property
    def mode(self) -> CheckMode | None:
        """What a ``jaxtensor.jit`` function called inside inherits."""
        return CheckMode.CHECKIFY if self.checks else None

    def __init__(self, closed: bool = False, outer: JitTrace | None = None,
                 checks: bool = True) -> None:
        self.closed: dict[Storage, Any] | None = {} if closed else None
        self.checks = checks  # (False: nested in a trace that makes no checks)
        # the trace around a transform nested in one (``jaxtensor.jit``'s, or a top-level
        # transform's): the values of its storages are read there, and what is written into
        # them goes there after the transform (``written``)
        self.outer = outer

    def read(self, st: Storage) -> Any:
        closed = self.closed
        if closed:
            v = closed.get(st, _MISSING)
            if v is not _MISSING:
                return v
        if self.outer is not None:
            return self.outer.read(st)
        return st.settled()

    def owns(self, st: Storage) -> bool:
        return isinstance(st.trace, EvalTrace) or (
            self.outer is not None and self.outer.owns(st))

    def _kept(self, st: Storage, new: Any) -> bool:
        """Whether ``new`` is kept here rather than installed: a traced value for a storage
        made outside this trace (closed over, or the transform's copy of an argument, made
        in the trace around checkify's)."""
        return (self.closed is not None and isinstance(new, Tracer)
                and st.trace is not current_trace())

    def write(self, st: Storage, new: Any) -> None:
        if self._kept(st, new):
            self.closed[st] = new  # type: ignore[index]
        else:
            if self.closed:  # (a value kept before is no longer the storage's)
                self.closed.pop(st, None)
            st.install(new)

    def update(self, st: Storage, fn: Any, args: tuple) -> None:
        """A write of the function itself: after a failed check it leaves the value eager
        code left (the write-back of a loop or ``jaxtensor.jit`` call is gated inside it)."""
        old = self.read(st)
        new = fn(old, *args)
        if GATED and self.checks and self._kept(st, new):
            new = lax.select(no_error_p.bind(), new, old)
        self.write(st, new)

    def written(self) -> list[tuple[Storage, Any]]:
        """The values written into storages made outside every trace (closed over), or,
        nested, that the trace around holds (``owns``): not the transform's copies of its
        arguments."""
        outer = self.outer
        return [(st, v) for st, v in (self.closed or {}).items()
                if (outer.owns(st) if outer is not None else isinstance(st.trace, EvalTrace))]

    def _ok_so_far(self) -> Any:
        """The gate of a ``jaxtensor.jit`` call nested here: none under ``vmap`` (the batched
        function's writes are its own); under ``grad``/``vjp``/``jvp`` (``closed``) the error
        state so far, as :meth:`update` gates the function's own writes (a write-back after
        a failed check would reach a closed-over Tensor)."""
        if GATED and self.checks and self.closed is not None:
            return no_error_p.bind()
        return None

    def makes_checks(self) -> bool:
        return self.checks

    def checks_later(self) -> bool:
        return False  # (the transformed function's top level: raised where traced)

    def later_here(self) -> bool:
        return False

    def check_index(self, i: Any, n: int, axis: int, fname: str | None = None) -> None:
        self.check(ck.index((i, n, axis, fname)))

    def check_window(self, i: Any, size: int, n: int, axis: int) -> None:
        self.check(ck.window((i, size, n, axis)))

    def check_value(self, v: Any, dtype: np.dtype) -> None:
        self.check(ck.value((v, dtype)))

    def check_matrices(self, bad: Any, message: str, arg: str) -> None:
        self.check(ck.matrices((bad, message, arg)))

    def check(self, c: Any) -> None:
        """A check (its own, or of a call nested in this trace): checkify's, where the trace
        makes checks."""
        if self.checks:
            c.checkify()


#: a failed matrix check's message (under ``vmap``, checkify names the batch member first)
#: primitives that write or loop (or factorize, for a ``linalg`` check): a check computed
#: through one of them would make the first application of a program with hoisted gates
#: repeat that work (XLA merges identical scalar work of the two applications, not loops
#: or LAPACK calls)
_WRITES = frozenset({"dynamic_update_slice", "scatter", "scatter-add", "scatter_add",
                     "scatter-mul", "scatter_mul", "scatter-min", "scatter_min",
                     "scatter-max", "scatter_max", "while", "cond", "scan", "cholesky",
                     "lu"})


def hoistable(jaxpr: Any) -> bool:
    """Whether the checks of a trace with hoisted gates (``jaxpr``'s last output) can be
    computed ahead of its writes: they depend neither on the trace's last input (the
    failed check's number, which gates the writes) nor on any write or loop. A walk back
    from that output over the equations, each needing all its inputs."""
    needed = {jaxpr.outvars[-1]}
    for eqn in reversed(jaxpr.eqns):
        if any(v in needed for v in eqn.outvars):
            if _writes(eqn):
                return False
            needed.update(v for v in eqn.invars if not isinstance(v, Literal))
    return jaxpr.invars[-1] not in needed


def _writes(eqn: Any) -> bool:
    if eqn.primitive.name in _WRITES:
        return True
    for p in eqn.params.values():
        inner = getattr(p, "jaxpr", p)  # (a ClosedJaxpr's jaxpr, or a Jaxpr)
        if hasattr(inner, "eqns") and any(_writes(e) for e in inner.eqns):
            return True
    return False


def weak(storages: list[Storage]) -> tuple:
    return tuple(weakref.ref(st) for st in storages)
