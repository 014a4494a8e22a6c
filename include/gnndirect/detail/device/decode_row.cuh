#pragma once
/// @file decode_row.cuh
/// @brief Internals of device/decode_row.cuh: extracting codes from a loaded vector and storing
/// decoded values (not part of the API).

#include <gnndirect/core/config.hpp>
#include <gnndirect/detail/device/copy_row.cuh>

#include <cstddef>
#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Code `k` (0-based) of a V-byte vector of `Bits`-bit codes, packed little-endian.
template <int Bits, int V, class Vec>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE std::uint32_t code_at(const Vec& v, int k) noexcept
{
  if constexpr (V >= 4) {
    constexpr int per_word = 32 / Bits;
    std::uint32_t const word = reinterpret_cast<const std::uint32_t*>(&v)[k / per_word];
    if constexpr (Bits == 32) {
      return word;
    } else {
      return (word >> ((k % per_word) * Bits)) & ((1u << Bits) - 1u);
    }
  } else {
    auto const word = static_cast<std::uint32_t>(v);
    if constexpr (Bits >= 8 * V) {
      return word;
    } else {
      return (word >> (k * Bits)) & ((1u << Bits) - 1u);
    }
  }
}

/// Stores `Bytes` bytes of decoded values (`values`, W-aligned) at `dst + offset` of a row of
/// `dst_bytes` bytes: whole W-byte vectors where they fit, single elements at the row's end.
/// `dst + offset` must be W-aligned; when it happens to be 16-byte aligned, 16-byte vectors are
/// stored instead (rows of an 8-byte aligned batch alternate: half the stores saved on them).
template <int W, int Bytes, class D>
GNNDIRECT_DEVICE GNNDIRECT_FORCEINLINE void store_decoded(std::byte* dst, std::int64_t offset, std::int64_t dst_bytes,
                                                          const D (&values)[Bytes / sizeof(D)]) noexcept
{
  if constexpr (W < 16 && Bytes % 16 == 0) {
    if ((reinterpret_cast<std::uintptr_t>(dst + offset) & 15u) == 0) {
      store_decoded<16, Bytes, D>(dst, offset, dst_bytes, values);
      return;
    }
  }
  using vec = typename vector_of<W>::type;
  constexpr int per_vec = W / static_cast<int>(sizeof(D));
#pragma unroll
  for (int c = 0; c < Bytes / W; ++c) {
    std::int64_t const at = offset + std::int64_t{c} * W;
    if (at + W <= dst_bytes) {
      *reinterpret_cast<vec*>(dst + at) = reinterpret_cast<const vec*>(values)[c];
    } else if (at < dst_bytes) {
#pragma unroll
      for (int e = 0; e < per_vec; ++e) {
        if (at + std::int64_t{e} * static_cast<std::int64_t>(sizeof(D)) < dst_bytes) {
          reinterpret_cast<D*>(dst + at)[e] = values[c * per_vec + e];
        }
      }
    }
  }
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
