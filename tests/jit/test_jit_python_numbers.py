"""Python numbers passed to a ``jaxtensor.jit`` function promote as they do eagerly.

``jax.jit`` traces a Python number argument as a weakly typed 0-D value. Next to a Tensor
it must behave as the number does in eager code (``uint8_t + 10`` stays uint8, ``x * 0.1``
keeps float32), not as a 64-bit array, and an int out of the Tensor's range raises
``OverflowError`` at the call as it does eagerly. The oracle is eager jaxtensor (itself
tested against NumPy and the standard's promotion rules).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import jaxtensor as jt

FUNCTIONS: dict[str, Callable[[jt.Tensor, Any], Any]] = {
    "+": operator.add, "*": operator.mul, "-": operator.sub, "/": operator.truediv,
    "//": operator.floordiv, "**": operator.pow, "&": operator.and_, "<": operator.lt,
    "==": operator.eq, "add": jt.add, "multiply": jt.multiply, "maximum": jt.maximum,
    "atan2": jt.atan2, "copysign": jt.copysign, "hypot": jt.hypot,
    "where": lambda x, s: jt.where(x > 1, x, s), "where_first": lambda x, s: jt.where(x > 1, s, x),
    "clip": lambda x, s: jt.clip(x, None, s), "full_like": jt.full_like,
    "full": lambda x, s: jt.full((2,), s), "+=": operator.iadd, "*=": operator.imul,
    "/=": operator.itruediv, "setitem": lambda x, s: x.__setitem__(0, s),
    "pow_scalar_base": lambda x, s: jt.pow(s, x),
}
DTYPES = ["uint8", "int16", "float16", "float32", "bool", "complex64"]
NUMBERS = [3, 2.5, True, 1j, 300, 1e40]


def _outcome(f: Callable, dt: str, s: Any) -> Any:
    x = jt.asarray(np.array([1, 2], dtype=dt))
    try:
        with np.errstate(all="ignore"):
            r = f(x, s)
    except (TypeError, ValueError, OverflowError) as e:
        return type(e).__name__
    r = x if r is None else r
    return np.dtype(r.dtype), np.asarray(r).tolist(), x.tolist()


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_a_traced_python_number_promotes_as_the_number(name: str) -> None:
    f = FUNCTIONS[name]
    jitted = jt.jit(f)
    for dt in DTYPES:
        for s in NUMBERS:
            want = _outcome(f, dt, s)
            got = _outcome(jitted, dt, s)
            if name == "/=" and want == "OverflowError":
                # (eagerly the int is refused before the result's dtype; traced, the
                # result's dtype (float into an integer Tensor) is refused first)
                assert got in ("OverflowError", "TypeError"), (dt, s)
                continue
            if isinstance(got, str) or isinstance(want, str):
                assert got == want, (name, dt, s)
                continue
            assert got[0] == want[0], (name, dt, s)  # the dtype
            # (atan2's traced program fuses differently: last-place differences)
            rtol = 1e-6 if name == "atan2" else 0
            for g, w in zip(got[1:], want[1:]):
                np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol,
                                           err_msg=f"{name} {dt} {s}")


def test_float_only_functions_take_ints_beyond_an_integer_tensor() -> None:
    """``uint8_t / 300`` computes in floating point, as NumPy's (the int need only fit the
    floating dtype), on the first call as on later ones; ``uint8_t * 300`` still raises."""
    u = np.array([3, 200], np.uint8)
    for _ in range(2):
        x = jt.asarray(u)
        np.testing.assert_allclose((x / 300).numpy(), u / 300, rtol=1e-6)
        np.testing.assert_allclose((300 / x).numpy(), 300 / u, rtol=1e-6)
        np.testing.assert_allclose(jt.atan2(x, -1).numpy(), np.arctan2(u, -1), rtol=1e-3)
        with pytest.raises(OverflowError, match="300"):
            x * 300
