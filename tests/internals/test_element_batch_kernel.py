"""The element reads of ``a, b, c, d = x`` are computed by one kernel at the first use of
any of them on the device (``Storage._read_deferred``, reading ``_pending``): of one
structure and one value, at most eight at once, the reads of another value or structure
left alone. (A Python number of one, ``float(c)``, is read from host memory on CPU and
computes none: ``Tensor._scalar``.)"""

from __future__ import annotations

import jax
import numpy as np

import jaxtensor as jt


def _pending(*ts) -> list[bool]:
    return [t._storage._pending is not None for t in ts]


def test_the_first_use_computes_the_unpacked_elements_together():
    x = jt.asarray(np.arange(4.0))
    a, b, c, d = x
    assert _pending(a, b, c, d) == [True] * 4
    assert float(c) == 2.0
    if jax.default_backend() == "cpu":  # (read from host memory: nothing computed)
        assert _pending(a, b, c, d) == [True] * 4
    assert float(c + 0.0) == 2.0
    assert _pending(a, b, c, d) == [False] * 4
    assert [float(v) for v in (a, b, d)] == [0.0, 1.0, 3.0]


def test_reads_of_another_value_or_structure_are_left_alone():
    x = jt.asarray(np.arange(12.0).reshape(3, 4))
    y = jt.asarray(np.arange(3.0))
    a = y[2]  # (another Tensor's value)
    b, c = x[1, 1], x[2, 2]
    e = x.reshape(12)[7]  # (a view of another structure)
    assert float(b + 0.0) == 5.0
    assert _pending(a, b, c, e) == [True, False, False, True]
    assert [float(v) for v in (a, c, e)] == [2.0, 10.0, 7.0]


def test_at_most_eight_at_once():
    x = jt.asarray(np.arange(20.0))
    vals = list(x)
    assert float(vals[-1] + 0.0) == 19.0
    assert sum(_pending(*vals)) == 12
    assert [float(v) for v in vals] == list(range(20))
