"""Views and aliasing with NumPy 2 as the oracle (the rules of ``docs/views.md``, ``docs/guide.md``,
*The Tensor model* and *In-place operators*, and ``docs/decisions.md``, *Values and storage*).

* Views exactly where NumPy returns writeable views: basic indexing, ``.T``, ``.mT``,
  ``permute_dims``, ``matrix_transpose``, ``moveaxis``, ``expand_dims``, ``squeeze``,
  ``flip``, ``real``/``imag`` of complex, ``reshape`` when NumPy's no-copy rule allows it,
  ``Tensor.view``. Advanced and combined indexing copy.
* Hypothesis builds chains of view operations and writes (``__setitem__`` and in-place
  operators through any alias) applied to a NumPy array and a Tensor side by side, and
  after every step compares every live alias, ``Tensor.base`` and ``jt.shares_memory``
  with NumPy's owner and ``np.shares_memory``.
* In-place operators write into the storage and keep the left operand's dtype.
* A ``jax.Array`` exported from a Tensor keeps its value after later writes.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st

import jaxtensor as jt
from indexing_strategies import example_array, indices, shapes

CHAIN_DTYPES = [np.dtype(d) for d in ("int64", "int8", "float32", "bool", "complex64")]


# -- the NumPy/jaxtensor pair of each view operation -----------------------------------------
def _reshapes(size: int, ndim_max: int = 4) -> list[tuple[int, ...]]:
    """Every shape of at most ``ndim_max`` dims with sides <= 6 holding ``size`` elements."""
    out = []
    sides = range(0, 7) if size == 0 else [d for d in range(1, 7) if size % d == 0]
    for nd in range(ndim_max + 1):
        for s in itertools.product(sides, repeat=nd):
            if math.prod(s) == size and (size or s.count(0) == 1):
                out.append(s)
    return out or [(size,)]


@st.composite
def view_op(draw: st.DrawFn, shape: tuple[int, ...], dtype: np.dtype) -> tuple[str, Any]:
    """A view operation applicable to an array of ``shape`` and its arguments."""
    nd = len(shape)
    ops = ["index", "index", "flip", "expand_dims", "reshape", "view", "method_reshape"]
    if nd >= 1:
        ops += ["permute_dims", "moveaxis"]
    if nd == 2:
        ops.append("T")
    if nd >= 2:
        ops += ["mT", "matrix_transpose"]
    if 1 in shape:
        ops.append("squeeze")
    if dtype.kind == "c":
        ops += ["real", "imag"]
    op = draw(st.sampled_from(ops))
    if op == "index":
        return op, draw(indices(shape, basic_only=True))
    if op == "flip":
        if nd == 0 or draw(st.booleans()):
            return op, None
        return op, tuple(draw(st.sets(st.integers(-nd, nd - 1).map(lambda a: a % nd)
                                      .map(int), min_size=1)))
    if op == "expand_dims":
        return op, draw(st.integers(-nd - 1, nd))
    if op in ("reshape", "view", "method_reshape"):
        new = draw(st.sampled_from(_reshapes(math.prod(shape))))
        if new and math.prod(new) and draw(st.booleans()):  # spell one side as -1
            k = draw(st.integers(0, len(new) - 1))
            new = new[:k] + (-1,) + new[k + 1:]
        return op, new
    if op == "permute_dims":
        return op, tuple(draw(st.permutations(range(nd))))
    if op == "moveaxis":
        k = draw(st.integers(1, nd))
        src = draw(st.permutations(range(nd)))[:k]
        dst = draw(st.permutations(range(nd)))[:k]
        if k == 1 and draw(st.booleans()):
            return op, (src[0] - nd * draw(st.integers(0, 1)), dst[0])
        return op, (tuple(src), tuple(dst))
    if op == "squeeze":
        ones = [a for a, s in enumerate(shape) if s == 1]
        return op, tuple(draw(st.sets(st.sampled_from(ones), min_size=1)))
    return op, None


def apply_np(op: str, arg: Any, a: np.ndarray) -> np.ndarray:
    if op == "index":
        r = a[arg.np_index]
        # an integer on every axis: NumPy's scalar, as jaxtensor's x[1, 0] is a value
        return r if isinstance(r, np.ndarray) else np.array(r)
    if op == "flip":  # (NumPy's flip of a 0-D array is a scalar: x[()]; ours is x[...])
        return np.flip(a, axis=arg) if a.ndim else a[...]
    if op == "expand_dims":
        return np.expand_dims(a, arg)
    if op in ("reshape", "view", "method_reshape"):
        return np.reshape(a, arg)
    if op == "permute_dims":
        return np.permute_dims(a, arg)
    if op == "moveaxis":
        return np.moveaxis(a, *arg)
    if op == "T":
        return a.T
    if op in ("mT", "matrix_transpose"):
        return np.matrix_transpose(a)
    if op == "squeeze":
        return np.squeeze(a, axis=arg)
    if op == "real":
        return a.real
    return a.imag


def apply_jt(op: str, arg: Any, t: jt.Tensor) -> jt.Tensor:
    if op == "index":
        return t[arg.jt_index]
    if op == "flip":
        return jt.flip(t, axis=arg)
    if op == "expand_dims":
        return jt.expand_dims(t, axis=arg)
    if op == "reshape":
        return jt.reshape(t, arg)
    if op == "method_reshape":
        return t.reshape(*arg) if arg else t.reshape(())
    if op == "view":
        return t.view(*arg) if arg else t.view(())
    if op == "permute_dims":
        return jt.permute_dims(t, arg)
    if op == "moveaxis":
        return jt.moveaxis(t, *arg)
    if op == "T":
        return t.T
    if op == "mT":
        return t.mT
    if op == "matrix_transpose":
        return jt.matrix_transpose(t)
    if op == "squeeze":
        return jt.squeeze(t, axis=arg)
    if op == "real":
        return jt.real(t)
    return jt.imag(t)


# -- the chain ---------------------------------------------------------------------------------
@dataclass
class Alias:
    n: np.ndarray
    t: jt.Tensor
    root: int  # index of the owning alias (itself for an owner)
    how: str = ""


@dataclass
class World:
    aliases: list[Alias] = field(default_factory=list)

    def check(self) -> None:
        for k, al in enumerate(self.aliases):
            got = np.asarray(al.t)
            assert got.shape == al.n.shape, (k, al.how, got.shape, al.n.shape)
            assert got.dtype == al.n.dtype, (k, al.how, got.dtype, al.n.dtype)
            np.testing.assert_array_equal(got, al.n, err_msg=f"alias {k}: {al.how}")

    def check_aliasing(self) -> None:
        for (i, a), (j, b) in itertools.combinations(enumerate(self.aliases), 2):
            expected = bool(np.shares_memory(a.n, b.n))
            assert jt.shares_memory(a.t, b.t) == expected, (i, a.how, j, b.how)
            assert jt.shares_memory(b.t, a.t) == expected


def _small_value(dtype: np.dtype, k: int) -> Any:
    if dtype.kind == "b":
        return bool(k % 2)
    if dtype.kind == "c":
        return complex(k, -k)
    return k


@st.composite
def write_value(draw: st.DrawFn, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    if draw(st.booleans()):
        return _small_value(dtype, draw(st.integers(-9, 9)))
    vshape = tuple(s if draw(st.integers(0, 2)) else 1 for s in shape)
    k = draw(st.integers(-20, 20))
    vals = np.asarray((np.arange(math.prod(vshape)).reshape(vshape) * 3 + k) % 50 - 25)
    if dtype.kind == "b":
        return vals % 2 == 1
    if dtype.kind == "c":
        return (vals + 1j * vals.ravel()[::-1].reshape(vshape)).astype(dtype)
    return vals.astype(dtype)


INPLACE: dict[str, Callable[[Any, Any], Any]] = {
    "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
    "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "&=": operator.iand,
    "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift, ">>=": operator.irshift,
}


ARITHMETIC = {"+=", "-=", "*=", "/=", "//=", "%=", "**="}


def _inplace_ops(dtype: np.dtype) -> list[str]:
    if dtype.kind == "b":
        return ["&=", "|=", "^="]
    if dtype.kind in "iu":
        return ["+=", "-=", "*=", "//=", "%=", "**=", "&=", "|=", "^=", "<<=", ">>="]
    # no /= here: XLA:CPU's float32 division may differ from NumPy's by 1 ulp, and this chain
    # compares exactly (test_inplace_operators_write_into_storage covers /= with a tolerance)
    return ["+=", "-=", "*="]


@st.composite
def inplace_step(draw: st.DrawFn, shape: tuple[int, ...], dtype: np.dtype) -> tuple[str, Any]:
    op = draw(st.sampled_from(_inplace_ops(dtype)))
    if op in ("//=", "%="):
        other = draw(st.sampled_from([1, 2, 3, -2]))
    elif op == "**=":
        other = draw(st.sampled_from([0, 1, 2]))
    elif op in ("<<=", ">>="):
        other = draw(st.integers(0, 3))
    elif dtype.kind == "b":
        other = draw(st.booleans())
    elif draw(st.booleans()):
        other = draw(st.integers(-3, 3))
    else:  # an array operand of the same dtype (NumPy would refuse a wider one in place)
        other = (np.arange(math.prod(shape)).reshape(shape) % 5 - 2).astype(dtype)
    return op, other


def run_chain(data: st.DataObject, shape: tuple[int, ...], dtype: np.dtype, steps: int) -> None:
    base_n = example_array(shape, dtype).copy()
    world = World([Alias(base_n, jt.asarray(base_n), 0, "base")])
    world.check()
    for step in range(steps):
        kind = data.draw(st.sampled_from(["view", "view", "write", "write", "read", "inplace"]),
                         label=f"step {step}")
        k = data.draw(st.integers(0, len(world.aliases) - 1), label="alias")
        al = world.aliases[k]
        root = world.aliases[al.root]
        if kind == "view":
            op, arg = data.draw(view_op(al.n.shape, al.n.dtype), label="op")
            new_n = apply_np(op, arg, al.n)
            # (a view of NumPy's copy names the copy's own owner as its base where the copy
            # is itself a view of a buffer NumPy made: ``reshape`` of a transposed array)
            is_view = new_n.base is root.n or (root.n.base is not None
                                               and new_n.base is root.n.base)
            if op == "view" and not is_view:
                with pytest.raises(ValueError):
                    apply_jt(op, arg, al.t)
                continue
            new_t = apply_jt(op, arg, al.t)
            how = f"{al.how}|{op}({arg!r})"
            note(f"alias {len(world.aliases)} = {how}: NumPy view={is_view}")
            if is_view:
                assert new_t.base is root.t, how
                world.aliases.append(Alias(new_n, new_t, al.root, how))
            else:  # NumPy copies (reshape of a layout that does not allow a view)
                assert new_t.base is None, how
                world.aliases.append(Alias(new_n, new_t, len(world.aliases), how))
        elif kind in ("write", "read"):
            # any index kind: basic ones write through the view chain, advanced ones
            # gather/scatter through it
            basic = data.draw(st.booleans(), label="basic index")
            idx = data.draw(indices(al.n.shape, basic_only=basic, invalid=True), label="index")
            np_idx = idx.np_index if isinstance(idx.np_index, tuple) else (idx.np_index,)
            if not any(i is Ellipsis for i in np_idx):
                np_idx = np_idx + (Ellipsis,)
            try:
                target = al.n[np_idx]
            except Exception as e:  # noqa: BLE001 - NumPy rejects it: so must we
                with pytest.raises(type(e)):
                    al.t[idx.jt_index] = _small_value(al.n.dtype, 1)
                world.check()
                continue
            if kind == "read":
                got = al.t[idx.jt_index]
                np.testing.assert_array_equal(np.asarray(got), target)
                assert got.shape == target.shape
                continue
            value = data.draw(write_value(target.shape, al.n.dtype), label="value")
            note(f"alias {k}[{idx.np_index!r}] = {value!r}")
            al.n[np_idx] = value
            al.t[idx.jt_index] = value
        else:
            op, other = data.draw(inplace_step(al.n.shape, al.n.dtype), label="inplace")
            note(f"alias {k} {op} {other!r}")
            with np.errstate(all="ignore"):
                res = INPLACE[op](al.n, other)
            assert res is al.n
            t_before = al.t
            res_t = INPLACE[op](al.t, other if not isinstance(other, np.ndarray)
                                else jt.asarray(other))
            assert res_t is t_before  # in place: the same object comes back
            assert res_t.dtype == al.n.dtype
        world.check()
    world.check_aliasing()


@given(data=st.data(), shape=shapes(max_dims=3), dtype=st.sampled_from(CHAIN_DTYPES))
def test_chains_of_views_and_writes_match_numpy(
    data: st.DataObject, shape: tuple[int, ...], dtype: np.dtype
):
    run_chain(data, shape, dtype, steps=6)


# -- each view operation, by hand ------------------------------------------------------------------
def _assert_view_pair(t_view: jt.Tensor, t: jt.Tensor, n_view: np.ndarray, n: np.ndarray) -> None:
    np.testing.assert_array_equal(np.asarray(t_view), n_view)
    assert t_view.shape == n_view.shape
    assert t_view.base is (t if t.base is None else t.base)
    assert jt.shares_memory(t_view, t)
    # a write through the view reaches the base and back
    n_view[...] = 7
    t_view[...] = 7
    np.testing.assert_array_equal(np.asarray(t), n)
    n[...] = np.arange(n.size).reshape(n.shape).astype(n.dtype)
    t[...] = np.arange(n.size).reshape(n.shape)
    np.testing.assert_array_equal(np.asarray(t_view), n_view)


VIEW_FUNCS: list[tuple[str, Callable[[Any], Any], Callable[[Any], Any]]] = [
    ("basic index", lambda n: n[1, ::-2, None], lambda t: t[1, ::-2, None]),
    ("ellipsis", lambda n: n[..., 1:], lambda t: t[..., 1:]),
    ("0-D int tensor", lambda n: n[1, ...], lambda t: t[jt.asarray(1)]),
    ("every axis", lambda n: n[1, 2, 3, ...], lambda t: t[1, 2, 3, ...]),
    ("mT", lambda n: n.mT, lambda t: t.mT),
    ("permute_dims", lambda n: np.permute_dims(n, (2, 0, 1)),
     lambda t: jt.permute_dims(t, (2, 0, 1))),
    ("matrix_transpose", np.matrix_transpose, jt.matrix_transpose),
    ("moveaxis", lambda n: np.moveaxis(n, 0, -1), lambda t: jt.moveaxis(t, 0, -1)),
    ("expand_dims", lambda n: np.expand_dims(n, (0, 2)), lambda t: jt.expand_dims(t, axis=(0, 2))),
    ("squeeze", lambda n: np.squeeze(n[:, :1], axis=1), lambda t: jt.squeeze(t[:, :1], axis=1)),
    ("flip", lambda n: np.flip(n, axis=1), lambda t: jt.flip(t, axis=1)),
    ("flip all", np.flip, jt.flip),
    ("reshape", lambda n: np.reshape(n, (6, 4)), lambda t: jt.reshape(t, (6, 4))),
    ("method reshape", lambda n: n.reshape(4, -1), lambda t: t.reshape(4, -1)),
    ("view", lambda n: n.reshape(2, 12), lambda t: t.view(2, 12)),
    ("view of a view", lambda n: n[1].reshape(-1), lambda t: t[1].view(-1)),
    ("reshape of a row slice", lambda n: n[1:, 1].reshape(-1), lambda t: t[1:, 1].reshape(-1)),
]


@pytest.mark.parametrize(("name", "f_np", "f_jt"), VIEW_FUNCS, ids=[v[0] for v in VIEW_FUNCS])
def test_view_functions_return_writeable_views(name: str, f_np: Callable, f_jt: Callable):
    n = np.arange(24, dtype=np.int64).reshape(2, 3, 4).copy()  # n owns its data
    t = jt.asarray(n)
    n_view = f_np(n)
    assert n_view.base is n
    _assert_view_pair(f_jt(t), t, n_view, n)


def test_T_of_a_matrix_is_a_view():
    n = np.arange(6.0).reshape(2, 3)
    t = jt.asarray(n)
    _assert_view_pair(t.T, t, n.T, n)


def test_real_and_imag_are_views_of_complex():
    n = (np.arange(6) + 10j * np.arange(6)).astype(np.complex64).reshape(2, 3)
    t = jt.asarray(n)
    re, im = jt.real(t), jt.imag(t)
    assert re.dtype == jt.float32 and im.dtype == jt.float32
    assert re.base is t and im.base is t and jt.shares_memory(re, t)
    re[0] = -1
    im[:, 1] = 5
    n.real[0] = -1
    n.imag[:, 1] = 5
    np.testing.assert_array_equal(np.asarray(t), n)
    t[1, 2] = 3 + 4j
    n[1, 2] = 3 + 4j
    np.testing.assert_array_equal(np.asarray(re), n.real)
    np.testing.assert_array_equal(np.asarray(im), n.imag)
    # views of the parts, and parts of views
    im.T[2, 0] = 9
    n.imag.T[2, 0] = 9
    jt.real(t[::-1])[0, 0] = 8
    n[::-1].real[0, 0] = 8
    np.testing.assert_array_equal(np.asarray(t), n)
    re += 1
    n.real += 1
    np.testing.assert_array_equal(np.asarray(t), n)
    d = jt.asarray(n.astype(np.complex128))
    assert jt.real(d).dtype == jt.float64 and jt.imag(d).dtype == jt.float64


RESHAPE_CASES: list[tuple[str, Callable[[Any], Any], tuple[int, ...]]] = [
    ("transpose flatten", lambda a: a.mT, (-1,)),
    ("transpose split", lambda a: a.mT, (4, 3, 2)),
    ("column slice", lambda a: a[:, :, ::2], (4, 3)),
    ("column slice split rows", lambda a: a[:, :, ::2], (2, 3, 2)),
    ("step rows", lambda a: a[:, ::2], (2, 8)),
    ("step rows flat", lambda a: a[:, ::2], (-1,)),
    ("flip", lambda a: a[::-1], (6, 4)),
    ("flip inner", lambda a: a[:, :, ::-1], (6, 4)),
    ("flip inner split", lambda a: a[:, :, ::-1], (2, 3, 2, 2)),
    ("size-1 axes", lambda a: a[:, :1, 1:3], (2, 2)),
    ("size-1 axes 2", lambda a: a[:1, :, :2], (3, 2)),
    ("newaxis", lambda a: a[:, None, :, 1], (6,)),
    ("moveaxis", lambda a: np.moveaxis(a, 0, 1) if isinstance(a, np.ndarray)
     else jt.moveaxis(a, 0, 1), (3, 8)),
    ("moveaxis merge", lambda a: np.moveaxis(a, 0, 1) if isinstance(a, np.ndarray)
     else jt.moveaxis(a, 0, 1), (6, 4)),
    ("empty", lambda a: a[:, 1:1], (0, 5)),
    ("scalar", lambda a: a[1, 2, 3:], (1, 1)),
]


@pytest.mark.parametrize(("name", "f", "shape"), RESHAPE_CASES, ids=[c[0] for c in RESHAPE_CASES])
def test_reshape_follows_numpys_no_copy_rule(name: str, f: Callable, shape: tuple[int, ...]):
    n = np.arange(24).reshape(2, 3, 4).copy()  # n owns its data
    t = jt.asarray(n)
    v_n, v_t = f(n), f(t)
    r_n = v_n.reshape(shape)
    is_view = r_n.base is n
    r_t = jt.reshape(v_t, shape)
    np.testing.assert_array_equal(np.asarray(r_t), r_n)
    assert jt.shares_memory(r_t, t) == np.shares_memory(r_n, n)
    if is_view:
        assert r_t.base is t
        assert_same_after_write(r_n, n, r_t, t)
        assert_same_after_write(r_n, n, v_t.view(shape), t)
    else:
        assert r_t.base is None
        with pytest.raises(ValueError):
            v_t.view(shape)
        with pytest.raises(ValueError):
            jt.reshape(v_t, shape, copy=False)
        r_t[...] = -5  # a copy: the base does not see it
        np.testing.assert_array_equal(np.asarray(t), n)


def assert_same_after_write(r_n: np.ndarray, n: np.ndarray, r_t: jt.Tensor, t: jt.Tensor) -> None:
    vals = np.arange(r_n.size).reshape(r_n.shape) * 10 + 100
    n_copy = n.copy()
    r_n_view = r_n.view()
    r_n_view[...] = vals
    r_t[...] = vals
    np.testing.assert_array_equal(np.asarray(t), n)
    n[...] = n_copy
    t[...] = n_copy


def test_reshape_copy_argument():
    t = jt.arange(6)
    assert jt.reshape(t, (2, 3), copy=True).base is None
    assert jt.reshape(t, (2, 3), copy=False).base is t
    c = jt.reshape(t, (3, 2), copy=True)
    c[0, 0] = 100
    assert int(t[0]) == 0


# -- copies --------------------------------------------------------------------------------------
COPY_INDICES: list[Any] = [
    [0], ([0, 1],), (slice(None), [2, 0]), (0, [1]), ([True, False],), (True,), (False,),
    (np.array([[True, False, True]] * 2),), (1, [0, 2], slice(None)), (Ellipsis, [3]),
    (None, [1], 0), (jt.asarray([1, 0]),), (jt.asarray([True, True]), 0), (0, True),
]


@pytest.mark.parametrize("index", COPY_INDICES, ids=repr)
def test_advanced_and_combined_indexing_copy(index: Any):
    n = np.arange(24).reshape(2, 3, 4)
    t = jt.asarray(n)
    view = t[1]
    r = t[index]
    assert r.base is None
    assert not jt.shares_memory(r, t) and not jt.shares_memory(r, view)
    before = np.asarray(r).copy()
    r[...] = -1
    np.testing.assert_array_equal(np.asarray(t), n)
    t[...] = 0
    assert (np.asarray(r) == -1).all() or r.size == 0
    del before


def test_copies_made_by_functions_are_independent():
    t = jt.arange(6).reshape((2, 3))
    for c in [jt.asarray(t, copy=True), t + 0, jt.reshape(t.T, (6,)), t.T.reshape(2, 3)]:
        assert c.base is None and not jt.shares_memory(c, t)
        c[...] = -1
        np.testing.assert_array_equal(np.asarray(t), np.arange(6).reshape(2, 3))


# -- base and shares_memory --------------------------------------------------------------------------
def test_base_is_the_owner():
    t = jt.zeros((4, 4))
    assert t.base is None
    v = t[1:]
    w = v[:, ::2].T
    z = jt.reshape(w[0], (1, 3))
    for a in (v, w, z, jt.flip(z), jt.expand_dims(z, axis=0), t[...], t.view(16)):
        assert a.base is t
    assert t[[0]].base is None
    assert jt.asarray(t) is t


@pytest.mark.parametrize(
    ("fa", "fb"),
    [
        (lambda a: a[::2], lambda a: a[1::2]),
        (lambda a: a[:3], lambda a: a[2:]),
        (lambda a: a[:2], lambda a: a[2:]),
        (lambda a: a[0], lambda a: a[:, 0]),
        (lambda a: a[1:, 1], lambda a: a[0]),
        (lambda a: a[::3, ::3], lambda a: a[1:3, 1:3]),
        (lambda a: a[::2, ::2], lambda a: a[1::2, 1::2]),
        (lambda a: a[::-1], lambda a: a[:1]),
        (lambda a: a[2:2], lambda a: a),
        (lambda a: a.T[1], lambda a: a[:, 1]),
        (lambda a: a.reshape(-1)[::5], lambda a: a[1]),
        (lambda a: a.reshape(-1)[::5], lambda a: a[:, 1:]),
        (lambda a: a[..., None][2, :, 0], lambda a: a[2]),
    ],
)
def test_shares_memory_matches_numpy(fa: Callable, fb: Callable):
    n = np.arange(20.0).reshape(4, 5)
    t = jt.asarray(n)
    assert jt.shares_memory(fa(t), fb(t)) == np.shares_memory(fa(n), fb(n))
    assert jt.shares_memory(fb(t), fa(t)) == np.shares_memory(fb(n), fa(n))
    assert not jt.shares_memory(fa(t), fb(jt.asarray(n)))


def test_shares_memory_real_imag():
    t = jt.zeros((2, 2), dtype=jt.complex64)
    n = np.zeros((2, 2), np.complex64)
    assert jt.shares_memory(jt.real(t), jt.imag(t)) == np.shares_memory(n.real, n.imag)
    assert jt.shares_memory(jt.real(t), t) and jt.shares_memory(jt.imag(t)[0], t[0])


# -- in-place operators -------------------------------------------------------------------------
@pytest.mark.parametrize("op", list(INPLACE))
@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "float32", "float64", "bool"])
def test_inplace_operators_write_into_storage(op: str, dtype: str):
    dt = np.dtype(dtype)
    n = (np.arange(12).reshape(3, 4) % 7 + 1).astype(dt)
    other_n = (np.arange(4) % 3 + 1).astype(dt)
    valid_np = not (dt.kind == "b" and op in ARITHMETIC)  # the Array API has no bool math
    try:
        with np.errstate(all="ignore"):
            INPLACE[op](n.copy(), other_n)
    except TypeError:  # NumPy refuses the op for this dtype (e.g. / on ints, << on floats)
        valid_np = False
    t = jt.asarray(n)
    view = t[1:]
    view_T = t.T
    row = t[2]
    if not valid_np:
        # not defined by NumPy; the Tensor either refuses (TypeError) or keeps its dtype
        try:
            r = INPLACE[op](row, jt.asarray(other_n))
        except TypeError:
            np.testing.assert_array_equal(np.asarray(t), n)
            return
        assert r is row and r.dtype == dt and t.dtype == dt
        return
    with np.errstate(all="ignore"):
        INPLACE[op](n[2], other_n)
    r = INPLACE[op](row, jt.asarray(other_n))
    assert r is row and r.dtype == dt
    assert t.dtype == dt
    same = np.testing.assert_allclose if dt.kind == "f" else np.testing.assert_array_equal
    same(np.asarray(t), n, rtol=1e-6) if dt.kind == "f" else same(np.asarray(t), n)
    np.testing.assert_array_equal(np.asarray(view), np.asarray(t)[1:])
    np.testing.assert_array_equal(np.asarray(view_T), np.asarray(t).T)
    # through the base, with a Python scalar, seen by the views
    scalar = True if dt.kind == "b" else 2
    with np.errstate(all="ignore"):
        INPLACE[op](n, scalar)
    t0 = t
    t = INPLACE[op](t, scalar)
    assert t is t0 and t.dtype == dt
    same(np.asarray(t), n, rtol=1e-6) if dt.kind == "f" else same(np.asarray(t), n)
    np.testing.assert_array_equal(np.asarray(view), np.asarray(t)[1:])
    np.testing.assert_array_equal(np.asarray(view_T), np.asarray(t).T)


def test_inplace_keeps_left_dtype_when_the_result_would_widen():
    """``x op= y`` stores the result in ``x``'s dtype where NumPy's ``same_kind`` rule
    allows; a result of another kind (``int += float``) raises ``TypeError`` as in NumPy and
    changes neither ``x`` nor its views (docs/decisions.md, *In-place operators*)."""
    t = jt.asarray(np.array([1, 2, 3], np.int32))
    v = t[1:]
    n = np.array([1, 2, 3], np.int32)
    half = np.array([1.5, 1.5, 1.5])
    for name, other, jother in (("__iadd__", 1.7, 1.7), ("__itruediv__", 4, 4),
                                ("__imul__", half, jt.asarray(half, dtype=jt.float64))):
        with pytest.raises(TypeError):
            getattr(n, name)(other)  # NumPy refuses too
        with pytest.raises(TypeError, match="same_kind"):
            getattr(t, name)(jother)
        assert t.dtype == jt.int32
        np.testing.assert_array_equal(np.asarray(t), [1, 2, 3])
        np.testing.assert_array_equal(np.asarray(v), [2, 3])
    t += jt.asarray([1, 1, 1], dtype=jt.int64)  # same kind: cast back to int32
    assert t.dtype == jt.int32
    np.testing.assert_array_equal(np.asarray(v), [3, 4])
    f = jt.asarray(np.array([1.5, 2.5], np.float32))
    f += jt.asarray(np.array([1, 2], np.int64))
    assert f.dtype == jt.float32
    np.testing.assert_array_equal(np.asarray(f), [2.5, 4.5])
    h = jt.ones(2, dtype=jt.float32)
    with np.errstate(over="ignore"):
        h *= 1e300  # overflow to inf in the left dtype
    assert h.dtype == jt.float32 and np.isinf(np.asarray(h)).all()


def test_inplace_matmul():
    n = np.arange(9.0).reshape(3, 3)
    m = np.array([[0.0, 1, 0], [1, 0, 0], [0, 0, 2]])
    t = jt.asarray(n)
    v = t[1:]
    n @= m
    t @= jt.asarray(m)
    np.testing.assert_array_equal(np.asarray(t), n)
    np.testing.assert_array_equal(np.asarray(v), n[1:])
    # through a view: a 2x2 block, transposed
    blk = t[1:, 1:].T
    blk @= jt.asarray([[1.0, 1.0], [0.0, 1.0]])
    nb = n[1:, 1:].T
    nb @= np.array([[1.0, 1.0], [0.0, 1.0]])
    np.testing.assert_array_equal(np.asarray(t), n)
    with pytest.raises(ValueError):
        t @= jt.ones((3, 2))  # the result does not fit
    np.testing.assert_array_equal(np.asarray(t), n)


def test_inplace_on_an_indexed_expression():
    """``x[idx] op= v`` is getitem, op, setitem: duplicates count once, like NumPy."""
    n = np.zeros(5, np.int64)
    t = jt.zeros(5, dtype=jt.int64)
    n[[0, 0, 2]] += 1
    t[[0, 0, 2]] += 1
    n[1:4] *= 0
    n[1:4] += 3
    t[1:4] *= 0
    t[1:4] += 3
    n[n > 2] -= 10
    t[t > 2] -= 10
    np.testing.assert_array_equal(np.asarray(t), n)


def test_inplace_on_a_copy_does_not_reach_the_source():
    t = jt.arange(4)
    c = t[[0, 1]]
    c += 100
    np.testing.assert_array_equal(np.asarray(t), [0, 1, 2, 3])


# -- exported arrays are never invalidated ---------------------------------------------------------
@pytest.mark.parametrize(
    "export",
    [lambda t: t.to_jax(), jnp.asarray, lambda t: t.__jax_array__(), np.asarray,
     lambda t: jnp.array(t, copy=False), lambda t: jnp.from_dlpack(t.to_jax())],
    ids=["to_jax", "jnp.asarray", "__jax_array__", "np.asarray", "jnp.array", "dlpack"],
)
def test_exported_arrays_keep_their_value(export: Callable):
    t = jt.arange(12, dtype=jt.float32).reshape((3, 4))
    base_arr = export(t)
    view = t[1:, ::2]
    view_arr = export(view)
    zero_d = t[2, 3]
    zero_arr = export(zero_d)
    for i in range(3):  # several writes: each may donate the storage's buffer
        t[0, 0] = 100 + i
        view[...] = -1 - i
        t += 1
        t[[1, 2], [0, 1]] = 7
    expected = np.arange(12, dtype=np.float32).reshape(3, 4)
    for arr, exp in [(base_arr, expected), (view_arr, expected[1:, ::2]),
                     (zero_arr, expected[2, 3])]:
        if isinstance(arr, jax.Array):
            assert not arr.is_deleted()
        np.testing.assert_array_equal(np.asarray(arr), exp)
    # and the Tensor has its own, current value
    assert float(t[0, 0]) == 103.0


def test_export_of_a_written_tensor_then_more_writes():
    t = jt.zeros(4)
    snapshots = []
    for i in range(4):
        t[i] = i + 1
        snapshots.append(t.to_jax())
    for i, s in enumerate(snapshots):
        assert not s.is_deleted()
        np.testing.assert_array_equal(np.asarray(s), [k + 1 if k <= i else 0 for k in range(4)])


def test_asarray_of_a_jax_array_never_donates_it():
    a = jnp.arange(5.0)
    t = jt.asarray(a)
    t[0] = 10
    t[1:] *= 2
    assert not a.is_deleted()
    np.testing.assert_array_equal(np.asarray(a), np.arange(5.0))
    np.testing.assert_array_equal(np.asarray(t), [10, 2, 4, 6, 8])


def test_exported_identity_views_keep_their_value():
    """Views whose value is the whole base (``t[...]``, ``t.view(n)``, a reshape, ``.mT.mT``)
    may be computed as the base buffer itself: exporting them must protect it too."""
    base = jt.arange(12, dtype=jt.float32)
    t = base.reshape((3, 4))
    aliases = [base, base[...], base[:], base.view(3, 4), t, t[...], t.view(12),
               jt.reshape(t, (4, 3)), t.mT.mT, jt.flip(jt.flip(t))]
    exported = [(a.to_jax(), np.asarray(a).copy()) for a in aliases]
    for i in range(3):
        base[0] = 100 + i
        base[1:3] = -1
        t[1] = 5
        base += 1
    for arr, expected in exported:
        assert not arr.is_deleted()
        np.testing.assert_array_equal(np.asarray(arr), expected)


def test_iteration_yields_views():
    n = np.arange(6).reshape(2, 3).copy()
    t = jt.asarray(n)
    for k, row in enumerate(t):
        assert row.base is t
        row[0] = -k - 1
    for k, row in enumerate(n):
        row[0] = -k - 1
    np.testing.assert_array_equal(np.asarray(t), n)
    with pytest.raises(TypeError):
        iter(jt.asarray(1)).__next__()
