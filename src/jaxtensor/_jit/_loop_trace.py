"""The loops of ``_loops.py`` inside a ``jaxtensor.jit`` trace: the trace's storages carried
through one XLA ``while``/``fori`` loop or ``cond`` (``_Carry``), the body's checks carried as
one more value, and the loop index as the Python loop's ``int``."""


from __future__ import annotations

import types
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._core import Tensor, WeakTensor, as_weak, current_trace, new_tensor
from .._core._jax_private import EvalTrace as _EvalTrace
from .._core._jax_private import weak_cast
from . import _branches, _ranges
from . import _trace as jtr
from ._body_checks import clean, failure, no_failure
from ._carry_ranges import WhileRanges
from ._ranges import in_branch, loop_index

_NO = object()
#: the construct whose body is being traced, for the constructs nested in it (they share
#: its record of what to carry from the start, :attr:`_Carry.memo`)
_RUNNING: ContextVar[Any] = ContextVar("jaxtensor_loop_running", default=None)
#: the trace (``jtr.Trace``) whose construct being traced is traced apart, into a jaxpr
#: thrown away (a nested ``jaxtensor.jit`` call's trace, whose program may be kept, is not)
_APART: ContextVar[Any] = ContextVar("jaxtensor_loop_apart", default=None)


# -- carrying storages through a body -------------------------------------------------------
class _Carry:
    """The storages a control-flow body carries, the trace's values around it, and (in
    a folded check mode) the first failed check, carried as ``(code, value)``."""

    def __init__(self, t: jtr.Trace, gate: bool, fns: tuple) -> None:
        self.t = t
        self.storages: list = list(t.values)
        self.fns = fns
        # per bodies' code, the names of their closed-over Tensors made in the body around
        # them that an earlier trace of these bodies met: carried from the start
        around = _RUNNING.get()
        self.memo: dict = around.memo if around is not None and around.t is t else {}
        self.key = tuple([getattr(f, "__code__", None) for f in fns])
        names = self.memo.get(self.key)
        if names:
            known, here = set(self.storages), current_trace()
            self.storages += [st for st in _closed_over(fns, names).values()
                              if st not in known and st.trace is here]
        self.outer = t.values  # the trace's values at the level of the loop
        self.checked = t.checks.folded
        # whether writes in the body are gated by the checks of earlier iterations (set
        # once a trace of the body made a check)
        self.gate = gate
        self.base = t.gate() if self.checked else None  # the gate around the construct
        self.made_checks = False
        self.n_checks = (len(t.items), len(t.msgs))
        self.again = False  # (a construct in the body handed its storages up to it)
        # (the trace assumed a range of a loop's carries that did not hold: trace it again)
        self.retrace = False
        # the checks of the body this construct is in, whose first failure so far it starts
        # from and carries on (rather than reporting one more check to fold into it)
        self.enclosing = t.loop if self.checked and current_trace() is t.body else None
        self.saved = None if self.enclosing is None else self.enclosing.saved()

    def codes(self) -> tuple:
        """The first failure carried in (``_body_checks.no_failure``): int32 words."""
        if not self.checked:
            return ()
        lp = self.enclosing
        return no_failure() if lp is None else lp.current()

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
                ok = clean(codes) if ok is None else lax.bitwise_and(ok, clean(codes))
            t.loop = jtr.BodyChecks(ok, codes, self.base, self.gate)
        running = _RUNNING.set(self)
        try:
            res = fn()
            new = [t.values[st] for st in self.storages]
            met = [st for st in t.values if st not in set(self.storages)]
            if checked:
                self.made_checks |= bool(t.loop.items)
                codes = t.loop.first(codes)
        finally:
            _RUNNING.reset(running)
            t.values, t.body, t.loop = saved
        return new, res, met, codes

    def grow(self, met: list) -> list:
        """Carry ``met`` from the next trace of the body: those that were new."""
        known = set(self.storages)
        new = [st for st in dict.fromkeys(met) if st not in known]
        self.storages += new
        return new

    def hand_up(self, new: list) -> bool:
        """Hand the storages ``new`` (met by this trace and not carried: none where a
        construct nested in the body handed its own up, :attr:`again`) up to the body this
        construct is in, which is then traced again carrying them from the start at every
        level, instead of this construct being traced again now (two traces of each body,
        whatever the nesting, not one more per level). Those made outside that body are
        reported met to it (at their value there); those made in it are Tensors the bodies
        close over (recorded in :attr:`memo`: the construct's next trace carries them from
        the start). False where there is no such body or ``new`` cannot be handed up."""
        t, here = self.t, current_trace()
        around = _RUNNING.get()
        if t.body is not here or around is None or around.t is not t or (
                t.checks.checkify and _APART.get() is not t):
            # (under checkify a trace of the construct that is kept in the program runs,
            # its checks being effects: only one traced apart may be thrown away)
            return False
        if any(st in self.outer for st in new):
            return False
        made = [st for st in new if st.trace is here]
        if made:
            found = {st: name for name, st in _closed_over(self.fns).items()}
            if any(st not in found for st in made):
                return False
            self.memo[self.key] = self.memo.get(self.key, frozenset()) | {
                found[st] for st in made}
        for st in new:
            if st.trace is not here:
                v = t.initial.get(st, _NO) if t._from_outside(st) else _NO
                self.outer[st] = t.read(st) if v is _NO else v
        around.again = True
        return True

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
        if not self.made_checks:
            return
        if self.enclosing is not None:
            self.enclosing.leave(codes)
        else:
            code, bad = failure(codes)
            self.t.item(lax.ne(code, np.zeros((), code.dtype)), bad, ("loop",), code)


def _closed_over(fns: tuple, names: frozenset | None = None) -> dict:
    """The storages of the Tensors that the functions ``fns`` close over, by the name of
    the variable (those of ``names`` only, if given)."""
    out: dict = {}
    for f in fns:
        if type(f) is not types.FunctionType or not f.__closure__:
            continue
        for name, cell in zip(f.__code__.co_freevars, f.__closure__):
            if names is not None and name not in names:
                continue
            try:
                v = cell.cell_contents
            except ValueError:  # (a variable not assigned yet)
                continue
            if isinstance(v, Tensor):
                out.setdefault(name, v._storage)
    return out


def _carried(t: jtr.Trace, build: Callable[[_Carry], tuple[Any, Callable]],
             fns: tuple, loop: bool = True) -> Any:
    """Trace a control-flow construct until its carry holds every storage its bodies meet
    (and, for a loop whose body checks, until its writes are gated by earlier iterations'
    checks). ``build(carry)`` traces it once and returns (the carried values, the user's
    results, the first failed check; the list of storages met)."""
    # (a loop's writes are gated by its earlier iterations' checks from its first trace: a
    # body without checks carries its code unchanged, which XLA folds away)
    carry = _Carry(t, loop and t.checks.folded, fns)
    # Under checkify a check is an effect, which JAX keeps in the program even when the
    # construct's results are dropped: a trace of it that did not carry every storage would
    # run as well (a while_loop whose counter is not carried never ends). There the traces
    # that find the storages are made apart, in a jaxpr thrown away.
    probe = t.checks.checkify
    made = _ranges.mark()  # (the checks a trace abandoned made are not known to hold)
    while True:
        if probe and _APART.get() is not t:  # (one traced apart already: nothing of it runs)
            found = carry.grow(_met_apart(build, carry))
            _ranges.rewind(made)
            carry.again = False
            if found:
                continue
        (outs, res, codes), met = build(carry)
        new = carry.grow(met)
        grew = (bool(new) or carry.again) and not carry.hand_up(new)
        carry.again = False
        if loop and carry.made_checks and not carry.gate:
            carry.gate = grew = True
        grew, carry.retrace = grew or carry.retrace, False
        if not grew or _discarded(t):
            carry.finish(outs, codes)
            return res
        # (drop the checks the abandoned trace numbered)
        del t.items[carry.n_checks[0]:], t.msgs[carry.n_checks[1]:]
        _ranges.rewind(made)
        if carry.enclosing is not None:  # (checks the abandoned trace made around the loop)
            carry.enclosing.rewind(carry.saved)
        carry.made_checks = False


def _discarded(t: jtr.Trace) -> bool:
    """Whether the trace ``t`` of a top-level call will be thrown away whatever its loops
    carry (it met closed-over storages, which the call's next trace takes as inputs, so
    every loop carries them from the start): its loops are not traced again."""
    return bool(t.discovered) and t.parent is None and t.checks.folded and isinstance(
        t.outer, _EvalTrace)


def _met_apart(build: Callable[[_Carry], tuple[Any, list]], carry: _Carry) -> list:
    """The storages a trace of the construct meets, traced into a jaxpr thrown away."""
    found: list = []
    tok = _APART.set(carry.t)
    try:
        jax.make_jaxpr(lambda: found.extend(build(carry)[1]))()
    finally:
        _APART.reset(tok)
    return found


def _to_arrays(tree: Any) -> tuple[list, Any, list[bool]]:
    """A carry's leaves as arrays, and whether each is a Tensor. A Python number passed
    to the eager loop (a ``WeakTensor`` in its program) is the weakly typed number, as
    when the loop is traced inside ``jaxtensor.jit``: ``c + x8[i]`` from ``0`` stays
    ``int8``, as JAX's and NumPy's loops do."""
    leaves, treedef = jax.tree_util.tree_flatten(tree, is_leaf=lambda v: isinstance(v, Tensor))
    leaves = [v.number() if type(v) is WeakTensor else v for v in leaves]
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
    return as_weak(new_tensor(weak_cast(i, jtr._IDX)))


def _wide(b: Any) -> Any:
    """A bound of ``fori_loop`` in the index dtype (a NumPy ``int8`` bound must not make
    the index wrap); a Python int stays one (concrete bounds stay concrete)."""
    return b if type(b) is int else lax.convert_element_type(b, jtr._IDX)


# -- inside a jaxtensor.jit trace -------------------------------------------------------------
def _fori_traced(t: jtr.Trace, lower: Any, upper: Any, body: Callable, init: Any,
                 hint: tuple | None = None) -> Any:
    """``hint``: the ``_ranges.Range`` of an eager loop's index and the span of it the
    program may assume (its bounds are traced: ``_loops._Program``)."""
    has_init = init is not _NO
    c_arrays, c_tree, c_is_t = _to_arrays(init if has_init else None)

    def build(carry: _Carry) -> tuple:
        met: list = []
        lo, hi = _wide(lower), _wide(upper)

        def step(i: Any, state: tuple) -> tuple:
            vals, user, codes = state

            def call() -> Any:
                with loop_index(i, lo, hi, hint):
                    if not has_init:
                        body(_index(i))
                        return user
                    out = body(_index(i), _from_arrays(list(user), c_tree, c_is_t))
                return _carry_arrays("fori_loop", out, c_tree, c_arrays)

            new, res, m, codes = carry.run(list(vals), call, codes)
            met.extend(m)
            return new, res, codes

        outs, res, codes = lax.fori_loop(lo, hi, step,
                                         (carry.initial(), c_arrays, carry.codes()))
        return (outs, _from_arrays(list(res), c_tree, c_is_t) if has_init else None,
                codes), met

    return _carried(t, build, (body,))


def _carry_arrays(fname: str, out: Any, c_tree: Any, c_arrays: list) -> list:
    """The arrays of the carry ``out`` a body returned, which must have ``init_val``'s
    structure ``c_tree`` and the shapes and dtypes of its arrays ``c_arrays`` (a weakly
    typed value may differ in dtype: JAX's loop promotes it)."""
    arrays, tree, _ = _to_arrays(out)
    if tree != c_tree:
        raise TypeError(f"{fname}(): body_fun must return a carry of the structure of "
                        f"init_val ({c_tree}); it returned {tree}")
    for k, (a, b) in enumerate(zip(c_arrays, arrays)):
        a = np.asarray(a) if type(a) is bool else a  # (a bool is not weakly typed)
        if not (hasattr(a, "shape") and hasattr(b, "shape")):
            continue
        weak = _weak(a) or _weak(b)
        if a.shape != b.shape or (a.dtype != b.dtype and not weak):
            where = "" if len(arrays) == 1 else f" (its leaf {k})"
            raise TypeError(
                f"{fname}(): body_fun must return a carry of init_val's shapes and dtypes: "
                f"init_val{where} is {_aval(a)}, body_fun returned {_aval(b)}")
    return arrays


def _weak(a: Any) -> bool:
    return bool(getattr(getattr(a, "aval", a), "weak_type", False))


def _aval(a: Any) -> str:
    return f"{jnp.dtype(a.dtype).name}{list(a.shape)}"


def _while_traced(t: jtr.Trace, cond_fun: Callable, body_fun: Callable, init: Any) -> Any:
    """The loop as ``p = cond_fun(); while p: body_fun(); p = cond_fun()``, ``p`` carried: the
    condition before the first iteration is evaluated at the level of the loop, every later
    one at the end of the iteration before it, so its checks (``a[j] > key``) are carried
    as the body's, and its reads of what the body wrote are the body's reads."""
    has_init = init is not _NO
    c_arrays, c_tree, c_is_t = _to_arrays(init if has_init else None)

    def predicate(user: Any) -> Any:
        before = dict(t.values)
        args = (_from_arrays(list(user), c_tree, c_is_t),) if has_init else ()
        p = _predicate(cond_fun(*args), "while_loop(): cond_fun")
        if any(t.values[st] is not v for st, v in before.items()):
            raise ValueError("while_loop(): cond_fun must not write Tensors (write them in "
                             "body_fun)")
        return p

    guesses: list = []  # (the carries' ranges a trace found did not hold: assume these)

    def build(carry: _Carry) -> tuple:
        met: list = []
        first = predicate(c_arrays)
        if carry.checked:  # (the writes of the loop are gated by the checks of cond_fun too)
            carry.base = t.gate()
        ranges = WhileRanges(c_arrays, first, guesses[-1] if guesses else None)
        body: list = []  # (the body's carries in and out, and cond_fun of those out)

        # a failed check stops the loop (its writes are gated: it would never end), one
        # made before the loop (``carry.base``, and the first failure carried in) or one of
        # an earlier iteration (folded into the predicate the body carries, so a body that
        # makes none carries its codes unread, and XLA drops them)
        codes = carry.codes()
        p = first
        if carry.checked:
            p = lax.bitwise_and(p, clean(codes))
            if carry.base is not None:
                p = lax.bitwise_and(p, carry.base)

        def test(state: tuple) -> Any:
            p = state[3]
            if not carry.checked and t.checks.checkify and jtr.GATED:
                p = p & jtr.no_error_p.bind()
            return p

        def step(state: tuple) -> tuple:
            vals, user, codes, _ = state

            def call() -> Any:
                with ranges.assume(list(user)), _ranges.scope():
                    if not has_init:
                        body_fun()
                        out = user
                    else:
                        out = _carry_arrays("while_loop", body_fun(
                            _from_arrays(list(user), c_tree, c_is_t)), c_tree, c_arrays)
                    return out, predicate(out)

            new, (res, p), m, codes = carry.run(list(vals), call, codes)
            body[:] = list(user), list(res), p
            met.extend(m)
            if carry.checked and carry.made_checks:
                p = lax.bitwise_and(p, clean(codes))
            return new, res, codes, p

        outs, res, codes, _ = lax.while_loop(
            test, step, (carry.initial(), c_arrays, codes, p))
        again = ranges.end(*body, list(res)) if body else None
        if again is not None:
            guesses.append(again)
            carry.retrace = True
        return (outs, _from_arrays(list(res), c_tree, c_is_t) if has_init else None,
                codes), met

    return _carried(t, build, (cond_fun, body_fun))


def _cond_traced(t: jtr.Trace, pred: Any, true_fun: Callable, false_fun: Callable,
                 operands: tuple) -> Any:
    if not t.checks.inline_cond:
        # (writes there are not gated by Trace.loop: the branches stay a conditional's)
        return _cond_lax(t, pred, true_fun, false_fun, operands)
    shapes: list = []

    def build(carry: _Carry) -> tuple:
        base = t.gate()
        vals, codes = carry.initial(), carry.codes()
        traced = []
        met: list = []
        for fn, taken in ((true_fun, True), (false_fun, False)):
            def call(fn: Callable = fn, taken: bool = taken) -> list:
                running = _RUNNING.set(carry)
                try:
                    with in_branch(pred, taken):
                        out = fn(*operands)
                finally:
                    _RUNNING.reset(running)
                return _results(out, shapes, None)

            closed, m, n_res, n_vals = _branches.trace(carry, call, base, vals, codes)
            traced.append((closed, n_res))
            met.extend(m)
        (true_j, n_t), (false_j, n_f) = traced
        tree, is_t, numbers = _joined(shapes)
        into = _into(shapes)
        if _branches.inline_ok([true_j, false_j], n_vals):
            outs, res, codes = _branches.inline((true_j, false_j), pred, vals, codes,
                                                (n_t, n_f), into)
        else:
            def branch(closed: Any, n: int) -> Callable:
                return lambda state: _branches.call(closed, jnp.bool_(True), *state, n, into)

            outs, res, codes = lax.cond(pred, branch(true_j, n_t), branch(false_j, n_f),
                                        (vals, codes))
        return (outs, _cond_result(res, tree, is_t, numbers), codes), met

    return _carried(t, build, (true_fun, false_fun), loop=False)


def _cond_lax(t: jtr.Trace, pred: Any, true_fun: Callable, false_fun: Callable,
              operands: tuple) -> Any:
    shapes: list = []
    into: list = []

    def build(carry: _Carry) -> tuple:
        met: list = []

        def branch(fn: Callable, taken: bool) -> Callable:
            def run(vals: list) -> tuple:
                def call() -> Any:
                    with in_branch(pred, taken):
                        out = fn(*operands)
                    return _results(out, shapes, into)

                new, res, m, codes = carry.run(list(vals), call, carry.codes())
                met.extend(m)
                return new, res, codes

            return run

        try:
            outs, res, codes = lax.cond(pred, branch(true_fun, True),
                                        branch(false_fun, False), carry.initial())
        except TypeError:
            if len(shapes) < 2 or into:
                raise
            _joined(shapes)
            # (a Python number in one branch, a Tensor in the other: both traced again,
            # their results in the dtype both take)
            into[:] = _into(shapes)
            if not any(into):
                raise
            outs, res, codes = lax.cond(pred, branch(true_fun, True),
                                        branch(false_fun, False), carry.initial())
        tree, is_t, numbers = _joined(shapes)
        return (outs, _cond_result(res, tree, is_t, numbers), codes), met

    return _carried(t, build, (true_fun, false_fun), loop=False)


def _results(out: Any, shapes: list, into: list | None) -> list:
    """The arrays of a ``cond`` branch's result ``out`` (each in the dtype of ``into``, where
    given), its description appended to ``shapes``: (structure, which leaves are Tensors,
    each leaf's shape and dtype, weakly typed where it is a Python number (a bool too),
    which leaves are Python numbers)."""
    leaves, tree, is_t = _to_arrays(out)
    numbers = [type(a) in _NUMBER_TYPES or (not k and _weak(a)) for a, k in zip(leaves, is_t)]
    arrays = [jnp.asarray(a) for a in leaves]
    shapes.append((tree, is_t, [jax.ShapeDtypeStruct(a.shape, a.dtype, weak_type=n or _weak(a))
                                for a, n in zip(arrays, numbers)], numbers,
                   [a if type(a) is int else None for a in leaves]))
    return [a if d is None or a.dtype == d else lax.convert_element_type(a, d)
            for a, d in zip(arrays, into or [None] * len(arrays))]


_NUMBER_TYPES = (bool, int, float, complex)


def _joined(shapes: list) -> tuple[Any, list[bool], list[bool]]:
    """The structure of a ``cond``'s result, from its two branches' descriptions
    (:func:`_results`), which of its leaves are Tensors (where either branch's is: the
    other's a Python number of the branch's value) and which Python numbers (where both
    are)."""
    (tree_a, is_a, _, num_a, _), (tree_b, is_b, _, num_b, _) = shapes[-2], shapes[-1]
    if tree_a != tree_b:
        raise TypeError("cond(): true_fun and false_fun must return the same structure "
                        f"(got {tree_a} and {tree_b})")
    return (tree_b, [a or b for a, b in zip(is_a, is_b)],
            [a and b for a, b in zip(num_a, num_b)])


def _into(shapes: list) -> list:
    """The dtype each result of a ``cond``'s two branches (:func:`_results`) takes
    (``_branches.check_results``); a Python int of a branch the dtype cannot hold raises
    ``OverflowError`` as ``where(c, x8, 300)`` does."""
    into = _branches.check_results(shapes[-2][2], shapes[-1][2])
    for k, d in enumerate(into):
        if d is None or np.dtype(d).kind not in "iu":
            continue
        for desc in shapes[-2:]:
            n = desc[4][k]
            if n is not None and not np.iinfo(d).min <= n <= np.iinfo(d).max:
                raise OverflowError(f"cond(): Python integer {n} out of bounds for "
                                    f"{np.dtype(d)}, the dtype of the other branch's result")
    return into


def _cond_result(res: list, tree: Any, is_t: list[bool], numbers: list[bool]) -> Any:
    """A ``cond``'s result: Tensors where a branch returned one; a traced Python number
    (a ``WeakTensor``, a bool a Tensor) where both returned numbers, as ``jaxtensor.jit``
    takes a number passed to it; JAX's arrays as they are."""
    leaves = []
    for a, k, n in zip(res, is_t, numbers):
        if k or (n and a.dtype == np.bool_):
            leaves.append(Tensor._wrap(a))
        elif n:
            leaves.append(as_weak(new_tensor(weak_cast(a, a.dtype))))
        else:
            leaves.append(a)
    return jax.tree_util.tree_unflatten(tree, leaves)


def _predicate(p: Any, who: str) -> Any:
    if isinstance(p, Tensor):
        p = p._value()
    p = jnp.asarray(p)
    if p.shape != () or p.dtype.kind not in "biufc":
        raise TypeError(f"{who} must return a 0-D boolean or number, got shape {p.shape} and "
                        f"dtype {p.dtype}")
    # (a number is true where it is not zero, as Python's `if` and `while` take it)
    return p if p.dtype == np.bool_ else p != 0
