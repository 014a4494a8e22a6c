#pragma once
/// @file table.hpp
/// @brief table<T>: owning 2-D feature table in one placement, handing out table_view<T>.

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/core/table_view.hpp>
#include <gnndirect/core/version.hpp>
#include <gnndirect/owners/allocation.hpp>
#include <gnndirect/owners/registration.hpp>
#include <gnndirect/util/parallel.hpp>

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
        host_resource_ref host_mr = {})
    : storage_(checked_kind(kind), checked_bytes(rows, cols), mr, host_mr), rows_(rows), cols_(cols),
      kind_(kind)
  {
  }

  /// Pins the caller's rows x cols table (row stride `row_stride`, default cols) in place: exactly
  /// the (rows - 1) x row_stride + cols elements the table uses, so a column slice whose last row
  /// ends at the end of its allocation registers nothing beyond it. The caller keeps ownership
  /// and must outlive the table. @throws invalid_argument (row_stride < cols), as host_registration.
  /// @param host first element  @param rows, cols shape
  /// @param row_stride elements between rows (-1: cols)
  /// @return the table (kind registered)
  static table adopt_by_registration(T* host, std::int64_t rows, std::int64_t cols,
                                     std::int64_t row_stride = -1)
  {
    if (row_stride < 0) { row_stride = cols; }
    GNNDIRECT_EXPECTS(row_stride >= cols, "adopt_by_registration: row_stride < cols");
    table result;
    result.registration_ = host_registration(host, span_bytes(rows, cols, row_stride));
    result.rows_ = rows;
    result.cols_ = cols;
    result.stride_ = row_stride;
    result.kind_ = memory_kind::registered;
    return result;
  }

  /// Copies the caller's packed rows x cols table into a new table of `kind` using all cores
  /// (device: one cudaMemcpy), allocated as the constructor does (from `mr` / `host_mr`).
  /// Blocks until done. @throws as the constructor, cuda_error.
  /// @param host first element  @param rows, cols shape  @param kind placement
  /// @param mr, host_mr device and pinned resources  @return the table
  static table adopt_by_copy(const T* host, std::int64_t rows, std::int64_t cols, memory_kind kind,
                             resource_ref mr = {}, host_resource_ref host_mr = {})
  {
    table result(rows, cols, kind, mr, host_mr);
    if (result.bytes() == 0) { return result; }
    GNNDIRECT_EXPECTS(host != nullptr, "adopt_by_copy: null source");
    if (kind == memory_kind::device) {
      detail::copy_to_device_and_wait(result.storage_.device_data(), host, result.bytes());
    } else {
      host::parallel_memcpy(result.storage_.host_data(), host, result.bytes());
    }
    return result;
  }

  /// @return view with device-visible addresses, for kernels and the bulk API
  table_view<T> view() const noexcept { return {device_ptr(), rows_, cols_, stride(), kind_}; }
  /// View with host addresses, for the host reference and for filling.  @return the view
  /// @throws invalid_argument for device tables (no host address).
  table_view<T> host_view() const
  {
    GNNDIRECT_EXPECTS(kind_ != memory_kind::device || bytes() == 0,
                      "table::host_view: a device table has no host address");
    return {host_ptr(), rows_, cols_, stride(), kind_};
  }

  /// @return number of rows
  std::int64_t rows() const noexcept { return rows_; }
  /// @return elements per row
  std::int64_t cols() const noexcept { return cols_; }
  /// @return placement
  memory_kind kind() const noexcept { return kind_; }
  /// Bytes spanned: ((rows - 1) x stride + cols) x sizeof(T), the first row's first element to
  /// the last row's last (rows x cols x sizeof(T) for packed tables; 0 without rows).
  /// @return the bytes
  std::size_t bytes() const noexcept
  {
    if (rows_ == 0) { return 0; }
    return (static_cast<std::size_t>(rows_ - 1) * static_cast<std::size_t>(stride()) +
            static_cast<std::size_t>(cols_)) * sizeof(T);
  }

 private:
  static memory_kind checked_kind(memory_kind kind)
  {
    GNNDIRECT_EXPECTS(kind != memory_kind::registered,
                      "table: use adopt_by_registration for memory_kind::registered");
    return kind;
  }
  static std::size_t checked_bytes(std::int64_t rows, std::int64_t cols)
  {
    GNNDIRECT_EXPECTS(rows >= 0 && cols >= 0, "table: negative shape");
    GNNDIRECT_EXPECTS(cols == 0 || static_cast<std::uint64_t>(rows) <=
                                     (~std::uint64_t{0} / sizeof(T)) / static_cast<std::uint64_t>(cols),
                      "table: rows * cols * sizeof(T) overflows");
    return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols) * sizeof(T);
  }
  /// Elements spanned by rows x cols with the given stride, checked like checked_bytes, in bytes.
  static std::size_t span_bytes(std::int64_t rows, std::int64_t cols, std::int64_t row_stride)
  {
    checked_bytes(rows, row_stride);  // rows x stride fits, so the smaller span does too
    GNNDIRECT_EXPECTS(cols >= 0, "table: negative shape");
    if (rows == 0) { return 0; }
    return (static_cast<std::size_t>(rows - 1) * static_cast<std::size_t>(row_stride) +
            static_cast<std::size_t>(cols)) * sizeof(T);
  }
  std::int64_t stride() const noexcept { return stride_ >= 0 ? stride_ : cols_; }
  T* device_ptr() const noexcept
  {
    return static_cast<T*>(kind_ == memory_kind::registered ? registration_.device_data()
                                                            : storage_.device_data());
  }
  T* host_ptr() const noexcept
  {
    return static_cast<T*>(kind_ == memory_kind::registered ? registration_.host_data()
                                                            : storage_.host_data());
  }

  allocation storage_;
  host_registration registration_;
  std::int64_t rows_{0};
  std::int64_t cols_{0};
  std::int64_t stride_{-1};
  memory_kind kind_{memory_kind::device};
};

GNNDIRECT_NAMESPACE_END
