"""Advanced writes under ``jaxtensor.jit`` and without waste, against NumPy.

- Any key passed into a ``jaxtensor.jit`` function (traced integer arrays and masks, Python
  bools and bool lists, which stay static as they index eagerly) writes what NumPy writes;
  a traced mask is lowered to ``where`` when the value does not depend on the number of True
  values, and otherwise raises ``NonConcreteBooleanIndexError`` — never a silent write of
  the wrong shape.
- Duplicate positions: the last value in C order wins, whether the winners are chosen on
  the host (indices known there) or on the device (traced indices).
- A mask write with such a value never moves the mask to the host (JAX's transfer guard
  would raise).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import assume, given, note
from hypothesis import strategies as st

import jaxtensor as jt
from indexing_strategies import X_DTYPES, example_array, indices, shapes
from test_setitem import _single_value_error, np_view_index, values


def _items(key: Any) -> tuple:
    return key if isinstance(key, tuple) else (key,)


def _static_slices(key: Any) -> Any:
    """The key with slice bounds as Python ints (a slice argument is static under jit: its
    bounds must be hashable Python values, as with jax.jit)."""
    def fix(k: Any) -> Any:
        if isinstance(k, slice):
            return slice(*(None if b is None else int(b) for b in (k.start, k.stop, k.step)))
        return k
    return tuple(fix(k) for k in key) if isinstance(key, tuple) else fix(key)


def _is_mask(k: Any) -> bool:
    if isinstance(k, (bool, np.bool_)):
        return False
    if isinstance(k, list):
        return bool(k) and isinstance(np.asarray(k).dtype, np.dtype) and np.asarray(k).dtype == bool
    dt = getattr(k, "dtype", None)
    return dt is not None and np.dtype(dt) == np.bool_


def _where_lowerable(np_key: Any, jt_key: Any, x_shape: tuple[int, ...], v_np: Any) -> bool:
    """Whether a key with a traced mask can be written as ``where`` (see
    ``_indexing/_masks.py``): one mask (no other array or bool), non-empty, and a value whose
    axis along the selected elements has size 1 (or is absent)."""
    items = _items(np_key)
    masks = [k for k in items if _is_mask(k)]
    others = [k for k in items if not _is_mask(k) and (
        isinstance(k, (bool, np.bool_, list, np.ndarray)) or hasattr(k, "shape") and
        not isinstance(k, (int, np.integer)) and np.ndim(k) > 0)]
    if len(masks) != 1 or others or 0 in np.shape(masks[0]):
        return False
    # the count axis: select with a mask of one True value and compare shapes
    m = np.asarray(masks[0])
    one = np.zeros_like(m)
    one[(0,) * m.ndim] = True
    probe_key = tuple(one if k is masks[0] else k for k in items)
    try:
        sel = np.zeros(x_shape)[probe_key].shape
    except IndexError:
        return False
    two = one.copy()
    two.ravel()[-1] = True
    if two.sum() < 2:
        return np.ndim(v_np) == 0
    sel2 = np.zeros(x_shape)[tuple(two if k is masks[0] else k for k in items)].shape
    p = next(i for i, (a, b) in enumerate(zip(sel, sel2)) if a != b)
    vs = list(np.shape(v_np))
    while len(vs) > len(sel) and vs[0] == 1:
        vs.pop(0)
    at = p - (len(sel) - len(vs))
    return at < 0 or vs[at] == 1


def _subnormal(v: object, dtype: np.dtype) -> bool:
    """Whether ``v`` cast to ``dtype`` holds a subnormal number."""
    if dtype.kind not in "fc":
        return False
    with np.errstate(all="ignore"):
        a = np.asarray(v).astype(dtype)
    parts = [a.real, a.imag] if dtype.kind == "c" else [a]
    tiny = np.finfo(dtype).tiny
    return any(bool(np.any((p != 0) & (np.abs(p) < tiny))) for p in parts)


@given(data=st.data(), shape=shapes(min_dims=1), dtype=st.sampled_from(X_DTYPES))
def test_setitem_under_jit_matches_numpy(data: st.DataObject, shape: tuple[int, ...],
                                         dtype: np.dtype) -> None:
    index = data.draw(indices(shape), label="index")
    base_np = example_array(shape, dtype)
    try:
        target = base_np[index.np_index]
    except (IndexError, ValueError, TypeError):
        assume(False)
    v_jt, v_np = data.draw(values(np.shape(target), base_np.dtype), label="value")
    assume(_single_value_error(v_np, base_np.dtype) is None)
    assume(not _subnormal(v_np, base_np.dtype))  # (XLA:CPU flushes them, as jax.numpy does)
    want = base_np.copy()
    with np.errstate(all="ignore"):
        want[np_view_index(index.np_index)] = v_np
    x = jt.asarray(base_np)
    f = jt.jit(lambda t, k, v: t.__setitem__(k, v))
    try:
        f(x, _static_slices(index.jt_index), v_jt)
    except jt.NonConcreteBooleanIndexError as e:
        note(str(e))
        # (only a mask that is traced: a NumPy/JAX array or Tensor, not a list of bools)
        assert any(_is_mask(k) and not isinstance(k, list) for k in _items(index.jt_index))
        assert not _where_lowerable(index.np_index, index.jt_index, shape, v_np)
        np.testing.assert_array_equal(np.asarray(x), base_np)  # nothing written
        return
    np.testing.assert_array_equal(np.asarray(x), want)


@given(data=st.data(), shape=shapes(min_dims=1, max_dims=3))
def test_bools_and_bool_lists_as_jit_arguments_index_as_eagerly(
        data: st.DataObject, shape: tuple[int, ...]) -> None:
    """A Python bool, a NumPy bool scalar and a list of bools passed into a jitted function
    are static, as they index eagerly (a new axis; a mask known while tracing)."""
    n = shape[0]
    mask = data.draw(st.lists(st.booleans(), min_size=n, max_size=n), label="mask")
    b = data.draw(st.sampled_from([True, False, np.True_, np.False_]), label="bool")
    a = example_array(shape, np.dtype("float64"))
    x = jt.asarray(a)
    for key in (mask, b, (b, mask), (mask, Ellipsis, b)):
        try:
            want = a[key]
        except IndexError:  # (a False beside a mask: arrays of sizes 0 and N)
            with pytest.raises(IndexError):
                jt.jit(lambda t, k: t[k])(x, key)
            continue
        np.testing.assert_array_equal(np.asarray(jt.jit(lambda t, k: t[k])(x, key)), want)
    y = jt.asarray(a)
    want = a.copy()
    want[mask] = -1.0
    want[b] = 7.0
    jt.jit(lambda t, m, k: (t.__setitem__(m, -1.0), t.__setitem__(k, 7.0)))(y, mask, b)
    np.testing.assert_array_equal(np.asarray(y), want)


@pytest.mark.parametrize("n,k", [(50, 400), (1000, 3000), (7, 100)])
@pytest.mark.parametrize("where", ["host", "traced", "tensor"])
def test_duplicates_last_wins_wherever_decided(n: int, k: int, where: str) -> None:
    rng = np.random.default_rng(n + k)
    idx = rng.integers(-n, n, k)
    vals = rng.permutation(k).astype(np.float32)
    want = np.zeros(n, np.float32)
    want[idx] = vals
    x = jt.zeros(n)
    if where == "host":
        x[idx] = vals
    elif where == "tensor":
        x[jt.asarray(idx)] = jt.asarray(vals)
    else:
        jt.jit(lambda t, i, v: t.__setitem__(i, v))(x, jnp.asarray(idx), jnp.asarray(vals))
    np.testing.assert_array_equal(np.asarray(x), want)


@pytest.mark.parametrize("shape,key_of,value", [
    ((1000,), lambda m: m, 0.0),
    ((40, 25), lambda m: m, 3.0),
    ((40, 25), lambda m: (m[:, 0], slice(2, 9)), 1.5),
    ((40, 25), lambda m: (3, m[0]), 2.0),
    ((40, 25), lambda m: (m[:, 0], slice(None), None), jnp.arange(25.0)[:, None]),
    ((6, 5, 4), lambda m: (1, m[0, :, 0], 2), -1.0),
    ((6, 5, 4), lambda m: (m[:, :, 0], 2), jnp.ones(1)),
])
def test_mask_write_never_moves_the_mask_to_the_host(shape, key_of, value) -> None:
    a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    m_np = (a.astype(np.int64) * 7919 % 13) < 6
    x = jt.asarray(a)
    mask = jt.asarray(m_np)
    key_np = key_of(m_np)
    key_jt = key_of(mask)
    want = a.copy()
    want[key_np] = np.asarray(value)
    v = jt.asarray(value) if isinstance(value, jax.Array) else value
    with jax.transfer_guard_device_to_host("disallow"):
        x[key_jt] = v
    np.testing.assert_array_equal(np.asarray(x), want)


def test_selection_shaped_value_needs_the_count() -> None:
    """With a concrete mask a value shaped like the selection is written (the count is
    read); inside jit it raises, naming why; a value shaped like the whole Tensor is
    NumPy's error eagerly and under jit (it was once silently written under jit)."""
    a = np.arange(12.0).reshape(3, 4)
    m = a > 4
    x = jt.asarray(a)
    x[jt.asarray(m)] = jt.arange(7.0)
    want = a.copy()
    want[m] = np.arange(7.0)
    np.testing.assert_array_equal(np.asarray(x), want)
    f = jt.jit(lambda t, mm, v: t.__setitem__(mm, v))
    with pytest.raises(jt.NonConcreteBooleanIndexError, match="number of True values"):
        f(x, jt.asarray(m), jt.arange(7.0))
    with pytest.raises(ValueError):
        x[jt.asarray(m)] = jt.zeros((3, 4))
    with pytest.raises(ValueError):
        f(x, jt.asarray(m), jt.zeros((3, 4)))
    np.testing.assert_array_equal(np.asarray(x), want)


@given(data=st.data())
def test_index_tensors_written_through_again_and_changed_between(data: st.DataObject) -> None:
    """What the host learned of an index Tensor (its bounds, whether its positions are
    unique) serves later writes through the same Tensor; a write into the index Tensor, or
    another Tensor reusing its memory, is seen. NumPy running the same steps is the oracle."""
    n = 12
    pool_np = [np.array(data.draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=8),
                                  label=f"index {j}")) for j in range(3)]
    pool = [jt.asarray(a) for a in pool_np]
    x, want = jt.zeros(n), np.zeros(n, np.float32)
    for step in range(8):
        j = data.draw(st.integers(0, 2), label="which")
        if data.draw(st.booleans(), label="rewrite the index"):
            k = data.draw(st.integers(0, len(pool_np[j]) - 1), label="at")
            v = data.draw(st.integers(-n, n - 1), label="to")
            pool[j][k] = v
            pool_np[j][k] = v
        vals = np.arange(len(pool_np[j]), dtype=np.float32) + 10.0 * step
        x[pool[j]] = jt.asarray(vals)
        want[pool_np[j]] = vals
        np.testing.assert_array_equal(np.asarray(x), want)
    with pytest.raises(IndexError):
        x[jt.asarray([0, n])] = 1.0  # bounds from a new array, not an earlier one's
    np.testing.assert_array_equal(np.asarray(x), want)
