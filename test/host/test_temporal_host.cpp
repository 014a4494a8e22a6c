// Host tests of the temporal samplers (device/temporal_samplers.hpp): their device code run on an
// emulated tile of 1..32 lanes against the independent host implementation
// (test/support/temporal_reference.hpp) bit for bit, for both strategies, both time forms, with
// and without excluded edges; and the host implementation's blocks never hold an edge later than
// a seed that reaches it. The GPU test (test_gpu_temporal) checks the same on the device. The
// typed oracle (test/support/typed_temporal_reference.hpp) equals the typed reference where every
// time is eligible, and its blocks hold no edge later than its row's time.
#include <doctest/doctest.h>

#include <gnndirect/device/sample_neighbors_tile.cuh>
#include <gnndirect/device/temporal_samplers.hpp>

#include "support/emulated_tile.hpp"
#include "support/random.hpp"
#include "support/temporal_reference.hpp"
#include "support/typed_temporal_reference.hpp"

#include <gnndirect/device/samplers.hpp>
#include <gnndirect/graph/generate_typed.hpp>
#include <gnndirect/reference/sample_typed_reference.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>
#include <cstdint>
#include <random>
#include <vector>

namespace {

using gnndirect::test::emulated_tile;
using gnndirect::test::run_tile;
using gnndirect::test::temporal_graph;
using gnndirect::test::temporal_setup;

constexpr int guard_slots = 8;

/// Samples every (seed, query time) row with sample_neighbors_tile on an emulated tile and
/// compares ids, edge ids, counts and guard slots with temporal_positions.
template <class Sampler, class Offset, class Index>
void check_rows(const temporal_graph<Offset, Index>& graph, const temporal_setup& setup, const Sampler& sampler,
                const std::vector<Index>& seeds, int fanout, int layer, int lanes)
{
  auto const csr = graph.view();
  auto const n = static_cast<std::int64_t>(seeds.size());
  std::size_t const per_row = static_cast<std::size_t>(fanout) + guard_slots;
  Index const poison_id = static_cast<Index>(-424243);
  Offset const poison_eid = static_cast<Offset>(-171717);
  std::vector<Index> ids(static_cast<std::size_t>(n) * per_row, poison_id);
  std::vector<Offset> eids(ids.size(), poison_eid);
  std::size_t const scratch_bytes = gnndirect::sample_scratch_bytes(sampler, fanout, lanes);
  REQUIRE(scratch_bytes % 16 == 0);
  constexpr std::uint64_t scratch_guard = 0x7E57'AB1E'0DD5'1DE5u;
  std::vector<std::uint64_t> scratch(scratch_bytes / 8 + guard_slots, scratch_guard);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(n * lanes), -1);
  run_tile(lanes, [&](const emulated_tile& tile) {
    for (std::int64_t i = 0; i < n; ++i) {
      std::size_t const at = static_cast<std::size_t>(i) * per_row;
      counts[static_cast<std::size_t>(i * lanes + tile.thread_rank())] = gnndirect::sample_neighbors_tile(
        tile, csr, static_cast<std::int64_t>(seeds[static_cast<std::size_t>(i)]), fanout, layer, sampler,
        scratch_bytes > 0 ? scratch.data() : nullptr, ids.data() + at, eids.data() + at, i);
    }
  });
  for (std::int64_t i = 0; i < n; ++i) {
    auto const node = static_cast<std::int64_t>(seeds[static_cast<std::size_t>(i)]);
    CAPTURE(i);
    CAPTURE(node);
    CAPTURE(csr.degree(node));
    std::int64_t const limit = i < sampler.num_query_times ? sampler.query_times[i] : 0;
    std::vector<std::int64_t> want;
    if (i < sampler.num_query_times) { want = gnndirect::test::temporal_positions(csr, setup, node, limit, fanout, layer); }
    auto const count = static_cast<std::int64_t>(want.size());
    for (int r = 0; r < lanes; ++r) { REQUIRE(counts[static_cast<std::size_t>(i * lanes + r)] == count); }
    std::size_t const at = static_cast<std::size_t>(i) * per_row;
    std::int64_t mismatches = 0;
    for (std::int64_t s = 0; s < count; ++s) {
      std::int64_t const e = csr.indptr[node] + want[static_cast<std::size_t>(s)];
      mismatches += ids[at + static_cast<std::size_t>(s)] != csr.indices[e];
      mismatches += eids[at + static_cast<std::size_t>(s)] != (csr.edge_ids != nullptr ? csr.edge_ids[e] : static_cast<Offset>(e));
    }
    CHECK(mismatches == 0);
    for (std::size_t s = static_cast<std::size_t>(count); s < per_row; ++s) {
      CHECK(ids[at + s] == poison_id);
      CHECK(eids[at + s] == poison_eid);
    }
  }
  for (std::size_t w = scratch_bytes / 8; w < scratch.size(); ++w) { CHECK(scratch[w] == scratch_guard); }
}

template <class Strategy, class TimeForm, class Offset, class Index>
void check_strategy(std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  bool constexpr last = std::is_same_v<Strategy, gnndirect::temporal_last>;
  bool constexpr per_node = std::is_same_v<TimeForm, gnndirect::node_time>;
  for (bool with_edge_ids : {false, true}) {
    temporal_graph<Offset, Index> const graph(rng, 40, with_edge_ids);
    for (bool exclude : {false, true}) {
      temporal_setup setup;
      setup.last = last;
      setup.node_times = per_node;
      setup.seed = rng();
      setup.times = per_node ? graph.node_times : graph.edge_times;
      if (exclude) { setup.excluded = graph.excluded; }
      // Every node once plus repeats, each row with its own query time (some before every edge).
      std::vector<Index> seeds(graph.indptr.size() - 1);
      std::iota(seeds.begin(), seeds.end(), Index{0});
      std::shuffle(seeds.begin(), seeds.end(), rng);
      seeds.push_back(Index{3});
      seeds.push_back(Index{3});
      seeds.push_back(Index{7});
      std::vector<std::int64_t> query(seeds.size());
      for (auto& t : query) { t = static_cast<std::int64_t>(rng() % 70) - 20; }
      gnndirect::temporal_sampler<Strategy, TimeForm> sampler;
      sampler.seed = setup.seed;
      sampler.times = setup.times.data();
      sampler.num_times = static_cast<std::int64_t>(setup.times.size());
      // The last two rows have no time: they must sample nothing.
      sampler = sampler.with_query_times(query.data(), static_cast<std::int64_t>(query.size()) - 2);
      sampler.excluded_edges = setup.excluded.empty() ? nullptr : setup.excluded.data();
      sampler.num_excluded = static_cast<std::int64_t>(setup.excluded.size());
      for (int lanes : {1, 8, 32}) {
        for (int fanout : {1 + static_cast<int>(rng() % 6), 20 + static_cast<int>(rng() % 40)}) {
          int const layer = static_cast<int>(rng() % 3);
          CAPTURE(with_edge_ids);
          CAPTURE(exclude);
          CAPTURE(lanes);
          CAPTURE(fanout);
          CAPTURE(layer);
          check_rows(graph, setup, sampler, seeds, fanout, layer, lanes);
        }
      }
    }
  }
}

TEST_CASE("temporal samplers on an emulated tile equal the host implementation bit for bit")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  using gnndirect::edge_time;
  using gnndirect::node_time;
  using gnndirect::temporal_last;
  using gnndirect::temporal_uniform;
  check_strategy<temporal_uniform, edge_time, std::int64_t, std::int64_t>(seed);
  check_strategy<temporal_last, edge_time, std::int64_t, std::int64_t>(seed + 1);
  check_strategy<temporal_uniform, node_time, std::int32_t, std::int32_t>(seed + 2);
  check_strategy<temporal_last, node_time, std::int64_t, std::int32_t>(seed + 3);
}

TEST_CASE("temporal samplers: nothing eligible, a tile without a row and the uniform draws' spread")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  temporal_graph<std::int64_t, std::int64_t> const graph(rng, 16, false);
  auto const csr = graph.view();
  std::int64_t const early = -1000;  // before every edge
  gnndirect::temporal_sampler<> sampler{rng(), graph.edge_times.data(), csr.num_edges, &early, 1};
  std::vector<std::int64_t> ids(16, -5), eids(16, -5);
  std::vector<std::uint64_t> scratch(gnndirect::sample_scratch_bytes(sampler, 16, 8) / 8);
  std::int64_t with_row = -1, without_row = -1;
  run_tile(8, [&](const emulated_tile& tile) {
    std::int64_t const a = gnndirect::sample_neighbors_tile(tile, csr, 3, 16, 0, sampler, scratch.data(), ids.data(),
                                                           eids.data(), 0);
    std::int64_t const b = gnndirect::sample_neighbors_tile(tile, csr, 3, 16, 0, sampler, scratch.data(), ids.data(),
                                                           eids.data());
    if (tile.thread_rank() == 0) {
      with_row = a;
      without_row = b;
    }
  });
  CHECK(with_row == 0);
  CHECK(without_row == 0);
  CHECK(std::all_of(ids.begin(), ids.end(), [](std::int64_t v) { return v == -5; }));
  // Uniform among the eligible: on node 7 with about half of its edges eligible, each eligible
  // position is drawn about fanout / eligible of the time over many draws, and no other ever
  // (a biased rank-to-position mapping would show).
  std::int64_t const middle = 15;
  temporal_setup setup;
  setup.times = graph.edge_times;
  std::int64_t const first = csr.indptr[7];
  std::int64_t const degree = csr.degree(7);
  std::vector<std::int64_t> hits(static_cast<std::size_t>(degree), 0);
  std::int64_t eligible = 0;
  for (std::int64_t p = 0; p < degree; ++p) { eligible += graph.edge_times[static_cast<std::size_t>(first + p)] <= middle; }
  REQUIRE(eligible > 60);
  int const trials = 3000;
  int const fanout = 30;
  for (int t = 0; t < trials; ++t) {
    setup.seed = rng();
    for (std::int64_t p : gnndirect::test::temporal_positions(csr, setup, 7, middle, fanout, 0)) { ++hits[static_cast<std::size_t>(p)]; }
  }
  double const expected = double{fanout} * trials / static_cast<double>(eligible);
  CAPTURE(expected);
  std::int64_t wrong = 0;
  double lo = 1e30, hi = 0;
  for (std::int64_t p = 0; p < degree; ++p) {
    auto const h = static_cast<double>(hits[static_cast<std::size_t>(p)]);
    if (graph.edge_times[static_cast<std::size_t>(first + p)] > middle) {
      wrong += h > 0;
    } else {
      lo = std::min(lo, h);
      hi = std::max(hi, h);
    }
  }
  CHECK(wrong == 0);
  CHECK(lo > expected - 6 * std::sqrt(expected));
  CHECK(hi < expected + 6 * std::sqrt(expected));
}

TEST_CASE("the host temporal blocks never hold an edge later than a seed that reaches it")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  temporal_graph<std::int64_t, std::int32_t> const graph(rng, 60, true);
  auto const csr = graph.view();
  for (bool last : {false, true}) {
    temporal_setup setup;
    setup.last = last;
    setup.seed = rng();
    setup.times = graph.edge_times;
    auto const seeds = gnndirect::test::random_indices<std::int32_t>(rng, 25, 60);
    std::vector<std::int64_t> times(seeds.size());
    for (auto& t : times) { t = static_cast<std::int64_t>(rng() % 50) - 10; }
    std::vector<std::vector<std::int64_t>> row_times;
    auto const blocks = gnndirect::test::temporal_blocks_reference(csr, setup, seeds, times, {5, 4, 3}, &row_times);
    // Edge id -> time (edge ids are shuffled positions).
    std::vector<std::int64_t> time_of_id(graph.edge_times.size());
    for (std::size_t e = 0; e < graph.edge_times.size(); ++e) { time_of_id[static_cast<std::size_t>(graph.edge_ids[e])] = graph.edge_times[e]; }
    std::int64_t violations = 0;
    std::int64_t edges = 0;
    for (std::size_t s = 0; s < seeds.size(); ++s) {
      std::vector<std::int64_t> rows{static_cast<std::int64_t>(s)};
      for (auto const& b : blocks.layers) {
        std::vector<std::int64_t> next;
        for (std::int64_t r : rows) {
          for (auto e = b.offsets[static_cast<std::size_t>(r)]; e < b.offsets[static_cast<std::size_t>(r) + 1]; ++e) {
            ++edges;
            violations += time_of_id[static_cast<std::size_t>(b.edge_ids[static_cast<std::size_t>(e)])] > times[s];
            next.push_back(b.indices[static_cast<std::size_t>(e)]);
          }
        }
        rows = next;
      }
    }
    CAPTURE(last);
    CHECK(edges > 0);
    CHECK(violations == 0);
    REQUIRE(row_times.size() == 3);
    CHECK(row_times[0] == times);
  }
}

}  // namespace

TEST_CASE("typed temporal oracle: with every time eligible it is the typed reference; no edge after its row's time")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  auto const host = gnndirect::host::generate_typed<std::int64_t, std::int32_t>(gnndirect::typed_preset::ogbn_mag, 1e-3,
                                                                                 seed);
  auto const graph = host.view();
  gnndirect::test::typed_times const times(rng, graph);
  auto const& schema = host.schema;
  std::vector<std::vector<std::int32_t>> seeds(static_cast<std::size_t>(schema.num_node_types()));
  std::vector<std::vector<std::int64_t>> seed_times(seeds.size());
  for (int const t : {schema.node_type("paper"), schema.node_type("author")}) {
    for (int i = 0; i < 40; ++i) {
      seeds[static_cast<std::size_t>(t)].push_back(
        static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(host.num_nodes[static_cast<std::size_t>(t)])));
      seed_times[static_cast<std::size_t>(t)].push_back(static_cast<std::int64_t>(rng() % 40));
    }
  }
  std::vector<std::uint64_t> const keys(static_cast<std::size_t>(graph.num_relations), rng());
  auto const fanouts = gnndirect::typed_fanouts_of(schema, std::vector<int>{6, 4, 3});

  SUBCASE("all times eligible, nothing excluded: the typed reference with uniform_sampler")
  {
    std::vector<std::vector<std::int64_t>> late(seed_times.size());
    for (std::size_t t = 0; t < late.size(); ++t) { late[t].assign(seed_times[t].size(), 1000); }
    auto const got = gnndirect::test::typed_temporal_blocks_reference(
      graph, times.setups(graph, false, false, keys, false), seeds, late, fanouts);
    std::vector<const std::int32_t*> pointers;
    std::vector<std::int64_t> counts;
    for (auto const& s : seeds) {
      pointers.push_back(s.data());
      counts.push_back(static_cast<std::int64_t>(s.size()));
    }
    auto const want = gnndirect::host::sample_typed_blocks_reference(
      graph, gnndirect::typed_seeds_of(pointers, counts), fanouts, gnndirect::uniform_sampler{keys[0]});
    REQUIRE(got.blocks.node_types.size() == want.node_types.size());
    for (std::size_t t = 0; t < want.node_types.size(); ++t) {
      CHECK(got.blocks.node_types[t].nodes == want.node_types[t].nodes);
      CHECK(got.blocks.node_types[t].counts == want.node_types[t].counts);
    }
    for (std::size_t l = 0; l < want.layers.size(); ++l) {
      for (std::size_t r = 0; r < want.layers[l].size(); ++r) {
        CHECK(got.blocks.layers[l][r].offsets == want.layers[l][r].offsets);
        CHECK(got.blocks.layers[l][r].indices == want.layers[l][r].indices);
        CHECK(got.blocks.layers[l][r].edge_ids == want.layers[l][r].edge_ids);
      }
    }
  }
  for (bool const last : {false, true}) {
    for (bool const per_node : {false, true}) {
      CAPTURE(last);
      CAPTURE(per_node);
      auto const setups = times.setups(graph, last, per_node, keys, true);
      auto const got = gnndirect::test::typed_temporal_blocks_reference(graph, setups, seeds, seed_times, fanouts);
      std::int64_t edges = 0;
      CHECK(gnndirect::test::count_later_edges(setups, seed_times, got.blocks, &edges) == 0);
      CHECK(edges > 100);  // the check saw real work
      // and the oracle's own times are the ones the walk recomputes: never after a seed's time
      for (std::size_t t = 0; t < got.times.size(); ++t) {
        for (std::size_t i = seed_times[t].size(); i < got.times[t].size(); ++i) { CHECK(got.times[t][i] < 40); }
      }
    }
  }
}
