"""Per-file passed/failed/skipped/xfailed counts from a pytest-json-report file.

usage: python conformance/summarize.py REPORT.json [--title TITLE] [--command CMD]

Prints a Markdown section for conformance/RESULTS.md.
"""

from __future__ import annotations

import argparse
import collections
import json


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("report")
    p.add_argument("--title", default="Run")
    p.add_argument("--command", default="")
    a = p.parse_args()
    with open(a.report) as f:
        rep = json.load(f)
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    failed = []
    for t in rep["tests"]:
        file = t["nodeid"].split("::")[0].split("/")[-1]
        counts[file][t["outcome"]] += 1
        if t["outcome"] in ("failed", "error"):
            failed.append(t["nodeid"])
    cols = ["passed", "failed", "skipped", "xfailed", "xpassed", "error"]
    print(f"## {a.title}\n")
    if a.command:
        print(f"Command: `{a.command}`\n")
    print(f"Duration: {rep.get('duration', 0):.0f} s\n")
    print("| file | " + " | ".join(cols) + " |")
    print("| --- | " + " | ".join("---:" for _ in cols) + " |")
    total: collections.Counter = collections.Counter()
    for file in sorted(counts):
        c = counts[file]
        total.update(c)
        print(f"| {file} | " + " | ".join(str(c.get(k, 0)) for k in cols) + " |")
    print("| **total** | " + " | ".join(f"**{total.get(k, 0)}**" for k in cols) + " |")
    print()
    if failed:
        print("Failed:\n")
        for n in failed:
            print(f"- `{n}`")
        print()


if __name__ == "__main__":
    main()
