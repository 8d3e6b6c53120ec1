"""How a ``jaxtensor.jit`` call's pytrees cross the compiled function.

Going in, :func:`arguments` rebuilds the caller's arguments inside the trace as Tensors over
the call's storages (views with their traced start offsets). Coming out, :func:`outputs`
describes the trace's result: the final value of each written storage, the values of new
storages, and per result leaf whether it is a plain value, an argument, or a (view of a)
storage; :class:`Aux` carries that description back through JAX's dispatch, and
:func:`results` rebuilds the caller's results from it (aliasing results as views of the
arguments, or of the owners of closed-over Tensors).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .._core import Storage, Tensor, _view, weak_argument
from . import _trace as jtr
from ._spec import VALUE, OnStorage, Same, Spec, Static, StaticSlice, is_tensor

Tracer = jax.core.Tracer
_IDX = _view._IDX_NP
_NONE_TREE = jax.tree_util.tree_structure(None)


# -- what each result leaf is (``Aux.out_desc``) --------------------------------------
class Plain(NamedTuple):
    """A result leaf that is no Tensor: the compiled function returns it as it is."""


#: the description of every result leaf that is no Tensor
PLAIN = Plain()


class Argument(NamedTuple):
    """A result that is an argument Tensor itself: the caller gets that object back."""

    leaf: int  # the argument's leaf number


class OnCallStorage(NamedTuple):
    """A result that is (a view of) one of the call's storages, an argument's or a
    closed-over Tensor's (found before the call or by the trace)."""

    storage: int  # the storage's number (the call's storages, then the discovered ones)
    view: Any  # the view's key, or None: the whole storage
    starts: tuple | None  # the view's start offsets, or None: they come back as an output


class OnNewStorage(NamedTuple):
    """A result that is (a view of) a storage the function made."""

    storage: int  # the new storage's number (its array's place among the new arrays)
    view: Any  # the view's key, or None: the whole storage
    starts: tuple | None  # the view's start offsets, or None: they come back as an output


class Aux:
    """The static side of one trace of a compiled function.

    The compiled function returns ``{aux: arrays}``: a one-entry dict whose key is this
    object (hashed by identity), so each call gets back, from JAX's C++ dispatch, the
    description of the variant JAX ran without any Python pytree code. ``arrays``: the
    final values of the ``written`` storages (numbered over the call's storages, then the
    ``discovered`` ones), the new storages of the results, the results' own leaves, and,
    when the trace made bounds checks, their ``[code, value]`` output (or, ``coded``, the
    number of the first failed check alone).
    """

    __slots__ = ("written", "pairs", "out_tree", "out_desc", "n_new", "checks", "none",
                 "discovered", "owners", "coded")

    def __init__(self, written: tuple, out_tree: Any, out_desc: tuple, n_new: int,
                 checks: tuple, discovered: tuple, owners: dict | None = None) -> None:
        self.written = written
        self.pairs = tuple(enumerate(written))  # (position in the outputs, storage number)
        self.out_tree = out_tree
        self.out_desc = out_desc
        self.n_new = n_new
        self.checks = checks  # (axis, size, unsigned) of each check, in program order
        self.none = not out_desc and out_tree == _NONE_TREE  # the function returns None
        self.discovered = discovered  # weak references
        # per storage number of a closed-over Tensor among the results: that Tensor's
        # owner (weakly), the base its views come back on, as eagerly
        self.owners = owners or {}
        # the arrays end with the number of the first failed check (0: none), not with
        # ``[code, value]`` (see ``_checks._body_hoisted``)
        self.coded = False

    def __repr__(self) -> str:
        # (named in the compiled program's result attributes: an address there would give
        # the program a new persistent-cache key in every process)
        return "outputs"

    def with_code(self) -> Aux:
        """This for a program whose last output is the number of the first failed check."""
        new = self.without_checks()
        new.coded = True
        return new

    def without_checks(self) -> Aux:
        """This for a program without the checks' output."""
        return Aux(self.written, self.out_tree, self.out_desc, self.n_new, (), self.discovered,
                   self.owners)


def tensor_on(storage: Storage, view: _view.View | None, base: Tensor | None) -> Tensor:
    t = object.__new__(Tensor)
    t._storage = storage
    t._view = view
    t._cache = None
    t._cache_version = -1
    t._base = base
    return t


def starts_out(view: _view.View) -> tuple[tuple | None, Any]:
    """(static starts or None, dynamic starts array or None) of a view leaving the trace."""
    s = view.starts
    if not s:
        return (), None
    if any(isinstance(v, Tracer) for v in s):
        return None, jnp.stack([jnp.asarray(v, _IDX) for v in s])
    return tuple(int(v) for v in s), None


def layout(spec: Spec) -> tuple[tuple[int, ...], tuple[int, ...], int | None]:
    """Where the compiled function of ``spec`` finds its inputs: the argument position of
    each storage's array, of each other (non-Tensor) leaf, and of the view starts.

    The arrays come in the order of the leaves: a Tensor whose storage is new contributes
    its storage's array, a number or array itself; the storages of closed-over Tensors
    follow, then the starts of the argument views (one array), if any.
    """
    n_st = spec.n_storages
    positions: list[int] = []
    others: list[int] = []
    pos = 0
    for d in spec.leaves:
        if d is VALUE:
            others.append(pos)
            pos += 1
        elif type(d) is OnStorage and d.storage == len(positions):  # (its storage's first leaf)
            positions.append(pos)
            pos += 1
    while len(positions) < n_st:
        positions.append(pos)
        pos += 1
    return tuple(positions), tuple(others), (pos if spec.n_starts else None)


def results(aux: Aux, outs: tuple, storages: list[Storage], leaves: Sequence
             ) -> Any:
    if not aux.out_desc:
        return aux.out_tree.unflatten(())
    nw = len(aux.written)
    new_arrays = outs[nw:nw + aux.n_new]
    out_vals = outs[nw + aux.n_new:nw + aux.n_new + len(aux.out_desc)]
    first: dict[int, Tensor] = {}  # per storage: the base Tensor among the arguments,
    if any(type(d) is OnCallStorage for d in aux.out_desc):  # or the first one
        sid = {st: k for k, st in enumerate(storages)}
        for x in leaves:
            if isinstance(x, Tensor):
                k = sid[x._storage]
                if k not in first or x._view is None:
                    first[k] = x
    news: dict[int, Tensor] = {}
    res = []
    for d, val in zip(aux.out_desc, out_vals):
        t = type(d)
        if t is Plain:
            res.append(val)
            continue
        if t is Argument:
            res.append(leaves[d.leaf])
            continue
        k, key, static_starts = d.storage, d.view, d.starts
        if t is OnCallStorage:
            owner = first.get(k)
            if owner is None:
                owner = _owner(aux, k, storages[k])
        else:
            owner = news.get(k)
            if owner is None:
                owner = news[k] = Tensor._wrap(new_arrays[k])
        if key is None:
            if owner is not None and owner._view is None:
                res.append(owner)
            else:
                res.append(tensor_on(storages[k], None, None))
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
            res.append(tensor_on(storages[k], view, None))
    return jax.tree_util.tree_unflatten(aux.out_tree, res)


def _owner(aux: Aux, k: int, storage: Storage) -> Tensor | None:
    """The closed-over Tensor owning storage ``k`` of the results, if it is still alive and
    still owns it."""
    ref = aux.owners.get(k)
    owner = None if ref is None else ref()
    return owner if owner is not None and owner._storage is storage else None


def arguments(spec: Spec, storages: list[Storage], others: list[Any],
               starts: Any) -> tuple[list, dict, list]:
    """The function's arguments, as Tensors over the call's storages."""
    static, n_args = spec.static, spec.n_args
    rebuilt: list[Any] = []
    bases: dict[int, Tensor] = {}
    off = 0
    others = list(others)
    for d in spec.leaves:
        if d is VALUE:  # (a Python number as a WeakTensor: its operators are the number's)
            rebuilt.append(weak_argument(others.pop(0)))
            continue
        if type(d) is Same:
            rebuilt.append(rebuilt[d.leaf])
            continue
        if type(d) is Static:
            rebuilt.append(slice(*d.value) if type(d.value) is StaticSlice else d.value)
            continue
        k, key, n = d.storage, d.view, d.n_starts
        base = None
        if d.has_base:
            base = bases.get(k)
            if base is None:
                base = bases[k] = tensor_on(storages[k], None, None)
        if key is None:
            t = tensor_on(storages[k], None, base)
            bases.setdefault(k, t)
        else:
            s = tuple(starts[off + i] for i in range(n))
            off += n
            t = tensor_on(storages[k], _view.View(key[0], s, key[1]), base)
        rebuilt.append(t)
    dyn_args, dyn_kwargs = jax.tree_util.tree_unflatten(spec.treedef, rebuilt)
    args: list[Any] = []
    it = iter(dyn_args)
    static_pos = {k: v for k, v in static if isinstance(k, int)}
    for i in range(n_args):
        args.append(static_pos[i] if i in static_pos else next(it))
    kwargs = dict(dyn_kwargs)
    kwargs.update({k: v for k, v in static if isinstance(k, str)})
    return args, kwargs, rebuilt


def outputs(spec: Spec, trace: jtr.Trace, storages: list[Storage],
             rebuilt: list[Any], out: Any) -> dict:
    desc, donated = spec.leaves, spec.donated
    out_leaves, out_tree = jax.tree_util.tree_flatten(out, is_leaf=is_tensor)
    for x in out_leaves:  # a closed-over Tensor returned as it is: discovered too
        if isinstance(x, Tensor):
            trace.read(x._storage)
    every = storages + trace.discovered
    written = tuple(k for k, st in enumerate(every)
                    if (k < len(donated) and donated[k]) or trace.written(st))
    finals = [trace.values[every[k]] for k in written]
    sid = {st: k for k, st in enumerate(every)}
    arg_ids = {id(t): j for j, t in enumerate(rebuilt) if isinstance(t, Tensor)}
    arg_sts = {t._storage for t in rebuilt if isinstance(t, Tensor)}
    owners: dict[int, Any] = {}
    new_sid: dict[Storage, int] = {}
    new_arrays: list[Any] = []
    out_desc: list[Any] = []
    out_vals: list[Any] = []
    for x in out_leaves:
        if not isinstance(x, Tensor):
            out_desc.append(PLAIN)
            out_vals.append(x)
            continue
        j = arg_ids.get(id(x))
        if j is not None and desc[j] is not VALUE:
            out_desc.append(Argument(j))
            out_vals.append(None)
            continue
        st = x._storage
        k = sid.get(st)
        kind: type[OnCallStorage] | type[OnNewStorage] = OnCallStorage
        if k is None:
            kind = OnNewStorage
            k = new_sid.get(st)
            if k is None:
                k = new_sid[st] = len(new_arrays)
                new_arrays.append(trace.read(st))
        elif st not in arg_sts and k not in owners:
            owners[k] = weakref.ref(x._base if x._base is not None else x)
        v = x._view
        if v is None:
            out_desc.append(kind(k, None, ()))
            out_vals.append(None)
        else:
            s_static, s_dyn = starts_out(v)
            out_desc.append(kind(k, v.key, s_static))
            out_vals.append(s_dyn)
    outs = finals + new_arrays + out_vals
    checks: tuple = ()
    if trace.items:
        outs.append(trace.check_output())
        checks = tuple(trace.msgs)
    aux = Aux(written, out_tree, tuple(out_desc), len(new_arrays), checks,
               jtr.weak(trace.discovered), owners)
    return {aux: tuple(outs)}
