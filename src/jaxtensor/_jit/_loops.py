"""Control flow whose bodies write Tensors: ``fori_loop``, ``while_loop``, ``cond``.

A body may write any Tensor it can reach (arguments, closed-over Tensors, views of either,
Tensors it makes) with every write kind, and the loop is compiled into one XLA loop:

>>> import jaxtensor as jt
>>> x = jt.ones(6)
>>> def step(i):
...     x[i] = x[i - 1] * 0.5 + x[i]
>>> jt.fori_loop(1, 6, step)
>>> x
Tensor(shape=[6], dtype=float64, device=cpu,
       [1.     , 1.5    , 1.75   , 1.875  , 1.9375 , 1.96875])

How (``docs/loops.md``, ``docs/decisions.md``): inside a ``jaxtensor.jit`` trace
(:class:`~._trace.Trace`) the loop's carry is the trace's value of every storage it holds,
plus the storages the body meets: the body is traced with the carried values installed as
the trace's values (``Trace.body`` marks the body's JAX trace, where carried storages may
be written); a storage the body meets that is not carried yet (a closed-over Tensor, one
made by the trace before the loop) makes the loop be traced again with it carried. After
the loop the trace's values are the loop's results. Called outside ``jaxtensor.jit``, the
loop runs inside a ``jaxtensor.jit`` function cached by the body's code, whose programs are
keyed by what the body reads from Python (``_reads.py``; Tensors it reaches are
arguments), with traced bounds, so a new body closure over equal values, other bounds or
other Tensors of the same structure reuse the compiled loop, and nothing traced or
compiled depends on the trip count.
"""

from __future__ import annotations

import types
import warnings
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._core import Tensor, _cache, current_trace, starts_array
from .._core import current as _current
from .._core._jax_private import EvalTrace as _EvalTrace
from .._core._jax_private import trace_state as _trace_state
from .._core._jax_private import weak_cast
from . import _branches, _jit, _probes, _reads
from . import _trace as jtr

__all__ = ["cond", "fori_loop", "while_loop"]

Tracer = jax.core.Tracer
_NO = object()
_jitted = _cache.cache("compiled loops", 512)


# -- carrying storages through a body -------------------------------------------------------
class _Carry:
    """The storages a control-flow body carries, the trace's values around it, and (in
    OWN check mode) the first failed check, carried as ``(code, value)``."""

    def __init__(self, t: jtr.Trace, gate: bool) -> None:
        self.t = t
        self.storages: list = list(t.values)
        self.outer = t.values  # the trace's values at the level of the loop
        self.checked = t.mode == jtr.OWN
        # whether writes in the body are gated by the checks of earlier iterations (set
        # once a trace of the body made a check)
        self.gate = gate
        self.base = t.gate() if self.checked else None  # the gate around the construct
        self.made_checks = False
        self.n_checks = (len(t.items), len(t.msgs))

    def codes(self) -> tuple:
        return (jnp.zeros((), jtr._IDX), jnp.zeros((), jtr._IDX)) if self.checked else ()

    def initial(self) -> list:
        """The carried storages' values before the loop."""
        out = []
        for st in self.storages:
            v = self.outer.get(st, _NO)
            if v is _NO:
                v = self.t.initial.get(st, _NO) if self.t._from_outside(st) else _NO
                if v is _NO:
                    v = self.t.read(st)  # (a storage made before the loop: its value)
                else:
                    self.outer[st] = v
            out.append(v)
        return out

    def run(self, vals: list, fn: Callable[[], Any], codes: tuple | None) -> tuple:
        """Run ``fn`` with ``vals`` as the carried storages' values and ``codes`` the first
        failed check so far: (their new values, what ``fn`` returned, storages it met that
        are not carried, the first failed check after it)."""
        t = self.t
        saved = t.values, t.body, t.loop
        t.values = dict(zip(self.storages, vals))
        t.body = current_trace()
        checked = self.checked and codes is not None
        t.loop = None
        if checked:
            ok = self.base
            if self.gate:
                clean = codes[0] == 0
                ok = clean if ok is None else ok & clean
            t.loop = jtr.BodyChecks(ok)
        try:
            res = fn()
            new = [t.values[st] for st in self.storages]
            met = [st for st in t.values if st not in set(self.storages)]
            if checked:
                self.made_checks |= bool(t.loop.items)
                codes = t.loop.first(*codes)
        finally:
            t.values, t.body, t.loop = saved
        return new, res, met, codes

    def grow(self, met: list) -> bool:
        """Carry ``met`` from the next trace of the body; False if nothing was new."""
        known = set(self.storages)
        new = [st for st in dict.fromkeys(met) if st not in known]
        self.storages += new
        return bool(new)

    def finish(self, outs: list, codes: tuple) -> None:
        """The loop's results become the trace's values (or the storages' own, for those the
        trace made); its first failed check becomes a check of the level around it."""
        here = current_trace()
        for st, v in zip(self.storages, outs):
            if st in self.outer or st.trace is not here:
                # (a storage made outside the body this loop is in: the enclosing body
                # reports it met, and its loop carries it from its next trace on)
                self.outer[st] = v
            else:
                st.install(v)
        if self.made_checks:
            code, bad = codes
            self.t.item(code != 0, bad, ("loop",), code)


def _carried(t: jtr.Trace, build: Callable[[_Carry], tuple[Any, Callable]],
             loop: bool = True) -> Any:
    """Trace a control-flow construct until its carry holds every storage its bodies meet
    (and, for a loop whose body checks, until its writes are gated by earlier iterations'
    checks). ``build(carry)`` traces it once and returns (the carried values, the user's
    results, the first failed check; the list of storages met)."""
    # (a loop's writes are gated by its earlier iterations' checks from its first trace: a
    # body without checks carries its code unchanged, which XLA folds away)
    carry = _Carry(t, loop and t.mode == jtr.OWN)
    # Under checkify a check is an effect, which JAX keeps in the program even when the
    # construct's results are dropped: a trace of it that did not carry every storage would
    # run as well (a while_loop whose counter is not carried never ends). There the traces
    # that find the storages are made apart, in a jaxpr thrown away.
    probe = jtr.effective_mode(t) == jtr.CHECKIFY
    while True:
        if probe and carry.grow(_met_apart(build, carry)):
            continue
        (outs, res, codes), met = build(carry)
        grew = carry.grow(met)
        if loop and carry.made_checks and not carry.gate:
            carry.gate = grew = True
        if not grew or _discarded(t):
            carry.finish(outs, codes)
            return res
        # (drop the checks the abandoned trace numbered)
        del t.items[carry.n_checks[0]:], t.msgs[carry.n_checks[1]:]
        carry.made_checks = False


def _discarded(t: jtr.Trace) -> bool:
    """Whether the trace ``t`` of a top-level call will be thrown away whatever its loops
    carry (it met closed-over storages, which the call's next trace takes as inputs, so
    every loop carries them from the start): its loops are not traced again."""
    return bool(t.discovered) and t.parent is None and t.mode == jtr.OWN and isinstance(
        t.outer, _EvalTrace)


def _met_apart(build: Callable[[_Carry], tuple[Any, list]], carry: _Carry) -> list:
    """The storages a trace of the construct meets, traced into a jaxpr thrown away."""
    found: list = []
    jax.make_jaxpr(lambda: found.extend(build(carry)[1]))()
    return found


def _to_arrays(tree: Any) -> tuple[list, Any, list[bool]]:
    leaves, treedef = jax.tree_util.tree_flatten(tree, is_leaf=lambda v: isinstance(v, Tensor))
    is_t = [isinstance(v, Tensor) for v in leaves]
    arrays = [v._value() if k else v for v, k in zip(leaves, is_t)]
    return arrays, treedef, is_t


def _from_arrays(arrays: list, treedef: Any, is_t: list[bool]) -> Any:
    leaves = [Tensor._wrap(a) if k else a for a, k in zip(arrays, is_t)]
    return jax.tree_util.tree_unflatten(treedef, leaves)


def _index(i: Any) -> Any:
    """The loop index as the body sees it: the ``int`` of the Python loop, a weakly typed
    integer as wide as jaxtensor's index dtype (it takes the other operand's dtype in
    arithmetic with a Tensor, with the eager ``OverflowError`` rules of a Python int)."""
    return weak_cast(i, jtr._IDX)


def _wide(b: Any) -> Any:
    """A bound of ``fori_loop`` in the index dtype (a NumPy ``int8`` bound must not make
    the index wrap); a Python int stays one (concrete bounds stay concrete)."""
    return b if type(b) is int else lax.convert_element_type(b, jtr._IDX)


# -- inside a jaxtensor.jit trace -------------------------------------------------------------
def _fori_traced(t: jtr.Trace, lower: Any, upper: Any, body: Callable, init: Any) -> Any:
    has_init = init is not _NO
    c_arrays, c_tree, c_is_t = _to_arrays(init if has_init else None)

    def build(carry: _Carry) -> tuple:
        met: list = []

        def step(i: Any, state: tuple) -> tuple:
            vals, user, codes = state

            def call() -> Any:
                if not has_init:
                    body(_index(i))
                    return user
                out = body(_index(i), _from_arrays(list(user), c_tree, c_is_t))
                return _carry_arrays("fori_loop", out, c_tree)

            new, res, m, codes = carry.run(list(vals), call, codes)
            met.extend(m)
            return new, res, codes

        outs, res, codes = lax.fori_loop(_wide(lower), _wide(upper), step,
                                         (carry.initial(), c_arrays, carry.codes()))
        return (outs, _from_arrays(list(res), c_tree, c_is_t) if has_init else None,
                codes), met

    return _carried(t, build)


def _carry_arrays(fname: str, out: Any, c_tree: Any) -> list:
    """The arrays of the carry ``out`` a body returned, which must have ``init_val``'s
    structure ``c_tree``."""
    arrays, tree, _ = _to_arrays(out)
    if tree != c_tree:
        raise TypeError(f"{fname}(): body_fun must return a carry of the structure of "
                        f"init_val ({c_tree}); it returned {tree}")
    return arrays


def _while_traced(t: jtr.Trace, cond_fun: Callable, body_fun: Callable, init: Any) -> Any:
    has_init = init is not _NO
    c_arrays, c_tree, c_is_t = _to_arrays(init if has_init else None)

    def build(carry: _Carry) -> tuple:
        met: list = []

        def test(state: tuple) -> Any:
            vals, user, codes = state

            def call() -> Any:
                args = (_from_arrays(list(user), c_tree, c_is_t),) if has_init else ()
                return _predicate(cond_fun(*args), "while_loop(): cond_fun")

            # (no checks carried: one in cond_fun makes the function be traced under checkify)
            new, res, m, _ = carry.run(list(vals), call, None)
            met.extend(m)
            if any(a is not b for a, b in zip(new, vals)):
                raise ValueError("while_loop(): cond_fun must not write Tensors (write them in "
                                 "body_fun)")
            # a failed check stops the loop (its writes are gated: it would never end),
            # one of an earlier iteration or one made before the loop (``carry.base``)
            if carry.checked:
                res = res & (codes[0] == 0)
                if carry.base is not None:
                    res = res & carry.base
            elif jtr.effective_mode(t) == jtr.CHECKIFY and jtr.GATED:
                res = res & jtr.no_error_p.bind()
            return res

        def step(state: tuple) -> tuple:
            vals, user, codes = state

            def call() -> Any:
                if not has_init:
                    body_fun()
                    return user
                out = body_fun(_from_arrays(list(user), c_tree, c_is_t))
                return _carry_arrays("while_loop", out, c_tree)

            new, res, m, codes = carry.run(list(vals), call, codes)
            met.extend(m)
            return new, res, codes

        outs, res, codes = lax.while_loop(test, step, (carry.initial(), c_arrays, carry.codes()))
        return (outs, _from_arrays(list(res), c_tree, c_is_t) if has_init else None,
                codes), met

    return _carried(t, build)


def _cond_traced(t: jtr.Trace, pred: Any, true_fun: Callable, false_fun: Callable,
                 operands: tuple) -> Any:
    if t.mode == jtr.INHERIT or jtr.effective_mode(t) == jtr.CHECKIFY:
        # (writes there are not gated by Trace.loop: the branches stay a conditional's)
        return _cond_lax(t, pred, true_fun, false_fun, operands)
    shapes: list = []

    def build(carry: _Carry) -> tuple:
        base = t.gate()
        vals, codes = carry.initial(), carry.codes()
        traced = []
        met: list = []
        for fn in (true_fun, false_fun):
            def call(fn: Callable = fn) -> list:
                arrays, tree, is_t = _to_arrays(fn(*operands))
                shapes.append((tree, is_t))
                return [jnp.asarray(a) for a in arrays]

            closed, m, n_res, n_vals = _branches.trace(carry, call, base, vals, codes)
            traced.append((closed, n_res))
            met.extend(m)
        (true_j, n_t), (false_j, n_f) = traced
        tree, is_t = shapes[-1]
        if (tree, is_t) != shapes[-2]:
            raise TypeError("cond(): true_fun and false_fun must return the same structure "
                            f"(got {shapes[-2][0]} and {tree})")
        _branches.check_results(true_j, false_j, n_vals, n_t)
        if _branches.inline_ok([true_j, false_j], n_vals):
            # both run, each write gated: the true branch's where pred holds, then the false
            # branch's, on what the first left, where it does not
            v1, r1, c1 = _branches.call(true_j, pred, vals, codes, n_t)
            outs, r2, codes = _branches.call(false_j, ~pred, v1, c1, n_f)
            res = [lax.select(pred, a, b) for a, b in zip(r1, r2)]
        else:
            def branch(closed: Any, n: int) -> Callable:
                return lambda state: _branches.call(closed, jnp.bool_(True), *state, n)

            outs, res, codes = lax.cond(pred, branch(true_j, n_t), branch(false_j, n_f),
                                        (vals, codes))
        return (outs, _from_arrays(list(res), tree, is_t), codes), met

    return _carried(t, build, loop=False)


def _cond_lax(t: jtr.Trace, pred: Any, true_fun: Callable, false_fun: Callable,
              operands: tuple) -> Any:
    shapes: list = []

    def build(carry: _Carry) -> tuple:
        met: list = []

        def branch(fn: Callable) -> Callable:
            def run(vals: list) -> tuple:
                def call() -> Any:
                    arrays, tree, is_t = _to_arrays(fn(*operands))
                    shapes.append((tree, is_t))
                    return [jnp.asarray(a) for a in arrays]

                new, res, m, codes = carry.run(list(vals), call, carry.codes())
                met.extend(m)
                return new, res, codes

            return run

        outs, res, codes = lax.cond(pred, branch(true_fun), branch(false_fun),
                                    carry.initial())
        tree, is_t = shapes[-1]
        if (tree, is_t) != shapes[-2]:
            raise TypeError("cond(): true_fun and false_fun must return the same structure "
                            f"(got {shapes[-2][0]} and {tree})")
        return (outs, _from_arrays(list(res), tree, is_t), codes), met

    return _carried(t, build, loop=False)


def _predicate(p: Any, who: str) -> Any:
    if isinstance(p, Tensor):
        p = p._value()
    p = jnp.asarray(p)
    if p.shape != () or p.dtype != np.bool_:
        raise TypeError(f"{who} must return a 0-D boolean, got shape {p.shape} and dtype "
                        f"{p.dtype}")
    return p


# -- outside: one cached jaxtensor.jit function per body code and key ----------------------
class _Key:
    """What a call's bodies read (:class:`~._reads.Reader`'s atoms): a call with an equal
    key traces to the same program."""

    __slots__ = ("atoms", "hash")

    def __init__(self, atoms: tuple) -> None:
        self.atoms = atoms
        self.hash = hash(atoms)

    def __eq__(self, other: object) -> bool:
        return type(other) is _Key and self.hash == other.hash and self.atoms == other.atoms

    def __hash__(self) -> int:
        return self.hash

    def explain(self, old: _Key, fns: tuple) -> str:
        """What changed from the key ``old`` (``fns``: the bodies that read this one)."""
        r = _reads.Reader(labels=True)
        for f in fns:
            if type(f) is types.FunctionType:
                r.function(f, "the body", [])
            else:
                r.value(f, "the body")
        return _reads.describe(self.atoms, r.labels or [], old.atoms)


#: the bodies of the eager loop being called, and where their arguments go: what a cached
#: program traces (never the bodies of the call that made it)
_BODIES: ContextVar[Any] = ContextVar("jaxtensor_loop_bodies", default=None)
#: per body code: [the number of keys compiled, the last key, whether warned]
_keys_made = _cache.cache("compiled loop keys", 512)
#: per code of a call's last body, for the last call the walk decided: ((the loop's kind,
#: whether it has no init_val), the bodies' probes, the compiled loop (the jaxtensor.jit
#: function of their key), where the bodies' arguments go, which distinct argument each is)
_last = _cache.cache("eager loop probes", 512)
#: ``fori_loop``'s Python int bounds (lower, upper) as one device array
_pairs = _cache.cache("eager loop bounds", 256)


def _read(fns: tuple) -> tuple[_Key, list, tuple]:
    """(the key, the arguments of the bodies followed by the Tensors reached deeper, where
    each body's arguments go) of a call's bodies."""
    r = _reads.Reader()
    args: list = []
    wheres = []
    for f in fns:
        if type(f) is types.FunctionType:
            wheres.append(r.function(f, "the body", args))
        else:
            r.value(f, "the body")
            wheres.append(None)
    return _Key(tuple(r.atoms)), args + r.tensors, tuple(wheres)


def _code_key(f: Any) -> Any:
    return f.__code__ if type(f) is types.FunctionType else type(f)


def _compiled(kind: str, fns: tuple, bounds: tuple, init: Any) -> Any:
    """Run a loop inside the cached ``jaxtensor.jit`` function of its bodies' code and what
    they read (:func:`_read`). Its arguments are plain (Tensors, arrays, the bounds), so a
    repeat call takes ``jaxtensor.jit``'s guarded fast path. At the top level, a call whose
    bodies pass the probes of the last call of their code (``_probes.py``: they read the same
    flat values) skips the walk."""
    eager = type(_trace_state.value) is _EvalTrace
    jitted = None
    if eager:
        f = fns[-1]
        last = _last.get(f.__code__) if type(f) is types.FunctionType else None
        if last is not None and last[0] == (kind, init is _NO):
            args = _probes.match(last[1], fns)
            if args is not None:
                args, same = _distinct(args)
                if same == last[4]:
                    jitted, wheres = last[2], last[3]
    if jitted is None:
        jitted, args, wheres, fixed = _lookup(kind, fns, bounds, init, eager)
        bounds = tuple(b for b, f in zip(bounds, fixed) if f is None)
    if eager and bounds and type(bounds[0]) is int and type(bounds[1]) is int:
        # (one argument, kept on the device from the second use of these bounds on:
        # JAX converts each Python number argument anew at every call)
        pair = _pairs.get(bounds)
        if pair is None:
            try:
                pair = starts_array(bounds)  # (a host array at the first use)
            except OverflowError:
                raise OverflowError(
                    f"fori_loop(): lower and upper must fit the loop index's dtype "
                    f"({np.dtype(jtr._IDX).name}), got {bounds[0]} and {bounds[1]}") from None
            if not isinstance(pair, np.ndarray):
                _pairs[bounds] = pair
        ins = args + [pair]
    else:
        ins = args + list(bounds)
    if init is not _NO:
        ins.append(init)
    tok = _BODIES.set((fns, wheres))
    try:
        out = jitted(*ins)
    finally:
        _BODIES.reset(tok)
    return None if init is _NO else out


def _lookup(kind: str, fns: tuple, bounds: tuple, init: Any, eager: bool
            ) -> tuple[Callable, list, tuple, tuple]:
    """The walk (:func:`_read`) of a call's bodies: (the cached ``jaxtensor.jit`` function of
    its key, made if new; the loop's arguments; where each body's go; which bounds are
    fixed). At the top level, the probes of the bodies are kept for the next call."""
    key, args, wheres = _read(fns)
    args, same = _distinct(args)
    if eager:
        fixed: tuple = (None,) * len(bounds)
    else:
        # inside a JAX transformation: concrete bounds stay concrete (reverse-mode
        # differentiation needs a loop of known length), as part of the key
        fixed = tuple(b if type(b) is int else None for b in bounds)
    cache_key = (kind, key, fixed, init is _NO, same)
    jitted = _jitted.get(cache_key)
    if jitted is None:
        jitted = _jitted[cache_key] = _make(kind, fns, fixed, same, init is _NO)
        _count_key(kind, fns, key)
    if eager:
        probes = _probes.record(fns)
        if probes is not None:
            _last[fns[-1].__code__] = ((kind, init is _NO), probes, jitted, wheres, same)
    return jitted, args, wheres, fixed


def _distinct(args: list) -> tuple[list, tuple]:
    """Each of ``args`` once (a Tensor that both bodies of a ``while_loop`` close over is
    one argument of the compiled loop, not two aliased ones, which ``jaxtensor.jit`` would
    not call by its guarded fast path), and where each of ``args`` is among them."""
    if len(args) < 2:
        return args, (0,) * len(args)
    first: dict[int, int] = {}
    out = []
    where = []
    for a in args:
        j = first.setdefault(id(a), len(out))
        if j == len(out):
            out.append(a)
        where.append(j)
    return out, tuple(where)


def _make(kind: str, fns: tuple, fixed: tuple, same: tuple, no_init: bool) -> Callable:
    """The ``jaxtensor.jit`` function of one key: it traces the bodies of the call being
    made, over its arguments (``same``: which of the distinct arguments each body's is)."""
    n_args = len(set(same))

    def program(*ins: Any) -> Any:
        fns, wheres = _BODIES.get()
        it = iter([ins[j] for j in same])
        made = [f if w is None else _reads.rebuild(f, w, it) for f, w in zip(fns, wheres)]
        rest = iter(ins[n_args:])
        if fixed == (None, None) and np.ndim(ins[n_args]) == 1:  # (both bounds, packed)
            pair = next(rest)
            bs = [pair[0], pair[1]]
        else:
            bs = [next(rest) if f is None else f for f in fixed]
        init = _NO if no_init else next(rest)
        t = _current.get()
        if kind == "fori":
            return _fori_traced(t, bs[0], bs[1], made[0], init)
        return _while_traced(t, made[0], made[1], init)

    program._jaxtensor_name = f"jaxtensor.{kind}_loop(" + ", ".join(  # type: ignore
        getattr(f, "__qualname__", type(f).__name__) for f in fns) + ")"
    program._jaxtensor_code = getattr(fns[-1], "__code__", None)  # type: ignore
    return _jit.jit(program)


def _count_key(kind: str, fns: tuple, key: _Key) -> None:
    """A new key compiled for the bodies' code: warn (``RecompileWarning``) at the
    ``RECOMPILE_LIMIT``-th, naming what changed from the last one."""
    code = (kind, tuple(map(_code_key, fns)))
    seen = _keys_made.get(code)
    if seen is None:
        _keys_made[code] = [1, key, False]
        return
    seen[0] += 1
    last, seen[1] = seen[1], key
    if seen[0] < _jit.RECOMPILE_LIMIT or seen[2]:
        return
    seen[2] = True
    where = getattr(fns[-1], "__code__", None)
    name = ", ".join(getattr(f, "__qualname__", type(f).__name__) for f in fns)
    warnings.warn_explicit(
        f"jaxtensor.{kind}_loop({name}) compiled {seen[0]} programs for the same code: "
        f"{key.explain(last, fns)}. Each new value of what the body reads from Python (a "
        "number, a list's items, an attribute) compiles a new program: pass values that "
        "change as Tensors instead. Silence this with warnings.filterwarnings('ignore', "
        "category=jaxtensor.RecompileWarning).",
        _jit.RecompileWarning,
        where.co_filename if where else "jaxtensor", where.co_firstlineno if where else 0)


def _bound(b: Any, who: str) -> Any:
    if isinstance(b, Tensor):
        b = b._value()
    if type(b) is int:
        return b
    if isinstance(b, (jax.Array, np.ndarray, np.generic, Tracer)):
        if b.shape != () or np.dtype(b.dtype).kind not in "iu":
            raise TypeError(f"fori_loop(): {who} must be an integer scalar, got shape "
                            f"{tuple(b.shape)} and dtype {b.dtype}")
        return b
    if type(b) is bool or not hasattr(b, "__index__"):
        raise TypeError(f"fori_loop(): {who} must be an integer, got {type(b).__name__}")
    return int(b)


# -- the public functions -----------------------------------------------------------------
def fori_loop(lower: Any, upper: Any, body_fun: Callable, init_val: Any = _NO) -> Any:
    """Run ``body_fun(i)`` for ``i`` in ``range(lower, upper)`` as one compiled XLA loop;
    the body may write any Tensor it can reach.

    ``body_fun(i)`` gets ``i`` as the traced ``int`` of the Python loop (weakly typed, as
    wide as jaxtensor's index dtype whatever the bounds' dtype: an index, a ``ds`` start, a
    number that takes a Tensor's dtype as a Python int does) and returns nothing; its
    writes (to arguments, closed-over Tensors, views of either, Tensors it makes) are
    seen after the loop by every alias, as if the Python
    loop had run. JAX's form ``fori_loop(lower, upper, body_fun, init_val)`` with
    ``body_fun(i, carry) -> carry`` works too (Tensors in the carry are passed by value)
    and returns the final carry. Outside ``jaxtensor.jit`` the loop is compiled once per
    body code and value of what the body reads from Python, and reused for new bounds,
    new closures over equal values and new Tensors of the same structure; bounds out of
    order run zero iterations, as ``range``. See ``docs/loops.md``.

    Examples
    --------
    >>> import jaxtensor as jt
    >>> x = jt.arange(5.0)
    >>> def body(i):
    ...     x[i] += x[i - 1]
    >>> jt.fori_loop(1, 5, body)
    >>> x
    Tensor(shape=[5], dtype=float64, device=cpu,
           [ 0.,  1.,  3.,  6., 10.])
    >>> jt.fori_loop(0, 3, lambda i, c: c * 2, jt.asarray(1.0))
    Tensor(shape=[], dtype=float64, device=cpu,
           8.)
    """
    if not callable(body_fun):
        raise TypeError(f"fori_loop(): body_fun must be callable, got {type(body_fun).__name__}")
    if type(lower) is not int:
        lower = _bound(lower, "lower")
    if type(upper) is not int:
        upper = _bound(upper, "upper")
    t = _current.get()
    if isinstance(t, jtr.Trace):
        return _fori_traced(t, lower, upper, body_fun, init_val)
    return _compiled("fori", (body_fun,), (lower, upper), init_val)


def while_loop(cond_fun: Callable, body_fun: Callable, init_val: Any = _NO) -> Any:
    """Run ``body_fun()`` while ``cond_fun()`` is true, as one compiled XLA loop; the body
    may write any Tensor it can reach.

    ``cond_fun()`` returns a 0-D boolean (a Tensor such as ``x[0] < 5``) computed from the
    Tensors' current values, and must not write; ``body_fun()`` returns nothing. JAX's
    form ``while_loop(cond_fun, body_fun, init_val)`` (``cond_fun(carry)``,
    ``body_fun(carry) -> carry``; Tensors in the carry passed by value) returns the final
    carry. See ``docs/loops.md``.

    Examples
    --------
    >>> import jaxtensor as jt
    >>> x = jt.asarray([1.0, 0.0])
    >>> def body():
    ...     x[0] *= 2
    ...     x[1] += 1
    >>> jt.while_loop(lambda: x[0] < 100, body)
    >>> x
    Tensor(shape=[2], dtype=float64, device=cpu,
           [128.,   7.])
    """
    for name, f in (("cond_fun", cond_fun), ("body_fun", body_fun)):
        if not callable(f):
            raise TypeError(f"while_loop(): {name} must be callable, got {type(f).__name__}")
    t = _current.get()
    if isinstance(t, jtr.Trace):
        return _while_traced(t, cond_fun, body_fun, init_val)
    return _compiled("while", (cond_fun, body_fun), (), init_val)


def cond(pred: Any, true_fun: Callable, false_fun: Callable, *operands: Any) -> Any:
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, where the
    branches may write any Tensor they can reach.

    With a concrete ``pred`` (a Python bool, an eager 0-D Tensor) the branch simply runs,
    as ``if`` would. With a traced one (inside ``jaxtensor.jit``, a loop body) both
    branches are traced into one ``lax.cond`` and the writes of the branch taken are
    kept. Operands are passed as they are (a Tensor operand is the caller's Tensor, not a
    copy); both branches must return the same structure (Tensors come back as new
    Tensors). See ``docs/loops.md``.

    Examples
    --------
    >>> import jaxtensor as jt
    >>> x = jt.asarray([3.0, -2.0, 5.0])
    >>> def clip_negatives(i):
    ...     jt.cond(x[i] < 0, lambda: x.__setitem__(i, 0.0), lambda: None)
    >>> jt.fori_loop(0, 3, clip_negatives)
    >>> x
    Tensor(shape=[3], dtype=float64, device=cpu,
           [3., 0., 5.])
    """
    for name, f in (("true_fun", true_fun), ("false_fun", false_fun)):
        if not callable(f):
            raise TypeError(f"cond(): {name} must be callable, got {type(f).__name__}")
    p = pred._value() if isinstance(pred, Tensor) else pred
    if not isinstance(p, Tracer):
        if np.shape(p) != ():
            raise TypeError(f"cond(): pred must be a scalar, got shape {np.shape(p)}")
        return true_fun(*operands) if bool(p) else false_fun(*operands)
    p = _predicate(p, "cond(): pred")
    t = _current.get()
    if not isinstance(t, jtr.Trace):
        raise TypeError(
            "cond(): a traced pred outside jaxtensor.jit (under jax.jit, grad or vmap): wrap "
            "the function in jaxtensor.jit")
    return _cond_traced(t, p, true_fun, false_fun, operands)
