"""Link prediction and temporal sampling: the ops :func:`sample_negatives` and
:func:`sample_temporal_blocks`, and :class:`LinkNeighborLoader` (PyG's LinkNeighborLoader
semantics: seed edges with negatives, both endpoints' neighbourhoods in one set of blocks).

    import gnndirect_torch as gd
    graph = gd.Graph.from_edge_index(edge_index, num_nodes)
    loader = gd.LinkNeighborLoader(graph, gd.Table(x), edge_label_index=train_edges,
                                   neg_sampling="binary", fanouts=[15, 10], batch_size=1024)
    for batch in loader:   # batch.x, batch.blocks, batch.edge_label_index (local), batch.edge_label
        ...

Orientation: a :class:`~gnndirect_torch.Graph` holds each node's in-neighbours (the CSC of a PyG
``edge_index``), so the blocks draw each endpoint's sources, as PyG does. ``sample_negatives``
checks strict negatives (s, d) against the lists of the CSR it is given (d in s's list: the
sources' out-neighbours, sorted); the loader builds that transpose once when ``strict``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, NamedTuple, Optional, Sequence, Union

import torch

from ._blocks import Block, blocks_to_pyg
from ._extension import _call, _check_fork, load_extension
from ._sampling import EpochLoader, blocks_of
from ._util import batch_key, check_fanouts, num_batches
from .table import Graph, Table


class Negatives(NamedTuple):
    """Negative edges: ``src[k], dst[k]`` for k < count; ``unresolved`` (0-dim int64 tensor on
    the outputs' device): strict draws that stayed existing edges after ``max_attempts``."""
    src: torch.Tensor
    dst: torch.Tensor
    unresolved: torch.Tensor


_fakes_registered = False


def _load() -> None:
    """load_extension, then (once) the fake kernels of this module's ops (torch.compile,
    FakeTensor, opcheck: data-dependent sizes are dynamic)."""
    global _fakes_registered
    load_extension()
    if _fakes_registered:
        return
    _fakes_registered = True

    @torch.library.register_fake("gnndirect::sample_negatives")
    def _negatives_fake(indptr, indices, src, dst, mode, amount, seed=0, batch=0, strict=False, max_attempts=8,
                        num_dst=-1):
        count = math.ceil(amount * src.shape[0]) if mode == "binary" else int(amount) * src.shape[0]
        return src.new_empty((count,)), src.new_empty((count,)), src.new_empty((), dtype=torch.int64)

    @torch.library.register_fake("gnndirect::sample_temporal_blocks")
    def _temporal_fake(indptr, indices, seeds, seed_times, fanouts, times, time_form="edge", strategy="uniform",
                       seed=0, excluded=None, check=True):
        ctx = torch.library.get_ctx()
        out, num_dst = [], seeds.shape[0]
        for _ in fanouts:
            num_src, edges = ctx.new_dynamic_size(), ctx.new_dynamic_size()
            out += [seeds.new_empty((num_src,), dtype=indices.dtype), seeds.new_empty((num_dst + 1,), dtype=torch.int64),
                    seeds.new_empty((edges,), dtype=indices.dtype), seeds.new_empty((edges,), dtype=indptr.dtype)]
            num_dst = num_src
        return out


def _csr_tensors(graph, indices):
    if isinstance(graph, Graph):
        return graph.indptr, graph.indices
    if indices is None:
        raise TypeError("pass a gnndirect_torch.Graph, or indptr and indices tensors")
    return graph, indices


def sample_negatives(graph, src: torch.Tensor, dst: torch.Tensor, *, mode: str = "binary",
                     amount: float = 1.0, seed: int = 0, batch: int = 0, strict: bool = False,
                     max_attempts: int = 8, indices: Optional[torch.Tensor] = None,
                     num_dst: Optional[int] = None) -> Negatives:
    """Negative edges for the positives ``(src, dst)`` (PyG's ``NegativeSampling``).

    Args:
        graph: a :class:`~gnndirect_torch.Graph` or the ``indptr`` tensor with ``indices=``; its
            row count (``indptr.numel() - 1``) is the sources' range; its lists are read only when
            ``strict`` (then each node's list must be its out-neighbours, sorted ascending: a pair
            (s, d) is an edge when d is in s's list).
        src, dst: positives, 1-D with the dtype of indices (CUDA: the library's GPU kernel; CPU:
            the host form of the same rule, equal bit for bit).
        mode: 'binary' (ceil(amount * P) random pairs) or 'triplet' (``amount`` random
            destinations per positive, negative k keeping ``src[k // amount]``).
        amount: the ratio (binary, > 0) or destinations per positive (triplet, whole >= 1).
        seed, batch: the Philox key and counter word; the result depends only on them, the
            positives (triplet) and the graph (strict).
        strict: redraw pairs that are edges, up to ``max_attempts`` draws (the last is kept and
            counted in ``unresolved``: a node linked to every node never hangs).
        num_dst: the destinations' range [0, num_dst) of a typed (bipartite) relation, whose
            ``graph`` is then the relation's out-CSR (one row per source node); None: the row
            count (one range, the same draws as without the argument).
    Returns:
        :class:`Negatives` on the positives' device. Synchronises the current stream (CUDA).
    Raises:
        IndexError: a positive source outside [0, num_nodes) or destination outside
        [0, num_dst).  ValueError: a bad mode, amount, max_attempts, lengths, num_dst < 0, or
        negatives to draw from an empty graph or destination range.  TypeError: dtypes.
    """
    _load()
    indptr, idx = _csr_tensors(graph, indices)
    _check_fork("gnndirect_torch.sample_negatives", indptr, idx, src, dst)
    if isinstance(amount, bool) or not isinstance(amount, (int, float)):
        raise TypeError(f"amount must be a number, got {amount!r}")
    if num_dst is not None and (isinstance(num_dst, bool) or int(num_dst) < 0):
        raise ValueError(f"num_dst must be None or >= 0, got {num_dst!r}")
    out = _call(torch.ops.gnndirect.sample_negatives.default, indptr, idx, src, dst, str(mode),
                float(amount), int(seed), int(batch), bool(strict), int(max_attempts),
                -1 if num_dst is None else int(num_dst))
    return Negatives(*out)


def sample_temporal_blocks(graph, seeds: torch.Tensor, seed_times: torch.Tensor,
                           fanouts: Sequence[int], *, times: torch.Tensor, time_form: str = "edge",
                           strategy: str = "uniform", seed: int = 0,
                           excluded: Optional[torch.Tensor] = None, check: bool = True,
                           indices: Optional[torch.Tensor] = None) -> List[Block]:
    """Temporal multi-layer sampling into blocks (PyG's ``time_attr`` / ``temporal_strategy``).

    Only neighbours at or before the row's query time are eligible: edge times (``time_form``
    'edge', one int64 per stored edge in the graph's position order) or node times ('node', one
    per node: a neighbour's own time); ``strategy`` 'uniform' draws up to fanout of them
    uniformly, 'last' takes the fanout most recent (equal times: the later stored edge first).
    Layer 0's rows are the seeds at ``seed_times``; a row of a later layer gets the earliest time
    of the rows that reached it (so no block holds an edge later than a seed time whose
    neighbourhood reaches it). ``excluded``: edge ids (positions) never sampled.

    CUDA seeds: the library's sample_temporal_blocks_async (times in any placement); CPU tensors:
    the host form of the same definitions, equal bit for bit. Blocks as :func:`sample_blocks`.
    Synchronises the current stream once (CUDA).
    Raises:
        ValueError: times or seed_times of the wrong length, a bad strategy or time form,
        unsorted excluded ids (CPU).  TypeError: dtypes (times must be int64).  IndexError: a
        seed outside the graph.
    """
    _load()
    fans = check_fanouts(fanouts)
    indptr, idx = _csr_tensors(graph, indices)
    _check_fork("gnndirect_torch.sample_temporal_blocks", indptr, idx, seeds, seed_times, times)
    if not isinstance(seed_times, torch.Tensor) or not isinstance(times, torch.Tensor):
        raise TypeError("seed_times and times must be int64 tensors")
    flat = _call(torch.ops.gnndirect.sample_temporal_blocks.default, indptr, idx, seeds, seed_times,
                 fans, times, str(time_form), str(strategy), int(seed), excluded, bool(check))
    return blocks_of(flat, seeds.shape[0])


def out_neighbour_csr(graph: Graph, num_src: Optional[int] = None):
    """(indptr, indices) of the transpose of ``graph`` (each node's out-neighbours, sorted
    ascending), on the CPU: what strict negatives are checked against for a CSC graph.
    ``num_src``: the transpose's row count, for a typed relation's CSC (rows: destination nodes,
    lists: source ids in [0, num_src)); None: the graph's node count."""
    indptr = graph.indptr.cpu().to(torch.int64)
    col = graph.indices.cpu().to(torch.int64)
    m = indptr.numel() - 1
    n = m if num_src is None else int(num_src)
    target = torch.repeat_interleave(torch.arange(m), indptr[1:] - indptr[:-1])
    order = torch.argsort(col * max(m, 1) + target)
    counts = torch.bincount(col, minlength=n)
    out_ptr = torch.zeros(n + 1, dtype=torch.int64)
    torch.cumsum(counts, 0, out=out_ptr[1:])
    return out_ptr, target[order].to(graph.indices.dtype)


def seed_edge_ids(graph: Graph, edges: torch.Tensor, *, reverse: bool = False):
    """The stored edges that each seed edge names, as a CSR over the seeds (CPU int64).

    Seed k = (``edges[0, k]``, ``edges[1, k]``) matches every position e of ``graph`` (a CSC:
    dst's in-list) that stores source ``edges[0, k]`` in destination ``edges[1, k]``'s list (all
    parallel copies); with ``reverse`` also those storing the pair the other way round (the
    reverse edge of an undirected graph stored in both directions). Returns (``ptr`` [P + 1],
    ``ids``): seed k's positions are ``ids[ptr[k]:ptr[k + 1]]``. One sort of the graph's edges
    (O(E log E) on the CPU): done once, when a loader excludes seed edges."""
    indptr = graph.indptr.cpu().to(torch.int64)
    col = graph.indices.cpu().to(torch.int64)
    n = max(indptr.numel() - 1, 1)
    row = torch.repeat_interleave(torch.arange(indptr.numel() - 1), indptr[1:] - indptr[:-1])
    keys, order = torch.sort(row * n + col)  # stored edge (col -> row) keyed by (row, col)
    src, dst = edges[0].to(torch.int64), edges[1].to(torch.int64)
    queries = [dst * n + src] + ([src * n + dst] if reverse else [])
    lo = torch.stack([torch.searchsorted(keys, q, right=False) for q in queries], 1)
    hi = torch.stack([torch.searchsorted(keys, q, right=True) for q in queries], 1)
    counts = (hi - lo).sum(1)
    ptr = torch.zeros(counts.numel() + 1, dtype=torch.int64)
    torch.cumsum(counts, 0, out=ptr[1:])
    starts = lo.reshape(-1).repeat_interleave((hi - lo).reshape(-1))
    within = torch.arange(starts.numel()) - torch.repeat_interleave(
        torch.cumsum((hi - lo).reshape(-1), 0) - (hi - lo).reshape(-1), (hi - lo).reshape(-1))
    return ptr, order[starts + within]


def _excluded_of(ptr: torch.Tensor, ids: torch.Tensor, input_id: torch.Tensor) -> torch.Tensor:
    """The sorted distinct edge ids named by the seed edges at ``input_id`` (CPU int64)."""
    counts = ptr[input_id + 1] - ptr[input_id]
    starts = ptr[input_id].repeat_interleave(counts)
    within = torch.arange(starts.numel()) - torch.repeat_interleave(torch.cumsum(counts, 0) - counts, counts)
    return torch.unique(ids[starts + within])  # unique sorts


@dataclass
class NegativeSampling:
    """What negatives a link batch gets (PyG's ``NegativeSampling``): ``mode`` 'binary' or
    'triplet', ``amount`` (ratio, or destinations per positive), ``strict`` (no existing edge,
    up to ``max_attempts`` draws each)."""
    mode: str = "binary"
    amount: float = 1.0
    strict: bool = False
    max_attempts: int = 8

    @classmethod
    def cast(cls, value) -> Optional["NegativeSampling"]:
        """None, a mode string, a dict of fields, one of these, or PyG's NegativeSampling.
        Raises ValueError for a bad mode or amount, TypeError for anything else."""
        if value is None or isinstance(value, cls):
            out = value
        elif isinstance(value, str):
            out = cls(value)
        elif isinstance(value, dict):
            out = cls(**value)
        elif hasattr(value, "mode") and hasattr(value, "amount"):  # torch_geometric's
            if getattr(value, "src_weight", None) is not None or getattr(value, "dst_weight", None) is not None:
                raise ValueError("weighted negative sampling (src_weight/dst_weight) is not supported")
            mode = value.mode.value if hasattr(value.mode, "value") else str(value.mode)
            out = cls(mode, value.amount)
        else:
            raise TypeError(f"neg_sampling must be None, 'binary', 'triplet', a dict or NegativeSampling, "
                            f"got {value!r}")
        if out is not None:
            if out.mode not in ("binary", "triplet"):
                raise ValueError(f"neg_sampling mode must be 'binary' or 'triplet', got {out.mode!r}")
            if isinstance(out.amount, bool) or not isinstance(out.amount, (int, float)) or not out.amount > 0:
                raise ValueError(f"neg_sampling amount must be > 0, got {out.amount!r}")
            if out.mode == "triplet" and out.amount != int(out.amount):
                raise ValueError(f"a triplet amount must be a whole number, got {out.amount!r}")
        return out


@dataclass
class LinkBatch:
    """A link-prediction mini-batch (PyG LinkNeighborLoader's fields).

    ``n_id``: global ids of the blocks' input nodes; its first ``num_seed_nodes`` rows are the
    seed nodes (the distinct endpoints, sorted by id as in PyG), which are also block 0's dst
    rows. ``edge_label_index`` [2, E] indexes them (E = positives, then binary negatives);
    ``edge_label``: the positives' labels (1 without labels; binary labels whose minimum is 0
    are shifted by 1, as PyG does) then zeros. Triplet mode has ``src_index``,
    ``dst_pos_index`` [P] and ``dst_neg_index`` [P, amount] (squeezed for amount 1) instead.
    ``input_id``: the positives' positions in the loader's edges; ``edge_label_time`` (binary) /
    ``seed_time`` (triplet): their times; ``seed_node_time``: the seed nodes' query times.
    ``x``: features of ``n_id`` (None without a table). ``num_unresolved``: strict negatives
    that stayed edges (0-dim tensor)."""
    epoch: int
    index: int
    sampling_seed: int
    n_id: torch.Tensor
    num_seed_nodes: int
    blocks: List[Block]
    x: Optional[torch.Tensor]
    input_id: torch.Tensor
    src: torch.Tensor
    dst: torch.Tensor
    edge_label_index: Optional[torch.Tensor] = None
    edge_label: Optional[torch.Tensor] = None
    edge_label_time: Optional[torch.Tensor] = None
    src_index: Optional[torch.Tensor] = None
    dst_pos_index: Optional[torch.Tensor] = None
    dst_neg_index: Optional[torch.Tensor] = None
    seed_time: Optional[torch.Tensor] = None
    seed_node_time: Optional[torch.Tensor] = None
    num_unresolved: Optional[torch.Tensor] = None

    def to_pyg(self):
        """A ``torch_geometric.data.Data`` with PyG LinkNeighborLoader's attributes (x,
        edge_index hop by hop, n_id, e_id, num_sampled_nodes/edges, input_id and the label
        fields of the mode)."""
        from torch_geometric.data import Data
        n_id, edge_index, e_id, nodes, edges = blocks_to_pyg(self.blocks)
        data = Data(x=self.x, edge_index=edge_index, n_id=n_id, e_id=e_id, num_sampled_nodes=nodes,
                    num_sampled_edges=edges, input_id=self.input_id)
        for name in ("edge_label_index", "edge_label", "edge_label_time", "src_index", "dst_pos_index",
                     "dst_neg_index", "seed_time"):
            value = getattr(self, name)
            if value is not None:
                data[name] = value
        return data


def link_seeds(src: torch.Tensor, dst: torch.Tensor, num_pos: int, neg: Optional[NegativeSampling],
               neg_src: Optional[torch.Tensor], neg_dst: Optional[torch.Tensor],
               label: Optional[torch.Tensor], time: Optional[torch.Tensor]):
    """PyG's edge-seed layout of a batch (torch_geometric.sampler.neighbor_sampler.edge_sample,
    non-disjoint): returns (seed nodes sorted by id, their query times or None, and a dict of the
    label fields: edge_label_index / edge_label / edge_label_time, or src_index /
    dst_pos_index / dst_neg_index / seed_time). Negative k's time: binary ``time[k % P]`` (PyG's
    repeat), triplet ``time[k // amount]`` (its own triplet's)."""
    fields = {}
    if neg is None or neg.mode == "binary":
        all_src = src if neg is None else torch.cat([src, neg_src])
        all_dst = dst if neg is None else torch.cat([dst, neg_dst])
        num_neg = all_src.numel() - num_pos
        if label is None:
            label = torch.ones(num_pos, device=src.device)
        if num_neg:
            label = torch.cat([label, label.new_zeros((num_neg,) + tuple(label.shape[1:]))])
        edge_time = None
        if time is not None:
            edge_time = time.repeat(1 + math.ceil(neg.amount) if neg else 1)[:num_pos + num_neg]
        seeds, inverse = torch.cat([all_src, all_dst]).unique(return_inverse=True)
        fields.update(edge_label_index=inverse.view(2, -1), edge_label=label, edge_label_time=edge_time)
        seed_times = None if edge_time is None else torch.cat([edge_time, edge_time])
    else:
        amount = int(neg.amount)
        seeds, inverse = torch.cat([src, dst, neg_dst]).unique(return_inverse=True)
        fields.update(src_index=inverse[:num_pos], dst_pos_index=inverse[num_pos:2 * num_pos],
                      dst_neg_index=inverse[2 * num_pos:].view(num_pos, -1).squeeze(-1), seed_time=time)
        seed_times = None
        if time is not None:
            neg_time = time.repeat_interleave(amount)
            seed_times = torch.cat([time, time, neg_time])
    node_time = None
    if seed_times is not None:
        node_time = torch.full((seeds.numel(),), torch.iinfo(torch.int64).max, dtype=torch.int64,
                               device=seeds.device)
        node_time.scatter_reduce_(0, inverse.view(-1), seed_times.to(torch.int64), reduce="amin")
    return seeds, node_time, fields


class LinkNeighborLoader(EpochLoader):
    """Edge-seeded mini-batches (PyG's ``LinkNeighborLoader``) sampled with gnndirect.

    Args:
        graph: a :class:`~gnndirect_torch.Graph` (CUDA: GPU sampling; ``device="cpu"``: the CPU
            ops).
        table: the node features (a :class:`~gnndirect_torch.Table`, a tensor indexed on its
            device, or None: no ``x``).
        edge_label_index: [2, P] seed edges (source, destination) in global ids.
        edge_label: optional labels of the seed edges (binary mode only, as in PyG).
        neg_sampling: None, 'binary', 'triplet', a dict, :class:`NegativeSampling` or PyG's
            ``NegativeSampling``; ``neg_sampling_ratio`` is PyG's shorthand for binary.
        fanouts (or num_neighbors): neighbours per hop.  batch_size: seed edges per batch.
        shuffle, drop_last: epoch order (torch.randperm keyed by (seed, epoch)).
        edge_label_time: int64 time per seed edge (temporal sampling; required with times).
        node_time / edge_time: int64 node times, or edge times in the graph's position order
            (one of them makes the sampling temporal).  temporal_strategy: 'uniform' or 'last'.
        replace: sample with replacement (static graphs).  seed: base key of shuffling,
            negatives and sampling; batch b of epoch e is keyed by (seed, e, b).
        exclude: None (default, PyG's behaviour: the seed edges stay in the message-passing
            graph), 'self' (each batch's positive seed edges are never sampled: every stored
            copy of source -> destination; DGL's ``exclude='self'``) or 'reverse' (those and
            the reverse copies destination -> source, for an undirected graph stored in both
            directions). Exclusion samples with the temporal sampler's excluded edges (on a
            static graph: node times all 0, 'uniform'; 8 bytes per node on the graph's
            device), whose draws differ from the static sampler's; needs ``replace=False``.
            The seed edges are matched to stored edges once, at construction (one sort of
            the graph's edges on the CPU).
    Iterating yields :class:`LinkBatch` objects; each ``iter()`` is a new epoch. Each batch is
    sampled when asked for (one host wait for the sampled sizes, one for the negatives), on the
    loader's own stream, which the caller's current stream then waits for, so that it overlaps
    the caller's previous step (``side_stream``, see ``EpochLoader``; False: on the current stream). Negatives with node times are not filtered by time (PyG redraws
    them).
    Raises (construction): ValueError for shapes, a bad mode/amount, times missing or of the
    wrong length, a bad ``exclude`` or one with ``replace``; TypeError for dtypes.
    """

    def __init__(self, graph: Graph, table: Union[Table, torch.Tensor, None], edge_label_index: torch.Tensor,
                 edge_label: Optional[torch.Tensor] = None, *, neg_sampling=None,
                 neg_sampling_ratio: Optional[float] = None, fanouts: Optional[Sequence[int]] = None,
                 num_neighbors: Optional[Sequence[int]] = None, batch_size: int = 1, shuffle: bool = False,
                 drop_last: bool = False, edge_label_time: Optional[torch.Tensor] = None,
                 node_time: Optional[torch.Tensor] = None, edge_time: Optional[torch.Tensor] = None,
                 temporal_strategy: str = "uniform", replace: bool = False, seed: int = 0,
                 dtype: Optional[torch.dtype] = None, exclude: Optional[str] = None):
        if not isinstance(graph, Graph):
            raise TypeError("LinkNeighborLoader needs a gnndirect_torch.Graph")
        if (fanouts is None) == (num_neighbors is None):
            raise ValueError("pass fanouts (or num_neighbors, its PyG name), exactly one of them")
        self.graph, self.table, self.dtype = graph, table, dtype
        self.fanouts = check_fanouts(fanouts if fanouts is not None else num_neighbors)
        if not isinstance(edge_label_index, torch.Tensor) or edge_label_index.dim() != 2 or \
                edge_label_index.size(0) != 2:
            raise ValueError("edge_label_index must be a [2, num_edges] tensor")
        if edge_label_index.dtype in (torch.bool,) or edge_label_index.is_floating_point():
            raise TypeError(f"edge_label_index must hold integer node ids, got {edge_label_index.dtype}")
        if neg_sampling_ratio is not None and neg_sampling_ratio != 0:
            neg_sampling = NegativeSampling("binary", neg_sampling_ratio)
        self.neg = NegativeSampling.cast(neg_sampling)
        num = edge_label_index.size(1)
        self.edges = edge_label_index.to(torch.int64).cpu()
        if self.edges.numel() and (int(self.edges.min()) < 0 or int(self.edges.max()) >= graph.num_nodes):
            raise IndexError(f"edge_label_index holds node ids outside [0, {graph.num_nodes})")
        if edge_label is not None:
            if self.neg is not None and self.neg.mode == "triplet":
                raise ValueError("edge_label must be None for triplet negative sampling (use src_index, "
                                 "dst_pos_index and dst_neg_index)")
            if edge_label.size(0) != num:
                raise ValueError(f"edge_label has {edge_label.size(0)} entries for {num} seed edges")
            edge_label = edge_label.cpu()
            if self.neg is not None and edge_label.numel() and edge_label.min() == 0:
                edge_label = edge_label + 1  # PyG: 0 now denotes "negative"
        self.edge_label = edge_label
        if node_time is not None and edge_time is not None:
            raise ValueError("pass node_time or edge_time, not both")
        self.times, self.time_form = (node_time, "node") if node_time is not None else (edge_time, "edge")
        if self.times is not None:
            expected = graph.num_nodes if self.time_form == "node" else graph.num_edges
            if self.times.dtype != torch.int64:
                raise TypeError(f"{self.time_form}_time must be int64, got {self.times.dtype}")
            if self.times.dim() != 1 or self.times.numel() != expected:
                raise ValueError(f"{self.time_form}_time has {self.times.numel()} entries, the graph has "
                                 f"{expected} {self.time_form}s")
            if edge_label_time is None:
                raise ValueError("temporal sampling (node_time / edge_time) needs edge_label_time: one "
                                 "time per seed edge")
            if temporal_strategy not in ("uniform", "last"):
                raise ValueError(f"temporal_strategy must be 'uniform' or 'last', got {temporal_strategy!r}")
            if graph.device.type == "cpu":
                self.times = self.times.cpu()
        elif edge_label_time is not None:
            raise ValueError("edge_label_time needs node_time or edge_time (the times to sample with)")
        if edge_label_time is not None:
            if edge_label_time.dtype != torch.int64 or edge_label_time.shape != (num,):
                raise ValueError(f"edge_label_time must be int64 with one time per seed edge ({num})")
            edge_label_time = edge_label_time.cpu()
        self.edge_label_time = edge_label_time
        self.temporal_strategy = temporal_strategy
        self.batch_size, self.shuffle, self.drop_last = int(batch_size), bool(shuffle), bool(drop_last)
        self._num_batches = num_batches(num, self.batch_size, self.drop_last)
        self.replace, self.seed = bool(replace), int(seed)
        self._exclusion = self._seed_edge_exclusion(exclude)
        self._strict_csr = None
        if self.neg is not None and self.neg.strict:
            indptr, indices = out_neighbour_csr(graph)
            cpu = graph.device.type == "cpu"
            self._strict_csr = (indptr if cpu else indptr.to(graph.device),
                                indices if cpu else indices.to(graph.device))
        self.epoch = -1

    def _seed_edge_exclusion(self, exclude: Optional[str]):
        """(ptr, ids, node times all 0 or None) of ``exclude`` (see the class), or None."""
        if exclude is None:
            return None
        if exclude not in ("self", "reverse"):
            raise ValueError(f"exclude must be None, 'self' or 'reverse', got {exclude!r}")
        if self.replace:
            raise ValueError("exclude needs replace=False (excluded edges are sampled without replacement)")
        ptr, ids = seed_edge_ids(self.graph, self.edges, reverse=exclude == "reverse")
        static_times = None
        if self.times is None:  # a static graph: every neighbour eligible at time 0
            static_times = torch.zeros(self.graph.num_nodes, dtype=torch.int64, device=self.graph.device)
        return ptr, ids, static_times

    def _num_inputs(self) -> int:
        return self.edges.size(1)

    def _batch_of(self, positions: torch.Tensor, epoch: int, index: int):
        return self.batch(positions, epoch=epoch, index=index)

    def _blocks(self, seeds: torch.Tensor, node_time: Optional[torch.Tensor], key: int,
                excluded: Optional[torch.Tensor]) -> List[Block]:
        """The batch's blocks: temporal, static with excluded edges, or static."""
        if self.times is not None:
            return sample_temporal_blocks(self.graph, seeds, node_time, self.fanouts, times=self.times,
                                          time_form=self.time_form, strategy=self.temporal_strategy, seed=key,
                                          excluded=excluded)
        if excluded is not None:  # static graph: every neighbour eligible at time 0
            return sample_temporal_blocks(self.graph, seeds, torch.zeros_like(seeds, dtype=torch.int64),
                                          self.fanouts, times=self._exclusion[2], time_form="node",
                                          strategy="uniform", seed=key, excluded=excluded)
        return self.graph.sample_blocks(seeds, self.fanouts, seed=key, replace=self.replace)

    def batch(self, input_id: torch.Tensor, *, epoch: int = 0, index: int = 0) -> LinkBatch:
        """The batch of the seed edges at positions ``input_id`` (CPU int64), keyed by
        (seed, epoch, index): what iteration yields, callable directly (PyG's collate)."""
        graph = self.graph
        device = graph.device
        dtype = graph.indices.dtype
        src = self.edges[0, input_id].to(device, dtype)
        dst = self.edges[1, input_id].to(device, dtype)
        num_pos = src.numel()
        key = batch_key(self.seed, epoch, index)
        neg_src = neg_dst = unresolved = None
        if self.neg is not None:
            indptr, indices = self._strict_csr if self._strict_csr is not None else (graph.indptr, graph.indices)
            neg = sample_negatives(indptr, src, dst, indices=indices, mode=self.neg.mode, amount=self.neg.amount,
                                   seed=batch_key(key, 1), strict=self.neg.strict,
                                   max_attempts=self.neg.max_attempts)
            neg_src, neg_dst, unresolved = neg
        label = None if self.edge_label is None else self.edge_label[input_id].to(device)
        time = None if self.edge_label_time is None else self.edge_label_time[input_id].to(device)
        seeds, node_time, fields = link_seeds(src, dst, num_pos, self.neg, neg_src, neg_dst, label, time)
        seeds = seeds.to(dtype)
        excluded = None
        if self._exclusion is not None:
            excluded = _excluded_of(self._exclusion[0], self._exclusion[1], input_id).to(device)
        blocks = self._blocks(seeds, node_time, key, excluded)
        n_id = blocks[-1].src_nodes
        x = None
        if isinstance(self.table, Table):
            x = self.table.gather(n_id, dtype=self.dtype)
        elif isinstance(self.table, torch.Tensor):
            x = self.table[n_id.to(self.table.device, torch.int64)]
        src_all = src if neg_src is None or self.neg.mode == "triplet" else torch.cat([src, neg_src])
        dst_all = dst if neg_dst is None else torch.cat([dst, neg_dst])
        return LinkBatch(epoch=epoch, index=index, sampling_seed=key, n_id=n_id, num_seed_nodes=seeds.numel(),
                         blocks=blocks, x=x, input_id=input_id, src=src_all, dst=dst_all,
                         seed_node_time=node_time, num_unresolved=unresolved, **fields)
