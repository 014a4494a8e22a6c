#pragma once
/// @file philox.hpp
/// @brief Internals of core/philox.hpp: Philox4x32's constants and one round (not part of the
/// API).

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/philox_block.hpp>

#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

inline constexpr std::uint32_t philox_m0 = 0xD2511F53u;  ///< multiplier of counter word 0
inline constexpr std::uint32_t philox_m1 = 0xCD9E8D57u;  ///< multiplier of counter word 2
inline constexpr std::uint32_t philox_w0 = 0x9E3779B9u;  ///< key bump of word 0 (golden ratio)
inline constexpr std::uint32_t philox_w1 = 0xBB67AE85u;  ///< key bump of word 1 (sqrt(3) - 1)

/// One Philox S-box round: two 32x32->64 products, their halves permuted and xored with the key.
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE constexpr philox_block philox_round(philox_block c,
                                                                               philox_key k) noexcept
{
  std::uint64_t const p0 = std::uint64_t{philox_m0} * c.v[0];
  std::uint64_t const p1 = std::uint64_t{philox_m1} * c.v[2];
  auto const hi0 = static_cast<std::uint32_t>(p0 >> 32);
  auto const lo0 = static_cast<std::uint32_t>(p0);
  auto const hi1 = static_cast<std::uint32_t>(p1 >> 32);
  auto const lo1 = static_cast<std::uint32_t>(p1);
  return philox_block{{hi1 ^ c.v[1] ^ k.k0, lo1, hi0 ^ c.v[3] ^ k.k1, lo0}};
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
