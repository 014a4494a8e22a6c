"""The run: the command line, each path's epochs timed (and the sweeps' windows), the summary
table and the JSON (see the package doc)."""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import sys
import time
import traceback

import torch

import gnndirect_torch as gd
from gnndirect_torch._util import SHAPES, format_table, num_batches, speedup, sweep_warmup

from .data import generate
from .loaders import (HostRefPath, LoaderPath, NodeLoaderPath, PygFastPath, PygPath, batch_seed, host_cores,
                      keep_pyg_scatter_native, pyg_backend)
from .measure import CPU_METER, Spans, cpu_seconds, host_used_bytes, peak_rss_bytes, psutil, reset_peak_rss, sync
from .model import evaluate, make_model, train_step, training_stream


PATHS = ("pyg", "pygfast", "gnndirect", "graphhbm", "nodeloader", "gpu", "hostref")

#: --codec values: none (no codec) and the row codecs of gnndirect_torch.Table.
CODEC_CHOICES = ("none", "fp32", "fp16", "bf16", "int8", "fp8", "int4")

#: The CPU-centric loaders swept over num_workers; the faster one is the baseline of every ratio.
CPU_CENTRIC = ("pyg", "pygfast")


def resolve(times):
    """A loop's times with its Spans read (after a synchronize)."""
    return {k: (v.seconds() if isinstance(v, Spans) else v) for k, v in times.items()}


def mean(values):
    values = list(values)
    return sum(values) / len(values) if values else float("nan")


def run_path(path, data, args, device, shape, profile=True):
    """Warm-up, timed epochs, evaluation, then (if `profile`) the serial profile (after the
    evaluation: its training steps do not change the accuracy). Returns the path's record."""
    model = make_model(shape["num_features"], args.hidden, shape["num_classes"], len(args.fanouts),
                       args.seed, device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    losses = []
    clock = {"train": Spans(device)}

    def consume(x, y, blocks):
        with clock["train"].span():
            losses.append(train_step(model, optimizer, x, y, blocks))

    with training_stream(args, device):  # warm-up and timed epochs on the same stream
        # warm-up (not timed): a few batches through the real loop (CUDA kernels, allocator, pools,
        # worker processes)
        path.epoch(10_000 + 0, consume, max_batches=args.warmup_batches)
        sync(device)
        losses.clear()
        record = {"epochs": [], "start_unix_s": time.time()}  # wall-clock bounds: power attribution
        for epoch in range(args.epochs):
            clock["train"] = Spans(device)
            sync(device)
            wall0, cpu0, proc0 = time.perf_counter(), cpu_seconds(), time.process_time()
            times = path.epoch(epoch, consume)
            sync(device)
            wall = time.perf_counter() - wall0
            entry = {"epoch_s": wall, "cpu_core_s": cpu_seconds() - cpu0,
                     "main_process_cpu_s": time.process_time() - proc0, "batches": len(losses),
                     "mean_loss": float(torch.stack(losses).mean()) if losses else float("nan"),
                     "train_s": clock["train"].seconds()}
            entry["cpu_cores_busy"] = entry["cpu_core_s"] / wall if wall > 0 else 0.0
            entry.update(resolve(times))
            record["epochs"].append(entry)
            losses.clear()
            print(f"  [{path.name}] epoch {epoch}: {wall:.2f} s (waited {entry['wait_s']:.2f} s for "
                  f"batches), {entry['cpu_core_s']:.1f} CPU core-s, loss {entry['mean_loss']:.3f}",
                  flush=True)
    record["end_unix_s"] = time.time()
    epochs = record["epochs"]
    record["epoch_s_mean"] = mean(e["epoch_s"] for e in epochs)
    record["cpu_core_s_mean"] = mean(e["cpu_core_s"] for e in epochs)
    record["loop_split_s"] = {k: mean(e[k] for e in epochs) for k in ("wait_s", "h2d_s", "train_s")
                              if k in epochs[0]}  # h2d_s: paths whose loop copies batches
    own_x = getattr(path, "eval_x", None)
    record["test_acc"] = evaluate(model, args.eval_graph, own_x if own_x is not None else args.eval_x,
                                  data[3], data[5], args, device)
    print(f"  [{path.name}] test accuracy {record['test_acc']:.4f}", flush=True)
    if own_x is not None:  # a codec path: also on the fp32 features
        record["test_acc_fp32_features"] = evaluate(model, args.eval_graph, args.eval_x, data[3], data[5],
                                                    args, device)
        record["codec"] = path.codec_report
        print(f"  [{path.name}] codec {path.codec_report['codec']}: test accuracy on fp32 features "
              f"{record['test_acc_fp32_features']:.4f}; worst column error {path.codec_report}", flush=True)
    if profile and getattr(path, "profile", None) is not None and args.profile_batches > 0:
        split = {}
        g = torch.Generator().manual_seed(777)
        train = data[4]
        for b in range(args.profile_batches):
            seeds = train[torch.randint(0, train.shape[0], (args.batch_size,), generator=g)].unique()
            times, (xb, yb, mb) = path.profile(seeds, batch_seed(99, 0, b))
            sync(device)
            t0 = time.perf_counter()
            train_step(model, optimizer, xb, yb, mb)
            sync(device)
            times["train_s"] = time.perf_counter() - t0
            for k, v in times.items():
                split[k] = split.get(k, 0.0) + v
        per_epoch = num_batches(train.shape[0], args.batch_size) / args.profile_batches
        record["split_per_epoch_s"] = {k: v * per_epoch for k, v in split.items()}
    return record


def record_failure(results, label, error):
    """Prints the traceback and keeps the failure in the results (the run goes on)."""
    traceback.print_exc()
    results["failures"][label] = f"{type(error).__name__}: {error}"
    print(f"  [{label}] FAILED: {results['failures'][label]}", flush=True)


def release_loader_memory(device):
    """Ends a dropped loader's workers and returns its GPU memory before the next path runs."""
    gc.collect()  # persistent workers sit in a reference cycle of the loader: end them now
    if device.type == "cuda":
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def make_path(name, data, args, device, max_blocks=0):
    if name == "hostref":
        return HostRefPath(data, args, device)
    if name == "gnndirect":
        return LoaderPath("gnndirect", data, args, device, args.placement, max_blocks, codec=args.codec)
    if name == "graphhbm":  # features as gnndirect's, neighbour lists copied to HBM
        return LoaderPath("graphhbm", data, args, device, args.placement, max_blocks, codec=args.codec,
                          graph_placement="device")
    if name == "gpu":
        return LoaderPath("gpu", data, args, device, "device")
    return NodeLoaderPath(data, args, device, args.placement)


def run_budget_sweep(data, args, device, shape, results):
    """The gnndirect path once per --max-blocks value (thread blocks its preparation may use,
    0: no cap; fewer blocks leave SMs to the training steps that run meanwhile). Every run is kept
    in results["gnndirect_budget_sweep"]; the fastest epoch becomes the gnndirect path."""
    sweep = results.setdefault("gnndirect_budget_sweep", {})
    for budget in args.max_blocks_list:
        record = run_one(f"gnndirect[max_blocks={budget}]",
                         lambda: make_path("gnndirect", data, args, device, budget), data, args,
                         device, shape, results)
        if record is not None:
            record["max_blocks"] = budget
            sweep[str(budget)] = record
    if sweep:
        best = min(sweep.values(), key=lambda r: r["epoch_s_mean"])
        results["paths"]["gnndirect"] = best
        print("  [gnndirect] block budget sweep: " + ", ".join(
            f"{b}: {r['epoch_s_mean']:.3f} s" for b, r in sweep.items()) +
            f"; fastest: {best['max_blocks']}", flush=True)


def run_one(label, factory, data, args, device, shape, results, profile=True):
    """Builds a path and runs it; a failure is recorded and printed, and the run goes on."""
    print(f"path {label}:", flush=True)
    path = None
    try:
        reset_peak_rss()
        t0 = time.perf_counter()
        path = factory()
        setup_s = time.perf_counter() - t0
        setup_peak = peak_rss_bytes()
        record = run_path(path, data, args, device, shape, profile)
        record["setup_s"] = setup_s
        record["peak_rss_setup_bytes"] = setup_peak
        record["peak_rss_bytes"] = peak_rss_bytes()
        record["host_used_bytes"] = host_used_bytes()
        print(f"  [{label}] peak host RSS: {setup_peak / 2**30:.2f} GiB after setup, "
              f"{record['peak_rss_bytes'] / 2**30:.2f} GiB with the epochs; host memory in use "
              f"(MemTotal - MemAvailable): {record['host_used_bytes'] / 2**30:.2f} GiB", flush=True)
        record["oracle"] = getattr(path, "oracle", False)
        if isinstance(path, LoaderPath):
            record["placement"] = path.table.placement
            record["cached_rows"] = path.loader.cached_rows
        return record
    except Exception as error:  # keep going: the other paths still say something
        record_failure(results, label, error)
        return None
    finally:
        path = None
        release_loader_memory(device)


def time_window(path, args, device, shape, timed, warmup):
    """The sweep's short measurement: `warmup` batches through the real loop, then `timed`
    batches timed (wall, CPU core-seconds, and the loop's gaps between train steps: waiting for
    the next batch plus launching its copy), each extrapolated to one epoch. Trains a throwaway
    model (the train steps are part of the loop's time). The window ends with the last timed
    step, before the loader's epoch is cut: cutting it makes persistent workers finish and drop
    the batches they have queued (up to workers x prefetch), which is no part of a full epoch's
    time (counted, it overstated 16 workers by 1.6x). Returns the record."""
    model = make_model(shape["num_features"], args.hidden, shape["num_classes"], len(args.fanouts),
                       args.seed, device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    state = {"count": 0, "gap": 0.0, "t0": None, "last": None, "end": None}

    def start():
        sync(device)
        state["t0"], state["cpu0"] = time.perf_counter(), cpu_seconds()
        state["last"] = state["t0"]

    def finish():
        sync(device)
        state["end"], state["cpu_end"] = time.perf_counter(), cpu_seconds()

    def consume(x, y, blocks):
        if state["last"] is not None:
            state["gap"] += time.perf_counter() - state["last"]
        train_step(model, optimizer, x, y, blocks)
        state["count"] += 1
        if state["count"] == warmup:
            start()
        elif state["last"] is not None:
            state["last"] = time.perf_counter()
        if state["count"] == warmup + timed:
            finish()

    if warmup == 0:
        start()
    with training_stream(args, device):
        path.epoch(10_000, consume, max_batches=warmup + timed)
    done = state["count"] - warmup
    if done <= 0:
        raise RuntimeError(f"{path.name}: no batch left to time after the warm-up")
    if state["end"] is None:  # the epoch had fewer batches than warm-up + window
        finish()
    wall, cpu = state["end"] - state["t0"], state["cpu_end"] - state["cpu0"]
    per_epoch = num_batches(shape["num_train"], args.batch_size)
    scale = per_epoch / done
    return {"extrapolated": True, "warmup_batches": warmup, "timed_batches": done, "timed_s": wall,
            "batches_per_epoch": per_epoch,
            "epoch_s_mean": wall * scale, "cpu_core_s_mean": cpu * scale,
            "loop_split_s": {"wait_s": state["gap"] * scale}, "test_acc": None, "epochs": []}


def sweep_factory(kind, data, args, device):
    """(worker counts, factory(workers) -> path, extra JSON fields of a record) of a sweep."""
    if kind == "pyg":
        backend, _ = pyg_backend()
        return args.pyg_workers, (lambda w: PygPath(data, args, device, w)), (
            lambda w: {"backend": backend, "pin_memory": device.type == "cuda",
                       "persistent_workers": w > 0})
    return args.pygfast_workers, (lambda w: PygFastPath(data, args, device, w)), (
        lambda w: {"backend": "gnndirect host::cpu_sampler (GnnDirectCpuSampler)",
                   "sampler_threads": max(1, host_cores() // max(1, w)),
                   "pin_memory": device.type == "cuda", "persistent_workers": w > 0})


def run_window_sweep(kind, counts, factory, data, args, device, shape, results):
    """Times every count over --pyg-sweep-batches batches; records keyed by count."""
    n = args.pyg_sweep_batches
    per_epoch = num_batches(shape["num_train"], args.batch_size)
    estimates = {}
    for workers in counts:
        label = f"{kind}[w={workers}]"
        warmup = sweep_warmup(args.warmup_batches, n, workers, per_epoch)
        print(f"path {label} (sweep: {n} batches timed after {warmup} warm-up, "
              "extrapolated to an epoch):", flush=True)
        path = None
        try:
            t0 = time.perf_counter()
            path = factory(workers)
            setup_s = time.perf_counter() - t0
            record = time_window(path, args, device, shape, n, warmup)
            record["setup_s"] = setup_s
            estimates[workers] = record
            print(f"  [{label}] ~{record['epoch_s_mean']:.2f} s/epoch (extrapolated from "
                  f"{record['timed_batches']} batches in {record['timed_s']:.2f} s)", flush=True)
        except Exception as error:  # keep going: the other counts still say something
            record_failure(results, label, error)
        finally:
            path = None
            release_loader_memory(device)
    if not estimates:
        return {}
    best = min(estimates, key=lambda w: estimates[w]["epoch_s_mean"])
    print(f"  {kind} sweep: fastest num_workers={best}; it trains the full {args.epochs} epoch(s)",
          flush=True)
    full = run_one(f"{kind}[w={best}]", lambda: factory(best), data, args, device, shape, results)
    if full is not None:
        full.update(extrapolated=False, sweep_estimate_s=estimates[best]["epoch_s_mean"],
                    sweep_timed_batches=estimates[best]["timed_batches"])
        estimates[best] = full
    return estimates


def run_sweep(kind, data, args, device, shape, results):
    """A CPU-centric loader (pyg or pygfast) for each of its num_workers counts; the fastest
    count that trained full epochs is paths[kind]. See the module docstring for the modes."""
    if kind == "pyg":
        backend, reason = pyg_backend()
        if backend is None:
            results["skipped"]["pyg"] = reason
            print(f"path pyg: SKIPPED: {reason}", flush=True)
            return
    counts, factory, extra = sweep_factory(kind, data, args, device)
    per_epoch = num_batches(shape["num_train"], args.batch_size)
    windowed = (args.pyg_sweep_batches > 0 and len(counts) > 1 and
                args.warmup_batches + args.pyg_sweep_batches <= per_epoch)
    if args.pyg_sweep_batches > 0 and len(counts) > 1 and not windowed:
        print(f"  {kind} sweep: an epoch has {per_epoch} batches < {args.warmup_batches} warm-up + "
              f"{args.pyg_sweep_batches} timed: every count trains full epochs", flush=True)
    sweep = {}
    if windowed:
        sweep = run_window_sweep(kind, counts, factory, data, args, device, shape, results)
    else:
        for workers in counts:
            profiled = any("split_per_epoch_s" in r for r in sweep.values())
            record = run_one(f"{kind}[w={workers}]", lambda: factory(workers), data, args, device,
                             shape, results, profile=not profiled)
            if record is not None:
                record["extrapolated"] = False
                sweep[workers] = record
    for workers, record in sweep.items():
        record.update(num_workers=workers, **extra(workers))
    results[f"{kind}_sweep"] = {str(w): r for w, r in sweep.items()}
    full = {w: r for w, r in sweep.items() if not r["extrapolated"]}
    if not full:
        return
    best = dict(full[min(full, key=lambda w: full[w]["epoch_s_mean"])])
    for r in full.values():  # the serial profile is per batch in this process: any count's
        if "split_per_epoch_s" in r and "split_per_epoch_s" not in best:
            best["split_per_epoch_s"] = r["split_per_epoch_s"]
    results["paths"][kind] = best
    print(f"  {kind} best: num_workers={best['num_workers']} ({best['epoch_s_mean']:.2f} s/epoch, "
          f"{best['backend']})", flush=True)


def ratio(base, r):
    """(speedup, CPU core-seconds ratio) of record r against record base (None for oracles)."""
    if base is None or r.get("oracle"):
        return None, None
    cpu = r["cpu_core_s_mean"] / base["cpu_core_s_mean"] if base["cpu_core_s_mean"] > 0 else None
    return speedup(base["epoch_s_mean"], r["epoch_s_mean"]), cpu


def summarize_vs_gpu(results):
    """Host-memory paths against the all-in-GPU epoch of the same run, and peak host RSS against
    the placed bytes (the full-scale targets: gnndirect <= 1.3x gpu, lists in HBM <= 1.2x, peak
    RSS <= 1.1x placed), in results["vs_gpu"]; printed."""
    gpu = results["paths"].get("gpu")
    peaks = [results.get("generate_peak_rss_bytes", 0)] + [r.get("peak_rss_bytes", 0)
                                                            for r in results["paths"].values()]
    placed = results.get("placed_bytes") or 0
    out = {"peak_rss_bytes": max(peaks), "placed_bytes": placed,
           "peak_rss_over_placed": max(peaks) / placed if placed else None}
    for name in ("gnndirect", "graphhbm"):
        if gpu is not None and name in results["paths"]:
            out[f"{name}_over_gpu"] = results["paths"][name]["epoch_s_mean"] / gpu["epoch_s_mean"]
    results["vs_gpu"] = out
    parts = [f"{k} {v:.2f}" for k, v in out.items()
             if v is not None and (k.endswith("_over_gpu") or k == "peak_rss_over_placed")]
    if parts:
        print("vs all-in-GPU and placed bytes: " + ", ".join(parts), flush=True)


def summarize(results):
    """Ratios against the best CPU-centric loader (the faster of pyg and pygfast), the table,
    and the target check."""
    candidates = {k: results["paths"][k] for k in CPU_CENTRIC if k in results["paths"]}
    base_kind = min(candidates, key=lambda k: candidates[k]["epoch_s_mean"]) if candidates else None
    base = candidates.get(base_kind)
    if base is not None:
        results["baseline"] = {
            "path": base_kind, "num_workers": base["num_workers"], "epoch_s": base["epoch_s_mean"],
            "backend": base["backend"], "candidates": {k: {"num_workers": r["num_workers"],
                                                           "epoch_s": r["epoch_s_mean"]}
                                                       for k, r in candidates.items()},
            "rule": "fastest full-epoch time among the best pyg (NeighborLoader) and the best "
                    "pygfast (NodeLoader + gnndirect's fast CPU sampler) loaders"}
    records = list(results["paths"].values())
    for kind in CPU_CENTRIC:
        records += list(results.get(f"{kind}_sweep", {}).values())
    records += list(results.get("gnndirect_budget_sweep", {}).values())
    for r in records:
        # speedup_vs_pyg: against the baseline, the best CPU-centric PyG loader (either kind)
        r["speedup_vs_pyg"], r["cpu_core_s_vs_pyg"] = ratio(base, r)
        r["speedup_vs"] = {k: ratio(c, r)[0] for k, c in candidates.items()}
    rows = []
    labelled = []
    for kind in CPU_CENTRIC:
        best_w = results["paths"].get(kind, {}).get("num_workers")
        for w, r in results.get(f"{kind}_sweep", {}).items():
            tag = (" (extrap.)" if r["extrapolated"] else "") + (" (best)" if r["num_workers"] == best_w
                                                                and not r["extrapolated"] else "")
            if kind == base_kind and r["num_workers"] == best_w and not r["extrapolated"]:
                tag += " BASELINE"
            labelled.append((f"{kind} w={w}{tag}", r))
    budgets = results.get("gnndirect_budget_sweep", {})
    for b, r in budgets.items():
        best = results["paths"].get("gnndirect") is r
        labelled.append((f"gnndirect max_blocks={b}" + (" (best)" if best else ""), r))
    labelled += [(name + (" (oracle)" if r.get("oracle") else ""), r)
                 for name, r in results["paths"].items()
                 if name not in CPU_CENTRIC and not (name == "gnndirect" and budgets)]
    for label, r in labelled:
        loop, split = r["loop_split_s"], r.get("split_per_epoch_s", {})
        rows.append([label, r["epoch_s_mean"], loop.get("wait_s", "-"), loop.get("h2d_s", "-"),
                     loop.get("train_s", "-"), split.get("sample_s", "-"), split.get("gather_s", "-"),
                     split.get("h2d_s", "-"), r["cpu_core_s_mean"],
                     "-" if r["test_acc"] is None else r["test_acc"],
                     "-" if r["speedup_vs_pyg"] is None else f"{r['speedup_vs_pyg']:.2f}x"])
    if base and "gnndirect" in results["paths"]:
        g = results["paths"]["gnndirect"]
        s = g["speedup_vs_pyg"]
        results["target"] = {"baseline": f"{base_kind} num_workers={base['num_workers']}",
                             "speedup_vs_pyg": s, "speedup_vs": g["speedup_vs"],
                             "min_1_6x": s >= 1.6, "aim_3x": s >= 3.0,
                             "fewer_cpu_core_s": g["cpu_core_s_mean"] < base["cpu_core_s_mean"],
                             "test_acc_delta": g["test_acc"] - base["test_acc"]}
    summarize_vs_gpu(results)
    print()
    print(format_table(["path", "epoch_s", "wait_s", "h2d_s", "train_s", "sample_s*", "gather_s*",
                        "h2d_s*", "cpu_core_s", "test_acc", "vs_base"], rows))
    print("epoch_s, wait_s (loop blocked on the next batch), h2d_s and train_s (GPU time of the "
          "loop's copies and steps): the real, overlapped loop, per epoch; cpu_core_s: process + "
          "workers.\n(extrap.): timed over --pyg-sweep-batches batches and scaled to an epoch (its "
          "wait_s also holds the copies' launch).\n* serial profile (each stage alone, one process) "
          "scaled to one epoch; the same for every worker count of a loader.")
    if base is None:
        why = results["skipped"] or results["failures"]
        print(f"NO BASELINE: neither pyg nor pygfast trained full epochs ({why}); no ratios")
    else:
        others = ", ".join(f"{k} w={c['num_workers']} {c['epoch_s_mean']:.2f} s"
                           for k, c in candidates.items())
        print(f"vs_base: against the best CPU-centric loader, {base_kind} num_workers="
              f"{base['num_workers']} ({base['epoch_s_mean']:.2f} s/epoch); candidates: {others}. "
              "JSON: speedup_vs_pyg (against it) and speedup_vs (against each).")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=sys.modules[__package__].__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--shape", choices=sorted(SHAPES), default="products",
                   help="dataset the generated graph is shaped like (sizes, features, classes, split)")
    p.add_argument("--scale", type=float, default=1.0,
                   help="graph size relative to --shape (papers100m at 1: features and indices "
                        "are created straight in their host placement, ~70 GB placed; the "
                        "host needs about 1.1x that, see docs/integration-pytorch.md)")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--paths", default="pyg,pygfast,gnndirect,nodeloader,gpu",
                   help=f"comma list of {','.join(PATHS)} (pyg and pygfast first: their workers "
                        "fork before any gnndirect table exists)")
    p.add_argument("--pyg-workers", default="0,4,8,16", help="num_workers counts of the pyg sweep")
    p.add_argument("--pygfast-workers", default="0,4", help="num_workers counts of the pygfast sweep")
    p.add_argument("--pyg-sweep-batches", type=int, default=48,
                   help="time each sweep count (pyg, pygfast) over this many batches after the "
                        "warm-up, extrapolated; only the fastest trains full epochs (0: every "
                        "count trains full epochs)")
    p.add_argument("--fanouts", default="15,10,5")
    p.add_argument("--batch-size", type=int, default=1024)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--lr", type=float, default=0.003)
    p.add_argument("--placement", default="auto", help="placement of the gnndirect path's table and graph")
    p.add_argument("--train-priority", choices=("default", "high"), default="default",
                   help="stream the training steps run on: torch's current one, or one of the "
                        "highest priority (preparation kernels then yield SMs between blocks)")
    p.add_argument("--max-blocks", dest="max_blocks_list", default="0",
                   help="comma list: thread-block caps of the gnndirect path's preparation, one run "
                        "each, the fastest reported as gnndirect (0: no cap)")
    p.add_argument("--gnndirect-workers", type=int, default=0,
                   help="host threads of the gnndirect path's pipeline (0: the library's default, 2)")
    p.add_argument("--gather-blocks", type=int, default=0,
                   help="thread-block cap of the gnndirect path's feature gathers (0: the gather "
                        "selector's 32 for host memory; more help preparation alone but take SMs "
                        "from training, docs/performance.md §4)")
    p.add_argument("--cache-fraction", type=float, default=0.0, help="device cache tier of the gnndirect path")
    p.add_argument("--hostref-prefetch", type=int, default=1, help="prefetch depth of hostref (0: serial)")
    p.add_argument("--warmup-batches", type=int, default=8)
    p.add_argument("--profile-batches", type=int, default=16)
    p.add_argument("--eval-nodes", type=int, default=100_000)
    p.add_argument("--eval-batch-size", type=int, default=4096)
    p.add_argument("--signal", type=float, default=0.2, help="centroid scale of the features")
    p.add_argument("--p-in", type=float, default=0.5, help="share of in-neighbours from the own community")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", default=None, help="write the results here")
    p.add_argument("--codec", default="none", choices=CODEC_CHOICES,
                   help="row codec of the gnndirect and nodeloader paths' feature table (none: stored "
                        "as generated, fp32; fp32: the identity codec; fp16/bf16/int8/fp8/int4: "
                        "encoded on the host, decoded inside the gather)")
    p.add_argument("--features", default="realistic", choices=("realistic", "gaussian"),
                   help="synthetic feature model (see the module doc)")
    p.add_argument("--smoke-cpu", action="store_true",
                   help="no GPU: run the pyg, pygfast, hostref and nodeloader (host-reference mode) "
                        "paths on the CPU")
    args = p.parse_args(argv)
    args.codec = None if args.codec == "none" else args.codec
    args.fanouts = [int(f) for f in args.fanouts.split(",")]
    args.pyg_workers = [int(w) for w in args.pyg_workers.split(",") if w.strip()]
    args.pygfast_workers = [int(w) for w in args.pygfast_workers.split(",") if w.strip()]
    args.paths = [s.strip() for s in args.paths.split(",") if s.strip()]
    args.max_blocks_list = [int(b) for b in args.max_blocks_list.split(",") if b.strip()]
    unknown = set(args.paths) - set(PATHS)
    if unknown:
        p.error(f"unknown paths {sorted(unknown)}; choose from {', '.join(PATHS)}")
    if any(w < 0 for w in args.pyg_workers) or ("pyg" in args.paths and not args.pyg_workers):
        p.error("--pyg-workers needs one or more counts >= 0")
    if any(w < 0 for w in args.pygfast_workers) or ("pygfast" in args.paths and not args.pygfast_workers):
        p.error("--pygfast-workers needs one or more counts >= 0")
    if not args.max_blocks_list or any(b < 0 for b in args.max_blocks_list):
        p.error("--max-blocks needs one or more counts >= 0")
    if args.gather_blocks < 0 or args.gnndirect_workers < 0:
        p.error("--gather-blocks and --gnndirect-workers must be >= 0")
    if args.pyg_sweep_batches < 0 or args.warmup_batches < 0:
        p.error("--pyg-sweep-batches and --warmup-batches must be >= 0")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.smoke_cpu:
        device = torch.device("cpu")
        args.paths = [p for p in args.paths if p in ("pyg", "pygfast", "hostref", "nodeloader")]
    else:
        if not torch.cuda.is_available():
            print("train_graphsage.py needs a CUDA GPU (or --smoke-cpu)", file=sys.stderr)
            return 2
        device = torch.device("cuda", torch.cuda.current_device())
    gd.load_extension()
    torch_scatter_use = keep_pyg_scatter_native()
    shape = SHAPES[args.shape](args.scale)
    shape["num_test"] = min(shape["num_test"], args.eval_nodes)
    print(f"graph ({args.shape} x{args.scale:g}): {shape['num_nodes']:,} nodes, "
          f"~{shape['num_edges']:,} edges, "
          f"{shape['num_features']} fp32 features, {shape['num_classes']} classes; "
          f"paths {args.paths}; fanouts {args.fanouts}, batch {args.batch_size}", flush=True)
    t0 = time.perf_counter()
    # Features and indices are created straight in the gnndirect path's host placement (no second
    # copy: its Table and Graph adopt them); 'registered' and 'device' start from plain CPU
    # tensors ('registered' pins them in place; 'device' copies them to HBM). With a CPU-centric
    # baseline in the run they stay pageable too: its DataLoader workers are forked processes,
    # and a forked child cannot rely on reading CUDA managed memory.
    host_used_before = host_used_bytes()
    placement = args.placement if args.placement in ("auto", "pinned", "managed_host") else None
    if placement is not None and any(p in CPU_CENTRIC for p in args.paths):
        print("note: pyg/pygfast in --paths: features and graph generated in pageable memory "
              "(the gnndirect path copies them); run --paths gnndirect,gpu for no second copy",
              flush=True)
        placement = None
    reset_peak_rss()
    data = generate(shape, args.seed, device if device.type == "cuda" else torch.device("cpu"),
                    args.signal, args.p_in, placement if device.type == "cuda" else None,
                    features=args.features)
    if device.type == "cuda":
        torch.cuda.empty_cache()
    gen_s = time.perf_counter() - t0
    indptr, indices, x, y, train, test = data
    placed_bytes = x.numel() * x.element_size() + indices.numel() * indices.element_size()
    print(f"generated in {gen_s:.1f} s: {indices.shape[0]:,} edges, {train.shape[0]:,} train, "
          f"{test.shape[0]:,} test nodes; features + indices {placed_bytes / 2**30:.2f} GiB"
          + (f" in {gd.placement_of(x) if placement else 'pageable'} memory" if device.type == "cuda" else "")
          + f"; peak host RSS {peak_rss_bytes() / 2**30:.2f} GiB; host memory in use grew by "
          f"{(host_used_bytes() - host_used_before) / 2**30:.2f} GiB", flush=True)

    # One evaluator for every path (fixed seeds): over the placed data itself when generate()
    # placed it (no copy, host or HBM), else a GPU-resident copy.
    if device.type == "cuda" and placement is not None:
        args.eval_graph = gd.Graph(indptr, indices, placement="auto")
        args.eval_x = gd.Table(x, placement="auto")
    elif device.type == "cuda":
        args.eval_graph = gd.Graph(indptr, indices, placement="device")
        args.eval_x = gd.Table(x, placement="device")
    else:
        args.eval_graph, args.eval_x = (indptr, indices), x

    results = {"config": {k: v for k, v in vars(args).items() if k not in ("eval_graph", "eval_x")},
               "shape": shape, "generate_s": gen_s, "placed_bytes": placed_bytes,
               "generate_peak_rss_bytes": peak_rss_bytes(),
               "host_used_before_bytes": host_used_before, "host_used_after_generate_bytes": host_used_bytes(), "cpu_meter": CPU_METER, "paths": {},
               "pyg_sweep": {}, "pygfast_sweep": {}, "skipped": {}, "failures": {},
               "machine": {"python": platform.python_version(), "torch": torch.__version__,
                           "cpu_count": os.cpu_count(), "torch_scatter": torch_scatter_use,
                           "gpu": torch.cuda.get_device_name(device) if device.type == "cuda" else None}}
    if psutil is None:
        print(f"note: CPU meter is {CPU_METER}", flush=True)
    for name in args.paths:
        if name in CPU_CENTRIC:
            run_sweep(name, data, args, device, shape, results)
        elif name == "gnndirect" and args.max_blocks_list != [0]:
            run_budget_sweep(data, args, device, shape, results)
        else:
            record = run_one(name, lambda: make_path(name, data, args, device), data, args, device,
                             shape, results)
            if record is not None:
                results["paths"][name] = record
        if args.json:  # partial results survive a later failure or timeout
            with open(args.json, "w") as out:
                json.dump(results, out, indent=2, default=str)
    summarize(results)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=2, default=str)
        print(f"wrote {args.json}")
    for name, why in results["skipped"].items():
        print(f"skipped paths: {name}: {why}", file=sys.stderr)
    if results["failures"]:
        print(f"failed paths: {results['failures']}", file=sys.stderr)
        return 1
    return 0
