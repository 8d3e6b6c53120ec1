"""Smoke tests: the package imports, the tour runs, the Paddle guide's first example holds."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import jaxtensor as jt


def test_view_write_reaches_base():
    a = jt.ones((2, 3))
    b = a[0]
    b[1] = 10
    np.testing.assert_array_equal(np.asarray(a), [[1, 10, 1], [1, 1, 1]])
    assert jt.shares_memory(a, b)


def test_tour_runs():
    out = subprocess.run(
        [sys.executable, "-m", "jaxtensor"], capture_output=True, text=True, check=True
    ).stdout
    assert "Environment" in out and "x64" in out


def test_the_package_ships_its_typing_marker_and_license():
    """PEP 561: ``py.typed`` is in the package and in the package data setuptools installs
    (``pip wheel .`` puts it in the wheel); the license file is at the root."""
    tomllib = pytest.importorskip("tomllib")  # (Python 3.11+)
    root = Path(__file__).resolve().parents[2]
    assert (root / "src" / "jaxtensor" / "py.typed").is_file()
    with open(root / "pyproject.toml", "rb") as f:
        conf = tomllib.load(f)
    assert "py.typed" in conf["tool"]["setuptools"]["package-data"]["jaxtensor"]
    assert conf["project"]["license"] == {"text": "Apache-2.0"}
    text = (root / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "Copyright 2026 The jaxtensor authors" in text
