"""Every example in the documentation runs: the ``>>>`` blocks of ``docs/*.md`` and the
docstrings of every module of ``jaxtensor`` (``sphinx-build -b doctest docs ...`` runs the
same examples; ``tests/docs/test_api_reference.py`` checks the API reference covers every name).

An example that fails is fixed in the doc or docstring, never excluded here.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import jax
import pytest

import jaxtensor

DOCS = Path(__file__).resolve().parents[2] / "docs"
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
# The printed outputs show ``device=cpu``: run the examples on the CPU wherever the tests run.
CPU = jax.devices("cpu")[0]

DOC_FILES = sorted(p.name for p in DOCS.glob("*.md"))
# every module of the package and of its subpackages (``__main__`` is the tour: importing
# it is harmless, but it has no docstring examples and its import runs nothing worth testing)
MODULES = ["jaxtensor"] + sorted(
    m.name for m in pkgutil.walk_packages(jaxtensor.__path__, "jaxtensor.")
    if m.name != "jaxtensor.__main__"
)


def _report(res: doctest.TestResults, runner_out: list[str]) -> str:
    return "\n".join(runner_out) or f"{res.failed} of {res.attempted} examples failed"


@pytest.mark.parametrize("name", DOC_FILES)
def test_doc_examples(name: str) -> None:
    parser = doctest.DocTestParser()
    path = DOCS / name
    test = parser.get_doctest(path.read_text(encoding="utf-8"), {"__name__": "__main__"},
                              name, str(path), 0)
    out: list[str] = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    with jax.default_device(CPU):
        runner.run(test, out=out.append)
    res = runner.summarize(verbose=False)
    assert res.failed == 0, _report(res, out)


@pytest.mark.parametrize("modname", MODULES)
def test_docstring_examples(modname: str) -> None:
    mod = importlib.import_module(modname)
    out: list[str] = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    with jax.default_device(CPU):
        for test in doctest.DocTestFinder().find(mod, modname):
            runner.run(test, out=out.append)
    res = runner.summarize(verbose=False)
    assert res.failed == 0, _report(res, out)


def test_tensor_member_examples() -> None:
    """The Tensor methods bound from ``_methods`` (examples in ``_methods_docs``) and the
    properties: the module scan above does not reach them through the class."""
    out: list[str] = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    finder = doctest.DocTestFinder(recurse=False)
    with jax.default_device(CPU):
        for name in sorted(n for n in dir(jaxtensor.Tensor) if not n.startswith("_")):
            static = inspect.getattr_static(jaxtensor.Tensor, name)
            obj = static if isinstance(static, property) else getattr(jaxtensor.Tensor, name)
            for test in finder.find(obj, f"Tensor.{name}", globs={}):
                runner.run(test, out=out.append)
    res = runner.summarize(verbose=False)
    assert res.attempted > 100, res
    assert res.failed == 0, _report(res, out)


def test_docs_have_examples() -> None:
    """The pages meant to be executable are: a page that loses its examples is a bug."""
    parser = doctest.DocTestParser()
    for name in ("index.md", "guide.md", "indexing.md", "views.md", "migrating.md", "errors.md",
                 "api.md", "transforms.md", "index_select.md"):
        text = (DOCS / name).read_text(encoding="utf-8")
        assert parser.get_examples(text), f"docs/{name} has no examples"


# -- links between the pages resolve ---------------------------------------------------

_LINK = re.compile(r"\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$", re.M)
_FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def _anchors(text: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation but ``-``/``_`` dropped, spaces to ``-``."""
    text = _FENCE.sub("", text)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in _HEADING.findall(text)}


@pytest.mark.parametrize("name", DOC_FILES)
def test_doc_links_resolve(name: str) -> None:
    text = (DOCS / name).read_text(encoding="utf-8")
    broken = []
    for target in _LINK.findall(_FENCE.sub("", text)):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        page = DOCS / path if path else DOCS / name
        if not page.exists():
            broken.append(target)
        elif anchor and page.suffix == ".md" and anchor not in _anchors(
                page.read_text(encoding="utf-8")):
            broken.append(target)
    assert not broken, f"docs/{name}: broken links {broken}"
