#!/usr/bin/env python3
"""GraphSAGE on a generated ogbn-products-shaped graph (or, with --shape papers100m, an
ogbn-papers100M-shaped one), trained through several data paths in one run, with epoch time,
time split, test accuracy and CPU core-seconds per path.

Paths (each trains its own model from the same initial weights):
  pyg        THE BASELINE: PyG's own CPU-centric loader, what a PyG user runs today:
             torch_geometric.loader.NeighborLoader over a CPU Data(x, y, edge_index), sampling
             on the CPU through pyg-lib or (on the H200 machine, which has no pyg-lib) a CPU-only
             torch-sparse (scripts/gpu torch-sparse), features gathered in the workers,
             pin_memory=True, batch.to(cuda, non_blocking=True). Swept over --pyg-workers
             (persistent workers when > 0).
             The model runs over the whole sampled subgraph and keeps the seeds' rows (PyG's
             usual loop: torch-sparse gives no per-hop counts, so no trimming to blocks).
  pygfast    THE STRONG BASELINE: PyG with a fast CPU sampler (what pyg-lib gives a PyG user;
             pyg-lib has no release for this torch): PyG's own torch_geometric.loader.NodeLoader
             over the same CPU Data, driven by gnndirect_torch.pyg.GnnDirectCpuSampler
             (gnndirect's all-core C++ host::cpu_sampler with relabelling), features fetched by
             PyG (index_select in the workers), pin_memory=True, batch.to(cuda, non_blocking).
             Swept over --pygfast-workers; the sampler of each process gets cores //
             max(1, workers) threads (the sampler uses all cores itself: workers mainly overlap
             the feature fetch). The model runs over the per-hop blocks (the sampler gives per-hop
             counts), the same model work as the gnndirect paths.
             Every ratio (vs_base) is against the faster of the best pyg and the best pygfast
             loader (results["baseline"] names it); the JSON keeps the ratios against each.
  gnndirect  the "two-line change": features in a gnndirect Table (host memory, placement
             auto = managed_host on an H200) and gnndirect's NeighborLoader (GPU sampling
             from the host-resident graph, zero-copy gather, batches prepared on side streams).
             Without pyg/pygfast in --paths, the features and indices are generated straight
             into that placement (gnndirect_torch.empty) and the Table and Graph adopt them: one
             copy in host memory (papers100M at --scale 1 fits a 128 GiB host). Each path
             prints its peak host RSS (VmHWM, reset per path) and the host memory in use.
             With --codec (fp32, fp16, bf16, int8, fp8, int4) the Table stores its rows encoded
             with that row codec (encoded once on all host cores; decoded inside the gather) and
             the path's test accuracy is measured on the same decoded features
             ("test_acc"), and also on the fp32 features ("test_acc_fp32_features").
  graphhbm   gnndirect with the neighbour lists in HBM (Graph(placement="device"), a copy of
             indices there) and the features where gnndirect keeps them (same --codec, not in
             the default list): the papers100M runs' "lists in HBM" row.
  nodeloader PyG's NodeLoader driven by gnndirect's FeatureStore/GraphStore/sampler (same
             --codec as gnndirect).
  gpu        all-in-GPU upper bound: graph and features in HBM, gnndirect's loader.
  hostref    (oracle, not in the default list nor in any ratio) gnndirect's host reference
             sampler + index_select into pinned memory + copy, one prefetch thread.

Features (--features): "realistic" (default) looks like real node embeddings rather than unit
Gaussians: a low-rank class-dependent signal (rank min(16, features): class embeddings through a
fixed random projection) plus heavy-tailed Student-t noise (5 degrees of freedom: kurtosis 9; unit variance),
each column then scaled by a factor drawn log-uniformly over 2.5 decades (10^-1.25 .. 10^1.25)
and shifted by a column offset. Labels stay learnable from the features (the signal's energy
per column matches the old generator's) and from the neighbourhoods. Per-row quantisers (int8,
int4, fp8) meet what they meet on real data: one row mixes columns of very different scales
and a few outliers set the row's range. "gaussian": the previous generator (class centroid *
signal + N(0, 1)), for comparison with earlier numbers. What this cannot show: the accuracy cost
on a real dataset's features (their spectrum, their outliers); bench/codec_accuracy.py measures
every codec on these synthetic ones with the same seeds.

Time split, two views:
  loop     measured in the real, overlapped epoch: wait_s = the training loop blocked on the
           next batch (sampling + feature gather + collate + pinning that the loader did not
           hide; with workers this is only what the workers could not keep ahead of), h2d_s =
           GPU time of the loop's host-to-device copies, train_s = GPU time of the train steps
           (CUDA events, read after the epoch; no sync inside the loop). With workers, the
           per-stage CPU cost itself is not separable in the loop: it runs in other processes.
  serial   (split_per_epoch_s) --profile-batches batches, each stage timed alone with a sync
           (sample / gather / h2d / train), scaled to an epoch; for pyg it is PyG's sampler and
           filter_fn (+ pinning) in this process: the work a worker does per batch (here with
           all intra-op threads for the row gather; a worker has one).
CPU core-seconds per epoch count this process and its children (DataLoader workers): live
children through psutil, ended ones through RUSAGE_CHILDREN ("cpu_meter" in the JSON says which).

    python bench/train_graphsage.py                 # products-shaped, all paths
    python bench/train_graphsage.py --scale 0.1 --epochs 1 --json out.json
    python bench/train_graphsage.py --shape papers100m --scale 1 --epochs 1 --paths gnndirect,gpu
    python bench/train_graphsage.py --smoke-cpu --scale 0.01 --paths pyg,pygfast,hostref   # no GPU

Sweeps (pyg over --pyg-workers, pygfast over --pygfast-workers): with --pyg-sweep-batches N > 0
each worker count is timed over N batches after a warm-up (--warmup-batches, but at least
2 x num_workers x prefetch_factor batches, so that start-up is not timed), extrapolated to an
epoch ("extrapolated" in the JSON, "(extrap.)" in the table), and only the fastest count
trains the full --epochs (its real epoch time, accuracy and serial profile). N = 0, or an epoch
shorter than --warmup-batches + N batches: every count trains the full --epochs.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import platform
import queue
import resource
import sys
import threading
import time
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))


def _prefer_installed_package() -> None:
    """Uses the installed gnndirect_torch (`pip install -v --no-build-isolation ./python`, or
    PYTHONPATH=python for a development build); only when none is importable, the tree's
    ../python (a `setup.py build_ext --inplace` build there)."""
    import importlib.util
    if importlib.util.find_spec("gnndirect_torch") is None:
        sys.path.insert(0, os.path.join(HERE, "..", "python"))


_prefer_installed_package()

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import gnndirect_torch as gd  # noqa: E402
from gnndirect_torch import testing  # noqa: E402
from gnndirect_torch._util import SHAPES, format_table, num_batches, speedup, sweep_warmup  # noqa: E402

try:  # counts live DataLoader workers; RUSAGE_CHILDREN only sees children that have ended
    import psutil
except ImportError:  # pragma: no cover - psutil is on the H200 image
    psutil = None


# -- data ---------------------------------------------------------------------------------------

#: Rows (features) or elements (indices) moved per step into the host placement: bounds the extra
#: host memory of generation to one chunk.
GENERATE_CHUNK = 1 << 20


def host_tensor(shape, dtype, placement):
    """An empty CPU tensor to fill in place: gnndirect_torch.empty in `placement` (pinned /
    managed_host / auto, so that Table and Graph adopt it without a second copy), or a plain
    (pageable) tensor when `placement` is None (CPU runs, and 'registered', which pins it in
    place later)."""
    if placement is None:
        return torch.empty(shape, dtype=dtype)
    return gd.empty(shape, dtype, placement)


def peak_rss_bytes():
    """Peak resident set of this process since the last reset_peak_rss() (VmHWM), else since
    start (ru_maxrss)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def host_used_bytes():
    """Host memory in use system-wide (MemTotal - MemAvailable): counts what VmHWM may not
    (managed memory resident on the CPU is mapped by the driver, and not every kernel charges it
    to the process's RSS). 0 when /proc/meminfo is unreadable."""
    fields = {}
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                name, value = line.split(":", 1)
                fields[name] = int(value.split()[0]) * 1024
    except (OSError, ValueError):
        return 0
    return max(0, fields.get("MemTotal", 0) - fields.get("MemAvailable", 0))


def reset_peak_rss():
    """Resets VmHWM to the current resident set (Linux: 5 > /proc/self/clear_refs); silently
    keeps the running peak where that is not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
    except OSError:
        pass


def realistic_feature_model(c, f, seed, device):
    """The fixed parts of the "realistic" features (see the module doc): class embeddings
    [c, r], a projection [r, f] scaled so each column's signal variance is that of the old
    generator's centroids, per-column scales (log-uniform over 2.5 decades) and offsets."""
    g = torch.Generator(device=device).manual_seed(seed + 1)
    r = min(16, f)
    classes = torch.randn(c, r, generator=g, device=device)
    projection = torch.randn(r, f, generator=g, device=device) / (r ** 0.5)
    scales = torch.pow(10.0, torch.rand(f, generator=g, device=device) * 2.5 - 1.25)
    offsets = torch.randn(f, generator=g, device=device) * 0.5 * scales
    return classes, projection, scales, offsets


def realistic_rows(model, labels, signal, g):
    """Feature rows of nodes with `labels`: (class signal + Student-t(5) noise of unit variance)
    * column scale + column offset."""
    classes, projection, scales, offsets = model
    n, f = labels.shape[0], projection.shape[1]
    rows = (classes[labels] @ projection) * signal
    z = torch.randn(n, f, generator=g, device=labels.device)
    chi2 = torch.randn(5, n, f, generator=g, device=labels.device).square().sum(0)
    rows += z * torch.rsqrt(chi2 / 5.0) * (0.6 ** 0.5)  # t(5) has variance 5/3 (kurtosis 9)
    return rows * scales + offsets


def generate(shape, seed, device, signal, p_in, placement=None, features="realistic"):
    """Planted-community graph: one community per class (Zipf-like sizes), log-normal in-degrees
    (spread shape["degree_sigma"], default 0.9), a fraction p_in of each node's in-neighbours from
    its own community, features "realistic" (see the module doc) or "gaussian" (class centroid *
    signal + N(0, 1) noise). Labels are learnable from features and neighbourhoods.
    Returns CPU tensors (indptr int64, indices int64, x fp32, y int64) and the splits. The
    features and indices are created straight in `placement` (see host_tensor) and filled chunk
    by chunk from `device`, so that the largest arrays exist once in host memory: the Table and
    Graph of the gnndirect path adopt them without a copy (papers100M at full scale)."""
    g = torch.Generator(device=device).manual_seed(seed)
    n, e, f, c = shape["num_nodes"], shape["num_edges"], shape["num_features"], shape["num_classes"]
    sizes = 1.0 / (torch.arange(c, device=device, dtype=torch.float64) + 4.0)
    y = torch.multinomial(sizes / sizes.sum(), n, replacement=True, generator=g)
    sigma = shape.get("degree_sigma", 0.9)  # log-normal spread of the degrees (twitter: heavier tail)
    weight = torch.exp(torch.randn(n, generator=g, device=device, dtype=torch.float64) * sigma)
    deg = torch.clamp((weight / weight.sum() * e).floor().to(torch.int64), min=1)
    indptr = torch.zeros(n + 1, dtype=torch.int64, device=device)
    torch.cumsum(deg, 0, out=indptr[1:])
    total = int(indptr[-1])
    dst = torch.repeat_interleave(torch.arange(n, device=device), deg, output_size=total)
    order = torch.argsort(y)
    counts = torch.bincount(y, minlength=c)
    starts = torch.cumsum(counts, 0) - counts
    community = y[dst]
    del dst
    pick = (torch.rand(total, generator=g, device=device) * counts[community]).floor().to(torch.int64)
    same = order[starts[community] + pick]
    del pick, community
    other = torch.randint(0, n, (total,), generator=g, device=device)
    indices = torch.where(torch.rand(total, generator=g, device=device) < p_in, same, other)
    del same, other
    if device.type == "cuda":  # the placement's choice and checks see the GPU's real free memory
        torch.cuda.empty_cache()
    placed_indices = host_tensor((total,), torch.int64, placement)
    for begin in range(0, total, GENERATE_CHUNK * 16):
        end = min(total, begin + GENERATE_CHUNK * 16)
        placed_indices[begin:end].copy_(indices[begin:end])
    del indices
    if device.type == "cuda":
        torch.cuda.empty_cache()
    centroids = torch.randn(c, f, generator=g, device=device)
    model = realistic_feature_model(c, f, seed, device) if features == "realistic" else None
    x = host_tensor((n, f), torch.float32, placement)
    for begin in range(0, n, GENERATE_CHUNK):  # one chunk of rows at a time on `device`
        end = min(n, begin + GENERATE_CHUNK)
        if model is not None:
            rows = realistic_rows(model, y[begin:end], signal, g)
        else:
            rows = centroids[y[begin:end]] * signal + torch.randn(end - begin, f, generator=g, device=device)
        x[begin:end].copy_(rows)
        del rows
    perm = torch.randperm(n, generator=g, device=device)
    train = perm[: shape["num_train"]]
    test = perm[shape["num_train"] + shape["num_val"]: shape["num_train"] + shape["num_val"] + shape["num_test"]]
    return (indptr.cpu(), placed_indices, x, y.cpu(), train.cpu(), test.cpu())


# -- model --------------------------------------------------------------------------------------

def make_model(num_features, hidden, num_classes, layers, seed, device):
    from torch_geometric.nn import SAGEConv

    class SAGE(torch.nn.Module):
        """GraphSAGE over message-flow blocks (input side first): layer i maps the src rows of
        its block to its dst rows (the first num_dst src rows)."""

        def __init__(self):
            super().__init__()
            dims = [num_features] + [hidden] * (layers - 1) + [num_classes]
            self.convs = torch.nn.ModuleList(SAGEConv(dims[i], dims[i + 1]) for i in range(layers))

        def forward(self, x, blocks):
            for i, (edge_index, num_src, num_dst) in enumerate(blocks):
                x = self.convs[i]((x, x[:num_dst]), edge_index, size=(num_src, num_dst))
                if i + 1 < len(self.convs):
                    x = F.dropout(F.relu(x), p=0.2, training=self.training)
            return x

    torch.manual_seed(seed)
    return SAGE().to(device)


def model_blocks(blocks):
    """Our blocks (seeds side first) as the model's input-side-first (edge_index, src, dst)."""
    return [(b.edge_index(), b.num_src, b.num_dst) for b in reversed(blocks)]


def train_step(model, optimizer, x, y, blocks):
    """One step on the seeds' rows: the first len(y) outputs (all of them for blocks; the
    seeds of a whole sampled subgraph, PyG's node order puts them first)."""
    model.train()
    out = model(x, blocks)[: y.shape[0]]
    loss = F.cross_entropy(out, y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return loss.detach()


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def training_stream(args, device):
    """Context of the stream the loop trains on: torch's current stream, or with
    --train-priority high a new stream of the highest priority, so that when preparation kernels
    and training kernels both wait for SMs the block scheduler serves training first (running
    blocks are not preempted). Every path gets the same stream choice."""
    if device.type != "cuda" or args.train_priority == "default":
        return contextlib.nullcontext()
    return torch.cuda.stream(torch.cuda.Stream(device, priority=-(1 << 10)))  # clamped to the highest


def batch_seed(base, epoch, index):
    """Sampling key of batch `index` of `epoch` for the Python-side loops (SplitMix64)."""
    z = (base * 0x9E3779B97F4A7C15 + epoch * 0xD1B54A32D192ED03 + index + 1) & (2**64 - 1)
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
    z ^= z >> 31
    return z - 2**64 if z >= 2**63 else z


def timed_batches(iterator, max_batches, times):
    """Yields at most `max_batches` (None: all) items of `iterator`, adding the time spent waiting
    for each to times["wait_s"] (the loader's share of the epoch)."""
    done = 0
    while max_batches is None or done < max_batches:
        t0 = time.perf_counter()
        item = next(iterator, None)
        if item is None:
            return
        times["wait_s"] += time.perf_counter() - t0
        yield item
        done += 1

class Spans:
    """Total time of code spans in the real loop: GPU time between CUDA event pairs, read once
    after the epoch's final sync (nothing syncs inside the loop, so its overlap stays); host
    wall time on the CPU."""

    def __init__(self, device):
        self.cuda, self.pairs, self.host = device.type == "cuda", [], 0.0

    @contextlib.contextmanager
    def span(self):
        if not self.cuda:
            t0 = time.perf_counter()
            yield
            self.host += time.perf_counter() - t0
            return
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        yield
        end.record()
        self.pairs.append((start, end))

    def seconds(self):
        """The total in seconds (after a synchronize)."""
        return self.host + sum(a.elapsed_time(b) for a, b in self.pairs) / 1e3


CPU_METER = ("getrusage(SELF) + psutil cpu_times of live children + getrusage(CHILDREN) of ended "
             "ones" if psutil is not None else
             "getrusage(SELF + CHILDREN) only: live DataLoader workers are NOT counted (no psutil)")


def cpu_seconds():
    """CPU core-seconds (user + system) used so far by this process and its children."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    if psutil is not None:
        for child in psutil.Process().children(recursive=True):
            try:
                times = child.cpu_times()
                total += times.user + times.system
            except psutil.Error:  # ended meanwhile: RUSAGE_CHILDREN has it once reaped
                pass
    return total


# -- paths ----------------------------------------------------------------------------------------

def pyg_backend():
    """(PyG's CPU sampling backend, None) -- "pyg-lib" or "torch-sparse" -- or (None, why not)."""
    try:
        import torch_geometric.typing as pyg_typing
    except ImportError as error:
        return None, f"torch_geometric is not importable ({error})"
    if pyg_typing.WITH_PYG_LIB:
        return "pyg-lib", None
    if pyg_typing.WITH_TORCH_SPARSE:
        return "torch-sparse", None
    try:
        import torch_sparse  # noqa: F401  (only to say why PyG has no backend)
        why = "torch_sparse imports, but PyG disabled it (see its warning above)"
    except Exception as error:  # ImportError, or an OSError/RuntimeError of its libraries
        why = f"import torch_sparse: {type(error).__name__}: {error}"
    return None, (f"no pyg-lib, no torch-sparse ({why}); PyG's NeighborLoader samples on the CPU "
                  "only through one of them: build torch-sparse CPU-only with "
                  "scripts/gpu torch-sparse and put its target folder on PYTHONPATH "
                  "(scripts/gpu torch does both)")


def keep_pyg_scatter_native():
    """A CPU-only torch-scatter (there because torch-sparse's package imports it) must not get
    PyG's CUDA scatters (min/max/mul, segment): PyG then uses torch's own ops, as it does
    without torch-scatter. Returns what was done, for the JSON."""
    try:
        import torch_geometric.typing as pyg_typing
    except ImportError:
        return "torch_geometric absent"
    if not pyg_typing.WITH_TORCH_SCATTER:
        return "absent"
    if torch.ops.torch_scatter.cuda_version() != -1:
        return "with CUDA: used by PyG"
    pyg_typing.WITH_TORCH_SCATTER = False
    return "CPU-only: not used by PyG"


class PygPath:
    """The baseline: PyG's NeighborLoader over a CPU Data object with `workers` worker
    processes, pinned batches copied with batch.to(device, non_blocking=True)."""

    def __init__(self, data, args, device, workers):
        from torch_geometric.data import Data
        from torch_geometric.loader import NeighborLoader
        indptr, indices, x, y, train = data[:5]
        self.name, self.args, self.device = f"pyg[w={workers}]", args, device
        self.workers, self.layers, self.pin = workers, len(args.fanouts), device.type == "cuda"
        # our CSR lists in-neighbours per node, so edge_index [src; dst] is sorted by dst, the
        # order PyG's CSC conversion takes as it is (is_sorted) instead of sorting every edge
        dst = torch.repeat_interleave(torch.arange(indptr.shape[0] - 1), indptr[1:] - indptr[:-1],
                                      output_size=indices.shape[0])
        graph = Data(x=x, y=y, edge_index=torch.stack([indices, dst]))
        torch.manual_seed(args.seed)  # the shuffles' draws
        with warnings.catch_warnings():  # "without pyg-lib is deprecated": the backend is recorded
            warnings.filterwarnings("ignore", message=".*without a 'pyg-lib' installation")
            self.loader = NeighborLoader(graph, num_neighbors=args.fanouts, input_nodes=train,
                                         batch_size=args.batch_size, shuffle=True, is_sorted=True,
                                         num_workers=workers, pin_memory=self.pin,
                                         persistent_workers=workers > 0)
        self.pending = None

    def _model_inputs(self, batch):
        full = batch.num_nodes  # every layer over the whole subgraph (no per-hop counts to trim)
        return batch.x, batch.y[: batch.batch_size], [(batch.edge_index, full, full)] * self.layers

    def epoch(self, epoch, consume, max_batches=None):
        iterator = self.pending if self.pending is not None else iter(self.loader)
        self.pending = None
        h2d = Spans(self.device)
        times = {"wait_s": 0.0, "h2d_s": h2d}
        for batch in timed_batches(iterator, max_batches, times):
            with h2d.span():
                batch = batch.to(self.device, non_blocking=self.pin)
            consume(*self._model_inputs(batch))
        if max_batches is not None and self.workers > 0:
            # a cut epoch (the warm-up) leaves batches queued in the persistent workers, which
            # the next iter() drains: do it now, not inside the next timed epoch
            self.pending = iter(self.loader)
        return times

    def profile(self, seeds, key):
        from torch_geometric.sampler import NodeSamplerInput
        t0 = time.perf_counter()
        inputs = NodeSamplerInput(input_id=torch.arange(seeds.shape[0]), node=seeds)
        out = self.loader.node_sampler.sample_from_nodes(inputs)
        t1 = time.perf_counter()
        batch = self.loader.filter_fn(out)  # features and labels of the sampled nodes, relabelled
        if self.pin:
            batch = batch.pin_memory()
        t2 = time.perf_counter()
        batch = batch.to(self.device, non_blocking=self.pin)
        sync(self.device)
        times = {"sample_s": t1 - t0, "gather_s": t2 - t1, "h2d_s": time.perf_counter() - t2}
        return times, self._model_inputs(batch)


def host_cores():
    """CPUs this process may run on (its affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class PygFastPath(PygPath):
    """The strong CPU-centric baseline: PyG's NodeLoader over the CPU Data, sampling with
    gnndirect's fast all-core CPU sampler (GnnDirectCpuSampler) in `workers` worker processes
    (persistent when > 0), PyG's feature fetch, pinned batches copied with non_blocking=True.
    The sampler of each process gets host_cores() // max(1, workers) threads."""

    def __init__(self, data, args, device, workers):
        from torch_geometric.data import Data
        from torch_geometric.loader import NodeLoader
        from gnndirect_torch.pyg import GnnDirectCpuSampler
        indptr, indices, x, y, train = data[:5]
        self.name, self.args, self.device = f"pygfast[w={workers}]", args, device
        self.workers, self.layers, self.pin = workers, len(args.fanouts), device.type == "cuda"
        self.threads = max(1, host_cores() // max(1, workers))
        # edge_index sorted by dst (our CSR lists in-neighbours): edge ids of the sampler (CSR
        # positions) are positions in this edge_index; PyG's filter needs the key to emit edges
        dst = torch.repeat_interleave(torch.arange(indptr.shape[0] - 1), indptr[1:] - indptr[:-1],
                                      output_size=indices.shape[0])
        graph = Data(x=x, y=y, edge_index=torch.stack([indices, dst]))
        sampler = GnnDirectCpuSampler(indptr, indices, args.fanouts, seed=args.seed, threads=self.threads)
        torch.manual_seed(args.seed)  # the shuffles' draws
        self.loader = NodeLoader(graph, sampler, input_nodes=train, batch_size=args.batch_size,
                                 shuffle=True, num_workers=workers, pin_memory=self.pin,
                                 persistent_workers=workers > 0)
        self.pending = None

    def _model_inputs(self, batch):
        parts = gd.blocks_from_pyg(batch.edge_index, batch.num_sampled_nodes, batch.num_sampled_edges)
        blocks = [(p["edge_index"], p["num_src"], p["num_dst"]) for p in reversed(parts)]
        return batch.x, batch.y[: batch.batch_size], blocks


class HostRefPath:
    """Oracle, not a baseline: gnndirect's host reference sampler (all cores) + index_select
    into pinned memory + copy, one producer thread `--hostref-prefetch` batches ahead."""
    name = "hostref"
    oracle = True

    def __init__(self, data, args, device):
        self.indptr, self.indices, self.x, self.y, self.train = data[:5]
        self.args, self.device = args, device
        self.pin = device.type == "cuda"

    def _prepare(self, seeds, key, times=None):
        t0 = time.perf_counter()
        blocks = testing.reference_sample_blocks(self.indptr, self.indices, seeds, self.args.fanouts,
                                                 seed=key)
        t1 = time.perf_counter()
        n_id = blocks[-1].src_nodes
        xb = torch.empty((n_id.shape[0], self.x.shape[1]), dtype=self.x.dtype, pin_memory=self.pin)
        torch.index_select(self.x, 0, n_id, out=xb)
        yb = self.y.index_select(0, seeds)
        mblocks = model_blocks(blocks)
        t2 = time.perf_counter()
        if times is not None:
            times["sample_s"] += t1 - t0
            times["gather_s"] += t2 - t1
        return xb, yb, mblocks

    def _to_device(self, xb, yb, mblocks):
        nb = self.pin
        return (xb.to(self.device, non_blocking=nb), yb.to(self.device, non_blocking=nb),
                [(ei.to(self.device, non_blocking=nb), s, d) for ei, s, d in mblocks])

    def epoch(self, epoch, consume, max_batches=None):
        """Runs one epoch; `consume(x, y, blocks)` trains. Returns the loop's times."""
        g = torch.Generator().manual_seed(self.args.seed * 1000 + epoch)
        order = self.train[torch.randperm(self.train.shape[0], generator=g)]
        bs = self.args.batch_size
        count = num_batches(order.shape[0], bs)
        if max_batches is not None:
            count = min(count, max_batches)
        h2d = Spans(self.device)
        times = {"sample_s": 0.0, "gather_s": 0.0, "wait_s": 0.0, "h2d_s": h2d}
        jobs = [(order[b * bs:(b + 1) * bs], batch_seed(self.args.seed, epoch, b)) for b in range(count)]

        def copy_and_consume(item):
            with h2d.span():
                item = self._to_device(*item)
            consume(*item)

        if self.args.hostref_prefetch <= 0:
            for seeds, key in jobs:
                t0 = time.perf_counter()
                item = self._prepare(seeds, key, times)
                times["wait_s"] += time.perf_counter() - t0
                copy_and_consume(item)
            return times
        ready = queue.Queue(maxsize=self.args.hostref_prefetch)

        def produce():
            try:
                for seeds, key in jobs:
                    ready.put(self._prepare(seeds, key, times))
            except BaseException as error:  # surfaced in the consumer
                ready.put(error)
            ready.put(None)

        worker = threading.Thread(target=produce, daemon=True)
        worker.start()
        while True:
            t0 = time.perf_counter()
            item = ready.get()
            times["wait_s"] += time.perf_counter() - t0
            if item is None:
                break
            if isinstance(item, BaseException):
                raise item
            copy_and_consume(item)
        worker.join()
        return times

    def profile(self, seeds, key):
        times = {"sample_s": 0.0, "gather_s": 0.0}
        xb, yb, mb = self._prepare(seeds, key, times)
        t0 = time.perf_counter()
        out = self._to_device(xb, yb, mb)
        sync(self.device)
        times["h2d_s"] = time.perf_counter() - t0
        return times, out


class LoaderPath:
    """gnndirect's NeighborLoader over a Table and a Graph in a given placement."""

    def __init__(self, name, data, args, device, placement, max_blocks=0, codec=None, graph_placement=None):
        indptr, indices, x, y, train = data[:5]
        self.name, self.args, self.device = name, args, device
        t0 = time.perf_counter()
        # -- the two-line change ---------------------------------------------------------------
        cache = (args.cache_fraction or None) if placement != "device" else None  # tier of a host table
        self.table = gd.Table(x, placement=placement, cache_fraction=cache, codec=codec)
        self.graph = gd.Graph(indptr, indices, placement=graph_placement or placement)
        self.loader = gd.NeighborLoader(self.graph, self.table, y, train, fanouts=args.fanouts,
                                        batch_size=args.batch_size, seed=args.seed,
                                        sampling_max_blocks=max_blocks,
                                        gather_max_blocks=max_blocks if max_blocks > 0 else args.gather_blocks,
                                        workers=args.gnndirect_workers)
        # ---------------------------------------------------------------------------------------
        self.setup_s = time.perf_counter() - t0
        self.y_device = self.loader.labels
        if codec is not None:
            self.eval_x = self.table  # evaluate on the features this path trained on (decoded)
            self.codec_report = {"codec": self.table.codec, **self.table.codec_error.summary(),
                                 "table_bytes": self.table.nbytes, "device_bytes": self.table.device_bytes}

    def epoch(self, epoch, consume, max_batches=None):
        times = {"wait_s": 0.0}
        for batch in timed_batches(iter(self.loader), max_batches, times):
            consume(batch.x, batch.y, model_blocks(batch.blocks))
        counters = self.loader.counters()
        times["prepare_s_summed"] = counters["prepare_seconds"]
        return times

    def profile(self, seeds, key):
        times = {"sample_s": 0.0, "gather_s": 0.0}
        sync(self.device)
        t0 = time.perf_counter()
        blocks = self.graph.sample_blocks(seeds.to(self.device), self.args.fanouts, seed=key)
        sync(self.device)
        t1 = time.perf_counter()
        xb = self.table.gather(blocks[-1].src_nodes)
        yb = self.y_device[blocks[0].src_nodes[: blocks[0].num_dst]]
        mb = model_blocks(blocks)
        sync(self.device)
        times["sample_s"] = t1 - t0
        times["gather_s"] = time.perf_counter() - t1
        return times, (xb, yb, mb)


class NodeLoaderPath:
    """PyG's NodeLoader + gnndirect's FeatureStore/GraphStore/sampler (serial, no prefetch)."""
    name = "nodeloader"

    def __init__(self, data, args, device, placement):
        from torch_geometric.loader import NodeLoader
        from gnndirect_torch.pyg import GnnDirectFeatureStore, GnnDirectGraphStore, GnnDirectSampler
        indptr, indices, x, y, train = data[:5]
        self.args, self.device = args, device
        self.fs = GnnDirectFeatureStore(placement, codec=args.codec, device=device)
        self.gs = GnnDirectGraphStore(placement, device=device)
        self.fs.put_tensor(x, group_name=None, attr_name="x", index=None)
        self.fs.put_tensor(y, group_name=None, attr_name="y", index=None)
        self.gs.put_edge_index((indices, indptr), edge_type=None, layout="csc",
                               size=(indptr.shape[0] - 1, indptr.shape[0] - 1))
        sampler = GnnDirectSampler((self.fs, self.gs), num_neighbors=args.fanouts, seed=args.seed)
        self.loader = NodeLoader((self.fs, self.gs), sampler, input_nodes=train,
                                 batch_size=args.batch_size, shuffle=True)

    def epoch(self, epoch, consume, max_batches=None):
        times = {"wait_s": 0.0}
        for data in timed_batches(iter(self.loader), max_batches, times):
            parts = gd.blocks_from_pyg(data.edge_index, data.num_sampled_nodes, data.num_sampled_edges)
            mblocks = [(p["edge_index"], p["num_src"], p["num_dst"]) for p in reversed(parts)]
            consume(data.x, data.y[: data.batch_size], mblocks)
        return times

    profile = None


# -- evaluation ------------------------------------------------------------------------------------

@torch.no_grad()
def evaluate(model, eval_graph, eval_x, y, test, args, device):
    """Accuracy on the test nodes with sampled neighbourhoods (same fanouts, fixed seed), the
    same sampler and features for every path's model."""
    model.eval()
    correct = 0
    bs = args.eval_batch_size
    for b in range(0, test.shape[0], bs):
        seeds = test[b: b + bs]
        if device.type == "cuda":
            blocks = eval_graph.sample_blocks(seeds.to(device), args.fanouts, seed=12345 + b)
            xb = eval_x.gather(blocks[-1].src_nodes)
        else:
            indptr, indices = eval_graph
            blocks = gd.sample_blocks(indptr, seeds, args.fanouts, indices=indices, seed=12345 + b)
            xb = eval_x.index_select(0, blocks[-1].src_nodes)
        pred = model(xb, model_blocks(blocks)).argmax(dim=-1)
        correct += int((pred.cpu() == y[seeds]).sum())
    return correct / max(1, test.shape[0])


# -- driver ----------------------------------------------------------------------------------------

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
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
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


if __name__ == "__main__":
    sys.exit(main())
