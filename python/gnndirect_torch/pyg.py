"""PyG adapter: a FeatureStore and a GraphStore backed by gnndirect, and a BaseSampler that
samples on the GPU with gnndirect, so that ``torch_geometric.loader.NodeLoader`` (temporal too:
``time_attr``, ``temporal_strategy``) and ``LinkLoader`` (LinkNeighborLoader's link batches,
negatives included) drive training without pyg-lib, torch-sparse or torch-scatter.

    from torch_geometric.loader import NodeLoader
    from gnndirect_torch.pyg import GnnDirectFeatureStore, GnnDirectGraphStore, GnnDirectSampler

    fs, gs = GnnDirectFeatureStore(), GnnDirectGraphStore()
    fs.put_tensor(x, group_name=None, attr_name="x", index=None)   # placed as a gnndirect Table
    fs.put_tensor(y, group_name=None, attr_name="y", index=None)
    gs.put_edge_index(edge_index, edge_type=None, layout="coo", size=(n, n))
    sampler = GnnDirectSampler((fs, gs), num_neighbors=[15, 10, 5])
    loader = NodeLoader((fs, gs), sampler, input_nodes=train_idx, batch_size=1024, shuffle=True)

Mini-batches are ``Data`` objects on the GPU with x, y (of all sampled nodes, seeds first),
edge_index (local ids, row = source, col = target, hop by hop), n_id, e_id, batch_size,
num_sampled_nodes and num_sampled_edges. Homogeneous graphs only. Weighted sampling, as PyG's
``weight_attr``: put the edge weights into the feature store (``fs.put_tensor(w, group_name=None,
attr_name="edge_weight", index=None)``, in the edge index's order) and pass
``GnnDirectSampler((fs, gs), ..., weight_attr="edge_weight")``.

CPU-centric loading with PyG's own data path (features fetched by PyG, batches pinned and
copied by the DataLoader) and gnndirect's fast all-core CPU sampler:

    from gnndirect_torch.pyg import GnnDirectCpuSampler
    sampler = GnnDirectCpuSampler(indptr, indices, num_neighbors=[15, 10, 5], threads=4)
    loader = NodeLoader(Data(x=x, y=y, edge_index=edge_index), sampler, input_nodes=train_idx,
                        batch_size=1024, shuffle=True, num_workers=4, pin_memory=True,
                        persistent_workers=True)

where (indptr, indices) is the CSC of edge_index (node v's in-neighbours, edge ids = positions in
edge_index when it is sorted by target). Batches have the layout above, on the CPU.
"""

from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Sequence, Tuple

import torch

try:
    from torch_geometric.data import EdgeAttr, FeatureStore, GraphStore, TensorAttr
    from torch_geometric.sampler import BaseSampler, EdgeSamplerInput, NodeSamplerInput, SamplerOutput
except ImportError as _error:  # pragma: no cover - needs torch_geometric
    raise ImportError("gnndirect_torch.pyg needs torch_geometric (pip install torch_geometric)") from _error

from ._blocks import blocks_to_pyg
from .link import NegativeSampling, link_seeds, out_neighbour_csr, sample_negatives, sample_temporal_blocks
from ._util import batch_key, check_fanouts, sampler_call_key
from .ops import sample_blocks
from ._codecs import DECODED_DTYPES, canonical_codec
from ._placement import _cuda_device
from .graph import Graph
from .table import Table


class GnnDirectFeatureStore(FeatureStore):
    """Node feature tensors kept where gnndirect reads them and gathered on the GPU.

    Args:
        placement: placement of 2-D floating tensors put into the store (wrapped in a
            :class:`~gnndirect_torch.Table`; see :func:`~gnndirect_torch.to_placement`).
        cache_bytes / cache_fraction: device cache tier of those tables (encoded rows for an
            encoded table: the same budget holds 4-8x the rows).
        codec: row codec of those tables (see :class:`~gnndirect_torch.Table`: None, "fp32",
            "fp16", "bf16", "int8", "fp8", "int4" or the library's names): the rows are encoded
            once when put and decoded inside every gather.
        dtype: dtype the store returns for encoded tables (float32 default, float16, bfloat16).
        device: the CUDA device results are returned on (default: current).
    Other tensors (e.g. labels) are kept on the device and indexed there. A Table can also be
    put directly (with its own codec). ``get_tensor(..., index=idx)`` returns rows ``idx`` as a
    CUDA tensor, decoded for encoded tables; without an index it returns the whole stored
    tensor (host-resident for plain tables; for an encoded table every row decoded into a new
    device tensor of rows x cols x dtype bytes).
    Raises (construction): ValueError for an unknown codec, TypeError for a dtype no codec
    produces.
    """

    def __init__(self, placement: str = "auto", *, cache_bytes: Optional[int] = None,
                 cache_fraction: Optional[float] = None, codec: Optional[str] = None,
                 dtype: Optional[torch.dtype] = None, device=None):
        super().__init__()
        self._codec = canonical_codec(codec)
        if dtype is not None and dtype not in DECODED_DTYPES:
            raise TypeError(f"dtype must be float32, float16 or bfloat16, got {dtype}")
        self._dtype = dtype
        self._placement = placement
        self._cache = {"cache_bytes": cache_bytes, "cache_fraction": cache_fraction}
        self._device = _cuda_device(device)
        self._store: Dict[Tuple[Optional[str], str], object] = {}

    @staticmethod
    def _key(attr: TensorAttr) -> Tuple[Optional[str], str]:
        return (attr.group_name, attr.attr_name)

    def _put_tensor(self, tensor, attr: TensorAttr) -> bool:
        index = attr.index
        if index is not None and not (isinstance(index, slice) and index == slice(None)):
            raise ValueError("GnnDirectFeatureStore.put_tensor stores whole tensors (index=None)")
        if isinstance(tensor, Table):
            value = tensor
        else:
            tensor = torch.as_tensor(tensor)
            if tensor.dim() == 2 and tensor.is_floating_point():
                value = Table(tensor, self._placement, codec=self._codec, device=self._device,
                              **self._cache)
            else:
                value = tensor.to(self._device)
        self._store[self._key(attr)] = value
        return True

    def _get_tensor(self, attr: TensorAttr):
        value = self._store.get(self._key(attr))
        if value is None:
            return None
        index = attr.index
        whole = index is None or (isinstance(index, slice) and index == slice(None))
        if whole and not (isinstance(value, Table) and value.encoded):
            return value.tensor if isinstance(value, Table) else value
        if isinstance(value, Table):
            if whole:
                index = torch.arange(len(value), device=self._device)
            index = torch.as_tensor(index)
            dtype = self._dtype if value.encoded else None
            return value.gather(index.to(self._device), dtype=dtype)
        index = torch.as_tensor(index)
        return value[index.to(value.device)]

    def _remove_tensor(self, attr: TensorAttr) -> bool:
        return self._store.pop(self._key(attr), None) is not None

    def _get_tensor_size(self, attr: TensorAttr):
        value = self._store.get(self._key(attr))
        if value is None:
            return None
        return tuple(value.shape)

    def get_all_tensor_attrs(self) -> List[TensorAttr]:
        """One TensorAttr per stored tensor (index unset)."""
        return [TensorAttr(group_name=g, attr_name=a) for (g, a) in self._store]


class GnnDirectGraphStore(GraphStore):
    """Edge indices for gnndirect sampling: COO, CSR or CSC are accepted and kept; the sampler
    uses the CSC (targets -> sources) as a :class:`~gnndirect_torch.Graph` built on first use.

    Args:
        placement: placement of the neighbour array (see :func:`~gnndirect_torch.to_placement`).
        indptr_placement: placement of the offsets (default ``device``).
        device: CUDA device (default: current).
    """

    def __init__(self, placement: str = "auto", *, indptr_placement: str = "device", device=None):
        super().__init__()
        self._placement = placement
        self._indptr_placement = indptr_placement
        self._device = _cuda_device(device)
        self._store: Dict[Tuple, Tuple[EdgeAttr, Tuple[torch.Tensor, torch.Tensor]]] = {}
        self._graphs: Dict[object, Graph] = {}

    @staticmethod
    def _key(attr: EdgeAttr):
        return (attr.edge_type, attr.layout.value)

    def _put_edge_index(self, edge_index, edge_attr: EdgeAttr) -> bool:
        self._store[self._key(edge_attr)] = (edge_attr, tuple(edge_index))
        self._drop_graphs(edge_attr.edge_type)
        return True

    def _get_edge_index(self, edge_attr: EdgeAttr):
        entry = self._store.get(self._key(edge_attr))
        return None if entry is None else entry[1]

    def _remove_edge_index(self, edge_attr: EdgeAttr) -> bool:
        self._drop_graphs(edge_attr.edge_type)
        return self._store.pop(self._key(edge_attr), None) is not None

    def get_all_edge_attrs(self) -> List[EdgeAttr]:
        """The stored EdgeAttrs."""
        return [attr for attr, _ in self._store.values()]

    def graph(self, edge_type=None, *, weights: Optional[torch.Tensor] = None, weight_key=None) -> Graph:
        """The :class:`~gnndirect_torch.Graph` (CSC: each node's in-neighbours) of ``edge_type``.

        Args:
            edge_type: the edge type (homogeneous: None).
            weights: optional edge weights in the order of the stored edge index (PyG's
                ``edge_weight``: COO, CSR or CSC order, whichever was put), reordered with the
                edges into the graph's CSC; the graph then samples weighted.
            weight_key: what names ``weights`` (e.g. the ``weight_attr``), for the cache: one
                graph per (edge type, weight_key) is built and kept.
        Raises:
            KeyError: no edge index of that type.  ValueError: weights of another length.
        """
        key = edge_type if weights is None else (edge_type, "weights", weight_key)
        if key in self._graphs:
            return self._graphs[key]
        entries = {layout: value for (etype, layout), value in self._store.items() if etype == edge_type}
        if not entries:
            raise KeyError(f"no edge_index for edge type {edge_type!r} in the graph store")
        options = dict(placement=self._placement, indptr_placement=self._indptr_placement,
                       device=self._device)
        if weights is not None:
            weights = torch.as_tensor(weights).float()
        if "csc" in entries:
            attr, (row, colptr) = entries["csc"]
            if weights is not None and weights.numel() != row.numel():
                raise ValueError(f"weights must have one weight per edge ({row.numel()}), got {weights.numel()}")
            graph = Graph(colptr.to(torch.int64).cpu(), row.cpu(),
                          weights=None if weights is None else weights.cpu(), **options)
        else:
            if "coo" in entries:
                attr, (row, col) = entries["coo"]
            else:
                attr, (rowptr, col) = entries["csr"]
                counts = (rowptr[1:] - rowptr[:-1]).cpu()
                row = torch.repeat_interleave(torch.arange(counts.numel()), counts)
            num_nodes = attr.size[1] if attr.size is not None else int(max(row.max(), col.max())) + 1
            edge_index = torch.stack([row.cpu().long(), col.cpu().long()])
            graph = Graph.from_edge_index(edge_index, num_nodes, weights=weights, **options)
        self._graphs[key] = graph
        return graph

    def _drop_graphs(self, edge_type) -> None:
        """Forgets the graphs built for ``edge_type`` (weighted ones too)."""
        for key in [k for k in self._graphs
                    if k == edge_type or (isinstance(k, tuple) and len(k) == 3 and k[1] == "weights" and k[0] == edge_type)]:
            del self._graphs[key]




def _sampler_output(blocks, index: NodeSamplerInput) -> SamplerOutput:
    """PyG's SamplerOutput of sample_blocks' per-hop blocks for the seeds of `index`."""
    n_id, edge_index, e_id, nodes, edges = blocks_to_pyg(blocks)
    return SamplerOutput(node=n_id.to(torch.int64), row=edge_index[0], col=edge_index[1], edge=e_id,
                         batch=None, num_sampled_nodes=nodes, num_sampled_edges=edges,
                         metadata=(index.input_id, index.time))


class GnnDirectSampler(BaseSampler):
    """Multi-hop neighbour sampling on the GPU with gnndirect (``sample_blocks``), in PyG's
    ``SamplerOutput`` format, for ``NodeLoader``.

    Args:
        data: ``(feature_store, graph_store)`` with a :class:`GnnDirectGraphStore`, or a
            :class:`~gnndirect_torch.Graph`.
        num_neighbors: fanout per hop.  replace: sample with replacement.
        seed: base random key; batch b of the sampler uses a key derived from (seed, b), so
            every batch draws fresh neighbours and runs are reproducible.
        edge_type: the edge type to sample (homogeneous: None).
        weight_attr: as PyG's ``NeighborSampler``: the name of an edge-level attribute in the
            feature store (put with ``group_name=edge_type``, one weight per edge in the order
            of the stored edge index) that weights the sampling (gnndirect's weighted sampler,
            without replacement: ``replace=True`` raises ValueError). A :class:`Graph` given as
            ``data`` samples with its own weights, if it has any (``Graph(..., weights=w)``).
        time_attr: PyG's temporal sampling: the node-time attribute in the feature store (int64,
            one per node); or node_time= / edge_time= (edge times in the graph's position order).
        temporal_strategy: 'uniform' or 'last' (temporal sampling).
        strict_negatives: link sampling redraws negatives that are edges (PyG draws them freely).
    ``sample_from_nodes`` (NodeLoader / NeighborLoader, temporal with ``input_time`` or the
    seeds' node times) and ``sample_from_edges`` (LinkLoader / LinkNeighborLoader).
    Synchronises the current CUDA stream once per batch (the sampled sizes, read back at the end;
    link sampling once more for the negatives).
    Raises (construction): TypeError without a GnnDirectGraphStore, KeyError for a weight_attr
    the feature store lacks, ValueError for weights of the wrong length, weighted sampling
    with replacement, or weights with temporal sampling.
    """

    def __init__(self, data, num_neighbors: Sequence[int], *, replace: bool = False, seed: int = 0,
                 edge_type=None, weight_attr: Optional[str] = None, time_attr: Optional[str] = None,
                 temporal_strategy: str = "uniform", node_time: Optional[torch.Tensor] = None,
                 edge_time: Optional[torch.Tensor] = None, strict_negatives: bool = False):
        super().__init__()
        if isinstance(data, Graph):
            if weight_attr is not None:
                raise ValueError("GnnDirectSampler: weight_attr names an attribute of a (FeatureStore, "
                                 "GraphStore) pair; a Graph samples with its own weights (Graph(..., weights=w))")
            self.graph = data
            feature_store = None
        else:
            feature_store, graph_store = data
            if not isinstance(graph_store, GnnDirectGraphStore):
                raise TypeError("GnnDirectSampler needs a GnnDirectGraphStore (or a gnndirect Graph)")
            weights = None
            if weight_attr is not None:
                try:
                    weights = feature_store.get_tensor(group_name=edge_type, attr_name=weight_attr, index=None)
                except KeyError:
                    weights = None
                if weights is None:  # some PyG versions return None for a missing attribute
                    raise KeyError(f"GnnDirectSampler: weight_attr {weight_attr!r} is not in the feature store "
                                   f"(put the edge weights with group_name={edge_type!r}, attr_name={weight_attr!r})")
            self.graph = graph_store.graph(edge_type, weights=weights, weight_key=weight_attr)
        self.num_neighbors = check_fanouts(num_neighbors)
        self.replace = bool(replace)
        if self.replace and self.graph.weights is not None:
            raise ValueError("GnnDirectSampler: weighted sampling (weight_attr, or a Graph with weights) "
                             "is without replacement; pass replace=False")
        self.weight_attr = weight_attr
        self.seed = int(seed)
        self._batches = 0
        self.times, self.time_form = _temporal_times(self.graph, feature_store, time_attr, node_time, edge_time)
        if temporal_strategy not in ("uniform", "last"):
            raise ValueError(f"temporal_strategy must be 'uniform' or 'last', got {temporal_strategy!r}")
        self.temporal_strategy = temporal_strategy
        if self.times is not None and self.graph.weights is not None:
            raise ValueError("GnnDirectSampler: temporal sampling (time_attr, node_time, edge_time) "
                             "draws uniformly or the most recent; it takes no edge weights (weight_attr)")
        self.strict_negatives = bool(strict_negatives)
        self._strict_csr = None

    @property
    def is_temporal(self) -> bool:
        """Whether sampling is temporal (node or edge times given)."""
        return self.times is not None

    def _blocks(self, seeds: torch.Tensor, seed_times: Optional[torch.Tensor], key: int):
        """Blocks of `seeds` (graph device and dtype): temporal at `seed_times` when the sampler
        has times, else sample_blocks."""
        if self.times is None:
            return sample_blocks(self.graph, seeds, self.num_neighbors, seed=key, replace=self.replace)
        if seed_times is None:
            if self.time_form != "node":
                raise ValueError("temporal sampling with edge times needs seed times (PyG's input_time / "
                                 "edge_label_time)")
            seed_times = self.times[seeds.to(self.times.device, torch.int64)]  # PyG: the seeds' own times
        return sample_temporal_blocks(self.graph, seeds, seed_times.to(seeds.device, torch.int64),
                                      self.num_neighbors, times=self.times, time_form=self.time_form,
                                      strategy=self.temporal_strategy, seed=key)

    def _next_seed(self) -> int:
        key = sampler_call_key(self.seed, self._batches)
        self._batches += 1
        return key

    def sample_from_nodes(self, index: NodeSamplerInput, **kwargs) -> SamplerOutput:
        """Samples the blocks of ``index.node`` on the GPU (temporal at ``index.time``, or the
        seeds' node times, when the sampler has times). Raises IndexError for a bad seed."""
        if index.input_type is not None:
            raise NotImplementedError("GnnDirectSampler supports homogeneous graphs only; for "
                                      "HeteroData use gnndirect_torch.pyg_hetero.GnnDirectHeteroSampler")
        seeds = index.node.to(self.graph.device, self.graph.indices.dtype)
        blocks = self._blocks(seeds, index.time, self._next_seed())
        return _sampler_output(blocks, index)

    def sample_from_edges(self, index: EdgeSamplerInput, neg_sampling=None) -> SamplerOutput:
        """PyG's link sampling (``LinkNeighborLoader``): negatives with gnndirect's
        ``sample_negatives`` (binary or triplet; strict when the sampler was made with
        ``strict_negatives``), the distinct endpoints sorted by id as the seeds (PyG's
        non-disjoint layout), their blocks, and ``metadata`` = (input_id, edge_label_index,
        edge_label, edge_label_time) in binary mode or (input_id, src_index, dst_pos_index,
        dst_neg_index, seed_time) in triplet mode, on the graph's device. Temporal: each seed
        node at the earliest time of its seed edges (``index.time`` needed)."""
        if index.input_type is not None:
            raise NotImplementedError("GnnDirectSampler supports homogeneous graphs only")
        graph = self.graph
        neg = NegativeSampling.cast(neg_sampling)
        if neg is not None:
            neg = dataclasses.replace(neg, strict=self.strict_negatives)
        if self.times is not None and index.time is None:
            raise ValueError("temporal link sampling needs edge_label_time (one time per seed edge)")
        src = index.row.to(graph.device, graph.indices.dtype)
        dst = index.col.to(graph.device, graph.indices.dtype)
        key = self._next_seed()
        neg_src = neg_dst = None
        if neg is not None:
            indptr, indices = graph.indptr, graph.indices
            if neg.strict:
                if self._strict_csr is None:
                    ptr, idx = out_neighbour_csr(graph)
                    self._strict_csr = (ptr.to(graph.device), idx.to(graph.device))
                indptr, indices = self._strict_csr
            neg_src, neg_dst, _ = sample_negatives(indptr, src, dst, indices=indices, mode=neg.mode,
                                                   amount=neg.amount, seed=batch_key(key, 1),
                                                   strict=neg.strict, max_attempts=neg.max_attempts)
        label = None if index.label is None else index.label.to(graph.device)
        time = None if index.time is None else index.time.to(graph.device, torch.int64)
        seeds, node_time, fields = link_seeds(src, dst, src.numel(), neg, neg_src, neg_dst, label, time)
        blocks = self._blocks(seeds.to(graph.indices.dtype), node_time, key)
        n_id, edge_index, e_id, nodes, edges = blocks_to_pyg(blocks)
        if neg is None or neg.mode == "binary":
            metadata = (index.input_id, fields["edge_label_index"], fields["edge_label"],
                        fields["edge_label_time"])
        else:
            metadata = (index.input_id, fields["src_index"], fields["dst_pos_index"], fields["dst_neg_index"],
                        fields["seed_time"])
        return SamplerOutput(node=n_id.to(torch.int64), row=edge_index[0], col=edge_index[1], edge=e_id,
                             batch=None, num_sampled_nodes=nodes, num_sampled_edges=edges, metadata=metadata)


def _temporal_times(graph: Graph, feature_store, time_attr, node_time, edge_time):
    """(times, time_form) of a sampler: ``node_time`` / ``edge_time`` as given, or PyG's
    ``time_attr`` read from the feature store as node times; (None, None) when not temporal.
    Raises ValueError for both, or times of the wrong length; TypeError for a non-int64 dtype;
    KeyError for a time_attr the store does not hold."""
    given = [t for t in (node_time, edge_time) if t is not None]
    if len(given) + (time_attr is not None) > 1:
        raise ValueError("pass one of time_attr, node_time and edge_time")
    if time_attr is not None:
        if feature_store is None:
            raise ValueError("time_attr needs (feature_store, graph_store) data; pass node_time= with a Graph")
        node_time = feature_store.get_tensor(group_name=None, attr_name=time_attr, index=None)
    times, form = (node_time, "node") if node_time is not None else (edge_time, "edge")
    if times is None:
        return None, None
    if not isinstance(times, torch.Tensor) or times.dtype != torch.int64:
        raise TypeError(f"the {form} times must be an int64 tensor")
    expected = graph.num_nodes if form == "node" else graph.num_edges
    if times.dim() != 1 or times.numel() != expected:
        raise ValueError(f"{form} times: {times.numel()} entries, the graph has {expected} {form}s")
    return (times.cpu() if graph.device.type == "cpu" else times.contiguous()), form


class GnnDirectCpuSampler(BaseSampler):
    """Multi-hop neighbour sampling on the CPU with gnndirect's fast all-core sampler
    (``sample_blocks`` on CPU tensors, ``host::cpu_sampler``), in PyG's ``SamplerOutput``
    format, for ``NodeLoader`` over a CPU ``Data`` (PyG then fetches the features, the
    DataLoader pins and the user copies: PyG's CPU-centric data path with a fast sampler, the
    role pyg-lib plays for ``NeighborLoader``).

    Args:
        indptr, indices: CPU CSC of the graph (node v's in-neighbours are
            ``indices[indptr[v]:indptr[v+1]]``; int32/int64); edge ids in the output are
            positions in ``indices``.
        num_neighbors: fanout per hop.  replace: sample with replacement.
        seed: base random key. The key of a batch mixes the seed, the DataLoader worker's seed
            (torch draws one per worker and iterator from its global generator: reproducible
            under ``torch.manual_seed``) and the batch count, so workers never share keys.
        threads: sampler threads per process (0: all cores). With ``num_workers`` DataLoader
            workers, cores // max(1, num_workers) keeps the machine from being oversubscribed.
    Each calling thread keeps its own sampler (threads and a relabelling marker of 8 bytes per
    node) alive between batches; a worker process makes its own on its first batch. The graph is
    validated once per process (ValueError on a bad graph); IndexError for a bad seed.
    Only ``sample_from_nodes`` is implemented.
    """

    def __init__(self, indptr: torch.Tensor, indices: torch.Tensor, num_neighbors: Sequence[int], *,
                 replace: bool = False, seed: int = 0, threads: int = 0):
        super().__init__()
        for name, t in (("indptr", indptr), ("indices", indices)):
            if not isinstance(t, torch.Tensor) or t.device.type != "cpu":
                raise ValueError(f"GnnDirectCpuSampler: {name} must be a CPU tensor")
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
            raise ValueError(f"GnnDirectCpuSampler: threads must be an int >= 0, got {threads!r}")
        self.indptr, self.indices = indptr.contiguous(), indices.contiguous()
        self.num_neighbors = check_fanouts(num_neighbors)
        self.replace = bool(replace)
        self.seed = int(seed)
        self.threads = threads
        self._batches = 0

    def _next_seed(self) -> int:
        info = torch.utils.data.get_worker_info()
        stream = 0 if info is None else int(info.seed) + 1
        self._batches += 1
        return batch_key(self.seed, stream, self._batches)

    def sample_from_nodes(self, index: NodeSamplerInput, **kwargs) -> SamplerOutput:
        """Samples the blocks of ``index.node`` on the CPU (all of this sampler's threads)."""
        if index.input_type is not None:
            raise NotImplementedError("GnnDirectCpuSampler supports homogeneous graphs only")
        seeds = index.node.to(self.indices.dtype)
        blocks = sample_blocks(self.indptr, seeds, self.num_neighbors, indices=self.indices,
                               seed=self._next_seed(), replace=self.replace, threads=self.threads)
        return _sampler_output(blocks, index)

    def sample_from_edges(self, index, neg_sampling=None):
        """Not supported (link prediction)."""
        raise NotImplementedError("GnnDirectCpuSampler.sample_from_edges is not implemented")
