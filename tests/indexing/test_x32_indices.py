"""In 32-bit mode (``JAX_ENABLE_X64=0``) an index beyond 32 bits raises, never wraps.

JAX converts 64-bit integers to 32 bits there, so ``2**32 + 1`` would become ``1``. The
bounds checks see the index before any cast: eagerly (Python ints, NumPy int64 scalars,
0-D and n-D arrays, the gather/scatter functions) and under ``jaxtensor.jit`` (whose integer
arguments that do not fit are refused with an ``IndexError`` that is also an
``OverflowError``). Run in a subprocess, since the mode is fixed at import.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent("""
    import numpy as np
    import jaxtensor as jt

    assert not jt.__array_namespace_info__().default_dtypes()["integral"] == "int64"
    x = jt.zeros(5)
    alias = x[1:]
    f = jt.jit(lambda x, i: x[i])
    g = jt.jit(lambda x, i: x.__setitem__(i, 7.0))
    s = jt.jit(lambda x, i: x.__setitem__(slice(None), float(i)), static_argnums=1)
    cases = 0
    for big in (2**32 + 1, 2**31, -2**31 - 1, 2**63 - 1, -2**40):
        keys = [big, np.int64(big), np.array(big), np.array([0, big]), (big,),
                (np.array([big]),)]
        for key in keys:
            for op in (lambda: x[key], lambda: x.__setitem__(key, 1.0),
                       lambda: jt.take(x, np.atleast_1d(np.asarray(key, np.int64)), axis=0),
                       lambda: f(x, key), lambda: g(x, key), lambda: g(alias, key)):
                try:
                    op()
                except IndexError as e:
                    assert str(big) in str(e), (big, key, e)
                    cases += 1
                else:
                    raise AssertionError(("no IndexError", big, key))
    for u in (np.uint64(2**32), np.array([2**32 + 3], np.uint64)):
        for op in (lambda: x[u], lambda: f(x, u), lambda: g(x, u)):
            try:
                op()
            except IndexError:
                cases += 1
            else:
                raise AssertionError(("no IndexError", u))
    try:
        g(x, 2**32 + 1)
    except OverflowError:
        pass
    assert x.tolist() == [0.0] * 5, x.tolist()
    s(x, 2**40)  # a static argument is not converted by JAX: accepted
    assert x.tolist() == [2.0**40] * 5
    g(x, np.int64(2))  # values that fit pass
    assert x.tolist()[2] == 7.0
    print("ok", cases)
""")


def test_wide_indices_raise_in_32_bit_mode() -> None:
    env = dict(os.environ, JAX_ENABLE_X64="0", JAX_PLATFORMS="cpu")
    src = str(Path(__file__).resolve().parents[2] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split()[0] == "ok"
