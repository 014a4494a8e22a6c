#pragma once
/// @file bits.hpp
/// @brief Bit-range helpers shared by the sorts of every module (host-compilable).

#include <gnndirect/core/version.hpp>
#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Number of low bits that hold every value in [0, bound): the radix-sort bit range of ids.
constexpr int significant_bits(std::int64_t bound) noexcept
{
  int bits = 1;
  while (bits < 63 && (std::int64_t{1} << bits) < bound) { ++bits; }
  return bits;
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
