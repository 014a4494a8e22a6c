#pragma once
/// @file sample_tile.hpp
/// @brief The per-node sampling algorithms run by one tile (device code behind the library's
/// samplers, device/samplers.hpp). Host-compilable: they use only the tile's members, so a
/// host-emulated tile runs them too (test/support/emulated_tile.hpp).
///
/// Each function reproduces the host reference (reference/sample_reference.hpp) exactly: same draws
/// (sampling_math.hpp), same selection, same output order. All lanes of the tile call them with
/// the same arguments; loop trip counts depend only on those arguments, so the tile stays
/// converged at every *_sync intrinsic. Per-tile scratch is reusable when they return.
/// Written against the operations cooperative_groups::thread_block_tile<N> and dynamic_tile
/// both have (thread_rank, num_threads, shfl, ballot, sync), so `Tile` is either.

#include <gnndirect/core/config.hpp>
#include <gnndirect/detail/core/sampling_math.hpp>
#include <gnndirect/device/sampled_output.hpp>

#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Rank of the calling thread in the tile.
template <class Tile>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE int rank_in(const Tile& tile)
{
  return static_cast<int>(tile.thread_rank());
}

/// Threads in the tile.
template <class Tile>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE int size_of(const Tile& tile)
{
  return static_cast<int>(tile.num_threads());
}

/// The tile's ballot, bit r for rank r, with bits above the tile's size cleared (a cg tile's
/// ballot shifts the warp's ballot down without masking lanes of other tiles).
template <class Tile>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE unsigned tile_ballot(const Tile& tile, bool predicate)
{
  int const size = size_of(tile);
  unsigned const members = size == 32 ? 0xFFFFFFFFu : (1u << size) - 1u;
  return static_cast<unsigned>(tile.ballot(predicate)) & members;
}

/// Number of set bits (__popc on the device).
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE int popcount32(unsigned bits)
{
#if defined(__CUDA_ARCH__)
  return __popc(bits);
#else
  return __builtin_popcount(bits);
#endif
}

/// Bits of the ranks below `rank` (for ballot-based compaction).
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE unsigned ranks_below(int rank) { return (1u << rank) - 1u; }

/// Number of values in values[0, count) smaller than `x` (the rank of x among distinct values).
template <class T, class Less>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE std::int64_t rank_of(const T* values, std::int64_t count,
                                                            const T& x, Less less)
{
  std::int64_t rank = 0;
  for (std::int64_t i = 0; i < count; ++i) { rank += less(values[i], x) ? 1 : 0; }
  return rank;
}

/// Orders positions (int64).
struct position_less {
  GNNDIRECT_DEVICE bool operator()(std::int64_t a, std::int64_t b) const { return a < b; }
};

/// All `degree` edges in stored order (coalesced: consecutive lanes read consecutive ids).
template <class Tile, class Offset, class Index>
GNNDIRECT_DEVICE std::int64_t take_all(const Tile& tile, const sampled_output<Offset, Index>& out,
                                       std::int64_t degree)
{
  for (std::int64_t p = rank_in(tile); p < degree; p += size_of(tile)) { out.emit(p, p); }
  return degree;
}

/// Uniform with replacement: slot j gets draw j. Every lane works independently.
template <class Tile, class Offset, class Index>
GNNDIRECT_DEVICE std::int64_t sample_with_replacement(const Tile& tile,
                                                      const sampled_output<Offset, Index>& out,
                                                      std::uint64_t seed, std::uint32_t layer,
                                                      std::uint64_t node, std::int64_t degree,
                                                      std::int64_t fanout)
{
  if (degree == 0) { return 0; }
  for (std::int64_t j = rank_in(tile); j < fanout; j += size_of(tile)) {
    out.emit(replacement_draw(seed, layer, node, j, degree), j);
  }
  return fanout;
}

/// Floyd's algorithm (fanout < degree), `size` draws at a time: every lane computes its draw's
/// candidate in parallel (the expensive Philox part); collisions are then resolved in draw order
/// by broadcasting each decided position to the later lanes, and against earlier chunks through
/// `chosen` (fanout positions of scratch), which holds the result in draw order on return.
template <class Tile>
GNNDIRECT_DEVICE void floyd_choose(const Tile& tile, std::uint64_t seed, std::uint32_t layer,
                                   std::uint64_t node, std::int64_t degree, std::int64_t fanout,
                                   std::int64_t* chosen)
{
  for (std::int64_t chunk = 0; chunk < fanout; chunk += size_of(tile)) {
    std::int64_t const j = chunk + rank_in(tile);
    bool const active = j < fanout;
    std::int64_t const candidate =
      active ? floyd_candidate(seed, layer, node, j, degree, fanout) : std::int64_t{-1};
    std::int64_t const fallback = degree - fanout + j;  // Floyd's replacement on a collision
    bool taken = false;
    for (std::int64_t i = 0; i < chunk; ++i) { taken |= chosen[i] == candidate; }
    auto const in_chunk = static_cast<int>(fanout - chunk < size_of(tile) ? fanout - chunk : size_of(tile));
    for (int r = 0; r < in_chunk; ++r) {
      std::int64_t const decided = tile.shfl(taken ? fallback : candidate, r);
      if (rank_in(tile) > r) { taken |= candidate == decided; }
    }
    if (active) { chosen[j] = taken ? fallback : candidate; }
    tile.sync();
  }
}

/// Floyd's algorithm (floyd_choose), emitted sorted by position, as the host does.
template <class Tile, class Offset, class Index>
GNNDIRECT_DEVICE std::int64_t sample_floyd(const Tile& tile, const sampled_output<Offset, Index>& out,
                                           std::uint64_t seed, std::uint32_t layer,
                                           std::uint64_t node, std::int64_t degree,
                                           std::int64_t fanout, std::int64_t* chosen)
{
  floyd_choose(tile, seed, layer, node, degree, fanout, chosen);
  for (std::int64_t j = rank_in(tile); j < fanout; j += size_of(tile)) {
    std::int64_t const position = chosen[j];
    out.emit(position, rank_of(chosen, fanout, position, position_less{}));
  }
  tile.sync();
  return fanout;
}

/// A weighted-sampling candidate: its key and its position in the neighbour list.
struct keyed_position {
  std::uint64_t key;
  std::int64_t position;
};

/// Orders candidates by (key, position), as the host reference's std::pair order.
struct keyed_less {
  GNNDIRECT_DEVICE bool operator()(const keyed_position& a, const keyed_position& b) const
  {
    return key_position_less(a.key, a.position, b.key, b.position);
  }
};

/// Orders candidates by position (stored order), for the output.
struct stored_order {
  GNNDIRECT_DEVICE bool operator()(const keyed_position& a, const keyed_position& b) const
  {
    return a.position < b.position;
  }
};

/// Writes the `keep` smallest of from[0, count) (count >= keep) to to[0, keep), sorted.
template <class Tile>
GNNDIRECT_DEVICE void keep_smallest(const Tile& tile, const keyed_position* from,
                                           std::int64_t count, std::int64_t keep,
                                           keyed_position* to)
{
  for (std::int64_t e = rank_in(tile); e < count; e += size_of(tile)) {
    keyed_position const x = from[e];
    std::int64_t const rank = rank_of(from, count, x, keyed_less{});
    if (rank < keep) { to[rank] = x; }
  }
  tile.sync();
}

/// Weighted, degree <= fanout: every eligible edge, in stored order (ballot compaction).
template <class Tile, class Offset, class Index>
GNNDIRECT_DEVICE std::int64_t take_eligible(const Tile& tile,
                                            const sampled_output<Offset, Index>& out,
                                            const float* weights, std::int64_t degree)
{
  std::int64_t count = 0;
  for (std::int64_t base = 0; base < degree; base += size_of(tile)) {
    std::int64_t const p = base + rank_in(tile);
    bool const eligible = p < degree && is_eligible_weight(weights[p]);
    unsigned const votes = tile_ballot(tile, eligible);
    if (eligible) { out.emit(p, count + popcount32(votes & ranks_below(rank_in(tile)))); }
    count += popcount32(votes);
  }
  return count;
}

/// Streams positions [0, degree) `size` at a time and keeps the `fanout` smallest (key, position)
/// pairs among those for which `key_of(position, key)` returns true (it sets the key): appends
/// candidates that beat the running threshold to a buffer of `capacity` entries
/// (weighted_buffer_capacity) and, when it would overflow, keeps its `fanout` smallest (the
/// threshold becomes the fanout-th smallest). Returns the number kept (<= fanout); they lie in
/// `*kept`, in no particular order. `buffer` holds two areas of `capacity` entries.
template <class Tile, class KeyOf>
GNNDIRECT_DEVICE std::int64_t select_smallest_keys(const Tile& tile, std::int64_t degree,
                                                   std::int64_t fanout, std::int64_t capacity,
                                                   keyed_position* buffer, const KeyOf& key_of,
                                                   keyed_position** kept_out)
{
  keyed_position* spare = buffer + capacity;
  keyed_position threshold{~std::uint64_t{0}, INT64_MAX};
  std::int64_t count = 0;
  for (std::int64_t base = 0; base < degree; base += size_of(tile)) {
    keyed_position mine{~std::uint64_t{0}, base + rank_in(tile)};
    bool candidate = false;
    if (mine.position < degree && key_of(mine.position, mine.key)) {
      candidate = keyed_less{}(mine, threshold);
    }
    unsigned votes = tile_ballot(tile, candidate);
    if (count + popcount32(votes) > capacity) {
      keep_smallest(tile, buffer, count, fanout, spare);
      keyed_position* const kept = spare;
      spare = buffer;
      buffer = kept;
      count = fanout;
      threshold = buffer[fanout - 1];
      candidate = candidate && keyed_less{}(mine, threshold);
      votes = tile_ballot(tile, candidate);
    }
    if (candidate) { buffer[count + popcount32(votes & ranks_below(rank_in(tile)))] = mine; }
    count += popcount32(votes);
    tile.sync();
  }
  if (count > fanout) {
    keep_smallest(tile, buffer, count, fanout, spare);
    buffer = spare;
    count = fanout;
  }
  *kept_out = buffer;
  return count;
}

/// The weighted sampler's key of one position: eligible weights only.
struct weighted_key_of {
  const float* weights;
  std::uint64_t seed;
  std::uint32_t layer;
  std::uint64_t node;
  GNNDIRECT_DEVICE bool operator()(std::int64_t position, std::uint64_t& key) const
  {
    if (!is_eligible_weight(weights[position])) { return false; }
    key = weighted_key(seed, layer, node, position, weights[position]);
    return true;
  }
};

/// Weighted without replacement (degree > fanout): the fanout smallest keys
/// (select_smallest_keys), emitted sorted by position.
template <class Tile, class Offset, class Index>
GNNDIRECT_DEVICE std::int64_t sample_weighted(const Tile& tile,
                                              const sampled_output<Offset, Index>& out,
                                              const float* weights, std::uint64_t seed,
                                              std::uint32_t layer, std::uint64_t node,
                                              std::int64_t degree, std::int64_t fanout,
                                              std::int64_t capacity, keyed_position* buffer)
{
  keyed_position* kept = nullptr;
  std::int64_t const count = select_smallest_keys(tile, degree, fanout, capacity, buffer,
                                                  weighted_key_of{weights, seed, layer, node}, &kept);
  for (std::int64_t e = rank_in(tile); e < count; e += size_of(tile)) {
    out.emit(kept[e].position, rank_of(kept, count, kept[e], stored_order{}));
  }
  tile.sync();
  return count;
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
