#!/usr/bin/env python3
"""Summarise bench_gather JSON: one row per (table size, row bytes), GB/s per path, medians.

usage: scripts/bench_table.py bench_gather.json [--markdown] [--paths a,b,c]
"""
import json
import sys


def load(path):
    data = json.load(open(path))
    extras, rows = {}, {}
    for bench in data["benchmarks"]:
        name = bench["name"]
        if not name.startswith("gather/"):
            extras[name.split("/")[0]] = bench.get("GBps", bench.get("GBps_read_write"))
            continue
        parts = name.split("/")
        table = int(parts[2].split(":")[1])
        row = int(parts[3].split(":")[1])
        rows.setdefault((table, row), {})[parts[1]] = bench["GBps"]
    return data.get("context", {}), extras, rows


def main():
    args = sys.argv[1:]
    markdown = "--markdown" in args
    paths = None
    if "--paths" in args:
        paths = args[args.index("--paths") + 1].split(",")
    context, extras, rows = load(args[0])
    if paths is None:
        paths = []
        for key in sorted(rows):
            for p in rows[key]:
                if p not in paths:
                    paths.append(p)
    peak = extras.get("link_peak", 0)
    print(f"link peak (pinned H2D memcpy): {peak:.1f} GB/s; device copy (read+write): {extras.get('device_copy', 0):.0f} GB/s")
    header = ["table MiB", "row B"] + paths
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    else:
        print(" ".join(f"{h:>14}" for h in header))
    for key in sorted(rows):
        cells = [str(key[0]), str(key[1])] + [f"{rows[key].get(p, float('nan')):.1f}" for p in paths]
        if markdown:
            print("| " + " | ".join(cells) + " |")
        else:
            print(" ".join(f"{c:>14}" for c in cells))


if __name__ == "__main__":
    main()
