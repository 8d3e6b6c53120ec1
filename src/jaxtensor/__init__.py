"""jaxtensor: a mutable, view-semantics Array API Tensor over immutable JAX arrays.

>>> import jaxtensor as jt
>>> x = jt.zeros(4)
>>> y = x[1:3]        # a view
>>> y[:] = 7
>>> x
Tensor(shape=[4], dtype=float32, device=cpu,
       [0., 7., 7., 0.])
"""

from ._config import X64 as _X64  # noqa: F401  (enables 64-bit mode first)
from ._creation import (
    arange,
    asarray,
    empty,
    empty_like,
    full,
    full_like,
    ones,
    ones_like,
    zeros,
    zeros_like,
)
from ._dtypes import (
    bool,
    complex64,
    complex128,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ._elementwise import *  # noqa: F403
from ._elementwise import imag, real
from ._indexing import NonConcreteBooleanIndexError
from ._manipulation import (
    expand_dims,
    flip,
    matrix_transpose,
    moveaxis,
    permute_dims,
    reshape,
    squeeze,
)
from ._operators import install as _install_operators
from ._storage import TracerLeakError
from ._tensor import Tensor
from ._utility import shares_memory

_install_operators()

__array_api_version__ = "2025.12"

__all__ = [
    "Tensor",
    "TracerLeakError",
    "NonConcreteBooleanIndexError",
    "arange",
    "asarray",
    "empty",
    "empty_like",
    "full",
    "full_like",
    "ones",
    "ones_like",
    "zeros",
    "zeros_like",
    "bool",
    "complex64",
    "complex128",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "expand_dims",
    "flip",
    "matrix_transpose",
    "moveaxis",
    "permute_dims",
    "reshape",
    "squeeze",
    "real",
    "imag",
    "shares_memory",
]
