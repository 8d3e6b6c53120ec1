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
from jax.core import ShapedArray
from jax.experimental import checkify
from jax.extend.core import Literal, Primitive

from .._core import IDX as _IDX
from .._core import JitTrace, Storage, TracerLeakError, cache, current_trace
from .._core._errors import matrix_name
from .._core._jax_private import (
    EvalTrace,
    checkify_error_preds,
    lower_fun,
    register_checkify_rule,
    register_lowering,
)
from ._body_checks import BodyChecks
from ._check_errors import message, value_message, window_message

Tracer = jax.core.Tracer
_IDX_SIZE = np.dtype(_IDX).itemsize
_MISSING = object()

#: bounds-check modes: checks folded into one ``[code, value]`` output; checkify checks;
#: the checks of the enclosing ``jaxtensor.jit`` trace
OWN, CHECKIFY, INHERIT = "own", "checkify", "inherit"


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
GATED = register_checkify_rule is not None
if GATED:
    register_lowering(no_error_p, lower_fun(lambda: [jnp.bool_(True)], multiple_results=True))
    register_checkify_rule(no_error_p, _no_error_rule)


class Trace(JitTrace):
    """The state of one trace of a ``jaxtensor.jit`` function.

    Attributes:
        values: per storage touched, its value inside the trace (argument storages start
            with their input tracers).
        initial: the value each storage of ``values`` started the trace with.
        discovered: storages from outside the call met during the trace, in order.
        mode: the bounds-check mode (``OWN``, ``CHECKIFY`` or None: no checks).
        missed: a check was made where ``OWN`` mode cannot carry it out.
    """

    __slots__ = ("values", "initial", "outer", "parent", "jax_trace", "discovered", "mode",
                 "missed", "items", "msgs", "ok", "body", "n_writes", "loop", "code")

    def __init__(self, storages: list[Storage], arrays: list[Any], outer: Any,
                 parent: JitTrace | None, mode: str | None, code: Any = None) -> None:
        self.values: dict[Storage, Any] = dict(zip(storages, arrays))
        self.initial = dict(self.values)
        self.outer = outer  # the JAX trace the jaxtensor.jit call was made under
        self.parent = parent  # the enclosing jaxtensor.jit trace, if any
        self.jax_trace = current_trace()
        self.discovered: list[Storage] = []
        self.mode = mode
        self.missed = False
        self.items: list[tuple[Any, Any]] = []  # OWN mode: (fails, offending value) per check
        # ... and (axis, size, unsigned, function name), or ("value", dtype, kind, unsigned)
        self.msgs: list[tuple] = []
        # whether every check made so far (in this JAX trace) passed: a traced bool that
        # gates every later write, so a call that fails a check changes nothing from there on
        self.ok: Any = None
        # the JAX trace of the innermost jaxtensor control-flow body (``_loop_trace.py``) being
        # traced, where storages are carried: ``values`` then holds the carried values
        self.body: Any = None
        self.n_writes = 0  # writes traced at the top level (a Python loop unrolls into many)
        # OWN mode: the checks of the jaxtensor control-flow body being traced
        self.loop: BodyChecks | None = None
        # OWN mode, hoisted gates: the number of the call's first failing check (0: none),
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

    def read(self, st: Storage) -> Any:
        v = self.values.get(st, _MISSING)
        if v is not _MISSING:
            return v
        if self._from_outside(st):
            return self._discover(st)
        return st.settled()

    def gate(self) -> Any:
        """Whether every check made so far passed (a traced bool), or None where no write
        needs gating: no check yet, or a write inside a loop body or branch (it reaches the
        call's Tensors only through a write at this level, which is gated). Under checkify
        the error state so far is read (:data:`no_error_p`), which includes checks made in
        loop bodies, branches and nested jits."""
        cur = current_trace()
        if cur is not self.jax_trace:
            return self._ok_in_body() if cur is self.body else None
        return self._ok_so_far()

    def _ok_in_body(self) -> Any:
        """The gate of a write in a jaxtensor control-flow body: under checkify the error
        state carried into the iteration (every write: a check of the iteration before may
        have failed), else the checks made before the loop (a check in the body makes the
        function be traced under checkify)."""
        mode = effective_mode(self)  # (a nested jit's checks are those of the trace around it)
        if mode == CHECKIFY:
            return no_error_p.bind() if GATED else None
        if self.mode == INHERIT:
            return None
        lp = self.loop
        return self.ok if lp is None else lp.gate()

    def _ok_so_far(self) -> Any:
        mode = self.mode
        if mode == CHECKIFY:
            return no_error_p.bind() if self.ok is not None and GATED else None
        if mode == INHERIT:
            return self.parent._ok_so_far()
        return self.ok if current_trace() is self.jax_trace else None

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

    # -- bounds checks ---------------------------------------------------------------------
    def check_index(self, i: Any, n: int, axis: int, fname: str | None = None) -> None:
        mode = self.mode
        if mode is None:
            return
        if mode == CHECKIFY:
            self._passed(_checkify_check(i, n, axis, fname))
        elif mode == INHERIT:
            self.parent.check_index(i, n, axis, fname)
        elif not self._here():
            self.missed = True
        else:
            self._record(i, n, axis, fname)

    def check_window(self, i: Any, size: int, n: int, axis: int) -> None:
        mode = self.mode
        if mode is None:
            return
        if mode == CHECKIFY:
            self._passed(_checkify_window(i, size, n, axis))
        elif mode == INHERIT:
            self.parent.check_window(i, size, n, axis)
        elif not self._here():
            self.missed = True
        else:
            v = jnp.asarray(i).astype(_IDX)
            self.item((v < 0) | (v > n - size), v, ("window", axis, n, size))

    def check_value(self, v: Any, dtype: np.dtype) -> None:
        """Check a traced single value assigned into an integer Tensor of ``dtype`` as eager
        code checks a number: NaN or infinity raise ``ValueError``, an integer out of the
        dtype's range ``OverflowError``."""
        mode = self.mode
        if mode is None:
            return
        if mode == INHERIT:
            self.parent.check_value(v, dtype)
            return
        for fail, bad, raw, msg in _value_checks(v, dtype):
            if mode == CHECKIFY:
                self._passed(_checkify_value(fail, raw, msg))
            elif not self._here():
                self.missed = True
            else:
                self.item(fail, bad, msg)

    def check_matrices(self, bad: Any, message: str, arg: str) -> None:
        """Check a stack of matrices (``JitTrace.check_matrices``): the first failing
        one's flat index is the value recorded; the call raises ``LinAlgError``."""
        mode = self.mode
        if mode is None:
            return
        if mode == INHERIT:
            self.parent.check_matrices(bad, message, arg)
        elif mode == CHECKIFY:
            self._passed(_checkify_matrices(bad(), message, arg))
        elif not self._here():
            self.missed = True
        else:
            flags = bad()
            if flags.size:
                self.item(jnp.any(flags), jnp.argmax(flags.reshape(-1)).astype(_IDX),
                          ("linalg", message, arg, flags.shape))

    def _here(self) -> bool:
        """Whether a check made now can be recorded (OWN mode): at the top level of the
        trace, or in a jaxtensor control-flow body, whose checks are carried through it."""
        cur = current_trace()
        return cur is self.jax_trace or (self.loop is not None and cur is self.body)

    def item(self, fail: Any, v: Any, msg: tuple, code: Any = None) -> None:
        """Record a check (``code``: a traced code for a loop's carried checks, else the
        check's own number). In a body the check goes to the body's list (the loop carries
        the first failure) and a placeholder keeps the numbering."""
        if current_trace() is self.jax_trace:
            self.items.append((fail, v, code))
            self.msgs.append(msg)
            self._passed(~fail)
            return
        if not self._here():  # (a loop's carried check inside another JAX transformation)
            self.missed = True
            return
        lp = self.loop
        self.items.append((np.bool_(False), np.asarray(0, _IDX), None))
        self.msgs.append(msg)
        lp.items.append((fail, v, len(self.msgs) if code is None else code))
        lp.ok = ~fail if lp.ok is None else lp.ok & ~fail
        lp.fresh += 1

    def _passed(self, ok: Any) -> None:
        if self.mode == CHECKIFY:
            self.ok = True  # (a check was made: later writes read the error state)
        elif current_trace() is self.jax_trace:
            code = self.code
            if code is not None:
                self.ok = (code == 0) | (code > len(self.items))
            else:
                self.ok = ok if self.ok is None else self.ok & ok

    def _record(self, i: Any, n: int, axis: int, fname: str | None) -> None:
        i = jnp.asarray(i)
        if i.size == 0:
            return
        dt = np.dtype(i.dtype)
        # Unsigned values too large for the index dtype would wrap when converted: compare
        # them in their own dtype, and undo the wrap on the host. For an array, the value
        # named is the one eager code names: the largest if it is too large, else the
        # smallest.
        wrap = dt.kind == "u" and dt.itemsize >= _IDX_SIZE
        if wrap:
            hi = jnp.max(i) if i.ndim else i
            fail = hi >= n
            v = hi.astype(_IDX)
        elif i.ndim:
            v = i.astype(_IDX)
            lo, hi = jnp.min(v), jnp.max(v)
            too_big = hi >= n
            fail = too_big | (lo < -n)
            v = lax.select(too_big, hi, lo)
        else:
            v = i.astype(_IDX)
            fail = (v < -n) | (v >= n)
        self.item(fail, v, (axis, n, wrap, fname))

    def check_output(self) -> Any:
        """The recorded checks folded into ``[code, value]``: ``code`` is 0 when every check
        passed, else 1 + the number of the first failing one. A chain of scalar selects,
        which XLA fuses into one kernel."""
        code = bad = lax.full((), 0, _IDX)
        for j in range(len(self.items) - 1, -1, -1):  # the first failing check wins
            fail, v, c = self.items[j]
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

    __slots__ = ("closed",)
    mode = CHECKIFY  # (what a jaxtensor.jit function called inside inherits)

    def __init__(self, closed: bool = False) -> None:
        self.closed: dict[Storage, Any] | None = {} if closed else None

    def read(self, st: Storage) -> Any:
        closed = self.closed
        if closed:
            v = closed.get(st, _MISSING)
            if v is not _MISSING:
                return v
        return st.settled()

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
            st.install(new)

    def update(self, st: Storage, fn: Any, args: tuple) -> None:
        """A write of the function itself: after a failed check it leaves the value eager
        code left (the write-back of a loop or ``jaxtensor.jit`` call is gated inside it)."""
        old = self.read(st)
        new = fn(old, *args)
        if GATED and self._kept(st, new):
            new = lax.select(no_error_p.bind(), new, old)
        self.write(st, new)

    def written(self) -> list[tuple[Storage, Any]]:
        """The values written into storages made outside every trace (closed over)."""
        return [(st, v) for st, v in (self.closed or {}).items()
                if isinstance(st.trace, EvalTrace)]

    def _ok_so_far(self) -> None:
        """Writes are not gated here (the batched function's writes are its own)."""
        return None

    def check_index(self, i: Any, n: int, axis: int, fname: str | None = None) -> None:
        _checkify_check(i, n, axis, fname)

    def check_window(self, i: Any, size: int, n: int, axis: int) -> None:
        _checkify_window(i, size, n, axis)

    def check_value(self, v: Any, dtype: np.dtype) -> None:
        for fail, _, raw, msg in _value_checks(v, dtype):
            _checkify_value(fail, raw, msg)

    def check_matrices(self, bad: Any, message: str, arg: str) -> None:
        _checkify_matrices(bad(), message, arg)


def _checker(key: tuple, make: Any) -> Any:
    """The cached ``jax.jit`` function ``make()`` of a checkify check (``key``: what its
    message and bounds depend on). Made inside a cached function, a check's error state
    carries the same metadata at every call, so the compiled functions after it are found
    again under an eager ``jaxtensor.grad`` (a bare check recompiles each of them at every
    call)."""
    fn = _CHECKERS.get(key)
    if fn is None:
        fn = _CHECKERS[key] = jax.jit(make())
    return fn


_CHECKERS = cache("checkify checks", 512)


def _checkify_window(i: Any, size: int, n: int, axis: int) -> Any:
    def make() -> Any:
        def check(i: Any) -> Any:
            ok = (i >= 0) & (i <= n - size)
            checkify.check(ok, window_message("{}", size, n, axis), i)
            return ok
        return check

    return _checker(("window", size, n, axis), make)(jnp.asarray(i))


def _checkify_check(i: Any, n: int, axis: int, fname: str | None = None) -> Any:
    i = jnp.asarray(i)
    if i.size == 0:
        return jnp.bool_(True)

    def make() -> Any:
        def check(i: Any) -> Any:
            ok = (i >= -n) & (i < n)
            if i.ndim == 0:
                bad = i
            else:  # the value eager code names: the largest if too large, else the smallest
                hi = jnp.max(i)
                bad = jnp.where(hi >= n, hi, jnp.min(i))
            ok = jnp.all(ok)
            checkify.check(ok, message("{}", n, axis, fname), bad)
            return ok
        return check

    return _checker(("index", n, axis, fname), make)(i)


def _checkify_value(fail: Any, raw: Any, msg: tuple) -> Any:
    def make() -> Any:
        def check(fail: Any, raw: Any) -> Any:
            checkify.check(~fail, value_message(msg), raw)
            return ~fail
        return check

    return _checker(("value", msg), make)(fail, raw)


def _checkify_matrices(flags: Any, message: str, arg: str) -> Any:
    """``checkify.check`` that no matrix of a stack failed; the message names the first
    failing one as eager code does (its index in the stack: the checkify values). Made
    inside a cached ``jax.jit`` function: checkify's error state then carries the same
    metadata at every call, so the compiled functions after it are found again under an
    eager ``jaxtensor.grad`` (a bare check recompiles each of them at every call)."""
    if not flags.size:
        return jnp.bool_(True)
    fn = _MATRIX_CHECKS.get((message, arg))
    if fn is None:
        def check(flags: Any) -> Any:
            ok = ~jnp.any(flags)
            nd = flags.ndim
            index = jnp.unravel_index(jnp.argmax(flags.reshape(-1)), flags.shape) if nd else ()
            checkify.check(ok, message.format(matrix_name(arg, ["{}"] * nd)), *index)
            return ok

        fn = _MATRIX_CHECKS[message, arg] = jax.jit(check)
    return fn(flags)


_MATRIX_CHECKS = cache("checkify matrix checks", 256)


def _value_checks(v: Any, dtype: np.dtype) -> list[tuple[Any, Any, Any, tuple]]:
    """The checks of a single value assigned into the integer ``dtype``, each (fails, value
    to report in the folded output, value for checkify, message tuple). A float fails when it
    is not finite (reported as -1, 0 or 1 for -inf, NaN and inf: ``_FLOAT_NAMES``) and, as
    eager code does, when its truncation is out of the dtype's range (one beyond the index
    dtype's range is reported as that range's end)."""
    v = jnp.asarray(v)
    vdt = np.dtype(v.dtype)
    lo, hi = np.iinfo(dtype).min, np.iinfo(dtype).max
    if jnp.issubdtype(vdt, jnp.floating):  # (bfloat16 has kind "V")
        finite = jnp.isfinite(v)
        t = jnp.where(finite, jnp.trunc(v), 0)
        bad = t.astype(_IDX)
        return [(~finite, jnp.where(jnp.isnan(v), 0, jnp.sign(v)).astype(_IDX), v,
                 ("value", str(dtype), "f", False)),
                ((t < float(lo)) | (t >= float(hi) + 1), bad, bad, ("value", str(dtype), "i", False))]
    vlo, vhi = np.iinfo(vdt).min, np.iinfo(vdt).max
    fail = jnp.zeros((), bool)
    if lo > vlo:
        fail = fail | (v < lo)
    if hi < vhi:
        fail = fail | (v > hi)
    unsigned = vdt.kind == "u" and vdt.itemsize >= _IDX_SIZE
    return [(fail, v.astype(_IDX), v, ("value", str(dtype), "i", unsigned))]


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


def effective_mode(trace: JitTrace) -> str | None:
    """The check mode a ``jaxtensor.jit`` call made inside ``trace`` inherits (through any
    chain of nested calls, each inheriting its enclosing one's)."""
    while getattr(trace, "mode", None) == INHERIT:
        trace = trace.parent
    return getattr(trace, "mode", None)


def weak(storages: list[Storage]) -> tuple:
    return tuple(weakref.ref(st) for st in storages)
