// GPU tests of typed (heterogeneous) sampling: sample_typed_blocks_async against the host
// reference bit for bit on fresh ogbn-mag-shaped graphs whose relations sit in different
// placements (HBM and host memory), with one sampler for all relations, weighted draws and a
// per-relation sampler list; outputs poisoned first, nothing written past the valid node
// prefixes; a CUDA graph captured once and replayed with new seeds; bad seeds raised by
// sample_typed_blocks_check; the multi-type seed form (link seeds of several node types) against
// the reference, captured and replayed, with its bad seeds and views named, and the one-type form
// equal to it; the typed preparer under batch_scheduler (blocks, features of
// every node type with a table from its own table and placement, labels), and its bad input;
// typed temporal sampling against its oracle (support/typed_temporal_reference.hpp) for both
// strategies and time forms, with times in HBM and host memory, and its bad input.
#include <doctest/doctest.h>

#include "support/capture.hpp"
#include "support/random.hpp"
#include "support/transfer.hpp"
#include "support/typed_temporal_reference.hpp"

#include <gnndirect/algorithms/sample_typed_blocks_async.cuh>
#include <gnndirect/algorithms/sample_typed_blocks_buffers.cuh>
#include <gnndirect/algorithms/sample_typed_temporal_blocks_async.cuh>
#include <gnndirect/algorithms/validate_typed.cuh>
#include <gnndirect/algorithms/validate_typed.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/device/samplers.hpp>
#include <gnndirect/graph/generate_typed.hpp>
#include <gnndirect/graph/typed_graph.hpp>
#include <gnndirect/device/codecs.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/encoded_table.hpp>
#include <gnndirect/pipeline/epoch_order.hpp>
#include <gnndirect/pipeline/scheduler.cuh>
#include <gnndirect/pipeline/typed_preparer.cuh>
#include <gnndirect/reference/sample_typed_reference.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace gd = gnndirect;
using gnndirect::test::to_buffer;
using gnndirect::test::to_host;

namespace {

struct stream_guard {
  cudaStream_t stream{};
  stream_guard() { GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)); }
  ~stream_guard() { (void)cudaStreamDestroy(stream); }
};

/// Every output array set to 0xFF bytes (-1 ids and offsets), on `stream`.
template <class Offset, class Index>
void poison(const gd::sampled_typed_blocks_view<Offset, Index>& out, cudaStream_t stream)
{
  for (auto const& t : out.node_types) {
    GNNDIRECT_CUDA_TRY(cudaMemsetAsync(t.nodes, 0xFF, static_cast<std::size_t>(t.capacity) * sizeof(Index), stream));
  }
  for (auto const& layer : out.layers) {
    for (auto const& r : layer) {
      GNNDIRECT_CUDA_TRY(cudaMemsetAsync(r.offsets, 0xFF, static_cast<std::size_t>(r.capacity.num_dst + 1) * 8, stream));
      GNNDIRECT_CUDA_TRY(cudaMemsetAsync(r.indices, 0xFF, static_cast<std::size_t>(r.capacity.num_edges) * sizeof(Index), stream));
      if (r.edge_ids != nullptr) {
        GNNDIRECT_CUDA_TRY(cudaMemsetAsync(r.edge_ids, 0xFF, static_cast<std::size_t>(r.capacity.num_edges) * sizeof(Offset), stream));
      }
    }
  }
}

/// Compares the GPU's typed blocks with the reference's, array by array; checks that node
/// lists past their length still hold the poison.
template <class Offset, class Index>
void check_equal(const gd::sample_typed_blocks_buffers<Offset, Index>& storage, cudaStream_t stream,
                 const gd::host::typed_reference_blocks<Offset, Index>& expected)
{
  auto const got = storage.read(stream);
  REQUIRE(got.node_types.size() == expected.node_types.size());
  for (std::size_t t = 0; t < got.node_types.size(); ++t) {
    CAPTURE(t);
    CHECK(got.node_types[t].counts == expected.node_types[t].counts);
    CHECK(to_host(got.node_types[t].nodes.data(), got.node_types[t].nodes.count) == expected.node_types[t].nodes);
    std::int64_t const capacity = storage.view().node_types[t].capacity;
    auto const all = to_host(storage.view().node_types[t].nodes, capacity);
    for (std::int64_t i = got.node_types[t].nodes.count; i < capacity; ++i) {
      CAPTURE(i);
      REQUIRE(all[static_cast<std::size_t>(i)] == Index{-1});
    }
  }
  REQUIRE(got.layers.size() == expected.layers.size());
  for (std::size_t l = 0; l < got.layers.size(); ++l) {
    for (std::size_t r = 0; r < got.layers[l].size(); ++r) {
      CAPTURE(l);
      CAPTURE(r);
      auto const& g = got.layers[l][r];
      auto const& e = expected.layers[l][r];
      CHECK(g.dst_begin == e.dst_begin);
      CHECK(to_host(g.offsets.data(), g.offsets.count) == e.offsets);
      CHECK(to_host(g.indices.data(), g.indices.count) == e.indices);
      CHECK(to_host(g.edge_ids.data(), g.edge_ids.count) == e.edge_ids);
    }
  }
}

/// An ogbn-mag-shaped graph (weights when asked) whose relations alternate between lists in
/// HBM and lists in pinned host memory.
template <class Offset, class Index>
struct typed_pair {
  gd::host_typed_graph<Offset, Index> host;
  gd::typed_graph<Offset, Index> device;
  typed_pair(std::uint64_t seed, bool weights)
    : host(gd::host::generate_typed<Offset, Index>(gd::typed_preset::ogbn_mag, 2e-3, seed, weights)),
      device(host, placements(host.schema.num_relations()))
  {
  }
  static std::vector<gd::csr_placement> placements(int relations)
  {
    std::vector<gd::csr_placement> out;
    for (int r = 0; r < relations; ++r) {
      out.push_back(r % 2 == 0 ? gd::csr_placement::all(gd::memory_kind::device)
                               : gd::csr_placement{gd::memory_kind::device, gd::memory_kind::pinned});
    }
    return out;
  }
};

template <class Index>
std::vector<Index> seeds_with_repeats(std::mt19937_64& rng, std::int64_t n, std::int64_t nodes)
{
  std::vector<Index> out(static_cast<std::size_t>(n));
  for (auto& s : out) { s = static_cast<Index>(rng() % static_cast<std::uint64_t>(nodes)); }
  if (n > 2) { out[1] = out[0]; }
  return out;
}

template <class Offset, class Index, class Samplers>
void run_and_compare(const typed_pair<Offset, Index>& g, int seed_type, const std::vector<Index>& seeds,
                     const gd::typed_fanouts& fanouts, const Samplers& samplers, std::int64_t max_seeds)
{
  stream_guard s;
  gd::sample_typed_blocks_buffers<Offset, Index> const storage(g.device.view(), seed_type, max_seeds, fanouts,
                                                               s.stream);
  auto const d_seeds = to_buffer(seeds);
  poison(storage.view(), s.stream);
  auto const n = static_cast<std::int64_t>(seeds.size());
  gd::sample_typed_blocks_async(s.stream, g.device.view(), seed_type, d_seeds.data(), n, fanouts, samplers,
                                gd::sampling_policy{}, storage.view(), storage.workspace());
  gd::sample_typed_blocks_check(s.stream, storage.workspace(), g.device.view(), seed_type,
                                static_cast<std::size_t>(fanouts.num_layers()));
  check_equal(storage, s.stream,
              gd::host::sample_typed_blocks_reference(g.host.view(), seed_type, seeds.data(), n, fanouts, samplers));
}

}  // namespace

TEST_CASE("sample_typed_blocks_async equals the host reference (HBM and host-memory relations)")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  typed_pair<std::int64_t, std::int32_t> const g(seed, true);
  gd::validate_typed(g.host.view(), &g.host.schema);
  int const paper = g.host.schema.node_type("paper");
  auto const seeds = seeds_with_repeats<std::int32_t>(rng, 77, g.host.num_nodes[static_cast<std::size_t>(paper)]);
  auto const fanouts = gd::typed_fanouts_of(g.host.schema, std::vector<int>{15, 10, 5});
  SUBCASE("uniform for all relations") { run_and_compare(g, paper, seeds, fanouts, gd::uniform_sampler{rng()}, 100); }
  SUBCASE("weighted for all relations") { run_and_compare(g, paper, seeds, fanouts, gd::weighted_sampler{rng()}, 77); }
  SUBCASE("a sampler type per relation, a dict with 0 and -1")
  {
    gd::per_relation_samplers<gd::uniform_sampler, gd::uniform_with_replacement_sampler, gd::weighted_sampler> const
      samplers{{gd::uniform_sampler{rng()}, gd::uniform_with_replacement_sampler{rng()}, gd::weighted_sampler{rng()}},
               {0, 1, 2, 0, 1, 2, 0, 1}};
    auto const dict = gd::typed_fanouts_of(g.host.schema, {{{"author", "affiliated_with", "institution"}, {-1, 3}},
                                                           {{"paper", "cites", "paper"}, {0, 4}}},
                                           {6, 2});
    run_and_compare(g, paper, seeds, dict, samplers, 200);
  }
  SUBCASE("seeds of another type, no seeds")
  {
    int const author = g.host.schema.node_type("author");
    auto const a = seeds_with_repeats<std::int32_t>(rng, 40, g.host.num_nodes[static_cast<std::size_t>(author)]);
    run_and_compare(g, author, a, fanouts, gd::uniform_sampler{rng()}, 40);
    run_and_compare(g, author, std::vector<std::int32_t>{}, fanouts, gd::uniform_sampler{rng()}, 0);
  }
}

TEST_CASE("sample_typed_blocks_async captured in a CUDA graph, replayed with new seeds")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  typed_pair<std::int64_t, std::int64_t> const g(seed, false);
  int const paper = g.host.schema.node_type("paper");
  auto const fanouts = gd::typed_fanouts_of(g.host.schema, std::vector<int>{8, 4});
  std::int64_t const n = 64;
  stream_guard s;
  gd::sample_typed_blocks_buffers<std::int64_t, std::int64_t> const storage(g.device.view(), paper, n, fanouts,
                                                                            s.stream);
  gd::buffer<std::int64_t> d_seeds(static_cast<std::size_t>(n), gd::memory_kind::device);
  gd::uniform_sampler const sampler{rng()};
  cudaGraph_t graph{};  // captured by the shared helper (test/support/capture.hpp), replayed below
  gnndirect::test::capture_result const census = gnndirect::test::capture_census(
    s.stream,
    [&](cudaStream_t st) {
      gd::sample_typed_blocks_async(st, g.device.view(), paper, d_seeds.data(), n, fanouts, sampler,
                                    gd::sampling_policy{}, storage.view(), storage.workspace());
    },
    &graph);
  REQUIRE_FALSE(census.error);
  CHECK(census.kernels > 0);
  cudaGraphExec_t exec{};
  GNNDIRECT_CUDA_TRY(cudaGraphInstantiate(&exec, graph, 0));
  for (int round = 0; round < 2; ++round) {
    CAPTURE(round);
    auto const seeds = seeds_with_repeats<std::int64_t>(rng, n, g.host.num_nodes[static_cast<std::size_t>(paper)]);
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(d_seeds.data(), seeds.data(), d_seeds.bytes(), cudaMemcpyHostToDevice, s.stream));
    poison(storage.view(), s.stream);
    GNNDIRECT_CUDA_TRY(cudaGraphLaunch(exec, s.stream));
    gd::sample_typed_blocks_check(s.stream, storage.workspace(), g.device.view(), paper, 2);
    check_equal(storage, s.stream,
                gd::host::sample_typed_blocks_reference(g.host.view(), paper, seeds.data(), n, fanouts, sampler));
  }
  GNNDIRECT_CUDA_TRY(cudaGraphExecDestroy(exec));
  GNNDIRECT_CUDA_TRY(cudaGraphDestroy(graph));
}

TEST_CASE("sample_typed_blocks: bad seeds and bad outputs are named")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  typed_pair<std::int64_t, std::int32_t> const g(seed, false);
  int const paper = g.host.schema.node_type("paper");
  auto const fanouts = gd::typed_fanouts_of(g.host.schema, std::vector<int>{3, 2});
  stream_guard s;
  gd::sample_typed_blocks_buffers<std::int64_t, std::int32_t> const storage(g.device.view(), paper, 4, fanouts, s.stream);
  std::int32_t const papers = static_cast<std::int32_t>(g.host.num_nodes[static_cast<std::size_t>(paper)]);
  auto const d_seeds = to_buffer(std::vector<std::int32_t>{0, 1, papers, 2});
  gd::sample_typed_blocks_async(s.stream, g.device.view(), paper, d_seeds.data(), 4, fanouts, gd::uniform_sampler{1},
                                gd::sampling_policy{}, storage.view(), storage.workspace());
  try {
    gd::sample_typed_blocks_check(s.stream, storage.workspace(), g.device.view(), paper, 2);
    FAIL("no exception for a seed outside its type");
  } catch (const gd::index_out_of_range& e) {
    CHECK(e.position() == 2);
    CHECK(e.value() == papers);
    CHECK(std::string(e.what()).find("seeds (node type 0)") != std::string::npos);
  }
  auto small = storage.view();
  small.layers[1][2].capacity.num_edges = 0;
  CHECK_THROWS_WITH_AS(gd::sample_typed_blocks_async(s.stream, g.device.view(), paper, d_seeds.data(), 4, fanouts,
                                                     gd::uniform_sampler{1}, gd::sampling_policy{}, small,
                                                     storage.workspace()),
                       doctest::Contains("layer 1 relation 2"), gd::invalid_argument);
}

namespace {

/// Per-type seeds on the host and on the device, and their views (a type may have none).
template <class Index>
struct typed_seed_set {
  std::vector<std::vector<Index>> host;
  std::vector<gd::buffer<Index>> device;
  gd::typed_seeds_view<Index> host_view() const
  {
    std::vector<const Index*> p;
    std::vector<std::int64_t> n;
    for (auto const& h : host) {
      p.push_back(h.empty() ? nullptr : h.data());
      n.push_back(static_cast<std::int64_t>(h.size()));
    }
    return gd::typed_seeds_of(p, n);
  }
  gd::typed_seeds_view<Index> device_view() const
  {
    std::vector<const Index*> p;
    std::vector<std::int64_t> n;
    for (std::size_t t = 0; t < host.size(); ++t) {
      p.push_back(host[t].empty() ? nullptr : device[t].data());
      n.push_back(static_cast<std::int64_t>(host[t].size()));
    }
    return gd::typed_seeds_of(p, n);
  }
};

/// Link-style seeds: `counts[t]` ids of type t with repeats (0: none), copied to the device.
template <class Offset, class Index>
typed_seed_set<Index> make_typed_seeds(std::mt19937_64& rng, const gd::host_typed_graph<Offset, Index>& g,
                                       const std::vector<std::int64_t>& counts)
{
  typed_seed_set<Index> out;
  for (std::size_t t = 0; t < counts.size(); ++t) {
    out.host.push_back(counts[t] == 0 ? std::vector<Index>{}
                                      : seeds_with_repeats<Index>(rng, counts[t], g.num_nodes[t]));
    out.device.push_back(to_buffer(out.host.back()));
  }
  return out;
}

template <class Offset, class Index, class Samplers>
void run_and_compare_typed_seeds(const typed_pair<Offset, Index>& g, const typed_seed_set<Index>& seeds,
                                 const gd::typed_fanouts& fanouts, const Samplers& samplers,
                                 const std::vector<std::int64_t>& capacity)
{
  stream_guard s;
  gd::sample_typed_blocks_buffers<Offset, Index> const storage(g.device.view(), capacity, fanouts, s.stream);
  poison(storage.view(), s.stream);
  gd::sample_typed_blocks_async(s.stream, g.device.view(), seeds.device_view(), fanouts, samplers,
                                gd::sampling_policy{}, storage.view(), storage.workspace());
  gd::sample_typed_blocks_check(s.stream, storage.workspace(), g.device.view(), seeds.device_view(),
                                static_cast<std::size_t>(fanouts.num_layers()));
  check_equal(storage, s.stream,
              gd::host::sample_typed_blocks_reference(g.host.view(), seeds.host_view(), fanouts, samplers));
}

}  // namespace

TEST_CASE("sample_typed_blocks_async, seeds of several types (link seeds), equals the host reference")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  typed_pair<std::int64_t, std::int32_t> const g(seed, true);
  auto const& schema = g.host.schema;
  int const paper = schema.node_type("paper");
  int const author = schema.node_type("author");
  std::vector<std::int64_t> counts(static_cast<std::size_t>(schema.num_node_types()), 0);
  counts[static_cast<std::size_t>(paper)] = 53;   // a link's dst endpoints
  counts[static_cast<std::size_t>(author)] = 31;  // its src endpoints
  counts[static_cast<std::size_t>(schema.node_type("field_of_study"))] = 7;
  auto const seeds = make_typed_seeds(rng, g.host, counts);
  std::vector<std::int64_t> capacity = counts;  // larger than used for some types
  capacity[static_cast<std::size_t>(paper)] += 20;
  capacity[static_cast<std::size_t>(schema.node_type("institution"))] = 5;
  auto const fanouts = gd::typed_fanouts_of(schema, std::vector<int>{10, 5, 3});
  SUBCASE("uniform") { run_and_compare_typed_seeds(g, seeds, fanouts, gd::uniform_sampler{rng()}, capacity); }
  SUBCASE("weighted") { run_and_compare_typed_seeds(g, seeds, fanouts, gd::weighted_sampler{rng()}, counts); }
  SUBCASE("a sampler type per relation, a dict with 0 and -1")
  {
    gd::per_relation_samplers<gd::uniform_sampler, gd::uniform_with_replacement_sampler, gd::weighted_sampler> const
      samplers{{gd::uniform_sampler{rng()}, gd::uniform_with_replacement_sampler{rng()}, gd::weighted_sampler{rng()}},
               {2, 1, 0, 2, 1, 0, 2, 1}};
    auto const dict = gd::typed_fanouts_of(schema, {{{"author", "writes", "paper"}, {-1, 2}},
                                                    {{"paper", "cites", "paper"}, {0, 4}}},
                                           {4, 3});
    run_and_compare_typed_seeds(g, seeds, dict, samplers, capacity);
  }
  SUBCASE("no seeds of any type")
  {
    std::vector<std::int64_t> const none(counts.size(), 0);
    run_and_compare_typed_seeds(g, make_typed_seeds(rng, g.host, none), fanouts, gd::uniform_sampler{rng()}, capacity);
  }
  SUBCASE("the one-type form is the multi-type form with one type's seeds")
  {
    auto const p = seeds_with_repeats<std::int32_t>(rng, 45, g.host.num_nodes[static_cast<std::size_t>(paper)]);
    gd::uniform_sampler const sampler{rng()};
    auto const expected = gd::host::sample_typed_blocks_reference(g.host.view(), paper, p.data(), 45, fanouts, sampler);
    auto const d_p = to_buffer(p);
    stream_guard s;
    gd::sample_typed_blocks_buffers<std::int64_t, std::int32_t> const one(g.device.view(), paper, 45, fanouts, s.stream);
    poison(one.view(), s.stream);
    gd::sample_typed_blocks_async(s.stream, g.device.view(), paper, d_p.data(), 45, fanouts, sampler,
                                  gd::sampling_policy{}, one.view(), one.workspace());
    gd::sample_typed_blocks_check(s.stream, one.workspace(), g.device.view(), paper, 3);
    check_equal(one, s.stream, expected);
    std::vector<std::int64_t> only(counts.size(), 0);
    only[static_cast<std::size_t>(paper)] = 45;
    gd::sample_typed_blocks_buffers<std::int64_t, std::int32_t> const multi(g.device.view(), only, fanouts, s.stream);
    CHECK(multi.bounds().nodes == one.bounds().nodes);
    poison(multi.view(), s.stream);
    auto const view = gd::typed_seeds_of<std::int32_t>(schema.num_node_types(), paper, d_p.data(), 45);
    gd::sample_typed_blocks_async(s.stream, g.device.view(), view, fanouts, sampler, gd::sampling_policy{},
                                  multi.view(), multi.workspace());
    gd::sample_typed_blocks_check(s.stream, multi.workspace(), g.device.view(), view, 3);
    check_equal(multi, s.stream, expected);
  }
}

TEST_CASE("sample_typed_blocks_async, seeds of several types, captured once and replayed with new seeds")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  typed_pair<std::int64_t, std::int64_t> const g(seed, false);
  auto const& schema = g.host.schema;
  std::vector<std::int64_t> counts(static_cast<std::size_t>(schema.num_node_types()), 0);
  counts[static_cast<std::size_t>(schema.node_type("paper"))] = 40;
  counts[static_cast<std::size_t>(schema.node_type("author"))] = 24;
  auto const fanouts = gd::typed_fanouts_of(schema, std::vector<int>{6, 3});
  stream_guard s;
  gd::sample_typed_blocks_buffers<std::int64_t, std::int64_t> const storage(g.device.view(), counts, fanouts, s.stream);
  auto seeds = make_typed_seeds(rng, g.host, counts);  // the device arrays the capture reads
  gd::uniform_sampler const sampler{rng()};
  cudaGraph_t graph{};
  gnndirect::test::capture_result const census = gnndirect::test::capture_census(
    s.stream,
    [&](cudaStream_t st) {
      gd::sample_typed_blocks_async(st, g.device.view(), seeds.device_view(), fanouts, sampler,
                                    gd::sampling_policy{}, storage.view(), storage.workspace());
    },
    &graph);
  REQUIRE_FALSE(census.error);
  CHECK(census.kernels > 0);
  cudaGraphExec_t exec{};
  GNNDIRECT_CUDA_TRY(cudaGraphInstantiate(&exec, graph, 0));
  for (int round = 0; round < 2; ++round) {
    CAPTURE(round);
    auto const fresh = make_typed_seeds(rng, g.host, counts);
    for (std::size_t t = 0; t < counts.size(); ++t) {
      seeds.host[t] = fresh.host[t];
      if (counts[t] == 0) { continue; }
      GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(seeds.device[t].data(), fresh.host[t].data(), seeds.device[t].bytes(),
                                         cudaMemcpyHostToDevice, s.stream));
    }
    poison(storage.view(), s.stream);
    GNNDIRECT_CUDA_TRY(cudaGraphLaunch(exec, s.stream));
    gd::sample_typed_blocks_check(s.stream, storage.workspace(), g.device.view(), seeds.device_view(), 2);
    check_equal(storage, s.stream,
                gd::host::sample_typed_blocks_reference(g.host.view(), seeds.host_view(), fanouts, sampler));
  }
  GNNDIRECT_CUDA_TRY(cudaGraphExecDestroy(exec));
  GNNDIRECT_CUDA_TRY(cudaGraphDestroy(graph));
}

TEST_CASE("sample_typed_blocks_async, seeds of several types: bad seeds and bad views are named")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  typed_pair<std::int64_t, std::int32_t> const g(seed, false);
  auto const& schema = g.host.schema;
  int const paper = schema.node_type("paper");
  int const author = schema.node_type("author");
  std::vector<std::int64_t> counts(static_cast<std::size_t>(schema.num_node_types()), 0);
  counts[static_cast<std::size_t>(paper)] = 3;
  counts[static_cast<std::size_t>(author)] = 4;
  auto const fanouts = gd::typed_fanouts_of(schema, std::vector<int>{3, 2});
  stream_guard s;
  gd::sample_typed_blocks_buffers<std::int64_t, std::int32_t> const storage(g.device.view(), counts, fanouts, s.stream);
  auto seeds = make_typed_seeds(rng, g.host, counts);
  auto const authors = static_cast<std::int32_t>(g.host.num_nodes[static_cast<std::size_t>(author)]);
  seeds.host[static_cast<std::size_t>(author)] = {0, 1, 2, authors};  // the paper seeds are fine
  seeds.device[static_cast<std::size_t>(author)] = to_buffer(seeds.host[static_cast<std::size_t>(author)]);
  gd::sample_typed_blocks_async(s.stream, g.device.view(), seeds.device_view(), fanouts, gd::uniform_sampler{1},
                                gd::sampling_policy{}, storage.view(), storage.workspace());
  try {
    gd::sample_typed_blocks_check(s.stream, storage.workspace(), g.device.view(), seeds.device_view(), 2);
    FAIL("no exception for a seed outside its type");
  } catch (const gd::index_out_of_range& e) {
    CHECK(e.position() == 3);
    CHECK(e.value() == authors);
    CHECK(std::string(e.what()).find("seeds (node type " + std::to_string(author) + ")") != std::string::npos);
  }
  auto short_view = seeds.device_view();
  short_view.num_node_types = 2;
  CHECK_THROWS_WITH_AS(gd::sample_typed_blocks_async(s.stream, g.device.view(), short_view, fanouts,
                                                     gd::uniform_sampler{1}, gd::sampling_policy{}, storage.view(),
                                                     storage.workspace()),
                       doctest::Contains("seeds for 2 node types, the graph has 4"), gd::invalid_argument);
  std::string const null_message = "null seeds of node type " + std::to_string(author);
  std::string const paper_message = "node type " + std::to_string(paper);
  auto null_view = seeds.device_view();
  null_view.seeds[author] = nullptr;
  CHECK_THROWS_WITH_AS(gd::sample_typed_blocks_async(s.stream, g.device.view(), null_view, fanouts,
                                                     gd::uniform_sampler{1}, gd::sampling_policy{}, storage.view(),
                                                     storage.workspace()),
                       doctest::Contains(null_message.c_str()), gd::invalid_argument);
  auto more = seeds.device_view();
  more.counts[paper] = 9;  // past the buffers' capacity for papers
  CHECK_THROWS_WITH_AS(gd::sample_typed_blocks_async(s.stream, g.device.view(), more, fanouts, gd::uniform_sampler{1},
                                                     gd::sampling_policy{}, storage.view(), storage.workspace()),
                       doctest::Contains(paper_message.c_str()), gd::invalid_argument);
}

namespace {

/// A typed_times on the device: even relations' edge times and excluded edges in HBM, odd ones'
/// in pinned host memory (as their lists), node times in HBM.
struct device_typed_times {
  std::vector<gd::buffer<std::int64_t>> edge, node, excluded;
  explicit device_typed_times(const gnndirect::test::typed_times& h)
  {
    for (std::size_t r = 0; r < h.edge_times.size(); ++r) {
      auto const kind = r % 2 == 0 ? gd::memory_kind::device : gd::memory_kind::pinned;
      edge.push_back(to_buffer(h.edge_times[r], kind));
      excluded.push_back(to_buffer(h.excluded[r], kind));
    }
    for (auto const& t : h.node_times) { node.push_back(to_buffer(t)); }
  }
  /// One sampler per relation: keys[r], its times, its excluded edges when `exclude`.
  template <class Strategy, class Form, class Offset, class Index>
  std::vector<gd::temporal_sampler<Strategy, Form>> samplers(const gd::typed_graph_view<Offset, Index>& graph,
                                                            const std::vector<std::uint64_t>& keys, bool exclude) const
  {
    std::vector<gd::temporal_sampler<Strategy, Form>> out;
    for (int r = 0; r < graph.num_relations; ++r) {
      auto const u = static_cast<std::size_t>(r);
      gd::temporal_sampler<Strategy, Form> x;
      x.seed = keys[u];
      auto const& times = std::is_same_v<Form, gd::node_time> ? node[static_cast<std::size_t>(graph.relations[r].src_type)]
                                                              : edge[u];
      x.times = times.data();
      x.num_times = static_cast<std::int64_t>(times.size());
      if (exclude) {
        x.excluded_edges = excluded[u].data();
        x.num_excluded = static_cast<std::int64_t>(excluded[u].size());
      }
      out.push_back(x);
    }
    return out;
  }
};

/// Per type its seeds' times (in [0, 40)) on the host and on the device.
struct typed_seed_times {
  std::vector<std::vector<std::int64_t>> host;
  std::vector<gd::buffer<std::int64_t>> device;
  template <class Index>
  typed_seed_times(std::mt19937_64& rng, const typed_seed_set<Index>& seeds)
  {
    for (auto const& s : seeds.host) {
      host.emplace_back(s.size());
      for (auto& t : host.back()) { t = static_cast<std::int64_t>(rng() % 40); }
      device.push_back(to_buffer(host.back()));
    }
  }
  std::vector<const std::int64_t*> pointers() const
  {
    std::vector<const std::int64_t*> out;
    for (std::size_t t = 0; t < host.size(); ++t) { out.push_back(host[t].empty() ? nullptr : device[t].data()); }
    return out;
  }
};

/// sample_typed_temporal_blocks_async against the oracle, outputs poisoned first; and the
/// oracle's blocks hold no edge later than its row's time.
template <class Strategy, class Form, class Offset, class Index>
void run_and_compare_temporal(const typed_pair<Offset, Index>& g, const gnndirect::test::typed_times& times,
                              const device_typed_times& d, const typed_seed_set<Index>& seeds,
                              const typed_seed_times& seed_times, const gd::typed_fanouts& fanouts,
                              const std::vector<std::uint64_t>& keys, bool exclude,
                              const std::vector<std::int64_t>& capacity)
{
  bool constexpr last = std::is_same_v<Strategy, gd::temporal_last>;
  bool constexpr per_node = std::is_same_v<Form, gd::node_time>;
  stream_guard s;
  gd::sample_typed_blocks_buffers<Offset, Index> const storage(g.device.view(), capacity, fanouts, s.stream);
  gd::buffer<unsigned char> ws(gd::sample_typed_temporal_blocks_workspace_bytes(g.device.view(), storage.bounds()),
                               gd::memory_kind::device);
  poison(storage.view(), s.stream);
  gd::sample_typed_temporal_blocks_async(s.stream, g.device.view(), seeds.device_view(), seed_times.pointers(), fanouts,
                                         d.samplers<Strategy, Form>(g.device.view(), keys, exclude),
                                         gd::sampling_policy{}, storage.view(), gd::workspace_view{ws.data(), ws.size()});
  gd::sample_typed_blocks_check(s.stream, gd::workspace_view{ws.data(), ws.size()}, g.device.view(), seeds.device_view(),
                                static_cast<std::size_t>(fanouts.num_layers()));
  auto const setups = times.setups(g.host.view(), last, per_node, keys, exclude);
  auto const expected =
    gnndirect::test::typed_temporal_blocks_reference(g.host.view(), setups, seeds.host, seed_times.host, fanouts);
  check_equal(storage, s.stream, expected.blocks);
  std::int64_t edges = 0;
  CHECK(gnndirect::test::count_later_edges(setups, seed_times.host, expected.blocks, &edges) == 0);
  CHECK(edges > 0);
}

}  // namespace

/// What the typed temporal cases share: a random typed graph (int64 offsets, int32 ids), random
/// edge and node times with their device copies (odd relations' in pinned memory), and seeds of
/// `papers` papers and `authors` authors with random query times.
struct typed_temporal_case {
  std::mt19937_64 rng;
  typed_pair<std::int64_t, std::int32_t> g;
  gnndirect::test::typed_times times;
  device_typed_times d;
  std::vector<std::int64_t> counts;
  typed_seed_set<std::int32_t> seeds;
  typed_seed_times seed_times;

  typed_temporal_case(std::uint64_t seed, std::int64_t papers, std::int64_t authors)
    : rng(seed),
      g(seed, false),
      times(rng, g.host.view()),
      d(times),
      counts(seed_counts(g.host.schema, papers, authors)),
      seeds(make_typed_seeds(rng, g.host, counts)),
      seed_times(rng, seeds)
  {
  }

  static std::vector<std::int64_t> seed_counts(const gd::typed_schema& schema, std::int64_t papers,
                                               std::int64_t authors)
  {
    std::vector<std::int64_t> counts(static_cast<std::size_t>(schema.num_node_types()), 0);
    counts[static_cast<std::size_t>(schema.node_type("paper"))] = papers;
    counts[static_cast<std::size_t>(schema.node_type("author"))] = authors;
    return counts;
  }
};

TEST_CASE("sample_typed_temporal_blocks_async equals the typed temporal oracle (times in HBM and host memory)")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  typed_temporal_case c(seed, 61, 23);
  auto& rng = c.rng;
  auto const& g = c.g;  // plain references: C++17 lambdas cannot capture structured bindings
  auto const& times = c.times;
  auto const& d = c.d;
  auto const& counts = c.counts;
  auto const& seeds = c.seeds;
  auto const& seed_times = c.seed_times;
  auto const& schema = g.host.schema;
  std::vector<std::uint64_t> keys;
  for (int r = 0; r < schema.num_relations(); ++r) { keys.push_back(rng()); }
  auto const fanouts = gd::typed_fanouts_of(schema, std::vector<int>{8, 4, 3});
  auto const dict = gd::typed_fanouts_of(schema, {{{"author", "writes", "paper"}, {-1, 2}},
                                                  {{"paper", "cites", "paper"}, {0, 4}}},
                                         {5, 3});
  using gd::edge_time;
  using gd::node_time;
  using gd::temporal_last;
  using gd::temporal_uniform;
  SUBCASE("uniform, edge times, excluded edges")
  {
    run_and_compare_temporal<temporal_uniform, edge_time>(g, times, d, seeds, seed_times, fanouts, keys, true, counts);
  }
  SUBCASE("last, edge times")
  {
    run_and_compare_temporal<temporal_last, edge_time>(g, times, d, seeds, seed_times, fanouts, keys, false, counts);
  }
  SUBCASE("uniform, node times, a dict with 0 and -1")
  {
    run_and_compare_temporal<temporal_uniform, node_time>(g, times, d, seeds, seed_times, dict, keys, false, counts);
  }
  SUBCASE("last, node times, excluded edges, a dict with 0 and -1")
  {
    run_and_compare_temporal<temporal_last, node_time>(g, times, d, seeds, seed_times, dict, keys, true, counts);
  }
}

TEST_CASE("sample_typed_temporal_blocks_async: bad samplers and seed times are named, nothing launched")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  typed_temporal_case const c(seed, 5, 0);
  auto const& g = c.g;  // plain references: C++17 lambdas cannot capture structured bindings
  auto const& times = c.times;
  auto const& d = c.d;
  auto const& counts = c.counts;
  auto const& seeds = c.seeds;
  auto const& seed_times = c.seed_times;
  auto const& schema = g.host.schema;
  std::vector<std::uint64_t> const keys(static_cast<std::size_t>(schema.num_relations()), 7);
  auto const fanouts = gd::typed_fanouts_of(schema, std::vector<int>{3, 2});
  stream_guard s;
  gd::sample_typed_blocks_buffers<std::int64_t, std::int32_t> const storage(g.device.view(), counts, fanouts, s.stream);
  gd::buffer<unsigned char> ws(gd::sample_typed_temporal_blocks_workspace_bytes(g.device.view(), storage.bounds()),
                               gd::memory_kind::device);
  gd::workspace_view const w{ws.data(), ws.size()};
  auto samplers = d.samplers<gd::temporal_uniform, gd::edge_time>(g.device.view(), keys, false);
  auto const call = [&](const std::vector<gd::temporal_sampler<>>& x, const std::vector<const std::int64_t*>& t) {
    gd::sample_typed_temporal_blocks_async(s.stream, g.device.view(), seeds.device_view(), t, fanouts, x,
                                           gd::sampling_policy{}, storage.view(), w);
  };
  auto fewer = samplers;
  fewer.pop_back();
  CHECK_THROWS_WITH_AS(call(fewer, seed_times.pointers()), doctest::Contains("temporal samplers for"),
                       gd::invalid_argument);
  auto short_times = samplers;
  short_times[1].num_times -= 1;
  CHECK_THROWS_WITH_AS(call(short_times, seed_times.pointers()), doctest::Contains("(relation 1)"),
                       gd::invalid_argument);
  auto no_times = seed_times.pointers();
  no_times[static_cast<std::size_t>(schema.node_type("paper"))] = nullptr;
  CHECK_THROWS_WITH_AS(call(samplers, no_times), doctest::Contains("seeds without times"), gd::invalid_argument);
  CHECK_THROWS_WITH_AS(call(samplers, {}), doctest::Contains("seed times for 0 node types"), gd::invalid_argument);
  CHECK_THROWS_WITH_AS(gd::sample_typed_temporal_blocks_async(s.stream, g.device.view(), seeds.device_view(),
                                                              seed_times.pointers(), fanouts, samplers,
                                                              gd::sampling_policy{}, storage.view(), gd::workspace_view{}),
                       doctest::Contains("sample_typed_temporal_blocks_workspace_bytes"), gd::invalid_argument);
  // nothing was enqueued by the refused calls: a good call after them still equals the oracle
  poison(storage.view(), s.stream);
  call(samplers, seed_times.pointers());
  gd::sample_typed_blocks_check(s.stream, w, g.device.view(), seeds.device_view(), 2);
  auto const expected = gnndirect::test::typed_temporal_blocks_reference(
    g.host.view(), times.setups(g.host.view(), false, false, keys, false), seeds.host, seed_times.host, fanouts);
  check_equal(storage, s.stream, expected.blocks);
}

TEST_CASE("typed_preparer under batch_scheduler: blocks, per-type features and labels")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  using Offset = std::int64_t;
  using Index = std::int64_t;
  typed_pair<Offset, Index> const g(seed, false);
  auto const& schema = g.host.schema;
  int const paper = schema.node_type("paper");
  int const institution = schema.node_type("institution");
  std::int64_t const papers = g.host.num_nodes[static_cast<std::size_t>(paper)];
  std::int64_t const institutions = g.host.num_nodes[static_cast<std::size_t>(institution)];
  // paper: 7 float features in pinned memory; institution: 3 doubles in HBM; author and
  // field_of_study have none.
  std::vector<float> paper_x(static_cast<std::size_t>(papers * 7));
  for (auto& x : paper_x) { x = static_cast<float>(rng() % 100000); }
  std::vector<double> inst_x(static_cast<std::size_t>(institutions * 3));
  for (auto& x : inst_x) { x = static_cast<double>(rng() % 100000); }
  // author: 5 features encoded as fp16 in pinned memory, decoded to float inside the gather
  // (small integers: fp16 holds them exactly).
  int const author = schema.node_type("author");
  std::int64_t const authors = g.host.num_nodes[static_cast<std::size_t>(author)];
  std::vector<float> author_x(static_cast<std::size_t>(authors * 5));
  for (auto& x : author_x) { x = static_cast<float>(rng() % 2048); }
  gd::encoded_table<gd::codecs::fp16> const author_codes(author_x.data(), authors, 5, gd::memory_kind::pinned);
  std::vector<std::int32_t> labels(static_cast<std::size_t>(papers));
  for (auto& y : labels) { y = static_cast<std::int32_t>(rng() % 349); }
  auto const d_paper_x = to_buffer(paper_x, gd::memory_kind::pinned);
  auto const d_inst_x = to_buffer(inst_x);
  auto const d_labels = to_buffer(labels);
  std::vector<Index> training(300);
  for (auto& id : training) { id = static_cast<Index>(rng() % static_cast<std::uint64_t>(papers)); }
  gd::typed_pipeline_options options;
  options.fanouts = gd::typed_fanouts_of(schema, std::vector<int>{5, 3});
  options.batch_size = 128;
  options.seed = rng();
  gd::uniform_sampler const sampler{rng()};
  auto tables = std::make_tuple(
    gd::typed_features(paper, gd::table_view<const float>(d_paper_x.data(), papers, 7, 7, gd::memory_kind::pinned)),
    gd::typed_features(institution, gd::table_view<const double>(d_inst_x.data(), institutions, 3, 3,
                                                                 gd::memory_kind::device)),
    gd::typed_feature_table<float, gd::encoded_view<gd::codecs::fp16>>{author, author_codes.view()});
  using preparer_t = gd::typed_preparer<Offset, Index, std::int32_t, gd::uniform_sampler,
                                        gd::typed_feature_table<float, gd::table_view<const float>>,
                                        gd::typed_feature_table<double, gd::table_view<const double>>,
                                        gd::typed_feature_table<float, gd::encoded_view<gd::codecs::fp16>>>;
  preparer_t preparer(g.device.view(), schema, paper, tables, d_labels.data(), training, options, sampler,
                      gd::resource_ref{});
  stream_guard consumer;
  gd::batch_scheduler<preparer_t> scheduler(preparer, gd::scheduler_options{3, 2});
  for (std::int64_t epoch = 0; epoch < 2; ++epoch) {
    CAPTURE(epoch);
    scheduler.start_epoch(epoch);
    REQUIRE(preparer.num_batches() == 3);
    std::int64_t b = 0;
    while (auto* batch = scheduler.next(consumer.stream)) {
      CAPTURE(b);
      GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(consumer.stream));
      std::vector<Index> const seeds(batch->host_seeds, batch->host_seeds + batch->num_seeds);
      auto const expected = gd::host::sample_typed_blocks_reference(
        g.host.view(), paper, seeds.data(), batch->num_seeds, options.fanouts,
        gd::reseeded(sampler, gd::batch_sampling_seed(options.seed, epoch, b)));
      for (std::size_t t = 0; t < expected.node_types.size(); ++t) {
        CAPTURE(t);
        REQUIRE(to_host(batch->blocks.node_types[t].nodes.data(), batch->blocks.node_types[t].nodes.count) ==
                expected.node_types[t].nodes);
      }
      for (std::size_t l = 0; l < expected.layers.size(); ++l) {
        for (std::size_t r = 0; r < expected.layers[l].size(); ++r) {
          auto const& got = batch->blocks.layers[l][r];
          CHECK(to_host(got.indices.data(), got.indices.count) == expected.layers[l][r].indices);
          CHECK(to_host(got.offsets.data(), got.offsets.count) == expected.layers[l][r].offsets);
        }
      }
      auto const& pnodes = expected.node_types[static_cast<std::size_t>(paper)].nodes;
      auto const px = std::get<0>(batch->features);
      REQUIRE(px.rows == static_cast<std::int64_t>(pnodes.size()));
      auto const got_px = to_host(px.data, px.rows * 7);
      for (std::size_t i = 0; i < pnodes.size(); ++i) {
        for (std::size_t c = 0; c < 7; ++c) {
          REQUIRE(got_px[i * 7 + c] == paper_x[static_cast<std::size_t>(pnodes[i]) * 7 + c]);
        }
      }
      auto const& inodes = expected.node_types[static_cast<std::size_t>(institution)].nodes;
      auto const ix = std::get<1>(batch->features);
      REQUIRE(ix.rows == static_cast<std::int64_t>(inodes.size()));
      auto const got_ix = to_host(ix.data, ix.rows * 3);
      for (std::size_t i = 0; i < inodes.size(); ++i) {
        for (std::size_t c = 0; c < 3; ++c) {
          REQUIRE(got_ix[i * 3 + c] == inst_x[static_cast<std::size_t>(inodes[i]) * 3 + c]);
        }
      }
      auto const& anodes = expected.node_types[static_cast<std::size_t>(author)].nodes;
      auto const ax = std::get<2>(batch->features);
      REQUIRE(ax.rows == static_cast<std::int64_t>(anodes.size()));
      auto const got_ax = to_host(ax.data, ax.rows * 5);
      for (std::size_t i = 0; i < anodes.size(); ++i) {
        for (std::size_t c = 0; c < 5; ++c) {
          REQUIRE(got_ax[i * 5 + c] == author_x[static_cast<std::size_t>(anodes[i]) * 5 + c]);
        }
      }
      auto const got_y = to_host(batch->labels, batch->num_seeds);
      for (std::size_t i = 0; i < seeds.size(); ++i) { REQUIRE(got_y[i] == labels[static_cast<std::size_t>(seeds[i])]); }
      scheduler.release(batch, consumer.stream);
      ++b;
    }
    CHECK(b == 3);
  }
  SUBCASE("bad tables are named")
  {
    auto bad = std::make_tuple(gd::typed_features(
      paper, gd::table_view<const float>(d_paper_x.data(), papers - 1, 7, 7, gd::memory_kind::pinned)));
    using bad_t = gd::typed_preparer<Offset, Index, std::int32_t, gd::uniform_sampler,
                                     gd::typed_feature_table<float, gd::table_view<const float>>>;
    CHECK_THROWS_WITH_AS(bad_t(g.device.view(), schema, paper, bad, d_labels.data(), training, options, sampler,
                               gd::resource_ref{}),
                         doctest::Contains("the table of node type 'paper' has"), gd::invalid_argument);
    auto unknown = std::make_tuple(gd::typed_features(
      9, gd::table_view<const float>(d_paper_x.data(), papers, 7, 7, gd::memory_kind::pinned)));
    CHECK_THROWS_WITH_AS(bad_t(g.device.view(), schema, paper, unknown, d_labels.data(), training, options, sampler,
                               gd::resource_ref{}),
                         doctest::Contains("names node type 9"), gd::invalid_argument);
  }
}

TEST_CASE("validate_typed on the GPU: relations in HBM and host memory, the culprit named")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  typed_pair<std::int64_t, std::int32_t> g(seed, true);
  stream_guard s;
  gd::validate_typed(s.stream, g.device.view(), &g.host.schema);  // valid
  // Relation 0 (author, writes, paper) sits in HBM, relation 1 (author, affiliated_with,
  // institution) in pinned memory: a src id past the author count in each.
  for (int r : {0, 1}) {
    CAPTURE(r);
    auto host = g.host;
    auto& rel = host.relations[static_cast<std::size_t>(r)];
    REQUIRE(rel.num_edges() > 3);
    rel.indices[3] = static_cast<std::int32_t>(host.num_nodes[static_cast<std::size_t>(host.schema.src_type(r))]);
    gd::typed_graph<std::int64_t, std::int32_t> const bad(host, typed_pair<std::int64_t, std::int32_t>::placements(8));
    std::string const expected = "relation " + gd::to_string(host.schema.relation(r)) + ": indices[3] = ";
    CHECK_THROWS_WITH_AS(gd::validate_typed(s.stream, bad.view(), &host.schema), doctest::Contains(expected.c_str()),
                         gd::corrupt_graph);
    CHECK_THROWS_WITH_AS(gd::validate_typed(host.view(), &host.schema), doctest::Contains(expected.c_str()),
                         gd::corrupt_graph);
  }
  auto host = g.host;
  host.relations[2].weights[0] = -1.0f;
  gd::typed_graph<std::int64_t, std::int32_t> const bad(host, typed_pair<std::int64_t, std::int32_t>::placements(8));
  CHECK_THROWS_WITH_AS(gd::validate_typed(s.stream, bad.view(), &host.schema),
                       doctest::Contains("relation (paper, cites, paper): weights[0] = -1"), gd::corrupt_graph);
}
