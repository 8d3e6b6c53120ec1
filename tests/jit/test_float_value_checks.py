"""A float written into an integer Tensor in compiled code raises what eager code raises.

A traced float assigned into an integer Tensor is checked as eager code checks it: NaN or
an infinity raise ``ValueError``, a number whose truncation the dtype does not hold
``OverflowError`` naming that truncation exactly; any other value is written truncated.
Compiled, the check compares the float with the two floats of its dtype at the ends of
what truncates into range and reports the float's bits (``_jit/_check_kinds.py``). Oracle:
the eager write of the same 0-D Tensor (its error's type and message, or the value
written), for each float dtype into each integer dtype, at the floats next to each end of
the range (one ulp inside and outside), infinities, NaN, and random floats of every
magnitude; in ``jaxtensor.jit`` and in a ``fori_loop`` body, which must also leave the
Tensor as it was when the check fails.
"""

from __future__ import annotations

import math
from typing import Any

import jax
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxtensor as jt

X64 = jax.config.read("jax_enable_x64")  # (jaxtensor turns it on unless the environment says no)

pytestmark = pytest.mark.filterwarnings("ignore::jaxtensor.RecompileWarning",
                                        "ignore::RuntimeWarning")

INTS = ["int8", "uint8", "int16", "uint16", "int32", "uint32"] + (
    ["int64", "uint64"] if X64 else [])
FLOATS = ["float16", "float32"] + (["float64"] if X64 else [])


def edges(fdt: str, idt: str) -> list[float]:
    """Floats of ``fdt`` about each end of what truncates into ``idt``: the floats next to
    min - 1, min, max and max + 1 (each rounded to ``fdt``), one ulp either side."""
    info = np.iinfo(idt)
    f = np.dtype(fdt).type
    out: list[float] = [math.inf, -math.inf, math.nan, 0.0, -0.0, 0.5, -0.5, -0.99]
    with np.errstate(over="ignore"):
        for n in (info.min - 1, info.min, info.max, info.max + 1):
            x = np.asarray(float(n), fdt)[()]
            for y in (np.nextafter(x, f(-np.inf)), x, np.nextafter(x, f(np.inf))):
                out.append(float(y))
    return out


def outcome(fn: Any, idt: str, v: jt.Tensor) -> tuple:
    """(the error's type and message, or the value written; the Tensor after)."""
    x = jt.asarray([7, 9], dtype=idt)
    try:
        fn(x, v)
        got: Any = None
    except (ValueError, OverflowError) as e:
        got = (type(e).__name__, str(e))
    return got, x.tolist()


def eager(x: jt.Tensor, v: jt.Tensor) -> None:
    x[1] = v


def jitted(x: jt.Tensor, v: jt.Tensor) -> None:
    x[1] = v


def in_loop(x: jt.Tensor, v: jt.Tensor) -> None:
    def body(i: Any) -> None:
        x[i] = v
    jt.fori_loop(1, 2, body)


_JITTED = jt.jit(jitted)


def check(fdt: str, idt: str, values: list[float]) -> None:
    for f in values:
        v = jt.asarray(f, dtype=fdt)
        want = outcome(eager, idt, v)
        if want[0] is None:  # (the eager write truncates: NumPy's cast of that float)
            assert want[1][1] == int(np.trunc(np.asarray(f, fdt))), (fdt, idt, f)
        else:
            assert want[1] == [7, 9], (fdt, idt, f)
        for fn in (_JITTED, in_loop):
            assert outcome(fn, idt, v) == want, (fn, fdt, idt, f)


@pytest.mark.parametrize("idt", INTS)
@pytest.mark.parametrize("fdt", FLOATS)
def test_floats_at_the_ends_of_each_integer_range(fdt: str, idt: str) -> None:
    check(fdt, idt, edges(fdt, idt))


@settings(max_examples=40, deadline=None)
@given(fdt=st.sampled_from(FLOATS), idt=st.sampled_from(INTS),
       bits=st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=8))
def test_random_floats_of_every_magnitude(fdt: str, idt: str, bits: list[int]) -> None:
    width = np.dtype(fdt).itemsize * 8
    values = [float(np.asarray(b % 2**width, f"uint{width}").view(fdt)) for b in bits]
    check(fdt, idt, values)
