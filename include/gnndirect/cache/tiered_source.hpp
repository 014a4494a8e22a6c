#pragma once
/// @file tiered_source.hpp
/// @brief The cache tier's row sources (device/row_source.hpp's concept): reads through a
/// tiered_view, a scatter target that writes both copies, and encoded rows with an HBM tier
/// (host-compilable). cache/tiered_table.cuh owns the tier and hands these out.

#include <gnndirect/cache/tiered_view.hpp>
#include <gnndirect/core/config.hpp>
#include <gnndirect/core/encoded_view.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/device/row_source.hpp>

#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN

/// Row source over a tiered table, read-only (element_type const T: scatter names it in a
/// static_assert); to scatter into a tier use tiered_write_source (tiered_table::write_source),
/// which writes the host row and its HBM copy. A cached row is read from HBM, any other row over
/// the host link.
/// @tparam T element type of the table
template <class T>
struct tiered_source {
  using element_type = const T;  ///< read-only rows
  tiered_view<T> tiers{};  ///< host rows, cache and slot map

  /// Source over an empty tier.
  tiered_source() = default;
  /// Source over `view`.  @param view the tiers
  explicit tiered_source(const tiered_view<T>& view) noexcept : tiers(view) {}

  /// @return rows of the host table
  std::int64_t num_rows() const noexcept { return tiers.host.rows; }
  /// @return elements per row
  std::int64_t num_cols() const noexcept { return tiers.host.cols; }
  /// @return placement of the uncached rows (host-resident)
  memory_kind placement() const noexcept { return tiers.host.kind; }
  /// @return host and cache base addresses and strides, OR-ed
  std::uintptr_t address_bits() const noexcept;
  /// The cached copy of `row` when there is one, else the host row.
  /// @param row the row (no bounds check)  @return its location
  GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE row_location<const T> locate(std::int64_t row) const noexcept;
};

static_assert(is_row_source_v<tiered_source<float>>);

/// The HBM copies of a tier's rows as a writable source: locate() gives the cached copy of a row,
/// or null data when the row is not cached (scatter then skips it). The mirror of
/// tiered_write_source.
/// @tparam T element type of the table
template <class T>
struct tiered_cache_mirror {
  using element_type = T;  ///< T (writable)
  T* cache{nullptr};                     ///< cache rows, packed (cols elements each)
  const std::int32_t* slot_of{nullptr};  ///< rows slots; -1 = not cached
  std::int64_t rows{0};                  ///< rows of the host table
  std::int64_t cols{0};                  ///< elements per row

  /// @return rows of the host table
  std::int64_t num_rows() const noexcept { return rows; }
  /// @return elements per row
  std::int64_t num_cols() const noexcept { return cols; }
  /// @return device memory
  memory_kind placement() const noexcept { return memory_kind::device; }
  /// @return cache base and row bytes, OR-ed
  std::uintptr_t address_bits() const noexcept;
  /// The cached copy of `row`, or null data.
  /// @param row the row (no bounds check)  @return its location
  GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE row_location<T> locate(std::int64_t row) const noexcept;
};

/// Writable source over a tiered table: scatter writes the host row (over the link) and then,
/// through mirror(), its HBM copy when the row is cached, so the tier stays coherent. Made by
/// tiered_table::write_source from the writable host table.
/// @tparam T element type of the table
template <class T>
struct tiered_write_source {
  using element_type = T;  ///< T (writable)
  table_view<T> host{};            ///< every row (device-visible, host-resident)
  tiered_cache_mirror<T> cached{};  ///< the HBM copies

  /// @return rows of the host table
  std::int64_t num_rows() const noexcept { return host.rows; }
  /// @return elements per row
  std::int64_t num_cols() const noexcept { return host.cols; }
  /// @return the host table's placement
  memory_kind placement() const noexcept { return host.kind; }
  /// @return host base address and stride, OR-ed
  std::uintptr_t address_bits() const noexcept;
  /// The host row.
  /// @param row the row (no bounds check)  @return its location
  GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE row_location<T> locate(std::int64_t row) const noexcept;
  /// @return the HBM copies, written after the host rows
  tiered_cache_mirror<T> mirror() const noexcept { return cached; }
};

static_assert(is_row_source_v<tiered_write_source<float>> && is_row_source_v<tiered_cache_mirror<float>>);

/// Decoding source over encoded rows with an HBM tier of them (cache/tiered_table.cuh's
/// tiered_table<std::uint8_t> over the encoded bytes): a cached row's codes come from HBM, the
/// others over the host link; the metadata of every row is in HBM. The same byte budget holds
/// (fp32 bytes / encoded bytes) times the rows of an fp32 tier.
/// @tparam Codec the encoded table's codec
template <class Codec>
struct tiered_encoded_source {
  using codec_type = Codec;  ///< the codec
  encoded_view<Codec> table{};       ///< every row (host-resident) and the metadata
  const std::uint8_t* cache{nullptr};  ///< cached rows, stride_bytes apart (device memory)
  const std::int32_t* slot_of{nullptr};  ///< rows slots (device memory); -1 = not cached

  /// Source over an empty table.
  tiered_encoded_source() = default;
  /// Source over `view`, with the tier `tier` made over view's bytes (tier.host.data == view.data,
  /// tier.host.cols == view.stride_bytes; checked by the gather).
  /// @param view the encoded rows  @param tier their HBM tier
  tiered_encoded_source(const encoded_view<Codec>& view, const tiered_view<std::uint8_t>& tier) noexcept;
  /// @return rows of the table
  std::int64_t num_rows() const noexcept { return table.rows; }
  /// @return decoded values per row
  std::int64_t num_cols() const noexcept { return table.cols; }
  /// @return placement of the uncached rows
  memory_kind placement() const noexcept { return table.kind; }
  /// @return host and cache base addresses and the stride, OR-ed
  std::uintptr_t address_bits() const noexcept;
  /// @return bytes loaded per row
  std::int64_t encoded_row_bytes() const noexcept { return table.load_bytes(); }
  /// @return the codec
  GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE Codec codec() const noexcept { return table.codec; }
  /// The cached codes of `row` when there are some, else the host row; its metadata.
  /// @param row the row (no bounds check)  @return its location
  GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE encoded_location<typename Codec::meta_type> locate(std::int64_t row) const noexcept;
};

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/cache/tiered_source.inl>
