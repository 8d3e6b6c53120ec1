"""``jaxtensor.vmap`` (at the top level) raises the error of the first member that fails, as
the function called on each member in turn does, and counts a check only in a ``cond``
branch the member takes: checkify around the batched function reported the last failing
member, and the checks of both branches of a batched ``cond`` (a select). Oracle: eager
code member by member."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxtensor as jt

pytestmark = pytest.mark.filterwarnings("ignore::jaxtensor.RecompileWarning")


def write_at(x: jt.Tensor) -> jt.Tensor:
    y = x * 1.0
    y[jt.astype(x[0], jt.int64)] = 9.0
    return jt.sum(y)


def branch_read(x: jt.Tensor) -> jt.Tensor:
    return jt.cond(x[0] > 0, lambda: x[jt.astype(x[1], jt.int64)], lambda: 0.0)


def into_int8(x: jt.Tensor) -> jt.Tensor:
    y = jt.zeros(2, dtype=jt.int8)
    y[0] = x[0]
    return y


def eager(fn: Any, rows: np.ndarray) -> Any:
    try:
        return np.stack([np.asarray(fn(jt.asarray(r))) for r in rows])
    except (IndexError, ValueError, OverflowError) as e:
        return (type(e), str(e))


def batched(fn: Any, rows: np.ndarray) -> Any:
    try:
        return np.asarray(jt.vmap(fn)(jt.asarray(rows)))
    except (IndexError, ValueError, OverflowError) as e:
        return (type(e), str(e))


@settings(max_examples=30, deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from([-1.0, 0.0, 1.0, 2.0, 5.0, 7.0, 1000.0,
                                                  float("nan")]),
                               st.sampled_from([0.0, 1.0, 2.0, 9.0, -7.0])),
                     min_size=1, max_size=4),
       fn=st.sampled_from([write_at, branch_read, into_int8]))
def test_the_first_failing_member_and_only_branches_taken(rows: list, fn: Any) -> None:
    a = np.array([[p, q, 0.0] for p, q in rows])
    if fn is not into_int8:
        a = np.nan_to_num(a)
    want, got = eager(fn, a), batched(fn, a)
    if isinstance(want, tuple):
        assert got == want
    else:
        np.testing.assert_array_equal(got, want)
