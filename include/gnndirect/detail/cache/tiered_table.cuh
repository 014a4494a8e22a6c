#pragma once
/// @file tiered_table.cuh
/// @brief Internals of cache/tiered_table.cuh: the slot-map kernel and the tiered gathers' default
/// block budget (not part of the API).

#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/core/config.hpp>
#include <gnndirect/core/gather_policy.hpp>

#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// slot_of[hot[i]] = i for i < n (ids already checked by the gather that filled the cache).
template <class Index>
GNNDIRECT_KERNEL void assign_slots_kernel(const Index* hot, std::int64_t n, std::int64_t num_rows,
                                          std::int32_t* slot_of)
{
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    auto const id = static_cast<std::int64_t>(hot[i]);
    if (id >= 0 && id < num_rows) { slot_of[id] = static_cast<std::int32_t>(i); }
  }
}

/// Tiered gathers serve most rows from HBM, so the link-sized default budget of host-resident
/// gathers (32 blocks) would starve them: unless the caller set a budget, use the full grid.
inline gather_policy tiered_policy(gather_policy policy)
{
  if (policy.max_blocks == 0) { policy.max_blocks = full_grid_blocks(policy.block_threads); }
  return policy;
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
