"""Transforms over Tensors: ``grad``/``value_and_grad``/``vjp``/``jvp``/``vmap`` (and
``jit``, from ``_jit.py``).

A :class:`~jaxtensor.Tensor` is a registered pytree whose leaf is its value, so plain
``jax.jit``, ``jax.grad``, ``jax.vmap``, ``lax.scan``/``fori_loop`` carries and
``jax.tree_util`` accept Tensors; inside such a function the Tensors are fresh copies and
mutating them changes nothing outside (JAX's functional contract). The wrappers here take
and return Tensors; :func:`jaxtensor.jit` goes further and gives compiled code the in-place
semantics of eager code.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import checkify

from .._core import Tensor, current_trace
from .._core import current as _current
from ._batched_loops import MAPPING, checked_or_mapped, is_batched_loop_error
from ._check_errors import checkify_error
from ._jit import jit
from ._modes import CheckMode, behaviour, choose
from ._trace import CheckedTrace, EvalTrace, Trace

__all__ = ["jit", "grad", "value_and_grad", "vjp", "jvp", "vmap"]

Tracer = jax.core.Tracer


def _is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


# -- differentiation and vectorisation --------------------------------------------------
def _unwrap(tree: Any) -> Any:
    """Tensors in ``tree`` replaced by their values (JAX arrays)."""
    return jax.tree_util.tree_map(
        lambda x: x._value() if isinstance(x, Tensor) else x, tree, is_leaf=_is_tensor)


def _wrap(tree: Any) -> Any:
    """JAX arrays in ``tree`` wrapped as Tensors (Tensors stay as they are)."""
    return jax.tree_util.tree_map(
        lambda x: Tensor._wrap(x) if isinstance(x, (jax.Array, Tracer)) else x,
        tree, is_leaf=_is_tensor)


def _name(fun: Callable) -> str:
    return getattr(fun, "__qualname__", None) or type(fun).__name__


def _top_level() -> bool:
    """Whether a transform is called outside every trace (no ``jaxtensor.jit`` around it,
    no JAX transformation): there its bounds checks are its own."""
    return _current.get() is None and isinstance(current_trace(), EvalTrace)


def _checking() -> Any:
    """How the bounds checks of a transform's function are made: the behaviour of its
    ``_modes.CheckMode``. The transform checks under checkify (``.checkify``) in CHECKIFY
    mode (a top-level call: they raise after the transform) and INHERITED_CHECKIFY (inside
    a trace checking under checkify, ``jaxtensor.jit``'s or a top-level transform's: the
    transform reports them to that checkify); not with no checks, nor in INHERITED mode
    (the enclosing ``jaxtensor.jit`` checks in its own mode: a check it cannot carry out
    makes it trace the function again under checkify)."""
    return behaviour(choose(True, not _top_level(), _current.get(), False))



# JAX's words when a reverse-mode transform meets a while loop (its message since 0.4)
_NO_REVERSE = "Reverse-mode differentiation does not work for lax.while_loop"


class _ReverseThroughLoops:
    """Turns JAX's error for reverse mode through a while loop into one that names the
    user's function and jaxtensor's loops, and says what works instead."""

    __slots__ = ("what",)

    def __init__(self, what: str) -> None:
        self.what = what

    def __enter__(self) -> None:
        return None

    def __exit__(self, tp: Any, e: Any, tb: Any) -> None:
        if tp is ValueError and _NO_REVERSE in str(e):
            raise ValueError(
                f"{self.what}: reverse-mode differentiation cannot go through "
                "jaxtensor.while_loop, nor through jaxtensor.fori_loop whose bounds are traced "
                "values (JAX's while loop has no reverse rule). Give fori_loop Python int "
                "bounds (a static argument of jaxtensor.jit), or use forward mode "
                "(jaxtensor.jvp)") from None


def _with_error(f: Callable, has_aux: bool) -> Callable:
    """``f`` (returning ``out`` or ``(out, aux)``) run under ``jax.experimental.checkify``,
    returning ``(out, (aux, error, written))``: the transform around it (``grad``/``vjp``/
    ``jvp``) carries the error state and the values written into closed-over Tensors
    (``CheckedTrace.written``) out as auxiliary data. (Checkify around the transform
    instead loses a check made in a loop body under reverse-mode differentiation.)"""

    def run(*args: Any, **kwargs: Any) -> Any:
        out = f(*args, **kwargs)
        t = _current.get()
        written = t.written() if isinstance(t, CheckedTrace) else []
        sts[:] = [st for st, _ in written]
        return out, [v for _, v in written]

    sts: list = []
    checked = checkify.checkify(run, errors=checkify.user_checks)

    def g(*args: Any, **kwargs: Any) -> Any:
        err, (out, vals) = checked(*args, **kwargs)
        written = (tuple(sts), vals)
        if has_aux:
            return out[0], (out[1], err, written)
        return out, (None, err, written)

    return g


class _Checking:
    """The bounds checks of a transform's call: at top level (``how`` not inherited) a
    :class:`CheckedTrace` is installed while JAX traces the function, so a ``jaxtensor.jit``
    function or loop called inside checks in checkify mode (nested, the enclosing trace
    already does). ``finish`` installs the values written into closed-over Tensors, then
    reports a failed check: raises its eager error at top level, or hands it to the
    enclosing checkify."""

    def __init__(self, how: Any, closed: bool = True) -> None:
        self.how = how
        self.closed = closed
        self.tok: Any = None
        # inside a trace (``jaxtensor.jit``'s, a top-level transform's): its checks and the
        # writes into Tensors around are that trace's
        self.nested = how.inherited or _current.get() is not None
        self.checks = True  # (nested: whether the trace around makes checks)

    def __enter__(self) -> _Checking:
        if not self.nested:
            self.tok = _current.set(CheckedTrace(self.closed))
        elif self.closed:
            # nested in a trace that checks under checkify: a trace of its own keeps what
            # the function writes into Tensors of the traces around (its arguments' copies,
            # closed-over Tensors), as at the top level; ``finish`` hands the closed-over
            # ones to the trace around
            outer = _current.get()
            self.checks = self.how.checkify or (
                self.how.inherited and outer is not None and outer.makes_checks())
            self.tok = _current.set(CheckedTrace(True, outer, self.checks))
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.tok is not None:
            _current.reset(self.tok)

    def finish(self, err: Any, written: Any = ((), ())) -> None:
        for st, v in zip(*written):
            if self.nested:
                st.replace(v)  # (into the trace around: it writes it back after its call)
            else:
                st.install(v)
        if self.nested:
            if self.how.checkify:
                checkify.check_error(err)
            elif self.how.inherited and self.checks and jax.tree_util.tree_leaves(err):
                # (a jaxtensor.jit trace checking in its own mode: the check made here
                # under checkify makes it trace the function again under checkify)
                t = _current.get()
                if isinstance(t, Trace):
                    t.missed = True
            return
        error = checkify_error(err)
        if error is not None:
            raise error


def _scalar_out(out: Any) -> Any:
    if isinstance(out, Tensor):
        return out._value()
    return out


def value_and_grad(
    fun: Callable,
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
) -> Callable:
    """``jax.value_and_grad`` for functions of Tensors returning a 0-D Tensor.

    The value and the gradients come back as Tensors (a gradient has the structure of its
    argument). Mutations of the arguments inside ``fun`` stay inside (JAX's contract); the
    gradient flows through them, through views, ``__setitem__`` and in-place operators.

    >>> import jaxtensor as jt
    >>> def f(x):
    ...     y = x * 1          # a copy
    ...     y[0] = 0.          # the overwritten element gets no gradient
    ...     return (y * y).sum()
    >>> v, g = jt.value_and_grad(f)(jt.asarray([1., 2., 3.]))
    >>> float(v), g.tolist()
    (13.0, [0.0, 4.0, 6.0])
    """

    def f(*args: Any, **kwargs: Any) -> Any:
        out = fun(*args, **kwargs)
        if has_aux:
            if not (isinstance(out, (tuple, list)) and len(out) == 2):
                raise TypeError("with has_aux=True the function must return (value, aux)")
            return _scalar_out(out[0]), _unwrap(out[1])
        return _scalar_out(out)

    g = jax.value_and_grad(f, argnums, has_aux=has_aux, holomorphic=holomorphic,
                           allow_int=allow_int)
    gc = jax.value_and_grad(_with_error(f, has_aux), argnums, has_aux=True,
                            holomorphic=holomorphic, allow_int=allow_int)

    @functools.wraps(fun)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        how = _checking()
        if not how.checkify and _current.get() is None:  # (under plain JAX transforms)
            with _ReverseThroughLoops(f"jaxtensor.grad({_name(fun)})"):
                (val_aux, grads) = g(*args, **kwargs)
            return _wrap(val_aux), _wrap(grads)
        def checked() -> Any:
            with _Checking(how) as c, _ReverseThroughLoops(f"jaxtensor.grad({_name(fun)})"):
                (val, (aux, err, written)), grads = gc(*args, **kwargs)
            return c, val, aux, err, written, grads

        c, val, aux, err, written, grads = checked_or_mapped(checked)
        c.finish(err, written)
        return _wrap((val, aux) if has_aux else val), _wrap(grads)

    return wrapped


def grad(
    fun: Callable,
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
) -> Callable:
    """``jax.grad`` for functions of Tensors returning a 0-D Tensor (or a JAX scalar).

    >>> import jaxtensor as jt
    >>> def f(x):
    ...     x[1:] *= 3.        # in place, on grad's copy of x
    ...     return x.sum()
    >>> jt.grad(f)(jt.ones(3)).tolist()
    [1.0, 3.0, 3.0]
    """
    vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int)

    @functools.wraps(fun)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        val_aux, grads = vg(*args, **kwargs)
        if has_aux:
            return grads, val_aux[1]
        return grads

    return wrapped


def vjp(fun: Callable, *primals: Any, has_aux: bool = False) -> Any:
    """``jax.vjp`` over Tensors: returns ``(out, vjp_fn)`` (plus ``aux``) with Tensor leaves.

    ``vjp_fn`` takes cotangents with the structure of ``out`` (Tensors or JAX arrays) and
    returns a tuple with one cotangent per primal.

    >>> import jaxtensor as jt
    >>> out, back = jt.vjp(lambda x: x[::2] * 2., jt.ones(4))
    >>> back(jt.ones(2))[0].tolist()
    [2.0, 0.0, 2.0, 0.0]
    """

    def f(*args: Any) -> Any:
        out = fun(*args)
        if has_aux:
            return _unwrap(out[0]), _unwrap(out[1])
        return _unwrap(out)

    how = _checking()
    if how.checkify or _current.get() is not None:
        def checked() -> Any:
            with _Checking(how) as c:
                return c, jax.vjp(_with_error(f, has_aux), *primals, has_aux=True)

        c, (out, back, (aux, err, written)) = checked_or_mapped(checked)
        c.finish(err, written)
        res = (out, back, aux)
    else:
        res = jax.vjp(f, *primals, has_aux=has_aux)
    out, back = res[0], res[1]

    def vjp_fn(ct: Any) -> Any:
        with _ReverseThroughLoops(f"jaxtensor.vjp({_name(fun)})"):
            return _wrap(back(_unwrap(ct)))

    if has_aux:
        return _wrap(out), vjp_fn, _wrap(res[2])
    return _wrap(out), vjp_fn


def jvp(fun: Callable, primals: Sequence[Any], tangents: Sequence[Any],
        has_aux: bool = False) -> Any:
    """``jax.jvp`` over Tensors: ``(primals_out, tangents_out)`` with Tensor leaves.

    A tangent may be a Tensor or a JAX/NumPy array where its primal is a Tensor.

    >>> import jaxtensor as jt
    >>> y, t = jt.jvp(lambda x: x * x, (jt.asarray([3.]),), (jt.asarray([1.]),))
    >>> y.tolist(), t.tolist()
    ([9.0], [6.0])
    """
    primals = tuple(primals)
    tangents = tuple(
        jax.tree_util.tree_map(
            lambda p, t: Tensor._wrap(jnp.asarray(t, p.dtype))
            if isinstance(p, Tensor) and not isinstance(t, Tensor) else t,
            primals, tuple(tangents), is_leaf=_is_tensor))

    def f(*args: Any) -> Any:
        out = fun(*args)
        if has_aux:
            return _unwrap(out[0]), _unwrap(out[1])
        return _unwrap(out)

    how = _checking()
    if how.checkify or _current.get() is not None:
        def checked() -> Any:
            with _Checking(how) as c:
                return c, jax.jvp(_with_error(f, has_aux), primals, tangents, has_aux=True)

        c, (out, t_out, (aux, err, written)) = checked_or_mapped(checked)
        c.finish(err, written)
        res = (out, t_out, aux) if has_aux else (out, t_out)
    else:
        res = jax.jvp(f, primals, tangents, has_aux=has_aux)
    return tuple(_wrap(r) for r in res)


def vmap(
    fun: Callable,
    in_axes: Any = 0,
    out_axes: Any = 0,
    axis_name: Hashable | None = None,
    axis_size: int | None = None,
    spmd_axis_name: Any = None,
) -> Callable:
    """``jax.vmap`` over Tensors: the batched function takes and returns Tensors.

    Inside ``fun`` the arguments are unbatched-looking Tensors: views, ``__setitem__`` and
    in-place operators work on them (on vmap's copies: the caller's Tensors do not change).
    Called eagerly, a batched index out of bounds raises ``IndexError`` as the eager code
    does (the batched function runs under ``jax.experimental.checkify``); inside
    ``jaxtensor.jit`` that function's bounds checks apply.

    >>> import jaxtensor as jt
    >>> def first_to_zero(row):
    ...     row[0] = 0.
    ...     return row
    >>> jt.vmap(first_to_zero)(jt.ones((2, 3))).tolist()
    [[0.0, 1.0, 1.0], [0.0, 1.0, 1.0]]
    """
    f = jax.vmap(fun, in_axes=in_axes, out_axes=out_axes, axis_name=axis_name,
                 axis_size=axis_size, spmd_axis_name=spmd_axis_name)

    checked = checkify.checkify(f, errors=checkify.user_checks)
    one_by_one = checkify.checkify(_members(fun, in_axes, out_axes), errors=checkify.user_checks)

    @functools.wraps(fun)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if not _top_level():
            if MAPPING.get() and axis_name is None and not kwargs:
                return _wrap(_members(fun, in_axes, out_axes)(*args))
            return _wrap(f(*args, **kwargs))
        with _Checking(behaviour(CheckMode.CHECKIFY), closed=False) as c:
            try:
                err, out = checked(*args, **kwargs)
                if err.get() is not None and axis_name is None and not kwargs and _mappable(
                        in_axes, out_axes, len(args)):
                    # (the batched function reports a failing member, not the first, and
                    # the checks of a branch a member does not take: the members one by one
                    # fail as eager code does)
                    err, out = one_by_one(*args)
            except ValueError as e:
                # checkify takes no batched while loop (one whose condition the batch
                # decides, a fori_loop's batched bound): the members one after another,
                # checked as eager code checks them (``lax.map``)
                if not is_batched_loop_error(e) or axis_name is not None or kwargs:
                    raise
                err, out = one_by_one(*args)
        c.finish(err)
        return _wrap(out)

    return wrapped


def _mappable(in_axes: Any, out_axes: Any, n: int) -> bool:
    """Whether :func:`_members` takes these axes (an int or None per argument, an int out)."""
    axes = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes,) * n
    return (len(axes) == n and all(a is None or type(a) is int for a in axes)
            and type(out_axes) is int)


def _members(fun: Callable, in_axes: Any, out_axes: Any) -> Callable:
    """``fun`` mapped over the batch with ``lax.map`` (a loop over the members) where
    ``vmap`` would batch it: for ``in_axes`` an int or None per positional argument, and
    an int ``out_axes``."""

    def run(*args: Any) -> Any:
        axes = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
        if not _mappable(in_axes, out_axes, len(args)):
            raise ValueError(
                "jaxtensor.vmap: a while_loop whose condition the batch decides (or a "
                "fori_loop with a batched bound) needs in_axes of an int or None per "
                "argument and an int out_axes")
        moved = [None if a is None else jax.tree_util.tree_map(
            lambda v, a=a: _leading(v, a), x, is_leaf=_is_tensor) for x, a in zip(args, axes)]

        def member(xs: list) -> Any:
            it = iter(xs)
            full = [x if a is None else next(it) for x, a in zip(args, axes)]
            return jax.tree_util.tree_map(_array, fun(*full), is_leaf=_is_tensor)

        out = lax.map(member, [m for m in moved if m is not None])
        return jax.tree_util.tree_map(lambda v: jnp.moveaxis(v, 0, out_axes), out)

    return run


def _is_tensor(v: Any) -> bool:
    return isinstance(v, Tensor)


def _array(v: Any) -> Any:
    return v._value() if isinstance(v, Tensor) else jnp.asarray(v)


def _leading(v: Any, axis: int) -> Any:
    """``v`` with its batch axis ``axis`` first (a Tensor stays one: ``lax.map`` passes each
    member as a Tensor, as ``vmap`` does)."""
    moved = jnp.moveaxis(_array(v), axis, 0)
    return Tensor._wrap(moved) if isinstance(v, Tensor) else moved
