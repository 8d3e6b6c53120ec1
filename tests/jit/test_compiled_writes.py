"""Compiled writes cost what they write: the optimised HLO of ``jaxtensor.jit`` functions.

XLA:CPU updates a donated buffer in place only where a dynamic-update-slice's start indices
are runtime values; at constant indices (positions known in Python while tracing) it emits a
loop over the whole buffer (10 slice writes into 10^7 elements: 80 ms instead of 46 µs). Every write kind a NumPy-style function makes with Python-int
positions (slices, scalars, read-modify-writes, in-place operators, writes through 2-D and
transposed views, mask writes as ``where`` on a region) must lower to updates at runtime
indices, and the values must match eager code.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import jaxtensor as jt

N = 1 << 16


def _fused_computations(hlo: str) -> dict[str, str]:
    """The bodies of the optimised module's computations, by name."""
    out: dict[str, str] = {}
    for m in re.finditer(r"^%?([\w.-]+) [^\n]*\{\n(.*?)\n\}", hlo, flags=re.S | re.M):
        out[m.group(1)] = m.group(2)
    return out


def full_buffer_updates(hlo: str, shape: tuple[int, ...]) -> list[tuple[str, bool]]:
    """Every dynamic-update-slice whose result is a whole buffer of ``shape``, with whether
    XLA can update the buffer in place: not all its start indices are constants (a constant
    0 on an axis the update covers whole is fine; measured, the update stays in place)."""
    dims = ",".join(map(str, shape))
    found = []
    for name, body in _fused_computations(hlo).items():
        consts = set(re.findall(r"%([\w.-]+) = s\d+\[\] constant", body))
        for line in body.splitlines():
            m = re.search(r"= \w+\[" + re.escape(dims) + r"\]\{[^}]*\} dynamic-update-slice\((.*)\)",
                          line)
            if m is None:
                continue
            operands = [o.strip().lstrip("%") for o in m.group(1).split(")")[0].split(",")]
            starts = operands[2:]
            found.append((name, not all(s in consts for s in starts)))
    return found


def _writes_1d(x):
    for k in range(10):
        s = k * 5000
        x[s:s + 1000] = x[s:s + 1000] * 0.5 + k  # slice read-modify-write
        x[s + 2000] = 3.0                          # a scalar at a Python position
        x[s + 3000:s + 3100] += 1.0                # an in-place operator on a slice


def _writes_2d(m):
    for k in range(4):
        m[k * 10:k * 10 + 5, 3:9] *= 2.0           # a 2-D block
        m.T[k, 100:200] = -1.0                     # through a transposed view
        m[k] = m[k + 1] - 1.0                      # a row


@pytest.mark.parametrize("case", ["1d", "2d"])
def test_python_int_positions_update_in_place(case: str) -> None:
    if case == "1d":
        make, f, shape = (lambda: jt.arange(float(N))), _writes_1d, (N,)
    else:
        make, f, shape = (lambda: jt.reshape(jt.arange(float(N)), (256, 256))), _writes_2d, \
            (256, 256)
    x = make()
    hlo = jt.jit(f).lower(x).compile().as_text()
    updates = full_buffer_updates(hlo, shape)
    assert updates, "no dynamic-update-slice found: the check itself is broken"
    assert all(ok for _, ok in updates), [n for n, ok in updates if not ok]
    y = make()
    f(y)
    jt.jit(f)(x)
    np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def test_the_check_sees_constant_positions() -> None:
    """The HLO check fails on a program that writes at constant indices (pure JAX)."""
    import jax
    from jax import lax

    def f(a):
        for k in range(3):
            a = lax.dynamic_update_slice(a, lax.dynamic_slice(a, (k * 100,), (10,)) + 1,
                                         (k * 100,))
        return a

    hlo = jax.jit(f, donate_argnums=0).lower(np.zeros(N, np.float32)).compile().as_text()
    updates = full_buffer_updates(hlo, (N,))
    assert updates and not any(ok for _, ok in updates)
