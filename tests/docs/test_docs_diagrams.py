"""The documentation's diagrams: SVG files drawn by docs/diagrams/draw.py (Python only, no
JavaScript, nothing fetched when the site is read), and the built site in a real headless
browser where one is installed."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SITE = Path(os.environ.get("JAXTENSOR_DOCS_SITE", DOCS / "_build" / "html"))


def _draw():
    spec = importlib.util.spec_from_file_location("draw", DOCS / "diagrams" / "draw.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_committed_svgs_are_what_the_script_draws_and_pages_use_them():
    draw = _draw()
    pages = "".join(p.read_text(encoding="utf-8") for p in DOCS.glob("*.md"))
    for name, make in draw.DIAGRAMS.items():
        committed = (DOCS / "diagrams" / name).read_text(encoding="utf-8")
        assert committed == make().render(), f"run python docs/diagrams/draw.py ({name})"
        root = ET.fromstring(committed)
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert root.find("{http://www.w3.org/2000/svg}title").text
        assert f"(diagrams/{name})" in pages, f"{name} is on no page"


def test_no_page_draws_in_the_browser_or_fetches_at_read_time():
    for page in DOCS.glob("*.md"):
        text = page.read_text(encoding="utf-8")
        assert "```mermaid" not in text, page.name
        assert not re.search(r"<script[^>]+src=['\"]https?:", text), page.name
    conf = (DOCS / "conf.py").read_text(encoding="utf-8")
    assert "mermaid" not in conf


def _browser() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _dump(browser: str, url: str) -> str:
    return subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=8000",
         "--dump-dom", url], capture_output=True, text=True, timeout=120, check=True).stdout


def test_built_site_in_a_headless_browser():
    browser = _browser()
    if browser is None:
        pytest.skip("no headless browser (chromium) installed: the built site is not opened")
    if not (SITE / "views.html").is_file():
        pytest.skip(f"no built site at {SITE}: build it (README) or set JAXTENSOR_DOCS_SITE")
    dom = _dump(browser, (SITE / "views.html").as_uri())
    assert "Views" in dom
    svgs = re.findall(r"<img[^>]+src=\"([^\"]+\.svg)\"", dom)
    assert svgs, "no SVG diagram on views.html"
    for src in svgs:
        assert (SITE / src).is_file(), src
        assert ET.parse(SITE / src).getroot().tag.endswith("svg")
    found = _dump(browser, (SITE / "search.html").as_uri() + "?q=index_select")
    results = re.search(r"<ul[^>]*class=\"search\"[^>]*>(.*?)</ul>", found, re.S)
    assert results, "the search ran no query (no result list)"
    assert re.search(r"<a href=\"[^\"]*jaxtensor\.index_select\.html", results.group(1))
    none = _dump(browser, (SITE / "search.html").as_uri() + "?q=zzqqxxnothing")
    nothing = re.search(r"<ul[^>]*class=\"search\"[^>]*>(.*?)</ul>", none, re.S)
    assert nothing is None or "<li" not in nothing.group(1)
