"""An axis out of range raises NumPy's ``AxisError``, both the ``IndexError`` the standard
names and the ``ValueError`` that ported NumPy code catches, from every function taking an
axis; the oracle is NumPy, which raises its ``AxisError`` for the same calls."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import jaxtensor as jt

# (name, call on a namespace xp and an array a of shape (2, 3))
CALLS: dict[str, Callable] = {
    "sum": lambda xp, a: xp.sum(a, axis=2),
    "max": lambda xp, a: xp.max(a, axis=-3),
    "sort": lambda xp, a: xp.sort(a, axis=5),
    "argsort": lambda xp, a: xp.argsort(a, axis=-4),
    "argmax": lambda xp, a: xp.argmax(a, axis=2),
    "expand_dims": lambda xp, a: xp.expand_dims(a, axis=4),
    "squeeze": lambda xp, a: xp.squeeze(a, axis=3),
    "flip": lambda xp, a: xp.flip(a, axis=2),
    "concat": lambda xp, a: xp.concat([a, a], axis=2),
    "stack": lambda xp, a: xp.stack([a, a], axis=4),
    "cumulative_sum": lambda xp, a: xp.cumulative_sum(a, axis=2),
    "take": lambda xp, a: xp.take(a, xp.asarray([0]), axis=2),
    "fft": lambda xp, a: xp.fft.fft(a, axis=2),
}


def _numpy(name: str) -> Callable:
    aliases = {"concat": "concatenate", "cumulative_sum": "cumsum"}
    return lambda a: CALLS[name](np, a) if name not in aliases else getattr(np, aliases[name])(
        [a, a] if name == "concat" else a, axis=2)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_an_axis_out_of_range_is_an_index_and_a_value_error(name: str) -> None:
    if name != "fft":  # (NumPy's fft raises a bare IndexError)
        with pytest.raises(np.exceptions.AxisError):
            _numpy(name)(np.ones((2, 3)))
    a = jt.ones((2, 3))
    with pytest.raises(np.exceptions.AxisError) as e:
        CALLS[name](jt, a)
    assert isinstance(e.value, IndexError) and isinstance(e.value, ValueError)
    assert "jaxtensor" not in str(e.value)
