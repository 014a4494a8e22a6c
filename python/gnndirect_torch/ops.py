"""The public functions over the custom ops (torch.ops.gnndirect.*): gather, scatter and
sampling for a Table / Graph or plain tensors, and the extension's queries. The extension's
loading, the ops' fake kernels (torch.compile / opcheck) and the error mapping are in
``_extension``; the sampling calls over CSR tensors in ``_sampling``.

Every op runs on torch's current CUDA stream when any of its tensors is a CUDA tensor (the GPU
kernels) and on the CPU when all are CPU tensors (the library's all-core CPU paths:
``host::gather_rows``, ``host::scatter_rows``, ``host::cpu_sampler``). The CPU samplers draw from
the same distributions as the GPU's but with other random numbers; the host reference that the
GPU samplers equal bit for bit is the test oracle of :mod:`gnndirect_torch.testing`.
Outputs and workspaces come from torch's caching allocator; GPU sample_blocks returns
narrowed views of its bound-sized outputs (no device-to-device copy). Ops with a CUDA tensor refuse to run in a child forked
after CUDA was used (RuntimeError saying what to do).
"""

from __future__ import annotations

from typing import List, Optional, Sequence

import torch

from ._blocks import Block, Sampled
from ._extension import _call, _check_fork, load_extension
from ._sampling import resolve_weights, sample_blocks_csr, sample_neighbors_csr
from ._util import check_fanouts
from .graph import Graph
from .table import Table, gather_table


def gather(table, index: torch.Tensor, *, dtype: Optional[torch.dtype] = None,
           check: bool = True) -> torch.Tensor:
    """Rows ``table[index]`` as a new tensor on ``index``'s device.

    Args:
        table: a :class:`~gnndirect_torch.Table` or a 2-D tensor whose rows are contiguous, in
            any GPU-addressable placement (registered/pinned/managed_host CPU tensor, or CUDA);
            with CPU tensors everywhere the all-core CPU gather runs instead.
        index: 1-D int32/int64 tensor (CUDA for the GPU path).
        dtype: the output dtype. A Table with a codec decodes to float32 (default), float16 or
            bfloat16 (inside the gather: the link carries the encoded rows; ``codec="fp32"``
            tables gather float32 and round on the GPU). Tables without a codec and plain
            tensors gather their own dtype (None or that dtype).
        check: check every index (synchronises the current stream once); False only enqueues
            and must only be used for trusted indices.
    Returns:
        ``[len(index), cols]`` tensor of ``dtype`` (default: the table's dtype; float32 for
        encoded tables).
    Raises:
        IndexError: an index outside [0, rows), naming its position and value (the CUDA context
            stays usable).  ValueError: shapes, devices, pageable table memory.
        TypeError: index dtype; a ``dtype`` the table's codec cannot produce.
    """
    load_extension()
    if isinstance(table, Table):
        return gather_table(table, index, dtype=dtype, check=check)
    if not isinstance(table, torch.Tensor):
        raise TypeError(f"table must be a gnndirect_torch.Table or a tensor, got "
                        f"{type(table).__name__}")
    if dtype is not None and dtype != table.dtype:
        raise TypeError(f"a table without a codec gathers its own dtype ({table.dtype}), not "
                        f"{dtype}; build the Table with codec=... to decode to another dtype")
    _check_fork("gnndirect_torch.gather", table, index)
    return _call(torch.ops.gnndirect.gather.default, table, index, None, None, check)


def scatter(table, index: torch.Tensor, src: torch.Tensor, *, check: bool = True) -> None:
    """In place ``table[index[i]] = src[i]`` (table in any placement; duplicate indices: the
    last occurrence wins, whole row).

    A :class:`~gnndirect_torch.Table` with a cache tier also updates its cached copies.
    Synchronises the current stream when ``check``. Raises as :func:`gather`.
    """
    load_extension()
    if isinstance(table, Table):
        table.scatter(index, src, check=check)
        return
    _check_fork("gnndirect_torch.scatter", table, index, src)
    _call(torch.ops.gnndirect.scatter_rows.default, table, index, src, check)


def _graph_tensors(graph_or_indptr, indices):
    """(indptr, indices, the graph's weights or None) of a Graph, or of the tensors given."""
    if isinstance(graph_or_indptr, Graph):
        return graph_or_indptr.indptr, graph_or_indptr.indices, graph_or_indptr.weights
    if indices is None:
        raise TypeError("pass a gnndirect_torch.Graph, or indptr and indices tensors")
    return graph_or_indptr, indices, None


def sample_neighbors(graph, seeds: torch.Tensor, fanout: int, *, indices: Optional[torch.Tensor] = None,
                     layer: int = 0, seed: int = 0, replace: bool = False,
                     weights: Optional[torch.Tensor] = None, check: bool = True,
                     threads: int = 0) -> Sampled:
    """Up to ``fanout`` neighbours of each seed (uniform without replacement by default; with
    replacement; or weighted by ``weights`` without replacement: a float32 tensor of one weight
    per edge, None for a Graph's own weights, False for uniform sampling of a weighted Graph; see
    :func:`~gnndirect_torch._sampling.resolve_weights`).

    Args:
        graph: a :class:`~gnndirect_torch.Graph`, or the ``indptr`` tensor with ``indices=``.
        seeds: 1-D node ids with the dtype of indices (CUDA: GPU sampling; CPU with CPU graph
            tensors: the fast CPU sampler, see :func:`sample_blocks`).
        fanout: draws per seed.  layer: random counter layer.  seed: random key.
        check: validate the graph first (CPU: once per tensor version, O(V + E), all cores).
        threads: CPU sampler threads (0: all cores).
    Returns:
        :class:`Sampled` (offsets int64, neighbours, edge ids) on ``seeds``' device.
    Synchronises the current stream (the edge count sizes the outputs).
    Raises:
        IndexError: a seed outside [0, num_nodes) ("seeds[i] = v ...").
        ValueError / TypeError: shapes, placements, dtypes.
    """
    load_extension()
    indptr, indices, graph_weights = _graph_tensors(graph, indices)
    return sample_neighbors_csr(indptr, indices, seeds, fanout, layer=layer, seed=seed,
                                replace=replace, weights=resolve_weights(graph_weights, weights),
                                check=check, threads=threads)


def sample_blocks(graph, seeds: torch.Tensor, fanouts: Sequence[int], *,
                  indices: Optional[torch.Tensor] = None, seed: int = 0, replace: bool = False,
                  weights: Optional[torch.Tensor] = None, check: bool = True,
                  threads: int = 0) -> List[Block]:
    """Multi-layer sampling relabelled to local ids: one :class:`~gnndirect_torch.Block` per
    fanout, seeds side first (block l samples from block l-1's src nodes with random layer l;
    each block's src nodes start with its dst nodes). Same device rules, synchronisation and
    errors as :func:`sample_neighbors`.

    On CPU tensors this is gnndirect's fast all-core CPU sampler (``host::cpu_sampler``, a CPU
    data path) on ``threads`` threads (0: all cores), kept alive per calling thread between
    calls; uniform, with replacement, or weighted. Its draws differ from the GPU's (same
    distributions, other random numbers; :mod:`gnndirect_torch.testing` has the oracle the GPU
    equals bit for bit); the node and edge sets of every layer (global ids) depend only on
    ``seed``, but with more than one thread the order of the new src nodes (the local ids) may
    differ between calls. With ``check`` the graph is validated once per tensor version
    (O(V + E), all cores): ValueError naming the first bad array entry; IndexError for a seed
    outside [0, num_nodes)."""
    load_extension()
    fans = check_fanouts(fanouts)  # first: a bad fanout is reported before a missing indices
    indptr, indices, graph_weights = _graph_tensors(graph, indices)
    return sample_blocks_csr(indptr, indices, seeds, fans, seed=seed, replace=replace,
                             weights=resolve_weights(graph_weights, weights), check=check,
                             threads=threads)


def device_copy_bytes(reset: bool = False) -> int:
    """Device-to-device bytes the extension has copied between device buffers since start or
    the last reset; with ``reset`` the count restarts at 0 after reading. The ops and the
    NeighborLoader hand out the library's outputs without copying them: the only copies are
    those of loader batches detached while still held (a new epoch, ``close()``, or every slot
    held; see :class:`~gnndirect_torch.NeighborLoader`)."""
    ext = load_extension()
    value = int(ext.device_copy_bytes())
    if reset:
        ext.reset_device_copy_bytes()
    return value


def placement_of(tensor: torch.Tensor) -> str:
    """Where ``tensor``'s bytes live: 'device', 'pinned' (cudaHostAlloc or registered),
    'managed_host' or 'pageable'. Initialises CUDA."""
    return load_extension().placement_name(tensor)
