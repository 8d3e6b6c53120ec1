"""``LinAlgError``, raised eagerly by ``jaxtensor.linalg`` and, after the call, by a
``jaxtensor.jit`` call (or loop, or transform) whose trace checked a matrix (see
:meth:`~jaxtensor._core._context.JitTrace.check_matrices`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class LinAlgError(np.linalg.LinAlgError):
    """A matrix a function cannot handle: singular (``solve``, ``inv``, ``matrix_power``
    with a negative power), not positive definite (``cholesky``), not square.

    A subclass of ``numpy.linalg.LinAlgError`` (so of ``ValueError``): ported code's
    ``except np.linalg.LinAlgError:`` catches it. Raised eagerly, and with the same message
    at the call of a ``jaxtensor.jit`` function (and of an eager ``fori_loop``/
    ``while_loop``/``cond``, ``jaxtensor.grad``/``vjp``/``jvp``/``vmap``) whose trace met
    the failing matrix; what the call leaves in the Tensors is what any failed check
    leaves: the writes before the failing function are kept, later ones are not.
    ``jaxtensor.jit(check_bounds=False)`` turns these checks off with the index checks
    (the results are then JAX's ``inf``/``nan``), as does plain ``jax.jit``.

    Examples
    --------
    >>> import jaxtensor as jt
    >>> jt.linalg.inv(jt.asarray([[1.0, 2.0], [2.0, 4.0]]))
    Traceback (most recent call last):
      ...
    jaxtensor.linalg.LinAlgError: linalg.inv(): x is singular (a zero pivot in its LU factorization)
    >>> jt.jit(jt.linalg.inv)(jt.asarray([[1.0, 2.0], [2.0, 4.0]]))
    Traceback (most recent call last):
      ...
    jaxtensor.linalg.LinAlgError: linalg.inv(): x is singular (a zero pivot in its LU factorization)
    """


LinAlgError.__module__ = "jaxtensor.linalg"


def matrix_name(arg: str, index: Sequence[int]) -> str:
    """A matrix of a stack: ``x`` itself, or ``x[i, j]`` (``index`` into the stack)."""
    return f"{arg}[{', '.join(map(str, index))}]" if len(index) else arg


def nonfinite_error(v: object, dtype: object) -> ValueError:
    """The error of a NaN or infinity (``v``, or its name) cast into the integer ``dtype``:
    one for an assigned value, a reduction's ``initial`` and a compiled check's failure."""
    return ValueError(f"cannot convert float {v} to integer: a Tensor of dtype {dtype} cannot "
                      "hold NaN or infinity")


def window_message(v: object, size: int, n: int, axis: int) -> str:
    """The message of a ``ds()`` window out of bounds, eagerly and where a compiled check
    fails (``{}`` for ``v``: a checkify format)."""
    if size > n:
        return f"a ds() window of size {size} does not fit axis {axis} with size {n}"
    return (f"ds({v}, {size}) is out of bounds for axis {axis} with size {n} (a window's "
            f"start must be between 0 and {n - size})")
