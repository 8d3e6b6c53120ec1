"""Every setting jaxtensor reads: the environment variables and the module-level tunables.

This module is the one place that reads the environment (``os.environ``) and defines the
tunables the other modules consult (they read them here, at the time of use, as
``_config.NAME``, so assigning ``jaxtensor._core._config.NAME = value`` takes effect at the
next decision). :data:`SETTINGS` lists them all (name, default, what it changes);
``docs/settings.md`` renders that table (:func:`settings_markdown`).

jaxtensor turns on JAX's 64-bit mode when it is imported, unless the environment sets
``JAX_ENABLE_X64`` to a false value (``0``, ``false``, ``no``, ``off``). With 64-bit mode off,
``float64``/``int64``/``uint64``/``complex128`` are not available and the default integer
and index dtype is ``int32``; ``__array_namespace_info__()`` reports exactly that.

It also turns on JAX's persistent compilation cache, so a second process running the same
program loads its compiled kernels from disk instead of compiling them again
(``docs/guide.md#the-compilation-cache``): in the directory the user configured for JAX
(``JAX_COMPILATION_CACHE_DIR`` / ``jax_compilation_cache_dir``) if any, else in
``JAXTENSOR_COMPILATION_CACHE`` if that names a directory, else in
``$XDG_CACHE_HOME/jaxtensor`` (``~/.cache/jaxtensor``). ``JAXTENSOR_COMPILATION_CACHE=0``
leaves JAX's cache settings alone. Thresholds still at JAX's defaults are lowered so that
jaxtensor's small kernels (each compiles in less time than JAX's threshold) are cached too.

The directory jaxtensor chose is kept under :data:`CACHE_MAX_BYTES` by a pruning pass (the
oldest entries go) run in a background thread at most once a day, not by JAX's own bound:
JAX's bound makes every write of a new entry read the whole directory (docs/measurements.md,
section "The compilation cache's own bound").
"""

from __future__ import annotations

import os
import threading
import time
from typing import NamedTuple

import jax

_FALSE = {"0", "false", "no", "off"}


class Setting(NamedTuple):
    """One row of :data:`SETTINGS`."""

    name: str  # an environment variable, or an attribute of this module
    read: str  # "at import" (an environment variable) or "at use" (an attribute)
    default: str  # as the docs show it
    changes: str  # what it changes (Markdown, one or two sentences)


#: Every setting jaxtensor reads, in the order of the docs' table (``docs/settings.md``).
SETTINGS: tuple[Setting, ...] = (
    Setting("JAX_ENABLE_X64", "at import", "unset (on)",
            "A false value (`0`, `false`, `no`, `off`) keeps JAX in 32 bits: no 64-bit "
            "dtypes, `int32` default integer and index dtype, `float32` default float "
            "(`X64`)."),
    Setting("JAXTENSOR_DEFAULT_FLOAT", "at import", "unset (`float64`; `float32` in 32 bits)",
            "`float32` or `float64`: the default real floating dtype (and its complex "
            "counterpart), as `set_default_dtype` makes it."),
    Setting("JAXTENSOR_ARRAY_API_VERSION", "at import", "`2025.12`",
            "The standard's version the namespace answers as (`2025.12`, `2024.12`, "
            "`2023.12`): `__array_api_version__`, and `devices()` a tuple from 2025.12 on, "
            "a list before."),
    Setting("JAXTENSOR_COMPILATION_CACHE", "at import", "unset (`~/.cache/jaxtensor`)",
            "The directory of JAX's persistent compilation cache when JAX has none "
            "configured; `0` leaves JAX's cache settings alone (`COMPILATION_CACHE`)."),
    Setting("XDG_CACHE_HOME", "at import", "unset (`~/.cache`)",
            "The compilation cache goes to `$XDG_CACHE_HOME/jaxtensor` when neither JAX nor "
            "`JAXTENSOR_COMPILATION_CACHE` names a directory."),
    Setting("JAXTENSOR_UNINITIALIZED_OUTPUT", "at import", "unset (off)",
            "`1`: `index_select`'s tiled loop starts on CPU from a buffer XLA does not "
            "zero-fill (a no-op FFI call) instead of `lax.empty` (`UNINITIALIZED_OUTPUT`)."),
    Setting("CACHE_MAX_BYTES", "at use", "`1 << 30` (1 GiB)",
            "The bound the pruning pass keeps the compilation cache directory under (when "
            "jaxtensor chose the directory); the oldest entries go first."),
    Setting("PRUNE_EVERY", "at use", "`86400` (a day)",
            "Seconds between two pruning passes over the compilation cache directory."),
    Setting("MAX_PENDING", "at use", "`1 << 16`",
            "Queued scalar writes (`x[i] = 1.0` on a base Tensor) are applied at the latest "
            "when this many are pending, else at the next read."),
    Setting("UNINIT_MIN_BYTES", "at use", "`16 * 1024`",
            "Outputs smaller than this many bytes are zero-filled (`lax.empty`) even with "
            "`JAXTENSOR_UNINITIALIZED_OUTPUT=1`: cheaper than the FFI call."),
    Setting("INDEX_SELECT_DISPATCH", "at use", "`\"auto\"`",
            "`index_select`'s kernel: `\"auto\"` (the measured rule of `choose_kernel`), "
            "`\"direct\"` (one XLA gather) or `\"tiled\"` (the tiled loop), process-wide."),
    Setting("INDEX_SELECT_CPU_THREADS", "at use", "`None` (the cores this process may use)",
            "The CPU threads `index_select`'s rule assumes XLA may split a gather over; "
            "above 1 the rule picks the direct gather."),
    Setting("TILE_BUDGET", "at use", "`{\"cpu\": 256 KiB, \"gpu\": 48 KiB, \"tpu\": 2 MiB}`",
            "Bytes of one output tile of `index_select`'s tiled loop per backend (the "
            "default tile is the largest block of whole inner rows within it)."),
    Setting("TILED_MAX_ROW_BYTES", "at use", "`64`",
            "`index_select` on one CPU core runs the tiled loop only for rows (the "
            "dimensions after `dim`) shorter than this many bytes under leading dimensions."),
    Setting("BATCHED_GRAD_ROW_BYTES", "at use", "`64`",
            "Below this many bytes per gathered row, `index_select`'s gradient scatter-add "
            "is batched over the leading dimensions (row by row, cache-friendly)."),
    Setting("READS_MAX_DEPTH", "at use", "`100`",
            "How deep the walk of what a loop body reads from Python goes; a value deeper "
            "counts as new on every call (the eager loop is compiled anew)."),
    Setting("INLINE_BRANCH_WORK", "at use", "`1 << 14`",
            "Work (elements touched) below which both branches of a `cond` that writes "
            "Tensors run inlined, gated, instead of an XLA conditional."),
    Setting("RECOMPILE_LIMIT", "at use", "`8`",
            "The distinct program of one `jaxtensor.jit` function (or eager loop body code) "
            "at which `RecompileWarning` is given, once."),
    Setting("UNROLLED_WRITES", "at use", "`100`",
            "Writes in one trace (outside loop bodies) from which `UnrolledLoopWarning` "
            "suggests `fori_loop`."),
)


_STAMP = "jaxtensor-pruned"


def _env(name: str) -> str | None:
    """The environment variable ``name`` (listed in :data:`SETTINGS`), or None if unset."""
    return os.environ.get(name)


def _want_x64() -> bool:
    env = _env("JAX_ENABLE_X64")
    if env is None:
        return True
    return env.strip().lower() not in _FALSE


def default_cache_dir() -> str:
    base = _env("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "jaxtensor")


def _enable_compilation_cache() -> str | None:
    """Turn on JAX's persistent compilation cache (see the module docs); its directory, or
    None when it stays off (turned off, or no directory can be made)."""
    env = (_env("JAXTENSOR_COMPILATION_CACHE") or "").strip()
    if env.lower() in _FALSE:
        return None
    path = jax.config.jax_compilation_cache_dir
    if not path:
        path = env or default_cache_dir()
        try:
            os.makedirs(path, exist_ok=True)
        except OSError:  # (a read-only home, say: compile as before)
            return None
        jax.config.update("jax_compilation_cache_dir", path)
        if jax.config.jax_compilation_cache_max_size == -1 and _prune_due(path):
            threading.Thread(target=prune_cache, args=(path,), daemon=True,
                             name="jaxtensor-cache-prune").start()
    if jax.config.jax_persistent_cache_min_compile_time_secs == 1.0:
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    if jax.config.jax_persistent_cache_min_entry_size_bytes == 0:
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
    return path


def _prune_due(path: str) -> bool:
    try:
        return time.time() - os.stat(os.path.join(path, _STAMP)).st_mtime > PRUNE_EVERY
    except OSError:
        return True


def prune_cache(path: str, limit: int | None = None) -> None:
    """Delete the oldest files of the cache directory ``path`` until it holds at most
    ``limit`` bytes (:data:`CACHE_MAX_BYTES` if None), and mark the pass done (a file whose
    time is the pass's). Errors (another process pruning too, a read-only directory) end the
    pass quietly."""
    if limit is None:
        limit = CACHE_MAX_BYTES
    try:
        with open(os.path.join(path, _STAMP), "w"):
            pass
        entries = []
        total = 0
        with os.scandir(path) as it:
            for e in it:
                if e.is_file() and e.name != _STAMP:
                    st = e.stat()
                    entries.append((st.st_mtime, st.st_size, e.path))
                    total += st.st_size
        entries.sort()
        for _, size, p in entries:
            if total <= limit:
                break
            try:
                os.remove(p)
            except OSError:
                continue
            total -= size
    except OSError:
        return


def settings_markdown() -> str:
    """:data:`SETTINGS` as a Markdown table (``docs/settings.md`` includes it)."""
    rows = ["| setting | read | default | what it changes |", "| --- | --- | --- | --- |"]
    where = {"at import": "environment, at import", "at use": "`_config` attribute, at use"}
    rows += [f"| `{s.name}` | {where[s.read]} | {s.default} | {s.changes} |" for s in SETTINGS]
    return "\n".join(rows) + "\n"


# -- read at use: the tunables (see SETTINGS for what each changes) ----------------------------
CACHE_MAX_BYTES: int = 1 << 30
PRUNE_EVERY: float = 24 * 3600
MAX_PENDING: int = 1 << 16
UNINIT_MIN_BYTES: int = 16 * 1024
INDEX_SELECT_DISPATCH: str = "auto"
INDEX_SELECT_CPU_THREADS: int | None = None
# (about an L2 slice on CPU, the shared memory of one GPU block, a comfortable part of a TPU
# core's vector memory)
TILE_BUDGET: dict[str, int] = {"cpu": 256 * 1024, "gpu": 48 * 1024, "tpu": 2 * 1024 * 1024}
TILED_MAX_ROW_BYTES: int = 64
BATCHED_GRAD_ROW_BYTES: int = 64
READS_MAX_DEPTH: int = 100
INLINE_BRANCH_WORK: int = 1 << 14
RECOMPILE_LIMIT: int = 8
UNROLLED_WRITES: int = 100


# -- read at import: the environment -------------------------------------------------------
if _want_x64():
    jax.config.update("jax_enable_x64", True)

X64: bool = bool(jax.config.read("jax_enable_x64"))

#: the persistent compilation cache's directory (None: off)
COMPILATION_CACHE: str | None = _enable_compilation_cache()

#: ``JAXTENSOR_DEFAULT_FLOAT`` as set ("" if unset); ``_dtypes`` applies and checks it
DEFAULT_FLOAT: str = (_env("JAXTENSOR_DEFAULT_FLOAT") or "").strip()

#: ``JAXTENSOR_ARRAY_API_VERSION`` as set (None if unset); ``_info`` checks it
ARRAY_API_VERSION: str | None = _env("JAXTENSOR_ARRAY_API_VERSION")

#: ``JAXTENSOR_UNINITIALIZED_OUTPUT=1``: see ``_uninitialized``
UNINITIALIZED_OUTPUT: bool = _env("JAXTENSOR_UNINITIALIZED_OUTPUT") == "1"
