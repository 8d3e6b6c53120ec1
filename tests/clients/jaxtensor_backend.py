"""A pytest plugin that runs a client library's own array-API tests on one chosen backend.

Loaded with ``-p jaxtensor_backend`` (this folder on ``sys.path``) when pytest runs the tests
that the clients ship in their wheels. ``JT_CLIENT_BACKEND`` names the backend: ``jaxtensor``,
or a reference: ``numpy`` or ``array_api_strict``. Each client picks its array namespaces
from a fixed list of libraries it knows; the plugin replaces that list with the chosen
backend only, so a run on jaxtensor and a run on a reference collect the same tests under
the same ids (with the backend's name in place of the namespace parameter).

- scikit-learn: ``sklearn.utils._array_api.yield_namespaces`` and
  ``yield_namespace_device_dtype_combinations`` (read by the test modules at import).
- SciPy: the ``xp`` fixture of ``scipy/conftest.py`` (its params are rebuilt when the
  conftest is registered, before pytest reads its fixtures) and ``xp_known_backends``.
- array-api-extra: the ``Backend`` enum, extended with ``JAXTENSOR``.
- einops: its backend tests loop over ``einops.tests.collect_test_backends()``, which builds
  the backends named by ``EINOPS_TEST_BACKENDS`` from einops' own classes. NumPy is einops'
  ``NumpyBackend``; jaxtensor and array_api_strict get ``ArrayApiBackend`` below, an einops
  backend written with the standard's functions only (einops has no backend for an
  array-API namespace: its ``einops.array_api`` functions are tested on NumPy alone).
- xarray: ``test_array_api`` reads its namespace from the module globals ``xp`` and
  ``Array`` (array_api_strict); ``test_duck_array_wrapping`` is parametrized by the names
  of ``NAMESPACE_ARRAYS`` (the list ``NAMESPACES``).
- marray: its tests are parametrized by the module list ``xps``.

The module-level lists and globals are replaced when pytest collects the module's first
name (``pytest_pycollect_makeitem``), before any of its tests is parametrized.

Tests not parametrized by the chosen backend (other backends, or no array namespace at all)
are deselected: what runs is each client's array-API tests (for einops, the tests that loop
over its imperative backends; for xarray's ``test_array_api``, all of it).
"""

from __future__ import annotations

import enum
import importlib
import os
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest

BACKENDS = ("jaxtensor", "numpy", "array_api_strict")
BACKEND = os.environ.get("JT_CLIENT_BACKEND", "jaxtensor")
if BACKEND not in BACKENDS:
    raise ValueError(f"JT_CLIENT_BACKEND must be one of {BACKENDS}, not {BACKEND!r}")
# the client whose tests run (run_clients.py sets it): only its patches are made, so a run
# does not import the other clients; unset, every installed client is patched
CLIENT = os.environ.get("JT_CLIENT")


def _for(client: str) -> bool:
    return CLIENT is None or CLIENT == client


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


# einops' tests that loop over its imperative (eager, non-layer) backends, by module; the
# others use symbolic or layer backends, one named framework, or NumPy only
EINOPS_TESTS: dict[str, frozenset[str]] = {
    "einops/tests/test_ops.py": frozenset({
        "test_ellipsis_ops_imperative", "test_reduction_imperatives",
        "test_reduction_stress_imperatives", "test_enumerating_directions",
        "test_concatenations_and_stacking", "test_tiling_imperatives",
        "test_repeat_imperatives", "test_reduction_imperatives_booleans",
    }),
    "einops/tests/test_other.py": frozenset({
        "test_backends_installed", "test_parse_shape_imperative", "test_is_float_type",
    }),
    "einops/tests/test_packing.py": frozenset({"test_pack_unpack_against_numpy"}),
    "einops/tests/test_examples.py": frozenset({"test_rearrange_examples"}),
}


def _array_api_backend(base: type) -> type:
    """An einops backend for the namespace ``BACKEND``, with the standard's functions only."""
    import numpy

    class ArrayApiBackend(base):  # type: ignore[valid-type,misc]
        framework_name = BACKEND

        def __init__(self) -> None:
            self.xp = importlib.import_module(BACKEND)

        def is_appropriate_type(self, tensor: Any) -> bool:
            namespace = getattr(tensor, "__array_namespace__", None)
            return namespace is not None and namespace() is self.xp

        def from_numpy(self, x: Any) -> Any:
            return self.xp.asarray(x)

        def to_numpy(self, x: Any) -> Any:
            return numpy.asarray(x)

        def arange(self, start: int, stop: int) -> Any:
            return self.xp.arange(start, stop)

        def reshape(self, x: Any, shape: Any) -> Any:
            return self.xp.reshape(x, tuple(shape))

        def transpose(self, x: Any, axes: Any) -> Any:
            return self.xp.permute_dims(x, tuple(axes))

        def reduce(self, x: Any, operation: str, axes: Any) -> Any:
            return getattr(self.xp, operation)(x, axis=tuple(axes))

        def stack_on_zeroth_dimension(self, tensors: list[Any]) -> Any:
            return self.xp.stack(tensors)

        def add_axis(self, x: Any, new_position: int) -> Any:
            return self.xp.expand_dims(x, axis=new_position)

        def tile(self, x: Any, repeats: Any) -> Any:
            return self.xp.tile(x, tuple(repeats))

        def concat(self, tensors: list[Any], axis: int) -> Any:
            return self.xp.concat(tensors, axis=axis)

        def is_float_type(self, x: Any) -> bool:
            return bool(self.xp.isdtype(x.dtype, "real floating"))

    return ArrayApiBackend


def _patch_einops() -> None:
    try:
        import einops._backends as backends
        import einops.tests as tests
    except ImportError:
        return
    os.environ["EINOPS_TEST_BACKENDS"] = BACKEND
    if BACKEND == "numpy":
        return  # einops' own NumpyBackend
    backend = _array_api_backend(backends.AbstractBackend)

    def collect_test_backends(symbolic: bool = False, layers: bool = False) -> list[Any]:
        return [] if symbolic or layers else [backend()]

    tests.collect_test_backends = collect_test_backends


if _for("scikit-learn"):
    _patch_sklearn()
if _for("array-api-extra"):
    _patch_array_api_extra()
if _for("einops"):
    _patch_einops()


def _patch_xarray_array_api(module: ModuleType) -> None:
    """xarray's ``test_array_api`` is written for array_api_strict: its globals name it."""
    if BACKEND != "array_api_strict":
        module.xp = importlib.import_module(BACKEND)
        module.Array = type(module.xp.asarray(0.0))


def _patch_xarray_duck_arrays(module: ModuleType) -> None:
    """xarray's ``test_duck_array_wrapping``: a namespace is a module name and two attributes."""
    if BACKEND == "array_api_strict":  # its array type is not an attribute of the namespace
        module.NAMESPACES[:] = []
        return
    array = type(importlib.import_module(BACKEND).asarray(0.0)).__name__
    module.NAMESPACE_ARRAYS[BACKEND] = {
        "attrs": {"array": array, "constructor": "asarray"}, "xfails": {},
    }
    module.NAMESPACES[:] = [pytest.param(BACKEND, id=BACKEND)]


def _patch_marray(module: ModuleType) -> None:
    module.xps[:] = [importlib.import_module(BACKEND)]


# (test modules by their path in the package: marray's tests folder is not a package, so
# pytest names its module ``test_marray``)
MODULE_PATCHES: dict[str, Callable[[ModuleType], None]] = {
    "xarray/tests/test_array_api.py": _patch_xarray_array_api,
    "xarray/tests/test_duck_array_wrapping.py": _patch_xarray_duck_arrays,
    "marray/tests/test_marray.py": _patch_marray,
}
# modules whose every test runs on the backend the plugin put in its globals
WHOLE_MODULES = frozenset({"xarray/tests/test_array_api.py"})
_patched: set[str] = set()


def _module_key(module: object) -> str:
    """``package/tests/test_x.py``: the last three parts of a module's file path."""
    file = getattr(module, "__file__", None) or ""
    return "/".join(file.replace(os.sep, "/").split("/")[-3:])


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector: Any, name: str, obj: object) -> None:
    """Patch a client's test module when its first name is collected, before any test."""
    module = getattr(collector, "module", None)
    key = _module_key(module)
    if key in MODULE_PATCHES and key not in _patched:
        _patched.add(key)
        MODULE_PATCHES[key](module)  # type: ignore[arg-type]


@pytest.hookimpl(tryfirst=True)
def pytest_plugin_registered(plugin: Any, plugin_name: str) -> None:
    """Give SciPy's ``xp`` fixture the chosen backend only, before pytest reads it."""
    file = getattr(plugin, "__file__", "") or ""
    if not file.replace(os.sep, "/").endswith("scipy/conftest.py"):
        return
    if BACKEND == "jaxtensor":
        plugin.xp_known_backends.add("jaxtensor")
    module = importlib.import_module(BACKEND)
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


def _runs_on_backend(item: pytest.Item) -> bool:
    params = getattr(getattr(item, "callspec", None), "params", {})
    if any(_names_backend(v) == BACKEND for v in params.values()):
        return True
    module = _module_key(getattr(item, "module", None))
    name = getattr(item, "originalname", item.name)
    return module in WHOLE_MODULES or name in EINOPS_TESTS.get(module, ())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep only the tests that run on the chosen backend (the array-API tests)."""
    keep, drop = [], []
    for item in items:
        if _runs_on_backend(item):
            keep.append(item)
        else:
            drop.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
