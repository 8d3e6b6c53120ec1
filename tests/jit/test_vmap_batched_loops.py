"""``jaxtensor.vmap`` of loops whose trip count the batch decides: a ``while_loop`` whose
condition reads a batched value, a ``fori_loop`` with a batched bound. The checked batched
function cannot hold such a loop (checkify takes no batched while loop), so the members run
one after another; oracle: the function called eagerly on each member (its results stacked
along ``out_axes``), and, where a member fails, the eager ``IndexError`` of the first
failing member.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxtensor as jt

pytestmark = pytest.mark.filterwarnings("ignore::jaxtensor.RecompileWarning")


def doubling(v: jt.Tensor) -> jt.Tensor:
    return jt.while_loop(lambda c: c < v, lambda c: c * 2, jt.asarray(1.0))


def prefix(n: jt.Tensor) -> jt.Tensor:
    x = jt.zeros(6)

    def body(i: Any) -> None:
        x[i] = x[i - 1] + i
    jt.fori_loop(1, n, body)
    return x


def bump(x: jt.Tensor, n: jt.Tensor) -> jt.Tensor:
    def body(i: Any) -> None:
        x[i] += 1.0
    jt.fori_loop(0, n, body)
    return x


def eager(fn: Any, members: list[tuple], out_axis: int) -> Any:
    try:
        outs = [np.asarray(fn(*m)) for m in members]
    except IndexError as e:
        return str(e)
    return np.stack(outs, axis=out_axis)


def outcome(call: Any) -> Any:
    try:
        return np.asarray(call())
    except IndexError as e:
        return str(e)


@settings(max_examples=25, deadline=None)
@given(vs=st.lists(st.floats(0.5, 1e4), min_size=1, max_size=4))
def test_a_while_loop_whose_condition_is_batched(vs: list[float]) -> None:
    want = eager(doubling, [(jt.asarray(v),) for v in vs], 0)
    got = outcome(lambda: jt.vmap(doubling)(jt.asarray(vs)))
    np.testing.assert_array_equal(got, want)


@settings(max_examples=25, deadline=None)
@given(ns=st.lists(st.integers(-2, 9), min_size=1, max_size=4))
def test_a_fori_loop_with_a_batched_bound_as_each_member_eagerly(ns: list[int]) -> None:
    want = eager(prefix, [(jt.asarray(n),) for n in ns], 0)
    got = outcome(lambda: jt.vmap(prefix)(jt.asarray(ns)))
    if isinstance(want, str):
        assert got == want
    else:
        np.testing.assert_array_equal(got, want)


@settings(max_examples=20, deadline=None)
@given(ns=st.lists(st.integers(0, 3), min_size=2, max_size=2), out_axis=st.sampled_from([0, 1]))
def test_axes_of_a_batched_bound(ns: list[int], out_axis: int) -> None:
    x = np.arange(6.0).reshape(3, 2)
    members = [(jt.asarray(x[:, j]), jt.asarray(n)) for j, n in enumerate(ns)]
    want = eager(bump, members, out_axis)
    got = outcome(lambda: jt.vmap(bump, in_axes=(1, 0), out_axes=out_axis)(
        jt.asarray(x), jt.asarray(ns)))
    np.testing.assert_array_equal(got, want)


def prefix_sum(n: jt.Tensor) -> jt.Tensor:
    return prefix(n).sum()


NESTED = {
    # name: (the batched function called inside a transform, its eager oracle per member)
    "jit": (lambda ns: jt.jit(jt.vmap(prefix))(ns), prefix),
    "jit(vmap(vmap))": (lambda ns: jt.jit(jt.vmap(jt.vmap(prefix)))(ns.reshape(1, -1))[0],
                        prefix),
    "grad": (lambda ns: jt.grad(lambda s: (jt.vmap(prefix)(ns) * s).sum())(
        jt.asarray(1.0)), prefix_sum),
    "jvp": (lambda ns: jt.jvp(lambda s: jt.vmap(prefix)(ns) * s, (jt.asarray(1.0),),
                              (jt.asarray(1.0),))[1], prefix),
    "vjp": (lambda ns: jt.vjp(lambda s: jt.vmap(prefix)(ns) * s, jt.asarray(1.0))[0],
            prefix),
}


@settings(max_examples=10, deadline=None)
@given(ns=st.lists(st.integers(-2, 9), min_size=1, max_size=4),
       how=st.sampled_from(sorted(NESTED)))
def test_a_batched_bound_inside_another_transform(ns: list[int], how: str) -> None:
    call, member = NESTED[how]
    want = eager(member, [(jt.asarray(n),) for n in ns], 0)
    if how == "grad" and not isinstance(want, str):
        want = want.sum()
    got = outcome(lambda: call(jt.asarray(ns)))
    if isinstance(want, str):
        assert got == want
    else:
        np.testing.assert_array_equal(got, want)
