"""Link prediction over typed graphs (PyG's ``LinkNeighborLoader`` over ``HeteroData``):
:class:`HeteroLinkNeighborLoader` seeds each batch with the edges of one edge type
``(src, rel, dst)`` and their negatives, samples both endpoint types' neighbourhoods in one set
of typed blocks (the multi-type seeds of :func:`~gnndirect_torch.hetero.sample_typed_blocks`),
and gathers every node type's features from its own table.

    import gnndirect_torch as gd
    loader = gd.HeteroLinkNeighborLoader(graph, {"paper": paper_x, "author": author_x},
                                         edge_label_index=(("author", "writes", "paper"), pairs),
                                         neg_sampling="binary", num_neighbors=[10, 5], batch_size=512)
    for batch in loader:   # batch.x[t], batch.blocks, batch.edge_label_index (local), batch.edge_label
        ...

Semantics (torch_geometric.sampler.neighbor_sampler.edge_sample for HeteroData, non-disjoint):
the batch's positives (src of the src type, dst of the dst type) get negatives: 'binary' draws
ceil(amount * P) pairs (src uniform over the src type's nodes, dst over the dst type's);
'triplet' draws ``amount`` dst nodes per positive. Strict negatives are redrawn while they are
edges of the edge type (up to ``max_attempts`` draws; the rest are counted in
``num_unresolved``). The seeds of each endpoint type are its distinct endpoints, sorted by id
(one list when src and dst types are the same type), which start that type's node list;
``edge_label_index`` row 0 indexes the src type's list, row 1 the dst type's.

Random numbers: batch b of epoch e is keyed by (seed, e, b) (``batch.sampling_seed``, the typed
sampler's key); its negatives are drawn on the graph's device by the library's negative-sampling
op (:func:`~gnndirect_torch.link.sample_negatives` with ``num_dst``: Philox keyed by
``batch_key(key, 1)``, as the homogeneous LinkNeighborLoader does; src over the src type's
range, dst over the dst type's; strict checks against the relation's out-CSR, built once per
loader), so a batch is reproducible and the CPU and CUDA draws are equal bit for bit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Tuple, Union

import torch

from ._sampling import EpochLoader
from ._util import batch_key, num_batches
from .hetero import EdgeType, HeteroGraph, TypedBlocks, _edge_type_name, sample_typed_blocks
from .link import NegativeSampling, Negatives, out_neighbour_csr, sample_negatives
from .table import Table

__all__ = ["HeteroLinkBatch", "HeteroLinkNeighborLoader", "sample_typed_negatives", "typed_edge_keys",
           "typed_negative_csr"]


def typed_edge_keys(graph: HeteroGraph, edge_type: EdgeType) -> torch.Tensor:
    """The edges of ``edge_type`` as sorted CPU int64 keys ``src * num_dst + dst`` (a membership
    test of the relation's edges; strict negatives are checked on the device against
    :func:`typed_negative_csr` instead)."""
    e = graph.edge_type(edge_type)
    indptr = graph.graphs[e].indptr.cpu().to(torch.int64)
    indices = graph.graphs[e].indices.cpu().to(torch.int64)
    num_dst = graph.num_nodes[e[2]]
    dst = torch.repeat_interleave(torch.arange(indptr.numel() - 1), indptr[1:] - indptr[:-1])
    return torch.sort(indices * max(num_dst, 1) + dst).values


def typed_negative_csr(graph: HeteroGraph, edge_type, strict: bool = False) -> Tuple[torch.Tensor, torch.Tensor]:
    """(indptr, indices), int64 on the graph's device, that :func:`sample_typed_negatives` hands
    the GPU negative-sampling op for ``edge_type`` (src type ``S``, dst type ``D``): ``strict``:
    the relation's out-CSR (one row per ``S`` node, its ``D`` neighbours sorted ascending: the
    transpose of the relation's CSC); else only the row count matters (``|S| + 1`` zeros, no
    indices). Build it once per loader and relation (``csr=``): the strict form sorts the
    relation's edges on the CPU."""
    e = graph.edge_type(edge_type)
    num_src = graph.num_nodes[e[0]]
    if strict:
        indptr, indices = out_neighbour_csr(graph.graphs[e], num_src)
        indices = indices.to(torch.int64)
    else:
        indptr = torch.zeros(num_src + 1, dtype=torch.int64)
        indices = torch.zeros(0, dtype=torch.int64)
    return indptr.to(graph.device), indices.to(graph.device)


def sample_typed_negatives(graph: HeteroGraph, edge_type, src: torch.Tensor, dst: torch.Tensor, *,
                           mode: str = "binary", amount: float = 1.0, seed: int = 0, strict: bool = False,
                           max_attempts: int = 8,
                           csr: Optional[Tuple[torch.Tensor, torch.Tensor]] = None) -> Negatives:
    """Negative edges of ``edge_type`` for the positives ``(src, dst)`` (ids of its src and dst
    types), PyG's ``NegativeSampling`` on ``HeteroData``, drawn by the library's
    negative-sampling op (:func:`~gnndirect_torch.link.sample_negatives` with ``num_dst``) on
    the graph's device: the GPU kernel on a CUDA graph, its bit-identical host form on a CPU one.

    Args:
        graph: the :class:`~gnndirect_torch.hetero.HeteroGraph`.  edge_type: ``(src, rel, dst)``
            or a relation name the graph has once.
        src, dst: 1-D positives (any integer dtype and device; the result is int64 there).
        mode: 'binary' (ceil(amount * P) pairs: src uniform over the src type, dst over the dst
            type) or 'triplet' (``amount`` dst per positive, keeping its src).
        amount: the ratio (binary, > 0) or dst per positive (triplet, whole >= 1).
        seed: the Philox key of the draws: negative k's attempt a is philox4x32_10(counter
            {k low, k high, 0, a}, seed), words 0-1 mapped to the src type's range, 2-3 to the
            dst type's (uniform_below); equal keys, equal negatives on every device.
        strict: redraw pairs that are edges of ``edge_type``, up to ``max_attempts`` draws in all
            (the last is kept and counted in ``unresolved``).
        csr: :func:`typed_negative_csr` of the edge type (with this ``strict``), when already
            made; None: built here.
    Returns:
        :class:`~gnndirect_torch.link.Negatives` (src, dst, unresolved) on the positives' device.
        Synchronises the graph's current stream (CUDA).
    Raises:
        ValueError: an unknown edge type, a bad mode, amount or max_attempts, src and dst of
            different lengths, or negatives to draw from a type without nodes.
        IndexError: a positive outside its type's range (naming the type).
    """
    e = graph.edge_type(edge_type)
    neg = NegativeSampling.cast({"mode": mode, "amount": amount, "strict": strict, "max_attempts": max_attempts})
    if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
        raise ValueError(f"max_attempts must be an int >= 1, got {max_attempts!r}")
    if src.dim() != 1 or dst.dim() != 1 or src.numel() != dst.numel():
        raise ValueError(f"src and dst must be 1-D of one length, got shapes {tuple(src.shape)} and "
                         f"{tuple(dst.shape)}")
    num_src, num_dst = graph.num_nodes[e[0]], graph.num_nodes[e[2]]
    device = src.device
    src_g, dst_g = src.to(graph.device, torch.int64), dst.to(graph.device, torch.int64)
    for ids, t, n, name in ((src_g, e[0], num_src, "src"), (dst_g, e[2], num_dst, "dst")):
        outside = (ids < 0) | (ids >= n)
        if ids.numel() and bool(outside.any()):
            bad = int(ids[outside][0])
            raise IndexError(f"positive {name} holds id {bad} outside node type {t!r}'s [0, {n})")
    num_pos = src_g.numel()
    count = math.ceil(neg.amount * num_pos) if neg.mode == "binary" else int(neg.amount) * num_pos
    if count and (num_dst == 0 or num_src == 0):
        raise ValueError(f"negatives of edge type {_edge_type_name(e)} need nodes of both endpoint types "
                         f"({num_src} {e[0]!r}, {num_dst} {e[2]!r})")
    indptr, indices = csr if csr is not None else typed_negative_csr(graph, e, neg.strict)
    s, d, unresolved = sample_negatives(indptr, src_g, dst_g, indices=indices, mode=neg.mode, amount=neg.amount,
                                        seed=seed, strict=neg.strict, max_attempts=neg.max_attempts,
                                        num_dst=num_dst)
    return Negatives(s.to(device), d.to(device), unresolved.to(device))


@dataclass
class HeteroLinkBatch:
    """A typed link-prediction mini-batch (PyG LinkNeighborLoader's fields over HeteroData).

    ``blocks``: the typed blocks (:class:`~gnndirect_torch.hetero.TypedBlocks`) seeded with the
    distinct endpoints per type (sorted by id), the first ``blocks.num_seeds[t]`` entries of
    ``blocks.nodes[t]``; ``x[t]``: features of ``blocks.nodes[t]`` for every type with a table.
    Binary mode (or none): ``edge_label_index`` [2, E] (row 0: local ids into the src type's
    list, row 1: into the dst type's; E = positives then negatives) and ``edge_label`` (the
    positives' labels, 1 without labels; labels whose minimum is 0 shifted by 1 when there are
    negatives, as PyG does; then zeros). Triplet mode: ``src_index`` [P], ``dst_pos_index`` [P]
    and ``dst_neg_index`` [P, amount] (squeezed for amount 1) instead. ``src`` / ``dst``: the
    global ids of every labelled pair (triplet: the positives' src and the positive then
    negative dst). ``input_id``: the positives' positions in the loader's edges.
    ``num_unresolved``: strict negatives that stayed edges (0-dim tensor, None without)."""
    epoch: int
    index: int
    sampling_seed: int
    edge_type: EdgeType
    blocks: TypedBlocks
    x: Dict[str, torch.Tensor]
    input_id: torch.Tensor
    src: torch.Tensor
    dst: torch.Tensor
    edge_label_index: Optional[torch.Tensor] = None
    edge_label: Optional[torch.Tensor] = None
    src_index: Optional[torch.Tensor] = None
    dst_pos_index: Optional[torch.Tensor] = None
    dst_neg_index: Optional[torch.Tensor] = None
    num_unresolved: Optional[torch.Tensor] = None

    @property
    def n_id(self) -> Dict[str, torch.Tensor]:
        """Per node type, the ids of the batch's nodes (the rows of ``x[t]``)."""
        return self.blocks.nodes

    def to_pyg(self):
        """A ``torch_geometric.data.HeteroData`` as PyG's LinkNeighborLoader over HeteroData
        yields it: per node type ``x`` (where a table exists), ``n_id``, ``num_sampled_nodes``;
        per edge type ``edge_index`` (local src, local dst; hop by hop), ``e_id``,
        ``num_sampled_edges``; the seed edge type's ``input_id`` and ``edge_label_index`` /
        ``edge_label`` (binary), or the src type's ``src_index`` and the dst type's
        ``dst_pos_index`` / ``dst_neg_index`` (triplet) (imports torch_geometric)."""
        data = self.blocks.to_hetero_data(self.x)
        e = self.edge_type
        data[e].input_id = self.input_id
        if self.edge_label_index is not None:
            data[e].edge_label_index = self.edge_label_index
            data[e].edge_label = self.edge_label
        else:
            data[e[0]].src_index = self.src_index
            data[e[2]].dst_pos_index = self.dst_pos_index
            data[e[2]].dst_neg_index = self.dst_neg_index
        return data


def typed_link_seeds(edge_type: EdgeType, src: torch.Tensor, dst: torch.Tensor, num_pos: int,
                     neg: Optional[NegativeSampling], neg_src: Optional[torch.Tensor],
                     neg_dst: Optional[torch.Tensor], label: Optional[torch.Tensor]):
    """PyG's hetero edge-seed layout of a batch (edge_sample, non-disjoint): returns ({node type:
    seeds sorted by id}, the label fields). Endpoints of one type (src type == dst type) share
    one list."""
    same = edge_type[0] == edge_type[2]
    fields = {}
    if neg is None or neg.mode == "binary":
        all_src = src if neg is None else torch.cat([src, neg_src])
        all_dst = dst if neg is None else torch.cat([dst, neg_dst])
        num_neg = all_src.numel() - num_pos
        if label is None:
            label = torch.ones(num_pos, device=src.device)
        if num_neg:
            label = torch.cat([label, label.new_zeros((num_neg,) + tuple(label.shape[1:]))])
        if same:
            seeds, inverse = torch.cat([all_src, all_dst]).unique(return_inverse=True)
            out = {edge_type[0]: seeds}
            index = inverse.view(2, -1)
        else:
            s, si = all_src.unique(return_inverse=True)
            d, di = all_dst.unique(return_inverse=True)
            out = {edge_type[0]: s, edge_type[2]: d}
            index = torch.stack([si, di])
        fields.update(edge_label_index=index, edge_label=label)
    else:
        amount = int(neg.amount)
        if same:
            seeds, inverse = torch.cat([src, dst, neg_dst]).unique(return_inverse=True)
            out = {edge_type[0]: seeds}
            src_index, dst_all = inverse[:num_pos], inverse[num_pos:]
        else:
            s, src_index = src.unique(return_inverse=True)
            d, dst_all = torch.cat([dst, neg_dst]).unique(return_inverse=True)
            out = {edge_type[0]: s, edge_type[2]: d}
        fields.update(src_index=src_index, dst_pos_index=dst_all[:num_pos],
                      dst_neg_index=dst_all[num_pos:].view(num_pos, amount).squeeze(-1))
    return out, fields


def _checked_features(graph: HeteroGraph, features) -> Dict[str, Union[Table, torch.Tensor]]:
    """``features`` as {node type: Table or tensor} (None entries dropped): known types, one row
    per node of the type, Tables on the graph's device kind."""
    if features is None:
        return {}
    if not isinstance(features, Mapping):
        raise TypeError("features must be a {node_type: gnndirect_torch.Table, tensor or None} dict, got "
                        f"{type(features).__name__}")
    out = {}
    for t, table in features.items():
        if table is None:
            continue
        if t not in graph.num_nodes:
            raise ValueError(f"features for unknown node type {t!r} (node types: {graph.node_types})")
        if not isinstance(table, (Table, torch.Tensor)):
            raise TypeError(f"features[{t!r}] must be a gnndirect_torch.Table, a tensor or None, got "
                            f"{type(table).__name__}")
        if isinstance(table, torch.Tensor) and table.dim() < 1:
            raise ValueError(f"features[{t!r}] must have one row per node, got a 0-dim tensor")
        rows = int(table.shape[0]) if hasattr(table, "shape") else len(table)
        if rows != graph.num_nodes[t]:
            raise ValueError(f"the table of node type {t!r} has {rows} rows, the type has {graph.num_nodes[t]} nodes")
        if isinstance(table, Table) and (table.device.type == "cpu") != (graph.device.type == "cpu"):
            raise ValueError(f"features[{t!r}] is on {table.device}, the graph on {graph.device}: build both "
                             "with device='cpu' or both on a CUDA device")
        out[t] = table
    return out


def _edge_input(graph: HeteroGraph, edge_label_index) -> Tuple[EdgeType, torch.Tensor]:
    """(edge type, CPU int64 [2, P]) of ``edge_label_index=(edge_type, [2, P] ids)``; ids checked
    against their own types (IndexError naming the type)."""
    if not (isinstance(edge_label_index, tuple) and len(edge_label_index) == 2):
        raise TypeError("a typed graph's seed edges are edge_label_index=(edge_type, [2, P] tensor), as in PyG")
    key, pairs = edge_label_index
    e = graph.edge_type(key)
    if not isinstance(pairs, torch.Tensor) or pairs.dim() != 2 or pairs.size(0) != 2:
        raise ValueError(f"edge_label_index of {_edge_type_name(e)} must be a [2, num_edges] tensor, got "
                         f"{getattr(pairs, 'shape', type(pairs).__name__)}")
    if pairs.dtype == torch.bool or pairs.is_floating_point() or pairs.is_complex():
        raise TypeError(f"edge_label_index must hold integer node ids, got {pairs.dtype}")
    pairs = pairs.to("cpu", torch.int64).contiguous()
    for row, t in ((0, e[0]), (1, e[2])):
        ids, n = pairs[row], graph.num_nodes[t]
        if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= n):
            bad = int(ids[(ids < 0) | (ids >= n)][0])
            raise IndexError(f"edge_label_index row {row} ({'src' if row == 0 else 'dst'} of "
                             f"{_edge_type_name(e)}) holds id {bad} outside node type {t!r}'s [0, {n})")
    return e, pairs


class HeteroLinkNeighborLoader(EpochLoader):
    """Edge-seeded mini-batches over a typed graph (PyG's ``LinkNeighborLoader`` over
    ``HeteroData``), sampled by gnndirect's typed sampler with seeds of both endpoint types.

    Args:
        graph: a :class:`~gnndirect_torch.hetero.HeteroGraph` (CUDA: the GPU sampler;
            ``device="cpu"``: the host sampler, equal bit for bit).
        features: ``{node_type: Table, tensor or None}`` (a tensor is indexed on its device);
            types left out get no ``x``.
        edge_label_index: ``(edge_type, [2, P] tensor)``: the seed edges (src ids of the src type,
            dst ids of the dst type); the edge type as a tuple or a relation name.
        edge_label: optional labels of the seed edges (not with triplet negatives).
        neg_sampling: None, 'binary', 'triplet', a dict, :class:`~gnndirect_torch.NegativeSampling`
            or PyG's ``NegativeSampling``; ``neg_sampling_ratio`` is PyG's shorthand for binary.
        num_neighbors: fanouts per layer for every edge type, or a dict per edge type
            (``default`` for unnamed ones); -1 all, 0 none.
        batch_size: seed edges per batch.  shuffle, drop_last: epoch order (torch.randperm keyed
            by (seed, epoch)).  replace: sample with replacement.
        seed: base key; batch b of epoch e is keyed by (seed, e, b).
        dtype: ``x``'s dtype for tables with a lossy codec.  threads: CPU sampler threads.
    Iterating yields :class:`HeteroLinkBatch` objects; each ``iter()`` is a new epoch.
    The sampler reads its sizes back once per batch, on the loader's own stream (``side_stream``,
    see ``EpochLoader``). Seed edges are not removed
    from message passing (as PyG's default).
    Raises (construction): TypeError (not a typed graph, bad dtypes, features not a dict),
    ValueError (an unknown node or edge type, shapes, rows that disagree with a type's count,
    bad negatives, fanouts or batch size), IndexError (a seed id outside its type).
    """

    def __init__(self, graph: HeteroGraph, features: Optional[Mapping] = None, edge_label_index=None,
                 edge_label: Optional[torch.Tensor] = None, *, neg_sampling=None,
                 neg_sampling_ratio: Optional[float] = None, num_neighbors=None, default=None,
                 batch_size: int = 1, shuffle: bool = False, drop_last: bool = False, replace: bool = False,
                 seed: int = 0, dtype: Optional[torch.dtype] = None, threads: int = 0):
        if not isinstance(graph, HeteroGraph):
            raise TypeError(f"HeteroLinkNeighborLoader needs a gnndirect_torch.hetero.HeteroGraph, got "
                            f"{type(graph).__name__}")
        if num_neighbors is None:
            raise ValueError("HeteroLinkNeighborLoader needs num_neighbors")
        if edge_label_index is None:
            raise ValueError("HeteroLinkNeighborLoader needs edge_label_index=(edge_type, [2, P] tensor)")
        self.graph = graph
        self.features = _checked_features(graph, features)
        self.edge_type, self.edges = _edge_input(graph, edge_label_index)
        self.num_neighbors = dict(zip(graph.edge_types, graph.fanouts(num_neighbors, default)))
        if neg_sampling_ratio is not None and neg_sampling_ratio != 0:
            neg_sampling = NegativeSampling("binary", neg_sampling_ratio)
        self.neg = NegativeSampling.cast(neg_sampling)
        num = self.edges.size(1)
        if edge_label is not None:
            if self.neg is not None and self.neg.mode == "triplet":
                raise ValueError("edge_label must be None for triplet negative sampling (use src_index, "
                                 "dst_pos_index and dst_neg_index)")
            edge_label = torch.as_tensor(edge_label)
            if edge_label.dim() < 1 or edge_label.size(0) != num:
                raise ValueError(f"edge_label has {edge_label.shape[0] if edge_label.dim() else 0} entries for "
                                 f"{num} seed edges")
            edge_label = edge_label.cpu()
            if self.neg is not None and edge_label.numel() and edge_label.min() == 0:
                edge_label = edge_label + 1  # PyG: 0 now denotes "negative"
        self.edge_label = edge_label
        if int(batch_size) <= 0:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        self.batch_size, self.shuffle, self.drop_last = int(batch_size), bool(shuffle), bool(drop_last)
        self.replace, self.seed, self.dtype, self.threads = bool(replace), int(seed), dtype, int(threads)
        self._num_batches = num_batches(num, self.batch_size, self.drop_last)
        # the negative-sampling op's CSR of the relation, built once (strict: its out-CSR)
        self._neg_csr = None if self.neg is None else typed_negative_csr(graph, self.edge_type, self.neg.strict)
        self.epoch = -1

    def _num_inputs(self) -> int:
        return self.edges.size(1)

    def _batch_of(self, positions: torch.Tensor, epoch: int, index: int):
        return self.batch(positions, epoch=epoch, index=index)

    def batch(self, input_id: torch.Tensor, *, epoch: int = 0, index: int = 0) -> HeteroLinkBatch:
        """The batch of the seed edges at positions ``input_id`` (CPU int64), keyed by
        (seed, epoch, index): what iteration yields, callable directly (PyG's collate).
        Synchronises the current stream once (the sampled sizes)."""
        graph, e = self.graph, self.edge_type
        input_id = torch.as_tensor(input_id, dtype=torch.int64).cpu()
        src, dst = self.edges[0, input_id], self.edges[1, input_id]
        num_pos = src.numel()
        key = batch_key(self.seed, epoch, index)
        neg_src = neg_dst = unresolved = None
        if self.neg is not None:
            neg_src, neg_dst, unresolved = sample_typed_negatives(
                graph, e, src, dst, mode=self.neg.mode, amount=self.neg.amount, seed=batch_key(key, 1),
                strict=self.neg.strict, max_attempts=self.neg.max_attempts, csr=self._neg_csr)
        label = None if self.edge_label is None else self.edge_label[input_id]
        seeds, fields = typed_link_seeds(e, src, dst, num_pos, self.neg, neg_src, neg_dst, label)
        blocks = sample_typed_blocks(graph, seeds, self.num_neighbors, seed=key, replace=self.replace,
                                     threads=self.threads)
        x = {}
        for t, table in self.features.items():
            if isinstance(table, Table):
                x[t] = table.gather(blocks.nodes[t], dtype=self.dtype if table.encoded else None)
            else:
                x[t] = table[blocks.nodes[t].to(table.device, torch.int64)]
        device = graph.device
        fields = {k: (v.to(device) if isinstance(v, torch.Tensor) else v) for k, v in fields.items()}
        src_all = src if neg_src is None or self.neg.mode == "triplet" else torch.cat([src, neg_src])
        dst_all = dst if neg_dst is None else torch.cat([dst, neg_dst])
        return HeteroLinkBatch(epoch=epoch, index=index, sampling_seed=key, edge_type=e, blocks=blocks, x=x,
                               input_id=input_id, src=src_all.to(device), dst=dst_all.to(device),
                               num_unresolved=unresolved, **fields)
