#!/usr/bin/env python3
"""Plot GB/s vs row size per path for one table size from bench_gather JSON (matplotlib).

usage: scripts/plot_gather.py bench_gather.json out.png [table_MiB]
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, __import__("os").path.dirname(__file__))
from bench_table import load  # noqa: E402

PATHS = ["device", "managed", "managed_b32", "pinned_sorted", "pinned", "registered", "cpu_centric"]


def main():
    src, out = sys.argv[1], sys.argv[2]
    table = int(sys.argv[3]) if len(sys.argv) > 3 else 16384
    _, extras, rows = load(src)
    sizes = sorted(r for (t, r) in rows if t == table)
    fig, ax = plt.subplots(figsize=(8, 5))
    for path in PATHS:
        values = [rows[(table, r)].get(path) for r in sizes]
        if path == "device":
            continue  # HBM is ~35x the link; shown in the table, off this scale
        ax.plot(sizes, values, marker="o", label=path)
    ax.axhline(extras.get("link_peak", 0), color="black", linestyle="--", label="link peak (H2D memcpy)")
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes)
    ax.set_xticklabels([str(s) for s in sizes])
    ax.set_xlabel("row bytes")
    ax.set_ylabel("GB/s of gathered rows (median)")
    ax.set_title(f"Random gather, 1M rows/batch, {table // 1024 if table >= 1024 else table} "
                 f"{'GiB' if table >= 1024 else 'MiB'} host table, H200 PCIe Gen5")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
