"""A ``jaxtensor.jit`` function called under ``jt.grad``/``value_and_grad``/``jvp``/``vjp``
whose check fails leaves a Tensor it closes over as eager code leaves it: the writes before
the failing check kept, those after it not made (they were kept: the nested call's
write-back was not gated by the error state so far). Failing checks of four kinds: a
traced index, a ``linalg`` matrix, one in a loop body, one in a ``cond`` branch. Oracle:
the function called eagerly."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import jaxtensor as jt

pytestmark = pytest.mark.filterwarnings("ignore::jaxtensor.RecompileWarning")

S = jt.zeros(3)


def fails_index(x: jt.Tensor) -> jt.Tensor:
    S[0] = 1.0
    y = x[jt.astype(jt.argmax(x), jt.int64) + 5]
    S[1] = 2.0
    return jt.sum(x * x) + y


def fails_linalg(x: jt.Tensor) -> jt.Tensor:
    S[0] = 1.0
    m = jt.linalg.inv(jt.stack([x[:2], x[:2]]))
    S[1] = 2.0
    return jt.sum(m)


def fails_in_loop(x: jt.Tensor) -> jt.Tensor:
    S[0] = 1.0

    def body(i: Any) -> None:
        S[2] = S[2] + x[jt.astype(x[0], jt.int64) + i]
    jt.fori_loop(0, 2, body)
    S[1] = 2.0
    return jt.sum(x * x)


def fails_in_branch(x: jt.Tensor) -> jt.Tensor:
    S[0] = 1.0
    jt.cond(x[0] > 0, lambda: S.__setitem__(2, x[jt.astype(x[0], jt.int64) + 2]),
            lambda: None)
    S[1] = 2.0
    return jt.sum(x * x)


PROGRAMS = [fails_index, fails_linalg, fails_in_loop, fails_in_branch]
FORMS: dict[str, Callable[[Callable, jt.Tensor], Any]] = {
    "grad": lambda f, x: jt.grad(jt.jit(f))(x),
    "value_and_grad": lambda f, x: jt.value_and_grad(jt.jit(f))(x),
    "jvp": lambda f, x: jt.jvp(jt.jit(f), (x,), (jt.ones_like(x),)),
    "vjp": lambda f, x: jt.vjp(jt.jit(f), x)[0],
}


def outcome(call: Callable[[], Any]) -> tuple[Any, list]:
    S[...] = 0.0
    try:
        call()
        err = None
    except (IndexError, np.linalg.LinAlgError) as e:
        err = (type(e), str(e))
    return err, S.tolist()


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.__name__)
@pytest.mark.parametrize("x", [[1.0, 1.0, 1.0], [1.0, 2.0, 1.0], [-1.0, 0.5, 2.0]])
def test_a_failed_nested_call_leaves_what_eager_code_leaves(form: str, prog: Callable,
                                                           x: list) -> None:
    want = outcome(lambda: prog(jt.asarray(x)))
    got = outcome(lambda: FORMS[form](prog, jt.asarray(x)))
    assert got == want
    if prog in (fails_index, fails_linalg):
        assert want[0] is not None  # (the class is not vacuous)
