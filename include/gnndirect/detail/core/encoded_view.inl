#pragma once
// Definitions of core/encoded_view.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

template <class Codec>
GNNDIRECT_HOST_DEVICE auto encoded_view<Codec>::payload_bytes() const noexcept -> std::int64_t
{
  std::int64_t const codes = (cols + Codec::values_per_code - 1) / Codec::values_per_code;
  return (codes * Codec::code_bits + 7) / 8;
}

template <class Codec>
GNNDIRECT_HOST_DEVICE auto encoded_view<Codec>::load_bytes() const noexcept -> std::int64_t
{
  std::int64_t const payload = payload_bytes();
  std::int64_t const rounded = (payload + 15) / 16 * 16;
  return rounded <= stride_bytes && rounded <= readable_bytes ? rounded : payload;
}

template <class Codec>
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE auto encoded_view<Codec>::row_meta(
  std::int64_t r) const noexcept -> meta_type
{
  if constexpr (std::is_empty_v<meta_type>) {
    return {};
  } else {
    return meta[r];
  }
}

template <class Codec, class T>
encoded_view<Codec> encoded_view_of(const table_view<T>& table, Codec codec) noexcept
{
  static_assert(std::is_empty_v<typename Codec::meta_type>,
                "encoded_view_of: the codec keeps per-row metadata; a plain table has none");
  static_assert(Codec::code_bits == 8 * static_cast<int>(sizeof(T)) && Codec::values_per_code == 1,
                "encoded_view_of: the table's elements must be the codec's codes (code_bits == 8 * sizeof(T))");
  return {reinterpret_cast<const std::uint8_t*>(table.data), table.rows, table.cols,
          static_cast<std::int64_t>(table.stride_bytes()), table.kind, nullptr, codec,
          static_cast<std::int64_t>(table.row_bytes())};
}

GNNDIRECT_NAMESPACE_END
