// Host tests of negative sampling (algorithms/negative_sampling.hpp): negative_count and its bad
// amounts; resolve_negative (the rule the GPU kernel runs per negative) against the independent
// host implementation (test/support/negative_reference.hpp) on fresh random graphs, binary and
// triplet, strict or not; strict negatives are never edges unless counted unresolved, and a node
// connected to every node yields exactly max_attempts draws per negative, then the last one kept.
#include <doctest/doctest.h>

#include <gnndirect/algorithms/negative_sampling.hpp>
#include <gnndirect/core/error.hpp>

#include "support/negative_reference.hpp"
#include "support/random.hpp"

#include <cstdint>
#include <random>
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

}  // namespace
