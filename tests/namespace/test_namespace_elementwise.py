"""Element-wise functions and operators: promotion, weak scalars, special cases.

Oracles: array_api_strict for promotion, NumPy for values (including the sign of zeros
and NaN/inf handling where NumPy follows the standard), and the standard's own special
case tables where NumPy does not.
"""

from __future__ import annotations

import math

import array_api_strict as xps_strict
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.array_api import make_strategies_namespace

import jaxtensor as jt

X64 = jax.config.read("jax_enable_x64")  # (jaxtensor turns it on unless the environment says no)

xps = make_strategies_namespace(jt)
# values are compared in the widest float this process has
FLOAT = np.float64 if X64 else np.float32
COMPLEX = jt.complex128 if X64 else jt.complex64
RTOL = 1e-12 if X64 else 2e-6
INFO = jt.__array_namespace_info__()
DTYPES = list(INFO.dtypes().values())
NUMERIC = [d for d in DTYPES if d != jt.bool]


def _strict(dt):
    return getattr(xps_strict, str(dt))


def _strict_name(dt) -> str:
    names = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
             "uint64", "float32", "float64", "complex64", "complex128"]
    return next(n for n in names if getattr(xps_strict, n) == dt)


def _same_kind_family(a, b):
    fam = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 2}
    return fam[a.kind] == fam[b.kind]


# -- promotion ----------------------------------------------------------------------------
SAME_FAMILY = [(a, b) for a in DTYPES for b in DTYPES if _same_kind_family(a, b)]


@pytest.mark.parametrize("a, b", SAME_FAMILY, ids=lambda d: str(d))
def test_promotion_matches_array_api_strict(a, b):
    """Within a kind family (cross-kind promotion is jaxtensor's own rule, tested below)."""
    try:
        expected = _strict_name(xps_strict.result_type(_strict(a), _strict(b)))
    except TypeError:
        with pytest.raises(TypeError):
            jt.add(jt.ones(2, dtype=a), jt.ones(2, dtype=b))
        return
    if expected not in INFO.dtypes():
        with pytest.raises(TypeError):
            jt.add(jt.ones(2, dtype=a), jt.ones(2, dtype=b))
        return
    fn = jt.logical_and if a == jt.bool else jt.add
    out = fn(jt.ones(2, dtype=a), jt.ones(2, dtype=b))
    assert str(out.dtype) == expected
    assert str(jt.result_type(a, b)) == expected


def test_int_with_float_tensor_gives_the_float():
    i = jt.asarray([1, 2], dtype=jt.int32)
    f = jt.asarray([0.5, 0.5], dtype=jt.float32)
    assert (i + f).dtype == jt.float32
    assert (f * i).dtype == jt.float32


def test_bool_with_numeric_raises():
    with pytest.raises(TypeError, match="astype"):
        jt.add(jt.asarray([True]), jt.asarray([1]))


@pytest.mark.parametrize(
    "dtype, scalar, expected",
    [
        ("float32", 1.0, "float32"),
        ("float32", 1, "float32"),
        ("int8", 1, "int8"),
        ("uint8", 3, "uint8"),
        ("int32", 1.5, "default float"),
        ("float32", 1j, "complex64"),
        ("complex64", 2.0, "complex64"),
    ],
)
def test_python_scalars_are_weak(dtype, scalar, expected):
    if expected == "default float":
        expected = str(INFO.default_dtypes()["real floating"])
    x = jt.ones(3, dtype=getattr(jt, dtype))
    assert str((x + scalar).dtype) == expected
    assert str((scalar + x).dtype) == expected
    assert str(jt.result_type(x, scalar)) == expected


def test_int64_plus_float_gives_default_float():
    x = jt.asarray([1, 2])
    assert (x + 1.0).dtype == INFO.default_dtypes()["real floating"] == jt.get_default_dtype()


def test_scalar_out_of_range_raises_overflow():
    with pytest.raises(OverflowError):
        jt.asarray([1], dtype=jt.int8) + 1000


def test_divide_of_integers_is_default_float():
    out = jt.asarray([1, 3]) / 2
    assert out.dtype == INFO.default_dtypes()["real floating"]
    np.testing.assert_array_equal(np.asarray(out), [0.5, 1.5])


def test_inplace_operator_writes_through_view_and_keeps_dtype():
    x = jt.asarray([1, 2, 3, 4], dtype=jt.int16)
    v = x[1:3]
    v += 10
    assert x.dtype == jt.int16
    np.testing.assert_array_equal(np.asarray(x), [1, 12, 13, 4])
    with pytest.raises(ValueError, match="shape"):
        v += jt.ones((2, 2), dtype=jt.int16)


def test_reflected_operators():
    x = jt.asarray([1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(1 - x), [0.0, -1.0])
    np.testing.assert_array_equal(np.asarray(2 ** x), [2.0, 4.0])
    np.testing.assert_array_equal(np.asarray(3 // x), [3.0, 1.0])


# -- values against NumPy -----------------------------------------------------------------
SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.5, 1e-3, 1e30, -1e30,
            math.inf, -math.inf, math.nan, math.pi, -math.pi / 2]

UNARY_NUMPY = {
    "abs": np.abs, "acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin,
    "asinh": np.arcsinh, "atan": np.arctan, "atanh": np.arctanh, "ceil": np.ceil,
    "cos": np.cos, "cosh": np.cosh, "exp": np.exp, "expm1": np.expm1, "floor": np.floor,
    "isfinite": np.isfinite, "isinf": np.isinf, "isnan": np.isnan, "log": np.log,
    "log1p": np.log1p, "log2": np.log2, "log10": np.log10, "negative": np.negative,
    "positive": np.positive, "round": np.round, "sign": np.sign, "signbit": np.signbit,
    "sin": np.sin, "sinh": np.sinh, "sqrt": np.sqrt, "square": np.square, "tan": np.tan,
    "tanh": np.tanh, "trunc": np.trunc, "reciprocal": np.reciprocal,
}

BINARY_NUMPY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "atan2": np.arctan2, "copysign": np.copysign, "hypot": np.hypot,
    "logaddexp": np.logaddexp, "maximum": np.maximum, "minimum": np.minimum,
    "pow": np.power, "nextafter": np.nextafter, "equal": np.equal,
    "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
    "greater": np.greater, "greater_equal": np.greater_equal,
}


def assert_same(actual, expected, rtol=2e-6, signed_zero=True):
    a = np.asarray(actual)
    e = np.asarray(expected)
    assert a.shape == e.shape
    if a.dtype == np.bool_:
        np.testing.assert_array_equal(a, e)
        return
    np.testing.assert_allclose(a, e, rtol=rtol, atol=0, equal_nan=True)
    if not signed_zero:
        return
    zero = (e == 0) & (a == 0)
    # the sign of zero matters in the standard's special cases
    np.testing.assert_array_equal(np.signbit(a[zero]), np.signbit(e[zero]))


@pytest.mark.parametrize("name", sorted(UNARY_NUMPY))
def test_unary_special_values_match_numpy(name):
    x = np.asarray(SPECIALS, dtype=FLOAT)
    with np.errstate(all="ignore"):
        expected = UNARY_NUMPY[name](x)
    out = getattr(jt, name)(jt.asarray(x))
    assert_same(out, expected, rtol=RTOL)


@pytest.mark.parametrize("name", sorted(BINARY_NUMPY))
def test_binary_special_values_match_numpy(name):
    a, b = np.meshgrid(np.asarray(SPECIALS, FLOAT), np.asarray(SPECIALS, FLOAT))
    with np.errstate(all="ignore"):
        expected = BINARY_NUMPY[name](a, b)
    out = getattr(jt, name)(jt.asarray(a), jt.asarray(b))
    # the standard leaves the sign of max/min(+0, -0) unspecified
    assert_same(out, expected, rtol=RTOL, signed_zero=name not in ("maximum", "minimum"))


def _spec_floor_divide(a: float, b: float) -> float:
    """The standard's floor_divide: floor(a / b) (it differs from Python's // at inf)."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    with np.errstate(all="ignore"):
        q = FLOAT(a) / FLOAT(b)
    if math.isinf(a) or math.isinf(b) or b == 0 or a == 0:
        return float(np.floor(q))
    return float(FLOAT(a) // FLOAT(b))


def test_floor_divide_follows_the_standard_at_infinities_and_zeros():
    a, b = np.meshgrid(np.asarray(SPECIALS, FLOAT), np.asarray(SPECIALS, FLOAT))
    expected = np.vectorize(_spec_floor_divide)(a, b)
    out = jt.floor_divide(jt.asarray(a), jt.asarray(b))
    assert_same(out, expected, rtol=RTOL)
    assert float(jt.floor_divide(jt.asarray(math.inf), 2.0)) == math.inf
    assert math.copysign(1.0, float(jt.floor_divide(jt.asarray(-0.0), 3.0))) == -1.0


def test_remainder_special_cases():
    a, b = np.meshgrid(np.asarray(SPECIALS, FLOAT), np.asarray(SPECIALS, FLOAT))
    with np.errstate(all="ignore"):
        expected = np.remainder(a, b)
    # the standard: x1 finite and non-zero, x2 infinite of the same sign gives x1, of the
    # other sign x2; a zero x1 gives a zero of x2's sign (NumPy's answer, kept)
    fin_inf = np.isfinite(a) & (a != 0) & np.isinf(b)
    expected = np.where(fin_inf & (np.signbit(a) == np.signbit(b)), a, expected)
    expected = np.where(fin_inf & (np.signbit(a) != np.signbit(b)), b, expected)
    out = jt.remainder(jt.asarray(a), jt.asarray(b))
    assert_same(out, expected, rtol=RTOL)


@pytest.mark.parametrize(
    "name, z, expected",
    [
        ("exp", complex(math.inf, 0.0), complex(math.inf, 0.0)),
        ("exp", complex(-math.inf, math.inf), complex(0.0, 0.0)),
        ("sqrt", complex(-math.inf, 1.0), complex(0.0, math.inf)),
        ("sqrt", complex(1.0, math.inf), complex(math.inf, math.inf)),
        ("log", complex(-0.0, 0.0), complex(-math.inf, math.pi)),
        ("cosh", complex(math.inf, 0.0), complex(math.inf, 0.0)),
        ("tanh", complex(math.inf, 1.0), complex(1.0, 0.0)),
        ("sinh", complex(0.0, 0.0), complex(0.0, 0.0)),
        ("acosh", complex(0.0, math.nan), complex(math.nan, math.pi / 2)),
        ("atanh", complex(1.0, 0.0), complex(math.inf, 0.0)),
        ("expm1", complex(0.0, 0.0), complex(0.0, 0.0)),
        ("expm1", complex(-0.0, 0.0), complex(0.0, 0.0)),
        ("sign", complex(0.0, 0.0), complex(0.0, 0.0)),
        ("sign", complex(3.0, 4.0), complex(0.6, 0.8)),
        ("abs", complex(math.nan, math.inf), math.inf),
    ],
)
def test_complex_special_cases(name, z, expected):
    out = complex(getattr(jt, name)(jt.asarray([z], dtype=COMPLEX))[0])
    for got, want in ((out.real, complex(expected).real), (out.imag, complex(expected).imag)):
        if math.isnan(want):
            assert math.isnan(got)
        else:
            assert got == pytest.approx(want, rel=RTOL * 10)
            if want == 0:
                assert math.copysign(1.0, got) == math.copysign(1.0, want)


def test_clip():
    x = jt.asarray([-3.0, 0.0, 5.0, math.nan])
    np.testing.assert_array_equal(np.asarray(jt.clip(x, -1.0, 2.0)), [-1.0, 0.0, 2.0, math.nan])
    assert bool(jt.isnan(jt.clip(jt.asarray([1.0]), math.nan, None))[0])
    i = jt.asarray([1, 50, 200], dtype=jt.uint8)
    out = jt.clip(i, 10, 100)
    assert out.dtype == jt.uint8
    np.testing.assert_array_equal(np.asarray(out), [10, 50, 100])
    lo = jt.asarray([[0], [2]], dtype=jt.uint8)
    assert jt.clip(i, lo).shape == (2, 3)
    assert jt.clip(i) is not i


def test_bitwise_shifts_past_the_width():
    x = jt.asarray([1, -8], dtype=jt.int8)
    np.testing.assert_array_equal(np.asarray(x << 9), [0, 0])
    np.testing.assert_array_equal(np.asarray(x >> 9), [0, -1])
    with pytest.raises(TypeError, match="integer"):
        jt.bitwise_and(jt.asarray([1.0]), 1)


def test_rounding_keeps_integer_dtype():
    x = jt.asarray([1, -2], dtype=jt.int16)
    for f in (jt.ceil, jt.floor, jt.trunc, jt.round):
        out = f(x)
        assert out.dtype == jt.int16
        np.testing.assert_array_equal(np.asarray(out), [1, -2])


def test_real_imag_conj():
    z = jt.asarray([1 + 2j, -3j])
    r = jt.real(z)
    r[0] = 5.0  # a writeable view, as NumPy's z.real
    assert complex(z[0]) == 5 + 2j
    assert jt.imag(jt.asarray([1.0])).dtype == jt.asarray([1.0]).dtype
    assert complex(jt.conj(z)[1]) == 3j


# -- complex special values and branch cuts against NumPy (C99 Annex G) -------------------
_CPARTS = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 1e3, -1e3, 1e10, -1e10, 3e38, -3e38,
           math.inf, -math.inf, math.nan]
_CGRID = [complex(a, b) for a in _CPARTS for b in _CPARTS]
_CDTYPES = ["complex64", "complex128"] if X64 else ["complex64"]
# the functions whose complex special values were fixed (log2/log10 of infinite log, branch
# cuts with signed zeros, cosh of a large real part) and their neighbours
_CNUMPY = {"sqrt": np.sqrt, "acos": np.arccos, "asin": np.arcsin, "acosh": np.arccosh,
           "asinh": np.arcsinh, "atan": np.arctan, "atanh": np.arctanh, "expm1": np.expm1,
           "log": np.log, "log2": np.log2, "log10": np.log10, "cosh": np.cosh, "cos": np.cos,
           "exp": np.exp}
# odd as well as conjugate-symmetric
_ODD = ["asin", "asinh", "atan", "atanh"]


def _cexpected(name: str, z: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        e = _CNUMPY[name](z)
    if name == "expm1":
        # where NumPy's expm1 differs from the standard: a non-finite part gives exp(x) - 1
        # (NumPy: NaN + NaN j for every one); expm1(x + 0j) is expm1(x) + 0j (NumPy's
        # exp(x) * sin(0) is NaN where exp(x) overflows); expm1(+-0 + 0j) is +0 + 0j
        # (NumPy: -0 for -0)
        with np.errstate(all="ignore"):
            nonfinite = ~np.isfinite(z.real) | ~np.isfinite(z.imag)
            e = np.where(nonfinite, np.exp(z) - 1, e)
            real_axis = (z.imag == 0) & ~np.isnan(z.real)
            re = np.where(z.real == 0, np.zeros_like(z.real), np.expm1(z.real))
            e = np.where(real_axis, re + 0j, e)
            e.imag = np.where(real_axis, z.imag, e.imag)
    return e.astype(z.dtype)


def _assert_complex_same(got: np.ndarray, want: np.ndarray, z: np.ndarray, what: str,
                         unspecified: np.ndarray | None = None) -> None:
    """Each part equal to NumPy's (NaN for NaN, infinities exactly, zeros with their sign,
    finite values to a few ulps), except the sign of a zero or an infinity where a part of
    the operand or of the result is NaN, or where ``unspecified``, which C99 and the
    standard leave unspecified."""
    ftype = np.finfo(got.real.dtype)
    nan_somewhere = (np.isnan(z.real) | np.isnan(z.imag) | np.isnan(want.real)
                     | np.isnan(want.imag))
    if unspecified is not None:
        nan_somewhere |= unspecified
    bad = []
    for i in range(z.size):
        for g, w in ((got.real[i], want.real[i]), (got.imag[i], want.imag[i])):
            if np.isnan(w) or np.isnan(g):
                ok = np.isnan(w) and np.isnan(g)
            elif nan_somewhere[i] and (w == 0 or np.isinf(w)):
                ok = abs(g) == abs(w)
            elif np.isinf(w) or np.isinf(g) or w == 0 or g == 0:
                # subnormal results are flushed to zero by XLA on CPU
                ok = (g == w and np.signbit(g) == np.signbit(w)) or (
                    g != w and max(abs(g), abs(w)) < ftype.tiny)
            else:
                # (cos(3e38) in XLA's float64 is about 1e-13 off, its argument reduction)
                ok = abs(g - w) <= (1e-11 if ftype.bits == 64 else 8 * ftype.eps) * abs(w)
            if not ok:
                bad.append(f"{z[i]}: got {got[i]}, want {want[i]}")
                break
    assert not bad, f"{what}: {len(bad)} mismatches: " + "; ".join(bad[:8])


@pytest.mark.parametrize("dtype", _CDTYPES)
@pytest.mark.parametrize("name", sorted(_CNUMPY))
def test_complex_special_values_and_branch_cuts_match_numpy(name, dtype):
    z = np.array(_CGRID, dtype)
    out = np.asarray(getattr(jt, name)(jt.asarray(z)))
    assert out.dtype == z.dtype
    # exp(-inf +- inf j) is +-0 +- 0j, signs unspecified (so is expm1's imaginary part)
    both_inf = np.isinf(z.real) & np.isinf(z.imag) if name in ("exp", "expm1") else None
    _assert_complex_same(out, _cexpected(name, z), z, f"{name} {dtype}", both_inf)


@pytest.mark.parametrize("dtype", _CDTYPES)
@pytest.mark.parametrize("name", sorted(_CNUMPY))
def test_complex_functions_commute_with_conj(name, dtype):
    """The standard: f(conj(x)) == conj(f(x)), bit for bit on the branch cuts, where only
    the sign of a zero part of x tells the two sides apart; asin, asinh, atan and atanh
    are odd too."""
    parts = [p for p in _CPARTS if not math.isnan(p)]
    z = np.array([complex(a, b) for a in parts for b in parts], dtype)
    f = getattr(jt, name)
    fz = np.asarray(f(jt.asarray(z)))
    _assert_complex_same(np.asarray(f(jt.asarray(np.conj(z)))), np.conj(fz), z, f"{name}(conj)")
    if name in _ODD:
        _assert_complex_same(np.asarray(f(jt.asarray(-z))), -fz, z, f"{name}(-z)")


@pytest.mark.parametrize(
    "name, z, expected",
    [
        ("sqrt", complex(-1.0, -0.0), complex(0.0, -1.0)),
        ("sqrt", complex(-1.0, 0.0), complex(0.0, 1.0)),
        ("acos", complex(2.0, -0.0), complex(0.0, 1.3169578969248166)),
        ("asin", complex(2.0, 0.0), complex(math.pi / 2, 1.3169578969248166)),
        ("asinh", complex(-0.0, 2.0), complex(-1.3169578969248166, math.pi / 2)),
        ("acosh", complex(2.0, -0.0), complex(1.3169578969248166, -0.0)),
        ("atanh", complex(-0.0, 0.5), complex(-0.0, 0.4636476090008061)),
        ("atan", complex(1.0, 0.0), complex(math.pi / 4, 0.0)),
        ("expm1", complex(1.0, -0.0), complex(math.e - 1, -0.0)),
        ("log2", complex(-1.0, math.inf), complex(math.inf, 2.2661800709135966)),
        ("log10", complex(0.0, 0.0), complex(-math.inf, 0.0)),
        ("cosh", complex(1000.0, 0.0), complex(math.inf, 0.0)),
        ("cos", complex(0.0, 1000.0), complex(math.inf, -0.0)),
    ],
)
def test_complex_branch_cut_and_overflow_cases(name, z, expected):
    test_complex_special_cases(name, z, expected)


@pytest.mark.parametrize("dtype", _CDTYPES)
def test_complex_pow_of_zero_matches_numpy(dtype):
    """0 ** x2 with real(x2) > 0 is 0, whatever imag(x2) is (exp(x2 * log(0)))."""
    zeros = [complex(a, b) for a in (0.0, -0.0) for b in (0.0, -0.0)]
    exps = [complex(a, b) for a in (2.0, 0.5, 0.0, -1.0, math.inf, math.nan)
            for b in (0.0, 1.0, -1.0, math.inf, math.nan)]
    x1 = np.array([a for a in zeros for _ in exps], dtype)
    x2 = np.array(exps * len(zeros), dtype)
    with np.errstate(all="ignore"):
        want = np.power(x1, x2)
    got = np.asarray(jt.pow(jt.asarray(x1), jt.asarray(x2)))
    positive = x2.real > 0
    np.testing.assert_array_equal(got[positive], want[positive])
    np.testing.assert_array_equal(got[positive], np.zeros(positive.sum(), dtype))
    assert np.asarray(jt.pow(jt.asarray(np.array([0j], dtype)), (2 + 1j))) == 0


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_pow_of_integer_exponents_is_exact_as_numpy(dtype):
    """An integer exponent |n| < 100 is repeated multiplication, as NumPy: Gaussian integers
    to small powers are exact (1j ** 2 is -1 + 0j, so angle() and sign masks agree), the
    rest agree with NumPy to rounding; a Python int exponent as a Tensor one."""
    rng = np.random.default_rng(0)
    gauss = np.array([complex(a, b) for a in range(-3, 4) for b in range(-3, 4)], dtype)
    for n in range(-4, 9):
        with np.errstate(all="ignore"):
            want = np.power(gauss, dtype(n))
        for got in (jt.asarray(gauss) ** n, jt.pow(jt.asarray(gauss), jt.asarray(dtype(n)))):
            got = np.asarray(got)
            finite = np.isfinite(want)
            if n >= 0:
                np.testing.assert_array_equal(got[finite], want[finite])
            else:
                np.testing.assert_allclose(got[finite], want[finite], rtol=1e-6)
            np.testing.assert_array_equal(np.signbit(got[finite].imag) & (got[finite].imag == 0),
                                          np.signbit(want[finite].imag) & (want[finite].imag == 0))
    z = (rng.normal(size=50) + 1j * rng.normal(size=50)).astype(dtype)
    for n in (-7, -1, 5, 13):
        want = np.power(z, dtype(n))
        np.testing.assert_allclose(np.asarray(jt.asarray(z) ** n), want,
                                   rtol=1e-4 if dtype == np.complex64 else 1e-12)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_pow_of_a_positive_real_base_is_real(dtype):
    """exp(x2 * log(x1)) of a positive real base and a real exponent keeps a zero
    imaginary part, also where it overflows or underflows (NumPy: inf + 0j, not inf + nan j)."""
    base = np.array([10.0, 1e30, 0.1, 2.0, 7.5], dtype)
    for e in (400.0, -400.0, 0.5, 2.5, 1e5, -1e5, 150.25):
        with np.errstate(all="ignore"):
            want = np.power(base, dtype(e))
        got = np.asarray(jt.asarray(base) ** jt.asarray(dtype(e)))
        np.testing.assert_allclose(got.real, want.real, rtol=1e-5 if dtype == np.complex64
                                   else 1e-12)
        np.testing.assert_array_equal(got.imag, np.zeros(base.size))


def test_complex_multiply_with_infinity():
    # C99 Annex G: (inf + 0j) * (1 + 1j) is infinite, never NaN + NaN j
    out = complex(jt.multiply(jt.asarray([complex(math.inf, 0)]), complex(1, 1))[0])
    assert math.isinf(out.real) or math.isinf(out.imag)


# XLA on CPU flushes float32 subnormals to zero (as jax.numpy does), so they are not drawn.
@given(x=xps.arrays(dtype=jt.float32, shape=xps.array_shapes(max_dims=3),
                    elements={"allow_subnormal": False}),
       y=st.floats(-1e3, 1e3, width=32, allow_subnormal=False))
def test_add_multiply_match_numpy(x, y):
    a = np.asarray(x)
    np.testing.assert_array_equal(np.asarray(x + y), _ftz((a + np.float32(y)).astype(np.float32)))
    np.testing.assert_array_equal(np.asarray(x * y), _ftz((a * np.float32(y)).astype(np.float32)))


def _ftz(r: np.ndarray) -> np.ndarray:
    """NumPy's result with subnormal results flushed to zero, as XLA on CPU computes them."""
    with np.errstate(all="ignore"):
        return np.where(np.abs(r) < np.finfo(r.dtype).tiny, np.zeros_like(r), r)


@given(x=xps.arrays(dtype=st.sampled_from(list(INFO.dtypes(kind="integral").values())),
                   shape=xps.array_shapes(max_dims=2)))
def test_integer_negative_and_abs_match_numpy(x):
    a = np.asarray(x)
    np.testing.assert_array_equal(np.asarray(-x), -a)
    np.testing.assert_array_equal(np.asarray(jt.abs(x)), np.abs(a))
    assert jt.negative(x).dtype == x.dtype


def _iadd(a, b):
    a += b


@pytest.mark.parametrize("call, label", [
    (lambda a, b: jt.add(a, b), "add()"),
    (lambda a, b: jt.atan2(a, b), "atan2()"),
    (lambda a, b: jt.equal(a, b), "equal()"),
    (lambda a, b: jt.logical_and(a > 0, b > 0), "logical_and()"),
    (lambda a, b: jt.clip(a, b), "clip()"),
    (lambda a, b: jt.clip(a, 0.0, b), "clip()"),
    (lambda a, b: a + b, "add()"),
    (lambda a, b: a + b, "add()"),  # (the second time through the operator's fast path)
    (lambda a, b: a * b.tolist(), "multiply()"),
    (_iadd, "in-place add (x += y)"),
    (_iadd, "in-place add (x += y)"),
])
def test_broadcast_failures_name_the_function(call, label):
    # they raised jax.numpy's "Incompatible shapes for broadcasting: shapes=[...]"
    a, b = jt.ones((2, 3)), jt.ones(4)
    with pytest.raises(ValueError) as info:
        call(a, b)
    assert str(info.value).startswith(f"{label}: operands could not be broadcast together "
                                      "with shapes (2, 3)")
    assert a.tolist() == [[1.0] * 3] * 2  # nothing changed


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("e", [2, 1, -1, 0.5, 2.0])
def test_real_pow_of_numpys_exact_exponents_is_numpys(dtype, e):
    """``x ** 2`` is ``x * x`` bit for bit (and ``x ** 1``, ``x ** -1``, ``x ** 0.5`` are
    ``x``, ``1 / x``, ``sqrt(x)``), as NumPy's; XLA's pow was an ulp off in about one
    element of a thousand (float32: one in ten for -1 and 0.5). The standard's special cases
    stay (``-0 ** 0.5`` is +0, ``-inf ** 0.5`` is +inf), and the derivatives are those of
    ``jnp.power`` in both operands."""
    rng = np.random.default_rng(7)
    w = np.concatenate([rng.standard_normal(20000) * 10, rng.uniform(0, 1e-3, 2000),
                        [0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, -1e-300]]).astype(dtype)
    with np.errstate(all="ignore"):
        want = w ** e
    if e == 0.5:
        want = np.where(w == -np.inf, np.inf, np.where(w == 0, 0.0, want)).astype(dtype)
    got = np.asarray(jt.asarray(w) ** e)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert list(np.signbit(got[~np.isnan(got)])) == list(np.signbit(want[~np.isnan(want)]))
    x = jt.asarray(np.array([0.5, 2.0, 3.0], dtype))
    gq = jt.grad(lambda q: jt.sum(x ** q))(jt.asarray(float(e), dtype=x.dtype))
    gx = jt.grad(lambda z: jt.sum(z ** e))(x)
    rq = jax.grad(lambda q: jnp.sum(jnp.power(x.to_jax(), q)))(jnp.asarray(float(e), x.dtype))
    rx = jax.grad(lambda z: jnp.sum(jnp.power(z, e)))(x.to_jax())
    np.testing.assert_allclose(float(gq), float(rq), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(gx), np.asarray(rx), rtol=1e-6)


@pytest.mark.parametrize("how", ["eager", "jit"])
@pytest.mark.parametrize("shape", [(), (4,), (2, 3)])
def test_square_of_bool_is_numpys_int8(shape, how):
    """NumPy's ``square`` has no bool loop: a bool array squares as ``int8`` (the standard
    leaves bool out; jaxtensor gave bool)."""
    w = np.random.default_rng(len(shape)).random(shape) < 0.5
    f = jt.square if how == "eager" else jt.jit(jt.square)
    got = f(jt.asarray(w))
    want = np.square(w)
    assert got.dtype == want.dtype == np.int8
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("how", ["eager", "jit"])
@pytest.mark.parametrize("shapes", [((2,), (2, 2)), ((2, 2), (2,)), ((), (3, 1)), ((3, 1), (1, 2)),
                                    ((1, 2), (3, 1))])
def test_complex_pow_broadcasts_either_operand(shapes, how):
    """``a ** b`` of complex operands of different ranks: NumPy's broadcast result (a base of
    lower rank than its exponent raised JAX's "arrays must have the same number of
    dimensions")."""
    rng = np.random.default_rng(len(shapes[0]) * 3 + len(shapes[1]))
    a, b = ((rng.standard_normal(s) + 1j * rng.standard_normal(s)) for s in shapes)
    f = (lambda x, y: x ** y) if how == "eager" else jt.jit(lambda x, y: x ** y)
    got = np.asarray(f(jt.asarray(a), jt.asarray(b)))
    want = np.asarray(a) ** np.asarray(b)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("how", ["eager", "jit"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_a_mask_times_inf_or_nan_is_nan_as_numpy(dtype, how):
    """``mask * x`` (a Python number ``x``) and ``mask.astype(float) * x`` where ``x`` is
    infinite, NaN or -0.0 and the mask False: NumPy's NaN (and -0.0), where XLA's rewrite of
    ``convert(bool) * x`` into a select gave 0."""
    w = np.array([True, False, True, False])
    vals = np.array([np.inf, -np.inf, np.nan, -0.0, 2.0], dtype=dtype)
    m = jt.asarray(w)
    jt.asarray([1, 2]).astype(dtype)  # (an int's astype first: its kernel is another one)

    def prog(m, x):
        return m.astype(x.dtype) * x, m * float(np.real(vals[0]))

    f = prog if how == "eager" else jt.jit(prog)
    for v in vals:
        x = jt.asarray(np.full(4, v, dtype=dtype))
        got_cast, got_scalar = f(m, x)
        with np.errstate(all="ignore"):
            want_cast = w.astype(dtype) * np.full(4, v, dtype=dtype)
            want_scalar = w * float(np.real(vals[0]))
        np.testing.assert_array_equal(np.asarray(got_cast), want_cast)
        np.testing.assert_array_equal(np.signbit(np.real(np.asarray(got_cast))),
                                      np.signbit(np.real(want_cast)))
        np.testing.assert_array_equal(np.asarray(got_scalar), want_scalar)
    for s in (float("nan"), float("-inf"), -0.0):
        got = np.asarray((m * s) if how == "eager" else jt.jit(lambda m, s=s: m * s)(m))
        with np.errstate(all="ignore"):
            want = w * s
        np.testing.assert_array_equal(got, want)
        assert list(np.signbit(got)) == list(np.signbit(want))


@pytest.mark.parametrize("e", [2, 3, 1, -1, -2, 0, 2.0, 0.5, 1.7])
def test_forward_mode_of_real_pow_is_jaxs_for_negative_bases(e):
    """``jvp`` (and ``jacfwd``, reverse over forward) of ``x ** c`` with a constant exponent
    is ``c * x ** (c - 1)`` where ``x < 0`` too (the constant exponent's term
    ``log(x) * x ** c * 0`` made it NaN), and ``0 ** q`` in ``q`` is JAX's."""
    w = np.array([-1.5, -0.5, 0.75, 2.0])
    if not float(e).is_integer():
        w = np.abs(w)
    x = jt.asarray(w)
    got = jt.jvp(lambda v: v ** e, (x,), (jt.ones_like(x),))[1]
    want = jax.jvp(lambda v: v ** e, (jnp.asarray(w),), (jnp.ones(4),))[1]
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)
    jac = jax.jacfwd(lambda v: (jt.asarray(v) ** e).to_jax())(jnp.asarray(w))
    np.testing.assert_allclose(np.asarray(jac), np.asarray(jax.jacfwd(lambda v: v ** e)(
        jnp.asarray(w))), rtol=1e-12)
    second = jt.grad(lambda v: jt.sum(jt.jvp(lambda u: u ** e, (v,), (jt.ones_like(v),))[1]))(x)
    want2 = jax.grad(lambda v: jnp.sum(jax.jvp(lambda u: u ** e, (v,), (jnp.ones(4),))[1]))(
        jnp.asarray(w))
    np.testing.assert_allclose(np.asarray(second), np.asarray(want2), rtol=1e-12)
    base = jt.asarray([0.0, 2.0])
    q = jt.asarray([0.3, 0.3])
    got_q = jt.jvp(lambda p: base ** p, (q,), (jt.ones_like(q),))[1]
    want_q = jax.jvp(lambda p: jnp.asarray([0.0, 2.0]) ** p, (jnp.asarray([0.3, 0.3]),),
                     (jnp.ones(2),))[1]
    np.testing.assert_allclose(np.asarray(got_q), np.asarray(want_q), rtol=1e-12)
