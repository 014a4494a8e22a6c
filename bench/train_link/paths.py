"""The data paths, one class each: ``epoch(consume, max_batches)`` runs one epoch of the path's
loader, calling ``consume(x, blocks, edge_label_index, edge_label)`` with the batch on the
training device (blocks input side first), and returns the loop's times ({"wait_s"})."""

from __future__ import annotations

import time
import warnings

import torch

import gnndirect_torch as gd

from train_graphsage.loaders import pyg_backend
from train_graphsage.measure import timed_batches
from train_graphsage.model import model_blocks

#: What every record says about seed edges in message passing (see the package doc).
SEED_EDGES_NOTE = ("not excluded: neither gd.LinkNeighborLoader nor PyG's LinkNeighborLoader "
                   "removes a batch's seed edges from its neighbourhoods (use --disjoint-train-ratio)")


def pyg_blocks(batch, layers: int):
    """A PyG link batch's message passing as the model's blocks (input side first): per hop when
    the sampler reported hop counts (pyg-lib, GnnDirectSampler), else every layer over the whole
    sampled subgraph (torch-sparse gives no counts; its first rows are still the seed nodes)."""
    nodes, edges = getattr(batch, "num_sampled_nodes", None), getattr(batch, "num_sampled_edges", None)
    if nodes is not None and edges is not None and len(edges) == layers:
        parts = gd.blocks_from_pyg(batch.edge_index, [int(v) for v in nodes], [int(v) for v in edges])
        return [(p["edge_index"], p["num_src"], p["num_dst"]) for p in reversed(parts)]
    full = int(batch.num_nodes)
    return [(batch.edge_index, full, full)] * layers


def to_device(x, blocks, edge_label_index, edge_label, device, non_blocking=False):
    """The batch's tensors on `device` (a no-op for tensors already there)."""
    move = lambda t: t.to(device, non_blocking=non_blocking)  # noqa: E731
    return (move(x), [(move(e), s, d) for e, s, d in blocks], move(edge_label_index), move(edge_label))


class _LoaderPath:
    """A path whose ``_batches()`` yields the model's inputs: one timed epoch over them."""

    def epoch(self, consume, max_batches=None):
        """One epoch (see the module doc)."""
        times = {"wait_s": 0.0}
        for item in timed_batches(self._batches(), max_batches, times):
            consume(*item)
        return times


class GdLinkPath(_LoaderPath):
    """gd.LinkNeighborLoader over a gd.Graph and a gd.Table: ``gnndirect`` (host placement
    `placement`, GPU sampling), ``gpu`` (placement "device": all in HBM) or ``gnndirect-cpu``
    (device="cpu": host sampler and gather, the batch then copied to `device`)."""

    def __init__(self, name, data, args, device, placement=None, codec=None):
        self.name, self.device, self.args = name, device, args
        cpu = name == "gnndirect-cpu"
        where = {"device": "cpu"} if cpu else {"placement": placement}
        t0 = time.perf_counter()
        self.table = gd.Table(data.x, codec=None if cpu else codec, **where)
        self.graph = gd.Graph(data.indptr, data.indices, **where)
        self.loader = gd.LinkNeighborLoader(self.graph, self.table, edge_label_index=data.train_edges,
                                            neg_sampling=gd.NegativeSampling("binary", args.neg_ratio),
                                            fanouts=args.fanouts, batch_size=args.batch_size, shuffle=True,
                                            seed=args.seed)
        self.loader.side_stream = getattr(args, "side_stream", "on") == "on"
        self.setup_s = time.perf_counter() - t0
        self.copy = cpu and device.type == "cuda"
        self.eval_table = self.table if (codec is not None and not cpu) else None
        self.info = {"backend": "gnndirect host sampler (device='cpu')" if cpu else "gnndirect GPU sampler",
                     "side_stream": self.loader.side_stream,
                     "placement": "cpu" if cpu else self.table.placement,
                     "graph_placement": self.graph.placement, "codec": None if cpu else self.table.codec}

    def _batches(self):
        for batch in self.loader:
            out = (batch.x, model_blocks(batch.blocks), batch.edge_label_index, batch.edge_label)
            yield to_device(*out, self.device, non_blocking=False) if self.copy else out


class StoresPath(_LoaderPath):
    """PyG's LinkNeighborLoader over GnnDirectFeatureStore / GnnDirectGraphStore, sampled with
    GnnDirectSampler.sample_from_edges (batches come back on the stores' device)."""
    name = "stores"

    def __init__(self, data, args, device, placement, codec=None):
        from torch_geometric.loader import LinkNeighborLoader
        from torch_geometric.sampler import NegativeSampling
        from gnndirect_torch.pyg import GnnDirectFeatureStore, GnnDirectGraphStore, GnnDirectSampler
        self.device, self.layers = device, len(args.fanouts)
        t0 = time.perf_counter()
        self.fs = GnnDirectFeatureStore(placement, codec=codec, device=device)
        self.gs = GnnDirectGraphStore(placement, device=device)
        self.fs.put_tensor(data.x, group_name=None, attr_name="x", index=None)
        n = data.num_nodes
        self.gs.put_edge_index((data.indices, data.indptr), edge_type=None, layout="csc", size=(n, n))
        sampler = GnnDirectSampler((self.fs, self.gs), args.fanouts, seed=args.seed)
        torch.manual_seed(args.seed)  # PyG's shuffle draws from the global generator
        self.loader = LinkNeighborLoader((self.fs, self.gs), num_neighbors=args.fanouts,
                                         neighbor_sampler=sampler, edge_label_index=(None, data.train_edges),
                                         neg_sampling=NegativeSampling("binary", args.neg_ratio),
                                         batch_size=args.batch_size, shuffle=True)
        self.setup_s = time.perf_counter() - t0
        table = self.fs._store.get((None, "x"))  # the stored gd.Table (the evaluator gathers from it)
        self.eval_table = table if codec is not None else None
        self.info = {"backend": "GnnDirectSampler.sample_from_edges", "placement": getattr(table, "placement", None),
                     "codec": getattr(table, "codec", None), "store_device": str(device)}

    def _batches(self):
        for batch in self.loader:
            yield batch.x, pyg_blocks(batch, self.layers), batch.edge_label_index, batch.edge_label


class PygLinkPath:
    """The CPU-centric baseline: PyG's LinkNeighborLoader over a CPU Data(x, edge_index) with
    `workers` processes (persistent when > 0), pinned batches copied with non_blocking=True."""
    name = "pyg"

    def __init__(self, data, args, device):
        from torch_geometric.data import Data
        from torch_geometric.loader import LinkNeighborLoader
        from torch_geometric.sampler import NegativeSampling
        self.device, self.layers, self.workers = device, len(args.fanouts), args.workers
        self.pin = device.type == "cuda"
        t0 = time.perf_counter()
        graph = Data(x=data.x, edge_index=data.edge_index(), num_nodes=data.num_nodes)
        torch.manual_seed(args.seed)  # the shuffles' draws
        with warnings.catch_warnings():  # "without pyg-lib is deprecated": the backend is recorded
            warnings.filterwarnings("ignore", message=".*without a 'pyg-lib' installation")
            self.loader = LinkNeighborLoader(graph, num_neighbors=args.fanouts, edge_label_index=data.train_edges,
                                             neg_sampling=NegativeSampling("binary", args.neg_ratio),
                                             batch_size=args.batch_size, shuffle=True, is_sorted=True,
                                             num_workers=self.workers, pin_memory=self.pin,
                                             persistent_workers=self.workers > 0)
        self.setup_s = time.perf_counter() - t0
        self.eval_table = None
        self.pending = None
        self.info = {"backend": pyg_backend()[0], "num_workers": self.workers, "pin_memory": self.pin,
                     "persistent_workers": self.workers > 0}

    def _batches(self, iterator):
        for batch in iterator:
            batch = batch.to(self.device, non_blocking=self.pin)
            yield batch.x, pyg_blocks(batch, self.layers), batch.edge_label_index, batch.edge_label

    def epoch(self, consume, max_batches=None):
        """One epoch (see the module doc). A cut epoch (the warm-up) starts the next iterator at
        once: persistent workers drop their queued batches then, not inside a timed epoch."""
        iterator = self.pending if self.pending is not None else iter(self.loader)
        self.pending = None
        times = {"wait_s": 0.0}
        for item in timed_batches(self._batches(iterator), max_batches, times):
            consume(*item)
        if max_batches is not None and self.workers > 0:
            self.pending = iter(self.loader)
        return times
