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


#: torch dtype of each .npy descr the loaders accept.
_NPY_DTYPES = {"|b1": torch.bool, "|i1": torch.int8, "|u1": torch.uint8, "<i2": torch.int16,
               "<i4": torch.int32, "<i8": torch.int64, "<f2": torch.float16, "<f4": torch.float32,
               "<f8": torch.float64}


def _npy_shape_dtype(path) -> Tuple[Tuple[int, ...], torch.dtype]:
    """(shape, torch dtype) of a .npy file from its header (nothing else is read).

    Raises:
        ValueError: not a .npy file the library reads.  TypeError: a dtype torch has no type for.
    """
    shape, descr = load_extension().npy_header(str(path))
    if descr not in _NPY_DTYPES:
        raise TypeError(f"{path}: .npy dtype {descr!r} has no torch dtype gnndirect loads")
    return tuple(int(d) for d in shape), _NPY_DTYPES[descr]


def host_memory_info() -> dict:
    """What the host can give now and its ceiling, as gnndirect's allocations see them.

    Returns a dict: ``known`` (False when nothing could be read; then nothing is refused),
    ``available`` (bytes that may still be committed), ``source`` (the rule or file that
    decided), ``cgroup_headroom`` (smallest limit - non-reclaimable usage over the cgroups with a
    memory limit, None without one), ``mem_available`` (/proc/meminfo), ``limit`` and
    ``limit_source`` (the most the process may ever hold). The rule: with a cgroup limit below
    the machine's memory, the cgroup headroom decides and a low MemAvailable does not refuse (hosts whose memory grows on demand read it low at first); without one, MemAvailable
    plus memory blocks not yet online. ``GNNDIRECT_HOST_MEMORY_LIMIT`` overrides both.
    """
    return dict(load_extension().host_memory_info())


def _copy_fits(nbytes: int) -> Tuple[bool, dict]:
    """(whether a new host allocation of ``nbytes`` fits what the host can give now, the info)."""
    info = host_memory_info()
    return (not info["known"]) or nbytes <= info["available"], info


#: Storages allocated by :func:`empty` in host placements: storage address -> (placement, a weak
#: reference to the tensor). Only these are adopted without a copy: a tensor page-locked some
#: other way (torch's pin_memory cache, another registration) may be recycled or unpinned
#: behind the table's back.
_PLACED_STORAGES: dict = {}


def _remember_placed(tensor: torch.Tensor, name: str) -> None:
    key = tensor.untyped_storage().data_ptr()
    _PLACED_STORAGES[key] = (name, weakref.ref(tensor, lambda _ref, key=key: _PLACED_STORAGES.pop(key, None)))


def _current_host_placement(tensor: torch.Tensor) -> Optional[str]:
    """'pinned' or 'managed_host' when ``tensor`` (CPU, non-empty) lives in a storage that
    :func:`empty` allocated there (a view of it counts), else None."""
    if tensor.is_cuda or tensor.numel() == 0:
        return None
    entry = _PLACED_STORAGES.get(tensor.untyped_storage().data_ptr())
    if entry is None or entry[1]() is None:
        return None
    return entry[0]


def _choose(tensor: torch.Tensor, placement: str) -> str:
    """The concrete placement for ``tensor`` under ``placement``:

    - a tensor already in pinned or managed memory keeps it for ``auto`` (no copy);
    - ``auto`` takes the library's sized choice, and when a copy into it would not fit what the
      host can give now, the in-place placement ``registered`` (zero copy) with a warning.
    """
    name = normalize_placement(placement)
    if name != "auto":
        return name
    current = _current_host_placement(tensor)
    if current is not None:
        return current
    ext = load_extension()
    nbytes = tensor.numel() * tensor.element_size()
    name = ext.auto_placement_for(nbytes)
    if name in ("pinned", "managed_host") and not tensor.is_cuda and tensor.numel() > 0:
        fits, info = _copy_fits(nbytes)
        if not fits:
            import warnings
            warnings.warn(f"gnndirect: a {name} copy of this tensor ({nbytes} bytes) does not fit "
                          f"what the host can give now ({info['available']} bytes, "
                          f"{info['source']}): placing it in place ('registered', zero copy, "
                          "pinned-memory speed) instead", ResourceWarning, stacklevel=3)
            return "registered"
    return name


def empty(shape, dtype: torch.dtype = torch.float32, placement: str = "auto", *,
          device=None) -> torch.Tensor:
    """A new, uninitialised tensor placed where the GPU reads it, to fill in place (e.g. chunk by
    chunk from a dataset loader) and hand to :class:`Table` / :class:`Graph` without a copy.

    Args:
        shape: sizes.  dtype: element type.
        placement: ``pinned`` or ``managed_host`` (a CPU tensor owning a gnndirect allocation),
            ``device`` (a CUDA tensor), ``auto`` (the library's sized choice for this GPU).
            ``registered`` is refused: it pins memory someone else owns (pass your CPU tensor to
            ``Table(x, placement="registered")`` instead).
        device: the CUDA device (default: current).
    Returns:
        the tensor; :class:`Table` and :class:`Graph` given it with the same placement (or
        ``auto``) use it as it is.
    Raises:
        MemoryError: the host (or GPU) cannot give the bytes now; the message names the bytes
            needed and available and the zero-copy alternatives. Host bytes are checked and
            committed before the call returns, so a shortage is this exception, never the OOM
            killer.  ValueError: placement, negative sizes.
    Synchronous.
    """
    shape = tuple(int(d) for d in (shape if isinstance(shape, (tuple, list, torch.Size)) else (shape,)))
    if any(d < 0 for d in shape):
        raise ValueError(f"negative size in {shape}")
    name = normalize_placement(placement)
    ext = load_extension()
    nbytes = torch.Size(shape).numel() * torch.empty((), dtype=dtype).element_size()
    dev = _cuda_device(device)
    if dev.type == "cpu":
        return torch.empty(shape, dtype=dtype)
    if name == "auto":
        with torch.cuda.device(dev):
            name = ext.auto_placement_for(nbytes)
    if name == "registered":
        raise ValueError("empty(): 'registered' pins memory that someone else owns: allocate the "
                         "CPU tensor yourself and pass it to Table(x, placement='registered')")
    if name == "device":
        return torch.empty(shape, dtype=dtype, device=dev)
    with torch.cuda.device(dev):
        try:
            tensor = ext.allocate_host_tensor(list(shape), dtype, name)
            if tensor.numel() > 0:
                _remember_placed(tensor, name)
            return tensor
        except RuntimeError as error:
            from ._util import memory_error_message
            message = memory_error_message(str(error))
            if message is not None:
                raise MemoryError(message) from None
            raise


def _filled_from_npy(path, placement: str, device, *, min_dims: int = 1, max_dims: int = 2,
                     what: str = "array") -> Tuple[torch.Tensor, str]:
    """A tensor holding the .npy file at ``path``, created straight in ``placement`` and filled
    by streaming the mapped file in bounded chunks (see ``fill_from_npy``): (tensor, placement).
    ``registered`` fills a plain CPU tensor (registered afterwards by the caller)."""
    shape, dtype = _npy_shape_dtype(path)
    if not min_dims <= len(shape) <= max_dims:
        raise ValueError(f"{path}: {what} needs {min_dims}..{max_dims} dimensions, found {len(shape)}")
    name = normalize_placement(placement)
    dev = _cuda_device(device)
    if dev.type == "cpu" or name == "registered":
        tensor = torch.empty(shape, dtype=dtype)
        name = "cpu" if dev.type == "cpu" else name
    else:
        tensor = empty(shape, dtype, name, device=dev)
        name = "device" if tensor.is_cuda else (_current_host_placement(tensor) or name)
    load_extension().fill_from_npy(tensor, str(path))
    return tensor, name


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
        their memory). A CPU tensor already in the requested ``pinned``/``managed_host`` memory
        (e.g. from :func:`empty`) is returned as it is (no copy).
    Synchronous (copies use torch's parallel CPU copy). Raises as :func:`register_tensor`;
    MemoryError when a host allocation does not fit what the host can give now (checked before
    anything is committed: the message names the bytes needed and available and the zero-copy
    alternatives; never the OOM killer).
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
    if _current_host_placement(tensor) == name:
        return tensor, None  # already there (e.g. from gnndirect_torch.empty): no second copy
    try:
        placed = ext.allocate_host_tensor(list(tensor.shape), tensor.dtype, name)
    except RuntimeError as error:  # pragma: no cover - mapped by the module's translator
        from ._util import memory_error_message
        raise MemoryError(memory_error_message(str(error)) or str(error)) from None
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
        placement: see :func:`to_placement`. ``registered`` adopts ``data`` in place (pins its
            pages with cudaHostRegister: zero copy, no second allocation; the table keeps
            ``data`` alive): the way to hand over a CPU tensor too large to copy.
            ``auto`` keeps a tensor that is already pinned or managed (e.g. from :func:`empty`)
            as it is, and picks ``registered`` (with a ResourceWarning) when a copy into the
            library's choice would not fit what the host can give now.
        cache_bytes / cache_fraction: device bytes (or fraction of rows) for a tier of hot rows
            served from HBM behind the same gather (a flag, not a new API).
        hot_rows: ids to cache, most valuable first (default: highest degree of ``graph``).
        graph: a :class:`Graph` or indptr tensor whose degrees rank rows for the cache.
        device: the CUDA device (default: current); a CPU device keeps ``data`` as it is and
            gathers with the host reference (no placement, no cache).
    Raises:
        ValueError, TypeError, MemoryError (see :func:`to_placement`: an explicit ``pinned`` or
        ``managed_host`` copy that does not fit names the bytes needed and available).

    To build a table larger than a second copy allows, see :meth:`from_npy` and :func:`empty`.
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
            with torch.cuda.device(self.device):
                self.placement = _choose(data, placement)
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

    @classmethod
    def from_npy(cls, path, placement: str = "auto", *, codec=None, device=None, **kwargs) -> "Table":
        """A table read from a .npy file (2-D, or 1-D as one column) straight into its placement:
        the file is memory-mapped and streamed in 64 MiB chunks on all cores, each chunk's
        pages released after it, so peak host memory is the placed bytes plus one chunk (no
        second copy). ``registered`` fills a plain CPU tensor and pins it in place.

        Args:
            path: the .npy file.  placement: as :class:`Table` (``auto``: the library's sized
                choice).  codec: reserved for row codecs; only None is supported now.
            device: CUDA device (default: current); CPU: host-reference mode.
            **kwargs: the other :class:`Table` arguments (cache_bytes, hot_rows, graph, ...).
        Raises:
            NotImplementedError: a codec other than None.  ValueError: the file (format,
            dimensions).  TypeError: a dtype torch lacks.  MemoryError: as :func:`empty`.
        Synchronous.
        """
        if codec is not None:
            raise NotImplementedError(f"Table.from_npy: codec={codec!r} is not supported yet "
                                      "(only None: rows are stored as the file holds them)")
        tensor, name = _filled_from_npy(path, placement, device, what="a Table")
        if tensor.dim() == 1:
            tensor = tensor.unsqueeze(1)
        return cls(tensor, "auto" if name == "cpu" else name, device=device, **kwargs)

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
        if cpu:
            self.placement = self.indptr_placement = "cpu"
        else:
            with torch.cuda.device(self.device):
                self.placement = _choose(indices, placement)
                self.indptr_placement = _choose(indptr, indptr_placement)
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
    def from_npy(cls, indptr_path, indices_path, *, placement: str = "auto",
                 indptr_placement: str = "device", weights_path=None, device=None,
                 validate: bool = True) -> "Graph":
        """A graph read from CSR .npy files (1-D int32/int64 indptr and indices, optional
        float32 weights) straight into their placements: each file is memory-mapped and streamed
        in 64 MiB chunks on all cores (pages released after each chunk), so peak host memory is
        the placed bytes plus one chunk, never a second copy of the edges.

        Args: as :class:`Graph` (the paths instead of tensors).
        Raises: as :class:`Graph`; ValueError for a file that is not a 1-D .npy array;
            MemoryError as :func:`empty`.
        Synchronous.
        """
        indptr, p_name = _filled_from_npy(indptr_path, indptr_placement, device, max_dims=1,
                                          what="indptr")
        indices, e_name = _filled_from_npy(indices_path, placement, device, max_dims=1,
                                           what="indices")
        weights = None
        if weights_path is not None:
            weights, _ = _filled_from_npy(weights_path, e_name if e_name != "cpu" else placement,
                                          device, max_dims=1, what="weights")
        cpu = e_name == "cpu"
        return cls(indptr, indices, placement="auto" if cpu else e_name,
                   indptr_placement="device" if cpu else p_name, weights=weights, device=device,
                   validate=validate)

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
