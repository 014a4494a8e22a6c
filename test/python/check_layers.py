#!/usr/bin/env python3
"""Checks that the public folders of include/gnndirect form layers: a header may include only
headers of its own layer or of lower ones, so the core includes nothing above it and device
primitives include no bulk algorithm. Usage: check_layers.py <repo root>. Exit 1 on a violation.

  0 core/, util/        config, errors, memory kinds, views, resources; host threading utilities
  1 device/             primitives inlined into any kernel (detail/device/ with them)
  2 owners/             RAII memory: allocation, buffer, table, registration, placement, coo
  3 algorithms/         the stream-first bulk API (detail/ and detail/algorithms/ with them);
    reference/, host/   host references (the oracles) and the CPU data path
  4 graph/, cache/      graph owners and builders (COO to CSR, generators), the cache tier
  5 io/, pipeline/      loaders; the batch scheduler and its preparers (detail/pipeline/)
  6 gnndirect.cuh       the umbrella
"""
import os
import re
import sys

RANK = {"core": 0, "util": 0, "device": 1, "detail/device": 1, "owners": 2, "algorithms": 3,
        "detail": 3, "detail/algorithms": 3, "reference": 3, "host": 3, "graph": 4, "detail/graph": 4, "cache": 4,
        "io": 5, "pipeline": 5, "detail/pipeline": 5, "": 6}


def layer(rel):
    parts = rel.split("/")
    if parts[0] == "detail":
        return "detail/" + parts[1] if len(parts) > 2 else "detail"
    return parts[0] if len(parts) > 1 else ""


def main():
    root = os.path.join(sys.argv[1], "include", "gnndirect")
    problems, checked = [], 0
    for directory, _, files in os.walk(root):
        for name in sorted(files):
            path = os.path.join(directory, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            mine = layer(rel)
            if mine not in RANK:
                problems.append(f"{rel}: folder '{mine}' has no layer (add it to check_layers.py)")
                continue
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    match = re.match(r'\s*#\s*include\s*<gnndirect/([^>]+)>', line)
                    if not match:
                        continue
                    checked += 1
                    theirs = layer(match.group(1))
                    if RANK.get(theirs, 99) > RANK[mine]:
                        problems.append(f"{rel}:{number}: layer '{mine or 'top'}' includes "
                                        f"'{match.group(1)}' of the higher layer '{theirs}'")
    for p in problems:
        print(p)
    print(f"{checked} includes checked, {len(problems)} violations")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
