#pragma once
// Definitions of device/row_source.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class T>
table_source<T>::table_source(table_view<T> view) noexcept
  : table(view),
    remote(view.kind != memory_kind::device)
{
}

template <class T>
auto table_source<T>::address_bits() const noexcept -> std::uintptr_t
{
  return reinterpret_cast<std::uintptr_t>(table.data) |
         static_cast<std::uintptr_t>(table.stride_bytes());
}

template <class T>
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE auto table_source<T>::locate(
  std::int64_t row) const noexcept -> row_location<T>
{
  return {table.row(row), remote};
}

template <class Codec>
encoded_source<Codec>::encoded_source(const encoded_view<Codec>& view) noexcept
  : table(view),
    remote(view.kind != memory_kind::device)
{
}

template <class Codec>
auto encoded_source<Codec>::address_bits() const noexcept -> std::uintptr_t
{
  return reinterpret_cast<std::uintptr_t>(table.data) | static_cast<std::uintptr_t>(table.stride_bytes);
}

template <class Codec>
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE auto encoded_source<Codec>::locate(
  std::int64_t row) const noexcept -> encoded_location<typename Codec::meta_type>
{
  return {table.row(row), remote, table.row_meta(row)};
}

GNNDIRECT_NAMESPACE_END
