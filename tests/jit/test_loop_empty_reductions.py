"""A reduction without identity of an empty Tensor (``max``, ``min``, ``argmax``,
``argmin`` over zero elements) in a loop body or ``cond`` branch raises only where that code
runs, as the Python loop does (as does a Python constant the Tensor it is written into cannot hold:
``x[0] = 300`` into int8): a loop of zero iterations, a branch never taken raise
nothing (a selection sort or Gaussian elimination ported as docs/loops.md teaches, called on
an empty Tensor); an iteration that runs raises the eager ``ValueError`` and leaves what the
Python loop leaves (earlier iterations' writes, and the failing one's before the call). They
raised at the trace. Oracle: the same body in a Python loop (``if`` for ``cond``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import jaxtensor as jt

pytestmark = pytest.mark.filterwarnings("ignore::jaxtensor.RecompileWarning")

REDUCTIONS: dict[str, Callable[[jt.Tensor], Any]] = {
    "max": jt.max,
    "min": jt.min,
    "argmax": jt.argmax,
    "argmin": jt.argmin,
    "max axis 0": lambda e: jt.max(e, axis=0),
    "argmin axis 1": lambda e: jt.argmin(e, axis=1, keepdims=True),
}


def program(reduce: Callable, loop: Callable) -> Callable:
    """Writes ``out[i]`` at each step (the empty ``e``'s reduction where ``i >= at``)."""
    def prog(e: jt.Tensor, out: jt.Tensor, n: int, at: int) -> None:
        def body(i: Any) -> None:
            out[i] = 1.0

            def use() -> None:
                out[i] = out[i] + jt.sum(reduce(e) * 0)
            loop.cond(i >= at, use, lambda: None)
            out[i] += 1.0
        loop.fori(n, body)

    return prog


class Python:
    @staticmethod
    def fori(n: int, body: Callable) -> None:
        for i in range(n):
            body(i)

    @staticmethod
    def cond(p: Any, a: Callable, b: Callable) -> None:
        (a if p else b)()


class Jaxtensor:
    @staticmethod
    def fori(n: int, body: Callable) -> None:
        jt.fori_loop(0, n, body)

    @staticmethod
    def cond(p: Any, a: Callable, b: Callable) -> None:
        jt.cond(p, a, b)


class While:
    @staticmethod
    def fori(n: int, body: Callable) -> None:
        i = jt.zeros((), dtype=jt.int64)

        def step() -> None:
            body(i)
            i[...] += 1
        jt.while_loop(lambda: i < n, step)

    cond = Jaxtensor.cond


def outcome(f: Callable[[], Any]) -> Any:
    try:
        f()
    except ValueError as e:
        return str(e)
    return None


HOW = {
    "fori top level": lambda r: program(r, Jaxtensor),
    "fori in jit": lambda r: jt.jit(program(r, Jaxtensor), static_argnums=(2, 3)),
    "fori, traced bounds": lambda r: jt.jit(program(r, Jaxtensor)),
    "while top level": lambda r: program(r, While),
    "while in jit": lambda r: jt.jit(program(r, While), static_argnums=(2, 3)),
}


@pytest.mark.parametrize("how", sorted(HOW))
@pytest.mark.parametrize("reduction", sorted(REDUCTIONS))
@pytest.mark.parametrize(("n", "at"), [(0, 0), (3, 5), (3, 1), (3, 0)])
def test_an_empty_reduction_raises_where_it_runs(how: str, reduction: str, n: int,
                                                 at: int) -> None:
    reduce = REDUCTIONS[reduction]
    e = np.zeros((0, 2)) if "axis 1" not in reduction else np.zeros((2, 0))
    want_out = jt.zeros(4)
    want = outcome(lambda: program(reduce, Python)(jt.asarray(e), want_out, n, at))
    out = jt.zeros(4)
    got = outcome(lambda: HOW[how](reduce)(jt.asarray(e), out, n, at))
    assert got == want
    np.testing.assert_array_equal(out.numpy(), want_out.numpy())
    if n and at < n:
        assert want is not None  # (the oracle raised: the class is not vacuous)


def test_at_the_top_level_of_jit_it_still_raises_at_the_trace() -> None:
    with pytest.raises(ValueError, match="over zero elements"):
        jt.jit(jt.max)(jt.zeros(0))


#: Python constants a Tensor cannot hold, written where the code may not run
WRITES: dict[str, tuple[str, Any]] = {
    "300 into int8": ("int8", 300),
    "-1 into uint8": ("uint8", -1),
    "nan into int32": ("int32", float("nan")),
    "inf into int64": ("int64", float("inf")),
    "1j into float64": ("float64", 1j),
}


def writer(dtype: str, number: Any, loop: Any) -> Callable:
    def prog(t: jt.Tensor, out: jt.Tensor, n: int, at: int) -> None:
        def body(i: Any) -> None:
            out[i] = 1.0

            def use() -> None:
                t[0] = number
            loop.cond(i >= at, use, lambda: None)
            out[i] += 1.0
        loop.fori(n, body)

    return prog


WRITE_HOW = {
    "fori top level": lambda d, v: writer(d, v, Jaxtensor),
    "fori in jit": lambda d, v: jt.jit(writer(d, v, Jaxtensor), static_argnums=(2, 3)),
    "while top level": lambda d, v: writer(d, v, While),
}


@pytest.mark.parametrize("how", sorted(WRITE_HOW))
@pytest.mark.parametrize("write", sorted(WRITES))
@pytest.mark.parametrize(("n", "at"), [(0, 0), (3, 5), (3, 1)])
def test_a_constant_the_tensor_cannot_hold_raises_where_it_is_written(
        how: str, write: str, n: int, at: int) -> None:
    dtype, number = WRITES[write]

    def run(prog: Callable) -> tuple[Any, list, list]:
        t, out = jt.ones(2, dtype=dtype), jt.zeros(4)
        try:
            prog(t, out, n, at)
            err: Any = None
        except (OverflowError, ValueError, TypeError) as e:
            err = (type(e), str(e))
        return err, t.tolist(), out.tolist()

    want = run(writer(dtype, number, Python))
    assert run(WRITE_HOW[how](dtype, number)) == want
    assert (want[0] is None) == (at >= n)
