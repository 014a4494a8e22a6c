"""Node-seeded mini-batches over a typed graph (:class:`HeteroNeighborLoader`, what
``gd.NeighborLoader`` returns for a :class:`~gnndirect_torch.hetero.HeteroGraph`): typed blocks
from :func:`~gnndirect_torch.hetero.sample_typed_blocks`, every node type's features gathered
from its own :class:`~gnndirect_torch.Table`, the seeds' labels."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Tuple

import torch

from ._sampling import EpochLoader
from ._util import batch_key, num_batches, seed_ids
from .hetero import HeteroGraph, TypedBlocks, sample_typed_blocks
from .table import Table

__all__ = ["HeteroBatch", "HeteroNeighborLoader"]


@dataclass
class HeteroBatch:
    """A typed mini-batch: ``blocks`` (:class:`~gnndirect_torch.hetero.TypedBlocks`, seeds of
    ``seed_type`` first in ``blocks.nodes[seed_type]``), ``x[t]`` the features of
    ``blocks.nodes[t]`` for every node type with a table, ``y`` the seeds' labels.
    ``sample_typed_blocks(graph, seed_type, blocks.nodes[seed_type][:batch_size], num_neighbors,
    seed=sampling_seed)`` reproduces the blocks (also on the CPU)."""
    epoch: int
    index: int
    seed_type: str
    batch_size: int
    sampling_seed: int
    blocks: TypedBlocks
    x: Dict[str, torch.Tensor]
    y: torch.Tensor

    @property
    def n_id(self) -> Dict[str, torch.Tensor]:
        """Per node type, the ids of the batch's nodes (the rows of ``x[t]``)."""
        return self.blocks.nodes

    def to_pyg(self):
        """A ``torch_geometric.data.HeteroData`` as PyG's hetero ``NeighborLoader`` yields it: per
        node type ``x`` (where a table exists), ``n_id`` and ``num_sampled_nodes``; per edge type
        ``edge_index`` (local src, local dst; hop by hop), ``e_id`` (CSC positions) and
        ``num_sampled_edges``; the seed type's ``y`` and ``batch_size`` (imports torch_geometric)."""
        data = self.blocks.to_hetero_data(self.x)
        data[self.seed_type].y = self.y
        data[self.seed_type].batch_size = self.batch_size
        return data


def _checked_tables(graph: HeteroGraph, features) -> Dict[str, Optional[Table]]:
    """``features`` as {node type: Table or None}: rows checked against each type's count, every
    table on the graph's device kind (CPU tables for a CPU graph)."""
    if not isinstance(features, Mapping):
        raise TypeError("a typed graph's features are a {node_type: gnndirect_torch.Table or None} dict, "
                        f"got {type(features).__name__}")
    tables = {t: v for t, v in features.items() if v is not None}
    for t, table in tables.items():
        if not isinstance(table, Table):
            raise TypeError(f"features[{t!r}] must be a gnndirect_torch.Table or None, got {type(table).__name__}")
    graph.check_tables(tables)
    for t, table in tables.items():
        if (table.device.type == "cpu") != (graph.device.type == "cpu"):
            raise ValueError(f"features[{t!r}] is on {table.device}, the graph on {graph.device}: build both "
                             "with device='cpu' or both on a CUDA device")
    return tables


def _seed_input(graph: HeteroGraph, input_nodes) -> Tuple[str, torch.Tensor]:
    """(seed type, CPU int64 seed ids) of PyG's ``input_nodes=(node_type, ids or mask)``."""
    if not (isinstance(input_nodes, tuple) and len(input_nodes) == 2 and isinstance(input_nodes[0], str)):
        raise TypeError("a typed graph's seeds are input_nodes=(node_type, ids or boolean mask), as in PyG")
    seed_type, ids = input_nodes
    count = graph.num_nodes.get(seed_type)
    if count is None:
        raise ValueError(f"input_nodes names node type {seed_type!r}; node types: {graph.node_types}")
    ids = seed_ids(torch.as_tensor(ids), count).to("cpu", torch.int64).contiguous()
    if ids.dim() != 1:
        raise ValueError(f"input_nodes ids must be 1-D, got shape {tuple(ids.shape)}")
    if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= count):
        bad = int(ids[(ids < 0) | (ids >= count)][0])
        raise IndexError(f"input_nodes holds id {bad} outside node type {seed_type!r}'s [0, {count})")
    return seed_type, ids


class HeteroNeighborLoader(EpochLoader):
    """Shuffled node-seeded mini-batches over a typed graph (PyG's ``NeighborLoader`` over
    ``HeteroData``), sampled by gnndirect's typed sampler.

    Args:
        graph: a :class:`~gnndirect_torch.hetero.HeteroGraph` (CUDA: the GPU sampler;
            ``device="cpu"``: the host sampler, equal bit for bit).
        features: ``{node_type: Table or None}``; node types left out or None get no ``x`` (their
            embeddings are the model's). Each table has its own width, dtype, placement, codec
            and cache tier.
        labels: one label per node of the seed type (any device; indexed there, moved to the
            graph's device).
        input_nodes: ``(seed_type, ids or boolean mask)``, as in PyG.
        num_neighbors: fanouts per layer for every edge type, or PyG's dict per edge type (see
            :meth:`HeteroGraph.fanouts`); -1 all, 0 none.
        batch_size: seeds per batch.  shuffle, drop_last: epoch order (torch.randperm keyed by
            (seed, epoch)).  replace: sample with replacement.
        seed: base key; batch b of epoch e samples with key (seed, e, b) (``batch.sampling_seed``).
        dtype: ``x``'s dtype for tables with a lossy codec (float32 default, float16, bfloat16).
        threads: CPU sampler threads (0: all; CPU graphs only).
    Iterating yields :class:`HeteroBatch` objects; each ``iter()`` is a new epoch. Each batch is
    sampled and gathered when asked for (the sampler reads its sizes back once), on the loader's
    own stream, which the caller's current stream then waits for, so that it overlaps the
    caller's previous step (``side_stream``, see ``EpochLoader``; False: on the current stream).
    :meth:`batch` prepares one on the current stream.
    Raises (construction): TypeError (a graph that is not typed, features not a dict of Tables,
    seeds not ``(type, ids)``), ValueError (an unknown node or edge type, rows or labels that
    disagree with a type's count, devices that disagree, bad fanouts or batch size),
    IndexError (a seed outside its type).
    """

    def __init__(self, graph: HeteroGraph, features, labels: torch.Tensor, input_nodes, num_neighbors,
                 batch_size: int = 1024, *, shuffle: bool = True, drop_last: bool = False, replace: bool = False,
                 seed: int = 0, dtype: Optional[torch.dtype] = None, threads: int = 0):
        if not isinstance(graph, HeteroGraph):
            raise TypeError(f"HeteroNeighborLoader needs a gnndirect_torch.hetero.HeteroGraph, got {type(graph).__name__}")
        self.graph = graph
        self.features = _checked_tables(graph, features)
        self.seed_type, self.input_ids = _seed_input(graph, input_nodes)
        # Checked once (ValueError naming the edge type), kept as the dict per edge type it means.
        self.num_neighbors = dict(zip(graph.edge_types, graph.fanouts(num_neighbors)))
        labels = torch.as_tensor(labels)
        if labels.dim() < 1 or labels.shape[0] != graph.num_nodes[self.seed_type]:
            raise ValueError(f"labels need one entry per {self.seed_type!r} node "
                            f"({graph.num_nodes[self.seed_type]}), got shape {tuple(labels.shape)}")
        self.labels = labels
        if int(batch_size) <= 0:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        self.batch_size, self.shuffle, self.drop_last = int(batch_size), bool(shuffle), bool(drop_last)
        self.replace, self.seed, self.dtype, self.threads = bool(replace), int(seed), dtype, int(threads)
        self._num_batches = num_batches(self.input_ids.numel(), self.batch_size, self.drop_last)
        self.epoch = -1

    def _num_inputs(self) -> int:
        return self.input_ids.numel()

    def _batch_of(self, positions: torch.Tensor, epoch: int, index: int):
        return self.batch(self.input_ids[positions], epoch=epoch, index=index)

    def batch(self, seeds: torch.Tensor, *, epoch: int = 0, index: int = 0) -> HeteroBatch:
        """The batch of ``seeds`` (ids of the seed type) keyed by (seed, epoch, index): what
        iteration yields, callable directly (e.g. on a side stream). Synchronises the current
        stream once (the sampled sizes)."""
        key = batch_key(self.seed, epoch, index)
        blocks = sample_typed_blocks(self.graph, self.seed_type, seeds, self.num_neighbors, seed=key,
                                     replace=self.replace, threads=self.threads)
        x = {t: table.gather(blocks.nodes[t], dtype=self.dtype if table.encoded else None)
             for t, table in self.features.items()}
        seed_ids_here = blocks.nodes[self.seed_type][:seeds.numel()]
        y = self.labels[seed_ids_here.to(self.labels.device, torch.int64)].to(self.graph.device)
        return HeteroBatch(epoch=epoch, index=index, seed_type=self.seed_type, batch_size=int(seeds.numel()),
                           sampling_seed=key, blocks=blocks, x=x, y=y)
