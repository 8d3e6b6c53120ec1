"""The API reference covers every public name, and every public name has a usable docstring.

``docs/api.md`` lists the names in autosummary blocks (``.. data::`` entries for the
constants and dtypes, which cannot carry docstrings of their own); Sphinx generates one page
per listed name from its docstring. The tests check, for ``jaxtensor.__all__``,
``jaxtensor.linalg.__all__``, ``jaxtensor.fft.__all__`` and every public ``Tensor``
attribute:

- the name is listed in ``docs/api.md`` (and every listed name exists);
- its docstring has a numpydoc ``Examples`` section with a ``>>>`` example (the examples
  themselves run in ``tests/docs/test_docs.py`` and under ``sphinx-build -b doctest``);
- the built site's ``objects.inv`` has an entry for it. That test reads
  ``docs/_build/html/objects.inv`` when it is newer than the sources (``.ci/run`` builds the
  site before pytest), else builds the site into a temporary directory; without Sphinx
  installed (``pip install -e ".[docs]"``) and without a fresh build it is skipped, saying so.
"""

from __future__ import annotations

import importlib.util
import inspect
import re
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

import jaxtensor
from jaxtensor import fft, linalg
from jaxtensor._numpy_names import Absent

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
API = DOCS / "api.md"

# a name whose value is data (a number, a string, a dtype) is documented by a
# ``.. data::`` entry of docs/api.md, with its example there
_DATA = re.compile(r"^\.\. data:: (\w+)((?:\n {10}\w+)*)", re.M)
_BLOCK = re.compile(
    r"^```\{eval-rst\}\n\.\. currentmodule:: ([\w.]+)\n\n\.\. autosummary::\n"
    r"   :toctree: generated/\n\n((?:   \S+\n)+)\n?```", re.M)


def public_names() -> dict[str, object]:
    """Every public name, fully qualified, with its object (``property`` objects for the
    Tensor properties)."""
    names: dict[str, object] = {}
    for mod, prefix in ((jaxtensor, "jaxtensor"), (linalg, "jaxtensor.linalg"),
                        (fft, "jaxtensor.fft")):
        for n in mod.__all__:
            names[f"{prefix}.{n}"] = getattr(mod, n)
    for n in dir(jaxtensor.Tensor):
        if not n.startswith("_"):
            static = inspect.getattr_static(jaxtensor.Tensor, n)
            if isinstance(static, Absent):  # (NumPy's names a Tensor lacks: no page)
                continue
            names[f"jaxtensor.Tensor.{n}"] = (
                static if isinstance(static, property) else getattr(jaxtensor.Tensor, n))
    return names


def _api_text() -> str:
    return API.read_text(encoding="utf-8")


def listed_autosummary() -> set[str]:
    out = set()
    for module, body in _BLOCK.findall(_api_text()):
        out |= {f"{module}.{line.strip()}" for line in body.splitlines()}
    return out


def data_entries() -> dict[str, str]:
    """``jaxtensor.<name>`` → the text of its ``.. data::`` entry."""
    text = _api_text()
    out = {}
    matches = list(_DATA.finditer(text))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else text.index("```", m.end())
        body = text[m.end():end]
        for n in [m.group(1), *m.group(2).split()]:
            out[f"jaxtensor.{n}"] = body
    return out


def _is_data(obj: object) -> bool:
    return not (callable(obj) or inspect.ismodule(obj) or isinstance(obj, property))


def test_api_lists_every_public_name() -> None:
    listed = listed_autosummary() | set(data_entries())
    missing = sorted(set(public_names()) - listed)
    assert not missing, f"docs/api.md does not list {missing}"


def test_api_lists_only_public_names() -> None:
    stale = sorted((listed_autosummary() | set(data_entries())) - set(public_names()))
    assert not stale, f"docs/api.md lists names that are not public: {stale}"


def test_data_names_are_data_entries() -> None:
    """Constants and dtypes have no docstring of their own: their entry says it."""
    names = public_names()
    want = {k for k, v in names.items() if _is_data(v)}
    assert want == set(data_entries()), sorted(want ^ set(data_entries()))
    no_example = sorted(k for k, body in data_entries().items() if ">>>" not in body)
    assert not no_example, f"docs/api.md: .. data:: entries without an example: {no_example}"


_EXAMPLES = re.compile(r"^Examples\n--------\n(?:.*\n)*?>>> ", re.M)


@pytest.mark.parametrize("name", sorted(k for k, v in public_names().items() if not _is_data(v)))
def test_docstring_has_examples(name: str) -> None:
    doc = inspect.getdoc(public_names()[name]) or ""
    assert doc, f"{name} has no docstring"
    assert _EXAMPLES.search(doc + "\n"), f"{name}: its docstring has no 'Examples' section"


# -- the built site -----------------------------------------------------------------------

def _read_inventory(path: Path) -> dict[str, str]:
    """``objects.inv`` (Sphinx's format 2): name → the page it is on."""
    raw = path.read_bytes()
    head = b"".join(raw.splitlines(keepends=True)[:4])
    assert head.startswith(b"# Sphinx inventory version 2"), head
    out = {}
    for line in zlib.decompress(raw[len(head):]).decode().splitlines():
        m = re.match(r"(.+?)\s+(\S+:\S+)\s+(-?\d+)\s+(\S*)\s+(.*)", line)
        if m and m.group(2).startswith("py:"):
            out[m.group(1)] = m.group(4).split("#")[0]
    return out


def _fresh(inv: Path) -> bool:
    if not inv.exists():
        return False
    sources = [*DOCS.glob("*.md"), DOCS / "conf.py", *(ROOT / "src" / "jaxtensor").glob("*.py")]
    return inv.stat().st_mtime >= max(p.stat().st_mtime for p in sources)


@pytest.fixture(scope="module")
def inventory(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    inv = DOCS / "_build" / "html" / "objects.inv"
    if not _fresh(inv):
        if importlib.util.find_spec("sphinx") is None:
            pytest.skip("no fresh docs/_build/html and Sphinx not installed: "
                        "pip install -e '.[docs]' to check the built site")
        out = tmp_path_factory.mktemp("html")
        subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", str(DOCS),
                        str(out)], check=True)
        inv = out / "objects.inv"
    return _read_inventory(inv)


def test_every_public_name_has_a_page(inventory: dict[str, str]) -> None:
    missing = sorted(n for n in public_names() if n not in inventory)
    assert not missing, f"the built site has no entry for {missing}"
    # functions, classes, methods and modules each have their own generated page
    shared = sorted(n for n, obj in public_names().items()
                    if not _is_data(obj) and not inventory[n].startswith("generated/"))
    assert not shared, f"no page of their own: {shared}"
