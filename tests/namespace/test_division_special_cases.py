"""``remainder``/``floor_divide`` (and ``%``, ``//``, ``%=``, ``//=``) on the whole special-case
table: every pair of ±0, ±infinity, NaN and positive and negative finite numbers (exact
multiples, fractions, the largest and the smallest normal), for every float dtype.

The oracle is NumPy, except where the standard lists the case and NumPy disagrees with it
(``floor_divide`` of an infinity by a finite number: NumPy NaN, the standard ±infinity; of a
finite number by an infinity of the other sign: NumPy -1, the standard -0); there the
standard's rule, written out below, decides. Signs of zeros count.
"""

from __future__ import annotations

import math
import operator

import numpy as np
import pytest

import jaxtensor as jt

INF, NAN = math.inf, math.nan
DTYPES = ["float16", "bfloat16", "float32", "float64"]


def _values(dt: str) -> list[float]:
    info = jt.finfo(dt)
    finite = [1.5, 5.0, 3.0, 0.75, float(info.max), float(info.smallest_normal)]
    return [0.0, -0.0, INF, -INF, NAN, *finite, *(-v for v in finite)]


def _standard_remainder(a: float, b: float) -> float | None:
    """The standard's special case for ``a % b``, or None where Python's ``%`` applies."""
    if math.isnan(a) or math.isnan(b) or (math.isinf(a) and math.isinf(b)):
        return NAN
    if a == 0:
        return NAN if b == 0 else math.copysign(0.0, b)
    if b == 0 or math.isinf(a):
        return NAN
    if math.isinf(b):
        return a if (a > 0) == (b > 0) else b
    return None


def _standard_floor_divide(a: float, b: float) -> float | None:
    """The standard's special case for ``a // b``, or None for the rounded quotient."""
    if math.isnan(a) or math.isnan(b) or (math.isinf(a) and math.isinf(b)) or a == b == 0:
        return NAN
    sign = math.copysign(1.0, a) * math.copysign(1.0, b)
    if a == 0 or math.isinf(b):
        return math.copysign(0.0, sign)
    if b == 0 or math.isinf(a):
        return math.copysign(INF, sign)
    return None


CASES = {
    "remainder": (jt.remainder, operator.mod, operator.imod, np.remainder,
                  _standard_remainder),
    "floor_divide": (jt.floor_divide, operator.floordiv, operator.ifloordiv,
                     np.floor_divide, _standard_floor_divide),
}


def _expected(name: str, dt: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """NumPy's result in ``dt`` (bfloat16: computed in float32 and rounded, exact for these
    operands), replaced by the standard's special case wherever it lists one."""
    _, _, _, np_fn, standard = CASES[name]
    work = np.float32 if dt == "bfloat16" else np.dtype(dt)
    with np.errstate(all="ignore"):
        out = np_fn(a.astype(work), b.astype(work)).astype(np.float64)
    for i, (x, y) in enumerate(zip(a.tolist(), b.tolist())):
        s = standard(x, y)
        if s is not None:
            out[i] = s
    return out


def _assert_same(got: jt.Tensor, want: np.ndarray, a: np.ndarray, b: np.ndarray,
                 what: str) -> None:
    g = np.asarray(got).astype(np.float64).reshape(-1)
    want = np.broadcast_to(want, g.shape)
    both_nan = np.isnan(g) & np.isnan(want)
    same = both_nan | ((g == want) & (np.signbit(g) == np.signbit(want)))
    bad = np.flatnonzero(~same)
    assert not bad.size, [(what, np.broadcast_to(a, g.shape)[i], np.broadcast_to(b, g.shape)[i],
                           g[i], want[i]) for i in bad[:8]]


def _table(dt: str) -> tuple[np.ndarray, np.ndarray]:
    v = _values(dt)
    a = np.array([x for x in v for _ in v])
    b = np.array([y for _ in v for y in v])
    return a, b


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dt", DTYPES)
def test_tensor_operands(dt: str, name: str) -> None:
    fn, op, iop, _, _ = CASES[name]
    a, b = _table(dt)
    want = _expected(name, dt, a, b)
    ta, tb = jt.asarray(a, dtype=dt), jt.asarray(b, dtype=dt)
    _assert_same(fn(ta, tb), want, a, b, "function")
    _assert_same(op(ta, tb), want, a, b, "operator")
    t = jt.asarray(a, dtype=dt)
    view = t[::-1]
    assert iop(t, tb) is t
    _assert_same(t, want, a, b, "in-place")
    _assert_same(view[::-1], want, a, b, "in-place, seen through a view")


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dt", DTYPES)
def test_python_scalar_operands(dt: str, name: str) -> None:
    """A Python float on either side (weak: the Tensor's dtype), each value twice so that
    the operators' fast path with its kept device scalars is taken too."""
    _, op, _, _, _ = CASES[name]
    v = np.array(_values(dt))
    t = jt.asarray(v, dtype=dt)
    for s in _values(dt):
        sv = np.full_like(v, s)
        for _ in range(2):
            _assert_same(op(t, s), _expected(name, dt, v, sv), v, sv, f"tensor {op.__name__} {s}")
            _assert_same(op(s, t), _expected(name, dt, sv, v), sv, v, f"{s} {op.__name__} tensor")


def test_reported_case() -> None:
    for dt in DTYPES:
        for zero, inf in ((0.0, INF), (-0.0, INF), (0.0, -INF), (-0.0, -INF)):
            r = jt.remainder(jt.asarray([zero], dtype=dt), jt.asarray([inf], dtype=dt))
            assert np.signbit(np.asarray(r).astype(np.float32))[0] == (inf < 0), (dt, zero, inf)
