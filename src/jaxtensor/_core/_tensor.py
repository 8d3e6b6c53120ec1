"""The :class:`Tensor`: a mutable array with views over an immutable ``jax.Array``.

A Tensor is a :class:`~jaxtensor._core._storage.Storage` (shared by every alias) plus a
:class:`~jaxtensor._core._view.View` saying how it derives from the storage's base value
(``None`` for the base itself), plus a cache of its materialised value tagged with the
storage version it was computed at.

>>> import jaxtensor as jt
>>> a = jt.ones((2, 3))
>>> b = a[0]          # a view: no copy, no device work
>>> b[1] = 10         # writes through to a
>>> a
Tensor(shape=[2, 3], dtype=float64, device=cpu,
       [[ 1., 10.,  1.],
        [ 1.,  1.,  1.]])
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from . import _traced, _view
from ._constants import starts_array
from ._context import current as _current_jit
from ._jax_private import (
    pytype_aval_mappings,
    register_canonicalize_value_handler,
    shard_arg_handlers,
    trace_state,
    weak_cast,
)
from ._storage import Deferred, Storage, _ArrayImpl

_new = object.__new__
_SWAP = (1, 0)

Tracer = jax.core.Tracer


class Tensor:
    """A mutable n-dimensional array backed by JAX, with NumPy view semantics.

    The class body holds what needs only the storage and the view; the operators, indexing
    and every method that is a namespace function (``x.sum()``, ``x.reshape(...)``) are bound
    from the table in ``_methods.py``.

    Tensors are made by the creation functions (``jaxtensor.asarray``, ``jaxtensor.zeros``,
    ...), never by calling ``Tensor(...)``.

    Examples
    --------
    >>> import jaxtensor as jt
    >>> x = jt.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> x
    Tensor(shape=[2, 2], dtype=float64, device=cpu,
           [[1., 2.],
            [3., 4.]])
    >>> x[0, 1] = 20
    >>> x.sum().item()
    28.0
    """

    __slots__ = ("_storage", "_view", "_cache", "_cache_version", "_base", "__weakref__")
    __array_priority__ = 100

    # -- construction ------------------------------------------------------------------
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError(
            "Tensor objects are created with jaxtensor functions, e.g. jaxtensor.asarray(data) "
            "or jaxtensor.zeros(shape)"
        )

    @classmethod
    def _wrap(cls, array: Any, *, exported: bool = False) -> Tensor:
        """A new base Tensor owning ``array`` (a fresh storage)."""
        t = new_tensor(array)
        if exported:
            t._storage.exported = True
        if cls is not Tensor:
            t.__class__ = cls
        return t

    def _derive(self, view: _view.View) -> Tensor:
        """A view of this tensor's storage."""
        t = object.__new__(Tensor)
        t._storage = self._storage
        t._view = view
        t._cache = None
        t._cache_version = -1
        t._base = self._base if self._base is not None else self
        return t

    # -- value -------------------------------------------------------------------------
    def _value(self) -> Any:
        """The current value as a ``jax.Array`` (internal: does not mark it exported)."""
        st = self._storage
        if self._view is None:
            return st.array
        if _current_jit.get() is not None:  # inside a jaxtensor.jit trace: its own values
            return _view.read(self._view, st.array)
        version = st.version  # (read first: a concurrent write makes the cache stale, not wrong)
        if self._cache_version == version:
            return self._cache
        v = _view.read(self._view, st.array)
        self._cache = v
        self._cache_version = version
        return v

    def to_jax(self) -> jax.Array:
        """The value as a ``jax.Array``; later writes to this Tensor never invalidate it.

        Examples
        --------
        >>> import jaxtensor as jt
        >>> jt.asarray([1.0, 2.0]).to_jax()
        Array([1., 2.], dtype=float64)
        """
        v = self._value()
        if v is self._storage.array:
            self._storage.exported = True
        return v

    def __jax_array__(self) -> jax.Array:
        return self.to_jax()

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        v = self.to_jax()
        if isinstance(v, Tracer):
            raise _traced.array_error("conversion to a NumPy array", v, self.shape,
                                      self.dtype)
        try:
            out = np.asarray(v, dtype=dtype)
        except RuntimeError:
            _host_read_error(v)
            raise
        if copy:
            out = out.copy()
        return out

    # -- attributes --------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        """The shape, a tuple of ints.

        >>> import jaxtensor as jt
        >>> jt.zeros((2, 3)).shape
        (2, 3)
        """
        v = self._view
        return self._storage.shape if v is None else v.shape

    @property
    def dtype(self) -> np.dtype:
        """The data type, a NumPy ``dtype`` object (``jt.float32 == numpy.dtype('float32')``).

        >>> import jaxtensor as jt
        >>> jt.asarray([1.0, 2.0]).dtype
        dtype('float64')
        >>> jt.asarray([1, 2], dtype=jt.int8).dtype == jt.int8
        True
        """
        dt = self._storage.dtype
        v = self._view
        if v is not None and v.comp is not None:
            return np.dtype(np.float64 if dt == np.complex128 else np.float32)
        return dt

    @property
    def ndim(self) -> int:
        """The number of axes.

        >>> import jaxtensor as jt
        >>> jt.zeros((2, 3)).ndim
        2
        """
        return len(self.shape)

    @property
    def size(self) -> int:
        """The number of elements.

        >>> import jaxtensor as jt
        >>> jt.zeros((2, 3)).size
        6
        """
        return math.prod(self.shape)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-D Tensor")
        return self.shape[0]

    @property
    def device(self) -> Any:
        """The ``jax.Device`` holding the value (its sharding, when spread over several devices).

        >>> import jaxtensor as jt
        >>> jt.zeros(2).device.platform
        'cpu'
        """
        arr = self._storage.array
        if isinstance(arr, Tracer):
            return jax.devices()[0]
        devs = arr.devices()
        return next(iter(devs)) if len(devs) == 1 else arr.sharding

    @property
    def sharding(self) -> Any:
        """The ``jax.sharding.Sharding`` of this Tensor's value (``device`` gives the one
        device of an unsharded Tensor); see ``docs/scaling.md``.

        >>> import jaxtensor as jt
        >>> jt.zeros(4).sharding.is_fully_replicated
        True
        """
        return self._value().sharding

    @property
    def base(self) -> Tensor | None:
        """The Tensor whose storage this one views (None if it owns its storage).

        >>> import jaxtensor as jt
        >>> x = jt.zeros(4)
        >>> x.base is None, x[1:].base is x, x[1:][1:].base is x
        (True, True, True)
        """
        return self._base

    @property
    def T(self) -> Tensor:
        """The transpose of a 2-D Tensor, a view (``x.mT`` or ``jaxtensor.permute_dims`` for other ranks).

        >>> import jaxtensor as jt
        >>> x = jt.asarray([[1, 2, 3], [4, 5, 6]])
        >>> x.T.tolist()
        [[1, 4], [2, 5], [3, 6]]
        >>> x.T.base is x
        True
        """
        shape = self.shape
        if len(shape) != 2:
            raise ValueError(
                f"Tensor.T needs a 2-D Tensor, got {len(shape)}-D; use .mT or "
                "jaxtensor.permute_dims for other ranks"
            )
        return self._derive(_view.compose_axes(self._view, shape, _SWAP))

    @property
    def mT(self) -> Tensor:
        """The last two axes swapped (a stack of matrices transposed), a view.

        >>> import jaxtensor as jt
        >>> jt.zeros((5, 2, 3)).mT.shape
        (5, 3, 2)
        """
        n = self.ndim
        if n < 2:
            raise ValueError(f"Tensor.mT needs at least 2 dimensions, got {n}")
        order = list(range(n - 2)) + [n - 1, n - 2]
        return self._derive(_view.compose_axes(self._view, self.shape, order))

    # -- iteration (x[i] is _indexing.getitem, bound by _methods) -----------------------
    def __iter__(self) -> Any:
        if not self.shape:  # (raised by iter() itself, so np.iterable(x) is False)
            raise TypeError("iteration over a 0-D Tensor")
        return (self[i] for i in range(self.shape[0]))

    def __format__(self, spec: str) -> str:
        """``format(x, spec)``: a 0-D Tensor formats as the Python number it holds (as NumPy
        scalars do, the empty spec too: ``f"{x[0]}"`` of float32 is the float's digits);
        other Tensors take only the empty spec (``str(x)``)."""
        if self.shape == ():
            v = self._value()
            if not isinstance(v, Tracer):
                return format(np.asarray(v).reshape(()).item(), spec)
        if not spec:
            return str(self)
        raise TypeError(
            f"unsupported format string {spec!r} passed to Tensor.__format__ for a Tensor of "
            f"shape {self.shape}; format its elements (x.tolist()) or a 0-D Tensor"
        )

    # -- conversion ----------------------------------------------------------------------
    def _scalar(self, kind: type) -> Any:
        if self.shape != ():
            if self.size != 1:
                # (NumPy's types: ValueError for .item(), TypeError for float(), int(), ...)
                raise (ValueError if kind is object else TypeError)(
                    f"only Tensors with one element can be converted to Python scalars, got "
                    f"shape {self.shape}"
                )
        d = self._storage._pending
        if type(d) is Deferred and self._view is None:
            got = _host_element(d)
            if got is not None:
                return got
        v = self._value()
        if isinstance(v, Tracer):
            if kind is bool:
                raise _traced.bool_error(v, self.shape, self.dtype)
            what = ".item()" if kind is object else f"{kind.__name__}()"
            raise _traced.concretization_error(what, v, self.shape, self.dtype)
        try:
            return np.asarray(v).reshape(()).item()
        except RuntimeError:
            _host_read_error(v)
            raise

    def __bool__(self) -> bool:
        n = self.size
        if n != 1:  # NumPy's ValueError and advice, which ported `except ValueError:` catches
            if n == 0:
                raise ValueError(
                    "The truth value of an empty Tensor is ambiguous. Use `x.size > 0` to "
                    "check that a Tensor is not empty."
                )
            raise ValueError(
                f"The truth value of a Tensor with more than one element (shape "
                f"{self.shape}) is ambiguous. Use a.any() or a.all()"
            )
        return bool(self._scalar(bool))

    def __int__(self) -> int:
        if self.dtype.kind == "c":
            raise TypeError("int() of a complex Tensor; take .real first")
        v = self._scalar(int)
        if isinstance(v, float) and not math.isfinite(v):
            raise (ValueError if math.isnan(v) else OverflowError)(
                f"cannot convert float {v} to integer")
        return int(v)

    def __float__(self) -> float:
        if self.dtype.kind == "c":
            raise TypeError("float() of a complex Tensor; take .real first")
        return float(self._scalar(float))

    def __complex__(self) -> complex:
        return complex(self._scalar(complex))

    def __index__(self) -> int:
        if self.dtype.kind not in "iu":
            raise TypeError(f"only integer Tensors can be used as an index, got {self.dtype}")
        return int(self._scalar(int))

    def item(self) -> Any:
        """The value of a one-element Tensor as a Python scalar.

        >>> import jaxtensor as jt
        >>> jt.asarray([[7]]).item()
        7
        >>> jt.asarray(2.5).item()
        2.5
        """
        return self._scalar(object)

    def tolist(self) -> Any:
        """The value as nested Python lists of Python scalars (a scalar for a 0-D Tensor).

        >>> import jaxtensor as jt
        >>> jt.asarray([[1, 2], [3, 4]]).tolist()
        [[1, 2], [3, 4]]
        >>> jt.asarray(3).tolist()
        3
        """
        return self._host_value(".tolist()").tolist()

    def numpy(self) -> np.ndarray:
        """A NumPy copy of the value (later writes to the Tensor do not change it).

        >>> import jaxtensor as jt
        >>> jt.asarray([1.0, 2.0]).numpy()
        array([1., 2.])
        """
        return np.array(self._host_value(".numpy()"))

    def _host_value(self, what: str) -> np.ndarray:
        v = self._value()
        if isinstance(v, Tracer):
            raise _traced.array_error(what, v, self.shape, self.dtype)
        return _host(v)

    # -- repr ------------------------------------------------------------------------------
    def __repr__(self) -> str:
        dev = self.device
        dev_s = getattr(dev, "platform", str(dev))
        if getattr(dev, "id", 0) and dev_s != "cpu":
            dev_s = f"{dev_s}:{dev.id}"
        head = f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, device={dev_s}"
        v = self._value()
        if isinstance(v, Tracer):
            return head + ", traced)"
        if not v.is_fully_addressable:
            return head + f", over {len({d.process_index for d in v.sharding.device_set})} processes)"
        body = np.array2string(
            np.asarray(v), separator=", ", prefix=" " * 7, threshold=1000
        )
        return f"{head},\n       {body})"

    def __str__(self) -> str:
        """A 0-D Tensor prints as its number, as NumPy's scalars and 0-D arrays do (``print``,
        ``f"{t}"``, ``",".join(map(str, t))``); other Tensors as ``repr``."""
        if self.shape == ():
            v = self._value()
            if not isinstance(v, Tracer) and v.is_fully_addressable:
                return str(np.asarray(v)[()])
        return self.__repr__()

    def __hash__(self) -> int:
        # ``==`` compares values, so a hash by identity would let equal elements miss each
        # other as dict keys and set members; NumPy, jax.Array and array_api_strict refuse
        raise TypeError(
            "unhashable type: 'Tensor' (== compares values, elementwise); use a Python "
            "number as the key: t.item(), or tuple(t.tolist()) for a Tensor of several values"
        )


class WeakTensor(Tensor):
    """A Python number passed to ``jaxtensor.jit`` (``_weak.py``): a 0-D Tensor (its
    storage holds the strongly typed value) whose operators and scalar uses are the
    number's."""

    __slots__ = ()

    def number(self) -> Any:
        """The weakly typed traced value the number is (a Python scalar to JAX)."""
        v = self._value()
        return weak_cast(v, v.dtype)

    def __jax_array__(self) -> Any:
        return self.number()


def _tree_flatten(t: Tensor) -> tuple[tuple[Any], None]:
    # the leaf leaves jaxtensor (jax.device_put, jax.jit, tree_leaves): never donate it
    return (t.to_jax(),), None


def _tree_unflatten(aux: None, children: tuple[Any]) -> Tensor:
    # the leaf may share its buffer with another array (jax.device_put to the same device
    # returns a new array over the same buffer): the first write copies
    leaf = children[0]
    if not hasattr(leaf, "shape"):  # (JAX rebuilds pytrees over placeholders, e.g. None)
        return Tensor._wrap(_Placeholder(leaf), exported=True)
    return Tensor._wrap(leaf, exported=True)


class _Placeholder:
    """A non-array pytree leaf JAX put in a Tensor's place, with the attributes a storage
    reads (no Tensor operation works on it)."""

    __slots__ = ("leaf",)
    shape = dtype = None

    def __init__(self, leaf: Any) -> None:
        self.leaf = leaf


jax.tree_util.register_pytree_node(Tensor, _tree_flatten, _tree_unflatten)


def _register_with_jax() -> None:
    """Let ``jax.lax`` functions and JAX's dispatch take Tensors as arrays (JAX no longer
    calls ``__jax_array__`` for them). The value handed to a computation is marked exported,
    as the computation may return it unchanged. Nothing is registered on a JAX release
    without these registries (``_jax_private.MISSING`` says so)."""
    if pytype_aval_mappings is None:
        return
    pytype_aval_mappings[Tensor] = lambda t: jax.typeof(t._value())
    register_canonicalize_value_handler(Tensor, Tensor.to_jax)
    shard = shard_arg_handlers[type(jnp.zeros(()))]
    shard_arg_handlers[Tensor] = lambda xs, *rest: shard([x.to_jax() for x in xs], *rest)


_register_with_jax()

__all__ = ["Tensor", "WeakTensor", "jnp"]


def _host(v: Any) -> np.ndarray:
    """``np.asarray(v)``, saying what to do when ``v`` spans other processes' devices."""
    try:
        return np.asarray(v)
    except RuntimeError:
        _host_read_error(v)
        raise


def _host_read_error(v: Any) -> None:
    if isinstance(v, jax.Array) and not v.is_fully_addressable:
        raise RuntimeError(
            "this Tensor is a global array over the devices of several processes; a process "
            "can read only the shards on its own devices. Gather it first "
            "(jax.experimental.multihost_utils.process_allgather(x.to_jax())), read this "
            "process's part (x.to_jax().addressable_shards), or keep the computation on "
            "device (jaxtensor operations and jaxtensor.jit run on global Tensors)"
        ) from None


def element(x: Tensor, view: _view.View) -> Tensor:
    """``x[i, j]`` with an integer on every axis (``view``: that element, 0-D): its value, a
    0-D Tensor of its own (NumPy's scalar), which later writes to ``x`` do not change and
    whose writes do not reach ``x``. Eagerly no device work is done until the value is
    used (``Storage.defer``); in a trace the value is read at once (it costs nothing there)."""
    st = x._storage
    if _current_jit.get() is None:
        for s in view.starts:
            if type(s) is not int:
                break
        else:
            es = st.defer(view, _read_element, x.dtype)
            if es is not None:
                return over(es)
    return new_tensor(_view.read(view, st.array))


def _host_element(d: Deferred) -> Any:
    """The Python scalar of the element read ``d`` not computed yet, read from its source
    buffer in host memory (a CPU array, one device: no kernel, no transfer), or None where
    it cannot be (another device, a view not of the base's own axes, an operator queued)."""
    arr, view = d.array, d.view
    if (d.read is not _read_element or d.then is not None or type(arr) is not _ArrayImpl
            or len(view.steps) != 1 or view.comp is not None):
        return None
    devices = arr.sharding.device_set
    if len(devices) != 1 or next(iter(devices)).platform != "cpu":
        return None
    step = view.steps[0]
    if type(step) is not _view.AxisStep or step.in_shape != arr.shape:
        return None
    try:
        return np.asarray(arr)[view.starts].item()  # (a view of the buffer on CPU, no copy)
    except RuntimeError:  # (deleted meanwhile by another thread's write: read as before)
        return None


def _read_element(view: _view.View, base: Any) -> Any:
    """An element read's value, when it is first used (``view``, made for the read: its
    offsets are the device copy kept for them, not a host array transferred anew)."""
    if view.dyn_cache is None:
        view.dyn_cache = starts_array(view.starts)
    return _view.read(view, base)


def _read_elements(views: list[_view.View], base: Any) -> tuple[Any, ...]:
    """The values of element reads of ``base`` through views of one structure, by one
    compiled kernel (``Storage._read_deferred``), their number padded to a power of two (a
    kernel per size and structure); the offsets of all of them are one kept device array."""
    k = len(views)
    size = 1 << (k - 1).bit_length()
    first = views[0]
    starts = tuple(s for v in views for s in v.starts) + first.starts * (size - k)
    memo = first.memo()
    fn = memo.get(("elements", size))
    if fn is None:
        fn = memo.get_or_make(("elements", size), lambda: jax.jit(
            partial(_elements, first.steps, first.comp, len(first.starts), size)))
    return fn(base, starts_array(starts))


def _elements(steps: tuple, comp: str | None, nd: int, size: int, base: Any, dyn: Any
              ) -> tuple[Any, ...]:
    return tuple(_view.chain_forward(steps, comp, base, dyn[j * nd:(j + 1) * nd])
                 for j in range(size))


_read_element.batch = _read_elements  # type: ignore[attr-defined]


def over(st: Storage) -> Tensor:
    """A base Tensor over the storage ``st``."""
    t = _new(Tensor)
    t._storage = st
    t._view = t._cache = t._base = None
    t._cache_version = -1
    return t


def new_tensor(array: Any) -> Tensor:
    """``Tensor._wrap(array)`` for the hot paths: a new base Tensor owning ``array``."""
    st = _new(Storage)  # Storage.__init__ inlined: this runs for every result
    st._array = array
    st.shape = array.shape
    st.dtype = array.dtype
    st.version = 0
    st.exported = False
    st.trace = trace_state.value
    st._pending = st.meta = st.layout = st._lock = st.readers = None
    t = _new(Tensor)
    t._storage = st
    t._view = t._cache = t._base = None
    t._cache_version = -1
    return t
