"""The cached kernels of ``jaxtensor.linalg``: one compiled program per function, dtype and
input structure."""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from ._core import _dtypes, _kernels


def _run(key: tuple, fn: Any, *vals: Any, dt: np.dtype | None = None) -> Any:
    """``fn`` of ``vals`` cast to ``dt`` in a cached kernel; half precision is computed in
    float32 (LAPACK has no half routines) and its float32 results rounded back."""
    half = dt in _dtypes.half_dtypes

    def build() -> Any:
        def f(*vs: Any) -> Any:
            if dt is not None:
                work = np.dtype(np.float32) if half else dt
                vs = tuple(w.astype(work) if w.dtype != work else w for w in vs)
            out = fn(*vs)
            if half:
                out = jax.tree.map(lambda o: o.astype(dt) if o.dtype == np.float32 else o, out)
            return out

        return f

    return _kernels.call((*key, dt), build, *vals)
