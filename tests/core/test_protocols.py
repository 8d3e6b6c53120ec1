"""Python protocols on Tensors, against NumPy as the oracle: pickle, copy, deepcopy (a
view pickles/copies as its values), ``in``, ``format`` of 0-D Tensors, ``iter``."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import jaxtensor as jt

DTYPES = ["float32", "int32", "uint8", "bool", "complex64", "int16"]


def _cases():
    for dt in DTYPES:
        a = (np.arange(24) % 5).astype(dt).reshape(2, 3, 4)
        yield dt, a, (slice(None),)            # the base
        yield dt, a, (1, slice(None, None, 2))  # a strided view
        yield dt, a, (0, 1, 2)                 # an element's value
        yield dt, a, (0, 1, 2, Ellipsis)       # a 0-D view
        yield dt, a, (Ellipsis, 1)             # a view of the last axis


@pytest.mark.parametrize("how", ["pickle", "copy", "deepcopy"])
def test_copies_hold_the_values_and_own_their_storage(how):
    do = {"pickle": lambda t: pickle.loads(pickle.dumps(t)), "copy": copy.copy,
          "deepcopy": copy.deepcopy}[how]
    for _dt, a, key in _cases():
        base = jt.asarray(a)
        t = base[key]
        r = do(t)
        want = a[key]
        assert isinstance(r, jt.Tensor) and r.shape == want.shape and r.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(r), want)
        assert not jt.shares_memory(r, base) and r.base is None
        if r.ndim:  # independent: a write into the copy leaves the original as it was
            r[...] = 0
            np.testing.assert_array_equal(np.asarray(base), a)


def test_deepcopy_of_a_container_keeps_aliases_apart():
    x = jt.arange(4.0)
    d = copy.deepcopy({"x": x, "v": x[1:]})
    d["x"][0] = 9.0
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]


@pytest.mark.parametrize("dt", DTYPES)
def test_in_for_any_rank(dt):
    for a in [(np.arange(6) % 4).astype(dt), (np.arange(6) % 4).astype(dt).reshape(2, 3),
              np.array(2).astype(dt), np.zeros((0, 3), dt)]:
        t = jt.asarray(a)
        for v in [0, 1, 2, 3, 7, True, 2.5, -1]:
            if dt == "uint8" and v == -1:
                continue
            assert (v in t) == (v in a), (dt, a, v)


@pytest.mark.parametrize("spec", ["", ".4f", "e", ".2e", "10.3f", "<8", ">8", "g", "+.1f",
                                  "%", ".0%"])
def test_format_of_a_zero_d_tensor_is_that_of_its_number(spec):
    """As a NumPy scalar's: the Python number's format, the empty spec too (``f"{x[0]}"``
    of float32 ``1e-3`` is ``0.0010000000474974513``, as NumPy's)."""
    for v, dt in [(2.5, np.float32), (-0.125, np.float64), (3, np.int32), (1e-3, np.float32),
                  (True, np.bool_), (1.5 - 2j, np.complex64)]:
        if spec and (dt is np.complex64 and "%" in spec):
            continue
        assert format(jt.asarray(dt(v)), spec) == format(dt(v), spec), (v, spec)


def test_format_of_a_tensor_with_elements_takes_only_the_empty_spec():
    t = jt.arange(3.0)
    assert format(t, "") == str(t) and f"{t}" == str(t)
    with pytest.raises(TypeError, match="unsupported format string"):
        format(t, ".2f")


def test_iter_of_a_zero_d_tensor_raises_at_once():
    s = jt.asarray(1.0)
    with pytest.raises(TypeError, match="0-D"):
        iter(s)
    assert not np.iterable(s) and np.iterable(jt.ones(2))
    rows = list(jt.reshape(jt.arange(6.0), (2, 3)))
    assert [r.tolist() for r in rows] == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
