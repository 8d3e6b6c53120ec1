"""Every private JAX name jaxtensor uses, in one place.

JAX promises nothing about ``jax._src``, ``jax.interpreters`` or the layout of XLA's FFI
structs; ``pyproject.toml`` therefore caps ``jax`` below the next minor release
(``docs/decisions.md``, *JAX versions*). Each name below says what it is for and the release
it was checked against. Where JAX has a public spelling, the rest of the package uses that
instead (``jax.typeof``, ``jax.core.ShapedArray``, ``jax.core.eval_context``,
``jax.extend.core.Primitive``, ``jax.experimental.checkify``, ``jax.ffi``); no other module
mentions ``jax._src``, ``jax.interpreters`` or ``jaxlib`` (``tests/internals/test_import_graph.py``).

Each private name is **fenced**: on a release that lacks it, jaxtensor still imports, the
feature that needs it falls back or is off, :data:`MISSING` names it with what changed, and
one warning at import says so. Names are bound here once, at import: the hot paths read
them as module globals, as they read JAX's before.
"""

from __future__ import annotations

import operator
import warnings
from typing import Any

import jax
import numpy as np
from jax.experimental import checkify

__all__ = [
    "DebugInfo", "EvalTrace", "MISSING", "checkify_error_preds", "eval_trace", "jnp_indexing",
    "lower_fun", "make_noop_ffi_handler", "pytype_aval_mappings",
    "register_canonicalize_value_handler", "register_checkify_rule", "register_lowering",
    "shard_arg_handlers",
    "initial_result_paths", "put_host", "trace_state", "tracer_origin", "weak_cast",
]

#: The fenced names this JAX release lacks: name -> what jaxtensor does without it.
MISSING: dict[str, str] = {}

# -- the current trace (checked against JAX 0.10.2, 0.11.2, 0.12.0.1) -----------------------------
# ``trace_state.value`` is the trace JAX is running (``eval_trace``, an ``EvalTrace``, outside
# any transformation). Storages record it when made and compare it on every write (a write of
# a tracer into a storage of another trace would leak it), and ``jaxtensor.jit``'s short path
# checks it per call. ``jax._src.core.trace_ctx.trace`` reads the same through a property.
# Fallback: the public ``jax.extend.core.take_current_trace`` (a context manager per read).
try:
    from jax._src.core import EvalTrace, eval_trace
    from jax._src.core import trace_state_strong_ref as trace_state
except (ImportError, AttributeError):
    from jax.extend.core import take_current_trace

    class _PublicTraceState:
        """``.value``: the current trace, read through JAX's public context manager."""

        __slots__ = ()

        @property
        def value(self) -> Any:
            with take_current_trace() as trace:
                return trace

    trace_state = _PublicTraceState()  # type: ignore[assignment]
    eval_trace = trace_state.value  # (jaxtensor is imported outside any transformation)
    EvalTrace = type(eval_trace)  # type: ignore[misc]
    MISSING["jax._src.core.trace_state_strong_ref"] = (
        "the current trace is read through jax.extend.core.take_current_trace (slower)")

# -- Tensors as arguments of jax.lax functions and jax.jit (checked against JAX 0.10.2, 0.11.2, 0.12.0.1) ---
# JAX no longer calls ``__jax_array__`` for these; a type is registered with its aval (what
# ``jax.typeof`` answers), its value canonicalisation and its argument-sharding handler.
try:
    from jax._src.core import pytype_aval_mappings
    from jax._src.dtypes import register_canonicalize_value_handler
    from jax._src.interpreters.pxla import shard_arg_handlers
except (ImportError, AttributeError):
    pytype_aval_mappings = shard_arg_handlers = None  # type: ignore[assignment]
    register_canonicalize_value_handler = None  # type: ignore[assignment]
    MISSING["jax._src.core.pytype_aval_mappings"] = (
        "jax.lax functions and jax.jit functions do not take Tensors: pass t.to_jax()")

# -- gating writes by checkify's error state (checked against JAX 0.10.2, 0.11.2, 0.12.0.1)
# ``checkify_rules`` maps a primitive to its rule under ``checkify``; jaxtensor adds one for
# its ``jaxtensor_no_error`` primitive (:func:`register_checkify_rule`), which reads the error
# state so far through ``checkify_error_preds`` (the predicates of a ``checkify.Error``, its
# private ``_pred``). A rule's arguments moved: up to JAX 0.10 ``(error, enabled_errors,
# *args)``, from 0.11 ``(ctx, error, enabled_errors, *args)`` (a ``CheckifyContext`` first);
# the rule registered here finds the error state by its public type, so it fits both.
# ``register_lowering``/``lower_fun`` give that primitive its lowering outside checkify.
try:
    from jax._src.checkify import error_checks as _checkify_rules
    from jax.interpreters.mlir import lower_fun, register_lowering

    if not hasattr(checkify.Error, "_pred"):
        raise AttributeError("checkify.Error._pred")
    _preds = operator.attrgetter("_pred")

    def checkify_error_preds(error: Any) -> list[Any]:
        """The failure predicates of a ``checkify.Error`` (one per kind of error)."""
        return list(_preds(error).values())

    def register_checkify_rule(primitive: Any, rule: Any) -> None:
        """Make ``rule(error) -> (error, out)`` the rule of ``primitive`` (bound with no
        arguments) under ``checkify``, on every JAX release's rule signature."""
        error_type = checkify.Error

        def checkify_rule(*args: Any, **params: Any) -> tuple[Any, Any]:
            error = args[0] if isinstance(args[0], error_type) else args[1]
            return rule(error)

        _checkify_rules[primitive] = checkify_rule

except (ImportError, AttributeError):
    checkify_error_preds = register_checkify_rule = None  # type: ignore[assignment]
    lower_fun = register_lowering = None  # type: ignore[assignment]
    MISSING["jax._src.checkify.error_checks"] = (
        "inside a jaxtensor.jit function, writes after a failed bounds check in a loop body "
        "or branch are not skipped (the call still raises the IndexError)")

# -- names in JAX's tracing errors (checked against JAX 0.10.2, 0.11.2, 0.12.0.1) -----------------
# ``jax.jit`` takes a function's name, source and argument names for its errors ("while
# tracing the function f at file:line ... the argument x") from the function's
# ``__fun_debug_info__`` (a ``DebugInfo``) where it has one. ``jaxtensor.jit`` gives its traced
# function the user's function and argument names so.
try:
    from jax._src.core import DebugInfo, initial_result_paths
except (ImportError, AttributeError):
    DebugInfo = initial_result_paths = None  # type: ignore[assignment,misc]
    MISSING["jax._src.core.DebugInfo"] = (
        "errors while tracing a jaxtensor.jit function name jaxtensor's traced function and "
        "its inputs instead of the user's function and arguments")

# -- JAX's own indexing with Tensor indices (checked against JAX 0.10.2, 0.11.2, 0.12.0.1) --------
# Every path of JAX's index parser (reads, ``.at[]`` updates, ``ufunc.at``) starts at this
# module's ``eliminate_deprecated_list_indexing``, which ``_indexing/_jax_hook.py`` wraps.
try:
    from jax._src.numpy import indexing as jnp_indexing

    if not callable(getattr(jnp_indexing, "eliminate_deprecated_list_indexing", None)):
        raise AttributeError("eliminate_deprecated_list_indexing")
except (ImportError, AttributeError):
    jnp_indexing = None
    MISSING["jax._src.numpy.indexing.eliminate_deprecated_list_indexing"] = (
        "jnp_array[t] and .at[t] with a Tensor index raise JAX's error: index with "
        "t.to_jax()")


# -- XLA's FFI C API (xla/ffi/api/c_api.h as shipped in jaxlib 0.10.2 to 0.12.0.1) ------------
def make_noop_ffi_handler() -> Any:
    """An XLA FFI handler (``XLA_FFI_Error* handler(XLA_FFI_CallFrame*)``) that does nothing,
    as a ctypes callback (for ``_uninitialized.py``, which registers it through the public
    ``jax.ffi``; any failure there falls back to ``lax.empty``).

    It reads only the head of the call frame (the structs below mirror the C API's). At
    execution it returns NULL (success) at once. The only other call is XLA's metadata query
    when it compiles a program that uses the target: the handler reports the runtime's own
    API version (it uses nothing version-dependent) and no traits.
    """
    import ctypes

    class _Ext(ctypes.Structure):  # XLA_FFI_Extension_Base
        _fields_ = [("struct_size", ctypes.c_size_t), ("type", ctypes.c_int),
                    ("next", ctypes.c_void_p)]

    class _Version(ctypes.Structure):  # XLA_FFI_Api_Version
        _fields_ = [("struct_size", ctypes.c_size_t), ("extension_start", ctypes.c_void_p),
                    ("major", ctypes.c_int), ("minor", ctypes.c_int)]

    class _Api(ctypes.Structure):  # the head of XLA_FFI_Api
        _fields_ = [("struct_size", ctypes.c_size_t), ("extension_start", ctypes.c_void_p),
                    ("api_version", _Version)]

    class _Metadata(ctypes.Structure):  # XLA_FFI_Metadata
        _fields_ = [("struct_size", ctypes.c_size_t), ("api_version", _Version),
                    ("traits", ctypes.c_uint32), ("state_type_id", ctypes.c_int64)]

    class _MetadataExt(ctypes.Structure):  # XLA_FFI_Metadata_Extension
        _fields_ = [("base", _Ext), ("metadata", ctypes.POINTER(_Metadata))]

    class _Frame(ctypes.Structure):  # the head of XLA_FFI_CallFrame
        _fields_ = [("struct_size", ctypes.c_size_t), ("extension_start", ctypes.POINTER(_Ext)),
                    ("api", ctypes.POINTER(_Api))]

    metadata_extension = 1  # XLA_FFI_Extension_Metadata

    def handler(frame_ptr: int) -> None:
        frame = _Frame.from_address(frame_ptr)
        ext = frame.extension_start
        if ext and ext.contents.type == metadata_extension:
            meta = ctypes.cast(ext, ctypes.POINTER(_MetadataExt)).contents.metadata.contents
            v = frame.api.contents.api_version
            meta.api_version = _Version(ctypes.sizeof(_Version), None, v.major, v.minor)
            meta.traits = 0

    return ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)(handler)


# -- a weakly typed cast (checked against JAX 0.10.2 and 0.12.0.1) ----------------------------
# ``weak_cast(x, dtype)``: ``x`` as ``dtype``, weakly typed, as JAX traces a Python number: a
# loop index then takes the other operand's dtype in arithmetic, as the ``int`` of a Python
# loop does. Fallback: an ordinary (strongly typed) cast.
try:
    from jax._src.lax.lax import _convert_element_type

    def weak_cast(x: Any, dtype: Any) -> Any:
        return _convert_element_type(x, np.dtype(dtype), weak_type=True)
except (ImportError, AttributeError):
    def weak_cast(x: Any, dtype: Any) -> Any:
        return jax.lax.convert_element_type(x, dtype)

    MISSING["jax._src.lax.lax._convert_element_type"] = (
        "a loop index is strongly typed (it promotes as a 64-bit array, not as a Python int)")


# -- where a traced value came from (checked against JAX 0.10.2 and 0.12.0.1) -----------------
# A tracer of a ``jax.jit`` trace (``DynamicJaxprTracer``) keeps the equation that made it
# (``.parent``, a ``TracingEqn``: ``primitive``, ``params``, ``in_tracers``, ``outvars``) and
# its own variable (``.val``); ``get_const()`` is a literal's value. ``_jit/_ranges.py`` reads
# them to prove that a bounds check cannot fail. Fallback: no proof, every check is made.
try:
    from jax._src.interpreters.partial_eval import DynamicJaxprTracer, TracingEqn

    _fields = set(TracingEqn.__init__.__code__.co_varnames)
    _fields |= set(DynamicJaxprTracer.__init__.__code__.co_varnames)
    _missing = {"primitive", "params", "in_tracers", "outvars", "parent", "val"} - _fields
    if _missing or not hasattr(DynamicJaxprTracer, "get_const"):
        raise AttributeError(f"TracingEqn/DynamicJaxprTracer lack {sorted(_missing)}")

    def tracer_origin(t: Any) -> tuple | None:
        """``(made, value)`` of a tracer of a ``jax.jit`` trace: ``made`` is (primitive
        name, params, input tracers, output position) of the equation that made it, or
        None; ``value`` its literal value, or None. None for anything else."""
        if type(t) is not DynamicJaxprTracer:
            return None
        eqn = t.parent
        made = None
        if eqn is not None:
            outs = eqn.outvars
            k = next((j for j, v in enumerate(outs) if v is t.val), None)
            if k is not None:
                made = (eqn.primitive.name, eqn.params, tuple(eqn.in_tracers), k)
        return made, t.get_const()
except (ImportError, AttributeError):
    tracer_origin = None  # type: ignore[assignment]
    MISSING["jax._src.interpreters.partial_eval.DynamicJaxprTracer.parent"] = (
        "bounds checks in loop bodies that cannot fail are made all the same")


# -- a NumPy array's transfer to the default device (checked against JAX 0.10.2, 0.11.2, 0.12.0.1)
# The transfer that ends every path of ``jax.device_put(arr)``, ``batched_device_put`` of
# XLA's client, called without the Python before it (docs/measurements.md, "device_put, not
# jnp.asarray"): with no device given, to ``pxla.get_default_device()`` (which honours
# ``jax.default_device``), uncommitted, the NumPy buffer handed over as ``device_put``
# hands it (zero-copy where XLA can). Fallback: ``jax.device_put``.
_SHARDINGS: dict[Any, Any] = {}
_AVALS: dict[tuple, Any] = {}
_PLAIN: dict[tuple, bool] = {}
try:
    from jax._src.interpreters.pxla import get_default_device as _default_device
    from jax._src.lib import xla_client as _xc

    _batched_device_put = _xc.batched_device_put
    if not callable(_batched_device_put):
        raise AttributeError("xla_client.batched_device_put")

    def put_host(arr: Any) -> Any:
        """``jax.device_put(arr)`` of a NumPy array (anything else: that call itself)."""
        if type(arr) is not np.ndarray:
            return jax.device_put(arr)
        dt = arr.dtype
        k = (dt, jax.config.jax_enable_x64)
        plain = _PLAIN.get(k)
        if plain is None:  # (a dtype device_put keeps as it is: no canonicalisation)
            plain = _PLAIN[k] = dt.kind in "biufc" and jax.dtypes.canonicalize_dtype(dt) == dt
        if not plain:
            return jax.device_put(arr)
        dev = _default_device()
        sharding = _SHARDINGS.get(dev)
        if sharding is None:
            sharding = _SHARDINGS[dev] = jax.sharding.SingleDeviceSharding(dev)
        ak = (arr.shape, dt)
        aval = _AVALS.get(ak)
        if aval is None:
            if len(_AVALS) > 4096:
                _AVALS.clear()
            aval = _AVALS[ak] = jax.core.ShapedArray(arr.shape, dt)
        return _batched_device_put(aval, sharding, [arr], [dev], False)
except (ImportError, AttributeError):
    def put_host(arr: Any) -> Any:
        return jax.device_put(arr)

    MISSING["jax._src.lib.xla_client.batched_device_put"] = (
        "a NumPy array's transfer takes jax.device_put's slower path")


if MISSING:
    warnings.warn(
        f"jaxtensor was checked against JAX 0.10.2 to 0.12.0.1; this JAX {jax.__version__} lacks "
        + "; ".join(f"{name}, so {what}" for name, what in MISSING.items()),
        RuntimeWarning, stacklevel=2)
