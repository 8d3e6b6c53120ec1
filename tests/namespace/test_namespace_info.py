"""``__array_namespace_info__`` and the data type functions, against array_api_strict."""

from __future__ import annotations

import math
import os

import array_api_strict as xs
import jax
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jaxtensor as jt

X64 = jax.config.read("jax_enable_x64")  # (jaxtensor turns it on unless the environment says no)

INFO = jt.__array_namespace_info__()
NAMES = list(INFO.dtypes())
KINDS = ["bool", "signed integer", "unsigned integer", "integral", "real floating",
         "complex floating", "numeric"]


def test_version():
    assert jt.__array_api_version__ in ("2025.12", "2024.12", "2023.12")


def test_capabilities():
    caps = INFO.capabilities()
    assert caps["boolean indexing"] is True
    assert caps["data-dependent shapes"] is True
    assert caps["max dimensions"] == 64


def test_devices_and_default_device():
    devs = INFO.devices()
    assert isinstance(devs, tuple if jt.__array_api_version__ >= "2025.12" else list)
    assert INFO.default_device() in devs
    for d in devs:
        assert jt.ones(1, device=d).device == d


def test_default_dtypes_are_truthful():
    dd = INFO.default_dtypes()
    # float64 in 64-bit mode, float32 with it off, unless the environment chose one
    chosen = os.environ.get("JAXTENSOR_DEFAULT_FLOAT", "").strip()
    real = jt.float32 if chosen == "float32" or not X64 else jt.float64
    assert dd["real floating"] == real == jt.get_default_dtype()
    assert dd["complex floating"] == (jt.complex64 if real == jt.float32 else jt.complex128)
    assert jt.asarray(1j).dtype == dd["complex floating"]
    assert dd["integral"] == dd["indexing"] == (jt.int64 if X64 else jt.int32)
    assert jt.asarray(1).dtype == dd["integral"]
    assert jt.asarray(1.0).dtype == dd["real floating"]


def test_dtypes_report_only_what_works():
    names = set(INFO.dtypes())
    wide = {"int64", "uint64", "float64", "complex128"}
    assert (wide <= names) == X64
    assert not X64 or len(names) == 13
    for dt in INFO.dtypes().values():
        assert jt.empty(1, dtype=dt).dtype == dt
    for name in wide - names:
        with pytest.raises(TypeError, match="64-bit"):
            jt.zeros(1, dtype=getattr(jt, name))


@pytest.mark.parametrize("kind", KINDS)
def test_dtypes_by_kind_match_array_api_strict(kind):
    ours = set(INFO.dtypes(kind=kind))
    strict = set(xs.__array_namespace_info__().dtypes(kind=kind))
    assert ours == strict & set(NAMES)
    both = set(INFO.dtypes(kind=("bool", "real floating")))
    assert both == set(INFO.dtypes(kind="bool")) | set(INFO.dtypes(kind="real floating"))
    with pytest.raises(ValueError, match="kind"):
        INFO.dtypes(kind="floating")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", KINDS)
def test_isdtype_matches_array_api_strict(name, kind):
    assert jt.isdtype(getattr(jt, name), kind) == xs.isdtype(getattr(xs, name), kind)
    assert jt.isdtype(getattr(jt, name), getattr(jt, name)) is True


@pytest.mark.parametrize("a", NAMES)
@pytest.mark.parametrize("b", NAMES)
def test_result_type_and_can_cast_within_kinds(a, b):
    fam = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 2}
    da, db = getattr(jt, a), getattr(jt, b)
    if fam[da.kind] != fam[db.kind]:
        # across kinds: NumPy's safe casting; complex never casts to real
        assert jt.can_cast(da, db) == bool(np.can_cast(da, db, casting="safe"))
        return
    try:
        expected = xs.result_type(getattr(xs, a), getattr(xs, b))
    except TypeError:
        with pytest.raises(TypeError):
            jt.result_type(da, db)
        return
    name = next(n for n in NAMES + ["int64", "uint64", "float64", "complex128"]
                if getattr(xs, n) == expected)
    if name not in NAMES:
        with pytest.raises(TypeError, match="64-bit"):
            jt.result_type(da, db)
        return
    assert str(jt.result_type(da, db)) == name
    assert jt.can_cast(da, db) == xs.can_cast(getattr(xs, a), getattr(xs, b))


def test_result_type_with_scalars_and_tensors():
    assert jt.result_type(jt.ones(1, dtype=jt.int8), 1) == jt.int8
    assert jt.result_type(jt.int16, 1.0) == INFO.default_dtypes()["real floating"]
    assert jt.result_type(jt.float32, 1.0) == jt.float32
    assert jt.result_type(1, jt.float32, 1j) == jt.complex64
    with pytest.raises(ValueError, match="at least one"):
        jt.result_type(1, 2.0)


@pytest.mark.parametrize("name", NAMES)
def test_result_type_of_a_numpy_scalar_is_its_dtype(name):
    # np.float64 and np.complex128 subclass Python's float and complex: still not weak
    s = np.dtype(name).type(1)
    assert jt.result_type(s) == np.result_type(s) == np.dtype(name)


@pytest.mark.parametrize("b", NAMES)
@pytest.mark.parametrize("a", NAMES)
def test_result_type_counts_a_numpy_scalar_as_its_dtype(a, b):
    t, s = jt.ones(2, dtype=getattr(jt, a)), np.dtype(b).type(1)
    try:
        expected = jt.result_type(getattr(jt, a), getattr(jt, b))
    except TypeError:
        with pytest.raises(TypeError):
            jt.result_type(t, s)
        return
    assert jt.result_type(t, s) == jt.result_type(s, t) == expected
    if "bool" not in (a, b):  # the operators agree
        assert (t + s).dtype == (s + t).dtype == expected
    if np.dtype(a).kind == np.dtype(b).kind:  # NumPy 2's promotion within a kind
        assert expected == np.result_type(np.ones(2, dtype=a), s)


def _saturated(x: float, lo: int, hi: int) -> int:
    if math.isnan(x):
        return 0
    return hi if x >= hi else lo if x <= lo else math.trunc(x)


INTEGERS = [n for n in NAMES if "int" in n]
FLOATS = [n for n in NAMES if n.startswith("float")]


@given(data=st.data(), to=st.sampled_from(INTEGERS), frm=st.sampled_from(FLOATS))
def test_astype_of_nan_infinities_and_out_of_range_floats_saturates(data, to, frm):
    lo, hi = int(np.iinfo(to).min), int(np.iinfo(to).max)
    edges = st.sampled_from([math.nan, math.inf, -math.inf, float(lo), float(hi), 2.0 * hi,
                             2.0 * lo - 1.0, -1.0, 0.5, -0.5])
    elements = edges | st.floats(width=np.dtype(frm).itemsize * 8)
    a = data.draw(hnp.arrays(frm, st.integers(1, 8), elements=elements))
    got = np.asarray(jt.astype(jt.asarray(a), getattr(jt, to))).tolist()
    assert got == [_saturated(float(x), lo, hi) for x in a]


@pytest.mark.parametrize("name", [n for n in NAMES if n.startswith(("float", "complex"))])
def test_finfo_matches_numpy(name):
    dt = getattr(jt, name)
    fi, ref = jt.finfo(dt), np.finfo(dt)
    assert fi.bits == ref.bits and fi.eps == float(ref.eps)
    assert fi.max == float(ref.max) and fi.min == float(ref.min)
    assert fi.smallest_normal == float(ref.smallest_normal)
    assert fi.dtype == ref.dtype and fi.dtype.kind == "f"
    assert jt.finfo(jt.ones(1, dtype=dt)) == fi
    with pytest.raises(TypeError, match="iinfo"):
        jt.finfo(jt.int8)


@pytest.mark.parametrize("name", [n for n in NAMES if "int" in n])
def test_iinfo_matches_numpy(name):
    dt = getattr(jt, name)
    ii, ref = jt.iinfo(dt), np.iinfo(dt)
    assert (ii.bits, ii.min, ii.max, ii.dtype) == (ref.bits, int(ref.min), int(ref.max), dt)
    assert type(ii.max) is int
    with pytest.raises(TypeError, match="finfo"):
        jt.iinfo(jt.float32)


def test_astype():
    x = jt.asarray([1.7, -1.7, 0.0])
    np.testing.assert_array_equal(np.asarray(jt.astype(x, jt.int8)), [1, -1, 0])
    np.testing.assert_array_equal(np.asarray(jt.astype(x, jt.bool)), [True, True, False])
    assert jt.astype(x, x.dtype, copy=False) is x
    y = jt.astype(x, x.dtype)
    assert y is not x
    y[0] = 5.0
    assert float(x[0]) == pytest.approx(1.7)
    with pytest.raises(TypeError, match="real"):
        jt.astype(jt.asarray([1j]), jt.float32)
    assert jt.astype(jt.asarray([True]), jt.complex64).dtype == jt.complex64


def test_capabilities_while_traced() -> None:
    """Inside a traced function a boolean mask cannot select (NonConcreteBooleanIndexError):
    ``capabilities()`` asked there says so, and a library asking (array-api-extra's
    ``isclose``, ``apply_where``) takes its ``where`` path, giving the eager result."""
    import array_api_extra as xpx

    seen = []

    def f(a):
        seen.append(jt.__array_namespace_info__().capabilities())
        return xpx.isclose(a, a + 1e-12), xpx.apply_where(a > 0, a, jt.sqrt, fill_value=-1.0)

    a = jt.asarray([0.0, 1.0, 4.0])
    want = f(a)
    for run in (jt.jit(f), jax.jit(f), jt.vmap(f)):
        got = run(a)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    assert seen[0]["boolean indexing"] is True and seen[0]["data-dependent shapes"] is True
    assert all(c["boolean indexing"] is False and c["data-dependent shapes"] is False
               for c in seen[1:])
    assert INFO.capabilities()["boolean indexing"] is True
