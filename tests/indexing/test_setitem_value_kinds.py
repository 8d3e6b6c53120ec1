"""One value, one check: a scalar assigned by ``__setitem__`` gets the same validation
whatever its Python type (a Python number, a NumPy scalar, a 0-D NumPy array, a 0-D Tensor
or ``jax.Array``): out-of-range integers raise ``OverflowError``, NaN/inf into integers
``ValueError``, non-numeric kinds ``TypeError``, and a failed write changes nothing."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxtensor as jt

X64 = jax.config.read("jax_enable_x64")  # (jaxtensor turns it on unless the environment says no)

INT_TARGETS = ["int8", "uint8", "int16", "uint16", "int32", "uint32"] + (
    ["int64", "uint64"] if X64 else [])
WIDE_INT = np.int64 if X64 else np.int32
WIDE_FLOAT = np.float64 if X64 else np.float32
VALUES = [0, 7, -1, 127, 128, 255, 256, 300, -129, 2**15, 2**16, 2**31 - 1, -(2**31),
          1.5, -2.7, float("nan"), float("inf"), float("-inf")]


def _wrappers(v):
    """The value in every form a user may pass, where that form can hold it exactly."""
    dt = WIDE_FLOAT if isinstance(v, float) else WIDE_INT
    try:
        if isinstance(v, int) and not (np.iinfo(dt).min <= v <= np.iinfo(dt).max):
            return []
    except ValueError:
        return []
    return [
        ("numpy scalar", dt(v)),
        ("0-D numpy array", np.array(v, dtype=dt)),
        ("0-D Tensor", jt.asarray(np.array(v, dtype=dt))),
        ("0-D jax.Array", jnp.asarray(np.array(v, dtype=dt))),
    ]


def _outcome(target, key, value):
    t = jt.asarray(np.arange(4), dtype=getattr(jt, target))
    before = t.tolist()
    try:
        t[key] = value
    except (OverflowError, ValueError, TypeError) as e:
        assert t.tolist() == before  # a failed write changes nothing
        return type(e)
    return t.tolist()


@pytest.mark.parametrize("target", INT_TARGETS)
@pytest.mark.parametrize("key", [1, slice(1, 3)], ids=["int", "slice"])
def test_every_form_of_a_value_is_checked_like_the_python_number(target, key):
    for v in VALUES:
        want = _outcome(target, key, v)
        for form, w in _wrappers(v):
            assert _outcome(target, key, w) == want, (target, key, v, form)


def test_python_numbers_follow_numpy():
    for target, v in itertools.product(INT_TARGETS, VALUES):
        a = np.arange(4).astype(target)
        try:
            a[1] = v
            want = a.tolist()
        except (OverflowError, ValueError) as e:
            # (docs/decisions.md, Assignment casting: NaN *and* infinity into integers are a ValueError)
            want = ValueError if isinstance(v, float) and not np.isfinite(v) else type(e)
        assert _outcome(target, 1, v) == want, (target, v)


@pytest.mark.parametrize("value", [np.datetime64("2020-01-01"), np.timedelta64(3, "s"),
                                   np.str_("a"), np.array("text")])
def test_non_numeric_values_raise_type_error(value):
    t = jt.zeros(3)
    with pytest.raises(TypeError, match="only numbers and booleans"):
        t[0] = value
    assert t.tolist() == [0.0, 0.0, 0.0]


def test_safe_casts_are_not_read_back():
    # same-kind, representable values are never checked (no device read per write)
    t = jt.zeros(3, dtype=jt.int32)
    t[0] = np.int8(-5)
    t[1] = jt.asarray(np.int16(300))
    f = jt.zeros(2)
    f[0] = jt.asarray(np.float32(2.5))
    assert t.tolist() == [-5, 300, 0] and f.tolist() == [2.5, 0.0]
