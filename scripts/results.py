#!/usr/bin/env python3
"""The one post-processor of GPU results (benchmark JSON, before/after rounds, the paper's table,
plots). Each subcommand has its own --help:

  scripts/results.py table BENCH_GATHER.json [--markdown] [--paths a,b,c]
      bench_gather JSON -> one row per (table size, row bytes), GB/s per path (medians)
  scripts/results.py compare RAW_DIR
      the raw rounds of `scripts/gpu compare` -> per benchmark the median of old and new, new/old
  scripts/results.py paper --out DIR [--power CSV] [--rapl CSV] [--status TXT] [--train S=J ...] DEMO.json...
      demo and training JSON + power logs -> DIR/paper-table.{md,json,png}
  scripts/results.py plot gather BENCH_GATHER.json OUT.png [TABLE_MIB]
      GB/s vs row size per path for one table size (docs/img/gather-*.png)
  scripts/results.py plot headline TRAIN_GRAPHSAGE.json OUT.png
      GraphSAGE epoch time per data path (docs/img/headline-graphsage*.png)
  scripts/results.py timeline TIMELINE.json [--png OUT.png] [--zoom MS] [--json OUT.json]
      an epoch timeline (bench/epoch --timeline, the pipeline's pipeline_timeline, the Python
      loader's timeline=) -> how much sampling and gathering overlapped, where batches waited;
      --png draws lanes per stream (matplotlib)
  scripts/results.py overlap EPOCH.json...
      the --overlap-sweep tables of bench/epoch JSON files, one line per variant and path
  scripts/results.py link BENCH_GATHER.json
      bench_gather's gather_link study: both link peaks, then per placement and row size the plain
      warp-per-row kernel, gnndirect's defaults, presorted, and the best of the selector sweep

table, compare, paper, timeline (without --png), overlap and link need only Python 3; plot, paper's PNG
and timeline --png need matplotlib.
test/python/check_results.py tests it.
"""
import argparse
import glob
import statistics
import datetime
import json
import math
import os
import sys
from collections import defaultdict

PAPER_DOC = """Joins the demo's JSON results (one file per graph shape) with a GPU power log and an optional
CPU package energy log into the paper's table (PyTorch-Direct, Min et al. 2021): per shape, the
epoch time of gnndirect against the CPU-centric path, the feature-transfer time of both (and how
much less gnndirect needs), CPU core-seconds, mean GPU power and CPU package energy per path.

usage: scripts/results.py paper --out DIR [--power power.csv] [--rapl rapl.csv] [--status runs.txt]
                                 [--train SHAPE=train.json ...] demo.json [demo.json ...]

Inputs:
  demo.json  bench/epoch (scripts/demo) --json output: every path entry has start_unix_s/end_unix_s (the
             wall-clock bounds of its timed epochs), "transfer" the transfer path's totals, and
             "sweep" the --workers/--depth sweep when there was one.
  power.csv  nvidia-smi --query-gpu=timestamp,power.draw --format=csv,noheader,nounits -lms 200:
             "YYYY/MM/DD HH:MM:SS.mmm, watts" per line, in the machine's local time (the same
             machine as the demo, so its unix times match); "[N/A]" readings are skipped.
  rapl.csv   written by scripts/gpu paper: optional "# max_energy_range_uj,R1,R2.." line, a
             header "unix_s,<domain>,..", then "unix_s,uj,uj.." rows of the package domains'
             energy_uj counters; or a line "not readable".
  runs.txt   optional "shape rc seconds" lines from scripts/gpu paper (runs that failed or
             timed out are listed in the table's notes).
  train.json bench/train_graphsage.py --json output of one shape: end-to-end GraphSAGE
             training of gnndirect, all-in-GPU and the CPU-centric loaders (PyG's NeighborLoader,
             "pyg"; PyG's NodeLoader on gnndirect's fast C++ CPU sampler, "pygfast"); every path
             has start_unix_s/end_unix_s (its timed epochs) for the power means.
Writes DIR/paper-table.md, DIR/paper-table.json and, when matplotlib imports, DIR/paper-table.png.
Pure Python 3 (no third-party module needed); test/python/check_results.py tests it.
"""

# Demo path names -> the table's names for them.
PATHS = {"gnndirect": "gnndirect", "cpu-centric": "cpu-centric", "transfer": "transfer"}


def parse_power(path):
    """[(unix_s, watts)] from an nvidia-smi CSV log, sorted by time; [] when there is no file."""
    samples = []
    if not path or not os.path.exists(path):
        return samples
    with open(path) as f:
        for line in f:
            parts = [p.strip() for p in line.split(",")]
            if len(parts) < 2:
                continue
            try:
                stamp = datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f")
                watts = float(parts[1])
            except ValueError:
                continue  # a header, "[N/A]" or a line cut off when the logger was stopped
            samples.append((stamp.timestamp(), watts))  # naive -> local time, as nvidia-smi wrote it
    samples.sort()
    return samples


def parse_rapl(path):
    """(status, domains, rows, ranges): rows are (unix_s, [uj per domain]); status is "readable",
    "not readable" or "not logged"."""
    if not path or not os.path.exists(path):
        return "not logged", [], [], []
    domains, rows, ranges = [], [], []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            if line == "not readable":
                return "not readable", [], [], []
            parts = line.split(",")
            if parts[0] == "# max_energy_range_uj":
                ranges = [float(v) for v in parts[1:]]
            elif parts[0] == "unix_s":
                domains = parts[1:]
            else:
                try:
                    values = [float(v) for v in parts]
                except ValueError:
                    continue
                if len(values) == len(domains) + 1:
                    rows.append((values[0], values[1:]))
    if not domains or len(rows) < 2:
        return "not readable", [], [], []
    rows.sort()
    return "readable", domains, unwrap(rows, ranges), ranges


def unwrap(rows, ranges):
    """Makes each counter monotonic: a counter that went down wrapped at its max_energy_range_uj
    (or, when unknown, at the next power of two above the largest reading)."""
    out = [(rows[0][0], list(rows[0][1]))]
    offsets = [0.0] * len(rows[0][1])
    for (t, values), (_, previous) in zip(rows[1:], rows[:-1]):
        for i, (v, p) in enumerate(zip(values, previous)):
            if v < p:
                wrap = ranges[i] if i < len(ranges) and ranges[i] > 0 else 2.0 ** math.ceil(math.log2(p + 1))
                offsets[i] += wrap
        out.append((t, [v + o for v, o in zip(values, offsets)]))
    return out


def interpolate(rows, t):
    """Summed counters (joules) at time t, linear between the samples around it; None outside."""
    if not rows or t < rows[0][0] or t > rows[-1][0]:
        return None
    for (t0, v0), (t1, v1) in zip(rows, rows[1:]):
        if t0 <= t <= t1:
            w = 0.0 if t1 == t0 else (t - t0) / (t1 - t0)
            return sum(a + w * (b - a) for a, b in zip(v0, v1)) * 1e-6
    return None


#: Fewer nvidia-smi samples than this (200 ms apart) make a path's mean power too thin to compare.
MIN_POWER_SAMPLES = 10


def power_cell(power):
    """A power table cell: mean watts and the samples behind it, flagged when they are few."""
    if power["mean"] is None:
        return "-"
    few = " *few*" if power["samples"] < MIN_POWER_SAMPLES else ""
    return "%.1f (%d)%s" % (power["mean"], power["samples"], few)


def mean_power(samples, start, end):
    """(mean watts, samples used) over [start, end]; a window shorter than the sampling interval
    with no sample inside takes the nearest sample within 1 s; (None, 0) when there is none."""
    inside = [w for t, w in samples if start <= t <= end]
    if inside:
        return sum(inside) / len(inside), len(inside)
    near = [(min(abs(t - start), abs(t - end)), w) for t, w in samples]
    near = [x for x in near if x[0] <= 1.0]
    if near:
        return min(near)[1], 1
    return None, 0


def cpu_energy(rapl_rows, start, end):
    """Mean CPU package power (W) over [start, end] from the unwrapped counters; None if not covered."""
    e0, e1 = interpolate(rapl_rows, start), interpolate(rapl_rows, end)
    if e0 is None or e1 is None or end <= start:
        return None
    return (e1 - e0) / (end - start)


def energy(watts, seconds):
    """Joules of a mean power over a time, or None when either is missing."""
    return watts * seconds if watts is not None and seconds else None


def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def shape_label(demo):
    scale = demo.get("scale", 1)
    return demo.get("preset", "?") + ("" if scale == 1 else " x%g" % scale)


def path_entry(demo, name):
    for p in demo.get("paths", []):
        if p.get("name") == name and p.get("ran"):
            return p
    return None


def windows(demo):
    """{table path name: (start, end, epoch seconds)} of the paths that ran, transfer included."""
    out = {}
    for name in ("gnndirect", "cpu-centric"):
        p = path_entry(demo, name)
        if p and "start_unix_s" in p:
            out[name] = (p["start_unix_s"], p["end_unix_s"], p["epoch_seconds"])
    t = demo.get("transfer")
    if t and t.get("ran"):
        out["transfer"] = (t["start_unix_s"], t["end_unix_s"], None)
    return out


def summarise(demo, power, rapl_rows):
    """One shape's row of the table (a dict; missing values are None)."""
    g, c = path_entry(demo, "gnndirect"), path_entry(demo, "cpu-centric")
    t = demo.get("transfer") if (demo.get("transfer") or {}).get("ran") else None
    row = {
        "shape": shape_label(demo), "preset": demo.get("preset"), "scale": demo.get("scale"),
        "nodes": demo.get("nodes"), "edges": demo.get("edges"), "feature_dim": demo.get("feature_dim"),
        "workers": demo.get("workers"), "depth": demo.get("depth"),
        "epoch_s": {"gnndirect": g and g["epoch_seconds"], "cpu-centric": c and c["epoch_seconds"]},
        "core_s": {"gnndirect": g and g["cpu_core_seconds"], "cpu-centric": c and c["cpu_core_seconds"]},
        "notes": [],
    }
    row["epoch_speedup"] = ratio(row["epoch_s"]["cpu-centric"], row["epoch_s"]["gnndirect"])
    if c and c.get("note"):
        row["notes"].append("cpu-centric " + c["note"])
    if t:
        row["transfer"] = {
            "gnndirect_s": t["gnndirect_seconds"], "cpu-centric_s": t["cpu_centric_seconds"],
            "reduction_pct": 100.0 * (1.0 - t["gnndirect_seconds"] / t["cpu_centric_seconds"]),
            "bytes": t["bytes"], "gnndirect_gbps": t["gnndirect_gbps"],
            "cpu-centric_gbps": t["cpu_centric_gbps"], "verified": t.get("verified"),
        }
        if t.get("note"):
            row["notes"].append("transfer " + t["note"])
        if not t.get("verified"):
            row["notes"].append("transfer: the two methods' rows DIFFER")
    else:
        row["transfer"] = None
    row["gpu_power_w"], row["cpu_package_w"], row["cpu_package_j_per_epoch"] = {}, {}, {}
    row["gpu_j_per_epoch"] = {}
    for name, (start, end, epoch_s) in windows(demo).items():
        watts, n = mean_power(power, start, end)
        row["gpu_power_w"][name] = {"mean": watts, "samples": n}
        # Energy, not power, is what a faster path saves: a busier GPU draws more watts for less time.
        row["gpu_j_per_epoch"][name] = energy(watts, epoch_s)
        cpu_w = cpu_energy(rapl_rows, start, end)
        row["cpu_package_w"][name] = cpu_w
        # The cpu path may be extrapolated: its energy per epoch is its mean power over the full epoch.
        row["cpu_package_j_per_epoch"][name] = energy(cpu_w, epoch_s)
    row["sweep"] = demo.get("sweep", [])
    return row


#: Training paths of train_graphsage.py shown in the training table, in column order.
TRAIN_PATHS = ("gnndirect", "gpu", "pygfast", "pyg")


def summarise_training(shape, result, power):
    """One shape's training row: per path epoch s, test accuracy, CPU core-s and mean GPU power,
    the best CPU-centric loader (the JSON's baseline) and gnndirect's speedup over it and over
    PyG's own loader."""
    paths = result.get("paths", {})
    config = result.get("config", {})
    row = {"shape": shape + ("" if config.get("scale", 1) == 1 else " x%g" % config["scale"]),
           "nodes": result.get("shape", {}).get("num_nodes"),
           "edges": result.get("shape", {}).get("num_edges"),
           "feature_dim": result.get("shape", {}).get("num_features"), "paths": {},
           "baseline": result.get("baseline"), "notes": []}
    for name in TRAIN_PATHS:
        p = paths.get(name)
        if not p:
            why = result.get("skipped", {}).get(name) or result.get("failures", {}).get(name)
            if why:
                row["notes"].append("%s: %s" % (name, why))
            continue
        entry = {"epoch_s": p.get("epoch_s_mean"), "test_acc": p.get("test_acc"),
                 "core_s": p.get("cpu_core_s_mean"), "num_workers": p.get("num_workers")}
        if "start_unix_s" in p:
            watts, n = mean_power(power, p["start_unix_s"], p["end_unix_s"])
            entry["gpu_power_w"] = {"mean": watts, "samples": n}
            entry["gpu_j_per_epoch"] = energy(watts, entry["epoch_s"])
        row["paths"][name] = entry
    g = row["paths"].get("gnndirect", {}).get("epoch_s")
    base = (row["baseline"] or {}).get("epoch_s")
    row["speedup_vs_best_cpu"] = ratio(base, g)
    row["speedup_vs_pyg"] = ratio(row["paths"].get("pyg", {}).get("epoch_s"), g)
    return row


def training_markdown(rows):
    """The training table (end-to-end GraphSAGE, one epoch per path) as markdown lines."""
    if not rows:
        return []
    lines = ["", "End-to-end GraphSAGE training (bench/train_graphsage.py, one epoch per path; "
             "the best CPU-centric loader is the faster of PyG's NeighborLoader and PyG's NodeLoader on "
             "gnndirect's C++ CPU sampler, full epochs; PyTorch-Direct reports up to 1.6x):", "",
             "| shape | epoch s gnndirect | epoch s all-in-GPU | epoch s best CPU loader | epoch s PyG "
             "NeighborLoader | speedup vs best CPU | vs PyG | test acc gnndirect / CPU / PyG | "
             "core-s gnndirect / CPU / PyG | GPU W gnndirect / CPU / PyG | GPU J/epoch gnndirect / CPU / PyG |",
             "|" + "---|" * 11]
    for r in rows:
        p = r["paths"]
        base = r["baseline"] or {}
        best = p.get(base.get("path"), {})
        pyg = p.get("pyg", {})
        gd = p.get("gnndirect", {})

        def power(entry):
            w = entry.get("gpu_power_w")
            return power_cell(w) if w else "-"
        label = "%s (%s, w=%s)" % (fmt(best.get("epoch_s")), base.get("path", "?"), base.get("num_workers", "?")) \
            if best else "-"
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s / %s / %s | %s / %s / %s | %s / %s / %s | %s |" % (
            r["shape"], fmt(gd.get("epoch_s")), fmt(p.get("gpu", {}).get("epoch_s")), label,
            fmt(pyg.get("epoch_s")) + ("" if not pyg else " (w=%s)" % pyg.get("num_workers")),
            fmt(r["speedup_vs_best_cpu"], "%.2fx"), fmt(r["speedup_vs_pyg"], "%.2fx"),
            fmt(gd.get("test_acc"), "%.4f"), fmt(best.get("test_acc"), "%.4f"), fmt(pyg.get("test_acc"), "%.4f"),
            fmt(gd.get("core_s"), "%.1f"), fmt(best.get("core_s"), "%.1f"), fmt(pyg.get("core_s"), "%.1f"),
            power(gd), power(best), power(pyg),
            " / ".join(fmt(e.get("gpu_j_per_epoch"), "%.0f") for e in (gd, best, pyg))))
    return lines


def fmt(value, spec="%.3f", none="-"):
    return none if value is None else spec % value


def markdown(rows, rapl_status, power_count, statuses, training=()):
    """The report as markdown text (`training`: rows of summarise_training)."""
    lines = ["# The paper's table on this machine", ""]
    device = {r.get("device") for r in rows if r.get("device")}
    if device:
        lines += ["Device: " + ", ".join(sorted(device)) + ".", ""]
    lines += ["| shape | nodes | edges | dim | epoch s gnndirect | epoch s cpu-centric | speedup | "
              "transfer s gnndirect | transfer s cpu-centric | transfer % less | core-s gnndirect | "
              "core-s cpu-centric |", "|" + "---|" * 12]
    for r in rows:
        t = r["transfer"] or {}
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["shape"], r["nodes"], r["edges"], r["feature_dim"], fmt(r["epoch_s"]["gnndirect"]),
            fmt(r["epoch_s"]["cpu-centric"]), fmt(r["epoch_speedup"], "%.2fx"), fmt(t.get("gnndirect_s")),
            fmt(t.get("cpu-centric_s")), fmt(t.get("reduction_pct"), "%.1f%%"),
            fmt(r["core_s"]["gnndirect"], "%.2f"), fmt(r["core_s"]["cpu-centric"], "%.2f")))
    reductions = [r["transfer"]["reduction_pct"] for r in rows if r["transfer"]]
    if reductions:
        lines += ["", "Feature transfer: gnndirect needs %.1f%% less time on average over %d shape(s) "
                  "(PyTorch-Direct reports 47.1%% less on average)." % (sum(reductions) / len(reductions),
                                                                      len(reductions))]
    lines += ["", "| shape | GPU W gnndirect | GPU W cpu-centric | GPU W transfer | GPU J/epoch gnndirect | "
              "GPU J/epoch cpu-centric | CPU pkg W gnndirect | CPU pkg W cpu-centric | "
              "CPU pkg J/epoch gnndirect | CPU pkg J/epoch cpu-centric |", "|" + "---|" * 10]
    thin = False
    for r in rows:
        gp = {k: power_cell(v) for k, v in r["gpu_power_w"].items()}
        thin = thin or any(0 < v["samples"] < MIN_POWER_SAMPLES for v in r["gpu_power_w"].values())
        gj = r.get("gpu_j_per_epoch", {})
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["shape"], gp.get("gnndirect", "-"), gp.get("cpu-centric", "-"),
            gp.get("transfer", "-"), fmt(gj.get("gnndirect"), "%.0f"), fmt(gj.get("cpu-centric"), "%.0f"),
            fmt(r["cpu_package_w"].get("gnndirect"), "%.1f"),
            fmt(r["cpu_package_w"].get("cpu-centric"), "%.1f"),
            fmt(r["cpu_package_j_per_epoch"].get("gnndirect"), "%.1f"),
            fmt(r["cpu_package_j_per_epoch"].get("cpu-centric"), "%.1f")))
    lines += ["", "GPU power: mean of the nvidia-smi samples (%d logged, every 200 ms) inside each path's "
              "timed epochs; GPU J/epoch: that mean times the path's epoch time; CPU package: RAPL "
              "energy_uj, %s. The transfer path interleaves both methods "
              "batch by batch, so its power is that of the mix. (n): samples in the mean." % (
                  power_count, rapl_status)]
    if thin:
        lines += ["", "Means marked *few* rest on fewer than %d samples (a path shorter than %d s): too few to "
                  "compare power; run more epochs or more batches (--epochs, --cpu-max-batches)."
                  % (MIN_POWER_SAMPLES, MIN_POWER_SAMPLES // 5)]
    for r in rows:
        if r["sweep"]:
            lines += ["", "Pipeline sweep, %s (gnndirect epoch s; the fastest is the gnndirect row):" % r["shape"],
                      "", "| workers | depth | epoch s | batches/s | core-s |", "|---|---|---|---|---|"]
            for s in r["sweep"]:
                mark = "**" if s.get("best") else ""
                lines.append("| %d | %d | %s%.3f%s | %.1f | %.2f |" % (s["workers"], s["depth"], mark,
                             s["epoch_seconds"], mark, s["batches_per_second"], s["cpu_core_seconds"]))
    lines += training_markdown(training)
    notes = ["%s: %s" % (r["shape"], n) for r in rows + training for n in r["notes"]]
    notes += ["%s: run exited %s after %s s (no results)" % s for s in statuses if s[1] != "0"]
    if notes:
        lines += ["", "Notes:", ""] + ["- " + n for n in notes]
    return "\n".join(lines) + "\n"


def plot_paper(rows, path):
    """Bar chart of the feature-transfer time per shape; False when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    shown = [r for r in rows if r["transfer"]]
    if not shown:
        return False
    fig, ax = plt.subplots(figsize=(1.8 * len(shown) + 2, 3.6))
    x = range(len(shown))
    ax.bar([i - 0.2 for i in x], [r["transfer"]["cpu-centric_s"] for r in shown], 0.4, label="CPU-centric staged gather")
    ax.bar([i + 0.2 for i in x], [r["transfer"]["gnndirect_s"] for r in shown], 0.4, label="gnndirect gather")
    for i, r in zip(x, shown):
        ax.annotate("-%.0f%%" % r["transfer"]["reduction_pct"], (i + 0.2, r["transfer"]["gnndirect_s"]),
                    ha="center", va="bottom", fontsize=8)
    ax.set_xticks(list(x))
    ax.set_xticklabels([r["shape"] for r in shown])
    ax.set_yscale("log")  # the shapes' epochs differ by orders of magnitude
    ax.set_ylabel("feature transfer per epoch (s, log scale)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def read_statuses(path):
    if not path or not os.path.exists(path):
        return []
    with open(path) as f:
        return [tuple(line.split()[:3]) for line in f if len(line.split()) >= 3]


def paper_main(argv):
    """The paper subcommand: argv without "paper"; returns the exit code."""
    ap = argparse.ArgumentParser(prog="scripts/results.py paper", description=PAPER_DOC,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--power", help="nvidia-smi power log (CSV)")
    ap.add_argument("--rapl", help="RAPL energy log written by scripts/gpu paper")
    ap.add_argument("--status", help="'shape rc seconds' lines of the demo runs")
    ap.add_argument("--train", action="append", default=[], metavar="SHAPE=JSON",
                    help="train_graphsage.py result of one shape (repeatable)")
    ap.add_argument("demo_json", nargs="*")
    args = ap.parse_args(argv)
    power = parse_power(args.power)
    rapl_status, _, rapl_rows, _ = parse_rapl(args.rapl)
    rows = []
    for path in args.demo_json:
        try:
            with open(path) as f:
                demo = json.load(f)
        except (OSError, ValueError) as e:
            print("results.py paper: skipping %s: %s" % (path, e), file=sys.stderr)
            continue
        row = summarise(demo, power, rapl_rows)
        row["device"] = demo.get("device")
        rows.append(row)
    training = []
    for item in args.train:
        shape, _, path = item.partition("=")
        if not path:
            ap.error("--train needs SHAPE=JSON, got %r" % item)
        try:
            with open(path) as f:
                training.append(summarise_training(shape, json.load(f), power))
        except (OSError, ValueError) as e:
            print("results.py paper: skipping training result %s: %s" % (path, e), file=sys.stderr)
    statuses = read_statuses(args.status)
    os.makedirs(args.out, exist_ok=True)
    text = markdown(rows, rapl_status, len(power), statuses, training)
    with open(os.path.join(args.out, "paper-table.md"), "w") as f:
        f.write(text)
    reductions = [r["transfer"]["reduction_pct"] for r in rows if r["transfer"]]
    summary = {"shapes": rows, "training": training, "rapl": rapl_status, "power_samples": len(power),
               "mean_transfer_reduction_pct": sum(reductions) / len(reductions) if reductions else None,
               "runs": [{"shape": s[0], "rc": s[1], "seconds": s[2]} for s in statuses]}
    with open(os.path.join(args.out, "paper-table.json"), "w") as f:
        json.dump(summary, f, indent=1)
    plotted = plot_paper(rows, os.path.join(args.out, "paper-table.png"))
    print(text)
    print("results.py paper: wrote %s (paper-table.md, paper-table.json%s)" % (args.out, ", paper-table.png" if plotted else "; no plot: matplotlib missing or nothing to plot"))
    return 0



# --- table: bench_gather JSON -> GB/s per (table size, row bytes) and path -------------------------

def load_gather(path):
    """(context, extras, rows) of a bench_gather JSON: extras maps the non-gather benchmarks
    (link_peak, device_copy) to their GB/s; rows maps (table MiB, row bytes) to {path: GB/s}."""
    with open(path) as f:
        data = json.load(f)
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


def table_main(args):
    _, extras, rows = load_gather(args.json)
    paths = args.paths.split(",") if args.paths else None
    if paths is None:
        paths = []
        for key in sorted(rows):
            for p in rows[key]:
                if p not in paths:
                    paths.append(p)
    peak = extras.get("link_peak", 0)
    print(f"link peak (pinned H2D memcpy): {peak:.1f} GB/s; device copy (read+write): {extras.get('device_copy', 0):.0f} GB/s")
    header = ["table MiB", "row B"] + paths
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    else:
        print(" ".join(f"{h:>14}" for h in header))
    for key in sorted(rows):
        cells = [str(key[0]), str(key[1])] + [f"{rows[key].get(p, float('nan')):.1f}" for p in paths]
        if args.markdown:
            print("| " + " | ".join(cells) + " |")
        else:
            print(" ".join(f"{c:>14}" for c in cells))
    return 0


# --- compare: the rounds of `scripts/gpu compare` -> medians and new/old ------------------------

def load_side(raw, side):
    """Per benchmark name, the real times and rates (GB/s or edges/s) of every round of one side
    (files RAW/<bench>-<side>-<round>.json; aggregates and the demo's JSON are left out)."""
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


def compare_main(args):
    raw = args.raw_dir
    old_t, old_r = load_side(raw, "old")
    new_t, new_r = load_side(raw, "new")
    names = [n for n in old_t if n in new_t]
    if not names:
        print(f"results.py compare: no benchmark in both the old and the new JSON under {raw}", file=sys.stderr)
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
    return 0 if names else 1


# --- plot gather / plot headline ------------------------------------------------------------------

def pyplot():
    """matplotlib's pyplot on the Agg backend (no display needed)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


GATHER_PATHS = ["device", "managed", "managed_b32", "pinned_sorted", "pinned", "registered", "cpu_centric"]


def plot_gather_main(args):
    plt = pyplot()
    table = args.table_mib
    _, extras, rows = load_gather(args.json)
    sizes = sorted(r for (t, r) in rows if t == table)
    if not sizes:
        print(f"results.py plot gather: no rows of a {table} MiB table in {args.json}", file=sys.stderr)
        return 1
    fig, ax = plt.subplots(figsize=(8, 5))
    for path in GATHER_PATHS:
        if path == "device":
            continue  # HBM is ~35x the link; shown in the table, off this scale
        values = [rows[(table, r)].get(path) for r in sizes]
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
    fig.savefig(args.out, dpi=110)
    return 0


HEADLINE_LABELS = {  # path key -> (label, is a fair comparison)
    "gpu": ("all-in-GPU (everything in HBM: upper bound)", True),
    "gnndirect": ("gnndirect: graph and features in host memory", True),
    "nodeloader": ("PyG NodeLoader over gnndirect's stores and sampler", True),
    "pyg_over_gnndirect": ("PyG NodeLoader over gnndirect's stores and sampler", True),
    "pyg": ("PyG NeighborLoader, CPU sampling (best num_workers)", True),
    "pygfast": ("PyG NodeLoader on gnndirect's C++ CPU sampler (best num_workers)", True),
    "hostref": ("loader on the reference sampler (an oracle: not a fair baseline)", False),
    "cpu": ("loader on the reference sampler (an oracle: not a fair baseline)", False),
}


def headline_rows(result):
    """(rows, left_out) of a train_graphsage.py result: (epoch seconds, label, fair) per path,
    rows sorted by time; left_out holds the oracle paths, which the plot only names in a note."""
    paths = result["paths"]
    # The earliest JSONs called the PyG-over-gnndirect path "pyg" and the oracle loader "cpu".
    legacy = "hostref" not in paths and "cpu" in paths and "nodeloader" not in paths
    rows, left_out = [], []
    for key, value in paths.items():
        seconds = value["epoch_s_mean"] if isinstance(value, dict) else value
        label, fair = HEADLINE_LABELS.get("pyg_over_gnndirect" if legacy and key == "pyg" else key, (key, True))
        if key == "pyg" and not legacy and isinstance(value, dict) and "num_workers" in value:
            # name what the baseline ran: its sampling backend and the worker count that won
            label = (f"PyG NeighborLoader, CPU sampling ({value.get('backend', '?')}, "
                     f"num_workers={value['num_workers']})")
        if key == "pygfast" and isinstance(value, dict) and "num_workers" in value:
            label = (f"PyG NodeLoader, CPU sampling (gnndirect's C++ sampler, "
                     f"num_workers={value['num_workers']})")
        (rows if fair else left_out).append((seconds, label, fair))
    rows.sort()
    return rows, left_out


def plot_headline_main(args):
    plt = pyplot()
    with open(args.json) as f:
        result = json.load(f)
    rows, left_out = headline_rows(result)
    if not rows:
        print(f"results.py plot headline: no path in {args.json}", file=sys.stderr)
        return 1
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
    fig.savefig(args.out, dpi=110)
    return 0


# --- timeline / overlap ---------------------------------------------------------------------------

SAMPLING_STAGES = ("seeds", "sample", "counts")
GATHER_STAGES = ("features", "labels")
STAGE_COLOURS = {"seeds": "#9ecae1", "sample": "#3182bd", "counts": "#c6dbef", "features": "#e6550d",
                 "labels": "#fdae6b", "held": "#31a354", "step": "#74c476", "enqueue": "#bcbddc",
                 "wait": "#dadaeb"}


def union(intervals):
    """Merged, sorted (start, end) intervals."""
    merged = []
    for a, b in sorted(intervals):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return [(a, b) for a, b in merged]


def length(intervals):
    return sum(b - a for a, b in intervals)


def intersection(x, y):
    """Intersection of two merged interval lists."""
    out, i, j = [], 0, 0
    while i < len(x) and j < len(y):
        a, b = max(x[i][0], y[j][0]), min(x[i][1], y[j][1])
        if a < b:
            out.append((a, b))
        if x[i][1] < y[j][1]:
            i += 1
        else:
            j += 1
    return out


def median(values):
    v = sorted(values)
    if not v:
        return None
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def summarise_timeline(doc):
    """Figures of one timeline: the GPU span of the epoch, the time sampling (of any batch) and
    gathering (of any batch) were in progress and both at once, the mean number of batches with GPU
    work in progress, and per batch the gap from its sampling's end to its gathers' start."""
    spans = [s for s in doc.get("spans", []) if s.get("gpu", True)]
    if not spans:
        return {"spans": 0}
    t0 = min(s["start"] for s in spans)
    t1 = max(s["end"] for s in spans)
    sampling = union((s["start"], s["end"]) for s in spans if s["stage"] in SAMPLING_STAGES)
    gathering = union((s["start"], s["end"]) for s in spans if s["stage"] in GATHER_STAGES)
    both = intersection(sampling, gathering)
    per_batch = {}
    for s in spans:
        if s["stage"] in SAMPLING_STAGES + GATHER_STAGES:
            per_batch.setdefault(s["batch"], []).append(s)
    # Batches in flight: the integral of the number of batches between their first and last stage.
    flight = sum(max(x["end"] for x in v) - min(x["start"] for x in v) for v in per_batch.values())
    gaps, gather_times, sample_times = [], [], []
    for v in per_batch.values():
        stages = {x["stage"]: x for x in v}
        if "counts" in stages and "features" in stages:
            gaps.append(stages["features"]["start"] - stages["counts"]["end"])
        if "features" in stages:
            gather_times.append(stages["features"]["end"] - stages["features"]["start"])
        if "sample" in stages:
            sample_times.append(stages["sample"]["end"] - stages["sample"]["start"])
    held = [s for s in spans if s["stage"] == "held"]
    waits = []  # consumer: from releasing batch b-1 to holding batch b
    by_batch = sorted(held, key=lambda s: s["batch"])
    for prev, cur in zip(by_batch, by_batch[1:]):
        waits.append(max(0.0, cur["start"] - prev["end"]))
    epoch = t1 - t0
    sampling_ms, gathering_ms, both_ms = length(sampling), length(gathering), length(both)
    return {
        "spans": len(doc.get("spans", [])), "batches": len(per_batch), "epoch_ms": epoch,
        "sampling_busy_ms": sampling_ms, "gathering_busy_ms": gathering_ms, "both_busy_ms": both_ms,
        "sum_busy_ms": sampling_ms + gathering_ms - both_ms,
        "overlap_of_shorter": both_ms / min(sampling_ms, gathering_ms) if min(sampling_ms, gathering_ms) > 0 else None,
        "batches_in_flight": flight / epoch if epoch > 0 else None,
        "median_sample_ms": median(sample_times), "median_features_ms": median(gather_times),
        "median_gap_sample_to_gather_ms": median(gaps), "consumer_wait_ms": sum(waits),
    }


def print_timeline_summary(name, doc, f):
    print(f"timeline {name}: {doc.get('path', '?')} {doc.get('codec', '')} ({f.get('batches', 0)} batches, "
          f"{f.get('spans', 0)} spans)")
    if f.get("spans", 0) == 0:
        print("  no GPU spans")
        return
    print(f"  GPU epoch span {f['epoch_ms']:.1f} ms; sampling in progress {f['sampling_busy_ms']:.1f} ms, "
          f"gathers {f['gathering_busy_ms']:.1f} ms, both at once {f['both_busy_ms']:.1f} ms "
          f"({fmt(f['overlap_of_shorter'], '%.2f')} of the shorter)")
    print(f"  batches in flight (mean) {fmt(f['batches_in_flight'], '%.2f')}; per batch (median): sample "
          f"{fmt(f['median_sample_ms'], '%.3f')} ms, features {fmt(f['median_features_ms'], '%.3f')} ms, "
          f"sampled -> gather start {fmt(f['median_gap_sample_to_gather_ms'], '%.3f')} ms; "
          f"consumer waited {f['consumer_wait_ms']:.1f} ms in all")


def lane_key(lane):
    """Slots (and their gather streams) first, by number, then the consumer, then workers."""
    parts = lane.split()
    number = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
    order = {"slot": 0, "consumer": 1, "stream": 2, "worker": 3}.get(parts[0], 4)
    return (order, number, lane)


def plot_timeline(doc, out, zoom=None, title=None):
    plt = pyplot()
    spans = doc.get("spans", [])
    lanes = sorted({s["lane"] for s in spans}, key=lane_key)
    if not spans:
        raise SystemExit("results.py timeline: no spans to draw")
    t0 = min(s["start"] for s in spans)
    t1 = max(s["end"] for s in spans)
    lo, hi = t0, t1
    if zoom:
        mid = 0.5 * (t0 + t1)
        lo, hi = max(t0, mid - zoom / 2), min(t1, mid + zoom / 2)
    fig, ax = plt.subplots(figsize=(14, max(3, 0.35 * len(lanes) + 1.5)))
    row = {lane: i for i, lane in enumerate(lanes)}
    for s in spans:
        if s["end"] < lo or s["start"] > hi:
            continue
        y = row[s["lane"]]
        alpha = 1.0 if s["batch"] % 2 == 0 else 0.6  # neighbouring batches told apart
        ax.broken_barh([(s["start"], max(s["end"] - s["start"], 1e-3))], (y - 0.4, 0.8),
                       facecolors=STAGE_COLOURS.get(s["stage"], "#969696"), alpha=alpha, edgecolor="none")
        mid = 0.5 * (max(s["start"], lo) + min(s["end"], hi))  # the visible part's middle
        if zoom and min(s["end"], hi) - max(s["start"], lo) > (hi - lo) / 60:
            ax.text(mid, y, str(s["batch"]), ha="center", va="center", fontsize=6, clip_on=True)
    ax.set_yticks(range(len(lanes)))
    ax.set_yticklabels(lanes, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(lo, hi)
    ax.set_xlabel("ms since the timeline's start")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in STAGE_COLOURS.values()]
    ax.legend(handles, list(STAGE_COLOURS), ncol=len(STAGE_COLOURS), fontsize=7, loc="lower center",
              bbox_to_anchor=(0.5, 1.0), frameon=False)
    fig.suptitle(title or f"{doc.get('path', '')} {doc.get('codec', '')}: stages per stream (batch number "
                 f"on each span; alternate batches lighter)" + (f", {zoom:g} ms around the middle" if zoom else ""),
                 fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    fig.savefig(out, dpi=110)


def timeline_main(args):
    with open(args.json) as f:
        doc = json.load(f)
    figures = summarise_timeline(doc)
    print_timeline_summary(os.path.basename(args.json), doc, figures)
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(figures, f, indent=2)
    if args.png:
        try:
            plot_timeline(doc, args.png, args.zoom)
        except ImportError:
            print("results.py timeline --png: matplotlib is not installed (pip install matplotlib, or "
                  "apt-get install python3-matplotlib); the summary above needs none", file=sys.stderr)
            return 2
    return 0


def overlap_main(args):
    status = 0
    for path in args.json:
        with open(path) as f:
            doc = json.load(f)
        rows = doc.get("overlap", [])
        print(f"{os.path.basename(path)}: {doc.get('preset', '?')} scale {doc.get('scale', '?')} codec "
              f"{doc.get('codec', '?')}, link peak {fmt(doc.get('link_peak_gbps'), '%.1f')} GB/s")
        if not rows:
            print("  no overlap sweep in this file")
            status = 1
            continue
        print("  %-12s %-20s %8s %8s %8s %8s %8s" % ("variant", "path", "epoch", "gpu", "floor", "sum", "overlap"))
        for r in rows:
            print("  %-12s %-20s %8.3f %8.3f %8.3f %8.3f %8.2f" % (
                r["variant"], r["path"], r["epoch_seconds"], r["all_in_gpu_seconds"], r["link_floor_seconds"],
                r["sum_seconds"], r["overlap"]))
        for p in sorted({r["path"] for r in rows}):
            best = min((r for r in rows if r["path"] == p), key=lambda r: r["epoch_seconds"])
            print(f"  fastest {p}: {best['variant']} {best['epoch_seconds']:.3f} s (overlap {best['overlap']:.2f})")
    return status


def link_main(args):
    """The gather_link study's table (bench/gather/link.cu): per (placement, row bytes) GB/s of the
    plain kernel, gnndirect's defaults and the fastest sweep entry, each over the zero-copy peak."""
    with open(args.json) as f:
        data = json.load(f)
    peaks, rows = {}, {}
    for bench in data.get("benchmarks", []):
        parts = [p for p in bench["name"].split("/") if not p.startswith(("iterations:", "manual_time", "real_time"))]
        if parts[0] in ("link_peak", "link_peak_zero_copy"):
            peaks[parts[0]] = bench.get("GBps")
            continue
        if parts[0] != "gather_link" or len(parts) < 4:
            continue
        key = (parts[1], int(parts[2].split(":")[1]))
        rows.setdefault(key, {})["/".join(parts[3:])] = bench
    copy, zero = peaks.get("link_peak"), peaks.get("link_peak_zero_copy")
    print(f"link peaks: copy engines (pinned H2D memcpy) {fmt(copy, '%.1f')} GB/s, "
          f"SMs' sequential zero-copy read {fmt(zero, '%.1f')} GB/s")
    if not rows:
        print("no gather_link rows")
        return 1
    print("%-13s %6s %10s %10s %10s %10s  %-28s %8s" % ("placement", "row B", "plain", "gnndirect", "presorted",
                                                      "best sweep", "(blocks/rows/tile)", "best/zc"))
    for (placement, row), entries in sorted(rows.items()):
        def rate(name):
            return entries.get(name, {}).get("GBps")
        sweep = {n: b for n, b in entries.items() if n.startswith("blocks:")}
        best = max(sweep, key=lambda n: sweep[n].get("GBps", 0)) if sweep else None
        best_rate = sweep[best].get("GBps") if best else None
        plain = rate("warp_per_row")
        full = rate("warp_per_row_full")
        if plain is not None and full is not None and full > plain:
            plain = full
        print("%-13s %6d %10s %10s %10s %10s  %-28s %8s" % (
            placement, row, fmt(plain, "%.1f"), fmt(rate("gnndirect"), "%.1f"), fmt(rate("gnndirect_presorted"), "%.1f"),
            fmt(best_rate, "%.1f"), best or "-", fmt(best_rate / zero if best_rate and zero else None, "%.2f")))
    print("(plain: the warp-per-row kernel, the better of 256 blocks and a full grid; gnndirect: the selector's "
          "defaults; GB/s of gathered rows, medians)")
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "paper":  # its own parser (it predates the others; its --help is PAPER_DOC)
        return paper_main(argv[1:])
    ap = argparse.ArgumentParser(prog="scripts/results.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", metavar="{table,compare,paper,plot,timeline,overlap,link}")
    sub.required = True
    p = sub.add_parser("table", help="bench_gather JSON -> GB/s per table size, row size and path")
    p.add_argument("json", help="bench_gather --benchmark_out JSON")
    p.add_argument("--markdown", action="store_true", help="a Markdown table")
    p.add_argument("--paths", help="comma-separated paths (columns) in this order; default: all")
    p.set_defaults(func=table_main)
    p = sub.add_parser("compare", help="the raw rounds of `scripts/gpu compare` -> medians, new/old")
    p.add_argument("raw_dir", help="folder of <bench>-{old,new}-<round>.json (and demo-{old,new}-<round>.json)")
    p.set_defaults(func=compare_main)
    sub.add_parser("paper", help="the paper's table (scripts/results.py paper --help)")
    p = sub.add_parser("plot", help="a PNG: `plot gather` or `plot headline`")
    kinds = p.add_subparsers(dest="kind", metavar="{gather,headline}")
    kinds.required = True
    q = kinds.add_parser("gather", help="GB/s vs row size per path for one table size")
    q.add_argument("json", help="bench_gather JSON")
    q.add_argument("out", help="PNG to write")
    q.add_argument("table_mib", nargs="?", type=int, default=16384, help="table size in MiB (default 16384)")
    q.set_defaults(func=plot_gather_main)
    q = kinds.add_parser("headline", help="GraphSAGE epoch time per data path (train_graphsage.py JSON)")
    q.add_argument("json", help="train_graphsage.py --json result")
    q.add_argument("out", help="PNG to write")
    q.set_defaults(func=plot_headline_main)
    p = sub.add_parser("timeline", help="an epoch timeline JSON -> overlap figures (and a PNG of lanes)")
    p.add_argument("json", help="a timeline JSON (bench/epoch --timeline, pipeline_timeline::write_json)")
    p.add_argument("--png", help="draw the lanes per stream into this PNG (matplotlib)")
    p.add_argument("--zoom", type=float, help="draw only this many ms around the epoch's middle")
    p.add_argument("--json", dest="json_out", help="also write the figures as JSON")
    p.set_defaults(func=timeline_main)
    p = sub.add_parser("overlap", help="bench/epoch --overlap-sweep JSON -> one line per variant and path")
    p.add_argument("json", nargs="+", help="bench/epoch --json files")
    p.set_defaults(func=overlap_main)
    p = sub.add_parser("link", help="bench_gather gather_link JSON -> peaks, plain kernel, defaults, best sweep")
    p.add_argument("json", help="bench_gather --benchmark_out JSON of --benchmark_filter='^link_peak|gather_link'")
    p.set_defaults(func=link_main)
    args = ap.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
