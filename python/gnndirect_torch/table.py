"""Host-resident feature tables and graphs: making tensors GPU-addressable in a chosen
placement, with lifetimes tied to Python objects."""

from __future__ import annotations

import weakref
from typing import NamedTuple, Optional, Tuple

import torch

from . import _process
from ._extension import _call, _check_fork, load_extension
from ._sampling import sample_blocks_csr, sample_neighbors_csr
from ._util import cache_bytes_for, memory_error_message, normalize_placement


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


#: Row codecs a Table accepts: the library's names (gnndirect::codecs, device/codecs.hpp) and
#: the short forms. None and "fp32" store the rows as they are (fp32: converted to float32).
CODECS = {"fp32": "fp32", "fp16": "fp16", "bf16": "bf16", "int8": "int8_affine",
          "int8_affine": "int8_affine", "fp8": "fp8_e4m3", "fp8_e4m3": "fp8_e4m3",
          "int4": "int4_affine", "int4_affine": "int4_affine"}

#: dtypes a codec decodes to (every library codec produces all three).
DECODED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)

#: Rows encoded per chunk: bounds the host staging (device placement, streamed files) and the
#: per-chunk conversions to about 64 MiB of input.
_ENCODE_CHUNK_BYTES = 64 << 20


def canonical_codec(codec) -> Optional[str]:
    """The library's name of ``codec`` (None stays None).

    Raises:
        ValueError: an unknown codec name, listing the known ones.  TypeError: not a string.
    """
    if codec is None:
        return None
    if not isinstance(codec, str):
        raise TypeError(f"codec must be a string or None, got {type(codec).__name__}")
    name = CODECS.get(codec.lower())
    if name is None:
        raise ValueError(f"unknown codec {codec!r}; known: None, " + ", ".join(sorted(CODECS)))
    return name


class CodecError(NamedTuple):
    """The encoder's error per column (float64 CPU tensors of ``cols`` entries), measured once at
    encoding as |decode(encode(x)) - x| in fp32 against the input: ``max_abs``, ``mean_abs``
    (over the rows), ``relative`` (max_abs / the column's largest |x|; 0 for an all-zero
    column). All zero for tables without a lossy codec."""
    max_abs: torch.Tensor
    mean_abs: torch.Tensor
    relative: torch.Tensor

    def summary(self) -> dict:
        """Worst column of each measure, as floats: {max_abs, mean_abs, relative}."""
        def worst(t):
            return float(t.max()) if t.numel() else 0.0
        return {"max_abs": worst(self.max_abs), "mean_abs": worst(self.mean_abs),
                "relative": worst(self.relative)}


def _zero_error(cols: int) -> CodecError:
    zeros = torch.zeros(cols, dtype=torch.float64)
    return CodecError(zeros, zeros.clone(), zeros.clone())


def _error_from_stats(stats: torch.Tensor, rows: int) -> CodecError:
    """CodecError from encode_rows' accumulated [max abs, sum abs, max |x|] over ``rows`` rows."""
    peak = stats[2]
    relative = torch.where(peak > 0, stats[0] / peak.clamp_min(1e-300), torch.zeros_like(peak))
    return CodecError(stats[0].clone(), stats[1] / max(rows, 1), relative)


def _check_finite(x: torch.Tensor, what: str) -> None:
    """ValueError naming the first row and column of ``x`` that is NaN or infinite (chunked, so
    no full-size temporary)."""
    rows = x.shape[0]
    step = max(1, _ENCODE_CHUNK_BYTES // max(1, x.shape[1] * x.element_size()))
    for begin in range(0, rows, step):
        chunk = x[begin:begin + step]
        bad = ~torch.isfinite(chunk)
        if bool(bad.any()):
            r, c = (int(v) for v in bad.nonzero()[0])
            raise ValueError(f"{what}: row {begin + r} column {c} holds {float(chunk[r, c])} (NaN or "
                             "infinity); clean the features first")


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


def gather_table(table: "Table", index: torch.Tensor, *, dtype: Optional[torch.dtype] = None,
                 check: bool = True) -> torch.Tensor:
    """:func:`gnndirect_torch.gather` of a :class:`Table` (decoding an encoded table to
    ``dtype``), shared by :meth:`Table.gather` and the public function; raises as they do."""
    load_extension()
    if table.encoded:
        if dtype is not None and dtype not in DECODED_DTYPES:
            raise TypeError(f"codec {table.codec!r} decodes to float32, float16 or bfloat16, not {dtype}")
        _check_fork("gnndirect_torch.gather", table.tensor, index, table.meta)
        return _call(torch.ops.gnndirect.gather_encoded.default, table.tensor, table.meta, table.cols,
                     table.codec, index, table.cache_rows_tensor, table.slot_of, dtype, check)
    tensor, cache, slot_of = table.tensor, table.cache_rows_tensor, table.slot_of
    convert = None
    if dtype is not None and dtype != tensor.dtype:
        if table.codec == "fp32" and dtype in DECODED_DTYPES:
            convert = dtype
        else:
            raise TypeError(f"a table without a codec gathers its own dtype ({tensor.dtype}), not "
                            f"{dtype}; build the Table with codec=... to decode to another dtype")
    _check_fork("gnndirect_torch.gather", tensor, index, cache)
    out = _call(torch.ops.gnndirect.gather.default, tensor, index, cache, slot_of, check)
    return out if convert is None else out.to(convert)


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
    kernels read in place, optionally stored compressed with a row codec, optionally with a
    device cache tier of hot rows.

    Args:
        data: 2-D tensor with contiguous rows (``stride(1) == 1``).
        placement: see :func:`to_placement`. ``registered`` adopts ``data`` in place (pins its
            pages with cudaHostRegister: zero copy, no second allocation; the table keeps
            ``data`` alive): the way to hand over a CPU tensor too large to copy.
            ``auto`` keeps a tensor that is already pinned or managed (e.g. from :func:`empty`)
            as it is, and picks ``registered`` (with a ResourceWarning) when a copy into the
            library's choice would not fit what the host can give now. With a lossy codec the
            placement holds the encoded rows (``registered``: a CPU tensor of codes the table
            owns, pinned in place; ``auto``: the library's choice for the encoded bytes).
        codec: None (rows stored as given), ``"fp32"`` (stored as float32, as None otherwise),
            or a row codec of ``gnndirect::codecs`` that stores fewer bytes per row and decodes
            inside the gather: ``"fp16"``, ``"bf16"``, ``"int8_affine"`` (``"int8"``: 1 byte a
            value, per-row scale and offset), ``"fp8_e4m3"`` (``"fp8"``: per-row scale),
            ``"int4_affine"`` (``"int4"``: 4 bits a value, per-row scale and offset). ``data``
            (float32, float16 or bfloat16, any device) is encoded once on all host cores (the
            C++ encoder) in chunks of about 64 MiB; rows are padded to 64 bytes or whole
            128-byte lines (``row_stride_bytes``); the per-row metadata (4-8 bytes a row) lives
            in device memory. :attr:`codec_error` reports the encoder's per-column error.
        cache_bytes / cache_fraction: device bytes (or fraction of rows) for a tier of hot rows
            served from HBM behind the same gather (a flag, not a new API). An encoded table's
            tier holds encoded rows: the same budget holds 4x (int8) to 8x (int4) the rows of an
            fp32 tier.
        hot_rows: ids to cache, most valuable first (default: highest degree of ``graph``).
        graph: a :class:`Graph` or indptr tensor whose degrees rank rows for the cache.
        device: the CUDA device (default: current); a CPU device keeps ``data`` as it is (or its
            encoding in a CPU tensor) and gathers on all CPU cores (no placement, no cache).
    Raises:
        ValueError: shapes; an unknown codec; with a codec: an empty table, or a value the codec
        cannot encode (NaN, infinity, beyond fp16/bf16's range), naming its row and column.
        TypeError: a codec given non-floating-point data. MemoryError (see :func:`to_placement`:
        an explicit ``pinned`` or ``managed_host`` copy that does not fit names the bytes needed
        and available).

    To build a table larger than a second copy allows, see :meth:`from_npy` and :func:`empty`.
    The table keeps its source alive while registered; :meth:`close` (or deleting the last
    reference) unregisters. Loaders using the table keep it alive.
    """

    def __init__(self, data: torch.Tensor, placement: str = "auto", *, codec: Optional[str] = None,
                 cache_bytes: Optional[int] = None, cache_fraction: Optional[float] = None,
                 hot_rows: Optional[torch.Tensor] = None, graph=None, device=None):
        if not isinstance(data, torch.Tensor):
            raise TypeError(f"data must be a tensor, got {type(data).__name__}")
        if data.dim() != 2:
            raise ValueError(f"a Table needs a 2-D tensor, got shape {tuple(data.shape)}")
        if data.shape[1] > 1 and data.stride(1) != 1:
            raise ValueError("the columns of a Table must be contiguous (stride(1) == 1)")
        self.codec = canonical_codec(codec)
        if self.codec is not None:
            if data.dtype not in DECODED_DTYPES:
                raise TypeError(f"codec {self.codec!r} encodes float32, float16 or bfloat16 features, "
                                f"got {data.dtype}")
            if data.shape[0] == 0 or data.shape[1] == 0:
                raise ValueError(f"codec {self.codec!r} needs a non-empty table, got shape "
                                 f"{tuple(data.shape)}")
        self.device = _cuda_device(device)
        if self.device.type == "cuda":
            _process.check_cuda_allowed("gnndirect_torch.Table")
        self.meta: Optional[torch.Tensor] = None
        self.cols = int(data.shape[1])
        self.codec_error = _zero_error(self.cols)
        if self.encoded:
            self._encode(data, placement)
        else:
            if self.codec == "fp32":
                _check_finite(data, "Table(codec='fp32')")
                data = data.float()
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
        row_bytes = self.row_stride_bytes
        self.cache_bytes = cache_bytes_for(self.tensor.shape[0], row_bytes, cache_bytes, cache_fraction)
        if self.device.type == "cpu":
            self.cache_bytes = 0
        elif self.cache_bytes > 0:
            self.rebuild_cache(hot_rows=hot_rows, graph=graph)

    # -- encoding ------------------------------------------------------------------------------
    def _allocate_codes(self, rows: int, stride: int, placement: str) -> torch.Tensor:
        """The codes tensor [rows, stride] uint8 in ``placement`` (sets placement, _keepalive)."""
        self._keepalive = None
        if self.device.type == "cpu":
            self.placement = "cpu"
            return torch.zeros((rows, stride), dtype=torch.uint8)
        name = normalize_placement(placement)
        with torch.cuda.device(self.device):
            if name == "auto":
                name = load_extension().auto_placement_for(rows * stride)
        if name == "registered":
            codes = torch.zeros((rows, stride), dtype=torch.uint8)
            self._keepalive = register_tensor(codes)
        else:
            codes = empty((rows, stride), torch.uint8, name, device=self.device)
            name = "device" if codes.is_cuda else name
        self.placement = name
        return codes

    def _encode(self, data: torch.Tensor, placement: str) -> None:
        """Encodes ``data`` chunk by chunk (see :meth:`_encode_chunks`)."""
        rows = data.shape[0]
        step = max(1, _ENCODE_CHUNK_BYTES // max(1, data.shape[1] * 4))
        chunks = ((begin, data[begin:begin + step]) for begin in range(0, rows, step))
        self._encode_chunks(rows, chunks, placement)

    def _encode_chunks(self, rows: int, chunks, placement: str) -> None:
        """Allocates the codes in ``placement`` and encodes ``chunks`` ((first row, 2-D float
        tensor) in row order, covering every row) on all host cores, into the codes directly for
        host placements, through a CPU staging chunk for ``device``; the metadata goes to the
        table's device at the end; the error report accumulates over the chunks."""
        ext = load_extension()
        name, stride, meta_floats, _payload = ext.codec_layout(self.codec, self.cols)
        codes = self._allocate_codes(rows, stride, placement)
        meta = torch.empty((rows, meta_floats), dtype=torch.float32)
        stats = torch.zeros((3, self.cols), dtype=torch.float64)
        for begin, chunk in chunks:
            chunk = chunk.detach().to("cpu")
            if chunk.dtype not in DECODED_DTYPES:
                chunk = chunk.float()
            chunk = chunk.contiguous()
            end = begin + chunk.shape[0]
            target = codes[begin:end] if not codes.is_cuda else torch.empty((end - begin, stride),
                                                                             dtype=torch.uint8)
            ext.encode_rows(chunk, name, target, meta[begin:end] if meta_floats else meta, stats, begin)
            if codes.is_cuda:
                codes[begin:end].copy_(target)
        self.tensor = codes
        self.meta = meta.to(self.device) if meta_floats else None
        self.codec_error = _error_from_stats(stats, rows)

    @property
    def encoded(self) -> bool:
        """True when the rows are stored encoded (a codec other than None and fp32)."""
        return self.codec not in (None, "fp32")

    @property
    def row_stride_bytes(self) -> int:
        """Bytes one stored row takes (the encoded stride for encoded tables)."""
        return self.tensor.shape[1] * self.tensor.element_size()

    @property
    def nbytes(self) -> int:
        """Bytes of the stored rows in their placement (encoded bytes for encoded tables; the
        metadata and the cache tier are in device memory: :attr:`device_bytes`)."""
        return self.tensor.shape[0] * self.row_stride_bytes

    @property
    def device_bytes(self) -> int:
        """Device memory the table holds: the rows when placed on the device, the per-row
        metadata, and the cache tier (rows and slot map)."""
        total = self.nbytes if self.tensor.is_cuda else 0
        for t in (self.meta, self.cache_rows_tensor, self.slot_of):
            if t is not None and t.is_cuda:
                total += t.numel() * t.element_size()
        return total

    @classmethod
    def from_npy(cls, path, placement: str = "auto", *, codec: Optional[str] = None, device=None,
                 **kwargs) -> "Table":
        """A table read from a .npy file (2-D, or 1-D as one column) straight into its placement:
        the file is memory-mapped and streamed in 64 MiB chunks on all cores, each chunk's
        pages released after it, so peak host memory is the placed bytes plus one chunk (no
        second copy). ``registered`` fills a plain CPU tensor and pins it in place.

        Args:
            path: the .npy file.  placement: as :class:`Table` (``auto``: the library's sized
                choice; with a lossy codec, for the encoded bytes).
            codec: as :class:`Table`. A lossy codec encodes while streaming: the file is
                memory-mapped (numpy) and each chunk of about 64 MiB is encoded on all cores into
                the placed codes, its pages released after it, so peak host memory is the
                encoded table plus one chunk (float16/float32/float64 files; float64 is
                converted to float32 first). ``"fp32"`` reads as None, then converts a non-fp32
                file to float32 (one more copy).
            device: CUDA device (default: current); CPU: host-reference mode.
            **kwargs: the other :class:`Table` arguments (cache_bytes, hot_rows, graph, ...).
        Raises:
            ValueError: the file (format, dimensions), an unknown codec, a value the codec
            cannot encode (naming row and column), an empty table with a codec.  TypeError: a
            dtype torch lacks, or an integer file with a codec.  MemoryError: as :func:`empty`.
            ImportError: a lossy codec without numpy.
        Synchronous.
        """
        name = canonical_codec(codec)
        if name in (None, "fp32"):
            tensor, placed = _filled_from_npy(path, placement, device, what="a Table")
            if tensor.dim() == 1:
                tensor = tensor.unsqueeze(1)
            return cls(tensor, "auto" if placed == "cpu" else placed, codec=name, device=device, **kwargs)
        shape, dtype = _npy_shape_dtype(path)
        if not 1 <= len(shape) <= 2:
            raise ValueError(f"{path}: a Table needs 1..2 dimensions, found {len(shape)}")
        if dtype not in (torch.float16, torch.float32, torch.float64):
            raise TypeError(f"{path}: codec {name!r} encodes floating-point features, the file holds {dtype}")
        rows, cols = shape[0], (shape[1] if len(shape) == 2 else 1)
        if rows == 0 or cols == 0:
            raise ValueError(f"codec {name!r} needs a non-empty table, {path} has shape {shape}")
        try:
            import numpy as np
        except ImportError as error:  # pragma: no cover - numpy ships with most torch installs
            raise ImportError("Table.from_npy(codec=...) memory-maps the file with numpy: pip install numpy") from error
        mapped = np.load(str(path), mmap_mode="r")
        raw = getattr(mapped, "_mmap", None)  # the mapping, to release pages after each chunk
        if mapped.ndim == 1:
            mapped = mapped.reshape(rows, 1)
        table = cls.__new__(cls)
        table._init_encoded_from(mapped, raw, rows, cols, name, placement, device, **kwargs)
        return table

    def _init_encoded_from(self, mapped, raw, rows: int, cols: int, codec: str, placement: str, device,
                           cache_bytes=None, cache_fraction=None, hot_rows=None, graph=None) -> None:
        """from_npy's constructor for lossy codecs: encodes the memory-mapped array chunk by
        chunk, dropping each chunk's pages once encoded (best effort: madvise)."""
        import mmap as _mmap

        import numpy as np
        self.codec = codec
        self.cols = int(cols)
        self.device = _cuda_device(device)
        if self.device.type == "cuda":
            _process.check_cuda_allowed("gnndirect_torch.Table")
        self.meta = None
        self.codec_error = _zero_error(self.cols)
        step = max(1, _ENCODE_CHUNK_BYTES // max(1, cols * mapped.itemsize))

        def chunks():
            for begin in range(0, rows, step):
                part = torch.from_numpy(np.array(mapped[begin:begin + step], copy=True))  # writable, own pages
                yield begin, part
                if raw is not None and hasattr(raw, "madvise"):
                    try:  # drop the pages just read (clean file pages: nothing is lost)
                        raw.madvise(_mmap.MADV_DONTNEED)
                    except (OSError, ValueError, AttributeError):
                        pass

        self._encode_chunks(rows, chunks(), placement)
        self.cache_rows_tensor = None
        self.slot_of = None
        self._users = weakref.WeakSet()
        self.cache_bytes = cache_bytes_for(rows, self.row_stride_bytes, cache_bytes, cache_fraction)
        if self.device.type == "cpu":
            self.cache_bytes = 0
        elif self.cache_bytes > 0:
            self.rebuild_cache(hot_rows=hot_rows, graph=graph)

    # -- properties --------------------------------------------------------------------------
    @property
    def shape(self) -> torch.Size:
        """(rows, cols) of the values (decoded values for encoded tables)."""
        return torch.Size((self.tensor.shape[0], self.cols if self.encoded else self.tensor.shape[1]))

    @property
    def dtype(self) -> torch.dtype:
        """Element type :meth:`gather` returns by default (float32 for encoded tables; the stored
        codes are uint8 rows in :attr:`tensor`)."""
        return torch.float32 if self.encoded else self.tensor.dtype

    def __len__(self) -> int:
        """Rows."""
        return self.tensor.shape[0]

    def __repr__(self) -> str:
        codec = "" if self.codec is None else f", codec={self.codec!r}"
        return (f"Table(shape={tuple(self.shape)}, dtype={self.dtype}{codec}, placement={self.placement!r}, "
                f"cache_bytes={self.cache_bytes})")

    @property
    def cached_rows(self) -> int:
        """Rows held in the device cache tier."""
        return 0 if self.cache_rows_tensor is None else self.cache_rows_tensor.shape[0]

    # -- cache tier --------------------------------------------------------------------------
    def rebuild_cache(self, hot_rows: Optional[torch.Tensor] = None, graph=None) -> None:
        """Fill the device tier with the first ``cache_bytes // row_stride_bytes`` of
        ``hot_rows`` (most valuable first), or the highest-degree nodes of ``graph``, or the
        first rows. An encoded table caches its encoded rows. Synchronous. Raises IndexError for
        a bad id."""
        rows = self.tensor.shape[0]
        row_bytes = self.row_stride_bytes
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
    def gather(self, index: torch.Tensor, *, dtype: Optional[torch.dtype] = None,
               check: bool = True) -> torch.Tensor:
        """``self[index]`` on index's device (see :func:`gnndirect_torch.gather`), decoded to
        ``dtype`` for a table with a codec (default float32; float16 and bfloat16 too)."""
        self._check_process()
        return gather_table(self, index, dtype=dtype, check=check)

    def scatter(self, index: torch.Tensor, src: torch.Tensor, *, check: bool = True) -> None:
        """In place ``self[index[i]] = src[i]``. Duplicate indices: the LAST occurrence wins,
        whole row (on every placement, and in every cached copy).

        An encoded table encodes ``src`` (float32/float16/bfloat16, any device) on the fly on
        the host with its codec (the rows' codes and metadata are replaced; a value the codec
        cannot encode raises ValueError before anything is written); :attr:`codec_error` keeps
        describing the original encoding. A ``codec="fp32"`` table takes any floating ``src``
        (converted to float32).

        Cached copies are updated too: the table's own cache tier, and the device cache tier of
        every live :class:`~gnndirect_torch.NeighborLoader` reading this table (encoded rows for
        an encoded table), so that a later gather (or batch) returns the new values. Batches a
        loader prepared (or is preparing) before this call may still hold the old values, as with
        any prefetching. Synchronises the current stream when ``check``, when a cache tier holds
        rows, or (encoded table) when a loader reads the table. Raises
        as :func:`gnndirect_torch.gather`; RuntimeError in a forked child (see ``_process``).
        """
        load_extension()
        self._check_process()
        if self.encoded:
            self._scatter_encoded(index, src, check)
            return
        if self.codec == "fp32" and src.dtype != torch.float32 and src.is_floating_point():
            src = src.float()
        _call(torch.ops.gnndirect.scatter_rows.default, self.tensor, index, src, check)
        if self.slot_of is not None:
            update_cached_rows(self.cache_rows_tensor, self.slot_of, index, src)
        for loader in list(self._users):
            loader._update_cached_rows(index, src)

    def _scatter_encoded(self, index: torch.Tensor, src: torch.Tensor, check: bool) -> None:
        """Encodes ``src`` on the host and writes codes and metadata of the last occurrence of
        each index (and the cached copies of those rows)."""
        if not isinstance(index, torch.Tensor) or index.dim() != 1:
            raise ValueError("index must be a 1-D tensor")
        if index.dtype not in (torch.int32, torch.int64):
            raise TypeError(f"index must be int32 or int64, got {index.dtype}")
        if not isinstance(src, torch.Tensor) or src.dim() != 2 or src.shape != (index.shape[0], self.cols):
            raise ValueError(f"src must be {index.shape[0]} x {self.cols}, got "
                             f"{tuple(src.shape) if isinstance(src, torch.Tensor) else type(src).__name__}")
        if src.dtype not in DECODED_DTYPES:
            raise TypeError(f"codec {self.codec!r} encodes float32, float16 or bfloat16 rows, got {src.dtype}")
        if index.numel() == 0:
            return
        ext = load_extension()
        ids = index.to("cpu", torch.int64)
        rows = self.tensor.shape[0]
        low, high = int(ids.min()), int(ids.max())
        if low < 0 or high >= rows:
            position = int(((ids < 0) | (ids >= rows)).nonzero()[0])
            raise IndexError(f"index[{position}] = {int(ids[position])} is outside the table's {rows} rows")
        unique, last = _last_occurrences(ids)
        rows_src = src.detach().to("cpu").index_select(0, last).contiguous()
        _name, stride, meta_floats, _payload = ext.codec_layout(self.codec, self.cols)
        codes = torch.empty((unique.shape[0], stride), dtype=torch.uint8)
        meta = torch.empty((unique.shape[0], meta_floats), dtype=torch.float32)
        stats = torch.zeros((3, self.cols), dtype=torch.float64)
        ext.encode_rows(rows_src, self.codec, codes, meta, stats, 0)
        target = unique if self.device.type == "cpu" else unique.to(self.device)
        codes_in = codes if self.device.type == "cpu" else codes.to(self.device)
        _call(torch.ops.gnndirect.scatter_rows.default, self.tensor, target, codes_in, check)
        if self.meta is not None:
            self.meta.index_copy_(0, target.to(self.meta.device), meta.to(self.meta.device))
        if self.slot_of is not None:
            update_cached_rows(self.cache_rows_tensor, self.slot_of, target, codes_in)
        if len(self._users) > 0:
            # Loaders decoding in their pipeline read codes and metadata on their side streams,
            # which are not ordered after the current stream: their tiers get the new codes, and
            # the writes must be done before a later batch reads a row (else new codes could meet
            # old metadata).
            for loader in list(self._users):
                loader._update_cached_rows(target, codes_in)
            torch.cuda.current_stream(self.device).synchronize()

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
        self.meta = None
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
            samples with the fast CPU sampler.
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

    def sample_neighbors(self, seeds: torch.Tensor, fanout: int, *,
                         weights: Optional[torch.Tensor] = None, **kwargs):
        """See :func:`gnndirect_torch.sample_neighbors` (``weights`` default: the graph's)."""
        self._check_process()
        return sample_neighbors_csr(self.indptr, self.indices, seeds, fanout,
                                    weights=self.weights if weights is None else weights, **kwargs)

    def sample_blocks(self, seeds: torch.Tensor, fanouts, *, weights: Optional[torch.Tensor] = None,
                      **kwargs):
        """See :func:`gnndirect_torch.sample_blocks` (``weights`` default: the graph's)."""
        self._check_process()
        return sample_blocks_csr(self.indptr, self.indices, seeds, fanouts,
                                 weights=self.weights if weights is None else weights, **kwargs)

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
