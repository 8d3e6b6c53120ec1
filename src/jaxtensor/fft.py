"""The Array API ``fft`` extension (2025.12), as ``jaxtensor.fft``.

Complex transforms keep the input's precision (``float32``/``complex64`` in, ``complex64``
out; ``float64``/``complex128`` in, ``complex128`` out); real-input transforms return the
matching complex dtype and their inverses the matching real dtype. ``norm`` is
``"backward"`` (default), ``"ortho"`` or ``"forward"``, as in NumPy.

Examples
--------
>>> import jaxtensor as jt
>>> jt.fft.fft(jt.asarray([1.0, 0.0, 0.0, 0.0])).tolist()
[(1+0j), (1+0j), (1+0j), (1+0j)]
>>> jt.fft.fftfreq(4).tolist()
[0.0, 0.25, -0.5, -0.25]
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from . import _args, _numpy_names
from ._core import Tensor, _dtypes, _kernels

__all__ = [
    "fft",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "ifft",
    "ifftn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfftn",
    "rfft",
    "rfftfreq",
    "rfftn",
]

_NORMS = ("backward", "ortho", "forward")


def __getattr__(name: str) -> object:
    """``numpy.fft``'s names this module lacks say what to write instead."""
    raise _numpy_names.missing("module 'jaxtensor.fft'", "jaxtensor.fft", _numpy_names.FFT,
                               name)


def _complex_of(dt: np.dtype) -> np.dtype:
    return np.dtype(np.complex128) if dt in (np.float64, np.complex128) else np.dtype(
        np.complex64)


def _real_of(dt: np.dtype) -> np.dtype:
    return np.dtype(np.float64) if dt in (np.float64, np.complex128) else np.dtype(np.float32)


def _input(x: Tensor, fname: str, norm: str, want: str) -> tuple[Any, np.dtype]:
    """Value and the dtype to compute in: ``want`` is 'c' (complex in) or 'r' (real in)."""
    if norm not in _NORMS:
        raise ValueError(f"fft.{fname}(): norm must be one of {_NORMS}, got {norm!r}")
    v = _args.value(x, "x", fname)
    dt = np.dtype(v.dtype)
    if _dtypes.kind(dt) not in "iufc":
        raise TypeError(f"fft.{fname}() needs a numeric Tensor, got {dt}")
    if want == "r":
        if dt.kind == "c":
            raise TypeError(
                f"fft.{fname}() needs a real-valued Tensor, got {dt}; use fft.fft for complex "
                "input"
            )
        if dt in _dtypes.half_dtypes:  # (computed in float32, as jax.numpy.fft does)
            return v, np.dtype(np.float32)
        return v, (_dtypes.default_float if dt.kind in "iu" else dt)
    if dt.kind in "iu":
        return v, _dtypes.default_complex
    return v, _complex_of(dt)


def _index(k: Any, fname: str, name: str) -> int:
    return _args.integer(k, f"fft.{fname}(): {name}")


def _axis(a: Any, ndim: int, fname: str, name: str) -> int:
    a = _index(a, fname, name)
    if ndim == 0:
        raise _args.AxisError(f"fft.{fname}(): {name} {a} is out of bounds for a Tensor of "
                         "dimension 0 (x needs at least one dimension)")
    return _args.normalize_axis(a, ndim, f"fft.{fname}(): {name}")


def _ints(seq: Any, fname: str, name: str) -> tuple[int, ...]:
    if isinstance(seq, (str, bytes)) or not hasattr(seq, "__iter__"):
        raise TypeError(f"fft.{fname}(): {name} must be a sequence of integers, got "
                        f"{type(seq).__name__}")
    return tuple(_index(k, fname, f"{name}[{i}]") for i, k in enumerate(seq))


# Inverse real transforms: their default length along the (last) transformed axis is
# 2 * (m - 1) outputs for m inputs.
_C2R = ("irfft", "hfft", "irfftn")


def _check_points(fname: str, points: int, ax: int, m: int, default: bool) -> None:
    """NumPy's ``Invalid number of FFT data points`` as a ``ValueError`` naming
    ``fft.fname()``: an empty input axis, or an inverse real transform of one element."""
    if points >= 1:
        return
    if default and fname in _C2R:
        why = (f"the default 2 * (m - 1) outputs for the m = {m} elements of axis {ax}; pass "
               "n (or s) explicitly, or give at least 2 elements")
    else:
        why = f"axis {ax} of x has size {m}"
    raise ValueError(f"fft.{fname}(): invalid number of FFT data points ({points}): {why}")


def _one(fname: str, jfn: Any, want: str, out: str, x: Tensor, n: Any, axis: int,
         norm: str) -> Tensor:
    v, dt = _input(x, fname, norm, want)
    ax = _axis(axis, v.ndim, fname, "axis")
    m = v.shape[ax]
    if n is not None:
        n = _index(n, fname, "n")
        if n < 1:
            raise ValueError(f"fft.{fname}(): n must be positive, got {n}")
    else:
        _check_points(fname, 2 * (m - 1) if fname in _C2R else m, ax, m, True)
    odt = _complex_of(dt) if out == "c" else _real_of(dt)

    def build() -> Any:
        def f(a: Any) -> Any:
            return jfn(a.astype(dt), n=n, axis=ax, norm=norm).astype(odt)

        return f

    return Tensor._wrap(_kernels.call(("fft", fname, n, ax, norm, dt), build, v))


def _sequential(fname: str, a: Any, s: tuple[int, ...], ax: tuple[int, ...],
                norm: str) -> Any:
    """NumPy's N-d transform as 1-d transforms, last axis first: for ``axes`` that repeat
    an axis (``jax.numpy``'s N-d transforms refuse them; NumPy transforms that axis again)."""
    one = jnp.fft.ifft if fname in ("ifftn", "irfftn") else jnp.fft.fft
    last = len(ax) - 1
    if fname == "rfftn":
        a = jnp.fft.rfft(a, n=s[last], axis=ax[last], norm=norm)
    if fname in ("rfftn", "irfftn"):
        rest = range(last - 1, -1, -1)
    else:
        rest = range(last, -1, -1)
    for i in rest:
        a = one(a, n=s[i], axis=ax[i], norm=norm)
    if fname == "irfftn":
        a = jnp.fft.irfft(a, n=s[last], axis=ax[last], norm=norm)
    return a


def _many(fname: str, jfn: Any, want: str, out: str, x: Tensor, s: Any, axes: Any,
          norm: str) -> Tensor:
    v, dt = _input(x, fname, norm, want)
    if s is not None:
        s = _ints(s, fname, "s")
    if axes is None:
        if s is None:
            ax = tuple(range(v.ndim))
        elif len(s) > v.ndim:
            raise ValueError(f"fft.{fname}(): s has {len(s)} entries, more than the "
                             f"{v.ndim} dimensions of x")
        else:
            ax = tuple(range(v.ndim - len(s), v.ndim))
    else:
        axes = _ints(axes, fname, "axes")
        if s is not None and len(s) != len(axes):
            raise ValueError(f"fft.{fname}(): s and axes must have the same length, got "
                             f"{len(s)} and {len(axes)}")
        ax = tuple(_axis(a, v.ndim, fname, f"axes[{i}]") for i, a in enumerate(axes))
    real = fname in ("rfftn", "irfftn")
    if real and not ax:
        if v.ndim == 0:
            _axis(-1, 0, fname, "axis")
        raise ValueError(f"fft.{fname}(): axes must not be empty")
    given = s is not None
    if s is None:
        s = tuple(v.shape[a] for a in ax)
    else:
        for i, k in enumerate(s):
            if k < 1 and k != -1:
                raise ValueError(f"fft.{fname}(): s[{i}] must be positive or -1, got {k}")
        s = tuple(v.shape[a] if k == -1 else k for k, a in zip(s, ax))
    for i, (k, a) in enumerate(zip(s, ax)):
        last_c2r = fname == "irfftn" and i == len(ax) - 1 and not given
        _check_points(fname, 2 * (k - 1) if last_c2r else k, a, v.shape[a], not given)
    if fname == "irfftn" and not given:
        s = s[:-1] + (2 * (s[-1] - 1),)
    repeated = len(set(ax)) != len(ax)
    js = s if given else None  # (jax.numpy's own default when s is not given)
    odt = _complex_of(dt) if out == "c" else _real_of(dt)

    def build() -> Any:
        def f(a: Any) -> Any:
            a = a.astype(dt)
            if not ax:
                return a.astype(odt)
            if repeated:
                return _sequential(fname, a, s, ax, norm).astype(odt)
            return jfn(a, s=js, axes=ax, norm=norm).astype(odt)

        return f

    return Tensor._wrap(_kernels.call(("fftn", fname, s, js, ax, norm, dt), build, v))


def fft(x: Tensor, /, *, n: int | None = None, axis: int = -1,
        norm: str = "backward") -> Tensor:
    """One-dimensional discrete Fourier transform along ``axis`` (``n``: crop/zero-pad).

    >>> import jaxtensor as jt
    >>> jt.fft.fft(jt.asarray([1.0, 1.0])).tolist()
    [(2+0j), 0j]
    """
    return _one("fft", jnp.fft.fft, "c", "c", x, n, axis, norm)


def ifft(x: Tensor, /, *, n: int | None = None, axis: int = -1,
         norm: str = "backward") -> Tensor:
    """Inverse of :func:`fft`.

    >>> import jaxtensor as jt
    >>> jt.fft.ifft(jt.asarray([2.0, 0.0])).tolist()
    [(1+0j), (1+0j)]
    """
    return _one("ifft", jnp.fft.ifft, "c", "c", x, n, axis, norm)


def fftn(x: Tensor, /, *, s: Any = None, axes: Any = None,
         norm: str = "backward") -> Tensor:
    """N-dimensional discrete Fourier transform over ``axes`` (all by default).

    >>> import jaxtensor as jt
    >>> jt.fft.fftn(jt.ones((2, 2))).tolist()
    [[(4+0j), 0j], [0j, 0j]]
    """
    return _many("fftn", jnp.fft.fftn, "c", "c", x, s, axes, norm)


def ifftn(x: Tensor, /, *, s: Any = None, axes: Any = None,
          norm: str = "backward") -> Tensor:
    """Inverse of :func:`fftn`.

    >>> import jaxtensor as jt
    >>> jt.fft.ifftn(jt.asarray([[4.0, 0.0], [0.0, 0.0]])).tolist()
    [[(1+0j), (1+0j)], [(1+0j), (1+0j)]]
    """
    return _many("ifftn", jnp.fft.ifftn, "c", "c", x, s, axes, norm)


def rfft(x: Tensor, /, *, n: int | None = None, axis: int = -1,
         norm: str = "backward") -> Tensor:
    """Fourier transform of real input: the ``n // 2 + 1`` non-negative frequencies.

    >>> import jaxtensor as jt
    >>> jt.fft.rfft(jt.asarray([1.0, 1.0, 1.0, 1.0])).tolist()
    [(4+0j), 0j, 0j]
    """
    return _one("rfft", jnp.fft.rfft, "r", "c", x, n, axis, norm)


def irfft(x: Tensor, /, *, n: int | None = None, axis: int = -1,
          norm: str = "backward") -> Tensor:
    """Inverse of :func:`rfft`: ``n`` real outputs (default ``2 * (m - 1)``).

    >>> import jaxtensor as jt
    >>> jt.fft.irfft(jt.asarray([4.0, 0.0, 0.0])).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    return _one("irfft", jnp.fft.irfft, "c", "r", x, n, axis, norm)


def rfftn(x: Tensor, /, *, s: Any = None, axes: Any = None,
          norm: str = "backward") -> Tensor:
    """N-dimensional Fourier transform of real input (last axis halved).

    >>> import jaxtensor as jt
    >>> jt.fft.rfftn(jt.ones((2, 2))).shape
    (2, 2)
    """
    return _many("rfftn", jnp.fft.rfftn, "r", "c", x, s, axes, norm)


def irfftn(x: Tensor, /, *, s: Any = None, axes: Any = None,
           norm: str = "backward") -> Tensor:
    """Inverse of :func:`rfftn`.

    >>> import jaxtensor as jt
    >>> jt.fft.irfftn(jt.asarray([[4.0, 0.0], [0.0, 0.0]])).tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """
    return _many("irfftn", jnp.fft.irfftn, "c", "r", x, s, axes, norm)


def hfft(x: Tensor, /, *, n: int | None = None, axis: int = -1,
         norm: str = "backward") -> Tensor:
    """Fourier transform of a Hermitian-symmetric signal given by its first half: ``n``
    real outputs (default ``2 * (m - 1)``).

    >>> import jaxtensor as jt
    >>> jt.fft.hfft(jt.asarray([1.0, 0.0, 0.0])).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    return _one("hfft", jnp.fft.hfft, "c", "r", x, n, axis, norm)


def ihfft(x: Tensor, /, *, n: int | None = None, axis: int = -1,
          norm: str = "backward") -> Tensor:
    """Inverse of :func:`hfft`: the non-negative frequencies of a real signal.

    >>> import jaxtensor as jt
    >>> jt.fft.ihfft(jt.asarray([1.0, 1.0, 1.0, 1.0])).tolist()
    [(1+0j), 0j, 0j]
    """
    return _one("ihfft", jnp.fft.ihfft, "r", "c", x, n, axis, norm)


def _freq_dtype(dtype: Any) -> np.dtype:
    if dtype is None:
        return _dtypes.default_float
    dt = _dtypes.as_dtype(dtype)
    if dt.kind != "f":
        raise TypeError(f"fftfreq(): dtype must be a real floating-point dtype, got {dt}")
    return dt


def _place(arr: Any, device: Any) -> Any:
    return arr if device is None else jax.device_put(arr, device)


def fftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> Tensor:
    """Sample frequencies of :func:`fft` for ``n`` samples spaced ``d`` apart.

    >>> import jaxtensor as jt
    >>> jt.fft.fftfreq(4, d=0.5).tolist()
    [0.0, 0.5, -1.0, -0.5]
    """
    n = _args.integer(n, "fftfreq(): n")
    if n < 1:
        raise ValueError(f"fftfreq(): n must be positive, got {n}")
    dt = _freq_dtype(dtype)
    vals = np.fft.fftfreq(n, d=float(d)).astype(dt)
    return Tensor._wrap(_place(jax.device_put(vals), device))


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> Tensor:
    """Sample frequencies of :func:`rfft` for ``n`` samples spaced ``d`` apart.

    >>> import jaxtensor as jt
    >>> jt.fft.rfftfreq(4).tolist()
    [0.0, 0.25, 0.5]
    """
    n = _args.integer(n, "rfftfreq(): n")
    if n < 1:
        raise ValueError(f"rfftfreq(): n must be positive, got {n}")
    dt = _freq_dtype(dtype)
    vals = np.fft.rfftfreq(n, d=float(d)).astype(dt)
    return Tensor._wrap(_place(jax.device_put(vals), device))


def _shift(fname: str, x: Tensor, axes: Any, inverse: bool) -> Tensor:
    v = _args.value(x, "x", fname)
    if axes is None:
        ax = tuple(range(v.ndim))
    elif isinstance(axes, (tuple, list)):
        ax = tuple(_args.normalize_axis(a, v.ndim) for a in axes)
    else:
        ax = (_args.normalize_axis(axes, v.ndim),)
    shifts = tuple(-(v.shape[a] // 2) if inverse else v.shape[a] // 2 for a in ax)

    def build() -> Any:
        return lambda a: jnp.roll(a, shifts, axis=ax) if ax else a

    return _args.wrap(_kernels.call((fname, ax, shifts), build, v), x)


def fftshift(x: Tensor, /, *, axes: Any = None) -> Tensor:
    """Move the zero-frequency term to the centre of ``axes`` (all by default).

    >>> import jaxtensor as jt
    >>> jt.fft.fftshift(jt.fft.fftfreq(4)).tolist()
    [-0.5, -0.25, 0.0, 0.25]
    """
    return _shift("fftshift", x, axes, False)


def ifftshift(x: Tensor, /, *, axes: Any = None) -> Tensor:
    """Inverse of :func:`fftshift`.

    >>> import jaxtensor as jt
    >>> jt.fft.ifftshift(jt.asarray([-0.5, -0.25, 0.0, 0.25])).tolist()
    [0.0, 0.25, -0.5, -0.25]
    """
    return _shift("ifftshift", x, axes, True)
