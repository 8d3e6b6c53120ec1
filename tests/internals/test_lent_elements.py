"""A top-level loop is lent the element reads its body reads as their source (``_jit/
_elements.py``): the reads stay uncomputed through the call (no kernel of their own, no
storage lent each), until a body writes one."""

from __future__ import annotations

import jaxtensor as jt
from jaxtensor._core import Deferred


def _call(theta: jt.Tensor) -> tuple[float, tuple]:
    a, b, c = theta
    acc = jt.zeros(())

    def body(i):
        acc[...] += a * i + b - c
    jt.fori_loop(0, 4, body)
    return float(acc), (a, b, c)


def _unread(t: jt.Tensor) -> bool:
    """Whether ``t`` is an element read whose value is not computed yet."""
    return type(t._storage._pending) is Deferred


def test_element_reads_are_not_computed_by_the_loop_call() -> None:
    for call in range(3):
        got, reads = _call(jt.asarray([1.0, 2.0, 3.0]) + call)
        assert all(_unread(e) for e in reads)
        assert got == sum((1.0 + call) * i + (2.0 + call) - (3.0 + call) for i in range(4))


def test_a_body_writing_one_is_lent_them_computed_from_then_on() -> None:
    for call in range(2):
        x = jt.asarray([1.0, 2.0]) + call
        e, f = x

        def body(i, e=e, f=f):
            e[...] += f
        jt.fori_loop(0, 2, body)
        assert not _unread(f)  # (computed and lent as a storage)
        assert (float(e), float(f)) == (1.0 + call + 2 * (2.0 + call), 2.0 + call)
