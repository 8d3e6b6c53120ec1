"""The examples in docs/transforms.md and in the docstrings of jaxtensor._jit._transforms run."""

from __future__ import annotations

import doctest
from pathlib import Path

from jaxtensor._jit import _transforms

DOC = Path(__file__).resolve().parents[1] / "docs" / "transforms.md"


def test_transforms_guide_examples():
    res = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert res.failed == 0 and res.attempted > 20


def test_transforms_docstring_examples():
    res = doctest.testmod(_transforms, optionflags=doctest.ELLIPSIS)
    assert res.failed == 0 and res.attempted > 10
