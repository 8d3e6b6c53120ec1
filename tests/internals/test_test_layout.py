"""The tests are grouped as the code is, and only ``tests/internals/`` reads jaxtensor's
private modules and attributes: the other folders test what a user can write."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
FOLDERS = {"core", "indexing", "jit", "namespace", "interop", "docs", "internals", "clients"}
PUBLIC = sorted(FOLDERS - {"internals", "clients"})

#: a private name of jaxtensor: ``jaxtensor._x`` / ``jt._x`` or an attribute ``obj._x`` (not
#: of NumPy, JAX or PyTorch, not a dunder)
PRIVATE = re.compile(r"\b(?:jaxtensor|jt)\._[a-z]"
                     r"|(?<![\w.])(?!(?:np|numpy|jax|jnp|torch|lax|self|cls)\._)"
                     r"[A-Za-z_][\w)\]]*\._[a-z]\w*")


def test_every_test_file_is_in_a_topic_folder() -> None:
    loose = sorted(p.name for p in TESTS.glob("test_*.py"))
    assert not loose, f"move these into one of {sorted(FOLDERS)}: {loose}"
    assert {p.parent.name for p in TESTS.rglob("test_*.py")} <= FOLDERS


def test_the_private_pattern_finds_private_reads() -> None:
    assert PRIVATE.search("x._storage.array")
    assert PRIVATE.search("from jaxtensor._core import _config")
    assert PRIVATE.search("jt._jit._errors")
    assert not PRIVATE.search("np._NoValue") and not PRIVATE.search("x.__jax_array__()")
    assert not PRIVATE.search("jax._src.core") and not PRIVATE.search("t.base is None")


def test_only_internals_read_private_names() -> None:
    found = []
    for folder in PUBLIC:
        for p in sorted((TESTS / folder).glob("*.py")):
            for k, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
                code = line.split("#")[0]
                if PRIVATE.search(re.sub(r"(\"[^\"]*\"|'[^']*')", "''", code)):
                    found.append(f"{folder}/{p.name}:{k}: {line.strip()}")
    assert not found, "private reads outside tests/internals:\n" + "\n".join(found)
