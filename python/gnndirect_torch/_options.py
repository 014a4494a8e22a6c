"""The pipeline's options: :class:`PipelineOptions`, the Python side of the library's
``gnndirect::pipeline_options``, bound by name (the one table of names and members is
``GNNDIRECT_TORCH_PIPELINE_OPTIONS`` in csrc/pipeline_options.cu; test/python/check_python.py
checks that this class has exactly its fields). The loader takes them as one object or as
keywords; nothing else spells them out."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional, Sequence

from ._util import MASK64, as_int64, check_fanouts


def _key_bits(value, name: str) -> int:
    """A 64-bit random key as the int64 with its bits (the binding's ``key`` kind).

    Raises:
        TypeError: not an integer (or a bool).  ValueError: outside [-2**63, 2**64).
    """
    if isinstance(value, bool) or not isinstance(value, int):
        if hasattr(value, "__index__") and not isinstance(value, bool):
            value = value.__index__()
        else:
            raise TypeError(f"{name} must be an integer, got {value!r}")
    if not -(1 << 63) <= value < (1 << 64):
        raise ValueError(f"{name} must be a 64-bit key, got {value}")
    return as_int64(value & MASK64)


def _count(value, name: str) -> int:
    """``value`` as an int >= 0.  Raises TypeError (not an integer), ValueError (negative)."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    value = value.__index__()
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return int(value)


@dataclass
class PipelineOptions:
    """Options of the mini-batch pipeline behind :class:`~gnndirect_torch.NeighborLoader`, named as
    the library's ``gnndirect::pipeline_options`` members (a nested member joined with ``_``:
    ``gather.max_blocks`` is ``gather_max_blocks``). 0 means "the loader's default" where said.

    Attributes:
        fanouts: one per layer, seeds side first.  batch_size: seeds per batch (> 0).
        drop_last: drop a last, smaller batch.
        seed: the one random key: the epoch shuffle's, and every batch's sample (batch b of
            epoch e draws with the library's ``batch_sampling_seed(seed, e, b)``). Any 64-bit
            integer.
        depth: batches in flight, including the one the caller holds (0: the larger of the
            library's default + 1, i.e. 4, and workers + 2).
        workers: host threads preparing batches concurrently, each on its own stream (0: the
            library's default, 2; the papers100M-shaped demo prepares fastest with 6).
        sampling_max_blocks: cap on thread blocks of each sampling kernel (``sampling.max_blocks``;
            0: none).
        gather_max_blocks: cap on thread blocks of each feature gather (``gather.max_blocks``; 0:
            the gather selector's, 32 for host memory on an H200-like host, also through the cache
            tier, which leave SMs to training; a larger cap helps when nothing else runs on the GPU,
            see docs/performance.md §4).
        reserve_bytes: pool bytes reserved up front.
        cache_bytes: device bytes of the pipeline's tier of hot (highest-degree) feature rows
            (None: the table's own cache_bytes; encoded rows for an encoded table).
    """
    fanouts: Sequence[int] = (15, 10, 5)
    batch_size: int = 1024
    drop_last: bool = False
    seed: int = 0
    depth: int = 0
    workers: int = 0
    sampling_max_blocks: int = 0
    gather_max_blocks: int = 0
    reserve_bytes: int = 0
    cache_bytes: Optional[int] = None

    @classmethod
    def names(cls) -> tuple:
        """The field names (the binding's table, in its order)."""
        return tuple(f.name for f in dataclasses.fields(cls))

    def updated(self, **changes) -> "PipelineOptions":
        """A copy with ``changes`` applied.

        Raises:
            TypeError: a name that is no pipeline option (the message lists them).
        """
        unknown = sorted(set(changes) - set(self.names()))
        if unknown:
            raise TypeError(f"unknown pipeline option(s) {', '.join(unknown)}; the options are "
                            + ", ".join(self.names()))
        return dataclasses.replace(self, **changes)

    def checked(self) -> "PipelineOptions":
        """A copy with every value checked and normalised (fanouts a list, keys as int64 bits).

        Raises:
            ValueError: an empty or bad fanout list, batch_size <= 0, a negative count.
            TypeError: a value of the wrong type.
        """
        out = dataclasses.replace(self, fanouts=check_fanouts(self.fanouts),
                                  drop_last=bool(self.drop_last),
                                  seed=_key_bits(self.seed, "seed"))
        for name in ("batch_size", "depth", "workers", "sampling_max_blocks", "gather_max_blocks", "reserve_bytes"):
            setattr(out, name, _count(getattr(out, name), name))
        if out.cache_bytes is not None:
            out.cache_bytes = _count(out.cache_bytes, "cache_bytes")
        if out.batch_size <= 0:
            raise ValueError(f"batch_size must be > 0, got {out.batch_size}")
        return out

    def to_library(self, ext, *, cache_bytes: int):
        """The extension's ``PipelineOptions`` (the library's struct) holding these options, the
        automatic values resolved against the library's defaults (see depth, workers) and
        ``cache_bytes`` for a cache_bytes of None.  Raises as :meth:`checked`."""
        options = self.checked()
        bound = ext.PipelineOptions()  # the library's defaults
        if options.workers == 0:
            options.workers = int(bound.get("workers"))
        if options.depth == 0:
            options.depth = max(int(bound.get("depth")) + 1, options.workers + 2)
        if options.cache_bytes is None:
            options.cache_bytes = int(cache_bytes)
        for name in self.names():
            bound.set(name, getattr(options, name))
        return bound
