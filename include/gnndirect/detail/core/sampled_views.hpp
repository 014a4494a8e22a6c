#pragma once
/// @file sampled_views.hpp
/// @brief Internals of core/sampled_views.hpp: the block_view of an owner's five arrays and the
/// capacity checks of the writers' views (not part of the API; host-compilable).

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN

/// Declared here, defined in core/sampled_views.hpp (which includes this header first), so that
/// block_view_of can name its return type.
template <class Offset, class Index>
struct block_view;
/// Declared here, defined in core/sampled_views.hpp, for check_slots_capacity.
template <class Offset, class Index>
struct sampled_slots_view;
/// Declared here, defined in core/sampled_views.hpp, for check_block_capacity.
template <class Offset, class Index>
struct sampled_block_view;

namespace detail {
/// The block_view of any owner whose five arrays have data() and size() (buffer, std::vector).
template <class Offset, class Index, class Owner>
block_view<Offset, Index> block_view_of(const Owner& b) noexcept
{
  auto const n = [](std::size_t size) { return static_cast<std::int64_t>(size); };
  return {{b.dst_nodes.data(), n(b.dst_nodes.size())},
          {b.src_nodes.data(), n(b.src_nodes.size())},
          {b.offsets.data(), n(b.offsets.size())},
          {b.indices.data(), n(b.indices.size())},
          {b.edge_ids.data(), n(b.edge_ids.size())}};
}

/// Writes the block_view of every layer of `layers` (owners of five arrays each) into `storage`,
/// the owner's own, and returns the blocks_view of it (pointer and count: valid while the owner
/// lives and its layers keep their arrays). Reuses storage's capacity: no allocation after the
/// owner's first call for as many layers.
template <class Offset, class Index, class Layers, class BlocksView>
BlocksView blocks_view_into(const Layers& layers, std::vector<block_view<Offset, Index>>& storage)
{
  storage.clear();
  for (auto const& layer : layers) { storage.push_back(block_view_of<Offset, Index>(layer)); }
  return BlocksView{{storage.data(), static_cast<std::int64_t>(storage.size())}};
}

/// Refuses one capacity of an output view that is not given (negative: a hand-built view that
/// forgot it is never trusted, also for an empty call) or below the `need` entries the call may
/// touch. `where` names the call (and layer), `field` the member, `array` the array it sizes,
/// `hint` (appended) how to size it. @throws invalid_argument.
inline void check_capacity(std::int64_t have, std::int64_t need, const std::string& where,
                           const std::string& field, const char* array, const char* hint)
{
  if (have < 0) {
    throw invalid_argument(__FILE__, __LINE__,
                           where + ": " + field + " is not given (" + std::to_string(have) +
                             "; a missing capacity is refused, never trusted): set it to what " +
                             array + " was sized for" + hint);
  }
  if (have < need) {
    throw invalid_argument(__FILE__, __LINE__,
                           where + ": " + array + " holds " + std::to_string(have) + " entries (" +
                             field + "), the call may write " + std::to_string(need) + hint);
  }
}

/// Checks the capacities of slots `name` (e.g. "out") against `num_seeds` seeds of `fanout`
/// slots each, before anything is read or written. @throws invalid_argument naming `where`.
template <class Offset, class Index>
void check_slots_capacity(const sampled_slots_view<Offset, Index>& slots, std::int64_t num_seeds,
                          std::int64_t fanout, const std::string& where, const std::string& name)
{
  constexpr const char* hint = " (num_seeds for counts, num_seeds * fanout for neighbors)";
  check_capacity(slots.seed_capacity, num_seeds, where, name + ".seed_capacity",
                 "counts (offsets: one more)", hint);
  check_capacity(slots.slot_capacity, num_seeds * fanout, where, name + ".slot_capacity",
                 "neighbors (and edge_ids)", hint);
}

/// Checks the capacities of block `name` against the bounds `need` the call writes up to, before
/// anything is written. Bounds is block_bounds (a parameter only because core/sampled_views.hpp
/// defines it after including this header). @throws invalid_argument naming `where`.
template <class Offset, class Index, class Bounds>
void check_block_capacity(const sampled_block_view<Offset, Index>& block, const Bounds& need,
                          const std::string& where, const std::string& name, const char* hint)
{
  check_capacity(block.capacity.num_src, need.num_src, where, name + ".capacity.num_src", "src_nodes", hint);
  check_capacity(block.capacity.num_dst, need.num_dst, where, name + ".capacity.num_dst",
                 "offsets (num_dst + 1)", hint);
  check_capacity(block.capacity.num_edges, need.num_edges, where, name + ".capacity.num_edges",
                 "indices/edge_ids", hint);
}
}  // namespace detail
GNNDIRECT_NAMESPACE_END
