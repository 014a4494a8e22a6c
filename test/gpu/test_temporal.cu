// GPU tests of temporal sampling: the library's temporal_sampler (device/temporal_samplers.hpp)
// one hop through sample_neighbors_async and three layers through sample_temporal_blocks_async
// (algorithms/sample_temporal_blocks_async.cuh), both strategies and time forms, with and without
// excluded edges, graph in HBM and in host memory (managed_host), bit for bit against the
// independent host implementation (test/support/temporal_reference.hpp) on fresh random graphs;
// every seed's tree walked to check that no block holds an edge after that seed's time; and the
// bad inputs (times of the wrong length, missing times, seeds without times) refused before
// anything is written.
#include <doctest/doctest.h>

#include "support/random.hpp"
#include "support/temporal_reference.hpp"
#include "support/transfer.hpp"

#include <gnndirect/algorithms/sample_neighbors_async.cuh>
#include <gnndirect/algorithms/sample_temporal_blocks_async.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/device/temporal_samplers.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/cuda_handles.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using gnndirect::block_bounds;
using gnndirect::buffer;
using gnndirect::memory_kind;
using gnndirect::test::temporal_graph;
using gnndirect::test::temporal_setup;
using gnndirect::test::to_buffer;
using gnndirect::test::to_host;

/// A temporal_graph's device copy: indptr in HBM, indices, edge ids and times in `kind`.
template <class Offset, class Index>
struct device_graph {
  buffer<Offset> indptr, edge_ids;
  buffer<Index> indices;
  buffer<std::int64_t> edge_times, node_times, excluded;
  gnndirect::csr_view<Offset, Index> csr;

  device_graph(const temporal_graph<Offset, Index>& g, memory_kind kind)
  {
    indptr = to_buffer(g.indptr);
    indices = to_buffer(g.indices, kind);
    edge_ids = to_buffer(g.edge_ids, kind);
    edge_times = to_buffer(g.edge_times, kind);
    node_times = to_buffer(g.node_times, kind);
    excluded = to_buffer(g.excluded);
    csr = g.view();
    csr.indptr = indptr.data();
    csr.indices = indices.data();
    csr.edge_ids = g.edge_ids.empty() ? nullptr : edge_ids.data();
    csr.indptr_kind = memory_kind::device;
    csr.indices_kind = kind;
  }
};

constexpr std::int64_t guard = 32;  // poisoned entries past each bound that must stay untouched

/// Bound-sized outputs of every layer plus a poisoned guard.
template <class Offset, class Index>
struct guarded_blocks {
  std::vector<block_bounds> bounds;
  std::vector<buffer<Index>> src, indices;
  std::vector<buffer<std::int64_t>> offsets;
  std::vector<buffer<Offset>> edge_ids;
  buffer<std::int64_t> counts;

  explicit guarded_blocks(std::vector<block_bounds> b) : bounds(std::move(b))
  {
    auto const n = [](std::int64_t x) { return static_cast<std::size_t>(x + guard); };
    for (auto const& l : bounds) {
      src.emplace_back(n(l.num_src), memory_kind::device);
      offsets.emplace_back(n(l.num_dst + 1), memory_kind::device);
      indices.emplace_back(n(l.num_edges), memory_kind::device);
      edge_ids.emplace_back(n(l.num_edges), memory_kind::device);
    }
    counts = buffer<std::int64_t>(2 * bounds.size(), memory_kind::device);
    poison();
  }
  gnndirect::sampled_blocks_view<Offset, Index> view() const
  {
    gnndirect::sampled_blocks_view<Offset, Index> out;
    for (std::size_t l = 0; l < bounds.size(); ++l) {
      out.layers.push_back({src[l].data(), offsets[l].data(), indices[l].data(), edge_ids[l].data(),
                            counts.data() + 2 * l, counts.data() + 2 * l + 1, bounds[l]});
    }
    return out;
  }
  void poison() const
  {
    for (std::size_t l = 0; l < bounds.size(); ++l) {
      gnndirect::test::fill_bytes(src[l].data(), 0xFF, src[l].bytes());
      gnndirect::test::fill_bytes(offsets[l].data(), 0xFF, offsets[l].bytes());
      gnndirect::test::fill_bytes(indices[l].data(), 0xFF, indices[l].bytes());
      gnndirect::test::fill_bytes(edge_ids[l].data(), 0xFF, edge_ids[l].bytes());
    }
    gnndirect::test::fill_bytes(counts.data(), 0xFF, counts.bytes());
  }
  /// True when nothing at all was written (every entry still the poison).
  bool untouched() const
  {
    auto const all_poison = [](auto const& v) {
      return std::all_of(v.begin(), v.end(), [](auto x) { return x == static_cast<decltype(x)>(-1); });
    };
    bool ok = all_poison(to_host(counts.data(), static_cast<std::int64_t>(counts.size())));
    for (std::size_t l = 0; l < bounds.size(); ++l) {
      ok = ok && all_poison(to_host(src[l].data(), static_cast<std::int64_t>(src[l].size())));
      ok = ok && all_poison(to_host(indices[l].data(), static_cast<std::int64_t>(indices[l].size())));
    }
    return ok;
  }
};

template <class T>
bool poison_from(const std::vector<T>& v, std::int64_t begin)
{
  return std::all_of(v.begin() + begin, v.end(), [](T x) { return x == static_cast<T>(-1); });
}

/// Compares the GPU blocks with the host implementation (valid prefixes equal, nothing past them
/// written) and walks every seed's tree in the GPU output: no edge later than the seed's time.
template <class Offset, class Index>
void check_blocks(const guarded_blocks<Offset, Index>& out,
                  const gnndirect::host::reference_blocks<Offset, Index>& expected,
                  const std::vector<std::int64_t>& time_of_id, const std::vector<std::int64_t>& node_times,
                  bool per_node, const std::vector<std::int64_t>& seed_times)
{
  auto const counts = to_host(out.counts.data(), static_cast<std::int64_t>(out.counts.size()));
  std::vector<std::vector<std::int64_t>> offsets_of;
  std::vector<std::vector<Index>> indices_of, src_of;
  std::vector<std::vector<Offset>> edge_ids_of;
  for (std::size_t l = 0; l < out.bounds.size(); ++l) {
    CAPTURE(l);
    auto const& e = expected.layers[l];
    auto const& b = out.bounds[l];
    auto const num_dst = static_cast<std::int64_t>(e.dst_nodes.size());
    auto const num_src = static_cast<std::int64_t>(e.src_nodes.size());
    auto const num_edges = static_cast<std::int64_t>(e.indices.size());
    REQUIRE(counts[2 * l] == num_src);
    REQUIRE(counts[2 * l + 1] == num_edges);
    auto const src = to_host(out.src[l].data(), b.num_src + guard);
    auto const offsets = to_host(out.offsets[l].data(), b.num_dst + 1 + guard);
    auto const indices = to_host(out.indices[l].data(), b.num_edges + guard);
    auto const edge_ids = to_host(out.edge_ids[l].data(), b.num_edges + guard);
    CHECK(std::vector<Index>(src.begin(), src.begin() + num_src) == e.src_nodes);
    CHECK(std::vector<std::int64_t>(offsets.begin(), offsets.begin() + num_dst + 1) == e.offsets);
    CHECK(std::vector<Index>(indices.begin(), indices.begin() + num_edges) == e.indices);
    CHECK(std::vector<Offset>(edge_ids.begin(), edge_ids.begin() + num_edges) == e.edge_ids);
    CHECK(poison_from(src, num_src));
    CHECK(poison_from(offsets, b.num_dst + 1));
    CHECK(poison_from(indices, num_edges));
    CHECK(poison_from(edge_ids, num_edges));
    offsets_of.push_back(offsets);
    indices_of.push_back(indices);
    src_of.push_back(src);
    edge_ids_of.push_back(edge_ids);
  }
  std::int64_t violations = 0;
  std::int64_t walked = 0;
  for (std::size_t s = 0; s < seed_times.size(); ++s) {
    std::vector<std::int64_t> rows{static_cast<std::int64_t>(s)};
    for (std::size_t l = 0; l < out.bounds.size(); ++l) {
      std::vector<std::int64_t> next;
      for (std::int64_t r : rows) {
        for (auto e = offsets_of[l][static_cast<std::size_t>(r)]; e < offsets_of[l][static_cast<std::size_t>(r) + 1]; ++e) {
          auto const local = static_cast<std::size_t>(indices_of[l][static_cast<std::size_t>(e)]);
          std::int64_t const t = per_node ? node_times[static_cast<std::size_t>(src_of[l][local])]
                                          : time_of_id[static_cast<std::size_t>(edge_ids_of[l][static_cast<std::size_t>(e)])];
          violations += t > seed_times[s];
          ++walked;
          next.push_back(static_cast<std::int64_t>(local));
        }
      }
      rows = std::move(next);
    }
  }
  CHECK(walked > 0);
  CHECK(violations == 0);
}

template <class Strategy, class TimeForm, class Offset, class Index>
void check_temporal_blocks(std::uint64_t seed, memory_kind kind)
{
  std::mt19937_64 rng(seed);
  bool constexpr per_node = std::is_same_v<TimeForm, gnndirect::node_time>;
  auto const stream = gnndirect::make_non_blocking_stream();
  for (bool with_edge_ids : {false, true}) {
    temporal_graph<Offset, Index> const g(rng, 2000, with_edge_ids);
    device_graph<Offset, Index> const d(g, kind);
    std::vector<std::int64_t> time_of_id(g.edge_times.size());
    for (std::size_t e = 0; e < g.edge_times.size(); ++e) {
      time_of_id[with_edge_ids ? static_cast<std::size_t>(g.edge_ids[e]) : e] = g.edge_times[e];
    }
    for (bool exclude : {false, true}) {
      for (auto const& fanouts : std::vector<std::vector<int>>{{10, 5, 3}, {2, 0, 25}}) {
        for (int tile : {32, 8}) {
          CAPTURE(with_edge_ids);
          CAPTURE(exclude);
          CAPTURE(fanouts[0]);
          CAPTURE(tile);
          temporal_setup setup;
          setup.last = std::is_same_v<Strategy, gnndirect::temporal_last>;
          setup.node_times = per_node;
          setup.seed = rng();
          auto const& chosen_times = per_node ? g.node_times : g.edge_times;
          gnndirect::test::append(setup.times, chosen_times);
          if (exclude) { gnndirect::test::append(setup.excluded, g.excluded); }
          auto seeds = gnndirect::test::random_indices<Index>(rng, 300, 2000);
          seeds[5] = 3;  // the hub
          seeds[9] = seeds[4];  // a repeat, with another time
          std::vector<std::int64_t> seed_times(seeds.size());
          for (auto& t : seed_times) { t = static_cast<std::int64_t>(rng() % 60) - 15; }
          gnndirect::temporal_sampler<Strategy, TimeForm> sampler;
          sampler.seed = setup.seed;
          sampler.times = per_node ? d.node_times.data() : d.edge_times.data();
          sampler.num_times = static_cast<std::int64_t>(setup.times.size());
          sampler.excluded_edges = exclude ? d.excluded.data() : nullptr;
          sampler.num_excluded = exclude ? static_cast<std::int64_t>(g.excluded.size()) : 0;
          auto const n = static_cast<std::int64_t>(seeds.size());
          guarded_blocks<Offset, Index> const out(gnndirect::sample_blocks_bounds(n, fanouts, d.csr.num_nodes));
          buffer<unsigned char> ws(
            gnndirect::sample_temporal_blocks_workspace_bytes<Offset, Index>(n, fanouts, d.csr.num_nodes),
            memory_kind::device);
          auto const d_seeds = to_buffer(seeds);
          auto const d_times = to_buffer(seed_times);
          gnndirect::sampling_policy const policy{tile, tile == 8 ? 3 : 0, true};
          gnndirect::sample_temporal_blocks_async(stream.get(), d.csr, d_seeds.data(), d_times.data(), n, fanouts,
                                                  sampler, policy, out.view(), {ws.data(), ws.bytes()});
          gnndirect::sample_blocks_check(stream.get(), {ws.data(), ws.bytes()}, fanouts.size(), d.csr.num_nodes);
          auto const expected = gnndirect::test::temporal_blocks_reference(g.view(), setup, seeds, seed_times, fanouts);
          check_blocks(out, expected, time_of_id, g.node_times, per_node, seed_times);
        }
      }
    }
  }
}

TEST_CASE("sample_temporal_blocks_async equals the host implementation and never samples after a seed's time")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  using gnndirect::edge_time;
  using gnndirect::node_time;
  using gnndirect::temporal_last;
  using gnndirect::temporal_uniform;
  for (memory_kind kind : {memory_kind::device, memory_kind::managed_host}) {
    CAPTURE(gnndirect::to_string(kind));
    check_temporal_blocks<temporal_uniform, edge_time, std::int64_t, std::int64_t>(seed, kind);
    check_temporal_blocks<temporal_last, edge_time, std::int64_t, std::int32_t>(seed + 1, kind);
    check_temporal_blocks<temporal_uniform, node_time, std::int32_t, std::int32_t>(seed + 2, kind);
    check_temporal_blocks<temporal_last, node_time, std::int64_t, std::int64_t>(seed + 3, kind);
  }
}

TEST_CASE("one temporal hop through sample_neighbors_async: a query time per seed")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  auto const stream = gnndirect::make_non_blocking_stream();
  temporal_graph<std::int64_t, std::int32_t> const g(rng, 1500, true);
  device_graph<std::int64_t, std::int32_t> const d(g, memory_kind::device);
  for (bool last : {false, true}) {
    auto const seeds = gnndirect::test::random_indices<std::int32_t>(rng, 500, 1500);
    std::vector<std::int64_t> times(seeds.size());
    for (auto& t : times) { t = static_cast<std::int64_t>(rng() % 60) - 15; }
    auto const d_seeds = to_buffer(seeds);
    auto const d_times = to_buffer(times);
    int const fanout = 7;
    auto const n = static_cast<std::int64_t>(seeds.size());
    buffer<std::int32_t> neighbors(static_cast<std::size_t>(n * fanout), memory_kind::device);
    buffer<std::int64_t> edge_ids(static_cast<std::size_t>(n * fanout), memory_kind::device);
    buffer<std::int64_t> counts(static_cast<std::size_t>(n) + 1, memory_kind::device);
    buffer<std::int64_t> offsets(static_cast<std::size_t>(n) + 1, memory_kind::device);
    buffer<unsigned char> ws(gnndirect::sample_neighbors_workspace_bytes(n), memory_kind::device);
    gnndirect::sampled_slots_view<std::int64_t, std::int32_t> const hop{neighbors.data(), edge_ids.data(), counts.data(),
                                                                      offsets.data(), n, n * fanout};
    temporal_setup setup;
    setup.last = last;
    setup.seed = rng();
    gnndirect::test::append(setup.times, g.edge_times);
    std::vector<std::int64_t> ids, eids;
    if (last) {
      gnndirect::temporal_sampler<gnndirect::temporal_last> const s{setup.seed, d.edge_times.data(),
                                                                   d.csr.num_edges, d_times.data(), n};
      gnndirect::sample_neighbors_async(stream.get(), d.csr, d_seeds.data(), n, fanout, 0, s, {}, hop,
                                        {ws.data(), ws.bytes()});
    } else {
      gnndirect::temporal_sampler<gnndirect::temporal_uniform> const s{setup.seed, d.edge_times.data(),
                                                                      d.csr.num_edges, d_times.data(), n};
      gnndirect::sample_neighbors_async(stream.get(), d.csr, d_seeds.data(), n, fanout, 0, s, {}, hop,
                                        {ws.data(), ws.bytes()});
    }
    gnndirect::sample_neighbors_check(stream.get(), {ws.data(), ws.bytes()}, d.csr.num_nodes);
    // The hop's output is fixed-stride slots (seed i owns [i * fanout, (i + 1) * fanout)): compact
    // the counted ones here to compare with the reference's CSR.
    auto const got_offsets = to_host(offsets.data(), n + 1);
    auto const slots = to_host(neighbors.data(), n * fanout);
    auto const slot_eids = to_host(edge_ids.data(), n * fanout);
    std::vector<std::int32_t> got;
    std::vector<std::int64_t> got_eids;
    for (std::int64_t i = 0; i < n; ++i) {
      auto const count = got_offsets[static_cast<std::size_t>(i + 1)] - got_offsets[static_cast<std::size_t>(i)];
      REQUIRE(count >= 0);
      REQUIRE(count <= fanout);
      for (std::int64_t j = 0; j < count; ++j) {
        got.push_back(slots[static_cast<std::size_t>(i * fanout + j)]);
        got_eids.push_back(slot_eids[static_cast<std::size_t>(i * fanout + j)]);
      }
    }
    std::vector<std::int32_t> want;
    std::vector<std::int64_t> want_eids;
    std::vector<std::int64_t> want_offsets{0};
    auto const csr = g.view();
    for (std::size_t i = 0; i < seeds.size(); ++i) {
      for (std::int64_t p : gnndirect::test::temporal_positions(csr, setup, seeds[i], times[i], fanout, 0)) {
        want.push_back(csr.indices[csr.indptr[seeds[i]] + p]);
        want_eids.push_back(csr.edge_ids[csr.indptr[seeds[i]] + p]);
      }
      want_offsets.push_back(static_cast<std::int64_t>(want.size()));
    }
    CAPTURE(last);
    CHECK(got_offsets == want_offsets);
    CHECK(got == want);
    CHECK(got_eids == want_eids);
  }
}

TEST_CASE("temporal bad input: times of the wrong length, no times, seeds without times; nothing written")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  auto const stream = gnndirect::make_non_blocking_stream();
  temporal_graph<std::int64_t, std::int64_t> const g(rng, 300, false);
  device_graph<std::int64_t, std::int64_t> const d(g, memory_kind::device);
  std::vector<int> const fanouts{4, 3};
  auto const seeds = gnndirect::test::random_indices<std::int64_t>(rng, 50, 300);
  std::vector<std::int64_t> times(seeds.size(), 10);
  auto const d_seeds = to_buffer(seeds);
  auto const d_times = to_buffer(times);
  auto const n = static_cast<std::int64_t>(seeds.size());
  guarded_blocks<std::int64_t, std::int64_t> const out(gnndirect::sample_blocks_bounds(n, fanouts, d.csr.num_nodes));
  buffer<unsigned char> ws(gnndirect::sample_temporal_blocks_workspace_bytes<std::int64_t, std::int64_t>(n, fanouts, 300),
                           memory_kind::device);
  auto const run = [&](const auto& sampler, const std::int64_t* seed_times) {
    gnndirect::sample_temporal_blocks_async(stream.get(), d.csr, d_seeds.data(), seed_times, n, fanouts, sampler, {},
                                            out.view(), {ws.data(), ws.bytes()});
  };
  auto const message = [&](const auto& sampler, const std::int64_t* seed_times) -> std::string {
    try {
      run(sampler, seed_times);
    } catch (const gnndirect::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  gnndirect::temporal_sampler<> good{1, d.edge_times.data(), d.csr.num_edges};
  // Edge times of the node count (a node-time array given to the edge form), and the reverse.
  gnndirect::temporal_sampler<> short_times = good;
  short_times.num_times = d.csr.num_nodes;
  CHECK(message(short_times, d_times.data()).find("edge times for a graph of") != std::string::npos);
  gnndirect::temporal_sampler<gnndirect::temporal_last, gnndirect::node_time> node_form{1, d.edge_times.data(),
                                                                                         d.csr.num_edges};
  CHECK(message(node_form, d_times.data()).find("node times for a graph of 300 nodes") != std::string::npos);
  gnndirect::temporal_sampler<> no_times = good;
  no_times.times = nullptr;
  CHECK(message(no_times, d_times.data()).find("times is null") != std::string::npos);
  CHECK(message(good, nullptr).find("seeds without times") != std::string::npos);
  gnndirect::temporal_sampler<> bad_excluded = good;
  bad_excluded.num_excluded = 3;
  CHECK(message(bad_excluded, d_times.data()).find("excluded_edges") != std::string::npos);
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream.get()));
  CHECK(out.untouched());
  // The context is clean: a good run afterwards succeeds.
  run(good, d_times.data());
  gnndirect::sample_blocks_check(stream.get(), {ws.data(), ws.bytes()}, fanouts.size(), d.csr.num_nodes);
  CHECK(to_host(out.counts.data(), 1)[0] >= n);
}

}  // namespace
