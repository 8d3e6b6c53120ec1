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
made by the trace before the loop) makes the loop be traced again with it carried (a loop
nested in another body hands it up to that body instead: ``_loop_trace._Carry.hand_up``). After
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
import numpy as np

from .._core import Tensor, _cache, _config, starts_array
from .._core import current as _current
from .._core._jax_private import EvalTrace as _EvalTrace
from .._core._jax_private import trace_state as _trace_state
from . import _elements, _errors, _jit, _probes, _ranges, _reads
from . import _trace as jtr
from ._loop_trace import _NO, _cond_traced, _fori_traced, _predicate, _while_traced

__all__ = ["cond", "fori_loop", "while_loop"]

Tracer = jax.core.Tracer
_jitted = _cache.cache("compiled loops", 512)


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
        r = _reads.Reader(labels=True, numbers=_numbers(fns))
        r.bodies(fns, [])
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
#: the codes of bodies whose trace needs the concrete value of a Python number they read:
#: their numbers are atoms of the key (constants of the program), not arguments
_constant_numbers = _cache.cache("loops with constant numbers", 512)
#: what a trace raises where a body needs a concrete value of a traced number
_CONCRETE = (jax.errors.ConcretizationTypeError, jax.errors.TracerIntegerConversionError,
             jax.errors.TracerArrayConversionError, TypeError, AttributeError)


def _numbers(fns: tuple) -> bool:
    """Whether the Python floats and complex numbers the bodies read are arguments."""
    return tuple(map(_code_key, fns)) not in _constant_numbers


def _read(fns: tuple) -> tuple[_Key, list, tuple]:
    """(the key, the arguments of the bodies followed by the Tensors reached deeper, where
    each body's arguments go) of a call's bodies."""
    r = _reads.Reader(numbers=_numbers(fns))
    args: list = []
    wheres = r.bodies(fns, args)
    return _Key(tuple(r.atoms)), args + r.tensors, wheres


def _code_key(f: Any) -> Any:
    return f.__code__ if type(f) is types.FunctionType else type(f)


def _compiled(kind: str, fns: tuple, bounds: tuple, init: Any) -> Any:
    """Run a loop inside the cached ``jaxtensor.jit`` function of its bodies' code and what
    they read (:func:`_read`). Its arguments are plain (Tensors, arrays, the bounds), so a
    repeat call takes ``jaxtensor.jit``'s guarded fast path. At the top level, a call whose
    bodies pass the probes of the last call of their code (``_probes.py``: they read the same
    flat values) skips the walk."""
    eager = type(_trace_state.value) is _EvalTrace
    prog = lent = None
    given = bounds
    if eager:
        f = fns[-1]
        last = _last.get(f.__code__) if type(f) is types.FunctionType else None
        if last is not None and last[0] == (kind, init is _NO):
            args = _probes.match(last[1], fns)
            if args is not None:
                args, same = _distinct(args)
                if same == last[4]:
                    lent = _lend(fns, args)
                    if (() if lent is None else lent[1]) == last[5]:
                        prog, wheres = last[2], last[3]
    if prog is None:
        prog, args, wheres, fixed, lent = _lookup(kind, fns, bounds, init, eager)
        bounds = tuple(b for b, f in zip(bounds, fixed) if f is None)
    reads = None
    if lent is not None:
        args, reads = lent[0], lent[2]
    jitted, assumed = prog.plain, None
    if eager and bounds and type(bounds[0]) is int and type(bounds[1]) is int:
        if prog.ranged is not None:  # (an eager fori_loop: _Program)
            lo, hi = bounds
            r = prog.range
            if r is None:
                r = prog.range = _ranges.Range(lo, max(lo, hi - 1))
            span = r.span  # (one read: another thread may set it)
            if lo >= hi or (span[0] <= lo and hi - 1 <= span[1]):
                jitted, assumed = prog.ranged, (r, span)
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
    if lent is not None:
        ins += lent[3]
    tok = _BODIES.set((fns, wheres, assumed, reads))
    try:
        out = jitted(*ins)
    except _CONCRETE:
        if not _constants_instead(fns):
            raise
        out = _NO  # (the failed call changed no Tensor: made again below, with constants)
    except _elements.Written:  # (as the last: made again, its elements computed)
        _elements.written_by[tuple(map(_code_key, fns))] = True
        return _compiled(kind, fns, given, init)
    finally:
        _BODIES.reset(tok)
    if out is _NO:
        try:
            return _compiled(kind, fns, given, init)
        except BaseException:  # (not for want of the numbers' values)
            _constant_numbers.pop(tuple(map(_code_key, fns)), None)
            raise
    return None if init is _NO else out


class _Program:
    """The compiled loop of one key: ``jaxtensor.jit`` functions of the bodies.

    An eager ``fori_loop``'s bounds are arguments (a new trip count compiles nothing), so
    its trace knows nothing of where the index lies: ``ranged`` assumes the index stays in
    ``range`` (``_ranges.Range``: the first call's range, widened by the first trace to
    where its proofs hold), and does not make the checks that cannot fail there
    (``_ranges.py``); a call whose index leaves it runs ``plain``, which assumes nothing.
    ``ranged`` is None for other loops."""

    __slots__ = ("plain", "ranged", "range")

    def __init__(self, kind: str, fns: tuple, fixed: tuple, same: tuple, no_init: bool,
                 elements: tuple) -> None:
        self.plain = _make(kind, fns, fixed, same, no_init, False, elements)
        ranged = kind == "fori" and fixed == (None, None)
        self.ranged = (_make(kind, fns, fixed, same, no_init, True, elements) if ranged
                       else None)
        self.range: _ranges.Range | None = None


def _constants_instead(fns: tuple) -> bool:
    """After a call failed: whether its bodies read Python numbers as arguments, which they
    will read as constants from now on (a body that needs a number's concrete value, for a
    Python ``if``, ``int()``, a shape, ``math``, traces only with the constant)."""
    if not _numbers(fns):
        return False
    r = _reads.Reader(numbers=True)
    r.bodies(fns, [])
    if "number" not in r.atoms:
        return False
    _constant_numbers[tuple(map(_code_key, fns))] = True
    f = fns[-1]
    if type(f) is types.FunctionType:
        _last.pop(f.__code__, None)
    return True


def _lookup(kind: str, fns: tuple, bounds: tuple, init: Any, eager: bool
            ) -> tuple[_Program, list, tuple, tuple, tuple | None]:
    """The walk (:func:`_read`) of a call's bodies: (the cached ``jaxtensor.jit`` function of
    its key, made if new; the loop's arguments; where each body's go; which bounds are
    fixed; the element reads lent as their sources, :func:`_lend`). At the top level, the
    probes of the bodies are kept for the next call."""
    key, args, wheres = _read(fns)
    args, same = _distinct(args)
    lent = None
    if eager:
        fixed: tuple = (None,) * len(bounds)
        lent = _lend(fns, args)
    else:
        # inside a JAX transformation: concrete bounds stay concrete (reverse-mode
        # differentiation needs a loop of known length), as part of the key
        fixed = tuple(b if type(b) is int else None for b in bounds)
    elements = () if lent is None else lent[1]
    cache_key = (kind, key, fixed, init is _NO, same, elements)
    prog = _jitted.get(cache_key)
    if prog is None:
        prog = _jitted[cache_key] = _Program(kind, fns, fixed, same, init is _NO, elements)
        _count_key(kind, fns, key)
    if eager:
        probes = _probes.record(fns, _numbers(fns))
        if probes is not None:
            _last[fns[-1].__code__] = ((kind, init is _NO), probes, prog, wheres, same,
                                       elements)
    return prog, args, wheres, fixed, lent


def _lend(fns: tuple, args: list) -> tuple | None:
    """The element reads among a top-level call's arguments, lent as the arrays they read
    (``_elements.split``), unless a body of this code was found writing one."""
    lent = _elements.split(args)
    if lent is not None and tuple(map(_code_key, fns)) in _elements.written_by:
        return None
    return lent


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


def _make(kind: str, fns: tuple, fixed: tuple, same: tuple, no_init: bool,
          ranged: bool, elements: tuple) -> Callable:
    """The ``jaxtensor.jit`` function of one key: it traces the bodies of the call being
    made, over its arguments (``same``: which of the distinct arguments each body's is;
    ``ranged``: whether it assumes the call's ``_ranges.Range`` of a ``fori_loop``'s index,
    :class:`_Program`; ``elements``: the element reads lent as their sources, the offsets
    of all of them the last argument, ``_elements.py``)."""
    n_args = len(set(same))

    def program(*ins: Any) -> Any:
        fns, wheres, assumed, reads = _BODIES.get()
        made_elements = None
        t = _current.get()
        if elements:
            ins = list(ins)  # type: ignore[assignment]
            made_elements = _elements.read_in(t, ins, elements, reads)  # type: ignore
        it = iter([ins[j] for j in same])
        made = [f if w is None else _reads.rebuild(f, w, it) for f, w in zip(fns, wheres)]
        rest = iter(ins[n_args:])
        if fixed == (None, None) and np.ndim(ins[n_args]) == 1:  # (both bounds, packed)
            pair = next(rest)
            bs = [pair[0], pair[1]]
        else:
            bs = [next(rest) if f is None else f for f in fixed]
        init = _NO if no_init else next(rest)
        if kind == "fori":
            out = _fori_traced(t, bs[0], bs[1], made[0], init, assumed if ranged else None)
        else:
            out = _while_traced(t, made[0], made[1], init)
        if made_elements:
            _elements.check_unwritten(t, made_elements)
        return out

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
    if seen[0] < _config.RECOMPILE_LIMIT or seen[2]:
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
        _errors.RecompileWarning,
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
    if not hasattr(b, "__index__"):
        raise TypeError(f"fori_loop(): {who} must be an integer, got {type(b).__name__}")
    return int(b)  # (a bool too, as range() takes it)


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
    as ``if`` would, and its result is returned as it is. With a traced one (inside ``jaxtensor.jit``, a loop body) both
    branches are traced into one ``lax.cond`` and the writes of the branch taken are
    kept. Operands are passed as they are (a Tensor operand is the caller's Tensor, not a
    copy); both branches must return the same structure (with a traced ``pred``, a
    Python number where the other returns a Tensor takes the dtype of both, as
    ``where(c, x, 0.0)``; Tensors come back as new Tensors). See ``docs/loops.md``.

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
    t = _current.get()
    if not isinstance(t, jtr.Trace):
        # (under grad, vmap or jax.jit but outside jaxtensor.jit: the cond in a jaxtensor.jit
        # function of its own, whose trace carries the branches' writes, as the loops do)
        return _jit.jit(lambda: cond(pred, true_fun, false_fun, *operands))()
    p = _predicate(p, "cond(): pred")
    return _cond_traced(t, p, true_fun, false_fun, operands)
