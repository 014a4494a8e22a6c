// Host tests of Philox4x32-10 (Random123 known-answer vectors) and the integer helpers built on it.
#include <doctest/doctest.h>

#include <gnndirect/detail/core/sampling_math.hpp>
#include <gnndirect/core/philox.hpp>

#include <cmath>
#include <cstdint>
#include <random>

using gnndirect::philox4x32_10;
using gnndirect::philox_block;
using gnndirect::philox_key;

namespace {

void check_block(philox_block const& actual, philox_block const& expected)
{
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(actual.v[i] == expected.v[i]);
  }
}

}  // namespace

TEST_CASE("philox4x32_10 matches the Random123 known-answer tests")
{
  check_block(philox4x32_10({{0, 0, 0, 0}}, {0, 0}),
              {{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}});
  check_block(philox4x32_10({{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}},
                            {0xffffffffu, 0xffffffffu}),
              {{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}});
  check_block(philox4x32_10({{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}},
                            {0xa4093822u, 0x299f31d0u}),
              {{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}});
}

TEST_CASE("philox4x32_10 is usable in constant expressions")
{
  constexpr philox_block zero = philox4x32_10({{0, 0, 0, 0}}, {0, 0});
  static_assert(zero.v[0] == 0x6627e8d5u);
}

TEST_CASE("sampling_random maps (seed, layer, node, draw) to the counter and key")
{
  std::uint64_t const seed = 0x299f31d0a4093822ull;
  std::uint64_t const node = 0x0370734413198a2eull;
  check_block(gnndirect::sampling_random(seed, 0x85a308d3u, node, 0x243f6a88u),
              {{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}});
}

TEST_CASE("mulhi64 equals the 128-bit product's high half")
{
  std::uint64_t const seed = std::random_device{}();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 100000; ++i) {
    std::uint64_t const a = rng();
    std::uint64_t const b = i % 3 == 0 ? ~0ull : rng() >> (i % 64);
    __extension__ using u128 = unsigned __int128;
    auto const expected = static_cast<std::uint64_t>((u128{a} * b) >> 64);
    REQUIRE(gnndirect::mulhi64(a, b) == expected);
  }
}

TEST_CASE("uniform_below stays in range and hits both ends")
{
  CHECK(gnndirect::uniform_below(0, 7) == 0);
  CHECK(gnndirect::uniform_below(~0ull, 7) == 6);
  CHECK(gnndirect::uniform_below(~0ull, 1) == 0);
  CHECK(gnndirect::uniform_below(~0ull, ~0ull) == ~0ull - 1);
}

TEST_CASE("uniform_open_closed covers (0, 1]")
{
  CHECK(gnndirect::uniform_open_closed(0) == 1.0f / 16777216.0f);
  CHECK(gnndirect::uniform_open_closed(0xffffffffu) == 1.0f);
  CHECK(gnndirect::uniform_open_closed(0x80000000u) > 0.5f);
}

TEST_CASE("neg_log2_fixed32 approximates -log2((r + 1) / 2^32) within 2^-30")
{
  using gnndirect::detail::neg_log2_fixed32;
  CHECK(neg_log2_fixed32(0xffffffffu) == 0);
  CHECK(neg_log2_fixed32(0) == std::uint64_t{32} << 32);
  CHECK(neg_log2_fixed32(0x7fffffffu) == std::uint64_t{1} << 32);
  std::mt19937 rng(std::random_device{}());
  std::uint64_t previous = ~0ull;
  for (std::uint32_t r = 0; r < 2000000; r += 1 + rng() % 4096) {
    double const exact = -std::log2((static_cast<double>(r) + 1.0) / 4294967296.0);
    double const fixed = static_cast<double>(neg_log2_fixed32(r)) / 4294967296.0;
    REQUIRE(std::fabs(fixed - exact) < 1.0 / (1u << 30));
    REQUIRE(neg_log2_fixed32(r) <= previous);  // monotone non-increasing
    previous = neg_log2_fixed32(r);
  }
  for (int i = 0; i < 100000; ++i) {
    std::uint32_t const r = static_cast<std::uint32_t>(rng());
    double const exact = -std::log2((static_cast<double>(r) + 1.0) / 4294967296.0);
    double const fixed = static_cast<double>(neg_log2_fixed32(r)) / 4294967296.0;
    REQUIRE(std::fabs(fixed - exact) < 1.0 / (1u << 30));
  }
}
