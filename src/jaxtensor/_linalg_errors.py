"""``LinAlgError`` and the eager checks of ``jaxtensor.linalg`` that raise it."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ._linalg_kernels import _run


class LinAlgError(np.linalg.LinAlgError):
    """A matrix a function cannot handle: singular (``solve``, ``inv``, ``matrix_power``
    with a negative power), not positive definite (``cholesky``), not square.

    A subclass of ``numpy.linalg.LinAlgError`` (so of ``ValueError``): ported code's
    ``except np.linalg.LinAlgError:`` catches it. Raised eagerly only; inside
    ``jaxtensor.jit`` and the transforms the results are JAX's (``inf``/``nan``).

    Examples
    --------
    >>> import jaxtensor as jt
    >>> jt.linalg.inv(jt.asarray([[1.0, 2.0], [2.0, 4.0]]))
    Traceback (most recent call last):
      ...
    jaxtensor.linalg.LinAlgError: linalg.inv(): x is singular (a zero pivot in its LU factorization)
    """


LinAlgError.__module__ = "jaxtensor.linalg"


# -- LinAlgError, eagerly ------------------------------------------------------------------
# Each checked kernel returns, beside its result, one bool per matrix of the stack: the
# result is not finite although the input is (LAPACK's failure shows as inf/NaN in JAX's
# result). Reading it is the one small device read; inside a trace nothing is read.
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
    return f"{arg}[{', '.join(map(str, index))}]" if len(index) else arg


def _raise_if_singular(fname: str, a: Any, bad: Any, dt: np.dtype, arg: str = "x") -> None:
    """``LinAlgError`` where a flagged matrix of ``a`` has an exactly zero pivot in its LU
    factorization (NumPy's test: LAPACK's ``getrf`` reports it); a flagged matrix without one
    overflowed, and NumPy returns that result too."""
    flagged = _failed_matrices(bad)
    if flagged is None:
        return

    def zero_pivot(m: Any) -> Any:
        lu = jax.lax.linalg.lu(m)[0]
        return jnp.any(jnp.diagonal(lu, axis1=-2, axis2=-1) == 0, axis=-1)

    singular = np.broadcast_to(np.asarray(_run(("zero_pivot",), zero_pivot, a, dt=dt)),
                               np.shape(bad))
    for index in flagged:
        if singular[tuple(index)]:
            raise LinAlgError(
                f"linalg.{fname}(): {_which(index, arg)} is singular (a zero pivot in its LU factorization)")
