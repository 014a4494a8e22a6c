"""The mini-batch pipeline as a Python iterator (:class:`NeighborLoader`); its batches are
:class:`~gnndirect_torch.Batch` objects of :class:`~gnndirect_torch.Block` layers.

The road of a batch (docs/integration-pytorch.md, "The road"): ``next(iterator)`` ->
:class:`_Pipeline` (the one wrapper of the extension's ``_C.Pipeline``; builds it from a
:class:`~gnndirect_torch.PipelineOptions` and the sampler, names each batch with
``_blocks.batch_of``) -> the C++ pipeline (csrc/pipeline_impl.cuh) -> gnndirect's
minibatch_pipeline."""

from __future__ import annotations

import threading
import time

from typing import Optional, Sequence

import torch

from . import _process
from ._blocks import Batch, batch_of
from ._cache import update_cached_rows
from ._codecs import DECODED_DTYPES
from ._extension import load_extension
from ._options import PipelineOptions
from ._sampling import resolve_weights
from ._timeline import LoaderTimeline
from ._util import cache_bytes_for, num_batches, seed_ids
from .graph import Graph
from .hetero import HeteroGraph
from .hetero_loader import HeteroNeighborLoader
from .table import Table

__all__ = ["NeighborLoader", "LoaderTimeline", "decodes_after_batch"]


def decodes_after_batch(encoded: bool, dtype: Optional[torch.dtype]) -> bool:
    """Whether a loader decodes ``batch.x`` after the batch (True) rather than in the pipeline.

    The pipeline binding decodes encoded tables to float32 only (one instantiation per codec and
    index type; fp16/bf16 too would triple them), inside its own feature gather on its side
    streams. An encoded table asked for float16 or bfloat16 is sampled by the pipeline and
    decoded by the table's own gather on the current stream once the batch is handed out.

    Args:
        encoded: the table stores encoded rows (:attr:`Table.encoded`).
        dtype: the loader's ``dtype`` (None: float32 for an encoded table).
    Returns:
        True for an encoded table with a dtype other than float32; False otherwise.
    Pure (no GPU work); never raises: ``dtype`` is not checked (the loader raises TypeError for
    one no codec produces).
    """
    return bool(encoded) and dtype not in (None, torch.float32)


class _Pipeline:
    """The one Python wrapper of the extension's pipeline (``_C.Pipeline``, a
    gnndirect::minibatch_pipeline over tensors): it builds it from a :class:`PipelineOptions`
    and the sampler, runs every call on the pipeline's device, and hands out each prepared batch
    as a :class:`~gnndirect_torch.Batch` (named at the boundary by ``_blocks.batch_of``). Not
    thread-safe: :class:`NeighborLoader` serialises the calls under its lock.

    Args:
        native: the extension's pipeline (or a stand-in with its methods, in tests).
        device: the CUDA device it runs on (None: the current one).
    """

    def __init__(self, native, device):
        self._native = native
        self.device = device

    @classmethod
    def build(cls, graph: Graph, features: torch.Tensor, labels: torch.Tensor, train_ids: torch.Tensor,
              options: PipelineOptions, *, cache_bytes: int, weights: Optional[torch.Tensor],
              replace: bool, encoded: dict) -> "_Pipeline":
        """The pipeline over ``graph``'s arrays, ``features`` (the table's tensor, or the codes
        of an encoded table with ``encoded`` = codec, meta, cols), ``labels`` and the CPU
        ``train_ids``; ``cache_bytes`` for an options.cache_bytes of None. Synchronous.
        Raises TypeError, ValueError, MemoryError (the extension's checks)."""
        ext = load_extension()
        bound = options.to_library(ext, cache_bytes=cache_bytes)
        with torch.cuda.device(graph.device):
            native = ext.Pipeline(graph.indptr, graph.indices, features, labels, train_ids, bound,
                                  weights=weights, replace=bool(replace), **encoded)
        return cls(native, graph.device)

    def start_epoch(self, epoch: int) -> None:
        """Shuffles and starts preparing ``epoch`` (held batches are detached first)."""
        with torch.cuda.device(self.device):
            self._native.start_epoch(epoch)

    def next(self) -> Optional[Batch]:
        """The next prepared batch (views of the pipeline's memory, ready on the current stream),
        or None at the end of the epoch. Blocks until the batch is prepared."""
        with torch.cuda.device(self.device):
            out = self._native.next()
        return None if out is None else batch_of(out)

    @property
    def cached_rows(self) -> int:
        """Rows in the pipeline's device cache tier."""
        return self._native.cached_rows

    @property
    def held_batches(self) -> int:
        """Batches handed out whose slot is not back yet (tensors of them still alive)."""
        return self._native.held_batches

    def counters(self) -> dict:
        """The pipeline's counters as a dict (see :meth:`NeighborLoader.counters`)."""
        c = self._native.counters()
        return {"batches_prepared": c.batches_prepared, "feature_bytes": c.feature_bytes,
                "prepare_seconds": c.prepare_seconds, "batches_ready": c.batches_ready}

    def update_cached_rows(self, index: torch.Tensor, src: torch.Tensor) -> None:
        """Writes ``src`` into the tier's copies of rows ``index`` (see
        :func:`~gnndirect_torch._cache.update_cached_rows`) and synchronises the current stream
        (the pipeline's side streams are not ordered after it)."""
        with torch.cuda.device(self.device):
            tensors = self._native.cache_tensors()
            if tensors and tensors[0].shape[0] > 0:
                update_cached_rows(tensors[0], tensors[1], index, src)
                torch.cuda.current_stream().synchronize()


class NeighborLoader:
    """Iterates shuffled mini-batches prepared by gnndirect's pipeline (GPU sampling from the
    host-resident graph, zero-copy feature gather, side streams) while the caller trains.

    Args:
        graph: :class:`Graph` (int64 indptr).  features: :class:`Table` (fp32, fp16 or bf16, or encoded with a codec).
        labels: int64 label per node (any device; copied to the GPU if pageable).
        train_ids: the seed nodes: ids (integers, cast to the graph's index dtype) or, as in
            PyG, a boolean mask over the nodes (``data.train_mask``; its ``nonzero()`` are the
            seeds). Floating-point tensors are refused (TypeError).
        fanouts, batch_size: as :class:`PipelineOptions` (one fanout per layer, seeds side
            first; seeds per batch); None: ``options``' (default (15, 10, 5) and 1024).
        replace: sample with replacement (uniform only).
        weights: the sampler, as in :func:`gnndirect_torch.sample_blocks`: None (default) draws
            weighted by the graph's edge weights when it has them (``Graph(..., weights=w)``),
            uniformly otherwise; False uniformly; a float32 tensor of one weight per edge (in
            ``graph.indices``' order, device-visible or copied to the GPU if pageable) weighted by
            it. Weighted sampling is without replacement (``replace=True`` raises ValueError).
        options: a :class:`PipelineOptions` (None: the defaults); ``**pipeline_options``
            (``seed``, ``drop_last``, ``depth``, ``workers``, ``sampling_max_blocks``,
            ``gather_max_blocks``, ``reserve_bytes``, ``cache_bytes``: see
            :class:`PipelineOptions`, where each is documented once) override its fields.
            ``cache_bytes`` None: the table's own; the pipeline builds its own tier (hot,
            highest-degree rows), the table's keeps serving :meth:`Table.gather`.
        cache_fraction: the pipeline's tier as a fraction of the table's rows instead of
            ``cache_bytes``. For an encoded table the tier holds encoded rows (budget in encoded
            bytes, ``row_stride_bytes`` a row). Refused (ValueError) for an encoded table decoded
            after the batch (``dtype`` float16 or bfloat16): the table's own tier serves those
            batches.
        dtype: the dtype of ``batch.x`` for a table with a lossy codec (float32 default,
            float16, bfloat16); other tables give their own dtype (None or that dtype).
        timeline: a :class:`~gnndirect_torch.loader.LoaderTimeline` that records the caller's
            step per batch and the host time of each ``next()`` (None, the default: nothing is
            recorded).

    Encoded tables (``Table(..., codec="int8")`` etc.), ``dtype`` float32 (the default): the
    pipeline reads the encoded rows and decodes them to float32 inside its own feature gather, on
    its side streams, overlapped with training as for plain tables; ``batch.x`` is a view of the
    pipeline's memory like theirs. ``counters()["feature_bytes"]`` counts the decoded float32
    bytes (rows x cols x 4), not the encoded bytes the host link carried. ``dtype`` float16 or
    bfloat16 (see :func:`decodes_after_batch`): the pipeline samples (and gathers labels) over a
    2-byte placeholder column per row (a float16 [rows, 1] device tensor of zeros: 2 bytes of HBM
    per row, all ``feature_bytes`` counts), and each batch's features are decoded after it is
    handed out by the table's own decoding gather (:meth:`Table.gather`, on the current stream,
    indices unchecked: they come from the sampler), serialised with training; ``batch.x`` is
    then a fresh tensor.
    Raises:
        TypeError (an unknown pipeline option, dtypes), ValueError (shapes, values), MemoryError.

    Each ``iter(loader)`` starts the next epoch (0, 1, ...); starting a new one invalidates the
    previous iterator. A batch's tensors are views of the pipeline's memory (torch's caching
    allocator; nothing is copied), ready on the current stream (which waits for their
    preparation; no host synchronisation). The batch's slot goes back to the pipeline when the
    last of its tensors (and of views of them) is gone, after the work enqueued so far on the
    stream it was handed to and on the current stream; so keep a batch only while you use it, or
    ``.clone()`` what you keep. A batch still held when its slot is needed -- a new epoch,
    ``close()``, or every one of the ``depth`` slots held -- is *detached*: its bytes are copied
    into fresh caching-allocator blocks on the current stream and its tensors re-pointed there
    (they stay valid; :func:`gnndirect_torch.ops.device_copy_bytes` counts those bytes). Do not
    use a batch in another thread while a detach may happen (several threads consuming one
    loader: give it ``depth`` >= 2 x threads + 1).

    The loader keeps its graph, table and labels alive; while it lives,
    ``graph.close()`` and ``features.close()`` are refused, and ``features.scatter`` also updates
    the loader's device cache tier.

    A :class:`~gnndirect_torch.hetero.HeteroGraph` as ``graph`` gives a
    :class:`~gnndirect_torch.hetero_loader.HeteroNeighborLoader` instead:
    ``NeighborLoader(hetero_graph, {"paper": table, ...}, labels, ("paper", train_ids),
    {edge_type: fanouts, ...}, batch_size)`` (see there).

    Threads: every call into the pipeline (``iter``, ``next``, ``close``, counters, cache
    updates) holds the loader's lock, so iterators may be shared between threads (each batch is
    handed out once) and ``close()`` waits for a ``next()`` in progress. Processes: the loader
    cannot be pickled, and is refused in a forked child (RuntimeError saying what to do).
    """


    def __new__(cls, graph=None, *args, **kwargs):
        """A typed graph (:class:`~gnndirect_torch.hetero.HeteroGraph`) gets a
        :class:`~gnndirect_torch.hetero_loader.HeteroNeighborLoader` (features a dict of tables,
        ``input_nodes=(type, ids)``, ``num_neighbors`` per edge type), so that one name serves
        both graph kinds as PyG's ``NeighborLoader`` does; any other graph this class."""
        if isinstance(graph, HeteroGraph):
            return HeteroNeighborLoader(graph, *args, **kwargs)
        return super().__new__(cls)

    def __init__(self, graph: Graph, features: Table, labels: torch.Tensor, train_ids: torch.Tensor,
                 fanouts: Optional[Sequence[int]] = None, batch_size: Optional[int] = None, *,
                 replace: bool = False, weights=None, options: Optional[PipelineOptions] = None,
                 cache_fraction: Optional[float] = None, dtype: Optional[torch.dtype] = None,
                 timeline: Optional[LoaderTimeline] = None, **pipeline_options):
        if not isinstance(graph, Graph):
            raise TypeError("graph must be a gnndirect_torch.Graph")
        if not isinstance(features, Table):
            raise TypeError("features must be a gnndirect_torch.Table")
        if timeline is not None and not isinstance(timeline, LoaderTimeline):
            raise TypeError("timeline must be a gnndirect_torch.loader.LoaderTimeline or None")
        if options is not None and not isinstance(options, PipelineOptions):
            raise TypeError("options must be a gnndirect_torch.PipelineOptions or None")
        self._timeline = timeline
        self._lock = threading.RLock()
        self._pipeline = None
        options = options or PipelineOptions()
        if fanouts is not None:
            pipeline_options["fanouts"] = fanouts
        if batch_size is not None:
            pipeline_options["batch_size"] = batch_size
        self.options = options.updated(**pipeline_options).checked()  # TypeError for unknown names
        ext = load_extension()
        if graph.device.type != "cuda" or features.device.type != "cuda":
            raise ValueError("NeighborLoader needs a graph and a table on a CUDA device")
        _process.check_cuda_allowed("gnndirect_torch.NeighborLoader")
        self.graph, self.features = graph, features
        device = graph.device
        labels = torch.as_tensor(labels)
        if labels.dtype != torch.int64:
            raise TypeError(f"labels must be int64, got {labels.dtype}")
        if not labels.is_cuda and ext.placement_name(labels) == "pageable":
            labels = labels.to(device)
        self.labels = labels.contiguous()
        edge_weights = resolve_weights(graph.weights, weights)
        if edge_weights is not None:
            if not edge_weights.is_cuda and ext.placement_name(edge_weights) == "pageable":
                edge_weights = edge_weights.to(device)
            edge_weights = edge_weights.contiguous()
        self.weights = edge_weights  # kept alive with the pipeline that reads them
        self.replace = bool(replace)
        self.train_ids = seed_ids(train_ids, graph.num_nodes).to("cpu", graph.indices.dtype).contiguous()
        self.fanouts = list(self.options.fanouts)
        self.batch_size = self.options.batch_size
        self.drop_last = self.options.drop_last
        self._num_batches = num_batches(self.train_ids.numel(), self.batch_size, self.drop_last)
        self._x_dtype = dtype
        if dtype is not None and not features.encoded and dtype != features.dtype:
            raise TypeError(f"dtype={dtype}: this table has no lossy codec and gives its own dtype "
                            f"({features.dtype})")
        if features.encoded and dtype is not None and dtype not in DECODED_DTYPES:
            raise TypeError(f"codec {features.codec!r} decodes to float32, float16 or bfloat16, not {dtype}")
        self._decode = decodes_after_batch(features.encoded, dtype)
        encoded = {}  # the pipeline's codec arguments (an encoded table it decodes itself)
        cache_bytes = self.options.cache_bytes
        if self._decode:
            if cache_bytes is not None or cache_fraction is not None:
                raise ValueError("NeighborLoader: an encoded table decoded to float16/bfloat16 serves batches "
                                 "through its own cache tier: give cache_bytes/cache_fraction to "
                                 "Table(..., codec=...) instead (or keep dtype float32)")
            cache = 0
            with torch.cuda.device(device):
                pipeline_features = torch.zeros((features.shape[0], 1), dtype=torch.float16, device=device)
        else:
            pipeline_features = features.tensor
            if features.encoded:
                encoded = {"codec": features.codec, "meta": features.meta, "cols": features.cols}
            if cache_bytes is None and cache_fraction is None:
                cache = features.cache_bytes
            else:  # the stored bytes of a row: encoded rows for an encoded table
                cache = cache_bytes_for(features.shape[0], features.row_stride_bytes, cache_bytes, cache_fraction)
        self.options.cache_bytes = int(cache)
        self.cache_bytes = int(cache)
        self._pipeline = _Pipeline.build(graph, pipeline_features, self.labels, self.train_ids, self.options,
                                         cache_bytes=self.cache_bytes, weights=self.weights,
                                         replace=self.replace, encoded=encoded)
        features._users.add(self)
        graph._users.add(self)
        self._epoch = 0
        self._active = None

    def __len__(self) -> int:
        """Batches per epoch."""
        return self._num_batches

    def __iter__(self):
        """Starts the next epoch (shuffle, worker start; returns at once) and returns its
        iterator; a previous iterator of this loader becomes invalid.
        Raises RuntimeError after close()."""
        _process.check_cuda_allowed("gnndirect_torch.NeighborLoader")
        with self._lock:
            pipeline = self._open_pipeline()
            epoch = self._epoch
            self._epoch += 1
            if self._timeline is not None:
                with torch.cuda.device(pipeline.device):
                    self._timeline.start()
            pipeline.start_epoch(epoch)
            iterator = _LoaderIterator(self, epoch)
            self._active = epoch
            return iterator

    def close(self) -> None:
        """Stops the pipeline (its workers finish the batch they prepare) and frees it, before
        the graph and table it reads may be released; idempotent. Waits for a ``next()`` in
        progress in another thread. The loader is unusable afterwards."""
        lock = getattr(self, "_lock", None)
        if lock is None:  # __init__ failed before the lock existed
            return
        with lock:
            pipeline = getattr(self, "_pipeline", None)
            if pipeline is not None:
                self._pipeline = None
                self._active = None
                del pipeline  # the C++ destructor stops the workers and synchronises its streams
            for owner in (getattr(self, "features", None), getattr(self, "graph", None)):
                if owner is not None:
                    owner._users.discard(self)

    def __reduce_ex__(self, protocol):
        """Refuses pickling (TypeError): the pipeline and its placed graph and table belong to
        this process."""
        _process.refuse_pickle("NeighborLoader", "a GPU pipeline")

    def _update_cached_rows(self, index: torch.Tensor, src: torch.Tensor) -> None:
        """Keeps the pipeline's device cache tier coherent with ``features[index] = src`` (last
        duplicate wins; see :func:`~gnndirect_torch._cache.update_cached_rows`; for an encoded
        table decoded in the pipeline ``src`` is the new rows' codes, which its tier holds), then
        synchronises the current stream: the pipeline's side streams are not ordered after it,
        and batches prepared after this call must see the new rows."""
        with self._lock:
            if self._pipeline is not None:
                self._pipeline.update_cached_rows(index, src)

    def __del__(self):
        # The pipeline first: Python clears attributes in no particular order, and the table's
        # registration must outlive every read the workers may still have in flight.
        self.close()

    def _open_pipeline(self):
        if self._pipeline is None:
            raise RuntimeError("NeighborLoader is closed")
        return self._pipeline

    @property
    def cached_rows(self) -> int:
        """Feature rows in the pipeline's device cache tier. RuntimeError after close()."""
        with self._lock:
            return self._open_pipeline().cached_rows

    def counters(self) -> dict:
        """Pipeline counters: batches_prepared, feature_bytes (since construction),
        prepare_seconds and batches_ready (current epoch; preparation time summed over batches,
        overlapping). feature_bytes counts the rows the pipeline wrote into its batches: for an
        encoded table decoded in the pipeline, the decoded float32 bytes (input nodes x cols x 4),
        not the encoded bytes the host link carried; for one decoded after the batch, only the
        2-byte placeholder per input node. A snapshot (no GPU synchronisation). RuntimeError
        after close()."""
        with self._lock:
            return self._open_pipeline().counters()


class _LoaderIterator:
    """Iterator over one epoch of a NeighborLoader (holds the loader alive)."""

    def __init__(self, loader: NeighborLoader, epoch: int):
        self._loader = loader
        self._epoch = epoch
        self._done = False

    def __iter__(self):
        """Itself."""
        return self

    def __len__(self) -> int:
        """Batches of the epoch."""
        return len(self._loader)

    def __next__(self) -> Batch:
        """The next prepared batch (waits on the host only until it is prepared; the current
        stream waits for it on the GPU). Raises StopIteration at the end of the epoch,
        RuntimeError when invalidated, and the library's errors (e.g. IndexError)."""
        loader = self._loader
        _process.check_cuda_allowed("gnndirect_torch.NeighborLoader")
        with loader._lock:  # next() releases the GIL: no second caller, no close() meanwhile
            if self._done:
                raise StopIteration
            if loader._active != self._epoch or loader._pipeline is None:
                raise RuntimeError("this NeighborLoader iterator was invalidated by a newer "
                                   "iter(loader) or by loader.close()")
            timeline = loader._timeline
            if timeline is not None:
                host_start = time.perf_counter()
                with torch.cuda.device(loader._pipeline.device):
                    timeline._before_next(host_start)
            batch = loader._pipeline.next()
            if timeline is not None:
                with torch.cuda.device(loader._pipeline.device):
                    timeline._after_next(-1 if batch is None else batch.index, host_start)
            if batch is None:
                self._done = True
                raise StopIteration
        if loader._decode:  # the pipeline gathered a placeholder: decode the real rows
            batch.x = loader.features.gather(batch.n_id, dtype=loader._x_dtype, check=False)
        return batch
