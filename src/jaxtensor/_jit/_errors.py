"""What a user of ``jaxtensor.jit`` sees when something goes wrong or costs too much: tracebacks
without jaxtensor's frames, the user's names for the arguments (in JAX's errors and in ours),
:class:`IndexOverflowError` for integers JAX's 32-bit mode would wrap, and the warnings
:class:`RecompileWarning` and :class:`UnrolledLoopWarning`."""

from __future__ import annotations

import functools
import inspect
import os
import types
import warnings
from collections.abc import Callable, Hashable
from typing import Any

import jax
import numpy as np

from .._core import Tensor, _config

#: jax.jit options that name argument positions or outputs: they would not mean what the user
#: expects, since the compiled function takes storages, not the user's arguments.
REJECTED = {
    "donate_argnums": "jaxtensor.jit donates the buffers of argument storages by itself when "
    "nobody else holds them; pass donate=False to turn that off",
    "donate_argnames": "jaxtensor.jit donates the buffers of argument storages by itself when "
    "nobody else holds them; pass donate=False to turn that off",
}

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def without_own_frames(e: BaseException) -> BaseException:
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


def source_info(fn: Callable) -> str:
    """``name at file:line`` of the user's function, as JAX names a function it traces."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    fn = inspect.unwrap(fn)
    name = getattr(fn, "__name__", type(fn).__name__)
    code = getattr(fn, "__code__", None)
    return name if code is None else f"{name} at {code.co_filename}:{code.co_firstlineno}"


def leaf_names(fn: Callable, treedef: Any, static: tuple, n: int) -> list[str]:
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


def _is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


_NARROW_RANGE = {"i": (-2**31, 2**31 - 1), "u": (0, 2**32 - 1)}


def check_narrow(args: tuple, kwargs: dict) -> None:
    """With 64-bit mode off JAX converts 64-bit integer arguments to 32 bits, wrapping
    values that do not fit (and refuses such Python ints with its own ``OverflowError``):
    raise :class:`IndexOverflowError` naming the value before any cast can wrap it, so an
    index is seen out of bounds, as eagerly."""
    for x in jax.tree_util.tree_leaves((args, kwargs), is_leaf=_is_tensor):
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



def warn_unrolled(fn: Callable, n_writes: int) -> None:
    """Warn that one trace of ``fn`` held ``n_writes`` writes, as many as a Python loop
    unrolled into the program makes: its compile time grows with the trip count."""
    name = getattr(fn, "__qualname__", repr(fn))
    code = getattr(fn, "__code__", None)
    warnings.warn_explicit(
        f"jaxtensor.jit: tracing {name} made {n_writes} writes, as a Python loop "
        "unrolled into the program does (its compile time grows with the trip count); "
        "write the loop with jaxtensor.fori_loop (or while_loop) to compile it once. "
        "Silence this with warnings.filterwarnings('ignore', "
        "category=jaxtensor.UnrolledLoopWarning).",
        UnrolledLoopWarning,
        # (where the user's function is: the frames between are JAX's and ours)
        code.co_filename if code else "jaxtensor", code.co_firstlineno if code else 0)


class Recompiles:
    """The distinct programs traced for one function (its call specs and input types), to
    warn once (:class:`RecompileWarning`) at the ``RECOMPILE_LIMIT``-th, naming what
    changed."""

    __slots__ = ("traced", "last")

    def __init__(self) -> None:
        self.traced: dict[Hashable, None] = {}
        self.last: Any = None

    def note(self, fn: Callable, spec: Any, inputs: tuple,
             explain: Callable[[tuple, tuple], str], named: Hashable = None) -> None:
        """Count the program of ``spec`` traced with ``inputs`` and the values ``named``
        (``explain(old, new)``: what differs between two ``(spec, input types, named)``, in
        the user's words)."""
        sig = (spec._replace(check=None), tuple([getattr(x, "aval", None) for x in inputs]),
               named)
        last, self.last = self.last, sig
        if sig in self.traced:
            return
        self.traced[sig] = None
        if len(self.traced) != _config.RECOMPILE_LIMIT or last is None:
            return
        name = getattr(fn, "_jaxtensor_name", None) or (
            "jaxtensor.jit(" + getattr(fn, "__qualname__", repr(fn)) + ")")
        where = getattr(fn, "_jaxtensor_code", None) or getattr(fn, "__code__", None)
        warnings.warn_explicit(
            f"{name} compiled {_config.RECOMPILE_LIMIT} programs for the same code: "
            f"{explain(last, sig)}. Each new value of what the traced "
            "program depends on (a static argument, a shape or dtype, a Python value the "
            "code reads) compiles a new program: pass values that change as arguments (Tensors) "
            "instead. Silence this with warnings.filterwarnings('ignore', "
            "category=jaxtensor.RecompileWarning).",
            RecompileWarning,
            where.co_filename if where else "jaxtensor", where.co_firstlineno if where else 0)

