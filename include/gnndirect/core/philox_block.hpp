#pragma once
/// @file philox_block.hpp
/// @brief The values Philox4x32-10 works on: a 128-bit block and a 64-bit key (host-compilable;
/// the generator is in philox.hpp). Split from philox.hpp so that its internals
/// (detail/core/philox.hpp: the round function) can use the types before the generator exists.

#include <gnndirect/core/config.hpp>

#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN

/// 128 bits of Philox counter or output: four 32-bit words, word 0 first. A trivially copyable
/// aggregate, the same on host and device: philox_block{{w0, w1, w2, w3}}. Neither type has a
/// constructor, so a default-declared one (`philox_block b;`) is uninitialised: brace-initialise.
struct philox_block {
  std::uint32_t v[4];  ///< words 0..3
};

/// 64-bit Philox key: word 0 and word 1, i.e. philox_key{low 32 bits, high 32 bits} of a 64-bit
/// seed (as sampling_random in philox.hpp builds it).
struct philox_key {
  std::uint32_t k0;  ///< key word 0
  std::uint32_t k1;  ///< key word 1
};

GNNDIRECT_NAMESPACE_END
