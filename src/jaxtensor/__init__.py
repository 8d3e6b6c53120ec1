"""jaxtensor: a mutable, view-semantics Array API Tensor over immutable JAX arrays.

>>> import jaxtensor as jt
>>> x = jt.zeros(4)
>>> y = x[1:3]        # a view
>>> y[:] = 7
>>> x
Tensor(shape=[4], dtype=float64, device=cpu,
       [0., 7., 7., 0.])

The namespace is the package: every module below contributes its ``__all__``.
"""

from ._core import X64 as _X64  # enables 64-bit mode before anything else

from ._core import clear_caches

from . import (
    _creation,
    _data_exchange,
    _data_type_functions,
    _elementwise,
    _index_select,
    _indexing_functions,
    _indexing_nd,
    _info,
    _jit,
    _linear_algebra,
    _manipulation,
    _searching,
    _set,
    _sorting,
    _statistical,
    _utility,
    fft,
    linalg,
)
from ._core import _dtypes
from ._creation import *  # noqa: F403
from ._data_exchange import *  # noqa: F403
from ._data_type_functions import *  # noqa: F403
from ._elementwise import *  # noqa: F403
from ._index_select import *  # noqa: F403
from ._indexing import NonConcreteBooleanIndexError, ds
from ._indexing_functions import *  # noqa: F403
from ._indexing_nd import *  # noqa: F403
from ._info import *  # noqa: F403
from ._linear_algebra import *  # noqa: F403
from ._manipulation import *  # noqa: F403
from ._searching import *  # noqa: F403
from ._set import *  # noqa: F403
from ._sorting import *  # noqa: F403
from ._statistical import *  # noqa: F403
from ._core import TracerLeakError
from ._core import Tensor
from ._jit import *  # noqa: F403
from ._utility import *  # noqa: F403

# the public exceptions print as the names users catch them by
TracerLeakError.__module__ = NonConcreteBooleanIndexError.__module__ = "jaxtensor"
UnrolledLoopWarning.__module__ = ds.__module__ = "jaxtensor"  # noqa: F405
RecompileWarning.__module__ = "jaxtensor"  # noqa: F405

# The public dtype constants wrap NumPy dtypes (see _dtypes.DType).
bool = _dtypes.public["bool"]  # noqa: A001
int8, int16, int32, int64 = (_dtypes.public[f"int{n}"] for n in (8, 16, 32, 64))
uint8, uint16, uint32, uint64 = (_dtypes.public[f"uint{n}"] for n in (8, 16, 32, 64))
float32, float64 = _dtypes.public["float32"], _dtypes.public["float64"]
complex64, complex128 = _dtypes.public["complex64"], _dtypes.public["complex128"]
float16, bfloat16 = _dtypes.public["float16"], _dtypes.public["bfloat16"]  # extensions

# Tensor's operators and methods, bound from one table once the namespace exists
from . import _methods
from . import _weak_operators  # (those of a Python number passed to jaxtensor.jit)

_indexing_functions.attach_ufunc_at(globals())  # add.at(x, indices, values), NumPy's

# jax.numpy's own indexing takes Tensor indices (jnp_array[t], jnp_array.at[t])
from ._indexing import install_jax_hook

install_jax_hook()

__array_api_version__ = _info.API_VERSION

_DTYPE_NAMES = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128", "float16", "bfloat16",
]

__all__ = sorted(
    {"Tensor", "TracerLeakError", "clear_caches", "NonConcreteBooleanIndexError", "ds", "fft", "linalg",
     "__array_api_version__", *_DTYPE_NAMES}
    | {
        n
        for m in (
            _creation, _data_exchange, _data_type_functions, _elementwise, _index_select,
            _indexing_functions, _indexing_nd, _info, _linear_algebra, _manipulation, _searching, _set,
            _sorting, _statistical, _jit, _utility,
        )
        for n in m.__all__
    }
)

# NumPy's names this namespace does not have: their AttributeError says what to write instead
from . import _numpy_names


def __getattr__(name: str) -> object:
    raise _numpy_names.missing("module 'jaxtensor'", "jaxtensor", _numpy_names.NAMESPACE, name)


# the numpydoc sections of the public docstrings (Parameters, Returns, ...)
from ._docs import _docstrings

_docstrings.complete_all(globals())
