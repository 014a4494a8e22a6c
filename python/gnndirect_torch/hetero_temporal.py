"""Temporal sampling through typed graphs: :func:`sample_typed_temporal_blocks`, the typed
sample of :func:`~gnndirect_torch.hetero.sample_typed_blocks` where every row carries a query
time and only neighbours at or before it are drawn (PyG's ``time_attr`` / ``temporal_strategy``
on ``HeteroData``).

    from gnndirect_torch.hetero_temporal import sample_typed_temporal_blocks
    blocks = sample_typed_temporal_blocks(graph, {"paper": seeds}, {"paper": seed_times}, [10, 5],
                                          node_time={"paper": paper_year, "author": author_year},
                                          strategy="last")

Times are int64: per node type (``node_time``: relation r draws by its src type's node times) or
per edge type (``edge_time``: one per edge, in the order of the edge_index the relation was built
from when the graph has an :attr:`~gnndirect_torch.hetero.HeteroGraph.edge_permutation`, else
CSC position order). A seed's row has its seed time; a node added at layer l is expanded at
l + 1 with the earliest time of the rows that sampled it (docs/heterogeneous.md "Temporal
sampling on typed graphs"; PyG samples temporal hetero graphs in disjoint mode instead, and the
two agree where seeds share no nodes). 'uniform' draws uniformly among the eligible neighbours
(with every time eligible, exactly what sample_typed_blocks draws), 'last' takes the most recent.

On a CUDA graph the library's ``sample_typed_temporal_blocks_async`` runs (times in device memory
or in a host placement the GPU reads: :func:`~gnndirect_torch.to_placement`); on a CPU graph its
host form, which the GPU equals bit for bit.
"""

from __future__ import annotations

from typing import List, Mapping, Optional, Sequence, Tuple

import torch

from ._extension import _check_fork
from .ops import placement_of
from .hetero import (EdgeType, HeteroGraph, TypedBlocks, _checked_seeds, _edge_type_name, _load, _typed_blocks_of,
                     typed_flat_fake)

_fake_registered = False

STRATEGIES = ("uniform", "last")


def _register_fake() -> None:
    """Registers the op's fake (meta) kernel once (shapes for torch.compile and opcheck: every size
    but the seeds' is data-dependent)."""
    global _fake_registered
    _load()
    if _fake_registered:
        return

    @torch.library.register_fake("gnndirect::sample_typed_temporal_blocks")
    def _fake(indptrs, indices, src_types, dst_types, num_nodes, seeds, seed_times, fanouts, max_degrees, times,
              time_form="edge", strategy="uniform", seed=0, check=True):
        return typed_flat_fake(seeds[0], indptrs, indices, num_nodes, fanouts)

    _fake_registered = True


def relation_times(graph: HeteroGraph, *, node_time: Optional[Mapping[str, torch.Tensor]] = None,
                   edge_time: Optional[Mapping[EdgeType, torch.Tensor]] = None) -> Tuple[List[torch.Tensor], str]:
    """(times per relation in schema order, time form) of ``node_time`` or ``edge_time`` (see the
    module doc): relation r gets its src type's node times, or its edge times permuted to CSC
    position order by the graph's edge_permutation. Made once per sampler, not per batch: on a
    CUDA graph, times in pageable host memory are copied to its device, others used in place.

    Raises:
        ValueError: both or neither given; an unknown node or edge type; a relation whose src
            type (node form) or which itself (edge form) has no times; times of the wrong length
            (naming the type and both lengths).
        TypeError: times that are not 1-D int64 tensors.
    """
    if (node_time is None) == (edge_time is None):
        raise ValueError("typed temporal sampling needs exactly one of node_time and edge_time")
    given = node_time if node_time is not None else edge_time
    if not isinstance(given, Mapping):
        raise TypeError("node_time / edge_time must be a dict per node type / edge type")

    def checked(t, what: str, expected: int) -> torch.Tensor:
        if not isinstance(t, torch.Tensor) or t.dim() != 1 or t.dtype != torch.int64:
            raise TypeError(f"{what} must be a 1-D int64 tensor, got "
                            f"{t.dtype if isinstance(t, torch.Tensor) else type(t).__name__}")
        if t.numel() != expected:
            raise ValueError(f"{what} has {t.numel()} entries, expected {expected}")
        return t

    def placed(t: torch.Tensor) -> torch.Tensor:
        if graph.device.type == "cpu":
            return t.cpu().contiguous()
        # a CUDA graph reads times where they are (device, pinned, managed); pageable host
        # memory, which the GPU cannot read, is copied to the device (8 bytes per entry)
        t = t.contiguous()
        return t.to(graph.device) if not t.is_cuda and placement_of(t) == "pageable" else t

    out = []
    if node_time is not None:
        per_type = {}
        for t, times in node_time.items():
            graph.node_type_index(t)  # ValueError naming an unknown type
            per_type[t] = placed(checked(times, f"node_time[{t!r}]", graph.num_nodes[t]))
        for e in graph.edge_types:
            if e[0] not in per_type:
                raise ValueError(f"node_time has no times for node type {e[0]!r}, the src type of edge type "
                                 f"{_edge_type_name(e)} (give every src type its node times)")
            out.append(per_type[e[0]])
        return out, "node"
    per_edge = {}
    for key, times in edge_time.items():
        e = graph.edge_type(key)
        per_edge[e] = checked(times, f"edge_time[{_edge_type_name(e)}]", graph.graphs[e].num_edges)
    for e in graph.edge_types:
        if e not in per_edge:
            raise ValueError(f"edge_time has no times for edge type {_edge_type_name(e)} (give every edge type "
                             "its edge times)")
        times, perm = per_edge[e], graph.edge_permutation.get(e)
        out.append(placed(times if perm is None else times[perm.to(times.device)]))
    return out, "edge"


def sample_typed_temporal_blocks(graph: HeteroGraph, seeds: Mapping[str, torch.Tensor],
                                 seed_times: Mapping[str, torch.Tensor], num_neighbors, *,
                                 node_time: Optional[Mapping[str, torch.Tensor]] = None,
                                 edge_time: Optional[Mapping[EdgeType, torch.Tensor]] = None,
                                 strategy: str = "uniform", default: Optional[Sequence[int]] = None,
                                 seed: int = 0, check: bool = True, times=None) -> TypedBlocks:
    """Typed temporal multi-layer sampling (see the module doc).

    Args:
        graph: the :class:`~gnndirect_torch.hetero.HeteroGraph`.
        seeds: ``{node_type: 1-D ids}`` (one entry for one seed type); each type's list starts
            with its seeds in the given order.
        seed_times: ``{node_type: int64 query times}``, one per seed of that type.
        num_neighbors: fanouts per layer for every edge type, or per edge type (-1 all eligible).
        node_time / edge_time: the times (exactly one; see :func:`relation_times`).
        strategy: 'uniform' or 'last'.  default: fanouts of edge types a dict does not name.
        seed: random key ('uniform').  check: check the seeds (GPU: on the device).
        times: a :func:`relation_times` result to reuse instead of node_time / edge_time.
    Returns:
        :class:`~gnndirect_torch.hetero.TypedBlocks` on the graph's device (``seed_type`` set when
        ``seeds`` names one type); ``num_seeds`` per type.
    Synchronises the current stream (the sizes).
    Raises:
        ValueError: an unknown node type, seeds without times or times without seeds, a bad
            strategy or ``num_neighbors``, as :func:`relation_times`.
        IndexError: a seed outside its type's range ("seeds (node type 'paper')[i] = v ...").
        TypeError: seeds that are not integer tensors, times that are not int64.
    """
    if not isinstance(graph, HeteroGraph):
        raise TypeError(f"graph must be a gnndirect_torch.hetero.HeteroGraph, got {type(graph).__name__}")
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
    if not isinstance(seeds, Mapping) or not isinstance(seed_times, Mapping):
        raise TypeError("seeds and seed_times must be {node_type: tensor} dicts")
    if set(seeds) != set(seed_times):
        raise ValueError(f"seeds name node types {sorted(seeds)} but seed_times {sorted(seed_times)} "
                         "(one query time per seed)")
    per_relation, form = times if times is not None else relation_times(graph, node_time=node_time,
                                                                         edge_time=edge_time)
    fanouts = graph.fanouts(num_neighbors, default)
    where = graph.device if graph.device.type == "cuda" else torch.device("cpu")
    ids, whens = {}, {}
    for t, values in seeds.items():
        graph.node_type_index(t)
        ids[t] = _checked_seeds(graph, values, f"seeds[{t!r}]")
        when = seed_times[t]
        if not isinstance(when, torch.Tensor) or when.dtype != torch.int64:
            raise TypeError(f"seed_times[{t!r}] must be an int64 tensor")
        whens[t] = when.to(ids[t].device)
    empty = torch.empty(0, dtype=graph.index_dtype, device=where)
    empty_time = torch.empty(0, dtype=torch.int64, device=where)
    seed_list = [ids.get(t, empty) for t in graph.node_types]
    time_list = [whens.get(t, empty_time) for t in graph.node_types]
    graph_tensors = [x for e in graph.edge_types for x in (graph.graphs[e].indptr, graph.graphs[e].indices)]
    _check_fork("gnndirect_torch.sample_typed_temporal_blocks", *seed_list, *graph_tensors)
    _register_fake()
    src_types, dst_types, counts = graph._types()
    flat = graph._run("sample_typed_temporal_blocks",
                      [graph.graphs[e].indptr for e in graph.edge_types],
                      [graph.graphs[e].indices for e in graph.edge_types],
                      src_types, dst_types, counts, seed_list, time_list, [f for fs in fanouts for f in fs],
                      graph.max_degrees, list(per_relation), form, strategy, int(seed), bool(check))
    num_seeds = {t: int(x.shape[0]) for t, x in zip(graph.node_types, seed_list)}
    seed_type = next(iter(seeds)) if len(seeds) == 1 else None
    out = _typed_blocks_of(graph, seed_type, sum(num_seeds.values()), flat, len(fanouts[0]))
    out.num_seeds = num_seeds
    return out


__all__ = ["sample_typed_temporal_blocks", "relation_times", "STRATEGIES"]
