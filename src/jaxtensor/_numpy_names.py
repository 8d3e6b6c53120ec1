"""NumPy names jaxtensor does not have, and what to write instead.

``jaxtensor.norm``, ``jaxtensor.linalg.norm``, ``x.copy()`` and the like raise
``AttributeError`` (so ``hasattr`` stays False, as for any missing name) whose message names
the spelling here: the package's and ``linalg``'s module ``__getattr__`` and
``Tensor.__getattr__`` (bound by ``_methods``) look the name up in :data:`NAMESPACE`,
:data:`LINALG` or :data:`TENSOR`. Any other missing name gets Python's plain message.
``docs/migrating.md`` shows the tables; ``tests/interop/test_numpy_names.py`` runs every suggestion.

>>> import jaxtensor as jt
>>> jt.norm
Traceback (most recent call last):
  ...
AttributeError: jaxtensor has no norm; use jaxtensor.linalg.vector_norm (vectors, any axes) or jaxtensor.linalg.matrix_norm (matrices)
>>> hasattr(jt, "norm"), hasattr(jt.ones(2), "copy")
(False, False)
"""

from __future__ import annotations

from typing import NoReturn

_VSTACK = "jaxtensor.concat(arrays, axis=0) (jaxtensor.stack(arrays) for 1-D arrays)"
_ATLEAST = ("array_api_extra.atleast_nd(x, ndim=N, xp=jaxtensor) (new axes in front), or "
            "jaxtensor.expand_dims")

#: NumPy's name -> what to write with jaxtensor (``x`` is the Tensor in question)
NAMESPACE: dict[str, str] = {
    "norm": "jaxtensor.linalg.vector_norm (vectors, any axes) or jaxtensor.linalg.matrix_norm "
            "(matrices)",
    "copy": "jaxtensor.asarray(x, copy=True)",
    "array": "jaxtensor.asarray (copy=True to always copy)",
    "fill_diagonal": "x[i, i] = value with i = jaxtensor.arange(min(x.shape)) (a write in place)",
    "pad": "array_api_extra.pad(x, pad_width, xp=jaxtensor), or jaxtensor.concat with "
           "jaxtensor.zeros blocks",
    "concatenate": "jaxtensor.concat",
    "append": "jaxtensor.concat([x, values])",
    "hstack": "jaxtensor.concat(arrays, axis=1) (axis=0 for 1-D arrays)",
    "vstack": _VSTACK,
    "row_stack": _VSTACK,
    "column_stack": "jaxtensor.stack(arrays, axis=1) for 1-D arrays (jaxtensor.concat(arrays, "
                    "axis=1) for 2-D)",
    "dstack": "jaxtensor.stack(arrays, axis=-1) for 2-D arrays",
    "atleast_1d": _ATLEAST,
    "atleast_2d": _ATLEAST,
    "atleast_3d": "jaxtensor.expand_dims(x, axis=-1) for a 2-D x (NumPy puts its new axis "
                  "last), array_api_extra.atleast_nd for 0-D and 1-D",
    "split": "slices x[a:b] (views), or jaxtensor.unstack for pieces of size 1",
    "swapaxes": "jaxtensor.permute_dims, or the method x.swapaxes(a, b) (a view)",
    "transpose": "jaxtensor.permute_dims(x, axes) or jaxtensor.matrix_transpose(x) (x.T, x.mT)",
    "rollaxis": "jaxtensor.moveaxis",
    "ravel": "jaxtensor.reshape(x, (-1,)), or x.ravel() (a view when it can)",
    "ndim": "the attribute x.ndim",
    "shape": "the attribute x.shape",
    "size": "the attribute x.size",
    "absolute": "jaxtensor.abs",
    "fabs": "jaxtensor.abs",
    "power": "jaxtensor.pow",
    "true_divide": "jaxtensor.divide",
    "mod": "jaxtensor.remainder",
    "arccos": "jaxtensor.acos",
    "arcsin": "jaxtensor.asin",
    "arctan": "jaxtensor.atan",
    "arctan2": "jaxtensor.atan2",
    "arccosh": "jaxtensor.acosh",
    "arcsinh": "jaxtensor.asinh",
    "arctanh": "jaxtensor.atanh",
    "invert": "jaxtensor.bitwise_invert",
    "bitwise_not": "jaxtensor.bitwise_invert",
    "left_shift": "jaxtensor.bitwise_left_shift",
    "right_shift": "jaxtensor.bitwise_right_shift",
    "conjugate": "jaxtensor.conj",
    "around": "jaxtensor.round",
    "rint": "jaxtensor.round",
    "fix": "jaxtensor.trunc",
    "amax": "jaxtensor.max",
    "amin": "jaxtensor.min",
    "ptp": "jaxtensor.max(x) - jaxtensor.min(x)",
    "average": "jaxtensor.mean (weighted: jaxtensor.sum(w * x) / jaxtensor.sum(w))",
    "cumsum": "jaxtensor.cumulative_sum (or the method x.cumsum())",
    "cumprod": "jaxtensor.cumulative_prod (or the method x.cumprod())",
    "unique": "jaxtensor.unique_values (or jaxtensor.unique_counts, jaxtensor.unique_inverse, "
              "jaxtensor.unique_all)",
    "argwhere": "jaxtensor.stack(jaxtensor.nonzero(x), axis=-1)",
    "flatnonzero": "jaxtensor.nonzero(jaxtensor.reshape(x, (-1,)))[0]",
    "put": "x[indices] = values (a write in place), or jaxtensor.index_put",
    "put_along_axis": "x.scatter_(axis, indices, values) (in place) or jaxtensor.scatter",
    "copyto": "dst[...] = src",
    "dot": "jaxtensor.matmul (x @ y), jaxtensor.vecdot or jaxtensor.tensordot",
    "inner": "jaxtensor.vecdot",
    "outer": "jaxtensor.linalg.outer",
    "cross": "jaxtensor.linalg.cross",
    "trace": "jaxtensor.linalg.trace",
    "diagonal": "jaxtensor.linalg.diagonal",
    "diag": "jaxtensor.linalg.diagonal (the diagonal of a matrix)",
    "identity": "jaxtensor.eye(n)",
    "nan_to_num": "jaxtensor.where(jaxtensor.isnan(x), 0.0, x), or array_api_extra.nan_to_num",
    "ravel_multi_index": "the linear index i * n + j of an (m, n) array (C order)",
    "unravel_index": "i // n and i % n for an (m, n) array, or array_api_extra.unravel_index",
    "kron": "array_api_extra.kron(a, b, xp=jaxtensor)",
    "float_": "jaxtensor.float64",
    "int_": "jaxtensor.int64",
    "bool_": "jaxtensor.bool",
}

#: ``numpy.linalg``'s names ``jaxtensor.linalg`` does not have
LINALG: dict[str, str] = {
    "norm": NAMESPACE["norm"],
    "lstsq": "jaxtensor.linalg.pinv(a) @ b (jaxtensor.linalg.solve for a square, invertible a)",
    "multi_dot": "a @ b @ c (jaxtensor.linalg.matmul)",
    "cond": "jaxtensor.linalg.svdvals(x): its first value over its last",
}

#: ``numpy.fft``'s names ``jaxtensor.fft`` does not have
FFT: dict[str, str] = {
    "fft2": "jaxtensor.fft.fftn(x, axes=(-2, -1))",
    "ifft2": "jaxtensor.fft.ifftn(x, axes=(-2, -1))",
    "rfft2": "jaxtensor.fft.rfftn(x, axes=(-2, -1))",
    "irfft2": "jaxtensor.fft.irfftn(x, axes=(-2, -1))",
}

#: ``numpy.ndarray``'s (and a few of PyTorch's) attributes a Tensor does not have
TENSOR: dict[str, str] = {
    "copy": "jaxtensor.asarray(x, copy=True) (or copy.copy(x))",
    "clone": "jaxtensor.asarray(x, copy=True) (or copy.copy(x))",
    "fill": "x[...] = value",
    "nonzero": "jaxtensor.nonzero(x)",
    "sort": "x[...] = jaxtensor.sort(x) (jaxtensor.sort returns a new Tensor; NumPy's "
            "method sorts in place)",
    "repeat": "jaxtensor.repeat(x, repeats, axis=axis)",
    "clip": "jaxtensor.clip(x, min, max)",
    "round": "jaxtensor.round(x)",
    "conj": "jaxtensor.conj(x)",
    "conjugate": "jaxtensor.conj(x)",
    "dot": "x @ y (jaxtensor.matmul)",
    "trace": "jaxtensor.linalg.trace(x)",
    "diagonal": "jaxtensor.linalg.diagonal(x)",
    "take": "jaxtensor.take(x, indices, axis=axis)",
    "searchsorted": "jaxtensor.searchsorted(x, values)",
    "put": "x[indices] = values",
    "compress": "x[mask] (a boolean index)",
    "itemsize": "x.dtype.itemsize",
    "nbytes": "x.size * x.dtype.itemsize",
    "flat": "jaxtensor.reshape(x, (-1,)) or x.ravel()",
    "tobytes": "np.asarray(x).tobytes()",
    "unsqueeze": "jaxtensor.expand_dims(x, axis=axis)",
    "dim": "the attribute x.ndim",
}


def missing(owner: str, who: str, table: dict[str, str], name: str,
            obj: object = None) -> AttributeError:
    """The ``AttributeError`` for the missing attribute ``name`` of ``who``: the spelling to
    use when ``table`` has one, else Python's plain message (``owner`` has no attribute)."""
    hint = table.get(name)
    if hint is None:
        return AttributeError(f"{owner} has no attribute {name!r}", name=name, obj=obj)
    return AttributeError(f"{who} has no {name}; use {hint}", name=name, obj=obj)


class Absent(property):
    """NumPy's attribute ``name``, which a Tensor does not have: reading it raises the
    ``AttributeError`` naming the spelling to use (so ``hasattr(x, name)`` is False). One
    property per name of :data:`TENSOR`, not a ``Tensor.__getattr__``: CPython specialises
    attribute reads only for classes without ``__getattr__``, so one would slow every
    attribute read of every Tensor (docs/measurements.md, section "NumPy's names as
    properties, not ``__getattr__``")."""

    def __init__(self, name: str) -> None:
        def absent(obj: object) -> NoReturn:
            raise missing("'Tensor' object", "a Tensor", TENSOR, name, obj)

        super().__init__(absent, doc=f"Not a Tensor attribute: use {TENSOR[name]}.")
