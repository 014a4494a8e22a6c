#!/usr/bin/env python3
"""Tests scripts/results.py paper, timeline and overlap on fabricated inputs (no GPU): two demo JSON files, an nvidia-smi
power log and a RAPL log whose counter wraps, with values chosen so that every mean, ratio and
energy has a known answer; then the same without RAPL ("not readable") and with a failed run.
usage: check_results.py REPO_ROOT   (exit 0: passed; 1: a check failed)
"""
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
SCRIPT = os.path.join(ROOT, "scripts", "results.py")
T0 = float(int(time.time()) - 3600)  # whole seconds: the log's millisecond stamps are then exact
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAILED: " + what)


def close(a, b, tol=1e-6):
    return a is not None and abs(a - b) <= tol * max(1.0, abs(b))


def smi_stamp(t):
    """t (unix seconds) as nvidia-smi writes its timestamp: local time with milliseconds."""
    return time.strftime("%Y/%m/%d %H:%M:%S", time.localtime(t)) + ".%03d" % round((t % 1) * 1000)


def demo_json(preset, scale, gnn, cpu, transfer, sweep=None):
    """gnn/cpu: (start, end, epoch_s, core_s); transfer: (start, end, gnndirect_s, cpu_s) or None."""
    paths = [{"name": "gnndirect", "ran": True, "epoch_seconds": gnn[2], "cpu_core_seconds": gnn[3],
              "start_unix_s": gnn[0], "end_unix_s": gnn[1]},
             {"name": "cpu-centric", "ran": True, "epoch_seconds": cpu[2], "cpu_core_seconds": cpu[3],
              "start_unix_s": cpu[0], "end_unix_s": cpu[1], "note": "extrapolated from 2 of 8 batches"}]
    d = {"device": "Fake GPU", "preset": preset, "scale": scale, "nodes": 100, "edges": 1000,
         "feature_dim": 8, "workers": 2, "depth": 3, "paths": paths}
    if transfer:
        d["transfer"] = {"ran": True, "batches": 8, "batches_run": 2, "rows": 800, "bytes": 25600,
                         "gnndirect_seconds": transfer[2], "cpu_centric_seconds": transfer[3],
                         "reduction_pct": 0, "gnndirect_gbps": 1, "cpu_centric_gbps": 1,
                         "start_unix_s": transfer[0], "end_unix_s": transfer[1], "verified": True}
    if sweep:
        d["sweep"] = sweep
    return d


def train_json(scale, paths, baseline, skipped=None):
    """paths: {name: (start, end, epoch_s, acc, core_s, workers)}; baseline: a path name."""
    out = {"config": {"shape": "products", "scale": scale},
           "shape": {"num_nodes": 50, "num_edges": 500, "num_features": 4},
           "paths": {}, "skipped": skipped or {}, "failures": {}}
    for name, (start, end, epoch_s, acc, core_s, workers) in paths.items():
        out["paths"][name] = {"epoch_s_mean": epoch_s, "test_acc": acc, "cpu_core_s_mean": core_s,
                              "num_workers": workers, "start_unix_s": start, "end_unix_s": end}
    b = paths[baseline]
    out["baseline"] = {"path": baseline, "num_workers": b[5], "epoch_s": b[2]}
    return out


def run(tmp, files, extra):
    out = os.path.join(tmp, "out")
    proc = subprocess.run([sys.executable, SCRIPT, "paper", "--out", out] + extra + files,
                          capture_output=True, text=True)
    check(proc.returncode == 0, "results.py paper exit %d: %s" % (proc.returncode, proc.stderr))
    with open(os.path.join(out, "paper-table.json")) as f:
        summary = json.load(f)
    with open(os.path.join(out, "paper-table.md")) as f:
        md = f.read()
    return summary, md


def check_timeline_and_overlap(tmp):
    """results.py timeline on a fabricated two-batch timeline whose figures are known by hand, and
    results.py overlap on a fabricated --overlap-sweep JSON."""
    def span(lane, batch, stage, start, end, gpu=True):
        return {"lane": lane, "batch": batch, "stage": stage, "start": start, "end": end, "gpu": gpu}
    doc = {"unit": "ms", "path": "gnndirect", "codec": "int8", "lanes": [], "spans": [
        span("slot 0", 0, "seeds", 0, 1), span("slot 0", 0, "sample", 1, 5), span("slot 0", 0, "counts", 5, 6),
        span("slot 0", 0, "features", 6, 14),
        span("slot 1", 1, "seeds", 2, 3), span("slot 1", 1, "sample", 8, 12), span("slot 1", 1, "counts", 12, 13),
        span("slot 1", 1, "features", 15, 20),
        span("consumer", 0, "held", 14, 15), span("consumer", 1, "held", 20, 21),
        span("worker 0", 0, "wait", 0, 100, False)]}  # host spans do not count
    path = os.path.join(tmp, "timeline.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    out = os.path.join(tmp, "timeline-figures.json")
    proc = subprocess.run([sys.executable, SCRIPT, "timeline", path, "--json", out], capture_output=True, text=True)
    check(proc.returncode == 0, "results.py timeline exit %d: %s" % (proc.returncode, proc.stderr))
    if proc.returncode == 0:
        with open(out) as f:
            got = json.load(f)
        # Sampling [0,6] + [8,13] = 11 ms, gathers [6,14] + [15,20] = 13 ms, both [8,13] = 5 ms; batches
        # span 14 and 18 ms of a 21 ms epoch; gaps counts -> features 0 and 2 ms; consumer idle 15..20.
        want = {"epoch_ms": 21, "sampling_busy_ms": 11, "gathering_busy_ms": 13, "both_busy_ms": 5,
                "sum_busy_ms": 19, "overlap_of_shorter": 5 / 11, "batches_in_flight": 32 / 21,
                "median_sample_ms": 4, "median_features_ms": 6.5, "median_gap_sample_to_gather_ms": 1,
                "consumer_wait_ms": 5, "batches": 2}
        for key, value in want.items():
            check(close(got.get(key), value), "timeline %s: %s, expected %s" % (key, got.get(key), value))
        check("both at once 5.0 ms" in proc.stdout, "timeline summary line: %s" % proc.stdout)
    sweep = {"preset": "papers100m", "scale": 0.5, "codec": "int8", "link_peak_gbps": 50.0, "overlap": [
        {"variant": "base", "path": "graph-in-hbm", "epoch_seconds": 1.1, "all_in_gpu_seconds": 0.4,
         "link_floor_seconds": 0.7, "sum_seconds": 1.1, "max_seconds": 0.7, "overlap": 0.0},
        {"variant": "prio", "path": "graph-in-hbm", "epoch_seconds": 0.8, "all_in_gpu_seconds": 0.4,
         "link_floor_seconds": 0.7, "sum_seconds": 1.1, "max_seconds": 0.7, "overlap": 0.75}]}
    path = os.path.join(tmp, "sweep.json")
    with open(path, "w") as f:
        json.dump(sweep, f)
    proc = subprocess.run([sys.executable, SCRIPT, "overlap", path], capture_output=True, text=True)
    check(proc.returncode == 0, "results.py overlap exit %d: %s" % (proc.returncode, proc.stderr))
    check("fastest graph-in-hbm: prio 0.800 s (overlap 0.75)" in proc.stdout, "overlap best line: %s" % proc.stdout)
    with open(path, "w") as f:
        json.dump({"preset": "small"}, f)
    proc = subprocess.run([sys.executable, SCRIPT, "overlap", path], capture_output=True, text=True)
    check(proc.returncode == 1 and "no overlap sweep" in proc.stdout, "overlap without a sweep: exit 1")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        # Shape A: gnndirect [T0+1, T0+2] samples 100, 110, 120 W -> 110; cpu [T0+3, T0+4]:
        # 200, 220 -> 210; transfer [T0+5, T0+6]: 300 -> 300 (one sample inside).
        sweep = [{"workers": 1, "depth": 2, "epoch_seconds": 2.5, "batches_per_second": 4.0,
                  "cpu_core_seconds": 1.0, "best": False},
                 {"workers": 2, "depth": 3, "epoch_seconds": 2.0, "batches_per_second": 5.0,
                  "cpu_core_seconds": 1.2, "best": True}]
        a = demo_json("reddit", 1, (T0 + 1, T0 + 2, 2.0, 1.5), (T0 + 3, T0 + 4, 20.0, 300.0),
                      (T0 + 5, T0 + 6, 1.0, 4.0), sweep)
        # Shape B: gnndirect [T0+10, T0+11]: 90 -> 90; cpu [T0+12.05, T0+12.1]: no sample inside,
        # nearest 150 W (at T0+12); transfer 3.0 vs 5.0 s -> 40% less.
        b = demo_json("twitter", 0.5, (T0 + 10, T0 + 11, 1.0, 0.5), (T0 + 12.05, T0 + 12.1, 5.0, 80.0),
                      (T0 + 13, T0 + 14, 3.0, 5.0))
        files = []
        for name, d in (("a.json", a), ("b.json", b)):
            files.append(os.path.join(tmp, name))
            with open(files[-1], "w") as f:
                json.dump(d, f)
        power = [(1.0, 100), (1.5, 110), (2.0, 120), (2.5, 999), (3.0, 200), (4.0, 220), (4.5, 999),
                 (5.5, 300), (10.5, 90), (12.0, 150), (13.5, 50)]
        with open(os.path.join(tmp, "power.csv"), "w") as f:
            for dt, w in power:
                f.write("%s, %.2f\n" % (smi_stamp(T0 + dt), w))
            f.write("%s, [N/A]\n" % smi_stamp(T0 + 20))
        # RAPL: package-0 draws 50 W, package-1 20 W, from T0 to T0+15 (samples every 0.5 s);
        # package-0's counter wraps at 1e8 uj (100 J) on the way.
        rng = 1e8
        with open(os.path.join(tmp, "rapl.csv"), "w") as f:
            f.write("# max_energy_range_uj,%d,%d\nunix_s,package-0,package-1\n" % (rng, 1e12))
            for k in range(31):
                t = T0 + 0.5 * k
                f.write("%.3f,%d,%d\n" % (t, (50e6 * (t - T0) + 9e7) % rng, 20e6 * (t - T0)))
        with open(os.path.join(tmp, "runs.txt"), "w") as f:
            f.write("reddit 0 40\ntwitter 0 90\npapers100m 124 300\n")
        extra = ["--power", os.path.join(tmp, "power.csv"), "--rapl", os.path.join(tmp, "rapl.csv"),
                 "--status", os.path.join(tmp, "runs.txt")]
        # Training of one shape: gnndirect [T0+1, T0+2] (110 W, as above), the fast loader
        # [T0+3, T0+4] (210 W) the baseline at 12 s, PyG at 16 s: speedups 12x and 16x.
        t = train_json(0.25, {"gnndirect": (T0 + 1, T0 + 2, 1.0, 0.91, 1.5, None),
                              "gpu": (T0 + 5, T0 + 6, 0.8, 0.905, 1.2, None),
                              "pygfast": (T0 + 3, T0 + 4, 12.0, 0.9, 170.0, 0),
                              "pyg": (T0 + 10, T0 + 11, 16.0, 0.89, 250.0, 16)}, "pygfast")
        with open(os.path.join(tmp, "train.json"), "w") as f:
            json.dump(t, f)
        extra += ["--train", "products=" + os.path.join(tmp, "train.json")]
        summary, md = run(tmp, files, extra)
        ra, rb = summary["shapes"]
        (tr,) = summary["training"]
        check(tr["shape"] == "products x0.25", "training shape label %s" % tr["shape"])
        check(close(tr["speedup_vs_best_cpu"], 12.0) and close(tr["speedup_vs_pyg"], 16.0),
              "training speedups %s %s" % (tr["speedup_vs_best_cpu"], tr["speedup_vs_pyg"]))
        check(close(tr["paths"]["gnndirect"]["gpu_power_w"]["mean"], 110.0)
              and close(tr["paths"]["pygfast"]["gpu_power_w"]["mean"], 210.0)
              and close(tr["paths"]["pyg"]["gpu_power_w"]["mean"], 90.0), "training power %s" % tr["paths"])
        check("| products x0.25 | 1.000 | 0.800 | 12.000 (pygfast, w=0) | 16.000 (w=16) | 12.00x | 16.00x | "
              "0.9100 / 0.9000 / 0.8900 | 1.5 / 170.0 / 250.0 | 110.0 (3) *few* / 210.0 (2) *few* / 90.0 (1) *few* | "
              "110 / 2520 / 1440 |"
              in md, "md training row:\n" + md)
        check(ra["shape"] == "reddit" and rb["shape"] == "twitter x0.5", "shape labels: %s" % [ra["shape"], rb["shape"]])
        check(close(ra["epoch_speedup"], 10.0), "speedup A %s" % ra["epoch_speedup"])
        check(close(ra["transfer"]["reduction_pct"], 75.0), "transfer reduction A %s" % ra["transfer"])
        check(close(rb["transfer"]["reduction_pct"], 40.0), "transfer reduction B %s" % rb["transfer"])
        check(close(summary["mean_transfer_reduction_pct"], 57.5), "mean reduction %s" % summary["mean_transfer_reduction_pct"])
        g = ra["gpu_power_w"]
        check(close(g["gnndirect"]["mean"], 110.0) and g["gnndirect"]["samples"] == 3, "GPU W gnndirect A %s" % g)
        check(close(g["cpu-centric"]["mean"], 210.0), "GPU W cpu A %s" % g)
        j = ra["gpu_j_per_epoch"]
        check(close(j["gnndirect"], 110.0 * 2.0) and close(j["cpu-centric"], 210.0 * 20.0), "GPU J/epoch A %s" % j)
        check("| 110.0 (3) *few* |" in md and "Means marked *few* rest on fewer than 10 samples" in md,
              "thin power means flagged")
        check(close(g["transfer"]["mean"], 300.0), "GPU W transfer A %s" % g)
        check(close(rb["gpu_power_w"]["cpu-centric"]["mean"], 150.0), "nearest sample B %s" % rb["gpu_power_w"])
        check(close(ra["cpu_package_w"]["gnndirect"], 70.0, 1e-4), "CPU pkg W A %s" % ra["cpu_package_w"])
        check(close(rb["cpu_package_w"]["gnndirect"], 70.0, 1e-4), "CPU pkg W across the wrap %s" % rb["cpu_package_w"])
        check(close(ra["cpu_package_j_per_epoch"]["cpu-centric"], 70.0 * 20.0, 1e-4),
              "CPU J/epoch A cpu %s" % ra["cpu_package_j_per_epoch"])
        check(summary["rapl"] == "readable" and summary["power_samples"] == len(power), "status %s" % summary)
        check("| reddit | 100 | 1000 | 8 | 2.000 | 20.000 | 10.00x | 1.000 | 4.000 | 75.0% |" in md, "md row A")
        check("57.5% less time on average over 2 shape(s)" in md, "md average")
        check("| 2 | 3 | **2.000** | 5.0 | 1.20 |" in md, "md sweep best")
        check("papers100m: run exited 124 after 300 s" in md, "md failed run")
        check("reddit: cpu-centric extrapolated from 2 of 8 batches" in md, "md note")

        # No RAPL (unreadable), no power log: the table still comes out, with dashes.
        with open(os.path.join(tmp, "rapl.csv"), "w") as f:
            f.write("not readable\n")
        summary, md = run(tmp, files[:1], ["--rapl", os.path.join(tmp, "rapl.csv")])
        check(summary["rapl"] == "not readable", "rapl not readable: %s" % summary["rapl"])
        check(summary["shapes"][0]["gpu_power_w"]["gnndirect"]["mean"] is None, "no power log -> None")
        check("RAPL energy_uj, not readable" in md, "md says not readable")
        check_timeline_and_overlap(tmp)
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("results.py paper: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
