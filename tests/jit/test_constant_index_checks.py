"""A constant index out of range in compiled code fails where it runs, as eagerly.

In a loop body or ``cond`` branch (checks on), an index that is a Python int (or a host
array) out of its axis is checked when the program runs, like a traced one: the writes made
before it are kept, the call raises eager code's ``IndexError``, and code that never runs
(a branch not taken, a loop of zero iterations, a ``while_loop`` whose condition is false
at once) raises nothing. At the top level of a ``jaxtensor.jit`` (or ``grad``) function it
is raised where it is traced, so code around it may catch it, and the call changes nothing
(docs/decisions.md). Oracle: the same program run eagerly (Python's ``if`` and loops around
the same statements). With checks off the index is rejected where it is traced.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxtensor as jt
from test_loop_checks import PY, _jt  # (Python's loops: the oracle's; jaxtensor's)

pytestmark = pytest.mark.filterwarnings("ignore::jaxtensor.RecompileWarning")


# the failing statements, each on x (3 elements) or its 2-D view; ``k`` is out of range
def write_int(x: jt.Tensor, k: int) -> None:
    x[k] = 2.0


def add_int(x: jt.Tensor, k: int) -> None:
    x[k] += 1.0


def read_int(x: jt.Tensor, k: int) -> Any:
    return x[k] * 2


def write_window(x: jt.Tensor, k: int) -> None:
    x[jt.ds(k, 2)] = 5.0


def write_list(x: jt.Tensor, k: int) -> None:
    x[[0, k]] = 1.0


def read_array(x: jt.Tensor, k: int) -> Any:
    return x[np.array([[1], [k]])] + 1


def write_2d(x: jt.Tensor, k: int) -> None:
    x.reshape(1, 3)[0, k] = 4.0


def select(x: jt.Tensor, k: int) -> Any:
    return jt.index_select(x, 0, jt.asarray([k, 0]))


STATEMENTS = [write_int, add_int, read_int, write_window, write_list, read_array, write_2d,
              select]
BAD = [3, 4, 9, -4, -7]  # (ds(k, 2) fails from k = 2 on: every one here fails)


def void(stmt: Callable, x: jt.Tensor, k: int) -> None:
    stmt(x, k)


# the contexts, each given (h, y, x, stmt, k) where h holds the control flow: Python's for
# the oracle, jaxtensor's for the compiled runs; each writes y first
def straight(h: Any, y: jt.Tensor, x: jt.Tensor, stmt: Callable, k: int) -> None:
    y[0] = 1.0
    stmt(x, k)


def in_loop(h: Any, y: jt.Tensor, x: jt.Tensor, stmt: Callable, k: int) -> None:
    def body(i: Any) -> None:
        y[i] = 1.0
        stmt(x, k)
    h.fori(0, 3, body)


def branch_taken(h: Any, y: jt.Tensor, x: jt.Tensor, stmt: Callable, k: int) -> None:
    def body(i: Any) -> None:
        y[i] = 1.0
        h.cond(i == 1, lambda: void(stmt, x, k), lambda: None)
    h.fori(0, 3, body)


def branch_not_taken(h: Any, y: jt.Tensor, x: jt.Tensor, stmt: Callable, k: int) -> None:
    def body(i: Any) -> None:
        y[i] = 1.0
        h.cond(i > 10, lambda: void(stmt, x, k), lambda: None)
    h.fori(0, 3, body)


def top_branch(h: Any, y: jt.Tensor, x: jt.Tensor, stmt: Callable, k: int) -> None:
    y[0] = 1.0
    h.cond(x[0] > 5.5, lambda: void(stmt, x, k), lambda: None)  # (not taken: x[0] is 5)
    h.cond(x[1] > 5.5, lambda: void(stmt, x, k), lambda: None)  # (taken)


def zero_trips(h: Any, y: jt.Tensor, x: jt.Tensor, stmt: Callable, k: int) -> None:
    y[1] = 1.0

    def body(i: Any) -> None:
        stmt(x, k)
    h.fori(2, 2, body)


def while_not_entered(h: Any, y: jt.Tensor, x: jt.Tensor, stmt: Callable, k: int) -> None:
    y[2] = 1.0
    h.while_(lambda: y[0] > 5.0, lambda: void(stmt, x, k))


CONTEXTS = [straight, in_loop, branch_taken, branch_not_taken, top_branch, zero_trips,
            while_not_entered]


JT = _jt()


def outcome(run: Callable[[jt.Tensor, jt.Tensor], None]) -> tuple:
    y, x = jt.zeros(3), jt.asarray([5.0, 6.0, 7.0])
    try:
        run(y, x)
        err = None
    except IndexError as e:
        err = str(e)
    return err, y.tolist(), x.tolist()


@settings(max_examples=80, deadline=None)
@given(ctx=st.sampled_from(CONTEXTS), stmt=st.sampled_from(STATEMENTS),
       k=st.sampled_from(BAD), how=st.sampled_from(["top", "jit", "jit in jit", "grad"]))
def test_a_constant_index_out_of_range_fails_where_it_runs(
        ctx: Callable, stmt: Callable, k: int, how: str) -> None:
    want = outcome(lambda y, x: ctx(PY, y, x, stmt, k))
    if ctx is straight:
        # (at the function's top level the error is raised where traced, before anything
        # runs: that call changes nothing, docs/decisions.md)
        want = (want[0], [0.0, 0.0, 0.0], [5.0, 6.0, 7.0])
    if how == "top" and ctx is not straight and ctx is not top_branch:
        def run(y: jt.Tensor, x: jt.Tensor) -> None:
            ctx(JT, y, x, stmt, k)
    elif how == "grad":  # (y and x closed over: grad keeps what eager code leaves)
        if ctx is while_not_entered or ctx is top_branch:
            return  # (no reverse-mode gradient through a while_loop; no traced cond there)

        def run(y: jt.Tensor, x: jt.Tensor) -> None:
            def loss(w: jt.Tensor) -> jt.Tensor:
                ctx(JT, y, x, stmt, k)
                return jt.sum(w * 2.0)
            jt.grad(loss)(jt.ones(2))
    elif how == "jit in jit":
        run = jt.jit(jt.jit(lambda y, x: ctx(JT, y, x, stmt, k)))
    else:
        run = jt.jit(lambda y, x: ctx(JT, y, x, stmt, k))
    assert outcome(run) == want


def caught(h: Any, x: jt.Tensor, out: jt.Tensor) -> None:
    """Code that catches the IndexError of a constant index (the last valid element)."""
    for k in range(5):
        try:
            out[0] = x[k] * 1
        except IndexError:
            out[1] = k
            break


@pytest.mark.parametrize("how", ["eager", "jit", "grad"])
def test_code_that_catches_the_index_error_runs_as_eagerly(how: str) -> None:
    x, out = jt.asarray([5.0, 6.0, 7.0]), jt.zeros(2)
    if how == "eager":
        caught(PY, x, out)
    elif how == "jit":
        jt.jit(lambda x, out: caught(JT, x, out))(x, out)
    else:
        jt.grad(lambda w: (caught(JT, x, out), jt.sum(w))[1])(jt.ones(2))
    assert out.tolist() == [7.0, 3.0]


@pytest.mark.parametrize("depth", [1, 2])
def test_the_error_shows_the_users_line(depth: int) -> None:
    def user_function(y: jt.Tensor, x: jt.Tensor) -> None:
        y[0] = 1.0
        x[7] = 2.0

    f = user_function
    for _ in range(depth):
        f = jt.jit(f)
    for _ in range(2):
        y, x = jt.zeros(3), jt.zeros(3)
        with pytest.raises(IndexError, match="index 7 is out of bounds") as e:
            f(y, x)
        names = []
        tb = e.value.__traceback__
        while tb is not None:
            names.append(tb.tb_frame.f_code.co_name)
            tb = tb.tb_next
        assert "user_function" in names
        assert y.tolist() == [0.0, 0.0, 0.0]  # (raised where traced: nothing ran)


@pytest.mark.parametrize("stmt", [write_int, read_int, write_window, write_list])
def test_with_checks_off_a_constant_index_out_of_range_is_rejected_when_traced(
        stmt: Callable) -> None:
    f = jt.jit(lambda y, x: straight(JT, y, x, stmt, 9), check_bounds=False)
    y, x = jt.zeros(3), jt.zeros(3)
    with pytest.raises(IndexError, match="out of bounds"):
        f(y, x)
    assert y.tolist() == [0.0, 0.0, 0.0]
