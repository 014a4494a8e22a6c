// Host tests of the fast CPU data path: worker_pool, cpu_sampler (structure of every sampled
// block checked against the CSR on fresh random graphs, relabelling order rebuilt independently,
// determinism across thread counts, chi-square uniformity with fixed seeds, errors) and
// gather_rows.
#include <doctest/doctest.h>

#include <gnndirect/device/samplers.hpp>
#include <gnndirect/host/cpu_gather.hpp>
#include <gnndirect/host/cpu_sampler.hpp>
#include <gnndirect/util/worker_pool.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <vector>

using gnndirect::csr_view;
using gnndirect::host::cpu_blocks;
using gnndirect::host::cpu_neighbors;
using gnndirect::host::cpu_sampler;
using gnndirect::host::worker_pool;

namespace {

/// Host CSR owning its arrays: random degrees in [0, max_degree] (some nodes isolated, some
/// above any fanout), random neighbours (repeats allowed), optional permuted edge ids.
template <class Offset, class Index>
struct random_graph {
  std::vector<Offset> indptr{0};
  std::vector<Index> indices;
  std::vector<Offset> edge_ids;

  random_graph(std::int64_t nodes, int max_degree, std::uint64_t seed, bool with_edge_ids)
  {
    std::mt19937_64 rng(seed);
    for (std::int64_t v = 0; v < nodes; ++v) {
      auto const degree = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(max_degree + 1));
      for (std::int64_t k = 0; k < degree; ++k) {
        indices.push_back(static_cast<Index>(rng() % static_cast<std::uint64_t>(nodes)));
      }
      indptr.push_back(static_cast<Offset>(indices.size()));
    }
    if (with_edge_ids) {
      edge_ids.resize(indices.size());
      for (std::size_t e = 0; e < edge_ids.size(); ++e) { edge_ids[e] = static_cast<Offset>(e * 7 + 3); }
    }
  }
  csr_view<Offset, Index> view() const
  {
    csr_view<Offset, Index> v;
    v.indptr = indptr.data();
    v.indices = indices.data();
    v.edge_ids = edge_ids.empty() ? nullptr : edge_ids.data();
    v.num_nodes = static_cast<std::int64_t>(indptr.size()) - 1;
    v.num_edges = static_cast<std::int64_t>(indices.size());
    return v;
  }
  /// Position of the edge with id `id` (ids are 7e + 3 when present, else positions).
  std::int64_t position_of(Offset id) const
  {
    if (edge_ids.empty()) { return static_cast<std::int64_t>(id); }
    return (static_cast<std::int64_t>(id) - 3) % 7 == 0 ? (static_cast<std::int64_t>(id) - 3) / 7 : -1;
  }
};

template <class Index>
std::vector<Index> random_seeds(std::int64_t count, std::int64_t nodes, std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  std::vector<Index> seeds(static_cast<std::size_t>(count));
  for (auto& s : seeds) { s = static_cast<Index>(rng() % static_cast<std::uint64_t>(nodes)); }
  return seeds;
}

/// Calls f with the CPU sampler's sampler for `replace`, keyed by `seed`.
template <class F>
void with_sampler(bool replace, std::uint64_t seed, F f)
{
  if (replace) {
    f(gnndirect::uniform_with_replacement_sampler{seed});
  } else {
    f(gnndirect::uniform_sampler{seed});
  }
}

/// Checks the relabelling when the order is not first appearance (parallel layers): new src
/// nodes are distinct, not dst nodes, and exactly the sampled neighbours outside the dst set.
template <class Offset, class Index, class Block>
void check_src_set(const random_graph<Offset, Index>& g, const Block& b)
{
  auto const num_dst = static_cast<std::size_t>(b.num_dst());
  std::set<Index> const dst(b.dst_nodes.begin(), b.dst_nodes.end());
  std::set<Index> expected;
  for (auto id : b.edge_ids) {
    Index const u = g.indices[static_cast<std::size_t>(g.position_of(id))];
    if (dst.count(u) == 0) { expected.insert(u); }
  }
  std::vector<Index> tail(b.src_nodes.begin() + static_cast<std::ptrdiff_t>(num_dst), b.src_nodes.end());
  std::set<Index> const got(tail.begin(), tail.end());
  CHECK(got.size() == tail.size());  // no duplicates
  CHECK(got == expected);
}

/// Checks one block against the graph: sizes, offsets, edges exist, without-replacement
/// distinctness, all neighbours when degree <= fanout, and the relabelling: always
/// src_nodes[indices[e]] == the sampled neighbour; with `exact`, also the first-appearance order
/// (rebuilt here independently with a std::map), else the src set (check_src_set).
template <class Offset, class Index, class Block>
void check_block(const random_graph<Offset, Index>& g, const Block& b, int fanout, bool replace, bool exact)
{
  auto const num_dst = static_cast<std::size_t>(b.num_dst());
  REQUIRE(b.offsets.size() == num_dst + 1);
  REQUIRE(b.offsets[0] == 0);
  REQUIRE(b.edge_ids.size() == b.indices.size());
  REQUIRE(static_cast<std::int64_t>(b.indices.size()) == b.offsets[num_dst]);
  REQUIRE(b.src_nodes.size() >= num_dst);
  for (std::size_t d = 0; d < num_dst; ++d) { REQUIRE(b.src_nodes[d] == b.dst_nodes[d]); }

  std::map<Index, Index> local;  // independent relabelling: first occurrence wins
  for (std::size_t d = 0; d < num_dst; ++d) { local.emplace(b.dst_nodes[d], static_cast<Index>(d)); }
  std::vector<Index> expected_src(b.dst_nodes.begin(), b.dst_nodes.end());
  for (std::size_t d = 0; d < num_dst; ++d) {
    auto const v = static_cast<std::int64_t>(b.dst_nodes[d]);
    std::int64_t const degree = g.indptr[static_cast<std::size_t>(v) + 1] - g.indptr[static_cast<std::size_t>(v)];
    std::int64_t const count = b.offsets[d + 1] - b.offsets[d];
    CHECK(count == (replace ? (degree > 0 ? fanout : 0) : std::min<std::int64_t>(degree, fanout)));
    std::set<std::int64_t> positions;
    for (std::int64_t e = b.offsets[d]; e < b.offsets[d + 1]; ++e) {
      auto const es = static_cast<std::size_t>(e);
      std::int64_t const p = g.position_of(b.edge_ids[es]);
      REQUIRE(p >= static_cast<std::int64_t>(g.indptr[static_cast<std::size_t>(v)]));
      REQUIRE(p < static_cast<std::int64_t>(g.indptr[static_cast<std::size_t>(v) + 1]));
      Index const u = g.indices[static_cast<std::size_t>(p)];
      REQUIRE(b.indices[es] >= 0);
      REQUIRE(static_cast<std::size_t>(b.indices[es]) < b.src_nodes.size());
      REQUIRE(b.src_nodes[static_cast<std::size_t>(b.indices[es])] == u);
      auto const inserted = local.emplace(u, static_cast<Index>(expected_src.size()));
      if (inserted.second) { expected_src.push_back(u); }
      if (exact) { REQUIRE(b.indices[es] == inserted.first->second); }  // local id, first occurrence
      positions.insert(p);
    }
    if (!replace) {
      CHECK(static_cast<std::int64_t>(positions.size()) == count);  // no duplicates
      if (degree <= fanout) { CHECK(static_cast<std::int64_t>(positions.size()) == degree); }
    }
  }
  REQUIRE(b.src_nodes.size() == expected_src.size());
  if (exact) {
    CHECK(std::equal(expected_src.begin(), expected_src.end(), b.src_nodes.begin()));
  } else {
    check_src_set(g, b);
  }
}

template <class Offset, class Index>
void check_blocks(const random_graph<Offset, Index>& g, const std::vector<Index>& seeds,
                  const cpu_blocks<Offset, Index>& out, const std::vector<int>& fanouts, bool replace,
                  bool exact)
{
  REQUIRE(out.layers.size() == fanouts.size());
  CHECK(std::equal(seeds.begin(), seeds.end(), out.layers[0].dst_nodes.begin(), out.layers[0].dst_nodes.end()));
  for (std::size_t l = 0; l < fanouts.size(); ++l) {
    if (l > 0) {
      auto const& prev = out.layers[l - 1].src_nodes;
      CHECK(std::equal(prev.begin(), prev.end(), out.layers[l].dst_nodes.begin(), out.layers[l].dst_nodes.end()));
    }
    check_block(g, out.layers[l], fanouts[l], replace, exact);
  }
}

template <class Offset, class Index>
bool same_blocks(const cpu_blocks<Offset, Index>& a, const cpu_blocks<Offset, Index>& b)
{
  if (a.layers.size() != b.layers.size()) { return false; }
  for (std::size_t l = 0; l < a.layers.size(); ++l) {
    auto const& x = a.layers[l];
    auto const& y = b.layers[l];
    if (x.src_nodes != y.src_nodes || x.offsets != y.offsets || x.indices != y.indices ||
        x.edge_ids != y.edge_ids || x.dst_nodes != y.dst_nodes) {
      return false;
    }
  }
  return true;
}

/// Order-free view of a sample: per layer, each dst global id's sampled edge ids, and the src set.
template <class Offset, class Index>
std::vector<std::pair<std::map<Index, std::vector<Offset>>, std::set<Index>>>
canonical(const cpu_blocks<Offset, Index>& blocks)
{
  std::vector<std::pair<std::map<Index, std::vector<Offset>>, std::set<Index>>> out;
  for (auto const& b : blocks.layers) {
    out.emplace_back();
    for (std::size_t d = 0; d < b.dst_nodes.size(); ++d) {
      std::vector<Offset> edges(b.edge_ids.begin() + b.offsets[d], b.edge_ids.begin() + b.offsets[d + 1]);
      auto const inserted = out.back().first.emplace(b.dst_nodes[d], edges);
      if (!inserted.second) { CHECK(inserted.first->second == edges); }  // same samples per node
    }
    out.back().second.insert(b.src_nodes.begin(), b.src_nodes.end());
  }
  return out;
}

/// Upper chi-square quantile (Wilson-Hilferty) for df degrees of freedom at normal quantile z.
double chi_square_bound(double df, double z)
{
  double const a = 2.0 / (9.0 * df);
  return df * std::pow(1.0 - a + z * std::sqrt(a), 3.0);
}

}  // namespace

TEST_CASE("worker_pool runs every task once, rethrows, and nests inline")
{
  worker_pool pool(4);
  CHECK(pool.size() == 4);
  for (std::int64_t tasks : {0, 1, 3, 1000}) {
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(tasks));
    for (auto& h : hits) { h = -5; }  // poison
    for (auto& h : hits) { h = 0; }
    pool.run(tasks, [&](std::int64_t t, int worker) {
      REQUIRE(worker >= 0);
      REQUIRE(worker < 4);
      hits[static_cast<std::size_t>(t)]++;
    });
    for (auto& h : hits) { CHECK(h.load() == 1); }
  }
  CHECK_THROWS_AS(pool.run(100, [](std::int64_t t, int) {
                    if (t == 37) { throw std::runtime_error("task 37"); }
                  }),
                  std::runtime_error);
  std::atomic<std::int64_t> sum{0};
  pool.run(8, [&](std::int64_t, int) { pool.run(10, [&](std::int64_t u, int) { sum += u; }); });
  CHECK(sum.load() == 8 * 45);
}

TEST_CASE_TEMPLATE("cpu_sampler blocks are valid on fresh random graphs", T,
                   std::pair<std::int32_t, std::int32_t>, std::pair<std::int64_t, std::int64_t>,
                   std::pair<std::int64_t, std::int32_t>)
{
  using Offset = typename T::first_type;
  using Index = typename T::second_type;
  std::vector<int> const fanouts{5, 3, 2};
  for (bool replace : {false, true}) {
    for (std::uint64_t trial = 0; trial < 3; ++trial) {
      random_graph<Offset, Index> const g(3000, 12, 100 + trial, trial % 2 == 0);
      // 1537 seeds: layer 0 below the parallel-relabel threshold; 6145: above it, with repeats.
      auto seeds = random_seeds<Index>(trial == 2 ? 6144 : 1536, 3000, 7 + trial);  // + 1: a lone last chunk
      seeds.push_back(seeds[3]);  // a repeated seed
      auto const n = static_cast<std::int64_t>(seeds.size());
      with_sampler(replace, 42 + trial, [&](auto const policy) {
      cpu_sampler one(1);
      cpu_sampler four(4);
      cpu_blocks<Offset, Index> a;
      cpu_blocks<Offset, Index> b;
      // Poison: earlier, larger results left in the reused outputs (and marks to forget).
      auto const other = random_seeds<Index>(2500, 3000, 999);
      one.sample_blocks(g.view(), other.data(), 2500, {7, 7, 7}, policy, a);
      four.sample_blocks(g.view(), other.data(), 2500, {7, 7, 7}, policy, b);
      one.sample_blocks(g.view(), seeds.data(), n, fanouts, policy, a);
      four.sample_blocks(g.view(), seeds.data(), n, fanouts, policy, b);
      check_blocks(g, seeds, a, fanouts, replace, true);
      check_blocks(g, seeds, b, fanouts, replace, false);
      CHECK(canonical(a) == canonical(b));  // same samples per node for any thread count
      auto const again = one.sample_blocks(g.view(), seeds.data(), n, fanouts, policy);
      CHECK(same_blocks(a, again));  // one thread: bit-identical, marker reset between calls
      auto const c = four.sample_blocks(g.view(), seeds.data(), n, fanouts, policy.with_seed(43 + trial));
      check_blocks(g, seeds, c, fanouts, replace, false);
      CHECK_FALSE(canonical(a) == canonical(c));  // another seed draws other samples
      });
    }
  }
}

TEST_CASE("cpu_sampler: degree <= fanout takes every neighbour; empty seeds; sample_neighbors")
{
  random_graph<std::int64_t, std::int64_t> const g(500, 6, 5, false);
  cpu_sampler sampler(3);
  auto const seeds = random_seeds<std::int64_t>(400, 500, 1);
  auto const all = sampler.sample_blocks(g.view(), seeds.data(), 400, {6},
                                         gnndirect::uniform_sampler{3});
  check_block(g, all.layers[0], 6, false, false);
  CHECK(all.layers[0].num_edges() == [&] {
    std::int64_t e = 0;
    for (auto s : seeds) { e += g.indptr[static_cast<std::size_t>(s) + 1] - g.indptr[static_cast<std::size_t>(s)]; }
    return e;
  }());

  auto const none = sampler.sample_blocks(g.view(), seeds.data(), 0, {4, 2},
                                          gnndirect::uniform_sampler{3});
  CHECK(none.layers[1].num_src() == 0);
  CHECK(none.layers[1].offsets.size() == 1);

  cpu_neighbors<std::int64_t, std::int64_t> n;
  n.neighbors.assign(10000, -7);  // poison
  sampler.sample_neighbors(g.view(), seeds.data(), 400, 4, 0,
                           gnndirect::uniform_sampler{9}, n);
  REQUIRE(n.offsets.size() == 401);
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    auto const v = static_cast<std::size_t>(seeds[i]);
    std::int64_t const degree = g.indptr[v + 1] - g.indptr[v];
    REQUIRE(n.offsets[i + 1] - n.offsets[i] == std::min<std::int64_t>(degree, 4));
    std::set<std::int64_t> positions;
    for (std::int64_t e = n.offsets[i]; e < n.offsets[i + 1]; ++e) {
      auto const p = n.edge_ids[static_cast<std::size_t>(e)];
      REQUIRE(p >= g.indptr[v]);
      REQUIRE(p < g.indptr[v + 1]);
      CHECK(n.neighbors[static_cast<std::size_t>(e)] == g.indices[static_cast<std::size_t>(p)]);
      positions.insert(p);
    }
    CHECK(static_cast<std::int64_t>(positions.size()) == n.offsets[i + 1] - n.offsets[i]);
  }
}

TEST_CASE("cpu_sampler without replacement: every 3-subset of 10 neighbours equally likely")
{
  std::int64_t const trials = 60000;  // nodes of degree 10, one draw each (streams are per node)
  random_graph<std::int64_t, std::int32_t> g(1, 1, 0, false);
  g.indptr.resize(static_cast<std::size_t>(trials) + 1);
  g.indices.assign(static_cast<std::size_t>(trials) * 10, 0);
  for (std::int64_t v = 0; v <= trials; ++v) { g.indptr[static_cast<std::size_t>(v)] = v * 10; }
  std::vector<std::int32_t> seeds(static_cast<std::size_t>(trials));
  for (std::int64_t v = 0; v < trials; ++v) { seeds[static_cast<std::size_t>(v)] = static_cast<std::int32_t>(v); }
  cpu_sampler sampler(4);
  cpu_neighbors<std::int64_t, std::int32_t> n;
  sampler.sample_neighbors(g.view(), seeds.data(), trials, 3, 0,
                           gnndirect::uniform_sampler{2024}, n);
  std::map<std::int64_t, std::int64_t> subsets;   // bitmask of chosen positions -> count
  std::vector<std::int64_t> single(10, 0);
  for (std::int64_t t = 0; t < trials; ++t) {
    std::int64_t mask = 0;
    for (std::int64_t e = n.offsets[static_cast<std::size_t>(t)]; e < n.offsets[static_cast<std::size_t>(t) + 1]; ++e) {
      auto const p = n.edge_ids[static_cast<std::size_t>(e)] - t * 10;
      REQUIRE(p >= 0);
      REQUIRE(p < 10);
      mask |= std::int64_t{1} << p;
      single[static_cast<std::size_t>(p)]++;
    }
    REQUIRE(__builtin_popcountll(static_cast<unsigned long long>(mask)) == 3);
    subsets[mask]++;
  }
  CHECK(subsets.size() == 120);
  double const expected = static_cast<double>(trials) / 120.0;
  double chi = 0;
  for (auto const& s : subsets) { chi += (s.second - expected) * (s.second - expected) / expected; }
  chi += (120.0 - static_cast<double>(subsets.size())) * expected;  // missing subsets
  CHECK(chi < chi_square_bound(119, 3.72));  // p = 1e-4 with a fixed seed: deterministic
  double const e1 = static_cast<double>(trials) * 3.0 / 10.0;
  double chi1 = 0;
  for (auto c : single) { chi1 += (static_cast<double>(c) - e1) * (static_cast<double>(c) - e1) / e1; }
  CHECK(chi1 * 10.0 / 7.0 < chi_square_bound(9, 3.72));  // marginals (scaled: 3 draws per trial)
}

TEST_CASE("cpu_sampler with replacement: draws uniform over positions, also across layers")
{
  std::int64_t const trials = 20000;  // nodes of degree 7 (plus an isolated node 0)
  random_graph<std::int32_t, std::int32_t> g(1, 1, 0, false);
  g.indptr.assign(1, 0);
  g.indptr.push_back(0);
  g.indices.assign(static_cast<std::size_t>(trials) * 7, 0);
  for (std::int64_t v = 1; v <= trials; ++v) { g.indptr.push_back(static_cast<std::int32_t>(v * 7)); }
  std::vector<std::int32_t> seeds(static_cast<std::size_t>(trials));
  for (std::int64_t v = 0; v < trials; ++v) { seeds[static_cast<std::size_t>(v)] = static_cast<std::int32_t>(v + 1); }
  cpu_sampler sampler(2);
  for (int layer : {0, 5}) {
    cpu_neighbors<std::int32_t, std::int32_t> n;
    sampler.sample_neighbors(g.view(), seeds.data(), trials, 4, layer,
                             gnndirect::uniform_with_replacement_sampler{77}, n);
    REQUIRE(n.num_edges() == trials * 4);
    std::vector<double> counts(7, 0);
    for (std::int64_t t = 0; t < trials; ++t) {
      for (std::int64_t e = n.offsets[static_cast<std::size_t>(t)]; e < n.offsets[static_cast<std::size_t>(t) + 1]; ++e) {
        std::int64_t const p = n.edge_ids[static_cast<std::size_t>(e)] - t * 7;
        REQUIRE(p >= 0);
        REQUIRE(p < 7);
        counts[static_cast<std::size_t>(p)] += 1;
      }
    }
    double const expected = static_cast<double>(trials) * 4.0 / 7.0;
    double chi = 0;
    for (double c : counts) { chi += (c - expected) * (c - expected) / expected; }
    CHECK(chi < chi_square_bound(6, 3.72));
    CHECK(chi > 0.0);
  }
}

TEST_CASE("cpu_sampler rejects bad input and stays usable afterwards")
{
  random_graph<std::int64_t, std::int64_t> const g(200, 8, 3, false);
  cpu_sampler sampler(3);
  auto seeds = random_seeds<std::int64_t>(1200, 200, 4);
  auto const policy = gnndirect::uniform_sampler{5};
  auto const good = sampler.sample_blocks(g.view(), seeds.data(), 1200, {4, 4}, policy);
  auto bad_seeds = seeds;
  bad_seeds[700] = 200;
  bad_seeds[900] = -1;
  try {
    (void)sampler.sample_blocks(g.view(), bad_seeds.data(), 1200, {4, 4}, policy);
    FAIL("no exception for an out-of-range seed");
  } catch (const gnndirect::index_out_of_range& e) {
    CHECK(e.position() == 700);
    CHECK(e.value() == 200);
  }
  CHECK_THROWS_AS((void)sampler.sample_blocks(g.view(), seeds.data(), 1200, {}, policy), gnndirect::invalid_argument);
  CHECK_THROWS_AS((void)sampler.sample_blocks(g.view(), seeds.data(), 1200, {3, -1}, policy), gnndirect::invalid_argument);
  CHECK_THROWS_AS((void)sampler.sample_blocks(g.view(), static_cast<const std::int64_t*>(nullptr), 5, {3}, policy),
                  gnndirect::invalid_argument);
  // A user-written sampler does not compile with the CPU sampler (a static_assert names the three).
  CHECK_THROWS_AS((void)sampler.sample_blocks(g.view(), seeds.data(), 1200, {4},
                                              gnndirect::weighted_sampler{5}),
                  gnndirect::invalid_argument);  // weighted without csr.weights
  // A graph holding an id outside [0, num_nodes) is named, not read out of bounds.
  auto broken = g;
  for (auto& u : broken.indices) { u = 100000; }
  CHECK_THROWS_AS((void)sampler.sample_blocks(broken.view(), seeds.data(), 1200, {4}, policy),
                  gnndirect::index_out_of_range);
  auto const again = sampler.sample_blocks(g.view(), seeds.data(), 1200, {4, 4}, policy);
  CHECK(same_blocks(good, again));  // the marker was fully reset after each failure
}

/// Per-edge weights for g: uniform in (0, 4], with about 1 in 8 zero, negative or NaN (never
/// to be taken).
template <class Offset, class Index>
std::vector<float> random_weights(const random_graph<Offset, Index>& g, std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> value(0.0f, 4.0f);
  std::vector<float> w(g.indices.size());
  for (auto& x : w) {
    switch (rng() % 24) {
      case 0: x = 0.0f; break;
      case 1: x = -1.5f; break;
      case 2: x = std::nanf(""); break;
      default: x = std::nextafter(value(rng), 5.0f);
    }
  }
  return w;
}

TEST_CASE_TEMPLATE("cpu_sampler weighted: min(fanout, positive weights) edges, never a non-positive "
                   "one, stored order, same samples on any thread count", T,
                   std::pair<std::int32_t, std::int32_t>, std::pair<std::int64_t, std::int64_t>)
{
  using Offset = typename T::first_type;
  using Index = typename T::second_type;
  random_graph<Offset, Index> const g(3000, 14, 21, true);
  std::vector<float> const w = random_weights(g, 22);
  auto csr = g.view();
  csr.weights = w.data();
  std::vector<int> const fanouts{6, 3};
  auto seeds = random_seeds<Index>(6144, 3000, 23);  // above the parallel-relabel threshold
  auto const n = static_cast<std::int64_t>(seeds.size());
  cpu_sampler one(1);
  cpu_sampler four(4);
  auto const a = one.sample_blocks(csr, seeds.data(), n, fanouts, gnndirect::weighted_sampler{9});
  auto const b = four.sample_blocks(csr, seeds.data(), n, fanouts, gnndirect::weighted_sampler{9});
  CHECK(canonical(a) == canonical(b));
  auto const c = four.sample_blocks(csr, seeds.data(), n, fanouts, gnndirect::weighted_sampler{10});
  CHECK_FALSE(canonical(a) == canonical(c));
  for (auto const* blocks : {&a, &b}) {
    REQUIRE(blocks->layers.size() == 2);
    for (std::size_t l = 0; l < 2; ++l) {
      auto const& blk = blocks->layers[l];
      for (std::size_t d = 0; d < blk.dst_nodes.size(); ++d) {
        auto const v = static_cast<std::size_t>(blk.dst_nodes[d]);
        std::vector<std::int64_t> positive;  // the positions weighted sampling may take
        for (auto p = static_cast<std::int64_t>(g.indptr[v]); p < g.indptr[v + 1]; ++p) {
          if (w[static_cast<std::size_t>(p)] > 0.0f) { positive.push_back(p); }
        }
        std::vector<std::int64_t> taken;
        for (std::int64_t e = blk.offsets[d]; e < blk.offsets[d + 1]; ++e) {
          auto const es = static_cast<std::size_t>(e);
          std::int64_t const p = g.position_of(blk.edge_ids[es]);
          REQUIRE(p >= 0);
          REQUIRE(std::binary_search(positive.begin(), positive.end(), p));
          REQUIRE(blk.src_nodes[static_cast<std::size_t>(blk.indices[es])] == g.indices[static_cast<std::size_t>(p)]);
          taken.push_back(p);
        }
        REQUIRE(static_cast<std::int64_t>(taken.size()) ==
                std::min<std::int64_t>(static_cast<std::int64_t>(positive.size()), fanouts[l]));
        CHECK(std::adjacent_find(taken.begin(), taken.end(), std::greater_equal<>()) == taken.end());
        if (static_cast<std::int64_t>(positive.size()) <= fanouts[l]) { CHECK(taken == positive); }
      }
    }
  }
  auto const none = four.sample_blocks(csr, seeds.data(), n, {0, 2}, gnndirect::weighted_sampler{9});
  CHECK(none.layers[0].num_edges() == 0);  // fanout 0 draws nothing (found by fuzz_sample_blocks)
  CHECK(none.layers[0].num_src() == n);
  CHECK(none.layers[1].num_dst() == n);
  cpu_neighbors<Offset, Index> hop;
  four.sample_neighbors(csr, seeds.data(), n, 6, 0, gnndirect::weighted_sampler{9}, hop);
  for (std::size_t d = 0; d < seeds.size(); ++d) {  // layer 0 of the blocks drew the same edges
    auto const& blk = a.layers[0];
    CHECK(std::equal(hop.edge_ids.begin() + hop.offsets[d], hop.edge_ids.begin() + hop.offsets[d + 1],
                     blk.edge_ids.begin() + blk.offsets[d], blk.edge_ids.begin() + blk.offsets[d + 1]));
  }
}

TEST_CASE("cpu_sampler weighted: pairs drawn with the probabilities of sampling without replacement")
{
  // Every node: edges of weight 1, 2, 3, 4, 0.5, 0 and NaN; fanout 2. P({i, j}) =
  // w_i/W * w_j/(W - w_i) + w_j/W * w_i/(W - w_j) over the five positive edges (W = 10.5),
  // computed here independently of the sampler's keys.
  std::vector<float> const pattern{1.0f, 2.0f, 3.0f, 4.0f, 0.5f, 0.0f, std::nanf("")};
  auto const degree = static_cast<std::int64_t>(pattern.size());
  std::int64_t const trials = 60000;
  random_graph<std::int64_t, std::int32_t> g(1, 1, 0, false);
  g.indptr.resize(static_cast<std::size_t>(trials) + 1);
  g.indices.assign(static_cast<std::size_t>(trials * degree), 0);
  std::vector<float> w(g.indices.size());
  for (std::int64_t v = 0; v <= trials; ++v) { g.indptr[static_cast<std::size_t>(v)] = v * degree; }
  for (std::size_t e = 0; e < w.size(); ++e) { w[e] = pattern[e % pattern.size()]; }
  auto csr = g.view();
  csr.weights = w.data();
  std::vector<std::int32_t> seeds(static_cast<std::size_t>(trials));
  for (std::int64_t v = 0; v < trials; ++v) { seeds[static_cast<std::size_t>(v)] = static_cast<std::int32_t>(v); }
  cpu_sampler sampler(4);
  cpu_neighbors<std::int64_t, std::int32_t> n;
  sampler.sample_neighbors(csr, seeds.data(), trials, 2, 0, gnndirect::weighted_sampler{31}, n);
  std::map<std::pair<std::int64_t, std::int64_t>, double> pairs;
  for (std::int64_t t = 0; t < trials; ++t) {
    REQUIRE(n.offsets[static_cast<std::size_t>(t) + 1] - n.offsets[static_cast<std::size_t>(t)] == 2);
    std::int64_t const first = n.edge_ids[static_cast<std::size_t>(n.offsets[static_cast<std::size_t>(t)])] - t * degree;
    std::int64_t const second = n.edge_ids[static_cast<std::size_t>(n.offsets[static_cast<std::size_t>(t)]) + 1] - t * degree;
    REQUIRE(first < second);  // stored order
    REQUIRE(second < 5);      // never the zero or NaN edge
    pairs[{first, second}] += 1;
  }
  double const total = 10.5;
  double chi = 0;
  for (std::int64_t i = 0; i < 5; ++i) {
    for (std::int64_t j = i + 1; j < 5; ++j) {
      double const wi = pattern[static_cast<std::size_t>(i)];
      double const wj = pattern[static_cast<std::size_t>(j)];
      double const p = wi / total * wj / (total - wi) + wj / total * wi / (total - wj);
      double const expected = p * static_cast<double>(trials);
      double const got = pairs[{i, j}];
      chi += (got - expected) * (got - expected) / expected;
    }
  }
  CHECK(pairs.size() == 10);
  CHECK(chi < chi_square_bound(9, 3.72));  // p = 1e-4 with a fixed seed: deterministic
}

TEST_CASE("gather_rows packs the indexed rows and names the first bad index")
{
  worker_pool pool(3);
  std::int64_t const rows = 5000;
  std::int64_t const cols = 7;
  std::int64_t const stride = 9;
  std::vector<float> table(static_cast<std::size_t>(rows * stride));
  std::mt19937_64 rng(12);
  for (auto& x : table) { x = static_cast<float>(rng() % 100000); }
  gnndirect::table_view<const float> const src(table.data(), rows, cols, stride, gnndirect::memory_kind::pinned);
  auto const ids = random_seeds<std::int32_t>(4321, rows, 8);
  std::vector<float> dst(ids.size() * static_cast<std::size_t>(cols), -1.0f);  // poison
  gnndirect::host::gather_rows(pool, src, ids.data(), static_cast<std::int64_t>(ids.size()), dst.data());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    for (std::int64_t c = 0; c < cols; ++c) {
      REQUIRE(dst[i * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)] ==
              table[static_cast<std::size_t>(ids[i] * stride + c)]);
    }
  }
  auto bad = ids;
  bad[3000] = static_cast<std::int32_t>(rows);
  bad[4000] = -3;
  try {
    gnndirect::host::gather_rows(pool, src, bad.data(), static_cast<std::int64_t>(bad.size()), dst.data());
    FAIL("no exception for an out-of-range index");
  } catch (const gnndirect::index_out_of_range& e) {
    CHECK(e.position() == 3000);
    CHECK(e.value() == rows);
  }
}

TEST_CASE("scatter_rows writes the indexed rows, the last duplicate wins, and a bad index writes nothing")
{
  worker_pool pool(4);
  std::int64_t const rows = 3000;
  std::int64_t const cols = 5;
  std::int64_t const stride = 8;
  std::mt19937_64 rng(41);
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{700}, std::int64_t{9000}}) {  // one pass; all workers
    std::vector<float> table(static_cast<std::size_t>(rows * stride));
    for (auto& x : table) { x = static_cast<float>(rng() % 100000); }
    auto ids = random_seeds<std::int64_t>(n, rows / 3, 50 + static_cast<std::uint64_t>(n));  // many repeats
    for (auto& id : ids) { id *= 3; }  // spread over every worker's range
    std::vector<float> src(static_cast<std::size_t>(n * cols));
    for (auto& x : src) { x = static_cast<float>(rng() % 100000) + 0.5f; }
    auto expected = table;  // a sequential loop, independent of the parallel one
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t c = 0; c < cols; ++c) {
        expected[static_cast<std::size_t>(ids[static_cast<std::size_t>(i)] * stride + c)] =
          src[static_cast<std::size_t>(i * cols + c)];
      }
    }
    gnndirect::table_view<float> const dst(table.data(), rows, cols, stride, gnndirect::memory_kind::pinned);
    gnndirect::host::scatter_rows(pool, src.data(), ids.data(), n, dst);
    CHECK(table == expected);  // padding columns untouched too
    if (n == 0) { continue; }
    auto bad = ids;
    bad[static_cast<std::size_t>(n / 2)] = rows;
    bad[static_cast<std::size_t>(n - 1)] = -1;
    auto const before = table;
    try {
      gnndirect::host::scatter_rows(pool, src.data(), bad.data(), n, dst);
      FAIL("no exception for an out-of-range index");
    } catch (const gnndirect::index_out_of_range& e) {
      CHECK(e.position() == n / 2);
      CHECK(e.value() == rows);
    }
    CHECK(table == before);
  }
}

TEST_CASE("cpu_sampler: a corrupt indptr (decreasing, or past the edge array) is named, never read")
{
  std::uint64_t const seed = std::random_device{}();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  random_graph<std::int64_t, std::int64_t> const g(300, 10, rng(), false);
  cpu_sampler sampler(3);
  auto const seeds = random_seeds<std::int64_t>(500, 300, rng());
  for (bool past_end : {false, true}) {
    CAPTURE(past_end);
    auto broken = g;
    auto const x = static_cast<std::size_t>(seeds[7]);
    if (past_end) {
      broken.indptr[x + 1] = static_cast<std::int64_t>(broken.indices.size()) + 1000;
    } else {
      broken.indptr[x + 1] = broken.indptr[x] - 3;  // a negative degree
    }
    CHECK_THROWS_WITH_AS((void)sampler.sample_blocks(broken.view(), seeds.data(), 500, {4, 3},
                                                     gnndirect::uniform_sampler{5}),
                         doctest::Contains("corrupt graph: node "),  // x, or x + 1 when it comes first
                         gnndirect::invalid_argument);
    cpu_neighbors<std::int64_t, std::int64_t> n;
    CHECK_THROWS_AS(sampler.sample_neighbors(broken.view(), seeds.data(), 500, 4, 0,
                                             gnndirect::uniform_with_replacement_sampler{5}, n),
                    gnndirect::invalid_argument);
  }
  auto const good = sampler.sample_blocks(g.view(), seeds.data(), 500, {4, 3}, gnndirect::uniform_sampler{5});
  check_blocks(g, seeds, good, {4, 3}, false, false);  // still usable afterwards
}
