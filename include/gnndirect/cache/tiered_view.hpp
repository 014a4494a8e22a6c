#pragma once
/// @file tiered_view.hpp
/// @brief View of a tiered feature table: every row in host memory, the hot rows also in device
/// memory (host-compilable).

#include <gnndirect/core/table_view.hpp>
#include <gnndirect/core/version.hpp>

#include <cstdint>
#include <type_traits>

GNNDIRECT_NAMESPACE_BEGIN

/// A host-resident table plus a device-memory copy of some of its rows.
///
/// slot_of[r] >= 0 means row r is also cached at cache + slot_of[r] * host.cols; gathers read such
/// rows from HBM and the others over the host link, in one launch, in caller order. Trivially
/// copyable. Writing the host table directly leaves cached copies stale until the next
/// tiered_table::rebuild; scatter through tiered_table::write_source() writes both copies.
/// Built by tiered_table::view() (cache/tiered_table.cuh), read by the tiered gather_async
/// overloads there; valid while that owner lives and until it rebuilds.
/// @tparam T element type of the table
template <class T>
struct tiered_view {
  table_view<const T> host;               ///< every row (device-visible, host-resident)
  const T* cache{nullptr};                ///< cache_rows x host.cols packed rows (device memory)
  const std::int32_t* slot_of{nullptr};   ///< host.rows slots (device memory); -1 = not cached
  std::int64_t cache_rows{0};             ///< rows held in the cache
};

static_assert(std::is_trivially_copyable_v<tiered_view<float>>);


GNNDIRECT_NAMESPACE_END
