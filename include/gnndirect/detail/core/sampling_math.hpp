#pragma once
/// @file sampling_math.hpp
/// @brief The random draws and weighted keys of neighbour sampling, shared by the GPU sampler and
/// the host reference so that both compute them with the very same operations (host-compilable).
///
/// Bit-exactness rules: integers only, except one correctly rounded double division for weighted
/// keys (IEEE on both sides; device code uses __ddiv_rn so no contraction or approximation can
/// apply). Library logf/expf are not used: the CUDA and glibc versions differ in the last ulp.

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/philox.hpp>

#include <cstdint>
#include <cstring>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Number of leading zero bits of a non-zero 32-bit value.
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE int count_leading_zeros32(std::uint32_t x) noexcept
{
#if defined(__CUDA_ARCH__)
  return __clz(static_cast<int>(x));
#else
  return __builtin_clz(x);
#endif
}

/// -log2(u) for u = (r + 1) / 2^32 in (0, 1], as an unsigned fixed-point number with 32 fraction
/// bits (so in [0, 32 * 2^32]). Integer-only (exponent from the leading-zero count, fraction bit
/// by bit by repeated squaring of the normalised mantissa), hence identical on every platform;
/// absolute error below 2^-30 (truncation in each of the 32 squarings), monotone non-increasing in r.
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE std::uint64_t neg_log2_fixed32(std::uint32_t r) noexcept
{
  std::uint64_t const x = std::uint64_t{r} + 1;  // in [1, 2^32]
  if (x == (std::uint64_t{1} << 32)) { return 0; }
  int const exponent = 31 - count_leading_zeros32(static_cast<std::uint32_t>(x));
  std::uint64_t mantissa = x << (31 - exponent);  // Q1.31 in [1, 2)
  std::uint64_t fraction = 0;
  for (int bit = 0; bit < 32; ++bit) {
    mantissa = (mantissa * mantissa) >> 31;  // square: < 2^64 since mantissa < 2^32
    fraction <<= 1;
    if (mantissa >= (std::uint64_t{1} << 32)) {  // square >= 2: this fraction bit is 1
      mantissa >>= 1;
      fraction |= 1;
    }
  }
  std::uint64_t const log2_x = (static_cast<std::uint64_t>(exponent) << 32) | fraction;
  return (std::uint64_t{32} << 32) - log2_x;
}

/// Correctly rounded double division a / b, the same on host and device.
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE double divide_rn(double a, double b) noexcept
{
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}

/// Bit pattern of a non-negative double; orders like the value itself.
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE std::uint64_t double_bits(double value) noexcept
{
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint64_t>(__double_as_longlong(value));
#else
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
#endif
}

/// True when an edge weight makes the edge eligible for weighted sampling (w > 0; false for NaN).
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE bool is_eligible_weight(float weight) noexcept
{
  return weight > 0.0f;
}

/// Weighted-sampling key of the edge at `position` of `node`'s list (weight > 0): the bits of
/// -log2(u) / w with u from draw `position`. An exponential variate of rate w ln 2; the fanout
/// smallest keys form a weighted sample without replacement (Efraimidis-Spirakis).
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE std::uint64_t weighted_key(std::uint64_t seed,
                                                                       std::uint32_t layer,
                                                                       std::uint64_t node,
                                                                       std::int64_t position,
                                                                       float weight) noexcept
{
  philox_block const bits =
    sampling_random(seed, layer, node, static_cast<std::uint32_t>(position));
  auto const neg_log2 = static_cast<double>(neg_log2_fixed32(bits.v[0]));  // exact: < 2^38
  return double_bits(divide_rn(neg_log2, static_cast<double>(weight)));
}

/// Strict order of (key, position) pairs: by key, ties by position. Positions are distinct within
/// one list, so this is a total order and the top-k set is unique.
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE bool key_position_less(std::uint64_t key_a,
                                                                   std::int64_t position_a,
                                                                   std::uint64_t key_b,
                                                                   std::int64_t position_b) noexcept
{
  return key_a < key_b || (key_a == key_b && position_a < position_b);
}

/// Floyd's draw j (0 <= j < fanout < degree): a uniform candidate position in
/// [0, degree - fanout + j].
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE std::int64_t floyd_candidate(
  std::uint64_t seed, std::uint32_t layer, std::uint64_t node, std::int64_t j, std::int64_t degree,
  std::int64_t fanout) noexcept
{
  auto const bound = static_cast<std::uint64_t>(degree - fanout + j + 1);
  philox_block const bits = sampling_random(seed, layer, node, static_cast<std::uint32_t>(j));
  return static_cast<std::int64_t>(uniform_below(random_bits64(bits), bound));
}

/// Draw j of sampling with replacement: a uniform position in [0, degree) (degree >= 1).
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE std::int64_t replacement_draw(std::uint64_t seed,
                                                                          std::uint32_t layer,
                                                                          std::uint64_t node,
                                                                          std::int64_t j,
                                                                          std::int64_t degree) noexcept
{
  philox_block const bits = sampling_random(seed, layer, node, static_cast<std::uint32_t>(j));
  return static_cast<std::int64_t>(
    uniform_below(random_bits64(bits), static_cast<std::uint64_t>(degree)));
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
