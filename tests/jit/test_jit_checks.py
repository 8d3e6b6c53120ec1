"""Checks under ``jaxtensor.jit`` behave as the eager ones: assigned values and indices.

A traced single value assigned into an integer Tensor gets the eager checks (NaN/infinity:
``ValueError``, out of range: ``OverflowError``, same messages) at the call, in the folded
check output and under checkify (a check in a loop body). A failed check skips every later
write of the call, so after the error every alias reads what eager code would have left:
the failing write and everything after it changed nothing, with or without donation.
"""

from __future__ import annotations

import re

import jax
import numpy as np
import pytest
from jax import lax

import jaxtensor as jt


def _eager_error(dtype: str, value: object) -> tuple[type, str] | None:
    x = jt.zeros(3, dtype=dtype)
    try:
        x[0] = value
    except (ValueError, OverflowError) as e:
        return type(e), str(e)
    return None


def _put(x, v):
    x[0] = v


def _put_after_loop(x, v):
    lax.fori_loop(0, 2, lambda k, c: c + x[k], x[0])  # a check in a loop body: checkify mode
    x[0] = v


VALUES = [300, -1, 255, 2**40, 2.5, float("nan"), float("inf"), -float("inf"),
          np.int64(-129), np.uint64(2**64 - 1), np.float32("nan"), np.int16(1000),
          300.0, -1.5, -0.9, 255.9, np.float32(1e10), -1e15]


@pytest.mark.parametrize("body", [_put, _put_after_loop])
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "uint64"])
def test_traced_value_checked_like_eager(dtype: str, body) -> None:
    f = jt.jit(body)
    for value in VALUES:
        want = _eager_error(dtype, value)
        x = jt.asarray([1, 2, 3], dtype=dtype)
        alias = x[::2]
        if want is None:
            f(x, value)
            y = jt.asarray([1, 2, 3], dtype=dtype)
            y[0] = value
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
            continue
        with pytest.raises(want[0]) as e:
            f(x, value)
        assert str(e.value) == want[1], (dtype, value)
        assert x.tolist() == [1, 2, 3] and alias.tolist() == [1, 3]


def test_traced_value_zero_d_tensor_and_array() -> None:
    f = jt.jit(_put)
    x = jt.zeros(3, dtype=jt.uint8)
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for uint8"):
        f(x, jt.asarray(300))
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for uint8"):
        f(x, jax.numpy.asarray(300))
    with pytest.raises(ValueError, match="cannot convert float nan"):
        f(x, jt.asarray(float("nan")))
    f(x, jt.asarray(7, dtype=jt.int16))
    assert x.tolist() == [7, 0, 0]


def test_value_check_off_with_check_bounds_false() -> None:
    f = jt.jit(_put, check_bounds=False)
    x = jt.zeros(3, dtype=jt.uint8)
    f(x, 300)  # unchecked: XLA's conversion wraps
    assert x.tolist() == [44, 0, 0]


@pytest.mark.parametrize("donate", [True, False])
def test_failed_bounds_check_leaves_every_alias_unchanged(donate: bool) -> None:
    def put(t, j):
        t[j] = 100.0

    f = jt.jit(put, donate=donate)
    base = jt.arange(10.0)
    view = base[2:8]
    strided = base[::3]
    row = jt.reshape(base, (2, 5))[1]
    f(view, 1)  # compiled, in bounds
    for j in (6, -7, 10**6):
        with pytest.raises(IndexError, match="out of bounds for axis 0 with size 6"):
            f(view, j)
    want = np.arange(10.0)
    want[3] = 100.0
    np.testing.assert_array_equal(np.asarray(base), want)
    np.testing.assert_array_equal(np.asarray(view), want[2:8])
    np.testing.assert_array_equal(np.asarray(strided), want[::3])
    np.testing.assert_array_equal(np.asarray(row), want[5:])


def test_writes_after_a_failed_check_are_skipped_with_donation() -> None:
    """As eagerly: writes before the failing statement stay, the rest change nothing."""
    def steps(x, y, i):
        x[0] = 1.0
        y[i] = 2.0  # fails for i out of bounds
        x[1] = 3.0
        y[0] += 4.0
        x[2:] = 5.0

    f = jt.jit(steps)
    x, y = jt.zeros(4), jt.zeros(2)
    xv = x[1:]
    with pytest.raises(IndexError, match="index 5 is out of bounds"):
        f(x, y, 5)
    ex, ey = jt.zeros(4), jt.zeros(2)
    with pytest.raises(IndexError, match="index 5 is out of bounds"):
        steps(ex, ey, 5)
    assert x.tolist() == ex.tolist() == [1.0, 0.0, 0.0, 0.0]
    assert y.tolist() == ey.tolist() == [0.0, 0.0]
    assert xv.tolist() == [0.0, 0.0, 0.0]
    f(x, y, 1)
    assert x.tolist() == [1.0, 3.0, 5.0, 5.0] and y.tolist() == [4.0, 2.0]


def test_failed_check_skips_in_place_operator_results() -> None:
    def bump(x, i):
        x[i]  # a read out of bounds: fails
        x += 1.0  # whole-Tensor in-place result: skipped

    f = jt.jit(bump)
    x = jt.zeros(3)
    with pytest.raises(IndexError):
        f(x, 3)
    assert x.tolist() == [0.0, 0.0, 0.0]


def test_closed_over_tensor_with_queued_scalar_writes() -> None:
    """Scalar writes queued on a closed-over Tensor before a trace first reads it are applied
    eagerly (they happened before the call), not traced into a leaked value."""
    acc = jt.zeros(4)
    acc[1] = 5.0  # queued

    @jt.jit
    def bump(n):
        acc[0] += n

    bump(1.0)
    acc[2] = 3.0
    bump(1.0)
    assert acc.tolist() == [2.0, 5.0, 3.0, 0.0]
    b = jt.zeros(3)
    b[0] = 2.0
    assert float(jax.jit(lambda: b.sum().to_jax())()) == 2.0


# A check made inside a nested trace (a loop body, a branch, a nested jit) gates the writes
# that follow it, inside and after the nested trace, as a check at the top level does.
def _read_in_fori(x, i):
    return lax.fori_loop(0, 2, lambda k, c: c + x[i - k], 0.0)


def _read_in_scan(x, i):
    return lax.scan(lambda c, k: (c + x[i - k], None), 0.0, jax.numpy.arange(2))[0]


def _read_in_while(x, i):
    return lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, c[1] + x[i - c[0]]),
                          (0, 0.0))[1]


def _read_in_cond(x, i):
    return lax.cond(i > -100, lambda: x[i], lambda: x[0])


def _read_in_nested_jit(x, i):
    return jt.jit(lambda t, j: t[j] * 1.0)(x, i)


def _read_in_nested_jax_jit(x, i):
    return jax.jit(lambda j: x[j])(i)


def _value_in_loop(x, i):
    def body(k, c):
        c[0] = i * 100 + k  # into uint8: out of range when i > 2
        return c
    return lax.fori_loop(0, 2, body, jt.zeros(2, dtype=jt.uint8))[0] * 1.0


NESTED_CHECKS = [_read_in_fori, _read_in_scan, _read_in_while, _read_in_cond,
                 _read_in_nested_jit, _read_in_nested_jax_jit, _value_in_loop]


@pytest.mark.parametrize("donate", [True, False])
@pytest.mark.parametrize("nested", NESTED_CHECKS, ids=lambda f: f.__name__)
def test_check_in_nested_trace_gates_later_writes(nested, donate: bool) -> None:
    def steps(x, i):
        x[4] = -1.0                 # before the check: kept
        s = nested(x, i)            # fails for i = 7
        x[0] = s                    # scalar write
        x[1:3] = 7.0                # slice write
        x[jax.numpy.array([3])] = 8.0  # scatter
        x *= 2.0                    # whole-Tensor in-place

    # donated: the write before the check stays, as eagerly; not donated: nothing changes
    want = [0.0, 1.0, 2.0, 3.0, -1.0 if donate else 4.0]
    for fails_first in (False, True):  # (the first call of a function traces it twice)
        f = jt.jit(steps, donate=donate)
        x = jt.arange(5.0)
        alias = x[::2]
        for i in ((7, 2, 7) if fails_first else (2, 7, 2)):
            if i == 7:
                with pytest.raises((IndexError, OverflowError)):
                    f(x, i)
                assert x.tolist() == want
                assert alias.tolist() == want[::2]
            else:
                x[:] = jt.arange(5.0)
                f(x, i)
                assert x.tolist()[1:] == [14.0, 14.0, 16.0, -2.0]
                x[:] = jt.arange(5.0)


def test_check_in_loop_retraces_from_scratch() -> None:
    """The first call of a function with a check in a loop body traces it twice (the
    second time under checkify); nothing of the first trace stays in the compiled
    function: a debug callback runs once per call."""
    seen = []

    @jt.jit
    def fill(x, idx):
        jax.debug.callback(lambda: seen.append(1))
        x[0] = lax.fori_loop(0, 3, lambda k, c: c + x[idx[k]], 0.0)

    x = jt.arange(5.0)
    with pytest.raises(IndexError, match="index 9 is out of bounds"):
        fill(x, jax.numpy.array([0, 2, 9]))
    assert seen == [1]
    fill(x, jax.numpy.array([1, 2, 3]))
    assert seen == [1, 1] and x.tolist() == [6.0, 1.0, 2.0, 3.0, 4.0]


# -- gated writes over the class of basic views ---------------------------------------------
# Every write made after a traced bounds check is gated by it; the gate is applied in the
# base's region (``AxisStep.backward``) for views whose first step selects axes, and in the
# view's shape otherwise. A program of three writes through one random basic view, with a
# passing or failing check between them, must leave what eager NumPy leaves at the error.

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from indexing_strategies import indices, shapes  # noqa: E402


def _concrete_slices(key):
    """``key`` with any 0-D Tensor slice bound as a Python int: a closed-over Tensor is
    read as a traced value inside ``jaxtensor.jit``, and a traced slice bound is refused
    there (docs/transforms.md), which is not what this test is about."""
    def bound(b):
        return int(b) if isinstance(b, jt.Tensor) else b

    items = key if isinstance(key, tuple) else (key,)
    out = tuple(slice(bound(k.start), bound(k.stop), bound(k.step)) if isinstance(k, slice)
                else k for k in items)
    return out if isinstance(key, tuple) else out[0]


def _program(x, c, i, j, key, reshaped):
    v = x.reshape(-1) if reshaped else x
    c[i] = 1.0  # check 1 (traced i)
    v[key] = v[key] * 2.0 + 1.0
    c[j] = 2.0  # check 2 (traced j)
    v[key] = v[key] - 3.0


@settings(max_examples=40)
@given(shape=shapes(max_dims=3, min_dims=1), data=st.data())
def test_gated_writes_through_any_basic_view_leave_eager_state(shape, data) -> None:
    reshaped = data.draw(st.booleans(), label="reshape view")
    vshape = (int(np.prod(shape)),) if reshaped else shape
    index = data.draw(indices(vshape, basic_only=True), label="key")
    key, nkey = _concrete_slices(index.jt_index), index.np_index
    i = data.draw(st.sampled_from([0, 3, 4, -5]), label="i")
    j = data.draw(st.sampled_from([1, -4, 4, 7]), label="j")
    base = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    want_x, want_c = base.copy(), np.zeros(4, np.float32)
    want_err = None
    try:
        _program(want_x, want_c, i, j, nkey, reshaped)
    except IndexError as e:
        want_err = e
    x, c = jt.asarray(base), jt.zeros(4)
    f = jt.jit(lambda x, c, i, j: _program(x, c, i, j, key, reshaped))
    if want_err is None:
        f(x, c, jax.numpy.asarray(i), jax.numpy.asarray(j))
    else:
        with pytest.raises(IndexError):
            f(x, c, jax.numpy.asarray(i), jax.numpy.asarray(j))
    np.testing.assert_array_equal(x.numpy(), want_x)
    np.testing.assert_array_equal(c.numpy(), want_c)


def _dependent_program(x, c, i):
    c[i] = 1.0  # check 1 (traced i)
    x[0] = x[0] + 3.0  # gated by check 1
    c[x[0].astype(jt.int32) if isinstance(x, jt.Tensor) else int(x[0])] = 2.0  # reads it
    x[1] = 7.0


@pytest.mark.parametrize("x0", [-8.0, -3.0, 0.0, 1.0, 2.0])
@pytest.mark.parametrize("i", [0, 3, 4, -5])
def test_checks_that_read_gated_writes_keep_eager_state(x0: float, i: int) -> None:
    """A check whose index was written after an earlier check (the hoisted first failure
    would need the writes: the function is traced with a gate per write instead)."""
    want_x, want_c = np.asarray([x0, 0.0, 0.0], np.float32), np.zeros(4, np.float32)
    want_err = None
    try:
        _dependent_program(want_x, want_c, i)
    except IndexError as e:
        want_err = e
    x, c = jt.asarray([x0, 0.0, 0.0]), jt.zeros(4)
    f = jt.jit(_dependent_program)
    if want_err is None:
        f(x, c, jax.numpy.asarray(i))
    else:
        with pytest.raises(IndexError):
            f(x, c, jax.numpy.asarray(i))
    np.testing.assert_array_equal(x.numpy(), want_x)
    np.testing.assert_array_equal(c.numpy(), want_c)


def _checked_writes(n):
    def f(t, i):
        for k in range(n):
            t[i + k] = t[i + k] + 1.0
    return f


def test_checked_writes_compile_to_one_comparison_per_write() -> None:
    """With checks that read no write, each write is gated by one comparison with the
    first failure's number: the optimised program's comparisons grow linearly with the
    number of writes (gating by the chain of every earlier check grew them quadratically:
    32 writes cost 3.7x unchecked ones)."""
    x, i = jt.zeros(1000), jax.numpy.asarray(3)

    def compares(n):
        text = jt.jit(_checked_writes(n)).lower(x, i).compile().as_text()
        return text.count("compare(")

    small, big = compares(16), compares(32)
    assert big <= 2.4 * small, (small, big)


@pytest.mark.parametrize("calls", [1, 2])
@pytest.mark.parametrize("bad_at", [0, 1, 2])
def test_failed_check_keeps_earlier_writes_to_closed_over_tensors(calls: int,
                                                                  bad_at: int) -> None:
    """On the call that finds a closed-over Tensor (its value then held by the discovery,
    so not donated) as on later ones, a failed check leaves what eager code leaves."""
    def program(c, d, idx):
        c[0] = c[0] + 5.0
        d[idx[0]] = 1.0
        c[idx[1]] = 2.0
        d[0] = 3.0
        c[idx[2]] = 4.0

    good, bad = [1, 2, 3], [1, 2, 3]
    bad[bad_at] = 9
    want_c, want_d = np.arange(4, dtype=np.float32), np.zeros(4, np.float32)
    for _ in range(calls - 1):
        program(want_c, want_d, good)
    with pytest.raises(IndexError):
        program(want_c, want_d, bad)
    c, d = jt.asarray(np.arange(4, dtype=np.float32)), jt.zeros(4)

    @jt.jit
    def f(i0, i1, i2):
        program(c, d, [i0, i1, i2])

    for _ in range(calls - 1):
        f(*[jax.numpy.asarray(k) for k in good])
    with pytest.raises(IndexError):
        f(*[jax.numpy.asarray(k) for k in bad])
    np.testing.assert_array_equal(c.numpy(), want_c)
    np.testing.assert_array_equal(d.numpy(), want_d)


@settings(max_examples=40)
@given(shape=st.sampled_from([(5,), (4, 3), (2, 3, 2)]), data=st.data())
def test_checked_programs_of_any_write_kind_leave_eager_state(shape, data) -> None:
    """Random programs of traced-index writes (checks that pass or fail) between writes of
    every index kind (basic, integer arrays, masks; set and ``+=``): after the call every
    Tensor holds what NumPy running the same statements left, error or not. (Errors NumPy
    raises for the index itself are found while tracing, before anything runs: programs with
    such an index anywhere are left out.)"""
    prog = []
    for _ in range(data.draw(st.integers(1, 5), label="statements")):
        kind = data.draw(st.sampled_from(["check", "write", "iadd"]))
        if kind == "check":
            prog.append(("check", data.draw(st.sampled_from([0, 2, -1, 4, 6, -7]))))
        else:
            key = data.draw(indices(shape), label="key").np_index
            prog.append((kind, key, data.draw(st.sampled_from([1.5, -2.0]))))
    ks = [s[1] for s in prog if s[0] == "check"]
    for s in prog:  # (an index NumPy rejects by itself fails the trace, even after a check)
        if s[0] != "check":
            try:
                np.zeros(shape)[s[1]]
            except IndexError:
                return

    def run(x, c, ks):
        j = 0
        for s in prog:
            if s[0] == "check":
                c[ks[j]] = 1.0 + j
                j += 1
            elif s[0] == "write":
                x[s[1]] = s[2]
            else:
                x[s[1]] += s[2]

    base = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    want_x, want_c = base.copy(), np.zeros(5)
    failed = False
    try:
        run(want_x, want_c, ks)
    except IndexError as e:
        if "out of bounds" not in str(e):
            return
        failed = True
    x, c = jt.asarray(base), jt.zeros(5, dtype=jt.float64)
    f = jt.jit(lambda x, c, *ks: run(x, c, ks))
    args = [jax.numpy.asarray(k) for k in ks]
    if failed:
        with pytest.raises(IndexError):
            f(x, c, *args)
    else:
        f(x, c, *args)
    np.testing.assert_array_equal(x.numpy(), want_x)
    np.testing.assert_array_equal(c.numpy(), want_c)


# -- the passing program and the gated one ----------------------------------------------
# A call whose checks read no write runs a program with its writes ungated under
# ``cond(no check failed)``, which writes nothing when one failed; that call is then made
# again by the gated program (compiled at the first failure). Over a sequence of passing
# and failing calls every Tensor, every result and every message must be eager code's.


def _mixed_program(x, c, i, j):
    c[i] = c[i] + 1.0  # check 1
    x[1:3] = x[1:3] * 2.0
    c[j] = 2.0  # check 2
    x[0] = x[0] + c[0]
    return x[1:4], x[0] * 3.0, c * 2.0


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("export", [False, True])
@pytest.mark.parametrize("keyword", [False, True])  # (a keyword: the general call path)
def test_passing_and_failing_calls_in_any_order_match_eager(seed: int, export: bool,
                                                            keyword: bool) -> None:
    rng = np.random.default_rng(seed)
    pairs = [tuple(int(v) for v in rng.choice([0, 3, 4, -4, -5, 1], 2)) for _ in range(8)]
    want_x, want_c = np.arange(6, dtype=np.float32), np.arange(4, dtype=np.float32)
    eager_x, eager_c = jt.asarray(want_x), jt.asarray(want_c)
    x, c = jt.asarray(want_x), jt.asarray(want_c)
    jitted = jt.jit(_mixed_program)

    def f(x, c, i, j):
        return jitted(x, c, i, j=j) if keyword else jitted(x, c, i, j)

    for i, j in pairs:
        if export:  # (a value handed out is not donated: the call copies)
            x.to_jax()
        try:
            want = _mixed_program(want_x, want_c, i, j)
        except IndexError:
            with pytest.raises(IndexError) as eager_err:
                _mixed_program(eager_x, eager_c, i, j)
            with pytest.raises(IndexError) as err:
                f(x, c, jax.numpy.asarray(i), jax.numpy.asarray(j))
            assert str(err.value) == str(eager_err.value)
        else:
            _mixed_program(eager_x, eager_c, i, j)
            view, scalar, doubled = f(x, c, jax.numpy.asarray(i), jax.numpy.asarray(j))
            np.testing.assert_array_equal(view.numpy(), want[0])
            assert float(scalar) == float(want[1])
            np.testing.assert_array_equal(doubled.numpy(), want[2])
            view[0] = -1.0  # a view of x, as eagerly
            want_x[1] = -1.0
            eager_x[1] = -1.0
        np.testing.assert_array_equal(x.numpy(), want_x)
        np.testing.assert_array_equal(c.numpy(), want_c)


def test_gated_program_compiles_once_and_only_when_a_check_fails() -> None:
    from measure import count_compiles

    x = jt.zeros(100)
    f = jt.jit(_checked_writes(4))
    raised = []

    def call(k: int) -> None:
        try:
            f(x, jax.numpy.asarray(k))
        except IndexError:
            raised.append(k)

    call(3)  # the passing program (and any helper a fresh process compiles once)
    assert count_compiles(lambda: [call(k) for k in range(10, 40)]) == 0
    # the gated program (an accelerator runs it for every call: no cond there)
    assert count_compiles(lambda: call(98)) == (jax.default_backend() == "cpu")
    assert count_compiles(lambda: [call(k) for k in (97, 99, -101, 200, 0)]) == 0
    assert raised == [98, 97, 99, -101, 200]
    want = np.zeros(100, np.float32)
    for k in [3, *range(10, 40), 98, 97, 99, -101, 200, 0]:
        try:
            _checked_writes(4)(want, k)
        except IndexError:
            pass
    np.testing.assert_array_equal(x.numpy(), want)


@pytest.mark.parametrize("bad", [False, True])
def test_effects_of_a_checked_function_run_once_per_call(bad: bool) -> None:
    """A ``jax.debug.callback`` in a function with checks runs once per call (the hoisted
    checks apply the traced program twice: a function with effects is not hoisted)."""
    seen = []

    @jt.jit
    def f(x, i):
        x[i] = x[i] + 1.0
        jax.debug.callback(lambda v: seen.append(float(v)), x[0].to_jax())
        x[i + 2] = 5.0

    x = jt.zeros(4)
    i = 2 if bad else 0
    for _ in range(3):
        if bad:
            with pytest.raises(IndexError):
                f(x, jax.numpy.asarray(i))
        else:
            f(x, jax.numpy.asarray(i))
        jax.effects_barrier()
    want = np.zeros(4, np.float32)
    eager_seen = []
    for _ in range(3):
        want[i] += 1.0
        eager_seen.append(float(want[0]))
        if not bad:
            want[i + 2] = 5.0
    assert seen == eager_seen
    np.testing.assert_array_equal(x.numpy(), want)


@settings(max_examples=30)
@given(data=st.data())
def test_checked_calls_return_what_eager_code_returns(data) -> None:
    """Random results (a view of an argument, a new Tensor, a number, a closed-over Tensor
    or a view of it) of a function whose checks pass or fail, over a sequence of calls:
    the results, the error and every Tensor as eager jaxtensor has them."""
    kinds = data.draw(st.lists(st.sampled_from(["view", "new", "number", "closed",
                                                "closed_view"]), max_size=4), label="results")
    ks = data.draw(st.lists(st.sampled_from([0, 2, 3, -4, 5, -6]), min_size=1, max_size=4),
                   label="calls")

    def make():
        x, c = jt.asarray(np.arange(6, dtype=np.float32)), jt.asarray(np.ones(4, np.float32))

        def program(x, k):
            c[k] = c[k] + 2.0  # a check on a closed-over Tensor
            x[1:3] = x[1:3] + c[0]
            out = []
            for kind in kinds:
                if kind == "view":
                    out.append(x[::2])
                elif kind == "new":
                    out.append(x * 2.0)
                elif kind == "number":
                    out.append(x.sum())
                elif kind == "closed":
                    out.append(c)
                else:
                    out.append(c[1:])
            return tuple(out)
        return x, c, program

    ex, ec, eager = make()
    jx, jc, traced = make()
    f = jt.jit(traced)
    for k in ks:
        try:
            want = eager(ex, k)
        except IndexError as e:
            with pytest.raises(IndexError, match=re.escape(str(e))):
                f(jx, jax.numpy.asarray(k))
        else:
            got = f(jx, jax.numpy.asarray(k))
            assert len(got) == len(want)
            for g, w in zip(got, want):
                np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
                assert isinstance(g, jt.Tensor) == isinstance(w, jt.Tensor)
            for g, w in zip(got, want):  # views write through, as eagerly
                if isinstance(w, jt.Tensor) and w.base is not None:
                    g[0] = -7.0
                    w[0] = -7.0
        np.testing.assert_array_equal(jx.numpy(), ex.numpy())
        np.testing.assert_array_equal(jc.numpy(), ec.numpy())
