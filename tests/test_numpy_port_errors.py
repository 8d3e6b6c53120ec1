"""What a NumPy program ported with ``xp = jaxtensor`` meets at its rough edges: the truth
value of a Tensor, NumPy's spellings (positional ``dtype``, ``array_equal``, ``allclose``,
ufunc ``.at``). NumPy is the oracle: the same exception type, the same result."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import jaxtensor as jt


def _outcome(f: Any) -> Any:
    try:
        return ("value", f())
    except Exception as e:  # noqa: BLE001 - the oracle's exception type is the answer
        return ("error", type(e))


SHAPES = [(), (1,), (1, 1), (2,), (3, 1), (0,), (2, 0), (1, 0, 1)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("fill", [0, 1, 2.5, True, False])
def test_truth_value_is_numpys(shape: tuple[int, ...], fill: Any) -> None:
    a = np.full(shape, fill)
    x = jt.asarray(a)
    want = _outcome(lambda: bool(a))
    got = _outcome(lambda: bool(x))
    assert got == want


@pytest.mark.parametrize("shape", [(2,), (2, 3), (0,), (3, 0)], ids=str)
def test_truth_value_error_gives_numpys_advice(shape: tuple[int, ...]) -> None:
    x = jt.zeros(shape)
    with pytest.raises(ValueError) as info:
        if x:  # the spelling ported code has
            pass
    with pytest.raises(ValueError) as oracle:
        bool(np.zeros(shape))
    if 0 in shape:
        assert "empty" in str(info.value) and "size > 0" in str(info.value)
    else:
        assert "Use a.any() or a.all()" in str(info.value)
        assert str(shape) in str(info.value)
    for words in ("The truth value of", "is ambiguous. Use"):
        assert words in str(oracle.value) and words in str(info.value)
