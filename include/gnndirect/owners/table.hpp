#pragma once
/// @file table.hpp
/// @brief table<T>: owning 2-D feature table in one placement, handing out table_view<T>.

#include <gnndirect/core/table_view.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/owners/allocation.hpp>
#include <gnndirect/owners/registration.hpp>

#include <cstddef>
#include <cstdint>
#include <utility>

GNNDIRECT_NAMESPACE_BEGIN

/// Owning rows x cols table of trivially copyable T (rows packed, row_stride == cols).
///
/// Three ways to get one: allocate in a kind (`table(rows, cols, kind)`), adopt caller memory by
/// pinning it in place (`adopt_by_registration`, zero copy, inherits pinned memory's limits), or
/// adopt by one parallel copy into a faster placement (`adopt_by_copy`, e.g. managed_host).
/// Move-only; views stay valid while the table lives.
/// @tparam T element type (trivially copyable)
template <class T>
class table {
 public:
  /// Empty table.
  table() noexcept = default;

  /// Allocates an uninitialised rows x cols table in `kind` (not `registered`): device memory
  /// from `mr`, pinned memory from `host_mr` (defaults: the device's default pool, cudaHostAlloc);
  /// the table returns it there, so both must outlive it. Synchronous.
  /// @throws invalid_argument for negative sizes or kind registered; allocation_error (also for
  ///         a resource returning null or misaligned memory).
  /// @param rows, cols shape  @param kind placement  @param mr, host_mr device and pinned resources
  table(std::int64_t rows, std::int64_t cols, memory_kind kind, resource_ref mr = {},
        host_resource_ref host_mr = {});

  /// Pins the caller's rows x cols table (row stride `row_stride`, default cols) in place: exactly
  /// the (rows - 1) x row_stride + cols elements the table uses, so a column slice whose last row
  /// ends at the end of its allocation registers nothing beyond it. The caller keeps ownership
  /// and must outlive the table. @throws invalid_argument (row_stride < cols), as host_registration.
  /// @param host first element  @param rows, cols shape
  /// @param row_stride elements between rows (-1: cols)
  /// @return the table (kind registered)
  static table adopt_by_registration(T* host, std::int64_t rows, std::int64_t cols,
                                     std::int64_t row_stride = -1);

  /// Copies the caller's packed rows x cols table into a new table of `kind` using all cores
  /// (device: one cudaMemcpy), allocated as the constructor does (from `mr` / `host_mr`).
  /// Blocks until done. @throws as the constructor, cuda_error.
  /// @param host first element  @param rows, cols shape  @param kind placement
  /// @param mr, host_mr device and pinned resources  @return the table
  static table adopt_by_copy(const T* host, std::int64_t rows, std::int64_t cols, memory_kind kind,
                             resource_ref mr = {}, host_resource_ref host_mr = {});

  /// @return view with device-visible addresses, for kernels and the bulk API
  table_view<T> view() const noexcept { return {device_ptr(), rows_, cols_, stride(), kind_}; }
  /// View with host addresses, for the host reference and for filling.  @return the view
  /// @throws invalid_argument for device tables (no host address).
  table_view<T> host_view() const;

  /// @return number of rows
  std::int64_t rows() const noexcept { return rows_; }
  /// @return elements per row
  std::int64_t cols() const noexcept { return cols_; }
  /// @return placement
  memory_kind kind() const noexcept { return kind_; }
  /// Bytes spanned: ((rows - 1) x stride + cols) x sizeof(T), the first row's first element to
  /// the last row's last (rows x cols x sizeof(T) for packed tables; 0 without rows).
  /// @return the bytes
  std::size_t bytes() const noexcept;

 private:
  /// @return kind  @throws invalid_argument for registered (adopt_by_registration makes those).
  static memory_kind checked_kind(memory_kind kind);
  /// rows x cols x sizeof(T).  @throws invalid_argument for a negative shape or an overflow.
  static std::size_t checked_bytes(std::int64_t rows, std::int64_t cols);
  /// Elements spanned by rows x cols with the given stride, checked like checked_bytes, in bytes.
  static std::size_t span_bytes(std::int64_t rows, std::int64_t cols, std::int64_t row_stride);
  std::int64_t stride() const noexcept { return stride_ >= 0 ? stride_ : cols_; }
  /// The device / host address of row 0 (the registration's for registered memory).
  T* device_ptr() const noexcept;
  T* host_ptr() const noexcept;

  allocation storage_;
  host_registration registration_;
  std::int64_t rows_{0};
  std::int64_t cols_{0};
  std::int64_t stride_{-1};
  memory_kind kind_{memory_kind::device};
};

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/owners/table.inl>
