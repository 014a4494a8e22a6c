#pragma once
/// @file sampled_refs.hpp
/// @brief Internals of core/sampled_refs.hpp: the block_ref of an owner's five arrays and the
/// capacity checks of the writers' views (not part of the API; host-compilable).

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN

/// Declared here, defined in core/sampled_refs.hpp (which includes this header first), so that
/// block_ref_of can name its return type.
template <class Offset, class Index>
struct block_ref;
/// Declared here, defined in core/sampled_refs.hpp, for check_slots_capacity.
template <class Offset, class Index>
struct sampled_slots_ref;
/// Declared here, defined in core/sampled_refs.hpp, for check_block_capacity.
template <class Offset, class Index>
struct sampled_block_ref;

namespace detail {
/// The block_ref of any owner whose five arrays have data() and size() (buffer, std::vector).
template <class Offset, class Index, class Owner>
block_ref<Offset, Index> block_ref_of(const Owner& b) noexcept
{
  auto const n = [](std::size_t size) { return static_cast<std::int64_t>(size); };
  return {{b.dst_nodes.data(), n(b.dst_nodes.size())},
          {b.src_nodes.data(), n(b.src_nodes.size())},
          {b.offsets.data(), n(b.offsets.size())},
          {b.indices.data(), n(b.indices.size())},
          {b.edge_ids.data(), n(b.edge_ids.size())}};
}

/// Refuses one capacity of an output view that is not given (negative: a hand-built ref that
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
void check_slots_capacity(const sampled_slots_ref<Offset, Index>& slots, std::int64_t num_seeds,
                          std::int64_t fanout, const std::string& where, const std::string& name)
{
  constexpr const char* hint = " (num_seeds for counts, num_seeds * fanout for neighbors)";
  check_capacity(slots.seed_capacity, num_seeds, where, name + ".seed_capacity",
                 "counts (offsets: one more)", hint);
  check_capacity(slots.slot_capacity, num_seeds * fanout, where, name + ".slot_capacity",
                 "neighbors (and edge_ids)", hint);
}

/// Checks the capacities of block `name` against the bounds `need` the call writes up to, before
/// anything is written. Bounds is block_bounds (a parameter only because core/sampled_refs.hpp
/// defines it after including this header). @throws invalid_argument naming `where`.
template <class Offset, class Index, class Bounds>
void check_block_capacity(const sampled_block_ref<Offset, Index>& block, const Bounds& need,
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
