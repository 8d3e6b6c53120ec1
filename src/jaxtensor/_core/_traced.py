"""The errors of a traced Tensor's value needed on the host (``if x[0] > 0:``, ``int(n)``,
``np.asarray(x)``) inside ``jaxtensor.jit``, a loop body or a JAX transform.

JAX's own messages name the function JAX traced, which for a loop body is jaxtensor's
wrapper (``step at .../_jit/_loop_trace.py``) and its argument (``state[0][0]``). These
name the user's function, line and source text instead, and say what to write. The exceptions are
JAX's own classes (``except jax.errors.ConcretizationTypeError:`` still catches them) with
these messages.
"""

from __future__ import annotations

import linecache
import os
import sys
from typing import Any

import jax

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_INSTEAD = (
    "Inside jaxtensor.jit, a jaxtensor loop body (fori_loop, while_loop, cond) or a JAX "
    "transform, a Tensor's value is not known while the function is traced, so Python "
    "cannot use it. Instead use:\n"
    "  - jaxtensor.where(condition, x, y) to choose values element-wise;\n"
    "  - jaxtensor.cond(pred, true_fun, false_fun, *operands) to run one of two functions;\n"
    "  - jaxtensor.fori_loop / jaxtensor.while_loop for a loop whose count or end depends on "
    "a value;\n"
    "  - jaxtensor.jit(f, static_argnums=...) (or static_argnames) for an argument that is a "
    "setting rather than data (the function is then compiled per value)."
)


def _user_frame() -> Any:
    """The innermost frame outside jaxtensor (and JAX): the user's code."""
    f = sys._getframe(1)
    while f is not None:
        name = f.f_code.co_filename
        if not name.startswith(_PACKAGE) and f"{os.sep}jax{os.sep}" not in name:
            return f
        f = f.f_back
    return None


def _where() -> str:
    f = _user_frame()
    if f is None:
        return ""
    line = linecache.getline(f.f_code.co_filename, f.f_lineno).strip()
    src = f": `{line}`" if line else ""
    return f" in {f.f_code.co_name} at {f.f_code.co_filename}:{f.f_lineno}{src}"


def _origin(tracer: Any) -> str:
    """JAX's account of where ``tracer`` became traced (the function JAX traced and the
    argument the value depends on), unless it names jaxtensor's own code (a loop body's
    wrapper): read from JAX's public error built on the tracer."""
    text = str(jax.errors.ConcretizationTypeError(tracer))
    body = text.split("\n", 1)[1] if "\n" in text else ""
    body = body.split("\nSee https://", 1)[0].strip()
    return "" if _PACKAGE in body else body + "\n"


def _describe(what: str, tracer: Any, shape: tuple, dtype: Any) -> str:
    return (f"{what} of a traced Tensor (shape {shape}, dtype {dtype}){_where()}.\n"
            f"{_origin(tracer)}{_INSTEAD}")


def _jax_error(cls: type, message: str) -> Exception:
    """JAX's exception ``cls`` with ``message`` (JAX's constructors take a tracer and write
    their own; its errors-page link is kept)."""
    err = cls.__new__(cls)
    jax.errors.JAXTypeError.__init__(err, message)
    return err


def bool_error(tracer: Any, shape: tuple, dtype: Any) -> Exception:
    """``bool()`` of a traced Tensor (an ``if``/``while``/``and``/``or`` on it)."""
    return _jax_error(jax.errors.TracerBoolConversionError, _describe(
        "bool() (an if, while, and, or, not)", tracer, shape, dtype))


def concretization_error(what: str, tracer: Any, shape: tuple, dtype: Any) -> Exception:
    """``int()``, ``float()``, ``complex()``, ``operator.index()`` or ``.item()`` of a
    traced Tensor."""
    return _jax_error(jax.errors.ConcretizationTypeError,
                      _describe(what, tracer, shape, dtype))


def array_error(what: str, tracer: Any, shape: tuple, dtype: Any) -> Exception:
    """A traced Tensor converted to a NumPy array (``np.asarray(x)``, ``x.tolist()``)."""
    return _jax_error(jax.errors.TracerArrayConversionError, _describe(
        what, tracer, shape, dtype) + (
        "\n  - jaxtensor functions (or jax.numpy) in place of NumPy's on a Tensor."))
