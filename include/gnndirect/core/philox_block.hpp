#pragma once
/// @file philox_block.hpp
/// @brief The values Philox4x32-10 works on: a 128-bit block and a 64-bit key (host-compilable;
/// the generator is in philox.hpp).

#include <gnndirect/core/config.hpp>

#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN

/// 128 bits of Philox counter or output: four 32-bit words, word 0 first.
struct philox_block {
  std::uint32_t v[4];  ///< words 0..3
};

/// 64-bit Philox key: word 0 and word 1.
struct philox_key {
  std::uint32_t k0;  ///< key word 0
  std::uint32_t k1;  ///< key word 1
};

GNNDIRECT_NAMESPACE_END
