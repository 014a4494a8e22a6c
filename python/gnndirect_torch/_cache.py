"""The device cache tier's coherence with table writes: :func:`update_cached_rows` writes the new
rows into a tier's cached copies (the table's own tier, and the pipeline's tier of every loader
reading the table), with the library's last-duplicate-wins rule."""

from __future__ import annotations

from typing import Tuple

import torch


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
