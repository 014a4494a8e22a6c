#!/usr/bin/env python3
"""The README's headline plot: GraphSAGE epoch time per data path from a train_graphsage.py JSON
(bench/results/*-train-graphsage.json), all paths of one run. Paths whose loader is an oracle
rather than something users run are left out (named in a note under the plot).
Usage: plot_headline.py RESULT.json OUT.png"""
import json
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LABELS = {  # path key -> (label, is a fair comparison)
    "gpu": ("all-in-GPU (everything in HBM: upper bound)", True),
    "gnndirect": ("gnndirect: graph and features in host memory", True),
    "nodeloader": ("PyG NodeLoader over gnndirect's stores and sampler", True),
    "pyg_over_gnndirect": ("PyG NodeLoader over gnndirect's stores and sampler", True),
    "pyg": ("PyG NeighborLoader, CPU sampling (best num_workers)", True),
    "pygfast": ("PyG NodeLoader on gnndirect's C++ CPU sampler (best num_workers)", True),
    "hostref": ("loader on the reference sampler (an oracle: not a fair baseline)", False),
    "cpu": ("loader on the reference sampler (an oracle: not a fair baseline)", False),
}


def main():
    with open(sys.argv[1]) as f:
        result = json.load(f)
    paths = result["paths"]
    # The earliest JSONs called the PyG-over-gnndirect path "pyg" and the oracle loader "cpu".
    legacy = "hostref" not in paths and "cpu" in paths and "nodeloader" not in paths
    rows, left_out = [], []
    for key, value in paths.items():
        seconds = value["epoch_s_mean"] if isinstance(value, dict) else value
        label, fair = LABELS.get("pyg_over_gnndirect" if legacy and key == "pyg" else key, (key, True))
        if key == "pyg" and not legacy and isinstance(value, dict) and "num_workers" in value:
            # name what the baseline ran: its sampling backend and the worker count that won
            label = (f"PyG NeighborLoader, CPU sampling ({value.get('backend', '?')}, "
                     f"num_workers={value['num_workers']})")
        if key == "pygfast" and isinstance(value, dict) and "num_workers" in value:
            label = (f"PyG NodeLoader, CPU sampling (gnndirect's C++ sampler, "
                     f"num_workers={value['num_workers']})")
        (rows if fair else left_out).append((seconds, label, fair))
    rows.sort()
    fig, ax = plt.subplots(figsize=(10, 0.6 * len(rows) + 1.4))
    for y, (seconds, label, fair) in enumerate(rows):
        ax.barh(y, seconds, color="#4c72b0" if fair else "white", edgecolor="#4c72b0",
                hatch=None if fair else "//")
        ax.text(seconds + 0.01 * max(r[0] for r in rows), y, f"{seconds:.2f} s", va="center")
    ax.set_yticks(range(len(rows)), [r[1] for r in rows])
    ax.set_xlim(0, max(r[0] for r in rows) * 1.18)
    ax.set_xlabel("epoch time, seconds (lower is better)")
    machine = result.get("machine", {})
    gpu = machine.get("gpu", "GPU") if isinstance(machine, dict) else "GPU"
    config = result.get("config", {})
    shape = config.get("shape", "products")
    scale = config.get("scale", 1.0)
    shape_name = f"ogbn-{shape} shape" + (f" x{scale:g}" if scale != 1.0 else "")
    ax.set_title(f"GraphSAGE, {shape_name}, one epoch, {gpu}", fontsize=10)
    ax.invert_yaxis()
    if left_out:
        note = "; ".join(f"{label.split(' (')[0]}: {seconds:.1f} s" for seconds, label, _ in left_out)
        fig.text(0.01, 0.01, f"Not shown (an oracle, not a fair baseline): {note}", fontsize=8)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
