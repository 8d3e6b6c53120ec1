"""Readings of an optimized HLO text (``f.lower(*args).compile().as_text()``) that the tests
share: its computations, what runs in its loops, the buffers copied there, the kernels a
loop body runs. Counts, not times: a property of the compiled program."""

from __future__ import annotations

import re

import numpy as np


def computations(text: str) -> dict[str, list[str]]:
    """The instruction lines of each computation of ``text``, by name."""
    comps: dict[str, list[str]] = {}
    name = None
    for line in text.splitlines():
        m = re.match(r"^(?:ENTRY )?%?([\w.\-]+) .*\{$", line)
        if m:
            name = m.group(1)
            comps[name] = []
        elif line.startswith("}"):
            name = None
        elif name is not None:
            comps[name].append(line)
    return comps


def in_loops(text: str) -> list[str]:
    """The instructions of the optimized HLO ``text`` that run in a loop body (its while
    bodies and every computation they call)."""
    comps = computations(text)
    todo = [m.group(1) for lines in comps.values() for line in lines
            for m in [re.search(r"\bwhile\(.*\bbody=%?([\w.\-]+)", line)] if m]
    seen: set[str] = set()
    while todo:
        c = todo.pop()
        if c in seen or c not in comps:
            continue
        seen.add(c)
        for line in comps[c]:
            for m in re.finditer(r"(?:calls|body|condition|branch_computations|to_apply)="
                                 r"\{?([%\w.\-, ]+)\}?", line):
                todo.extend(n.strip().lstrip("%") for n in m.group(1).split(","))
    return [line for c in seen for line in comps[c]]


def copied(text: str) -> list[int]:
    """The element counts of the buffers copied inside loop bodies."""
    out = []
    for line in in_loops(text):
        m = re.search(r"= \w+\[([\d,]*)\]\{[^}]*\} copy\(", line)
        if m:
            out.append(int(np.prod([int(d) for d in m.group(1).split(",") if d])))
    return out


def kernels(lines: list[str]) -> int:
    """The kernels (thunks) XLA:CPU runs for a computation's instructions: everything but
    parameters, tuples, their elements, constants and bitcasts."""
    free = {"parameter", "tuple", "get-tuple-element", "constant", "bitcast"}
    ops = [m.group(1) for x in lines for m in [re.search(r"= [^=]*?\}? ([\w-]+)\(", x)] if m]
    return sum(op not in free for op in ops)


def loops(text: str) -> list[tuple[list[str], bool]]:
    """(the body's instructions, whether XLA:CPU compiles the loop whole) per while loop of
    the optimized HLO ``text``."""
    comps = computations(text)
    small = {m.group(1) for lines in comps.values() for x in lines if "xla_cpu_small_call" in x
             for m in [re.search(r"to_apply=%?([\w.\-]+)", x)] if m}
    return [(comps[m.group(1)], name in small) for name, lines in comps.items() for x in lines
            for m in [re.search(r" while\(.*body=%?([\w.\-]+)", x)] if m]


def loop_kernels(text: str) -> list[int]:
    """The kernels of each while body of the optimized HLO ``text``, sorted: what a checked
    loop costs per iteration over the unchecked one."""
    return sorted(kernels(body) for body, _ in loops(text))
