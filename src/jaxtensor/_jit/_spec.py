"""What a ``jaxtensor.jit`` call passes: its static arguments, its leaves, and for each leaf
what the compiled function gets (a storage's array once per storage, a number or array as it
is, a view's start offsets as data), and the closed-over Tensors a function names."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Hashable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .._core import Storage, Tensor, WeakTensor, _view

Tracer = jax.core.Tracer
_IDX = _view._IDX_NP
_ArrayImpl = type(jnp.zeros(0))

#: argument types that are pytree leaves as they are
#: (a Python or NumPy bool is static: as an index it means a new axis, selected or not, which
#: a traced bool cannot; a list of them is a mask known while tracing, as eagerly)
FLAT_LEAF = frozenset({Tensor, int, float, complex, np.ndarray, _ArrayImpl})
ARRAY_TYPES = (jax.Array, np.ndarray, np.generic, Tracer)


class Spec(NamedTuple):
    """A call described, values aside: everything its trace depends on. The key of its
    :class:`~._plans.Plan` (hashed as a tuple: a plan is found at a tuple's cost)."""

    treedef: Any  # the pytree structure of the dynamic arguments
    leaves: tuple  # per leaf of the dynamic arguments: VALUE, Same, Static or OnStorage
    static: tuple  # the static arguments, ((position or name, value), ...)
    static_key: tuple  # ... told apart where ``==`` would confuse them (:func:`strict`)
    n_args: int  # the number of positional arguments given
    n_storages: int  # the storages passed: the arguments' (in leaf order), then closed-over
    n_starts: int  # the start offsets of the view arguments (passed as one array)
    implicit: tuple  # the storage number of each closed-over Tensor the function touches
    donated: tuple  # per storage, whether its buffer is donated
    check: Any  # the bounds-check mode (a ``_modes.CheckMode``; None: no checks)


class Value(NamedTuple):
    """A leaf that is a number or an array: an input of the compiled function as it is."""


#: the description of every number or array leaf
VALUE = Value()


class Same(NamedTuple):
    """A leaf that is the same Tensor object as an earlier leaf."""

    leaf: int  # the earlier leaf's number


class Static(NamedTuple):
    """A leaf JAX cannot trace (a string, an object, a function, a slice): static, as if
    named in ``static_argnums``."""

    value: Hashable  # the value itself (a slice as a StaticSlice)
    # (NamedTuples compare as tuples: without it ``Static(False)`` would equal ``Same(0)``,
    # and a call passing False would run the plan of a call passing its first Tensor twice)
    tag: str = "static"


class OnStorage(NamedTuple):
    """A leaf that is a Tensor (the first leaf of that Tensor object)."""

    storage: int  # its storage's number among the call's storages
    view: Any  # its view's key, or None: it is its storage's whole array
    n_starts: int  # how many start offsets its view passes (as data)
    has_base: bool  # it is a view of another Tensor (it has a ``_base``)


# (``tuple.__new__`` made partial: a NamedTuple's own ``__new__`` is a Python call, which
# the call path of a view argument would pay per leaf and per call)
_new_on_storage = functools.partial(tuple.__new__, OnStorage)
_new_spec = functools.partial(tuple.__new__, Spec)
_new_same = functools.partial(tuple.__new__, Same)
_new_static = functools.partial(tuple.__new__, Static)


class StaticSlice(tuple):
    """A slice argument as a static value (slices are unhashable before Python 3.12);
    the function gets the slice back."""


def is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)



class Desc(NamedTuple):
    """A call described (:meth:`~._jit.Jitted._describe`)."""

    leaves: list  # the dynamic arguments' leaves (the caller's values)
    treedef: Any  # their pytree structure
    static: tuple  # the static arguments, ((position or name, value), ...)
    storages: list  # the storages passed, each once: the arguments', then closed-over
    desc: list  # per leaf, what it is (Spec.leaves)
    starts: list  # the view arguments' start offsets, in leaf order
    inputs: list  # the compiled function's arguments (None where a storage's array goes)
    implicit: tuple  # the storage number of each closed-over Tensor
    outer: Any  # the JAX trace the call is made under
    parent: Any  # the enclosing jaxtensor.jit trace, if any
    nested: bool  # made inside another trace (nothing donated, no lock taken)
    check: Any  # the bounds-check mode (Spec.check)

    def spec(self, n_args: int, donated: tuple) -> Spec:
        """The call's :class:`Spec` (``donated``: whether each storage's buffer is)."""
        return _new_spec((self.treedef, tuple(self.desc), self.static,
                          strict(self.static) if self.static else (), n_args,
                          len(self.storages), len(self.starts), self.implicit, donated,
                          self.check))


def strict(v: Any) -> Hashable:
    """A key of the static value ``v`` that tells apart what ``==`` confuses and a trace
    may not: a bool from an int, ``-0.0`` from ``0.0`` (a float by its bits; NaN equals
    itself), NumPy scalars by type and bytes, the same inside tuples."""
    t = type(v)
    if t is float:
        return t, v.hex()
    if t is complex:
        return t, v.real.hex(), v.imag.hex()
    if t is tuple or t is StaticSlice:
        return t, tuple([strict(x) for x in v])
    if isinstance(v, np.generic):
        return t, v.tobytes()
    return t, v


def hashable(v: Any) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def starts_array(starts: list[Any]) -> Any:
    """The view arguments' start offsets as one array (a traced one inside a trace)."""
    if any(isinstance(s, Tracer) for s in starts):
        return jnp.stack([jnp.asarray(s, _IDX) for s in starts])
    return np.array(starts, dtype=_IDX)


def closed_over(fn: Callable) -> list[Storage]:
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


def split(args: tuple, kwargs: dict, static_argnums: tuple[int, ...],
          static_argnames: tuple[str, ...]) -> tuple[Any, dict, tuple]:
    """(dynamic positional arguments, dynamic keyword arguments, static arguments as
    ``((position or name, value), ...)``)."""
    if not kwargs and not static_argnums:
        return args, kwargs, ()
    n = len(args)
    nums = {i if i >= 0 else i + n for i in static_argnums}
    static: list[tuple] = []
    dyn_args = []
    for i, a in enumerate(args):
        if i in nums:
            static.append((i, a))
        else:
            dyn_args.append(a)
    dyn_kwargs = {}
    for k in sorted(kwargs):
        if k in static_argnames:
            static.append((k, kwargs[k]))
        else:
            dyn_kwargs[k] = kwargs[k]
    static_t = tuple(static)
    if not hashable(static_t):
        bad = [k for k, v in static if not hashable(v)]
        raise ValueError(
            f"static arguments {bad} of jaxtensor.jit must be hashable; pass arrays and "
            "Tensors as dynamic arguments instead"
        )
    return dyn_args, dyn_kwargs, static_t


def describe(args: tuple, kwargs: dict, static_argnums: tuple[int, ...],
             static_argnames: tuple[str, ...], flat_trees: dict[int, Any]) -> tuple:
    """A call's leaves, their tree structure and static arguments (``flat_trees``: the
    structures of flat positional calls by length, kept by the caller), and per leaf what
    the compiled function gets: ``(leaves, treedef, static, storages (each once), their
    numbers, the leaves' descriptions, the views' start offsets, the compiled function's
    arguments)``, ``None`` among the arguments in place of each storage's array until
    donation is decided."""
    dyn_args, dyn_kwargs, static = split(args, kwargs, static_argnums, static_argnames)
    if not dyn_kwargs and all(type(a) in FLAT_LEAF for a in dyn_args):
        leaves = list(dyn_args)  # the common case, without the cost of a general flatten
        treedef = flat_trees.get(len(leaves))
        if treedef is None:
            treedef = flat_trees[len(leaves)] = jax.tree_util.tree_structure(
                (tuple(range(len(leaves))), {}))
    else:
        leaves, treedef = jax.tree_util.tree_flatten((tuple(dyn_args), dyn_kwargs),
                                                     is_leaf=is_tensor)
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
                desc.append(_new_same((prev,)))
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
                desc.append(_new_on_storage((k, None, 0, x._base is not None)))
            else:
                desc.append(_new_on_storage((k, v.key, len(v.starts), True)))
                starts.extend(v.starts)
        elif type(x) in FLAT_LEAF or (isinstance(x, ARRAY_TYPES) and not
                                       isinstance(x, np.bool_)):
            desc.append(VALUE)
            inputs.append(x)
        else:
            # not something JAX can trace (a string, an object, a function, a slice):
            # static, as if named in static_argnums (methods get ``self`` this way)
            if not hashable(x) and type(x) is not slice:
                raise ValueError(
                    f"jaxtensor.jit: an argument of type {type(x).__name__} is neither an "
                    "array nor hashable, so it can be neither traced nor static; pass "
                    "arrays, Tensors, numbers, or hashable Python values"
                )
            if type(x) is slice:  # (unhashable before Python 3.12)
                x = StaticSlice((x.start, x.stop, x.step))
            desc.append(_new_static((x, "static")))
    return leaves, treedef, static, storages, sid, desc, starts, inputs


def explain(fn: Callable, old: tuple, new: tuple,
            input_names: Callable[[Spec], tuple[str, ...]]) -> str:
    """What differs between two traced signatures ``(spec, input types)`` of ``fn``, in the
    user's words (``input_names(spec)``: the user's name of each input)."""
    (o_spec, o_avals), (n_spec, n_avals) = old, new
    if o_spec.treedef != n_spec.treedef:
        return "the structure of the arguments changed"
    for j, (a, b) in enumerate(zip(o_spec.leaves, n_spec.leaves)):
        if a != b and type(a) is type(b) is Static:
            return f"the static argument {j} changed ({a.value!r} -> {b.value!r})"
    if o_spec.static != n_spec.static:
        for (k, a), (k2, b) in zip(o_spec.static, n_spec.static):
            if k == k2 and (type(a) is not type(b) or a != b):
                return f"the static argument {_arg_name(fn, k)} changed ({a!r} -> {b!r})"
        return "the static arguments given changed"
    if o_avals != n_avals:
        names = input_names(n_spec)
        for k, (a, b) in enumerate(zip(o_avals, n_avals)):
            if a != b:
                who = names[k] if k < len(names) else f"input {k}"
                return (f"the shape or dtype of {who} changed ({a.str_short()} -> "
                        f"{b.str_short()})"
                        if a is not None and b is not None else f"{who} changed")
    if o_spec.leaves != n_spec.leaves:
        return "the view structure or aliasing of the Tensor arguments changed"
    return "which buffers are donated, or the closed-over Tensors, changed"


def _arg_name(fn: Callable, k: int | str) -> str:
    if type(k) is str:
        return k
    try:
        return list(inspect.signature(fn).parameters)[k]
    except (TypeError, ValueError, IndexError):
        return str(k)
