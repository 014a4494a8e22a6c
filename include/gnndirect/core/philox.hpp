#pragma once
/// @file philox.hpp
/// @brief Philox4x32-10 counter-based random numbers, identical on host and device (host-compilable).
///
/// Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as 1, 2, 3",
/// SC 2011) maps a 128-bit counter and a 64-bit key to 128 random bits with ten rounds of two
/// 32x32->64 multiplies and xors. It is a pure function: every GPU thread can draw the random
/// number it needs directly from (seed, layer, node, draw), so sampled neighbours depend neither
/// on the launch configuration nor on thread scheduling, and the host reference reproduces them
/// bit for bit. Only integer arithmetic is used; the helpers below stay integer as well.

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/philox_block.hpp>
#include <gnndirect/detail/core/philox.hpp>

#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN

/// Philox4x32-10 of `counter` under `key`: 10 rounds, the key bumped by the Weyl constants
/// between rounds. Matches the Random123 known-answer tests. Pure; host and device.
/// @param counter the block to encrypt  @param key the key  @return the random block
GNNDIRECT_HOST_DEVICE constexpr philox_block philox4x32_10(philox_block counter,
                                                           philox_key key) noexcept;

/// The 128 random bits used by neighbour sampling for one draw.
///
/// Key = the 64-bit seed; counter = {draw, layer, node low word, node high word}. Every
/// (seed, layer, node, draw) gets its own independent block, so the same node sampled twice (in
/// one batch or in two launches) draws the same numbers.
/// @param seed user seed (sampling_policy::seed)  @param layer sampling layer (hop) index
/// @param node global node id (as unsigned)  @param draw index of the draw for this node
/// @return the block
GNNDIRECT_HOST_DEVICE constexpr philox_block sampling_random(std::uint64_t seed, std::uint32_t layer,
                                                             std::uint64_t node,
                                                             std::uint32_t draw) noexcept;

/// Words 0 (low) and 1 (high) of a block as one uniformly distributed 64-bit integer.
/// @param block the block  @return the bits
GNNDIRECT_HOST_DEVICE constexpr std::uint64_t random_bits64(philox_block block) noexcept;

/// High 64 bits of the 128-bit product a * b (portable, exact; one instruction on the device).
/// @param a, b the factors  @return the high word
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE constexpr std::uint64_t mulhi64(std::uint64_t a,
                                                                           std::uint64_t b) noexcept;

/// Maps 64 uniform random bits to a uniform integer in [0, n) (n >= 1) by Lemire's
/// multiply-high, without the rejection step: each value has probability floor(2^64 / n) / 2^64
/// or one ulp (2^-64) more, a bias below 2^-64 * n that no sampling statistic can observe for
/// any realistic n (e.g. < 1e-10 relative for n = 2^30), and it keeps one draw per sample, which is
/// what makes the GPU and the host reference consume identical counters.
/// @param bits the random bits  @param n the bound (>= 1)  @return a value in [0, n)
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE constexpr std::uint64_t uniform_below(
  std::uint64_t bits, std::uint64_t n) noexcept;

/// Maps 32 random bits to a float uniform on (0, 1]: (floor(bits / 2^8) + 1) * 2^-24, exact in
/// binary32 (24-bit grid), never 0, so that logarithms of it are finite.
/// @param bits the random bits  @return the float
GNNDIRECT_HOST_DEVICE GNNDIRECT_FORCEINLINE constexpr float uniform_open_closed(std::uint32_t bits) noexcept;

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/core/philox.inl>
