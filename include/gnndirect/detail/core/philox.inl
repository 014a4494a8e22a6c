#pragma once
// Definitions of core/philox.hpp (included at its end; not part of the API).

GNNDIRECT_NAMESPACE_BEGIN

GNNDIRECT_HOST_DEVICE constexpr philox_block philox4x32_10(philox_block counter,
                                                           philox_key key) noexcept
{
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key.k0 += detail::philox_w0;
      key.k1 += detail::philox_w1;
    }
    counter = detail::philox_round(counter, key);
  }
  return counter;
}

GNNDIRECT_HOST_DEVICE constexpr philox_block sampling_random(std::uint64_t seed, std::uint32_t layer,
                                                             std::uint64_t node,
                                                             std::uint32_t draw) noexcept
{
  return philox4x32_10(
    philox_block{{draw, layer, static_cast<std::uint32_t>(node), static_cast<std::uint32_t>(node >> 32)}},
    philox_key{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
}

GNNDIRECT_HOST_DEVICE constexpr std::uint64_t random_bits64(philox_block block) noexcept
{
  return (std::uint64_t{block.v[1]} << 32) | block.v[0];
}

GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE constexpr std::uint64_t mulhi64(std::uint64_t a,
                                                                           std::uint64_t b) noexcept
{
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  std::uint64_t const a_lo = a & 0xFFFFFFFFu;
  std::uint64_t const a_hi = a >> 32;
  std::uint64_t const b_lo = b & 0xFFFFFFFFu;
  std::uint64_t const b_hi = b >> 32;
  std::uint64_t const lo_lo = a_lo * b_lo;
  std::uint64_t const hi_lo = a_hi * b_lo;
  std::uint64_t const lo_hi = a_lo * b_hi;
  std::uint64_t const cross = (lo_lo >> 32) + (hi_lo & 0xFFFFFFFFu) + lo_hi;  // cannot overflow
  return a_hi * b_hi + (hi_lo >> 32) + (cross >> 32);
#endif
}

GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE constexpr std::uint64_t uniform_below(
  std::uint64_t bits, std::uint64_t n) noexcept
{
  return mulhi64(bits, n);
}

GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE constexpr float uniform_open_closed(std::uint32_t bits) noexcept
{
  return static_cast<float>((bits >> 8) + 1u) * (1.0f / 16777216.0f);
}

GNNDIRECT_NAMESPACE_END
