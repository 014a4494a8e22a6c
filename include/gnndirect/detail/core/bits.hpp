#pragma once
/// @file bits.hpp
/// @brief Bit-range helpers shared by the sorts of every module, and the overflow-checked size
/// products every owner computes before it allocates (host-compilable).

#include <gnndirect/core/error.hpp>
#include <gnndirect/core/version.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Number of low bits that hold every value in [0, bound): the radix-sort bit range of ids.
constexpr int significant_bits(std::int64_t bound) noexcept
{
  int bits = 1;
  while (bits < 63 && (std::int64_t{1} << bits) < bound) { ++bits; }
  return bits;
}

/// True when a * b fits in std::size_t (and so in the address space).
/// @param a, b the factors  @return whether the product fits
constexpr bool product_fits(std::uint64_t a, std::uint64_t b) noexcept
{
  return a == 0 || b <= std::numeric_limits<std::size_t>::max() / a;
}

/// a * b for sizes (element counts times element bytes, rows times strides), checked before
/// anything is allocated: a product that wraps would allocate a few bytes for a huge object.
/// @param a, b the factors  @param what the caller and its product, for the message
/// (e.g. "buffer: size * sizeof(T)")  @return the product
/// @throws invalid_argument "<what> overflows" naming both factors
inline std::size_t checked_product(std::uint64_t a, std::uint64_t b, const char* what)
{
  if (!product_fits(a, b)) {
    throw invalid_argument(__FILE__, __LINE__,
                           std::string(what) + " overflows (" + std::to_string(a) + " x " + std::to_string(b) +
                             " exceeds " + std::to_string(std::numeric_limits<std::size_t>::max()) + " bytes)");
  }
  return static_cast<std::size_t>(a * b);
}

/// a + b for sizes, checked like checked_product.
/// @param a, b the terms  @param what the caller, for the message  @return the sum
/// @throws invalid_argument "<what> overflows"
inline std::size_t checked_sum(std::uint64_t a, std::uint64_t b, const char* what)
{
  if (b > std::numeric_limits<std::size_t>::max() - a) {
    throw invalid_argument(__FILE__, __LINE__,
                           std::string(what) + " overflows (" + std::to_string(a) + " + " + std::to_string(b) + ")");
  }
  return static_cast<std::size_t>(a + b);
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
