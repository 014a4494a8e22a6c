// Host tests that run the library's device sampling code (sample_neighbors_tile and the samplers'
// sample members) on an emulated tile of 1..32 lanes (test/support/emulated_tile.hpp), against
// the independent host reference (reference/sample_reference.hpp) bit for bit. No GPU needed; the
// GPU tests (test_gpu_sampling, test_gpu_device_layer) check the same code on the device.
#include <doctest/doctest.h>

#include <gnndirect/device/sample_neighbors_tile.cuh>
#include <gnndirect/reference/sample_reference.hpp>

#include "support/emulated_tile.hpp"
#include "support/random.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

namespace {

using gnndirect::test::emulated_tile;
using gnndirect::test::run_tile;

/// The emulated tile itself: shfl, ballot and sync behave as a warp's (checked by brute force on
/// random values), and divergence is reported, not hung on.
TEST_CASE("emulated tile: shfl, ballot, sync on random values; divergence and lane errors are reported")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (int lanes : {1, 2, 4, 8, 16, 32}) {
    CAPTURE(lanes);
    constexpr int rounds = 20;
    std::vector<std::uint64_t> values(static_cast<std::size_t>(rounds * lanes));
    std::vector<int> sources(values.size());
    std::vector<unsigned char> predicates(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      values[i] = rng();
      sources[i] = static_cast<int>(rng() % 64);  // also beyond the tile: taken modulo its size
      predicates[i] = static_cast<unsigned char>(rng() % 2);
    }
    std::vector<std::uint64_t> got(values.size(), 0xDEADBEEFu);
    std::vector<unsigned> votes(values.size(), 0xFFFFFFFFu);
    std::vector<unsigned> ranks(static_cast<std::size_t>(lanes), 99);
    std::vector<int> shared(static_cast<std::size_t>(lanes), -1);
    std::vector<int> seen(values.size(), -1);
    run_tile(lanes, [&](const emulated_tile& tile) {
      auto const me = static_cast<int>(tile.thread_rank());
      ranks[static_cast<std::size_t>(me)] = tile.num_threads();
      for (int k = 0; k < rounds; ++k) {
        std::size_t const i = static_cast<std::size_t>(k * lanes + me);
        got[i] = tile.shfl(values[i], sources[i]);
        votes[i] = tile.ballot(predicates[i] != 0);
        shared[static_cast<std::size_t>(me)] = k * 100 + me;  // sync: visible to every lane after it
        tile.sync();
        seen[i] = shared[static_cast<std::size_t>((me + 1) % lanes)];
        tile.sync();
      }
    });
    for (int k = 0; k < rounds; ++k) {
      unsigned expected_votes = 0;
      for (int r = 0; r < lanes; ++r) {
        expected_votes |= (predicates[static_cast<std::size_t>(k * lanes + r)] ? 1u : 0u) << r;
      }
      for (int r = 0; r < lanes; ++r) {
        std::size_t const i = static_cast<std::size_t>(k * lanes + r);
        CHECK(got[i] == values[static_cast<std::size_t>(k * lanes + sources[i] % lanes)]);
        CHECK(votes[i] == expected_votes);
        CHECK(seen[i] == k * 100 + (r + 1) % lanes);
      }
    }
    for (unsigned n : ranks) { CHECK(n == static_cast<unsigned>(lanes)); }
  }
  // Lanes at different collectives, a lane that returns early, and a lane that throws.
  CHECK_THROWS_AS(run_tile(4, [](const emulated_tile& t) {
                    if (t.thread_rank() == 2) { (void)t.ballot(true); } else { t.sync(); }
                  }),
                  std::logic_error);
  CHECK_THROWS_AS(run_tile(8, [](const emulated_tile& t) {
                    if (t.thread_rank() != 5) { t.sync(); }
                  }),
                  std::logic_error);
  CHECK_THROWS_AS(run_tile(8, [](const emulated_tile& t) {
                    if (t.thread_rank() == 3) { throw std::runtime_error("lane 3"); }
                    t.sync();
                  }),
                  std::runtime_error);
  CHECK_THROWS_AS(run_tile(3, [](const emulated_tile&) {}), std::invalid_argument);
}

/// A random CSR graph: degrees 0..200 (most small), a few huge lists, random ids, weights with
/// ineligible values (zero, negative, NaN) and a node whose weights are all ineligible.
template <class Offset, class Index>
struct random_graph {
  std::vector<Offset> indptr;
  std::vector<Index> indices;
  std::vector<float> weights;
  std::vector<Offset> edge_ids;

  random_graph(std::mt19937_64& rng, std::int64_t nodes, bool with_edge_ids)
  {
    indptr.push_back(0);
    for (std::int64_t v = 0; v < nodes; ++v) {
      std::int64_t degree = 0;
      auto const kind = rng() % 100;
      if (v == 3) {
        degree = 4000 + static_cast<std::int64_t>(rng() % 8000);  // huge
      } else if (v == 7) {
        degree = 513 + static_cast<std::int64_t>(rng() % 1500);
      } else if (kind < 10) {
        degree = 0;
      } else if (kind < 70) {
        degree = static_cast<std::int64_t>(rng() % 24);
      } else {
        degree = static_cast<std::int64_t>(rng() % 201);
      }
      indptr.push_back(static_cast<Offset>(indptr.back() + degree));
    }
    auto const edges = static_cast<std::size_t>(indptr.back());
    indices.resize(edges);
    weights.resize(edges);
    for (std::size_t e = 0; e < edges; ++e) {
      indices[e] = static_cast<Index>(rng() % static_cast<std::uint64_t>(nodes));
      auto const kind = rng() % 100;
      std::uniform_real_distribution<float> positive(1e-3f, 10.0f);
      weights[e] = kind < 8 ? 0.0f : kind < 11 ? -positive(rng) : kind < 13 ? std::nanf("") : positive(rng);
    }
    for (Offset e = indptr[5]; e < indptr[6]; ++e) { weights[static_cast<std::size_t>(e)] = 0.0f; }
    if (with_edge_ids) {
      edge_ids.resize(edges);
      std::iota(edge_ids.begin(), edge_ids.end(), Offset{0});
      std::shuffle(edge_ids.begin(), edge_ids.end(), rng);
    }
  }

  gnndirect::csr_view<Offset, Index> view() const
  {
    gnndirect::csr_view<Offset, Index> csr;
    csr.indptr = indptr.data();
    csr.indices = indices.data();
    csr.weights = weights.data();
    csr.edge_ids = edge_ids.empty() ? nullptr : edge_ids.data();
    csr.num_nodes = static_cast<std::int64_t>(indptr.size()) - 1;
    csr.num_edges = static_cast<std::int64_t>(indptr.back());
    csr.indptr_kind = gnndirect::memory_kind::pinned;  // host-readable (the reference reads it)
    csr.indices_kind = gnndirect::memory_kind::pinned;  // host-readable (the reference reads it)
    return csr;
  }
};

constexpr int guard_slots = 8;  ///< poisoned slots after each node's fanout slots

/// Samples every seed with sample_neighbors_tile on an emulated tile of `lanes` (one tile walks
/// all seeds, as a kernel's tile walks its share) and compares with the host reference: counts
/// on every lane, ids and edge ids in slot order, untouched slots past the count, guard slots
/// after each node's slots and after the scratch.
template <class Offset, class Index, class Sampler>
void check_against_reference(const random_graph<Offset, Index>& graph, const std::vector<Index>& seeds,
                             int fanout, int layer, const Sampler& sampler, int lanes)
{
  auto const csr = graph.view();
  auto const n = static_cast<std::int64_t>(seeds.size());
  auto const reference =
    gnndirect::host::sample_neighbors_reference(csr, seeds.data(), n, fanout, layer, sampler, 1);

  std::size_t const per_node = static_cast<std::size_t>(fanout) + guard_slots;
  Index const poison_id = static_cast<Index>(-123457);
  Offset const poison_eid = static_cast<Offset>(-765433);
  std::vector<Index> out_ids(static_cast<std::size_t>(n) * per_node, poison_id);
  std::vector<Offset> out_eids(out_ids.size(), poison_eid);
  std::size_t const scratch_bytes = gnndirect::sample_scratch_bytes(sampler, fanout, lanes);
  REQUIRE(scratch_bytes % 16 == 0);
  constexpr std::uint64_t scratch_guard = 0x5AC3'77E1'0F0F'A5A5u;
  std::vector<std::uint64_t> scratch(scratch_bytes / 8 + guard_slots, scratch_guard);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(n * lanes), -1);

  run_tile(lanes, [&](const emulated_tile& tile) {
    for (std::int64_t i = 0; i < n; ++i) {
      std::size_t const at = static_cast<std::size_t>(i) * per_node;
      counts[static_cast<std::size_t>(i * lanes + tile.thread_rank())] = gnndirect::sample_neighbors_tile(
        tile, csr, static_cast<std::int64_t>(seeds[static_cast<std::size_t>(i)]), fanout, layer, sampler,
        scratch_bytes > 0 ? scratch.data() : nullptr, out_ids.data() + at, out_eids.data() + at);
    }
  });

  for (std::int64_t i = 0; i < n; ++i) {
    auto const begin = reference.offsets[static_cast<std::size_t>(i)];
    auto const count = reference.offsets[static_cast<std::size_t>(i) + 1] - begin;
    CAPTURE(i);
    CAPTURE(seeds[static_cast<std::size_t>(i)]);
    CAPTURE(csr.degree(seeds[static_cast<std::size_t>(i)]));
    for (int r = 0; r < lanes; ++r) { REQUIRE(counts[static_cast<std::size_t>(i * lanes + r)] == count); }
    std::size_t const at = static_cast<std::size_t>(i) * per_node;
    for (std::int64_t s = 0; s < count; ++s) {
      CHECK(out_ids[at + static_cast<std::size_t>(s)] == reference.neighbors[static_cast<std::size_t>(begin + s)]);
      CHECK(out_eids[at + static_cast<std::size_t>(s)] == reference.edge_ids[static_cast<std::size_t>(begin + s)]);
    }
    for (std::size_t s = static_cast<std::size_t>(count); s < per_node; ++s) {
      CHECK(out_ids[at + s] == poison_id);
      CHECK(out_eids[at + s] == poison_eid);
    }
  }
  for (std::size_t w = scratch_bytes / 8; w < scratch.size(); ++w) { CHECK(scratch[w] == scratch_guard); }
}

template <class Offset, class Index>
void check_all_samplers(std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  for (bool with_edge_ids : {false, true}) {
    random_graph<Offset, Index> const graph(rng, 48, with_edge_ids);
    // Every node once, then some again (a node sampled twice gets the same neighbours).
    std::vector<Index> seeds(graph.indptr.size() - 1);
    std::iota(seeds.begin(), seeds.end(), Index{0});
    std::shuffle(seeds.begin(), seeds.end(), rng);
    seeds.push_back(seeds.front());
    seeds.push_back(Index{3});
    for (int lanes : {1, 8, 16, 32}) {
      int const fanouts[] = {1 + static_cast<int>(rng() % 12), 25 + static_cast<int>(rng() % 50)};
      for (int fanout : fanouts) {
        int const layer = static_cast<int>(rng() % 4);
        std::uint64_t const sampler_seed = rng();
        CAPTURE(with_edge_ids);
        CAPTURE(lanes);
        CAPTURE(fanout);
        CAPTURE(layer);
        CAPTURE(sampler_seed);
        check_against_reference(graph, seeds, fanout, layer, gnndirect::uniform_sampler{sampler_seed}, lanes);
        check_against_reference(graph, seeds, fanout, layer,
                                gnndirect::uniform_with_replacement_sampler{sampler_seed}, lanes);
        check_against_reference(graph, seeds, fanout, layer, gnndirect::weighted_sampler{sampler_seed}, lanes);
      }
    }
  }
}

// T: (offset type, id type).
TEST_CASE_TEMPLATE("samplers on an emulated tile of 1, 8, 16, 32 lanes equal the host reference bit for bit", T,
                   std::pair<std::int64_t, std::int64_t>, std::pair<std::int32_t, std::int32_t>)
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  check_all_samplers<typename T::first_type, typename T::second_type>(seed);
}

/// A corrupt neighbour list (decreasing indptr, a list past num_edges, a negative start) samples
/// nothing and writes nothing, with every sampler and tile size; valid lists around it still
/// sample their min(degree, fanout) neighbours.
TEST_CASE("a corrupt neighbour list samples nothing on an emulated tile")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  //                  node: 0  1   2  3   4   5
  std::vector<std::int64_t> indptr = {0, 30, 12, 40, 40, 500, -5};  // 1: decreasing; 4: past the end
  indptr.push_back(20);                                              // 6: starts at -5
  std::int64_t const num_edges = 40;
  std::vector<std::int64_t> indices(static_cast<std::size_t>(num_edges));
  for (auto& id : indices) { id = static_cast<std::int64_t>(rng() % 7); }
  std::vector<float> weights(indices.size(), 1.0f);
  gnndirect::csr_view<std::int64_t, std::int64_t> csr;
  csr.indptr = indptr.data();
  csr.indices = indices.data();
  csr.weights = weights.data();
  csr.num_nodes = static_cast<std::int64_t>(indptr.size()) - 1;
  csr.num_edges = num_edges;
  csr.indptr_kind = gnndirect::memory_kind::pinned;  // host-readable (the reference reads it)
  csr.indices_kind = gnndirect::memory_kind::pinned;  // host-readable (the reference reads it)
  int const fanout = 10;
  std::vector<std::int64_t> const nodes = {0, 1, 2, 4, 5, 6};
  std::vector<std::int64_t> const expected = {10, 0, 10, 0, 0, 0};
  auto run = [&](auto sampler) {
    for (int lanes : {1, 8, 32}) {
      CAPTURE(lanes);
      std::vector<std::int64_t> ids(nodes.size() * fanout, -99);
      std::vector<std::int64_t> eids(ids.size(), -98);
      std::vector<std::uint64_t> scratch(gnndirect::sample_scratch_bytes(sampler, fanout, lanes) / 8 + 1);
      std::vector<std::int64_t> counts(nodes.size() * static_cast<std::size_t>(lanes), -1);
      run_tile(lanes, [&](const emulated_tile& tile) {
        for (std::size_t i = 0; i < nodes.size(); ++i) {
          counts[i * static_cast<std::size_t>(lanes) + tile.thread_rank()] = gnndirect::sample_neighbors_tile(
            tile, csr, nodes[i], fanout, 0, sampler, scratch.data(), ids.data() + i * fanout, eids.data() + i * fanout);
        }
      });
      for (std::size_t i = 0; i < nodes.size(); ++i) {
        CAPTURE(nodes[i]);
        for (int r = 0; r < lanes; ++r) {
          CHECK(counts[i * static_cast<std::size_t>(lanes) + static_cast<std::size_t>(r)] == expected[i]);
        }
        if (expected[i] == 0) {
          for (int s = 0; s < fanout; ++s) {
            CHECK(ids[i * fanout + static_cast<std::size_t>(s)] == -99);
            CHECK(eids[i * fanout + static_cast<std::size_t>(s)] == -98);
          }
        }
      }
    }
  };
  run(gnndirect::uniform_sampler{rng()});
  run(gnndirect::uniform_with_replacement_sampler{rng()});
  run(gnndirect::weighted_sampler{rng()});
}

/// A sampler's emit outside the slots it was given is refused (nothing written) and recorded as
/// the first (row, slot) pair: what keeps a faulty sampler inside the bulk calls' slot arrays
/// (issue #42; the GPU side is test/gpu/test_count_guards.cu). Without slots set, emit checks
/// nothing (outputs built by callers from the five pointers alone).
TEST_CASE("sampled_output::emit refuses a slot outside [0, slots) and records the first (row, slot)")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::vector<std::int32_t> indices(40);
  for (auto& id : indices) { id = static_cast<std::int32_t>(rng() % 1000); }
  int const slots = 4;
  std::vector<std::int32_t> ids(slots + 2, -7);  // two guard entries past the slots
  std::vector<std::int64_t> eids(slots + 2, -8);
  gnndirect::detail::error_record record{gnndirect::detail::no_bad_position, 0};
  std::int64_t const first = 3 + static_cast<std::int64_t>(rng() % 10);
  gnndirect::sampled_output<std::int64_t, std::int32_t> const out{indices.data(), nullptr, first, ids.data(),
                                                                  eids.data(), slots, &record, 17};
  out.emit(0, slots);   // one past: refused, recorded
  out.emit(1, -1);      // refused; the same row, so the record keeps its first value
  out.emit(2, slots - 1);
  CHECK(record.position == 17);
  CHECK(record.value == slots);
  CHECK(ids[slots - 1] == indices[static_cast<std::size_t>(first + 2)]);
  CHECK(eids[slots - 1] == first + 2);
  CHECK(ids[slots] == -7);
  CHECK(ids[slots + 1] == -7);
  CHECK(std::count(ids.begin(), ids.end(), -7) == static_cast<std::ptrdiff_t>(ids.size()) - 1);
  auto lower = out;
  lower.row = 5;
  lower.emit(0, slots + 3);  // an earlier row lowers the record, with its own value
  CHECK(record.position == 5);
  CHECK(record.value == slots + 3);
  gnndirect::sampled_output<std::int64_t, std::int32_t> const unchecked{indices.data(), nullptr, first, ids.data(),
                                                                        eids.data()};
  unchecked.emit(1, slots + 1);  // no slots given: written
  CHECK(ids[slots + 1] == indices[static_cast<std::size_t>(first + 1)]);
  CHECK(record.position == 5);
}

}  // namespace
