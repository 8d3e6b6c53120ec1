"""Smoke tests: the package imports, the tour runs, the Paddle guide's first example holds."""

import subprocess
import sys

import numpy as np

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
