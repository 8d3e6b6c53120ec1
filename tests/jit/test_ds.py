"""``jaxtensor.ds(start, size)``: a window of static size whose start may be traced, in any
index position, for reads and writes, eagerly and inside ``jaxtensor.jit``; NumPy's
``x[start:start + size]`` is the oracle."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxtensor as jt

SHAPE = (5, 6)


@st.composite
def window_keys(draw):
    """A key of ints, slices and one ds() window (in range) on SHAPE; its NumPy twin."""
    axis = draw(st.integers(0, 1))
    n = SHAPE[axis]
    size = draw(st.integers(0, n))
    start = draw(st.integers(0, n - size))
    other = draw(st.one_of(st.integers(-SHAPE[1 - axis], SHAPE[1 - axis] - 1),
                           st.just(slice(None)), st.just(slice(1, None, 2))))
    key = [other, other]
    key[axis] = "w"
    jkey = tuple(jt.ds(start, size) if k == "w" else k for k in key)
    nkey = tuple(slice(start, start + size) if k == "w" else k for k in key)
    return jkey, nkey, (axis, start, size)


def _base():
    return np.arange(30, dtype=np.float32).reshape(SHAPE)


@settings(deadline=None)
@given(window_keys())
def test_read_and_write_match_numpy(keys):
    jkey, nkey, _ = keys
    a = _base()
    x = jt.asarray(a)
    np.testing.assert_array_equal(np.asarray(x[jkey]), a[nkey])
    x[jkey] += 7
    a[nkey] += 7
    np.testing.assert_array_equal(np.asarray(x), a)


@settings(deadline=None, max_examples=20)
@given(window_keys())
def test_traced_start_in_jit_matches_numpy(keys):
    jkey, nkey, (axis, start, size) = keys
    a = _base()
    x = jt.asarray(a)

    @jt.jit
    def f(x, i):
        key = tuple(jt.ds(i, size) if type(k) is jt.ds else k for k in jkey)
        x[key] = x[key] * 2 + 1
        return x[key]

    got = f(x, start)
    a[nkey] = a[nkey] * 2 + 1
    np.testing.assert_array_equal(np.asarray(got), a[nkey])
    np.testing.assert_array_equal(np.asarray(x), a)


def test_window_of_a_view_writes_the_base():
    a = _base()
    x = jt.asarray(a)
    v = x.T[1:]
    v[jt.ds(2, 2), jt.ds(1, 3)] = -1.0
    a.T[1:][2:4, 1:4] = -1.0
    np.testing.assert_array_equal(np.asarray(x), a)


@pytest.mark.parametrize("start", [-1, 5, 100])
def test_out_of_range_raises_eagerly_and_changes_nothing(start):
    x = jt.asarray(_base())
    with pytest.raises(IndexError, match=r"ds\(.*out of bounds for axis 1 with size 6"):
        x[:, jt.ds(start, 2)] = 0.0
    with pytest.raises(IndexError, match="out of bounds"):
        x[0, jt.ds(start, 2)]
    np.testing.assert_array_equal(np.asarray(x), _base())


@pytest.mark.parametrize("start", [-1, 5, 100])
def test_out_of_range_traced_raises_at_the_call(start):
    x = jt.asarray(_base())

    @jt.jit
    def f(x, i):
        x[0] = 9.0
        x[:, jt.ds(i, 2)] = 0.0
        x[1] = 9.0

    with pytest.raises(IndexError, match=rf"ds\({start}, 2\) is out of bounds for axis 1"):
        f(x, start)
    a = _base()
    a[0] = 9.0  # the write before the failing one is kept, as eagerly
    np.testing.assert_array_equal(np.asarray(x), a)


def test_bad_arguments():
    with pytest.raises(TypeError, match="size must be a Python int"):
        jt.ds(0, 2.0)
    with pytest.raises(TypeError, match="start must be an integer"):
        jt.ds(0.5, 2)
    with pytest.raises(ValueError, match="non-negative"):
        jt.ds(0, -1)
    x = jt.zeros(4)
    with pytest.raises(IndexError, match="does not fit axis 0"):
        x[jt.ds(0, 5)]
    with pytest.raises(IndexError, match="cannot be combined"):
        jt.zeros((3, 4))[jt.ds(0, 2), [0, 1]]


@pytest.mark.parametrize("how", ["eager", "jit"])
def test_a_window_wider_than_its_axis_raises_only_where_it_runs(how):
    """``x[jt.ds(i, 3)]`` on an axis of 2 in a loop of zero iterations or a branch not taken
    raises nothing, as the Python loop (it raised at the trace); where it runs it raises
    the eager ``IndexError`` and leaves the Tensors as they were."""
    def window_sums(x):
        out = jt.zeros(x.shape[0] - 2)

        def body(i):
            out[i] = x[jt.ds(i, 3)].sum()
        jt.fori_loop(0, x.shape[0] - 2, body)
        return out

    run = window_sums if how == "eager" else jt.jit(window_sums)
    for n in (2, 3, 6):
        a = np.arange(float(n))
        want = [a[i:i + 3].sum() for i in range(n - 2)]
        assert np.asarray(run(jt.asarray(a))).tolist() == want
    x = jt.asarray([1.0, 2.0, 3.0, 4.0, 5.0])

    def untaken(i):
        jt.cond(i > 100, lambda: x.__setitem__(jt.ds(0, 10), 0.0), lambda: None)

    def taken(i):
        x[jt.ds(i, 10)] = 0.0

    loop = jt.fori_loop if how == "eager" else (lambda a, b, f: jt.jit(
        lambda: jt.fori_loop(a, b, f))())
    loop(0, 3, untaken)
    with pytest.raises(IndexError, match="window of size 10 does not fit axis 0 with size 5"):
        loop(0, 1, taken)
    assert x.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    with pytest.raises(IndexError, match="window of size 10 does not fit axis 0 with size 5"):
        x[jt.ds(0, 10)]
