// Host tests of negative sampling (algorithms/negative_sampling.hpp): negative_count and its bad
// amounts; resolve_negative (the rule the GPU kernel runs per negative) against the independent
// host implementation (test/support/negative_reference.hpp) on fresh random graphs, binary and
// triplet, strict or not; strict negatives are never edges unless counted unresolved, and a node
// connected to every node yields exactly max_attempts draws per negative, then the last one kept.
// Two ranges (typed, bipartite relations): the uniform sampler's two-range draw against Philox
// words computed here, its one-range draw equal to the two-range one with equal ranges, and
// resolve_negative with negative_options::num_dst_nodes against the reference on random
// bipartite relations (num_src != num_dst, both ways round).
#include <doctest/doctest.h>

#include <gnndirect/algorithms/negative_sampling.hpp>
#include <gnndirect/core/error.hpp>

#include "support/negative_reference.hpp"
#include "support/random.hpp"

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace {

using gnndirect::test::sorted_graph;

template <class Mode>
gnndirect::test::negative_result<std::int32_t> run_rule(const sorted_graph<std::int64_t, std::int32_t>& g,
                                                        const std::vector<std::int32_t>& src, const Mode& mode,
                                                        const gnndirect::negative_options& options)
{
  gnndirect::test::negative_result<std::int32_t> r;
  std::int64_t const count = gnndirect::negative_count(mode, static_cast<std::int64_t>(src.size()));
  for (std::int64_t k = 0; k < count; ++k) {
    auto const x = gnndirect::resolve_negative(g.view(), src.data(), mode, gnndirect::uniform_negative_sampler{},
                                               options, k);
    r.src.push_back(x.pair.src);
    r.dst.push_back(x.pair.dst);
    r.unresolved += x.unresolved ? 1 : 0;
  }
  return r;
}

TEST_CASE("negative_count: PyG's amounts; bad amounts are refused")
{
  CHECK(gnndirect::negative_count(gnndirect::binary_negatives{1.0}, 10) == 10);
  CHECK(gnndirect::negative_count(gnndirect::binary_negatives{0.25}, 10) == 3);  // ceil
  CHECK(gnndirect::negative_count(gnndirect::binary_negatives{2.5}, 0) == 0);
  CHECK(gnndirect::negative_count(gnndirect::triplet_negatives{3}, 7) == 21);
  CHECK_THROWS_AS(gnndirect::negative_count(gnndirect::binary_negatives{0.0}, 10), gnndirect::invalid_argument);
  CHECK_THROWS_AS(gnndirect::negative_count(gnndirect::binary_negatives{-1.0}, 10), gnndirect::invalid_argument);
  CHECK_THROWS_AS(gnndirect::negative_count(gnndirect::binary_negatives{std::nan("")}, 10), gnndirect::invalid_argument);
  CHECK_THROWS_AS(gnndirect::negative_count(gnndirect::triplet_negatives{0}, 10), gnndirect::invalid_argument);
  CHECK_THROWS_AS(gnndirect::negative_count(gnndirect::triplet_negatives{1}, -1), gnndirect::invalid_argument);
  CHECK_THROWS_WITH_AS(gnndirect::negative_count(gnndirect::binary_negatives{-2.0}, 3),
                       doctest::Contains("binary amount"), gnndirect::invalid_argument);
}

TEST_CASE("resolve_negative equals the host implementation; strict negatives avoid edges")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  sorted_graph<std::int64_t, std::int32_t> const g(rng, 500);
  auto src = gnndirect::test::random_indices<std::int32_t>(rng, 300, 500);
  src[0] = 0;  // connected to every node: strict triplet draws from it never resolve
  for (bool strict : {false, true}) {
    CAPTURE(strict);
    gnndirect::negative_options const options{rng(), static_cast<std::int64_t>(rng() % 1000), strict, 5};
    auto const bin = run_rule(g, src, gnndirect::binary_negatives{1.7}, options);
    auto const want_bin = gnndirect::test::negatives_reference(g, src, 1.7, 0, options.seed, options.batch, strict, 5);
    CHECK(bin.src == want_bin.src);
    CHECK(bin.dst == want_bin.dst);
    CHECK(bin.unresolved == want_bin.unresolved);
    CHECK(bin.src.size() == 510);
    auto const tri = run_rule(g, src, gnndirect::triplet_negatives{4}, options);
    auto const want_tri = gnndirect::test::negatives_reference(g, src, 0, 4, options.seed, options.batch, strict, 5);
    CHECK(tri.src == want_tri.src);
    CHECK(tri.dst == want_tri.dst);
    CHECK(tri.unresolved == want_tri.unresolved);
    std::int64_t edges = 0;
    for (std::size_t k = 0; k < tri.src.size(); ++k) {
      CHECK(tri.src[k] == src[k / 4]);
      edges += g.has(tri.src[k], tri.dst[k]);
    }
    if (strict) {
      // Node 0's four negatives stay edges (counted); a kept draw is an edge exactly when it is
      // unresolved.
      CHECK(tri.unresolved >= 4);
      CHECK(edges == tri.unresolved);
    } else {
      CHECK(tri.unresolved == 0);
    }
  }
}

TEST_CASE("uniform_negative_sampler: the two-range draw maps words 0-1 to [0, num_src), 2-3 to [0, num_dst)")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  static_assert(gnndirect::negative_sampler_has_two_ranges<gnndirect::uniform_negative_sampler, std::int32_t>);
  static_assert(gnndirect::negative_sampler_has_two_ranges<gnndirect::uniform_negative_sampler, std::int64_t>);
  gnndirect::uniform_negative_sampler const sampler{};
  for (int trial = 0; trial < 2000; ++trial) {
    std::uint64_t const key = rng();
    auto const batch = static_cast<std::int64_t>(rng() % 100000);
    auto const k = static_cast<std::int64_t>(rng() % (std::uint64_t{1} << 40));
    auto const attempt = static_cast<std::uint32_t>(rng() % 8);
    auto const num_src = static_cast<std::int64_t>(1 + rng() % 5000);
    auto const num_dst = static_cast<std::int64_t>(1 + rng() % 70000);
    auto const words = gnndirect::philox4x32_10(
      gnndirect::philox_block{{static_cast<std::uint32_t>(k & 0xFFFFFFFF), static_cast<std::uint32_t>(k >> 32),
                               static_cast<std::uint32_t>(batch), attempt}},
      gnndirect::philox_key{static_cast<std::uint32_t>(key & 0xFFFFFFFF), static_cast<std::uint32_t>(key >> 32)});
    std::uint64_t const w01 = std::uint64_t{words.v[0]} | (std::uint64_t{words.v[1]} << 32);
    std::uint64_t const w23 = std::uint64_t{words.v[2]} | (std::uint64_t{words.v[3]} << 32);
    auto const p = sampler.draw<std::int64_t>(key, batch, k, attempt, num_src, num_dst, -1);
    CHECK(static_cast<std::uint64_t>(p.src) == gnndirect::uniform_below(w01, static_cast<std::uint64_t>(num_src)));
    CHECK(static_cast<std::uint64_t>(p.dst) == gnndirect::uniform_below(w23, static_cast<std::uint64_t>(num_dst)));
    CHECK((p.src >= 0 && p.src < num_src && p.dst >= 0 && p.dst < num_dst));
    auto const fixed = sampler.draw<std::int32_t>(key, batch, k, attempt, num_src, num_dst, 7);
    CHECK(fixed.src == 7);
    CHECK(fixed.dst == p.dst);
    // The one-range draw is the two-range draw with equal ranges: the same bits.
    auto const one = sampler.draw<std::int64_t>(key, batch, k, attempt, num_dst, -1);
    auto const two = sampler.draw<std::int64_t>(key, batch, k, attempt, num_dst, num_dst, -1);
    CHECK(one.src == two.src);
    CHECK(one.dst == two.dst);
  }
  gnndirect::negative_options options;
  CHECK(options.num_dst_nodes == -1);
  CHECK(gnndirect::negative_dst_count(options, 12) == 12);
  options.num_dst_nodes = 5;
  CHECK(gnndirect::negative_dst_count(options, 12) == 5);
  options.num_dst_nodes = 0;
  CHECK(gnndirect::negative_dst_count(options, 12) == 0);
}

TEST_CASE("resolve_negative with two ranges equals the host implementation on bipartite relations")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (auto const& ranges : {std::pair<std::int64_t, std::int64_t>{300, 1700}, {900, 37}, {1, 60}}) {
    std::int64_t const num_src = ranges.first;
    std::int64_t const num_dst = ranges.second;
    CAPTURE(num_src);
    CAPTURE(num_dst);
    sorted_graph<std::int64_t, std::int32_t> const g(rng, num_src, num_dst);
    auto src = gnndirect::test::random_indices<std::int32_t>(rng, 250, num_src);
    src[0] = 0;  // connected to every destination: strict triplet draws from it never resolve
    for (bool strict : {false, true}) {
      CAPTURE(strict);
      gnndirect::negative_options options{rng(), static_cast<std::int64_t>(rng() % 1000), strict, 6};
      options.num_dst_nodes = num_dst;
      auto const bin = run_rule(g, src, gnndirect::binary_negatives{1.3}, options);
      auto const want_bin =
        gnndirect::test::negatives_reference(g, src, 1.3, 0, options.seed, options.batch, strict, 6);
      CHECK(bin.src == want_bin.src);
      CHECK(bin.dst == want_bin.dst);
      CHECK(bin.unresolved == want_bin.unresolved);
      std::int64_t bin_edges = 0;
      for (std::size_t k = 0; k < bin.src.size(); ++k) {
        CHECK((bin.src[k] >= 0 && bin.src[k] < num_src && bin.dst[k] >= 0 && bin.dst[k] < num_dst));
        bin_edges += g.has(bin.src[k], bin.dst[k]);
      }
      CHECK(bin_edges == (strict ? bin.unresolved : bin_edges));
      auto const tri = run_rule(g, src, gnndirect::triplet_negatives{3}, options);
      auto const want_tri = gnndirect::test::negatives_reference(g, src, 0, 3, options.seed, options.batch, strict, 6);
      CHECK(tri.src == want_tri.src);
      CHECK(tri.dst == want_tri.dst);
      CHECK(tri.unresolved == want_tri.unresolved);
      std::int64_t edges = 0;
      for (std::size_t k = 0; k < tri.src.size(); ++k) {
        CHECK(tri.src[k] == src[k / 3]);
        CHECK((tri.dst[k] >= 0 && tri.dst[k] < num_dst));
        edges += g.has(tri.src[k], tri.dst[k]);
      }
      if (strict) {
        CHECK(tri.unresolved >= 3);
        CHECK(edges == tri.unresolved);
      } else {
        CHECK(tri.unresolved == 0);
      }
      // num_dst_nodes = -1 is the one-range form: destinations over [0, num_src).
      if (num_src == num_dst) { continue; }
      gnndirect::negative_options one = options;
      one.num_dst_nodes = -1;
      one.strict = false;
      auto const homo = run_rule(g, src, gnndirect::binary_negatives{1.0}, one);
      for (std::size_t k = 0; k < homo.dst.size(); ++k) { CHECK((homo.dst[k] >= 0 && homo.dst[k] < num_src)); }
    }
  }
}

}  // namespace
