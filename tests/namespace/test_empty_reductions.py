"""Reductions, scans, searches and norms of arrays with zero-size axes, against NumPy.

Every reduction and search function (and its Tensor method) over shapes with a zero-size
axis, that axis reduced or kept, ``keepdims`` both ways: where NumPy returns (an empty
result, or the identity of the reduction), the same shape and values; where NumPy raises
(the maximum, minimum, argmax, argmin of nothing) a ``ValueError`` that names the function,
not JAX's ``reduction operation max``. ``argmax(x, axis=1)`` of a ``(0, 3)`` array is an
empty result, as in NumPy, array_api_strict and jax.numpy.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np
import pytest

import jaxtensor as jt

SHAPES = [(0,), (0, 3), (2, 0, 3)]
#: a few dtypes per function, of the kinds it takes (the zero-size rule does not depend on
#: the dtype; every dtype and shape is a compiled kernel, so the sweep stays small)
NUMERIC = ["int8", "float32", "bfloat16"]
REAL = ["uint8", "float16", "float32"]
ALL = ["bool", "int64", "complex64"]
FLOAT = ["float16", "bfloat16", "complex64"]
REAL_FLOAT = ["float16", "bfloat16", "float32"]


def _axes(ndim: int, tuples: bool) -> list:
    out: list = [None, *range(ndim)]
    if tuples and ndim > 1:
        out.append((0, ndim - 1))
    return out


#: name -> (jaxtensor(t, axis, keepdims), NumPy(a, axis, keepdims), tuple axes?, dtypes)
REDUCTIONS: dict[str, tuple[Callable, Callable, bool, list[str]]] = {
    name: (lambda t, ax, kd, n=name: getattr(jt, n)(t, axis=ax, keepdims=kd),
           lambda a, ax, kd, n=name: getattr(np, n)(a, axis=ax, keepdims=kd), tuples, dts)
    for name, tuples, dts in [
        ("sum", True, NUMERIC), ("prod", True, NUMERIC), ("mean", True, FLOAT),
        ("var", True, REAL_FLOAT), ("std", True, REAL_FLOAT), ("max", True, REAL),
        ("min", True, REAL),
        ("argmax", False, REAL), ("argmin", False, REAL), ("all", True, ALL),
        ("any", True, ALL), ("count_nonzero", True, ALL)]
}
REDUCTIONS.update({
    f"Tensor.{name}": (lambda t, ax, kd, n=name: getattr(t, n)(dim=ax, keepdim=kd),
                       lambda a, ax, kd, n=name: getattr(a, n)(axis=ax, keepdims=kd),
                       name not in ("argmax", "argmin"), dts)
    for name, dts in [("sum", NUMERIC), ("prod", NUMERIC), ("mean", FLOAT),
                      ("var", REAL_FLOAT), ("std", REAL_FLOAT), ("max", REAL), ("min", REAL),
                      ("argmax", REAL),
                      ("argmin", REAL), ("all", ALL), ("any", ALL)]
})
REDUCTIONS.update({
    f"vector_norm(ord={o})": (
        lambda t, ax, kd, o=o: jt.linalg.vector_norm(t, axis=ax, keepdims=kd, ord=o),
        lambda a, ax, kd, o=o: np.linalg.vector_norm(a, axis=ax, keepdims=kd, ord=o),
        True, ["int8", "bfloat16", "complex64"])
    for o in (2, 1, 0, 3, -1, math.inf, -math.inf)
})


def _np_dtype(d: str) -> np.dtype:
    return np.dtype("float32") if d == "bfloat16" else np.dtype(d)


def _numpy(f: Callable, *args: object) -> tuple[object, BaseException | None]:
    """NumPy's result, or the exception it raised."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if f is np.linalg.matrix_norm:
                return f(args[0], ord=args[1], keepdims=args[2]), None
            return f(*args), None
    except (ValueError, IndexError, TypeError) as e:
        return None, e


def _compare(label: str, got_fn: Callable, want: object, err: BaseException | None,
             name: str) -> None:
    if err is not None:
        with pytest.raises(type(err)) as info:
            got_fn()
        msg = str(info.value)
        assert name.split("(")[0].split(".")[-1] in msg, (label, msg)
        assert "reduction operation" not in msg, (label, msg)
        return
    got = got_fn()
    results = got if isinstance(got, tuple) else (got,)
    wants = want if isinstance(want, tuple) else (want,)
    for g, w in zip(results, wants, strict=True):
        assert tuple(g.shape) == np.shape(w), (label, g.shape, np.shape(w))
        np.testing.assert_allclose(np.asarray(g).astype(np.complex128),
                                   np.asarray(w).astype(np.complex128), equal_nan=True,
                                   err_msg=label)


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions(name: str) -> None:
    jf, nf, tuples, dtypes = REDUCTIONS[name]
    for d in dtypes:
        for shape in SHAPES:
            a = np.zeros(shape, _np_dtype(d))
            t = jt.asarray(a, dtype=d)
            for ax in _axes(len(shape), tuples):
                for kd in (False, True):
                    want, err = _numpy(nf, a, ax, kd)
                    _compare(f"{name} {d} {shape} axis={ax} keepdims={kd}",
                             lambda t=t, ax=ax, kd=kd: jf(t, ax, kd), want, err, name)


MATRIX_SHAPES = [(0, 0), (0, 3), (3, 0), (0, 2, 2), (2, 3, 0)]


@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf], ids=str)
def test_matrix_norm(ord: object) -> None:
    for d in ["int8", "complex64"]:
        for shape in MATRIX_SHAPES:
            a = np.zeros(shape, _np_dtype(d))
            t = jt.asarray(a, dtype=d)
            for kd in (False, True):
                want, err = _numpy(np.linalg.matrix_norm, a, ord, kd)
                _compare(f"matrix_norm {d} {shape} ord={ord} keepdims={kd}",
                         lambda t=t, kd=kd: jt.linalg.matrix_norm(t, ord=ord, keepdims=kd),
                         want, err, "matrix_norm")


#: name -> (jaxtensor(t, axis), NumPy(a, axis)) for the functions along one axis
ALONG = {
    "cumulative_sum": (lambda t, ax: jt.cumulative_sum(t, axis=ax),
                       lambda a, ax: np.cumulative_sum(a, axis=ax)),
    "cumulative_sum(include_initial)": (
        lambda t, ax: jt.cumulative_sum(t, axis=ax, include_initial=True),
        lambda a, ax: np.cumulative_sum(a, axis=ax, include_initial=True)),
    "cumulative_prod": (lambda t, ax: jt.cumulative_prod(t, axis=ax),
                        lambda a, ax: np.cumulative_prod(a, axis=ax)),
    "Tensor.cumsum": (lambda t, ax: t.cumsum(ax), lambda a, ax: a.cumsum(ax)),
    "Tensor.cumprod": (lambda t, ax: t.cumprod(ax), lambda a, ax: a.cumprod(ax)),
    "sort": (lambda t, ax: jt.sort(t, axis=ax), lambda a, ax: np.sort(a, axis=ax)),
    "sort(descending)": (lambda t, ax: jt.sort(t, axis=ax, descending=True),
                         lambda a, ax: np.sort(a, axis=ax)),
    "argsort": (lambda t, ax: jt.argsort(t, axis=ax), lambda a, ax: np.argsort(a, axis=ax)),
    "Tensor.argsort": (lambda t, ax: t.argsort(dim=ax), lambda a, ax: a.argsort(axis=ax)),
}


@pytest.mark.parametrize("name", sorted(ALONG))
def test_along_an_axis(name: str) -> None:
    jf, nf = ALONG[name]
    dtypes = REAL if "sort" in name else NUMERIC[:2]
    for d in dtypes:
        for shape in SHAPES:
            a = np.zeros(shape, _np_dtype(d))
            t = jt.asarray(a, dtype=d)
            for ax in range(len(shape)):
                want, err = _numpy(nf, a, ax)
                _compare(f"{name} {d} {shape} axis={ax}", lambda t=t, ax=ax: jf(t, ax), want,
                         err, name)


WHOLE = {
    "nonzero": (lambda t: jt.nonzero(t), lambda a: np.nonzero(a)),
    "unique_values": (lambda t: jt.unique_values(t), lambda a: np.unique_values(a)),
    "unique_counts": (lambda t: tuple(jt.unique_counts(t)),
                      lambda a: tuple(np.unique_counts(a))),
    "unique_inverse": (lambda t: tuple(jt.unique_inverse(t)),
                       lambda a: tuple(np.unique_inverse(a))),
    "unique_all": (lambda t: tuple(jt.unique_all(t)), lambda a: tuple(np.unique_all(a))),
    "searchsorted (empty values)": (
        lambda t: jt.searchsorted(jt.asarray([0, 1, 2], dtype=t.dtype), t),
        lambda a: np.searchsorted(np.asarray([0, 1, 2]).astype(a.dtype), a)),
}


@pytest.mark.parametrize("name", sorted(WHOLE))
def test_whole_array_functions(name: str) -> None:
    jf, nf = WHOLE[name]
    for d in REAL[:2]:
        for shape in SHAPES:
            a = np.zeros(shape, _np_dtype(d))
            want, err = _numpy(nf, a)
            t = jt.asarray(a, dtype=d)
            _compare(f"{name} {d} {shape}", lambda t=t: jf(t), want, err, name)


@pytest.mark.parametrize("d", REAL[:2])
def test_searchsorted_in_an_empty_sorted_array(d: str) -> None:
    for values in ([1, 0], [[2]], []):
        v = np.asarray(values).astype(_np_dtype(d))
        want = np.searchsorted(np.zeros(0, _np_dtype(d)), v)
        got = jt.searchsorted(jt.zeros(0, dtype=d), jt.asarray(v, dtype=d))
        assert got.shape == want.shape
        np.testing.assert_array_equal(np.asarray(got), want)


def test_reported_case() -> None:
    """SciPy's ``Rotation.from_matrix`` on empty input: argmax over a non-empty axis of an
    array empty along another; array_api_strict agrees with NumPy."""
    import array_api_strict as xps

    for f in ("argmax", "argmin"):
        for shape, axis in (((0, 4), 1), ((0, 3, 3), -1), ((2, 0, 4), 2)):
            want = getattr(xps, f)(xps.zeros(shape), axis=axis)
            got = getattr(jt, f)(jt.zeros(shape), axis=axis)
            assert got.shape == want.shape
