"""The examples in docs/transforms.md run (the docstrings of ``_jit/_transforms.py``: in
tests/internals/test_internals.py)."""

from __future__ import annotations

import doctest
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "transforms.md"


def test_transforms_guide_examples():
    res = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert res.failed == 0 and res.attempted > 20


