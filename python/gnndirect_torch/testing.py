"""The test oracle: gnndirect's host reference sampler, which the library's GPU samplers
reproduce bit for bit (same ``seed``, same result).

This is what the extension's own tests check the CUDA ops against, and what a framework can
check its GPU data path against. It is not a data path: it runs on CPU tensors only, written
for clarity rather than speed. The public CPU ops (:func:`gnndirect_torch.sample_neighbors`
and :func:`gnndirect_torch.sample_blocks` on CPU tensors) run the fast all-core CPU sampler,
which draws from the same distributions with other random numbers.
"""

from __future__ import annotations

from typing import List, Optional, Sequence

import torch

from ._blocks import Block, Sampled, blocks_of
from ._extension import _call, load_extension
from ._util import check_fanouts


def reference_sample_neighbors(indptr: torch.Tensor, indices: torch.Tensor, seeds: torch.Tensor,
                               fanout: int, *, layer: int = 0, seed: int = 0,
                               replace: bool = False, weights: Optional[torch.Tensor] = None,
                               threads: int = 0) -> Sampled:
    """What GPU :func:`gnndirect_torch.sample_neighbors` returns for the same arguments, computed
    by the host reference on CPU tensors (``threads``: 0 for all cores; the result does not
    depend on it). Raises as :func:`gnndirect_torch.sample_neighbors`."""
    load_extension()
    out = _call(torch.ops.gnndirect._reference_sample_neighbors.default, indptr, indices, seeds,
                int(fanout), int(layer), int(seed), bool(replace), weights, int(threads))
    return Sampled(*out)


def reference_sample_blocks(indptr: torch.Tensor, indices: torch.Tensor, seeds: torch.Tensor,
                            fanouts: Sequence[int], *, seed: int = 0, replace: bool = False,
                            weights: Optional[torch.Tensor] = None,
                            threads: int = 0) -> List[Block]:
    """What GPU :func:`gnndirect_torch.sample_blocks` returns for the same arguments (blocks,
    seeds side first, local ids in order of first appearance), computed by the host reference on
    CPU tensors. Raises as :func:`gnndirect_torch.sample_blocks`."""
    load_extension()
    fans = check_fanouts(fanouts)
    flat = _call(torch.ops.gnndirect._reference_sample_blocks.default, indptr, indices, seeds, fans,
                 int(seed), bool(replace), weights, int(threads))
    return blocks_of(flat, seeds.shape[0])
