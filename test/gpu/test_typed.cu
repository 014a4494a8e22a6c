// GPU tests of typed (heterogeneous) sampling: sample_typed_blocks_async against the host
// reference bit for bit on fresh ogbn-mag-shaped graphs whose relations sit in different
// placements (HBM and host memory), with one sampler for all relations, weighted draws and a
// per-relation sampler list; outputs poisoned first, nothing written past the valid node
// prefixes; a CUDA graph captured once and replayed with new seeds; bad seeds raised by
// sample_typed_blocks_check.
#include <doctest/doctest.h>

#include "support/random.hpp"
#include "support/transfer.hpp"

#include <gnndirect/algorithms/sample_typed_blocks_async.cuh>
#include <gnndirect/algorithms/sample_typed_blocks_buffers.cuh>
#include <gnndirect/algorithms/validate_typed.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/device/samplers.hpp>
#include <gnndirect/graph/generate_typed.hpp>
#include <gnndirect/graph/typed_graph.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/reference/sample_typed_reference.hpp>

#include <cstdint>
#include <random>
#include <string>
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
void poison(const gd::sampled_typed_blocks_ref<Offset, Index>& out, cudaStream_t stream)
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
    std::int64_t const capacity = storage.ref().node_types[t].capacity;
    auto const all = to_host(storage.ref().node_types[t].nodes, capacity);
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
  poison(storage.ref(), s.stream);
  auto const n = static_cast<std::int64_t>(seeds.size());
  gd::sample_typed_blocks_async(s.stream, g.device.view(), seed_type, d_seeds.data(), n, fanouts, samplers,
                                gd::sampling_policy{}, storage.ref(), storage.workspace());
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
  cudaGraph_t graph{};
  GNNDIRECT_CUDA_TRY(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeThreadLocal));
  gd::sample_typed_blocks_async(s.stream, g.device.view(), paper, d_seeds.data(), n, fanouts, sampler,
                                gd::sampling_policy{}, storage.ref(), storage.workspace());
  GNNDIRECT_CUDA_TRY(cudaStreamEndCapture(s.stream, &graph));
  cudaGraphExec_t exec{};
  GNNDIRECT_CUDA_TRY(cudaGraphInstantiate(&exec, graph, 0));
  for (int round = 0; round < 2; ++round) {
    CAPTURE(round);
    auto const seeds = seeds_with_repeats<std::int64_t>(rng, n, g.host.num_nodes[static_cast<std::size_t>(paper)]);
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(d_seeds.data(), seeds.data(), d_seeds.bytes(), cudaMemcpyHostToDevice, s.stream));
    poison(storage.ref(), s.stream);
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
                                gd::sampling_policy{}, storage.ref(), storage.workspace());
  try {
    gd::sample_typed_blocks_check(s.stream, storage.workspace(), g.device.view(), paper, 2);
    FAIL("no exception for a seed outside its type");
  } catch (const gd::index_out_of_range& e) {
    CHECK(e.position() == 2);
    CHECK(e.value() == papers);
    CHECK(std::string(e.what()).find("seeds (node type 0)") != std::string::npos);
  }
  auto small = storage.ref();
  small.layers[1][2].capacity.num_edges = 0;
  CHECK_THROWS_WITH_AS(gd::sample_typed_blocks_async(s.stream, g.device.view(), paper, d_seeds.data(), 4, fanouts,
                                                     gd::uniform_sampler{1}, gd::sampling_policy{}, small,
                                                     storage.workspace()),
                       doctest::Contains("layer 1 relation 2"), gd::invalid_argument);
}
