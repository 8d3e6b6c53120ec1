"""Aliasing queries: ``shares_memory``."""

from __future__ import annotations

import numpy as np

from . import _view
from ._tensor import Tensor

__all__ = [
    "shares_memory",
]


def shares_memory(a: Tensor, b: Tensor, /) -> bool:
    """True when a write through one of ``a``, ``b`` can change the other.

    >>> import jaxtensor as jt
    >>> x = jt.arange(6)
    >>> jt.shares_memory(x, x[::2]), jt.shares_memory(x[::2], x[1::2])
    (True, False)
    """
    if a._storage is not b._storage:
        return False
    if a._view is None or b._view is None:
        return a.size > 0 and b.size > 0
    shape = a._storage.array.shape
    ea = _view.element_set(a._view, shape)
    eb = _view.element_set(b._view, shape)
    return bool(np.intersect1d(ea, eb).size)
