"""The Array API ``linalg`` extension (2025.12), as ``jaxtensor.linalg``.

Every function takes and returns Tensors and runs one cached compiled kernel. Functions
that need floating-point input accept integer Tensors too and compute in the default
floating-point dtype (as NumPy does); result dtypes otherwise follow the standard.

Examples
--------
>>> import jaxtensor as jt
>>> a = jt.asarray([[2.0, 0.0], [0.0, 4.0]])
>>> float(jt.linalg.det(a))
8.0
>>> jt.linalg.solve(a, jt.asarray([2.0, 4.0])).tolist()
[1.0, 1.0]
"""

from __future__ import annotations

import math
import operator
from typing import Any, NamedTuple

import jax.numpy as jnp
import numpy as np

from . import _args, _numpy_names
from ._core import Tensor, _dtypes, _kernels
from ._linalg_errors import (
    LinAlgError,
    _nonfinite,
    _raise_if_not_positive_definite,
    _raise_if_singular,
    _raise_if_svd_failed,
    nan_matrices,
)
from ._linalg_kernels import _complex, _from_lower, _real, _run, _svdvals
from ._linear_algebra import matmul, tensordot, vecdot
from ._manipulation import broadcast_shapes, matrix_transpose
from ._statistical import accumulation_dtype, extremum

__all__ = [
    "LinAlgError",
    "cholesky",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_transpose",
    "outer",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "tensordot",
    "trace",
    "vecdot",
    "vector_norm",
]


class EighResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


class EigResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


class QRResult(NamedTuple):
    Q: Tensor
    R: Tensor


class SlogdetResult(NamedTuple):
    sign: Tensor
    logabsdet: Tensor


class SVDResult(NamedTuple):
    U: Tensor
    S: Tensor
    Vh: Tensor


def __getattr__(name: str) -> object:
    """``numpy.linalg``'s names this module lacks say what to write instead."""
    raise _numpy_names.missing("module 'jaxtensor.linalg'", "jaxtensor.linalg",
                               _numpy_names.LINALG, name)


def _float_input(x: Any, fname: str, min_ndim: int = 2, square: bool = True) -> tuple[Any,
                                                                                      np.dtype]:
    v = _args.value(x, "x", fname)
    dt = np.dtype(v.dtype)
    if dt.kind == "b":
        raise TypeError(f"linalg.{fname}() needs a numeric Tensor, got bool")
    if dt.kind in "iu":
        dt = _dtypes.default_float
    if v.ndim < min_ndim:
        raise (LinAlgError if min_ndim >= 2 else ValueError)(
            f"linalg.{fname}() needs a Tensor with at least {min_ndim} dimensions, got shape "
            f"{tuple(v.shape)}"
        )
    if square and min_ndim >= 2 and v.shape[-1] != v.shape[-2]:
        raise LinAlgError(
            f"linalg.{fname}() needs (stacks of) square matrices, got shape {tuple(v.shape)}"
        )
    return v, dt


def cholesky(x: Tensor, /, *, upper: bool = False) -> Tensor:
    """Cholesky factor of (stacks of) Hermitian positive-definite matrices: lower ``L``
    with ``x = L @ L^H`` (``upper=True``: ``U`` with ``x = U^H @ U``).

    >>> import jaxtensor as jt
    >>> jt.linalg.cholesky(jt.asarray([[4.0, 2.0], [2.0, 2.0]])).tolist()
    [[2.0, 0.0], [1.0, 1.0]]
    """
    v, dt = _float_input(x, "cholesky")
    up = bool(upper)

    def fn(a: Any) -> Any:
        # (the triangle NumPy reads: the lower one, the upper one for ``upper=True``)
        lo = jnp.linalg.cholesky(_from_lower(jnp.conj(jnp.swapaxes(a, -1, -2)) if up else a))
        # (LAPACK's failure is a NaN factor; NaN in the input is NumPy's NaN result)
        failed = jnp.any(jnp.isnan(lo), axis=(-2, -1)) & ~jnp.any(jnp.isnan(a), axis=(-2, -1))
        return (jnp.conj(jnp.swapaxes(lo, -1, -2)) if up else lo), failed

    out, failed = _run(("cholesky", up), fn, v, dt=dt)
    _raise_if_not_positive_definite(failed)
    return Tensor._wrap(out)


def cross(x1: Tensor, x2: Tensor, /, *, axis: int = -1) -> Tensor:
    """Cross products of 3-vectors along ``axis`` (other axes broadcast).

    >>> import jaxtensor as jt
    >>> jt.linalg.cross(jt.asarray([1, 0, 0]), jt.asarray([0, 1, 0])).tolist()
    [0, 0, 1]
    """
    a = _args.value(x1, "x1", "cross")
    b = _args.value(x2, "x2", "cross")
    dt = _dtypes.promote(np.dtype(a.dtype), np.dtype(b.dtype))
    if dt.kind == "b":
        raise TypeError("linalg.cross() needs numeric Tensors")
    ax = operator.index(axis)
    n = min(a.ndim, b.ndim)
    if n == 0:
        raise ValueError("linalg.cross() needs Tensors with at least one dimension")
    if ax >= 0:
        nd = max(a.ndim, b.ndim)
        if a.ndim != b.ndim or ax >= nd:
            raise IndexError(
                "linalg.cross(): a non-negative axis needs Tensors of equal rank; use a "
                "negative axis"
            )
        ax -= nd
    if not -n <= ax <= -1:
        raise _args.AxisError(f"linalg.cross(): axis {axis} is out of bounds")
    if a.shape[ax] != 3 or b.shape[ax] != 3:
        raise ValueError(
            f"linalg.cross(): the axis must have size 3, got {a.shape[ax]} and {b.shape[ax]}"
        )
    broadcast_shapes(tuple(np.delete(np.array(a.shape, dtype=object), ax)),
                     tuple(np.delete(np.array(b.shape, dtype=object), ax)))

    def fn(p: Any, q: Any) -> Any:
        p = jnp.moveaxis(p, ax, -1)
        q = jnp.moveaxis(q, ax, -1)
        p0, p1, p2 = p[..., 0], p[..., 1], p[..., 2]
        q0, q1, q2 = q[..., 0], q[..., 1], q[..., 2]
        out = jnp.stack([p1 * q2 - p2 * q1, p2 * q0 - p0 * q2, p0 * q1 - p1 * q0], axis=-1)
        return jnp.moveaxis(out, -1, ax)

    return Tensor._wrap(_run(("cross", ax), fn, a, b, dt=dt))


def det(x: Tensor, /) -> Tensor:
    """Determinants of (stacks of) square matrices.

    >>> import jaxtensor as jt
    >>> float(jt.linalg.det(jt.asarray([[1.0, 2.0], [3.0, 4.0]])))
    -2.0
    """
    v, dt = _float_input(x, "det")
    return Tensor._wrap(_run(("det",), jnp.linalg.det, v, dt=dt))


def diagonal(x: Tensor, /, *, offset: int = 0) -> Tensor:
    """The ``offset``-th diagonals of the innermost matrices (a new Tensor).

    >>> import jaxtensor as jt
    >>> jt.linalg.diagonal(jt.asarray([[1, 2], [3, 4]]), offset=1).tolist()
    [2]
    """
    v = _args.value(x, "x", "diagonal")
    if v.ndim < 2:
        raise ValueError("linalg.diagonal() needs a Tensor with at least 2 dimensions")
    off = operator.index(offset)

    def fn(a: Any) -> Any:
        return jnp.diagonal(a, offset=off, axis1=-2, axis2=-1)

    return _args.wrap(_run(("diagonal", off), fn, v), x)


def eigh(x: Tensor, /) -> EighResult:
    """Eigenvalues (ascending) and orthonormal eigenvectors of Hermitian matrices.

    >>> import jaxtensor as jt
    >>> jt.linalg.eigh(jt.asarray([[2.0, 0.0], [0.0, 1.0]])).eigenvalues.tolist()
    [1.0, 2.0]
    """
    v, dt = _float_input(x, "eigh")

    def fn(a: Any) -> Any:
        w, q = jnp.linalg.eigh(_from_lower(a))
        return w.astype(_real(dt)), q

    w, q = _run(("eigh",), fn, v, dt=dt)
    return EighResult(Tensor._wrap(w), Tensor._wrap(q))


def eigvalsh(x: Tensor, /) -> Tensor:
    """Eigenvalues (ascending) of Hermitian matrices, in the matching real dtype.

    >>> import jaxtensor as jt
    >>> jt.linalg.eigvalsh(jt.asarray([[2.0, 0.0], [0.0, 1.0]])).tolist()
    [1.0, 2.0]
    """
    v, dt = _float_input(x, "eigvalsh")
    return Tensor._wrap(_run(("eigvalsh",), lambda a: jnp.linalg.eigvalsh(_from_lower(a)).astype(_real(dt)),
                             v, dt=dt))


def _eig_check(v: Any) -> None:
    dev = next(iter(v.devices())) if hasattr(v, "devices") else None
    if dev is not None and dev.platform != "cpu":
        raise NotImplementedError(
            "linalg.eig()/eigvals() of non-Hermitian matrices run on CPU only in JAX; move "
            "the Tensor with x.to_device(jax.devices('cpu')[0]) first"
        )


def eig(x: Tensor, /) -> EigResult:
    """Eigenvalues and eigenvectors of general square matrices (complex results).

    >>> import jaxtensor as jt
    >>> jt.linalg.eig(jt.asarray([[2.0, 0.0], [0.0, 1.0]])).eigenvalues.dtype
    dtype('complex128')
    """
    v, dt = _float_input(x, "eig")
    _eig_check(v)
    cdt = _complex(dt)

    def fn(a: Any) -> Any:
        w, q = jnp.linalg.eig(a)
        return w.astype(cdt), q.astype(cdt)

    w, q = _run(("eig",), fn, v, dt=dt)
    return EigResult(Tensor._wrap(w), Tensor._wrap(q))


def eigvals(x: Tensor, /) -> Tensor:
    """Eigenvalues of general square matrices (complex).

    >>> import jaxtensor as jt
    >>> sorted(jt.linalg.eigvals(jt.asarray([[2.0, 0.0], [0.0, 1.0]])).tolist(), key=abs)
    [(1+0j), (2+0j)]
    """
    v, dt = _float_input(x, "eigvals")
    _eig_check(v)
    cdt = _complex(dt)
    return Tensor._wrap(_run(("eigvals",), lambda a: jnp.linalg.eigvals(a).astype(cdt), v,
                             dt=dt))


def inv(x: Tensor, /) -> Tensor:
    """Inverses of (stacks of) square matrices.

    >>> import jaxtensor as jt
    >>> jt.linalg.inv(jt.asarray([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    v, dt = _float_input(x, "inv")

    def fn(a: Any) -> Any:
        out = jnp.linalg.inv(a)
        return out, _nonfinite(out, a)

    out, bad = _run(("inv",), fn, v, dt=dt)
    _raise_if_singular("inv", v, bad, dt)
    return Tensor._wrap(out)


def matrix_norm(x: Tensor, /, *, keepdims: bool = False, ord: Any = "fro") -> Tensor:  # noqa: A002
    """Norms of the innermost matrices: ``'fro'``, ``'nuc'``, ``1``, ``-1``, ``2``, ``-2``,
    ``inf``, ``-inf`` (real result dtype).

    >>> import jaxtensor as jt
    >>> float(jt.linalg.matrix_norm(jt.asarray([[3.0, 0.0], [0.0, 4.0]])))
    5.0
    """
    v, dt = _float_input(x, "matrix_norm", square=False)
    if ord not in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
        raise ValueError(
            f"linalg.matrix_norm(): unsupported ord {ord!r}; use 'fro', 'nuc', 1, -1, 2, -2, "
            "inf or -inf"
        )
    keep = bool(keepdims)
    rdt = _real(dt)
    o = ord if isinstance(ord, str) else float(ord)
    if not isinstance(o, str) and o < 0:
        m, n = v.shape[-2:]
        count = {-1.0: n, -2.0: min(m, n)}.get(o, m)  # columns, singular values, rows
        if count == 0:
            raise ValueError(
                f"linalg.matrix_norm(ord={ord}) of {m}x{n} matrices: the minimum over zero "
                f"{'columns' if o == -1 else 'singular values' if o == -2 else 'rows'} "
                "has no identity")

    def fn(a: Any) -> Any:
        # (a norm is never negative: the largest of nothing is 0, as in NumPy)
        if o == "fro":
            r = jnp.sqrt(jnp.sum(jnp.abs(a) ** 2, axis=(-2, -1)))
        elif o == "nuc":
            r = jnp.sum(_svdvals(a), axis=-1)
        elif o in (2.0, -2.0):
            s = _svdvals(a)
            r = extremum(jnp.max, s, -1, False, initial=0.0) if o > 0 else extremum(
                jnp.min, s, -1, False)
        else:
            c = jnp.sum(jnp.abs(a), axis=-2 if o in (1.0, -1.0) else -1)
            r = extremum(jnp.max, c, -1, False, initial=0.0) if o > 0 else extremum(
                jnp.min, c, -1, False)
        r = r.astype(rdt)
        return (r[..., None, None] if keep else r), nan_matrices(a) if by_svd else None

    by_svd = o in ("nuc", 2.0, -2.0)
    r, bad = _run(("matrix_norm", o, keep), fn, v, dt=dt)
    _raise_if_svd_failed("matrix_norm", bad)
    return Tensor._wrap(r)


def matrix_power(x: Tensor, n: int, /) -> Tensor:
    """``x`` multiplied by itself ``n`` times (``n < 0``: powers of the inverse;
    ``n == 0``: identity). Integer Tensors stay integer for ``n >= 0``.

    >>> import jaxtensor as jt
    >>> jt.linalg.matrix_power(jt.asarray([[1, 1], [0, 1]]), 3).tolist()
    [[1, 3], [0, 1]]
    """
    v = _args.value(x, "x", "matrix_power")
    dt = np.dtype(v.dtype)
    if v.ndim < 2 or v.shape[-1] != v.shape[-2]:
        raise ValueError(
            f"linalg.matrix_power() needs (stacks of) square matrices, got shape "
            f"{tuple(v.shape)}"
        )
    n = _args.index(n, "linalg.matrix_power(): n")
    if n < 0 and dt.kind in "iub":
        dt = _dtypes.default_float
    if n >= 0:
        return Tensor._wrap(_run(("matrix_power", n), lambda a: jnp.linalg.matrix_power(a, n),
                                 v, dt=dt))

    def fn(a: Any) -> Any:
        out = jnp.linalg.matrix_power(a, n)
        return out, _nonfinite(out, a)

    out, bad = _run(("matrix_power", n), fn, v, dt=dt)
    _raise_if_singular("matrix_power", v, bad, dt)
    return Tensor._wrap(out)


def _rtol(rtol: Any, fname: str) -> Any:
    if rtol is None:
        return None
    if isinstance(rtol, (int, float)):
        return float(rtol)
    return _args.value(rtol, "rtol", fname)


def matrix_rank(x: Tensor, /, *, rtol: Any = None) -> Tensor:
    """Ranks of the innermost matrices: singular values above ``rtol * max(s)`` (default
    ``rtol = max(M, N) * eps``), in the default integer dtype.

    >>> import jaxtensor as jt
    >>> int(jt.linalg.matrix_rank(jt.asarray([[1.0, 2.0], [2.0, 4.0]])))
    1
    """
    v, dt = _float_input(x, "matrix_rank", square=False)
    r = _rtol(rtol, "matrix_rank")
    idx = _dtypes.default_int
    if r is None:
        r = max(v.shape[-2:]) * float(jnp.finfo(_real(dt)).eps)

    def fn(a: Any, rr: Any) -> Any:
        s = _svdvals(a)
        rr = jnp.asarray(rr, s.dtype)
        tol = jnp.max(s, axis=-1, initial=0.0)[..., None] * rr[..., None]
        return jnp.sum(s > tol, axis=-1).astype(idx), nan_matrices(a)

    if isinstance(r, float):
        out, bad = _run(("matrix_rank", r), lambda a: fn(a, r), v, dt=dt)
    else:
        out, bad = _kernels.call(("matrix_rank_arr", dt),
                                 lambda: lambda a, rr: fn(a.astype(dt), rr), v, r)
    _raise_if_svd_failed("matrix_rank", bad)
    return Tensor._wrap(out)


def outer(x1: Tensor, x2: Tensor, /) -> Tensor:
    """Outer product of two 1-D Tensors.

    >>> import jaxtensor as jt
    >>> jt.linalg.outer(jt.asarray([1, 2]), jt.asarray([1, 10])).tolist()
    [[1, 10], [2, 20]]
    """
    a = _args.value(x1, "x1", "outer")
    b = _args.value(x2, "x2", "outer")
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(
            f"linalg.outer() needs two 1-D Tensors, got shapes {tuple(a.shape)} and "
            f"{tuple(b.shape)}"
        )
    dt = _dtypes.promote(np.dtype(a.dtype), np.dtype(b.dtype))
    return Tensor._wrap(_run(("outer",), lambda p, q: p[:, None] * q[None, :], a, b, dt=dt))


def pinv(x: Tensor, /, *, rtol: Any = None) -> Tensor:
    """Moore-Penrose pseudo-inverses of the innermost matrices.

    >>> import jaxtensor as jt
    >>> jt.linalg.pinv(jt.asarray([[2.0, 0.0], [0.0, 0.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.0]]
    """
    v, dt = _float_input(x, "pinv", square=False)
    r = _rtol(rtol, "pinv")
    def fn(a: Any, rr: Any) -> Any:
        return jnp.linalg.pinv(a, rtol=rr), nan_matrices(a)

    if r is not None and not isinstance(r, float):
        out, bad = _kernels.call(("pinv_arr", dt), lambda: lambda a, rr: fn(a.astype(dt), rr),
                                 v, r)
    else:
        rt = r if r is not None else max(v.shape[-2:]) * float(jnp.finfo(_real(dt)).eps)
        out, bad = _run(("pinv", rt), lambda a: fn(a, rt), v, dt=dt)
    _raise_if_svd_failed("pinv", bad)
    return Tensor._wrap(out)


def qr(x: Tensor, /, *, mode: str = "reduced") -> QRResult:
    """QR decompositions of the innermost matrices (``mode``: ``'reduced'`` or
    ``'complete'``).

    >>> import jaxtensor as jt
    >>> q, r = jt.linalg.qr(jt.asarray([[1.0, 0.0], [0.0, 2.0]]))
    >>> q.shape, r.shape
    ((2, 2), (2, 2))
    """
    if mode not in ("reduced", "complete"):
        raise ValueError(f"linalg.qr(): mode must be 'reduced' or 'complete', got {mode!r}")
    v, dt = _float_input(x, "qr", square=False)
    q, r = _run(("qr", mode), lambda a: tuple(jnp.linalg.qr(a, mode=mode)), v, dt=dt)
    return QRResult(Tensor._wrap(q), Tensor._wrap(r))


def slogdet(x: Tensor, /) -> SlogdetResult:
    """Sign and natural log of the absolute determinant (stable for large matrices).

    >>> import jaxtensor as jt
    >>> s, l = jt.linalg.slogdet(jt.asarray([[-2.0, 0.0], [0.0, 1.0]]))
    >>> float(s), round(float(l), 4)
    (-1.0, 0.6931)
    """
    v, dt = _float_input(x, "slogdet")
    rdt = _real(dt)

    def fn(a: Any) -> Any:
        s, ld = jnp.linalg.slogdet(a)
        return s.astype(dt), ld.astype(rdt)

    s, ld = _run(("slogdet",), fn, v, dt=dt)
    return SlogdetResult(Tensor._wrap(s), Tensor._wrap(ld))


def solve(x1: Tensor, x2: Tensor, /) -> Tensor:
    """Solve ``x1 @ X = x2`` for square ``x1``. A 1-D ``x2`` of shape ``(M,)`` is one
    right-hand side for every matrix in the stack.

    >>> import jaxtensor as jt
    >>> jt.linalg.solve(jt.asarray([[2.0, 0.0], [0.0, 4.0]]), jt.asarray([2.0, 4.0])).tolist()
    [1.0, 1.0]
    """
    a, adt = _float_input(x1, "solve")
    b = _args.value(x2, "x2", "solve")
    bdt = np.dtype(b.dtype)
    if bdt.kind in "iub":
        bdt = _dtypes.default_float
    dt = _dtypes.promote(adt, bdt)
    m = a.shape[-1]
    if b.ndim == 1:
        if b.shape[0] != m:
            raise ValueError(f"linalg.solve(): x2 has {b.shape[0]} entries; x1 needs {m}")
        vec = True
    else:
        if b.shape[-2] != m:
            raise ValueError(
                f"linalg.solve(): x2 of shape {tuple(b.shape)} does not fit x1 of shape "
                f"{tuple(a.shape)}"
            )
        broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
        vec = False

    def fn(p: Any, q: Any) -> Any:
        # shapes are read from the operands: the kernel is cached across shapes
        if vec:
            q = jnp.broadcast_to(q[:, None], (*p.shape[:-2], q.shape[0], 1))
            out = jnp.linalg.solve(p, q)
            return out[..., 0], _nonfinite(out, p, q)
        batch = jnp.broadcast_shapes(p.shape[:-2], q.shape[:-2])
        p = jnp.broadcast_to(p, (*batch, *p.shape[-2:]))
        q = jnp.broadcast_to(q, (*batch, *q.shape[-2:]))
        out = jnp.linalg.solve(p, q)
        return out, _nonfinite(out, p, q)

    out, bad = _run(("solve", vec), fn, a, b, dt=dt)
    _raise_if_singular("solve", a, bad, dt, arg="x1")
    return Tensor._wrap(out)


def svd(x: Tensor, /, *, full_matrices: bool = True) -> SVDResult:
    """Singular value decompositions ``x = U @ diag(S) @ Vh`` (``S`` descending, real).

    >>> import jaxtensor as jt
    >>> jt.linalg.svd(jt.asarray([[3.0, 0.0], [0.0, 4.0]])).S.tolist()
    [4.0, 3.0]
    """
    v, dt = _float_input(x, "svd", square=False)
    full = bool(full_matrices)
    rdt = _real(dt)

    def fn(a: Any) -> Any:
        u, s, vh = jnp.linalg.svd(a, full_matrices=full)
        return u, s.astype(rdt), vh, nan_matrices(a)

    u, s, vh, bad = _run(("svd", full), fn, v, dt=dt)
    _raise_if_svd_failed("svd", bad)
    return SVDResult(Tensor._wrap(u), Tensor._wrap(s), Tensor._wrap(vh))


def svdvals(x: Tensor, /) -> Tensor:
    """Singular values of the innermost matrices, descending.

    >>> import jaxtensor as jt
    >>> jt.linalg.svdvals(jt.asarray([[3.0, 0.0], [0.0, 4.0]])).tolist()
    [4.0, 3.0]
    """
    v, dt = _float_input(x, "svdvals", square=False)
    rdt = _real(dt)
    s, bad = _run(("svdvals",), lambda a: (_svdvals(a).astype(rdt), nan_matrices(a)), v, dt=dt)
    _raise_if_svd_failed("svdvals", bad)
    return Tensor._wrap(s)


def trace(x: Tensor, /, *, offset: int = 0, dtype: Any = None) -> Tensor:
    """Sums of the ``offset``-th diagonals of the innermost matrices (dtype rules of
    ``sum``).

    >>> import jaxtensor as jt
    >>> int(jt.linalg.trace(jt.asarray([[1, 2], [3, 4]])))
    5
    """
    v = _args.value(x, "x", "trace")
    if v.ndim < 2:
        raise ValueError("linalg.trace() needs a Tensor with at least 2 dimensions")
    dt = accumulation_dtype(np.dtype(v.dtype), dtype)
    off = operator.index(offset)

    def fn(a: Any) -> Any:
        return jnp.sum(jnp.diagonal(a, offset=off, axis1=-2, axis2=-1), axis=-1, dtype=dt)

    return Tensor._wrap(_run(("trace", off), fn, v, dt=dt))


def vector_norm(x: Tensor, /, *, axis: Any = None, keepdims: bool = False,
                ord: Any = 2) -> Tensor:  # noqa: A002
    """p-norms over ``axis`` (all elements by default): ``ord`` any real number, ``inf``,
    ``-inf`` or ``0`` (the count of non-zeros). Real result dtype.

    >>> import jaxtensor as jt
    >>> float(jt.linalg.vector_norm(jt.asarray([3.0, 4.0])))
    5.0
    """
    v = _args.value(x, "x", "vector_norm")
    dt = np.dtype(v.dtype)
    if dt.kind == "b":
        raise TypeError("linalg.vector_norm() needs a numeric Tensor")
    if dt.kind in "iu":
        dt = _dtypes.default_float
    rdt = _real(dt)
    axes = _args.normalize_axes(axis, v.ndim, "linalg.vector_norm(): axis")
    keep = bool(keepdims)
    if not isinstance(ord, (int, float, np.number, Tensor)):
        raise ValueError(f"linalg.vector_norm(): ord must be a real number or +-inf, got "
                         f"{ord!r}; matrix norms ('fro', 'nuc') are linalg.matrix_norm's")
    o = float(ord)
    if o == -math.inf and any(v.shape[a] == 0 for a in axes):
        raise ValueError(
            f"linalg.vector_norm(ord=-inf) over zero elements (shape {tuple(v.shape)}, axis "
            f"{axis}): the minimum of nothing has no identity")

    def fn(a: Any) -> Any:
        m = jnp.abs(a).astype(rdt)
        if o == math.inf:
            r = extremum(jnp.max, m, axes, keep, initial=0.0)
        elif o == -math.inf:
            r = extremum(jnp.min, m, axes, keep, initial=math.inf)
        elif o == 0:
            r = jnp.sum(m != 0, axis=axes, keepdims=keep).astype(rdt)
        elif o == 1:
            r = jnp.sum(m, axis=axes, keepdims=keep)
        elif o == 2:
            r = jnp.sqrt(jnp.sum(m * m, axis=axes, keepdims=keep))
        else:
            r = jnp.sum(m ** o, axis=axes, keepdims=keep) ** (1.0 / o)
        return r.astype(rdt)

    return Tensor._wrap(_run(("vector_norm", axes, keep, o), fn, v, dt=dt))
