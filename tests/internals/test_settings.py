"""Every setting jaxtensor reads is read in ``_core/_config.py`` and listed in its one table
(``SETTINGS``), which the docs render; each does what its row says.

The environment variables are read at import, so they are checked in three subprocesses run
side by side: one with none set (but ``JAXTENSOR_COMPILATION_CACHE=0``), one with every
variable that changes a default set, one with the others.
The tunables are attributes of ``_config``, read at use: each is changed here and the
decision it drives is seen to change.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import json
import os
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxtensor as jt
import multidevice
from jaxtensor import _index_select
from jaxtensor._core import _config
from jaxtensor._jit import _reads

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "jaxtensor"
CONFIG = SRC / "_core" / "_config.py"
NAMES = [s.name for s in _config.SETTINGS]
_ENV_NAMES = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}


# -- one place, one table ----------------------------------------------------------------------
@functools.cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _environment_reads(path: Path) -> list[str]:
    """Where the module at ``path`` touches the process environment (``os.environ``,
    ``os.getenv``, ``from os import environ``, ...)."""
    found = []
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Attribute) and node.attr in _ENV_NAMES:
            found.append(f"line {node.lineno}: .{node.attr}")
        elif isinstance(node, ast.Name) and node.id in _ENV_NAMES:
            found.append(f"line {node.lineno}: {node.id}")
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [f"line {node.lineno}: from os import {a.name}" for a in node.names
                      if a.name in _ENV_NAMES]
    return found


def test_only_config_reads_the_environment() -> None:
    bad = {str(p.relative_to(SRC)): found for p in SRC.rglob("*.py") if p != CONFIG
           and (found := _environment_reads(p))}
    assert not bad, f"read environment variables in _core/_config.py (and list them): {bad}"
    assert _environment_reads(CONFIG)


@pytest.mark.parametrize("source", [
    "import os\nx = os.environ.get('A')\n", "import os\nx = os.getenv('A')\n",
    "from os import environ\n", "from os import getenv as g\n", "import os\nos.environ['A'] = '1'\n",
])
def test_environment_reads_are_seen(source: str, tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(source)
    assert _environment_reads(tmp_path / "m.py")


def test_every_environment_variable_read_is_in_the_table() -> None:
    """The names ``_config`` reads with ``_env`` are exactly the table's "at import" rows, and
    every ``JAXTENSOR_*`` name the source mentions is one of them."""
    tree = _tree(CONFIG)
    read = {node.args[0].value for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "_env" and isinstance(node.args[0], ast.Constant)}
    at_import = {s.name for s in _config.SETTINGS if s.read == "at import"}
    assert read == at_import
    mentioned = {m for p in SRC.rglob("*.py")
                 for m in re.findall(r"\bJAXTENSOR_[A-Z0-9_]+", p.read_text(encoding="utf-8"))}
    assert mentioned <= at_import, mentioned - at_import


def test_every_tunable_lives_in_config_only() -> None:
    """Each "at use" row is an attribute of ``_config``; no other module defines a
    module-level name of the table (a copy that ``_config`` would not change)."""
    at_use = {s.name for s in _config.SETTINGS if s.read == "at use"}
    assert {s.read for s in _config.SETTINGS} == {"at import", "at use"}
    assert all(hasattr(_config, n) for n in at_use)
    copies = []
    for p in SRC.rglob("*.py"):
        if p == CONFIG:
            continue
        for node in _tree(p).body:
            targets = (node.targets if isinstance(node, ast.Assign) else
                       [node.target] if isinstance(node, ast.AnnAssign) else [])
            copies += [f"{p.relative_to(SRC)}: {t.id}" for t in targets
                       if isinstance(t, ast.Name) and t.id in at_use]
    assert not copies, copies


def test_the_docs_render_every_row(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """docs/conf.py writes the table where docs/settings.md includes it; every row is there,
    with its name, default and what it changes."""
    page = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    assert "```{include} generated/settings_table.md" in page
    assert "\nsettings\n" in (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")  # (conf.py sets it if unset)
    spec = importlib.util.spec_from_file_location("_jt_docs_conf", ROOT / "docs" / "conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)  # type: ignore[union-attr]
    table = conf.write_settings_table(tmp_path).read_text(encoding="utf-8")
    assert table == _config.settings_markdown()
    rows = table.splitlines()[2:]
    assert len(rows) == len(_config.SETTINGS) == len(set(NAMES))
    for s, row in zip(_config.SETTINGS, rows):
        cells = [c.strip() for c in row.strip("|").split(" | ")]
        assert cells[0] == f"`{s.name}`" and cells[2:] == [s.default, s.changes], row
        assert s.default and len(s.changes) > 20


# -- each setting changes what it says -------------------------------------------------------
_PROGRAM = textwrap.dedent("""
    import json
    import jax, jax.numpy as jnp
    import jaxtensor as jt
    from jaxtensor._core import _config, _uninitialized
    info = jt.__array_namespace_info__()

    def ffi_buffer():
        f = jax.jit(lambda: _uninitialized.uninitialized((64, 1024), jnp.float32))
        return _uninitialized.UNINIT_TARGET in f.lower().as_text()

    out = {"int": str(jt.asarray([1]).dtype), "index": str(info.default_dtypes()["indexing"]),
           "float": str(jt.zeros(1).dtype), "version": jt.__array_api_version__,
           "devices": type(info.devices()).__name__,
           "cache": jax.config.jax_compilation_cache_dir, "ffi": ffi_buffer()}
    _config.UNINIT_MIN_BYTES = 64 * 1024 * 4 + 1
    out["ffi_above_min"] = ffi_buffer()
    print(json.dumps(out))
""")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What a process sees with none of the variables set (``none``; the cache off), with
    every variable that changes a default set (``a``), and with the others (``b``)."""
    tmp = tmp_path_factory.mktemp("settings")
    base = {k: v for k, v in multidevice.env(1).items() if k not in {
        "JAX_COMPILATION_CACHE_DIR", "XDG_CACHE_HOME", *NAMES}}
    envs = {
        "none": {"JAXTENSOR_COMPILATION_CACHE": "0"},
        "a": {"JAX_ENABLE_X64": "0", "JAXTENSOR_ARRAY_API_VERSION": "2023.12",
              "JAXTENSOR_UNINITIALIZED_OUTPUT": "1",
              "JAXTENSOR_COMPILATION_CACHE": str(tmp / "mine")},
        "b": {"JAXTENSOR_DEFAULT_FLOAT": "float32", "XDG_CACHE_HOME": str(tmp / "xdg")},
    }
    procs = {k: subprocess.Popen([sys.executable, "-c", _PROGRAM], env={**base, **e},
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for k, e in envs.items()}
    out: dict[str, Any] = {"tmp": tmp}
    for k, p in procs.items():
        stdout, stderr = p.communicate(timeout=600)
        assert p.returncode == 0, stderr[-3000:]
        out[k] = json.loads(stdout.strip().splitlines()[-1])
    return out


def check_jax_enable_x64(runs: dict[str, Any], mp: pytest.MonkeyPatch) -> None:
    assert (runs["none"]["int"], runs["none"]["index"]) == ("int64", "int64")
    assert (runs["a"]["int"], runs["a"]["index"], runs["a"]["float"]) == (
        "int32", "int32", "float32")


def check_jaxtensor_default_float(runs: dict[str, Any], mp: pytest.MonkeyPatch) -> None:
    assert runs["none"]["float"] == "float64" and runs["b"]["float"] == "float32"
    assert runs["b"]["int"] == "int64"  # (64-bit mode stays on)


def check_jaxtensor_array_api_version(runs: dict[str, Any], mp: pytest.MonkeyPatch) -> None:
    assert (runs["none"]["version"], runs["none"]["devices"]) == ("2025.12", "tuple")
    assert (runs["a"]["version"], runs["a"]["devices"]) == ("2023.12", "list")
    assert runs["b"]["version"] == "2025.12"


def check_jaxtensor_compilation_cache(runs: dict[str, Any], mp: pytest.MonkeyPatch) -> None:
    assert not runs["none"]["cache"]  # (=0)
    assert runs["b"]["cache"]  # (unset: on)
    assert runs["a"]["cache"] == str(runs["tmp"] / "mine")


def check_xdg_cache_home(runs: dict[str, Any], mp: pytest.MonkeyPatch) -> None:
    assert runs["b"]["cache"] == str(runs["tmp"] / "xdg" / "jaxtensor")


def check_jaxtensor_uninitialized_output(runs: dict[str, Any], mp: pytest.MonkeyPatch) -> None:
    assert runs["none"]["ffi"] is False and runs["a"]["ffi"] is True


def check_uninit_min_bytes(runs: dict[str, Any], mp: pytest.MonkeyPatch) -> None:
    assert runs["a"]["ffi"] is True and runs["a"]["ffi_above_min"] is False


def _files(path: Path, n: int) -> None:
    for k in range(n):
        f = path / f"entry{k}-cache"
        f.write_bytes(b"x" * 100)
        os.utime(f, (1000 + k, 1000 + k))


def check_cache_max_bytes(runs: dict[str, Any], mp: pytest.MonkeyPatch) -> None:
    path = runs["tmp"] / "prune"
    path.mkdir()
    _files(path, 3)
    _config.prune_cache(str(path))
    assert len(list(path.glob("*-cache"))) == 3
    mp.setattr(_config, "CACHE_MAX_BYTES", 150)
    _config.prune_cache(str(path))
    assert [p.name for p in path.glob("*-cache")] == ["entry2-cache"]  # (the newest stays)


def check_prune_every(runs: dict[str, Any], mp: pytest.MonkeyPatch) -> None:
    path = runs["tmp"] / "stamp"
    path.mkdir()
    _config.prune_cache(str(path))  # (a pass just now)
    assert not _config._prune_due(str(path))
    mp.setattr(_config, "PRUNE_EVERY", -1.0)
    assert _config._prune_due(str(path))


def check_max_pending(runs: dict[str, Any], mp: pytest.MonkeyPatch) -> None:
    expected = np.zeros(8)
    for bound, left in ((1 << 16, 4), (4, 0)):
        mp.setattr(_config, "MAX_PENDING", bound)
        t = jt.zeros(8)
        for k in range(4):
            t[k] = k + 1.0
            expected[k] = k + 1.0
        assert len(t._storage._pending or ()) == left
        np.testing.assert_array_equal(np.asarray(t), expected)


def check_index_select_dispatch(runs: dict[str, Any], mp: pytest.MonkeyPatch) -> None:
    ck = _index_select.choose_kernel
    assert ck("cpu", (3, 2), 8, False) == "direct"
    for kind in ("tiled", "direct"):
        mp.setattr(_config, "INDEX_SELECT_DISPATCH", kind)
        assert ck("cpu", (3, 2), 8, False) == kind == ck("gpu", (4096, 1024), 4, False, 4096)
        x = np.arange(12.0).reshape(3, 4)
        np.testing.assert_array_equal(np.asarray(jt.index_select(jt.asarray(x), 1, [3, 0])),
                                      x[:, [3, 0]])


def check_index_select_cpu_threads(runs: dict[str, Any], mp: pytest.MonkeyPatch) -> None:
    column = ("cpu", (4096, 1024), 4, False, 4096, 1)
    mp.setattr(_config, "INDEX_SELECT_CPU_THREADS", 1)
    assert _index_select.choose_kernel(*column) == "tiled"
    mp.setattr(_config, "INDEX_SELECT_CPU_THREADS", 2)
    assert _index_select.choose_kernel(*column) == "direct"


def check_tile_budget(runs: dict[str, Any], mp: pytest.MonkeyPatch) -> None:
    assert _index_select.default_tile((8, 2048, 512), 4, "cpu") == (1, 128, 512)
    mp.setitem(_config.TILE_BUDGET, "cpu", 64 * 1024)
    assert _index_select.default_tile((8, 2048, 512), 4, "cpu") == (1, 32, 512)


def check_tiled_max_row_bytes(runs: dict[str, Any], mp: pytest.MonkeyPatch) -> None:
    rows_64_bytes = ("cpu", (512, 512, 16), 4, False, 512, 16)
    mp.setattr(_config, "INDEX_SELECT_CPU_THREADS", 1)
    assert _index_select.choose_kernel(*rows_64_bytes) == "direct"
    mp.setattr(_config, "TILED_MAX_ROW_BYTES", 128)
    assert _index_select.choose_kernel(*rows_64_bytes) == "tiled"


def check_batched_grad_row_bytes(runs: dict[str, Any], mp: pytest.MonkeyPatch) -> None:
    t = jnp.arange(24.0).reshape(2, 3, 4)
    row = 4 * t.dtype.itemsize  # (the bytes after dim)
    idx = jnp.asarray([2, 0, 2])
    exp = np.take(np.asarray(t), [2, 0, 2], axis=1)
    programs = []
    for bound in (row + 1, row):  # batched (explicit coordinates), then the plain gather
        mp.setattr(_config, "BATCHED_GRAD_ROW_BYTES", bound)
        f = lambda v: _index_select._tangent_gather(v, idx, 1, False)  # noqa: E731
        np.testing.assert_array_equal(np.asarray(jax.jit(f)(t)), exp)
        programs.append(str(jax.make_jaxpr(f)(t)))
    assert programs[0] != programs[1]
    assert programs[1] == str(jax.make_jaxpr(
        lambda v: _index_select._direct(v, idx, 1, False))(t))


def check_reads_max_depth(runs: dict[str, Any], mp: pytest.MonkeyPatch) -> None:
    def key() -> list:
        r = _reads.Reader()
        r.value({"a": [1, (2.5, "b")]}, "x")
        return r.atoms

    assert key() == key()  # (a loop body reading it reuses its compiled loop)
    mp.setattr(_config, "READS_MAX_DEPTH", 1)
    assert key() != key()  # (compiled anew on every call)


def check_inline_branch_work(runs: dict[str, Any], mp: pytest.MonkeyPatch) -> None:
    x = jt.arange(100.0)
    y = jt.zeros(1)

    def f(p):  # (100 elements read, one written)
        jt.cond(p > 0, lambda: y.__setitem__(0, jt.sum(x)), lambda: None)

    def conditional() -> bool:
        text = jt.jit(f).lower(jt.asarray(1)).as_text()
        return "stablehlo.case" in text or "stablehlo.if" in text

    assert not conditional()
    mp.setattr(_config, "INLINE_BRANCH_WORK", 1)
    assert conditional()
    jt.jit(f)(jt.asarray(1))
    assert y.tolist() == [4950.0]


def check_recompile_limit(runs: dict[str, Any], mp: pytest.MonkeyPatch) -> None:
    def warnings_at(limit: int) -> int:
        mp.setattr(_config, "RECOMPILE_LIMIT", limit)
        f = jt.jit(lambda a: a + 1)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            for n in range(1, 4):
                f(jt.zeros(n))
        return sum(w.category is jt.RecompileWarning for w in rec)

    assert warnings_at(8) == 0
    assert warnings_at(2) == 1


def check_unrolled_writes(runs: dict[str, Any], mp: pytest.MonkeyPatch) -> None:
    def warned() -> bool:
        def f(t):  # (a new function each time: nothing of an earlier trace is reused)
            for k in range(3):
                t[k] = k

        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            x = jt.zeros(3)
            jt.jit(f)(x)
        assert x.tolist() == [0.0, 1.0, 2.0]
        return any(w.category is jt.UnrolledLoopWarning for w in rec)

    assert not warned()
    mp.setattr(_config, "UNROLLED_WRITES", 3)
    assert warned()


CHECKS = {name: globals()[f"check_{name.lower()}"] for name in NAMES
          if f"check_{name.lower()}" in globals()}


def test_every_setting_has_a_check() -> None:
    assert list(CHECKS) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_setting_changes_what_it_says(name: str, runs: dict[str, Any],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    CHECKS[name](runs, monkeypatch)
