"""Inspection: ``__array_namespace_info__()`` and the supported standard versions.

The namespace implements the 2025.12 standard and also answers as 2024.12 or 2023.12:
set ``JAXTENSOR_ARRAY_API_VERSION`` before importing jaxtensor (the conformance runner
sets it from ``ARRAY_API_TESTS_VERSION``). The only observable difference is the type
``devices()`` returns (a tuple from 2025.12 on, a list before).
"""

from __future__ import annotations

from typing import Any

import jax

from ._core import _config, _dtypes
from ._core._jax_private import EvalTrace, trace_state

__all__ = ["__array_namespace_info__"]

SUPPORTED_VERSIONS = ("2025.12", "2024.12", "2023.12")


def _api_version() -> str:
    v = (_config.ARRAY_API_VERSION or SUPPORTED_VERSIONS[0]).strip()
    if v not in SUPPORTED_VERSIONS:
        raise ValueError(
            f"JAXTENSOR_ARRAY_API_VERSION={v!r} is not supported; use one of "
            f"{', '.join(SUPPORTED_VERSIONS)}"
        )
    return v


#: The version of the standard this process answers as (``jaxtensor.__array_api_version__``).
API_VERSION = _api_version()

_KIND_DTYPES = {
    "bool": lambda: (_dtypes.bool,),
    "signed integer": lambda: tuple(d for d in _dtypes.integer_dtypes if d.kind == "i"),
    "unsigned integer": lambda: tuple(d for d in _dtypes.integer_dtypes if d.kind == "u"),
    "integral": lambda: _dtypes.integer_dtypes,
    "real floating": lambda: _dtypes.real_floating_dtypes,
    "complex floating": lambda: _dtypes.complex_floating_dtypes,
    "numeric": lambda: _dtypes.numeric_dtypes,
}


class ArrayNamespaceInfo:
    """What this namespace supports in this process (64-bit dtypes only in 64-bit mode).

    >>> import jaxtensor as jt
    >>> info = jt.__array_namespace_info__()
    >>> info.capabilities()["boolean indexing"]
    True
    >>> info.default_dtypes()["real floating"]
    dtype('float64')
    """

    __slots__ = ()

    def capabilities(self) -> dict[str, Any]:
        """Boolean indexing and data-dependent shapes work eagerly, not while a function is
        traced (``jit``, ``grad``, ``vmap``, a loop body: asked there, they are False, so a
        library asking takes its ``where`` path; see ``NonConcreteBooleanIndexError``); XLA
        allows 64 dimensions."""
        eager = type(trace_state.value) is EvalTrace
        return {"boolean indexing": eager, "data-dependent shapes": eager,
                "max dimensions": 64}

    def default_device(self) -> Any:
        """The device new Tensors go to (JAX's default device)."""
        return jax.devices()[0]

    def devices(self) -> tuple[Any, ...] | list[Any]:
        """Every device JAX can place a Tensor on (a list for standard versions before 2025.12)."""
        devs = tuple(jax.devices())
        return devs if API_VERSION >= "2025.12" else list(devs)

    def default_dtypes(self, *, device: Any = None) -> dict[str, Any]:
        """Default dtypes: float64, complex128 and int64 in 64-bit mode; float32, complex64 and
        int32 with it off. ``set_default_dtype(float32)`` or ``JAXTENSOR_DEFAULT_FLOAT=float32``
        makes the floating ones float32 and complex64 in 64-bit mode too."""
        return {
            "real floating": _dtypes.default_float,
            "complex floating": _dtypes.default_complex,
            "integral": _dtypes.default_int,
            "indexing": _dtypes.default_index,
        }

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, Any]:
        """The supported dtypes by name, optionally only those of ``kind`` (a kind name or a
        tuple of them)."""
        if kind is None:
            dts = _dtypes.all_dtypes
        else:
            kinds = kind if isinstance(kind, tuple) else (kind,)
            dts = []
            for k in kinds:
                try:
                    dts.extend(_KIND_DTYPES[k]())
                except KeyError:
                    raise ValueError(
                        f"unknown dtype kind {k!r}; use one of {', '.join(map(repr, _KIND_DTYPES))}"
                    ) from None
        return {str(d): d for d in dts}


_INFO = ArrayNamespaceInfo()


def __array_namespace_info__() -> ArrayNamespaceInfo:
    """The inspection object of the Array API standard.

    >>> import jaxtensor as jt
    >>> sorted(jt.__array_namespace_info__().dtypes(kind="unsigned integer"))[:2]
    ['uint16', 'uint32']
    """
    return _INFO
