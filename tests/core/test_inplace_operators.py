"""In-place operators compute and write in one kernel: values, aliases, failures, memory.

``x op= y`` on a base Tensor or through any view gives NumPy's result in every alias, with
any operand kind (Tensor, view of the same storage, Python scalar, NumPy array, list), on
the first call of a signature and on repeats (the fast path) alike, eagerly and under
``jaxtensor.jit``; a refused operation changes nothing; and the write holds no second copy
of the array (peak RSS measured in a fresh process).
"""

from __future__ import annotations

import json
import operator
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxtensor as jt
import multidevice

IOPS = {"+": operator.iadd, "-": operator.isub, "*": operator.imul, "/": operator.itruediv,
        "//": operator.ifloordiv, "%": operator.imod, "**": operator.ipow}
INT_IOPS = {"&": operator.iand, "|": operator.ior, "^": operator.ixor,
            "<<": operator.ilshift, ">>": operator.irshift}

# (name, NumPy view of a (6, 8) array, the same view of a Tensor)
VIEWS = {
    "base": lambda a: a,
    "row slice": lambda a: a[1:4],
    "column": lambda a: a[:, 3],
    "transposed": lambda a: a.T,
    "strided (divisible)": lambda a: a[::2, 1::4],
    "strided (not divisible)": lambda a: a[1::3, ::3],
    "negative step": lambda a: a[::-2, 5:1:-1],
    "element": lambda a: a[2, 5, ...],  # (NumPy's 0-D view)
    "reshaped": lambda a: a.reshape(12, 4)[3:9],
    "new axis": lambda a: a[None, 2:5, ::2],
}


def _arrays(dtype: str) -> tuple[np.ndarray, jt.Tensor]:
    rng = np.random.default_rng(3)
    if np.dtype(dtype).kind == "f":
        a = rng.uniform(-4, 4, (6, 8)).astype(dtype)
    else:
        a = rng.integers(1, 9, (6, 8)).astype(dtype)
    return a, jt.asarray(a)


def _operand(kind: str, shape: tuple[int, ...], dtype: str, t: jt.Tensor, a: np.ndarray
             ) -> tuple[object, object]:
    """(jaxtensor operand, NumPy operand) of a kind."""
    rng = np.random.default_rng(7)
    if kind == "int":
        return 3, 3
    if kind == "float":
        return 1.5, 1.5
    # (multiples of 1/8: exact in every float dtype, so a list operand, which jaxtensor
    # converts to the default float32, holds the same values as NumPy's float64)
    vals = (rng.integers(1, 4, shape) if np.dtype(dtype).kind in "iu" else
            rng.integers(4, 24, shape) / 8).astype(dtype)
    if kind == "tensor":
        return jt.asarray(vals), vals
    if kind == "numpy":
        return vals, vals
    if kind == "list":
        return vals.tolist(), vals.tolist()
    if kind == "row of self":  # a view of the same storage (overlapping reads)
        return t[0], a[0].copy()
    raise AssertionError(kind)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(IOPS)), st.sampled_from(sorted(VIEWS)),
       st.sampled_from(["float32", "float64", "int32", "int64"]),
       st.sampled_from(["int", "float", "tensor", "numpy", "list"]), st.integers(1, 3))
def test_matches_numpy_in_every_alias(sym: str, view: str, dtype: str, kind: str,
                                      repeats: int) -> None:
    a, t = _arrays(dtype)
    keep = t[1:]  # another alias of the storage
    va, vt = VIEWS[view](a), VIEWS[view](t)
    shape = np.shape(va)
    if kind == "float" and np.dtype(dtype).kind in "iu":
        kind = "int"  # (a float into integers is refused: tests/core/test_inplace_dtypes.py)
    if sym == "/" and np.dtype(dtype).kind in "iu":
        sym = "//"  # (true division of integers is refused: tests/core/test_inplace_dtypes.py)
    if sym == "**" and np.dtype(dtype).kind in "iu" and kind != "int":
        kind = "int"  # (negative exponents of integers are an error in NumPy)
    ot, on = _operand(kind, shape, dtype, t, a)
    for _ in range(repeats):  # the first call decides; repeats take the fast path
        with np.errstate(all="ignore"):
            IOPS[sym](va, np.asarray(on, dtype=va.dtype) if kind != "int" else on)
        vt = IOPS[sym](vt, ot)
    np.testing.assert_allclose(np.asarray(t), a, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(keep), a[1:], rtol=1e-6)


@pytest.mark.parametrize("sym", sorted(INT_IOPS))
@pytest.mark.parametrize("view", ["base", "transposed", "strided (divisible)", "column"])
def test_bitwise_and_shifts(sym: str, view: str) -> None:
    a, t = _arrays("int32")
    va, vt = VIEWS[view](a), VIEWS[view](t)
    for operand in (2, jt.asarray(np.full(np.shape(va), 3, np.int32))):
        INT_IOPS[sym](va, 2 if isinstance(operand, int) else np.full(np.shape(va), 3, np.int32))
        INT_IOPS[sym](vt, operand)
    np.testing.assert_array_equal(np.asarray(t), a)


def test_overlapping_operand_reads_the_old_values() -> None:
    """``x[1:] += x[:-1]``: NumPy reads the operand before writing (a temporary when the
    operand overlaps the destination)."""
    a = np.arange(10.0)
    t = jt.asarray(a)
    a[1:] += a[:-1]
    t[1:] += t[:-1]
    np.testing.assert_array_equal(np.asarray(t), a)
    t += t
    np.testing.assert_array_equal(np.asarray(t), 2 * a)


def test_matmul_in_place() -> None:
    a = np.arange(9.0).reshape(3, 3)
    t = jt.asarray(a)
    m = np.eye(3) * 2 + 1
    for _ in range(2):
        a @= m
        t @= jt.asarray(m)
    np.testing.assert_allclose(np.asarray(t), a)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_scalar_operand_same_result_on_every_call(dtype: str) -> None:
    """The first call and the fast path pass a Python scalar the same way (typed, once)."""
    t = jt.asarray(np.linspace(-3, 3, 50), dtype=getattr(jt, dtype))
    first = np.asarray(t / 3.3)
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(t / 3.3), first)
    u = jt.asarray(np.linspace(-3, 3, 50), dtype=getattr(jt, dtype))
    outs = []
    for _ in range(3):
        v = jt.asarray(u, copy=True)
        v /= 3.3
        outs.append(np.asarray(v))
    np.testing.assert_array_equal(outs[0], first)
    np.testing.assert_array_equal(outs[2], first)


@pytest.mark.parametrize("make", [
    lambda t: t.__iadd__(jt.ones((3, 6, 8))),           # a result bigger than x
    lambda t: t[0].__imul__(jt.ones((2, 8))),
    lambda t: t.__iadd__(1.5j),                          # complex into real
    lambda t: t[::2].__itruediv__(jt.asarray([1j])),
])
def test_refused_changes_nothing(make) -> None:
    a, t = _arrays("float32")
    views = [t[1:], t.T, t[::2]]
    before = [np.asarray(v).copy() for v in (t, *views)]
    with pytest.raises((TypeError, ValueError)):
        make(t)
    for b, v in zip(before, (t, *views)):
        np.testing.assert_array_equal(np.asarray(v), b)


def test_out_of_range_int_scalar_refused() -> None:
    t = jt.asarray(np.arange(4, dtype=np.uint8))
    t += 1  # (a fast-path entry for uint8 and int)
    with pytest.raises(OverflowError):
        t += 300
    with pytest.raises(OverflowError):
        t[1:] -= -1
    np.testing.assert_array_equal(np.asarray(t), np.arange(1, 5, dtype=np.uint8))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["+", "-", "*", "/"]), st.sampled_from(sorted(VIEWS)),
       st.sampled_from(["float32", "float64", "complex128", "int64", "uint64", "int8"]),
       st.sampled_from([2**63, 2**64 - 1, 2**70, -2**63 - 1, -2**70, 3]),
       st.booleans())
def test_python_ints_beyond_int64_as_numpy(sym: str, view: str, dtype: str, v: int,
                                           warm: bool) -> None:
    """A Python int beyond int64 (whose kernel argument would overflow) is the number of the
    Tensor's kind, as NumPy takes it (``x += 2**70`` into floats), on the first call of a
    signature and after a fast-path kernel of it was made (``warm``); into an integer
    Tensor it raises NumPy's ``OverflowError`` and changes nothing."""
    if sym == "/" and dtype[0] in "iu":  # (refused whatever the operand: same_kind)
        sym = "*"
    a = (np.arange(48).reshape(6, 8) % 7).astype(dtype)
    t = jt.asarray(a)
    if warm:
        IOPS[sym](VIEWS[view](t), 1)
        IOPS[sym](VIEWS[view](a), 1)
    try:
        with np.errstate(all="ignore"):
            IOPS[sym](VIEWS[view](a), v)
        want: object = None
    except (OverflowError, TypeError, ValueError) as e:
        want = type(e)
    if want is None:
        IOPS[sym](VIEWS[view](t), v)
    else:
        with pytest.raises(want):
            IOPS[sym](VIEWS[view](t), v)
    np.testing.assert_allclose(np.asarray(t), a, rtol=1e-6)


@pytest.mark.parametrize("sym", ["+", "*", "/", "-"])
@pytest.mark.parametrize("view", ["base", "row slice", "transposed", "strided (divisible)"])
def test_under_jit_as_eager(sym: str, view: str) -> None:
    a, t = _arrays("float32")
    _, u = _arrays("float32")

    def f(x, y):
        v = VIEWS[view](x)
        v = IOPS[sym](v, 2.0)
        v = IOPS[sym](v, VIEWS[view](y))

    f(t, jt.asarray(np.ones((6, 8), np.float32)))
    jt.jit(f)(u, jt.asarray(np.ones((6, 8), np.float32)))
    np.testing.assert_array_equal(np.asarray(u), np.asarray(t))


_MEMORY = textwrap.dedent("""
    import gc, json, sys
    import numpy as np
    import jaxtensor as jt

    def rss(field):
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1]) * 1024

    n = int(sys.argv[1])
    side = int(n ** 0.5)
    x = jt.zeros(n)
    m = jt.reshape(x[: side * side], (side, side))
    ops = {
        "x += 1": lambda: x.__iadd__(1),
        "x *= 2.5": lambda: x.__imul__(2.5),
        "x[1:] += 1": lambda: x[1:].__iadd__(1),
        "x.T -= 1": lambda: m.T.__isub__(1),
        "x += y": lambda: x.__iadd__(y),
    }
    y = jt.ones(n)
    out = {}
    for name, op in ops.items():
        op(); float(jt.sum(x)); gc.collect()
        before = rss("VmRSS:")
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        op(); float(jt.sum(x))
        out[name] = (rss("VmHWM:") - before) / (4 * n)
    print(json.dumps(out))
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)")
def test_peak_memory_of_in_place_operators() -> None:
    """No second copy of the array at any moment: the peak resident size rises by far less
    than the array (a copy would read 1.0)."""
    n = 16 * 2**20  # 64 MiB of float32
    proc = subprocess.run([sys.executable, "-c", _MEMORY, str(n)], capture_output=True,
                          text=True, timeout=600, env=multidevice.env(1))
    assert proc.returncode == 0, proc.stderr[-3000:]
    growth = json.loads(proc.stdout.strip().splitlines()[-1])
    assert all(g < 0.25 for g in growth.values()), growth
