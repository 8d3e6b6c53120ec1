"""Shared by the benchmark scripts: single-threaded XLA (import this before jax) and
writing one script's section of docs/benchmarks.md between its markers."""

from __future__ import annotations

import os
import re
from pathlib import Path

os.environ["XLA_FLAGS"] = (
    os.environ.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen=false "
    "intra_op_parallelism_threads=1"
)
os.environ.setdefault("OMP_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"


def write_section(begin: str, end: str, block: str) -> None:
    """Replace the text between ``begin`` and ``end`` in docs/benchmarks.md by ``block``
    (which includes both markers), or append it."""
    text = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
    if begin in text:
        text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: block, text,
                      flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    DOC.write_text(text)
