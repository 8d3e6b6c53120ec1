"""The examples of docs/scaling.md run, on eight simulated CPU devices (in a subprocess)."""

from __future__ import annotations

import doctest
from pathlib import Path

import multidevice

DOC = Path(__file__).resolve().parents[2] / "docs" / "scaling.md"


def test_scaling_page_has_examples() -> None:
    assert len(doctest.DocTestParser().get_examples(DOC.read_text(encoding="utf-8"))) > 20


def test_scaling_page_examples_run() -> None:
    out = multidevice.run(f"""
        import doctest
        res = doctest.testfile({str(DOC)!r}, module_relative=False,
                               optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        print("failed", res.failed, "attempted", res.attempted)
        """)
    assert "failed 0 " in out, out
