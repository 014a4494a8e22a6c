"""The data paths, one class each (epoch(epoch, consume, max_batches) and profile(seeds, key)):
PyG's NeighborLoader (pyg), PyG's NodeLoader with gnndirect's CPU sampler (pygfast), the host
reference oracle (hostref), gnndirect's NeighborLoader (gnndirect, graphhbm, gpu) and PyG's
NodeLoader over gnndirect's stores (nodeloader)."""

from __future__ import annotations

import os
import queue
import threading
import time
import warnings

import torch

import gnndirect_torch as gd
from gnndirect_torch import testing
from gnndirect_torch._util import num_batches

from .measure import Spans, sync, timed_batches
from .model import model_blocks


def batch_seed(base, epoch, index):
    """Sampling key of batch `index` of `epoch` for the Python-side loops (SplitMix64)."""
    z = (base * 0x9E3779B97F4A7C15 + epoch * 0xD1B54A32D192ED03 + index + 1) & (2**64 - 1)
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
    z ^= z >> 31
    return z - 2**64 if z >= 2**63 else z


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
