"""Arguments of the wrong kind raise the error NumPy raises, naming the function and the
argument: a non-integer axis, shape, count or shift (``TypeError``), an axis out of range
(``AxisError``), a string ``ord`` of a vector norm (``ValueError``), a zero ``arange`` step
(``ValueError``, and NumPy's ``ZeroDivisionError``), ``item()`` of several
elements (``ValueError``, as NumPy; ``float()`` stays ``TypeError``)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import jaxtensor as jt

X = jt.ones((2, 3))
M = jt.eye(2)

# (call, exception, the words the message names)
CASES = {
    "sum axis str": (lambda: jt.sum(X, axis="a"), TypeError, "sum(): axis"),
    "mean axis range": (lambda: jt.mean(X, axis=5), np.exceptions.AxisError, "mean(): axis 5"),
    "max axis float": (lambda: jt.max(X, axis=1.5), TypeError, "max(): axis"),
    "argmax axis": (lambda: jt.argmax(X, axis="q"), TypeError, "argmax(): axis"),
    "any repeated": (lambda: jt.any(X > 0, axis=(0, 0)), ValueError, "any(): axis"),
    "cumulative_sum axis": (lambda: jt.cumulative_sum(X, axis=3), np.exceptions.AxisError,
                            "cumulative_sum(): axis"),
    "sort axis": (lambda: jt.sort(X, axis=7), np.exceptions.AxisError, "sort(): axis"),
    "argsort axis": (lambda: jt.argsort(X, axis=7), np.exceptions.AxisError,
                     "argsort(): axis"),
    "expand_dims axis": (lambda: jt.expand_dims(X, axis=1.5), TypeError, "expand_dims(): axis"),
    "squeeze axis": (lambda: jt.squeeze(X, axis=9), np.exceptions.AxisError, "squeeze(): axis"),
    "flip axis": (lambda: jt.flip(X, axis=4), np.exceptions.AxisError, "flip(): axis"),
    "concat axis": (lambda: jt.concat([X, X], axis=3), np.exceptions.AxisError,
                    "concat(): axis"),
    "stack axis": (lambda: jt.stack([X, X], axis=4), np.exceptions.AxisError, "stack(): axis"),
    "unstack axis": (lambda: jt.unstack(X, axis=2), np.exceptions.AxisError, "unstack(): axis"),
    "roll axis": (lambda: jt.roll(X, 1, axis=2), np.exceptions.AxisError, "roll(): axis"),
    "moveaxis source": (lambda: jt.moveaxis(X, 2, 0), np.exceptions.AxisError,
                        "moveaxis(): source"),
    "permute_dims axes": (lambda: jt.permute_dims(X, (0, 2)), np.exceptions.AxisError,
                          "permute_dims(): axes"),
    "count_nonzero axis": (lambda: jt.count_nonzero(X, axis="a"), TypeError,
                           "count_nonzero(): axis"),
    "vector_norm axis": (lambda: jt.linalg.vector_norm(X, axis=3), np.exceptions.AxisError,
                         "linalg.vector_norm(): axis"),
    "vector_norm ord": (lambda: jt.linalg.vector_norm(X, ord="fro"), ValueError,
                        "linalg.vector_norm(): ord"),
    "matrix_power n": (lambda: jt.linalg.matrix_power(M, 1.5), TypeError,
                       "linalg.matrix_power(): n"),
    "linspace num": (lambda: jt.linspace(0, 1, 2.5), TypeError, "linspace(): num"),
    "eye k": (lambda: jt.eye(3, k=1.5), TypeError, "eye(): k"),
    "eye n_cols": (lambda: jt.eye(3, "a"), TypeError, "eye(): n_cols"),
    "tril k": (lambda: jt.tril(M, k=1.5), TypeError, "tril(): k"),
    "triu k": (lambda: jt.triu(M, k="a"), TypeError, "triu(): k"),
    "roll shift": (lambda: jt.roll(X, 1.5), TypeError, "roll(): shift"),
    "tile repetitions": (lambda: jt.tile(X, 1.5), TypeError, "tile(): repetitions"),
    "reshape method": (lambda: X.reshape(2.0, 3), TypeError, "reshape(): shape[0]"),
    "reshape function": (lambda: jt.reshape(X, (2, 3.0)), TypeError, "reshape(): shape[1]"),
    "broadcast_to shape": (lambda: jt.broadcast_to(X, (2, 3.0)), TypeError,
                           "broadcast_to(): shape[1]"),
    "zeros float": (lambda: jt.zeros(2.5), TypeError, "zeros(): shape"),
    "zeros item": (lambda: jt.zeros((2.5,)), TypeError, "zeros(): shape[0]"),
    "ones str": (lambda: jt.ones("a"), TypeError, "ones(): shape"),
    "empty float": (lambda: jt.empty(2.5), TypeError, "empty(): shape"),
    "full None": (lambda: jt.full(None, 1.0), TypeError, "full(): shape"),
    "item of two": (lambda: jt.ones(2).item(), ValueError, "one element"),
    "arange step 0": (lambda: jt.arange(0, 10, 0), ValueError, "arange(): step"),
    "arange step 0, NumPy's type": (lambda: jt.arange(1.0, 2.0, 0.0), ZeroDivisionError,
                                    "arange(): step"),
    "float of two": (lambda: float(jt.ones(2)), TypeError, "one element"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_bad_argument_names_the_function_and_argument(name: str) -> None:
    call, exc, words = CASES[name]
    with pytest.raises(exc, match=re.escape(words)):
        call()


def test_numpy_raises_the_same_types() -> None:
    """The exception types above are NumPy's for the same mistakes."""
    a = np.ones((2, 3))
    for call, exc in ((lambda: np.sum(a, axis=5), np.exceptions.AxisError),
                      (lambda: np.zeros(2.5), TypeError),
                      (lambda: np.ones(2).item(), ValueError),
                      (lambda: float(np.ones(2)), TypeError),
                      (lambda: np.linspace(0, 1, 2.5), TypeError),
                      (lambda: np.arange(1.0, 2.0, 0.0), ZeroDivisionError),
                      (lambda: np.linalg.norm(np.ones(3), ord="fro"), ValueError)):
        with pytest.raises(exc):
            call()
