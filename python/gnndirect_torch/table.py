"""The feature table: :class:`Table` (a 2-D table GPU kernels read in place, optionally encoded
with a row codec, optionally with a device cache tier) and :func:`gather_table`, the gather of a
table that :meth:`Table.gather` and :func:`gnndirect_torch.gather` share. Placement is in
``_placement``, codecs in ``_codecs``, cache coherence in ``_cache``."""

from __future__ import annotations

import weakref
from typing import Optional

import torch

from . import _process
from ._cache import _last_occurrences, update_cached_rows
from ._codecs import (DECODED_DTYPES, _ENCODE_CHUNK_BYTES, _check_finite, _error_from_stats,
                      _zero_error, canonical_codec)
from ._extension import _call, _check_fork, load_extension
from ._placement import (_ProcessLocal, _choose, _cuda_device, _filled_from_npy, _npy_shape_dtype, empty,
                         register_tensor, to_placement)
from ._util import cache_bytes_for, normalize_placement
from .graph import Graph


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
