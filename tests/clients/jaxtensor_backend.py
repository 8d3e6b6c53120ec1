"""A pytest plugin that runs a client library's own array-API tests on one chosen backend.

Loaded with ``-p jaxtensor_backend`` (this folder on ``sys.path``) when pytest runs the tests
that scikit-learn, SciPy and array-api-extra ship in their wheels. ``JT_CLIENT_BACKEND``
names the backend: ``jaxtensor`` or ``numpy`` (the reference run). Each client picks its
array namespaces from a fixed list of libraries it knows; the plugin replaces that list with
the chosen backend only, so a run on jaxtensor and a run on NumPy collect the same tests
under the same ids (with the backend's name in place of the namespace parameter).

- scikit-learn: ``sklearn.utils._array_api.yield_namespaces`` and
  ``yield_namespace_device_dtype_combinations`` (read by the test modules at import).
- SciPy: the ``xp`` fixture of ``scipy/conftest.py`` (its params are rebuilt when the
  conftest is registered, before pytest reads its fixtures) and ``xp_known_backends``.
- array-api-extra: the ``Backend`` enum, extended with ``JAXTENSOR``.

Tests not parametrized by the chosen backend (other backends, or no array namespace at all)
are deselected: what runs is each client's array-API tests.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Iterator
from typing import Any

import pytest

BACKEND = os.environ.get("JT_CLIENT_BACKEND", "jaxtensor")
if BACKEND not in ("jaxtensor", "numpy"):
    raise ValueError(f"JT_CLIENT_BACKEND must be 'jaxtensor' or 'numpy', not {BACKEND!r}")


def _patch_sklearn() -> None:
    try:
        import sklearn.utils._array_api as sk
    except ImportError:
        return

    def yield_namespaces(include_numpy_namespaces: bool = True) -> Iterator[str]:
        if include_numpy_namespaces or BACKEND != "numpy":
            yield BACKEND

    def yield_namespace_device_dtype_combinations(
        include_numpy_namespaces: bool = True,
    ) -> Iterator[tuple[str, None, str | None]]:
        # the client's own NumPy entry carries no dtype; each backend is tried in float64
        # and float32, as scikit-learn does for torch and array_api_strict
        for name in yield_namespaces(include_numpy_namespaces):
            yield name, None, "float64"
            yield name, None, "float32"

    sk.yield_namespaces = yield_namespaces
    sk.yield_namespace_device_dtype_combinations = yield_namespace_device_dtype_combinations


def _patch_array_api_extra() -> None:
    try:
        import array_api_extra._lib._backends as backends
    except ImportError:
        return
    old = backends.Backend
    if "JAXTENSOR" in old.__members__:
        return
    members = {m.name: m.value for m in old} | {"JAXTENSOR": "jaxtensor"}
    new = enum.Enum("Backend", members, type=_backend_mixin(old))  # type: ignore[misc]
    new.__module__ = old.__module__
    backends.Backend = new


def _backend_mixin(old: type) -> type:
    """A plain class holding the methods and properties of the client's enum."""
    names = ("modname", "like", "pytest_param")
    return type("_BackendMethods", (), {n: old.__dict__[n] for n in names})


_patch_sklearn()
_patch_array_api_extra()


@pytest.hookimpl(tryfirst=True)
def pytest_plugin_registered(plugin: Any, plugin_name: str) -> None:
    """Give SciPy's ``xp`` fixture the chosen backend only, before pytest reads it."""
    file = getattr(plugin, "__file__", "") or ""
    if not file.replace(os.sep, "/").endswith("scipy/conftest.py"):
        return
    if BACKEND == "jaxtensor":
        import jaxtensor

        plugin.xp_known_backends.add("jaxtensor")
        module: Any = jaxtensor
    else:
        import numpy

        module = numpy
    params = [pytest.param(module, id=BACKEND, marks=pytest.mark.array_api_backends)]
    plugin.xp_available_backends[:] = params
    plugin.xp = pytest.fixture(params=params)(plugin.xp._get_wrapped_function())


def _names_backend(value: object) -> str | None:
    """The backend a test parameter stands for, if it is one."""
    if isinstance(value, str):
        return value
    name = getattr(value, "value", None)  # array-api-extra's Backend enum
    if isinstance(name, str):
        return name
    name = getattr(value, "__name__", None)  # SciPy's module parameter
    return name if isinstance(name, str) else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep only the tests parametrized by the chosen backend (the array-API tests)."""
    keep, drop = [], []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if any(_names_backend(v) == BACKEND for v in params.values()):
            keep.append(item)
        else:
            drop.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
