"""Pure-Python helpers of gnndirect_torch (no torch import): argument normalisation, sizes,
the PyG <-> block bookkeeping, and formatting. Importable and unit-tested without PyTorch
(test/python/test_util_host.py loads this file directly)."""

from __future__ import annotations

import math
import re
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

__version__ = "0.1.0"

#: Placements a table, graph array or tensor can be given (``auto`` asks the library).
PLACEMENTS = ("auto", "registered", "pinned", "managed_host", "device")

#: Prefix the C++ layer puts on allocation failures (c10 has no MemoryError type).
ALLOCATION_TAG = "[gnndirect.allocation_error] "


#: uint64 mask: Python ints stand for the library's 64-bit keys.
MASK64 = 0xFFFFFFFFFFFFFFFF


def mix64(z: int) -> int:
    """SplitMix64's finaliser of a uint64 (a Python int in [0, 2^64))."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def as_int64(z: int) -> int:
    """The uint64 ``z`` as the int64 with the same bits (the ops take signed keys)."""
    return z - (1 << 64) if z >= (1 << 63) else z


def batch_key(*words: int) -> int:
    """SplitMix64 over the words (folded in turn) as a signed int64: the Python loaders' per-batch
    and per-epoch keys, e.g. ``batch_key(seed, epoch, batch)``."""
    z = 0
    for word in words:
        z = mix64(((z ^ (word & MASK64)) * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & MASK64)
    return as_int64(z)


def sampler_call_key(seed: int, call: int) -> int:
    """The PyG samplers' key of their ``call``-th batch (0, 1, ...): SplitMix64 of (seed, call),
    distinct and well mixed per call, as a signed int64 for the ops."""
    return as_int64(mix64((seed * 0x9E3779B97F4A7C15 + call + 1) & MASK64))

def normalize_placement(placement: str) -> str:
    """Return ``placement`` lower-cased and checked against :data:`PLACEMENTS`.

    Accepts ``"managed"`` as an alias of ``"managed_host"``.

    Raises:
        ValueError: unknown placement (the message lists the valid ones).
        TypeError: not a string.
    """
    if not isinstance(placement, str):
        raise TypeError(f"placement must be a string, got {type(placement).__name__}")
    name = placement.strip().lower()
    if name == "managed":
        name = "managed_host"
    if name not in PLACEMENTS:
        raise ValueError(f"unknown placement {placement!r}; choose one of {', '.join(PLACEMENTS)}")
    return name


def check_fanouts(fanouts: Iterable[int]) -> List[int]:
    """Return the fanouts as a list of ints (one per layer, seeds side first).

    Raises:
        ValueError: empty list, or a fanout < 0 or >= 2**31.
        TypeError: a fanout that is not an integer, or a bool (``[True]`` is no fanout list).
    """
    out: List[int] = []
    for fanout in fanouts:
        out.append(check_fanout(fanout))
    if not out:
        raise ValueError("at least one fanout is needed")
    return out


def _is_boolean(value) -> bool:
    """True for Python, NumPy and 0-d torch booleans (bool is an int subclass, and NumPy's and
    torch's booleans have ``__index__``: each would otherwise pass as 0 or 1)."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return True
    dtype = getattr(value, "dtype", None)
    return dtype is not None and str(dtype) in ("bool", "torch.bool")


def check_fanout(fanout) -> int:
    """Return one fanout as an int.

    Raises:
        TypeError: a bool (``True`` is no fanout, though bool is an int subclass) or anything
            that is not an integer.
        ValueError: a fanout < 0 or >= 2**31.
    """
    if _is_boolean(fanout):
        raise TypeError(f"fanouts must be integers, got the bool {fanout!r}")
    if not isinstance(fanout, int):
        if hasattr(fanout, "__index__"):
            fanout = fanout.__index__()
        else:
            raise TypeError(f"fanouts must be integers, got {fanout!r}")
    if fanout < 0 or fanout >= 2**31:
        raise ValueError(f"fanout must be in [0, 2**31), got {fanout}")
    return int(fanout)


def cache_bytes_for(rows: int, row_bytes: int, cache_bytes: Optional[int] = None,
                    cache_fraction: Optional[float] = None) -> int:
    """Device bytes for a cache tier from either an absolute budget or a fraction of the table.

    Args:
        rows: rows of the table.  row_bytes: bytes per row.
        cache_bytes: absolute budget (>= 0), or None.
        cache_fraction: fraction of the table's rows in [0, 1], or None.
    Returns:
        The budget in bytes, a whole number of rows, at most the table's size (0: no tier).
    Raises:
        ValueError: both given, a negative budget, or a fraction outside [0, 1].
    """
    if cache_bytes is not None and cache_fraction is not None:
        raise ValueError("give cache_bytes or cache_fraction, not both")
    if rows < 0 or row_bytes < 0:
        raise ValueError("rows and row_bytes must be >= 0")
    total = rows * row_bytes
    if cache_fraction is not None:
        if not (0.0 <= float(cache_fraction) <= 1.0) or math.isnan(float(cache_fraction)):
            raise ValueError(f"cache_fraction must be in [0, 1], got {cache_fraction}")
        budget = int(math.floor(rows * float(cache_fraction))) * row_bytes
    elif cache_bytes is not None:
        if int(cache_bytes) < 0:
            raise ValueError(f"cache_bytes must be >= 0, got {cache_bytes}")
        budget = int(cache_bytes)
    else:
        return 0
    if row_bytes == 0:
        return 0
    return min(total, budget // row_bytes * row_bytes)


def num_batches(count: int, batch_size: int, drop_last: bool = False) -> int:
    """Batches an epoch over ``count`` seeds has.

    Raises:
        ValueError: batch_size <= 0 or count < 0.
    """
    if batch_size <= 0:
        raise ValueError(f"batch_size must be > 0, got {batch_size}")
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count}")
    return count // batch_size if drop_last else -(-count // batch_size)


def pyg_counts(num_seeds: int, src_counts: Sequence[int],
               edge_counts: Sequence[int]) -> Tuple[List[int], List[int]]:
    """PyG's ``num_sampled_nodes`` / ``num_sampled_edges`` of a block sample.

    Blocks are seeds side first and nest (layer l's src nodes start with its dst nodes, which are
    layer l-1's src nodes), so hop 0 contributes the seeds and hop l+1 the src nodes block l
    added.

    Args:
        num_seeds: seeds (dst nodes of block 0).  src_counts: src nodes of each block.
        edge_counts: sampled edges of each block.
    Raises:
        ValueError: lengths differ or the counts do not nest.
    """
    if len(src_counts) != len(edge_counts):
        raise ValueError("src_counts and edge_counts must have one entry per layer")
    nodes = [int(num_seeds)]
    previous = int(num_seeds)
    for count in src_counts:
        if count < previous:
            raise ValueError(f"block src counts must not shrink ({count} < {previous})")
        nodes.append(int(count) - previous)
        previous = int(count)
    return nodes, [int(e) for e in edge_counts]


def layer_slices(num_sampled_nodes: Sequence[int],
                 num_sampled_edges: Sequence[int]) -> List[Dict[str, int]]:
    """Inverse of :func:`pyg_counts`: per block (seeds side first) the dst and src node counts and
    the [edge_begin, edge_end) range of its edges in the concatenated ``edge_index``.

    Raises:
        ValueError: ``num_sampled_nodes`` must have one entry more than ``num_sampled_edges``.
    """
    if len(num_sampled_nodes) != len(num_sampled_edges) + 1:
        raise ValueError("num_sampled_nodes needs one entry more than num_sampled_edges")
    out = []
    dst = int(num_sampled_nodes[0])
    begin = 0
    for hop, edges in enumerate(num_sampled_edges):
        src = dst + int(num_sampled_nodes[hop + 1])
        out.append({"num_dst": dst, "num_src": src, "edge_begin": begin,
                    "edge_end": begin + int(edges)})
        begin += int(edges)
        dst = src
    return out


#: The "file:line: " that the library's exceptions start with (core/error.hpp): the path of a
#: header on the build machine, which means nothing to the Python user (bodies live in
#: detail/<component>/*.inl, so their errors name an .inl).
_SOURCE_LOCATION = re.compile(r"(?:[^\s:]*/)?[^\s:/]+\.(?:hpp|cuh|inl|cpp|cu|hh|cc|h):\d+: ")


def split_location(message: str) -> Tuple[str, Optional[str]]:
    """(``message`` without the library's leading "file:line: ", that "file:line" or None).

    The allocation tag, when the message starts with it, stays in front."""
    tag = ALLOCATION_TAG if message.startswith(ALLOCATION_TAG) else ""
    found = _SOURCE_LOCATION.match(message, len(tag))
    if found is None:
        return message, None
    return tag + message[found.end():], found.group(0)[:-2]


def memory_error_message(message: str) -> Optional[str]:
    """The library's message (without its file:line) when ``message`` is a tagged allocation
    failure, else None."""
    position = message.find(ALLOCATION_TAG)
    if position < 0:
        return None
    return split_location(message[position + len(ALLOCATION_TAG):])[0]


def _scaled_shape(scale: float, nodes: int, edges: int, features: int, classes: int,
                  split: Sequence[float]) -> Dict[str, int]:
    """A dataset's sizes times ``scale``: at least 1000 nodes and one edge per node; ``split`` is
    the (train, val, test) fraction of the nodes, the test set capped at 200K for evaluation time.

    Raises:
        ValueError: scale <= 0.
    """
    if not scale > 0:
        raise ValueError(f"scale must be > 0, got {scale}")
    n = max(1000, int(round(nodes * scale)))
    e = max(n, int(round(edges * scale)))
    train = max(1, int(n * split[0]))
    val = max(1, int(n * split[1]))
    test = max(1, min(n - train - val, int(n * split[2]), 200_000))
    return {"num_nodes": n, "num_edges": e, "num_features": features, "num_classes": classes,
            "num_train": train, "num_val": val, "num_test": test}


def products_shape(scale: float = 1.0) -> Dict[str, int]:
    """Sizes of the generated ogbn-products-shaped graph at ``scale`` (1.0: 2.45M nodes, ~61.9M
    stored edges, 100 features, 47 classes; ogbn-products' 8% / 2% / 90% split, with the test
    set capped for evaluation time).

    Raises:
        ValueError: scale <= 0.
    """
    return _scaled_shape(scale, 2_449_029, 61_859_140, 100, 47, (0.08, 0.02, 0.90))


def papers100m_shape(scale: float = 1.0) -> Dict[str, int]:
    """Sizes of the generated ogbn-papers100M-shaped graph at ``scale`` (1.0: 111.1M nodes, 1.62B
    stored edges, 128 features, 172 classes, ogbn-papers100M's 1.09% / 0.11% / 0.19% split with
    the test set capped at 200K). At 1.0 the features alone are 57 GB: train_graphsage.py creates
    them and the indices straight in their host placement (gnndirect_torch.empty), so a 128 GiB
    host holds them once (about 70 GB); a run with CPU-centric baselines keeps pageable copies
    besides and fits at about 0.25.

    Raises:
        ValueError: scale <= 0.
    """
    full = 111_059_956
    return _scaled_shape(scale, full, 1_615_685_872, 128, 172,
                         (1_207_179 / full, 125_265 / full, 214_338 / full))


def reddit_shape(scale: float = 1.0) -> Dict[str, int]:
    """Sizes of the generated Reddit-shaped graph at ``scale`` (1.0: 233K nodes, 114.6M stored
    edges, 602 features, 41 classes, Reddit's 153,431 / 23,831 / 55,703 split): few nodes, dense
    neighbour lists and wide rows, the paper's feature-heavy case.

    Raises:
        ValueError: scale <= 0.
    """
    full = 232_965
    return _scaled_shape(scale, full, 114_615_892, 602, 41,
                         (153_431 / full, 23_831 / full, 55_703 / full))


def twitter_shape(scale: float = 1.0) -> Dict[str, float]:
    """Sizes of the generated twitter-2010-shaped graph at ``scale`` (1.0: 41.7M nodes, 1.47B
    edges). twitter-2010 has neither features nor labels: 343 features (the demo's twitter width),
    64 planted classes, a 10% / 1% / 2% split (test capped at 200K) and log-normal degrees of
    spread 2.0 (``degree_sigma``; the other shapes use 0.9) are our choice. A 128 GiB
    host trains it at about 0.25 (PyG's CPU copy and gnndirect's table side by side).

    Raises:
        ValueError: scale <= 0.
    """
    shape = _scaled_shape(scale, 41_652_230, 1_468_365_182, 343, 64, (0.10, 0.01, 0.02))
    shape["degree_sigma"] = 2.0  # a heavy-tailed degree distribution, as in follower graphs
    return shape


#: Graph shapes train_graphsage.py generates, by name.
SHAPES = {"products": products_shape, "papers100m": papers100m_shape, "reddit": reddit_shape,
          "twitter": twitter_shape}


def format_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Plain-text table with columns padded to their widest cell (floats with 3 decimals)."""
    def cell(value: object) -> str:
        if isinstance(value, float):
            return f"{value:.3f}"
        return str(value)
    cells = [[cell(v) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        for i, value in enumerate(row):
            widths[i] = max(widths[i], len(value))
    lines = ["  ".join(h.ljust(widths[i]) for i, h in enumerate(headers))]
    lines.append("  ".join("-" * w for w in widths))
    for row in cells:
        lines.append("  ".join(value.ljust(widths[i]) for i, value in enumerate(row)))
    return "\n".join(lines)


def sweep_warmup(warmup_batches: int, sweep_batches: int, workers: int, per_epoch: int,
                 prefetch_factor: int = 2) -> int:
    """Warm-up batches before a sweep window of ``sweep_batches`` batches: ``warmup_batches``, but
    at least two rounds of the loader's prefetch (2 x workers x prefetch_factor), so that the
    window times the steady state, not the workers' start-up and the burst of batches they had
    ready (8 warm-up batches made a 16-worker estimate 45% above the full epoch it predicted).
    Capped so that warm-up and window fit in ``per_epoch`` batches (never below 0)."""
    wanted = max(warmup_batches, 2 * workers * prefetch_factor)
    return max(0, min(wanted, per_epoch - sweep_batches))


def speedup(baseline_seconds: float, seconds: float) -> float:
    """baseline / seconds (inf when seconds is 0, nan when either is missing)."""
    if baseline_seconds is None or seconds is None:
        return float("nan")
    if seconds == 0:
        return float("inf")
    return float(baseline_seconds) / float(seconds)


def seed_ids(train_ids, num_nodes: int):
    """The seed ids meant by ``train_ids``: integer ids as they are, or the ``nonzero()``
    positions of a boolean mask (PyG's ``data.train_mask``), never a mask taken as ids.

    Raises:
        TypeError: a floating-point or complex tensor (neither ids nor a mask).
        ValueError: a mask that is not 1-D of length ``num_nodes``.
    """
    import torch
    ids = torch.as_tensor(train_ids)
    if ids.dtype == torch.bool:
        if ids.dim() != 1 or ids.numel() != num_nodes:
            raise ValueError(f"a boolean training mask must be 1-D with one entry per node "
                             f"({num_nodes}), got shape {tuple(ids.shape)}")
        return ids.nonzero().view(-1)
    if ids.is_floating_point() or ids.is_complex():
        raise TypeError(f"train ids must be integer ids or a boolean mask, got {ids.dtype}")
    return ids
