#!/usr/bin/env python3
"""torch-sparse's CPU neighbour sampler on the graph bench_sample uses: sampled edges/s per
worker process, the figure to set against bench_sample's cpu_fast/threads:1 (edges_per_s_per_core).

The graph is bench/sample.cu's synthetic CSR rebuilt bit for bit: node v's degree weight is
min(1/sqrt(u_v), 1e4) with u_v from splitmix64(v), scaled to the edge target; edge i's neighbour
is mulhi64(splitmix64(i ^ 0xABCDEF), nodes). (The float sum behind the scale is accumulated in
another order, so a few degrees may differ by one.) Workloads, as in bench_sample:
  layer   1M random seeds, fanouts [15] (neighbor_sample relabels, so compare with
          bench_sample's sample_layer/cpu_fast/threads:1/relabel:1)
  blocks  1024 and 8192 random seeds, fanouts [15, 10, 5] (sample_blocks_15_10_5/cpu_fast/
          seeds:N/threads:1)
Each worker process (fork, torch.set_num_threads(1), as a DataLoader worker) runs the workload
on its own seeds; reported: median edges/s per worker, and all workers' edges / wall time.

  PYTHONPATH=build/torch-sparse python3 bench/torch_sparse_sampler.py [--preset products|papers]
      [--workers 1,16] [--iterations 3] [--budget-s 120] [--json out.json]

torch-sparse must be importable or its compiled _neighbor_sample_cpu library found on
sys.path (scripts/gpu torch-sparse builds it CPU-only; only that library is loaded, so
scipy and torch-scatter are not needed at run time).
"""
import argparse
import glob
import json
import multiprocessing as mp
import os
import statistics
import sys
import time

import torch

PRESETS = {"products": (2449029, 61859140), "papers": (111059956, 1615685872)}
GOLDEN = 0x9E3779B97F4A7C15
C1 = 0xBF58476D1CE4E5B9
C2 = 0x94D049BB133111EB


def signed(c):
    """A 64-bit constant as the int64 with the same bits."""
    return c - (1 << 64) if c >= (1 << 63) else c


def lsr(x, k):
    """Logical right shift of int64 tensors (the bits of uint64 >> k)."""
    return (x >> k) & ((1 << (64 - k)) - 1)


def mix64(z):
    """bench/sample.cu's mix64 (splitmix64) on int64 tensors holding uint64 bits (wrapping)."""
    z = z + signed(GOLDEN)
    z = (z ^ lsr(z, 30)) * signed(C1)
    z = (z ^ lsr(z, 27)) * signed(C2)
    return z ^ lsr(z, 31)


def mulhi(bits, n):
    """High 64 bits of uint64(bits) * n for 0 < n < 2^32 (int64 tensors, no overflow issue:
    the partial sum stays below 2^64 and is shifted logically)."""
    lo = bits & 0xFFFFFFFF
    hi = lsr(bits, 32)
    mid = hi * n + lsr(lo * n, 32)
    return lsr(mid, 32)


def make_graph(nodes, target_edges, chunk=1 << 25):
    """(indptr, indices) of bench/sample.cu's make_graph as int64 tensors."""
    t0 = time.time()
    weights = torch.empty(nodes, dtype=torch.float64)
    for b in range(0, nodes, chunk):
        v = torch.arange(b, min(nodes, b + chunk), dtype=torch.int64)
        u = (lsr(mix64(v), 11).to(torch.float64) + 1.0) * 2.0 ** -53
        weights[b:b + v.numel()] = torch.clamp(1.0 / torch.sqrt(u), max=1e4)
    scale = target_edges / float(weights.sum())
    degrees = (weights * scale).to(torch.int64)  # truncation, as the C++ cast
    del weights
    indptr = torch.zeros(nodes + 1, dtype=torch.int64)
    torch.cumsum(degrees, 0, out=indptr[1:])
    del degrees
    edges = int(indptr[-1])
    indices = torch.empty(edges, dtype=torch.int64)
    for b in range(0, edges, chunk):
        i = torch.arange(b, min(edges, b + chunk), dtype=torch.int64)
        indices[b:b + i.numel()] = mulhi(mix64(i ^ 0xABCDEF), nodes)
    print(f"graph: {nodes} nodes, {edges} edges, built in {time.time() - t0:.1f} s", flush=True)
    return indptr, indices


def load_neighbor_sample():
    """torch.ops.torch_sparse.neighbor_sample, loading only the compiled sampler library."""
    try:
        return torch.ops.torch_sparse.neighbor_sample  # already loaded (a forked worker)
    except (AttributeError, RuntimeError):
        pass
    for entry in sys.path:
        libs = glob.glob(os.path.join(entry or ".", "torch_sparse", "_neighbor_sample_cpu*.so"))
        if libs:
            torch.ops.load_library(libs[0])
            return torch.ops.torch_sparse.neighbor_sample
    import torch_sparse  # noqa: F401  (an installed package registers the op)
    return torch.ops.torch_sparse.neighbor_sample


GRAPH = {}


def worker(args):
    """One worker process: runs the workload, returns (edges per call, seconds per call)."""
    rank, seeds, fanouts, iterations, budget_s = args
    torch.set_num_threads(1)
    sample = load_neighbor_sample()
    indptr, indices = GRAPH["indptr"], GRAPH["indices"]
    nodes = indptr.numel() - 1
    gen = torch.Generator().manual_seed(1000 + rank)
    torch.manual_seed(2000 + rank)  # neighbor_sample draws from torch's default generator
    edges, times = [], []
    start = time.time()
    for _ in range(iterations):
        input_node = torch.randint(0, nodes, (seeds,), generator=gen, dtype=torch.int64)
        t0 = time.perf_counter()
        node, row, col, edge = sample(indptr, indices, input_node, fanouts, False, True)
        times.append(time.perf_counter() - t0)
        edges.append(row.numel())
        if time.time() - start > budget_s:
            break
    return edges, times


def run(workload, seeds, fanouts, workers, iterations, budget_s):
    jobs = [(r, seeds, fanouts, iterations, budget_s) for r in range(workers)]
    t0 = time.time()
    if workers == 1:
        results = [worker(jobs[0])]
    else:
        with mp.get_context("fork").Pool(workers) as pool:  # fork: workers share the graph pages
            results = pool.map(worker, jobs)
    wall = time.time() - t0
    per_worker = [statistics.median(e / t for e, t in zip(edges, times)) for edges, times in results]
    busy = max(sum(times) for _, times in results)
    total = sum(sum(edges) for edges, _ in results)
    record = {
        "workload": workload, "seeds": seeds, "fanouts": fanouts, "workers": workers,
        "calls": [len(times) for _, times in results],
        "median_s_per_call": statistics.median(t for _, times in results for t in times),
        "edges_per_call": statistics.median(e for edges, _ in results for e in edges),
        "edges_per_s_per_worker": statistics.median(per_worker),
        "edges_per_s_all_workers": total / busy if busy > 0 else 0.0,
        "wall_s": wall,
    }
    print(f"{workload:>7} seeds={seeds:<8} fanouts={fanouts} workers={workers:<3} "
          f"per worker {record['edges_per_s_per_worker'] / 1e6:8.2f} M edges/s   "
          f"all workers {record['edges_per_s_all_workers'] / 1e6:8.2f} M edges/s   "
          f"({record['median_s_per_call']:.3f} s/call, {len(results[0][1])} calls)", flush=True)
    return record


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--preset", choices=sorted(PRESETS), default="products")
    p.add_argument("--nodes", type=int, default=0, help="override the preset's node count")
    p.add_argument("--edges", type=int, default=0, help="override the preset's edge target")
    p.add_argument("--layer-seeds", type=int, default=1000000)
    p.add_argument("--block-seeds", default="1024,8192")
    p.add_argument("--workers", default="1", help="comma list of worker-process counts")
    p.add_argument("--iterations", type=int, default=3, help="calls per worker (at most)")
    p.add_argument("--budget-s", type=float, default=120.0, help="stop a worker's calls after this")
    p.add_argument("--workloads", default="layer,blocks")
    p.add_argument("--json", default="")
    a = p.parse_args()
    nodes, edges = PRESETS[a.preset]
    nodes, edges = a.nodes or nodes, a.edges or edges
    load_neighbor_sample()  # fail early when the library is missing
    GRAPH["indptr"], GRAPH["indices"] = make_graph(nodes, edges)
    records = []
    for workers in [int(w) for w in a.workers.split(",")]:
        if "layer" in a.workloads:
            records.append(run("layer", a.layer_seeds, [15], workers, a.iterations, a.budget_s))
        if "blocks" in a.workloads:
            for n in [int(x) for x in a.block_seeds.split(",")]:
                records.append(run("blocks", n, [15, 10, 5], workers, max(a.iterations, 5), a.budget_s))
    out = {"torch": torch.__version__, "preset": a.preset, "nodes": nodes,
           "edges": int(GRAPH["indptr"][-1]), "cpu_count": os.cpu_count(), "results": records}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
        print("wrote", a.json)


if __name__ == "__main__":
    main()
