"""The sampling ops over CSR tensors (indptr, indices, optional weights), below the Graph class
that calls them (Graph.sample_neighbors / sample_blocks) and the public functions of ``ops``
that accept a Graph or the tensors."""

from __future__ import annotations

from typing import List, Optional, Sequence

import torch

from ._blocks import Block, Sampled
from ._extension import _call, _check_fork, load_extension
from ._util import check_fanout, check_fanouts


def sample_neighbors_csr(indptr: torch.Tensor, indices: torch.Tensor, seeds: torch.Tensor,
                         fanout: int, *, layer: int = 0, seed: int = 0, replace: bool = False,
                         weights: Optional[torch.Tensor] = None, check: bool = True,
                         threads: int = 0) -> Sampled:
    """:func:`gnndirect_torch.sample_neighbors` on the graph's tensors (``weights``: the edge
    weights to use, the graph's or the caller's); same devices, synchronisation and errors."""
    load_extension()
    _check_fork("gnndirect_torch.sample_neighbors", indptr, indices, seeds, weights)
    fan = check_fanout(fanout)  # TypeError for a bool, as sample_blocks' fanouts
    out = _call(torch.ops.gnndirect.sample_neighbors.default, indptr, indices, seeds, fan,
                int(layer), int(seed), bool(replace), weights, bool(check), int(threads))
    return Sampled(*out)


def sample_blocks_csr(indptr: torch.Tensor, indices: torch.Tensor, seeds: torch.Tensor,
                      fanouts: Sequence[int], *, seed: int = 0, replace: bool = False,
                      weights: Optional[torch.Tensor] = None, check: bool = True,
                      threads: int = 0) -> List[Block]:
    """:func:`gnndirect_torch.sample_blocks` on the graph's tensors (``weights``: the edge
    weights to use, the graph's or the caller's); same devices, synchronisation and errors."""
    load_extension()
    fans = check_fanouts(fanouts)
    _check_fork("gnndirect_torch.sample_blocks", indptr, indices, seeds, weights)
    flat = _call(torch.ops.gnndirect.sample_blocks.default, indptr, indices, seeds, fans,
                 int(seed), bool(replace), weights, bool(check), int(threads))
    return blocks_of(flat, seeds.shape[0], len(fans))


def blocks_of(flat: Sequence[torch.Tensor], num_seeds: int, layers: int) -> List[Block]:
    """The :class:`Block` list of a sampling op's flat output (src_nodes, offsets, indices,
    edge_ids per layer, seeds side first)."""
    blocks = []
    num_dst = num_seeds
    for layer in range(layers):
        src, offsets, local, edge_ids = flat[4 * layer: 4 * layer + 4]
        blocks.append(Block(src_nodes=src, num_dst=num_dst, offsets=offsets, indices=local,
                            edge_ids=edge_ids))
        num_dst = src.shape[0]
    return blocks
