"""The sampled-graph value types shared by the sampling ops, the loader and the PyG adapter:
:class:`Sampled` (one layer in CSR form), :class:`Block` (one layer in local ids), :class:`Batch`
(a prepared mini-batch), and the conversions to and from PyG's hop-by-hop layout.

The one boundary where the extension's outputs get names: the C++ side returns each block sample
as a flat list (src_nodes, offsets, local indices, edge_ids per layer, seeds side first: the
sampling ops and the pipeline's ``BatchTensors.layers`` alike) and :func:`blocks_of` /
:func:`batch_of` turn it into :class:`Block` and :class:`Batch` objects; nothing else reads
those lists by position."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, NamedTuple, Sequence

import torch

from ._util import layer_slices, pyg_counts


class Sampled(NamedTuple):
    """Sampled neighbours in CSR form: seed i's are ``neighbors[offsets[i]:offsets[i+1]]``."""
    offsets: torch.Tensor
    neighbors: torch.Tensor
    edge_ids: torch.Tensor


@dataclass
class Block:
    """One message-flow block (a sampling layer) in local ids.

    ``src_nodes`` are global ids, the first ``num_dst`` of them the dst nodes; dst node d's
    sampled in-neighbours are the local src ids ``indices[offsets[d]:offsets[d+1]]``.
    """
    src_nodes: torch.Tensor
    num_dst: int
    offsets: torch.Tensor
    indices: torch.Tensor
    edge_ids: torch.Tensor

    @property
    def num_src(self) -> int:
        """Source (input side) nodes."""
        return self.src_nodes.shape[0]

    @property
    def num_edges(self) -> int:
        """Sampled edges."""
        return self.indices.shape[0]

    def edge_index(self) -> torch.Tensor:
        """PyG ``edge_index`` [2, E] of this block in local ids: row = src, col = dst."""
        counts = self.offsets[1:] - self.offsets[:-1]
        col = torch.repeat_interleave(torch.arange(self.num_dst, device=self.offsets.device), counts,
                                      output_size=self.num_edges)
        return torch.stack([self.indices.to(torch.int64), col])


#: Tensors per layer in the extension's flat block lists, in order (the fields of :class:`Block`
#: they become).
FLAT_LAYER_FIELDS = ("src_nodes", "offsets", "indices", "edge_ids")


def blocks_of(flat: Sequence[torch.Tensor], num_seeds: int) -> List[Block]:
    """The :class:`Block` list of the extension's flat output (:data:`FLAT_LAYER_FIELDS` per
    layer, seeds side first); block l's dst nodes are block l-1's src nodes (the seeds for l = 0).

    Raises:
        ValueError: a list whose length is not a multiple of the fields per layer.
    """
    width = len(FLAT_LAYER_FIELDS)
    if len(flat) % width != 0:
        raise ValueError(f"a flat block list holds {width} tensors per layer, got {len(flat)}")
    blocks = []
    num_dst = int(num_seeds)
    for layer in range(len(flat) // width):
        block = Block(num_dst=num_dst, **dict(zip(FLAT_LAYER_FIELDS, flat[width * layer: width * (layer + 1)])))
        blocks.append(block)
        num_dst = block.num_src
    return blocks


def blocks_to_pyg(blocks: Sequence[Block]):
    """(n_id, edge_index, e_id, num_sampled_nodes, num_sampled_edges) of a block sample in PyG's
    hop-by-hop layout (one edge_index over all hops; see :func:`blocks_from_pyg`)."""
    n_id = blocks[-1].src_nodes
    edge_index = torch.cat([b.edge_index() for b in blocks], dim=1)
    e_id = torch.cat([b.edge_ids.to(torch.int64) for b in blocks])
    nodes, edges = pyg_counts(blocks[0].num_dst, [b.num_src for b in blocks],
                              [b.num_edges for b in blocks])
    return n_id, edge_index, e_id, nodes, edges


def blocks_from_pyg(edge_index: torch.Tensor, num_sampled_nodes: Sequence[int],
                    num_sampled_edges: Sequence[int]) -> List[dict]:
    """Per block (seeds side first): ``{"edge_index", "num_dst", "num_src"}`` recovered from a
    PyG mini-batch produced by :class:`gnndirect_torch.pyg.GnnDirectSampler`."""
    out = []
    for s in layer_slices(num_sampled_nodes, num_sampled_edges):
        out.append({"edge_index": edge_index[:, s["edge_begin"]:s["edge_end"]],
                    "num_dst": s["num_dst"], "num_src": s["num_src"]})
    return out


@dataclass
class Batch:
    """A prepared mini-batch on the GPU: features ``x`` of ``n_id`` (seeds first), labels ``y``
    of the seeds, and the blocks (seeds side first). ``sampling_seed`` is the random key its
    blocks were drawn with (``sample_blocks(graph, n_id[:batch_size], fanouts,
    seed=sampling_seed)`` reproduces them, also on the CPU)."""
    epoch: int
    index: int
    batch_size: int
    sampling_seed: int
    n_id: torch.Tensor
    x: torch.Tensor
    y: torch.Tensor
    blocks: List[Block]

    def to_pyg(self):
        """A ``torch_geometric.data.Data`` with x, y (seeds), edge_index, n_id, e_id,
        batch_size, num_sampled_nodes and num_sampled_edges (imports torch_geometric)."""
        from torch_geometric.data import Data
        n_id, edge_index, e_id, nodes, edges = blocks_to_pyg(self.blocks)
        return Data(x=self.x, y=self.y, edge_index=edge_index, n_id=n_id, e_id=e_id,
                    batch_size=self.batch_size, num_sampled_nodes=nodes, num_sampled_edges=edges)


def batch_of(out) -> Batch:
    """The :class:`Batch` of one of the extension pipeline's ``BatchTensors`` (epoch, index,
    num_seeds, sampling_seed, the flat ``layers``, x, y): blocks named by :func:`blocks_of`,
    ``n_id`` the last block's src nodes (the rows of ``x``)."""
    blocks = blocks_of(out.layers, out.num_seeds)
    return Batch(epoch=int(out.epoch), index=int(out.index), batch_size=int(out.num_seeds),
                 sampling_seed=int(out.sampling_seed), n_id=blocks[-1].src_nodes, x=out.x, y=out.y,
                 blocks=blocks)
