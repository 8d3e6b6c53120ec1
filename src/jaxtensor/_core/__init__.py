"""The core: storage, views, the Tensor class, compiled kernels, caches and settings.

Everything above (indexing, ``jaxtensor.jit``, the namespace) builds on the names listed in
``__all__``; the core imports nothing of them. See ``README.md`` beside this file.
"""

from . import _config  # (first: turns on 64-bit mode before any array exists)
from . import _cache, _constants, _context, _conversion, _dtypes, _errors, _kernels, _storage, _view
from ._cache import cache, clear_caches
from ._config import X64
from ._constants import device_constant, starts_array
from ._conversion import as_device, asarray
from ._context import JitTrace, check_traced, checked_later, current, raised_later
from ._errors import LinAlgError
from ._storage import Deferred, Storage, TracerLeakError, current_trace
from ._storage import _layout as storage_layout
from ._tensor import Tensor, WeakTensor, element, new_tensor, over
from ._view import _IDX_NP as IDX
from ._view import View
from ._weak import as_weak, strong, weak_argument, weak_number

__all__ = [
    "IDX", "Deferred", "JitTrace", "LinAlgError", "as_device", "asarray", "check_traced", "checked_later", "raised_later", "Storage", "Tensor", "TracerLeakError", "View", "X64", "cache",
    "clear_caches", "current", "element", "over", "current_trace", "device_constant", "new_tensor", "starts_array",
    "storage_layout", "WeakTensor", "as_weak", "strong", "weak_argument", "weak_number",
    # modules used as namespaces by the layers above
    "_cache", "_config", "_constants", "_context", "_conversion", "_dtypes", "_errors", "_kernels",
    "_storage", "_view",
]
