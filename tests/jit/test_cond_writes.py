"""``jt.cond`` whose branches write Tensors: a write costs its region, not the Tensor.

The compiled program of a loop whose body is a ``cond`` writing one element copies no buffer
of the Tensor's size per iteration (the optimized HLO's loop bodies, at two sizes), nor does
one whose conds (two-sided, one-sided, nested) write and read the same tables, push onto a
stack and bump a 0-D counter, in a ``fori_loop`` and a ``while_loop`` (values against the
Python loop on NumPy). Random
programs of branches that write, read what they wrote, return values and nest, with
out-of-bounds writes in untaken branches, give what the Python ``if`` gives on NumPy (eagerly
at the top level and inside ``jaxtensor.jit``), and an out-of-bounds write in the taken
branch raises the eager ``IndexError`` leaving what the Python loop left.
"""

from __future__ import annotations

import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlo
import jaxtensor as jt


# -- the compiled program ------------------------------------------------------------------
def _lcs_like(n: int):
    def f(x, a):
        def body(i):
            j = i % n

            def match():
                x[j] = x[j - 1] + 1.0

            def differ():
                x[j] = jt.maximum(x[j], x[(j + 1) % n])
            jt.cond(a[i % 5] > 0.5, match, differ)
        jt.fori_loop(1, 50, body)
        return x
    return f


@pytest.mark.parametrize("check_bounds", [False, True])
def test_no_copy_of_the_written_tensor_per_iteration(check_bounds):
    """Both branches write one element of a Tensor of 1,000 and of 100,000 elements: no
    buffer of the Tensor's size is copied inside the loop (a conditional returning it made
    XLA:CPU copy it every iteration)."""
    a = jt.asarray([0.1, 0.9, 0.7, 0.2, 0.6])
    for n in (1_000, 100_000):
        f = jt.jit(_lcs_like(n), check_bounds=check_bounds)
        x = jt.zeros(n)
        text = f.lower(x, a).compile().as_text()
        assert hlo.in_loops(text), "no loop in the compiled program"
        big = [c for c in hlo.copied(text) if c >= n]
        assert big == [], f"copies of {big} elements per iteration at n={n}"


# Each cond of the class writes a table of its own (a copy's size names the case): both
# branches writing one element, two different elements, each reading the element the other
# writes, one branch writing, conds nested, pushes onto a stack with a 0-D counter bumped
# (nested conds, the value read from the stack before them), and a branch of two writes whose
# values read nothing of the table.
_CASES = ("same", "different", "crossed", "one_sided", "nested", "stack", "two_writes")


def _class_body(h, tables, top, a, i):
    """One iteration over ``tables`` (``h``: numpy or jaxtensor helpers)."""
    same, diff, crossed, one, nested, stack, two = tables
    n = len(same)
    j = i % (n - 2) + 1
    p, q = a[i % 5] > 0.5, a[(i + 2) % 5] > 0.3

    def set_(t, k, v):
        def write():
            t[k] = v()
        return write

    h.cond(p, set_(same, j, lambda: same[j - 1] + 1.0),
           set_(same, j, lambda: h.maximum(same[j - 1], same[j + 1])))
    h.cond(p, set_(diff, j, lambda: diff[j - 1] + 1.0), set_(diff, j + 1, lambda: diff[j] * 2.0))
    h.cond(p, set_(crossed, j, lambda: crossed[j + 1] + 1.0),
           set_(crossed, j + 1, lambda: crossed[j] - 1.0))
    h.cond(p, set_(one, j, lambda: one[j - 1] + 1.0), lambda: None)
    h.cond(p, lambda: h.cond(q, set_(nested, j, lambda: nested[j - 1] + 1.0),
                             set_(nested, j - 1, lambda: nested[j] * 0.5)),
           set_(nested, j + 1, lambda: nested[j] + nested[j - 1]))

    last = stack[top - 1]  # (read before the conds, used in them: as flood fill's pop)

    def push(v):
        def write():
            stack[top] = v
            top[...] += 1
        return write

    def fill():
        for d in (1.0, 2.0, 3.0):
            h.cond((last + d > 2.5) & (top < n - 1), push(last + d), lambda: None)
    h.cond(p, fill, lambda: None)

    def both():
        two[j] = two[j - 1] + 1.0
        two[j + 1] = i * 2.0
    h.cond(p, both, set_(two, j - 1, lambda: 3.0))


_A = [0.1, 0.9, 0.7, 0.2, 0.6]
_TRIPS = 40


def _class_loop(kind):
    def f(tables, top, a):
        if kind == "fori":
            jt.fori_loop(0, _TRIPS, lambda i: _class_body(JT, tables, top, a, i))
        else:
            i = jt.zeros((), dtype=jt.int64)

            def step():
                _class_body(JT, tables, top, a, i)
                i[...] += 1
            jt.while_loop(lambda: i < _TRIPS, step)
        return tables, top
    return f


def _class_numpy(n):
    tables = [np.arange(n + 10 * k, dtype=np.float64) % 7 for k in range(len(_CASES))]
    top = np.ones((), np.int64)
    for i in range(_TRIPS):
        _class_body(NP, tables, top, np.array(_A), i)
    return tables, top


@pytest.mark.parametrize("kind", ["fori", "while"])
def test_conds_writing_tables_in_loops_copy_no_table(kind):
    """Every case of the class inside a fori and a while loop, at two sizes: no buffer of a
    table's size is copied inside the loop bodies (the branches' gated writes, and reads
    computed again after them, made XLA:CPU copy the table every iteration) and no XLA
    conditional is entered; the program gives what the Python loop gives on NumPy."""
    f = jt.jit(_class_loop(kind))
    for n in (200, 20_000):
        tables = [jt.asarray(np.arange(n + 10 * k, dtype=np.float64) % 7)
                  for k in range(len(_CASES))]
        top, a = jt.ones((), dtype=jt.int64), jt.asarray(_A, dtype=jt.float64)
        text = f.lower(tables, top, a).compile().as_text()
        assert hlo.in_loops(text), "no loop in the compiled program"
        copied = [_CASES[(c - n) // 10] for c in hlo.copied(text) if c >= n]
        assert copied == [], f"tables copied per iteration at n={n}: {copied}"
        # (the 0-D counter's gated += entered an XLA conditional, microseconds, per push)
        assert not any(" conditional(" in line for line in hlo.in_loops(text))
    got, got_top = f(tables, top, a)
    want, want_top = _class_numpy(n)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w)
    assert int(got_top) == int(want_top)


def test_a_branch_with_a_loop_stays_a_conditional():
    """A branch with a loop inside runs only when taken (an XLA conditional), with the same
    values as the Python ``if``."""
    def f(x, a):
        def body(i):
            def heavy():
                def inner(k):
                    x[k] += 1.0
                jt.fori_loop(0, 4, inner)
            jt.cond(a[i % 5] > 0.5, heavy, lambda: x.__setitem__(i % 8, -1.0))
        jt.fori_loop(0, 6, body)
        return x
    a = np.array([0.1, 0.9, 0.7, 0.2, 0.6], np.float32)
    g = jt.jit(f)
    text = g.lower(jt.zeros(8), jt.asarray(a)).compile().as_text()
    assert any(" conditional(" in line for line in hlo.in_loops(text))
    want = np.zeros(8, np.float32)
    for i in range(6):
        if a[i % 5] > 0.5:
            want[:4] += 1.0
        else:
            want[i % 8] = -1.0
    np.testing.assert_array_equal(g(jt.zeros(8), jt.asarray(a)).numpy(), want)


# -- random programs against the Python if on NumPy ----------------------------------------
# A program: arrays x (8 elements) and y (5), an accumulator acc; a loop over i in range(6)
# whose body is one cond statement; a branch is a list of statements and a returned value.
# Statements: ("set" | "add", arr, idx, val), ("ds", arr, start, val) (a window of 2),
# ("adv", arr, idx, val) (the integer array [j, j + 1]), ("mask", arr, c, val),
# ("oob", arr) (a write out of bounds: only in branches never taken), ("loop", arr, val) (a
# fori_loop adding val to arr[:3]), ("cond", pred, then, else). An index is (m, c): (i*m + c)
# % size; a value ("rd", arr, idx, k) reads arr[idx] + k or ("i", k) is i + k; a predicate
# (arr, idx, c) is arr[idx] > c, ("i", c) is i > c.
_SIZES = {"x": 8, "y": 5}


def _rand_idx(r):
    return (r.choice([0, 1, 2, 3]), r.randrange(8))


def _rand_val(r):
    if r.random() < 0.6:
        return ("rd", r.choice("xy"), _rand_idx(r), r.choice([0.0, 1.0, 2.0, -3.0]))
    return ("i", r.choice([0.0, 1.0, 5.0]))


def _rand_pred(r):
    if r.random() < 0.2:
        return ("i", r.randrange(5))
    return (r.choice("xy"), _rand_idx(r), r.choice([-1.0, 0.0, 2.0, 4.0]))


def _rand_branch(r, depth, never):
    stmts = []
    for _ in range(r.randrange(0 if depth else 1, 4)):
        k = r.choice(["set", "add", "set", "ds", "adv", "mask", "cond", "loop"] if depth < 2
                     else ["set", "add", "ds", "adv"])
        arr = r.choice("xy")
        if k in ("set", "add", "adv"):
            stmts.append((k, arr, _rand_idx(r), _rand_val(r)))
        elif k == "ds":
            stmts.append((k, arr, _rand_idx(r), _rand_val(r)))
        elif k == "mask":
            stmts.append((k, arr, r.choice([0.0, 2.0]), _rand_val(r)))
        elif k == "loop":
            if r.random() < 0.3:
                stmts.append((k, arr, _rand_val(r)))
        else:
            stmts.append(("cond", _rand_pred(r), _rand_branch(r, depth + 1, False),
                          _rand_branch(r, depth + 1, False)))
    if never:
        stmts.insert(r.randrange(len(stmts) + 1), ("oob", r.choice("xy")))
    return stmts, _rand_val(r)


def program(seed):
    r = random.Random(seed)
    # a predicate never true guards a branch writing out of bounds: its write must neither
    # happen nor raise
    never = r.random() < 0.4
    pred = ("i", 100) if never else _rand_pred(r)
    return pred, _rand_branch(r, 0, never), _rand_branch(r, 0, False)


def _rand_single(r, depth, arr):
    """A branch writing ``arr`` once, or not at all, or (above depth 2) a cond of two such
    branches: a ``cond`` then writes ``arr`` once, after both branches."""
    if depth < 2 and r.random() < 0.3:
        return ([("cond", _rand_pred(r), _rand_single(r, depth + 1, arr),
                  _rand_single(r, depth + 1, arr))], _rand_val(r))
    k = r.choice(["set", "add", "set", None])
    return ([] if k is None else [(k, arr, _rand_idx(r), _rand_val(r))]), _rand_val(r)


def single_write_program(seed):
    """Both branches write one element (of one array, mostly) or nothing, reading elements
    the other branch writes."""
    r = random.Random(seed)
    arr = r.choice("xy")
    other = arr if r.random() < 0.8 else {"x": "y", "y": "x"}[arr]
    return _rand_pred(r), _rand_single(r, 0, arr), _rand_single(r, 0, other)


def _i(i, idx, n):
    m, c = idx
    return (i * m + c) % n


def _run(h, prog, x, y, acc, i):
    """One iteration of ``prog`` with helpers ``h`` (numpy or jaxtensor)."""
    arrs = {"x": x, "y": y}

    def val(v):
        if v[0] == "i":
            return h.num(i) + v[1]
        _, a, idx, k = v
        return arrs[a][_i(i, idx, _SIZES[a])] + k

    def pred(p):
        if p[0] == "i":
            return i > p[1]
        a, idx, c = p
        return arrs[a][_i(i, idx, _SIZES[a])] > c

    def block(branch):
        stmts, ret = branch
        for s in stmts:
            k = s[0]
            if k in ("set", "add"):
                a, j = arrs[s[1]], _i(i, s[2], _SIZES[s[1]])
                if k == "set":
                    a[j] = val(s[3])
                else:
                    a[j] += val(s[3])
            elif k == "ds":
                a = arrs[s[1]]
                a[h.ds(_i(i, s[2], _SIZES[s[1]] - 1), 2)] = val(s[3])
            elif k == "adv":
                a, n = arrs[s[1]], _SIZES[s[1]]
                j = _i(i, s[2], n - 1)
                a[h.pair(j)] = val(s[3])
            elif k == "mask":
                a = arrs[s[1]]
                a[a > s[2]] = val(s[3])
            elif k == "oob":
                arrs[s[1]][i + 100] = 7.0
            elif k == "loop":
                a, v = arrs[s[1]], val(s[2])

                def inner(k, a=a, v=v):
                    a[k] += v
                h.loop(0, 3, inner)
            else:
                h.cond(pred(s[1]), lambda s=s: block(s[2]), lambda s=s: block(s[3]))
        return val(ret)

    acc[0] += h.cond(pred(prog[0]), lambda: block(prog[1]), lambda: block(prog[2]))


class NP:
    ds = staticmethod(lambda i, k: slice(i, i + k))
    pair = staticmethod(lambda j: np.array([j, j + 1]))
    cond = staticmethod(lambda p, f, g: f() if p else g())
    num = staticmethod(float)
    maximum = staticmethod(np.maximum)

    @staticmethod
    def loop(lo, hi, body):
        for k in range(lo, hi):
            body(k)


class JT:
    ds = staticmethod(jt.ds)
    pair = staticmethod(lambda j: jt.stack([j, j + 1]))
    cond = staticmethod(jt.cond)
    loop = staticmethod(jt.fori_loop)
    num = staticmethod(lambda i: jt.asarray(i, dtype=jt.float64))
    maximum = staticmethod(jt.maximum)


_N_ITER = 6


def _start(seed):
    r = np.random.default_rng(seed)
    return (r.integers(-3, 4, 8).astype(np.float64), r.integers(-3, 4, 5).astype(np.float64),
            np.zeros(1))


def _numpy(prog, seed):
    x, y, acc = _start(seed)
    for i in range(_N_ITER):
        _run(NP, prog, x, y, acc, i)
    return x, y, acc


def _tensors(seed):
    return [jt.asarray(a, dtype=jt.float64) for a in _start(seed)]


@pytest.mark.parametrize("seed", range(5))
def test_random_programs_eager_top_level_loop(seed):
    prog = program(seed)
    x, y, acc = _tensors(seed)
    jt.fori_loop(0, _N_ITER, lambda i: _run(JT, prog, x, y, acc, i))
    for got, want in zip((x, y, acc), _numpy(prog, seed)):
        np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("seed", range(10, 15))
def test_random_programs_in_jit(seed):
    """Inside ``jaxtensor.jit``: one cond at the top level of the function (its predicate a
    traced value), then the loop."""
    _check_in_jit(program(seed), seed)


@pytest.mark.parametrize("seed", range(20, 26))
def test_random_single_write_programs_in_jit(seed):
    """Branches of one write each (or none), reading what the other branch writes: a cond
    whose branches both write one array writes it once, after both."""
    _check_in_jit(single_write_program(seed), seed)


def _check_in_jit(prog, seed):
    @jt.jit
    def f(x, y, acc):
        _run(JT, prog, x, y, acc, 0)
        jt.fori_loop(1, _N_ITER, lambda i: _run(JT, prog, x, y, acc, i))

    x, y, acc = _tensors(seed)
    f(x, y, acc)
    for got, want in zip((x, y, acc), _numpy(prog, seed)):
        np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("check_bounds", [True, False])
def test_out_of_bounds_in_untaken_branch_is_neither_written_nor_raised(check_bounds):
    """With checks off too: a write out of bounds gated off must not be clamped onto the
    last element."""
    @jt.jit(check_bounds=check_bounds)
    def f(x):
        def body(i):
            jt.cond(i < 10, lambda: x.__setitem__(i, x[i] + 1.0),
                    lambda: x.__setitem__(i + 100, 9.0))
            jt.cond(i > 10, lambda: x.__setitem__(-i - 100, 5.0), lambda: None)
        jt.fori_loop(0, 4, body)
    x = jt.arange(4.0)
    f(x)
    assert x.tolist() == [1.0, 2.0, 3.0, 4.0]


@pytest.mark.parametrize("where", ["eager", "jit"])
@pytest.mark.parametrize("second", [False, True])
def test_out_of_bounds_in_taken_branch_raises_as_eagerly(where, second):
    """The eager IndexError, and every Tensor as the Python loop left it when it raised (the
    taken branch's writes before the failing one kept), in either branch."""
    def body(x, i):
        def bad():
            x[i] = 10.0 + i
            x[i * 3] = 1.0
        def good():
            x[i] += 1.0
        if second:
            jt.cond(i < 2, good, bad)
        else:
            jt.cond(i >= 2, bad, good)

    want_x = jt.zeros(5)
    with pytest.raises(IndexError) as want:
        for i in range(5):  # eagerly: concrete predicates run one branch, as ``if``
            body(want_x, jt.asarray(i))
    x = jt.zeros(5)
    with pytest.raises(IndexError) as got:
        if where == "eager":
            jt.fori_loop(0, 5, lambda i: body(x, i))
        else:
            jt.jit(lambda x: jt.fori_loop(0, 5, lambda i: body(x, i)))(x)
    assert str(got.value) == str(want.value)
    assert x.tolist() == want_x.tolist()


def test_branch_results_and_mismatches():
    """Returned values (Tensors and Python numbers) are those of the branch taken; results
    of other shapes, or Tensors of other dtypes, raise TypeError naming cond, as
    ``lax.cond`` refuses them (Python numbers of two kinds take the dtype both promote to,
    as ``np.where(c, 1.5, 2)``: ``test_cond_number_branch.py``)."""
    @jt.jit
    def f(x):
        return jt.cond(x[0] > 5, lambda: (x[2], 1.5), lambda: (x[0] + x[1], 2.0))
    for v in ([1.0, 2.0, 3.0], [6.0, 2.0, 3.0]):
        b, c = f(jt.asarray(v))
        assert (float(b), float(c)) == ((v[2], 1.5) if v[0] > 5 else (v[0] + v[1], 2.0))
        assert b.dtype == jt.asarray(v).dtype  # (the default float)

    shapes = jt.jit(lambda x: jt.cond(x[0] > 0, lambda: x[:2], lambda: x))
    dtypes = jt.jit(lambda x: jt.cond(x[0] > 0, lambda: x, lambda: x.astype(jt.int32)))
    for g in (shapes, dtypes):
        with pytest.raises(TypeError, match="cond"):
            g(jt.zeros(3))
    numbers = jt.jit(lambda x: jt.cond(x[0] > 0, lambda: 1.5, lambda: 2))
    assert [float(numbers(jt.asarray([v, 0.0]))) for v in (1.0, -1.0)] == [1.5, 2.0]


def test_value_checks_in_untaken_branch_do_not_fire():
    """A traced value out of an integer Tensor's range written in the untaken branch raises
    nothing; in the taken one the eager OverflowError."""
    def f(x, limit):
        def body(i):
            jt.cond(i < limit, lambda: x.__setitem__(i, i + 1),
                    lambda: x.__setitem__(i, i + 300))
        jt.fori_loop(0, 4, body)
    x = jt.zeros(4, dtype=jt.int8)
    jt.jit(f)(x, 10)
    assert x.tolist() == [1, 2, 3, 4]
    y = jt.zeros(4, dtype=jt.int8)
    with pytest.raises(OverflowError, match="302 out of bounds for int8"):
        jt.jit(f)(y, 2)
    assert y.tolist() == [1, 2, 0, 0]


@pytest.mark.parametrize("kind", ["int", "float", "uint8", "bool"])
def test_a_traced_number_is_a_predicate_as_in_python(kind):
    """``cond(i % 3, ...)`` and ``while_loop`` over a counter: a traced number is true where
    it is not zero, as Python's ``if`` and ``while`` take it (NaN is true)."""
    vals = {"int": [0, 1, 2, -3, 5, 0], "float": [0.0, -0.0, 0.5, float("nan"), -2.0, 1e-300],
            "uint8": [0, 1, 255, 0, 7, 128], "bool": [True, False, True, True, False, False]}[kind]
    dt = {"int": jt.int64, "float": jt.float64, "uint8": jt.uint8, "bool": jt.bool}[kind]
    p = jt.asarray(vals, dtype=dt)
    want = np.array([1.0 if v else -1.0 for v in vals])
    x = jt.zeros(len(vals))

    def body(i):
        jt.cond(p[i], lambda: x.__setitem__(i, 1.0), lambda: x.__setitem__(i, -1.0))
    jt.fori_loop(0, len(vals), body)
    np.testing.assert_array_equal(np.asarray(x), want)

    @jt.jit
    def f(y):
        for i in range(len(vals)):
            jt.cond(p[i], lambda i=i: y.__setitem__(i, 2.0), lambda: None)
    y = jt.zeros(len(vals))
    f(y)
    np.testing.assert_array_equal(np.asarray(y), np.where(want > 0, 2.0, 0.0))
    if kind != "bool":
        n = jt.asarray(4, dtype=dt if kind != "float" else jt.float64)
        count = jt.zeros((), dtype=jt.int64)

        def step():
            n[...] -= 1
            count[...] += 1
        jt.while_loop(lambda: n, step)
        assert int(count) == 4


def _branchy(x):
    y = jt.zeros(2)

    def yes():
        y[0] = x[0] * 3

    def no():
        y[1] = x[1] * 5
    jt.cond(x[0] > 0, yes, no)
    return jt.sum(y * y) + jt.cond(x[1] > 1, lambda: jt.sum(x ** 2), lambda: jt.sum(-x))


def _branchy_numpy(x):
    y = np.zeros(2)
    if x[0] > 0:
        y[0] = x[0] * 3
    else:
        y[1] = x[1] * 5
    return float(np.sum(y * y) + (np.sum(x ** 2) if x[1] > 1 else np.sum(-x)))


@pytest.mark.parametrize("seed", range(4))
def test_cond_of_a_traced_pred_under_grad_vmap_and_jax_jit_outside_jaxtensor_jit(seed):
    """``jt.cond`` with a predicate traced by ``jt.grad``, ``jt.vmap`` or ``jax.jit`` (not
    ``jaxtensor.jit``) runs in a ``jaxtensor.jit`` function of its own, as the loops do: the
    branches' writes and results as NumPy's ``if``, gradients as central differences (it
    raised ``TypeError`` asking for ``jaxtensor.jit``)."""
    rng = np.random.default_rng(seed)
    xs = rng.uniform(-2, 3, (3, 2))
    for w in xs:
        g = np.asarray(jt.grad(_branchy)(jt.asarray(w)))
        eps = 1e-6
        fd = [(_branchy_numpy(w + eps * e) - _branchy_numpy(w - eps * e)) / (2 * eps)
              for e in np.eye(2)]
        np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-6)
    v = np.asarray(jt.vmap(_branchy)(jt.asarray(xs)))
    np.testing.assert_allclose(v, [_branchy_numpy(w) for w in xs])
    j = jax.jit(lambda a: jt.cond(a[0] > 0, lambda: a * 2, lambda: a * 3))
    for w in xs:
        np.testing.assert_allclose(np.asarray(j(jnp.asarray(w))), w * (2 if w[0] > 0 else 3))
