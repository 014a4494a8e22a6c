#pragma once
/// @file epoch_order.hpp
/// @brief Internals of pipeline/epoch_order.hpp: the Philox counter draw behind the shuffle and
/// the batch seeds (host-compilable; not part of the API).

#include <gnndirect/core/philox.hpp>
#include <gnndirect/core/version.hpp>

#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Tags word 3 of the counter so that batch seeds and shuffle draws never share a counter, even
/// if the caller uses one seed for both.
inline constexpr std::uint32_t batch_seed_tag = 0xB5EEDu << 8;

/// 64 random bits for (key, a, b): Philox4x32-10 with counter {a lo, a hi, b lo, b hi ^ tag}.
inline std::uint64_t counter_bits(std::uint64_t key, std::uint64_t a, std::uint64_t b,
                                  std::uint32_t tag) noexcept
{
  philox_block const counter{{static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(a >> 32),
                              static_cast<std::uint32_t>(b),
                              static_cast<std::uint32_t>(b >> 32) ^ tag}};
  philox_key const k{static_cast<std::uint32_t>(key), static_cast<std::uint32_t>(key >> 32)};
  return random_bits64(philox4x32_10(counter, k));
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
