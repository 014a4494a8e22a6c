#pragma once
// Definitions of core/table_view.hpp (included at its end; not part of the API).

#include <gnndirect/core/error.hpp>

#include <string>

GNNDIRECT_NAMESPACE_BEGIN

template <class T>
GNNDIRECT_HOST_DEVICE table_view<T>::table_view(
  T* data_, std::int64_t rows_, std::int64_t cols_, std::int64_t row_stride_, memory_kind kind_) noexcept
  : data(data_),
    rows(rows_),
    cols(cols_),
    row_stride(row_stride_),
    kind(kind_)
{
}

template <class T>
template <class U, class>
GNNDIRECT_HOST_DEVICE table_view<T>::table_view(const table_view<U>& other) noexcept
  : data(other.data),
    rows(other.rows),
    cols(other.cols),
    row_stride(other.row_stride),
    kind(other.kind)
{
}

template <class T>
GNNDIRECT_HOST_DEVICE auto table_view<T>::row_bytes() const noexcept -> std::size_t
{
  return static_cast<std::size_t>(cols) * sizeof(T);
}

template <class T>
GNNDIRECT_HOST_DEVICE auto table_view<T>::stride_bytes() const noexcept -> std::size_t
{
  return static_cast<std::size_t>(row_stride) * sizeof(T);
}

template <class T>
void validate(const table_view<T>& view, const char* name)
{
  std::string const prefix = std::string("table_view '") + name + "': ";
  GNNDIRECT_EXPECTS(view.rows >= 0 && view.cols >= 0, prefix + "negative shape");
  GNNDIRECT_EXPECTS(view.row_stride >= view.cols,
                    prefix + "row_stride " + std::to_string(view.row_stride) + " < cols " +
                      std::to_string(view.cols));
  GNNDIRECT_EXPECTS(view.empty() || view.data != nullptr, prefix + "null data with non-zero size");
}

GNNDIRECT_NAMESPACE_END
