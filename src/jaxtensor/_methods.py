"""Every Tensor method and operator that is a namespace function: one table, bound once.

:class:`~jaxtensor._core._tensor.Tensor`'s class body holds only what needs nothing but its
storage and view (shape, dtype, conversions, ``T``). Everything else, from ``x + y`` and
``x[k] = v`` to ``x.sum(dim=0)``, is listed in :data:`METHODS` (name → function), and bound
onto the class when this module is imported: ``jaxtensor/__init__.py`` imports it once,
after the namespace modules it draws on. To find where ``Tensor.sum`` or ``__add__`` lives,
read its row here.

A row is the namespace function itself where the method has the same signature, else a
*method form* defined below (the reductions' in :mod:`._reduction_methods`): PyTorch's
spellings (``dim=``, ``keepdim=``, ``x.permute(1, 0)``) mapped onto the standard function. Operators are the element-wise functions behind the
element-wise module's per-signature fast path (:func:`forward`, :func:`reflected`), and the
in-place operators write back through the storage (:func:`inplace`).

>>> import jaxtensor as jt
>>> x = jt.asarray([[1.0, 2.0], [3.0, 4.0]])
>>> x.sum(dim=0).tolist(), (2 * x - 1).tolist()
([4.0, 6.0], [[1.0, 3.0], [5.0, 7.0]])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np

from . import _elementwise as ew
from . import _numpy_names
from ._args import declines, normalize_axis
from ._core import Tensor, _view, asarray
from ._data_exchange import _dlpack, _dlpack_device, _to_device
from ._data_type_functions import astype as _astype
from ._fast_operators import fast_operator
from ._index_select import index_select as _index_select
from ._indexing import getitem, setitem
from ._indexing_functions import (
    _index_add_inplace,
    _index_put_inplace,
    _scatter_inplace,
    gather,
    index_add,
    index_put,
    scatter,
    scatter_reduce,
    take_along_axis,
)
from ._inplace import inplace
from ._linear_algebra import matmul
from ._manipulation import _resolve_shape, flip, moveaxis, permute_dims, reshape, roll, squeeze
from ._reduction_methods import REDUCTIONS, _reduction
from ._searching import argmax, argmin
from ._sorting import argsort
from ._utility import any

# -- operators --------------------------------------------------------------------------------
#: operands whose refusal (no type promotion) the operator raises: a NumPy or JAX value's own
#: reflected operator would answer instead (``x * np.True_`` a NumPy array, ``x ==
#: np.True_`` Python's identity: False)
_SCALARS = (Tensor, bool, int, float, complex, np.ndarray, np.generic, jax.Array)

# element-wise functions that are one ``binary`` call, with no checks of their own before it
_FAST = frozenset({
    "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow", "equal",
    "not_equal", "less", "less_equal", "greater", "greater_equal",
})


def _fast(fn: Callable, slow: Callable, reflected: bool) -> Callable:
    """``slow`` behind the element-wise module's per-signature fast path, when ``fn`` is one
    of its ``binary`` functions (its ``__name__`` is then the name ``binary`` records)."""
    if fn.__name__ not in _FAST or getattr(ew, fn.__name__) is not fn:
        return slow
    return fast_operator(fn.__name__, slow, reflected=reflected)


def forward(fn: Callable, repeats: bool = False) -> Callable:
    """``x.__op__(y)``: ``fn(x, y)``, or ``NotImplemented`` for an operand it does not know
    (``repeats``: :func:`_repeats`, on the slow path, which a list or tuple takes)."""
    def op(self: Tensor, other: Any) -> Any:
        if repeats and _repeats(self, other):
            return NotImplemented
        try:
            return fn(self, other)
        except TypeError:
            if not isinstance(other, _SCALARS):
                return NotImplemented
            raise
        except IndexError:
            if declines(other):
                return NotImplemented
            raise

    return _fast(fn, op, reflected=False)


def reflected(fn: Callable, repeats: bool = False) -> Callable:
    """``x.__rop__(y)``: ``fn(y, x)``, or ``NotImplemented`` for an operand it does not know."""
    def op(self: Tensor, other: Any) -> Any:
        if repeats and _repeats(self, other):
            return NotImplemented
        try:
            return fn(other, self)
        except TypeError:
            if not isinstance(other, _SCALARS):
                return NotImplemented
            raise
        except IndexError:
            if declines(other):
                return NotImplemented
            raise

    return _fast(fn, op, reflected=True)


def _repeats(self: Tensor, other: Any) -> bool:
    """Whether ``*`` of ``self`` and ``other`` repeats a sequence: a 0-D integer Tensor and a
    list or tuple, as a NumPy integer scalar does (``[0] * x[i]``, ``(1, 2) * n``); the
    operator declines, and Python repeats the sequence by the Tensor's ``__index__``."""
    return (other.__class__ is list or other.__class__ is tuple) and not self.shape and (
        self.dtype.kind in "iu")


# -- divmod and round -------------------------------------------------------------------------
def _divmod(self: Tensor, other: Any) -> Any:
    """``divmod(x, y)``: ``(x // y, x % y)``, as NumPy's."""
    q = self.__floordiv__(other)
    return NotImplemented if q is NotImplemented else (q, self.__mod__(other))


def _rdivmod(self: Tensor, other: Any) -> Any:
    q = self.__rfloordiv__(other)
    return NotImplemented if q is NotImplemented else (q, self.__rmod__(other))


def _round(self: Tensor, ndigits: int | None = None) -> Any:
    """``round(x)``: for a 0-D Tensor (what NumPy gives as a scalar) the Python int, or with
    ``ndigits`` a 0-D Tensor of ``x``'s dtype, as NumPy's scalars; for others ``round(x)``
    as PyTorch's: ``jaxtensor.round`` (half to even) at ``ndigits`` decimals, as NumPy
    computes it (``round(x * 10**d) / 10**d``: ``round(x[0], 2)`` of 2.675 is 2.68)."""
    if ndigits is None:
        return round(self.item()) if not self.ndim else ew.round(self)
    return ew.round(self, ndigits)


# -- complex parts ---------------------------------------------------------------------------
def _set_real(self: Tensor, value: Any) -> None:
    # (``x.real += v`` writes through the view, then assigns the view to itself)
    ew.real(self)[...] = value


def _set_imag(self: Tensor, value: Any) -> None:
    if self.dtype.kind != "c":
        raise TypeError(f"Tensor.imag: a Tensor of dtype {self.dtype} has no imaginary part "
                        "to set")
    ew.imag(self)[...] = value


# -- shape and dtype --------------------------------------------------------------------------
def _shape_args(args: tuple) -> tuple:
    """``f(2, 3)`` and ``f((2, 3))`` alike."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return args


def view_method(self: Tensor, *shape: Any) -> Tensor:
    """A view with a new shape (PyTorch's ``Tensor.view``); raises if a copy is needed."""
    if not shape:  # view(): the same shape (view(()) is a reshape to 0-D, below)
        return self._derive(_view.compose_axes(self._view, self.shape, list(range(self.ndim))))
    new = _resolve_shape(self.shape, _shape_args(shape))
    v = _view.compose_reshape(self._view, self.shape, new)
    if v is None:
        raise ValueError(
            f"cannot view a Tensor of shape {self.shape} with these strides as shape {new} "
            "without copying; use reshape() (which copies) instead"
        )
    return self._derive(v)


def reshape_method(self: Tensor, *shape: Any, copy: bool | None = None) -> Tensor:
    """``reshape(self, shape)``: a view when NumPy would return one, else a copy."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return reshape(self, shape, copy=copy)


def astype_method(self: Tensor, dtype: Any, /, *, copy: bool = True,
                  device: Any = None) -> Tensor:
    """``jaxtensor.astype(self, dtype)``: a Tensor of ``dtype`` (a copy unless ``copy=False``
    and nothing changes)."""
    return _astype(self, dtype, copy=copy, device=device)


def transpose_method(self: Tensor, *axes: Any) -> Tensor:
    """A view with permuted axes: NumPy's ``x.transpose(*axes)`` (no axes: reverse
    them); two axes on a Tensor that is not 2-D swap them, as PyTorch's does."""
    axes = _shape_args(axes)
    if not axes:
        return permute_dims(self, tuple(range(self.ndim))[::-1])
    if len(axes) == 2 and self.ndim != 2:
        return swapaxes_method(self, *axes)
    return permute_dims(self, axes)


def permute_method(self: Tensor, *dims: Any) -> Tensor:
    """PyTorch's ``x.permute(*dims)``: :func:`jaxtensor.permute_dims` (a view)."""
    return permute_dims(self, _shape_args(dims))


def swapaxes_method(self: Tensor, axis1: int, axis2: int) -> Tensor:
    """A view with two axes exchanged (NumPy's ``swapaxes``, PyTorch's
    ``transpose(dim0, dim1)``)."""
    order = list(range(self.ndim))
    a, b = normalize_axis(axis1, self.ndim), normalize_axis(axis2, self.ndim)
    order[a], order[b] = order[b], order[a]
    return permute_dims(self, tuple(order))


def squeeze_method(self: Tensor, axis: Any = None, *, dim: Any = None) -> Tensor:
    """A view without size-1 axes (``axis=None``: all of them)."""
    axis = dim if axis is None else axis
    if axis is None:
        axis = tuple(i for i, n in enumerate(self.shape) if n == 1)
    return squeeze(self, axis)


def flatten_method(self: Tensor) -> Tensor:
    """A 1-D copy (NumPy's ``flatten``); ``ravel()`` returns a view when it can."""
    return reshape(self, (-1,), copy=True)


def ravel_method(self: Tensor) -> Tensor:
    """1-D: a view wherever ``reshape(-1)`` gives one, else a copy.

    This is NumPy's ``reshape`` rule: NumPy's ``ravel`` copies some strided inputs that
    it could view (``x[:, ::2].ravel()`` of a C-contiguous ``x`` with an even number of
    columns)."""
    return reshape(self, (-1,))


def flip_method(self: Tensor, axis: Any = None, *, dims: Any = None) -> Tensor:
    """A reversed view: :func:`jaxtensor.flip` (``dims`` is PyTorch's name)."""
    return flip(self, axis=dims if axis is None else axis)


def roll_method(self: Tensor, shift: Any, axis: Any = None, *, dims: Any = None) -> Tensor:
    """:func:`jaxtensor.roll` (a new Tensor; ``dims`` is PyTorch's name)."""
    return roll(self, shift, axis=dims if axis is None else axis)


def moveaxis_method(self: Tensor, source: Any, destination: Any) -> Tensor:
    """:func:`jaxtensor.moveaxis` (a view)."""
    return moveaxis(self, source, destination)


# -- reductions, scans, sorting ---------------------------------------------------------------
def argsort_method(self: Tensor, axis: int | None = -1, descending: bool = False,
                   stable: bool = True, *, dim: int | None = None) -> Tensor:
    """``argsort(self, axis=..., descending=..., stable=...)`` (``dim`` is PyTorch's
    name for ``axis``; ``axis=None`` sorts the flattened Tensor, as NumPy's)."""
    if axis is None and dim is None:
        return argsort(reshape(self, (-1,)), axis=0, descending=descending, stable=stable)
    return argsort(self, axis=axis if dim is None else dim, descending=descending,
                   stable=stable)


# -- indexing functions -----------------------------------------------------------------------
def index_select_method(self: Tensor, dim: int, index: Any, *,
                        tile_shape: Sequence[int] | None = None) -> Tensor:
    """Method form of :func:`jaxtensor.index_select`.

    >>> import jaxtensor as jt
    >>> jt.arange(6).reshape(2, 3).index_select(1, jt.asarray([2, 0])).tolist()
    [[2, 0], [5, 3]]
    """
    return _index_select(self, dim, index, tile_shape=tile_shape)


def gather_method(self: Tensor, dim: int, index: Any) -> Tensor:
    """Method form of :func:`jaxtensor.gather`."""
    return gather(self, dim, index)


def scatter_method(self: Tensor, dim: int, index: Any, src: Any = None, *, value: Any = None,
                   reduce: str | None = None) -> Tensor:
    """Method form of :func:`jaxtensor.scatter` (``value=`` as PyTorch's scalar form)."""
    return scatter(self, dim, index, value if src is None else src, reduce=reduce)


def scatter__method(self: Tensor, dim: int, index: Any, src: Any = None, *, value: Any = None,
                    reduce: str | None = None) -> Tensor:
    """In-place :func:`jaxtensor.scatter`: writes through the storage (views see it).

    >>> import jaxtensor as jt
    >>> x = jt.zeros((2, 3)); row = x[1]
    >>> _ = x.scatter_(1, jt.asarray([[0], [2]]), 4.0)
    >>> row.tolist()
    [0.0, 0.0, 4.0]
    """
    return _scatter_inplace("scatter_", self, dim, index, value if src is None else src, reduce)


def scatter_add_method(self: Tensor, dim: int, index: Any, src: Any) -> Tensor:
    """``torch.Tensor.scatter_add``: :func:`jaxtensor.scatter` with ``reduce="add"``."""
    return scatter(self, dim, index, src, reduce="add")


def scatter_add__method(self: Tensor, dim: int, index: Any, src: Any) -> Tensor:
    """In-place ``scatter_add`` (repeated indices accumulate)."""
    return _scatter_inplace("scatter_add_", self, dim, index, src, "add")


def scatter_reduce_method(self: Tensor, dim: int, index: Any, src: Any, reduce: str, *,
                          include_self: bool = True) -> Tensor:
    """Method form of :func:`jaxtensor.scatter_reduce`."""
    return scatter_reduce(self, dim, index, src, reduce, include_self=include_self)


def scatter_reduce__method(self: Tensor, dim: int, index: Any, src: Any, reduce: str, *,
                           include_self: bool = True) -> Tensor:
    """In-place :func:`jaxtensor.scatter_reduce`."""
    return _scatter_inplace("scatter_reduce_", self, dim, index, src, reduce, include_self)


def index_put_method(self: Tensor, indices: Any, values: Any,
                     accumulate: bool = False) -> Tensor:
    """Method form of :func:`jaxtensor.index_put`."""
    return index_put(self, indices, values, accumulate)


def index_put__method(self: Tensor, indices: Any, values: Any,
                      accumulate: bool = False) -> Tensor:
    """In-place :func:`jaxtensor.index_put` through the storage (views see it).

    >>> import jaxtensor as jt
    >>> x = jt.zeros(3)
    >>> x.index_put_((jt.asarray([0, 0]),), jt.asarray([1.0, 2.0]), accumulate=True).tolist()
    [3.0, 0.0, 0.0]
    """
    return _index_put_inplace(self, indices, values, accumulate)


def index_add_method(self: Tensor, dim: int, index: Any, source: Any, *,
                     alpha: Any = 1) -> Tensor:
    """Method form of :func:`jaxtensor.index_add`."""
    return index_add(self, dim, index, source, alpha=alpha)


def index_add__method(self: Tensor, dim: int, index: Any, source: Any, *,
                      alpha: Any = 1) -> Tensor:
    """In-place :func:`jaxtensor.index_add` through the storage (views see it)."""
    return _index_add_inplace(self, dim, index, source, alpha)


def take_along_dim_method(self: Tensor, indices: Any, dim: int) -> Tensor:
    """``torch.Tensor.take_along_dim``: :func:`jaxtensor.take_along_axis`."""
    return take_along_axis(self, indices, axis=dim)


# -- the namespace ----------------------------------------------------------------------------
_API_VERSIONS = (None, "2025.12", "2024.12", "2023.12", "2022.12", "2021.12")


# -- Python protocols ------------------------------------------------------------------------
def contains(self: Tensor, value: Any) -> bool:
    """``value in x``: whether some element equals ``value``, for any rank (as NumPy)."""
    return bool(any(ew.equal(self, value)))


def copy_method(self: Tensor) -> Tensor:
    """``copy.copy(x)``: a new Tensor with its own storage holding ``x``'s values (NumPy's
    ``copy.copy`` of an array copies its data; an alias would be ``x[...]``)."""
    return asarray(self, copy=True)


def deepcopy_method(self: Tensor, memo: dict) -> Tensor:
    """``copy.deepcopy(x)``: as :func:`copy_method`."""
    return asarray(self, copy=True)


def reduce_method(self: Tensor) -> tuple:
    """Pickling: a Tensor, or a view, pickles as a copy of its values (dtype kept); it
    unpickles as a new base Tensor on the default device."""


    return (asarray, (np.array(self._value()),))


def array_namespace_method(self: Tensor, *, api_version: str | None = None) -> Any:
    """The Array API namespace: the ``jaxtensor`` module."""
    # imported here, not at module level: the namespace is the package itself, which imports
    # this module while it is being built (tests/internals/test_import_graph.py lists this exception)
    import jaxtensor

    if api_version not in _API_VERSIONS:
        raise ValueError(f"unsupported Array API version {api_version!r}")
    return jaxtensor


# -- the table --------------------------------------------------------------------------------
METHODS: dict[str, Any] = {
    # indexing (``_indexing``): a view, a gather, a write through the storage
    "__getitem__": getitem,
    "__setitem__": setitem,
    # arithmetic: x op y, y op x, x op= y
    "__add__": forward(ew.add), "__radd__": reflected(ew.add),
    "__iadd__": inplace(ew.add, "add"),
    "__sub__": forward(ew.subtract), "__rsub__": reflected(ew.subtract),
    "__isub__": inplace(ew.subtract, "sub"),
    "__mul__": forward(ew.multiply, True), "__rmul__": reflected(ew.multiply, True),
    "__imul__": inplace(ew.multiply, "mul"),
    "__truediv__": forward(ew.divide), "__rtruediv__": reflected(ew.divide),
    "__itruediv__": inplace(ew.divide, "truediv"),
    "__floordiv__": forward(ew.floor_divide), "__rfloordiv__": reflected(ew.floor_divide),
    "__ifloordiv__": inplace(ew.floor_divide, "floordiv"),
    "__mod__": forward(ew.remainder), "__rmod__": reflected(ew.remainder),
    "__divmod__": _divmod, "__rdivmod__": _rdivmod, "__round__": _round,
    "__imod__": inplace(ew.remainder, "mod"),
    "__pow__": forward(ew.pow), "__rpow__": reflected(ew.pow),
    "__ipow__": inplace(ew.pow, "pow"),
    "__matmul__": forward(matmul), "__rmatmul__": reflected(matmul),
    "__imatmul__": inplace(matmul, "matmul"),
    # bitwise
    "__and__": forward(ew.bitwise_and), "__rand__": reflected(ew.bitwise_and),
    "__iand__": inplace(ew.bitwise_and, "and"),
    "__or__": forward(ew.bitwise_or), "__ror__": reflected(ew.bitwise_or),
    "__ior__": inplace(ew.bitwise_or, "or"),
    "__xor__": forward(ew.bitwise_xor), "__rxor__": reflected(ew.bitwise_xor),
    "__ixor__": inplace(ew.bitwise_xor, "xor"),
    "__lshift__": forward(ew.bitwise_left_shift),
    "__rlshift__": reflected(ew.bitwise_left_shift),
    "__ilshift__": inplace(ew.bitwise_left_shift, "lshift"),
    "__rshift__": forward(ew.bitwise_right_shift),
    "__rrshift__": reflected(ew.bitwise_right_shift),
    "__irshift__": inplace(ew.bitwise_right_shift, "rshift"),
    # comparisons
    "__eq__": forward(ew.equal),
    "__ne__": forward(ew.not_equal),
    "__lt__": forward(ew.less),
    "__le__": forward(ew.less_equal),
    "__gt__": forward(ew.greater),
    "__ge__": forward(ew.greater_equal),
    # unary
    "__neg__": ew.negative,
    "__pos__": ew.positive,
    "__abs__": ew.abs,
    "__invert__": ew.bitwise_invert,
    # data exchange, devices, the namespace (``_creation``)
    "__dlpack__": _dlpack,
    "__dlpack_device__": _dlpack_device,
    "to_device": _to_device,
    "__array_namespace__": array_namespace_method,
    "__contains__": contains,
    "__copy__": copy_method,
    "__deepcopy__": deepcopy_method,
    "__reduce__": reduce_method,
    # dtype and complex parts
    "astype": astype_method,
    "real": property(ew.real, _set_real,
                     doc="The real part: a writeable view of a complex Tensor (NumPy's "
                         "``x.real``); ``x.real = v`` (and ``x.real += v``) writes it."),
    "imag": property(ew.imag, _set_imag,
                     doc="The imaginary part: a writeable view of a complex Tensor (NumPy's "
                         "``x.imag``); ``x.imag = v`` (and ``x.imag *= -1``) writes it."),
    # shape: views where they can be
    "view": view_method,
    "reshape": reshape_method,
    "transpose": transpose_method,
    "permute": permute_method,
    "swapaxes": swapaxes_method,
    "squeeze": squeeze_method,
    "flatten": flatten_method,
    "ravel": ravel_method,
    "flip": flip_method,
    "roll": roll_method,
    "moveaxis": moveaxis_method,
    # reductions and scans (``dim``/``keepdim`` as PyTorch's)
    **REDUCTIONS,
    "argmax": _reduction(argmax),
    "argmin": _reduction(argmin),
    "argsort": argsort_method,
    # indexing functions (PyTorch's method forms; ``name_`` writes in place)
    "index_select": index_select_method,
    "gather": gather_method,
    "scatter": scatter_method,
    "scatter_": scatter__method,
    "scatter_add": scatter_add_method,
    "scatter_add_": scatter_add__method,
    "scatter_reduce": scatter_reduce_method,
    "scatter_reduce_": scatter_reduce__method,
    "index_put": index_put_method,
    "index_put_": index_put__method,
    "index_add": index_add_method,
    "index_add_": index_add__method,
    "take_along_dim": take_along_dim_method,
}


def _bind() -> None:
    for name, fn in METHODS.items():
        if getattr(fn, "__name__", "").endswith("_method"):  # a method form: named as bound
            fn.__name__, fn.__qualname__ = name, f"Tensor.{name}"
        setattr(Tensor, name, fn)
    # NumPy's attributes a Tensor lacks (x.copy(), x.fill(v)): reading one says what to write
    for name in _numpy_names.TENSOR:
        if not hasattr(Tensor, name):
            setattr(Tensor, name, _numpy_names.Absent(name))
    Tensor.__dir__ = _dir  # type: ignore[method-assign]


def _dir(self: Tensor) -> list[str]:
    """``dir(x)`` without the NumPy names a Tensor lacks (``copy``, ``fill``: they raise),
    so that completion offers only what works."""
    return [n for n in object.__dir__(self)
            if not isinstance(getattr(type(self), n, None), _numpy_names.Absent)]


_bind()
