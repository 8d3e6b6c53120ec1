"""A Python number in the carry of JAX's loop forms is weakly typed, wherever the loop is
called: ``fori_loop(0, n, lambda i, c: c + x8[i], 0)`` computes in ``int8`` as NumPy's
loop ``c = 0; c = c + x8[i]`` does (NEP 50) and as JAX's loop does, at the top level as
inside ``jaxtensor.jit`` (the eager call passed the number as a strongly typed int64
before, and gave ``int64`` 157 where NumPy gives ``int8`` -99).

Oracle: NumPy's Python loop over NumPy scalars (value and dtype); the top-level call and
the call inside ``jaxtensor.jit`` must both give it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import jax
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxtensor as jt

X64 = jax.config.read("jax_enable_x64")  # (jaxtensor turns it on unless the environment says no)

pytestmark = pytest.mark.filterwarnings("ignore::jaxtensor.RecompileWarning")

DTYPES = ["int8", "uint8", "int16", "int32", "float16", "float32"] + (["float64"] if X64 else [])
#: NumPy's 64-bit results in 32-bit mode (no 64-bit dtypes: its widest)
NARROW = {np.dtype("float64"): np.float32, np.dtype("int64"): np.int32}


def np_sum(x: np.ndarray, init: Any) -> Any:
    c = init
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (int8 wraps, as in the Tensor)
        for i in range(x.shape[0]):
            c = c + x[i]
    return c


def fori_sum(x: jt.Tensor, init: Any) -> Any:
    return jt.fori_loop(0, x.shape[0], lambda i, c: c + x[i], init)


def while_sum(x: jt.Tensor, init: Any) -> Any:
    def body(s: tuple) -> tuple:
        return s[0] + 1, s[1] + x[s[0]]
    return jt.while_loop(lambda s: s[0] < x.shape[0], body, (0, init))[1]


@settings(max_examples=40, deadline=None)
@given(dtype=st.sampled_from(DTYPES), init=st.sampled_from([0, 3, 0.0, 1.5]),
       form=st.sampled_from([fori_sum, while_sum]), seed=st.integers(0, 2**16))
def test_a_number_carry_takes_the_dtype_numpy_gives(dtype: str, init: Any, form: Callable,
                                                    seed: int) -> None:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        x = rng.uniform(-100, 100, 5).astype(dtype)
    else:
        info = np.iinfo(dtype)
        x = rng.integers(max(info.min, -200), min(info.max, 200), 5, endpoint=True).astype(dtype)
    want = np.asarray(np_sum(x, init))
    if not X64 and want.dtype in NARROW:
        want = want.astype(NARROW[want.dtype])
    for got in (form(jt.asarray(x), init), jt.jit(form)(jt.asarray(x), init)):
        got = np.asarray(got)
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        np.testing.assert_allclose(got, want, rtol=1e-3 if dtype == "float16" else 1e-6)
