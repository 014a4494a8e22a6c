// Host tests of the link-prediction preparer's input checks (pipeline/link_options.hpp,
// check_link_setup, which link_preparer's constructor runs before it allocates anything): a
// valid set-up on fresh random seed edges passes, temporal or not, and every bad input of the
// issue (options, amounts <= 0, times missing or of the wrong length for a temporal sampler, times
// or edge ids given to a sampler that cannot use them, endpoints outside the graph) is refused
// with a message naming what was wrong.
#include <doctest/doctest.h>

#include <gnndirect/core/error.hpp>
#include <gnndirect/pipeline/link_options.hpp>

#include "support/random.hpp"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using seeds_t = gnndirect::link_seeds<std::int32_t, float>;

seeds_t random_seeds(std::mt19937_64& rng, std::int64_t count, std::int64_t num_nodes)
{
  seeds_t s;
  s.src = gnndirect::test::random_indices<std::int32_t>(rng, count, num_nodes);
  s.dst = gnndirect::test::random_indices<std::int32_t>(rng, count, num_nodes);
  for (std::int64_t i = 0; i < count; ++i) {
    s.labels.push_back(static_cast<float>(rng() % 3));
    s.times.push_back(static_cast<std::int64_t>(rng() % 1000) - 500);
    s.edge_ids.push_back(static_cast<std::int64_t>(rng() % 50) - 1);
  }
  return s;
}

void check(const gnndirect::link_options& o, const seeds_t& s, bool temporal, double amount = 1.0,
           std::int64_t num_nodes = 100)
{
  gnndirect::check_link_setup(o, s, gnndirect::binary_negatives{amount}, num_nodes, temporal);
}

}  // namespace

TEST_CASE("check_link_setup: valid inputs pass, temporal or not")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  seeds_t s = random_seeds(rng, 1 + static_cast<std::int64_t>(rng() % 500), 100);
  gnndirect::link_options const o;
  CHECK_NOTHROW(check(o, s, true));
  CHECK_NOTHROW(gnndirect::check_link_setup(o, s, gnndirect::triplet_negatives{4}, 100, true));
  s.edge_ids.clear();
  s.labels.clear();
  CHECK_NOTHROW(check(o, s, true, 0.25));
  s.times.clear();
  CHECK_NOTHROW(check(o, s, false));
  CHECK_NOTHROW(check(o, seeds_t{}, false));  // no seed edges: an epoch of no batches
}

TEST_CASE("check_link_setup: bad options, amounts and seed edges are refused by name")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  seeds_t const s = random_seeds(rng, 64, 100);
  gnndirect::link_options o;
  o.fanouts.clear();
  CHECK_THROWS_WITH_AS(check(o, s, true), doctest::Contains("at least one fanout"), gnndirect::invalid_argument);
  o.fanouts = {5, -1};
  CHECK_THROWS_WITH_AS(check(o, s, true), doctest::Contains("fanouts must be >= 0"), gnndirect::invalid_argument);
  o.fanouts = {5};
  o.batch_size = 0;
  CHECK_THROWS_WITH_AS(check(o, s, true), doctest::Contains("batch_size must be > 0"), gnndirect::invalid_argument);
  o.batch_size = 16;
  o.strict = true;
  o.max_attempts = 0;
  CHECK_THROWS_WITH_AS(check(o, s, true), doctest::Contains("max_attempts"), gnndirect::invalid_argument);
  o.max_attempts = 2;
  // Negative ratios <= 0 (and NaN), triplet amounts < 1.
  CHECK_THROWS_WITH_AS(check(o, s, true, 0.0), doctest::Contains("must be > 0"), gnndirect::invalid_argument);
  CHECK_THROWS_WITH_AS(check(o, s, true, -2.0), doctest::Contains("must be > 0"), gnndirect::invalid_argument);
  CHECK_THROWS_AS(check(o, s, true, std::nan("")), gnndirect::invalid_argument);
  CHECK_THROWS_WITH_AS(gnndirect::check_link_setup(o, s, gnndirect::triplet_negatives{0}, 100, true),
                       doctest::Contains(">= 1"), gnndirect::invalid_argument);
  CHECK_THROWS_WITH_AS(check(o, s, true, 1.0, 0), doctest::Contains("no nodes"), gnndirect::invalid_argument);
  // Seed edges: lengths, times, edge ids, endpoints outside the graph.
  seeds_t bad = s;
  bad.dst.pop_back();
  CHECK_THROWS_WITH_AS(check(o, bad, true), doctest::Contains("64 sources and 63 destinations"),
                       gnndirect::invalid_argument);
  bad = s;
  bad.labels.resize(3);
  CHECK_THROWS_WITH_AS(check(o, bad, true), doctest::Contains("3 labels for 64"), gnndirect::invalid_argument);
  bad = s;
  bad.times.clear();
  CHECK_THROWS_WITH_AS(check(o, bad, true), doctest::Contains("seed edges without times"), gnndirect::invalid_argument);
  bad.times.resize(65);
  CHECK_THROWS_WITH_AS(check(o, bad, true), doctest::Contains("has 65 for 64"), gnndirect::invalid_argument);
  CHECK_THROWS_WITH_AS(check(o, s, false), doctest::Contains("not a temporal_sampler"), gnndirect::invalid_argument);
  bad = s;
  bad.times.clear();
  CHECK_THROWS_WITH_AS(check(o, bad, false), doctest::Contains("needs a temporal_sampler"),
                       gnndirect::invalid_argument);
  bad = s;
  bad.edge_ids.resize(10);
  CHECK_THROWS_WITH_AS(check(o, bad, true), doctest::Contains("10 ids for 64"), gnndirect::invalid_argument);
  bad = s;
  bad.edge_ids[9] = -2;
  CHECK_THROWS_WITH_AS(check(o, bad, true), doctest::Contains("edge_ids[9] = -2"), gnndirect::invalid_argument);
  bad = s;
  bad.src[5] = 100;
  CHECK_THROWS_WITH_AS(check(o, bad, true), doctest::Contains("link_seeds::src[5] = 100"),
                       gnndirect::index_out_of_range);
  bad = s;
  bad.dst[40] = -3;
  CHECK_THROWS_WITH_AS(check(o, bad, true), doctest::Contains("link_seeds::dst[40] = -3"),
                       gnndirect::index_out_of_range);
}
