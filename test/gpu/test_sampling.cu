// GPU tests of neighbour sampling: bit-for-bit equality with the host reference on fresh random
// graphs for every kind, id/offset type and placement; huge degrees; ids beyond 2^31; bad seeds;
// CUDA graph capture of the async path; the device primitive in a user kernel; blocks.
#include <doctest/doctest.h>

#include "support/transfer.hpp"

#include <gnndirect/algorithms/sample_blocks.cuh>
#include <gnndirect/algorithms/sample_neighbors.cuh>
#include <gnndirect/algorithms/sampler_choice.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/device/sample_neighbors_tile.cuh>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/reference/sample_reference.hpp>

#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

using gnndirect::buffer;
using gnndirect::csr_view;
using gnndirect::memory_kind;
using gnndirect::sampling_kind;
using gnndirect::sampling_policy;

namespace {

using gnndirect::test::to_buffer;
using gnndirect::test::to_host;

constexpr sampling_kind all_kinds[] = {sampling_kind::uniform_without_replacement,
                                       sampling_kind::uniform_with_replacement,
                                       sampling_kind::weighted_without_replacement};

/// A graph on the host (for the reference) with skewed degrees and some zero weights.
template <class Offset, class Index>
struct host_graph {
  std::vector<Offset> indptr;
  std::vector<Index> indices;
  std::vector<float> weights;
  std::vector<Offset> edge_ids;

  csr_view<Offset, Index> view() const
  {
    csr_view<Offset, Index> v;
    v.indptr = indptr.data();
    v.indices = indices.data();
    v.weights = weights.data();
    v.edge_ids = edge_ids.empty() ? nullptr : edge_ids.data();
    v.num_nodes = static_cast<std::int64_t>(indptr.size()) - 1;
    v.num_edges = static_cast<std::int64_t>(indices.size());
    return v;
  }
};

/// Degrees: mostly small, some around the fanouts, a few hubs; neighbour ids in [0, id_range).
template <class Offset, class Index>
host_graph<Offset, Index> random_graph(std::int64_t nodes, std::uint64_t seed, bool with_edge_ids,
                                       std::int64_t id_range = -1, std::int64_t hub_degree = 3000)
{
  std::mt19937_64 rng(seed);
  if (id_range < 0) { id_range = nodes; }
  host_graph<Offset, Index> g;
  g.indptr.push_back(0);
  for (std::int64_t v = 0; v < nodes; ++v) {
    std::uint64_t const r = rng() % 100;
    std::int64_t degree = r < 10 ? 0 : r < 70 ? static_cast<std::int64_t>(rng() % 20)
                                 : r < 97 ? static_cast<std::int64_t>(rng() % 200)
                                          : static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(hub_degree));
    for (std::int64_t e = 0; e < degree; ++e) {
      g.indices.push_back(static_cast<Index>(rng() % static_cast<std::uint64_t>(id_range)));
      std::uint64_t const w = rng() % 16;
      g.weights.push_back(w == 0 ? 0.0f : static_cast<float>(rng() % 100000) / 997.0f + 1e-3f);
    }
    g.indptr.push_back(static_cast<Offset>(g.indices.size()));
  }
  if (with_edge_ids) {
    g.edge_ids.resize(g.indices.size());
    for (std::size_t e = 0; e < g.edge_ids.size(); ++e) {
      g.edge_ids[e] = static_cast<Offset>(g.edge_ids.size() - 1 - e);
    }
  }
  return g;
}

/// The graph placed for the GPU: indptr in one kind, indices/weights/edge ids in another.
template <class Offset, class Index>
struct placed_graph {
  buffer<Offset> indptr;
  buffer<Index> indices;
  buffer<float> weights;
  buffer<Offset> edge_ids;
  csr_view<Offset, Index> view;

  placed_graph(const host_graph<Offset, Index>& g, memory_kind indptr_kind, memory_kind indices_kind)
    : indptr(to_buffer(g.indptr, indptr_kind)),
      indices(to_buffer(g.indices, indices_kind)),
      weights(to_buffer(g.weights, indices_kind)),
      edge_ids(to_buffer(g.edge_ids, indices_kind))
  {
    view = g.view();
    view.indptr = indptr.data();
    view.indices = indices.data();
    view.weights = weights.data();
    view.edge_ids = g.edge_ids.empty() ? nullptr : edge_ids.data();
    view.indptr_kind = indptr_kind;
    view.indices_kind = indices_kind;
  }
};

struct placement {
  memory_kind indptr;
  memory_kind indices;
};
constexpr placement all_placements[] = {{memory_kind::device, memory_kind::device},
                                        {memory_kind::device, memory_kind::pinned},
                                        {memory_kind::device, memory_kind::managed_host},
                                        {memory_kind::pinned, memory_kind::pinned},
                                        {memory_kind::managed_host, memory_kind::managed_host}};

/// Random seeds in [0, nodes) with some repeats.
template <class Index>
std::vector<Index> random_seeds(std::int64_t count, std::int64_t nodes, std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  std::vector<Index> seeds(static_cast<std::size_t>(count));
  for (auto& s : seeds) { s = static_cast<Index>(rng() % static_cast<std::uint64_t>(nodes)); }
  if (count > 2) { seeds[static_cast<std::size_t>(count - 1)] = seeds[0]; }
  return seeds;
}

/// GPU sample_neighbors vs the host reference, element by element.
template <class Offset, class Index, class Sampler>
void check_against_reference(const host_graph<Offset, Index>& g, const placed_graph<Offset, Index>& d,
                             const std::vector<Index>& seeds, int fanout, int layer,
                             const Sampler& sampler, const sampling_policy& policy)
{
  auto const n = static_cast<std::int64_t>(seeds.size());
  auto const expected = gnndirect::host::sample_neighbors_reference(g.view(), seeds.data(), n, fanout,
                                                                    layer, sampler);
  buffer<Index> const device_seeds = to_buffer(seeds, memory_kind::device);
  auto const actual = gnndirect::sample_neighbors(cudaStream_t{}, d.view, device_seeds.data(), n, fanout,
                                                  layer, sampler, policy);
  REQUIRE(to_host(actual.offsets.data(), n + 1) == expected.offsets);
  CHECK(to_host(actual.neighbors.data(), expected.num_edges()) == expected.neighbors);
  CHECK(to_host(actual.edge_ids.data(), expected.num_edges()) == expected.edge_ids);
}

template <class Offset, class Index>
void check_all_kinds_and_placements(std::uint64_t seed)
{
  auto const g = random_graph<Offset, Index>(4000, seed, seed % 2 == 0);
  auto const seeds = random_seeds<Index>(1500, 4000, seed + 1);
  for (auto where : all_placements) {
    placed_graph<Offset, Index> const d(g, where.indptr, where.indices);
    for (auto kind : all_kinds) {
      for (int tile : {32, 8}) {
        for (int fanout : {1, 15, 40}) {
          CAPTURE(gnndirect::to_string(where.indptr));
          CAPTURE(gnndirect::to_string(where.indices));
          CAPTURE(gnndirect::to_string(kind));
          CAPTURE(tile);
          CAPTURE(fanout);
          sampling_policy const policy{tile, fanout == 15 ? 3 : 0, true};
          gnndirect::visit_sampler(kind, seed, [&](auto sampler) {
            check_against_reference(g, d, seeds, fanout, fanout % 3, sampler, policy);
          });
        }
      }
    }
  }
}

}  // namespace

// T: (offset type, index type).
TEST_CASE_TEMPLATE("sample_neighbors equals the host reference, every offset and id type", T,
                   std::pair<std::int32_t, std::int32_t>, std::pair<std::int64_t, std::int64_t>,
                   std::pair<std::int64_t, std::int32_t>)
{
  std::uint64_t const seed = std::random_device{}();
  CAPTURE(seed);
  check_all_kinds_and_placements<typename T::first_type, typename T::second_type>(seed);
}

TEST_CASE("a node with more than 1M neighbours, and fanouts 0 and 100")
{
  std::uint64_t const seed = std::random_device{}();
  CAPTURE(seed);
  auto g = random_graph<std::int64_t, std::int64_t>(64, seed, false, 64, 100);
  std::mt19937_64 rng(seed);
  std::int64_t const hub = 1200000;
  for (auto& p : g.indptr) { p += hub; }
  g.indptr.insert(g.indptr.begin(), 0);  // node 0 is the hub; the others shift by one
  std::vector<std::int64_t> hub_ids(static_cast<std::size_t>(hub));
  std::vector<float> hub_weights(static_cast<std::size_t>(hub));
  for (std::int64_t e = 0; e < hub; ++e) {
    hub_ids[static_cast<std::size_t>(e)] = static_cast<std::int64_t>(rng() % 65);
    hub_weights[static_cast<std::size_t>(e)] = static_cast<float>(rng() % 1000) / 10.0f;
  }
  g.indices.insert(g.indices.begin(), hub_ids.begin(), hub_ids.end());
  g.weights.insert(g.weights.begin(), hub_weights.begin(), hub_weights.end());
  placed_graph<std::int64_t, std::int64_t> const d(g, memory_kind::device, memory_kind::managed_host);
  std::vector<std::int64_t> const seeds{0, 5, 0, 64, 1};
  for (auto kind : all_kinds) {
    for (int fanout : {0, 15, 100}) {
      CAPTURE(gnndirect::to_string(kind));
      CAPTURE(fanout);
      gnndirect::visit_sampler(kind, seed, [&](auto sampler) {
        check_against_reference(g, d, seeds, fanout, 2, sampler, sampling_policy{32, 0, true});
      });
    }
  }
}

TEST_CASE("neighbour ids beyond 2^31 pass through unchanged (int64 ids)")
{
  std::uint64_t const seed = std::random_device{}();
  CAPTURE(seed);
  // Few rows (indptr stays small) but neighbour ids up to 2^33: one layer never dereferences them.
  auto const g = random_graph<std::int64_t, std::int64_t>(1000, seed, true, std::int64_t{1} << 33);
  placed_graph<std::int64_t, std::int64_t> const d(g, memory_kind::device, memory_kind::pinned);
  auto const seeds = random_seeds<std::int64_t>(700, 1000, seed);
  for (auto kind : all_kinds) {
    CAPTURE(gnndirect::to_string(kind));
    gnndirect::visit_sampler(kind, seed, [&](auto sampler) {
      check_against_reference(g, d, seeds, 12, 0, sampler, sampling_policy{16, 0, true});
    });
  }
  CHECK(*std::max_element(g.indices.begin(), g.indices.end()) > (std::int64_t{1} << 31));
}

TEST_CASE("bad seeds raise index_out_of_range naming the first bad position; context stays usable")
{
  auto const g = random_graph<std::int64_t, std::int32_t>(500, 11, false);
  placed_graph<std::int64_t, std::int32_t> const d(g, memory_kind::device, memory_kind::device);
  std::vector<std::int32_t> seeds = random_seeds<std::int32_t>(5000, 500, 3);
  seeds[4000] = -5;
  seeds[1234] = 500;
  seeds[4999] = 1 << 30;
  buffer<std::int32_t> const device_seeds = to_buffer(seeds, memory_kind::device);
  try {
    (void)gnndirect::sample_neighbors(cudaStream_t{}, d.view, device_seeds.data(), 5000, 10, 0,
                                      gnndirect::uniform_sampler{}, sampling_policy{});
    FAIL("expected index_out_of_range");
  } catch (gnndirect::index_out_of_range const& e) {
    CHECK(e.position() == 1234);
    CHECK(e.value() == 500);
    CHECK(std::string(e.what()).find("seeds[1234] = 500") != std::string::npos);
  }
  try {
    std::vector<int> const fanouts{4, 3};
    (void)gnndirect::sample_blocks(cudaStream_t{}, d.view, device_seeds.data(), 5000, fanouts,
                                   gnndirect::uniform_sampler{}, sampling_policy{});
    FAIL("expected index_out_of_range");
  } catch (gnndirect::index_out_of_range const& e) {
    CHECK(e.position() == 1234);
  }
  CHECK(cudaGetLastError() == cudaSuccess);
  seeds[4000] = 1;
  seeds[1234] = 2;
  seeds[4999] = 3;
  check_against_reference(g, d, seeds, 10, 0, gnndirect::uniform_sampler{}, sampling_policy{});
  auto no_weights = d.view;
  no_weights.weights = nullptr;
  CHECK_THROWS_AS((void)gnndirect::sample_neighbors(cudaStream_t{}, no_weights, device_seeds.data(),
                                                    5000, 10, 0, gnndirect::weighted_sampler{}),
                  gnndirect::invalid_argument);
}

TEST_CASE("sample_neighbors_async with a caller workspace runs under CUDA graph capture")
{
  std::uint64_t const seed = std::random_device{}();
  CAPTURE(seed);
  using Offset = std::int64_t;
  using Index = std::int32_t;
  auto const g = random_graph<Offset, Index>(3000, seed, true);
  placed_graph<Offset, Index> const d(g, memory_kind::device, memory_kind::managed_host);
  std::int64_t const n = 2000;
  int const fanout = 10;
  auto const slots = static_cast<std::size_t>(n * fanout);
  buffer<Index> seeds(static_cast<std::size_t>(n), memory_kind::device);
  buffer<Index> slot_ids(slots, memory_kind::device);
  buffer<Offset> slot_eids(slots, memory_kind::device);
  buffer<std::int64_t> counts(static_cast<std::size_t>(n), memory_kind::device);
  buffer<std::int64_t> offsets(static_cast<std::size_t>(n) + 1, memory_kind::device);
  buffer<Index> ids(slots, memory_kind::device);
  buffer<Offset> eids(slots, memory_kind::device);
  buffer<unsigned char> ws(gnndirect::sample_neighbors_workspace_bytes(n), memory_kind::device);
  gnndirect::sampled_slots_view<Offset, Index> const out{slot_ids.data(), slot_eids.data(), counts.data(),
                                                        offsets.data(), n, n * fanout};
  gnndirect::workspace_view const workspace{ws.data(), ws.bytes()};

  cudaStream_t stream{};
  GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (auto kind : all_kinds) {
    CAPTURE(gnndirect::to_string(kind));
    sampling_policy const policy{32, 0, true};
    gnndirect::visit_sampler(kind, seed, [&](auto sampler) {
    cudaGraph_t graph{};
    GNNDIRECT_CUDA_TRY(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    gnndirect::sample_neighbors_async(stream, d.view, seeds.data(), n, fanout, 1, sampler, policy, out,
                                      workspace);
    gnndirect::compact_sampled_async(stream, out, n, fanout, ids.data(), eids.data());
    GNNDIRECT_CUDA_TRY(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec{};
    GNNDIRECT_CUDA_TRY(cudaGraphInstantiate(&exec, graph, 0));
    for (int round = 0; round < 2; ++round) {
      auto const host_seeds = random_seeds<Index>(n, 3000, seed + 10 + static_cast<std::uint64_t>(round));
      // Stream-ordered: `stream` does not synchronise with the legacy default stream.
      GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(seeds.data(), host_seeds.data(), seeds.bytes(),
                                         cudaMemcpyHostToDevice, stream));
      GNNDIRECT_CUDA_TRY(cudaMemsetAsync(ids.data(), 0xFF, ids.bytes(), stream));  // poison
      GNNDIRECT_CUDA_TRY(cudaMemsetAsync(eids.data(), 0xFF, eids.bytes(), stream));
      GNNDIRECT_CUDA_TRY(cudaGraphLaunch(exec, stream));
      gnndirect::sample_neighbors_check(stream, workspace, d.view.num_nodes);
      auto const expected = gnndirect::host::sample_neighbors_reference(g.view(), host_seeds.data(), n,
                                                                        fanout, 1, sampler);
      REQUIRE(to_host(offsets.data(), n + 1) == expected.offsets);
      CHECK(to_host(ids.data(), expected.num_edges()) == expected.neighbors);
      CHECK(to_host(eids.data(), expected.num_edges()) == expected.edge_ids);
      auto const poisoned = to_host(ids.data(), static_cast<std::int64_t>(slots));
      CHECK(std::all_of(poisoned.begin() + expected.num_edges(), poisoned.end(),
                        [](Index v) { return v == -1; }));  // nothing written past the end
    }
    GNNDIRECT_CUDA_TRY(cudaGraphExecDestroy(exec));
    GNNDIRECT_CUDA_TRY(cudaGraphDestroy(graph));
    });
  }
  // A bad seed under the async path: recorded, raised by the check, nothing else disturbed.
  Index const bad = -1;
  GNNDIRECT_CUDA_TRY(
    cudaMemcpyAsync(seeds.data() + 77, &bad, sizeof(bad), cudaMemcpyHostToDevice, stream));
  gnndirect::sample_neighbors_async(stream, d.view, seeds.data(), n, fanout, 0, gnndirect::uniform_sampler{},
                                    sampling_policy{}, out, workspace);
  CHECK_THROWS_AS(gnndirect::sample_neighbors_check(stream, workspace, d.view.num_nodes),
                  gnndirect::index_out_of_range);
  GNNDIRECT_CUDA_TRY(cudaStreamDestroy(stream));
}

namespace {

/// The calling thread's tile of `Size` lanes: a compile-time cooperative-groups tile, or (Dynamic)
/// a dynamic_tile of the same lanes.
template <int Size, bool Dynamic>
__device__ auto tile_of_calling_thread()
{
  if constexpr (Dynamic) {
    return gnndirect::dynamic_tile::of_calling_thread(Size);
  } else {
    return cooperative_groups::tiled_partition<Size>(cooperative_groups::this_thread_block());
  }
}

/// A user kernel that inlines the device primitive: one Size-lane tile per seed, global scratch.
/// Whole blocks are launched (128 threads), so every tile is complete; tiles past n return as one.
template <int Size, bool Dynamic, class Sampler, class Offset, class Index>
__global__ void user_sampling_kernel(csr_view<Offset, Index> csr, const Index* seeds, std::int64_t n,
                                     int fanout, Sampler sampler, unsigned char* scratch,
                                     std::size_t scratch_bytes, Index* ids, Offset* eids,
                                     std::int64_t* counts)
{
  auto const tile = tile_of_calling_thread<Size, Dynamic>();
  std::int64_t const i = (blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x) / Size;
  if (i >= n) { return; }
  std::int64_t const count = gnndirect::sample_neighbors_tile(
    tile, csr, static_cast<std::int64_t>(seeds[i]), fanout, 0, sampler, scratch + i * scratch_bytes,
    ids + i * fanout, eids + i * fanout);
  if (tile.thread_rank() == 0) { counts[i] = count; }
}

/// Runs user_sampling_kernel with tiles of Size lanes (cg or dynamic) for every library sampler
/// and compares slot by slot with the reference; slots past a count must stay poisoned.
template <int Size, bool Dynamic>
void check_user_kernel(std::uint64_t seed)
{
  CAPTURE(Size);
  CAPTURE(Dynamic);
  auto const g = random_graph<std::int64_t, std::int64_t>(2000, seed, false);
  placed_graph<std::int64_t, std::int64_t> const d(g, memory_kind::device, memory_kind::device);
  std::int64_t const n = 999;  // the last warp is partial: whole tiles still exit together
  int const fanout = 20;
  auto const host_seeds = random_seeds<std::int64_t>(n, 2000, seed);
  buffer<std::int64_t> const seeds = to_buffer(host_seeds, memory_kind::device);
  for (auto kind : all_kinds) {
    CAPTURE(gnndirect::to_string(kind));
    gnndirect::visit_sampler(kind, seed, [&](auto sampler) {
      std::size_t const per_tile = gnndirect::sample_scratch_bytes(sampler, fanout, Size);
      buffer<unsigned char> scratch(std::max<std::size_t>(1, per_tile * n), memory_kind::device);
      buffer<std::int64_t> ids(static_cast<std::size_t>(n * fanout), memory_kind::device);
      buffer<std::int64_t> eids(static_cast<std::size_t>(n * fanout), memory_kind::device);
      buffer<std::int64_t> counts(static_cast<std::size_t>(n), memory_kind::device);
      gnndirect::test::fill_bytes(ids.data(), 0xFF, ids.bytes());  // poison: slots past a count stay -1
      gnndirect::test::fill_bytes(eids.data(), 0xFF, eids.bytes());
      gnndirect::test::fill_bytes(counts.data(), 0xFF, counts.bytes());
      auto const threads = static_cast<int>(n * Size);
      user_sampling_kernel<Size, Dynamic><<<(threads + 127) / 128, 128>>>(
        d.view, seeds.data(), n, fanout, sampler, scratch.data(), per_tile, ids.data(), eids.data(),
        counts.data());
      GNNDIRECT_CUDA_TRY(cudaGetLastError());
      GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());
      auto const expected = gnndirect::host::sample_neighbors_reference(g.view(), host_seeds.data(), n,
                                                                        fanout, 0, sampler);
      auto const got_counts = to_host(counts.data(), n);
      auto const got_ids = to_host(ids.data(), n * fanout);
      auto const got_eids = to_host(eids.data(), n * fanout);
      for (std::int64_t i = 0; i < n; ++i) {
        auto const begin = expected.offsets[static_cast<std::size_t>(i)];
        REQUIRE(got_counts[static_cast<std::size_t>(i)] == expected.offsets[static_cast<std::size_t>(i) + 1] - begin);
        for (std::int64_t j = 0; j < got_counts[static_cast<std::size_t>(i)]; ++j) {
          REQUIRE(got_ids[static_cast<std::size_t>(i * fanout + j)] ==
                  expected.neighbors[static_cast<std::size_t>(begin + j)]);
          REQUIRE(got_eids[static_cast<std::size_t>(i * fanout + j)] ==
                  expected.edge_ids[static_cast<std::size_t>(begin + j)]);
        }
        for (std::int64_t j = got_counts[static_cast<std::size_t>(i)]; j < fanout; ++j) {
          REQUIRE(got_ids[static_cast<std::size_t>(i * fanout + j)] == -1);  // untouched
        }
      }
    });
  }
}

}  // namespace

TEST_CASE("the device primitive works inside a user kernel with cg tiles of 32, 16, 8 and dynamic tiles")
{
  std::uint64_t const seed = std::random_device{}();
  CAPTURE(seed);
  check_user_kernel<32, false>(seed);
  check_user_kernel<16, false>(seed + 1);
  check_user_kernel<8, false>(seed + 2);
  check_user_kernel<16, true>(seed + 3);
  check_user_kernel<4, true>(seed + 4);
}

namespace {

template <class Offset, class Index, class Sampler>
void check_blocks(const host_graph<Offset, Index>& g, const placed_graph<Offset, Index>& d,
                  const std::vector<Index>& seeds, const std::vector<int>& fanouts,
                  const Sampler& sampler)
{
  auto const n = static_cast<std::int64_t>(seeds.size());
  auto const expected = gnndirect::host::sample_blocks_reference(g.view(), seeds.data(), n, fanouts, sampler);
  buffer<Index> const device_seeds = to_buffer(seeds, memory_kind::device);
  auto const actual = gnndirect::sample_blocks(cudaStream_t{}, d.view, device_seeds.data(), n, fanouts,
                                               sampler, sampling_policy{32, 0, true});
  REQUIRE(actual.layers.size() == expected.layers.size());
  for (std::size_t l = 0; l < fanouts.size(); ++l) {
    CAPTURE(l);
    auto const& a = actual.layers[l];
    auto const& e = expected.layers[l];
    REQUIRE(to_host(a.dst_nodes.data(), a.num_dst()) == e.dst_nodes);
    REQUIRE(to_host(a.src_nodes.data(), a.num_src()) == e.src_nodes);
    REQUIRE(to_host(a.offsets.data(), a.num_dst() + 1) == e.offsets);
    REQUIRE(to_host(a.indices.data(), a.num_edges()) == e.indices);
    REQUIRE(to_host(a.edge_ids.data(), a.num_edges()) == e.edge_ids);
  }
  CHECK(to_host(actual.input_nodes().data(), static_cast<std::int64_t>(actual.input_nodes().size())) ==
        expected.input_nodes());
}

}  // namespace

TEST_CASE("sample_blocks equals the host reference (relabelling order included)")
{
  std::uint64_t const seed = std::random_device{}();
  CAPTURE(seed);
  auto const g32 = random_graph<std::int32_t, std::int32_t>(20000, seed, false);
  auto const g64 = random_graph<std::int64_t, std::int64_t>(20000, seed + 1, true);
  std::vector<int> const fanouts{15, 10, 5};
  for (auto where : all_placements) {
    CAPTURE(gnndirect::to_string(where.indptr));
    CAPTURE(gnndirect::to_string(where.indices));
    placed_graph<std::int32_t, std::int32_t> const d32(g32, where.indptr, where.indices);
    placed_graph<std::int64_t, std::int64_t> const d64(g64, where.indptr, where.indices);
    for (auto kind : all_kinds) {
      CAPTURE(gnndirect::to_string(kind));
      std::vector<std::int32_t> seeds32(512);
      for (std::size_t i = 0; i < seeds32.size(); ++i) { seeds32[i] = static_cast<std::int32_t>(i * 37 % 20000); }
      auto const seeds64 = random_seeds<std::int64_t>(300, 20000, seed);  // includes a repeat
      gnndirect::visit_sampler(kind, seed, [&](auto sampler) {
        check_blocks(g32, d32, seeds32, fanouts, sampler);
        check_blocks(g64, d64, seeds64, fanouts, sampler);
      });
    }
  }
}
