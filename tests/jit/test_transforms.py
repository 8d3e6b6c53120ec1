"""jaxtensor.jit: in-place semantics, aliasing, write-back, compile counts, bounds checks.

The corpus below is written once against a namespace ``xp`` and run three ways: NumPy on
copies (the oracle), eagerly on Tensors, and under ``jaxtensor.jit``. Results and every
argument afterwards must agree.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jax import lax

import jaxtensor as jt


# -- the corpus of mutating functions -------------------------------------------------------
def scalar_loop(xp, x):
    for i in range(x.shape[0]):
        x[i] = i * 2.0 + x[i - 1]


def dynamic_index(xp, x, i, v):
    x[i] = v
    x[i - 1] += 1.0
    return x[i]


def view_chain(xp, x):
    v = x[1:, ::2]
    w = v[1:]
    w[0] = 5.0
    w[:, 0] += 1.0
    u = w[::-1]
    u[0, -1] = -3.0
    return v


def inplace_ops(xp, x):
    x += 1.0
    x *= 2.0
    x[1:] -= x[:-1]
    x[::2] /= 4.0
    return x


def aliasing_args(xp, a, b):
    b[0] = 10.0
    a[2] += b[1]
    b[2:] *= a[0]


def transpose_writes(xp, x):
    x.T[0] = 1.0
    t = xp.permute_dims(x, (1, 0))
    t[1, 1:] = 7.0
    f = xp.flip(x, axis=0)
    f[0, 0] = -1.0


def reshape_view(xp, x):
    y = xp.reshape(x, (2, 6))
    y[1] = 3.0
    y[0, ::3] += 2.0
    return y


def advanced_writes(xp, x):
    x[[0, 2]] = 5.0
    x[[1, 1, 3]] = xp.asarray([1.0, 2.0, 3.0])  # duplicates: the last wins
    x[[True, False, True, False, False]] += 1.0
    return x[[4, 0]]


def masked_write(xp, x):
    x[x > 0.5] = 0.0
    x[x < 0.1] = -1.0  # (x[m] += v reads x[m]: a data-dependent shape under jit)


def nested_views_of_arg(xp, x, y):
    r = y[1]
    r[:] = x[0] + r
    y[0, 0] = r[2]


def index_put_and_scatter(xp, x):
    rows, cols = [0, 2, 0], [1, 1, 1]
    if xp is np:
        np.add.at(x, (rows, cols), [1.0, 2.0, 3.0])
        np.put_along_axis(x, np.array([[0], [1], [3]]), np.array([[5.0], [6.0], [7.0]]), 1)
        np.add.at(x, [2, 2], np.ones((2, 4)))
    else:
        x.index_put_((xp.asarray(rows), xp.asarray(cols)), xp.asarray([1.0, 2.0, 3.0]),
                     accumulate=True)
        x.scatter_(1, xp.asarray([[0], [1], [3]]), xp.asarray([[5.0], [6.0], [7.0]]))
        x.index_add_(0, xp.asarray([2, 2]), xp.ones((2, 4)))
    return x[1:]


CORPUS = [
    (scalar_loop, lambda: [np.arange(6.0)], ()),
    (dynamic_index, lambda: [np.zeros(5)], (3, 2.5)),
    (view_chain, lambda: [np.arange(20.0).reshape(4, 5)], ()),
    (inplace_ops, lambda: [np.arange(1.0, 7.0)], ()),
    (transpose_writes, lambda: [np.arange(12.0).reshape(3, 4)], ()),
    (reshape_view, lambda: [np.arange(12.0).reshape(3, 4)], ()),
    (advanced_writes, lambda: [np.arange(5.0)], ()),
    (masked_write, lambda: [np.linspace(0.0, 1.0, 7)], ()),
    (nested_views_of_arg, lambda: [np.ones((2, 3)), np.arange(9.0).reshape(3, 3)], ()),
    (index_put_and_scatter, lambda: [np.zeros((3, 4))], ()),
]


def _np_like(x):
    return np.asarray(x)


def _check_corpus(fn, make, extra, run):
    t_args = [jt.asarray(a.copy()) for a in make()]
    # the oracle computes in the Tensors' dtypes (float32 when 64-bit mode is off)
    np_args = [a.astype(t.dtype) for a, t in zip(make(), t_args)]
    ref_out = fn(np, *np_args, *extra)
    out = run(fn, t_args, extra)
    for got, want in zip(t_args, np_args):
        np.testing.assert_array_equal(np.asarray(got), want)
    if ref_out is not None:
        np.testing.assert_array_equal(np.asarray(out), np.asarray(ref_out))
    return out, t_args


def _eager(fn, args, extra):
    return fn(jt, *args, *extra)


def _jitted(fn, args, extra):
    return jt.jit(functools.partial(fn, jt))(*args, *extra)


@pytest.mark.parametrize("fn,make,extra", CORPUS, ids=[c[0].__name__ for c in CORPUS])
@pytest.mark.parametrize("run", [_eager, _jitted], ids=["eager", "jit"])
def test_corpus_matches_numpy(fn, make, extra, run):
    _check_corpus(fn, make, extra, run)


def test_aliasing_arguments_survive():
    a_np = np.arange(6.0)
    aliasing_args(np, a_np, a_np[1:])
    a = jt.asarray(np.arange(6.0))
    jt.jit(functools.partial(aliasing_args, jt))(a, a[1:])
    np.testing.assert_array_equal(np.asarray(a), a_np)


def test_view_arguments_are_written_back_through_their_base():
    base_np = np.arange(20.0).reshape(4, 5)
    view_chain(np, base_np[::-1].T)
    base = jt.asarray(np.arange(20.0).reshape(4, 5))
    v = base[::-1].T
    jt.jit(functools.partial(view_chain, jt))(v)
    np.testing.assert_array_equal(np.asarray(base), base_np)
    np.testing.assert_array_equal(np.asarray(v), base_np[::-1].T)


def test_result_aliasing_an_argument_is_a_view_of_it():
    a = jt.asarray(np.arange(5.0))
    f = jt.jit(lambda x: x[1::2])
    v = f(a)
    assert v.base is a and jt.shares_memory(v, a)
    v[0] = 100.0
    assert np.asarray(a).tolist() == [0.0, 100.0, 2.0, 3.0, 4.0]
    same = jt.jit(lambda x: x)(a)
    assert same is a


def test_results_sharing_a_new_storage_stay_aliased():
    @jt.jit
    def f(x):
        y = x * 2.0
        return y, y[1:]

    y, tail = f(jt.arange(4.0))
    assert jt.shares_memory(y, tail)
    tail[0] = -1.0
    assert np.asarray(y).tolist() == [0.0, -1.0, 4.0, 6.0]


def test_same_tensor_passed_twice_is_one_object_inside():
    seen = []

    @jt.jit
    def f(a, b):
        seen.append(a is b)
        a[0] = 1.0
        b[1] = 2.0

    x = jt.zeros(3)
    f(x, x)
    assert seen == [True]
    assert np.asarray(x).tolist() == [1.0, 2.0, 0.0]


# -- compile counts -------------------------------------------------------------------------
def test_loop_over_100_index_values_compiles_once():
    traces = []

    @jt.jit
    def put(x, i, v):
        traces.append(1)
        x[i] = v
        x[i // 2] += 1.0

    x = jt.zeros(100)
    ref = np.zeros(100)
    for i in range(100):
        put(x, i, float(i))
        ref[i] = i
        ref[i // 2] += 1.0
    np.testing.assert_array_equal(np.asarray(x), ref)
    assert len(traces) == 1


def test_view_offsets_are_dynamic():
    traces = []

    @jt.jit
    def set_first(v):
        traces.append(1)
        v[0] = -1.0

    base = jt.zeros(20)
    for i in range(18):
        set_first(base[i:i + 2])
    assert len(traces) == 1
    assert np.asarray(base).tolist() == [-1.0] * 18 + [0.0, 0.0]
    # a new view structure (stride) or shape does compile again
    set_first(base[::2])
    set_first(jt.zeros(3))
    assert len(traces) == 3


def test_recompiles_on_shape_and_dtype():
    traces = []

    @jt.jit
    def f(x):
        traces.append(1)
        x[0] = 1

    f(jt.zeros(3))
    f(jt.zeros(3))
    f(jt.zeros(4))
    f(jt.zeros(4, dtype=jt.int32))
    assert len(traces) == 3


# -- donation --------------------------------------------------------------------------------
def test_exported_buffers_are_kept():
    f = jt.jit(lambda x: x.__setitem__(0, x[0] + 1.0))
    x = jt.zeros(4)
    f(x)
    f(x)
    held = x.to_jax()  # exported: must stay valid
    f(x)
    assert not held.is_deleted()
    assert np.asarray(held).tolist() == [2.0, 0.0, 0.0, 0.0]
    assert x.tolist() == [3.0, 0.0, 0.0, 0.0]


def test_unwritten_arguments_are_untouched():
    f = jt.jit(lambda x, y: y * 2.0)
    x, y = jt.zeros(2), jt.ones(2)
    out = f(x, y)
    assert np.asarray(out).tolist() == [2.0, 2.0]
    assert np.asarray(y).tolist() == [1.0, 1.0] and np.asarray(x).tolist() == [0.0, 0.0]


# -- implicit state: closed-over Tensors -------------------------------------------------------
def test_closed_over_tensor_mutation_is_written_back():
    state = jt.zeros(3)
    view = state[1:]
    traces = []

    @jt.jit
    def step(v):
        traces.append(1)
        state[0] += v
        view[1] = state[0] * 2.0
        return state[0]

    r1 = step(1.0)
    assert float(r1) == 1.0
    r2 = step(2.0)
    assert float(r2) == 3.0
    assert float(r1) == 1.0  # state[0] is the element's value, as in eager mode
    assert state.tolist() == [3.0, 0.0, 6.0]  # (tolist does not export the buffer)
    assert view.tolist() == [0.0, 6.0]
    n = len(traces)  # one trace found the state, one more compiled with it as input
    for k in range(5):
        step(float(k))
    assert len(traces) == n


def test_closed_over_tensor_with_queued_writes_found_by_a_trace():
    # the trace that finds the Tensor applies its queued scalar writes eagerly (they were
    # compiled into the trace and installed as a tracer: TracerLeakError)
    acc = jt.zeros(4, dtype=jt.int32)

    @jt.jit
    def bump(n):
        acc[0] += n

    acc[1] = 5
    bump(1)
    acc[2] = 7
    bump(2)
    assert acc.tolist() == [3, 5, 7, 0]


def test_closed_over_tensor_under_plain_jax_jit_raises():
    state = jt.zeros(3)

    @jax.jit
    def f(v):
        state[0] = v
        return v

    with pytest.raises(jt.TracerLeakError, match="jaxtensor.jit"):
        f(1.0)
    assert np.asarray(state).tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(jt.TracerLeakError):
        jax.grad(lambda v: state.__setitem__(0, v) or v)(1.0)


@pytest.mark.parametrize("write", ["set", "iadd", "view"])
def test_closed_over_tensor_written_at_a_traced_index_under_plain_jax_jit_raises(write):
    """The write's offsets are traced (one scalar each) though the value written is not:
    it fails as a traced value does, and the Tensor is left as it was (not mid-write)."""
    state = jt.zeros((3, 4))

    @jax.jit
    def f(i):
        if write == "set":
            state[i, 1] = 7.0
        elif write == "iadd":
            state[i, 1] += 7.0
        else:
            state[i][1:3] = 7.0
        return i

    with pytest.raises(jt.TracerLeakError):
        f(1)
    assert np.asarray(state).tolist() == [[0.0] * 4] * 3


def test_write_to_closed_over_tensor_in_a_loop_body_raises():
    state = jt.zeros(3)

    @jt.jit
    def f(n):
        def body(i, c):
            state[i] = 1.0
            return c

        return lax.fori_loop(0, n, body, 0)

    with pytest.raises(jt.TracerLeakError):
        f(2)
    assert np.asarray(state).tolist() == [0.0, 0.0, 0.0]


# -- bounds checks ---------------------------------------------------------------------------
def _eager_error(fn, *args):
    with pytest.raises(IndexError) as e:
        fn(*args)
    return str(e.value)


def test_out_of_bounds_index_raises_like_eager():
    def put(x, i):
        x[i] = 1.0

    msg = _eager_error(put, jt.zeros(4), 7)
    assert msg == "index 7 is out of bounds for axis 0 with size 4"
    f = jt.jit(put)
    x = jt.zeros(4)
    f(x, 3)
    with pytest.raises(IndexError) as e:
        f(x, 7)
    assert str(e.value) == msg
    with pytest.raises(IndexError, match="index -5 is out of bounds for axis 0 with size 4"):
        f(x, -5)
    f(x, -4)  # in bounds


def test_out_of_bounds_advanced_and_loop_indices():
    @jt.jit
    def gather(x, idx):
        return x[:, idx]

    x = jt.zeros((2, 3))
    assert gather(x, jnp.array([0, 2])).shape == (2, 2)
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 1 with size 3"):
        gather(x, jnp.array([0, 5, 1]))

    @jt.jit
    def fill(x, n):
        def body(i, x):
            x[i] = 1.0
            return x

        x[...] = lax.fori_loop(0, n, body, x)

    y = jt.zeros(3)
    fill(y, 3)
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
        fill(y, 4)


def test_check_bounds_false_removes_the_check():
    def put(x, i):
        x[i] = 1.0

    f = jt.jit(put, check_bounds=False)
    x = jt.zeros(4)
    f(x, 9)  # clamps like JAX
    assert np.asarray(x).tolist() == [0.0, 0.0, 0.0, 1.0]


def test_failed_check_without_donation_changes_nothing():
    def put(x, i):
        x[0] = 5.0
        x[i] = 1.0

    f = jt.jit(put, donate=False)
    x = jt.zeros(3)
    with pytest.raises(IndexError):
        f(x, 3)
    assert np.asarray(x).tolist() == [0.0, 0.0, 0.0]


def test_plain_jax_jit_does_not_check():
    f = jax.jit(lambda x, i: x[i])
    assert float(f(jt.arange(4.0), 9)) == 3.0  # JAX clamps


# -- boolean masks under jit -------------------------------------------------------------------
def test_mask_assignment_under_jit_and_getitem_error():
    @jt.jit
    def clip(x, hi):
        x[x > hi] = hi

    x = jt.asarray([1.0, 5.0, 2.0, 9.0])
    clip(x, 3.0)
    assert np.asarray(x).tolist() == [1.0, 3.0, 2.0, 3.0]

    @jt.jit
    def rows(m, x):
        x[m] = jt.asarray([7.0, 8.0])  # broadcasts to the rows

    y = jt.zeros((3, 2))
    rows(jnp.array([True, False, True]), y)
    assert np.asarray(y).tolist() == [[7.0, 8.0], [0.0, 0.0], [7.0, 8.0]]

    @jt.jit
    def select(x):
        return x[x > 2.0]

    with pytest.raises(jt.NonConcreteBooleanIndexError) as e:
        select(x)
    assert "where" in str(e.value) and "nonzero" in str(e.value)


# -- API: decorator forms, static arguments, nesting ------------------------------------------------
def test_decorator_forms_and_static_arguments():
    traces = []

    @jt.jit(static_argnums=1, static_argnames="mode")
    def f(x, n, *, mode="set"):
        traces.append((n, mode))
        for i in range(n):
            if mode == "set":
                x[i] = 1.0
            else:
                x[i] += 1.0

    x = jt.zeros(4)
    f(x, 2)
    f(x, 3, mode="add")
    f(x, 3, mode="add")
    assert np.asarray(x).tolist() == [3.0, 3.0, 2.0, 0.0]
    assert traces == [(2, "set"), (3, "add")]

    g = jt.jit(lambda x, *, k: x.__setitem__(0, k), static_argnames=("k",))
    y = jt.zeros(2)
    g(y, k=4.0)
    assert np.asarray(y).tolist() == [4.0, 0.0]
    with pytest.raises(TypeError, match="donate=False"):
        jt.jit(lambda x: x, donate_argnums=0)


def test_tensors_in_containers_and_kwargs():
    @jt.jit
    def f(d, *, scale):
        d["a"][0] = scale
        d["b"][1:] += d["a"][0]
        return {"sum": d["b"] * 1.0}

    d = {"a": jt.zeros(2), "b": jt.ones(3)}
    out = f(d, scale=2.0)
    assert np.asarray(d["a"]).tolist() == [2.0, 0.0]
    assert np.asarray(d["b"]).tolist() == [1.0, 3.0, 3.0]
    assert isinstance(out["sum"], jt.Tensor)


def test_nests_inside_jax_jit_and_jaxtensor_jit():
    inner = jt.jit(lambda v, i: v.__setitem__(i, -1.0))

    @jax.jit
    def outer(x, i):
        inner(x[1:], i)
        return x

    out = outer(jt.zeros(5), 2)
    assert np.asarray(out).tolist() == [0.0, 0.0, 0.0, -1.0, 0.0]

    @jt.jit
    def outer2(x, i):
        inner(x[1:], i)

    y = jt.zeros(5)
    outer2(y, 0)
    assert np.asarray(y).tolist() == [0.0, -1.0, 0.0, 0.0, 0.0]
    with pytest.raises(IndexError, match="index 4 is out of bounds"):
        outer2(y, 4)


def test_jit_of_method_and_under_grad():
    def f(x):
        y = x * 1.0
        y[0] = y[1] * 3.0
        return jt.sum(y * y)

    g = jt.grad(jt.jit(f))(jt.asarray([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(np.asarray(g), [0.0, 40.0, 6.0])


# -- pytree: plain JAX transforms ----------------------------------------------------------------
def test_plain_jax_transforms_accept_tensors():
    x = jt.arange(6.0)
    out = jax.jit(lambda t: t[1:] * 2.0)(x)
    assert isinstance(out, jt.Tensor) and np.asarray(out).tolist() == [2.0, 4.0, 6.0, 8.0, 10.0]
    leaves = jax.tree_util.tree_leaves({"x": x, "v": x[::2]})
    assert [np.asarray(leaf).tolist() for leaf in leaves] == [
        [0.0, 2.0, 4.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]]
    doubled = jax.tree_util.tree_map(lambda a: a * 2, x)
    assert isinstance(doubled, jt.Tensor)

    def body(i, c):
        c[i] = i * 1.0
        return c

    c = lax.fori_loop(0, 4, body, jt.zeros(4))
    assert np.asarray(c).tolist() == [0.0, 1.0, 2.0, 3.0]

    def sbody(carry, v):
        carry[0] += v
        return carry, carry[0] * 1.0

    carry, ys = lax.scan(sbody, jt.zeros(2), jnp.arange(3.0))
    assert np.asarray(carry).tolist() == [3.0, 0.0] and np.asarray(ys).tolist() == [0.0, 1.0, 3.0]

    r = lax.cond(True, lambda t: t[::-1] * 1.0, lambda t: t * 0.0, jt.arange(3.0))
    assert np.asarray(r).tolist() == [2.0, 1.0, 0.0]

    rows = jax.vmap(lambda r: r[1:] + r[0])(jt.ones((2, 3)))
    assert isinstance(rows, jt.Tensor) and rows.shape == (2, 2)


def test_plain_jax_jit_leaves_arguments_unchanged():
    x = jt.zeros(3)
    jax.jit(lambda t: t.__setitem__(0, 1.0))(x)  # a copy inside, as JAX promises
    assert np.asarray(x).tolist() == [0.0, 0.0, 0.0]


def test_every_feature_inside_a_traced_function():
    @jax.jit
    def f(x, i):
        v = x[1:, ::-1]  # views
        v[0, i] = 100.0  # setitem with a traced index
        x.T[0] += 1.0  # in-place through a view
        y = jt.reshape(x, (-1,))
        m = jt.where(y > 50.0, y, 0.0)
        return jt.sum(m) + jt.index_select(x, 0, jnp.array([2]))[0, 0]

    x = jt.arange(12.0).reshape(3, 4)
    got = float(f(x, 1))
    ref = np.arange(12.0).reshape(3, 4)
    ref[1:, ::-1][0, 1] = 100.0
    ref.T[0] += 1.0
    assert got == ref[ref > 50.0].sum() + ref[2, 0]


def test_closed_over_tensor_read_is_an_input_not_a_stale_constant():
    w = jt.ones(3)
    w_tail = w[1:]
    assert w_tail.tolist() == [1.0, 1.0]  # the view now holds a valid cache
    traces = []

    @jt.jit
    def f(x):
        traces.append(1)
        return x * w + jt.sum(w_tail)

    x = jt.ones(3)
    assert np.asarray(f(x)).tolist() == [3.0, 3.0, 3.0]
    w[0] = 5.0
    w_tail[1] = 0.0  # writes after tracing are seen by the compiled function
    assert np.asarray(f(x)).tolist() == [6.0, 2.0, 1.0]
    n = len(traces)
    f(x)
    assert len(traces) == n
    r = jt.jit(lambda: w)()
    assert jt.shares_memory(r, w)


def test_index_put_under_jit_traced_indices_checked():
    f = jt.jit(lambda x, i, v: x.index_put_((i,), v, accumulate=True))
    y = jt.zeros(4)
    traces = []
    g = jt.jit(lambda x, i: traces.append(1) or x.index_put_((i,), jt.ones(2)))
    for k in range(3):
        g(y, jnp.array([k, k + 1]))
    assert len(traces) == 1
    f(y, jnp.array([1, 1]), jt.asarray([1.0, 1.0]))
    assert y.tolist() == [1.0, 3.0, 1.0, 1.0]
    with pytest.raises(IndexError, match="index 9 is out of bounds for axis 0 with size 4"):
        f(y, jnp.array([1, 9]), jt.asarray([1.0, 1.0]))


def test_nests_inside_vmap_scan_and_jvp():
    f = jt.jit(lambda r, i: r.__setitem__(i, -1.0))

    def g(r):
        f(r, 1)
        return r

    assert jax.vmap(g)(jt.zeros((2, 3))).tolist() == [[0.0, -1.0, 0.0]] * 2
    assert jt.vmap(g)(jt.zeros((2, 3))).tolist() == [[0.0, -1.0, 0.0]] * 2

    def body(c, i):
        f(c, i)
        return c, i

    c, _ = lax.scan(body, jt.zeros(3), jnp.arange(2))
    assert c.tolist() == [-1.0, -1.0, 0.0]
    y, t = jt.jvp(jt.jit(lambda v: v * v), (jt.asarray([3.0]),), (jt.asarray([1.0]),))
    assert y.tolist() == [9.0] and t.tolist() == [6.0]


def test_a_failing_function_changes_nothing():
    @jt.jit
    def boom(x):
        x[0] = 5.0
        raise ValueError("boom")

    @jt.jit
    def static_oob(x):
        x[0] = 5.0
        x[5] = 1.0  # a concrete index: raises while tracing, like eager mode

    x = jt.zeros(2)
    view = x[1:]
    with pytest.raises(ValueError, match="boom"):
        boom(x)
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 2"):
        static_oob(x)
    assert x.tolist() == [0.0, 0.0]
    view[0] = 3.0  # the Tensor is still fully usable
    assert x.tolist() == [0.0, 3.0]


# -- property: random chains of views and writes, eager == jit == NumPy ------------------------
@st.composite
def _slice_for(draw, n):
    step = draw(st.sampled_from([1, 1, 2, 3, -1, -2]))
    start = draw(st.one_of(st.none(), st.integers(-n, n)))
    stop = draw(st.one_of(st.none(), st.integers(-n - 1, n + 1)))
    return slice(start, stop, step)


@st.composite
def _program(draw):
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)))
    ops = []
    cur = shape
    for _ in range(draw(st.integers(1, 3))):
        key = []
        for n in cur:
            if draw(st.booleans()) and len(cur) - len([k for k in key if isinstance(k, int)]) > 1:
                key.append(draw(st.integers(-n, n - 1)))
            else:
                key.append(draw(_slice_for(n)))
        key = tuple(key)
        cur = np.empty(cur)[key].shape
        ops.append(("view", key))
        if not cur or 0 in cur:
            break
        ops.append((draw(st.sampled_from(["set", "iadd", "imul"])), draw(st.integers(-3, 3))))
    return shape, ops


def _run_program(x, ops):
    v = x
    for kind, arg in ops:
        if kind == "view":
            v = v[arg]
        elif kind == "set":
            v[...] = float(arg)
        elif kind == "iadd":
            v += float(arg)
        else:
            v *= float(arg)


@given(_program())
def test_random_view_chains_and_writes_match_numpy_under_jit(prog):
    shape, ops = prog
    ref = np.arange(float(np.prod(shape))).reshape(shape)
    _run_program(ref, ops)
    eager = jt.asarray(np.arange(float(np.prod(shape))).reshape(shape))
    _run_program(eager, ops)
    jitted = jt.asarray(np.arange(float(np.prod(shape))).reshape(shape))
    jt.jit(lambda x: _run_program(x, ops))(jitted)
    np.testing.assert_array_equal(np.asarray(eager), ref)
    np.testing.assert_array_equal(np.asarray(jitted), ref)


def test_closed_over_read_inside_plain_jax_jit():
    w = jt.arange(3.0)
    inner = jt.jit(lambda x: x * w)
    out = jax.jit(lambda x: inner(x))(jt.ones(3))
    assert out.tolist() == [0.0, 1.0, 2.0]
    assert w.tolist() == [0.0, 1.0, 2.0]


# -- the namespace inside traced functions ------------------------------------------------------
_X = np.arange(12.0).reshape(3, 4) - 5
NAMESPACE_CASES = {
    "abs": lambda a: jt.abs(a),
    "exp": lambda a: jt.exp(a),
    "add": lambda a: jt.add(a, a.T.mT),
    "where": lambda a: jt.where(a > 0, a, 0.0),
    "sum": lambda a: jt.sum(a, axis=0),
    "mean": lambda a: jt.mean(a),
    "var": lambda a: jt.var(a, axis=0),
    "max": lambda a: jt.max(a, axis=1),
    "argmax": lambda a: jt.argmax(a, axis=1),
    "any": lambda a: jt.any(a > 3),
    "sort": lambda a: jt.sort(a, axis=0),
    "argsort": lambda a: jt.argsort(a),
    "searchsorted": lambda a: jt.searchsorted(jt.sort(a[0]), a[1]),
    "concat": lambda a: jt.concat([a, a], axis=0),
    "stack": lambda a: jt.stack([a, a]),
    "reshape": lambda a: jt.reshape(a, (4, 3)),
    "flip": lambda a: jt.flip(a),
    "roll": lambda a: jt.roll(a, 1),
    "tile": lambda a: jt.tile(a, (2, 1)),
    "broadcast_to": lambda a: jt.broadcast_to(a[0], (2, 4)),
    "matmul": lambda a: a @ a.T,
    "cumulative_sum": lambda a: jt.cumulative_sum(a, axis=1),
    "clip": lambda a: jt.clip(a, -1.0, 1.0),
    "astype": lambda a: jt.astype(a, jt.int32),
    "index_select": lambda a: jt.index_select(a, 0, jt.asarray([2, 0])),
    "take": lambda a: jt.take(a, jt.asarray([2, 0]), axis=1),
    "gather": lambda a: jt.gather(a, 1, jt.asarray([[0], [1], [2]])),
    "vector_norm": lambda a: jt.linalg.vector_norm(a),
    "fft": lambda a: jt.fft.fft(a),
    "full_like": lambda a: jt.full_like(a, 2.0),
    "tril": lambda a: jt.tril(a),
    "eye": lambda a: a[:, :3] @ jt.eye(3),
    "meshgrid": lambda a: jt.meshgrid(a[0], a[1])[0],
    "inplace": lambda a: (lambda b: (b.__iadd__(1.0), b.__setitem__((0, 1), 9.0), b)[-1])(a * 1.0),
}


@pytest.mark.parametrize("name", sorted(NAMESPACE_CASES))
def test_namespace_inside_jax_jit_and_jaxtensor_jit(name):
    f = NAMESPACE_CASES[name]
    want = np.asarray(f(jt.asarray(_X)))
    for jitted in (jax.jit(f), jt.jit(f)):
        got = jitted(jt.asarray(_X))
        assert isinstance(got, jt.Tensor)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


def test_methods_negative_static_argnums_and_jit_kwargs():
    class Counter:
        def __init__(self):
            self.state = jt.zeros(3)

        @jt.jit
        def add(self, i, v):
            self.state[i] += v

    c = Counter()
    c.add(0, 1.0)  # ``self`` is an ordinary (non-array) argument: its Tensor is found
    c.add(2, 5.0)
    assert c.state.tolist() == [1.0, 0.0, 5.0]

    traces = []

    @jt.jit(static_argnums=-1, keep_unused=True)
    def f(x, unused, k):
        traces.append(k)
        x[0] = k

    x = jt.zeros(2)
    f(x, jt.ones(2), 3)
    f(x, jt.ones(2), 3)
    f(x, jt.ones(2), 4)
    assert x.tolist() == [4.0, 0.0] and traces == [3, 4]
    with pytest.raises(ValueError, match="hashable"):
        jt.jit(lambda x, s: x, static_argnums=1)(x, [1, 2])
    with pytest.raises(TypeError, match="callable"):
        jt.jit(3)


def test_component_views_of_complex_storage_as_arguments():
    z = jt.asarray(np.array([1 + 2j, 3 + 4j], np.complex64))

    @jt.jit
    def f(re, im):
        re[0] = 10.0
        im *= 2.0

    f(jt.real(z), jt.imag(z))
    assert np.asarray(z).tolist() == [10 + 4j, 3 + 8j]


@pytest.mark.parametrize("op", ["getitem", "setitem", "index_select", "take", "2d"])
def test_vmap_over_an_out_of_bounds_index_raises_like_eager_code(op):
    x = jt.arange(5.0)
    fns = {
        "getitem": lambda i: x[i],
        "setitem": lambda i: jt.zeros(5).__setitem__(i, 1.0),
        "index_select": lambda i: jt.index_select(x, 0, jt.reshape(i, (1,))),
        "take": lambda i: jt.take(x, jt.reshape(i, (1,))),
        "2d": lambda i: jt.reshape(jt.arange(10.0), (2, 5))[1, i],
    }
    f = fns[op]
    batched = jt.vmap(f)
    good = batched(jt.asarray([0, 4, -5]))
    eager = [np.asarray(f(jt.asarray(i))) for i in (0, 4, -5)]
    if op != "setitem":
        np.testing.assert_array_equal(np.asarray(good), np.stack(eager))
    for bad in ([0, 5], [-6, 1], [9, 7]):
        with pytest.raises(IndexError) as err:
            batched(jt.asarray(bad))
        # the message eager code gives for one of the offending values
        eager_msgs = []
        for i in bad:
            if not -5 <= i < 5:
                with pytest.raises(IndexError) as eager_err:
                    f(jt.asarray(i))
                eager_msgs.append(str(eager_err.value))
        assert str(err.value) in eager_msgs
