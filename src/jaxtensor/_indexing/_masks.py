"""``x[key] = value`` with a boolean mask, as ``where`` on the device.

A key holding one mask (among ints, slices and new axes) selects a data-dependent number
of elements, but a value that does not depend on that number (a scalar, or a value whose
axis along the selected elements has size 1) is written without knowing it:

    x[i, mask, a:b] = value   is   y = x[i, :, a:b];  y[...] = where(mask, value', y)

where ``value'`` is the value laid out in ``y``'s axes. The mask never leaves the device
(no host round trip, no nonzero, no sort), the write costs one element-wise pass over ``y``
(in place on a donated buffer), and the same lowering serves a traced mask inside
``jaxtensor.jit`` and a mask spread over several processes. Only a value shaped like the
selection needs the count of True values: with a concrete mask it takes the general path
(``_advanced.py``); inside ``jit`` it raises ``NonConcreteBooleanIndexError``.

``x[mask]`` inside ``jit``, where the mask's values are traced, is a :class:`MaskedSelection`:
the number of selected elements is not known while tracing, so it cannot be a Tensor. But
NumPy code reads a masked selection mostly to write it back through the same
mask, ``x[x > 0] += 1`` (Python runs ``t = x[m]; t += 1; x[m] = t``) or
``x[m] = x[m] * 2 - y[m]``, and that needs no count: the arithmetic runs over the *frame*
(the view of ``x`` with the mask's axes kept whole, :class:`Frame`), and the
assignment writes ``where(mask, result, frame)``. A selection supports exactly that:
arithmetic operators (in place or not) with numbers, with values that broadcast along the
selection (their count axis of size 1) and with selections through the same mask, and
assignment through a key with the same mask over a frame of the same shape. Anything else
(a reduction, a conversion, a read of its shape) raises ``NonConcreteBooleanIndexError``.
"""

from __future__ import annotations

import operator
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .._core import Tensor, _kernels, _view, asarray, starts_array
from . import _basic, _plan
from ._plan import Int, IntArray, Mask, NonConcreteBooleanIndexError, Plan, PyBool, Slice
from ._values import kept_scalar, prepare_value

Tracer = jax.core.Tracer
_COUNT = -1  # (the selection axis whose length is the number of True values)


def _selection(plan: Plan, j: int) -> tuple[list[int], int]:
    """NumPy's shape of ``x[key]`` with the count axis marked ``_COUNT``, and its position."""
    resolved: list[Any] = []
    for it in plan.items:
        if type(it) is Mask:
            if it.shape:
                resolved += [IntArray(it.axis + d, 0, (1,)) for d in range(len(it.shape))]
            else:
                resolved.append(PyBool(True))
        else:
            resolved.append(it)
    shape = list(_plan.result_shape(tuple(resolved), (_COUNT,), plan.gap))
    return shape, shape.index(_COUNT)


def _fits(vshape: tuple[int, ...], sel: list[int], p: int) -> bool | None:
    """Whether a value of ``vshape`` broadcasts to the selection ``sel`` without depending
    on the count (True), only with it (None), or not at all (False)."""
    vs = list(vshape)
    while len(vs) > len(sel) and vs[0] == 1:
        vs.pop(0)
    if len(vs) > len(sel):
        return False
    count_dependent = False
    for k, m in enumerate(vs):
        at = len(sel) - len(vs) + k
        if at == p:
            count_dependent = m != 1
        elif m != 1 and m != sel[at]:
            return False
    return None if count_dependent else True


class Frame(NamedTuple):
    """A key with one boolean mask, as ``where`` over the *frame*: the view of ``x`` with
    the mask's axes kept whole (``view``), the mask (``mask``: its ``d`` axes at the frame's
    axes ``q .. q + d``), NumPy's selection shape with the count axis (at ``p``) marked
    ``_COUNT`` (``sel``), and that shape with a count of one (``one``)."""

    view: _view.View
    tpl: Any
    mask: Any
    sel: list[int]
    p: int
    q: int
    d: int
    one: tuple[int, ...]
    # what the mask is, for telling two selections through it: the traced array, or for a
    # view of a Tensor (whose value is read anew at every use) its base's traced value, the
    # view's structure and starts
    token: Any = None

    def value_layout(self) -> tuple[int, ...]:
        """The shape a value shaped ``one`` takes among the frame's axes (the mask's axes
        of size 1): it broadcasts to the frame."""
        one, p, q = self.one, self.p, self.q
        kept = one[:p] + one[p + 1:]
        return kept[:q] + (1,) * self.d + kept[q:]


def frame(x: Tensor, plan: Plan, sig: tuple, values: list[Any], key: Any = None
          ) -> Frame | None:
    """The :class:`Frame` of ``x[key]`` (``plan``, its signature and values), or None when
    the key is not one mask among ints, slices and new axes (or the mask has an empty
    axis, which matches any size: the general path)."""
    items = plan.items
    js = [k for k, it in enumerate(items) if type(it) is Mask]
    if len(js) != 1 or any(type(it) in (IntArray, PyBool) for it in items):
        return None
    j = js[0]
    mitem = items[j]
    if 0 in mitem.shape:
        return None
    vals = iter(values)
    ints: list[Any] = []
    mask = None
    fr: list[Any] = []
    q = 0
    for it in items:
        t = type(it)
        if t is Int:
            ints.append(next(vals))
            fr.append(it)
        elif t is Mask:
            mask = next(vals)
            q = sum(1 for f in fr if type(f) is not Int)
            fr += [Slice(it.axis + d, 0, n, 1) for d, n in enumerate(it.shape)]
        else:
            fr.append(it)
    if isinstance(mask, Tensor):
        mask = mask._value()
    sel, p = _selection(plan, j)
    one = tuple(1 if s == _COUNT else s for s in sel)
    bplan = _plan.Plan(tuple(fr), True, None, plan.gap, len(ints))
    tpl = _basic.template(x._view, x.shape, ("where",) + sig, bplan)
    view = tpl.view(tpl.starts(() if x._view is None else x._view.starts, ints))
    return Frame(view, tpl, mask, sel, p, q, len(mitem.shape), one, _token(key, mask))


class MaskView(NamedTuple):
    """A mask that is a view of a Tensor (``Frame.token``)."""

    base: Any  # the base's traced value
    key: Any  # the view's structure
    starts: tuple  # its start offsets


def _token(key: Any, mask: Any) -> Any:
    """What the mask is (``Frame.token``): for a view of a Tensor in ``key`` (read anew at
    every use, ``m[0]``, ``m[::-1]``), its base's traced value, structure and starts."""
    items = key if type(key) is tuple else (key,)
    views = [k for k in items if isinstance(k, Tensor) and k.dtype == np.bool_]
    if len(views) != 1 or views[0]._view is None:
        return mask
    v = views[0]._view
    return MaskView(views[0]._storage.array, v.key, tuple(v.starts))


def write(x: Tensor, plan: Plan, sig: tuple, values: list[Any], value: Any) -> bool:
    """Write ``value`` at the mask key (``plan``, its signature and values) as ``where``,
    if its form allows; False (nothing done) sends it to the general path."""
    f = frame(x, plan, sig, values)
    if f is None:
        return False
    traced = isinstance(f.mask, Tracer)
    vshape = _shape_of(value)
    if vshape is None:
        return False
    fits = _fits(vshape, f.sel, f.p)
    if fits is not True:
        if not traced:
            return False  # (needs the count, or raises NumPy's error: the general path)
        if fits is None:
            raise NonConcreteBooleanIndexError(
                "inside jit/grad/vmap a value shaped like a boolean mask's selection cannot be "
                "assigned: the number of True values is not known while tracing; assign a "
                "scalar (or a value broadcast along the selection), or use "
                "jaxtensor.where(mask, values, x)"
            )
        raise ValueError(
            f"could not broadcast input array from shape {vshape} into the "
            f"selection's shape {tuple('N' if s == _COUNT else s for s in f.sel)} (N: the "
            "number of True values)"
        )
    one, p, q, d = f.one, f.p, f.q, f.d
    val = prepare_value(value, x.dtype, one)
    key = ("mask-where", f.tpl.key, one, p, q, d)
    steps, comp = f.tpl.steps, f.tpl.comp
    layout = f.value_layout()
    kernels = _kernels.kernels(key, lambda: _where_kernel(steps, comp, one, layout, q, d))
    # (the frame's view is new at every write: its own cache of the starts never serves)
    starts = f.view.starts
    dyn = (starts_array(tuple(starts)) if all(type(s) is int for s in starts)
           else f.view.dyn())
    x._storage.update(kernels, dyn, f.mask, kept_scalar(value, val))
    return True


def _shape_of(value: Any) -> tuple[int, ...] | None:
    """The shape ``value`` has as an array (nested lists of numbers, possibly traced, too),
    or None when it is no array-like (``prepare_value`` then raises the error)."""
    if isinstance(value, (list, tuple)):
        if not value:
            return (0,)
        inner = _shape_of(value[0])
        return None if inner is None else (len(value), *inner)
    shape = getattr(value, "shape", None)
    if shape is not None:
        return tuple(shape)
    try:
        return np.shape(value)
    except Exception:  # noqa: BLE001 - (not array-like)
        return None


def _where_kernel(steps: tuple, comp: str | None, one: tuple[int, ...], layout: tuple[int, ...],
                  q: int, d: int) -> Any:
    """``(base, dyn, mask, value) -> new base``: the frame view read, ``where`` on it with
    the mask at axes ``q .. q + d`` and the value (shaped like the selection with a count
    of one, ``one``; laid out among the frame's axes as ``layout``), written back."""

    def write(base: Any, dyn: Any, mask: Any, v: Any) -> Any:
        y = _view.chain_forward(steps, comp, base, dyn, True)
        m = jnp.reshape(mask, (1,) * q + tuple(mask.shape) + (1,) * (y.ndim - q - d))
        v = _kernels._fit(v, y.dtype, one).reshape(layout)
        return _view.chain_backward(steps, comp, base, dyn, jnp.where(m, v, y))

    return write


# -- a selection through a traced mask ---------------------------------------------------
READ_ERROR = (
    "a boolean mask inside jit/grad/vmap selects a data-dependent number of elements; x[mask] can "
    "only be assigned back through the mask (x[mask] += v, x[mask] = x[mask] * 2 - "
    "y[mask]), otherwise use jaxtensor.where(mask, x, other), or "
    "jaxtensor.nonzero(mask, size=...) for a static-size index"
)
_NUMBERS = (int, float, complex, bool)


class MaskedSelection:
    """``x[key]`` for a key with one traced boolean mask (see the module docs): ``value``
    is the frame-shaped result of the arithmetic so far, ``frame`` the key's frame."""

    __slots__ = ("frame", "value")
    # (array operators, NumPy's and Tensor's, leave an operation with it to its own
    # reflected operator: ``2 * x[m]``, ``np.float64(2) * x[m]``, ``t * x[m]``)
    __array_ufunc__ = None

    def __init__(self, frame: Frame, value: Tensor) -> None:
        self.frame = frame
        self.value = value

    def __repr__(self) -> str:
        return f"MaskedSelection(frame shape={tuple(self.value.shape)}, dtype={self.value.dtype})"

    def __getattr__(self, name: str) -> Any:
        raise NonConcreteBooleanIndexError(READ_ERROR)

    def _refuse(self, *args: Any) -> Any:
        raise NonConcreteBooleanIndexError(READ_ERROR)

    __array__ = __jax_array__ = __bool__ = __len__ = __iter__ = _refuse
    __float__ = __int__ = __complex__ = __index__ = __getitem__ = __setitem__ = _refuse

    # -- arithmetic -------------------------------------------------------------------
    def same_mask(self, f: Frame, shape: tuple[int, ...]) -> bool:
        """Whether a frame ``f`` of ``shape`` selects through this selection's mask."""
        g = self.frame
        return (_same_token(f.token, g.token) and (f.q, f.d) == (g.q, g.d)
                and tuple(self.value.shape) == tuple(shape))

    def _operand(self, other: Any) -> Any:
        if type(other) in _NUMBERS:
            return other
        if isinstance(other, MaskedSelection):
            if not self.same_mask(other.frame, tuple(other.value.shape)):
                raise NonConcreteBooleanIndexError(
                    "two selections through different boolean masks (or frames of different "
                    "shapes) cannot be combined inside jit/grad/vmap: their elements do not match "
                    "while the masks' values are unknown (a mask written twice, y < 0 and "
                    "y < 0 again, is two masks: name it once, m = y < 0, and use x[m] and "
                    "y[m]); or use jaxtensor.where"
                )
            return other.value
        f = self.frame
        t = other if isinstance(other, Tensor) else asarray(other)
        fits = _fits(tuple(t.shape), f.sel, f.p)
        if fits is None:
            raise NonConcreteBooleanIndexError(
                "inside jit/grad/vmap a value shaped like a boolean mask's selection cannot be "
                "combined with x[mask]: the number of True values is not known while tracing; "
                "use a "
                "scalar (or a value broadcast along the selection), or jaxtensor.where"
            )
        if fits is False:
            raise ValueError(
                f"operands could not be broadcast together: {tuple(t.shape)} and the "
                f"selection's shape {tuple('N' if s == _COUNT else s for s in f.sel)} "
                "(N: the number of True values)"
            )
        a = t._value()
        while a.ndim > len(f.one):  # (leading axes of size 1, as NumPy drops them)
            a = a.reshape(a.shape[1:])
        v = jnp.broadcast_to(a, f.one).reshape(f.value_layout())
        return Tensor._wrap(v)

    def _apply(self, op: Any, other: Any, reflected: bool = False) -> MaskedSelection:
        o = self._operand(other)
        out = op(o, self.value) if reflected else op(self.value, o)
        return MaskedSelection(self.frame, out)

    def _inplace(self, op: Any, other: Any) -> MaskedSelection:
        o = self._operand(other)
        t = Tensor._wrap(self.value._value())  # (a Tensor of its own: x is written only
        op(t, o)                                # by the assignment back, through the mask)
        return MaskedSelection(self.frame, t)

    def __neg__(self) -> MaskedSelection:
        return MaskedSelection(self.frame, -self.value)

    def __pos__(self) -> MaskedSelection:
        return MaskedSelection(self.frame, +self.value)

    def __abs__(self) -> MaskedSelection:
        return MaskedSelection(self.frame, abs(self.value))

    def __invert__(self) -> MaskedSelection:
        return MaskedSelection(self.frame, ~self.value)


def _same_token(a: Any, b: Any) -> bool:
    """Whether two frames' masks are one value: the same traced array, or the same view
    (structure and starts) of the same traced base value."""
    if a is b:
        return True
    if type(a) is not MaskView or type(b) is not MaskView or a.base is not b.base or (
            a.key != b.key):
        return False
    return len(a.starts) == len(b.starts) and all(
        p is q or (type(p) is int and type(q) is int and p == q)
        for p, q in zip(a.starts, b.starts))


def _binary(op: Any) -> tuple[Any, Any, Any]:
    def forward(self: MaskedSelection, other: Any) -> MaskedSelection:
        return self._apply(op, other)

    def reflected(self: MaskedSelection, other: Any) -> MaskedSelection:
        return self._apply(op, other, reflected=True)

    def inplace(self: MaskedSelection, other: Any) -> MaskedSelection:
        return self._inplace(_INPLACE[op], other)

    return forward, reflected, inplace


_INPLACE = {operator.add: operator.iadd, operator.sub: operator.isub,
            operator.mul: operator.imul, operator.truediv: operator.itruediv,
            operator.floordiv: operator.ifloordiv, operator.mod: operator.imod,
            operator.pow: operator.ipow, operator.and_: operator.iand,
            operator.or_: operator.ior, operator.xor: operator.ixor,
            operator.lshift: operator.ilshift, operator.rshift: operator.irshift}
for _op, _name in ((operator.add, "add"), (operator.sub, "sub"), (operator.mul, "mul"),
                   (operator.truediv, "truediv"), (operator.floordiv, "floordiv"),
                   (operator.mod, "mod"), (operator.pow, "pow"), (operator.and_, "and"),
                   (operator.or_, "or"), (operator.xor, "xor"), (operator.lshift, "lshift"),
                   (operator.rshift, "rshift")):
    _f, _r, _i = _binary(_op)
    setattr(MaskedSelection, f"__{_name}__", _f)
    setattr(MaskedSelection, f"__r{_name}__", _r)
    setattr(MaskedSelection, f"__i{_name}__", _i)


# comparisons, element by element (a reflected one is Python's swap: ``1 < s`` is
# ``s.__gt__(1)``)
for _op, _name in ((operator.eq, "eq"), (operator.ne, "ne"), (operator.lt, "lt"),
                   (operator.le, "le"), (operator.gt, "gt"), (operator.ge, "ge")):
    setattr(MaskedSelection, f"__{_name}__", _binary(_op)[0])
MaskedSelection.__hash__ = None  # type: ignore[assignment]  # (== is element-wise)


def _no_flatten(sel: MaskedSelection) -> Any:
    raise NonConcreteBooleanIndexError(READ_ERROR)


# (returned from a compiled function, or passed to anything that flattens pytrees: the
# error, not JAX's about an unknown leaf type)
jax.tree_util.register_pytree_node(MaskedSelection, _no_flatten, _no_flatten)


def read(x: Tensor, f: Frame) -> MaskedSelection:
    """``x[key]`` for the key whose frame is ``f`` (a traced mask)."""
    return MaskedSelection(f, x._derive(f.view))


def assign(x: Tensor, f: Frame, value: MaskedSelection) -> None:
    """``x[key] = value`` for the key whose frame is ``f``: ``where(mask, value, frame)``,
    written through the frame view."""
    y = x._derive(f.view)
    if not value.same_mask(f, tuple(y.shape)):
        raise NonConcreteBooleanIndexError(
            "inside jit/grad/vmap a selection x[mask] can be assigned only through a key with the "
            "same "
            "boolean mask (the same value: name it once, m = x > 0) over a frame of the "
            "same shape (the number of True values is not known while tracing); use "
            "jaxtensor.where"
        )
    yv = y._value()
    v = prepare_value(value.value, y.dtype, tuple(yv.shape))
    m = jnp.reshape(f.mask, (1,) * f.q + tuple(f.mask.shape) + (1,) * (yv.ndim - f.q - f.d))
    y[...] = jnp.where(m, v, yv)


def traced(f: Frame | None) -> bool:
    return f is not None and isinstance(f.mask, Tracer)
