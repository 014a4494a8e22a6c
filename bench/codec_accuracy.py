#!/usr/bin/env python3
"""GraphSAGE accuracy and epoch time per feature codec, same seeds, side by side.

Runs bench/train_graphsage.py once per codec (a fresh process each, so that each
codec's peak host RSS is its own), gnndirect path only (features in host memory, placement
auto), with the same graph, features, model initialisation, shuffle and sampling seeds; the
first run also trains the all-in-GPU fp32 path ("gpu": graph and features in HBM), the reference
of the epoch-time targets. Prints one table and writes JSON:

    {"shape", "scale", "args", "runs": {codec: {"test_acc", "test_acc_fp32_features",
     "acc_delta_vs_fp32", "epoch_s", "epoch_vs_gpu_fp32", "peak_rss_bytes", "codec": {max_abs,
     mean_abs, relative (worst column), table_bytes, device_bytes}}}, "gpu_fp32": {...}}

test_acc is measured on the features the model trained on (decoded from the codec), as a
deployment reading the same encoded table would see them; test_acc_fp32_features on the
original fp32 features. peak_rss_bytes is the training process's peak host RSS: it includes the
generated fp32 features (train_graphsage.py keeps them for the fp32 evaluation), so the codec's
own footprint is codec.table_bytes (encoded rows in host memory) and codec.device_bytes
(per-row metadata and cache tier in HBM), not the RSS difference.

    python bench/codec_accuracy.py --shape products --epochs 3 --json codec_products.json
    python bench/codec_accuracy.py --shape papers100m --scale 0.25 --epochs 2 --json codec_papers.json
    python bench/codec_accuracy.py --codecs fp32,int8 -- --cache-fraction 0.2   # extra train_graphsage args

What it shows: on synthetic features built to look like real embeddings (low-rank class signal,
heavy-tailed noise, column scales over 2.5 decades: see train_graphsage.py --help / module doc),
how much test accuracy each codec costs against fp32 and what it buys in epoch time and memory.
What it cannot show: the cost on a real dataset's features (their spectrum and outliers differ);
accuracy differences below the run-to-run spread of one seed (use --seeds for several).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TRAIN = os.path.join(HERE, "train_graphsage.py")

#: Codecs train_graphsage.py --codec accepts (besides none).
CODECS = ("fp32", "fp16", "bf16", "int8", "fp8", "int4")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="Arguments after -- go to train_graphsage.py unchanged.")
    p.add_argument("--shape", default="products", help="train_graphsage.py --shape (products, papers100m, ...)")
    p.add_argument("--scale", type=float, default=1.0, help="train_graphsage.py --scale")
    p.add_argument("--codecs", default="fp32,bf16,int8,fp8,int4",
                   help="comma-separated codecs, fp32 first (the reference of the deltas)")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--seeds", default="0", help="comma-separated seeds; results are averaged over them")
    p.add_argument("--no-gpu-reference", action="store_true",
                   help="skip the all-in-GPU fp32 path (the epoch-time reference)")
    p.add_argument("--features", default="realistic", choices=("realistic", "gaussian"))
    p.add_argument("--json", default=None, help="write the results here")
    p.add_argument("--dry-run", action="store_true", help="print the commands only")
    argv = sys.argv[1:] if argv is None else list(argv)
    extra = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1:]
    args = p.parse_args(argv)
    args.extra = extra
    args.codecs = [c.strip() for c in args.codecs.split(",") if c.strip()]
    unknown = [c for c in args.codecs if c not in CODECS]
    if unknown or not args.codecs:
        p.error(f"unknown codecs {unknown}; choose from {', '.join(CODECS)}")
    args.seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    if not args.seeds or args.epochs < 1:
        p.error("--seeds needs one or more integers and --epochs >= 1")
    return args


def command(args, codec, seed, paths, out):
    """The train_graphsage.py command line of one run."""
    return [sys.executable, TRAIN, "--shape", args.shape, "--scale", str(args.scale), "--epochs",
            str(args.epochs), "--paths", paths, "--codec", codec, "--seed", str(seed),
            "--features", args.features, "--json", out, *args.extra]


def run(cmd):
    """Runs one training process (output streamed); returns its JSON or raises."""
    print("+ " + " ".join(cmd), flush=True)
    done = subprocess.run(cmd)
    out = cmd[cmd.index("--json") + 1]
    if done.returncode != 0 or not os.path.exists(out):
        raise RuntimeError(f"train_graphsage.py exited with {done.returncode}")
    with open(out) as f:
        return json.load(f)


def mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def fmt(value, spec):
    """`value` formatted, or "-" for None."""
    return format(value, spec) if value is not None else "-"


def main(argv=None):
    args = parse_args(argv)
    per_codec = {c: [] for c in args.codecs}
    gpu = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in args.seeds:
            for i, codec in enumerate(args.codecs):
                paths = "gnndirect,gpu" if i == 0 and not args.no_gpu_reference else "gnndirect"
                cmd = command(args, codec, seed, paths, os.path.join(tmp, f"{codec}_{seed}.json"))
                if args.dry_run:
                    print(" ".join(cmd))
                    continue
                try:
                    result = run(cmd)
                except RuntimeError as error:
                    print(f"codec {codec} seed {seed}: {error}", file=sys.stderr)
                    continue
                if "gnndirect" in result["paths"]:
                    per_codec[codec].append(result["paths"]["gnndirect"])
                if "gpu" in result["paths"]:
                    gpu.append(result["paths"]["gpu"])
    if args.dry_run:
        return 0
    gpu_epoch = mean(r["epoch_s_mean"] for r in gpu)
    runs = {}
    for codec, records in per_codec.items():
        if not records:
            runs[codec] = {"failed": True}
            continue
        runs[codec] = {
            "test_acc": mean(r["test_acc"] for r in records),
            "test_acc_fp32_features": mean(r.get("test_acc_fp32_features") for r in records),
            "epoch_s": mean(r["epoch_s_mean"] for r in records),
            "peak_rss_bytes": max(r.get("peak_rss_bytes", 0) for r in records),
            "codec": records[0].get("codec"),
            "seeds": len(records),
        }
    reference = runs.get(args.codecs[0], {}).get("test_acc")
    for record in runs.values():
        if record.get("failed"):
            continue
        record["acc_delta_vs_fp32"] = None if reference is None else record["test_acc"] - reference
        record["epoch_vs_gpu_fp32"] = None if not gpu_epoch else record["epoch_s"] / gpu_epoch
    results = {"shape": args.shape, "scale": args.scale, "args": {k: v for k, v in vars(args).items()},
               "runs": runs, "gpu_fp32": {"epoch_s": gpu_epoch,
                                          "test_acc": mean(r["test_acc"] for r in gpu)}}
    print(f"\n{args.shape} x{args.scale:g}, {args.epochs} epochs, seeds {args.seeds} "
          f"(gnndirect path, features in host memory)")
    print(f"{'codec':8} {'test acc':>9} {'vs ' + args.codecs[0]:>9} {'acc fp32 x':>10} {'epoch s':>8} "
          f"{'vs gpu':>7} {'peak RSS GiB':>12} {'rel err':>8}")
    for codec, r in runs.items():
        if r.get("failed"):
            print(f"{codec:8} failed")
            continue
        rel = (r.get("codec") or {}).get("relative")
        print(f"{codec:8} {fmt(r['test_acc'], '9.4f')} {fmt(r['acc_delta_vs_fp32'], '+9.4f')} "
              f"{fmt(r['test_acc_fp32_features'], '10.4f')} {fmt(r['epoch_s'], '8.3f')} "
              f"{fmt(r['epoch_vs_gpu_fp32'], '7.2f')} {r['peak_rss_bytes'] / 2**30:12.2f} {fmt(rel, '8.4f')}")
    if gpu_epoch:
        print(f"{'gpu fp32':8} {fmt(results['gpu_fp32']['test_acc'], '9.4f')} {'':9} {'':10} {gpu_epoch:8.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
        print(f"wrote {args.json}")
    return 0 if all(not r.get("failed") for r in runs.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
