#pragma once
/// @file tiered_view.hpp
/// @brief View of a tiered feature table: every row in host memory, the hot rows also in device
/// memory (host-compilable).

#include <gnndirect/config.hpp>
#include <gnndirect/gather/row_source.hpp>
#include <gnndirect/views/table_view.hpp>

#include <cstdint>
#include <type_traits>

namespace gnndirect {

/// A host-resident table plus a device-memory copy of some of its rows.
///
/// slot_of[r] >= 0 means row r is also cached at cache + slot_of[r] * host.cols; gathers read such
/// rows from HBM and the others over the host link, in one launch, in caller order. Trivially
/// copyable. Between rebuilds the tier is read-only: writing the host table (e.g. scatter) leaves
/// cached copies stale until the next tiered_table::rebuild.
template <class T>
struct tiered_view {
  table_view<const T> host;               ///< every row (device-visible, host-resident)
  const T* cache{nullptr};                ///< cache_rows x host.cols packed rows (device memory)
  const std::int32_t* slot_of{nullptr};   ///< host.rows slots (device memory); -1 = not cached
  std::int64_t cache_rows{0};             ///< rows held in the cache
};

static_assert(std::is_trivially_copyable_v<tiered_view<float>>);

/// Row source over a tiered table (read-only: scatter into its host table, then rebuild or
/// update the cache): a cached row is read from HBM, any other row over the host link.
template <class T>
struct tiered_source {
  using element_type = const T;
  tiered_view<T> tiers{};  ///< host rows, cache and slot map

  tiered_source() = default;
  /// Source over `view`.
  explicit tiered_source(const tiered_view<T>& view) noexcept : tiers(view) {}

  /// Rows of the host table.
  std::int64_t num_rows() const noexcept { return tiers.host.rows; }
  /// Elements per row.
  std::int64_t num_cols() const noexcept { return tiers.host.cols; }
  /// Placement of the uncached rows (host-resident).
  memory_kind placement() const noexcept { return tiers.host.kind; }
  /// Host and cache base addresses and strides, OR-ed.
  std::uintptr_t address_bits() const noexcept
  {
    return reinterpret_cast<std::uintptr_t>(tiers.host.data) |
           static_cast<std::uintptr_t>(tiers.host.stride_bytes()) |
           reinterpret_cast<std::uintptr_t>(tiers.cache) |
           static_cast<std::uintptr_t>(tiers.host.cols) * sizeof(T);
  }
  /// The cached copy of `row` when there is one, else the host row.
  GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE row_location<const T> locate(std::int64_t row) const noexcept
  {
    std::int32_t const slot = tiers.slot_of[row];
    if (slot >= 0) { return {tiers.cache + std::int64_t{slot} * tiers.host.cols, false}; }
    return {tiers.host.row(row), true};
  }
};

static_assert(is_row_source_v<tiered_source<float>>);

}  // namespace gnndirect
