#pragma once
/// @file row_source.hpp
/// @brief The row-source concept: where the indexed rows of a gather (or the target rows of a
/// scatter) live, as a type. The bulk gather/scatter and the copy kernels are templates on it, so
/// a plain table pays nothing for the cache tier and a framework can add its own source
/// (host-compilable).
///
/// A type `S` is a row source of element type `S::element_type` when it is trivially copyable
/// (it is passed to kernels by value) and has:
/// @code
///   using element_type = T;                  // const T: read-only (gather); T: also scatter
///   std::int64_t num_rows() const;           // host: valid indices are [0, num_rows())
///   std::int64_t num_cols() const;           // host: elements per row
///   memory_kind placement() const;           // host: where rows crossing the link live
///                                            //   (the policy selector's input)
///   std::uintptr_t address_bits() const;     // host: OR of every base address and row stride
///                                            //   in bytes (bounds the vector width)
///   __device__ row_location<T> locate(std::int64_t row) const;  // row's address, and whether
///                                            //   it lies across the host link (remote)
/// @endcode
/// Library sources: table_source (a table_view), tiered_source (a tiered_view: HBM copy of hot
/// rows in front of a host table). See test/gpu/test_gather.cu for a user-defined source
/// that concatenates two tables (heterogeneous node types behind one index space).

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/memory_kind.hpp>
#include <gnndirect/core/table_view.hpp>
#include <gnndirect/core/tiered_view.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN

/// Where one row lives: its first element and whether reading it crosses the host link (then
/// accesses are aligned to 128-byte lines).
template <class T>
struct row_location {
  T* data;      ///< first element of the row
  bool remote;  ///< true when the row is in host memory
};

/// True when `S` models the row-source concept (see the file comment).
template <class S, class = void>
struct is_row_source : std::false_type {};

template <class S>
struct is_row_source<
  S, std::void_t<typename S::element_type,
                 decltype(std::declval<const S&>().num_rows()),
                 decltype(std::declval<const S&>().num_cols()),
                 decltype(std::declval<const S&>().placement()),
                 decltype(std::declval<const S&>().address_bits()),
                 decltype(std::declval<const S&>().locate(std::int64_t{}))>>
  : std::bool_constant<std::is_trivially_copyable_v<S>> {};

/// Shorthand for is_row_source<S>::value.
template <class S>
inline constexpr bool is_row_source_v = is_row_source<S>::value;

/// The plain row source: every row of a table_view, in the view's placement.
template <class T>
struct table_source {
  using element_type = T;
  table_view<T> table{};  ///< the rows (device-visible addresses)
  bool remote{false};     ///< the table is host-resident (decided once, on the host)

  table_source() = default;
  /// Source over `view`; its placement decides whether rows are remote.
  explicit table_source(table_view<T> view) noexcept
    : table(view), remote(view.kind != memory_kind::device)
  {
  }

  /// Rows of the table.
  std::int64_t num_rows() const noexcept { return table.rows; }
  /// Elements per row.
  std::int64_t num_cols() const noexcept { return table.cols; }
  /// The table's placement.
  memory_kind placement() const noexcept { return table.kind; }
  /// Base address and stride in bytes, OR-ed.
  std::uintptr_t address_bits() const noexcept
  {
    return reinterpret_cast<std::uintptr_t>(table.data) |
           static_cast<std::uintptr_t>(table.stride_bytes());
  }
  /// Row `row` (no bounds check: the bulk layer checks indices first).
  GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE row_location<T> locate(std::int64_t row) const noexcept
  {
    return {table.row(row), remote};
  }
};

static_assert(is_row_source_v<table_source<const float>>);

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

GNNDIRECT_NAMESPACE_END
