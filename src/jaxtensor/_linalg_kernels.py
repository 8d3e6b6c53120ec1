"""The cached kernels of ``jaxtensor.linalg``: one compiled program per function, dtype and
input structure."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ._core import _dtypes, _kernels


def _real(dt: np.dtype) -> np.dtype:
    if dt in _dtypes.half_dtypes:
        return dt
    return np.dtype(np.float64) if dt in (np.float64, np.complex128) else np.dtype(np.float32)


def _complex(dt: np.dtype) -> np.dtype:
    return np.dtype(np.complex128) if dt in (np.float64, np.complex128) else np.dtype(
        np.complex64)


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


def _from_lower(a: Any) -> Any:
    """The Hermitian matrices of ``a``'s lower triangles, which NumPy's ``eigh``, ``eigvalsh``
    and ``cholesky`` read (JAX's average ``a`` with its conjugate transpose)."""
    low = jnp.tril(a, -1)
    return low + jnp.conj(jnp.swapaxes(low, -1, -2)) + jnp.real(
        jnp.diagonal(a, axis1=-2, axis2=-1))[..., None] * jnp.eye(a.shape[-1], dtype=a.dtype)


def _svdvals(a: Any) -> Any:
    return jnp.linalg.svd(a, compute_uv=False)
