"""Hypothesis strategies shared by the indexing and view tests.

Every index is generated twice, as the *same* index in two spellings: ``jt_index`` for
jaxtensor (with Tensors, JAX arrays, NumPy arrays, lists, 0-D Tensors as ints and slice
bounds) and ``np_index`` for the NumPy 2 oracle (plain ints, NumPy arrays, lists). Shapes
are small (at most 4 dimensions, sides at most 5) so a differential test stays cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jaxtensor as jt

INDEX_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8]
X_DTYPES = [
    np.dtype(d)
    for d in ("int64", "int32", "int8", "uint8", "float32", "float64", "bool", "complex64")
]


@dataclass
class Index:
    """One index in both spellings, plus a readable description for failures."""

    jt_index: Any
    np_index: Any

    def __repr__(self) -> str:
        return f"Index(np={self.np_index!r}, jt={self.jt_index!r})"


def shapes(max_dims: int = 4, min_dims: int = 0) -> st.SearchStrategy[tuple[int, ...]]:
    """Small shapes; a zero-size side now and then."""
    return st.one_of(
        hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=1, max_side=5),
        hnp.array_shapes(min_dims=max(min_dims, 1), max_dims=max_dims, min_side=0, max_side=4),
    )


def example_array(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """Distinct, deterministic values (so duplicates and order are visible)."""
    n = int(np.prod(shape))
    base = np.arange(n, dtype=np.int64).reshape(shape)
    return np.asarray(_example_values(base, dtype))


def _example_values(base: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if dtype.kind == "b":
        return (base % 3 == 1).astype(bool)
    if dtype.kind == "u" or dtype.itemsize == 1:
        return ((base * 7 + 3) % 101).astype(dtype)
    if dtype.kind == "i":
        return (base * 7 - 11).astype(dtype)
    if dtype.kind == "f":
        return (base * 1.5 - 4.25).astype(dtype)
    return (base * 1.5 - 2j * base + 0.5j).astype(dtype)


# -- wrappers: the same index value in jaxtensor's spellings ----------------------------
@st.composite
def int_array_spelling(draw: st.DrawFn, arr: np.ndarray) -> Any:
    """An integer index array as a list, NumPy array, JAX array or Tensor (random int dtype)."""
    kind = draw(st.sampled_from(["list", "numpy", "jax", "tensor", "view"]))
    if kind == "list":
        return arr.tolist()
    ok = [d for d in INDEX_DTYPES if arr.size == 0 or (
        np.iinfo(d).min <= arr.min() and arr.max() <= np.iinfo(d).max)]
    dt = draw(st.sampled_from(ok))
    a = arr.astype(dt)
    if kind == "numpy":
        return a
    if kind == "jax":
        return jnp.asarray(a)
    if kind == "view":  # a (strided) view of another Tensor is an index array too
        return jt.asarray(np.stack([a, a + 1]))[0]
    return jt.asarray(a)


@st.composite
def bool_array_spelling(draw: st.DrawFn, arr: np.ndarray) -> Any:
    kind = draw(st.sampled_from(["list", "numpy", "jax", "tensor"]))
    if kind == "list" and arr.size > 0:
        return arr.tolist()
    if kind == "jax":
        return jnp.asarray(arr)
    if kind == "tensor":
        return jt.asarray(arr)
    return arr


@st.composite
def int_scalar_spelling(draw: st.DrawFn, i: int, array_ok: bool = True) -> Any:
    """An integer as int, NumPy scalar, 0-D NumPy/JAX array, 0-D Tensor or 0-D Tensor view.

    A 0-D NumPy array is an advanced index (a copy) as an index item, as in NumPy; the
    others index like an int (a view). ``array_ok=False`` leaves it out."""
    kinds = ["int", "int", "npscalar", "jax0d", "tensor0d", "view0d"] + (["np0d"] * array_ok)
    kind = draw(st.sampled_from(kinds))
    if kind == "int":
        return i
    dt = draw(st.sampled_from([np.int32, np.int64, np.int16]))
    if kind == "npscalar":
        return dt(i)
    if kind == "np0d":
        return np.array(i, dtype=dt)
    if kind == "jax0d":
        return jnp.asarray(i, dtype=dt)
    if kind == "tensor0d":
        return jt.asarray(i, dtype=dt)
    # an element of another Tensor, which is also just an integer index
    return jt.asarray([i - 1, i, i + 1], dtype=dt)[1]


@st.composite
def slice_bound(draw: st.DrawFn, lo: int, hi: int, *, allow_none: bool = True) -> tuple[Any, Any]:
    """(jt spelling, np spelling) of a slice bound in [lo, hi] or None."""
    if allow_none and draw(st.booleans()):
        return None, None
    v = draw(st.integers(lo, hi))
    return draw(int_scalar_spelling(v)), v


@st.composite
def slices(draw: st.DrawFn, n: int) -> tuple[slice, slice]:
    start_j, start_n = draw(slice_bound(-n - 2, n + 2))
    stop_j, stop_n = draw(slice_bound(-n - 2, n + 2))
    if draw(st.booleans()):
        step_j, step_n = None, None
    else:
        step_n = draw(st.sampled_from([1, 2, 3, -1, -2, -3]))
        step_j = draw(int_scalar_spelling(step_n))
    return slice(start_j, stop_j, step_j), slice(start_n, stop_n, step_n)


# -- whole indices ------------------------------------------------------------------------
BASIC_KINDS = ["int", "slice", "slice", "none", "ellipsis"]
ADV_KINDS = ["intarr", "intarr", "mask", "pybool"]


@st.composite
def indices(
    draw: st.DrawFn,
    shape: tuple[int, ...],
    *,
    basic_only: bool = False,
    max_items: int = 6,
    invalid: bool = False,
) -> Index:
    """A valid-or-NumPy-rejected index for an array of ``shape``.

    Items: ints (negative too), 0-D integer arrays/Tensors, slices (any bounds/steps, 0-D
    Tensor bounds), ``None``, at most one ``...``, integer lists/arrays/Tensors sharing one
    broadcast shape (some of them shorter or with 1-sides), boolean masks over 1-3 axes,
    Python/NumPy bools. Only the integer values are kept in bounds (with ``invalid``, now
    and then an integer or index array out of bounds or a mask side of another size too);
    everything else
    (broadcasting of a mask's count with other arrays) is left to NumPy to judge.
    """
    ndim = len(shape)
    kinds_pool = BASIC_KINDS if basic_only else BASIC_KINDS + ADV_KINDS
    n_items = draw(st.integers(0, max_items))
    kinds: list[tuple[str, int]] = []  # (kind, axes consumed)
    budget = ndim
    has_ellipsis = False
    for _ in range(n_items):
        kind = draw(st.sampled_from(kinds_pool))
        if kind == "ellipsis":
            if has_ellipsis:
                continue
            has_ellipsis = True
            kinds.append((kind, 0))
        elif kind in ("int", "slice", "intarr"):
            if budget == 0:
                continue
            budget -= 1
            kinds.append((kind, 1))
        elif kind == "mask":
            if budget == 0:
                continue
            k = draw(st.integers(1, min(budget, 3)))
            budget -= k
            kinds.append((kind, k))
        else:  # none, pybool
            kinds.append((kind, 0))
    consumed = ndim - budget
    # axes: before the ellipsis from the front, after it from the back
    axes: list[int] = []
    axis = 0
    for j, (kind, k) in enumerate(kinds):
        if kind == "ellipsis":
            after = sum(kk for _, kk in kinds[j + 1:])
            axis = ndim - after
            axes.append(-1)
            continue
        axes.append(axis)
        axis += k
    del consumed
    bshape = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))
    jt_items: list[Any] = []
    np_items: list[Any] = []
    for (kind, k), a in zip(kinds, axes):
        if kind == "ellipsis":
            jt_items.append(Ellipsis)
            np_items.append(Ellipsis)
        elif kind == "none":
            jt_items.append(None)
            np_items.append(None)
        elif kind == "pybool":
            b = draw(st.booleans())
            spelled = draw(st.sampled_from(
                [b, np.bool_(b), np.array(b), jnp.asarray(b), jt.asarray(b)]))
            jt_items.append(spelled)
            np_items.append(b)
        elif kind == "int":
            n = shape[a]
            if n == 0:  # no valid integer: use a slice instead
                js, ns = draw(slices(n))
                jt_items.append(js)
                np_items.append(ns)
                continue
            lo, hi = (-n - 2, n + 1) if invalid and draw(st.integers(0, 9)) == 0 else (-n, n - 1)
            i = draw(st.integers(lo, hi))
            j = draw(int_scalar_spelling(i, array_ok=not basic_only))
            jt_items.append(j)
            np_items.append(j if type(j) is np.ndarray else i)  # (NumPy's rule for both)
        elif kind == "slice":
            js, ns = draw(slices(shape[a]))
            jt_items.append(js)
            np_items.append(ns)
        elif kind == "intarr":
            n = shape[a]
            # a shape that broadcasts to bshape: a suffix, some sides set to 1
            nd = draw(st.integers(0, len(bshape)))
            ashape = tuple(
                1 if draw(st.integers(0, 3)) == 0 else s
                for s in bshape[len(bshape) - nd:]
            )
            if n == 0:
                ashape = ashape[:-1] + (0,) if ashape else (0,)
                arr = np.zeros(ashape, np.int64)
            else:
                arr = np.asarray(
                    draw(hnp.arrays(np.int64, ashape, elements=st.integers(
                        *((-n - 2, n + 1) if invalid and draw(st.integers(0, 9)) == 0
                          else (-n, n - 1)))))
                )
            if arr.ndim == 0:  # a 0-D array: an advanced index (as NumPy's), or an int spelling
                j = draw(int_scalar_spelling(int(arr)))
                jt_items.append(j)
                np_items.append(j if type(j) is np.ndarray else int(arr))
                continue
            jt_items.append(draw(int_array_spelling(arr)))
            np_items.append(arr)
        else:  # mask over k axes
            mshape = shape[a:a + k]
            if invalid and draw(st.integers(0, 9)) == 0:  # one side of another size (or 0)
                d = draw(st.integers(0, k - 1))
                mshape = mshape[:d] + (draw(st.integers(0, 5)),) + mshape[d + 1:]
            density = draw(st.sampled_from([0.0, 0.3, 0.7, 1.0]))
            flat = draw(st.lists(st.floats(0, 1), min_size=int(np.prod(mshape)),
                                 max_size=int(np.prod(mshape))))
            mask = (np.asarray(flat, dtype=float) < density).reshape(mshape)
            jt_items.append(draw(bool_array_spelling(mask)))
            np_items.append(mask)
    if len(jt_items) == 1 and draw(st.booleans()):
        return Index(jt_items[0], np_items[0])
    return Index(tuple(jt_items), tuple(np_items))


def to_numpy_index(index: Any) -> Any:
    """A NumPy spelling of an index given in jaxtensor spellings (for hand-written tests)."""
    if isinstance(index, tuple):
        return tuple(to_numpy_index(i) for i in index)
    if isinstance(index, slice):
        return slice(*(to_numpy_index(b) for b in (index.start, index.stop, index.step)))
    if isinstance(index, jt.Tensor) or type(index).__module__.startswith("jax"):
        return np.asarray(index)
    return index


def assert_same_array(got: Any, expected: Any) -> None:
    """``got`` is a Tensor with NumPy's shape, dtype and values (a scalar counts as 0-D)."""
    assert isinstance(got, jt.Tensor), type(got)
    exp = np.asarray(expected)
    g = np.asarray(got)
    assert g.shape == exp.shape, (g.shape, exp.shape)
    assert g.dtype == exp.dtype, (g.dtype, exp.dtype)
    np.testing.assert_array_equal(g, exp)
