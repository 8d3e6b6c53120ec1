"""Measured numbers live in ``docs/measurements.md``, not in the code: a comment or
docstring names the choice and points to the page's section, and every such pointer
resolves to a heading there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "jaxtensor"
PAGE = ROOT / "docs" / "measurements.md"

#: a timing, a ratio or a percentage: ``12 us``, ``1.5-2 µs``, ``~10 ms``, ``3.7x``, ``60%``
MEASURED = re.compile(r"\d(\.\d+)?\s?(us|µs|ms|ns)\b|\d(\.\d+)?x\b|\d+(\.\d+)?\s?%"
                      r"|\bmicroseconds?\b|\bmilliseconds?\b")
#: modules whose comments still carry numbers, each with the reason
EXEMPT: dict[str, str] = {}
POINTER = re.compile(r'docs/measurements\.md,\s+section\s+"([^"]+)"')


def _sources() -> dict[str, str]:
    return {str(p.relative_to(SRC)): p.read_text(encoding="utf-8") for p in SRC.rglob("*.py")}


def measured_numbers(text: str) -> list[str]:
    """The lines of ``text`` that state a timing, a ratio or a percentage."""
    return [line.strip() for line in text.splitlines() if MEASURED.search(line)]


@pytest.mark.parametrize("line,found", [
    ("# costs 4 us", True), ("cost 1.5-2 µs each", True), ("(~10 ms each)", True),
    ("32 checked writes cost 3.7x unchecked", True), ("a view's creation by 60%", True),
    ("about a microsecond", True), ("x = x[2 ** 18]", False), ("0x1F", False),
    ("shape (4, 4)", False), ("rows of 64 bytes", False),
])
def test_measured_numbers_are_seen(line: str, found: bool) -> None:
    assert bool(measured_numbers(line)) == found


def test_no_measured_numbers_in_the_code() -> None:
    found = {name: lines for name, text in _sources().items()
             if name not in EXEMPT and (lines := measured_numbers(text))}
    assert not found, ("move these numbers to docs/measurements.md and point to its "
                       f"section: {found}")
    assert all(measured_numbers(_sources()[name]) for name in EXEMPT), "drop the exemption"


def test_every_pointer_names_a_section() -> None:
    headings = set(re.findall(r"^## (.+?)\s*$", PAGE.read_text(encoding="utf-8"), re.M))
    # (a pointer may be wrapped over lines, and name inline code with ``..``)
    pointers = {re.sub(r"\s+", " ", p).replace("``", "`")
                for text in _sources().values()
                for p in POINTER.findall(re.sub(r"\s*\n\s*#?\s*", " ", text))}
    assert len(pointers) >= 10
    missing = sorted(pointers - headings)
    assert not missing, f"no such section in docs/measurements.md: {missing}"
