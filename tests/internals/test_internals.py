"""Tests that read jaxtensor's internals: caches, plans, storages, buffers and queues.

Every other test file checks public behaviour only; what is here checks that the fast paths
are taken (jaxtensor.jit's short path for plain calls, its bounds checks folded into one
output with checkify only for checks in nested traces; the operator fast path and its
constant cache; queued scalar writes; writes and calls reusing the buffer they donate;
index_select's kernel choice) and still gives the results of eager code or NumPy, and that
the private JAX names of ``_core/_jax_private.py`` are there, fenced. When an internal
changes, these are the tests to update."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import types
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from jax.experimental import checkify

import jaxtensor as jt
from jaxtensor import _fast_operators, _index_select
from jaxtensor._core import _config, _constants, _jax_private, _storage
from jaxtensor._jit import _jit
from jaxtensor._jit import _trace as _jit_trace

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _state(f):
    return f._jaxtensor_jit  # (a _jit.Jitted)


def _run_python(code: str, **env: str) -> subprocess.CompletedProcess:
    """``code`` in a fresh Python process on this tree's ``src`` (what is decided once per
    process: registrations at import, environment variables read once)."""
    full = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [SRC, *filter(None, [os.environ.get("PYTHONPATH")])]), **env)
    return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True,
                          text=True, timeout=300)


# -- the short path and the guard ---------------------------------------------------------------
def test_repeat_calls_use_the_guard_and_write_back():
    @jt.jit
    def put(x, i, v):
        x[i] = v

    x = jt.zeros(5)
    ref = np.zeros(5, np.float32)
    for k in range(10):
        put(x, k % 5, float(k))
        ref[k % 5] = k
        assert x.tolist() == ref.tolist()
    s = _state(put)
    assert len(s._plans) == 1 and s._guard is not None


def test_guard_follows_donation_and_export():
    f = jt.jit(lambda x: x.__setitem__(0, x[0] + 1.0))
    x = jt.zeros(3)
    f(x)
    f(x)
    held = x.to_jax()  # exported: the next calls must not donate it
    f(x)
    f(x)
    assert not held.is_deleted() and np.asarray(held).tolist() == [2.0, 0.0, 0.0]
    del held
    f(x)  # donatable again: donated (the update lands in the same buffer)
    ptr = x._storage.array.unsafe_buffer_pointer()
    f(x)
    assert x._storage.array.unsafe_buffer_pointer() == ptr
    assert x.tolist() == [6.0, 0.0, 0.0]


def test_queued_scalar_writes_are_flushed_before_the_call():
    f = jt.jit(lambda x: x * 2.0)
    x = jt.zeros(3)
    for k in range(4):
        x[1] = float(k)  # an eager scalar write: queued on the storage
        assert x._storage._pending is not None
        assert f(x).tolist() == [0.0, 2.0 * k, 0.0]
    g = jt.jit(lambda x: x.__setitem__(2, x[1] + 1.0))
    for k in range(3):
        x[1] = float(k)
        g(x)
        assert x.tolist() == [0.0, float(k), k + 1.0]


def test_a_new_argument_type_or_shape_under_one_signature():
    traces = []

    @jt.jit
    def f(x, v):
        traces.append(1)
        x[0] = v
        return x[1:] * v

    x = jt.zeros(3)
    assert f(x, 2).tolist() == [0.0, 0.0]
    assert f(x, 2.5).tolist() == [0.0, 0.0]  # int -> float: JAX traces again
    assert x.tolist() == [2.5, 0.0, 0.0]
    y = jt.ones(4)
    assert f(y, 3.0).tolist() == [3.0, 3.0, 3.0]
    assert f(y, jnp.float32(4.0)).tolist() == [4.0, 4.0, 4.0]
    assert y.tolist() == [4.0, 1.0, 1.0, 1.0]
    assert len(traces) == 4


def test_results_on_the_short_path():
    @jt.jit
    def f(x, y):
        x += 1.0
        return x, x[1:], y * 2.0, 7

    a, b = jt.zeros(3), jt.ones(2)
    for k in range(3):
        r, v, n, seven = f(a, b)
        assert r is a and v.base is a and seven == 7
        assert n.tolist() == [2.0, 2.0] and not jt.shares_memory(n, b)
        v[0] = -1.0
        assert a.tolist() == [k + 1.0, -1.0, k + 1.0]
        a[1] = k + 1.0


def test_distinct_then_aliasing_arguments():
    @jt.jit
    def f(a, b):
        b[0] = 9.0
        a[0] += b[0]

    x, y = jt.zeros(3), jt.zeros(3)
    f(x, y)
    f(x, y)  # the guard
    assert x.tolist() == [18.0, 0.0, 0.0] and y.tolist() == [9.0, 0.0, 0.0]
    f(x, x)  # one storage behind both: the general path
    assert x.tolist() == [18.0, 0.0, 0.0]
    z = jt.zeros(4)
    f(z, z[2:])
    assert z.tolist() == [9.0, 0.0, 9.0, 0.0]


def test_closed_over_state_on_the_guard():
    total = jt.zeros(())
    w = jt.arange(3.0)

    @jt.jit
    def acc(x):
        total[...] += jt.sum(x * w)

    for _ in range(4):
        acc(jt.ones(3))
    assert float(total) == 12.0
    w[0] = 10.0  # read by the compiled function: not a stale constant
    acc(jt.ones(3))
    assert float(total) == 25.0


def test_state_discovered_when_a_new_shape_is_traced():
    w = jt.ones(4)

    @jt.jit
    def f(x):
        if x.shape[0] == 4:
            return x * w  # read only in the trace for shape (4,)
        return x * 2.0

    assert f(jt.ones(3)).tolist() == [2.0] * 3
    assert f(jt.ones(3)).tolist() == [2.0] * 3  # the guard exists now
    assert f(jt.ones(4)).tolist() == [1.0] * 4  # a retrace under the guard finds w
    w[0] = 5.0
    assert f(jt.ones(4)).tolist() == [5.0, 1.0, 1.0, 1.0]
    assert f(jt.ones(3)).tolist() == [2.0] * 3


def test_guard_is_not_used_inside_another_trace():
    inner = jt.jit(lambda x, i: x.__setitem__(i, -1.0))
    y = jt.zeros(3)
    inner(y, 0)
    inner(y, 1)  # the guard exists now

    @jax.jit
    def outer(x, i):
        inner(x, i)
        return x

    assert outer(jt.zeros(3), 2).tolist() == [0.0, 0.0, -1.0]
    assert y.tolist() == [-1.0, -1.0, 0.0]
    w = jt.zeros(2)  # concrete, closed over by a plain jax.jit function and written
    with pytest.raises(jt.TracerLeakError):
        jax.jit(lambda i: inner(w, i))(1)
    assert w.tolist() == [0.0, 0.0]
    inner(y, 2)
    assert y.tolist() == [-1.0, -1.0, -1.0]


def test_exception_in_the_function_then_calls_work():
    calls = []

    @jt.jit
    def f(x, n):
        calls.append(n)
        if x.shape[0] == 2:
            raise ValueError("no")
        x[0] = n

    x = jt.zeros(3)
    f(x, 1)
    f(x, 2)
    with pytest.raises(ValueError, match="no"):
        f(jt.zeros(2), 3)
    f(x, 4)
    assert x.tolist() == [4.0, 0.0, 0.0]
    assert _jit.CALL.get() is None
    assert jt._core._context.current.get() is None


def test_jitted_function_is_a_function_and_a_method():
    f = jt.jit(lambda x: x)
    assert callable(f) and f.__name__ == "<lambda>"

    class Acc:
        def __init__(self):
            self.v = jt.zeros(2)

        @jt.jit
        def add(self, k):
            self.v[k] += 1.0

    a = Acc()
    for k in (0, 1, 1):
        a.add(k)
    assert a.v.tolist() == [1.0, 2.0]


def test_the_state_is_freed_with_the_function():
    import weakref

    f = jt.jit(lambda x: x.__setitem__(0, 1.0))
    f(jt.zeros(2))
    f(jt.zeros(2))
    r = weakref.ref(_state(f))
    del f
    gc.collect()
    assert r() is None


# -- bounds checks --------------------------------------------------------------------------------
def test_the_first_failing_check_is_reported():
    def two(x, i, j):
        x[i] = 1.0
        x[j] = 2.0

    f = jt.jit(two)
    x = jt.zeros(4)
    f(x, 1, 2)
    for i, j, bad in [(5, 9, 5), (1, 9, 9), (-7, 6, -7), (3, -5, -5)]:
        with pytest.raises(IndexError) as e:
            f(x, i, j)
        with pytest.raises(IndexError) as e_eager:
            two(jt.zeros(4), i, j)
        assert str(e.value) == str(e_eager.value)
        assert str(e.value) == f"index {bad} is out of bounds for axis 0 with size 4"


@pytest.mark.parametrize("idx", [[0, 5, 7], [0, 7, 5], [-9, 5], [-9, 1], [2, 3]])
def test_array_index_checks_name_the_value_eager_code_names(idx):
    x = jt.zeros((2, 3))
    f = jt.jit(lambda x, i: x[:, i])
    with pytest.raises(IndexError) as e_eager:
        x[:, jt.asarray(idx)]
    with pytest.raises(IndexError) as e:
        f(x, jnp.array(idx))
    assert str(e.value) == str(e_eager.value)


def test_unsigned_index_values_keep_their_value_in_the_message():
    f = jt.jit(lambda x, i: x.__setitem__(i, 1.0))
    x = jt.zeros(4)
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 0 with size 4"):
        f(x, np.uint32(7))
    if jax.config.read("jax_enable_x64"):
        big = 2**64 - 1
        with pytest.raises(IndexError, match=f"index {big} is out of bounds"):
            f(x, jnp.array([1, big], jnp.uint64))
    x = jt.zeros(4)  # (a failed call that donated leaves its computed values: see below)
    f(x, np.uint32(3))
    assert x.tolist() == [0.0, 0.0, 0.0, 1.0]


def test_a_function_without_checks_reads_nothing():
    """A function indexing with no traced value has no check output (one output: its
    written Tensor); one with a traced index has one more, the first failure's number,
    unless its checks are decided on the host (an index affine in a scalar input)."""
    f = jt.jit(lambda x: x.__setitem__(slice(1, None), x[:-1] + x[1:]))
    g = jt.jit(lambda x, i: x.__setitem__(i // 2, 1.0))
    h = jt.jit(lambda x, i: x.__setitem__(i, 1.0))
    x = jt.ones(4)

    def n_outputs(fn, *args):
        return len(jax.tree_util.tree_leaves(fn.lower(*args).out_info))

    assert n_outputs(f, x) == 1
    assert n_outputs(g, x, jnp.asarray(1)) == 2
    assert n_outputs(h, x, jnp.asarray(1)) == 1
    assert n_outputs(jt.jit(g, check_bounds=False), x, jnp.asarray(1)) == 1
    want = np.ones(4, np.float32)
    for i in range(3):
        f(x)
        g(x, jnp.asarray(2 * i))
        want[1:] = want[:-1] + want[1:]
        want[i] = 1.0
        h(x, i)
        want[i] = 1.0
    np.testing.assert_array_equal(x.numpy(), want)


def test_checks_in_loops_and_branches_fall_back_to_checkify():
    @jt.jit
    def f(x, i, n):
        x[i] = -1.0  # a top-level check

        def body(k, x):
            x[k] = 1.0  # a check inside the loop body
            return x

        x[...] = lax.fori_loop(0, n, body, x)
        x[...] = lax.cond(n > 1, lambda t: t * 2.0, lambda t: t, x)

    x = jt.zeros(4)
    f(x, 3, 2)
    assert x.tolist() == [2.0, 2.0, 0.0, -2.0]
    assert not _state(f)._own_checks
    with pytest.raises(IndexError, match="index 9 is out of bounds for axis 0 with size 4"):
        f(x, 9, 1)
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0 with size 4"):
        f(x, 0, 5)
    y = jt.zeros(4)
    f(y, 2, 1)
    assert y.tolist() == [1.0, 0.0, -1.0, 0.0]


def test_a_failed_check_with_donation_leaves_the_computed_values():
    @jt.jit
    def f(x, i):
        x[0] = 5.0
        x[i] = 1.0

    x = jt.zeros(3)
    f(x, 1)
    with pytest.raises(IndexError):
        f(x, 3)
    assert x.tolist()[0] == 5.0  # written back (the old buffer was donated), then raised
    x[1] = 7.0  # and the Tensor is usable
    assert x.tolist()[:2] == [5.0, 7.0]


def test_check_bounds_false_has_no_check_output():
    f = jt.jit(lambda x, i: x.__setitem__(i, 1.0), check_bounds=False)
    x = jt.zeros(2)
    f(x, 0)
    f(x, 5)  # clamped, as in JAX
    assert x.tolist() == [1.0, 1.0]
    spec = next(iter(_state(f)._plans))
    assert spec.check is None  # no check mode


def test_a_python_scalar_used_in_several_traces():
    # (a device scalar cached while tracing leaked into later traces, whose calls failed:
    # "Execution supplied 1 arguments but compiled program expected 2")
    s = 2.718281828
    f = jax.jit(lambda x: x * s)
    for n in (3, 4, 5):  # the scalar seen in three traces
        f(jt.ones(n))
    g = jax.jit(lambda x: x[:-1] * s)
    for _ in range(2):
        assert g(jt.ones(4)).shape == (3,)


def test_jaxtensor_jit_after_a_scalar_used_in_several_traces():
    s = 3.14159265
    f = jax.jit(lambda x: x * s)
    for n in (3, 4, 5):
        f(jt.ones(n))
    h = jt.jit(lambda x: x.__setitem__(slice(1, None), x[:-1] * s))
    x = jt.ones(4)
    for _ in range(3):
        h(x)
    np.testing.assert_allclose(x.tolist(), [1.0, s, s * s, s**3], rtol=1e-6)


# -- moved from the behaviour tests: they read caches and versions ---------------------------
def test_augmented_assignment_through_an_index_writes_once(monkeypatch):
    installs = []
    orig = _storage.Storage._install
    monkeypatch.setattr(_storage.Storage, "_install",
                        lambda self, new: installs.append(1) or orig(self, new))
    x = jt.arange(6.0)
    x[1:4] += 1.0  # Python: r = x[1:4]; r += 1; x[1:4] = r  (the last step is a no-op)
    assert len(installs) == 1
    x[1:] += x[:-1]  # the right-hand side is read after the target: still one write
    assert len(installs) == 2
    ref = np.arange(6.0)
    ref[1:4] += 1.0
    ref[1:] += ref[:-1].copy()
    assert x.tolist() == ref.tolist()
    y = x[2:]
    y *= 2.0
    x[2:] = y  # explicitly writing a view onto itself
    ref[2:] *= 2.0
    assert x.tolist() == ref.tolist()
    i = jt.asarray(1)
    x[i] += 100.0  # a Tensor key: the ordinary path
    ref[1] += 100.0
    assert x.tolist() == ref.tolist()


def test_scalar_cache_is_bounded_and_exact() -> None:
    x = jt.asarray(np.array([1.0], dtype=np.float64))
    for k in range(1, 2 * _constants.SIZE + 50):
        s = k + 0.25
        assert float((x * s)[0]) == s
        assert float((x * s)[0]) == s  # second use: converted and cached
    assert len(_constants._arrays) <= _constants.SIZE
    assert len(_constants._seen) <= _constants.SIZE


def test_repeated_calls_take_the_operator_fast_path() -> None:
    x = jt.asarray(np.array([1.0, 2.0], dtype=np.float32))
    y = jt.asarray(np.array([3.0, 4.0], dtype=np.float32))
    for _ in range(3):
        assert (x - y).tolist() == [-2.0, -2.0]
        assert (x - 1.25).tolist() == [-0.25, 0.75]
    f32 = np.dtype("float32")
    assert ("subtract", f32, f32) in _fast_operators._by_signature
    assert ("subtract", f32, float) in _fast_operators._by_signature
    assert (1.25, f32) in _constants._arrays


def test_scalars_first_seen_inside_traces_are_not_kept() -> None:
    s = 2.718281828
    f = jax.jit(lambda x: x * s)
    for n in (3, 4, 5):  # the scalar seen in three traces, never eagerly
        np.testing.assert_allclose(np.asarray(f(jt.ones(n))), np.full(n, s, np.float32))
    assert not any(isinstance(v, jax.core.Tracer) for v in _constants._arrays.values())


def test_queue_bound_flushes(monkeypatch):
    monkeypatch.setattr(_config, "MAX_PENDING", 8)
    t = jt.zeros(16)
    for k in range(20):
        t[k % 16] = float(k)
        assert t._storage._pending is None or len(t._storage._pending) < 8
    expected = np.zeros(16, np.float32)
    for k in range(20):
        expected[k % 16] = k
    np.testing.assert_array_equal(np.asarray(t), expected)


def test_clear_caches_empties_every_cache_and_results_stay_right() -> None:
    x = jt.arange(6.0)
    for _ in range(3):
        x[1:3] = x[1:3] * 2.0
    assert any(len(c) for c in jt._core._cache.all_caches())
    jt.clear_caches()
    assert not any(len(c) for c in jt._core._cache.all_caches())
    x[1:3] = x[1:3] * 2.0
    assert x.tolist() == [0.0, 16.0, 32.0, 3.0, 4.0, 5.0]


def test_index_select_repeat_cache_keys_on_every_input_of_the_kernel_choice(monkeypatch):
    from jaxtensor import _index_select as s

    x = jt.reshape(jt.arange(32.0), (4, 8))
    i = jt.asarray([0, 2])
    jt.index_select(x, 0, i)
    key = s._repeat_key(x._value(), 0, i._value(), None)
    assert key in s._repeat
    for name, value in (("INDEX_SELECT_DISPATCH", "tiled"), ("INDEX_SELECT_CPU_THREADS", 7),
                        ("TILE_BUDGET", {**_config.TILE_BUDGET, "cpu": 64}),
                        ("TILED_MAX_ROW_BYTES", 8)):
        with monkeypatch.context() as m:
            m.setattr(_config, name, value)
            assert s._repeat_key(x._value(), 0, i._value(), None) not in s._repeat
            got = jt.index_select(x, 0, i)  # chosen again under the new setting
            assert got.tolist() == np.arange(32.0).reshape(4, 8)[[0, 2]].tolist()


def test_element_wise_caches_are_bounded_registered_and_cleared() -> None:
    from jaxtensor import _data_type_functions, _elementwise, _statistical

    caches = (_fast_operators._by_signature, _elementwise._binary_kernels,
              _statistical._sum_all, _data_type_functions._finfo_cache)
    assert all(c in jt._core._cache.all_caches() for c in caches)
    x = jt.asarray(np.array([1.0, 2.0], dtype=np.float32))
    for _ in range(2):
        assert (x + 1.0).tolist() == [2.0, 3.0]
        assert float(x.sum()) == 3.0
        assert jt.finfo(jt.float32).bits == 32
    assert all(len(c) for c in caches)
    jt.clear_caches()
    assert not any(len(c) for c in caches)
    assert (x + 1.0).tolist() == [2.0, 3.0]
    assert float(x.sum()) == 3.0


def test_a_flush_that_drops_duplicate_writes_leaves_nothing_queued():
    # (the flush's count of applied items once shrank with its de-duplication, so items were
    # left queued and applied again after a later slice write)
    for n in range(1, 7):
        x = jt.zeros(3)
        for _ in range(n):
            x[0] = 1.0
        x[:1] = 3.0
        assert x.tolist() == [3.0, 0.0, 0.0] and not x._storage._pending, n


def test_slice_writes_at_different_starts_share_one_compiled_kernel() -> None:
    # templates are made per slice bounds; their write kernels are per view structure
    from jaxtensor._indexing import _basic
    from jaxtensor._indexing._getset import _basic_sig

    a = _basic.lookup(None, (64, 16), _basic_sig(slice(3, 5)))
    b = _basic.lookup(None, (64, 16), _basic_sig(slice(9, 11)))
    assert a is not b and a.pick is b.pick


def test_every_parameter_of_a_public_function_has_a_description() -> None:
    from jaxtensor._docs import _docstrings

    assert _docstrings.UNDESCRIBED == [], (
        "add these parameters' descriptions to src/jaxtensor/_docs/_params.py")


# -- the private JAX names (_core/_jax_private.py) ---------------------------------------------
#: What each name of ``_jax_private`` must be on the JAX release the tests run on.
JAX_PRIVATE_KINDS = {
    "EvalTrace": lambda v: isinstance(v, type) and issubclass(v, jax.core.Trace),
    "eval_trace": lambda v: isinstance(v, _jax_private.EvalTrace),
    "trace_state": lambda v: v.value is _jax_private.eval_trace,  # (outside any transformation)
    "pytype_aval_mappings": lambda v: type(v) is dict and jt.Tensor in v,
    "register_canonicalize_value_handler": callable,
    "shard_arg_handlers": lambda v: type(v) is dict and jt.Tensor in v,
    "register_checkify_rule": callable,
    "checkify_error_preds": callable,
    "register_lowering": callable,
    "lower_fun": callable,
    "jnp_indexing": lambda v: isinstance(v, types.ModuleType) and callable(
        v.eliminate_deprecated_list_indexing),
    "make_noop_ffi_handler": callable,
    "DebugInfo": lambda v: v._fields[:3] == ("traced_for", "func_src_info", "arg_names"),
    "initial_result_paths": lambda v: v is not None,
    "weak_cast": lambda v: v(jax.numpy.int32(3), np.int64).weak_type,
    "tracer_origin": lambda v: _origin_of_a_sum(v) == ("add", 1),
    "put_host": lambda v: v is not None and v(np.arange(2.0)).tolist() == [0.0, 1.0],
    "MISSING": lambda v: v == {},  # every fenced name is there on the release tested
}


def _origin_of_a_sum(origin) -> tuple:
    """(the primitive that made ``i + 1``, the literal's value) as ``origin`` reads them."""
    seen = []

    def f(i):
        made, _ = origin(i + 1)
        seen.append((made[0], origin(made[2][1])[1]))
        return i

    jax.make_jaxpr(f)(np.int32(0))
    return seen[0]


def test_every_private_jax_name_is_there_with_its_kind():
    assert set(JAX_PRIVATE_KINDS) == set(_jax_private.__all__)
    wrong = [n for n, ok in JAX_PRIVATE_KINDS.items() if not ok(getattr(_jax_private, n))]
    assert not wrong, wrong
    assert _jit_trace.GATED


@pytest.mark.parametrize("x", [-1.0, 0.0, 2.0])
def test_no_error_reads_checkify_error_state_on_this_jax(x):
    # the rule is registered through _jax_private on every release's rule signature
    def f(v):
        checkify.check(v > 0, "not positive")
        before = _jit_trace.no_error_p.bind()
        body = jax.lax.fori_loop(0, 2, lambda i, c: c & _jit_trace.no_error_p.bind(), True)
        return before, body

    err, (before, body) = jax.jit(checkify.checkify(f))(x)
    assert bool(before) == bool(body) == (x > 0) == (err.get() is None)
    assert bool(_jit_trace.no_error_p.bind())  # outside checkify: nothing failed


def test_the_trace_state_follows_jax_transformations():
    seen = []

    def f(v):
        seen.append(_jax_private.trace_state.value)
        return v

    jax.jit(f)(1.0)
    jax.grad(f)(1.0)
    assert len(seen) == 2
    assert not any(isinstance(t, _jax_private.EvalTrace) for t in seen)
    assert _jax_private.trace_state.value is _jax_private.eval_trace


def test_checkify_error_preds_reads_the_error_state():
    def f(v):
        checkify.check(v > 0, "negative")
        return v

    err, _ = checkify.checkify(f)(-1.0)
    assert [bool(p) for p in _jax_private.checkify_error_preds(err)] == [True]
    err, _ = checkify.checkify(f)(1.0)
    assert [bool(p) for p in _jax_private.checkify_error_preds(err)] == [False]


#: A JAX release without the fenced names, simulated: before jaxtensor is imported, the JAX
#: modules it reads are replaced by proxies that hide those names (and put back afterwards).
_WITHOUT_PRIVATE_NAMES = """
import sys, types, warnings
import jax, jax.numpy as jnp
from jax import lax
import jax._src.checkify, jax._src.numpy.indexing, jax._src.lib
import numpy as np
sys.modules["jax._src.lib.xla_client"] = jax._src.lib.xla_client  # (an attribute, not a module)
HIDE = {
    "jax._src.core": {"trace_state_strong_ref", "EvalTrace", "eval_trace",
                      "pytype_aval_mappings"},
    "jax._src.checkify": {"error_checks"},
    "jax._src.numpy.indexing": {"eliminate_deprecated_list_indexing"},
    "jax._src.lib.xla_client": {"batched_device_put"},
}

class Hiding(types.ModuleType):
    def __init__(self, mod, hidden):
        super().__init__(mod.__name__)
        self._mod, self._hidden = mod, hidden

    def __getattr__(self, name):
        if name in self._hidden:
            raise AttributeError(name)
        return getattr(self._mod, name)

def put(name, mod):
    parent, _, leaf = name.rpartition(".")
    sys.modules[name] = mod
    setattr(sys.modules[parent], leaf, mod)

real = {name: sys.modules[name] for name in HIDE}
for name, hidden in HIDE.items():
    put(name, Hiding(real[name], hidden))
try:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import jaxtensor as jt
finally:
    for name, mod in real.items():
        put(name, mod)
from jaxtensor._core import _jax_private as p

print(sorted(p.MISSING))
print(len(caught), all(n in str(caught[0].message) for n in p.MISSING))
print(type(p.trace_state).__name__, p.EvalTrace is type(p.eval_trace))
x = jt.zeros(4)
x[1] = 2.0
x[1:3] += 1.0

@jt.jit
def put_at(x, i):
    x[i] = 5.0

put_at(x, 3)
print(x.tolist())
try:
    put_at(x, 7)
except IndexError as e:
    print(e)

@jt.jit
def write_after_loop(x, v):
    lax.fori_loop(0, 2, lambda k, c: c + x[k + v], x[0])  # a check in a loop body
    x[0] = 7.0

y = jt.zeros(3)
try:
    write_after_loop(y, 5)
except IndexError as e:
    print(e)
print(y.tolist())
for read in (lambda: lax.add(jt.ones(2), 1.0), lambda: jnp.arange(3)[jt.asarray(1)]):
    try:
        read()
    except Exception as e:
        print(type(e).__name__)
print(jax.jit(lambda a: a * 2)(jt.ones(2)).tolist())
h = jt.asarray(np.arange(3.0)).to_jax()  # (through jax.device_put)
print(h.tolist(), h.committed)
"""


def test_a_jax_without_the_fenced_names_still_imports_jaxtensor():
    """Each fenced name missing: the import warns once naming them all, and what needs them
    falls back (the current trace through the public context manager) or is off, as
    ``MISSING`` says (writes after a failed check in a loop body are not skipped; jax.lax
    and JAX's indexing do not take Tensors; a host array takes ``jax.device_put``);
    everything else works."""
    proc = _run_python(_WITHOUT_PRIVATE_NAMES)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "['jax._src.checkify.error_checks', 'jax._src.core.pytype_aval_mappings', "
        "'jax._src.core.trace_state_strong_ref', 'jax._src.lib.xla_client.batched_device_put', "
        "'jax._src.numpy.indexing.eliminate_deprecated_list_indexing']",
        "1 True",
        "_PublicTraceState True",
        "[0.0, 3.0, 1.0, 5.0]",
        "index 7 is out of bounds for axis 0 with size 4",
        "index 5 is out of bounds for axis 0 with size 3",
        "[7.0, 0.0, 0.0]",  # not gated: the write after the failed check happened
        "ValueError",
        "ValueError",
        "[2.0, 2.0]",
        "[0.0, 1.0, 2.0] False",
    ], proc.stdout


# -- index_select's uninitialised output (_core/_uninitialized.py): opt-in ---------------------
_TILED_KERNEL = """
import os
import jax, jax.numpy as jnp, numpy as np
import jaxtensor as jt
from jaxtensor import _index_select
from jaxtensor._core import _uninitialized as u

print(u._register_uninit(), u._uninit_handler is not None)
x = jnp.ones((1000, 256), jnp.float32)
idx = jnp.arange(512) % 1000
hlo = jax.jit(lambda v, i: _index_select.tiled_gather(v, i, 0, (64, 256))).lower(
    x, idx).compile().as_text()
print(u.UNINIT_TARGET in hlo, " while(" in hlo, "f32[512,256]{1,0} broadcast(" in hlo)
# inside a user's jit the default is the direct gather: no FFI target, exportable
jt._core._config.INDEX_SELECT_CPU_THREADS = 1
f = jax.jit(lambda v, i: jt.index_select(v, 1, i).to_jax())
xs, ids = jnp.ones((2048, 256), jnp.float32), jnp.arange(128) % 256
print(u.UNINIT_TARGET in f.lower(xs, ids).as_text())
jax.export.export(f)(xs, ids)
# every element of an output above UNINIT_MIN_BYTES is written: remainder tiles, each dtype,
# eagerly, under jit and differentiated (garbage would show)
rng = np.random.default_rng(11)
idx = rng.integers(-300, 300, 501)
dtypes = [d for d in ("float32", "bool", "int8", "complex64", "float64")
          if d in set(jt.__array_namespace_info__().dtypes())]
for dtype in dtypes:
    v = (rng.standard_normal((37, 300, 9)) * 50).astype(dtype)
    exp = np.take(v, idx, axis=1)
    assert exp.nbytes >= jt._core._config.UNINIT_MIN_BYTES
    for tile in ([5, 64, 9], [37, 7, 4], [1, 501, 9], [2, 3, 2]):
        got = jt.index_select(jt.asarray(v), 1, jt.asarray(idx), tile_shape=tile)
        assert np.array_equal(np.asarray(got), exp), (dtype, tile)
    g = jax.jit(lambda a, i: jt.index_select(a, -2, i, tile_shape=[8, 100, 9]).to_jax())
    assert np.array_equal(np.asarray(g(jnp.asarray(v), jnp.asarray(idx))), exp), dtype
v = rng.standard_normal((37, 300, 9)).astype(np.float32)
w = rng.standard_normal((37, 501, 9)).astype(np.float32)
grad = jax.grad(lambda a: jnp.vdot(w, jt.index_select(a, 1, idx, tile_shape=[8, 64, 9])
                                   .to_jax()))(jnp.asarray(v))
ref = np.zeros_like(v)
np.add.at(ref, (slice(None), np.where(idx < 0, idx + 300, idx)), w)
print(np.allclose(np.asarray(grad), ref, rtol=1e-5, atol=1e-5), len(dtypes) >= 4)
"""


def _tiled_kernel_run(**env: str) -> list[str]:
    proc = _run_python(_TILED_KERNEL, JAX_PLATFORMS="cpu", **env)  # (the FFI buffer's path)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def test_uninitialised_output_is_off_by_default():
    """No FFI target is registered; the tiled loop starts from lax.empty (a zero fill on
    CPU) and gives the same results."""
    out = _tiled_kernel_run(JAXTENSOR_UNINITIALIZED_OUTPUT="")
    assert out == ["False False", "False True True", "False", "True True"], out


def test_uninitialised_output_opt_in():
    """JAXTENSOR_UNINITIALIZED_OUTPUT=1: the tiled loop starts from the no-op FFI buffer, not
    a broadcast zero fill; every element is still written; a user's jit keeps the direct
    gather (no FFI target, exportable)."""
    out = _tiled_kernel_run(JAXTENSOR_UNINITIALIZED_OUTPUT="1")
    assert out == ["True True", "True True False", "False", "True True"], out


# -- moved from the behaviour tests: buffers reused in place, storages held, kernel choice ------
def _buffer(t: jt.Tensor) -> int:
    return t._storage._array.unsafe_buffer_pointer()


def test_slice_write_reuses_the_buffer():
    t = jt.zeros(1 << 16)
    jax.block_until_ready(t._value())
    ptr = _buffer(t)
    for k in range(5):
        t[k * 10:k * 10 + 5] = float(k)
    t[100] = 1.0
    jax.block_until_ready(t._value())
    assert _buffer(t) == ptr


def test_view_write_reuses_the_buffer():
    t = jt.zeros((256, 256))
    ptr = _buffer(t)
    v = t[10:20, ::2]
    v[3] = 4.0
    jax.block_until_ready(t._value())
    assert _buffer(t) == ptr
    assert float(t[13, 6]) == 4.0 and float(t[13, 7]) == 0.0


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4)])
def test_a_flush_after_an_export_copies_once_then_writes_in_place(shape):
    t = jt.zeros(shape)
    origin = (0,) * len(shape)
    np.asarray(t)  # exported: the next flush copies
    p_exported = _buffer(t)
    t[origin] = -2.0
    t._value()
    p0 = _buffer(t)
    assert p0 != p_exported
    t[origin] = -1.0
    t._value()
    assert _buffer(t) == p0  # this flush updated the (unexported) buffer in place
    assert float(t[origin]) == -1.0


def test_jit_donates_unexported_buffers_and_keeps_exported_ones():
    f = jt.jit(lambda x: x.__setitem__(0, 1.0))
    x = jt.zeros(4)
    f(x)
    ptr = _buffer(x)
    f(x)  # donated: the update happens in the same buffer
    assert _buffer(x) == ptr
    held = x.to_jax()  # exported: must stay valid
    f(x)
    assert not held.is_deleted() and _buffer(x) != ptr
    g = jt.jit(lambda x: x.__setitem__(0, 1.0), donate=False)
    y = jt.zeros(2)
    keep = y._storage.array
    g(y)
    assert not keep.is_deleted()


def test_jit_gives_unwritten_arguments_back_in_their_own_buffers():
    # (donated to the call, returned unchanged: XLA aliases them, nothing is copied)
    f = jt.jit(lambda x, y: y * 2.0)
    x, y = jt.zeros(2), jt.ones(2)
    px, py = _buffer(x), _buffer(y)
    for _ in range(3):
        assert f(x, y).tolist() == [2.0, 2.0]
        assert (_buffer(x), _buffer(y)) == (px, py)
    assert x.tolist() == [0.0, 0.0] and y.tolist() == [1.0, 1.0]


def test_implicit_state_is_held_weakly():
    import weakref

    holder = {"w": jt.ones(3)}
    f = jt.jit(lambda x: x * holder["w"])
    assert f(jt.ones(3)).tolist() == [1.0, 1.0, 1.0]
    st = weakref.ref(holder["w"]._storage)
    holder["w"] = jt.full(3, 2.0)  # rebinding: the old Tensor is garbage now
    gc.collect()
    assert st() is None  # jaxtensor.jit does not keep it alive
    assert f(jt.ones(3)).tolist() == [2.0, 2.0, 2.0]  # the dead input forced a retrace


def test_views_share_their_owner_storage():
    x = jt.asarray(np.arange(24.0, dtype=np.float32).reshape(2, 3, 4))
    z = jt.asarray(np.ones((2, 2), np.complex64))
    for owner, view in [(x, x[1]), (x, x[:, ::2]), (x, x[0].T), (x, x.reshape((6, 4))),
                        (x, x[1][None, :, 2:]), (z, jt.real(z)), (z, z.imag[0])]:
        assert view.base is owner and view._storage is owner._storage
    assert x.reshape((6, 4)).T[2]._storage is x._storage


def test_transforms_docstring_examples():
    import doctest

    from jaxtensor._jit import _transforms

    res = doctest.testmod(_transforms, optionflags=doctest.ELLIPSIS)
    assert res.failed == 0 and res.attempted > 10


def test_index_select_out_is_written_in_place():
    x = np.random.default_rng(1).standard_normal((64, 300)).astype(np.float32)
    idx = np.random.default_rng(2).integers(0, 64, 500)
    for tile in (None, [64, 300]):  # the direct gather and the tiled loop
        out = jt.zeros((500, 300), dtype=jt.float32)
        ptr = _buffer(out)
        jt.index_select(jt.asarray(x), 0, jt.asarray(idx), out=out, tile_shape=tile)
        assert _buffer(out) == ptr, tile  # donated, written in place
        np.testing.assert_array_equal(np.asarray(out), x[idx])


def test_index_select_extremes_are_kept_per_live_index_array():
    x = jt.asarray(np.arange(30.0, dtype=np.float32).reshape(6, 5))
    rng = np.random.default_rng(5)
    for _ in range(60):  # new index arrays of one shape: ids get reused as arrays die
        jt.index_select(x, 0, jt.asarray(rng.integers(-6, 6, 4)))
    keep = jt.asarray(np.array([1, -1, 0, 2]))
    jt.index_select(x, 0, keep)
    assert _index_select._extremes[id(keep.to_jax())][1:] == (-1, 2)
    gc.collect()
    assert len(_index_select._extremes) < 10  # entries leave with their arrays


def test_default_tile_from_byte_budget():
    assert _index_select.default_tile((8, 2048, 512), 4, "cpu") == (1, 128, 512)
    assert _index_select.default_tile((16384, 256), 4, "cpu") == (256, 256)
    t = _index_select.default_tile((8, 2048, 512), 4, "gpu")
    assert np.prod(t) * 4 <= _config.TILE_BUDGET["gpu"]
    assert _index_select.default_tile((3, 2), 4, "cpu") == (3, 2)


def test_dispatch_heuristic(monkeypatch):
    ck = _index_select.choose_kernel
    monkeypatch.setattr(_config, "INDEX_SELECT_CPU_THREADS", 1)  # the rule measured on one core
    for donated in (False, True):  # fresh output and out= follow the same rule
        assert ck("cpu", (4096, 1024), 4, donated, 4096, 1) == "tiled"  # column gather
        assert ck("cpu", (4096, 256, 4), 4, donated, 4096, 4) == "tiled"  # short rows (16 B)
        assert ck("cpu", (512, 512, 16), 4, donated, 512, 16) == "direct"  # 64 B rows: equal
        assert ck("cpu", (8, 2048, 512), 4, donated, 8, 512) == "direct"  # long rows: equal
        assert ck("cpu", (16384, 256), 4, donated, 1, 256) == "direct"  # pure row gather
        assert ck("cpu", (3, 2), 4, donated, 3, 1) == "direct"  # below one tile
    monkeypatch.setattr(_config, "INDEX_SELECT_CPU_THREADS", 2)  # XLA splits the gather over threads
    assert ck("cpu", (4096, 1024), 4, False, 4096, 1) == "direct"
    assert ck("gpu", (4096, 1024), 4, False, 4096, 1) == "direct"
    x = jt.asarray(np.arange(12.0).reshape(3, 4))
    monkeypatch.setattr(_config, "INDEX_SELECT_DISPATCH", "tiled")  # reaches the tiled kernel
    assert ck("cpu", (3, 2), 8, False) == "tiled"
    np.testing.assert_array_equal(np.asarray(jt.index_select(x, 1, [3, 0])),
                                  np.asarray(x)[:, [3, 0]])


def test_default_under_tracing_is_exportable(monkeypatch):
    """Inside a user's jit the default is the direct gather (no loop, and with the opt-in
    uninitialised output no CPU-only FFI target), even for a shape the eager rule runs
    tiled; an explicit tile_shape is tiled."""
    monkeypatch.setattr(_config, "INDEX_SELECT_CPU_THREADS", 1)
    x = jnp.ones((2048, 256), jnp.float32)
    idx = jnp.arange(128) % 256
    assert _index_select.choose_kernel("cpu", (2048, 128), 4, False, 2048, 1) == "tiled"
    f = jax.jit(lambda v, i: jt.index_select(v, 1, i).to_jax())
    assert " while(" not in f.lower(x, idx).compile().as_text()
    jax.export.export(f)(x, idx)  # serialisable
    g = jax.jit(lambda v, i: jt.index_select(v, 1, i, tile_shape=[64, 128]).to_jax())
    assert " while(" in g.lower(x, idx).compile().as_text()
    np.testing.assert_array_equal(np.asarray(g(x, idx)), np.asarray(f(x, idx)))


def test_the_plan_key_names_what_a_call_passes():
    """A call's spec (its plan's key) is a NamedTuple: each leaf described by kind, with
    named fields, hashed as the plain tuple (the plan dictionary is as fast)."""
    from jaxtensor._jit import _spec

    @jt.jit
    def f(x, v, i, s):
        v[i] += 1.0

    x = jt.zeros(4)
    f(x, x[1:], 2, "s")
    (spec,) = _state(f)._plans
    assert type(spec) is _spec.Spec and hash(spec) == hash(tuple(spec))
    whole, view, number, static = spec.leaves
    assert whole == _spec.OnStorage(storage=0, view=None, n_starts=0, has_base=False)
    assert type(view) is _spec.OnStorage and view.storage == 0 and view.has_base
    assert view.n_starts == 1 and view.view is not None
    assert number is _spec.VALUE and static == _spec.Static("s")
    assert (spec.n_args, spec.n_storages, spec.n_starts, spec.implicit) == (4, 1, 1, ())
    assert x.tolist() == [0.0, 0.0, 0.0, 1.0]
