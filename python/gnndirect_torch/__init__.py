"""gnndirect for PyTorch and PyG: GPU-centric access to host-resident graph data.

Feature tables and the CSR graph stay in host memory (registered in place, pinned, or managed
memory kept on the CPU) and GPU kernels read them directly: zero-copy gather/scatter, GPU
neighbour sampling, and a mini-batch pipeline that prepares batches on side streams.

    import gnndirect_torch as gd
    table = gd.Table(x, placement="auto")                  # x: CPU tensor [num_nodes, dim]
    loader = gd.NeighborLoader(gd.Graph(indptr, indices), table, y, train_idx,
                               fanouts=[15, 10, 5], batch_size=1024)
    for batch in loader:                                    # batch.x, batch.y on the GPU
        ...

Importing the package needs PyTorch but neither initialises CUDA nor loads the compiled
extension; the extension (gnndirect_torch._C, built with ``python setup.py build_ext --inplace``
in python/) is loaded on first use. The PyG adapter lives in :mod:`gnndirect_torch.pyg`, the test
oracle (the host reference sampler the GPU equals bit for bit) in :mod:`gnndirect_torch.testing`.
"""

from ._util import PLACEMENTS, __version__

try:
    import torch as _torch  # noqa: F401
except ImportError as _error:  # pragma: no cover - exercised by the host test without torch
    raise ImportError(
        "gnndirect_torch needs PyTorch (pip install torch); the gnndirect C++ headers themselves "
        "do not") from _error

from ._blocks import Batch, Block, blocks_from_pyg
from ._extension import load_extension
from ._placement import empty, host_memory_info, register_tensor, to_placement
from .graph import Graph
from .table import Table
from .ops import gather, placement_of, sample_blocks, sample_neighbors, scatter
from ._options import PipelineOptions
from .loader import NeighborLoader
from .hetero_loader import HeteroBatch, HeteroNeighborLoader
from .link import LinkBatch, LinkNeighborLoader, NegativeSampling, sample_negatives, sample_temporal_blocks
from .hetero_link import HeteroLinkBatch, HeteroLinkNeighborLoader, sample_typed_negatives

__all__ = [
    "PLACEMENTS", "__version__", "gather", "scatter", "sample_neighbors", "sample_blocks",
    "load_extension", "placement_of", "Table", "Graph", "register_tensor", "to_placement",
    "empty", "host_memory_info",
    "NeighborLoader", "HeteroNeighborLoader", "HeteroBatch", "PipelineOptions", "Batch", "Block", "blocks_from_pyg",
    "LinkNeighborLoader", "LinkBatch", "NegativeSampling", "sample_negatives", "sample_temporal_blocks",
    "HeteroLinkNeighborLoader", "HeteroLinkBatch", "sample_typed_negatives",
]
