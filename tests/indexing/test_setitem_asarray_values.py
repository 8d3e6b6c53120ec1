"""``x[key] = value`` takes exactly the values ``jt.asarray`` takes, cast by assignment's rules.

Ranges, buffer-protocol objects (``memoryview``, ``array.array``, ``bytearray``), and other
libraries' arrays (PyTorch, array_api_strict, JAX, NumPy subclasses) were refused unless
they had ``__array_namespace__``/``__dlpack__``. NumPy, which takes all of them, is the oracle
for every kind of value, every target dtype, and basic, integer-array and mask keys; a
complex value into a real Tensor raises ``TypeError`` (assignment's rule) and changes
nothing; what ``asarray`` refuses is a ``TypeError`` too.
"""

from __future__ import annotations

import array

import array_api_strict as xps
import jax.numpy as jnp
import numpy as np
import pytest

import jaxtensor as jt
from optional_deps import require

torch = require("torch", "torch")  # the PyTorch oracle

TARGETS = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
SOME = ["bool", "uint8", "int64", "bfloat16", "float32", "complex64"]

#: name -> a function making a value of three elements (built anew for every use: a
#: generator or a consumed buffer must not be shared)
VALUES = {
    "range": lambda: range(3),
    "range with a step": lambda: range(4, -2, -2),
    "memoryview of doubles": lambda: memoryview(array.array("d", [0.5, 1.5, 2.5])),
    "array.array int32": lambda: array.array("i", [2, 0, 1]),
    "array.array float32": lambda: array.array("f", [1.5, 0.25, 2.0]),
    "array.array int8": lambda: array.array("b", [1, 2, 3]),
    "bytearray": lambda: bytearray(b"\x01\x00\x02"),
    "memoryview of a bytearray": lambda: memoryview(bytearray(b"\x02\x01\x00")),
    "memoryview of a NumPy array": lambda: memoryview(np.asarray([0.0, 1.0, 2.5])),
    "torch float32": lambda: torch.tensor([0.5, 1.0, 2.0]),
    "torch int64": lambda: torch.tensor([2, 1, 0]),
    "torch bool": lambda: torch.tensor([True, False, True]),
    "array_api_strict int": lambda: xps.asarray([1, 2, 0]),
    "array_api_strict float": lambda: xps.asarray([1.0, 0.0, 2.0]),
    "jax.Array": lambda: jnp.asarray([2.0, 1.0, 0.0]),
    "NumPy matrix (a leading 1-side)": lambda: np.matrix([[1, 2, 0]]),
    "complex memoryview": lambda: memoryview(np.asarray([1 + 1j, 2, 3])),
    "torch complex": lambda: torch.tensor([1 + 2j, 0, 1]),
}
#: keys selecting three elements: basic, integer array, mask
KEYS = {
    "all": (slice(None), slice(None)),
    "reversed": slice(None, None, -1),
    "int array": [2, 0, 1],
    "mask": np.asarray([True, False, True, True]),
}


def _np_dtype(d: str) -> np.dtype:
    return np.dtype(jt.asarray(0, dtype=d).dtype)


def _as_numpy(value: object) -> np.ndarray:
    """The value as NumPy sees it (array_api_strict's arrays only through DLPack)."""
    if type(value).__module__.startswith("array_api_strict"):
        return np.from_dlpack(value)
    return np.asarray(value)


def _target(d: str, key: str) -> tuple[np.ndarray, object]:
    """A NumPy array of dtype ``d`` and the key selecting 3 of its elements."""
    a = np.arange(4).astype(_np_dtype(d))
    if key == "all":
        return a.reshape(1, 4)[:, 1:], KEYS[key]
    if key == "reversed":
        return a[1:], KEYS[key]
    return a, KEYS[key]


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
@pytest.mark.parametrize("kind", sorted(VALUES))
def test_value_kinds_into_every_dtype(kind: str) -> None:
    for d in TARGETS:
        for key in KEYS if d in SOME else ["all"]:  # (the key does not meet the value's dtype)
            a, k = _target(d, key)
            x = jt.asarray(a)
            before = a.copy()
            v = _as_numpy(VALUES[kind]())
            if v.dtype.kind == "c" and a.dtype.kind != "c":
                with pytest.raises(TypeError, match="complex"):
                    x[k] = VALUES[kind]()
                np.testing.assert_array_equal(np.asarray(x), before)
                continue
            with np.errstate(all="ignore"):
                a[k] = v.reshape(a[k].shape)  # (leading 1-sides: NumPy's masks refuse them)
            x[k] = VALUES[kind]()
            got = np.asarray(x)
            assert got.dtype == a.dtype, (kind, d, key)
            np.testing.assert_array_equal(got, a, err_msg=f"{kind} into {d} at {key}")


@pytest.mark.parametrize("value", [
    "text", b"bytes", {"a": 1}, {1, 2}, (i for i in range(3)), object(), np.array(["a", "b"]),
])
def test_what_asarray_refuses_is_a_type_error(value: object) -> None:
    with pytest.raises(TypeError):
        jt.asarray(value)
    x = jt.zeros(2)
    with pytest.raises(TypeError, match="cannot assign|only numbers"):
        x[:] = value
    assert x.tolist() == [0.0, 0.0]


def test_reported_examples() -> None:
    x = jt.zeros(5, dtype=jt.int32)
    x[1:4] = range(3)
    x[[0, 4]] = array.array("i", [7, 8])
    v = x[1:3]
    v[...] = memoryview(array.array("d", [5.9, -6.9]))
    assert x.tolist() == [7, 5, -6, 2, 8]


def test_under_jit_a_buffer_is_a_constant() -> None:
    @jt.jit
    def f(t: jt.Tensor) -> None:
        t[:] = range(3)

    x = jt.ones(3)
    f(x)
    assert x.tolist() == [0.0, 1.0, 2.0]
