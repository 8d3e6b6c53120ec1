"""JAX's persistent compilation cache is on for jaxtensor's kernels: a second process
running the same program loads them instead of compiling, in the directory the user chose
(for JAX, or for jaxtensor), and ``JAXTENSOR_COMPILATION_CACHE=0`` leaves it off."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import multidevice

PROGRAM = textwrap.dedent("""
    import json
    import jax
    counts = {"compiles": 0, "hits": 0}

    def listen(event, *args, **kwargs):
        if event == "/jax/compilation_cache/cache_hits":
            counts["hits"] += 1

    def listen_duration(event, duration, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            counts["compiles"] += 1

    jax.monitoring.register_event_listener(listen)
    jax.monitoring.register_event_duration_secs_listener(listen_duration)
    import jaxtensor as jt
    x = jt.zeros((6, 4))
    x[1:3] = 2.0
    x.T[1] += 1.5
    y = jt.sum(x * 2.0 - 1)
    @jt.jit
    def f(a, i):
        a[i] = a[0, 0] + 1
    f(x, 2)
    print(json.dumps({**counts, "dir": jax.config.jax_compilation_cache_dir,
                      "value": float(y),
                      "max_size": jax.config.jax_compilation_cache_max_size}))
""")


def _run(env: dict[str, str]) -> dict:
    full = {k: v for k, v in multidevice.env(1).items()  # (this tree's code, one device)
            if k not in ("JAX_COMPILATION_CACHE_DIR", "JAXTENSOR_COMPILATION_CACHE",
                         "XDG_CACHE_HOME")}
    proc = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                          timeout=600, env={**full, **env})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _entries(path: Path) -> int:
    """Compiled programs in a cache directory (JAX writes ``<key>-cache``, and beside it
    the ``<key>-atime`` of its last use)."""
    return sum(1 for _ in path.rglob("*-cache"))


def test_second_process_loads_what_the_first_compiled(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _run({"JAXTENSOR_COMPILATION_CACHE": str(cache)})
    assert first["dir"] == str(cache) and first["hits"] == 0 and first["compiles"] > 3
    written = _entries(cache)
    assert written >= first["compiles"] - 2  # (every kernel, however fast to compile)
    second = _run({"JAXTENSOR_COMPILATION_CACHE": str(cache)})
    assert second["value"] == first["value"]
    assert second["hits"] >= first["compiles"] - 2, (first, second)
    assert _entries(cache) == written  # (nothing new to write)


def test_default_directory_follows_xdg_cache_home(tmp_path: Path) -> None:
    out = _run({"XDG_CACHE_HOME": str(tmp_path)})
    assert out["dir"] == str(tmp_path / "jaxtensor")
    assert _entries(tmp_path / "jaxtensor") > 0


def test_a_cache_the_user_configured_for_jax_is_used(tmp_path: Path) -> None:
    mine = tmp_path / "jax-cache"
    out = _run({"JAX_COMPILATION_CACHE_DIR": str(mine), "XDG_CACHE_HOME": str(tmp_path / "x")})
    assert out["dir"] == str(mine)
    assert _entries(mine) > 0 and not (tmp_path / "x").exists()


@pytest.mark.parametrize("off", ["0", "off", "false"])
def test_turned_off(tmp_path: Path, off: str) -> None:
    out = _run({"JAXTENSOR_COMPILATION_CACHE": off, "XDG_CACHE_HOME": str(tmp_path)})
    assert out["dir"] is None and out["hits"] == 0
    assert not (tmp_path / "jaxtensor").exists()


def test_writing_an_entry_does_not_read_the_directory(tmp_path: Path) -> None:
    """JAX's own size bound (``jax_compilation_cache_max_size``) reads every file of the
    directory at each write of a new entry: with the tens of thousands of small kernels
    jaxtensor caches, a second per first compile. jaxtensor leaves it off and prunes."""
    out = _run({"XDG_CACHE_HOME": str(tmp_path)})
    assert out["max_size"] == -1
    assert (tmp_path / "jaxtensor" / "jaxtensor-pruned").exists()


def test_pruning_deletes_the_oldest_entries_down_to_the_bound(tmp_path: Path) -> None:
    import os

    from jaxtensor._core import _config

    for k in range(10):
        p = tmp_path / f"k{k}-cache"
        p.write_bytes(b"x" * 100)
        os.utime(p, (1000 + k, 1000 + k))
    _config.prune_cache(str(tmp_path), limit=450)
    left = sorted(p.name for p in tmp_path.glob("*-cache"))
    assert left == [f"k{k}-cache" for k in range(6, 10)], left
    assert (tmp_path / "jaxtensor-pruned").exists()
    assert not _config._prune_due(str(tmp_path))
