"""Shared by the benchmark scripts: one core for the whole process (import this before jax),
interleaved timing, and writing one script's section of docs/benchmarks.md between its
markers."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# One core for everything: XLA:CPU sizes its intra-op thread pool from the CPUs the process
# may use (threads created later inherit the mask), so this keeps it at one thread; eigen's
# own pool is switched off by the flag; NumPy/BLAS by OMP_NUM_THREADS.
if hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
os.environ["XLA_FLAGS"] = (
    os.environ.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen=false"
).strip()
os.environ.setdefault("OMP_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"


def torch_one_thread() -> Any:
    """``torch`` limited to one thread, or ``None`` when it is not installed (it comes with
    the ``[bench]`` extra)."""
    try:
        import torch
    except ImportError:  # pragma: no cover
        return None
    torch.set_num_threads(1)
    return torch


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


def interleaved(f: Callable[[], object], g: Callable[[], object], rounds: int = 25,
                n: int = 1000) -> tuple[float, float]:
    """Best µs per call of ``f`` and of ``g``, timed in alternating rounds of ``n`` calls so
    that background load affects both alike."""
    f()
    g()
    best = [float("inf"), float("inf")]
    for _ in range(rounds):
        for slot, fn in enumerate((f, g)):
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            best[slot] = min(best[slot], (time.perf_counter() - t0) / n * 1e6)
    return best[0], best[1]
