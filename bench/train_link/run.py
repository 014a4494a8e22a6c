"""The run: the command line, each path's warm-up and timed epochs, the evaluation, the summary
table, the AUC check and the JSON (see the package doc)."""

from __future__ import annotations

import argparse
import copy
import gc
import json
import os
import platform
import statistics
import sys
import time
import traceback

import torch

import gnndirect_torch as gd
from gnndirect_torch._util import format_table, products_shape

from train_graphsage.loaders import keep_pyg_scatter_native, pyg_backend
from train_graphsage.measure import CPU_METER, cpu_seconds, sync

from .data import make_link_data
from .model import LinkEvaluator, make_model, train_step
from .paths import SEED_EDGES_NOTE, GdLinkPath, PygLinkPath, StoresPath

PATHS = ("gnndirect", "gpu", "stores", "pyg", "gnndirect-cpu")

#: --codec values: none (the table as generated) and gnndirect_torch.Table's row codecs.
CODEC_CHOICES = ("none", "fp32", "fp16", "bf16", "int8", "fp8", "int4")

#: What --smoke-cpu sets for the options not given on the command line (a tiny, learnable run).
SMOKE_DEFAULTS = {"scale": 0.002, "epochs": 3, "epoch_edges": 16384, "hidden": 64, "eval_edges": 1000,
                  "mrr_negatives": 50, "workers": 0, "warmup_batches": 2, "p_in": 0.9, "threads": 1}

#: The defaults of a GPU run for those options.
RUN_DEFAULTS = {"scale": 1.0, "epochs": 3, "epoch_edges": 262_144, "hidden": 256, "eval_edges": 10_000,
                "mrr_negatives": 100, "workers": 16, "warmup_batches": 8, "p_in": 0.8, "threads": 0}


def median(values):
    """The median of `values` (NaN when empty)."""
    values = list(values)
    return statistics.median(values) if values else float("nan")


def run_path(path, data, evaluator, args, device):
    """Warm-up on a throwaway copy of the model, ``args.epochs`` timed epochs, then the
    evaluation. Returns the path's record."""
    model = make_model(data.x.shape[1], args.hidden, len(args.fanouts), args.seed, device, data.stats)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    state = {"model": copy.deepcopy(model), "losses": []}
    state["optimizer"] = torch.optim.Adam(state["model"].parameters(), lr=args.lr)

    def consume(x, blocks, edge_label_index, edge_label):
        state["losses"].append(train_step(state["model"], state["optimizer"], x, blocks, edge_label_index,
                                          edge_label))

    if args.warmup_batches > 0:  # kernels, allocator, pools and worker processes; not timed
        path.epoch(consume, max_batches=args.warmup_batches)
        sync(device)
    state.update(model=model, optimizer=optimizer)
    epochs = []
    for epoch in range(args.epochs):
        state["losses"] = []
        sync(device)
        wall0, cpu0 = time.perf_counter(), cpu_seconds()
        times = path.epoch(consume)
        sync(device)
        wall = time.perf_counter() - wall0
        losses = state["losses"]
        entry = {"epoch_s": wall, "cpu_core_s": cpu_seconds() - cpu0, "wait_s": times["wait_s"],
                 "batches": len(losses), "mean_loss": float(torch.stack(losses).mean()) if losses else float("nan")}
        entry["loader_share"] = entry["wait_s"] / wall if wall > 0 else 0.0
        epochs.append(entry)
        print(f"  [{path.name}] epoch {epoch}: {wall:.2f} s (waited {entry['wait_s']:.2f} s for batches), "
              f"{entry['cpu_core_s']:.1f} CPU core-s, loss {entry['mean_loss']:.4f}", flush=True)
    record = {"epochs": epochs, "median_epoch_s": median(e["epoch_s"] for e in epochs),
              "median_cpu_core_s": median(e["cpu_core_s"] for e in epochs),
              "median_wait_s": median(e["wait_s"] for e in epochs),
              "loader_share": median(e["loader_share"] for e in epochs),
              "final_loss": epochs[-1]["mean_loss"] if epochs else float("nan"),
              "setup_s": path.setup_s, "seed_edges_excluded": False, "seed_edges_note": SEED_EDGES_NOTE,
              **path.info}
    record["edges_per_s"] = data.train_edges.shape[1] / record["median_epoch_s"] if epochs else float("nan")
    t0 = time.perf_counter()
    record.update(evaluator.evaluate(model, path.eval_table))
    record["eval_s"] = time.perf_counter() - t0
    record["eval_features"] = "the path's own (decoded) table" if path.eval_table is not None else "fp32"
    print(f"  [{path.name}] test AUC {record['test_auc']:.4f}, MRR {record['test_mrr']:.4f} "
          f"(eval {record['eval_s']:.1f} s)", flush=True)
    return record


def make_path(name, data, args, device):
    """The path object of `name` (see the package doc)."""
    if name == "pyg":
        return PygLinkPath(data, args, device)
    if name == "stores":
        return StoresPath(data, args, device, args.placement, args.codec)
    if name == "gpu":
        return GdLinkPath("gpu", data, args, device, placement="device")
    return GdLinkPath(name, data, args, device, placement=args.placement, codec=args.codec)


def skip_reason(name, device):
    """Why `name` cannot run here, or None."""
    if name in ("gnndirect", "gpu") and device.type != "cuda":
        return "needs a GPU"
    if name in ("pyg", "stores"):
        try:
            import torch_geometric  # noqa: F401
        except ImportError as error:
            return f"torch_geometric is not importable ({error})"
    if name == "pyg":
        backend, why = pyg_backend()
        if backend is None:
            return why
    return None


def summarize(results, min_auc, min_gain):
    """Prints the table; marks each record with its AUC check (``auc_ok``: test AUC above
    `min_auc` and at least `min_gain` above the untrained model's, ``auc_gain``) and returns
    the paths that failed it."""
    rows, bad = [], []
    untrained = results["untrained"]["test_auc"]
    for name, r in results["paths"].items():
        if "skipped" in r:
            rows.append([name, "skipped (JSON: why)"] + ["-"] * 7)
            continue
        r["auc_gain"] = r["test_auc"] - untrained
        r["auc_ok"] = r["test_auc"] > min_auc and r["auc_gain"] >= min_gain
        if not r["auc_ok"]:
            bad.append(name)
        rows.append([name, r["median_epoch_s"], r["median_wait_s"], r["loader_share"], r["median_cpu_core_s"],
                     r["edges_per_s"], r["test_auc"], r["test_mrr"], r.get("backend") or "-"])
    print()
    print(format_table(["path", "epoch_s", "wait_s", "loader_share", "cpu_core_s", "edges/s", "test_auc",
                        "test_mrr", "backend"], rows))
    print(f"epoch_s, wait_s, cpu_core_s: medians over the epochs; loader_share = wait_s / epoch_s; "
          f"AUC check: > {min_auc} and >= {min_gain} above the untrained model's {untrained:.4f}")
    return bad


def parse_args(argv=None):
    """The command line (see the package doc); --smoke-cpu fills SMOKE_DEFAULTS, other runs
    RUN_DEFAULTS, for the options not given."""
    p = argparse.ArgumentParser(description=sys.modules[__package__].__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scale", type=float, help="of the products shape (default 1; smoke 0.002)")
    p.add_argument("--paths", default=",".join(PATHS), help=f"comma list of {', '.join(PATHS)}")
    p.add_argument("--epochs", type=int, help="timed epochs (default 3)")
    p.add_argument("--epoch-edges", type=int, help="supervision edges per epoch (default 262144; 0: all)")
    p.add_argument("--batch-size", type=int, default=1024, help="positive seed edges per batch")
    p.add_argument("--fanouts", default="15,10,5")
    p.add_argument("--neg-ratio", type=float, default=1.0, help="binary negatives per positive")
    p.add_argument("--hidden", type=int, help="encoder width (default 256; smoke 64)")
    p.add_argument("--lr", type=float, default=0.003)
    p.add_argument("--test-ratio", type=float, default=0.05, help="share of the edges held out for testing")
    p.add_argument("--disjoint-train-ratio", type=float, default=0.0,
                   help="share of the training edges kept out of message passing, supervised on alone")
    p.add_argument("--eval-edges", type=int, help="test positives evaluated (default 10000)")
    p.add_argument("--mrr-negatives", type=int, help="random destinations per test positive (default 100)")
    p.add_argument("--eval-batch-size", type=int, default=4096)
    p.add_argument("--workers", type=int, help="the pyg path's DataLoader processes (default 16)")
    p.add_argument("--placement", default="auto", help="of the gnndirect and stores paths' table and graph")
    p.add_argument("--codec", default="none", choices=CODEC_CHOICES,
                   help="row codec of the gnndirect and stores paths' table (decoded inside the gather)")
    p.add_argument("--warmup-batches", type=int, help="untimed batches first (default 8)")
    p.add_argument("--side-stream", default="on", choices=("on", "off"),
                   help="gd.LinkNeighborLoader prepares batches on its own stream (on) or the caller's (off)")
    p.add_argument("--signal", type=float, default=1.0, help="scale of the community signal in the features")
    p.add_argument("--p-in", type=float, help="share of in-neighbours from the own community (default 0.8)")
    p.add_argument("--features", default="realistic", choices=("realistic", "gaussian"))
    p.add_argument("--threads", type=int,
                   help="torch intra-op threads of this process (0: torch's default; smoke: 1)")
    p.add_argument("--min-auc", type=float, default=0.6, help="a path's test AUC must exceed this (exit 1)")
    p.add_argument("--min-auc-gain", type=float, default=0.03,
                   help="and exceed the untrained model's by at least this much (a random encoder "
                        "already ranks community edges above chance; exit 1)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--smoke-cpu", action="store_true", help="no GPU: a tiny graph, every path on the CPU")
    p.add_argument("--json", default=None, help="write the results here")
    args = p.parse_args(argv)
    for key, value in (SMOKE_DEFAULTS if args.smoke_cpu else RUN_DEFAULTS).items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    args.codec = None if args.codec == "none" else args.codec
    args.fanouts = [int(f) for f in args.fanouts.split(",") if f.strip()]
    args.paths = [s.strip() for s in args.paths.split(",") if s.strip()]
    unknown = set(args.paths) - set(PATHS)
    if unknown:
        p.error(f"unknown paths {sorted(unknown)}; choose from {', '.join(PATHS)}")
    if not 0 < args.test_ratio < 1 or not 0 <= args.disjoint_train_ratio < 1:
        p.error("--test-ratio must be in (0, 1) and --disjoint-train-ratio in [0, 1)")
    if min(args.epochs, args.eval_edges, args.mrr_negatives, args.batch_size) < 1 or args.workers < 0:
        p.error("--epochs, --eval-edges, --mrr-negatives, --batch-size must be >= 1, --workers >= 0")
    return args


def write_json(results, path) -> bool:
    """Writes the results so far to ``path`` (when given); True when written."""
    if not path:
        return False
    with open(path, "w") as out:
        json.dump(results, out, indent=2, default=str)
    return True


def main(argv=None):
    """Runs the benchmark; 0 when every path that ran passed the AUC check, 1 otherwise (also
    for a failed path), 2 without a GPU and without --smoke-cpu."""
    # line by line even into a file: a run cut off by a time limit keeps the paths it finished
    sys.stdout.reconfigure(line_buffering=True)
    args = parse_args(argv)
    if args.smoke_cpu:
        device = torch.device("cpu")
    elif not torch.cuda.is_available():
        print("train_link.py needs a CUDA GPU (or --smoke-cpu)", file=sys.stderr)
        return 2
    else:
        device = torch.device("cuda", torch.cuda.current_device())
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    gd.load_extension()
    scatter = keep_pyg_scatter_native()
    shape = products_shape(args.scale)
    t0 = time.perf_counter()
    data = make_link_data(shape, args, device)
    gen_s = time.perf_counter() - t0
    info = data.summary()
    print(f"graph (products x{args.scale:g}): {info['num_nodes']:,} nodes, {info['num_edges_generated']:,} edges "
          f"({info['num_edges_distinct']:,} distinct: {info['num_message_passing_edges']:,} message passing, "
          f"{info['num_test_edges']:,} test), "
          f"{info['num_features']} features; {info['epoch_edges']:,} supervision edges per epoch, batch "
          f"{args.batch_size}, fanouts {args.fanouts}; generated in {gen_s:.1f} s", flush=True)
    where = {"placement": "device"} if device.type == "cuda" else {"device": "cpu"}
    evaluator = LinkEvaluator(gd.Graph(data.indptr, data.indices, **where), gd.Table(data.x, **where),
                              args.fanouts, args.eval_batch_size, data.test_edges, data.test_negatives)
    untrained = make_model(data.x.shape[1], args.hidden, len(args.fanouts), args.seed, device, data.stats)
    baseline = evaluator.evaluate(untrained)  # the initial weights every path starts from
    del untrained
    print(f"untrained model: test AUC {baseline['test_auc']:.4f}, MRR {baseline['test_mrr']:.4f}", flush=True)
    results = {"config": {k: v for k, v in vars(args).items()}, "data": info, "generate_s": gen_s,
               "untrained": baseline,
               "cpu_meter": CPU_METER, "paths": {}, "failures": {},
               "machine": {"python": platform.python_version(), "torch": torch.__version__,
                           "cpu_count": os.cpu_count(), "torch_scatter": scatter,
                           "gpu": torch.cuda.get_device_name(device) if device.type == "cuda" else None}}
    # In the order given. The pyg path's DataLoader workers fork after CUDA is initialised, which
    # is safe (they sample and collate on the CPU; pinning runs in this process); its teardown
    # joins each busy worker for up to 5 s (torch's MP_STATUS_CHECK_INTERVAL), so the default
    # order runs it after the GPU paths and the JSON is written before that teardown.
    for name in args.paths:
        why = skip_reason(name, device)
        if why is not None:
            results["paths"][name] = {"skipped": why}
            if name == "pyg":
                results["paths"][name]["backend"] = None  # PyG samples on the CPU with none here
            print(f"path {name}: SKIPPED: {why}", flush=True)
            continue
        print(f"path {name}:", flush=True)
        path = None
        try:
            path = make_path(name, data, args, device)
            results["paths"][name] = run_path(path, data, evaluator, args, device)
            write_json(results, args.json)  # before the teardown below: a cut run keeps this path
        except Exception as error:  # keep going: the other paths still say something
            traceback.print_exc()
            results["failures"][name] = f"{type(error).__name__}: {error}"
            print(f"  [{name}] FAILED: {results['failures'][name]}", flush=True)
        finally:
            path = None
            gc.collect()  # persistent workers sit in a reference cycle of the loader: end them now
            if device.type == "cuda":
                torch.cuda.empty_cache()
        write_json(results, args.json)  # partial results survive a later failure or timeout
    bad = summarize(results, args.min_auc, args.min_auc_gain)
    results["auc_check"] = {"min_auc": args.min_auc, "min_auc_gain": args.min_auc_gain, "failed": bad}
    if write_json(results, args.json):
        print(f"wrote {args.json}")
    if bad:
        print(f"AUC CHECK FAILED: {bad}: test AUC at or below {args.min_auc}, or less than "
              f"{args.min_auc_gain} above the untrained model's (a broken path?)", file=sys.stderr)
    if results["failures"]:
        print(f"failed paths: {results['failures']}", file=sys.stderr)
    return 1 if bad or results["failures"] else 0
