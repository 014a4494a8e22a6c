#pragma once
// Definitions of cache/tiered_source.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class T>
auto tiered_source<T>::address_bits() const noexcept -> std::uintptr_t
{
  return reinterpret_cast<std::uintptr_t>(tiers.host.data) |
         static_cast<std::uintptr_t>(tiers.host.stride_bytes()) |
         reinterpret_cast<std::uintptr_t>(tiers.cache) |
         static_cast<std::uintptr_t>(tiers.host.cols) * sizeof(T);
}

template <class T>
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE auto tiered_source<T>::locate(
  std::int64_t row) const noexcept -> row_location<const T>
{
  std::int32_t const slot = tiers.slot_of[row];
  if (slot >= 0) { return {tiers.cache + std::int64_t{slot} * tiers.host.cols, false}; }
  return {tiers.host.row(row), true};
}

template <class T>
auto tiered_cache_mirror<T>::address_bits() const noexcept -> std::uintptr_t
{
  return reinterpret_cast<std::uintptr_t>(cache) | static_cast<std::uintptr_t>(cols) * sizeof(T);
}

template <class T>
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE auto tiered_cache_mirror<T>::locate(
  std::int64_t row) const noexcept -> row_location<T>
{
  std::int32_t const slot = slot_of[row];
  return {slot >= 0 ? cache + std::int64_t{slot} * cols : nullptr, false};
}

template <class T>
auto tiered_write_source<T>::address_bits() const noexcept -> std::uintptr_t
{
  return reinterpret_cast<std::uintptr_t>(host.data) | static_cast<std::uintptr_t>(host.stride_bytes());
}

template <class T>
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE auto tiered_write_source<T>::locate(
  std::int64_t row) const noexcept -> row_location<T>
{
  return {host.row(row), host.kind != memory_kind::device};
}

template <class Codec>
tiered_encoded_source<Codec>::tiered_encoded_source(
  const encoded_view<Codec>& view, const tiered_view<std::uint8_t>& tier) noexcept
  : table(view),
    cache(tier.cache),
    slot_of(tier.slot_of)
{
}

template <class Codec>
auto tiered_encoded_source<Codec>::address_bits() const noexcept -> std::uintptr_t
{
  return reinterpret_cast<std::uintptr_t>(table.data) | reinterpret_cast<std::uintptr_t>(cache) |
         static_cast<std::uintptr_t>(table.stride_bytes);
}

template <class Codec>
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE auto tiered_encoded_source<Codec>::locate(
  std::int64_t row) const noexcept -> encoded_location<typename Codec::meta_type>
{
  std::int32_t const slot = slot_of[row];
  auto const meta = table.row_meta(row);
  if (slot >= 0) { return {cache + std::int64_t{slot} * table.stride_bytes, false, meta}; }
  return {table.row(row), true, meta};
}

GNNDIRECT_NAMESPACE_END
