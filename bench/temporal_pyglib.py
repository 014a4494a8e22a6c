#!/usr/bin/env python3
"""pyg-lib's temporal neighbour sampler on the graph bench_temporal uses: sampled edges/s on all
cores, the figure to set against bench_temporal's temporal_layer/<strategy>/* (GPU).

bench_temporal writes the graph and its one-hop seeds when GNNDIRECT_BENCH_TEMPORAL_NPY=DIR is
set: indptr, indices (R-MAT, CSR), edge_time (int64, = CSR position: every neighbour list is
time-sorted, as PyG requires), seeds and seed_time (int64). This script times
torch.ops.pyg.neighbor_sample in temporal mode (edge_time, seed_time, temporal_strategy
'uniform' and 'last', disjoint=True as pyg-lib requires for temporal sampling, fanout 15, one
hop) on those seeds, split into one chunk per worker; workers are threads (torch ops release the
GIL) or, with --processes, forked processes with torch.set_num_threads(1) each (as DataLoader
workers). Reported per strategy: sampled edges, wall time of all workers, edges/s.

  GNNDIRECT_BENCH_TEMPORAL_NPY=/tmp/t build/bench/bench_temporal --benchmark_filter=temporal_layer
  PYTHONPATH=/tmp/pyg-lib-site python3 bench/temporal_pyglib.py /tmp/t [--workers 16]
      [--iterations 3] [--processes] [--json out.json]

pyg-lib is built on the GPU machine from ../shared/baselines (build-pyg-lib, about 5 minutes).
The GPU side samples non-disjoint blocks; for one hop the two sample the same eligible sets
(PyG's disjoint mode only changes the relabelling), so edges/s compare directly.
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


def load(directory):
    arrays = {}
    for name in ("indptr", "indices", "edge_time", "seeds", "seed_time"):
        arrays[name] = torch.from_numpy(np.load(os.path.join(directory, name + ".npy")))
    return arrays


def sample_chunk(a, seeds, seed_time, strategy):
    import pyg_lib  # noqa: F401  registers torch.ops.pyg
    out = torch.ops.pyg.neighbor_sample(
        a["indptr"], a["indices"], seeds, [15],
        None, a["edge_time"], seed_time, None,  # node_time, edge_time, seed_time, edge_weight
        False, False, True, True,                # csc, replace, directed, disjoint
        strategy, True)                          # temporal_strategy, return_edge_id
    return int(out[1].numel())                   # col: one entry per sampled edge


def run_threads(a, chunks, strategy):
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(len(chunks)) as pool:
        start = time.perf_counter()
        edges = sum(pool.map(lambda c: sample_chunk(a, c[0], c[1], strategy), chunks))
        return edges, time.perf_counter() - start


_shared = {}


def _worker(args):
    i, strategy = args
    torch.set_num_threads(1)
    seeds, seed_time = _shared["chunks"][i]
    start = time.perf_counter()
    edges = sample_chunk(_shared["a"], seeds, seed_time, strategy)
    return edges, start, time.perf_counter()


def run_processes(a, chunks, strategy):
    _shared["a"], _shared["chunks"] = a, chunks
    with mp.get_context("fork").Pool(len(chunks)) as pool:
        results = pool.map(_worker, [(i, strategy) for i in range(len(chunks))])
    edges = sum(r[0] for r in results)
    return edges, max(r[2] for r in results) - min(r[1] for r in results)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("directory")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 16)
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--processes", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args()
    try:
        import pyg_lib  # noqa: F401
    except ImportError:
        sys.exit("temporal_pyglib.py: pyg_lib is not importable (build it with ../shared/baselines/build-pyg-lib)")
    a = load(args.directory)
    seeds, seed_time = a["seeds"], a["seed_time"]
    chunks = list(zip(torch.tensor_split(seeds, args.workers), torch.tensor_split(seed_time, args.workers)))
    report = {"graph": {"nodes": int(a["indptr"].numel() - 1), "edges": int(a["indices"].numel())},
              "seeds": int(seeds.numel()), "fanout": 15, "workers": args.workers,
              "mode": "processes" if args.processes else "threads", "results": {}}
    for strategy in ("uniform", "last"):
        rates, edges = [], 0
        for _ in range(args.iterations):
            edges, seconds = (run_processes if args.processes else run_threads)(a, chunks, strategy)
            rates.append(edges / seconds)
        report["results"][strategy] = {"sampled_edges": edges, "edges_per_s": statistics.median(rates),
                                       "edges_per_s_all": rates}
        print(f"pyg-lib temporal '{strategy}': {edges} edges, {statistics.median(rates) / 1e6:.1f} M edges/s "
              f"({args.workers} {report['mode']})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)


if __name__ == "__main__":
    main()
