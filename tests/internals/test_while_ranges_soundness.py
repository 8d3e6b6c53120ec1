"""The intervals a ``while_loop``'s integer carries are proved to lie in hold every value
they take: the invariant at the start of each iteration, the results' after the loop, in
NumPy's run of the same loop (tests/while_programs.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxtensor as jt
from jaxtensor._jit._carry_ranges import WhileRanges
from while_programs import program, programs, run, x0

pytestmark = pytest.mark.filterwarnings("ignore::jaxtensor.RecompileWarning")


@settings(max_examples=40, deadline=None)
@given(n=st.integers(3, 8), prog=programs)
def test_the_ranges_proved_hold_every_value_the_loop_takes(n, prog):
    """The invariant proved holds every value of the carry at the start of an iteration,
    and the results' intervals every value after the loop, in NumPy's run of the loop
    (until its IndexError, if any)."""
    analyses: list = []
    end = WhileRanges.end

    def recorded(self, *args):
        analyses.append(self)
        return end(self, *args)

    seen: dict = {"body": [], "after": []}
    run(program(n, *prog, None, seen), x0(n))
    with pytest.MonkeyPatch.context() as m:
        m.setattr(WhileRanges, "end", recorded)
        try:
            jt.jit(program(n, *prog, jt)).lower(jt.asarray(x0(n)))
        except IndexError:  # (a concrete index out of range: raised as it is traced)
            return
    last = analyses[-1]  # (the trace kept)
    for j in seen["body"]:
        assert last.held is None or last.held[0][0] <= j <= last.held[0][1], (j, last.held)
    for j in seen["after"]:
        assert last.results is None or last.results[0][0] <= j <= last.results[0][1], (
            j, last.results)
