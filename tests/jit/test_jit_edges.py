"""Edges of ``jaxtensor.jit`` (issue 22): overlapping writes after writes through reshape
views, writes kept by a failing check at any nesting depth, the ``base`` of returned views of
closed-over Tensors, errors that name the user's function rather than jaxtensor's, and a
static bool that must not take the program of a Tensor passed twice.
Eager code is the oracle throughout."""

from __future__ import annotations

import math
import os
from typing import Any

import jax
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

import jaxtensor as jt
from measure import count_compiles

# -- 1. overlapping read-modify-writes after a write through a reshape view ------------------
_SHAPES = [(8, 16), (6, 4), (4, 6, 2)]


def _factorings(n: int) -> list[tuple[int, ...]]:
    out = [(n,)]
    for a in range(2, n):
        if n % a == 0:
            out.append((a, n // a))
    return out


@hst.composite
def _slices(draw: hst.DrawFn, n: int) -> slice:
    a = draw(hst.integers(0, n - 1))
    b = draw(hst.integers(a + 1, n))
    return slice(a, b, draw(hst.sampled_from([1, 1, 2])))


@hst.composite
def _reshape_programs(draw: hst.DrawFn) -> tuple:
    shape = draw(hst.sampled_from(_SHAPES))
    size = math.prod(shape)
    rs = draw(hst.sampled_from(_factorings(size)))
    key = tuple(draw(_slices(n)) for n in rs[:draw(hst.integers(1, len(rs)))])
    op = draw(hst.sampled_from(["set", "mul", "iadd"]))
    n0 = shape[0]
    k = draw(hst.integers(1, n0 - 1))
    src = draw(hst.integers(0, n0 - k))
    dst = draw(hst.integers(0, n0 - k).filter(lambda d: d != src))
    return shape, rs, key, op, k, src, dst


def _reshape_program(rs: tuple, key: tuple, op: str, k: int, src: int, dst: int, via: str):
    def f(x: jt.Tensor) -> None:
        r = x.reshape(rs)
        if op == "set":
            r[key] = 7.0
        elif op == "mul":
            r[key] = r[key] * 2
        else:
            r[key] += 3.0
        if via == "slice":
            value = x[src:src + k]
        else:  # the same rows read through a reshape of the whole Tensor
            row = math.prod(x.shape[1:])
            value = x.reshape(-1)[src * row:(src + k) * row].reshape((k,) + x.shape[1:])
        x[dst:dst + k] = value + 1
    return f


@pytest.mark.parametrize("via", ["slice", "reshape"])  # how the overlapping value is read
@settings(max_examples=15)
@given(_reshape_programs())
def test_overlapping_writes_after_reshape_view_write(via: str, prog: tuple) -> None:
    shape, rs, key, op, k, src, dst = prog
    f = _reshape_program(rs, key, op, k, src, dst, via)
    start = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
    eager, compiled = jt.asarray(start), jt.asarray(start)
    f(eager)
    jt.jit(f)(compiled)
    np.testing.assert_array_equal(np.asarray(compiled), np.asarray(eager))


# -- 7. views of closed-over Tensors returned from jaxtensor.jit ---------------------------
_VIEWS = {
    "slice": lambda t: t[1:],
    "strided": lambda t: t[::2, 1:],
    "int": lambda t: t[1],
    "ellipsis": lambda t: t[..., 0],
    "new_axis": lambda t: t[None, :, 1],
    "T": lambda t: t.T,
    "reshape": lambda t: t.reshape(-1),
    "permute_dims": lambda t: jt.permute_dims(t, (1, 0)),
    "expand_dims": lambda t: jt.expand_dims(t, axis=0),
    "flip": lambda t: jt.flip(t, axis=0),
    "view_of_view": lambda t: t[1:][:, 2],
    "itself": lambda t: t,
}


def _closed_over(kind: str, owner_is_view: bool, depth: int):
    start = np.arange(24, dtype=np.float32).reshape(4, 6)
    owner = jt.asarray(start)
    c = owner[:, :] if owner_is_view else owner
    f = lambda: _VIEWS[kind](c)  # noqa: E731
    for _ in range(depth):
        f = jt.jit(f)
    return owner, c, f


@settings(max_examples=30)
@given(hst.sampled_from(sorted(_VIEWS)), hst.booleans(), hst.integers(1, 2))
def test_returned_view_of_closed_over_tensor_reports_its_owner(kind: str, owner_is_view: bool,
                                                               depth: int) -> None:
    owner, c, f = _closed_over(kind, owner_is_view, 0)
    want = f()
    e_owner, e_c = owner, c
    owner, c, f = _closed_over(kind, owner_is_view, depth)
    for _ in range(2):  # the first call discovers the closed-over Tensor; the second has it
        got = f()
        if not owner_is_view:  # (a closed-over view returned as it is comes back as an
            assert (got is c) == (want is e_c)  # equal view of the same owner)
        assert (got.base is owner) == (want.base is e_owner)
        assert (got.base is c) == (want.base is e_c)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    # the result shares the owner's storage, as eagerly
    want[...] = -1
    got[...] = -1
    np.testing.assert_array_equal(np.asarray(owner), np.asarray(e_owner))


# -- 4. a failing check inside nested jaxtensor.jit calls keeps the writes made before it ---
_STMT = hst.one_of(
    hst.tuples(hst.just("set"), hst.integers(0, 4), hst.integers(-9, 9)),
    hst.tuples(hst.just("idx")),  # x[i] = 3: a check of a traced index
    hst.tuples(hst.just("val"), hst.integers(0, 4)),  # x[p] = v: a check of a traced value
)


def _level(pre: list, post: list, inner: Any) -> Any:
    def run(stmts: list, x: jt.Tensor, i: jt.Tensor, v: jt.Tensor) -> None:
        for s in stmts:
            if s[0] == "set":
                x[s[1]] = s[2]
            elif s[0] == "idx":
                x[i] = 3
            else:
                x[s[1]] = v

    def f(x: jt.Tensor, i: jt.Tensor, v: jt.Tensor) -> None:
        run(pre, x, i, v)
        if inner is not None:
            inner(x[1:], i, v) if len(pre) % 2 else inner(x, i, v)  # (through a view too)
        run(post, x, i, v)
    return f


def _outcome(f: Any, i: int, v: int) -> tuple:
    x = jt.asarray(np.arange(8, dtype=np.int8))  # (the innermost view has 6 or more)
    try:
        f(x, jt.asarray(i), jt.asarray(v))
        err = None
    except (IndexError, ValueError, OverflowError) as e:
        err = (type(e), str(e))
    return err, np.asarray(x).tolist()


@settings(max_examples=15)
@given(hst.integers(2, 3), hst.data())
def test_failed_check_in_nested_jit_keeps_earlier_writes(depth: int, data: hst.DataObject) -> None:
    levels = [(data.draw(hst.lists(_STMT, max_size=3)), data.draw(hst.lists(_STMT, max_size=2)))
              for _ in range(depth)]
    i = data.draw(hst.sampled_from([1, -2, 4, 9, -9]))  # (9 and -9 are out of bounds for 6 to 8)
    v = data.draw(hst.sampled_from([5, -7, 300]))  # (300 does not fit int8)
    eager = compiled = None
    for lvl_pre, lvl_post in reversed(levels):
        eager = _level(lvl_pre, lvl_post, eager)
        compiled = jt.jit(_level(lvl_pre, lvl_post, compiled))
    assert _outcome(compiled, i, v) == _outcome(eager, i, v)


# -- 8. errors from a compiled call name the user's function and arguments -------------------
_JT_DIR = os.path.dirname(os.path.abspath(jt.__file__)) + os.sep


def _use(kind: str, t: Any) -> Any:
    """An operation on ``t`` that eager code runs and tracing cannot (or that fails both)."""
    if kind == "bool":
        return 1 if t[0] > 0 else 0
    if kind == "int":
        return jt.zeros(int(t[0]))
    if kind == "float":
        return float(t[0])
    if kind == "index":
        t[10] = 1
        return None
    t[...] = jt.zeros(7)  # "shape"
    return None


def _named(kind: str, which: str) -> Any:
    def user_function(x: jt.Tensor, y: jt.Tensor, params: dict) -> Any:
        t = {"x": x, "y": y, "params['w']": params["w"]}[which]
        return _use(kind, t)
    return user_function


def _raised(fn: Any, *args: Any, **kwargs: Any) -> BaseException:
    try:
        fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - (what is compared is the exception)
        return e
    raise AssertionError("nothing raised")


def _own_frames(e: BaseException) -> list[str]:
    """jaxtensor's frames in ``e``'s traceback that are not marked hidden."""
    tb, own = e.__traceback__, []
    while tb is not None:
        f = tb.tb_frame
        if f.f_code.co_filename.startswith(_JT_DIR) and not f.f_locals.get(
                "__tracebackhide__"):
            own.append(f"{f.f_code.co_filename}:{f.f_code.co_name}")
        tb = tb.tb_next
    return own


def _frame_names(e: BaseException) -> list[str]:
    tb, names = e.__traceback__, []
    while tb is not None:
        names.append(tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    return names


@pytest.mark.parametrize("kind", ["bool", "int", "float", "index", "shape"])
@pytest.mark.parametrize("which", ["x", "y", "params['w']"])
@pytest.mark.parametrize("depth", [1, 2])
def test_errors_name_the_users_function_and_argument(kind: str, which: str, depth: int) -> None:
    def args() -> tuple:
        return (jt.ones(4), jt.arange(4.0) + 1, {"w": jt.full(4, 2.0)})
    fn = _named(kind, which)
    compiled = fn
    for _ in range(depth):
        compiled = jt.jit(compiled)
    err = _raised(compiled, *args())
    msg = str(err)
    for internal in ("_body", "_jit.py", "inputs[", "_run"):
        assert internal not in msg
    assert _own_frames(err) == []  # only the (hidden) entries of jaxtensor.jit are left
    assert "user_function" in _frame_names(err)  # ... and the line of the user's code
    if kind in ("bool", "int", "float"):
        assert isinstance(err, jax.errors.ConcretizationTypeError)
        code = fn.__code__
        assert f"user_function at {code.co_filename}:{code.co_firstlineno}" in msg
        assert f"the argument {which}" in msg
    else:  # the eager error, as eager code raises it
        want = _raised(fn, *args())
        assert (type(err), msg) == (type(want), str(want))


def test_errors_keep_their_chain() -> None:
    def f(x: jt.Tensor) -> None:
        try:
            x[10] = 1
        except IndexError as e:
            raise RuntimeError("while writing") from e
    err = _raised(jt.jit(f), jt.ones(3))
    assert isinstance(err, RuntimeError) and isinstance(err.__cause__, IndexError)
    assert _own_frames(err) == [] and "f" in _frame_names(err)


def _styled(mode: str, x: jt.Tensor, *rest: Any, scale: Any = 1.0, **extra: Any) -> None:
    t = {"x": x, "rest[1]": rest[1] if len(rest) > 1 else None, "scale": scale,
         "extra['z']": extra.get("z")}[mode]
    if t[0] > 0:
        pass


@pytest.mark.parametrize("which", ["x", "rest[1]", "scale", "extra['z']"])
def test_errors_name_arguments_however_passed(which: str) -> None:
    """Positional, variadic, keyword and ``**kwargs`` arguments beside a static one."""
    f = jt.jit(_styled, static_argnums=0)
    err = _raised(f, which, jt.ones(2), 1.0, jt.ones(2), scale=jt.ones(2), z=jt.ones(2))
    assert isinstance(err, jax.errors.ConcretizationTypeError)
    assert f"the argument {which}" in str(err) and "_styled at " in str(err)


def test_traceback_filtering_off_keeps_jaxtensors_frames() -> None:
    def f(x: jt.Tensor) -> None:
        x[10] = 1
    before = jax.config.jax_traceback_filtering
    jax.config.update("jax_traceback_filtering", "off")
    try:
        err = _raised(jt.jit(f), jt.ones(3))
    finally:
        jax.config.update("jax_traceback_filtering", before)
    assert isinstance(err, IndexError) and _own_frames(err) != []


@jax.tree_util.register_pytree_node_class
class _Strict:
    """A pytree node that refuses anything but Tensors as its leaves."""

    def __init__(self, a: jt.Tensor, b: jt.Tensor) -> None:
        if not (isinstance(a, jt.Tensor) and isinstance(b, jt.Tensor)):
            raise TypeError("_Strict holds Tensors")
        self.a, self.b = a, b

    def tree_flatten(self) -> tuple:
        return (self.a, self.b), None

    @classmethod
    def tree_unflatten(cls, aux: Any, children: tuple) -> _Strict:
        return cls(*children)


@pytest.mark.parametrize("leaf", [0, 1])
def test_errors_name_arguments_of_strict_pytree_nodes(leaf: int) -> None:
    def f(scale: jt.Tensor, pair: _Strict) -> None:
        if (pair.a, pair.b)[leaf][0] > scale[0]:
            pass
    err = _raised(jt.jit(f), jt.ones(1), _Strict(jt.ones(2), jt.ones(2)))
    assert isinstance(err, jax.errors.ConcretizationTypeError)
    assert f"the argument pair (leaf {leaf} of 2)" in str(err) or (
        f"pair (leaf {leaf} of 2)" in str(err) and "scale" in str(err))


# -- closed-over Tensors: traced and compiled once, as an argument is ----------------------
_GLOBAL_STATE = jt.zeros(8)


def _closed_forms(traces: list) -> dict[str, tuple[Any, jt.Tensor, int]]:
    """Functions writing a Tensor they close over (named in the closure, a global, reached
    through a container), with the Tensor and the most traces allowed over two calls."""
    cell = jt.zeros(8)
    box = {"t": jt.zeros(8)}

    def in_cell(i: Any) -> None:
        traces.append(1)
        cell[i] += 1.0
        cell[0:2] *= 2.0

    def in_global(i: Any) -> None:
        traces.append(1)
        _GLOBAL_STATE[i] += 1.0
        _GLOBAL_STATE[0:2] *= 2.0

    def in_container(i: Any) -> None:
        traces.append(1)
        box["t"][i] += 1.0
        box["t"][0:2] *= 2.0

    # (found by the trace: traced again with it as an input, before anything is compiled)
    return {"cell": (in_cell, cell, 1), "global": (in_global, _GLOBAL_STATE, 1),
            "container": (in_container, box["t"], 2)}


@pytest.mark.parametrize("form", ["cell", "global", "container"])
def test_a_closed_over_tensor_compiles_once(form: str) -> None:
    """A function writing a Tensor it closes over: one compile over its first two calls
    (it was two: the first plan made without donation, the second with it), one trace
    where the closure or the globals name the Tensor; the values are eager code's."""
    traces: list = []
    fn, t, max_traces = _closed_forms(traces)[form]
    t[...] = 0.0
    f = jt.jit(fn)
    n = count_compiles(lambda: (f(3), f(5)))
    assert n == 1 and len(traces) <= max_traces, (n, len(traces))
    traced = len(traces)  # (not cleared: the function names the list, so a change retraces)
    eager = np.zeros(8, np.float32)
    eager[3] += 1.0
    eager[0:2] *= 2.0
    eager[5] += 1.0
    eager[0:2] *= 2.0
    np.testing.assert_array_equal(t.numpy(), eager)
    f(1)  # (donated, in place: tests/internals/test_jit_internals.py)
    assert count_compiles(lambda: f(2)) == 0 and len(traces) == traced


# -- a bool argument against a Tensor passed twice (one program each) --------------------
@pytest.mark.parametrize("flag_first", [False, True])
@pytest.mark.parametrize("leaf", [0, 1])
def test_a_bool_argument_is_not_an_argument_passed_twice(leaf: int, flag_first: bool) -> None:
    """``f(a, b, a)`` passes its first Tensor twice, ``f(a, b, False)`` a static bool: two
    programs, whichever call comes first (``False == 0``, ``True == 1``: the two calls'
    descriptions once compared equal, and the second call ran the first call's program)."""

    def f(a: jt.Tensor, b: jt.Tensor, c: Any) -> jt.Tensor:
        return a * 2.0 + b * 3.0 + c

    jf = jt.jit(f)
    a, b = jt.asarray([1.0, 2.0]), jt.asarray([10.0, 20.0])
    calls = [(a, b, (a, b)[leaf]), (a, b, bool(leaf))]
    if flag_first:
        calls.reverse()
    for args in calls + calls:
        np.testing.assert_array_equal(jf(*args).numpy(), f(*args).numpy())
