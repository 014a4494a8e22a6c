#pragma once
// Bodies of core/gather_policy.hpp: the policy's comparison and printing.

#include <gnndirect/core/gather_policy.hpp>

#include <ostream>

GNNDIRECT_NAMESPACE_BEGIN

inline const char* to_string(locality_order order) noexcept
{
  switch (order) {
    case locality_order::automatic: return "automatic";
    case locality_order::none: return "none";
    case locality_order::sorted: return "sorted";
  }
  return "unknown";
}

inline bool operator==(const gather_policy& a, const gather_policy& b) noexcept
{
  return a.tile_size == b.tile_size && a.rows_in_flight == b.rows_in_flight && a.align_128 == b.align_128 &&
         a.order == b.order && a.max_blocks == b.max_blocks && a.block_threads == b.block_threads &&
         a.check_indices == b.check_indices && a.unique_indices == b.unique_indices;
}

inline bool operator!=(const gather_policy& a, const gather_policy& b) noexcept { return !(a == b); }

inline std::ostream& operator<<(std::ostream& out, const gather_policy& policy)
{
  return out << "gather_policy{tile_size=" << policy.tile_size << ", rows_in_flight=" << policy.rows_in_flight
             << ", align_128=" << policy.align_128 << ", order=" << to_string(policy.order)
             << ", max_blocks=" << policy.max_blocks << ", block_threads=" << policy.block_threads
             << ", check_indices=" << policy.check_indices << ", unique_indices=" << policy.unique_indices << "}";
}

GNNDIRECT_NAMESPACE_END
