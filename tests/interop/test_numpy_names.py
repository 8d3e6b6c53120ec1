"""NumPy names jaxtensor lacks: their ``AttributeError`` names a spelling that works.

For every name of the three tables (``jaxtensor``, ``jaxtensor.linalg``, a Tensor): the
attribute is missing (``hasattr`` is False), the error is a plain ``AttributeError`` whose
message is the suggestion, every function the suggestion names exists, and the suggested
spelling computes NumPy's answer on a small example (NumPy is the oracle). Any other missing
name keeps Python's plain message. ``docs/migrating.md`` shows exactly these tables.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import array_api_extra
import numpy as np
import pytest

import jaxtensor as jt
from jaxtensor import _numpy_names as names

DOCS = Path(__file__).resolve().parents[2] / "docs" / "migrating.md"
TABLES = {"namespace": names.NAMESPACE, "linalg": names.LINALG, "fft": names.FFT,
          "tensor": names.TENSOR}


def _owner(table: str) -> Any:
    return {"namespace": jt, "linalg": jt.linalg, "fft": jt.fft, "tensor": jt.ones((2, 2))}[table]


ALL = [(t, n) for t, tab in TABLES.items() for n in tab]


@pytest.mark.parametrize(("table", "name"), ALL, ids=[f"{t}.{n}" for t, n in ALL])
def test_missing_name_says_what_to_write(table: str, name: str) -> None:
    owner = _owner(table)
    assert not hasattr(owner, name)
    with pytest.raises(AttributeError) as info:
        getattr(owner, name)
    assert type(info.value) is AttributeError
    who = {"namespace": "jaxtensor", "linalg": "jaxtensor.linalg", "fft": "jaxtensor.fft",
           "tensor": "a Tensor"}[table]
    assert str(info.value) == f"{who} has no {name}; use {TABLES[table][name]}"
    assert info.value.name == name


_REF = re.compile(r"\b(jaxtensor|array_api_extra|copy|np)((?:\.\w+)+)")
_METHOD = re.compile(r"\bx\.(\w+)")


@pytest.mark.parametrize(("table", "name"), ALL, ids=[f"{t}.{n}" for t, n in ALL])
def test_suggested_names_exist(table: str, name: str) -> None:
    hint = TABLES[table][name]
    roots = {"jaxtensor": jt, "array_api_extra": array_api_extra, "copy": copy, "np": np}
    refs = _REF.findall(hint)
    for root, path in refs:
        obj = roots[root]
        for part in path.strip(".").split("."):
            obj = getattr(obj, part)  # raises if the suggestion names something missing
    tensor = jt.ones((2, 2))
    for attr in _METHOD.findall(hint):
        getattr(tensor, attr)
    assert refs or _METHOD.findall(hint) or name in NO_NAMES, hint


#: suggestions that are an expression, not a function (checked by their examples below)
NO_NAMES = {"fill_diagonal", "split", "copyto", "ravel_multi_index", "fill", "put",
            "compress", "dot", "multi_dot"}

# -- the suggestions compute NumPy's answers ---------------------------------------------
#: name -> (NumPy code, jaxtensor code): each sets ``r``; ``x`` is a 2x2 float matrix, ``v``
#: and ``w`` float vectors, ``k`` an int vector, ``c`` a complex vector, ``z`` a 0-D float,
#: ``q`` a vector with a NaN, ``y3`` a 3-D array
EXAMPLES: dict[str, dict[str, tuple[str, str]]] = {
    "namespace": {
        "norm": ("r = np.linalg.norm(v)", "r = jt.linalg.vector_norm(v)"),
        "copy": ("r = np.copy(x)", "r = jt.asarray(x, copy=True)"),
        "array": ("r = np.array([1.5, 2.5])", "r = jt.asarray([1.5, 2.5])"),
        "fill_diagonal": ("np.fill_diagonal(x, 0.0); r = x",
                          "i = jt.arange(min(x.shape)); x[i, i] = 0.0; r = x"),
        "pad": ("r = np.pad(x, 1)", "r = array_api_extra.pad(x, 1, xp=jt)"),
        "concatenate": ("r = np.concatenate([x, x])", "r = jt.concat([x, x])"),
        "append": ("r = np.append(v, [7.0])", "r = jt.concat([v, jt.asarray([7.0])])"),
        "hstack": ("r = np.hstack([x, x])", "r = jt.concat([x, x], axis=1)"),
        "vstack": ("r = np.vstack([v, w])", "r = jt.stack([v, w])"),
        "row_stack": ("r = np.vstack([x, x])", "r = jt.concat([x, x], axis=0)"),
        "column_stack": ("r = np.column_stack([v, w])", "r = jt.stack([v, w], axis=1)"),
        "dstack": ("r = np.dstack([x, x])", "r = jt.stack([x, x], axis=-1)"),
        "atleast_1d": ("r = np.atleast_1d(z)", "r = array_api_extra.atleast_nd(z, ndim=1, xp=jt)"),
        "atleast_2d": ("r = np.atleast_2d(v)", "r = array_api_extra.atleast_nd(v, ndim=2, xp=jt)"),
        "atleast_3d": ("r = np.atleast_3d(x)", "r = jt.expand_dims(x, axis=-1)"),
        "split": ("r = np.split(v, 3)[1]", "r = v[1:2]"),
        "swapaxes": ("r = np.swapaxes(y3, 0, 2)", "r = y3.swapaxes(0, 2)"),
        "transpose": ("r = np.transpose(y3)", "r = jt.permute_dims(y3, (2, 1, 0))"),
        "rollaxis": ("r = np.rollaxis(y3, 2)", "r = jt.moveaxis(y3, 2, 0)"),
        "ravel": ("r = np.ravel(x)", "r = jt.reshape(x, (-1,))"),
        "ndim": ("r = np.ndim(y3)", "r = y3.ndim"),
        "shape": ("r = np.shape(y3)", "r = y3.shape"),
        "size": ("r = np.size(y3)", "r = y3.size"),
        "absolute": ("r = np.absolute(v)", "r = jt.abs(v)"),
        "fabs": ("r = np.fabs(v)", "r = jt.abs(v)"),
        "power": ("r = np.power(v, 3)", "r = jt.pow(v, 3)"),
        "true_divide": ("r = np.true_divide(v, 3.0)", "r = jt.divide(v, 3.0)"),
        "mod": ("r = np.mod(v, 2.0)", "r = jt.remainder(v, 2.0)"),
        "arccos": ("r = np.arccos(w)", "r = jt.acos(w)"),
        "arcsin": ("r = np.arcsin(w)", "r = jt.asin(w)"),
        "arctan": ("r = np.arctan(v)", "r = jt.atan(v)"),
        "arctan2": ("r = np.arctan2(v, w)", "r = jt.atan2(v, w)"),
        "arccosh": ("r = np.arccosh(x)", "r = jt.acosh(x)"),
        "arcsinh": ("r = np.arcsinh(v)", "r = jt.asinh(v)"),
        "arctanh": ("r = np.arctanh(w)", "r = jt.atanh(w)"),
        "invert": ("r = np.invert(k)", "r = jt.bitwise_invert(k)"),
        "bitwise_not": ("r = np.bitwise_not(k)", "r = jt.bitwise_invert(k)"),
        "left_shift": ("r = np.left_shift(k, 2)", "r = jt.bitwise_left_shift(k, 2)"),
        "right_shift": ("r = np.right_shift(k, 1)", "r = jt.bitwise_right_shift(k, 1)"),
        "conjugate": ("r = np.conjugate(c)", "r = jt.conj(c)"),
        "around": ("r = np.around(h)", "r = jt.round(h)"),
        "rint": ("r = np.rint(h)", "r = jt.round(h)"),
        "fix": ("r = np.fix(h)", "r = jt.trunc(h)"),
        "amax": ("r = np.amax(x, axis=0)", "r = jt.max(x, axis=0)"),
        "amin": ("r = np.amin(x, axis=1)", "r = jt.min(x, axis=1)"),
        "ptp": ("r = np.ptp(v)", "r = jt.max(v) - jt.min(v)"),
        "average": ("r = np.average(v, weights=w)", "r = jt.sum(w * v) / jt.sum(w)"),
        "cumsum": ("r = np.cumsum(v)", "r = jt.cumulative_sum(v)"),
        "cumprod": ("r = np.cumprod(v)", "r = jt.cumulative_prod(v)"),
        "unique": ("r = np.unique(k)", "r = jt.unique_values(k)"),
        "argwhere": ("r = np.argwhere(x > 1.5)", "r = jt.stack(jt.nonzero(x > 1.5), axis=-1)"),
        "flatnonzero": ("r = np.flatnonzero(x > 1.5)",
                        "r = jt.nonzero(jt.reshape(x > 1.5, (-1,)))[0]"),
        "put": ("np.put(v, [0, 2], [9.0, 8.0]); r = v", "v[[0, 2]] = [9.0, 8.0]; r = v"),
        "put_along_axis": ("np.put_along_axis(x, np.asarray([[1], [0]]), 9.0, axis=1); r = x",
                           "x.scatter_(1, jt.asarray([[1], [0]]), 9.0); r = x"),
        "copyto": ("np.copyto(x, 5.0); r = x", "x[...] = 5.0; r = x"),
        "dot": ("r = np.dot(x, x)", "r = jt.matmul(x, x)"),
        "inner": ("r = np.inner(v, w)", "r = jt.vecdot(v, w)"),
        "outer": ("r = np.outer(v, w)", "r = jt.linalg.outer(v, w)"),
        "cross": ("r = np.cross(v, w)", "r = jt.linalg.cross(v, w)"),
        "trace": ("r = np.trace(x)", "r = jt.linalg.trace(x)"),
        "diagonal": ("r = np.diagonal(x)", "r = jt.linalg.diagonal(x)"),
        "diag": ("r = np.diag(x)", "r = jt.linalg.diagonal(x)"),
        "identity": ("r = np.identity(3)", "r = jt.eye(3)"),
        "nan_to_num": ("r = np.nan_to_num(q)", "r = jt.where(jt.isnan(q), 0.0, q)"),
        "ravel_multi_index": (
            "r = np.ravel_multi_index((np.asarray([1, 0]), np.asarray([1, 1])), (2, 2))",
            "i, j = jt.asarray([1, 0]), jt.asarray([1, 1]); r = i * 2 + j"),
        "unravel_index": ("r = np.unravel_index(np.asarray([3, 1]), (2, 2))",
                          "i = jt.asarray([3, 1]); r = (i // 2, i % 2)"),
        "kron": ("r = np.kron(x, x)", "r = array_api_extra.kron(x, x, xp=jt)"),
        "float_": ("r = np.dtype(np.float64)", "r = jt.float64"),
        "int_": ("r = np.dtype(np.int64)", "r = jt.int64"),
        "bool_": ("r = np.dtype(np.bool_)", "r = jt.bool"),
    },
    "linalg": {
        "norm": ("r = np.linalg.norm(x)", "r = jt.linalg.matrix_norm(x)"),
        "lstsq": ("r = np.linalg.lstsq(x, v[:2])[0]", "r = jt.linalg.pinv(x) @ v[:2]"),
        "multi_dot": ("r = np.linalg.multi_dot([x, x, x])", "r = x @ x @ x"),
        "cond": ("r = np.linalg.cond(x)", "s = jt.linalg.svdvals(x); r = s[0] / s[-1]"),
    },
    "fft": {
        "fft2": ("r = np.fft.fft2(y3)", "r = jt.fft.fftn(y3, axes=(-2, -1))"),
        "ifft2": ("r = np.fft.ifft2(y3)", "r = jt.fft.ifftn(y3, axes=(-2, -1))"),
        "rfft2": ("r = np.fft.rfft2(y3)", "r = jt.fft.rfftn(y3, axes=(-2, -1))"),
        "irfft2": ("r = np.fft.irfft2(y3)", "r = jt.fft.irfftn(y3, axes=(-2, -1))"),
    },
    "tensor": {
        "copy": ("r = x.copy()", "r = jt.asarray(x, copy=True)"),
        "clone": ("r = x.copy()", "r = copy.copy(x)"),
        "fill": ("x.fill(2.0); r = x", "x[...] = 2.0; r = x"),
        "nonzero": ("r = (x > 1.5).nonzero()", "r = jt.nonzero(x > 1.5)"),
        "sort": ("v.sort(); r = v", "v[...] = jt.sort(v); r = v"),
        "repeat": ("r = v.repeat(2)", "r = jt.repeat(v, 2)"),
        "clip": ("r = v.clip(0.0, 2.0)", "r = jt.clip(v, 0.0, 2.0)"),
        "round": ("r = h.round()", "r = jt.round(h)"),
        "conj": ("r = c.conj()", "r = jt.conj(c)"),
        "conjugate": ("r = c.conjugate()", "r = jt.conj(c)"),
        "dot": ("r = x.dot(x)", "r = x @ x"),
        "trace": ("r = x.trace()", "r = jt.linalg.trace(x)"),
        "diagonal": ("r = x.diagonal()", "r = jt.linalg.diagonal(x)"),
        "take": ("r = x.take([1, 0], axis=1)", "r = jt.take(x, jt.asarray([1, 0]), axis=1)"),
        "searchsorted": ("r = np.sort(v).searchsorted(w)", "r = jt.searchsorted(jt.sort(v), w)"),
        "put": ("v.put([0], [5.0]); r = v", "v[[0]] = 5.0; r = v"),
        "compress": ("r = x.compress([True, False], axis=0)",
                     "r = x[jt.asarray([True, False])]"),
        "itemsize": ("r = x.itemsize", "r = x.dtype.itemsize"),
        "nbytes": ("r = x.nbytes", "r = x.size * x.dtype.itemsize"),
        "flat": ("r = np.asarray(list(x.flat))", "r = x.ravel()"),
        "tobytes": ("r = x.tobytes()", "r = np.asarray(x).tobytes()"),
        "unsqueeze": ("r = np.expand_dims(x, 0)", "r = jt.expand_dims(x, axis=0)"),
        "dim": ("r = y3.ndim", "r = y3.ndim"),
    },
}


def _env(lib: str) -> dict[str, Any]:
    values = {"x": [[1.0, 2.0], [3.0, 4.0]], "v": [3.0, -1.0, 2.0], "w": [0.5, -0.25, 0.75],
              "k": [5, 3, 5], "c": [1 + 2j, -1j, 3.0 + 0j], "z": 2.0, "q": [1.0, np.nan],
              "h": [0.5, 1.5, -2.5, 2.7], "y3": np.arange(24.0).reshape(2, 3, 4)}
    conv = (lambda a: np.asarray(a, dtype=np.asarray(jt.asarray(a)).dtype)) if lib == "np" \
        else jt.asarray
    return {"np": np, "jt": jt, "copy": copy, "array_api_extra": array_api_extra,
            **{n: conv(a) for n, a in values.items()}}


def _same(got: Any, want: Any, label: str) -> None:
    if isinstance(want, tuple):
        for g, w in zip(got, want, strict=True):
            _same(g, w, label)
        return
    if isinstance(want, (np.dtype, bytes, bool, int)):
        assert got == want, (label, got, want)
        return
    got = np.asarray(got)
    assert got.shape == np.shape(want), (label, got.shape, np.shape(want))
    np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=label)


@pytest.mark.parametrize(("table", "name"), ALL, ids=[f"{t}.{n}" for t, n in ALL])
def test_suggestion_computes_numpys_answer(table: str, name: str) -> None:
    numpy_code, jt_code = EXAMPLES[table][name]
    env_np, env_jt = _env("np"), _env("jt")
    exec(numpy_code, env_np)  # noqa: S102 - the examples of this file
    exec(jt_code, env_jt)  # noqa: S102
    _same(env_jt["r"], env_np["r"], f"{table}.{name}")


def test_every_name_has_an_example() -> None:
    for table, tab in TABLES.items():
        assert set(EXAMPLES[table]) == set(tab), table


@pytest.mark.parametrize("name", ["nrom", "sums", "foo", "lenght", "__wrapped__", "_private",
                                  "__array_interface__", "__array_struct__"])
def test_other_names_get_the_plain_error(name: str) -> None:
    for owner, text in ((jt, "module 'jaxtensor'"), (jt.linalg, "module 'jaxtensor.linalg'"),
                        (jt.fft, "module 'jaxtensor.fft'"), (jt.ones(2), "'Tensor' object")):
        assert not hasattr(owner, name)
        with pytest.raises(AttributeError) as info:
            getattr(owner, name)
        assert type(info.value) is AttributeError
        assert str(info.value) == f"{text} has no attribute {name!r}"


def test_existing_names_are_untouched() -> None:
    x = jt.ones((2, 2))
    assert hasattr(jt, "sum") and hasattr(jt.linalg, "vector_norm") and hasattr(x, "astype")
    assert x.ndim == 2 and x.T.shape == (2, 2) and hasattr(x, "swapaxes")
    assert copy.copy(x).tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_docs_show_exactly_these_tables() -> None:
    text = DOCS.read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(jt\.linalg\.|jt\.fft\.|jt\.|x\.)(\w+)` \| (.+?) \|$", text,
                      re.M)
    shown = {"jt.": {}, "jt.linalg.": {}, "jt.fft.": {}, "x.": {}}
    for prefix, name, hint in rows:
        shown[prefix][name] = hint
    assert shown == {"jt.": names.NAMESPACE, "jt.linalg.": names.LINALG, "jt.fft.": names.FFT,
                     "x.": names.TENSOR}
