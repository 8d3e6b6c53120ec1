"""``jaxtensor.jit``: compiled functions with the in-place semantics of eager code.

>>> import jaxtensor as jt
>>> @jt.jit
... def bump(x, i):
...     x[i] += 1          # mutates the caller's Tensor
>>> a = jt.zeros(4)
>>> for i in range(4):
...     bump(a, i)         # compiles once: the index value is dynamic
>>> a
Tensor(shape=[4], dtype=float64, device=cpu,
       [1., 1., 1., 1.])

One call path (see ``docs/architecture.md``):

1. :meth:`Jitted._call` describes the call: each distinct *storage* behind the Tensor
   arguments is passed to XLA once (so ``f(a, a[1:])`` keeps the aliasing), each view's
   start offsets are passed as data, and closed-over storages the function touched in an
   earlier trace follow as implicit inputs. The description (the *spec*: shapes aside,
   everything the trace depends on) picks a :class:`Plan`, one ``jax.jit`` function.
   A repeat *plain* call (positional Tensors without views, numbers, arrays) skips the
   description: the guard generated for its signature (``_guard.py``, the one place
   code is generated) checks the signature and makes the same call.
2. Tracing runs :meth:`Jitted._body`: a :class:`~jaxtensor._jit._trace.Trace` in the
   ``jaxtensor._core._context.current`` context variable gives the function its own value of
   every storage and collects bounds checks of traced index values into one small
   ``[code, value]`` output (``_pytree.py`` rebuilds the arguments and describes the
   outputs). Nothing is patched onto classes or module globals, and nothing raises to
   steer control flow: eager work in other threads is unaffected.
3. :meth:`Jitted._finish` installs the final value of every written storage
   (``Storage._install``; old buffers were donated when ``Storage.lend`` found nobody else
   holds them), raises a failed bounds check as ``IndexError``, and rebuilds the results
   (those aliasing an argument come back as views of it).

Errors point at the user's code: the traced function carries JAX's ``DebugInfo`` with the
user's function and argument names (for JAX's tracing errors), and an exception leaving a
call loses jaxtensor's frames from its traceback (:func:`_without_own_frames`).

A top-level call is traced and compiled holding no lock (a first call that meets closed-over
storages is traced again with them as inputs before anything is compiled), then holds the
locks of its storages from lending their values to installing its results, so it is atomic
with respect to writes to those storages in other threads, and work on other Tensors never
waits for it.
"""

from __future__ import annotations

import functools
import inspect
import os
import types
import warnings
import weakref
from collections.abc import Callable, Hashable, Sequence
from contextvars import ContextVar
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import checkify

from .._core import IDX, Storage, Tensor, WeakTensor, _config, _view, current_trace
from .._core import current as _current
from .._core._jax_private import DebugInfo as _DebugInfo
from .._core._jax_private import EvalTrace as _EvalTrace
from .._core._jax_private import eval_trace as _eval_trace
from .._core._jax_private import initial_result_paths as _initial_result_paths
from .._core._jax_private import trace_state as _trace_state
from . import _guard, _hostcheck, _shardings
from . import _pytree as jpt
from . import _trace as jtr

__all__ = ["RecompileWarning", "UnrolledLoopWarning", "jit"]

Tracer = jax.core.Tracer
_IDX = _view._IDX_NP
_ArrayImpl = type(jnp.zeros(0))

# jax.jit options that name argument positions or outputs: they would not mean what the user
# expects, since the compiled function takes storages, not the user's arguments.
_REJECTED = {
    "donate_argnums": "jaxtensor.jit donates the buffers of argument storages by itself when "
    "nobody else holds them; pass donate=False to turn that off",
    "donate_argnames": "jaxtensor.jit donates the buffers of argument storages by itself when "
    "nobody else holds them; pass donate=False to turn that off",
}

# argument types that are pytree leaves as they are
# (a Python or NumPy bool is static: as an index it means a new axis, selected or not, which
# a traced bool cannot; a list of them is a mask known while tracing, as eagerly)
_FLAT_LEAF = frozenset({Tensor, int, float, complex, np.ndarray, _ArrayImpl})
_ARRAY_TYPES = (jax.Array, np.ndarray, np.generic, Tracer)


class _Call:
    """What a trace started by a call needs: its storages, the JAX trace and the
    ``jaxtensor.jit`` trace it was made under. (A plain call passes just the list.)"""

    __slots__ = ("storages", "outer", "parent", "concrete")

    def __init__(self, storages: list[Storage], outer: Any, parent: Any,
                 concrete: Sequence | None = None) -> None:
        self.storages = storages
        self.outer = outer
        self.parent = parent
        self.concrete = concrete  # the compiled function's arguments, when being traced


class _Desc(NamedTuple):
    """A call described (:meth:`Jitted._describe`)."""

    leaves: list
    treedef: Any
    static: tuple
    storages: list
    desc: list
    starts: list
    inputs: list
    implicit: tuple
    outer: Any
    parent: Any
    nested: bool
    check: Any


#: The call whose compiled function is running or being lowered, for the trace JAX may start
#: (its storages, or a :class:`_Call`).
CALL: ContextVar[Any] = ContextVar("jaxtensor_jit_call", default=None)


class _Retrace(Exception):
    """A check was made in a nested trace: the call is traced again in checkify mode."""


#: the check mode of a plan's gated program (see :meth:`Jitted._body_hoisted`)
_GATED = "gated"


def _coded(fast: Callable, plan: Plan, make_gated: Callable[[], Callable]) -> Callable:
    """The compiled function of an ``OWN``-mode plan: its program ``fast``, whose last
    output is the number of the first failed check when the trace's checks were hoisted
    ahead of the writes (``Aux.coded``): then a failed call, which wrote nothing, is made
    again by the plan's gated program (made by ``make_gated()`` at the first failure),
    whose results carry the error and the writes eager code makes before it. Where the
    plan's checks are decided on the host (``plan.host``), ``fast`` has no checks and runs
    only the calls the host clears; the others run the gated program (``slow``).

    The guard of a plain call (``_guard.py``) makes the same steps inline, with the
    function's attributes ``fast``, ``nonzero``, ``again`` and ``slow``. (Plain functions:
    an object's ``__call__`` cost 2 us more per call.)"""
    gated: list[Callable] = []
    positions = plan.positions
    buffer_read = [True]

    def nonzero(code: Any) -> bool:
        # Read with the buffer protocol where the array has one (XLA:CPU; it waits for
        # the value): 1 us less per call than np.asarray, JAX's Python conversion path.
        if buffer_read[0]:
            try:
                return any(memoryview(code).tobytes())
            except Exception:  # (an accelerator's buffer: BufferError; np.asarray tells the rest)
                buffer_read[0] = False
        return bool(np.asarray(code))

    def slow(*ins: Any) -> Any:
        if not gated:
            gated.append(make_gated())
        return gated[0](*ins)

    def again(ins: tuple, aux: Any, outs: tuple) -> Any:
        args = list(ins)
        for j, k in aux.pairs:  # (the values the failed call was given, unchanged)
            args[positions[k]] = outs[j]
        return slow(*args)

    def call(*ins: Any) -> Any:
        host = plan.host
        if host is not None and not host(ins):
            return slow(*ins)
        res = fast(*ins)
        for aux in res:
            if aux.coded and nonzero(res[aux][-1]):
                return again(ins, aux, res[aux])
        return res

    call.fast = fast  # type: ignore[attr-defined]
    call.nonzero = nonzero  # type: ignore[attr-defined]
    call.again = again  # type: ignore[attr-defined]
    call.slow = slow  # type: ignore[attr-defined]
    call.lower = fast.lower  # type: ignore[attr-defined]
    return call


class Plan:
    """One compiled variant: the ``jax.jit`` function and where its inputs go.

    The call being made (its storages, or a :class:`_Call`) is in :data:`CALL` while
    ``fn`` runs or is lowered: the trace JAX may start reads it there (a context variable:
    each thread and task sees its own call).
    """

    __slots__ = ("fn", "donated", "positions", "stale", "ready", "discovered", "host",
                 "host_decided")

    def __init__(self, fn: Callable, donated: tuple, positions: tuple) -> None:
        self.fn = fn
        self.donated = donated
        self.positions = positions  # where each storage's array goes among the arguments
        # dropped by Jitted._forget: a guard that another thread fetched before the drop
        # must not run it (it may hold a closed-over value as a constant)
        self.stale = False
        self.ready = False  # traced and compiled (Jitted._ready)
        self.discovered: tuple = ()  # closed-over storages the last trace met (weakly)
        # OWN mode: whether a call's inputs pass every bounds check, decided on the host
        # (``_hostcheck.checker``), where the first trace found that possible; its program
        # then has no checks, and a call the host cannot clear runs the gated program
        self.host: Callable[[Sequence], bool] | None = None
        self.host_decided = False


def _hashable(v: Any) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def _restore(busy: list[tuple[Storage, Any]]) -> None:
    for st, a in busy:
        st.restore(a)


def _starts(starts: list[Any]) -> Any:
    """The view arguments' start offsets as one array (a traced one inside a trace)."""
    if any(isinstance(s, Tracer) for s in starts):
        return jnp.stack([jnp.asarray(s, _IDX) for s in starts])
    return np.array(starts, dtype=_IDX)


def _closed_over(fn: Callable) -> list[Storage]:
    """The storages of the Tensors ``fn`` names in its closure or its globals: implicit
    inputs from the first trace on (a closed-over Tensor found by the trace instead costs
    a second trace; one reached another way, through a container or a called function,
    still is)."""
    found: list[Storage] = []
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            v = cell.cell_contents
        except ValueError:  # (an empty cell)
            continue
        if isinstance(v, Tensor):
            found.append(v._storage)
    code, glob = getattr(fn, "__code__", None), getattr(fn, "__globals__", None)
    if code is not None and isinstance(glob, dict):
        for name in code.co_names:
            v = glob.get(name)
            if isinstance(v, Tensor):
                found.append(v._storage)
    # (a Tensor of an enclosing trace is left to the trace to find)
    return [st for st in dict.fromkeys(found) if not isinstance(st._array, jax.core.Tracer)]


class Jitted:
    """A function compiled by :func:`jit`.

    A call is planned once per *call signature*: which arguments are Tensors, which of them
    share a storage, their view structures, which buffers can be donated, the static
    arguments and the bounds-check mode. Plain calls find their plan by a short key.
    """

    def __init__(self, fn: Callable, static_argnums: tuple[int, ...],
                 static_argnames: tuple[str, ...], check_bounds: bool, donate: bool,
                 jit_kwargs: dict[str, Any]) -> None:
        self._fn = fn
        self._static_argnums = static_argnums
        self._static_argnames = static_argnames
        self._check_bounds = check_bounds
        self._donate = donate
        self._jit_kwargs = jit_kwargs
        # closed-over storages the function reads or writes (weakly: one that nothing else
        # holds any more is dropped, and the function recompiled without it)
        self._implicit: list[weakref.ref[Storage]] = []
        self._scanned = False  # the function's own closure and globals looked at
        # checks in the folded output until one in a nested trace needs checkify
        self._own_checks = True
        self._plain = False  # checks found not hoistable (see _body_hoisted)
        self._plans: dict[Hashable, Plan] = {}
        # the guards of plain calls by signature (see _guard), and the last one used
        self._guards: dict[Hashable, Callable] = {}
        self._guard: Callable | None = None
        self._flat_trees: dict[int, Any] = {}
        self._warned = False  # UnrolledLoopWarning given
        # the signatures (spec, input types) traced so far, for RecompileWarning
        self._traced: dict[Hashable, None] = {}
        self._last_traced: Any = None

    def __repr__(self) -> str:
        return f"jaxtensor.jit({getattr(self._fn, '__name__', self._fn)!r})"

    # -- calling ----------------------------------------------------------------------
    def entry(self) -> Callable:
        """The function :func:`jit` returns (a plain function: a call costs less than an
        object's ``__call__``, and it binds as a method by itself)."""
        state = self
        miss = _guard.MISS

        def jitted(*args: Any, **kwargs: Any) -> Any:
            __tracebackhide__ = True  # noqa: F841 - (pytest and IPython hide this frame)
            try:
                if not _config.X64:
                    _check_narrow(*state._split(args, kwargs)[:2])
                # (at the top level: inside any trace, a jaxtensor.jit one included, the JAX
                # trace is not the eval trace)
                if not kwargs and type(_trace_state.value) is _EvalTrace:
                    guard = state._guard  # that of the last plain call's signature, if any
                    if guard is not None:
                        try:
                            res = guard(state, args)
                        except _Retrace:
                            state._retrace(guard.plan)
                            res = miss
                        if res is not miss:
                            return res
                return state._call(args, kwargs)
            except Exception as e:
                raise _without_own_frames(e)  # noqa: B904 - (the same exception, re-raised)

        functools.update_wrapper(jitted, self._fn)
        jitted._jaxtensor_jit = state  # type: ignore[attr-defined]
        jitted.lower = lambda *args, **kwargs: state.lower(args, kwargs)  # type: ignore
        return jitted

    def _split(self, args: tuple, kwargs: dict) -> tuple[Any, dict, tuple]:
        if not kwargs and not self._static_argnums:
            return args, kwargs, ()
        n = len(args)
        nums = {i if i >= 0 else i + n for i in self._static_argnums}
        static: list[tuple] = []
        dyn_args = []
        for i, a in enumerate(args):
            if i in nums:
                static.append((i, a))
            else:
                dyn_args.append(a)
        dyn_kwargs = {}
        for k in sorted(kwargs):
            if k in self._static_argnames:
                static.append((k, kwargs[k]))
            else:
                dyn_kwargs[k] = kwargs[k]
        static_t = tuple(static)
        if not _hashable(static_t):
            bad = [k for k, v in static if not _hashable(v)]
            raise ValueError(
                f"static arguments {bad} of jaxtensor.jit must be hashable; pass arrays and "
                "Tensors as dynamic arguments instead"
            )
        return dyn_args, dyn_kwargs, static_t

    def _flatten(self, args: tuple, kwargs: dict) -> tuple[list, Any, tuple]:
        dyn_args, dyn_kwargs, static = self._split(args, kwargs)
        if not dyn_kwargs and all(type(a) in _FLAT_LEAF for a in dyn_args):
            leaves = list(dyn_args)  # the common case, without the cost of a general flatten
            treedef = self._flat_trees.get(len(leaves))
            if treedef is None:
                treedef = self._flat_trees[len(leaves)] = jax.tree_util.tree_structure(
                    (tuple(range(len(leaves))), {}))
            return leaves, treedef, static
        leaves, treedef = jax.tree_util.tree_flatten((tuple(dyn_args), dyn_kwargs),
                                                     is_leaf=jpt.is_tensor)
        return leaves, treedef, static

    def _describe(self, args: tuple, kwargs: dict) -> _Desc:
        """What a call passes: its storages (each once), what each leaf is, the views'
        start offsets, the other leaves, and where and how it is made."""
        if not self._scanned:
            self._scanned = True
            self._adopt(_closed_over(self._fn))
        leaves, treedef, static = self._flatten(args, kwargs)
        storages: list[Storage] = []
        sid: dict[Storage, int] = {}
        desc: list[Any] = []
        starts: list[Any] = []
        inputs: list[Any] = []  # the compiled function's arguments (see _pytree.layout)
        seen: dict[int, int] = {}
        for j, x in enumerate(leaves):
            if x.__class__ is WeakTensor:  # (a number passed on by an enclosing jit: a number)
                x = leaves[j] = x.number()
            if isinstance(x, Tensor):
                prev = seen.get(id(x))
                if prev is not None:
                    desc.append(("same", prev))
                    continue
                seen[id(x)] = j
                st = x._storage
                k = sid.get(st)
                if k is None:
                    k = sid[st] = len(storages)
                    storages.append(st)
                    inputs.append(None)  # its array, once donation is decided
                v = x._view
                if v is None:
                    desc.append((k, None, 0, x._base is not None))
                else:
                    desc.append((k, v.key, len(v.starts), True))
                    starts.extend(v.starts)
            elif type(x) in _FLAT_LEAF or (isinstance(x, _ARRAY_TYPES) and not
                                           isinstance(x, np.bool_)):
                desc.append(None)
                inputs.append(x)
            else:
                # not something JAX can trace (a string, an object, a function, a slice):
                # static, as if named in static_argnums (methods get ``self`` this way)
                if not _hashable(x) and type(x) is not slice:
                    raise ValueError(
                        f"jaxtensor.jit: an argument of type {type(x).__name__} is neither an "
                        "array nor hashable, so it can be neither traced nor static; pass "
                        "arrays, Tensors, numbers, or hashable Python values"
                    )
                if type(x) is slice:  # (unhashable before Python 3.12)
                    x = jpt.StaticSlice((x.start, x.stop, x.step))
                desc.append(("static", x))
        if self._implicit:
            live = [st for st in (r() for r in self._implicit) if st is not None]
            if len(live) != len(self._implicit):
                self._implicit = [weakref.ref(st) for st in live]
                self._forget()
            for st in live:
                if st not in sid:
                    sid[st] = len(storages)
                    storages.append(st)
                    inputs.append(None)
            implicit = tuple([sid[st] for st in live])
            del live
        else:
            implicit = ()

        outer = current_trace()
        parent = _current.get()
        nested = not isinstance(outer, _EvalTrace)
        if nested:
            # no checks of its own inside another trace: those of an enclosing
            # jaxtensor.jit (if any) apply, in its mode
            check = (("inherit", jtr.effective_mode(parent)) if self._check_bounds and parent
                     else None)
        elif not self._check_bounds:
            check = None
        else:
            check = jtr.OWN if self._own_checks else jtr.CHECKIFY
        return _Desc(leaves, treedef, static, storages, desc, starts, inputs, implicit,
                     outer, parent, nested, check)

    def _spec(self, d: _Desc, n_args: int, donated: tuple) -> tuple:
        return (d.treedef, tuple(d.desc), d.static, n_args, len(d.storages), len(d.starts),
                d.implicit, donated, d.check)

    def _call(self, args: tuple, kwargs: dict) -> Any:
        """Any call: pytrees, keyword and static arguments, aliasing, views, inside other
        traces. A plain call (see ``_guard.py``) gets the guard of its signature, which
        makes the next such calls."""
        d = self._describe(args, kwargs)
        if d.nested:
            return self._call_nested(args, kwargs, d)
        storages, inputs, starts = d.storages, d.inputs, d.starts
        n_args = len(args)
        while True:
            # Which buffers can be donated is decided under the locks (Storage.lend); the
            # plan for the likely answer is traced and compiled before, holding no lock, so
            # eager work in other threads never waits for a compile.
            donated = tuple([self._donate and st.can_donate() for st in storages])
            spec = self._spec(d, n_args, donated)
            plan = self._plans.get(spec)
            if plan is None or not plan.ready:
                made = self._lower(spec, d)
                if made is None:  # a storage was discovered, or checks need checkify
                    return self._call(args, kwargs)
                plan = made[0]
                made[1].compile()  # (kept by jax.jit: the call then runs it without tracing)
                plan.ready = True
                del made
            held = _guard.lock(storages)
            try:
                lent = [st.lend(self._donate) for st in storages]
                arrays = [a for a, _ in lent]
                if tuple([dn for _, dn in lent]) != donated:  # (another thread took a value)
                    _restore([(st, a) for st, (a, dn) in zip(storages, lent) if dn])
                    continue
                del lent
                if not kwargs and not d.static:
                    self._use_guard(d.leaves, d.desc, d.implicit, donated, n_args, plan)
                for k, p in enumerate(plan.positions):
                    inputs[p] = arrays[k]
                if starts:
                    inputs.append(_starts(starts))
                tok = CALL.set(_Call(storages, d.outer, d.parent))
                try:
                    result = plan.fn(*inputs)
                except BaseException as e:
                    _restore([(st, a) for st, a, dn in zip(storages, arrays, donated) if dn])
                    if type(e) is not _Retrace:
                        raise
                    del inputs, arrays  # (their references would keep the retry from donating)
                    self._retrace(plan)
                    return self._call(args, kwargs)
                finally:
                    CALL.reset(tok)
                del inputs, arrays
                return self._finish(plan, result, storages, d.leaves, False)
            finally:
                _guard.unlock(held)

    def lower(self, args: tuple, kwargs: dict) -> Any:
        """JAX's ``Lowered`` of the program a call with these arguments runs (its
        ``.compile().as_text()`` is the optimised HLO); nothing is run or written."""
        while True:
            d = self._describe(args, kwargs)
            if d.nested:
                raise TypeError("jaxtensor.jit(...).lower() is called outside traced code")
            donated = tuple([self._donate and st.can_donate() for st in d.storages])
            made = self._lower(self._spec(d, len(args), donated), d)
            if made is not None:
                return made[1]

    def _call_nested(self, args: tuple, kwargs: dict, d: _Desc) -> Any:
        """A call inside another trace: nothing is donated (the outer computation owns the
        buffers), values come from the enclosing trace, and no lock is taken."""
        storages, inputs = d.storages, d.inputs
        spec = self._spec(d, len(args), (False,) * len(storages))
        plan = self._plans.get(spec)
        if plan is None:
            plan = self._compile(spec)
        for k, p in enumerate(plan.positions):
            inputs[p] = storages[k].array  # (the enclosing jaxtensor.jit trace's, if any)
        if d.starts:
            inputs.append(_starts(d.starts))
        # whether the enclosing trace's checks so far passed: what its write-back is gated by
        before = d.parent.gate() if isinstance(d.parent, jtr.Trace) else None
        tok = CALL.set(_Call(storages, d.outer, d.parent))
        try:
            result = plan.fn(*inputs)
        except _Retrace:
            del inputs
            self._retrace(plan)
            return self._call(args, kwargs)
        finally:
            CALL.reset(tok)
            if type(spec[8]) is tuple and spec[8][1] != jtr.CHECKIFY:
                # (its checks went to this enclosing trace while JAX traced it: a plan that
                # JAX would not trace again must not serve another enclosing trace)
                self._plans.pop(spec, None)
        return self._finish(plan, result, storages, d.leaves, True, before)

    def _lower(self, spec: tuple, d: _Desc) -> tuple[Plan, Any] | None:
        """The plan of ``spec`` traced (holding no lock) and JAX's ``Lowered``, or None when the
        trace found what changes the call's description: closed-over storages (they become
        inputs: the call is described and traced again before anything is compiled) or a
        check that needs checkify."""
        plan = self._plans.get(spec)
        if plan is None:
            plan = self._compile(spec)
        fn = plan.fn
        if fn is None:  # (dropped by another thread's discovery: described again)
            return None
        full = list(d.inputs)
        for k, p in enumerate(plan.positions):
            full[p] = d.storages[k].settled()
        if d.starts:
            full.append(_starts(d.starts))
        tok = CALL.set(_Call(d.storages, d.outer, d.parent, full))
        try:
            lowered = fn.lower(*full)
        except _Retrace:
            self._retrace(plan)
            return None
        finally:
            CALL.reset(tok)
        if plan.discovered:
            self._adopt([st for st in (r() for r in plan.discovered) if st is not None])
            # (the discovering trace holds the closed-over values as constants, and JAX's
            # caches hold that trace while its function lives: dropped now, so that the
            # next plan can donate them and is the one compiled)
            plan.fn = fn = None
            return None
        return plan, lowered

    def _retrace(self, plan: Plan) -> None:
        """A check was made in a nested trace while ``plan`` was traced: it and every later
        plan are traced under checkify, from scratch (so nothing of the first trace, a debug
        callback say, stays compiled in)."""
        self._own_checks = False
        plan.stale = True
        self._plans = {k: p for k, p in self._plans.items() if p is not plan}
        self._guard = None

    def _finish(self, plan: Plan, res: Any, storages: list[Storage], leaves: Sequence,
                nested: bool, before: Any = None) -> Any:
        """Write back, raise a failed bounds check, rebuild the results (``before``: a nested
        call's gate, see :meth:`~._trace.Trace.write_if`)."""
        enclosing = _current.get() if nested else None
        if type(res) is dict:
            aux, outs = res.popitem()
            error = None
        else:  # traced under checkify
            err, res = res
            aux, outs = res.popitem()
            error = jtr.checkify_error(err)
        if aux.checks:
            error = jtr.check_error(aux.checks, outs[-1])
        if aux.discovered:
            found = [r() for r in aux.discovered]
            storages = storages + found
            self._adopt([st for st in found if st is not None])
        if error is None or self._donate:
            # After a failed check the finals (gated: what eager code would have left) are
            # installed, even for a buffer that could not be donated this time (a Tensor
            # the first call found closed over, whose value the discovery held); with
            # donate=False a failed call changes nothing.
            for j, k in aux.pairs:
                st = storages[k]
                if st is None:  # a discovered storage that died meanwhile
                    continue
                if isinstance(enclosing, jtr.Trace):
                    enclosing.write_if(st, outs[j], before)
                elif nested:  # (into the enclosing trace, if any)
                    st.replace(outs[j])
                else:
                    st._install(outs[j])  # (the caller holds the storages' locks)
        if error is not None:
            raise error
        if aux.none:
            return None
        return jpt.results(aux, outs, storages, leaves)

    def _adopt(self, found: list[Storage]) -> None:
        """Closed-over storages met by a trace become implicit inputs of the next plans."""
        known = {r() for r in self._implicit}
        for st in found:
            if st not in known:
                self._implicit.append(weakref.ref(st))
        self._forget()

    def _forget(self) -> None:
        """Drop every plan (the implicit inputs or the check mode changed)."""
        for plan in self._plans.values():
            plan.stale = True
        self._plans = {}
        self._guards = {}
        self._guard = None

    def _use_guard(self, leaves: list, desc: list, implicit: tuple, donated: tuple,
                   n_args: int, plan: Plan) -> None:
        """Make (or find) the guard of a plain call's signature and try it first from now."""
        if len(leaves) != n_args:
            return
        key: list[Any] = []
        for x, d in zip(leaves, desc):
            if d is None and type(x) in _guard.PLAIN:
                key.append(None)
            elif d is not None and type(d[0]) is int and d[1] is None and not d[3] and (
                    d[0] == sum(e is not None for e in key)):  # (a storage of its own)
                key.append(donated[d[0]])
            else:
                return
        n_st = sum(e is not None for e in key)
        if list(implicit) != list(range(n_st, len(donated))):
            return  # (a closed-over storage is also an argument's)
        key += donated[n_st:]
        key_t = tuple(key)
        guard = self._guards.get(key_t)
        if guard is None or guard.plan is not plan:
            guard = self._guards[key_t] = _guard.make(key_t, n_args, plan, self._donate, CALL)
        self._guard = guard

    # -- tracing ----------------------------------------------------------------------
    def _compile(self, spec: tuple, keep: bool = True) -> Plan:
        positions, _, _ = jpt.layout(spec)
        donated = spec[7]
        donate_argnums = tuple(p for p, d in zip(positions, donated) if d)
        plan = Plan(None, donated, positions)
        body = functools.partial(self._body, spec, plan)
        if _DebugInfo is not None:  # (JAX's errors name the user's function and arguments)
            body.__fun_debug_info__ = _DebugInfo(  # type: ignore[attr-defined]
                "jaxtensor.jit", _source_info(self._fn), self._input_names(spec),
                _initial_result_paths)
        fn = jax.jit(body, donate_argnums=donate_argnums, **self._jit_kwargs)
        if spec[8] == jtr.OWN:
            fn = _coded(fn, plan, lambda: self._compile_gated(spec))
        plan.fn = fn
        if keep:
            self._plans[spec] = plan  # (only whole: another thread may fetch it at once)
        return plan

    def _compile_gated(self, spec: tuple) -> Callable:
        """The gated program of an ``OWN``-mode plan (see :meth:`_body_hoisted`)."""
        return self._compile(spec[:8] + (_GATED,), keep=False).fn

    def _input_names(self, spec: tuple) -> tuple[str, ...]:
        """The user's name of each input of the compiled function of ``spec`` (its
        argument's name and path, "a closed-over Tensor", or the views' start offsets)."""
        treedef, desc, static = spec[0], spec[1], spec[2]
        leaf_names = _leaf_names(self._fn, treedef, static, len(desc))
        names: list[str] = []
        n_st = 0
        for j, d in enumerate(desc):
            if d is None:
                names.append(leaf_names[j])
            elif type(d[0]) is int and d[0] == n_st:
                names.append(leaf_names[j])
                n_st += 1
        names += ["a closed-over Tensor"] * (spec[4] - n_st)
        if spec[5]:
            names.append("the start offsets of the view arguments")
        return tuple(names)

    def _body(self, spec: tuple, plan: Plan, *inputs: Any) -> Any:
        """The traced function: the user's function run over a :class:`~._trace.Trace`.
        A check the folded output cannot carry (in a nested trace) abandons the trace
        (``_Retrace``): the call is traced again under checkify. The closed-over storages
        the trace met are left on the plan (``plan.discovered``)."""
        call = CALL.get()
        if spec[8] != _GATED:
            self._note_trace(spec, inputs)
        if spec[8] == jtr.OWN:
            return self._body_hoisted(spec, plan, call, inputs)
        if spec[8] == _GATED:
            return self._body_hoisted(spec[:8] + (jtr.OWN,), plan, call, inputs, True)
        if spec[8] != jtr.CHECKIFY:
            out, trace = self._run(spec, call, inputs, spec[8])
            plan.discovered = jtr.weak(trace.discovered)
            if trace.missed:
                raise _Retrace
            self._warn_unrolled(trace)
            return out

        def run(*ins: Any) -> dict:
            out, trace = self._run(spec, call, ins, jtr.CHECKIFY)
            plan.discovered = jtr.weak(trace.discovered)
            self._warn_unrolled(trace)
            return out

        return checkify.checkify(run, errors=checkify.user_checks)(*inputs)

    def _body_hoisted(self, spec: tuple, plan: Plan, call: Any, inputs: tuple,
                      gated: bool = False) -> Any:
        """The traced function with bounds checks (``OWN`` mode), its checks hoisted.

        The user's function is traced once, as a function of the number of the first
        failing check (``code``, see ``Trace.code``); each write is gated by one comparison
        with it. Applied with ``code = 0`` (every write made), the traced program gives the
        true first failure, since every check up to it sees what eager code sees. Where the
        checks read no write and no loop, they are computed ahead of the writes, and the
        call's program on XLA:CPU is ``cond(code == 0, every write ungated, nothing
        written)`` with the code as its last output (read by :func:`_coded`): a passing call
        pays no gate (elsewhere the call's program is the gated one below).
        A failing one is made again by the *gated* program (``gated``: the traced program
        applied with that code, whose writes are what eager code leaves), compiled at the
        plan's first failure. Where the checks read a write or a loop, or the function has
        effects (which would run in both applications), it is traced again with each write
        gated by the checks before it (a chain of every earlier check, fused into every
        write by XLA: 32 checked writes cost 3.7x unchecked ones that way)."""
        if self._plain and not gated:  # (a trace found its checks not hoistable)
            out, trace = self._run(spec, call, inputs, jtr.OWN)
            plan.discovered = jtr.weak(trace.discovered)
            if trace.missed:
                raise _Retrace
            self._warn_unrolled(trace)
            return out
        traces: list[jtr.Trace] = []

        def inner(*ins: Any) -> dict:
            out, trace = self._run(spec, call, ins[:-1], jtr.OWN, ins[-1])
            traces.append(trace)
            return out

        if _DebugInfo is not None:
            inner.__fun_debug_info__ = _DebugInfo(  # type: ignore[attr-defined]
                "jaxtensor.jit", _source_info(self._fn),
                self._input_names(spec) + ("the number of a failed check",),
                _initial_result_paths)
        fn = jax.jit(inner)
        zero = jnp.zeros((), IDX)
        traced = fn.trace(*inputs, zero)
        trace = traces[-1]
        plan.discovered = jtr.weak(trace.discovered)
        if trace.missed:
            raise _Retrace
        self._warn_unrolled(trace)
        if not trace.items:
            return fn(*inputs, zero)
        if self._plain or traced.jaxpr.effects or not jtr.hoistable(traced.jaxpr.jaxpr):
            # (an effect, a jax.debug.print say, would run in both applications)
            self._plain = True  # (its next traces skip the hoisted one: a loop's check say)
            if trace.discovered:  # (never run: the call is described and traced again)
                return fn(*inputs, zero)
            out, _ = self._run(spec, call, inputs, jtr.OWN)
            return out
        ((aux, first),) = fn(*inputs, zero).items()
        if not (gated or trace.discovered) and self._decide_on_host(plan, traced, inputs,
                                                                   call):
            return {jpt.unchecked(aux): first[:-1]}  # (the writes, ungated: code is 0)
        # (an accelerator reads a cond's predicate back to the host in the middle of the
        # program: on an H200, 32 checked writes cost 3.3x unchecked ones that way, 2.2x
        # gated; XLA:CPU reads it in place)
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
        return {jpt.coded(aux): tuple(outs) + (code,)}

    @staticmethod
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

    def _note_trace(self, spec: tuple, inputs: tuple) -> None:
        """Count the distinct programs traced for this function; warn once
        (:class:`RecompileWarning`) at the ``RECOMPILE_LIMIT``-th, naming what changed."""
        sig = (spec[:8], tuple([getattr(x, "aval", None) for x in inputs]))
        last, self._last_traced = self._last_traced, sig
        if sig in self._traced:
            return
        self._traced[sig] = None
        if len(self._traced) != RECOMPILE_LIMIT or last is None:
            return
        name = getattr(self._fn, "_jaxtensor_name", None) or (
            "jaxtensor.jit(" + getattr(self._fn, "__qualname__", repr(self._fn)) + ")")
        where = getattr(self._fn, "_jaxtensor_code", None) or getattr(self._fn, "__code__", None)
        warnings.warn_explicit(
            f"{name} compiled {RECOMPILE_LIMIT} programs for the same code: "
            f"{self._explain(last, sig)}. Each new value of what the traced program depends "
            "on (a static argument, a Python value the code reads, a shape or dtype) compiles "
            "a new program: pass values that change as arguments (Tensors) instead. Silence this with warnings.filterwarnings('ignore', "
            "category=jaxtensor.RecompileWarning).",
            RecompileWarning,
            where.co_filename if where else "jaxtensor", where.co_firstlineno if where else 0)

    def _explain(self, old: tuple, new: tuple) -> str:
        """What differs between two traced signatures, in the user's words."""
        (o_spec, o_avals), (n_spec, n_avals) = old, new
        if o_spec[0] != n_spec[0]:
            return "the structure of the arguments changed"
        for j, (a, b) in enumerate(zip(o_spec[1], n_spec[1])):
            if a != b and type(a) is tuple and type(b) is tuple and a[:1] == b[:1] == (
                    "static",):
                return f"the static argument {j} changed ({a[1]!r} -> {b[1]!r})"
        if o_spec[2] != n_spec[2]:
            for (k, a), (k2, b) in zip(o_spec[2], n_spec[2]):
                if k == k2 and (type(a) is not type(b) or a != b):
                    return f"the static argument {self._arg_name(k)} changed ({a!r} -> {b!r})"
            return "the static arguments given changed"
        if o_avals != n_avals:
            names = self._input_names(n_spec)
            for k, (a, b) in enumerate(zip(o_avals, n_avals)):
                if a != b:
                    who = names[k] if k < len(names) else f"input {k}"
                    return (f"the shape or dtype of {who} changed ({a.str_short()} -> "
                            f"{b.str_short()})"
                            if a is not None and b is not None else f"{who} changed")
        if o_spec[1] != n_spec[1]:
            return "the view structure or aliasing of the Tensor arguments changed"
        return "which buffers are donated, or the closed-over Tensors, changed"

    def _arg_name(self, k: int | str) -> str:
        if type(k) is str:
            return k
        try:
            return list(inspect.signature(self._fn).parameters)[k]
        except (TypeError, ValueError, IndexError):
            return str(k)

    def _warn_unrolled(self, trace: jtr.Trace) -> None:
        """Warn (once per function) when the trace holds as many writes as a Python loop
        unrolled into the program makes: its compile time grows with the trip count."""
        if trace.n_writes < UNROLLED_WRITES or self._warned:
            return
        self._warned = True
        name = getattr(self._fn, "__qualname__", repr(self._fn))
        code = getattr(self._fn, "__code__", None)
        warnings.warn_explicit(
            f"jaxtensor.jit: tracing {name} made {trace.n_writes} writes, as a Python loop "
            "unrolled into the program does (its compile time grows with the trip count); "
            "write the loop with jaxtensor.fori_loop (or while_loop) to compile it once. "
            "Silence this with warnings.filterwarnings('ignore', "
            "category=jaxtensor.UnrolledLoopWarning).",
            UnrolledLoopWarning,
            # (where the user's function is: the frames between are JAX's and ours)
            code.co_filename if code else "jaxtensor", code.co_firstlineno if code else 0)

    def _run(self, spec: tuple, call: Any, inputs: tuple, mode: str | None,
             code: Any = None) -> tuple[dict, jtr.Trace]:
        (treedef, desc, static, n_args, n_st, n_starts, implicit, donated, check) = spec
        if type(call) is list:  # a plain call
            storages, outer, parent = call, _eval_trace, None
        else:
            storages, outer, parent = call.storages, call.outer, call.parent
        positions, other_pos, starts_pos = jpt.layout(spec)
        arrays = [inputs[p] for p in positions]
        others = [inputs[p] for p in other_pos]
        starts = None if starts_pos is None else inputs[starts_pos]
        if type(check) is tuple:  # nested in a checked jaxtensor.jit: its checks apply
            mode = jtr.INHERIT
        trace = jtr.Trace(storages, arrays, outer, parent, mode, code)
        tok = _current.set(trace)
        try:
            args, kwargs, rebuilt = jpt.arguments(spec, storages, others, starts)
            out = self._fn(*args, **kwargs)
            return jpt.outputs(spec, trace, storages, rebuilt, out), trace
        finally:
            _current.reset(tok)

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _without_own_frames(e: BaseException) -> BaseException:
    """``e`` with jaxtensor's own frames dropped from its traceback (as JAX drops its own;
    ``jax.config.update("jax_traceback_filtering", "off")`` keeps them), so that the frames
    shown are the caller's and the user's function's. Chained exceptions are kept."""
    if jax.config.jax_traceback_filtering == "off":
        return e
    kept = []
    tb = e.__traceback__
    while tb is not None:
        if not tb.tb_frame.f_code.co_filename.startswith(_PACKAGE):
            kept.append(tb)
        tb = tb.tb_next
    new = None
    for tb in reversed(kept):
        new = types.TracebackType(new, tb.tb_frame, tb.tb_lasti, tb.tb_lineno)
    return e.with_traceback(new)


def _source_info(fn: Callable) -> str:
    """``name at file:line`` of the user's function, as JAX names a function it traces."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    fn = inspect.unwrap(fn)
    name = getattr(fn, "__name__", type(fn).__name__)
    code = getattr(fn, "__code__", None)
    return name if code is None else f"{name} at {code.co_filename}:{code.co_firstlineno}"


def _leaf_names(fn: Callable, treedef: Any, static: tuple, n: int) -> list[str]:
    """The user's name of each of the ``n`` leaves of a call's dynamic arguments (flattened
    as ``treedef``), e.g. ``x``, ``params['w']``, ``args[2]``."""
    names = [f"args[{j}]" for j in range(n)]
    try:  # (a custom pytree node may refuse ints as its leaves)
        dyn_args, dyn_kwargs = jax.tree_util.tree_unflatten(treedef, list(range(n)))
    except Exception:  # noqa: BLE001 - names are best-effort; the call must not fail
        return _top_level_names(fn, treedef, static, names)
    static_pos = dict(k for k in static if isinstance(k[0], int))
    args: list[Any] = []
    it = iter(dyn_args)
    for i in range(len(dyn_args) + len(static_pos)):
        args.append(None if i in static_pos else next(it))
    try:
        bound = inspect.signature(fn).bind(*args, **dyn_kwargs).arguments
    except (TypeError, ValueError):
        return names
    for name, value in bound.items():
        for path, leaf in jax.tree_util.tree_flatten_with_path(value)[0]:
            if type(leaf) is int and 0 <= leaf < n:
                names[leaf] = name + jax.tree_util.keystr(path)
    return names


def _top_level_names(fn: Callable, treedef: Any, static: tuple, names: list[str]
                     ) -> list[str]:
    """Leaf names by positional argument only (``x``, or ``x (leaf 2 of 3)``), for arguments
    whose pytree nodes cannot be rebuilt around placeholders."""
    try:
        params = [p.name for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        args_def = treedef.children()[0]
    except (TypeError, ValueError, IndexError):
        return names
    static_pos = {k[0] for k in static if isinstance(k[0], int)}
    free = [p for i, p in enumerate(params) if i not in static_pos]
    j = 0
    for name, sub in zip(free, args_def.children()):
        count = sub.num_leaves
        for m in range(count):
            names[j + m] = name if count == 1 else f"{name} (leaf {m} of {count})"
        j += count
    return names


#: writes in one trace (outside loop bodies) from which a function is warned about
UNROLLED_WRITES = 100

#: the distinct program of one function (or loop body code) at which RecompileWarning is given
RECOMPILE_LIMIT = 8


class RecompileWarning(UserWarning):
    """A ``jaxtensor.jit`` function, or an eager ``fori_loop``/``while_loop`` body, compiled
    its ``RECOMPILE_LIMIT``-th (8th) distinct program for the same code: something the
    traced program depends on (a static argument, a Python number the body reads, a shape
    or dtype) keeps changing. Given once per function, naming what changed last. Pass
    the changing value as an argument (a Tensor, or a number to ``jaxtensor.jit``), or
    silence it with ``warnings.filterwarnings("ignore", category=jaxtensor.RecompileWarning)``.

    Examples
    --------
    >>> import warnings
    >>> import jaxtensor as jt
    >>> x = jt.zeros(3)
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     for step in range(8):
    ...         def body(i):
    ...             x[i] += step        # each value of step is a new program
    ...         jt.fori_loop(0, 3, body)
    >>> [m.category.__name__ for m in w]
    ['RecompileWarning']
    """


class UnrolledLoopWarning(UserWarning):
    """A ``jaxtensor.jit`` function traced into many writes: a Python loop unrolled into
    the program, whose compile time grows with its trip count. Write the loop with
    :func:`jaxtensor.fori_loop` (compiled once, whatever the trip count), or silence the
    warning with ``warnings.filterwarnings("ignore", category=jaxtensor.UnrolledLoopWarning)``.

    Examples
    --------
    >>> import warnings
    >>> import jaxtensor as jt
    >>> @jt.jit
    ... def f(x):
    ...     for i in range(1, 200):
    ...         x[i] += x[i - 1]
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     f(jt.ones(200))
    >>> w[0].category.__name__
    'UnrolledLoopWarning'
    """


class IndexOverflowError(IndexError, OverflowError):
    """An integer argument of a ``jaxtensor.jit`` function that JAX's 32-bit mode would wrap:
    out of bounds for any axis as an index, out of range as a value."""


_NARROW_RANGE = {"i": (-2**31, 2**31 - 1), "u": (0, 2**32 - 1)}


def _check_narrow(args: tuple, kwargs: dict) -> None:
    """With 64-bit mode off JAX converts 64-bit integer arguments to 32 bits, wrapping
    values that do not fit (and refuses such Python ints with its own ``OverflowError``):
    raise :class:`IndexOverflowError` naming the value before any cast can wrap it, so an
    index is seen out of bounds, as eagerly."""
    for x in jax.tree_util.tree_leaves((args, kwargs), is_leaf=jpt.is_tensor):
        t = type(x)
        if t is int:
            lo, hi = _NARROW_RANGE["i"]
            bad = None if lo <= x <= hi else x
        elif isinstance(x, (np.ndarray, np.generic)) and x.dtype.kind in "iu" and (
                x.dtype.itemsize == 8 and x.size):
            lo, hi = _NARROW_RANGE[x.dtype.kind]
            a = np.asarray(x)
            mn, mx = int(a.min()), int(a.max())
            bad = mx if mx > hi else (mn if mn < lo else None)
        else:
            continue
        if bad is not None:
            raise IndexOverflowError(
                f"jaxtensor.jit: the integer argument value {bad} does not fit 32 bits (JAX's "
                "64-bit mode is off), so JAX would wrap it; as an index it is out of bounds "
                "for every axis"
            )


def _static_spec(
    fn: Callable, static_argnums: Any, static_argnames: Any
) -> tuple[tuple[int, ...], tuple[str, ...]]:
    nums = () if static_argnums is None else (
        (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums))
    names = () if static_argnames is None else (
        (static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames))
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return nums, names
    positional = [p.name for p in params
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    nums_set, names_set = set(nums), set(names)
    for i in nums:
        if 0 <= i < len(positional) and params[i].kind == params[i].POSITIONAL_OR_KEYWORD:
            names_set.add(positional[i])
    for name in names:
        if name in positional:
            nums_set.add(positional.index(name))
    return tuple(sorted(nums_set)), tuple(sorted(names_set))


def jit(
    fn: Callable | None = None,
    /,
    *,
    static_argnums: int | Sequence[int] | None = None,
    static_argnames: str | Sequence[str] | None = None,
    check_bounds: bool = True,
    donate: bool = True,
    in_shardings: Any = None,
    out_shardings: Any = None,
    **jit_kwargs: Any,
) -> Any:
    """Compile ``fn`` with XLA, keeping the in-place semantics of eager jaxtensor code.

    Mutations of Tensor arguments (``x[i] = v``, ``x += 1``, writes through views) and of
    closed-over Tensors are written back to the caller's Tensors after the call, exactly
    as if ``fn`` had run eagerly (closed-over Tensors are inputs, never baked-in
    constants); aliasing between arguments survives (``f(a, a[1:])``); results that alias
    an argument come back as views of it. Compilation is keyed by shapes, dtypes and
    view/index *structure* only: new index values never recompile.

    **Arguments:**

    - ``fn``: the function; ``jit`` also works as a decorator, with or without arguments.
    - ``static_argnums``/``static_argnames``: arguments passed as Python values (hashable),
      as in ``jax.jit``; a new value compiles a new version. Arguments JAX cannot trace
      (strings, functions, objects such as a method's ``self``) are static by themselves.
    - ``check_bounds``: check traced index values and raise ``IndexError`` at the call for
      an out-of-bounds one, as eager code does (default). ``False`` removes the check and
      its device-to-host synchronisation; out-of-bounds reads then clamp and writes are
      dropped or clamped, as in JAX.
    - ``donate``: donate the old buffer of every storage that nobody else holds (default),
      so writes do not copy. With ``False`` nothing is donated and a call that fails its
      bounds check leaves every Tensor unchanged.
    - ``in_shardings``: a ``jax.sharding.Sharding`` per positional argument (a pytree
      prefix, ``None`` = as it is): each Tensor argument's storage is moved there in place
      before the call if it is laid out otherwise (once; its writes come back with that
      sharding). ``out_shardings``: a pytree prefix of the results, which are laid out so
      (as new Tensors). Written storages always keep their own sharding
      (``docs/scaling.md``).
    - ``jit_kwargs``: passed to ``jax.jit`` (e.g. ``keep_unused``, ``compiler_options``);
      ``donate_argnums`` is not accepted.

    **Returns:** a callable with the signature of ``fn``.

    !!! Example

        >>> import jaxtensor as jt
        >>> @jt.jit
        ... def cumulative(x):
        ...     for i in range(1, x.shape[0]):
        ...         x[i] += x[i - 1]
        >>> a = jt.asarray([1., 2., 3., 4.])
        >>> cumulative(a)
        >>> a
        Tensor(shape=[4], dtype=float64, device=cpu,
               [ 1.,  3.,  6., 10.])
        >>> jt.jit(lambda x, y: y.__setitem__(0, 5.))(a, a[2:])   # aliasing survives
        >>> a
        Tensor(shape=[4], dtype=float64, device=cpu,
               [ 1.,  3.,  5., 10.])
    """
    for k, why in _REJECTED.items():
        if k in jit_kwargs:
            raise TypeError(f"jaxtensor.jit does not take {k}=: {why}")
    if fn is None:
        return functools.partial(
            jit, static_argnums=static_argnums, static_argnames=static_argnames,
            check_bounds=check_bounds, donate=donate, in_shardings=in_shardings,
            out_shardings=out_shardings, **jit_kwargs)
    if not callable(fn):
        raise TypeError(f"jaxtensor.jit expects a callable, got {type(fn).__name__}")
    if out_shardings is not None:
        fn = _shardings.constrain_results(fn, out_shardings)
    nums, names = _static_spec(fn, static_argnums, static_argnames)
    entry = Jitted(fn, nums, names, bool(check_bounds), bool(donate), jit_kwargs).entry()
    if in_shardings is not None:
        entry = _shardings.place_arguments(entry, in_shardings)
    return entry
