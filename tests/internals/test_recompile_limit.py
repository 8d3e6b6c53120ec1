"""RecompileWarning at the RECOMPILE_LIMIT-th program (``_core/_config.py``), patched
lower here to compile fewer programs (moved from tests/jit/test_loop_cache.py: it reads
the setting's module)."""

from __future__ import annotations

import types
import warnings

import pytest

import jaxtensor as jt
from jaxtensor._core import _config


def _module(src: str) -> dict:
    """``src`` run as a script's top level (its names are globals of a module of its own)."""
    mod = types.ModuleType("__main__")  # (as a script run by python)
    mod.__dict__.update(jt=jt)
    exec(compile(src, "<user_script>", "exec"), mod.__dict__)
    return mod.__dict__


@pytest.fixture
def limit3(monkeypatch: pytest.MonkeyPatch) -> None:
    """Warn at the 3rd program instead of the 8th (fewer compilations to test)."""
    monkeypatch.setattr(_config, "RECOMPILE_LIMIT", 3)


def test_recompile_limit_is_documented() -> None:
    assert _config.RECOMPILE_LIMIT == 8
    assert "8th" in jt.RecompileWarning.__doc__


@pytest.mark.usefixtures("limit3")
def test_recompile_warning_once_naming_the_change() -> None:
    src = """
def run(x, n):
    for scale in range(n):
        def body(i):
            x[i] += scale
        jt.fori_loop(0, 2, body)
"""
    run = _module(src)["run"]
    x = jt.zeros(2)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        run(x, 2)
        assert not [w for w in rec if w.category is jt.RecompileWarning]
        run(x, 5)
    got = [w for w in rec if w.category is jt.RecompileWarning]
    assert len(got) == 1
    msg = str(got[0].message)
    assert "fori_loop(run.<locals>.body)" in msg and "'scale'" in msg
    assert "int 1 -> int 2" in msg
    assert x.tolist() == [float(sum(range(2)) + sum(range(5)))] * 2


@pytest.mark.usefixtures("limit3")
def test_recompile_warning_of_a_jitted_function_names_the_change() -> None:
    f = jt.jit(lambda a: a + 1)
    g = jt.jit(lambda a, k: a * k, static_argnums=1)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        for n in range(1, 6):
            f(jt.zeros(n, dtype=jt.float32))
            g(jt.ones(2), n)
    got = [str(w.message) for w in rec if w.category is jt.RecompileWarning]
    assert len(got) == 2
    assert "float32[2] -> float32[3]" in got[0]
    assert "the static argument k changed (2 -> 3)" in got[1]
