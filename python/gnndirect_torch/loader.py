"""The mini-batch pipeline as a Python iterator (:class:`NeighborLoader`); its batches are
:class:`~gnndirect_torch.Batch` objects of :class:`~gnndirect_torch.Block` layers."""

from __future__ import annotations

import json
import threading
import time

from typing import List, Optional, Sequence

import torch

from . import _process
from ._blocks import Batch, Block
from ._extension import load_extension
from ._util import cache_bytes_for, check_fanouts, num_batches, seed_ids
from .table import DECODED_DTYPES, Graph, Table, update_cached_rows


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


class LoaderTimeline:
    """The caller's side of an epoch timeline (the JSON format of the C++ ``pipeline_timeline``,
    drawn by ``scripts/results.py timeline``): per batch, on the stream that consumed it (lane
    ``consumer``), the caller's ``step`` from the batch's hand-off (recorded on the current stream
    once it waits for the batch) to the next ``next()`` call, and on lane ``loader (host)`` the
    host time each ``next()`` took (``next``: waiting for the pipeline). CUDA timing events on the
    current stream; nothing is recorded without a timeline (``NeighborLoader(timeline=None)``, the
    default). Each ``iter(loader)`` restarts it, so it holds the latest epoch. The pipeline's own
    stages (sampling, gathers per slot stream) are recorded by the C++ pipeline
    (``pipeline_options::timeline``, ``bench/epoch --timeline``).
    """

    def __init__(self):
        self._origin = None
        self._host_origin = 0.0
        self._spans: List[tuple] = []  # (lane, batch, stage, begin, end, gpu): events or seconds
        self._open_step = None  # (batch, begin event) of the step in progress

    def start(self) -> None:
        """Sets the time origin on the current stream (waits for it) and drops the spans so far."""
        self._origin = torch.cuda.Event(enable_timing=True)
        self._origin.record()
        self._origin.synchronize()
        self._host_origin = time.perf_counter()
        self._spans = []
        self._open_step = None

    def _mark(self):
        event = torch.cuda.Event(enable_timing=True)
        event.record()
        return event

    def _before_next(self, host_start: float) -> None:
        """Closes the step of the batch handed out last (the caller's work enqueued since)."""
        if self._open_step is not None:
            batch, begin = self._open_step
            self._spans.append(("consumer", batch, "step", begin, self._mark(), True))
            self._open_step = None

    def _after_next(self, batch: int, host_start: float) -> None:
        """Opens the step of `batch` (its hand-off on the current stream) and adds the host span."""
        self._spans.append(("loader (host)", batch, "next", host_start, time.perf_counter(), False))
        if batch >= 0:
            self._open_step = (batch, self._mark())

    def spans(self) -> list:
        """The closed spans as dicts (lane, batch, stage, start, end in ms since start(), gpu);
        waits for their events."""
        if self._origin is None:
            return []
        out = []
        for lane, batch, stage, begin, end, gpu in self._spans:
            if gpu:
                end.synchronize()
                a, b = self._origin.elapsed_time(begin), self._origin.elapsed_time(end)
            else:
                a, b = 1e3 * (begin - self._host_origin), 1e3 * (end - self._host_origin)
            out.append({"lane": lane, "batch": batch, "stage": stage, "start": a, "end": b, "gpu": gpu})
        return out

    def to_json(self, **extra) -> str:
        """The spans as the timeline JSON ({"unit": "ms", "lanes", "spans"}, plus `extra`)."""
        spans = self.spans()
        lanes = list(dict.fromkeys(s["lane"] for s in spans))
        return json.dumps(dict({"unit": "ms"}, **extra, lanes=lanes, spans=spans), indent=1)

    def write_json(self, path: str, **extra) -> None:
        """Writes :meth:`to_json` to `path`."""
        with open(path, "w") as f:
            f.write(self.to_json(**extra))


class NeighborLoader:
    """Iterates shuffled mini-batches prepared by gnndirect's pipeline (GPU sampling from the
    host-resident graph, zero-copy feature gather, side streams) while the caller trains.

    Args:
        graph: :class:`Graph` (int64 indptr).  features: :class:`Table` (fp32, fp16 or bf16, or encoded with a codec).
        labels: int64 label per node (any device; copied to the GPU if pageable).
        train_ids: the seed nodes: ids (integers, cast to the graph's index dtype) or, as in
            PyG, a boolean mask over the nodes (``data.train_mask``; its ``nonzero()`` are the
            seeds). Floating-point tensors are refused (TypeError).
        fanouts: one per layer, seeds side first.  batch_size: seeds per batch.
        seed: the key of the epoch shuffle and of the batch samples (pipeline_options::seed).
        replace: sample with replacement.  drop_last: drop a last, smaller batch.
        depth: batches in flight, including the one the caller holds (0: the larger of the
            library's default + 1, i.e. 4, and workers + 2).  workers: host threads preparing
            batches concurrently, each on its own stream (0: the library's default, 2; the
            papers100M-shaped demo prepares fastest with 6).  sampling_max_blocks: cap on thread
            blocks of each sampling kernel (sampling.max_blocks; 0: none).  gather_max_blocks:
            cap on thread blocks of each gather (gather.max_blocks; 0: the gather selector's 32
            for host memory, also through the cache tier, which leave SMs to training; a larger
            cap helps when nothing else runs on the GPU, see docs/performance.md §4).
            reserve_bytes: pool bytes reserved up front.
        cache_bytes / cache_fraction: device cache tier of hot (highest-degree) feature rows
            for the pipeline (default: the table's own cache_bytes; the pipeline builds its own
            tier, the table's keeps serving :meth:`Table.gather`). For an encoded table it holds
            encoded rows (budget in encoded bytes, ``row_stride_bytes`` a row). Refused
            (ValueError) for an encoded table decoded after the batch (``dtype`` float16 or
            bfloat16): the table's own tier serves those batches.
        dtype: the dtype of ``batch.x`` for a table with a lossy codec (float32 default,
            float16, bfloat16); other tables give their own dtype (None or that dtype).
        timeline: a :class:`LoaderTimeline` that records the caller's step per batch and the
            host time of each ``next()`` (None, the default: nothing is recorded).

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
        TypeError, ValueError (shapes, dtypes), MemoryError.

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

    Threads: every call into the pipeline (``iter``, ``next``, ``close``, counters, cache
    updates) holds the loader's lock, so iterators may be shared between threads (each batch is
    handed out once) and ``close()`` waits for a ``next()`` in progress. Processes: the loader
    cannot be pickled, and is refused in a forked child (RuntimeError saying what to do).
    """

    def __init__(self, graph: Graph, features: Table, labels: torch.Tensor, train_ids: torch.Tensor,
                 fanouts: Sequence[int] = (15, 10, 5), batch_size: int = 1024, *, seed: int = 0,
                 replace: bool = False, drop_last: bool = False, depth: int = 0,
                 workers: int = 0, sampling_max_blocks: int = 0, gather_max_blocks: int = 0, reserve_bytes: int = 0,
                 cache_bytes: Optional[int] = None,
                 cache_fraction: Optional[float] = None, dtype: Optional[torch.dtype] = None,
                 timeline: Optional[LoaderTimeline] = None):
        if not isinstance(graph, Graph):
            raise TypeError("graph must be a gnndirect_torch.Graph")
        if not isinstance(features, Table):
            raise TypeError("features must be a gnndirect_torch.Table")
        if timeline is not None and not isinstance(timeline, LoaderTimeline):
            raise TypeError("timeline must be a gnndirect_torch.loader.LoaderTimeline or None")
        self._timeline = timeline
        self._lock = threading.RLock()
        self._pipeline = None
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
        self.train_ids = seed_ids(train_ids, graph.num_nodes).to("cpu", graph.indices.dtype).contiguous()
        self.fanouts = check_fanouts(fanouts)
        self.batch_size = int(batch_size)
        self.drop_last = bool(drop_last)
        self._num_batches = num_batches(self.train_ids.numel(), self.batch_size, self.drop_last)
        self._x_dtype = dtype
        if dtype is not None and not features.encoded and dtype != features.dtype:
            raise TypeError(f"dtype={dtype}: this table has no lossy codec and gives its own dtype "
                            f"({features.dtype})")
        if features.encoded and dtype is not None and dtype not in DECODED_DTYPES:
            raise TypeError(f"codec {features.codec!r} decodes to float32, float16 or bfloat16, not {dtype}")
        self._decode = decodes_after_batch(features.encoded, dtype)
        encoded = {}  # the pipeline's codec arguments (an encoded table it decodes itself)
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
        config = ext.PipelineConfig()
        config.fanouts = self.fanouts
        config.batch_size = self.batch_size
        config.drop_last = self.drop_last
        config.seed = int(seed)
        config.replace = bool(replace)
        for name, value in (("depth", depth), ("workers", workers)):
            if int(value) < 0:
                raise ValueError(f"{name} must be >= 0 (0: the default), got {value}")
        config.depth = int(depth)
        config.workers = int(workers)
        config.sampling_max_blocks = int(sampling_max_blocks)
        config.gather_max_blocks = int(gather_max_blocks)
        config.reserve_bytes = int(reserve_bytes)
        config.cache_bytes = int(cache)
        self.cache_bytes = int(cache)
        with torch.cuda.device(device):
            self._pipeline = ext.Pipeline(graph.indptr, graph.indices, pipeline_features, self.labels,
                                          self.train_ids, config, **encoded)
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
            if self._pipeline is None:
                raise RuntimeError("NeighborLoader is closed")
            epoch = self._epoch
            self._epoch += 1
            with torch.cuda.device(self.graph.device):
                if self._timeline is not None:
                    self._timeline.start()
                self._pipeline.start_epoch(epoch)
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
        duplicate wins; see :func:`~gnndirect_torch.table.update_cached_rows`; for an encoded
        table decoded in the pipeline ``src`` is the new rows' codes, which its tier holds), then
        synchronises the current stream: the pipeline's side streams are not ordered after it,
        and batches prepared after this call must see the new rows."""
        with self._lock:
            if self._pipeline is None:
                return
            with torch.cuda.device(self.graph.device):
                tensors = self._pipeline.cache_tensors()
                if tensors and tensors[0].shape[0] > 0:
                    update_cached_rows(tensors[0], tensors[1], index, src)
                    torch.cuda.current_stream().synchronize()

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
            c = self._open_pipeline().counters()
        return {"batches_prepared": c.batches_prepared, "feature_bytes": c.feature_bytes,
                "prepare_seconds": c.prepare_seconds, "batches_ready": c.batches_ready}


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
            with torch.cuda.device(loader.graph.device):
                if timeline is not None:
                    host_start = time.perf_counter()
                    timeline._before_next(host_start)
                out = loader._pipeline.next()
                if timeline is not None:
                    timeline._after_next(-1 if out is None else int(out.index), host_start)
            if out is None:
                self._done = True
                raise StopIteration
        blocks = []
        num_dst = out.num_seeds
        layers = out.layers
        for layer in range(len(layers) // 4):
            src, offsets, local, edge_ids = layers[4 * layer: 4 * layer + 4]
            blocks.append(Block(src_nodes=src, num_dst=num_dst, offsets=offsets, indices=local,
                                edge_ids=edge_ids))
            num_dst = src.shape[0]
        n_id = blocks[-1].src_nodes
        x = out.x
        if loader._decode:  # the pipeline gathered a placeholder: decode the real rows
            x = loader.features.gather(n_id, dtype=loader._x_dtype, check=False)
        return Batch(epoch=out.epoch, index=out.index, batch_size=out.num_seeds,
                     sampling_seed=out.sampling_seed, n_id=n_id, x=x, y=out.y, blocks=blocks)
