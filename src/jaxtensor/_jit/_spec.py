"""What a ``jaxtensor.jit`` call passes: its static arguments, its leaves, and for each leaf
what the compiled function gets (a storage's array once per storage, a number or array as it
is, a view's start offsets as data), and the closed-over Tensors a function names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .._core import Storage, Tensor, _view
from . import _pytree as jpt

Tracer = jax.core.Tracer
_IDX = _view._IDX_NP
_ArrayImpl = type(jnp.zeros(0))

#: argument types that are pytree leaves as they are
#: (a Python or NumPy bool is static: as an index it means a new axis, selected or not, which
#: a traced bool cannot; a list of them is a mask known while tracing, as eagerly)
FLAT_LEAF = frozenset({Tensor, int, float, complex, np.ndarray, _ArrayImpl})
ARRAY_TYPES = (jax.Array, np.ndarray, np.generic, Tracer)


class Desc(NamedTuple):
    """A call described (:meth:`~._jit.Jitted._describe`)."""

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


def flatten(args: tuple, kwargs: dict, static_argnums: tuple[int, ...],
            static_argnames: tuple[str, ...], flat_trees: dict[int, Any]
            ) -> tuple[list, Any, tuple]:
    """The dynamic arguments' leaves, their tree structure and the static arguments
    (``flat_trees``: the structures of flat positional calls by length, kept by the caller)."""
    dyn_args, dyn_kwargs, static = split(args, kwargs, static_argnums, static_argnames)
    if not dyn_kwargs and all(type(a) in FLAT_LEAF for a in dyn_args):
        leaves = list(dyn_args)  # the common case, without the cost of a general flatten
        treedef = flat_trees.get(len(leaves))
        if treedef is None:
            treedef = flat_trees[len(leaves)] = jax.tree_util.tree_structure(
                (tuple(range(len(leaves))), {}))
        return leaves, treedef, static
    leaves, treedef = jax.tree_util.tree_flatten((tuple(dyn_args), dyn_kwargs),
                                                 is_leaf=jpt.is_tensor)
    return leaves, treedef, static


def describe_leaves(leaves: list
                    ) -> tuple[list[Storage], dict[Storage, int], list, list, list]:
    """Per leaf, what the compiled function gets: (the storages, each once; their numbers;
    the leaves' descriptions; the views' start offsets; the compiled function's arguments,
    ``None`` in place of each storage's array until donation is decided)."""
    storages: list[Storage] = []
    sid: dict[Storage, int] = {}
    desc: list[Any] = []
    starts: list[Any] = []
    inputs: list[Any] = []  # the compiled function's arguments (see _pytree.layout)
    seen: dict[int, int] = {}
    for j, x in enumerate(leaves):
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
        elif type(x) in FLAT_LEAF or (isinstance(x, ARRAY_TYPES) and not
                                       isinstance(x, np.bool_)):
            desc.append(None)
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
                x = jpt.StaticSlice((x.start, x.stop, x.step))
            desc.append(("static", x))
    return storages, sid, desc, starts, inputs
