#pragma once
/// @file table_view.hpp
/// @brief Non-owning, trivially copyable 2-D view of a feature table (host-compilable).

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/memory_kind.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

GNNDIRECT_NAMESPACE_BEGIN

/// rows x cols elements of T, row r starting at data + r * row_stride (in elements).
///
/// `data` is the address the *reader* uses: a device address for views handed to kernels (see
/// table<T>::view()), a host address for views handed to the host reference (host_view()).
/// `kind` records where the bytes live so that algorithms can pick a policy. Passed by value to
/// kernels. Use table_view<const T> for read-only sources; table_view<T> converts to it.
/// @tparam T element type (trivially copyable; const for read-only views)
template <class T>
struct table_view {
  static_assert(std::is_trivially_copyable_v<T>, "table_view<T>: T must be trivially copyable");

  using element_type = T;  ///< element type of the rows

  T* data{nullptr};             ///< first element of row 0
  std::int64_t rows{0};         ///< number of rows
  std::int64_t cols{0};         ///< elements per row
  std::int64_t row_stride{0};   ///< elements between the starts of consecutive rows (>= cols)
  memory_kind kind{memory_kind::device};  ///< where the bytes live

  /// Empty view (null data, no rows).
  table_view() = default;
  /// Views `rows` x `cols` elements at `data_` with the given stride.
  /// @param data_ first element  @param rows_, cols_ shape
  /// @param row_stride_ elements between rows
  /// @param kind_ where the bytes live
  GNNDIRECT_HOST_DEVICE table_view(T* data_, std::int64_t rows_, std::int64_t cols_,
                                   std::int64_t row_stride_, memory_kind kind_) noexcept;
  /// Converts a mutable view to a read-only one.
  /// @tparam U the mutable element type (T is const U)  @param other the view
  template <class U, class = std::enable_if_t<std::is_same_v<const U, T> && !std::is_same_v<U, T>>>
  GNNDIRECT_HOST_DEVICE table_view(const table_view<U>& other) noexcept;

  /// Pointer to the first element of row `r` (no bounds check: callers validate indices).
  /// @param r the row  @return its address
  GNNDIRECT_HOST_DEVICE T* row(std::int64_t r) const noexcept { return data + r * row_stride; }
  /// @return bytes of payload per row
  GNNDIRECT_HOST_DEVICE std::size_t row_bytes() const noexcept;
  /// @return bytes between consecutive rows
  GNNDIRECT_HOST_DEVICE std::size_t stride_bytes() const noexcept;
  /// @return true when rows are packed back to back
  GNNDIRECT_HOST_DEVICE bool is_contiguous() const noexcept { return row_stride == cols; }
  /// @return true when the view holds no element
  GNNDIRECT_HOST_DEVICE bool empty() const noexcept { return rows == 0 || cols == 0; }
};

/// Checks a view's shape: non-negative sizes, stride >= cols, non-null data when non-empty.
/// @tparam T element type  @param view the view
/// @param name used in the error message (e.g. "src")  @throws invalid_argument
template <class T>
void validate(const table_view<T>& view, const char* name);

// A view, const or not, is trivially copyable: kernels take it by value.
static_assert(std::is_trivially_copyable_v<table_view<float>> && std::is_trivially_copyable_v<table_view<const float>>);

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/core/table_view.inl>
