"""Process-wide settings: 64-bit mode and JAX's persistent compilation cache.

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
jaxtensor's small kernels (a few milliseconds to compile each) are cached too.

The directory jaxtensor chose is kept under :data:`CACHE_MAX_BYTES` by a pruning pass (the
oldest entries go) run in a background thread at most once a day, not by JAX's own bound:
JAX's bound makes every write of a new entry read the whole directory (with the tens of
thousands of small kernels a few weeks of use leave, one second per first compile).
"""

from __future__ import annotations

import os
import threading
import time

import jax

_FALSE = {"0", "false", "no", "off"}

#: the cache directory's bound when jaxtensor chose it (the oldest entries go)
CACHE_MAX_BYTES = 1 << 30
#: seconds between two pruning passes over the cache directory
PRUNE_EVERY = 24 * 3600
_STAMP = "jaxtensor-pruned"


def _want_x64() -> bool:
    env = os.environ.get("JAX_ENABLE_X64")
    if env is None:
        return True
    return env.strip().lower() not in _FALSE


def default_cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "jaxtensor")


def _enable_compilation_cache() -> str | None:
    """Turn on JAX's persistent compilation cache (see the module docs); its directory, or
    None when it stays off (turned off, or no directory can be made)."""
    env = (os.environ.get("JAXTENSOR_COMPILATION_CACHE") or "").strip()
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


def prune_cache(path: str, limit: int = CACHE_MAX_BYTES) -> None:
    """Delete the oldest files of the cache directory ``path`` until it holds at most
    ``limit`` bytes, and mark the pass done (a file whose time is the pass's). Errors
    (another process pruning too, a read-only directory) end the pass quietly."""
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


if _want_x64():
    jax.config.update("jax_enable_x64", True)

X64: bool = bool(jax.config.read("jax_enable_x64"))

#: the persistent compilation cache's directory (None: off)
COMPILATION_CACHE: str | None = _enable_compilation_cache()
