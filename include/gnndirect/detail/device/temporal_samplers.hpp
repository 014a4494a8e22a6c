#pragma once
/// @file temporal_samplers.hpp
/// @brief Internals of device/temporal_samplers.hpp: the per-node temporal selections run by one
/// tile (uniform among the eligible edges, the most recent eligible edges). Host-compilable like
/// sample_tile.hpp, so an emulated tile runs them on the host.

#include <gnndirect/core/config.hpp>
#include <gnndirect/detail/device/sample_tile.hpp>
#include <gnndirect/device/sampled_output.hpp>

#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Maps an int64 time to a uint64 with the same order (flips the sign bit).
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE constexpr std::uint64_t ordered_time(std::int64_t t) noexcept
{
  return static_cast<std::uint64_t>(t) ^ (std::uint64_t{1} << 63);
}

/// Index of `value` in the ascending sorted[0, count), or -1 (binary search).
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE std::int64_t find_sorted(const std::int64_t* sorted,
                                                                     std::int64_t count,
                                                                     std::int64_t value)
{
  std::int64_t lo = 0;
  std::int64_t hi = count;
  while (lo < hi) {
    std::int64_t const mid = lo + (hi - lo) / 2;
    if (sorted[mid] < value) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < count && sorted[lo] == value ? lo : -1;
}

/// Number of positions p in [0, degree) with eligible(p) (ballot count; every lane gets it).
template <class Tile, class Eligible>
GNNDIRECT_DEVICE std::int64_t count_eligible(const Tile& tile, std::int64_t degree, const Eligible& eligible)
{
  std::int64_t count = 0;
  for (std::int64_t base = 0; base < degree; base += size_of(tile)) {
    std::int64_t const p = base + rank_in(tile);
    count += popcount32(tile_ballot(tile, p < degree && eligible(p)));
  }
  return count;
}

/// Streams the list in stored order and calls `visit(p, rank)` for every eligible position, rank
/// being its index among the eligible ones (ballot compaction, so every lane stays converged).
template <class Tile, class Eligible, class Visit>
GNNDIRECT_DEVICE void for_each_eligible(const Tile& tile, std::int64_t degree, const Eligible& eligible,
                                        const Visit& visit)
{
  std::int64_t count = 0;
  for (std::int64_t base = 0; base < degree; base += size_of(tile)) {
    std::int64_t const p = base + rank_in(tile);
    bool const mine = p < degree && eligible(p);
    unsigned const votes = tile_ballot(tile, mine);
    if (mine) { visit(p, count + popcount32(votes & ranks_below(rank_in(tile)))); }
    count += popcount32(votes);
  }
}

/// Emits an eligible position to the slot given by its rank (all eligible ones are kept).
template <class Offset, class Index>
struct emit_at_rank {
  const sampled_output<Offset, Index>* out;
  GNNDIRECT_DEVICE void operator()(std::int64_t p, std::int64_t rank) const { out->emit(p, rank); }
};

/// Emits an eligible position when its rank is one of the sorted chosen ranks, to the slot of
/// that rank among them.
template <class Offset, class Index>
struct emit_if_chosen {
  const sampled_output<Offset, Index>* out;
  const std::int64_t* sorted;
  std::int64_t count;
  GNNDIRECT_DEVICE void operator()(std::int64_t p, std::int64_t rank) const
  {
    std::int64_t const slot = find_sorted(sorted, count, rank);
    if (slot >= 0) { out->emit(p, slot); }
  }
};

/// Uniform without replacement among the eligible edges: n eligible, n <= fanout: all of them in
/// stored order; otherwise Floyd's algorithm with degree n (the uniform sampler's draws) picks
/// `fanout` distinct ranks among the eligible edges in stored order, emitted in stored order.
/// `scratch` holds 2 * fanout int64.
template <class Tile, class Offset, class Index, class Eligible>
GNNDIRECT_DEVICE std::int64_t sample_uniform_eligible(const Tile& tile,
                                                      const sampled_output<Offset, Index>& out,
                                                      const Eligible& eligible, std::uint64_t seed,
                                                      std::uint32_t layer, std::uint64_t node,
                                                      std::int64_t degree, std::int64_t fanout,
                                                      std::int64_t* scratch)
{
  std::int64_t const n = count_eligible(tile, degree, eligible);
  if (n <= fanout) {
    for_each_eligible(tile, degree, eligible, emit_at_rank<Offset, Index>{&out});
    return n;
  }
  std::int64_t* const chosen = scratch;
  std::int64_t* const sorted = scratch + fanout;
  floyd_choose(tile, seed, layer, node, n, fanout, chosen);
  for (std::int64_t j = rank_in(tile); j < fanout; j += size_of(tile)) {
    sorted[rank_of(chosen, fanout, chosen[j], position_less{})] = chosen[j];
  }
  tile.sync();
  for_each_eligible(tile, degree, eligible, emit_if_chosen<Offset, Index>{&out, sorted, fanout});
  tile.sync();
  return fanout;
}

/// The 'last' key: the most recent time first, ties the later position first (the position
/// field of a candidate holds degree - 1 - p so that keyed_less orders ties that way).
template <class Eligible, class TimeOf>
struct recent_key_of {
  Eligible eligible;
  TimeOf time_of;
  std::int64_t degree;
  GNNDIRECT_DEVICE bool operator()(std::int64_t reversed, std::uint64_t& key) const
  {
    std::int64_t const p = degree - 1 - reversed;
    if (!eligible(p)) { return false; }
    key = ~ordered_time(time_of(p));
    return true;
  }
};

/// Orders candidates by stored position when their position field is reversed.
struct reversed_stored_order {
  GNNDIRECT_DEVICE bool operator()(const keyed_position& a, const keyed_position& b) const
  {
    return a.position > b.position;
  }
};

/// The `fanout` most recent eligible edges (time descending, ties the later position first),
/// emitted in stored order. `buffer` holds two areas of `capacity` candidates.
template <class Tile, class Offset, class Index, class Eligible, class TimeOf>
GNNDIRECT_DEVICE std::int64_t sample_most_recent(const Tile& tile, const sampled_output<Offset, Index>& out,
                                                 const Eligible& eligible, const TimeOf& time_of,
                                                 std::int64_t degree, std::int64_t fanout,
                                                 std::int64_t capacity, keyed_position* buffer)
{
  keyed_position* kept = nullptr;
  std::int64_t const count = select_smallest_keys(
    tile, degree, fanout, capacity, buffer, recent_key_of<Eligible, TimeOf>{eligible, time_of, degree}, &kept);
  for (std::int64_t e = rank_in(tile); e < count; e += size_of(tile)) {
    out.emit(degree - 1 - kept[e].position, rank_of(kept, count, kept[e], reversed_stored_order{}));
  }
  tile.sync();
  return count;
}

/// Eligibility of the edge at position p of one list (PerNode: node_time, else edge_time) (time at or before `limit`, not excluded).
template <bool PerNode, class Offset, class Index>
struct temporal_eligible {
  const std::int64_t* times;     ///< edge form: times + first; node form: times
  std::int64_t num_times;        ///< node form: valid node ids (others are never eligible)
  const Index* indices;          ///< csr.indices + first
  const Offset* edge_ids;        ///< csr.edge_ids + first, or null (ids are positions)
  Offset first;                  ///< the list's first position
  const std::int64_t* excluded;  ///< sorted excluded edge ids, or null
  std::int64_t num_excluded;     ///< their number
  std::int64_t limit;            ///< the row's query time

  /// Time of the edge at position p (node form: its neighbour's time; call when in range).
  GNNDIRECT_DEVICE std::int64_t time_of(std::int64_t p) const
  {
    if constexpr (PerNode) {
      return times[static_cast<std::int64_t>(indices[p])];
    } else {
      return times[p];
    }
  }
  GNNDIRECT_DEVICE bool operator()(std::int64_t p) const
  {
    if constexpr (PerNode) {
      auto const v = static_cast<std::int64_t>(indices[p]);
      if (v < 0 || v >= num_times) { return false; }
    }
    if (time_of(p) > limit) { return false; }
    if (num_excluded > 0) {
      std::int64_t const id = edge_ids != nullptr ? static_cast<std::int64_t>(edge_ids[p])
                                                  : static_cast<std::int64_t>(first) + p;
      if (find_sorted(excluded, num_excluded, id) >= 0) { return false; }
    }
    return true;
  }
};

/// time_of of a temporal_eligible as a function object (the 'last' key).
template <class Eligible>
struct time_of_eligible {
  Eligible eligible;
  GNNDIRECT_DEVICE std::int64_t operator()(std::int64_t p) const { return eligible.time_of(p); }
};

}  // namespace detail
GNNDIRECT_NAMESPACE_END
