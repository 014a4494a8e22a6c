#!/usr/bin/env python3
"""Summarises scripts/gpu-compare's raw results: per benchmark, the median over rounds of old and
new (real time per iteration, and GB/s where the benchmark reports it), and new/old.
Usage: compare_bench.py RAW_DIR"""
import glob
import json
import os
import statistics
import sys
from collections import defaultdict


def load(raw, side):
    times, rates = defaultdict(list), defaultdict(list)
    for path in sorted(glob.glob(os.path.join(raw, f"*-{side}-*.json"))):
        if os.path.basename(path).startswith("demo-"):
            continue
        with open(path) as f:
            for b in json.load(f).get("benchmarks", []):
                if b.get("run_type") == "aggregate":
                    continue
                times[b["name"]].append(b["real_time"])
                for key in ("GBps", "GBps_read_write", "G_edges_per_s", "edges_per_s"):
                    if key in b:
                        rates[b["name"]].append(b[key])
                        break
    return times, rates


def main():
    raw = sys.argv[1]
    old_t, old_r = load(raw, "old")
    new_t, new_r = load(raw, "new")
    names = [n for n in old_t if n in new_t]
    print(f"{'benchmark':70s} {'old':>10s} {'new':>10s} {'new/old':>8s}")
    ratios = []
    for name in names:
        if name in old_r and name in new_r:  # a rate: higher is better
            o, n = statistics.median(old_r[name]), statistics.median(new_r[name])
            ratio = n / o if o else float("nan")
            unit = "rate"
        else:  # a time: lower is better, report old/new so that > 1 means faster
            o, n = statistics.median(old_t[name]), statistics.median(new_t[name])
            ratio = o / n if n else float("nan")
            unit = "time"
        ratios.append(ratio)
        print(f"{name[:70]:70s} {o:10.3f} {n:10.3f} {ratio:8.3f} ({unit})")
    if ratios:
        print(f"median speed ratio new/old over {len(ratios)} benchmarks: {statistics.median(ratios):.3f}; "
              f"min {min(ratios):.3f}, max {max(ratios):.3f}")
    for side in ("old", "new"):
        for path in sorted(glob.glob(os.path.join(raw, f"demo-{side}-*.json"))):
            with open(path) as f:
                print(side, os.path.basename(path), json.dumps(json.load(f))[:400])


if __name__ == "__main__":
    main()
