"""The default floating dtype switch: ``set_default_dtype``/``get_default_dtype`` and the
``JAXTENSOR_DEFAULT_FLOAT`` environment variable (read at import), checked against NumPy,
whose defaults are float64/complex128."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

import jaxtensor as jt

SRC = str(Path(__file__).resolve().parents[1] / "src")


@pytest.fixture
def float64_default() -> Iterator[None]:
    before = jt.get_default_dtype()
    jt.set_default_dtype(jt.float64)
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
def test_default_float32(case: str) -> None:
    ours, theirs = DEFAULT_FLOAT_CASES[case]
    expected = np.asarray(theirs())
    got = ours()
    assert got.dtype == {"f": jt.float32, "c": jt.complex64}[expected.dtype.kind]
    if case != "empty":
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6)


@pytest.mark.skipif(not jt.__array_namespace_info__().dtypes().get("float64"),
                    reason="float64 needs JAX's 64-bit mode")
@pytest.mark.parametrize("case", sorted(DEFAULT_FLOAT_CASES))
def test_default_float64_matches_numpy(case: str, float64_default: None) -> None:
    ours, theirs = DEFAULT_FLOAT_CASES[case]
    expected = np.asarray(theirs())
    got = ours()
    assert got.dtype == expected.dtype
    if case != "empty":
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-13)


@pytest.mark.skipif(not jt.__array_namespace_info__().dtypes().get("float64"),
                    reason="float64 needs JAX's 64-bit mode")
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


@pytest.mark.skipif(not jt.__array_namespace_info__().dtypes().get("float64"),
                    reason="float64 needs JAX's 64-bit mode")
def test_switch_reaches_remembered_operators_and_compiled_functions() -> None:
    before = jt.get_default_dtype()
    x = jt.asarray([1, 2])
    f = jt.jit(lambda t: t / 2 + jt.zeros(2))
    for _ in range(2):  # the operator fast path and the compiled function remember float32
        assert (x / 2).dtype == (x + 1.0).dtype == f(x).dtype == jt.float32
    try:
        jt.set_default_dtype(jt.float64)
        assert (x / 2).dtype == (x + 1.0).dtype == f(x).dtype == jt.float64
        assert float((x / 3)[0]) == 1 / 3
    finally:
        jt.set_default_dtype(before)
    assert (x / 2).dtype == f(x).dtype == jt.float32


@pytest.mark.parametrize("bad", [jt.int32, jt.complex64, jt.bool, "int64", None, "float128"])
def test_set_default_dtype_refuses_non_float(bad: object) -> None:
    before = jt.get_default_dtype()
    with pytest.raises(TypeError, match="float32 or float64"):
        jt.set_default_dtype(bad)
    assert jt.get_default_dtype() == before


@pytest.mark.parametrize("spelling", ["jt.float64", "'float64'", "np.float64", "np.dtype('float64')"])
def test_set_default_dtype_spellings(spelling: str) -> None:
    if not jt.__array_namespace_info__().dtypes().get("float64"):
        pytest.skip("float64 needs JAX's 64-bit mode")
    before = jt.get_default_dtype()
    try:
        jt.set_default_dtype(eval(spelling))
        assert jt.get_default_dtype() == jt.float64
        assert jt.zeros(1).dtype == jt.float64
    finally:
        jt.set_default_dtype(before)


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k != "JAXTENSOR_DEFAULT_FLOAT"}
    full.update(PYTHONPATH=SRC, **env)
    return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True,
                          text=True, timeout=120)


def test_environment_variable_sets_the_default_at_import() -> None:
    code = (
        "import jaxtensor as jt\n"
        "d = jt.__array_namespace_info__().default_dtypes()\n"
        "print(jt.get_default_dtype(), d['real floating'], d['complex floating'],"
        " jt.zeros(1).dtype, (jt.arange(3) / 2).dtype, jt.asarray(1j).dtype)\n"
    )
    out = _run(code, JAX_ENABLE_X64="1", JAXTENSOR_DEFAULT_FLOAT="float64")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["float64", "float64", "complex128", "float64", "float64",
                                  "complex128"]
    out = _run(code, JAX_ENABLE_X64="1", JAXTENSOR_DEFAULT_FLOAT="float32")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["float32", "float32", "complex64", "float32", "float32",
                                  "complex64"]


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
