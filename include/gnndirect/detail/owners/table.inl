#pragma once
// Definitions of owners/table.hpp (included at its end; not part of the API).

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/util/parallel.hpp>

GNNDIRECT_NAMESPACE_BEGIN

template <class T>
table<T>::table(std::int64_t rows, std::int64_t cols, memory_kind kind, resource_ref mr, host_resource_ref host_mr)
  : storage_(checked_kind(kind), checked_bytes(rows, cols), mr, host_mr),
    rows_(rows),
    cols_(cols),
    kind_(kind)
{
}

template <class T>
auto table<T>::adopt_by_registration(T* host, std::int64_t rows, std::int64_t cols, std::int64_t row_stride) -> table
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

template <class T>
auto table<T>::adopt_by_copy(
  const T* host, std::int64_t rows, std::int64_t cols, memory_kind kind, resource_ref mr,
  host_resource_ref host_mr) -> table
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

template <class T>
auto table<T>::host_view() const -> table_view<T>
{
  GNNDIRECT_EXPECTS(kind_ != memory_kind::device || bytes() == 0,
                    "table::host_view: a device table has no host address");
  return {host_ptr(), rows_, cols_, stride(), kind_};
}

template <class T>
auto table<T>::bytes() const noexcept -> std::size_t
{
  if (rows_ == 0) { return 0; }
  return (static_cast<std::size_t>(rows_ - 1) * static_cast<std::size_t>(stride()) +
          static_cast<std::size_t>(cols_)) * sizeof(T);
}

template <class T>
auto table<T>::checked_kind(memory_kind kind) -> memory_kind
{
  GNNDIRECT_EXPECTS(kind != memory_kind::registered,
                    "table: use adopt_by_registration for memory_kind::registered");
  return kind;
}

template <class T>
auto table<T>::checked_bytes(std::int64_t rows, std::int64_t cols) -> std::size_t
{
  GNNDIRECT_EXPECTS(rows >= 0 && cols >= 0, "table: negative shape");
  GNNDIRECT_EXPECTS(cols == 0 || static_cast<std::uint64_t>(rows) <=
                                   (~std::uint64_t{0} / sizeof(T)) / static_cast<std::uint64_t>(cols),
                    "table: rows * cols * sizeof(T) overflows");
  return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols) * sizeof(T);
}

template <class T>
auto table<T>::span_bytes(std::int64_t rows, std::int64_t cols, std::int64_t row_stride) -> std::size_t
{
  checked_bytes(rows, row_stride);  // rows x stride fits, so the smaller span does too
  GNNDIRECT_EXPECTS(cols >= 0, "table: negative shape");
  if (rows == 0) { return 0; }
  return (static_cast<std::size_t>(rows - 1) * static_cast<std::size_t>(row_stride) +
          static_cast<std::size_t>(cols)) * sizeof(T);
}

template <class T>
auto table<T>::device_ptr() const noexcept -> T*
{
  return static_cast<T*>(kind_ == memory_kind::registered ? registration_.device_data()
                                                          : storage_.device_data());
}

template <class T>
auto table<T>::host_ptr() const noexcept -> T*
{
  return static_cast<T*>(kind_ == memory_kind::registered ? registration_.host_data()
                                                          : storage_.host_data());
}

GNNDIRECT_NAMESPACE_END
