"""Transforms over Tensors: ``jit`` with in-place semantics, and ``grad``/``vjp``/``jvp``/``vmap``.

A :class:`~jaxtensor.Tensor` is a registered pytree whose leaf is its value, so plain
``jax.jit``, ``jax.grad``, ``jax.vmap``, ``lax.scan``/``fori_loop`` carries and
``jax.tree_util`` accept Tensors; inside such a function the Tensors are fresh copies and
mutating them changes nothing outside (JAX's functional contract).

:func:`jit` goes further and gives compiled code the in-place semantics of eager code:

>>> import jaxtensor as jt
>>> @jt.jit
... def bump(x, i):
...     x[i] += 1          # mutates the caller's Tensor
>>> a = jt.zeros(4)
>>> for i in range(4):
...     bump(a, i)         # compiles once: the index value is dynamic
>>> a
Tensor(shape=[4], dtype=float32, device=cpu,
       [1., 1., 1., 1.])

How it works (see ``docs/transforms.md``):

1. Each distinct *storage* behind the Tensor arguments is passed to XLA once (so
   ``f(a, a[1:])`` keeps the aliasing), and each view's start offsets are passed as data,
   so only shapes, dtypes and view structure key the compilation.
2. While the function is traced, every such storage holds its tracer; the argument
   Tensors are rebuilt over them with the caller's views, and the function mutates them.
3. The compiled function returns the final value of every storage it wrote; they are
   written back to the caller's storages, whose old buffers were donated when nobody else
   holds them. Results that alias an argument come back as views of it.
4. A closed-over Tensor read or written inside the function is discovered during tracing,
   and the function is retraced with its storage as one more (implicit) input: a read
   never sees a stale value, a write is written back like an argument's.
5. Traced index values are bounds-checked: the checks fold into one small ``[code, value]``
   output read after the call (``jax.experimental.checkify`` when a check sits inside a
   loop body or another nested trace); a bad index raises ``IndexError`` at the call
   (``check_bounds=False`` turns this off).
6. Calls are planned once per signature; a plain call (positional Tensors without views,
   numbers, arrays) with a signature seen before runs a small function generated for it.
"""

from __future__ import annotations

import functools
import inspect
import re
import sys
import weakref
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import checkify

from . import _indexing, _storage, _view
from ._storage import Storage, TracerLeakError, current_trace
from ._tensor import Tensor

__all__ = ["jit", "grad", "value_and_grad", "vjp", "jvp", "vmap"]

Tracer = jax.core.Tracer
_EvalTrace = jax._src.core.EvalTrace
_IDX = _view._IDX_NP
_IDX_SIZE = np.dtype(_IDX).itemsize

# jax.jit options that name argument positions or outputs: they would not mean what the user
# expects, since the compiled function takes storages, not the user's arguments.
_REJECTED = {
    "donate_argnums": "jaxtensor.jit donates the buffers of argument storages by itself when "
    "nobody else holds them; pass donate=False to turn that off",
    "donate_argnames": "jaxtensor.jit donates the buffers of argument storages by itself when "
    "nobody else holds them; pass donate=False to turn that off",
    "in_shardings": "place the argument Tensors with jaxtensor.asarray(..., device=...) or "
    "jax.device_put before the call instead",
    "out_shardings": "reshard the results after the call instead",
}


# argument types that are pytree leaves as they are (no flattening needed)
_ArrayImpl = type(jnp.zeros(0))
_FLAT_LEAF = frozenset({Tensor, int, float, bool, complex, np.ndarray, _ArrayImpl})
# ... and those of them that are passed to XLA as they are
_PLAIN_LEAF = frozenset({int, float, bool, complex, np.ndarray, _ArrayImpl})


_ARRAY_TYPES = (jax.Array, np.ndarray, np.generic, Tracer)
_core = jax._src.core
_trace_state = _core.trace_state_strong_ref  # .value: the current trace
_getrefcount = sys.getrefcount


def _all_flat(args: Sequence) -> bool:
    for a in args:
        if type(a) not in _FLAT_LEAF:
            return False
    return True


def _is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


# -- bounds checks under jaxtensor.jit ------------------------------------------------------
def _checkify_bounds(i: Any, n: int, axis: int) -> None:
    """The ``_indexing.traced_bounds_checks`` hook of the general mode: a checkify check."""
    i = jnp.asarray(i)
    if i.size == 0:
        return
    ok = (i >= -n) & (i < n)
    if i.ndim == 0:
        bad = i
    else:  # the value eager code names: the largest if it is too large, else the smallest
        hi = jnp.max(i)
        bad = jnp.where(hi >= n, hi, jnp.min(i))
    checkify.check(
        jnp.all(ok), f"index {{}} is out of bounds for axis {axis} with size {n}", bad
    )


class _NeedCheckify(BaseException):  # noqa: N818 - control flow, never seen by users
    """A bounds check was emitted inside a nested trace (a loop body, ``cond``, ``vmap``, a
    nested jit): the simple checks cannot carry it out; retrace with checkify."""

    def __init__(self, owner: Any) -> None:
        super().__init__()
        self.owner = owner


class _BoundsChecks:
    """The ``_indexing.traced_bounds_checks`` hook of the fast mode.

    Each check made at the top level of the traced function is recorded (whether it fails,
    the first offending value, and the static axis and size of its message); at the end of
    the trace they fold into one small output, ``[code, value]``: ``code`` is 0 when every
    check passed, else 1 + the number of the first failing one. The fold is a chain of
    scalar selects, which XLA fuses into one kernel (stacking the flags into a vector and
    reducing it costs XLA:CPU a kernel per operand). Reading the output is one small
    device-to-host transfer; a function that makes no check has no such output at all.
    A check inside a nested trace (a loop body, ``cond``, ``vmap``) cannot be carried out
    this way: it raises :class:`_NeedCheckify`, and the function is traced again with
    ``jax.experimental.checkify``, which threads the error through control flow.
    """

    __slots__ = ("owner", "trace", "items", "msgs")

    def __init__(self, owner: Any, trace: Any) -> None:
        self.owner = owner
        self.trace = trace
        self.items: list[tuple[Any, Any]] = []
        self.msgs: list[tuple[int, int, bool]] = []

    def __call__(self, i: Any, n: int, axis: int) -> None:
        if current_trace() is not self.trace:
            raise _NeedCheckify(self.owner)
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
        self.items.append((fail, v))
        self.msgs.append((axis, n, wrap))

    def output(self) -> Any:
        code = bad = lax.full((), 0, _IDX)
        for j in range(len(self.items) - 1, -1, -1):  # the first failing check wins
            fail, v = self.items[j]
            code = lax.select(fail, lax.full((), j + 1, _IDX), code)
            bad = lax.select(fail, v, bad)
        return jnp.stack([code, bad])


def _check_error(checks: tuple, chk: Any) -> IndexError | None:
    """The ``IndexError`` of the first failing check in ``chk`` (``[code, value]``), or None."""
    c = np.asarray(chk)
    code = int(c[0])
    if not code:
        return None
    axis, n, unsigned = checks[code - 1]
    v = int(c[1])
    if unsigned:
        v %= 1 << (8 * _IDX_SIZE)
    return IndexError(f"index {v} is out of bounds for axis {axis} with size {n}")


_CHECK_SUFFIX = re.compile(r"\s*\(`check` failed\)\s*$")


def _index_error(msg: str) -> IndexError:
    return IndexError(_CHECK_SUFFIX.sub("", msg.split("\n")[0]))


# -- what a trace found, returned with the arrays -------------------------------------------
class _Aux:
    """The static side of one trace of a compiled function.

    The compiled function returns ``{aux: arrays}``: a one-entry dict whose key is this
    object (hashed by identity), so each call gets back, from JAX's C++ dispatch, the
    description that matches the variant JAX ran (JAX keeps one trace per input shapes and
    dtypes) without any Python pytree code. ``arrays`` is the flat tuple of the final
    values of the ``written`` storages, the new storages of the results, the results' own
    leaves, and, when the trace made bounds checks, their ``[code, value]`` output.
    """

    __slots__ = ("written", "out_tree", "out_desc", "n_new", "checks", "none")

    def __init__(self, written: tuple, out_tree: Any, out_desc: tuple, n_new: int,
                 checks: tuple) -> None:
        self.written = written
        self.out_tree = out_tree
        self.out_desc = out_desc
        self.n_new = n_new
        self.checks = checks  # (axis, size, unsigned) of each check, in program order
        self.none = not out_desc and out_tree == _NONE_TREE  # the function returns None


_NONE_TREE = jax.tree_util.tree_structure(None)


class _Plan:
    """One compiled variant: the jitted function and how its output comes back."""

    __slots__ = ("fn", "checkify", "donated", "positions")

    def __init__(self, fn: Callable, checkify: bool, donated: tuple, positions: tuple) -> None:
        self.fn = fn
        self.checkify = checkify
        self.donated = donated
        self.positions = positions  # where each storage's array goes among the arguments


class _ReadHook:
    """Wraps ``Storage.array`` while a function is traced, to see which storages it reads."""

    __slots__ = ("orig", "hook")

    def __init__(self, orig: Any, hook: Callable[[Storage], None]) -> None:
        self.orig = orig
        self.hook = hook

    def __get__(self, obj: Any, typ: Any = None) -> Any:
        if obj is None:
            return self
        self.hook(obj)
        return self.orig.__get__(obj, typ)

    def __set__(self, obj: Any, value: Any) -> None:
        self.orig.__set__(obj, value)


class _Discovered(BaseException):  # noqa: N818 - control flow, never seen by users
    """Raised inside a trace when a closed-over storage is read or written: retrace with it
    as an input."""

    def __init__(self, storage: Storage) -> None:
        super().__init__()
        self.storage = storage


def _tensor_on(storage: Storage, view: _view.View | None, base: Tensor | None) -> Tensor:
    t = object.__new__(Tensor)
    t._storage = storage
    t._view = view
    t._cache = None
    t._cache_version = -1
    t._base = base
    return t


def _starts_out(view: _view.View) -> tuple[tuple | None, Any]:
    """(static starts or None, dynamic starts array or None) of a view leaving the trace."""
    s = view.starts
    if not s:
        return (), None
    if any(isinstance(v, Tracer) for v in s):
        return None, jnp.stack([jnp.asarray(v, _IDX) for v in s])
    return tuple(int(v) for v in s), None


class _NeedCtx(BaseException):  # noqa: N818 - control flow, never seen by users
    """Raised by a trace started without the call's storages (a guard does not set them on
    every call): the guard sets them and calls again."""


def _make_guard(key: tuple, args: tuple, donate: bool, plan: _Plan) -> Callable | None:
    """The short path of :meth:`_Jitted._call_plain` specialised to one signature, as Python
    source: ``guard(jitted, args, kwargs)`` checks that ``args`` (and the closed-over
    storages) have that signature and, if so, makes the call and returns its result, else
    hands the call to ``_call_plain`` having changed nothing. It does what the short path
    does, without building a key, looking it up, or lists of storages and inputs; it does
    not even set ``_ctx`` (needed only when JAX traces the function, for new input shapes
    or dtypes: the trace then raises :class:`_NeedCtx`, and the call is made again with
    it). None for signatures it does not cover (Tensors that are views).
    """
    if any(e is not None and type(e) is not bool for e in key):
        return None
    n_args = len(args)
    n_impl = len(key) - n_args
    held: list[str] = []  # the arrays held by local variables so far

    def miss() -> str:  # (dropping them first: _call_plain counts references to decide donation)
        drop = f"del {', '.join(held)}; " if held else ""
        return f"        {drop}return self._call_plain(args, kwargs)"

    src = [
        "def guard(self, args, kwargs):",
        f"    if kwargs or len(args) != {n_args} or "
        "type(_trace_state.value) is not _EvalTrace:",
        miss(),
    ]
    if n_args:
        src.append("    " + "".join(f"a{j}, " for j in range(n_args)) + "= args")
    sts: list[str] = []
    inputs: list[str] = []

    def storage(st: str, arr: str, d: bool) -> None:
        for other in sts:
            src.append(f"    if {st} is {other}:")
            src.append(miss())
        src.append(f"    if {st}._pending is not None:")
        src.append(f"        {st}._flush()")
        src.append(f"    {arr} = {st}._array")
        held.append(arr)
        if donate:
            # (refcount 3: the storage's slot, the local variable and getrefcount's argument)
            can = f"not {st}.exported and _getrefcount({arr}) <= 3"
            src.append(f"    if {'not ' if d else ''}({can}):")
            src.append(miss())
        sts.append(st)
        inputs.append(arr)

    for j in range(n_args):
        e = key[j]
        if e is None:
            # (the type seen now first: a quicker test)
            src.append(f"    t = type(a{j})")
            src.append(f"    if t is not {type(args[j]).__name__} and t not in _PLAIN_LEAF:")
            src.append(miss())
            inputs.append(f"a{j}")
        else:
            src.append(f"    if type(a{j}) is not Tensor or a{j}._view is not None or "
                       f"a{j}._base is not None:")
            src.append(miss())
            src.append(f"    st{j} = a{j}._storage")
            storage(f"st{j}", f"arr{j}", e)
    if n_impl:
        src.append("    implicit = self._implicit")
        src.append(f"    if len(implicit) != {n_impl}:")
        src.append(miss())
        for m in range(n_impl):
            src.append(f"    im{m} = implicit[{m}]()")
            src.append(f"    if im{m} is None:")
            src.append(miss())
            storage(f"im{m}", f"imarr{m}", key[n_args + m])
    sts_list = f"[{', '.join(sts)}]"
    call = f"fn({', '.join(inputs)})"
    src += [
        "    try:",
        f"        res = {call}",
        "    except _NeedCtx:",
        f"        self._ctx = {sts_list}",
        "        try:",
        f"            res = {call}",
        "        except (_Discovered, _NeedCheckify) as e:",
        "            self._ctx = None",
        "            return self._call_retrying(args, {}, None, e.with_traceback(None))",
        "        finally:",
        "            self._ctx = None",
    ]
    if plan.checkify:
        src.append(f"    return self._finish(plan, res, {sts_list}, list(args))")
    else:
        src += [
            "    aux, outs = res.popitem()",
            "    if aux.checks and _check_error(aux.checks, outs[-1]) is not None:",
            f"        return self._finish(plan, {{aux: outs}}, {sts_list}, list(args))",
        ]
        if len(sts) == 1:  # written: () or (0,)
            src += [
                "    if aux.written:",
                f"        {sts[0]}._array = outs[0]",
                f"        {sts[0]}.version += 1",
                f"        {sts[0]}.exported = False",
            ]
        else:
            src += [
                f"    sts = {sts_list}",
                "    for k, arr in zip(aux.written, outs):",
                "        st = sts[k]",
                "        st._array = arr",
                "        st.version += 1",
                "        st.exported = False",
            ]
        src += [
            "    if aux.none:",
            "        return None",
            f"    return self._results(aux, outs, {sts_list}, list(args))",
        ]
    ns = {
        "_trace_state": _trace_state, "_EvalTrace": _EvalTrace,
        "_PLAIN_LEAF": _PLAIN_LEAF, "Tensor": Tensor, "_getrefcount": _getrefcount,
        "_Discovered": _Discovered, "_NeedCheckify": _NeedCheckify, "_NeedCtx": _NeedCtx,
        "_check_error": _check_error, "fn": plan.fn, "plan": plan,
        "int": int, "float": float, "bool": bool, "complex": complex,
        "ndarray": np.ndarray, "ArrayImpl": _ArrayImpl,
    }
    exec("\n".join(src), ns)  # noqa: S102 - generated from the signature above
    return ns["guard"]


def _layout(spec: tuple) -> tuple[tuple[int, ...], tuple[int, ...], int | None]:
    """Where the compiled function of ``spec`` finds its inputs: the argument position of
    each storage's array, of each other (non-Tensor) leaf, and of the view starts.

    The arrays come in the order of the leaves: a Tensor whose storage is new contributes
    its storage's array, a number or array itself; the storages of closed-over Tensors
    follow, then the starts of the argument views (one array), if any.
    """
    desc, n_st, n_starts = spec[1], spec[4], spec[5]
    positions: list[int] = []
    others: list[int] = []
    pos = 0
    for d in desc:
        if d is None:
            others.append(pos)
            pos += 1
        elif type(d[0]) is int and d[0] == len(positions):
            positions.append(pos)
            pos += 1
    while len(positions) < n_st:
        positions.append(pos)
        pos += 1
    return tuple(positions), tuple(others), (pos if n_starts else None)


class _Jitted:
    """The state of a function compiled by :func:`jit` (which returns ``_make_entry()``).

    A call is planned once per *call signature*: which arguments are Tensors, which of them
    share a storage, their view structures, which buffers can be donated, and the static
    arguments. The plan holds the jitted function; a repeat call with the same signature
    checks it, flushes queued scalar writes, calls the jitted function with the storages'
    arrays and writes the results back. Plain calls (positional Tensors and numbers, no
    two sharing a storage) take a short path that does only that.
    """

    def __init__(
        self,
        fn: Callable,
        static_argnums: tuple[int, ...],
        static_argnames: tuple[str, ...],
        check_bounds: bool,
        donate: bool,
        jit_kwargs: dict[str, Any],
    ) -> None:
        self._fn = fn
        self._static_argnums = static_argnums
        self._static_argnames = static_argnames
        self._check_bounds = check_bounds
        self._donate = donate
        self._jit_kwargs = jit_kwargs
        # closed-over storages the function reads or writes (weakly: one that nothing else
        # holds any more is dropped, and the function recompiled without it)
        self._implicit: list[weakref.ref[Storage]] = []
        # bounds checks: the fast mode (_BoundsChecks) until a check inside a nested trace
        # needs checkify
        self._own_checks = True
        self._plans: dict[Hashable, _Plan] = {}
        # the short path's plans, keyed by a signature of plain positional calls (None: no
        # short path, the function has static positional arguments)
        self._fast: dict[Hashable, _Plan] | None = None if static_argnums else {}
        # ... and for the simplest of them (Tensors without views, numbers, arrays), a
        # function specialised to the signature: the last one used is tried first
        self._guards: dict[Hashable, Callable] = {}
        self._guard: Callable = _Jitted._call_plain
        # what a trace started by the current call needs (read at the start of _body, so a
        # recursive call overwriting it later is harmless)
        self._ctx: list[Storage] | None = None
        self._ctx_outer: Any = None  # (None: the top level)
        self._flat_trees: dict[int, Any] = {}
        functools.update_wrapper(self, fn)

    def __repr__(self) -> str:
        return f"jaxtensor.jit({getattr(self._fn, '__name__', self._fn)!r})"

    # -- calling ----------------------------------------------------------------------
    def _make_entry(self) -> Callable:
        """The function :func:`jit` returns: a plain function (a call costs less than an
        object's ``__call__``, and it binds as a method by itself)."""
        state = self

        def jitted(*args: Any, **kwargs: Any) -> Any:
            # the guard of the last plain call's signature (see _make_guard), which hands
            # other calls to _call_plain; or _call_plain itself
            return state._guard(state, args, kwargs)

        functools.update_wrapper(jitted, self._fn)
        jitted._jaxtensor_jit = state  # type: ignore[attr-defined]
        return jitted

    def _call_plain(self, args: tuple, kwargs: dict) -> Any:
        fast = self._fast
        if fast is None or kwargs or type(_trace_state.value) is not _EvalTrace:
            return self._call_retrying(args, kwargs, None)
        # The short path: positional Tensors (no two sharing a storage) and numbers or
        # arrays, at the top level. Its key: per argument, None for a number or array, and
        # for a Tensor whether its buffer can be donated (and its view structure). The
        # compiled function takes the arrays in argument order (see _layout).
        key: list[Any] = []
        sts: list[Storage] = []
        inputs: list[Any] = []
        starts: list[Any] | None = None
        donate = self._donate
        for a in args:
            ta = type(a)
            if ta is Tensor:
                st = a._storage
                if st in sts:
                    break
                if st._pending is not None:
                    st._flush()
                arr = st._array  # (at the top level: a concrete array)
                # (refcount 3: the storage's slot, arr and getrefcount's argument)
                d = donate and not st.exported and _getrefcount(arr) <= 3
                v = a._view
                if v is None:
                    key.append(d if a._base is None else (d,))
                else:
                    key.append((d, v.key))
                    if v.starts:
                        if starts is None:
                            starts = []
                        starts.extend(v.starts)
                sts.append(st)
                inputs.append(arr)
            elif ta in _PLAIN_LEAF:
                key.append(None)
                inputs.append(a)
            else:
                break
        else:
            arr = None
            for r in self._implicit:  # closed-over storages follow the arguments'
                st = r()
                if st is None or st in sts:
                    break
                if st._pending is not None:
                    st._flush()
                key.append(donate and not st.exported and _getrefcount(st._array) <= 2)
                sts.append(st)
                inputs.append(st._array)
            else:
                # (the implicit storages change only with a _forget() of the short path's plans)
                key = tuple(key)
                plan = fast.get(key)
                if plan is not None:
                    self._guard = self._guards.get(key, _Jitted._call_plain)
                else:
                    # no plan yet: the general path makes one (and registers it under key)
                    del inputs, arr
                    return self._call_retrying(args, kwargs, (key, sts, tuple([
                        donate and not st.exported and _getrefcount(st._array) <= 2
                        for st in sts])))
                if starts is not None:
                    inputs.append(np.array(starts, dtype=_IDX))
                self._ctx = sts
                try:
                    res = plan.fn(*inputs)
                except (_Discovered, _NeedCheckify) as e:
                    # a retrace (new shapes) found more to do: the general path takes over
                    self._ctx = None
                    exc = e.with_traceback(None)
                    del inputs
                    return self._call_retrying(args, {}, None, exc)
                finally:
                    self._ctx = None
                del inputs
                if plan.checkify:
                    return self._finish(plan, res, sts, list(args))
                aux, outs = res.popitem()
                if aux.checks and _check_error(aux.checks, outs[-1]) is not None:
                    return self._finish(plan, {aux: outs}, sts, list(args))
                w = aux.written
                if w:
                    if len(w) == 1:
                        st = sts[w[0]]
                        st._array = outs[0]
                        st.version += 1
                        st.exported = False
                    else:
                        for k, arr in zip(w, outs):
                            st = sts[k]
                            st._array = arr
                            st.version += 1
                            st.exported = False
                if aux.none:
                    return None
                return self._results(aux, outs, sts, list(args))
        del inputs
        arr = None
        return self._call_retrying(args, kwargs, None)

    def _call_retrying(self, args: tuple, kwargs: dict, pre: Any,
                       exc: BaseException | None = None) -> Any:
        while True:
            if exc is None:
                try:
                    return self._call_general(args, kwargs, pre)
                except (_Discovered, _NeedCheckify) as e:
                    exc = e.with_traceback(None)
            pre = None
            if isinstance(exc, _Discovered):
                if any(r() is exc.storage for r in self._implicit):  # pragma: no cover
                    raise TracerLeakError(
                        "a closed-over Tensor is written in a nested trace inside the "
                        "jaxtensor.jit function; pass it through the loop carry instead"
                    ) from None
                self._implicit.append(weakref.ref(exc.storage))
            elif exc.owner is not self or type(_trace_state.value) is not _EvalTrace:
                raise exc  # (for the jaxtensor.jit call at the top level to handle)
            else:
                self._own_checks = False
            exc = None
            self._forget()

    def _forget(self) -> None:
        """Drop the plans of the short path (the implicit inputs or the check mode changed)."""
        if self._fast is not None:
            self._fast = {}
        self._guards = {}
        self._guard = _Jitted._call_plain

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
        try:
            hash(static_t)
        except TypeError:
            bad = [k for k, v in static if not _hashable(v)]
            raise ValueError(
                f"static arguments {bad} of jaxtensor.jit must be hashable; pass arrays and "
                "Tensors as dynamic arguments instead"
            ) from None
        return dyn_args, dyn_kwargs, static_t

    def _call_general(self, args: tuple, kwargs: dict, pre: Any) -> Any:
        """The general path: any arguments (pytrees, kwargs, static, aliasing), any trace.

        ``pre``: (key, storages) of the short path when it found no plan: the plan made
        here is registered under that key when its storages and donation agree."""
        dyn_args, dyn_kwargs, static = self._split(args, kwargs)
        if not dyn_kwargs and _all_flat(dyn_args):
            # the common case, without the cost of a general flatten
            leaves = list(dyn_args)
            treedef = self._flat_trees.get(len(leaves))
            if treedef is None:
                treedef = self._flat_trees[len(leaves)] = jax.tree_util.tree_structure(
                    (tuple(range(len(leaves))), {}))
        else:
            leaves, treedef = jax.tree_util.tree_flatten((tuple(dyn_args), dyn_kwargs),
                                                         is_leaf=_is_tensor)
        storages: list[Storage] = []
        sid: dict[int, int] = {}
        desc: list[Any] = []
        starts: list[Any] = []
        inputs: list[Any] = []  # the compiled function's arguments (see _layout)
        seen: dict[int, int] = {}
        for j, x in enumerate(leaves):
            if isinstance(x, Tensor):
                prev = seen.get(id(x))
                if prev is not None:
                    desc.append(("same", prev))
                    continue
                seen[id(x)] = j
                st = x._storage
                k = sid.get(id(st))
                if k is None:
                    k = sid[id(st)] = len(storages)
                    storages.append(st)
                    inputs.append(None)  # its array, once donation is decided
                v = x._view
                if v is None:
                    desc.append((k, None, 0, x._base is not None))
                else:
                    desc.append((k, v.key, len(v.starts), True))
                    starts.extend(v.starts)
            elif type(x) in _FLAT_LEAF or isinstance(x, _ARRAY_TYPES):
                desc.append(None)
                inputs.append(x)
            else:
                # not something JAX can trace (a string, an object, a function): static,
                # as if named in static_argnums (methods get ``self`` this way)
                if not _hashable(x):
                    raise ValueError(
                        f"jaxtensor.jit: an argument of type {type(x).__name__} is neither an "
                        "array nor hashable, so it can be neither traced nor static; pass "
                        "arrays, Tensors, numbers, or hashable Python values"
                    )
                desc.append(("static", x))
        implicit: tuple[int, ...] = ()
        if self._implicit:
            live = [st for st in (r() for r in self._implicit) if st is not None]
            if len(live) != len(self._implicit):
                self._implicit = [weakref.ref(st) for st in live]
                self._forget()
            for st in live:
                if id(st) not in sid:
                    sid[id(st)] = len(storages)
                    storages.append(st)
                    inputs.append(None)
            implicit = tuple([sid[id(st)] for st in live])
            del live

        outer = current_trace()
        nested = not isinstance(outer, _EvalTrace)
        if nested:
            # no checks of its own inside another trace: those of the outer jaxtensor.jit
            # (if any) apply, in its mode
            hooks = _indexing.traced_bounds_checks
            if self._check_bounds and hooks:
                check = ("inherit", type(hooks[0]) is _BoundsChecks)
            else:
                check = None
        elif not self._check_bounds:
            check = None
        else:
            check = "own" if self._own_checks else "checkify"
        # (inside another trace nothing is donated: the outer computation owns the buffers)
        if self._donate and not nested:
            for st in storages:
                if st._pending is not None:
                    st._flush()
            donated = tuple([
                not st.exported and type(st._array) is _ArrayImpl
                and _getrefcount(st._array) <= 2 for st in storages])
        else:
            donated = (False,) * len(storages)
        spec = (treedef, tuple(desc), static, len(args), len(storages), len(starts),
                implicit, donated, check)
        plan = self._plans.get(spec)
        if plan is None:
            plan = self._compile(spec)
        if pre is not None and pre[1] == storages and pre[2] == donated and not nested:
            self._fast[pre[0]] = plan
            guard = _make_guard(pre[0], args, self._donate, plan)
            if guard is not None:
                self._guards[pre[0]] = self._guard = guard

        for k, p in enumerate(plan.positions):
            inputs[p] = storages[k].array
        if starts:
            if any(isinstance(s, Tracer) for s in starts):
                inputs.append(jnp.stack([jnp.asarray(s, _IDX) for s in starts]))
            else:
                inputs.append(np.array(starts, dtype=_IDX))
        self._ctx = storages
        self._ctx_outer = outer
        try:
            result = plan.fn(*inputs)
        finally:
            self._ctx = self._ctx_outer = None
        del inputs
        return self._finish(plan, result, storages, leaves)

    def _finish(self, plan: _Plan, result: Any, storages: list[Storage], leaves: list[Any]
                ) -> Any:
        """Write back, raise a failed bounds check, rebuild the results."""
        if plan.checkify:
            err, result = result
            msg = err.get()
            error = None if msg is None else _index_error(msg)
        else:
            error = None
        for aux, outs in result.items():  # noqa: B007 - the one entry
            pass
        if aux.checks:
            error = _check_error(aux.checks, outs[-1])
        if error is None or any(plan.donated):
            # After a failed check the finals are installed only when buffers were donated
            # (the old ones are gone); with donate=False a failed call changes nothing.
            for k, arr in zip(aux.written, outs):
                storages[k].set(arr)
        if error is not None:
            raise error
        if aux.none:
            return None
        return self._results(aux, outs, storages, leaves)

    def _results(self, aux: _Aux, outs: tuple, storages: list[Storage], leaves: list[Any]
                 ) -> Any:
        if not aux.out_desc:
            return aux.out_tree.unflatten(())
        nw = len(aux.written)
        new_arrays = outs[nw:nw + aux.n_new]
        out_vals = outs[nw + aux.n_new:nw + aux.n_new + len(aux.out_desc)]
        return self._rebuild(aux.out_tree, aux.out_desc, out_vals, new_arrays, storages,
                             leaves)

    def _rebuild(self, out_tree: Any, out_desc: tuple, out_vals: Sequence, new_arrays: Sequence,
                 storages: list[Storage], leaves: list[Any]) -> Any:
        first: dict[int, Tensor] = {}  # per storage: the base Tensor among the arguments,
        if any(d is not None and d[0] == "A" for d in out_desc):  # or the first one
            sid = {id(st): k for k, st in enumerate(storages)}
            for x in leaves:
                if isinstance(x, Tensor):
                    k = sid[id(x._storage)]
                    if k not in first or x._view is None:
                        first[k] = x
        news: dict[int, Tensor] = {}
        res = []
        for d, val in zip(out_desc, out_vals):
            if d is None:
                res.append(val)
                continue
            kind = d[0]
            if kind == "arg":
                res.append(leaves[d[1]])
                continue
            _, k, key, static_starts = d
            if kind == "A":
                owner = first.get(k)
            else:
                owner = news.get(k)
                if owner is None:
                    owner = news[k] = Tensor._wrap(new_arrays[k])
            if key is None:
                if owner is not None and owner._view is None:
                    res.append(owner)
                else:
                    res.append(_tensor_on(storages[k], None, None))
                continue
            if static_starts is None:
                st = np.asarray(val) if not isinstance(val, Tracer) else val
                s = tuple(st.tolist()) if isinstance(st, np.ndarray) else tuple(
                    st[i] for i in range(st.shape[0]))
            else:
                s = static_starts
            view = _view.View(key[0], s, key[1])
            if owner is not None:
                res.append(owner._derive(view))
            else:
                res.append(_tensor_on(storages[k], view, None))
        return jax.tree_util.tree_unflatten(out_tree, res)

    # -- tracing ----------------------------------------------------------------------
    def _compile(self, spec: tuple) -> _Plan:
        donated = spec[7]
        check = spec[8]
        body = functools.partial(self._body, spec)
        if check == "checkify":
            body = checkify.checkify(body, errors=checkify.user_checks)
        positions, _, _ = _layout(spec)
        donate_argnums = tuple(p for p, d in zip(positions, donated) if d)
        fn = jax.jit(body, donate_argnums=donate_argnums, **self._jit_kwargs)
        plan = self._plans[spec] = _Plan(fn, check == "checkify", donated, positions)
        return plan

    def _body(self, spec: tuple, *inputs: Any) -> dict:
        (treedef, desc, static, n_args, n_st, n_starts, implicit, donated, check) = spec
        storages = self._ctx
        if storages is None:
            raise _NeedCtx
        outer = self._ctx_outer
        if outer is None:  # called by the short path: at the top level
            outer = _core.eval_trace
        positions, other_pos, starts_pos = _layout(spec)
        arrays = [inputs[p] for p in positions]
        others = [inputs[p] for p in other_pos]
        starts = None if starts_pos is None else inputs[starts_pos]
        trace = current_trace()
        saved = [(st.array, st.trace, st.exported) for st in storages]
        hooks = list(_indexing.traced_bounds_checks)

        ours = {id(st) for st in storages}

        def on_read(st: Storage) -> None:
            # A storage from outside this call read while tracing would be baked into the
            # compiled code as a constant and go stale when it is written later: make it an
            # input (it is written back like an argument if the function writes it).
            if id(st) not in ours and (st.trace is outer or isinstance(st.trace, _EvalTrace)):
                raise _Discovered(st)

        def adopt(st: Storage) -> bool:
            # A storage from outside this call (concrete, or from the caller's trace) written
            # at the top level of this trace: implicit state. Anything else is a real leak.
            if current_trace() is not trace:
                return False
            if isinstance(st.array, Tracer) and st.trace is not outer:
                return False
            raise _Discovered(st)

        try:
            for st, a in zip(storages, arrays):
                st.array = a
                st.trace = trace
                st.exported = False
                st.version += 1
            _storage._foreign_write_handler.append(adopt)
            collector = None
            if check == "own":
                collector = _BoundsChecks(self, trace)
                _indexing.traced_bounds_checks[:] = [collector]
            elif check == "checkify":
                _indexing.traced_bounds_checks[:] = [_checkify_bounds]
            elif check is None:
                _indexing.traced_bounds_checks[:] = []
            # (else nested in a checked jaxtensor.jit: its hooks stay)
            # reading a view's cache checks ``version`` only, hot paths read the ``_array``
            # slot directly: hook all three
            hooked = {a: Storage.__dict__[a] for a in ("array", "_array", "version")}
            for a, d in hooked.items():
                setattr(Storage, a, _ReadHook(d, on_read))
            rebuilt: list[Any] = []
            bases: dict[int, Tensor] = {}
            off = 0
            for d in desc:
                if d is None:
                    rebuilt.append(others.pop(0))
                    continue
                if d[0] == "same":
                    rebuilt.append(rebuilt[d[1]])
                    continue
                if d[0] == "static":
                    rebuilt.append(d[1])
                    continue
                k, key, n, has_base = d
                base = None
                if has_base:
                    base = bases.get(k)
                    if base is None:
                        base = bases[k] = _tensor_on(storages[k], None, None)
                if key is None:
                    t = _tensor_on(storages[k], None, base)
                    bases.setdefault(k, t)
                else:
                    s = tuple(starts[off + i] for i in range(n))
                    off += n
                    t = _tensor_on(storages[k], _view.View(key[0], s, key[1]), base)
                rebuilt.append(t)
            dyn_args, dyn_kwargs = jax.tree_util.tree_unflatten(treedef, rebuilt)
            args: list[Any] = []
            it = iter(dyn_args)
            static_pos = {k: v for k, v in static if isinstance(k, int)}
            for i in range(n_args):
                args.append(static_pos[i] if i in static_pos else next(it))
            kwargs = dict(dyn_kwargs)
            kwargs.update({k: v for k, v in static if isinstance(k, str)})

            out = self._fn(*args, **kwargs)

            written = tuple(
                k for k, st in enumerate(storages) if donated[k] or st.array is not arrays[k]
            )
            finals = [storages[k].array for k in written]
            out_leaves, out_tree = jax.tree_util.tree_flatten(out, is_leaf=_is_tensor)
            sid = {id(st): k for k, st in enumerate(storages)}
            arg_ids = {id(t): j for j, t in enumerate(rebuilt) if isinstance(t, Tensor)}
            new_sid: dict[int, int] = {}
            new_arrays: list[Any] = []
            out_desc: list[Any] = []
            out_vals: list[Any] = []
            for x in out_leaves:
                if not isinstance(x, Tensor):
                    out_desc.append(None)
                    out_vals.append(x)
                    continue
                j = arg_ids.get(id(x))
                if j is not None and desc[j] is not None:
                    out_desc.append(("arg", j))
                    out_vals.append(None)
                    continue
                st = x._storage
                k = sid.get(id(st))
                kind = "A"
                if k is None:
                    kind = "N"
                    k = new_sid.get(id(st))
                    if k is None:
                        k = new_sid[id(st)] = len(new_arrays)
                        new_arrays.append(st.array)
                v = x._view
                if v is None:
                    out_desc.append((kind, k, None, ()))
                    out_vals.append(None)
                else:
                    s_static, s_dyn = _starts_out(v)
                    out_desc.append((kind, k, v.key, s_static))
                    out_vals.append(s_dyn)
            outs = finals + new_arrays + out_vals
            checks: tuple = ()
            if collector is not None and collector.items:
                outs.append(collector.output())
                checks = tuple(collector.msgs)
            aux = _Aux(written, out_tree, tuple(out_desc), len(new_arrays), checks)
            return {aux: tuple(outs)}
        finally:
            for a, d in locals().get("hooked", {}).items():
                setattr(Storage, a, d)
            _indexing.traced_bounds_checks[:] = hooks
            try:
                _storage._foreign_write_handler.remove(adopt)
            except ValueError:  # pragma: no cover
                pass
            for st, (a, tr, ex) in zip(storages, saved):
                st.array = a
                st.trace = tr
                st.exported = ex
                st.version += 1


def _hashable(v: Any) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


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
    **jit_kwargs: Any,
) -> Any:
    """Compile ``fn`` with XLA, keeping the in-place semantics of eager jaxtensor code.

    Mutations of Tensor arguments (``x[i] = v``, ``x += 1``, writes through views) and of
    closed-over Tensors are written back to the caller's Tensors after the call, exactly
    as if ``fn`` had run eagerly (closed-over Tensors are inputs, never baked-in constants); aliasing between arguments survives (``f(a, a[1:])``);
    results that alias an argument come back as views of it. Compilation is keyed by
    shapes, dtypes and view/index *structure* only: new index values never recompile.

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
    - ``jit_kwargs``: passed to ``jax.jit`` (e.g. ``keep_unused``, ``compiler_options``);
      ``donate_argnums``/``in_shardings``/``out_shardings`` are not accepted.

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
        Tensor(shape=[4], dtype=float32, device=cpu,
               [ 1.,  3.,  6., 10.])
        >>> jt.jit(lambda x, y: y.__setitem__(0, 5.))(a, a[2:])   # aliasing survives
        >>> a
        Tensor(shape=[4], dtype=float32, device=cpu,
               [ 1.,  3.,  5., 10.])
    """
    for k, why in _REJECTED.items():
        if k in jit_kwargs:
            raise TypeError(f"jaxtensor.jit does not take {k}=: {why}")
    if fn is None:
        return functools.partial(
            jit, static_argnums=static_argnums, static_argnames=static_argnames,
            check_bounds=check_bounds, donate=donate, **jit_kwargs)
    if not callable(fn):
        raise TypeError(f"jaxtensor.jit expects a callable, got {type(fn).__name__}")
    nums, names = _static_spec(fn, static_argnums, static_argnames)
    return _Jitted(fn, nums, names, bool(check_bounds), bool(donate), jit_kwargs)._make_entry()


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
    ...     return jt.Tensor._wrap((y * y)._value().sum())
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

    @functools.wraps(fun)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        (val_aux, grads) = g(*args, **kwargs)
        return _wrap(val_aux), _wrap(grads)

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
    ...     return jt.Tensor._wrap(x._value().sum())
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

    res = jax.vjp(f, *primals, has_aux=has_aux)
    out, back = res[0], res[1]

    def vjp_fn(ct: Any) -> Any:
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

    >>> import jaxtensor as jt
    >>> def first_to_zero(row):
    ...     row[0] = 0.
    ...     return row
    >>> jt.vmap(first_to_zero)(jt.ones((2, 3))).tolist()
    [[0.0, 1.0, 1.0], [0.0, 1.0, 1.0]]
    """
    f = jax.vmap(fun, in_axes=in_axes, out_axes=out_axes, axis_name=axis_name,
                 axis_size=axis_size, spmd_axis_name=spmd_axis_name)

    @functools.wraps(fun)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return _wrap(f(*args, **kwargs))

    return wrapped
