"""The checks of ``jaxtensor.linalg`` that raise ``LinAlgError``: eagerly, and inside a
``jaxtensor.jit`` trace (or a loop body, or a transform) through the trace's checks."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ._core import LinAlgError, _kernels, current
from ._core._errors import matrix_name
from ._linalg_kernels import _run

__all__ = ["LinAlgError"]


# Each checked kernel returns, beside its result, one bool per matrix of the stack: the
# result is not finite although the input is (LAPACK's failure shows as inf/NaN in JAX's
# result). Eagerly that is the one small device read; inside a trace the running
# ``jaxtensor.jit`` trace (or transform) checks it, and raises after the call.
def _failed_matrices(bad: Any) -> np.ndarray | None:
    """The indices of the flagged matrices of a stack, or None (none, or traced)."""
    if isinstance(bad, jax.core.Tracer):
        return None
    flags = np.asarray(bad)
    return np.argwhere(flags) if flags.any() else None


def _nonfinite(out: Any, *ins: Any) -> Any:
    """Per matrix: ``out`` is not finite where every input is."""
    def all_finite(v: Any) -> Any:
        return jnp.all(jnp.isfinite(v), axis=(-2, -1))

    bad = ~all_finite(out)
    for v in ins:
        bad = bad & all_finite(v)
    return bad


def _which(index: np.ndarray, arg: str = "x") -> str:
    """The matrix of a stack: ``x`` itself, or ``x[i, j]`` in a stack."""
    return matrix_name(arg, index)


def _zero_pivot(m: Any) -> Any:
    lu = jax.lax.linalg.lu(m)[0]
    return jnp.any(jnp.diagonal(lu, axis1=-2, axis2=-1) == 0, axis=-1)


def _singular(dt: np.dtype) -> Any:
    """Per matrix of a traced stack: flagged, and an exactly zero pivot in its LU
    factorization (computed only where a matrix is flagged: a result was not finite)."""
    def pivots(flags: Any, m: Any) -> Any:
        return flags & jnp.broadcast_to(_run(("zero_pivot",), _zero_pivot, m, dt=dt),
                                        flags.shape)

    def none(flags: Any, m: Any) -> Any:
        return jnp.zeros_like(flags)

    return lambda flags, m: lax.cond(jnp.any(flags), pivots, none, flags, m)


def _singular_message(fname: str) -> str:
    return f"linalg.{fname}(): {{}} is singular (a zero pivot in its LU factorization)"


def _check_traced(bad: Any, message: str, arg: str) -> None:
    """Hand the flags ``bad()`` of a traced call to the running trace's checks (none under
    plain JAX transformations, whose results are JAX's)."""
    trace = current.get()
    if trace is not None:
        trace.check_matrices(bad, message, arg)


def _raise_if_singular(fname: str, a: Any, bad: Any, dt: np.dtype, arg: str = "x") -> None:
    """``LinAlgError`` where a flagged matrix of ``a`` has an exactly zero pivot in its LU
    factorization (NumPy's test: LAPACK's ``getrf`` reports it); a flagged matrix without one
    overflowed, and NumPy returns that result too."""
    if isinstance(bad, jax.core.Tracer):
        _check_traced(lambda: _kernels.call(("singular", dt), lambda: _singular(dt), bad,
                                            lax.stop_gradient(a)),
                      _singular_message(fname), arg)
        return
    flagged = _failed_matrices(bad)
    if flagged is None:
        return
    singular = np.broadcast_to(np.asarray(_run(("zero_pivot",), _zero_pivot, a, dt=dt)),
                               np.shape(bad))
    for index in flagged:
        if singular[tuple(index)]:
            raise LinAlgError(_singular_message(fname).format(_which(index, arg)))


def nan_matrices(a: Any) -> Any:
    """Per matrix of a stack: it holds a NaN (on which LAPACK's SVD does not converge)."""
    return jnp.any(jnp.isnan(a), axis=(-2, -1))


def _raise_if_svd_failed(fname: str, bad: Any, arg: str = "x") -> None:
    """NumPy's ``LinAlgError`` of an SVD that did not converge, for the first matrix
    flagged by :func:`nan_matrices` (``bad``; None: not computed by an SVD)."""
    if bad is not None:
        _raise_first(bad, f"linalg.{fname}(): SVD did not converge: {{}} holds a NaN", arg)


def _raise_if_not_positive_definite(failed: Any) -> None:
    """``LinAlgError`` for the first matrix flagged by ``cholesky``'s kernel."""
    _raise_first(failed, "linalg.cholesky(): {} is not positive definite", "x")


def _raise_first(flags: Any, message: str, arg: str) -> None:
    """``LinAlgError(message)`` naming the first matrix ``flags`` sets: eagerly now, traced
    by the running trace's checks."""
    if isinstance(flags, jax.core.Tracer):
        _check_traced(lambda: flags, message, arg)
        return
    flagged = _failed_matrices(flags)
    if flagged is not None:
        raise LinAlgError(message.format(_which(flagged[0], arg)))
