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
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .._core import Tensor, _kernels, _view
from . import _basic, _plan
from ._plan import Int, IntArray, Mask, NonConcreteBooleanIndexError, Plan, PyBool, Slice
from ._values import prepare_value

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


def write(x: Tensor, plan: Plan, sig: tuple, values: list[Any], value: Any) -> bool:
    """Write ``value`` at the mask key (``plan``, its signature and values) as ``where``,
    if its form allows; False (nothing done) sends it to the general path."""
    items = plan.items
    js = [k for k, it in enumerate(items) if type(it) is Mask]
    if len(js) != 1 or any(type(it) in (IntArray, PyBool) for it in items):
        return False
    j = js[0]
    mitem = items[j]
    if 0 in mitem.shape:  # (an empty mask axis matches any size: the general path)
        return False
    vals = iter(values)
    ints: list[Any] = []
    mask = None
    frame: list[Any] = []
    q = 0
    for it in items:
        t = type(it)
        if t is Int:
            ints.append(next(vals))
            frame.append(it)
        elif t is Mask:
            mask = next(vals)
            q = sum(1 for f in frame if type(f) is not Int)
            frame += [Slice(it.axis + d, 0, n, 1) for d, n in enumerate(it.shape)]
        else:
            frame.append(it)
    if isinstance(mask, Tensor):
        mask = mask._value()
    traced = isinstance(mask, Tracer)
    sel, p = _selection(plan, j)
    vshape = _shape_of(value)
    if vshape is None:
        return False
    fits = _fits(vshape, sel, p)
    if fits is not True:
        if not traced:
            return False  # (needs the count, or raises NumPy's error: the general path)
        if fits is None:
            raise NonConcreteBooleanIndexError(
                "inside jit a value shaped like a boolean mask's selection cannot be "
                "assigned: the number of True values is not known while tracing; assign a "
                "scalar (or a value broadcast along the selection), or use "
                "jaxtensor.where(mask, values, x)"
            )
        raise ValueError(
            f"could not broadcast input array from shape {vshape} into the "
            f"selection's shape {tuple('N' if s == _COUNT else s for s in sel)} (N: the "
            "number of True values)"
        )
    one = [1 if s == _COUNT else s for s in sel]
    val = prepare_value(value, x.dtype, tuple(one))
    shape = x.shape
    bplan = _plan.Plan(tuple(frame), True, None, plan.gap, len(ints))
    tpl = _basic.template(x._view, shape, ("where",) + sig, bplan)
    view = tpl.view(tpl.starts(() if x._view is None else x._view.starts, ints))
    d = len(mitem.shape)
    key = ("mask-where", tpl.key, tuple(one), p, q, d)
    steps, comp = tpl.steps, tpl.comp
    kernels = _kernels.kernels(key, lambda: _where_kernel(steps, comp, tuple(one), p, q, d))
    x._storage.update(kernels, view.dyn(), mask, val)
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


def _where_kernel(steps: tuple, comp: str | None, one: tuple[int, ...], p: int, q: int,
                  d: int) -> Any:
    """``(base, dyn, mask, value) -> new base``: the frame view read, ``where`` on it with
    the mask at axes ``q .. q + d`` and the value (shaped like the selection with a count
    of one, ``one``; its count axis at ``p``), written back."""
    kept = one[:p] + one[p + 1:]
    vshape = kept[:q] + (1,) * d + kept[q:]

    def write(base: Any, dyn: Any, mask: Any, v: Any) -> Any:
        y = _view.chain_forward(steps, comp, base, dyn, True)
        m = jnp.reshape(mask, (1,) * q + tuple(mask.shape) + (1,) * (y.ndim - q - d))
        v = _kernels._fit(v, y.dtype, one).reshape(vshape)
        return _view.chain_backward(steps, comp, base, dyn, jnp.where(m, v, y))

    return write

