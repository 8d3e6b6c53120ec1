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
   description: the guard generated for its signature (``_guard.py``) checks the
   signature and makes the same call. Both run code made from the one definition of the
   call protocol (``_protocol.py``: lock, lend, run, restore on error, write back).
2. Tracing runs ``_checks.body``: a :class:`~jaxtensor._jit._trace.Trace` in the
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
call loses jaxtensor's frames from its traceback (``_errors.without_own_frames``).

A top-level call is traced and compiled holding no lock (a first call that meets closed-over
storages is traced again with them as inputs before anything is compiled), then holds the
locks of its storages from lending their values to installing its results, so it is atomic
with respect to writes to those storages in other threads, and work on other Tensors never
waits for it.
"""


from __future__ import annotations

import functools
import inspect
import weakref
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import jax

from .._core import Storage, _config, current_trace
from .._core import current as _current
from .._core._jax_private import DebugInfo as _DebugInfo
from .._core._jax_private import EvalTrace as _EvalTrace
from .._core._jax_private import eval_trace as _eval_trace
from .._core._jax_private import initial_result_paths as _initial_result_paths
from .._core._jax_private import trace_state as _trace_state
from . import _check_errors, _checks, _errors, _guard, _named, _protocol, _shardings
from . import _pytree as jpt
from . import _spec as jsp
from . import _trace as jtr
from ._errors import IndexOverflowError, RecompileWarning, UnrolledLoopWarning
from ._modes import CheckMode, behaviour, choose
from ._plans import CALL, Call, Plan, Retrace
from ._protocol import MISS, Unready, coded
from ._spec import VALUE, OnStorage

__all__ = ["IndexOverflowError", "RecompileWarning", "UnrolledLoopWarning", "jit"]


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
        # what the function reads by name (``_named``) as the last trace started, checked
        # at every call; what the last two traces started from, for RecompileWarning
        self._named: _named.Named | None = None
        self._named_traced: tuple[tuple | None, tuple | None] = (None, None)
        # checks in the folded output until one in a nested trace needs checkify
        self._own_checks = True
        # the check mode of a top-level call (``choose``'s answer, kept: see _retrace)
        self._mode = choose(check_bounds, False, None, True)
        self._plain = False  # checks found not hoistable (see _checks._body_hoisted)
        self._plans: dict[Hashable, Plan] = {}
        # the guards of plain calls by signature (see _guard), and the last one used
        self._guards: dict[Hashable, Callable] = {}
        self._guard: Callable | None = None
        self._flat_trees: dict[int, Any] = {}
        self._warned = False  # UnrolledLoopWarning given
        self._recompiles = _errors.Recompiles()  # the programs traced, for RecompileWarning

    def __repr__(self) -> str:
        return f"jaxtensor.jit({getattr(self._fn, '__name__', self._fn)!r})"

    # -- calling ----------------------------------------------------------------------
    def entry(self) -> Callable:
        """The function :func:`jit` returns (a plain function: a call costs less than an
        object's ``__call__``, and it binds as a method by itself)."""
        state = self
        miss = MISS

        def jitted(*args: Any, **kwargs: Any) -> Any:
            __tracebackhide__ = True  # noqa: F841 - (pytest and IPython hide this frame)
            try:
                named = state._named
                if named is not None and not named.same():
                    state._names_changed()
                if not _config.X64:
                    _errors.check_narrow(*jsp.split(
                        args, kwargs, state._static_argnums, state._static_argnames)[:2])
                # (at the top level: inside any trace, a jaxtensor.jit one included, the JAX
                # trace is not the eval trace)
                if not kwargs and type(_trace_state.value) is _EvalTrace:
                    guard = state._guard  # that of the last plain call's signature, if any
                    if guard is not None:
                        try:
                            res = guard(state, args)
                        except (Retrace, Unready) as e:  # (out of the locks: made again)
                            _protocol.recover(e, state, guard.plan)
                            res = miss
                        if res is not miss:
                            return res
                return state._call(args, kwargs)
            except Exception as e:
                raise _errors.without_own_frames(e)  # noqa: B904 - (the same exception, re-raised)

        functools.update_wrapper(jitted, self._fn)
        jitted._jaxtensor_jit = state  # type: ignore[attr-defined]
        jitted.lower = lambda *args, **kwargs: state.lower(args, kwargs)  # type: ignore
        return jitted

    def _describe(self, args: tuple, kwargs: dict) -> jsp.Desc:
        """What a call passes: its storages (each once), what each leaf is, the views'
        start offsets, the other leaves, and where and how it is made."""
        if not self._scanned:
            self._scanned = True
            self._adopt(jsp.closed_over(self._fn))
        (leaves, treedef, static, storages, sid, desc, starts, inputs) = jsp.describe(
            args, kwargs, self._static_argnums, self._static_argnames, self._flat_trees)
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
            check = choose(self._check_bounds, True, parent, self._own_checks)
        else:
            check = self._mode
        return jsp.Desc(leaves, treedef, static, storages, desc, starts, inputs, implicit,
                     outer, parent, nested, check)

    def _call(self, args: tuple, kwargs: dict) -> Any:
        """Any call: pytrees, keyword and static arguments, aliasing, views, inside other
        traces. A plain call (see ``_guard.py``) gets the guard of its signature, which
        makes the next such calls. The call itself: ``_protocol.general``."""
        d = self._describe(args, kwargs)
        if d.nested:
            return self._call_nested(args, kwargs, d)
        storages, n_args = d.storages, len(args)
        # Which buffers can be donated is decided under the locks (Storage.lend); the plan
        # for the likely answer is traced and compiled before, holding no lock, so eager
        # work in other threads never waits for a compile.
        donated = tuple([self._donate and st.can_donate() for st in storages])
        spec = d.spec(n_args, donated)
        plan = self._plans.get(spec)
        if plan is None or not plan.ready:
            made = self._lower(spec, d)
            if made is None:  # a storage was discovered, or checks need checkify
                return self._call(args, kwargs)
            plan = made[0]
            made[1].compile()  # (kept by jax.jit: the call then runs it without tracing)
            plan.ready = True
            del made
        if not kwargs:
            self._use_guard(d.leaves, d.desc, d.implicit, donated, n_args, plan, d.static)
        inputs = list(d.inputs)
        if d.starts:
            inputs.append(jsp.starts_array(d.starts))
        call = _protocol.general(len(storages), donated, self._donate)
        try:
            res = call(self, plan, storages, inputs, Call(storages, d.outer, d.parent),
                       d.leaves)
        except (Retrace, Unready) as e:  # (out of the locks: made again)
            _protocol.recover(e, self, plan)
            res = MISS
        del inputs  # (holding the values lent, it would keep the next call from donating)
        if res is not MISS:
            return res
        # (another thread took a value lent, or dropped the plan: described again)
        return self._call(args, kwargs)

    def lower(self, args: tuple, kwargs: dict) -> Any:
        """JAX's ``Lowered`` of the program a call with these arguments runs (its
        ``.compile().as_text()`` is the optimised HLO); nothing is run or written."""
        if self._named is not None and not self._named.same():
            self._names_changed()
        while True:
            d = self._describe(args, kwargs)
            if d.nested:
                raise TypeError("jaxtensor.jit(...).lower() is called outside traced code")
            donated = tuple([self._donate and st.can_donate() for st in d.storages])
            made = self._lower(d.spec(len(args), donated), d)
            if made is not None:
                return made[1]

    def _call_nested(self, args: tuple, kwargs: dict, d: jsp.Desc) -> Any:
        """A call inside another trace: nothing is donated (the outer computation owns the
        buffers), values come from the enclosing trace, and no lock is taken."""
        storages, inputs = d.storages, d.inputs
        spec = d.spec(len(args), (False,) * len(storages))
        plan = self._plans.get(spec)
        if plan is None:
            plan = self._compile(spec)
        for k, p in enumerate(plan.positions):
            inputs[p] = storages[k].array  # (the enclosing jaxtensor.jit trace's, if any)
        if d.starts:
            inputs.append(jsp.starts_array(d.starts))
        # whether the enclosing trace's checks so far passed: what its write-back is gated by
        before = d.parent.gate() if isinstance(d.parent, jtr.Trace) else None
        try:
            res = _protocol.nested(self, plan, storages, inputs, Call(storages, d.outer,
                                   d.parent), d.leaves, before)
        finally:
            if behaviour(spec.check).per_call:
                # (its checks went to this enclosing trace while JAX traced it: a plan that
                # JAX would not trace again must not serve another enclosing trace)
                self._plans.pop(spec, None)
        if res is MISS:
            del inputs
            return self._call(args, kwargs)
        return res

    def _lower(self, spec: jsp.Spec, d: jsp.Desc) -> tuple[Plan, Any] | None:
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
            full.append(jsp.starts_array(d.starts))
        tok = CALL.set(Call(d.storages, d.outer, d.parent, full))
        try:
            lowered = fn.lower(*full)
        except Retrace:
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
        self._mode = choose(self._check_bounds, False, None, False)
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
            error = _check_errors.checkify_error(err)
        if aux.checks:
            error = _check_errors.check_error(aux.checks, outs[-1])
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

    def _names_changed(self) -> None:
        """A value the function reads by name is not the one traced: the plans stay where
        only Tensors were rebound, each in place of one that is gone (``Named.rebound``),
        and take the new Tensors' storages in the old ones' places; else they are dropped."""
        pairs = self._named.rebound()  # type: ignore[union-attr]
        if pairs is None:
            return self._renamed()
        implicit = self._implicit
        done: dict[int, Storage] = {}
        for old, st in pairs:
            if id(old) in done:  # (one Tensor named twice: a helper's global too)
                if done[id(old)] is not st:
                    return self._renamed()
                continue
            done[id(old)] = st
            if any(r() is st for r in implicit):
                return self._renamed()  # (it is already an input: a trace says how)
            for j, r in enumerate(implicit):
                if r is old:
                    implicit[j] = weakref.ref(st)
        return None

    def _renamed(self) -> None:
        """A value the function reads by name is not the one traced (``_named.py``): the
        plans are dropped, and the next call looks at the function's names again."""
        self._named = None
        self._implicit = []
        self._scanned = False
        self._forget()

    def _forget(self) -> None:
        """Drop every plan (the implicit inputs or the check mode changed)."""
        for plan in self._plans.values():
            plan.stale = True
        self._plans = {}
        self._guards = {}
        self._guard = None

    def _use_guard(self, leaves: list, desc: list, implicit: tuple, donated: tuple,
                   n_args: int, plan: Plan, static: tuple = ()) -> None:
        """Make (or find) the guard of a plain call's signature and try it first from now
        (``static``: the call's static arguments, which the guard compares)."""
        if len(leaves) + len(static) != n_args:
            return
        fixed = dict(static)
        for v in fixed.values():
            if type(v) not in _guard.STATIC:
                return
        key: list[Any] = []
        dyn = iter(zip(leaves, desc))
        n_st = 0
        for j in range(n_args):
            if j in fixed:
                key.append(_guard.Fixed(fixed[j]))
                continue
            x, d = next(dyn)
            if d is VALUE and type(x) in _guard.PLAIN:
                key.append(None)
            elif type(d) is OnStorage and d.view is None and not d.has_base and (
                    d.storage == n_st):  # (a storage of its own)
                key.append(donated[d.storage])
                n_st += 1
            else:
                return
        if list(implicit) != list(range(n_st, len(donated))):
            return  # (a closed-over storage is also an argument's)
        key += donated[n_st:]
        key_t = tuple(key)
        guard = self._guards.get(key_t)
        if guard is None or guard.plan is not plan:
            guard = self._guards[key_t] = _guard.make(key_t, n_args, plan, self._donate)
        self._guard = guard

    # -- tracing ----------------------------------------------------------------------
    def _compile(self, spec: jsp.Spec, keep: bool = True) -> Plan:
        positions, _, _ = jpt.layout(spec)
        donated = spec.donated
        donate_argnums = tuple(p for p, d in zip(positions, donated) if d)
        plan = Plan(None, donated, positions)
        body = functools.partial(_checks.body, self, spec, plan)
        if _DebugInfo is not None:  # (JAX's errors name the user's function and arguments)
            body.__fun_debug_info__ = _DebugInfo(  # type: ignore[attr-defined]
                "jaxtensor.jit", _errors.source_info(self._fn), self._input_names(spec),
                _initial_result_paths)
        fn = jax.jit(body, donate_argnums=donate_argnums, **self._jit_kwargs)
        if behaviour(spec.check).coded:
            fn = coded(fn, plan, lambda: self._compile_gated(spec))
        plan.fn = fn
        if keep:
            self._plans[spec] = plan  # (only whole: another thread may fetch it at once)
        return plan

    def _compile_gated(self, spec: jsp.Spec) -> Callable:
        """The gated program of a HOISTED plan (see ``_checks._body_hoisted``)."""
        return self._compile(spec._replace(check=CheckMode.GATED), keep=False).fn

    def _input_names(self, spec: jsp.Spec) -> tuple[str, ...]:
        """The user's name of each input of the compiled function of ``spec`` (its
        argument's name and path, "a closed-over Tensor", or the views' start offsets)."""
        desc = spec.leaves
        leaf_names = _errors.leaf_names(self._fn, spec.treedef, spec.static, len(desc))
        names: list[str] = []
        n_st = 0
        for j, d in enumerate(desc):
            if d is VALUE:
                names.append(leaf_names[j])
            elif type(d) is OnStorage and d.storage == n_st:  # (its storage's first leaf)
                names.append(leaf_names[j])
                n_st += 1
        names += ["a closed-over Tensor"] * (spec.n_storages - n_st)
        if spec.n_starts:
            names.append("the start offsets of the view arguments")
        return tuple(names)

    def _note_trace(self, spec: jsp.Spec, inputs: tuple) -> None:
        """Count the distinct programs traced for this function (:class:`RecompileWarning`)."""
        named = self._named = _named.record(self._fn)
        summary = None if named is None else named.summary()
        self._named_traced = (self._named_traced[1], summary)
        self._recompiles.note(self._fn, spec, inputs, self._explain,
                              None if summary is None else summary[2])

    def _explain(self, old: tuple, new: tuple) -> str:
        """What differs between two traced ``(spec, input types, named)`` of the function."""
        if old[:2] == new[:2]:
            before, now = self._named_traced
            said = None if before is None or now is None else _named.Named.explain(before, now)
            return said or "a value the function reads by name changed"
        return jsp.explain(self._fn, old[:2], new[:2], self._input_names)

    def _warn_unrolled(self, trace: jtr.Trace) -> None:
        """Warn (once per function) when the trace holds as many writes as a Python loop
        unrolled into the program makes: its compile time grows with the trip count."""
        if trace.n_writes >= _config.UNROLLED_WRITES and not self._warned:
            self._warned = True
            _errors.warn_unrolled(self._fn, trace.n_writes)

    def _run(self, spec: jsp.Spec, call: Any, inputs: tuple,
             code: Any = None) -> tuple[dict, jtr.Trace]:
        """The function traced once over a Trace in ``spec``'s check mode (``code``: the
        number of the first failed check, for hoisted gates)."""
        if type(call) is list:  # a plain call
            storages, outer, parent = call, _eval_trace, None
        else:
            storages, outer, parent = call.storages, call.outer, call.parent
        positions, other_pos, starts_pos = jpt.layout(spec)
        arrays = [inputs[p] for p in positions]
        others = [inputs[p] for p in other_pos]
        starts = None if starts_pos is None else inputs[starts_pos]
        trace = jtr.Trace(storages, arrays, outer, parent, spec.check, code)
        tok = _current.set(trace)
        try:
            args, kwargs, rebuilt = jpt.arguments(spec, storages, others, starts)
            out = self._fn(*args, **kwargs)
            return jpt.outputs(spec, trace, storages, rebuilt, out), trace
        finally:
            _current.reset(tok)


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
    for k, why in _errors.REJECTED.items():
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
