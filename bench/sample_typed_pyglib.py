#!/usr/bin/env python3
"""pyg-lib's heterogeneous neighbour sampler on the graphs bench_sample_typed uses: sampled edges/s
on all cores, the figure to set against bench_sample_typed's sample_typed_15_10_5/<graph>/* (GPU).

bench_sample_typed writes each graph and 64 batches of 1024 seeds when GNNDIRECT_BENCH_TYPED_NPY=DIR
is set: DIR/<graph>/schema.json (node counts, relations, seed type, fanouts), per relation
`<src>__<name>__<dst>.colptr.npy` / `.row.npy` (CSC: indexed by dst node, src ids) and seeds.npy
(the 64 batches the GPU benchmark's timed iterations sample, concatenated). This script runs
pyg_lib.sampler.hetero_neighbor_sample (csc=True, no replacement, directed, not disjoint: PyG's
hetero NeighborLoader defaults; fanouts 15, 10, 5 for every relation) on one batch per call, the
batches spread over the workers: threads (torch ops release the GIL) or, with --processes, forked
processes with torch.set_num_threads(1) each (as DataLoader workers). Reported per graph: sampled
edges (all relations and layers), wall time of all batches, edges/s, and the median per-batch
latency of one worker.

  GNNDIRECT_BENCH_TYPED_NPY=/tmp/typed build/bench/bench_sample_typed
  PYTHONPATH=/tmp/pyg-lib-site python3 bench/sample_typed_pyglib.py /tmp/typed [--workers 16]
      [--iterations 3] [--processes] [--json out.json]

pyg-lib is built on the GPU machine from ../shared/baselines (build-pyg-lib, about 5 minutes).
Both sides sample a node once per relation and append unseen src ids per type in the same order
(docs/heterogeneous.md), so sampled edges per batch agree up to the random draws.
"""
import argparse
import json
import multiprocessing as mp
import os
import statistics
import sys
import time

import numpy as np
import torch

BATCH = 1024


def load(directory):
    """One graph: schema, per-relation (colptr, row) keyed by PyG's edge type tuple, seeds."""
    with open(os.path.join(directory, "schema.json")) as f:
        schema = json.load(f)
    colptr, row = {}, {}
    for src, name, dst in schema["relations"]:
        key, file = (src, name, dst), f"{src}__{name}__{dst}"
        colptr[key] = torch.from_numpy(np.load(os.path.join(directory, file + ".colptr.npy")))
        row[key] = torch.from_numpy(np.load(os.path.join(directory, file + ".row.npy")))
    seeds = torch.from_numpy(np.load(os.path.join(directory, "seeds.npy")))
    return schema, colptr, row, seeds


def sample_batch(graph, seeds):
    """Samples one batch; returns its sampled edges (all relations, all layers)."""
    from pyg_lib.sampler import hetero_neighbor_sample
    schema, colptr, row, _ = graph
    fanouts = {key: list(schema["fanouts"]) for key in colptr}
    rows, _, _, _, _, _ = hetero_neighbor_sample(colptr, row, {schema["seed_type"]: seeds}, fanouts,
                                                 csc=True, replace=False, directed=True, disjoint=False)
    return sum(int(r.numel()) for r in rows.values())


def batches_of(graph):
    return list(torch.split(graph[3], BATCH))


def run_threads(graph, workers):
    from concurrent.futures import ThreadPoolExecutor
    batches = batches_of(graph)
    with ThreadPoolExecutor(workers) as pool:
        start = time.perf_counter()
        edges = sum(pool.map(lambda b: sample_batch(graph, b), batches))
        return edges, time.perf_counter() - start


_shared = {}


def _worker(i):
    torch.set_num_threads(1)
    start = time.perf_counter()
    edges = sample_batch(_shared["graph"], _shared["batches"][i])
    return edges, start, time.perf_counter()


def run_processes(graph, workers):
    _shared["graph"], _shared["batches"] = graph, batches_of(graph)
    with mp.get_context("fork").Pool(workers) as pool:
        results = pool.map(_worker, range(len(_shared["batches"])))
    return sum(r[0] for r in results), max(r[2] for r in results) - min(r[1] for r in results)


def batch_latency(graph, repeats=5):
    """Median seconds of one batch on one thread (the GPU benchmark times one batch per call)."""
    torch.set_num_threads(1)
    times = []
    for b in batches_of(graph)[:repeats]:
        start = time.perf_counter()
        sample_batch(graph, b)
        times.append(time.perf_counter() - start)
    torch.set_num_threads(os.cpu_count() or 1)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("directory", help="GNNDIRECT_BENCH_TYPED_NPY of bench_sample_typed (one folder per graph)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 16)
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--processes", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args()
    try:
        import pyg_lib  # noqa: F401
    except ImportError:
        sys.exit("sample_typed_pyglib.py: pyg_lib is not importable (build it with ../shared/baselines/build-pyg-lib)")
    graphs = sorted(d for d in os.listdir(args.directory)
                    if os.path.isfile(os.path.join(args.directory, d, "schema.json")))
    if not graphs:
        sys.exit(f"sample_typed_pyglib.py: no <graph>/schema.json under {args.directory} "
                 f"(run bench_sample_typed with GNNDIRECT_BENCH_TYPED_NPY={args.directory})")
    report = {"workers": args.workers, "mode": "processes" if args.processes else "threads",
              "batch": BATCH, "results": {}}
    for name in graphs:
        graph = load(os.path.join(args.directory, name))
        rates, edges = [], 0
        for _ in range(args.iterations):
            edges, seconds = (run_processes if args.processes else run_threads)(graph, args.workers)
            rates.append(edges / seconds)
        latency = batch_latency(graph)
        batches = len(batches_of(graph))
        report["results"][name] = {"batches": batches, "sampled_edges": edges,
                                   "edges_per_batch": edges / batches, "edges_per_s": statistics.median(rates),
                                   "edges_per_s_all": rates, "batch_latency_s_one_thread": latency}
        print(f"pyg-lib hetero {name}: {edges / batches:.0f} edges/batch, "
              f"{statistics.median(rates) / 1e6:.1f} M edges/s ({args.workers} {report['mode']}), "
              f"{latency * 1e3:.1f} ms/batch on one thread")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)


if __name__ == "__main__":
    main()
