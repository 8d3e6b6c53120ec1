"""Every namespace function takes array-likes wherever it takes a Tensor, as ``asarray`` would.

The rule (``docs/decisions.md``): an array argument may be a Tensor or anything
``jaxtensor.asarray`` takes (a NumPy or JAX array, another library's array, a nested
sequence, a Python scalar); it is converted first, so a view function returns a view of
the converted Tensor, never of the caller's array. The table below calls every function of
``jaxtensor``, ``jaxtensor.linalg`` and ``jaxtensor.fft`` with valid arguments; each array
argument is spelled as a Tensor (the oracle) and as a NumPy array, a JAX array and a nested
list, and the results must be equal. Names that take no array are listed with the reason;
the test fails when a public name is in neither list. What ``asarray`` refuses is a
``TypeError`` naming the function and the argument.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np
import pytest

import jaxtensor as jt
from jaxtensor import _elementwise


class A:
    """An array argument: its values (a nested list) and dtype."""

    def __init__(self, values: Any, dtype: Any = None) -> None:
        self.values, self.dtype = values, dtype

    def spell(self, how: str) -> Any:
        t = jt.asarray(self.values, dtype=self.dtype)
        if how == "tensor":
            return t
        if how == "numpy":
            return np.array(t)  # (writeable: a read-only array cannot be exported by DLPack)
        if how == "jax":
            return jnp.asarray(np.asarray(t))
        assert self.dtype is None  # a list spells only what asarray infers itself
        return self.values


F = A([1.0, 2.0, 3.0])
F2 = A([0.5, 0.25, 0.75])
V = A([[2.0, 1.0], [1.0, 3.0]])  # square, symmetric positive definite
INT = A([1, 0, 2])
IDX = A([1, 0])
BOOL = A([True, False, True])
CPLX = A([1 + 2j, 3 + 0j, -1j])
ROWS = A([[0], [1]])


def _elementwise_calls() -> dict[str, tuple]:
    arg = {"floating-point": F2, "any": F2, "integer": INT, "integer or boolean": INT,
           "boolean": BOOL}
    calls: dict[str, tuple] = {}
    for name, _, category in _elementwise._UNARY:
        calls[name] = ((arg[category],), {})
    for name, _, category in _elementwise._BINARY:
        calls[name] = ((arg[category], arg[category]), {})
    calls["clip"] = ((F, 1.5, 2.5), {})
    calls["real"] = ((CPLX,), {})
    calls["imag"] = ((CPLX,), {})
    return calls


#: name -> (positional arguments, keyword arguments); ``A`` marks an array argument
CALLS: dict[str, tuple] = {
    **_elementwise_calls(),
    # creation
    "asarray": ((F,), {}),
    "empty_like": ((F,), {}),
    "full_like": ((F, 2.0), {}),
    "ones_like": ((F,), {}),
    "zeros_like": ((F,), {}),
    "meshgrid": ((F, A([1.0, 2.0])), {}),
    # NumPy's comparisons of whole arrays
    "isclose": ((F, A([1.0, 2.5, 3.0])), {}),
    "allclose": ((F, A([1.0, 2.0, 3.0])), {}),
    "array_equal": ((F, A([1.0, 2.0, 3.0])), {}),
    "tril": ((V,), {}),
    "triu": ((V,), {}),
    "from_dlpack": ((F,), {}),
    "device_put": ((F, "cpu"), {}),
    # data types
    "astype": ((F, jt.int32), {}),
    "can_cast": ((F, jt.float64), {}),
    "finfo": ((F,), {}),
    "iinfo": ((INT,), {}),
    "result_type": ((F, INT), {}),
    # manipulation
    "broadcast_arrays": ((F, A([[1.0], [2.0]])), {}),
    "broadcast_to": ((F, (2, 3)), {}),
    "concat": (([F, F],), {}),
    "expand_dims": ((F,), {"axis": 0}),
    "flip": ((V,), {}),
    "matrix_transpose": ((V,), {}),
    "moveaxis": ((V, 0, 1), {}),
    "permute_dims": ((V, (1, 0)), {}),
    "repeat": ((F, 2), {}),
    "reshape": ((V, (4,)), {}),
    "roll": ((F, 1), {}),
    "squeeze": ((A([[1.0, 2.0]]),), {"axis": 0}),
    "stack": (([F, F],), {}),
    "tile": ((F, (2,)), {}),
    "unstack": ((V,), {}),
    # searching, sorting, sets
    "argmax": ((F,), {}),
    "argmin": ((F,), {}),
    "count_nonzero": ((INT,), {}),
    "nonzero": ((INT,), {}),
    "searchsorted": ((F, A([2.5, 0.0])), {}),
    "where": ((BOOL, F, F2), {}),
    "argsort": ((F,), {}),
    "sort": ((F,), {}),
    "unique_all": ((INT,), {}),
    "unique_counts": ((INT,), {}),
    "unique_inverse": ((INT,), {}),
    "unique_values": ((INT,), {}),
    "isin": ((INT, A([2, 5])), {}),
    # statistics and utilities
    **{name: ((V,), {"axis": 0}) for name in (
        "cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum",
        "var")},
    "all": ((BOOL,), {}),
    "any": ((BOOL,), {}),
    "diff": ((F,), {}),
    "shares_memory": ((F, F2), {}),
    # linear algebra
    "matmul": ((V, V), {}),
    "tensordot": ((V, V), {"axes": 1}),
    "vecdot": ((F, F2), {}),
    # indexing functions
    "take": ((F, IDX), {}),
    "take_along_axis": ((V, ROWS), {"axis": 1}),
    "gather": ((V, 1, ROWS), {}),
    "gather_nd": ((V, A([[0, 1], [1, 0]])), {}),
    "index_add": ((F, 0, IDX, A([1.0, 1.0])), {}),
    "index_put": ((F, (IDX,), A([5.0, 6.0])), {}),
    "index_select": ((V, 0, IDX), {}),
    "scatter": ((V, 1, ROWS, A([[9.0], [8.0]])), {}),
    "scatter_nd": ((ROWS, A([1.0, 2.0]), (3,)), {}),
    "scatter_nd_add": ((F, ROWS, A([1.0, 2.0])), {}),
    "scatter_reduce": ((V, 1, ROWS, A([[9.0], [8.0]]), "sum"), {}),
}

LINALG: dict[str, tuple] = {
    "cholesky": ((V,), {}),
    "cross": ((A([1.0, 0.0, 0.0]), A([0.0, 1.0, 0.0])), {}),
    "det": ((V,), {}),
    "diagonal": ((V,), {}),
    "eig": ((V,), {}),
    "eigh": ((V,), {}),
    "eigvals": ((V,), {}),
    "eigvalsh": ((V,), {}),
    "inv": ((V,), {}),
    "matmul": ((V, V), {}),
    "matrix_norm": ((V,), {}),
    "matrix_power": ((V, 2), {}),
    "matrix_rank": ((V,), {}),
    "matrix_transpose": ((V,), {}),
    "outer": ((F, F2), {}),
    "pinv": ((V,), {}),
    "qr": ((V,), {}),
    "slogdet": ((V,), {}),
    "solve": ((V, A([[1.0], [2.0]])), {}),
    "svd": ((V,), {}),
    "svdvals": ((V,), {}),
    "tensordot": ((V, V), {}),
    "trace": ((V,), {}),
    "vecdot": ((F, F2), {}),
    "vector_norm": ((F,), {}),
}

FFT: dict[str, tuple] = {
    **{name: ((F,), {}) for name in (
        "fft", "ifft", "rfft", "ihfft", "hfft", "irfft", "fftshift", "ifftshift")},
    **{name: ((V,), {}) for name in ("fftn", "ifftn", "rfftn", "irfftn")},
}

#: public names that take no array argument, and why
NO_ARRAY = {
    "Tensor": "the class", "NonConcreteBooleanIndexError": "an exception",
    "TracerLeakError": "an exception", "fft": "a module", "linalg": "a module",
    "__array_api_version__": "a string", "__array_namespace_info__": "no arguments",
    "clear_caches": "no arguments", "get_default_dtype": "no arguments",
    "set_default_dtype": "a dtype", "isdtype": "a dtype", "broadcast_shapes": "shapes",
    "arange": "numbers", "empty": "a shape", "eye": "numbers", "full": "a shape and a number",
    "linspace": "numbers", "ones": "a shape", "zeros": "a shape",
    "e": "a constant", "inf": "a constant", "nan": "a constant", "pi": "a constant",
    "newaxis": "a constant",
    **{d: "a dtype" for d in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                              "uint32", "uint64", "float16", "bfloat16", "float32",
                              "float64", "complex64", "complex128")},
    "jit": "a function (tested below)", "grad": "a function (tested below)",
    "value_and_grad": "a function (tested below)", "vjp": "a function (tested below)",
    "jvp": "a function (tested below)", "vmap": "a function (tested below)",
    "fori_loop": "bounds and a function (tests/jit/test_loops.py)",
    "while_loop": "functions (tests/jit/test_loops.py)",
    "cond": "a predicate and functions (tests/jit/test_loops.py)",
    "ds": "a start and a size (tests/jit/test_ds.py)", "UnrolledLoopWarning": "a warning",
    "RecompileWarning": "a warning",
}
NO_ARRAY_FFT = {"fftfreq": "numbers", "rfftfreq": "numbers"}
NO_ARRAY_LINALG = {"LinAlgError": "an exception class"}
#: functions of a protocol, not of array-likes: from_dlpack takes DLPack objects only
NOT_LISTS = {"from_dlpack"}


def test_every_public_name_is_covered() -> None:
    assert set(jt.__all__) == set(CALLS) | set(NO_ARRAY)
    assert set(jt.linalg.__all__) == set(LINALG) | set(NO_ARRAY_LINALG)
    assert set(jt.fft.__all__) == set(FFT) | set(NO_ARRAY_FFT)


def _spell(arg: Any, how: str) -> Any:
    if isinstance(arg, A):
        return arg.spell(how)
    if isinstance(arg, (list, tuple)):
        return type(arg)(_spell(a, how) for a in arg)
    if isinstance(arg, dict):
        return {k: _spell(a, how) for k, a in arg.items()}
    return arg


def _plain(r: Any) -> Any:
    """A result as comparable Python/NumPy values."""
    if isinstance(r, jt.Tensor):
        return ("Tensor", r.dtype, np.asarray(r))
    if isinstance(r, tuple):
        return tuple(_plain(x) for x in r)
    if isinstance(r, list):
        return [_plain(x) for x in r]
    if hasattr(r, "eps") or hasattr(r, "bits"):  # finfo / iinfo
        return repr(r)
    return r


def _assert_equal(got: Any, want: Any, label: str) -> None:
    if isinstance(want, tuple) and want and want[0] == "Tensor":
        assert isinstance(got, tuple) and got[0] == "Tensor", (label, got)
        assert got[1] == want[1], (label, got[1], want[1])
        if label.startswith("empty_like"):
            assert got[2].shape == want[2].shape, label
        else:
            np.testing.assert_array_equal(got[2], want[2], err_msg=label)
    elif isinstance(want, (tuple, list)):
        assert len(got) == len(want), label
        for g, w in zip(got, want):
            _assert_equal(g, w, label)
    else:
        assert got == want, (label, got, want)


#: the other array arguments of functions above (counts, bounds, branches, tolerances)
MORE = [
    (jt, "repeat", ((F, A([2, 0, 1])), {})),
    (jt, "clip", ((F, A([0.0, 2.5, 1.0]), A([1.5, 3.0, 2.0])), {})),
    (jt, "where", ((BOOL, 1.0, F2), {})),
    (jt, "where", ((BOOL, 1.0, 0.0), {})),
    (jt, "searchsorted", ((A([3.0, 1.0, 2.0]), A([2.5])), {"sorter": A([1, 2, 0])})),
    (jt, "diff", ((F,), {"prepend": A([0.0]), "append": A([9.0])})),
    (jt, "take", ((A([[1.0, 2.0], [3.0, 4.0]]), IDX), {"axis": 1})),
    (jt, "index_put", ((F, (A([0, 2]),), A([7.0, 8.0])), {"accumulate": True})),
    (jt.linalg, "matrix_rank", ((V,), {"rtol": A(1e-3)})),
    (jt.linalg, "pinv", ((V,), {"rtol": A(1e-3)})),
]

CASES = [(jt, n, c) for n, c in CALLS.items()] + [
    (jt.linalg, n, c) for n, c in LINALG.items()] + [
    (jt.fft, n, c) for n, c in FFT.items()] + MORE


@pytest.mark.parametrize(("module", "name", "call"), CASES,
                         ids=[f"{m.__name__}.{n}-{i}" for i, (m, n, _) in enumerate(CASES)])
@pytest.mark.parametrize("how", ["numpy", "jax", "list"])
def test_array_likes_in_place_of_tensors(module: Any, name: str, call: tuple,
                                         how: str) -> None:
    args, kwargs = call
    fn: Callable = getattr(module, name)
    want = _plain(fn(*_spell(args, "tensor"), **_spell(kwargs, "tensor")))
    spelled, kw = _spell(args, how), _spell(kwargs, how)
    if how == "list" and name in NOT_LISTS:
        with pytest.raises(TypeError, match=name):
            fn(*spelled, **kw)
        return
    _assert_equal(_plain(fn(*spelled, **kw)), want, f"{name} with {how}")


@pytest.mark.parametrize(("module", "name", "call"), CASES,
                         ids=[f"{m.__name__}.{n}-{i}" for i, (m, n, _) in enumerate(CASES)])
def test_mixed_tensor_and_array_likes(module: Any, name: str, call: tuple) -> None:
    """The first array argument a Tensor, the others NumPy arrays (and the reverse)."""
    args, kwargs = call
    slots = [i for i, a in enumerate(args) if isinstance(a, A)]
    if len(slots) < 2:
        return
    fn: Callable = getattr(module, name)
    kwargs = _spell(kwargs, "tensor")
    want = _plain(fn(*_spell(args, "tensor"), **kwargs))
    for first in ("tensor", "numpy"):
        rest = "numpy" if first == "tensor" else "tensor"
        mixed = [_spell(a, first if i == slots[0] else rest) for i, a in enumerate(args)]
        _assert_equal(_plain(fn(*mixed, **kwargs)), want, f"{name} mixed {first} first")


def test_views_of_array_likes_do_not_alias_the_caller() -> None:
    a = np.arange(6.0).reshape(2, 3)
    for view in (jt.moveaxis(a, 0, 1), jt.permute_dims(a, (1, 0)), jt.reshape(a, (6,)),
                 jt.squeeze(a[None], axis=0), jt.expand_dims(a, axis=0), jt.flip(a),
                 jt.matrix_transpose(a), jt.real(a)):
        view[...] = 0
    np.testing.assert_array_equal(a, np.arange(6.0).reshape(2, 3))


@pytest.mark.parametrize("how", ["numpy", "jax"])
def test_transforms_take_array_likes(how: str) -> None:
    """(A list is a pytree of leaves to the transforms, as to JAX's: arrays only.)"""
    x = F.spell(how)

    def f(t: jt.Tensor) -> jt.Tensor:
        return jt.sum(t * t)

    assert float(jt.jit(f)(x)) == 14.0
    assert jt.grad(f)(x).tolist() == [2.0, 4.0, 6.0]
    v, g = jt.value_and_grad(f)(x)
    assert float(v) == 14.0 and g.tolist() == [2.0, 4.0, 6.0]
    assert jt.vmap(lambda t: t * 2)(x).tolist() == [2.0, 4.0, 6.0]
    out, back = jt.vjp(f, x)
    assert float(out) == 14.0 and back(jt.asarray(1.0))[0].tolist() == [2.0, 4.0, 6.0]
    out, tangent = jt.jvp(f, (x,), (F.spell(how),))
    assert float(out) == 14.0 and float(tangent) == 28.0


@pytest.mark.parametrize("bad", [None, {"a": 1}, "text", object()],
                         ids=["None", "dict", "str", "object"])  # (ids alike in every process)
@pytest.mark.parametrize("name", ["sum", "moveaxis", "sin", "add", "reshape", "sort",
                                  "matmul", "concat", "take"])
def test_what_asarray_refuses_names_function_and_argument(name: str, bad: Any) -> None:
    args, kwargs = CALLS[name]
    spelled = [bad if i == 0 else _spell(a, "tensor") for i, a in enumerate(args)]
    if name == "concat":
        spelled = [[bad, F.spell("tensor")]]
    with pytest.raises(TypeError, match=rf"{name}\(\)") as info:
        getattr(jt, name)(*spelled, **kwargs)
    assert "Tensor" in str(info.value) or "array" in str(info.value)


def test_reported_client_case() -> None:
    """xarray's ``DataArray.quantile`` moves the axes of a NumPy result with the
    namespace's ``moveaxis``."""
    a = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(np.asarray(jt.moveaxis(a, 0, -1)), np.moveaxis(a, 0, -1))
    assert math.isclose(float(jt.mean(jnp.asarray(a))), float(np.mean(a)))
