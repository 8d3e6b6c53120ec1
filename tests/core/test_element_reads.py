"""An index of one integer per axis reads the element's value (NumPy's scalar), not a view.

The element is a 0-D Tensor of its own: later writes to the source (of every kind: basic,
advanced, masked, in-place, queued scalar writes, a ``jaxtensor.jit`` call) do not change
it, and writes into it do not reach the source. ``x[i, ...]``, ``x[...]`` and slices stay
views. Checked against NumPy running the same code, eagerly, inside ``jaxtensor.jit`` and
in ``jt.fori_loop`` bodies.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np
import pytest

import jaxtensor as jt

RNG = np.random.default_rng(29)


# -- programs, written once, run on NumPy arrays (the oracle) and on Tensors ----------------
def tuple_swap(a: Any, i: int, j: int) -> None:
    a[i], a[j] = a[j], a[i]


def temp_swap(a: Any, i: int, j: int) -> None:
    tmp = a[i]
    a[i] = a[j]
    a[j] = tmp


def insertion_sort(arr: Any) -> None:
    for i in range(1, len(arr)):
        key = arr[i]
        j = i - 1
        while j >= 0 and arr[j] > key:
            arr[j + 1] = arr[j]
            j -= 1
        arr[j + 1] = key


def selection_sort(a: Any) -> None:
    n = len(a)
    for i in range(n):
        m = i
        for j in range(i + 1, n):
            if a[j] < a[m]:
                m = j
        a[i], a[m] = a[m], a[i]


def swap_2d(a: Any, i: int, j: int) -> None:
    a[i, 0], a[j, 1] = a[j, 1], a[i, 0]


@pytest.mark.parametrize("dtype", ["float32", "int64", "complex64", "bool"])
@pytest.mark.parametrize("swap", [tuple_swap, temp_swap])
def test_swaps_match_numpy(swap: Callable, dtype: str) -> None:
    for n in (2, 7):
        a_np = (RNG.integers(-9, 9, n)).astype(dtype)
        a = jt.asarray(a_np)
        for _ in range(5):
            i, j = (int(k) for k in RNG.integers(-n, n, 2))
            swap(a_np, i, j)
            swap(a, i, j)
            np.testing.assert_array_equal(np.asarray(a), a_np)


def test_swap_in_2d() -> None:
    a_np = np.arange(12.0).reshape(3, 4)
    a = jt.asarray(a_np)
    swap_2d(a_np, 0, 2)
    swap_2d(a, 0, 2)
    np.testing.assert_array_equal(np.asarray(a), a_np)


def test_the_issues_swap() -> None:
    a = jt.asarray([1, 3, 2])
    a[1], a[2] = a[2], a[1]
    assert a.tolist() == [1, 2, 3]


@pytest.mark.parametrize("sort", [insertion_sort, selection_sort])
@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_sorts_match_numpy(sort: Callable, dtype: str) -> None:
    for n in (1, 6):
        a_np = RNG.integers(-20, 20, n).astype(dtype)
        a = jt.asarray(a_np)
        sort(a_np)
        sort(a)
        np.testing.assert_array_equal(np.asarray(a), a_np)
        np.testing.assert_array_equal(a_np, np.sort(a_np))


# -- a read is kept across every kind of write -------------------------------------------
WRITES: dict[str, Callable[[Any], None]] = {
    "element": lambda a: a.__setitem__((1, 2), 50),
    "element from a Tensor": lambda a: a.__setitem__((1, 2), a[0, 0] * 7),
    "row": lambda a: a.__setitem__(1, 9),
    "slice": lambda a: a.__setitem__((slice(None), slice(1, 3)), -4),
    "everything": lambda a: a.__setitem__(Ellipsis, 3),
    "advanced": lambda a: a.__setitem__(([1, 0], [2, 2]), [11, 12]),
    "masked": lambda a: a.__setitem__(a > 2, 0),
    "in-place": lambda a: a.__iadd__(100),
    "in-place element": lambda a: a[1].__setitem__(2, a[1, 2] * 5),
    "through a view": lambda a: a.T.__setitem__((2, 1), -1),
}


def _write_jt(name: str, a: jt.Tensor) -> None:
    if name == "in-place element":
        a[1, 2] *= 5
    elif name == "element":
        a[1, 2] = 50  # (a Python number into a base: a queued scalar write)
    else:
        WRITES[name](a)


def _write_np(name: str, a: np.ndarray) -> None:
    if name == "in-place element":
        a[1, 2] *= 5
    else:
        WRITES[name](a)


@pytest.mark.parametrize("write", list(WRITES))
@pytest.mark.parametrize("read_first", [False, True], ids=["unread", "read"])
def test_a_read_is_kept_across_writes(write: str, read_first: bool) -> None:
    a_np = np.arange(12).reshape(3, 4)
    a = jt.asarray(a_np)
    keys = [(1, 2), (-2, -2), (0, 0), (2, 3)]
    got = [a[k] for k in keys] + [a.T[2, 1], a[1:][0, 2], a[1][2]]
    want = [a_np[k] for k in keys] + [a_np.T[2, 1], a_np[1:][0, 2], a_np[1][2]]
    if read_first:  # (computed before the write, or left for the write to settle)
        assert [int(g) for g in got[::2]] == [int(w) for w in want[::2]]
    _write_np(write, a_np)
    _write_jt(write, a)
    np.testing.assert_array_equal(np.asarray(a), a_np)
    for g, w in zip(got, want):
        assert g.shape == () and g.dtype == a.dtype and g.base is None
        assert g.item() == w  # the value read, not the value written
    _write_np(write, a_np)  # a second write, after every element was read
    _write_jt(write, a)
    np.testing.assert_array_equal(np.asarray(a), a_np)
    assert [g.item() for g in got] == [int(w) for w in want]


def test_queued_scalar_writes_before_and_after_the_read() -> None:
    a = jt.zeros(5)
    a[1] = 2.0  # queued, not applied yet
    e = a[1]  # sees the queued write
    a[1] = 3.0  # queued after the read
    f = a[1]
    a[1] = 4.0
    assert (float(e), float(f), float(a[1])) == (2.0, 3.0, 4.0)
    assert a.tolist() == [0.0, 4.0, 0.0, 0.0, 0.0]


def test_a_jit_call_writing_the_source_leaves_the_read() -> None:
    @jt.jit
    def bump(x: jt.Tensor) -> None:
        x[...] = x * 10  # (its buffer is donated to the call)

    a = jt.arange(4.0)
    e, f = a[1], a[2]
    float(f)
    bump(a)
    bump(a)
    assert (float(e), float(f)) == (1.0, 2.0)
    assert a.tolist() == [0.0, 100.0, 200.0, 300.0]


def test_writes_into_the_element_do_not_reach_the_source() -> None:
    a = jt.asarray([[1.0, 2.0], [3.0, 4.0]])
    e = a[1, 0]
    e += 1
    assert float(e) == 4.0
    e[...] = 7
    e[()] = 8
    assert float(e) == 8.0
    assert a.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    a[0, 1] += 5  # (Python: t = a[0, 1]; t += 5; a[0, 1] = t)
    assert a.tolist() == [[1.0, 7.0], [3.0, 4.0]]


def test_conversions_are_unchanged() -> None:
    a = jt.asarray([[1.5, 2.0], [3.0, 4.0]])
    assert a[0, 0].item() == 1.5 and float(a[0, 0]) == 1.5 and int(a[1, 1]) == 4
    assert bool(a[0, 0]) and complex(a[1, 0]) == 3.0
    assert int(jt.asarray([5, 6])[1]) == 6
    assert [int(t) for t in jt.asarray([7, 8, 9])] == [7, 8, 9]


def _view_pairs(t: Any, a: np.ndarray) -> dict[str, tuple[Any, np.ndarray]]:
    pairs = {"x": (t, a), "x.mT": (t.mT, np.swapaxes(a, -1, -2)), "x[::-1]": (t[::-1], a[::-1]),
             "x[1:, ::2]": (t[1:, ::2], a[1:, ::2]), "x[2]": (t[2], a[2]),
             "x[:, 3]": (t[:, 3], a[:, 3]), "x.reshape(-1)": (t.reshape(-1), a.reshape(-1)),
             "x[..., ::-2]": (t[..., ::-2], a[..., ::-2]),
             "permute_dims": (jt.permute_dims(t, (2, 0, 1)), np.transpose(a, (2, 0, 1)))}
    if a.dtype.kind == "c":
        pairs.update({"x.real": (t.real, a.real), "x.imag": (t.imag, a.imag)})
    return pairs


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int8", "uint8", "int64",
                                   "uint64", "bool", "complex64", "complex128"])
def test_conversions_of_elements_of_every_view_are_numpys(dtype: str) -> None:
    """``int()``, ``float()``, ``complex()``, ``bool()``, ``.item()`` and ``operator.index``
    of element reads through views of every kind, with the source written between the read
    and the conversion half the time: NumPy's Python scalars, of NumPy's types (on CPU the
    value is read from the source's buffer in host memory, with no kernel)."""
    import operator
    rng = np.random.default_rng(len(dtype))
    a_np = rng.standard_normal((5, 6, 4)) * 50
    if dtype.startswith("complex"):
        a_np = a_np + 1j * rng.standard_normal((5, 6, 4))
    a_np = a_np.astype(dtype)
    convs = [complex, bool, "item"] + ([] if a_np.dtype.kind == "c" else [int, float])
    if a_np.dtype.kind in "iu":
        convs.append(operator.index)
    for name, (tv, v_np) in _view_pairs(jt.asarray(a_np), a_np).items():
        for k in range(4):
            key = tuple(int(rng.integers(-n, n)) for n in v_np.shape)
            for conv in convs:
                e = tv[key]
                if k % 2:
                    tv[...] = 0  # (the read keeps its value)
                got = e.item() if conv == "item" else conv(e)
                w = v_np[key]
                want = w.item() if conv == "item" else conv(w)
                assert type(got) is type(want) and (got == want or got != got and want != want), (
                    name, key, conv, got, want)
                if k % 2:
                    tv[...] = jt.asarray(v_np)


# -- which keys read a value, which make a view ----------------------------------------------
def _int_spellings(i: int) -> list[Any]:
    return [i, np.int64(i), np.int8(i), jt.asarray(i), jnp.asarray(i, jnp.int32),
            np.array(i), jt.asarray([i, i])[0]]


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 2)])
@pytest.mark.parametrize("dtype", ["float32", "int16", "uint8", "complex128", "bool"])
def test_random_all_integer_keys_read_numpys_scalar(shape: tuple[int, ...], dtype: str) -> None:
    a_np = (np.arange(np.prod(shape)).reshape(shape) % 7 + 1).astype(dtype)
    a = jt.asarray(a_np)
    for _ in range(4):
        ints = [int(RNG.integers(-n, n)) for n in shape]
        key = tuple(_int_spellings(i)[RNG.integers(7)] for i in ints)
        if len(key) == 1 and RNG.integers(2):
            key = key[0]
        want = a_np[tuple(ints)]
        assert not isinstance(a_np[key], np.ndarray)  # NumPy: a scalar (a copy)
        e = a[key]
        assert e.shape == () and e.dtype == a_np.dtype and e.base is None
        assert not jt.shares_memory(e, a)
        a[...] = 0
        assert e.item() == want.item()
        a[...] = jt.asarray(a_np)


def test_views_stay_views() -> None:
    a = jt.arange(6).reshape(2, 3)
    views = {"x[i, j, ...]": a[1, 2, ...], "x[..., i, j]": a[..., 1, 2], "x[i]": a[1],
             "x[i, :]": a[1, :], "x[...]": a[...], "x[i:i+1, j]": a[1:2, 2]}
    for what, v in views.items():
        assert v.base is not None and jt.shares_memory(v, a), what
    a[1, 2] = 50
    for what, v in views.items():
        assert 50 in np.asarray(v).ravel(), what
    v = a[1, 2, ...]
    v[...] = 60
    assert a[1, 2].item() == 60
    z = jt.asarray(3.0)  # a 0-D Tensor: x[()] is its value (NumPy's scalar), x[...] a view
    zv, zs, zf = z[...], z[()], jt.flip(z)
    assert zv.base is z and zf.base is z and zs.base is None
    z[...] = 4.0
    assert (float(zv), float(zs), float(zf)) == (4.0, 3.0, 4.0)
    c = jt.asarray([1 + 2j, 3 + 4j])
    re, im = jt.real(c)[1], jt.imag(c)[1]
    c[1] = 0
    assert (float(re), float(im)) == (3.0, 4.0)


# -- inside jaxtensor.jit and loop bodies ----------------------------------------------------
def test_swaps_inside_jit() -> None:
    @jt.jit
    def swaps(a: jt.Tensor, i: Any, j: Any) -> jt.Tensor:
        tuple_swap(a, i, j)
        t = a[i]
        temp_swap(a, j, 0)
        t += 100  # (a value: does not reach a)
        return t

    a_np = np.asarray([1, 3, 2, 7])
    a = jt.asarray(a_np)
    for i, j in [(1, 2), (0, 3), (2, 2), (3, 1)]:
        tuple_swap(a_np, i, j)
        t_np = a_np[i] + 100
        temp_swap(a_np, j, 0)
        t = swaps(a, i, j)
        np.testing.assert_array_equal(np.asarray(a), a_np)
        assert t.item() == t_np


def test_bubble_pass_and_reversal_in_fori_loop_bodies() -> None:
    def bubble_np(a: np.ndarray) -> None:
        for j in range(len(a) - 1):
            x, y = a[j], a[j + 1]
            s = x > y
            a[j] = np.where(s, y, x)
            a[j + 1] = np.where(s, x, y)

    a_np = RNG.integers(0, 50, 8)
    a = jt.asarray(a_np)

    def body(j: jt.Tensor) -> None:
        x, y = a[j], a[j + 1]
        s = x > y
        a[j] = jt.where(s, y, x)
        a[j + 1] = jt.where(s, x, y)

    for _ in range(3):
        bubble_np(a_np)
        jt.fori_loop(0, 7, body)
        np.testing.assert_array_equal(np.asarray(a), a_np)

    r = jt.asarray(np.arange(7))

    def rev(i: jt.Tensor) -> None:
        tmp = r[i]
        r[i] = r[6 - i]
        r[6 - i] = tmp

    jt.fori_loop(0, 3, rev)
    assert r.tolist() == list(range(6, -1, -1))

    @jt.jit
    def sort_in_jit(b: jt.Tensor) -> None:
        def inner(j: jt.Tensor) -> None:
            x, y = b[j], b[j + 1]
            s = x > y
            b[j] = jt.where(s, y, x)
            b[j + 1] = jt.where(s, x, y)

        def outer(i: jt.Tensor) -> None:
            jt.fori_loop(0, 7, inner)

        jt.fori_loop(0, 8, outer)

    b_np = RNG.integers(0, 50, 8)
    b = jt.asarray(b_np)
    sort_in_jit(b)
    assert b.tolist() == sorted(b_np.tolist())


def test_a_read_inside_jit_is_kept_across_writes() -> None:
    @jt.jit
    def f(a: jt.Tensor, i: Any) -> tuple[jt.Tensor, jt.Tensor]:
        e = a[i]
        a[i] = 5.0
        a[:] *= 2
        a[a > 3] = -1
        g = a[i]
        g += 1  # (does not reach a)
        return e, g

    a = jt.asarray([1.0, 2.0, 3.0])
    e, g = f(a, 1)
    assert (float(e), float(g)) == (2.0, 0.0)
    assert a.tolist() == [2.0, -1.0, -1.0]


def test_a_read_closed_over_by_jit_is_its_value() -> None:
    a = jt.asarray([1.0, 2.0, 3.0])
    e = a[0]  # not computed before the call

    @jt.jit
    def g(x: jt.Tensor) -> None:
        x[...] = x + e

    a[0] = 10.0
    g(a)
    assert a.tolist() == [11.0, 3.0, 4.0]
    assert float(e) == 1.0


def test_many_unread_elements_then_a_write() -> None:
    a = jt.arange(100.0)
    es = [a[i] for i in range(100)]  # (more than the reader list keeps before pruning)
    a += 1
    a[...] = 0
    assert [float(e) for e in es] == [float(i) for i in range(100)]
    for i in range(50):  # elements read and dropped: nothing is kept for them
        a[i] = a[i] + a[99 - i]
    assert a.tolist() == [0.0] * 100


# -- x[i] op= v: the read, the operator and the write as one kernel -----------------------
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_augmented_assignment_of_elements_matches_numpy(dtype: str) -> None:
    a_np = np.arange(1, 7).astype(dtype).reshape(2, 3)
    a = jt.asarray(a_np)
    for k in range(4):  # (repeats: the operator's fast path, then the fused write)
        for which in (a, a.T):
            w_np = a_np if which is a else a_np.T
            w_np[1, 0] += 3
            which[1, 0] += 3
            w_np[0, 1] *= 2
            which[0, 1] *= 2
            w_np[-1, -1] -= k
            which[-1, -1] -= k
        np.testing.assert_array_equal(np.asarray(a), a_np)
    y = jt.asarray([10, 20]).astype(dtype)
    a[0, 0] += y[1]  # (a Tensor operand)
    a_np[0, 0] += 20
    np.testing.assert_array_equal(np.asarray(a), a_np)


def test_an_operated_element_keeps_its_value() -> None:
    a = jt.asarray([1.0, 2.0, 3.0])
    for _ in range(2):
        t = a[1]
        t += 10  # (not read yet: left for the write below)
        a[1] = t
        a[1] = 0.5  # a later write does not change t
        a[...] = a * 3
        assert float(t) in (12.0, 11.5)
        assert a.tolist()[1] == 1.5
    u = a[0]
    u *= 2
    u += 1  # (two operators before any read)
    a[0] = 100.0  # (queued: u was read before it)
    assert float(u) == 19.0  # (a is [9, 1.5, 27] here)
    v = a[2]
    v -= 1
    a[0] = v  # (another position: a plain write)
    a[2] = v
    assert a.tolist() == [26.0, 1.5, 26.0] and float(v) == 26.0
    w = a[1]
    w += 1
    assert a.tolist() == [26.0, 1.5, 26.0]  # (never written back)
    assert float(w) == 2.5


def test_an_element_operated_by_a_tensor_uses_its_value_then() -> None:
    a = jt.asarray([1.0, 2.0])
    y = jt.asarray([5.0])
    for _ in range(2):
        t = a[0]
        t += y[0]
        y[0] = 100.0  # (after the operator: not seen by it)
        a[1] = t
        y[0] = 5.0
    assert a.tolist() == [1.0, 6.0] and float(t) == 6.0
    a[1] += y[0]
    a[1] += y[0]
    assert a.tolist() == [1.0, 16.0]


@pytest.mark.parametrize("dtype", ["int64", "int8", "uint16", "float32", "float64", "bool",
                                   "complex64"])
def test_an_element_prints_and_formats_as_numpys_scalar(dtype: str) -> None:
    """``str``, ``print``, ``f"{e}"`` and ``",".join(map(str, t))`` of elements (and of 0-D
    Tensors) give NumPy's text of the number, not the Tensor's ``repr``."""
    a = (np.arange(1, 5) * 1.37).astype(dtype)
    t = jt.asarray(a)
    for k in range(len(a)):
        assert str(t[k]) == str(a[k]) and f"{t[k]}" == f"{a[k]}", (t[k], a[k])
    assert ",".join(str(v) for v in t) == ",".join(str(v) for v in a)
    assert str(jt.sum(t)) == str(np.sum(a)) if dtype != "bool" else True
    assert str(t).startswith("Tensor(")  # (other Tensors: the repr)


def test_a_sequence_times_an_integer_element_repeats_it() -> None:
    """``[0] * n`` with ``n`` an integer element repeats the list, as with a NumPy integer
    scalar (it multiplied element-wise); a float element, or a Tensor of more than 0
    dimensions, still multiplies element-wise."""
    n = jt.asarray(np.array([3, 2], np.int32))[0]
    assert [0] * n == [0] * 3 and n * [5] == [5, 5, 5]
    assert (1, 2) * n == (1, 2) * 3
    assert [0] * jt.asarray([3, 2], dtype=jt.uint8)[1] == [0, 0]
    f = jt.asarray([1.5, 2.0])[0] * [1, 2]
    assert isinstance(f, jt.Tensor) and f.tolist() == [1.5, 3.0]
    assert (jt.asarray([1, 2]) * [3, 4]).tolist() == [3, 8]
