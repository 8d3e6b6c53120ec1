"""``x[mask] op= v`` and ``x[mask] = <arithmetic of x[mask]>`` inside ``jaxtensor.jit`` with
a traced mask (``_indexing/_masks.py``): random programs against NumPy running the same
statements, and the uses that need the number of True values raise
``NonConcreteBooleanIndexError``."""

from __future__ import annotations

import operator

import jax
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxtensor as jt

_SHAPES = [(6,), (4, 3), (2, 3, 2)]
_INPLACE = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul,
            "/=": operator.itruediv}
_INT_INPLACE = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul,
                "//=": operator.ifloordiv, "%=": operator.imod}


@st.composite
def _programs(draw: st.DrawFn) -> tuple:
    shape = draw(st.sampled_from(_SHAPES))
    dtype = draw(st.sampled_from(["float64", "int64"]))
    k = draw(st.integers(1, len(shape)))  # the mask covers the first k axes ...
    lead = draw(st.sampled_from(["none", "slice", "int"])) if k < len(shape) else "none"
    stmts = []
    for _ in range(draw(st.integers(1, 4))):
        ops = _INPLACE if dtype == "float64" else _INT_INPLACE
        kind = draw(st.sampled_from(["inplace", "inplace_row", "expr", "set"]))
        stmts.append((kind, draw(st.sampled_from(sorted(ops))),
                      draw(st.sampled_from([2, 3, -1]))))
    return shape, dtype, k, lead, stmts


def _key(m, lead):
    # ... after a leading int or slice (then over the axes after the first)
    return (m,) if lead == "none" else (slice(None), m) if lead == "slice" else (1, m)


def _rest(prog) -> tuple[int, ...]:
    """The selection's axes after the count axis (a value of that shape broadcasts)."""
    shape, _, k, lead, _ = prog
    return tuple(shape[k:]) if lead == "none" else tuple(shape[1 + k:])


def _run(x, y, m, prog, xp):
    _, dtype, _, lead, stmts = prog
    key = _key(m, lead)
    ops = _INPLACE if dtype == "float64" else _INT_INPLACE
    rest = _rest(prog)
    row = np.arange(int(np.prod(rest)), dtype=dtype).reshape(rest) + 1
    for kind, op, c in stmts:
        if kind == "inplace":
            t = x[key]
            x[key] = ops[op](t, c)
        elif kind == "inplace_row":  # a value broadcast along the selection
            t = x[key]
            x[key] = ops[op](t, row if xp is np else jt.asarray(row))
        elif kind == "expr":
            x[key] = x[key] * c - y[key]
        else:
            x[key] = c


@settings(max_examples=60)
@given(prog=_programs(), data=st.data())
def test_masked_arithmetic_under_jit_matches_numpy(prog, data) -> None:
    shape, dtype, k, lead, _ = prog
    mshape = shape[:k] if lead == "none" else shape[1:1 + k]
    flat = data.draw(st.lists(st.booleans(), min_size=int(np.prod(mshape)),
                              max_size=int(np.prod(mshape))), label="mask")
    mask = np.asarray(flat, bool).reshape(mshape)
    x0 = (np.arange(np.prod(shape)).reshape(shape) * 3 - 7).astype(dtype)
    y0 = (np.arange(np.prod(shape)).reshape(shape) % 4 + 1).astype(dtype)
    wx, wy = x0.copy(), y0.copy()
    _run(wx, wy, mask, prog, np)
    x, y = jt.asarray(x0), jt.asarray(y0)
    jt.jit(lambda x, y, m: _run(x, y, m, prog, jt))(x, y, jt.asarray(mask))
    np.testing.assert_allclose(x.numpy(), wx, rtol=1e-12)
    np.testing.assert_array_equal(y.numpy(), wy)


def test_x_gt_zero_idioms() -> None:
    a = np.linspace(-2.0, 3.0, 11)
    want = a.copy()
    want[want > 0] += 1.0
    want[want < -1] *= 2.0
    want[(want > 1) & (want < 3)] **= 2
    x = jt.asarray(a)

    @jt.jit
    def f(x):
        x[x > 0] += 1.0
        x[x < -1] *= 2.0
        x[(x > 1) & (x < 3)] **= 2

    f(x)
    np.testing.assert_allclose(x.numpy(), want, rtol=1e-12)


def _sum_of_selection(x):
    return jt.sum(x[x > 0])


def _selection_shaped_value(x):
    x[x > 0] += jt.ones(3)


def _other_mask(x):
    x[x > 0] = x[x < 2] * 2


def _into_plain_index(x):
    x[0] = x[x > 0]


@pytest.mark.parametrize("fn", [_sum_of_selection, _selection_shaped_value, _other_mask,
                                _into_plain_index], ids=lambda f: f.__name__)
def test_uses_that_need_the_count_raise(fn) -> None:
    x = jt.asarray(np.asarray([-1.0, 2.0, 3.0, 0.5]))
    before = x.numpy().copy()
    with pytest.raises(jt.NonConcreteBooleanIndexError):
        jt.jit(fn)(x)
    np.testing.assert_array_equal(x.numpy(), before)


def test_eager_masks_are_unchanged() -> None:
    x = jt.asarray(np.asarray([-1.0, 2.0, 3.0]))
    sel = x[x > 0]
    assert isinstance(sel, jt.Tensor) and sel.shape == (2,)
    x[x > 0] += 1.0
    np.testing.assert_array_equal(x.numpy(), [-1.0, 3.0, 4.0])


def test_int_dtype_rule_as_eager() -> None:
    """An in-place operator keeps the eager dtype rule: ``int += float`` raises."""
    x = jt.asarray(np.asarray([1, -2, 3]))
    with pytest.raises(TypeError):
        x[x > 0] += 1.5
    with pytest.raises(TypeError):
        jt.jit(lambda x: x.__setitem__(x > 0, _iadd(x[x > 0], 1.5)))(x)
    np.testing.assert_array_equal(x.numpy(), [1, -2, 3])


def _iadd(a, b):
    a += b
    return a


def test_under_jax_jit_with_a_tensor_made_inside() -> None:
    def f(a):
        x = jt.asarray(a)
        x[x > 1] -= 1.0
        return x.__jax_array__()

    a = np.asarray([0.5, 2.0, 3.5])
    np.testing.assert_allclose(np.asarray(jax.jit(f)(a)), [0.5, 1.0, 2.5])


# (a mask that is a view of a traced mask: read anew at every use, it is still one mask)
_VIEW_CASES = {
    "row, in place": "x[0, m[0]] += 10",
    "int-indexed row, written back": "x[1, m[1]] = x[1, m[1]] * 2 - 1",
    "reversed": "x[m[::-1]] = x[m[::-1]] + 10",
    "reversed, named once": "mw = m[::-1]\n    x[mw] += 10",
    "slice of rows": "x[1:][m[1:]] -= 3",
    "transposed": "x.T[m.T] = x.T[m.T] * 3",
    "column": "x[:, 2][m[:, 2]] = x[:, 2][m[:, 2]] * 0 + 7",
    "strided": "x[::2][m[::2]] *= 4",
}


@pytest.mark.parametrize("case", list(_VIEW_CASES))
def test_views_of_a_traced_mask_under_jit_match_eager(case: str) -> None:
    """``m = x > 0; x[0, m[0]] += 10``, ``w[m[::-1]] += 10``: a mask that is a view of a
    traced mask (a row, an int-indexed row, reversed, a slice, transposed, a column,
    strided) selects under jit as eagerly and as NumPy running the same statements, for
    several values of the mask."""
    ns: dict = {}
    exec(f"def fn(x):\n    m = x > 0\n    {_VIEW_CASES[case]}", ns)  # noqa: S102
    fn = ns["fn"]
    jitted = jt.jit(fn)
    rng = np.random.default_rng(0)
    for _ in range(3):
        x0 = rng.integers(-3, 4, size=(4, 3)).astype(np.float32)
        nx, ex, jx = x0.copy(), jt.asarray(x0), jt.asarray(x0)
        fn(nx)
        fn(ex)
        jitted(jx)
        np.testing.assert_array_equal(ex.numpy(), nx, err_msg=case)
        np.testing.assert_array_equal(jx.numpy(), nx, err_msg=case)


_REFLECTED_AND_COMPARED = {
    "t * x[m]": lambda v, t: t * v,
    "t - x[m]": lambda v, t: t - v,
    "np.float64(2) * x[m]": lambda v, t: np.float64(2) * v,
    "2 ** x[m]": lambda v, t: 2 ** v,
    "x[m] == 3": lambda v, t: v == 3,
    "x[m] != 3": lambda v, t: v != 3,
    "(x[m] < 3) & (x[m] >= 1)": lambda v, t: (v < 3) & (v >= 1),
    "~(x[m] <= 2)": lambda v, t: ~(v <= 2),
    "1 < x[m]": lambda v, t: 1 < v,
    "t > x[m]": lambda v, t: t > v,
}


@pytest.mark.parametrize("name", list(_REFLECTED_AND_COMPARED))
def test_reflected_operators_and_comparisons_of_a_selection_under_jit(name) -> None:
    """A Tensor, a NumPy scalar or a number on the left of ``x[m]``, and comparisons of
    ``x[m]``: element-wise, as eagerly (a comparison returned Python's identity answer, a
    bool, and ``t * x[m]`` raised)."""
    fn = _REFLECTED_AND_COMPARED[name]

    def f(x, t):
        m = x > 0
        x[m] = fn(x[m], t)

    rng = np.random.default_rng(len(name))
    for _ in range(3):
        v = rng.integers(-3, 5, 8).astype(np.float64)
        a, b = jt.asarray(v), jt.asarray(v)
        f(a, jt.asarray(2.0))
        jt.jit(f)(b, jt.asarray(2.0))
        np.testing.assert_array_equal(np.asarray(b), np.asarray(a))


@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0)])
def test_a_traced_empty_mask_selects_nothing(shape):
    """A mask of no elements traced inside ``jaxtensor.jit`` or a loop body selects nothing
    (its count is known: 0), as eagerly and in NumPy: ``x[x > hi] = hi``, ``x[m] += 1``,
    ``x[m].sum()`` (they raised ``NonConcreteBooleanIndexError``)."""
    def prog(x, hi):
        x[x > hi] = hi
        x[x > 0] += 1.0
        return x[x > 1].sum()

    a = np.zeros(shape)
    x = jt.asarray(a)
    got = jt.jit(prog)(x, 2.0)
    want_x = a.copy()
    want = prog(want_x, 2.0)
    assert float(got) == float(want) and x.shape == a.shape

    def looped(x):
        def body(i):
            x[x > i] = 0.0
        jt.fori_loop(0, 2, body)
        return x

    assert np.asarray(looped(jt.asarray(a))).shape == shape
    assert np.asarray(jt.jit(looped)(jt.asarray(a))).shape == shape
