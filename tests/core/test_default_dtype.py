"""The default floating dtypes: float64/complex128 in 64-bit mode (the import default, as
NumPy's), float32/complex64 with it off, and the switch between them:
``set_default_dtype``/``get_default_dtype`` and the ``JAXTENSOR_DEFAULT_FLOAT`` environment
variable (read at import). Values are checked against NumPy."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

import jaxtensor as jt

SRC = str(Path(__file__).resolve().parents[2] / "src")


X64 = bool(jt.__array_namespace_info__().dtypes().get("float64"))
needs_x64 = pytest.mark.skipif(not X64, reason="float64 needs JAX's 64-bit mode")


@pytest.fixture
def float64_default() -> Iterator[None]:
    before = jt.get_default_dtype()
    jt.set_default_dtype(jt.float64)
    try:
        yield
    finally:
        jt.set_default_dtype(before)


@pytest.fixture
def float32_default() -> Iterator[None]:
    before = jt.get_default_dtype()
    jt.set_default_dtype(jt.float32)
    try:
        yield
    finally:
        jt.set_default_dtype(before)


# (what jaxtensor computes, what NumPy computes): each picks a floating dtype by default
DEFAULT_FLOAT_CASES: dict[str, tuple[Callable, Callable]] = {
    "asarray(float)": (lambda: jt.asarray(1.5), lambda: np.asarray(1.5)),
    "asarray(list of floats)": (lambda: jt.asarray([1.0, 2]), lambda: np.asarray([1.0, 2])),
    "asarray(complex)": (lambda: jt.asarray([1j]), lambda: np.asarray([1j])),
    "zeros": (lambda: jt.zeros(2), lambda: np.zeros(2)),
    "ones": (lambda: jt.ones(2), lambda: np.ones(2)),
    "empty": (lambda: jt.empty(2), lambda: np.empty(2)),
    "full(float)": (lambda: jt.full(2, 0.5), lambda: np.full(2, 0.5)),
    "full(complex)": (lambda: jt.full(2, 0.5j), lambda: np.full(2, 0.5j)),
    "eye": (lambda: jt.eye(2), lambda: np.eye(2)),
    "linspace": (lambda: jt.linspace(0, 1, 3), lambda: np.linspace(0, 1, 3)),
    "linspace(complex)": (lambda: jt.linspace(0, 1j, 3), lambda: np.linspace(0, 1j, 3)),
    "arange(float step)": (lambda: jt.arange(0, 1, 0.25), lambda: np.arange(0, 1, 0.25)),
    "int / int": (lambda: jt.asarray([1, 2]) / 2, lambda: np.asarray([1, 2]) / 2),
    "int + float scalar": (lambda: jt.asarray([1, 2]) + 0.5, lambda: np.asarray([1, 2]) + 0.5),
    "int * complex scalar": (lambda: jt.asarray([1, 2]) * 1j, lambda: np.asarray([1, 2]) * 1j),
    "sin(int)": (lambda: jt.sin(jt.asarray([1, 2])), lambda: np.sin(np.asarray([1, 2]))),
    "sqrt(bool)": (lambda: jt.sqrt(jt.asarray([True])), lambda: np.sqrt(np.asarray([1.0]))),
    "mean(int)": (lambda: jt.mean(jt.asarray([1, 2])), lambda: np.mean(np.asarray([1, 2]))),
    "Tensor.mean(int)": (lambda: jt.asarray([1, 2]).mean(), lambda: np.asarray([1, 2]).mean()),
    "var(int)": (lambda: jt.var(jt.asarray([1, 2])), lambda: np.var(np.asarray([1, 2]))),
    "std(int)": (lambda: jt.std(jt.asarray([1, 2])), lambda: np.std(np.asarray([1, 2]))),
    "fft(int)": (lambda: jt.fft.fft(jt.asarray([1, 2])), lambda: np.fft.fft(np.asarray([1, 2]))),
    "rfft(int)": (lambda: jt.fft.rfft(jt.asarray([1, 2])),
                  lambda: np.fft.rfft(np.asarray([1, 2]))),
    "fftfreq": (lambda: jt.fft.fftfreq(4), lambda: np.fft.fftfreq(4)),
    "rfftfreq": (lambda: jt.fft.rfftfreq(4), lambda: np.fft.rfftfreq(4)),
    "linalg.inv(int)": (lambda: jt.linalg.inv(jt.asarray([[2, 0], [0, 4]])),
                        lambda: np.linalg.inv(np.asarray([[2, 0], [0, 4]]))),
    "linalg.norm(int)": (lambda: jt.linalg.vector_norm(jt.asarray([3, 4])),
                         lambda: np.linalg.norm(np.asarray([3, 4]))),
}


@pytest.mark.parametrize("case", sorted(DEFAULT_FLOAT_CASES))
def test_float32_default(case: str, float32_default: None) -> None:
    ours, theirs = DEFAULT_FLOAT_CASES[case]
    expected = np.asarray(theirs())
    got = ours()
    assert got.dtype == {"f": jt.float32, "c": jt.complex64}[expected.dtype.kind]
    if case != "empty":
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6)


@needs_x64
@pytest.mark.parametrize("case", sorted(DEFAULT_FLOAT_CASES))
def test_float64_default_matches_numpy(case: str, float64_default: None) -> None:
    ours, theirs = DEFAULT_FLOAT_CASES[case]
    expected = np.asarray(theirs())
    got = ours()
    assert got.dtype == expected.dtype
    if case != "empty":
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-13)


@needs_x64
def test_float64_default_is_reported_and_keeps_explicit_dtypes(float64_default: None) -> None:
    info = jt.__array_namespace_info__()
    assert info.default_dtypes()["real floating"] == jt.float64
    assert info.default_dtypes()["complex floating"] == jt.complex128
    assert info.default_dtypes()["integral"] == jt.int64
    assert jt.get_default_dtype() == jt.float64
    # explicit dtypes and floating inputs keep their precision
    x32 = jt.ones(3, dtype=jt.float32)
    assert (x32 + 1.0).dtype == jt.float32
    assert (x32 * 1j).dtype == jt.complex64
    assert jt.mean(x32).dtype == jt.float32
    assert jt.fft.fft(x32).dtype == jt.complex64
    assert jt.zeros(2, dtype=jt.float32).dtype == jt.float32
    assert jt.asarray(np.ones(2, dtype=np.float32)).dtype == jt.float32


@needs_x64
def test_float32_default_is_reported_and_keeps_explicit_dtypes(float32_default: None) -> None:
    info = jt.__array_namespace_info__()
    assert info.default_dtypes()["real floating"] == jt.float32
    assert info.default_dtypes()["complex floating"] == jt.complex64
    assert info.default_dtypes()["integral"] == jt.int64
    assert jt.get_default_dtype() == jt.float32
    x64 = jt.ones(3, dtype=jt.float64)
    assert (x64 + 1.0).dtype == jt.float64
    assert (x64 * 1j).dtype == jt.complex128
    assert jt.mean(x64).dtype == jt.float64
    assert jt.fft.fft(x64).dtype == jt.complex128
    assert jt.asarray(np.ones(2)).dtype == jt.float64  # NumPy's float64 array stays float64


@needs_x64
def test_switch_reaches_remembered_operators_and_compiled_functions(
        float64_default: None) -> None:
    x = jt.asarray([1, 2])
    f = jt.jit(lambda t: t / 2 + jt.zeros(2))
    for _ in range(2):  # the operator fast path and the compiled function remember float64
        assert (x / 2).dtype == (x + 1.0).dtype == f(x).dtype == jt.float64
    jt.set_default_dtype(jt.float32)
    assert (x / 2).dtype == (x + 1.0).dtype == f(x).dtype == jt.float32
    assert float((x / 3)[0]) == float(np.float32(1) / np.float32(3))
    jt.set_default_dtype(jt.float64)
    assert (x / 2).dtype == f(x).dtype == jt.float64
    assert float((x / 3)[0]) == 1 / 3


@pytest.mark.parametrize("bad", [jt.int32, jt.complex64, jt.bool, "int64", None, "float128"])
def test_set_default_dtype_refuses_non_float(bad: object) -> None:
    before = jt.get_default_dtype()
    with pytest.raises(TypeError, match="float32 or float64"):
        jt.set_default_dtype(bad)
    assert jt.get_default_dtype() == before


@needs_x64
@pytest.mark.parametrize("spelling", ["jt.{}", "'{}'", "np.{}", "np.dtype('{}')"])
def test_set_default_dtype_round_trips(spelling: str) -> None:
    before = jt.get_default_dtype()
    try:
        for name, cname in [("float32", "complex64"), ("float64", "complex128")]:
            assert jt.set_default_dtype(eval(spelling.format(name))) is None
            info = jt.__array_namespace_info__().default_dtypes()
            assert jt.get_default_dtype() == info["real floating"] == name
            assert info["complex floating"] == cname
            assert jt.zeros(1).dtype == jt.asarray([0.5]).dtype == name
            assert jt.asarray(1j).dtype == cname
    finally:
        jt.set_default_dtype(before)


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k != "JAXTENSOR_DEFAULT_FLOAT"}
    full.update(PYTHONPATH=SRC, **env)
    return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True,
                          text=True, timeout=120)


# Every creation function (and asarray of Python numbers and lists) without a dtype, and
# the namespace info, printed by a fresh process: (name, what it evaluates)
IMPORT_CASES = {
    "zeros": "jt.zeros(2)",
    "ones": "jt.ones((2, 1))",
    "empty": "jt.empty(2)",
    "full(float)": "jt.full(2, 0.5)",
    "full(complex)": "jt.full(2, 0.5j)",
    "arange(float)": "jt.arange(0.0, 1.0, 0.25)",
    "linspace": "jt.linspace(0, 1, 3)",
    "linspace(complex)": "jt.linspace(0, 1j, 3)",
    "eye": "jt.eye(2)",
    "asarray(float)": "jt.asarray(0.1)",
    "asarray(complex)": "jt.asarray(1 + 2j)",
    "asarray(list of floats)": "jt.asarray([1, 0.1])",
    "asarray(nested list of complex)": "jt.asarray([[1, 0.5j]])",
    "int / int": "jt.arange(3) / 3",
}
IMPORT_CODE = (
    "import json, numpy as np, jaxtensor as jt\n"
    "d = jt.__array_namespace_info__().default_dtypes()\n"
    "out = {k: str(d[k]) for k in ('real floating', 'complex floating', 'integral')}\n"
    "out['get_default_dtype'] = str(jt.get_default_dtype())\n"
    f"cases = {{{', '.join(f'{k!r}: {v}' for k, v in IMPORT_CASES.items())}}}\n"
    "out.update({k: [str(t.dtype), repr(np.asarray(t).tolist())] for k, t in cases.items()})\n"
    "print(json.dumps(out))\n"
)
NUMPY_CASES = {  # NumPy's values of IMPORT_CASES (NumPy computes in float64/complex128)
    "zeros": np.zeros(2), "ones": np.ones((2, 1)), "empty": None,
    "full(float)": np.full(2, 0.5), "full(complex)": np.full(2, 0.5j),
    "arange(float)": np.arange(0.0, 1.0, 0.25), "linspace": np.linspace(0, 1, 3),
    "linspace(complex)": np.linspace(0, 1j, 3), "eye": np.eye(2),
    "asarray(float)": np.asarray(0.1), "asarray(complex)": np.asarray(1 + 2j),
    "asarray(list of floats)": np.asarray([1, 0.1]),
    "asarray(nested list of complex)": np.asarray([[1, 0.5j]]),
    "int / int": np.arange(3) / 3,
}


@pytest.mark.parametrize(("x64", "variable", "expected"), [
    ("1", None, "float64"),  # the import default in 64-bit mode: NumPy's
    ("1", "float32", "float32"),
    ("0", None, "float32"),  # 32-bit mode
    ("0", "float32", "float32"),
])
def test_default_at_import(x64: str, variable: str | None, expected: str) -> None:
    env = {"JAX_ENABLE_X64": x64}
    if variable is not None:
        env["JAXTENSOR_DEFAULT_FLOAT"] = variable
    run = _run(IMPORT_CODE, **env)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    complex_ = {"float32": "complex64", "float64": "complex128"}[expected]
    assert out.pop("real floating") == out.pop("get_default_dtype") == expected
    assert out.pop("complex floating") == complex_
    assert out.pop("integral") == ("int64" if x64 == "1" else "int32")
    for case, (dtype, values) in out.items():
        want = NUMPY_CASES[case]
        assert dtype == (complex_ if "complex" in case else expected), case
        if want is None:
            continue
        got = np.asarray(ast.literal_eval(values))
        if expected == "float64":  # NumPy's values, exactly
            np.testing.assert_array_equal(got, want, err_msg=case)
        else:  # the float32 rounding of them
            np.testing.assert_array_equal(got, want.astype(dtype), err_msg=case)


def test_environment_variable_refuses_bad_values() -> None:
    out = _run("import jaxtensor", JAX_ENABLE_X64="1", JAXTENSOR_DEFAULT_FLOAT="int64")
    assert out.returncode != 0
    assert "JAXTENSOR_DEFAULT_FLOAT='int64'" in out.stderr


def test_float64_default_needs_64_bit_mode() -> None:
    out = _run("import jaxtensor", JAX_ENABLE_X64="0", JAXTENSOR_DEFAULT_FLOAT="float64")
    assert out.returncode != 0
    assert "64-bit mode is off" in out.stderr
    code = (
        "import jaxtensor as jt\n"
        "try:\n"
        "    jt.set_default_dtype(jt.float64)\n"
        "except ValueError as e:\n"
        "    print('ValueError', e)\n"
        "print(jt.get_default_dtype(), jt.zeros(1).dtype)\n"
    )
    out = _run(code, JAX_ENABLE_X64="0")
    assert out.returncode == 0, out.stderr
    assert "ValueError float64 cannot be the default" in out.stdout
    assert out.stdout.split()[-2:] == ["float32", "float32"]
