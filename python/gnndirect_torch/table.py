"""Host-resident feature tables and graphs: making tensors GPU-addressable in a chosen
placement, with lifetimes tied to Python objects."""

from __future__ import annotations

import weakref
from typing import Optional, Tuple

import torch

from . import _process
from ._util import cache_bytes_for, normalize_placement
from .ops import _call, load_extension


def _cuda_device(device) -> torch.device:
    """The CUDA device meant by ``device`` (None: current), or the CPU when ``device`` is a CPU
    device (host-reference mode: no placement, every op runs on the CPU; for debugging and for
    machines without a GPU)."""
    if device is not None and torch.device(device).type == "cpu":
        return torch.device(device)
    # before torch.cuda is touched: in a bad fork torch's own error would not say what to do
    _process.check_cuda_allowed("a gnndirect_torch object on a CUDA device")
    if device is None:
        return torch.device("cuda", torch.cuda.current_device())
    device = torch.device(device)
    if device.type != "cuda":
        raise ValueError(f"device must be a CUDA or CPU device, got {device}")
    if device.index is None:
        device = torch.device("cuda", torch.cuda.current_device())
    return device


def _resolve(placement: str) -> str:
    name = normalize_placement(placement)
    if name == "auto":
        name = load_extension().auto_placement()
    return name


def register_tensor(tensor: torch.Tensor):
    """Pin a CPU tensor in place (cudaHostRegister, zero copy) and return the registration
    handle; the GPU reads the tensor directly while the handle lives. The handle holds a
    reference to the tensor; ``handle.close()`` (or dropping the handle) unregisters.

    Raises:
        ValueError: not a CPU tensor, empty, or already registered.
        MemoryError: the driver refused (e.g. the locked-memory limit).
    """
    return load_extension().Registration(tensor)


def to_placement(tensor: torch.Tensor, placement: str = "auto", *,
                 device=None) -> Tuple[torch.Tensor, Optional[object]]:
    """Make ``tensor`` GPU-addressable.

    Args:
        tensor: the source (CPU for every placement but ``device``, where CUDA is fine too).
        placement: ``registered`` (pin ``tensor`` in place: zero copy, pinned-memory speed),
            ``pinned`` (copy into cudaHostAlloc memory), ``managed_host`` (copy into managed
            memory kept on the CPU, mapped by the GPU: fastest for large random-access tables),
            ``device`` (copy to HBM), ``auto`` (the library's choice for this GPU).
        device: CUDA device for ``device`` placement (default: current).
    Returns:
        ``(placed, keepalive)``: the tensor kernels read (a CPU tensor for host placements) and
        the object that must live as long as it is used (the registration, or None: copies own
        their memory).
    Synchronous (copies use torch's parallel CPU copy). Raises as :func:`register_tensor`;
    MemoryError when a host allocation fails.
    """
    name = _resolve(placement)
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"expected a tensor, got {type(tensor).__name__}")
    if name == "device":
        return tensor.to(_cuda_device(device)), None
    if tensor.is_cuda:
        raise ValueError(f"placement {name!r} needs a CPU tensor, got one on {tensor.device}")
    if name == "registered":
        if tensor.numel() == 0:
            return tensor, None
        return tensor, register_tensor(tensor)
    ext = load_extension()
    try:
        placed = ext.allocate_host_tensor(list(tensor.shape), tensor.dtype, name)
    except RuntimeError as error:  # pragma: no cover - mapped by the module's translator
        raise MemoryError(str(error)) from None
    placed.copy_(tensor)
    return placed, None


def _last_occurrences(index: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    """(distinct values of ``index``, position of each one's LAST occurrence in ``index``)."""
    values, inverse = torch.unique(index, sorted=True, return_inverse=True)
    positions = torch.arange(index.numel(), device=index.device)
    last = torch.zeros(values.numel(), dtype=torch.int64, device=index.device)
    last.scatter_reduce_(0, inverse, positions, "amax", include_self=False)
    return values, last


def update_cached_rows(cache: torch.Tensor, slot_of: torch.Tensor, index: torch.Tensor,
                       src: torch.Tensor) -> None:
    """Writes ``src[i]`` into the cached copy of row ``index[i]`` (rows without a copy, and
    indices outside the table, are skipped), so that a cache tier stays coherent with
    ``table[index] = src``. Duplicate indices: the LAST occurrence wins, whole row, the rule of
    :meth:`Table.scatter` on every placement.

    Args:
        cache: cached rows [cache_rows, cols].  slot_of: int32 [table rows], -1 = not cached.
        index: 1-D row ids.  src: [len(index), cols] rows of the cache's dtype.
    Runs on the current stream of the cache's device (synchronises it once: the number of
    cached rows hit sizes the copy).
    """
    if index.numel() == 0 or cache.shape[0] == 0 or slot_of.numel() == 0:
        return
    rows, last = _last_occurrences(index.to(slot_of.device, torch.int64))
    inside = (rows >= 0) & (rows < slot_of.shape[0])
    slots = slot_of[rows.clamp(0, slot_of.shape[0] - 1)].to(torch.int64)
    hit = inside & (slots >= 0)
    targets = slots[hit]
    sources = last[hit].to(src.device)
    cache.index_copy_(0, targets.to(cache.device), src.index_select(0, sources).to(cache.device))


class _ProcessLocal:
    """Pickling rules shared by Table and Graph: placed (GPU-visible) objects refuse to be pickled
    (TypeError, see ``_process.refuse_pickle`` for why and what to do instead); CPU-mode objects
    pickle without their per-process loader registry."""

    def __reduce_ex__(self, protocol):
        if self.device.type != "cpu":
            _process.refuse_pickle(type(self).__name__, self.placement)
        return super().__reduce_ex__(protocol)

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_users", None)  # loaders are per process
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._users = weakref.WeakSet()


class Table(_ProcessLocal):
    """A 2-D feature table (rows x cols, any dtype; fp32/fp16/bf16 in the pipeline) that GPU
    kernels read in place, optionally with a device cache tier of hot rows.

    Args:
        data: 2-D tensor with contiguous rows (``stride(1) == 1``).
        placement: see :func:`to_placement` (``registered`` keeps ``data`` and pins it in place).
        cache_bytes / cache_fraction: device bytes (or fraction of rows) for a tier of hot rows
            served from HBM behind the same gather (a flag, not a new API).
        hot_rows: ids to cache, most valuable first (default: highest degree of ``graph``).
        graph: a :class:`Graph` or indptr tensor whose degrees rank rows for the cache.
        device: the CUDA device (default: current); a CPU device keeps ``data`` as it is and
            gathers with the host reference (no placement, no cache).
    Raises:
        ValueError, TypeError, MemoryError (see :func:`to_placement`).

    The table keeps its source alive while registered; :meth:`close` (or deleting the last
    reference) unregisters. Loaders using the table keep it alive.
    """

    def __init__(self, data: torch.Tensor, placement: str = "auto", *, cache_bytes: Optional[int] = None,
                 cache_fraction: Optional[float] = None, hot_rows: Optional[torch.Tensor] = None,
                 graph=None, device=None):
        if not isinstance(data, torch.Tensor):
            raise TypeError(f"data must be a tensor, got {type(data).__name__}")
        if data.dim() != 2:
            raise ValueError(f"a Table needs a 2-D tensor, got shape {tuple(data.shape)}")
        if data.shape[1] > 1 and data.stride(1) != 1:
            raise ValueError("the columns of a Table must be contiguous (stride(1) == 1)")
        self.device = _cuda_device(device)
        if self.device.type == "cuda":
            _process.check_cuda_allowed("gnndirect_torch.Table")
        if self.device.type == "cpu":  # host-reference mode
            self.placement = "cpu"
            self.tensor, self._keepalive = data, None
        else:
            self.placement = _resolve(placement)
            self.tensor, self._keepalive = to_placement(data, self.placement, device=self.device)
        self.cache_rows_tensor: Optional[torch.Tensor] = None
        self.slot_of: Optional[torch.Tensor] = None
        self._users = weakref.WeakSet()
        row_bytes = self.tensor.shape[1] * self.tensor.element_size()
        self.cache_bytes = cache_bytes_for(self.tensor.shape[0], row_bytes, cache_bytes, cache_fraction)
        if self.device.type == "cpu":
            self.cache_bytes = 0
        elif self.cache_bytes > 0:
            self.rebuild_cache(hot_rows=hot_rows, graph=graph)

    # -- properties --------------------------------------------------------------------------
    @property
    def shape(self) -> torch.Size:
        """(rows, cols)."""
        return self.tensor.shape

    @property
    def dtype(self) -> torch.dtype:
        """Element type."""
        return self.tensor.dtype

    def __len__(self) -> int:
        """Rows."""
        return self.tensor.shape[0]

    def __repr__(self) -> str:
        return (f"Table(shape={tuple(self.shape)}, dtype={self.dtype}, placement={self.placement!r}, "
                f"cache_bytes={self.cache_bytes})")

    @property
    def cached_rows(self) -> int:
        """Rows held in the device cache tier."""
        return 0 if self.cache_rows_tensor is None else self.cache_rows_tensor.shape[0]

    # -- cache tier --------------------------------------------------------------------------
    def rebuild_cache(self, hot_rows: Optional[torch.Tensor] = None, graph=None) -> None:
        """Fill the device tier with the first ``cache_bytes // row_bytes`` of ``hot_rows``
        (most valuable first), or the highest-degree nodes of ``graph``, or the first rows.
        Synchronous. Raises IndexError for a bad id."""
        rows = self.tensor.shape[0]
        row_bytes = self.tensor.shape[1] * self.tensor.element_size()
        capacity = min(rows, self.cache_bytes // row_bytes) if row_bytes else 0
        if capacity == 0:
            self.cache_rows_tensor = self.slot_of = None
            return
        if hot_rows is None:
            if graph is not None:
                indptr = graph.indptr if isinstance(graph, Graph) else graph
                degrees = (indptr[1:] - indptr[:-1]).to(self.device, torch.int64)
                hot_rows = torch.topk(degrees, capacity, sorted=True).indices
            else:
                hot_rows = torch.arange(capacity, device=self.device)
        hot = hot_rows[:capacity].to(self.device, torch.int64)
        cache = _call(torch.ops.gnndirect.gather.default, self.tensor, hot, None, None, True)
        slot_of = torch.full((rows,), -1, dtype=torch.int32, device=self.device)
        slot_of[hot] = torch.arange(hot.shape[0], dtype=torch.int32, device=self.device)
        self.cache_rows_tensor, self.slot_of = cache, slot_of

    # -- data movement -------------------------------------------------------------------------
    def gather(self, index: torch.Tensor, *, check: bool = True) -> torch.Tensor:
        """``self[index]`` on index's device (see :func:`gnndirect_torch.gather`)."""
        from .ops import gather
        self._check_process()
        return gather(self, index, check=check)

    def scatter(self, index: torch.Tensor, src: torch.Tensor, *, check: bool = True) -> None:
        """In place ``self[index[i]] = src[i]``. Duplicate indices: the LAST occurrence wins,
        whole row (on every placement, and in every cached copy).

        Cached copies are updated too: the table's own cache tier, and the device cache tier of
        every live :class:`~gnndirect_torch.NeighborLoader` reading this table, so that a later
        gather (or batch) returns the new values. Batches a loader prepared (or is preparing)
        before this call may still hold the old values, as with any prefetching.
        Synchronises the current stream when ``check`` or when a cache tier holds rows. Raises
        as :func:`gnndirect_torch.gather`; RuntimeError in a forked child (see ``_process``).
        """
        load_extension()
        self._check_process()
        _call(torch.ops.gnndirect.scatter_rows.default, self.tensor, index, src, check)
        if self.slot_of is not None:
            update_cached_rows(self.cache_rows_tensor, self.slot_of, index, src)
        for loader in list(self._users):
            loader._update_cached_rows(index, src)

    def _check_process(self) -> None:
        """RuntimeError when a CUDA table is used in a child forked after CUDA was used."""
        if self.device.type == "cuda":
            _process.check_cuda_allowed("gnndirect_torch.Table")


    def close(self) -> None:
        """Unregister (registered placement) and drop the data; idempotent.

        Raises:
            RuntimeError: a live loader still uses the table.
        """
        if len(self._users) > 0:
            raise RuntimeError("Table.close: a NeighborLoader still uses this table")
        if self._keepalive is not None:
            self._keepalive.close()
            self._keepalive = None
        self.tensor = torch.empty((0, self.tensor.shape[1]), dtype=self.tensor.dtype)
        self.cache_rows_tensor = self.slot_of = None

    def __del__(self):
        keep = getattr(self, "_keepalive", None)
        if keep is not None:
            keep.close()


class Graph(_ProcessLocal):
    """A CSR graph for sampling: node v's (in-)neighbours are ``indices[indptr[v]:indptr[v+1]]``.

    For PyG message passing (source -> target) give the CSC of ``edge_index`` (indptr over
    targets, indices = sources), e.g. with :meth:`from_edge_index`.

    Args:
        indptr: num_nodes + 1 offsets (int32/int64; the pipeline needs int64).
        indices: neighbour ids (int32/int64).
        placement: placement of ``indices`` (and weights), see :func:`to_placement`.
        indptr_placement: placement of ``indptr`` (default ``device``: small and hot).
        weights: optional float32 edge weights (weighted sampling).
        device: CUDA device (default: current); a CPU device keeps the arrays as they are and
            samples with the host reference.
        validate: check the whole graph once, after placement (gnndirect's validator: on the
            GPU for CUDA graphs, reading each array once; on the host for CPU graphs): indptr
            starts at 0, never decreases and ends at len(indices), every neighbour id lies in
            [0, num_nodes), weights are finite and >= 0. Only trusted graphs should skip it: the
            sampling kernels read indices[indptr[v]:indptr[v+1]] unchecked.
    Raises:
        ValueError: a corrupt graph (naming the first bad array, position and value), shapes.
        TypeError: dtypes.  RuntimeError: in a forked child (see ``_process``).

    The graph cannot be pickled (unless in CPU mode), and :meth:`close` is refused while a
    :class:`~gnndirect_torch.NeighborLoader` uses it.
    """

    def __init__(self, indptr: torch.Tensor, indices: torch.Tensor, *, placement: str = "auto",
                 indptr_placement: str = "device", weights: Optional[torch.Tensor] = None, device=None,
                 validate: bool = True):
        for name, t in (("indptr", indptr), ("indices", indices)):
            if not isinstance(t, torch.Tensor) or t.dim() != 1:
                raise ValueError(f"{name} must be a 1-D tensor")
            if t.dtype not in (torch.int32, torch.int64):
                raise TypeError(f"{name} must be int32 or int64, got {t.dtype}")
        if indptr.numel() < 1:
            raise ValueError("indptr needs num_nodes + 1 >= 1 entries")
        if weights is not None and (not isinstance(weights, torch.Tensor) or weights.dim() != 1
                                    or weights.numel() != indices.numel()):
            raise ValueError("weights must be a 1-D tensor with one weight per edge "
                             f"({indices.numel()})")
        self.device = _cuda_device(device)
        self._users = weakref.WeakSet()
        cpu = self.device.type == "cpu"  # host-reference mode: arrays stay as given
        if not cpu:
            _process.check_cuda_allowed("gnndirect_torch.Graph")
        self.placement = "cpu" if cpu else _resolve(placement)
        self.indptr_placement = "cpu" if cpu else _resolve(indptr_placement)
        self._keep = []
        self.indptr = self._place(indptr.contiguous(), self.indptr_placement)
        self.indices = self._place(indices.contiguous(), self.placement)
        self.weights = None if weights is None else self._place(weights.float().contiguous(), self.placement)
        if validate:
            self.validate()

    def validate(self) -> None:
        """Checks the whole graph with gnndirect's validator (see the class doc); synchronous.

        Raises:
            ValueError: the first rule broken, naming the array, position and value.
        """
        ext = load_extension()
        device = -1 if self.device.type == "cpu" else self.device.index
        if device >= 0:
            self._check_process()
            with torch.cuda.device(self.device):
                ext.validate_csr(self.indptr, self.indices, self.weights, device)
        else:
            ext.validate_csr(self.indptr, self.indices, self.weights, -1)

    def _check_process(self) -> None:
        """RuntimeError when a CUDA graph is used in a child forked after CUDA was used."""
        if self.device.type == "cuda":
            _process.check_cuda_allowed("gnndirect_torch.Graph")


    def _place(self, tensor, placement):
        if placement == "cpu":
            return tensor.cpu()
        placed, keep = to_placement(tensor, placement, device=self.device)
        if keep is not None:
            self._keep.append(keep)
        return placed

    @classmethod
    def from_edge_index(cls, edge_index: torch.Tensor, num_nodes: int, **kwargs) -> "Graph":
        """CSC of a PyG ``edge_index`` [2, E] (row = source, col = target) so that sampling
        draws each target's sources. Sorting runs where edge_index lives."""
        row, col = edge_index[0], edge_index[1]
        perm = torch.argsort(col, stable=True)
        counts = torch.bincount(col, minlength=num_nodes)
        indptr = torch.zeros(num_nodes + 1, dtype=torch.int64, device=col.device)
        torch.cumsum(counts, 0, out=indptr[1:])
        return cls(indptr.cpu(), row[perm].cpu(), **kwargs)

    @property
    def num_nodes(self) -> int:
        """Number of nodes."""
        return self.indptr.shape[0] - 1

    @property
    def num_edges(self) -> int:
        """Number of stored edges."""
        return self.indices.shape[0]

    def sample_neighbors(self, seeds: torch.Tensor, fanout: int, **kwargs):
        """See :func:`gnndirect_torch.sample_neighbors`."""
        from .ops import sample_neighbors
        self._check_process()
        return sample_neighbors(self, seeds, fanout, **kwargs)

    def sample_blocks(self, seeds: torch.Tensor, fanouts, **kwargs):
        """See :func:`gnndirect_torch.sample_blocks`."""
        from .ops import sample_blocks
        self._check_process()
        return sample_blocks(self, seeds, fanouts, **kwargs)

    def close(self) -> None:
        """Unregister registered arrays; idempotent (the graph is unusable afterwards).

        Raises:
            RuntimeError: a live NeighborLoader still uses the graph (its workers read the
                arrays; close or delete the loader first).
        """
        if len(self._users) > 0:
            raise RuntimeError("Graph.close: a NeighborLoader still uses this graph (its workers "
                               "read the arrays); close the loader first")
        for keep in self._keep:
            keep.close()
        self._keep = []

    def __repr__(self) -> str:
        return (f"Graph(num_nodes={self.num_nodes}, num_edges={self.num_edges}, "
                f"placement={self.placement!r}, indptr_placement={self.indptr_placement!r})")
