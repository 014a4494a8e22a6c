"""The custom ops (torch.ops.gnndirect.*) with Python wrappers, fake kernels for torch.compile /
opcheck, and error mapping.

Every op runs on torch's current CUDA stream when any of its tensors is a CUDA tensor (the GPU
kernels) and on the CPU when all are CPU tensors (the library's host reference, all cores;
``sample_blocks(..., fast=True)`` runs the fast CPU sampler instead, CPU tensors only).
Outputs and workspaces come from torch's caching allocator; GPU sample_blocks returns
narrowed views of its bound-sized outputs (no device-to-device copy). Ops with a CUDA tensor refuse to run in a child forked
after CUDA was used (RuntimeError saying what to do).
"""

from __future__ import annotations

import threading
from typing import List, NamedTuple, Optional, Sequence, Tuple

import torch

from . import _process
from ._util import check_fanouts, memory_error_message

_lock = threading.Lock()
_extension = None


def load_extension():
    """Load the compiled extension ``gnndirect_torch._C`` (registers the ops) once and return it.

    Does not initialise CUDA.

    Raises:
        ImportError: the extension is not built (the message says how to build it).
    """
    global _extension
    if _extension is not None:
        return _extension
    with _lock:
        if _extension is None:
            try:
                from . import _C  # noqa: F401  (registers torch.ops.gnndirect)
            except ImportError as error:
                raise ImportError(
                    "gnndirect_torch._C is not built: run `MAX_JOBS=8 python setup.py build_ext "
                    "--inplace` in python/ (needs torch with CUDA, nvcc and ninja)") from error
            _register_fakes()
            _extension = _C
    return _extension


#: The error of scatter_rows into a host-resident table under torch.compile.
COMPILE_HOST_SCATTER_MESSAGE = (
    "gnndirect: scatter_rows into a host-resident table (registered/pinned/managed_host) cannot "
    "run inside torch.compile: functionalization would hand the op a pageable clone of the "
    "table and copy it back, so the write could not stay in place. Call Table.scatter / "
    "gnndirect_torch.scatter outside the compiled region (e.g. in a function decorated with "
    "torch.compiler.disable); gathers compile fine.")


def _register_fakes() -> None:
    """Fake (meta) kernels: shapes for torch.compile, FakeTensor and opcheck."""

    @torch.library.register_fake("gnndirect::gather")
    def _gather_fake(table, index, cache=None, slot_of=None, check=True):
        return table.new_empty((index.shape[0], table.shape[1]), device=index.device)

    @torch.library.register_fake("gnndirect::gather_encoded")
    def _gather_encoded_fake(codes, meta, cols, codec, index, cache=None, slot_of=None, dtype=None,
                             check=True):
        return codes.new_empty((index.shape[0], cols), dtype=dtype or torch.float32,
                               device=index.device)

    @torch.library.register_fake("gnndirect::scatter_rows")
    def _scatter_fake(table, index, src, check=True):
        # Runs only while tracing (torch.compile, export). Functionalization turns the mutation
        # into "write into a clone, copy back": the clone of a host-resident table is pageable
        # memory the GPU cannot write, and the write would not reach the placed table in place.
        # Refuse it here, while tracing, with a message that says so (issue #31).
        if not table.is_cuda and (index.is_cuda or src.is_cuda):
            raise RuntimeError(COMPILE_HOST_SCATTER_MESSAGE)
        return None

    @torch.library.register_fake("gnndirect::sample_neighbors")
    def _sample_neighbors_fake(indptr, indices, seeds, fanout, layer=0, seed=0, replace=False,
                               weights=None, check=True, threads=0):
        edges = torch.library.get_ctx().new_dynamic_size()
        return (seeds.new_empty((seeds.shape[0] + 1,), dtype=torch.int64),
                seeds.new_empty((edges,), dtype=indices.dtype),
                seeds.new_empty((edges,), dtype=indptr.dtype))

    def _blocks_fake(indptr, indices, seeds, fanouts):
        ctx = torch.library.get_ctx()
        out = []
        num_dst = seeds.shape[0]
        for _ in fanouts:
            num_src = ctx.new_dynamic_size()
            edges = ctx.new_dynamic_size()
            out += [seeds.new_empty((num_src,), dtype=indices.dtype),
                    seeds.new_empty((num_dst + 1,), dtype=torch.int64),
                    seeds.new_empty((edges,), dtype=indices.dtype),
                    seeds.new_empty((edges,), dtype=indptr.dtype)]
            num_dst = num_src
        return out

    @torch.library.register_fake("gnndirect::sample_blocks")
    def _sample_blocks_fake(indptr, indices, seeds, fanouts, seed=0, replace=False, weights=None,
                            check=True, threads=0):
        return _blocks_fake(indptr, indices, seeds, fanouts)

    @torch.library.register_fake("gnndirect::sample_blocks_fast")
    def _sample_blocks_fast_fake(indptr, indices, seeds, fanouts, seed=0, replace=False,
                                 check=True, threads=0):
        return _blocks_fake(indptr, indices, seeds, fanouts)


def _call(op, *args):
    """Run an op, turning the library's tagged allocation failures into MemoryError."""
    try:
        return op(*args)
    except RuntimeError as error:
        if isinstance(error, (IndexError, ValueError, TypeError)):
            raise
        message = memory_error_message(str(error))
        if message is not None:
            raise MemoryError(message) from None
        raise


def _check_fork(what: str, *tensors) -> None:
    """RuntimeError (see ``_process``) when an op would run CUDA work in a bad fork."""
    if any(isinstance(t, torch.Tensor) and t.is_cuda for t in tensors):
        _process.check_cuda_allowed(what)


def _tensor_of(table):
    """The tensor behind a Table (or the tensor itself) and its cache tier tensors."""
    from .table import Table
    if isinstance(table, Table):
        return table.tensor, table.cache_rows_tensor, table.slot_of
    if not isinstance(table, torch.Tensor):
        raise TypeError(f"table must be a gnndirect_torch.Table or a tensor, got "
                        f"{type(table).__name__}")
    return table, None, None


def gather(table, index: torch.Tensor, *, dtype: Optional[torch.dtype] = None,
           check: bool = True) -> torch.Tensor:
    """Rows ``table[index]`` as a new tensor on ``index``'s device.

    Args:
        table: a :class:`~gnndirect_torch.Table` or a 2-D tensor whose rows are contiguous, in
            any GPU-addressable placement (registered/pinned/managed_host CPU tensor, or CUDA);
            with CPU tensors everywhere the host reference runs instead.
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
    from .table import DECODED_DTYPES, Table
    if isinstance(table, Table) and table.encoded:
        if dtype is not None and dtype not in DECODED_DTYPES:
            raise TypeError(f"codec {table.codec!r} decodes to float32, float16 or bfloat16, not {dtype}")
        _check_fork("gnndirect_torch.gather", table.tensor, index, table.meta)
        return _call(torch.ops.gnndirect.gather_encoded.default, table.tensor, table.meta, table.cols,
                     table.codec, index, table.cache_rows_tensor, table.slot_of, dtype, check)
    tensor, cache, slot_of = _tensor_of(table)
    convert = None
    if dtype is not None and dtype != tensor.dtype:
        if isinstance(table, Table) and table.codec == "fp32" and dtype in DECODED_DTYPES:
            convert = dtype
        else:
            raise TypeError(f"a table without a codec gathers its own dtype ({tensor.dtype}), not "
                            f"{dtype}; build the Table with codec=... to decode to another dtype")
    _check_fork("gnndirect_torch.gather", tensor, index, cache)
    out = _call(torch.ops.gnndirect.gather.default, tensor, index, cache, slot_of, check)
    return out if convert is None else out.to(convert)


def scatter(table, index: torch.Tensor, src: torch.Tensor, *, check: bool = True) -> None:
    """In place ``table[index[i]] = src[i]`` (table in any placement; duplicate indices: the
    last occurrence wins, whole row).

    A :class:`~gnndirect_torch.Table` with a cache tier also updates its cached copies.
    Synchronises the current stream when ``check``. Raises as :func:`gather`.
    """
    load_extension()
    from .table import Table
    if isinstance(table, Table):
        table.scatter(index, src, check=check)
        return
    _check_fork("gnndirect_torch.scatter", table, index, src)
    _call(torch.ops.gnndirect.scatter_rows.default, table, index, src, check)


class Sampled(NamedTuple):
    """Sampled neighbours in CSR form: seed i's are ``neighbors[offsets[i]:offsets[i+1]]``."""
    offsets: torch.Tensor
    neighbors: torch.Tensor
    edge_ids: torch.Tensor


def _graph_tensors(graph_or_indptr, indices):
    from .table import Graph
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
    replacement; or weighted by ``weights`` without replacement).

    Args:
        graph: a :class:`~gnndirect_torch.Graph`, or the ``indptr`` tensor with ``indices=``.
        seeds: 1-D node ids with the dtype of indices (CUDA: GPU sampling; CPU with CPU graph
            tensors: the host reference, bit-identical for the same ``seed``).
        fanout: draws per seed.  layer: random counter layer.  seed: random key.
        threads: host reference threads (0: all cores).
    Returns:
        :class:`Sampled` (offsets int64, neighbours, edge ids) on ``seeds``' device.
    Synchronises the current stream (the edge count sizes the outputs).
    Raises:
        IndexError: a seed outside [0, num_nodes) ("seeds[i] = v ...").
        ValueError / TypeError: shapes, placements, dtypes.
    """
    load_extension()
    indptr, indices, graph_weights = _graph_tensors(graph, indices)
    weights = graph_weights if weights is None else weights
    _check_fork("gnndirect_torch.sample_neighbors", indptr, indices, seeds, weights)
    out = _call(torch.ops.gnndirect.sample_neighbors.default, indptr, indices, seeds, int(fanout),
                int(layer), int(seed), bool(replace), weights, bool(check), int(threads))
    return Sampled(*out)


def sample_blocks(graph, seeds: torch.Tensor, fanouts: Sequence[int], *,
                  indices: Optional[torch.Tensor] = None, seed: int = 0, replace: bool = False,
                  weights: Optional[torch.Tensor] = None, check: bool = True,
                  threads: int = 0, fast: bool = False) -> List["Block"]:
    """Multi-layer sampling relabelled to local ids: one :class:`~gnndirect_torch.Block` per
    fanout, seeds side first (block l samples from block l-1's src nodes with random layer l;
    each block's src nodes start with its dst nodes). Same device rules, synchronisation and
    errors as :func:`sample_neighbors`; the CPU form is the host reference (same result for the
    same ``seed``).

    ``fast=True`` (CPU tensors only, uniform sampling only: no ``weights``) runs gnndirect's fast
    all-core CPU sampler (``host::cpu_sampler``: a CPU data path, not the oracle) on ``threads``
    threads (0: all cores), kept alive per calling thread between calls. Without replacement each
    node gets min(fanout, degree) distinct neighbours. Its draws differ from the reference's; the
    node and edge sets of every layer (global ids) depend only on ``seed``, but with more than
    one thread the order of the new src nodes (the local ids) may differ between calls. With
    ``check`` the graph is validated once per tensor version (O(V + E), all cores): ValueError
    naming the first bad array entry; IndexError for a seed outside [0, num_nodes)."""
    load_extension()
    from .loader import Block
    fans = check_fanouts(fanouts)
    indptr, indices, graph_weights = _graph_tensors(graph, indices)
    weights = graph_weights if weights is None else weights
    if fast:
        if weights is not None:
            raise ValueError("sample_blocks(fast=True) samples uniformly: weights are not supported "
                             "(use fast=False, the host reference, or the GPU)")
        if any(isinstance(t, torch.Tensor) and t.device.type != "cpu" for t in (indptr, indices, seeds)):
            raise ValueError("sample_blocks(fast=True) needs CPU tensors (indptr, indices, seeds)")
        flat = _call(torch.ops.gnndirect.sample_blocks_fast.default, indptr, indices, seeds, fans,
                     int(seed), bool(replace), bool(check), int(threads))
    else:
        _check_fork("gnndirect_torch.sample_blocks", indptr, indices, seeds, weights)
        flat = _call(torch.ops.gnndirect.sample_blocks.default, indptr, indices, seeds, fans,
                     int(seed), bool(replace), weights, bool(check), int(threads))
    blocks = []
    num_dst = seeds.shape[0]
    for layer in range(len(fans)):
        src, offsets, local, edge_ids = flat[4 * layer: 4 * layer + 4]
        blocks.append(Block(src_nodes=src, num_dst=num_dst, offsets=offsets, indices=local,
                            edge_ids=edge_ids))
        num_dst = src.shape[0]
    return blocks


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
