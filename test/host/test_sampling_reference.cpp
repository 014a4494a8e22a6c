// Host tests of the sampling reference: exact semantics on handmade graphs, statistics on fresh
// random graphs, determinism across thread counts, and message-flow block invariants.
#include <doctest/doctest.h>

#include <gnndirect/algorithms/sampler_choice.hpp>
#include <gnndirect/core/sampling_policy.hpp>
#include <gnndirect/reference/sample_reference.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <set>
#include <unordered_set>
#include <vector>

using gnndirect::csr_view;
using gnndirect::sampling_kind;
using gnndirect::sampling_policy;

namespace {

/// A host CSR graph owning its arrays; view() points at them.
template <class Offset, class Index>
struct host_graph {
  std::vector<Offset> indptr{0};
  std::vector<Index> indices;
  std::vector<float> weights;
  std::vector<Offset> edge_ids;

  void add_node(std::vector<Index> const& neighbours, std::vector<float> const& w = {})
  {
    indices.insert(indices.end(), neighbours.begin(), neighbours.end());
    weights.insert(weights.end(), w.begin(), w.end());
    if (w.empty()) { weights.resize(indices.size(), 1.0f); }
    indptr.push_back(static_cast<Offset>(indices.size()));
  }
  csr_view<Offset, Index> view() const
  {
    csr_view<Offset, Index> v;
    v.indptr = indptr.data();
    v.indices = indices.data();
    v.weights = weights.data();
    v.edge_ids = edge_ids.empty() ? nullptr : edge_ids.data();
    v.num_nodes = static_cast<std::int64_t>(indptr.size()) - 1;
    v.num_edges = static_cast<std::int64_t>(indices.size());
    v.indptr_kind = v.indices_kind = gnndirect::memory_kind::pinned;
    return v;
  }
};

/// Random graph: degrees uniform in [0, max_degree], neighbours uniform, weights in [0, 4) with
/// some exact zeros, shuffled edge ids.
template <class Offset, class Index>
host_graph<Offset, Index> random_graph(std::int64_t nodes, int max_degree, std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  host_graph<Offset, Index> g;
  for (std::int64_t v = 0; v < nodes; ++v) {
    auto const degree = static_cast<int>(rng() % static_cast<std::uint64_t>(max_degree + 1));
    std::vector<Index> nbrs(static_cast<std::size_t>(degree));
    std::vector<float> w(static_cast<std::size_t>(degree));
    for (int e = 0; e < degree; ++e) {
      nbrs[static_cast<std::size_t>(e)] = static_cast<Index>(rng() % static_cast<std::uint64_t>(nodes));
      w[static_cast<std::size_t>(e)] = rng() % 8 == 0 ? 0.0f : static_cast<float>(rng() % 4000) / 1000.0f;
    }
    g.add_node(nbrs, w);
  }
  g.edge_ids.resize(g.indices.size());
  std::iota(g.edge_ids.begin(), g.edge_ids.end(), Offset{0});
  std::shuffle(g.edge_ids.begin(), g.edge_ids.end(), rng);
  return g;
}

/// A run-time choice of one of the library's samplers: the tests loop over the three.
struct sampler_choice {
  sampling_kind kind;
  std::uint64_t seed;
};

sampler_choice sampler_of(sampling_kind kind, std::uint64_t seed) { return {kind, seed}; }

/// The reference with the sampler a choice names (the reference takes sampler types).
template <class Offset, class Index, class... Rest>
auto sample_neighbors_reference(const csr_view<Offset, Index>& csr, const Index* seeds, std::int64_t n,
                                int fanout, int layer, sampler_choice choice, Rest... rest)
{
  return gnndirect::visit_sampler(choice.kind, choice.seed, [&](auto sampler) {
    return gnndirect::host::sample_neighbors_reference(csr, seeds, n, fanout, layer, sampler, rest...);
  });
}

/// As above for blocks.
template <class Offset, class Index, class... Rest>
auto sample_blocks_reference(const csr_view<Offset, Index>& csr, const Index* seeds, std::int64_t n,
                             const std::vector<int>& fanouts, sampler_choice choice, Rest... rest)
{
  return gnndirect::visit_sampler(choice.kind, choice.seed, [&](auto sampler) {
    return gnndirect::host::sample_blocks_reference(csr, seeds, n, fanouts, sampler, rest...);
  });
}

constexpr sampling_kind all_kinds[] = {sampling_kind::uniform_without_replacement,
                                       sampling_kind::uniform_with_replacement,
                                       sampling_kind::weighted_without_replacement};

/// Chi-square statistic of observed counts against equal expected counts.
double chi_square_uniform(std::vector<std::int64_t> const& counts)
{
  double const total = static_cast<double>(std::accumulate(counts.begin(), counts.end(), std::int64_t{0}));
  double const expected = total / static_cast<double>(counts.size());
  double chi = 0;
  for (auto c : counts) { chi += (static_cast<double>(c) - expected) * (static_cast<double>(c) - expected) / expected; }
  return chi;
}

}  // namespace

TEST_CASE("degree 0 and degree <= fanout follow the documented semantics")
{
  host_graph<std::int64_t, std::int32_t> g;
  g.add_node({});                                   // node 0: no neighbours
  g.add_node({5, 3, 9});                            // node 1: degree 3
  g.add_node({7, 7, 2, 4}, {0.0f, 2.0f, -1.0f, 1.0f});  // node 2: two eligible weights
  std::vector<std::int32_t> const seeds{0, 1, 2};
  auto const view = g.view();

  auto const without = sample_neighbors_reference(view, seeds.data(), 3, 5, 0,
                                                   sampler_of(sampling_kind::uniform_without_replacement, 1));
  CHECK(without.offsets == std::vector<std::int64_t>{0, 0, 3, 7});
  CHECK(without.neighbors == std::vector<std::int32_t>{5, 3, 9, 7, 7, 2, 4});  // stored order
  CHECK(without.edge_ids == std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6});

  auto const with = sample_neighbors_reference(view, seeds.data(), 3, 5, 0,
                                               sampler_of(sampling_kind::uniform_with_replacement, 1));
  CHECK(with.offsets == std::vector<std::int64_t>{0, 0, 5, 10});
  for (std::int64_t e = 0; e < 5; ++e) {
    CHECK(std::set<std::int32_t>{5, 3, 9}.count(with.neighbors[static_cast<std::size_t>(e)]) == 1);
  }

  auto const weighted = sample_neighbors_reference(
    view, seeds.data(), 3, 5, 0, sampler_of(sampling_kind::weighted_without_replacement, 1));
  CHECK(weighted.offsets == std::vector<std::int64_t>{0, 0, 3, 5});
  CHECK(weighted.edge_ids == std::vector<std::int64_t>{0, 1, 2, 4, 6});  // weights > 0 only

  auto const zero = sample_neighbors_reference(view, seeds.data(), 3, 0, 0,
                                               sampler_of(sampling_kind::uniform_with_replacement, 1));
  CHECK(zero.num_edges() == 0);
}

TEST_CASE("edge ids come from csr.edge_ids when present")
{
  auto g = random_graph<std::int64_t, std::int64_t>(200, 30, 7);
  std::vector<std::int64_t> seeds(200);
  std::iota(seeds.begin(), seeds.end(), 0);
  for (auto kind : all_kinds) {
    auto const s = sample_neighbors_reference(g.view(), seeds.data(), 200, 10, 1, sampler_of(kind, 3));
    for (std::int64_t i = 0; i < 200; ++i) {
      for (auto e = s.offsets[static_cast<std::size_t>(i)]; e < s.offsets[static_cast<std::size_t>(i) + 1]; ++e) {
        auto const id = s.edge_ids[static_cast<std::size_t>(e)];
        auto const position = std::find(g.edge_ids.begin(), g.edge_ids.end(), id) - g.edge_ids.begin();
        REQUIRE(position >= g.indptr[static_cast<std::size_t>(i)]);
        REQUIRE(position < g.indptr[static_cast<std::size_t>(i) + 1]);
        REQUIRE(g.indices[static_cast<std::size_t>(position)] == s.neighbors[static_cast<std::size_t>(e)]);
      }
    }
  }
}

TEST_CASE("without replacement: no duplicate positions, stored order, uniform positions")
{
  host_graph<std::int32_t, std::int32_t> g;
  std::vector<std::int32_t> nbrs(20);
  std::iota(nbrs.begin(), nbrs.end(), 100);
  g.add_node(nbrs);
  int const trials = 20000;
  std::vector<std::int32_t> const seeds{0};
  std::vector<std::int64_t> hits(20, 0);
  for (int t = 0; t < trials; ++t) {
    auto const s = sample_neighbors_reference(g.view(), seeds.data(), 1, 5, 0,
                                              sampler_of(sampling_kind::uniform_without_replacement,
                                                        static_cast<std::uint64_t>(t)),
                                              1);
    REQUIRE(s.num_edges() == 5);
    REQUIRE(std::is_sorted(s.edge_ids.begin(), s.edge_ids.end()));
    REQUIRE(std::adjacent_find(s.edge_ids.begin(), s.edge_ids.end()) == s.edge_ids.end());
    for (auto e : s.edge_ids) { ++hits[static_cast<std::size_t>(e)]; }
  }
  // 19 degrees of freedom: P(chi2 > 43.8) = 0.001.
  CHECK(chi_square_uniform(hits) < 43.8);
}

TEST_CASE("without replacement: all pairs of a small list are equally likely")
{
  host_graph<std::int64_t, std::int64_t> g;
  g.add_node({0, 1, 2, 3, 4, 5});
  std::vector<std::int64_t> const seeds{0};
  std::vector<std::int64_t> pair_hits(36, 0);
  for (int t = 0; t < 30000; ++t) {
    auto const s = sample_neighbors_reference(g.view(), seeds.data(), 1, 2, 3,
                                              sampler_of(sampling_kind::uniform_without_replacement,
                                                        static_cast<std::uint64_t>(t) * 7919),
                                              1);
    ++pair_hits[static_cast<std::size_t>(s.edge_ids[0] * 6 + s.edge_ids[1])];
  }
  std::vector<std::int64_t> observed;
  for (int a = 0; a < 6; ++a) {
    for (int b = a + 1; b < 6; ++b) { observed.push_back(pair_hits[static_cast<std::size_t>(a * 6 + b)]); }
  }
  CHECK(std::accumulate(observed.begin(), observed.end(), std::int64_t{0}) == 30000);
  CHECK(chi_square_uniform(observed) < 36.1);  // 14 dof, p = 0.001
}

TEST_CASE("with replacement: draws are uniform and independent of degree < fanout")
{
  host_graph<std::int64_t, std::int32_t> g;
  g.add_node({0, 1, 2, 3, 4, 5, 6});
  std::vector<std::int32_t> const seeds{0};
  std::vector<std::int64_t> hits(7, 0);
  for (int t = 0; t < 10000; ++t) {
    auto const s = sample_neighbors_reference(g.view(), seeds.data(), 1, 10, 2,
                                              sampler_of(sampling_kind::uniform_with_replacement,
                                                        static_cast<std::uint64_t>(t)),
                                              1);
    REQUIRE(s.num_edges() == 10);
    for (auto n : s.neighbors) { ++hits[static_cast<std::size_t>(n)]; }
  }
  CHECK(chi_square_uniform(hits) < 22.5);  // 6 dof, p = 0.001
}

TEST_CASE("weighted: frequencies are proportional to weights, zero weights never chosen")
{
  std::uint64_t const graph_seed = std::random_device{}();
  CAPTURE(graph_seed);
  auto const g = random_graph<std::int64_t, std::int32_t>(40, 12, graph_seed);
  std::vector<std::int32_t> seeds(40);
  std::iota(seeds.begin(), seeds.end(), 0);
  std::vector<std::int64_t> hits(g.indices.size(), 0);
  int const trials = 4000;
  for (int t = 0; t < trials; ++t) {
    auto const s = sample_neighbors_reference(g.view(), seeds.data(), 40, 1, 0,
                                              sampler_of(sampling_kind::weighted_without_replacement,
                                                        static_cast<std::uint64_t>(t) + graph_seed));
    for (auto e : s.edge_ids) {
      auto const position = std::find(g.edge_ids.begin(), g.edge_ids.end(), e) - g.edge_ids.begin();
      ++hits[static_cast<std::size_t>(position)];
    }
  }
  for (std::size_t v = 0; v < 40; ++v) {
    double total_weight = 0;
    for (auto e = g.indptr[v]; e < g.indptr[v + 1]; ++e) { total_weight += g.weights[static_cast<std::size_t>(e)]; }
    for (auto e = g.indptr[v]; e < g.indptr[v + 1]; ++e) {
      auto const i = static_cast<std::size_t>(e);
      CAPTURE(v);
      CAPTURE(e);
      if (g.weights[i] <= 0.0f) {
        CHECK(hits[i] == 0);
        continue;
      }
      double const p = g.weights[i] / total_weight;
      double const sigma = std::sqrt(trials * p * (1 - p));
      CHECK(std::abs(static_cast<double>(hits[i]) - trials * p) <= 5 * sigma + 1);
    }
  }
}

TEST_CASE("weighted without replacement: larger fanout keeps distinct eligible edges")
{
  std::uint64_t const graph_seed = std::random_device{}();
  CAPTURE(graph_seed);
  auto const g = random_graph<std::int32_t, std::int64_t>(300, 40, graph_seed);
  std::vector<std::int64_t> seeds(300);
  std::iota(seeds.begin(), seeds.end(), 0);
  auto const s = sample_neighbors_reference(g.view(), seeds.data(), 300, 7, 4,
                                            sampler_of(sampling_kind::weighted_without_replacement, graph_seed));
  for (std::size_t i = 0; i < 300; ++i) {
    std::vector<std::int32_t> positions;
    for (auto e = s.offsets[i]; e < s.offsets[i + 1]; ++e) {
      auto const id = s.edge_ids[static_cast<std::size_t>(e)];
      positions.push_back(static_cast<std::int32_t>(std::find(g.edge_ids.begin(), g.edge_ids.end(), id) - g.edge_ids.begin()));
      REQUIRE(g.weights[static_cast<std::size_t>(positions.back())] > 0.0f);
    }
    REQUIRE(std::is_sorted(positions.begin(), positions.end()));
    REQUIRE(std::adjacent_find(positions.begin(), positions.end()) == positions.end());
    auto const eligible = std::count_if(g.weights.begin() + g.indptr[i], g.weights.begin() + g.indptr[i + 1],
                                        [](float w) { return w > 0.0f; });
    REQUIRE(static_cast<std::int64_t>(positions.size()) == std::min<std::int64_t>(eligible, 7));
  }
}

TEST_CASE("results do not depend on the thread count, and a repeated node repeats its sample")
{
  std::uint64_t const graph_seed = std::random_device{}();
  CAPTURE(graph_seed);
  auto const g = random_graph<std::int64_t, std::int64_t>(5000, 60, graph_seed);
  std::mt19937_64 rng(graph_seed);
  std::vector<std::int64_t> seeds(3000);
  for (auto& s : seeds) { s = static_cast<std::int64_t>(rng() % 5000); }
  seeds.back() = seeds.front();
  for (auto kind : all_kinds) {
    CAPTURE(gnndirect::to_string(kind));
    auto const one = sample_neighbors_reference(g.view(), seeds.data(), 3000, 15, 1, sampler_of(kind, 99), 1);
    auto const many = sample_neighbors_reference(g.view(), seeds.data(), 3000, 15, 1, sampler_of(kind, 99), 7);
    CHECK(one.offsets == many.offsets);
    CHECK(one.neighbors == many.neighbors);
    CHECK(one.edge_ids == many.edge_ids);
    auto const first = std::vector<std::int64_t>(one.edge_ids.begin() + one.offsets[0], one.edge_ids.begin() + one.offsets[1]);
    auto const last = std::vector<std::int64_t>(one.edge_ids.begin() + one.offsets[2999], one.edge_ids.end());
    CHECK(first == last);
    auto const other_layer = sample_neighbors_reference(g.view(), seeds.data(), 3000, 15, 2, sampler_of(kind, 99), 3);
    CHECK(other_layer.offsets == one.offsets);  // counts depend on degree and weights only
    CHECK(other_layer.edge_ids != one.edge_ids);  // a different layer draws different numbers
  }
}

TEST_CASE("bad seeds and bad policies are rejected with the documented exceptions")
{
  auto const g = random_graph<std::int64_t, std::int32_t>(10, 5, 1);
  std::vector<std::int32_t> const seeds{1, 2, 10, -1};
  try {
    (void)sample_neighbors_reference(g.view(), seeds.data(), 4, 3, 0, sampler_of(sampling_kind::uniform_without_replacement, 0));
    FAIL("expected index_out_of_range");
  } catch (gnndirect::index_out_of_range const& e) {
    CHECK(e.position() == 2);
    CHECK(e.value() == 10);
  }
  auto no_weights = g.view();
  no_weights.weights = nullptr;
  CHECK_THROWS_AS((void)sample_neighbors_reference(no_weights, seeds.data(), 2, 3, 0,
                                                   sampler_of(sampling_kind::weighted_without_replacement, 0)),
                  gnndirect::invalid_argument);
  CHECK_THROWS_AS((void)sample_neighbors_reference(g.view(), seeds.data(), 2, -1, 0, sampler_of(sampling_kind::uniform_without_replacement, 0)),
                  gnndirect::invalid_argument);
}

TEST_CASE("blocks: relabelling invariants and agreement with per-layer sampling")
{
  std::uint64_t const graph_seed = std::random_device{}();
  CAPTURE(graph_seed);
  auto const g = random_graph<std::int64_t, std::int32_t>(3000, 30, graph_seed);
  std::vector<std::int32_t> seeds(64);
  std::iota(seeds.begin(), seeds.end(), 100);
  std::vector<int> const fanouts{5, 4, 3};
  for (auto kind : all_kinds) {
    CAPTURE(gnndirect::to_string(kind));
    auto const blocks = sample_blocks_reference(g.view(), seeds.data(), 64, fanouts, sampler_of(kind, graph_seed));
    REQUIRE(blocks.layers.size() == 3);
    CHECK(blocks.layers[0].dst_nodes == seeds);
    for (std::size_t l = 0; l < 3; ++l) {
      auto const& b = blocks.layers[l];
      if (l > 0) { CHECK(b.dst_nodes == blocks.layers[l - 1].src_nodes); }
      REQUIRE(b.src_nodes.size() >= b.dst_nodes.size());
      CHECK(std::equal(b.dst_nodes.begin(), b.dst_nodes.end(), b.src_nodes.begin()));
      CHECK(std::unordered_set<std::int32_t>(b.src_nodes.begin(), b.src_nodes.end()).size() == b.src_nodes.size());
      auto const direct = sample_neighbors_reference(g.view(), b.dst_nodes.data(),
                                                     static_cast<std::int64_t>(b.dst_nodes.size()),
                                                     fanouts[l], static_cast<int>(l), sampler_of(kind, graph_seed));
      CHECK(b.offsets == direct.offsets);
      CHECK(b.edge_ids == direct.edge_ids);
      REQUIRE(b.indices.size() == direct.neighbors.size());
      std::size_t next_new = b.dst_nodes.size();
      for (std::size_t e = 0; e < b.indices.size(); ++e) {
        auto const local = static_cast<std::size_t>(b.indices[e]);
        REQUIRE(local < b.src_nodes.size());
        REQUIRE(b.src_nodes[local] == direct.neighbors[e]);
        if (local >= b.dst_nodes.size()) {  // new nodes get the next local id on first appearance
          REQUIRE(local <= next_new);
          if (local == next_new) { ++next_new; }
        }
      }
      CHECK(next_new == b.src_nodes.size());
    }
    CHECK(blocks.input_nodes() == blocks.layers[2].src_nodes);
  }
  CHECK_THROWS_AS((void)sample_blocks_reference(g.view(), seeds.data(), 64, {}, sampler_of(sampling_kind::uniform_without_replacement, 0)),
                  gnndirect::invalid_argument);
}

TEST_CASE("a corrupt indptr (decreasing, or past the edge array) is named before anything reads it")
{
  std::uint64_t const graph_seed = std::random_device{}();
  CAPTURE(graph_seed);
  auto const g = random_graph<std::int64_t, std::int32_t>(200, 12, graph_seed);
  std::vector<std::int32_t> seeds(150);
  std::iota(seeds.begin(), seeds.end(), 20);
  for (bool past_end : {false, true}) {
    CAPTURE(past_end);
    auto broken = g;
    std::size_t const x = 77;
    if (past_end) {
      broken.indptr[x + 1] = static_cast<std::int64_t>(broken.indices.size()) + 5;
    } else {
      broken.indptr[x + 1] = broken.indptr[x] - 2;  // a negative degree
    }
    for (auto kind : all_kinds) {
      CAPTURE(gnndirect::to_string(kind));
      CHECK_THROWS_WITH_AS((void)sample_neighbors_reference(broken.view(), seeds.data(), 150, 4, 0,
                                                            sampler_of(kind, 1)),
                           doctest::Contains("corrupt graph: node 7"), gnndirect::invalid_argument);
      CHECK_THROWS_AS((void)sample_blocks_reference(broken.view(), seeds.data(), 150, {3, 2}, sampler_of(kind, 1)),
                      gnndirect::invalid_argument);
    }
  }
}
