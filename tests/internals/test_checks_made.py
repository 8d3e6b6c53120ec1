"""Which bounds checks a loop body makes: a check of an index that a check made before
covers is not made again (tests/jit/test_loop_ranges.py runs such loops against NumPy)."""

from __future__ import annotations

import numpy as np
import pytest

import jaxtensor as jt
from jaxtensor._jit import _ranges


def _made(monkeypatch: pytest.MonkeyPatch, f, *args) -> list:
    made: list = []
    real = _ranges.checked

    def record(x, lo, hi):
        made.append((lo, hi))
        real(x, lo, hi)
    monkeypatch.setattr(_ranges, "checked", record)
    jt.jit(f).lower(*args)
    return made


def test_a_read_modify_write_checks_its_index_once(monkeypatch):
    def port(x, idx):
        def body(i):
            x[idx[i]] += 1
        jt.fori_loop(0, idx.shape[0], body)
        return x

    made = _made(monkeypatch, port, jt.zeros(5), jt.asarray([1, 2, 9]))
    assert made == [(-5, 4)], made  # (idx[i]: a loop index, proved)


def test_an_index_checked_before_a_branch_is_not_checked_in_it(monkeypatch):
    """Flood fill's ``if img[r, c] == old: img[r, c] = new``; a check in one branch says
    nothing after it (the branch may not run)."""
    def port(x, idx):
        def body(i):
            k = idx[i]

            def write():
                x[k] = 0.0
                x[k + 1] = 1.0
            jt.cond(x[k] > 0, write, lambda: None)
            x[k + 1] += 2.0
        jt.fori_loop(0, idx.shape[0], body)
        return x

    made = _made(monkeypatch, port, jt.zeros(5), jt.asarray([1, 2, 9]))
    # x[k] before the branch; x[k + 1] in it; x[k + 1] again after it (twice: read, write,
    # the write's covered by the read's)
    assert made == [(-5, 4), (-5, 4), (-5, 4)], made


def test_a_trace_thrown_away_proves_nothing():
    """A while loop counting up is traced twice (``_carry_ranges.py``); the first trace's
    check of ``x[k]`` in the condition, made before the loop and dropped with that trace,
    does not cover the second trace's: ``x[9]`` raises, as in NumPy's loop."""
    def port(x, idx):
        def body(i):
            k = idx[i]

            def step(j):
                x[j] += 1
                return j + 1
            jt.while_loop(lambda j: (j < 3) & (x[k] >= 0), step, 0)
        jt.fori_loop(0, idx.shape[0], body)
        return x

    want = np.zeros(5)
    with pytest.raises(IndexError):
        for k in (1, 9):
            j = 0
            while j < 3 and want[k] >= 0:
                want[j] += 1
                j += 1
    x = jt.zeros(5)
    with pytest.raises(IndexError, match="index 9"):
        jt.jit(port)(x, jt.asarray([1, 9]))
    np.testing.assert_array_equal(np.asarray(x), want)


def _branch_then_after(w, k):
    h = jt.zeros(3)

    def body(i):
        j = i + k

        def never():
            h[j] = 1.0
        jt.cond(i > 100, never, lambda: None)
        h[j] = h[j] + w[i]
    jt.fori_loop(0, 3, body)
    return h.sum()


@pytest.mark.parametrize("how", ["jit", "vmap"])
def test_a_check_in_a_branch_not_taken_covers_nothing_after_it(how):
    """The check of ``h[j]`` in a branch never taken says nothing of ``h[j]`` after the
    ``cond`` (inlined under ``jt.jit``; an XLA conditional under ``jt.vmap``'s checkify):
    ``h[3]`` raises, as in NumPy."""
    w = jt.asarray([1.0, 2.0, 3.0])
    with pytest.raises(IndexError, match="index 3"):
        if how == "jit":
            jt.jit(_branch_then_after, static_argnums=1)(w, 1)
        else:
            jt.vmap(lambda w: _branch_then_after(w, 1))(jt.stack([w, w]))
