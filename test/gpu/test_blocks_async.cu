// GPU tests of sample_blocks_async (no host round trip, bound-sized caller outputs): equality
// with the host reference on fresh random graphs for several fanouts (0 included) and repeated
// seeds, outputs poisoned first and nothing written past the valid prefixes; a CUDA graph
// captured once and replayed with new seeds; the synchronous sample_blocks on a caller's memory
// resource; bad seeds under the async path.
#include <doctest/doctest.h>

#include "support/random.hpp"
#include "support/transfer.hpp"
#include "support/counting_resource.hpp"
#include "support/temporal_sampler.cuh"

#include <gnndirect/algorithms/relabel.cuh>
#include <gnndirect/algorithms/sample_blocks.cuh>
#include <gnndirect/algorithms/sample_neighbors.cuh>
#include <gnndirect/algorithms/sampler_choice.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/reference/sample_reference.hpp>

#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

using gnndirect::test::counting_resource;
using gnndirect::block_bounds;
using gnndirect::buffer;
using gnndirect::csr_view;
using gnndirect::memory_kind;
using gnndirect::sampling_kind;
using gnndirect::sampling_policy;
using gnndirect::test::to_buffer;
using gnndirect::test::to_host;

namespace {

constexpr sampling_kind all_kinds[] = {sampling_kind::uniform_without_replacement,
                                       sampling_kind::uniform_with_replacement,
                                       sampling_kind::weighted_without_replacement};

/// A random graph on the host (skewed degrees, some zero weights, optional edge ids) and its
/// device copy.
template <class Offset, class Index>
struct graph_pair {
  std::vector<Offset> indptr{0};
  std::vector<Index> indices;
  std::vector<float> weights;
  std::vector<Offset> edge_ids;
  buffer<Offset> d_indptr;
  buffer<Index> d_indices;
  buffer<float> d_weights;
  buffer<Offset> d_edge_ids;

  graph_pair(std::int64_t nodes, std::uint64_t seed, bool with_edge_ids)
  {
    std::mt19937_64 rng(seed);
    for (std::int64_t v = 0; v < nodes; ++v) {
      std::uint64_t const r = rng() % 100;
      std::uint64_t const degree = r < 10 ? 0 : r < 80 ? rng() % 20 : r < 98 ? rng() % 150 : rng() % 2000;
      for (std::uint64_t e = 0; e < degree; ++e) {
        indices.push_back(static_cast<Index>(rng() % static_cast<std::uint64_t>(nodes)));
        weights.push_back(rng() % 12 == 0 ? 0.0f : static_cast<float>(rng() % 10000) / 97.0f + 1e-3f);
      }
      indptr.push_back(static_cast<Offset>(indices.size()));
    }
    if (with_edge_ids) {
      for (std::size_t e = 0; e < indices.size(); ++e) { edge_ids.push_back(static_cast<Offset>(3 * e + 1)); }
    }
    d_indptr = to_buffer(indptr);
    d_indices = to_buffer(indices);
    d_weights = to_buffer(weights);
    d_edge_ids = to_buffer(edge_ids);
  }
  csr_view<Offset, Index> host() const { return view(indptr.data(), indices.data(), weights.data(), edge_ids.data()); }
  csr_view<Offset, Index> device() const
  {
    return view(d_indptr.data(), d_indices.data(), d_weights.data(), d_edge_ids.data());
  }

 private:
  csr_view<Offset, Index> view(const Offset* p, const Index* i, const float* w, const Offset* e) const
  {
    csr_view<Offset, Index> v;
    v.indptr = p;
    v.indices = i;
    v.weights = w;
    v.edge_ids = edge_ids.empty() ? nullptr : e;
    v.num_nodes = static_cast<std::int64_t>(indptr.size()) - 1;
    v.num_edges = static_cast<std::int64_t>(indices.size());
    return v;
  }
};

/// Seeds in [0, nodes) with repeats (every 7th repeats an earlier one).
template <class Index>
std::vector<Index> seeds_with_repeats(std::mt19937_64& rng, std::int64_t count, std::int64_t nodes)
{
  auto seeds = gnndirect::test::random_indices<Index>(rng, count, nodes);
  for (std::size_t i = 7; i < seeds.size(); i += 7) { seeds[i] = seeds[rng() % i]; }
  return seeds;
}

constexpr std::int64_t guard = 64;  // poisoned entries past each bound that must stay untouched

/// Caller-allocated outputs of every layer, each `guard` entries longer than its bound, so the
/// test sees writes past the bounds too.
template <class Offset, class Index>
struct guarded_outputs {
  std::vector<block_bounds> bounds;
  std::vector<buffer<Index>> src, indices;
  std::vector<buffer<std::int64_t>> offsets;
  std::vector<buffer<Offset>> edge_ids;
  buffer<std::int64_t> counts;

  guarded_outputs(std::vector<block_bounds> b) : bounds(std::move(b))
  {
    auto const n = [](std::int64_t x) { return static_cast<std::size_t>(x + guard); };
    for (auto const& l : bounds) {
      src.emplace_back(n(l.num_src), memory_kind::device);
      offsets.emplace_back(n(l.num_dst + 1), memory_kind::device);
      indices.emplace_back(n(l.num_edges), memory_kind::device);
      edge_ids.emplace_back(n(l.num_edges), memory_kind::device);
    }
    counts = buffer<std::int64_t>(2 * bounds.size(), memory_kind::device);
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
  void poison(cudaStream_t stream) const
  {
    for (std::size_t l = 0; l < bounds.size(); ++l) {
      GNNDIRECT_CUDA_TRY(cudaMemsetAsync(src[l].data(), 0xFF, src[l].bytes(), stream));
      GNNDIRECT_CUDA_TRY(cudaMemsetAsync(offsets[l].data(), 0xFF, offsets[l].bytes(), stream));
      GNNDIRECT_CUDA_TRY(cudaMemsetAsync(indices[l].data(), 0xFF, indices[l].bytes(), stream));
      GNNDIRECT_CUDA_TRY(cudaMemsetAsync(edge_ids[l].data(), 0xFF, edge_ids[l].bytes(), stream));
    }
    GNNDIRECT_CUDA_TRY(cudaMemsetAsync(counts.data(), 0xFF, counts.bytes(), stream));
  }
};

/// True when every element of `v` from `begin` on is the poison (all bits set, i.e. -1).
template <class T>
bool untouched_from(const std::vector<T>& v, std::int64_t begin)
{
  return std::all_of(v.begin() + begin, v.end(), [](T x) { return x == static_cast<T>(-1); });
}

/// Compares the async outputs with the reference: valid prefixes equal, offsets' tail equal to
/// num_edges up to the bound, nothing else written.
template <class Offset, class Index>
void check_outputs(const guarded_outputs<Offset, Index>& out,
                   const gnndirect::host::reference_blocks<Offset, Index>& expected)
{
  auto const counts = to_host(out.counts.data(), static_cast<std::int64_t>(out.counts.size()));
  for (std::size_t l = 0; l < out.bounds.size(); ++l) {
    CAPTURE(l);
    auto const& e = expected.layers[l];
    auto const& b = out.bounds[l];
    auto const num_dst = static_cast<std::int64_t>(e.dst_nodes.size());
    auto const num_src = static_cast<std::int64_t>(e.src_nodes.size());
    auto const num_edges = static_cast<std::int64_t>(e.indices.size());
    REQUIRE(counts[2 * l] == num_src);
    REQUIRE(counts[2 * l + 1] == num_edges);
    CHECK(num_src <= b.num_src);
    auto const src = to_host(out.src[l].data(), b.num_src + guard);
    auto const offsets = to_host(out.offsets[l].data(), b.num_dst + 1 + guard);
    auto const indices = to_host(out.indices[l].data(), b.num_edges + guard);
    auto const edge_ids = to_host(out.edge_ids[l].data(), b.num_edges + guard);
    CHECK(std::vector<Index>(src.begin(), src.begin() + num_src) == e.src_nodes);
    CHECK(std::vector<std::int64_t>(offsets.begin(), offsets.begin() + num_dst + 1) == e.offsets);
    CHECK(std::vector<Index>(indices.begin(), indices.begin() + num_edges) == e.indices);
    CHECK(std::vector<Offset>(edge_ids.begin(), edge_ids.begin() + num_edges) == e.edge_ids);
    CHECK(std::all_of(offsets.begin() + num_dst + 1, offsets.begin() + b.num_dst + 1,
                      [&](std::int64_t x) { return x == num_edges; }));
    CHECK(untouched_from(src, num_src));
    CHECK(untouched_from(offsets, b.num_dst + 1));
    CHECK(untouched_from(indices, num_edges));
    CHECK(untouched_from(edge_ids, num_edges));
  }
}

/// One async run with `sampler` against `expected`, on fresh poisoned outputs.
template <class Offset, class Index, class Sampler>
void check_async(const graph_pair<Offset, Index>& g, const std::vector<Index>& seeds,
                 const std::vector<int>& fanouts, const Sampler& sampler, const sampling_policy& policy,
                 cudaStream_t stream, const gnndirect::host::reference_blocks<Offset, Index>& expected)
{
  auto const n = static_cast<std::int64_t>(seeds.size());
  csr_view<Offset, Index> const csr = g.device();
  guarded_outputs<Offset, Index> const out(gnndirect::sample_blocks_bounds(n, fanouts, csr.num_nodes));
  buffer<unsigned char> ws(gnndirect::sample_blocks_workspace_bytes<Offset, Index>(n, fanouts, csr.num_nodes),
                           memory_kind::device);
  gnndirect::workspace_view const workspace{ws.data(), ws.bytes()};
  buffer<Index> const d_seeds = to_buffer(seeds);
  out.poison(stream);
  gnndirect::sample_blocks_async(stream, csr, d_seeds.data(), n, fanouts, sampler, policy, out.view(), workspace);
  gnndirect::sample_blocks_check(stream, workspace, fanouts.size(), csr.num_nodes);
  check_outputs(out, expected);
}

/// One async run with a library sampler against the host reference.
template <class Offset, class Index, class Sampler>
void check_async(const graph_pair<Offset, Index>& g, const std::vector<Index>& seeds,
                 const std::vector<int>& fanouts, const Sampler& sampler, const sampling_policy& policy,
                 cudaStream_t stream)
{
  auto const n = static_cast<std::int64_t>(seeds.size());
  check_async(g, seeds, fanouts, sampler, policy, stream,
              gnndirect::host::sample_blocks_reference(g.host(), seeds.data(), n, fanouts, sampler));
}


/// Edge times and node query times for the temporal tests (times in [0, 1000), many ties).
struct temporal_data {
  std::vector<std::int64_t> edge_time;
  std::vector<std::int64_t> query_time;
  buffer<std::int64_t> d_edge_time;
  buffer<std::int64_t> d_query_time;

  temporal_data(std::mt19937_64& rng, std::int64_t edges, std::int64_t nodes)
  {
    for (std::int64_t e = 0; e < edges; ++e) { edge_time.push_back(static_cast<std::int64_t>(rng() % 1000)); }
    for (std::int64_t v = 0; v < nodes; ++v) { query_time.push_back(static_cast<std::int64_t>(rng() % 1100)); }
    d_edge_time = to_buffer(edge_time);
    d_query_time = to_buffer(query_time);
  }
  gnndirect::test::recent_before_sampler sampler() const { return {d_edge_time.data(), d_query_time.data()}; }
};

/// The temporal blocks on the host (support/temporal_sampler.cuh) for a graph_pair.
template <class Offset, class Index>
gnndirect::host::reference_blocks<Offset, Index> temporal_blocks_on_host(const graph_pair<Offset, Index>& g,
                                                                      const temporal_data& t,
                                                                      const std::vector<Index>& seeds,
                                                                      const std::vector<int>& fanouts)
{
  return gnndirect::test::temporal_blocks_on_host(g.host(), t.edge_time, t.query_time, seeds.data(),
                                                  static_cast<std::int64_t>(seeds.size()), fanouts);
}

struct stream_guard {
  cudaStream_t stream{};
  stream_guard() { GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)); }
  ~stream_guard() { (void)cudaStreamDestroy(stream); }
};

}  // namespace

TEST_CASE("sample_blocks_bounds: products, the graph cap, bad arguments")
{
  auto const b = gnndirect::sample_blocks_bounds(10, {3, 0, 2});
  REQUIRE(b.size() == 3);
  CHECK((b[0].num_dst == 10 && b[0].num_edges == 30 && b[0].num_src == 40));
  CHECK((b[1].num_dst == 40 && b[1].num_edges == 0 && b[1].num_src == 40));
  CHECK((b[2].num_dst == 40 && b[2].num_edges == 80 && b[2].num_src == 120));
  auto const capped = gnndirect::sample_blocks_bounds(10, {3, 0, 2}, 25);
  CHECK(capped[0].num_src == 35);
  CHECK(capped[2].num_dst == 35);
  CHECK(capped[2].num_edges == 70);
  CHECK_THROWS_AS(gnndirect::sample_blocks_bounds(-1, {3}), gnndirect::invalid_argument);
  CHECK_THROWS_AS(gnndirect::sample_blocks_bounds(1, {}), gnndirect::invalid_argument);
  CHECK_THROWS_AS(gnndirect::sample_blocks_bounds(1, {-2}), gnndirect::invalid_argument);
  CHECK_THROWS_AS(gnndirect::sample_blocks_bounds(std::int64_t{1} << 40, {1 << 20, 1 << 20}),
                  gnndirect::invalid_argument);
}

TEST_CASE("sample_blocks_async equals the host reference; nothing written past the valid prefixes")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  stream_guard s;
  graph_pair<std::int64_t, std::int32_t> const g64(3000, seed, true);
  graph_pair<std::int32_t, std::int32_t> const g32(2500, seed + 1, false);
  graph_pair<std::int64_t, std::int64_t> const small(40, seed + 2, true);  // the graph cap binds
  std::vector<std::vector<int>> const fanout_lists{{10, 5}, {0, 3}, {4, 0, 2}, {25}, {7, 7, 7}};
  for (auto kind : all_kinds) {
    CAPTURE(gnndirect::to_string(kind));
    for (auto const& fanouts : fanout_lists) {
      CAPTURE(fanouts.size());
      CAPTURE(fanouts.front());
      sampling_policy const policy{kind == sampling_kind::uniform_with_replacement ? 8 : 32, 0, true};
      gnndirect::visit_sampler(kind, rng(), [&](auto sampler) {
        check_async(g64, seeds_with_repeats<std::int32_t>(rng, 300, 3000), fanouts, sampler, policy, s.stream);
        check_async(g32, seeds_with_repeats<std::int32_t>(rng, 77, 2500), fanouts, sampler, policy, s.stream);
        check_async(small, seeds_with_repeats<std::int64_t>(rng, 30, 40), fanouts, sampler, policy, s.stream);
      });
    }
  }
  // No seeds at all: counts 0, offsets[0] = 0.
  check_async(g64, std::vector<std::int32_t>{}, {5, 5}, gnndirect::uniform_sampler{}, sampling_policy{}, s.stream);
}

TEST_CASE("sample_blocks_async captured in a CUDA graph, replayed with new seeds")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  using Offset = std::int64_t;
  using Index = std::int32_t;
  graph_pair<Offset, Index> const g(4000, seed, true);
  csr_view<Offset, Index> const csr = g.device();
  std::int64_t const n = 256;
  std::vector<int> const fanouts{10, 5, 3};
  stream_guard s;
  guarded_outputs<Offset, Index> const out(gnndirect::sample_blocks_bounds(n, fanouts, csr.num_nodes));
  buffer<unsigned char> ws(gnndirect::sample_blocks_workspace_bytes<Offset, Index>(n, fanouts, csr.num_nodes),
                           memory_kind::device);
  gnndirect::workspace_view const workspace{ws.data(), ws.bytes()};
  buffer<Index> d_seeds(static_cast<std::size_t>(n), memory_kind::device);
  for (auto kind : all_kinds) {
    CAPTURE(gnndirect::to_string(kind));
    sampling_policy const policy{16, 0, true};
    gnndirect::visit_sampler(kind, rng(), [&](auto sampler) {
    cudaGraph_t graph{};
    GNNDIRECT_CUDA_TRY(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeThreadLocal));
    gnndirect::sample_blocks_async(s.stream, csr, d_seeds.data(), n, fanouts, sampler, policy, out.view(),
                                   workspace);
    GNNDIRECT_CUDA_TRY(cudaStreamEndCapture(s.stream, &graph));
    cudaGraphExec_t exec{};
    GNNDIRECT_CUDA_TRY(cudaGraphInstantiate(&exec, graph, 0));
    for (int round = 0; round < 2; ++round) {
      CAPTURE(round);
      auto const seeds = seeds_with_repeats<Index>(rng, n, csr.num_nodes);
      GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(d_seeds.data(), seeds.data(), d_seeds.bytes(),
                                         cudaMemcpyHostToDevice, s.stream));
      out.poison(s.stream);
      GNNDIRECT_CUDA_TRY(cudaGraphLaunch(exec, s.stream));
      gnndirect::sample_blocks_check(s.stream, workspace, fanouts.size(), csr.num_nodes);
      check_outputs(out, gnndirect::host::sample_blocks_reference(g.host(), seeds.data(), n, fanouts, sampler));
    }
    GNNDIRECT_CUDA_TRY(cudaGraphExecDestroy(exec));
    GNNDIRECT_CUDA_TRY(cudaGraphDestroy(graph));
    });
  }
}

TEST_CASE("sample_blocks_buffers sized for more seeds serve a smaller batch")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  graph_pair<std::int64_t, std::int64_t> const g(2000, seed, false);
  csr_view<std::int64_t, std::int64_t> const csr = g.device();
  std::vector<int> const fanouts{6, 4};
  stream_guard s;
  counting_resource mr;
  gnndirect::sample_blocks_buffers<std::int64_t, std::int64_t> const storage(500, fanouts, csr.num_nodes,
                                                                            s.stream, mr);
  CHECK(mr.allocations > 0);
  auto const seeds = seeds_with_repeats<std::int64_t>(rng, 123, csr.num_nodes);
  buffer<std::int64_t> const d_seeds = to_buffer(seeds);
  gnndirect::uniform_sampler const sampler{rng()};
  auto const policy = sampling_policy{32, 0, true};
  gnndirect::sample_blocks_async(s.stream, csr, d_seeds.data(), 123, fanouts, sampler, policy, storage.view(),
                                 storage.workspace());
  gnndirect::sample_blocks_check(s.stream, storage.workspace(), fanouts.size(), csr.num_nodes);
  auto const expected = gnndirect::host::sample_blocks_reference(g.host(), seeds.data(), 123, fanouts, sampler);
  auto const counts = to_host(storage.counts(), 4);
  for (std::size_t l = 0; l < fanouts.size(); ++l) {
    auto const& e = expected.layers[l];
    auto const ref = storage.view().layers[l];  // a copy of one layer
    REQUIRE(counts[2 * l] == static_cast<std::int64_t>(e.src_nodes.size()));
    REQUIRE(counts[2 * l + 1] == static_cast<std::int64_t>(e.indices.size()));
    CHECK(to_host(ref.src_nodes, counts[2 * l]) == e.src_nodes);
    CHECK(to_host(ref.indices, counts[2 * l + 1]) == e.indices);
    CHECK(to_host(ref.offsets, static_cast<std::int64_t>(e.offsets.size())) == e.offsets);
  }
}

TEST_CASE("synchronous sample_blocks on a caller's resource and on a pool equals the reference")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  graph_pair<std::int64_t, std::int32_t> const g(3000, seed, true);
  csr_view<std::int64_t, std::int32_t> const csr = g.device();
  stream_guard s;
  counting_resource mr;
  for (auto const& fanouts : std::vector<std::vector<int>>{{8, 4, 2}, {0}, {3, 0}}) {
    auto const seeds = seeds_with_repeats<std::int32_t>(rng, 200, csr.num_nodes);
    buffer<std::int32_t> const d_seeds = to_buffer(seeds);
    gnndirect::weighted_sampler const sampler{rng()};
    sampling_policy const policy{32, 0, true};
    auto const expected = gnndirect::host::sample_blocks_reference(g.host(), seeds.data(), 200, fanouts, sampler);
    std::int64_t const before = mr.allocations;
    auto const on_mr = gnndirect::sample_blocks(s.stream, csr, d_seeds.data(), 200, fanouts, sampler, policy, mr);
    CHECK(mr.allocations > before);
    auto const on_pool = gnndirect::sample_blocks(s.stream, csr, d_seeds.data(), 200, fanouts, sampler, policy,
                                                  cudaMemPool_t{});
    for (auto const* actual : {&on_mr, &on_pool}) {
      REQUIRE(actual->layers.size() == fanouts.size());
      for (std::size_t l = 0; l < fanouts.size(); ++l) {
        CAPTURE(l);
        auto const& a = actual->layers[l];
        auto const& e = expected.layers[l];
        CHECK(to_host(a.dst_nodes.data(), a.num_dst()) == e.dst_nodes);
        CHECK(to_host(a.src_nodes.data(), a.num_src()) == e.src_nodes);
        CHECK(to_host(a.offsets.data(), a.num_dst() + 1) == e.offsets);
        CHECK(to_host(a.indices.data(), a.num_edges()) == e.indices);
        CHECK(to_host(a.edge_ids.data(), a.num_edges()) == e.edge_ids);
      }
    }
    auto const neighbours = gnndirect::sample_neighbors(s.stream, csr, d_seeds.data(), 200, fanouts[0], 0,
                                                        sampler, policy, mr);
    auto const reference = gnndirect::host::sample_neighbors_reference(g.host(), seeds.data(), 200,
                                                                       fanouts[0], 0, sampler);
    CHECK(to_host(neighbours.offsets.data(), 201) == reference.offsets);
    CHECK(to_host(neighbours.neighbors.data(), reference.num_edges()) == reference.neighbors);
  }
}

TEST_CASE("bad seeds under sample_blocks_async: recorded, raised by the check, then a clean run")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  graph_pair<std::int64_t, std::int32_t> const g(1000, seed, false);
  csr_view<std::int64_t, std::int32_t> const csr = g.device();
  std::vector<int> const fanouts{5, 3};
  stream_guard s;
  gnndirect::sample_blocks_buffers<std::int64_t, std::int32_t> const storage(400, fanouts, csr.num_nodes,
                                                                            s.stream);
  auto seeds = seeds_with_repeats<std::int32_t>(rng, 400, csr.num_nodes);
  seeds[311] = 1000;
  seeds[377] = -4;
  buffer<std::int32_t> d_seeds = to_buffer(seeds);
  gnndirect::uniform_sampler const sampler{rng()};
  sampling_policy const policy{32, 0, true};
  auto const check_first_bad_seed_named = [&](const std::vector<int>& layer_fanouts) {
    gnndirect::sample_blocks_buffers<std::int64_t, std::int32_t> const outputs(400, layer_fanouts,
                                                                              csr.num_nodes, s.stream);
    gnndirect::sample_blocks_async(s.stream, csr, d_seeds.data(), 400, layer_fanouts, sampler, policy,
                                   outputs.view(), outputs.workspace());
    try {
      gnndirect::sample_blocks_check(s.stream, outputs.workspace(), layer_fanouts.size(), csr.num_nodes);
      FAIL("expected index_out_of_range");
    } catch (gnndirect::index_out_of_range const& e) {
      CHECK(e.position() == 311);
      CHECK(e.value() == 1000);
      CHECK(std::string(e.what()).find("seeds of layer 0") != std::string::npos);
    }
  };
  check_first_bad_seed_named(fanouts);
  CHECK_THROWS_AS((void)gnndirect::sample_blocks(s.stream, csr, d_seeds.data(), 400, fanouts, sampler, policy),
                  gnndirect::index_out_of_range);
  // A layer that samples nothing (fanout 0) still checks its seeds: the bad one is named there,
  // not passed on unwritten to the next layer.
  check_first_bad_seed_named({0, 3});
  seeds[311] = 1;
  seeds[377] = 2;
  d_seeds = to_buffer(seeds);
  check_async(g, seeds, fanouts, sampler, policy, s.stream);
  CHECK_THROWS_AS(gnndirect::sample_blocks_async(s.stream, csr, d_seeds.data(), 400, fanouts, sampler, policy,
                                                 gnndirect::sampled_blocks_view<std::int64_t, std::int32_t>{},
                                                 storage.workspace()),
                  gnndirect::invalid_argument);
  CHECK_THROWS_AS(gnndirect::sample_blocks_async(s.stream, csr, d_seeds.data(), 400, fanouts, sampler, policy,
                                                 storage.view(), gnndirect::workspace_view{}),
                  gnndirect::invalid_argument);
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("a corrupt neighbour id is reported with its layer and CSR position, not silently dropped")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  graph_pair<std::int64_t, std::int32_t> g(500, seed, false);
  // Seed 0 is node x with >= 3 neighbours; its second stored neighbour is out of range.
  std::int32_t x = 0;
  while (x < 499 && g.indptr[static_cast<std::size_t>(x) + 1] - g.indptr[static_cast<std::size_t>(x)] < 3) { ++x; }
  REQUIRE(g.indptr[static_cast<std::size_t>(x) + 1] - g.indptr[static_cast<std::size_t>(x)] >= 3);
  g.indices[static_cast<std::size_t>(g.indptr[static_cast<std::size_t>(x)]) + 1] = 500;
  g.d_indices = to_buffer(g.indices);
  csr_view<std::int64_t, std::int32_t> const csr = g.device();
  std::vector<int> const fanouts{1000, 2};  // every neighbour of x is taken, in stored order
  std::vector<std::int32_t> const seeds{x, static_cast<std::int32_t>(rng() % 500)};
  buffer<std::int32_t> const d_seeds = to_buffer(seeds);
  stream_guard s;
  gnndirect::sample_blocks_buffers<std::int64_t, std::int32_t> const storage(2, fanouts, csr.num_nodes,
                                                                            s.stream);
  gnndirect::uniform_sampler const sampler{rng()};
  sampling_policy const policy{32, 0, true};
  gnndirect::sample_blocks_async(s.stream, csr, d_seeds.data(), 2, fanouts, sampler, policy, storage.view(),
                                 storage.workspace());
  try {
    gnndirect::sample_blocks_check(s.stream, storage.workspace(), fanouts.size(), csr.num_nodes);
    FAIL("expected index_out_of_range");
  } catch (gnndirect::index_out_of_range const& e) {
    CHECK(e.position() == 1);  // seed 0's second sampled edge
    CHECK(e.value() == 500);
    CHECK(std::string(e.what()).find("sampled neighbours of layer 0") != std::string::npos);
  }
  CHECK_THROWS_AS((void)gnndirect::sample_blocks(s.stream, csr, d_seeds.data(), 2, fanouts, sampler, policy),
                  gnndirect::index_out_of_range);
}

TEST_CASE("a user-written temporal sampler drives three-layer sample_blocks_async, bit-checked on the host")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  stream_guard s;
  graph_pair<std::int64_t, std::int32_t> const g64(3000, seed, true);
  graph_pair<std::int32_t, std::int64_t> const g32(1500, seed + 1, false);
  temporal_data const t64(rng, static_cast<std::int64_t>(g64.indices.size()), 3000);
  temporal_data const t32(rng, static_cast<std::int64_t>(g32.indices.size()), 1500);
  for (auto const& fanouts : std::vector<std::vector<int>>{{10, 5, 3}, {3, 0, 25}, {1, 1, 1}}) {
    CAPTURE(fanouts[0]);
    for (int tile : {32, 8, 1}) {
      CAPTURE(tile);
      sampling_policy const policy{tile, tile == 8 ? 5 : 0, true};
      auto const seeds64 = seeds_with_repeats<std::int32_t>(rng, 200, 3000);
      check_async(g64, seeds64, fanouts, t64.sampler(), policy, s.stream,
                  temporal_blocks_on_host(g64, t64, seeds64, fanouts));
      auto const seeds32 = seeds_with_repeats<std::int64_t>(rng, 90, 1500);
      check_async(g32, seeds32, fanouts, t32.sampler(), policy, s.stream,
                  temporal_blocks_on_host(g32, t32, seeds32, fanouts));
    }
  }
  // The synchronous form takes the user's sampler too.
  auto const seeds = seeds_with_repeats<std::int32_t>(rng, 100, 3000);
  buffer<std::int32_t> const d_seeds = to_buffer(seeds);
  std::vector<int> const fanouts{4, 4, 4};
  auto const blocks = gnndirect::sample_blocks(s.stream, g64.device(), d_seeds.data(), 100, fanouts, t64.sampler());
  auto const expected = temporal_blocks_on_host(g64, t64, seeds, fanouts);
  for (std::size_t l = 0; l < fanouts.size(); ++l) {
    CAPTURE(l);
    auto const& a = blocks.layers[l];
    auto const& e = expected.layers[l];
    CHECK(to_host(a.dst_nodes.data(), a.num_dst()) == e.dst_nodes);
    CHECK(to_host(a.src_nodes.data(), a.num_src()) == e.src_nodes);
    CHECK(to_host(a.offsets.data(), a.num_dst() + 1) == e.offsets);
    CHECK(to_host(a.indices.data(), a.num_edges()) == e.indices);
    CHECK(to_host(a.edge_ids.data(), a.num_edges()) == e.edge_ids);
  }
}

namespace {

/// One hop composed by hand: sample_neighbors_async into slots, then relabel_async into
/// `block` (bound-sized, poisoned by the caller). Returns num_src (one host read).
template <class Offset, class Index, class Sampler>
std::int64_t compose_hop(cudaStream_t stream, const csr_view<Offset, Index>& csr, const Index* dst,
                         std::int64_t num_dst, int fanout, int layer, const Sampler& sampler,
                         const gnndirect::sampled_block_view<Offset, Index>& block)
{
  auto const slots = static_cast<std::size_t>(num_dst * fanout);
  buffer<Index> neighbors(std::max<std::size_t>(slots, 1), memory_kind::device);
  buffer<Offset> edge_ids(std::max<std::size_t>(slots, 1), memory_kind::device);
  buffer<std::int64_t> counts(static_cast<std::size_t>(num_dst) + 1, memory_kind::device);
  buffer<std::int64_t> offsets(static_cast<std::size_t>(num_dst) + 1, memory_kind::device);
  buffer<unsigned char> sample_ws(gnndirect::sample_neighbors_workspace_bytes(num_dst), memory_kind::device);
  buffer<unsigned char> relabel_ws(gnndirect::relabel_workspace_bytes<Index>(num_dst, fanout), memory_kind::device);
  gnndirect::sampled_slots_view<Offset, Index> const hop{neighbors.data(), edge_ids.data(), counts.data(),
                                                        offsets.data(), num_dst, num_dst * fanout};
  gnndirect::sample_neighbors_async(stream, csr, dst, num_dst, fanout, layer, sampler, sampling_policy{}, hop,
                                    {sample_ws.data(), sample_ws.bytes()});
  gnndirect::relabel_async(stream, dst, num_dst, fanout, hop, csr.num_nodes, block,
                           {relabel_ws.data(), relabel_ws.bytes()});
  gnndirect::sample_neighbors_check(stream, {sample_ws.data(), sample_ws.bytes()}, csr.num_nodes);
  gnndirect::relabel_check(stream, {relabel_ws.data(), relabel_ws.bytes()}, csr.num_nodes);  // synchronises
  return to_host(block.num_src, 1)[0];
}

}  // namespace

TEST_CASE("relabel_async composes one-hop samples into blocks equal to sample_blocks_async")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  stream_guard s;
  using Offset = std::int64_t;
  using Index = std::int32_t;
  graph_pair<Offset, Index> const g(2500, seed, true);
  temporal_data const t(rng, static_cast<std::int64_t>(g.indices.size()), 2500);
  csr_view<Offset, Index> const csr = g.device();
  std::vector<int> const fanouts{7, 4};
  auto const run = [&](const auto& sampler) {
    auto const seeds = seeds_with_repeats<Index>(rng, 150, 2500);
    auto const n = static_cast<std::int64_t>(seeds.size());
    buffer<Index> const d_seeds = to_buffer(seeds);
    auto const bounds = gnndirect::sample_blocks_bounds(n, fanouts, csr.num_nodes);
    // relabel_async sees one hop: it sizes layer 1 for any num_dst dst nodes (bounds[0].num_src
    // at most) with num_dst + min(num_dst * fanout, num_nodes) src nodes, more than the
    // multi-layer bound, which knows the dst nodes repeat only the seeds.
    std::vector<gnndirect::block_bounds> const hop_bounds{
      bounds[0], gnndirect::sample_blocks_bounds(bounds[0].num_src, {fanouts[1]}, csr.num_nodes)[0]};
    guarded_outputs<Offset, Index> const library(bounds);
    guarded_outputs<Offset, Index> const composed(hop_bounds);
    library.poison(s.stream);
    composed.poison(s.stream);
    buffer<unsigned char> ws(gnndirect::sample_blocks_workspace_bytes<Offset, Index>(n, fanouts, csr.num_nodes),
                             memory_kind::device);
    gnndirect::sample_blocks_async(s.stream, csr, d_seeds.data(), n, fanouts, sampler, sampling_policy{},
                                   library.view(), {ws.data(), ws.bytes()});
    gnndirect::sample_blocks_check(s.stream, {ws.data(), ws.bytes()}, fanouts.size(), csr.num_nodes);
    auto const out = composed.view();
    std::int64_t const src0 = compose_hop(s.stream, csr, d_seeds.data(), n, fanouts[0], 0, sampler, out.layers[0]);
    (void)compose_hop(s.stream, csr, static_cast<const Index*>(out.layers[0].src_nodes), src0, fanouts[1], 1,
                      sampler, out.layers[1]);
    auto const lib_counts = to_host(library.counts.data(), 4);
    auto const our_counts = to_host(composed.counts.data(), 4);
    REQUIRE(lib_counts == our_counts);
    for (std::size_t l = 0; l < 2; ++l) {
      CAPTURE(l);
      std::int64_t const num_dst = l == 0 ? n : lib_counts[0];
      std::int64_t const num_src = lib_counts[2 * l];
      std::int64_t const num_edges = lib_counts[2 * l + 1];
      auto const& b = hop_bounds[l];
      auto const ours_src = to_host(composed.src[l].data(), b.num_src + guard);
      auto const ours_offsets = to_host(composed.offsets[l].data(), b.num_dst + 1 + guard);
      auto const ours_indices = to_host(composed.indices[l].data(), b.num_edges + guard);
      auto const ours_eids = to_host(composed.edge_ids[l].data(), b.num_edges + guard);
      CHECK(std::vector<Index>(ours_src.begin(), ours_src.begin() + num_src) ==
            to_host(library.src[l].data(), num_src));
      CHECK(std::vector<std::int64_t>(ours_offsets.begin(), ours_offsets.begin() + num_dst + 1) ==
            to_host(library.offsets[l].data(), num_dst + 1));
      CHECK(std::vector<Index>(ours_indices.begin(), ours_indices.begin() + num_edges) ==
            to_host(library.indices[l].data(), num_edges));
      CHECK(std::vector<Offset>(ours_eids.begin(), ours_eids.begin() + num_edges) ==
            to_host(library.edge_ids[l].data(), num_edges));
      CHECK(untouched_from(ours_src, num_src));  // nothing written past the valid prefixes
      CHECK(untouched_from(ours_offsets, num_dst + 1));
      CHECK(untouched_from(ours_indices, num_edges));
      CHECK(untouched_from(ours_eids, num_edges));
    }
  };
  run(gnndirect::uniform_sampler{rng()});
  run(gnndirect::weighted_sampler{rng()});
  run(t.sampler());
  // Bad arguments are named before any launch.
  gnndirect::sampled_slots_view<Offset, Index> const empty{};
  CHECK_THROWS_AS(gnndirect::relabel_async(s.stream, static_cast<const Index*>(nullptr), 5, 3, empty,
                                           csr.num_nodes, gnndirect::sampled_block_view<Offset, Index>{},
                                           gnndirect::workspace_view{}),
                  gnndirect::invalid_argument);
  CHECK_THROWS_AS((void)gnndirect::relabel_workspace_bytes<Index>(-1, 3), gnndirect::invalid_argument);
}

TEST_CASE("a corrupt indptr (decreasing, or past the edge array) is reported; outputs stay within capacity")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  stream_guard s;
  using Offset = std::int64_t;
  using Index = std::int32_t;
  for (bool past_end : {false, true}) {
    CAPTURE(past_end);
    graph_pair<Offset, Index> g(800, seed, true);
    std::size_t const x = 100 + rng() % 500;
    if (past_end) {
      g.indptr[x + 1] = static_cast<Offset>(g.indices.size()) + 100000;
    } else {
      g.indptr[x + 1] = g.indptr[x] - 5;  // a negative degree at x
    }
    g.d_indptr = to_buffer(g.indptr);
    csr_view<Offset, Index> const csr = g.device();
    auto seeds = seeds_with_repeats<Index>(rng, 200, 800);
    seeds[3] = static_cast<Index>(x);
    std::vector<int> const fanouts{6, 4};
    auto const n = static_cast<std::int64_t>(seeds.size());
    buffer<Index> const d_seeds = to_buffer(seeds);
    guarded_outputs<Offset, Index> const out(gnndirect::sample_blocks_bounds(n, fanouts, csr.num_nodes));
    buffer<unsigned char> ws(gnndirect::sample_blocks_workspace_bytes<Offset, Index>(n, fanouts, csr.num_nodes),
                             memory_kind::device);
    out.poison(s.stream);
    gnndirect::sample_blocks_async(s.stream, csr, d_seeds.data(), n, fanouts, gnndirect::uniform_sampler{rng()},
                                   sampling_policy{}, out.view(), {ws.data(), ws.bytes()});
    try {
      gnndirect::sample_blocks_check(s.stream, {ws.data(), ws.bytes()}, fanouts.size(), csr.num_nodes);
      FAIL("expected invalid_argument for the corrupt graph");
    } catch (gnndirect::index_out_of_range const& e) {
      FAIL(e.what());
    } catch (gnndirect::invalid_argument const& e) {
      CHECK(std::string(e.what()).find("corrupt graph (layer 0): node ") != std::string::npos);
    }
    auto const counts = to_host(out.counts.data(), 4);
    for (std::size_t l = 0; l < fanouts.size(); ++l) {
      CAPTURE(l);
      auto const& b = out.bounds[l];
      REQUIRE(counts[2 * l] <= b.num_src);
      REQUIRE(counts[2 * l + 1] <= b.num_edges);
      auto const offsets = to_host(out.offsets[l].data(), b.num_dst + 1 + guard);
      CHECK(std::is_sorted(offsets.begin(), offsets.begin() + b.num_dst + 1));  // never decreasing
      CHECK(offsets[static_cast<std::size_t>(b.num_dst)] == counts[2 * l + 1]);
      CHECK(untouched_from(offsets, b.num_dst + 1));  // nothing past any capacity
      CHECK(untouched_from(to_host(out.src[l].data(), b.num_src + guard), counts[2 * l]));
      CHECK(untouched_from(to_host(out.indices[l].data(), b.num_edges + guard), counts[2 * l + 1]));
      CHECK(untouched_from(to_host(out.edge_ids[l].data(), b.num_edges + guard), counts[2 * l + 1]));
    }
    // One hop and the synchronous forms report it too.
    CHECK_THROWS_AS((void)gnndirect::sample_neighbors(s.stream, csr, d_seeds.data(), n, 5, 0,
                                                      gnndirect::weighted_sampler{rng()}),
                    gnndirect::invalid_argument);
    CHECK_THROWS_AS((void)gnndirect::sample_blocks(s.stream, csr, d_seeds.data(), n, fanouts,
                                                   gnndirect::uniform_with_replacement_sampler{rng()}),
                    gnndirect::invalid_argument);
    CHECK(cudaGetLastError() == cudaSuccess);
  }
}

TEST_CASE("outputs carry their capacities: a call past them is refused before anything is written")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  stream_guard s;
  using Offset = std::int64_t;
  using Index = std::int32_t;
  graph_pair<Offset, Index> const g(1000, seed, true);
  csr_view<Offset, Index> const csr = g.device();
  std::vector<int> const fanouts{5, 3};
  auto const seeds = seeds_with_repeats<Index>(rng, 100, 1000);
  buffer<Index> const d_seeds = to_buffer(seeds);
  // Sized for 10 seeds, called with 100.
  guarded_outputs<Offset, Index> const small(gnndirect::sample_blocks_bounds(10, fanouts, csr.num_nodes));
  buffer<unsigned char> ws(gnndirect::sample_blocks_workspace_bytes<Offset, Index>(100, fanouts, csr.num_nodes),
                           memory_kind::device);
  small.poison(s.stream);
  try {
    gnndirect::sample_blocks_async(s.stream, csr, d_seeds.data(), 100, fanouts, gnndirect::uniform_sampler{rng()},
                                   sampling_policy{}, small.view(), {ws.data(), ws.bytes()});
    FAIL("expected invalid_argument");
  } catch (gnndirect::invalid_argument const& e) {
    CHECK(std::string(e.what()).find("layer 0: src_nodes holds") != std::string::npos);
  }
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(s.stream));
  for (std::size_t l = 0; l < fanouts.size(); ++l) {
    CHECK(untouched_from(to_host(small.src[l].data(), small.bounds[l].num_src + guard), 0));
    CHECK(untouched_from(to_host(small.offsets[l].data(), small.bounds[l].num_dst + 1 + guard), 0));
    CHECK(untouched_from(to_host(small.indices[l].data(), small.bounds[l].num_edges + guard), 0));
  }
  // The library's own owners carry their bounds: sample_blocks_buffers for 10 seeds refuse 100.
  gnndirect::sample_blocks_buffers<Offset, Index> const owned(10, fanouts, csr.num_nodes, s.stream);
  CHECK_THROWS_AS(gnndirect::sample_blocks_async(s.stream, csr, d_seeds.data(), 100, fanouts,
                                                 gnndirect::uniform_sampler{}, sampling_policy{}, owned.view(),
                                                 {ws.data(), ws.bytes()}),
                  gnndirect::invalid_argument);
  // One hop: slots for 10 seeds refuse 100.
  buffer<Index> slots(50, memory_kind::device);
  buffer<std::int64_t> counts(10, memory_kind::device);
  buffer<std::int64_t> offsets(11, memory_kind::device);
  buffer<unsigned char> hop_ws(gnndirect::sample_neighbors_workspace_bytes(100), memory_kind::device);
  gnndirect::sampled_slots_view<Offset, Index> const hop{slots.data(), nullptr, counts.data(), offsets.data(), 10, 50};
  CHECK_THROWS_AS(gnndirect::sample_neighbors_async(s.stream, csr, d_seeds.data(), 100, 5, 0,
                                                    gnndirect::uniform_sampler{}, sampling_policy{}, hop,
                                                    {hop_ws.data(), hop_ws.bytes()}),
                  gnndirect::invalid_argument);
  // Within capacity the same outputs work (10 seeds).
  check_async(g, std::vector<Index>(seeds.begin(), seeds.begin() + 10), fanouts, gnndirect::uniform_sampler{rng()},
              sampling_policy{}, s.stream);
}

TEST_CASE("outputs without their capacities are refused before anything is written, also for no seeds")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  stream_guard s;
  using Offset = std::int64_t;
  using Index = std::int32_t;
  graph_pair<Offset, Index> const g(1000, seed, true);
  csr_view<Offset, Index> const csr = g.device();
  std::vector<int> const fanouts{5, 3};
  std::int64_t const n = 100;
  buffer<Index> const d_seeds = to_buffer(seeds_with_repeats<Index>(rng, n, 1000));
  guarded_outputs<Offset, Index> const out(gnndirect::sample_blocks_bounds(n, fanouts, csr.num_nodes));
  buffer<unsigned char> ws(gnndirect::sample_blocks_workspace_bytes<Offset, Index>(n, fanouts, csr.num_nodes),
                           memory_kind::device);
  out.poison(s.stream);
  // The same arrays, built from their pointers alone (aggregate init that forgets the capacity).
  gnndirect::sampled_blocks_view<Offset, Index> bare;
  for (std::size_t l = 0; l < fanouts.size(); ++l) {
    bare.layers.push_back({out.src[l].data(), out.offsets[l].data(), out.indices[l].data(), out.edge_ids[l].data(),
                           out.counts.data() + 2 * l, out.counts.data() + 2 * l + 1});
  }
  auto const refused = [&](const gnndirect::sampled_blocks_view<Offset, Index>& ref, std::int64_t count,
                           const std::string& text) {
    try {
      gnndirect::sample_blocks_async(s.stream, csr, d_seeds.data(), count, fanouts, gnndirect::uniform_sampler{rng()},
                                     sampling_policy{}, ref, {ws.data(), ws.bytes()});
      FAIL("expected invalid_argument");
    } catch (gnndirect::invalid_argument const& e) {
      CAPTURE(e.what());
      CHECK(std::string(e.what()).find(text) != std::string::npos);
    }
  };
  refused(bare, n, "sample_blocks_async: layer 0: out.layers[0].capacity.num_src is not given (-1");
  // One field of one layer missing: that layer and field are named.
  gnndirect::sampled_blocks_view<Offset, Index> partial = out.view();
  partial.layers[1].capacity.num_edges = -1;
  refused(partial, n, "sample_blocks_async: layer 1: out.layers[1].capacity.num_edges is not given");
  // No seeds: a missing capacity is refused all the same.
  refused(bare, 0, "sample_blocks_async: layer 0: out.layers[0].capacity.num_src is not given");
  // One hop: sample_neighbors_async and relabel_async refuse their refs without capacities.
  auto const slots = static_cast<std::size_t>(n * fanouts[0]);
  buffer<Index> neighbors(slots, memory_kind::device);
  buffer<Offset> edge_ids(slots, memory_kind::device);
  buffer<std::int64_t> counts(static_cast<std::size_t>(n), memory_kind::device);
  buffer<std::int64_t> offsets(static_cast<std::size_t>(n) + 1, memory_kind::device);
  auto const poison = [&](void* data, std::size_t bytes) {
    GNNDIRECT_CUDA_TRY(cudaMemsetAsync(data, 0xFF, bytes, s.stream));
  };
  poison(neighbors.data(), neighbors.bytes());
  poison(edge_ids.data(), edge_ids.bytes());
  poison(counts.data(), counts.bytes());
  poison(offsets.data(), offsets.bytes());
  buffer<unsigned char> hop_ws(gnndirect::sample_neighbors_workspace_bytes(n), memory_kind::device);
  buffer<unsigned char> relabel_ws(gnndirect::relabel_workspace_bytes<Index>(n, fanouts[0]), memory_kind::device);
  gnndirect::sampled_slots_view<Offset, Index> const bare_hop{neighbors.data(), edge_ids.data(), counts.data(),
                                                             offsets.data()};
  gnndirect::sampled_slots_view<Offset, Index> hop = bare_hop;
  hop.seed_capacity = n;
  hop.slot_capacity = n * fanouts[0];
  CHECK_THROWS_WITH_AS(gnndirect::sample_neighbors_async(s.stream, csr, d_seeds.data(), n, fanouts[0], 0,
                                                         gnndirect::uniform_sampler{}, sampling_policy{}, bare_hop,
                                                         {hop_ws.data(), hop_ws.bytes()}),
                       doctest::Contains("sample_neighbors_async: out.seed_capacity is not given"),
                       gnndirect::invalid_argument);
  CHECK_THROWS_WITH_AS(gnndirect::relabel_async(s.stream, d_seeds.data(), n, fanouts[0], hop, csr.num_nodes,
                                                bare.layers[0], {relabel_ws.data(), relabel_ws.bytes()}),
                       doctest::Contains("relabel_async: out.capacity.num_src is not given"),
                       gnndirect::invalid_argument);
  CHECK_THROWS_WITH_AS(gnndirect::relabel_async(s.stream, d_seeds.data(), n, fanouts[0], bare_hop, csr.num_nodes,
                                                out.view().layers[0], {relabel_ws.data(), relabel_ws.bytes()}),
                       doctest::Contains("relabel_async: sampled.seed_capacity is not given"),
                       gnndirect::invalid_argument);
  CHECK_THROWS_WITH_AS(gnndirect::relabel_async(s.stream, d_seeds.data(), 0, fanouts[0], hop, csr.num_nodes,
                                                bare.layers[0], {relabel_ws.data(), relabel_ws.bytes()}),
                       doctest::Contains("relabel_async: out.capacity.num_src is not given"),
                       gnndirect::invalid_argument);
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(s.stream));
  for (std::size_t l = 0; l < fanouts.size(); ++l) {  // nothing written anywhere
    CAPTURE(l);
    auto const& b = out.bounds[l];
    CHECK(untouched_from(to_host(out.src[l].data(), b.num_src + guard), 0));
    CHECK(untouched_from(to_host(out.offsets[l].data(), b.num_dst + 1 + guard), 0));
    CHECK(untouched_from(to_host(out.indices[l].data(), b.num_edges + guard), 0));
    CHECK(untouched_from(to_host(out.edge_ids[l].data(), b.num_edges + guard), 0));
  }
  CHECK(untouched_from(to_host(out.counts.data(), 4), 0));
  CHECK(untouched_from(to_host(neighbors.data(), static_cast<std::int64_t>(slots)), 0));
  CHECK(untouched_from(to_host(counts.data(), n), 0));
  CHECK(untouched_from(to_host(offsets.data(), n + 1), 0));
  // Capacity 0 is enough for no seeds: sample_blocks_bounds(0, ...) sizes every layer 0.
  guarded_outputs<Offset, Index> const none(gnndirect::sample_blocks_bounds(0, fanouts, csr.num_nodes));
  none.poison(s.stream);
  CHECK_NOTHROW(gnndirect::sample_blocks_async(s.stream, csr, d_seeds.data(), 0, fanouts, gnndirect::uniform_sampler{},
                                               sampling_policy{}, none.view(), {ws.data(), ws.bytes()}));
  gnndirect::sample_blocks_check(s.stream, {ws.data(), ws.bytes()}, fanouts.size(), csr.num_nodes);
  CHECK(to_host(none.counts.data(), 4) == std::vector<std::int64_t>{0, 0, 0, 0});
  CHECK(cudaGetLastError() == cudaSuccess);
}
