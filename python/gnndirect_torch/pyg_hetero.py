"""PyG adapter for typed graphs: a BaseSampler that samples a HeteroData-shaped graph with
gnndirect's typed sampler (:func:`gnndirect_torch.hetero.sample_typed_blocks`) and returns
PyG's ``HeteroSamplerOutput``, so that PyG's own ``NeighborLoader`` runs over gnndirect's
stores (features per node type gathered by :class:`~gnndirect_torch.pyg.GnnDirectFeatureStore`,
one edge index per edge type in :class:`~gnndirect_torch.pyg.GnnDirectGraphStore`):

    from torch_geometric.loader import NeighborLoader
    from gnndirect_torch.pyg import GnnDirectFeatureStore, GnnDirectGraphStore
    from gnndirect_torch.pyg_hetero import GnnDirectHeteroSampler, put_hetero_data

    fs, gs = GnnDirectFeatureStore(), GnnDirectGraphStore()
    put_hetero_data(data, fs, gs)          # x (and y) per node type, edge_index per edge type
    num_neighbors = {("paper", "cites", "paper"): [15, 10], ("author", "writes", "paper"): [10, 5],
                     ("paper", "rev_writes", "author"): [5, 5]}
    sampler = GnnDirectHeteroSampler((fs, gs), num_neighbors)
    loader = NeighborLoader((fs, gs), num_neighbors, input_nodes=("paper", train_idx),
                            batch_size=1024, shuffle=True, neighbor_sampler=sampler)

Batches are ``HeteroData`` with, per node type, the stored attributes of its sampled nodes
(``n_id``, ``num_sampled_nodes``), and per edge type ``edge_index`` (row = local src id, col =
local dst id, hop by hop), ``e_id`` and ``num_sampled_edges``; the seed type has ``batch_size``.
PyG's ``LinkNeighborLoader((fs, gs), num_neighbors, edge_label_index=(edge_type, pairs),
neg_sampling="binary", neighbor_sampler=sampler)`` runs over the same sampler (sample_from_edges).
"""

from __future__ import annotations

from typing import Dict, Optional, Sequence

import torch

try:
    from torch_geometric.data import FeatureStore, GraphStore
    from torch_geometric.sampler import BaseSampler, EdgeSamplerInput, HeteroSamplerOutput, NodeSamplerInput
except ImportError as _error:  # pragma: no cover - needs torch_geometric
    raise ImportError("gnndirect_torch.pyg_hetero needs torch_geometric (pip install torch_geometric)") from _error

from .hetero import HeteroGraph, _edge_type_name, sample_typed_blocks
from .hetero_link import sample_typed_negatives, typed_link_seeds, typed_negative_csr
from .hetero_temporal import STRATEGIES, relation_times, sample_typed_temporal_blocks
from .link import NegativeSampling
from ._util import batch_key, sampler_call_key


def put_hetero_data(data, feature_store: FeatureStore, graph_store: GraphStore,
                    attrs: Sequence[str] = ("x", "y")) -> None:
    """Puts a ``HeteroData`` into the stores: ``attrs`` of every node type that has them (group
    = node type) and each edge type's ``edge_index`` (COO, ``size=(num src, num dst)``; kept as
    given, the CSC is made once when a sampler asks for it)."""
    for t in data.node_types:
        for name in attrs:
            if name in data[t]:
                feature_store.put_tensor(data[t][name], group_name=t, attr_name=name, index=None)
    for e in data.edge_types:
        graph_store.put_edge_index(data[e].edge_index, edge_type=e, layout="coo",
                                   size=(data[e[0]].num_nodes, data[e[2]].num_nodes))


def hetero_graph_of(graph_store: GraphStore, num_nodes: Optional[Dict[str, int]] = None, *,
                    other_node_types: Optional[Dict[str, int]] = None, **kwargs) -> HeteroGraph:
    """The :class:`~gnndirect_torch.hetero.HeteroGraph` of every edge type in a PyG GraphStore
    (any implementation; CSC layouts are used as they are, COO/CSR are made CSC once).

    Node counts come from ``num_nodes``, else from the edge attributes' ``size`` (src, dst),
    else from the largest id + 1; ``other_node_types`` adds node types no edge type names (and
    is ignored for the others). Other arguments as :class:`HeteroGraph` (default: the
    placement and device of a :class:`~gnndirect_torch.pyg.GnnDirectGraphStore`).
    Raises:
        ValueError: a homogeneous store (edge type None), edge types whose sizes disagree on a
            node type's count (naming both), or as :class:`HeteroGraph`.
    """
    for key, attribute in (("placement", "_placement"), ("indptr_placement", "_indptr_placement"),
                           ("device", "_device")):
        if key not in kwargs and hasattr(graph_store, attribute):
            kwargs[key] = getattr(graph_store, attribute)
    attrs = {}
    for attr in graph_store.get_all_edge_attrs():
        if not isinstance(attr.edge_type, tuple):
            raise ValueError(f"the graph store has edge type {attr.edge_type!r}: typed sampling needs "
                             "(src, rel, dst) edge types")
        layout = attr.layout.value
        if attr.edge_type not in attrs or layout == "csc":  # the CSC when there is one
            attrs[attr.edge_type] = attr
    counts: Dict[str, int] = dict(num_nodes or {})
    said: Dict[str, str] = {t: "num_nodes" for t in counts}
    for e, attr in attrs.items():
        if attr.size is None:
            continue
        for t, n in ((e[0], attr.size[0]), (e[2], attr.size[1])):
            if n is None:
                continue
            if t in counts and int(n) != counts[t]:
                raise ValueError(f"node type {t!r} has {counts[t]} nodes by {said[t]} but {int(n)} by edge type "
                                 f"{_edge_type_name(e)}'s size")
            counts.setdefault(t, int(n))
            said.setdefault(t, f"edge type {_edge_type_name(e)}'s size")
    csc, coo = {}, {}
    for e, attr in attrs.items():
        first, second = graph_store.get_edge_index(attr)
        layout = attr.layout.value
        if layout == "csc":
            csc[e] = (second.cpu(), first.cpu())  # (row, colptr) -> (indptr, indices)
        elif layout == "coo":
            coo[e] = torch.stack([first, second])
        else:  # csr: (rowptr, col)
            degrees = (first[1:] - first[:-1]).cpu()
            row = torch.repeat_interleave(torch.arange(degrees.numel()), degrees)
            coo[e] = torch.stack([row, second.cpu().to(row.dtype)])
    for e, edge_index in coo.items():
        for t, ids in ((e[0], edge_index[0]), (e[2], edge_index[1])):
            if t not in counts:
                counts[t] = int(ids.max()) + 1 if ids.numel() > 0 else 0
    for e, (indptr, _) in csc.items():
        counts.setdefault(e[2], indptr.numel() - 1)
    for e, (_, indices) in csc.items():
        counts.setdefault(e[0], int(indices.max()) + 1 if indices.numel() > 0 else 0)
    for t, n in (other_node_types or {}).items():
        counts.setdefault(t, int(n))
    relations, perms = {}, {}
    if coo:
        converted = HeteroGraph.csc_of_edge_index_dict(coo, counts)
        for e in attrs:
            if e in converted:
                relations[e], perms[e] = converted[e][:2], converted[e][2]
    for e in attrs:
        if e in csc:
            relations[e] = csc[e]
    ordered = {e: relations[e] for e in attrs}
    return HeteroGraph(ordered, counts, edge_permutation=perms, **kwargs)


def check_feature_store(graph: HeteroGraph, feature_store: FeatureStore) -> None:
    """Every tensor of ``feature_store`` belongs to a node type of ``graph`` (its group name) and
    has one row per node of that type. Raises ValueError naming the node type or attribute."""
    for attr in feature_store.get_all_tensor_attrs():
        if attr.group_name not in graph.num_nodes:
            raise ValueError(f"the feature store's attribute {attr.attr_name!r} belongs to group "
                             f"{attr.group_name!r}, which is no node type of the graph (node types: "
                             f"{graph.node_types})")
        size = feature_store.get_tensor_size(attr)
        if size is not None and int(size[0]) != graph.num_nodes[attr.group_name]:
            raise ValueError(f"the feature store's {attr.attr_name!r} of node type {attr.group_name!r} has "
                             f"{int(size[0])} rows, the type has {graph.num_nodes[attr.group_name]} nodes")


class GnnDirectHeteroSampler(BaseSampler):
    """Typed multi-hop neighbour sampling with gnndirect (GPU for a CUDA graph, the host
    reference for ``device="cpu"``) in PyG's ``HeteroSamplerOutput`` format, for
    ``NeighborLoader`` / ``NodeLoader`` over ``(feature_store, graph_store)``.

    Args:
        data: ``(feature_store, graph_store)`` (any PyG stores; the typed graph is made once with
            :func:`hetero_graph_of`, node types without edges taken from the feature store's
            groups, and the feature store's tables are checked against it), or a
            :class:`~gnndirect_torch.hetero.HeteroGraph`.
        num_neighbors: PyG's ``num_neighbors``: a list for every edge type or a dict per edge
            type (-1 all, 0 none); ``default`` for edge types the dict does not name.
        replace: sample with replacement.  seed: base random key (batch b draws with a key mixed
            from (seed, b): fresh neighbours per batch, reproducible runs).
        num_nodes: node counts per type for stores whose edge sizes are not set.
        time_attr: temporal sampling (PyG's ``time_attr``): the int64 node times stored under
            this attribute name for each node type of the feature store; or ``node_time``
            (``{node_type: times}``) / ``edge_time`` (``{edge_type: times}`` in the stored
            edge_index order) given directly (see :mod:`gnndirect_torch.hetero_temporal`).
            Seeds are sampled at ``input_time`` (NeighborLoader's), else at their own node times.
        temporal_strategy: 'uniform' or 'last' (PyG's ``temporal_strategy``).
    Raises (construction): ValueError / TypeError as :class:`HeteroGraph`,
    :meth:`HeteroGraph.fanouts`, :func:`check_feature_store` and
    :func:`~gnndirect_torch.hetero_temporal.relation_times`; ValueError for times with
    ``replace`` or a ``time_attr`` no node type has.
    Synchronises the current CUDA stream once per batch. ``sample_from_nodes`` (NeighborLoader)
    and ``sample_from_edges`` (PyG's ``LinkNeighborLoader`` over the stores: seeds of both
    endpoint types of the seed edge type).
    """

    def __init__(self, data, num_neighbors, *, default: Optional[Sequence[int]] = None, replace: bool = False,
                 seed: int = 0, num_nodes: Optional[Dict[str, int]] = None, time_attr: Optional[str] = None,
                 node_time: Optional[Dict[str, torch.Tensor]] = None, edge_time=None,
                 temporal_strategy: str = "uniform", **graph_kwargs):
        super().__init__()
        feature_store = None
        if isinstance(data, HeteroGraph):
            self.graph = data
        else:
            if not isinstance(data, (tuple, list)) or len(data) != 2:
                raise TypeError("GnnDirectHeteroSampler needs (feature_store, graph_store) or a HeteroGraph")
            feature_store, graph_store = data
            # node types without edges (features only) are the feature store's groups
            groups = {}
            for attr in feature_store.get_all_tensor_attrs():
                size = feature_store.get_tensor_size(attr)
                if isinstance(attr.group_name, str) and size is not None:
                    groups.setdefault(attr.group_name, int(size[0]))
            self.graph = hetero_graph_of(graph_store, num_nodes, other_node_types=groups, **graph_kwargs)
            check_feature_store(self.graph, feature_store)
        self.num_neighbors = num_neighbors
        self.default = default
        self.fanouts = self.graph.fanouts(num_neighbors, default)  # checked once, here
        self.replace = bool(replace)
        self.seed = int(seed)
        self._batches = 0
        self.node_time = _stored_node_times(feature_store, time_attr) if time_attr is not None else node_time
        self.temporal_strategy = temporal_strategy
        self.times = None  # (times per relation, form) when temporal
        if self.node_time is not None or edge_time is not None:
            if self.replace:
                raise ValueError("temporal sampling draws without replacement (replace=False)")
            if temporal_strategy not in STRATEGIES:
                raise ValueError(f"temporal_strategy must be one of {STRATEGIES}, got {temporal_strategy!r}")
            self.times = relation_times(self.graph, node_time=self.node_time, edge_time=edge_time)

    @property
    def edge_permutation(self):
        """Per edge type, CSC position -> position in the stored edge_index (None: identity)."""
        perms = self.graph.edge_permutation
        return perms if any(p is not None for p in perms.values()) else None

    def _next_seed(self) -> int:
        key = sampler_call_key(self.seed, self._batches)
        self._batches += 1
        return key

    def sample_from_nodes(self, index: NodeSamplerInput, **kwargs) -> HeteroSamplerOutput:
        """Samples the typed blocks of ``index.node`` (of ``index.input_type``).

        Raises:
            ValueError: no input type (homogeneous input) or an unknown one.
            IndexError: a seed outside its type's range.
        """
        if index.input_type is None:
            raise ValueError("GnnDirectHeteroSampler needs typed input nodes (input_nodes=(node_type, ids)); "
                             "use GnnDirectSampler for homogeneous graphs")
        device = self.graph.device
        seeds = index.node.to(device)
        if self.times is not None:
            return hetero_sampler_output(self._temporal_blocks(index.input_type, seeds, index.time), index)
        blocks = sample_typed_blocks(self.graph, index.input_type, seeds, self.num_neighbors, default=self.default,
                                     seed=self._next_seed(), replace=self.replace)
        return hetero_sampler_output(blocks, index)

    def _temporal_blocks(self, seed_type: str, seeds: torch.Tensor, seed_times: Optional[torch.Tensor]):
        """Typed temporal blocks of `seeds` at `seed_times`, else at their own node times."""
        if seed_times is None:
            if self.node_time is None or seed_type not in self.node_time:
                raise ValueError(f"temporal sampling from node type {seed_type!r} needs input_time (the seeds "
                                 "have no node times)")
            seed_times = self.node_time[seed_type][seeds.to(self.node_time[seed_type].device, torch.int64)]
        return sample_typed_temporal_blocks(self.graph, {seed_type: seeds}, {seed_type: seed_times.to(torch.int64)},
                                            self.num_neighbors, times=self.times,
                                            strategy=self.temporal_strategy, default=self.default,
                                            seed=self._next_seed())

    def sample_from_edges(self, index: EdgeSamplerInput, neg_sampling=None) -> HeteroSamplerOutput:
        """Samples the typed blocks of the seed edges ``index`` (of edge type
        ``index.input_type``) and their negatives, as PyG's hetero ``edge_sample`` lays them out
        (non-disjoint; gnndirect_torch.hetero_link): negatives of the edge type's endpoint types
        (:func:`~gnndirect_torch.hetero_link.sample_typed_negatives`, keyed per batch), the
        distinct endpoints of each type sorted as its seeds, one typed sample seeded with both.
        ``metadata``: (input_id, edge_label_index, edge_label, None) for binary or no negatives,
        (input_id, src_index, dst_pos_index, dst_neg_index, None) for triplet, what PyG's
        ``LinkLoader`` puts on the batch.

        Raises:
            ValueError: no or an unknown input edge type, seed times (temporal sampling is not
                supported here), a bad ``neg_sampling``.
            IndexError: a seed id outside its type's range (naming the type).
        """
        if index.input_type is None:
            raise ValueError("GnnDirectHeteroSampler needs typed seed edges (edge_label_index=(edge_type, ...)); "
                             "use GnnDirectSampler for homogeneous graphs")
        if index.time is not None or self.times is not None:
            raise ValueError("GnnDirectHeteroSampler.sample_from_edges: temporal link sampling on typed graphs "
                             "is not supported (sample_from_nodes samples temporally)")
        edge_type = self.graph.edge_type(index.input_type)
        neg = NegativeSampling.cast(neg_sampling)
        src, dst = index.row.cpu().to(torch.int64), index.col.cpu().to(torch.int64)
        key = self._next_seed()
        neg_src = neg_dst = None
        if neg is not None:
            cache = self.__dict__.setdefault("_neg_csr", {})  # per relation, on the graph's device
            if edge_type not in cache:
                cache[edge_type] = typed_negative_csr(self.graph, edge_type)
            neg_src, neg_dst, _ = sample_typed_negatives(self.graph, edge_type, src, dst, mode=neg.mode,
                                                         amount=neg.amount, seed=batch_key(key, 1),
                                                         csr=cache[edge_type])
        label = None if index.label is None else index.label.cpu()
        seeds, fields = typed_link_seeds(edge_type, src, dst, src.numel(), neg, neg_src, neg_dst, label)
        blocks = sample_typed_blocks(self.graph, seeds, self.num_neighbors, default=self.default, seed=key,
                                     replace=self.replace)
        node, row, col, edge, nodes, edges = blocks.to_pyg()
        if neg is None or neg.mode == "binary":
            metadata = (index.input_id, fields["edge_label_index"], fields["edge_label"], None)
        else:
            metadata = (index.input_id, fields["src_index"], fields["dst_pos_index"], fields["dst_neg_index"], None)
        return HeteroSamplerOutput(node=node, row=row, col=col, edge=edge, batch=None, num_sampled_nodes=nodes,
                                   num_sampled_edges=edges, metadata=metadata)


def _stored_node_times(feature_store: Optional[FeatureStore], time_attr: str) -> Dict[str, torch.Tensor]:
    """The ``time_attr`` tensor of every node type (group) of `feature_store` that stores one.
    Raises ValueError without a feature store, or when no node type has it."""
    if feature_store is None:
        raise ValueError("time_attr needs (feature_store, graph_store) data; pass node_time= with a HeteroGraph")
    out = {}
    for attr in feature_store.get_all_tensor_attrs():
        if attr.attr_name == time_attr and isinstance(attr.group_name, str):
            out[attr.group_name] = feature_store.get_tensor(group_name=attr.group_name, attr_name=time_attr,
                                                            index=None)
    if not out:
        raise ValueError(f"time_attr {time_attr!r}: no node type of the feature store has it")
    return out


def hetero_sampler_output(blocks, index: Optional[NodeSamplerInput] = None) -> HeteroSamplerOutput:
    """PyG's ``HeteroSamplerOutput`` of :class:`~gnndirect_torch.hetero.TypedBlocks` (metadata:
    the input ids and times of ``index`` when given)."""
    node, row, col, edge, nodes, edges = blocks.to_pyg()
    metadata = (index.input_id, index.time) if index is not None else None
    return HeteroSamplerOutput(node=node, row=row, col=col, edge=edge, batch=None, num_sampled_nodes=nodes,
                               num_sampled_edges=edges, metadata=metadata)
