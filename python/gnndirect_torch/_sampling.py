"""The sampling ops over CSR tensors (indptr, indices, optional weights), below the Graph class
that calls them (Graph.sample_neighbors / sample_blocks) and the public functions of ``ops``
that accept a Graph or the tensors; and :func:`resolve_weights`, the one rule every entry point
(the ops, Graph, NeighborLoader, the PyG sampler) applies to choose the sampler's weights: the
extension then maps (replace, weights given) onto the library's sampler in one place
(csrc/sample_common.hpp, make_request and visit_sampler_kind)."""

from __future__ import annotations

import dataclasses
from typing import List, Optional, Sequence

import torch

from ._blocks import Block, Sampled, blocks_of
from ._extension import _call, _check_fork, load_extension
from ._util import batch_key, check_fanout, check_fanouts


def sample_neighbors_csr(indptr: torch.Tensor, indices: torch.Tensor, seeds: torch.Tensor,
                         fanout: int, *, layer: int = 0, seed: int = 0, replace: bool = False,
                         weights: Optional[torch.Tensor] = None, check: bool = True,
                         threads: int = 0) -> Sampled:
    """:func:`gnndirect_torch.sample_neighbors` on the graph's tensors (``weights``: the edge
    weights to use, the graph's or the caller's); same devices, synchronisation and errors."""
    load_extension()
    _check_fork("gnndirect_torch.sample_neighbors", indptr, indices, seeds, weights)
    fan = check_fanout(fanout)  # TypeError for a bool, as sample_blocks' fanouts
    out = _call(torch.ops.gnndirect.sample_neighbors.default, indptr, indices, seeds, fan,
                int(layer), int(seed), bool(replace), weights, bool(check), int(threads))
    return Sampled(*out)


def sample_blocks_csr(indptr: torch.Tensor, indices: torch.Tensor, seeds: torch.Tensor,
                      fanouts: Sequence[int], *, seed: int = 0, replace: bool = False,
                      weights: Optional[torch.Tensor] = None, check: bool = True,
                      threads: int = 0) -> List[Block]:
    """:func:`gnndirect_torch.sample_blocks` on the graph's tensors (``weights``: the edge
    weights to use, the graph's or the caller's); same devices, synchronisation and errors."""
    load_extension()
    fans = check_fanouts(fanouts)
    _check_fork("gnndirect_torch.sample_blocks", indptr, indices, seeds, weights)
    flat = _call(torch.ops.gnndirect.sample_blocks.default, indptr, indices, seeds, fans,
                 int(seed), bool(replace), weights, bool(check), int(threads))
    return blocks_of(flat, seeds.shape[0])


def resolve_weights(graph_weights: Optional[torch.Tensor], weights) -> Optional[torch.Tensor]:
    """The edge weights a sampling call draws with, hence its sampler (weighted with weights,
    uniform without): ``weights`` None or True: the graph's own (``graph_weights``; None for an
    unweighted graph, and True then raises); False: none (uniform sampling of a weighted graph);
    a tensor: those (one float per edge, checked by the op).

    Raises:
        ValueError: ``weights=True`` for a graph without weights.
        TypeError: anything else (e.g. a list or a string).
    """
    if weights is None:
        return graph_weights
    if weights is True:
        if graph_weights is None:
            raise ValueError("weights=True: the graph has no edge weights (build it with "
                             "Graph(..., weights=w), or pass the weights tensor)")
        return graph_weights
    if weights is False:
        return None
    if isinstance(weights, torch.Tensor):
        return weights
    raise TypeError(f"weights must be None, a bool or a float32 tensor of one weight per edge, got "
                    f"{type(weights).__name__}")


def epoch_batches(count: int, batch_size: int, num_batches: int, *, seed: int, epoch: int, shuffle: bool):
    """The Python loaders' epoch order: yields (batch index, CPU int64 positions into the
    ``count`` seeds) for ``num_batches`` batches of ``batch_size``; shuffled with
    ``torch.randperm`` keyed by ``batch_key(seed, epoch)`` when ``shuffle``, in order otherwise."""
    if shuffle:
        gen = torch.Generator().manual_seed(batch_key(seed, epoch) & 0x7FFFFFFFFFFFFFFF)
        order = torch.randperm(count, generator=gen)
    else:
        order = torch.arange(count)
    for b in range(num_batches):
        yield b, order[b * batch_size:(b + 1) * batch_size]


class EpochLoader:
    """The iteration the Python loaders share: ``len()`` is the batches per epoch; each
    ``iter()`` is the next epoch (0, 1, ...), its batches in :func:`epoch_batches` order. A
    subclass sets ``batch_size``, ``shuffle``, ``seed``, ``_num_batches``, ``epoch = -1`` and
    ``graph`` (its ``device`` decides the stream), and defines ``_num_inputs()`` (seeds or seed
    edges) and ``_batch_of(positions, epoch, index)`` (the batch of those positions).

    ``side_stream`` (default True; an attribute, set it to False to turn it off): on a CUDA
    graph each batch is prepared on a stream of the loader's own, and the consumer's current
    stream waits for it (an event, no host synchronisation) before the batch is yielded. So the
    next batch's sampling and gathers, prepared while the caller's training step on the batch
    before still runs on its stream, overlap that step on the GPU, where on the consumer's
    stream they would queue behind it. The batch's tensors are marked as used by the consumer's
    stream (``record_stream``), so torch's allocator does not hand their memory to the next
    batch early. The loader's stream does not wait for work the caller enqueued before asking
    for a batch (that wait would queue the batch behind the step again): a caller that writes a
    table between batches (``Table.scatter`` of learned embeddings) sets ``side_stream = False``
    or synchronises first. False: every batch on the caller's current stream, as before (e.g.
    inside a CUDA-graph capture)."""

    side_stream: bool = True

    def __len__(self) -> int:
        """Batches per epoch."""
        return self._num_batches

    def _preparation_stream(self) -> Optional[torch.cuda.Stream]:
        """The loader's own stream on its graph's CUDA device (made once), or None (CPU graph, or
        ``side_stream`` off)."""
        device = getattr(getattr(self, "graph", None), "device", None)
        if not self.side_stream or device is None or device.type != "cuda":
            return None
        stream = self.__dict__.get("_stream")
        if stream is None or stream.device != device:
            stream = torch.cuda.Stream(device)
            self.__dict__["_stream"] = stream
        return stream

    def __iter__(self):
        """The next epoch's batches (epoch 0, 1, ...), in a fresh order when ``shuffle``."""
        self.epoch += 1
        epoch = self.epoch
        for b, positions in epoch_batches(self._num_inputs(), self.batch_size, self._num_batches, seed=self.seed,
                                          epoch=epoch, shuffle=self.shuffle):
            stream = self._preparation_stream()
            if stream is None:
                yield self._batch_of(positions, epoch, b)
                continue
            consumer = torch.cuda.current_stream(stream.device)
            with torch.cuda.stream(stream):
                batch = self._batch_of(positions, epoch, b)
            consumer.wait_stream(stream)
            _used_by(batch, consumer)
            yield batch


def _used_by(value, stream: torch.cuda.Stream) -> None:
    """Marks every CUDA tensor inside `value` (dataclasses, dicts, lists, tuples) as used by
    `stream` (Tensor.record_stream)."""
    if isinstance(value, torch.Tensor):
        if value.is_cuda:
            value.record_stream(stream)
        return
    if isinstance(value, dict):
        items = value.values()
    elif isinstance(value, (list, tuple)):
        items = value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        items = (getattr(value, f.name) for f in dataclasses.fields(value))
    else:
        return
    for item in items:
        _used_by(item, stream)
