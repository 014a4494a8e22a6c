// Every public *_async call under CUDA stream capture (test/support/capture.hpp):
//  - run once plainly and once captured, instantiated and launched: the same bytes;
//  - with a bad argument: the call throws and the capture holds zero nodes (every argument check
//    before the first enqueue), the decoding gather with misaligned codes included.
// And the device-count forms of sample_neighbors_async and relabel_async: two hops composed by
// hand under one capture (no read-back of num_src) equal sample_blocks_async and the host
// reference bit for bit. The other public *_async calls in two more cases: the tiered gathers
// (plain and decoding) and the write-through scatter (cache/tiered_table.cuh),
// sample_temporal_blocks_async, sample_negatives_async and relabel_edge_seeds_async, each also
// against the host result where one is at hand. Elsewhere: sample_typed_blocks_async
// (test/gpu/test_typed.cu: captured by the same helper, replayed with new seeds against the host
// reference) and the preparer/pipeline (test/gpu/test_pipeline.cu).
#include <doctest/doctest.h>

#include "support/capture.hpp"
#include "support/random.hpp"
#include "support/transfer.hpp"

#include <gnndirect/algorithms/edge_seeds.cuh>
#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/algorithms/negative_sampling.cuh>
#include <gnndirect/algorithms/relabel.cuh>
#include <gnndirect/algorithms/sample_blocks_async.cuh>
#include <gnndirect/algorithms/sample_neighbors_async.cuh>
#include <gnndirect/algorithms/sample_temporal_blocks_async.cuh>
#include <gnndirect/cache/hot_set.cuh>
#include <gnndirect/cache/tiered_table.cuh>
#include <gnndirect/core/bounded_count.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/encoded_view.hpp>
#include <gnndirect/device/codecs.hpp>
#include <gnndirect/device/temporal_samplers.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/encoded_table.hpp>
#include <gnndirect/reference/gather_reference.hpp>
#include <gnndirect/reference/sample_reference.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

using gnndirect::bounded_count;
using gnndirect::buffer;
using gnndirect::csr_view;
using gnndirect::invalid_argument;
using gnndirect::memory_kind;
using gnndirect::sampling_policy;
using gnndirect::table_view;
using gnndirect::workspace_view;
using gnndirect::test::check_capture_matches;
using gnndirect::test::check_refused_before_enqueue;
using gnndirect::test::to_buffer;
using gnndirect::test::to_host;

namespace {

using Offset = std::int64_t;
using Index = std::int32_t;

/// A device buffer of n T (at least one), and its bytes for the snapshots.
template <class T>
buffer<T> device(std::int64_t n)
{
  return buffer<T>(static_cast<std::size_t>(std::max<std::int64_t>(n, 1)), memory_kind::device);
}

/// Poisons each buffer (0xCD) on `stream`.
struct poisoner {
  std::vector<std::pair<void*, std::size_t>> arrays;
  template <class T>
  poisoner& add(const buffer<T>& b)
  {
    arrays.emplace_back(const_cast<T*>(b.data()), b.bytes());
    return *this;
  }
  /// Device-visible memory the test does not own (a tier's cache rows).
  poisoner& add(const void* data, std::size_t bytes)
  {
    arrays.emplace_back(const_cast<void*>(data), bytes);
    return *this;
  }
  void operator()(cudaStream_t stream) const
  {
    for (auto const& [data, bytes] : arrays) { GNNDIRECT_CUDA_TRY(cudaMemsetAsync(data, 0xCD, bytes, stream)); }
  }
  /// Host bytes of every buffer, concatenated.
  std::vector<unsigned char> snapshot() const
  {
    std::vector<unsigned char> all;
    for (auto const& [data, bytes] : arrays) {
      auto const part = to_host(static_cast<const unsigned char*>(data), static_cast<std::int64_t>(bytes));
      all.insert(all.end(), part.begin(), part.end());
    }
    return all;
  }
};

/// A random graph (degrees 0..24) on the host and in device memory.
struct graph {
  std::vector<Offset> indptr{0};
  std::vector<Index> indices;
  buffer<Offset> d_indptr;
  buffer<Index> d_indices;

  graph(std::mt19937_64& rng, std::int64_t nodes)
  {
    for (std::int64_t v = 0; v < nodes; ++v) {
      std::uint64_t const degree = rng() % 25;
      for (std::uint64_t e = 0; e < degree; ++e) {
        indices.push_back(static_cast<Index>(rng() % static_cast<std::uint64_t>(nodes)));
      }
      indptr.push_back(static_cast<Offset>(indices.size()));
    }
    d_indptr = to_buffer(indptr);
    d_indices = to_buffer(indices);
  }
  std::int64_t nodes() const { return static_cast<std::int64_t>(indptr.size()) - 1; }
  csr_view<Offset, Index> view(bool on_device) const
  {
    csr_view<Offset, Index> v;
    v.indptr = on_device ? d_indptr.data() : indptr.data();
    v.indices = on_device ? d_indices.data() : indices.data();
    v.num_nodes = nodes();
    v.num_edges = static_cast<std::int64_t>(indices.size());
    return v;
  }
};

/// One hop's slots and its sampling workspace, for `bound` seeds of `fanout` slots.
struct hop_storage {
  buffer<Index> neighbors;
  buffer<Offset> edge_ids;
  buffer<std::int64_t> counts, offsets;
  buffer<unsigned char> ws;
  std::int64_t bound;
  int fanout;

  hop_storage(std::int64_t n, int k)
    : neighbors(device<Index>(n * k)), edge_ids(device<Offset>(n * k)), counts(device<std::int64_t>(n)),
      offsets(device<std::int64_t>(n + 1)),
      ws(gnndirect::sample_neighbors_workspace_bytes(n), memory_kind::device), bound(n), fanout(k)
  {
  }
  gnndirect::sampled_slots_view<Offset, Index> view() const
  {
    return {const_cast<Index*>(neighbors.data()), const_cast<Offset*>(edge_ids.data()),
            const_cast<std::int64_t*>(counts.data()), const_cast<std::int64_t*>(offsets.data()), bound,
            bound * fanout};
  }
  workspace_view workspace() const { return {const_cast<unsigned char*>(ws.data()), ws.bytes()}; }
  poisoner& poison_into(poisoner& p) const { return p.add(neighbors).add(edge_ids).add(counts).add(offsets); }
};

/// One relabelled block's outputs for `num_dst` dst rows of `fanout` slots, and its workspace.
struct block_storage {
  gnndirect::block_bounds bounds;
  buffer<Index> src, indices;
  buffer<std::int64_t> offsets, scalars;
  buffer<Offset> edge_ids;
  buffer<unsigned char> ws;

  block_storage(std::int64_t num_dst, int fanout, std::int64_t nodes)
    : bounds{num_dst, num_dst * fanout, num_dst + std::min<std::int64_t>(num_dst * fanout, nodes)},
      src(device<Index>(bounds.num_src)), indices(device<Index>(bounds.num_edges)),
      offsets(device<std::int64_t>(num_dst + 1)), scalars(device<std::int64_t>(2)),
      edge_ids(device<Offset>(bounds.num_edges)),
      ws(gnndirect::relabel_workspace_bytes<Index>(num_dst, fanout), memory_kind::device)
  {
  }
  gnndirect::sampled_block_view<Offset, Index> view() const
  {
    return {const_cast<Index*>(src.data()), const_cast<std::int64_t*>(offsets.data()),
            const_cast<Index*>(indices.data()), const_cast<Offset*>(edge_ids.data()),
            const_cast<std::int64_t*>(scalars.data()), const_cast<std::int64_t*>(scalars.data()) + 1, bounds};
  }
  workspace_view workspace() const { return {const_cast<unsigned char*>(ws.data()), ws.bytes()}; }
  poisoner& poison_into(poisoner& p) const { return p.add(src).add(indices).add(offsets).add(scalars).add(edge_ids); }
};

}  // namespace

TEST_CASE("capture: gather_async, the decoding gather and scatter_async, captured and refused")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::int64_t const rows = 500, cols = 33, count = 300;
  auto const table_bytes = gnndirect::test::random_bytes(rng, static_cast<std::size_t>(rows * cols) * sizeof(float));
  buffer<float> table(static_cast<std::size_t>(rows * cols), memory_kind::device);
  gnndirect::test::copy_from_host(table.data(), table_bytes.data(), table.bytes());
  auto const indices = gnndirect::test::random_indices<Index>(rng, count, rows);
  buffer<Index> const d_indices = to_buffer(indices);
  buffer<float> const out(static_cast<std::size_t>(count * cols), memory_kind::device);
  table_view<float> const src(table.data(), rows, cols, cols, memory_kind::device);
  table_view<float> const dst(const_cast<float*>(out.data()), count, cols, cols, memory_kind::device);
  buffer<unsigned char> ws(gnndirect::gather_workspace_bytes<Index>(count, rows, memory_kind::device, cols * sizeof(float)),
                           memory_kind::device);
  workspace_view const w{ws.data(), ws.bytes()};
  poisoner outputs;
  outputs.add(out);

  SUBCASE("gather_async (table_view)")
  {
    check_capture_matches(outputs, [&](cudaStream_t s) { gnndirect::gather_async(s, src, d_indices.data(), count, dst, w); },
                          [&] { return outputs.snapshot(); });
    check_refused_before_enqueue<invalid_argument>(
      [&](cudaStream_t s) { gnndirect::gather_async(s, src, d_indices.data(), count, dst, workspace_view{}); },
      "null workspace");
  }
  SUBCASE("gather_async (encoded_view, fp16 codes decoded to float); misaligned codes refused before any enqueue")
  {
    std::int64_t const stride = 80;  // 33 codes of 2 bytes, rounded to 16
    buffer<std::uint8_t> codes(static_cast<std::size_t>(rows * (stride + 1) + 16), memory_kind::device);
    auto const code_bytes = gnndirect::test::random_bytes(rng, codes.bytes());
    gnndirect::test::copy_from_host(codes.data(), code_bytes.data(), codes.bytes());
    gnndirect::encoded_view<gnndirect::codecs::fp16> view{codes.data(), rows, cols, stride, memory_kind::device};
    buffer<unsigned char> ews(gnndirect::gather_workspace_bytes<Index>(count, rows, memory_kind::device,
                                                                       static_cast<std::size_t>(view.load_bytes())),
                              memory_kind::device);
    workspace_view const ew{ews.data(), ews.bytes()};
    check_capture_matches(outputs, [&](cudaStream_t s) { gnndirect::gather_async(s, view, d_indices.data(), count, dst, ew); },
                          [&] { return outputs.snapshot(); });
    auto misaligned = view;
    misaligned.data = codes.data() + 1;  // odd address: not one 2-byte code
    check_refused_before_enqueue<invalid_argument>(
      [&](cudaStream_t s) { gnndirect::gather_async(s, misaligned, d_indices.data(), count, dst, ew); },
      "aligned to one code");
    misaligned.data = codes.data();
    misaligned.stride_bytes = stride + 1;  // odd stride
    check_refused_before_enqueue<invalid_argument>(
      [&](cudaStream_t s) { gnndirect::gather_async(s, misaligned, d_indices.data(), count, dst, ew); },
      "aligned to one code");
  }
  SUBCASE("scatter_async")
  {
    table_view<const float> const rows_in(out.data(), count, cols, cols, memory_kind::device);
    buffer<unsigned char> sws(gnndirect::scatter_workspace_bytes<Index>(count, rows, memory_kind::device,
                                                                        cols * sizeof(float)),
                              memory_kind::device);
    workspace_view const sw{sws.data(), sws.bytes()};
    poisoner target;
    target.add(table);
    // Rows to scatter: a fixed pattern written before each run (the poisoner clears the target).
    GNNDIRECT_CUDA_TRY(cudaMemset(const_cast<float*>(out.data()), 0x3C, out.bytes()));
    GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());
    check_capture_matches(target, [&](cudaStream_t s) { gnndirect::scatter_async(s, rows_in, d_indices.data(), count, src, sw); },
                          [&] { return target.snapshot(); });
    check_refused_before_enqueue<invalid_argument>(
      [&](cudaStream_t s) { gnndirect::scatter_async(s, rows_in, d_indices.data(), count, src, workspace_view{}); },
      "null workspace");
  }
}

TEST_CASE("capture: sample_neighbors_async (both count forms), compact_sampled_async, relabel_async, sample_blocks_async")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  graph const g(rng, 800);
  csr_view<Offset, Index> const csr = g.view(true);
  std::int64_t const n = 173;
  int const fanout = 6;
  auto const seeds = gnndirect::test::random_indices<Index>(rng, n, g.nodes());
  buffer<Index> const d_seeds = to_buffer(seeds);
  gnndirect::uniform_sampler const sampler{rng()};
  hop_storage const hop(n, fanout);
  poisoner hop_out;
  hop.poison_into(hop_out);
  auto const bare = [&] {
    auto r = hop.view();
    r.seed_capacity = -1;  // a ref without its capacities
    return r;
  }();

  SUBCASE("sample_neighbors_async (host count)")
  {
    check_capture_matches(hop_out,
                          [&](cudaStream_t s) {
                            gnndirect::sample_neighbors_async(s, csr, d_seeds.data(), n, fanout, 0, sampler,
                                                              sampling_policy{}, hop.view(), hop.workspace());
                          },
                          [&] { return hop_out.snapshot(); });
    check_refused_before_enqueue<invalid_argument>(
      [&](cudaStream_t s) {
        gnndirect::sample_neighbors_async(s, csr, d_seeds.data(), n, fanout, 0, sampler, sampling_policy{}, bare,
                                          hop.workspace());
      },
      "out.seed_capacity is not given");
    // A fanout whose scratch cannot fit in shared memory: refused before the records' reset.
    check_refused_before_enqueue<invalid_argument>(
      [&](cudaStream_t s) {
        gnndirect::sample_neighbors_async(s, csr, d_seeds.data(), n, 100000, 0, sampler, sampling_policy{},
                                          hop.view(), hop.workspace());
      },
      "bytes of shared memory");
  }
  SUBCASE("sample_neighbors_async (device count): seeds past the count get count 0")
  {
    std::int64_t const active = 1 + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n - 1));
    CAPTURE(active);
    buffer<std::int64_t> const d_active = to_buffer(std::vector<std::int64_t>{active});
    bounded_count const count{d_active.data(), n};
    check_capture_matches(hop_out,
                          [&](cudaStream_t s) {
                            gnndirect::sample_neighbors_async(s, csr, d_seeds.data(), count, fanout, 0, sampler,
                                                              sampling_policy{}, hop.view(), hop.workspace());
                          },
                          [&] { return hop_out.snapshot(); });
    auto const counts = to_host(hop.counts.data(), n);
    CHECK(std::all_of(counts.begin() + active, counts.end(), [](std::int64_t c) { return c == 0; }));
    // The first `active` equal the host-count call on those seeds.
    hop_storage const plain(active, fanout);
    gnndirect::sample_neighbors_async(cudaStream_t{}, csr, d_seeds.data(), active, fanout, 0, sampler,
                                      sampling_policy{}, plain.view(), plain.workspace());
    gnndirect::sample_neighbors_check(cudaStream_t{}, plain.workspace(), g.nodes());
    CHECK(std::vector<std::int64_t>(counts.begin(), counts.begin() + active) == to_host(plain.counts.data(), active));
    check_refused_before_enqueue<invalid_argument>(
      [&](cudaStream_t s) {
        gnndirect::sample_neighbors_async(s, csr, d_seeds.data(), count, fanout, 0, sampler, sampling_policy{},
                                          bare, hop.workspace());
      },
      "out.seed_capacity is not given");
  }
  SUBCASE("compact_sampled_async and relabel_async (both count forms)")
  {
    gnndirect::sample_neighbors_async(cudaStream_t{}, csr, d_seeds.data(), n, fanout, 0, sampler, sampling_policy{},
                                      hop.view(), hop.workspace());
    gnndirect::sample_neighbors_check(cudaStream_t{}, hop.workspace(), g.nodes());
    buffer<Index> const compact = device<Index>(n * fanout);
    buffer<Offset> const compact_ids = device<Offset>(n * fanout);
    poisoner compact_out;
    compact_out.add(compact).add(compact_ids);
    check_capture_matches(compact_out,
                          [&](cudaStream_t s) {
                            gnndirect::compact_sampled_async(s, hop.view(), n, fanout, const_cast<Index*>(compact.data()),
                                                             const_cast<Offset*>(compact_ids.data()));
                          },
                          [&] { return compact_out.snapshot(); });
    check_refused_before_enqueue<invalid_argument>(
      [&](cudaStream_t s) {
        gnndirect::compact_sampled_async(s, bare, n, fanout, const_cast<Index*>(compact.data()),
                                         static_cast<Offset*>(nullptr));
      },
      "slots.seed_capacity is not given");
    block_storage const block(n, fanout, g.nodes());
    poisoner block_out;
    block.poison_into(block_out);
    check_capture_matches(block_out,
                          [&](cudaStream_t s) {
                            gnndirect::relabel_async(s, d_seeds.data(), n, fanout, hop.view(), g.nodes(), block.view(),
                                                     block.workspace());
                          },
                          [&] { return block_out.snapshot(); });
    gnndirect::relabel_check(cudaStream_t{}, block.workspace(), g.nodes());
    buffer<std::int64_t> const d_n = to_buffer(std::vector<std::int64_t>{n});
    auto const host_form = block_out.snapshot();
    check_capture_matches(block_out,
                          [&](cudaStream_t s) {
                            gnndirect::relabel_async(s, d_seeds.data(), bounded_count{d_n.data(), n}, fanout, hop.view(),
                                                     g.nodes(), block.view(), block.workspace());
                          },
                          [&] { return block_out.snapshot(); });
    CHECK(block_out.snapshot() == host_form);  // the device count n gives the host-count result
    auto no_capacity = block.view();
    no_capacity.capacity = gnndirect::block_bounds{-1, -1, -1};
    check_refused_before_enqueue<invalid_argument>(
      [&](cudaStream_t s) {
        gnndirect::relabel_async(s, d_seeds.data(), n, fanout, hop.view(), g.nodes(), no_capacity, block.workspace());
      },
      "out.capacity.num_src is not given");
    check_refused_before_enqueue<invalid_argument>(
      [&](cudaStream_t s) {
        gnndirect::relabel_async(s, d_seeds.data(), bounded_count{d_n.data(), n}, fanout, hop.view(), g.nodes(),
                                 no_capacity, block.workspace());
      },
      "out.capacity.num_src is not given");
  }
  SUBCASE("sample_blocks_async")
  {
    std::vector<int> const fanouts{5, 3};
    auto const bounds = gnndirect::sample_blocks_bounds(n, fanouts, g.nodes());
    std::vector<block_storage> layers;
    poisoner blocks_out;
    gnndirect::sampled_blocks_view<Offset, Index> out;
    layers.emplace_back(bounds[0].num_dst, fanouts[0], g.nodes());
    layers.emplace_back(bounds[1].num_dst, fanouts[1], g.nodes());
    for (auto const& l : layers) {
      l.poison_into(blocks_out);
      out.layers.push_back(l.view());
    }
    buffer<unsigned char> ws(gnndirect::sample_blocks_workspace_bytes<Offset, Index>(n, fanouts, g.nodes()),
                             memory_kind::device);
    workspace_view const w{ws.data(), ws.bytes()};
    check_capture_matches(blocks_out,
                          [&](cudaStream_t s) {
                            gnndirect::sample_blocks_async(s, csr, d_seeds.data(), n, fanouts, sampler,
                                                           sampling_policy{}, out, w);
                          },
                          [&] { return blocks_out.snapshot(); });
    gnndirect::sample_blocks_check(cudaStream_t{}, w, fanouts.size(), g.nodes());
    auto one_layer = out;
    one_layer.layers.pop_back();
    check_refused_before_enqueue<invalid_argument>(
      [&](cudaStream_t s) {
        gnndirect::sample_blocks_async(s, csr, d_seeds.data(), n, fanouts, sampler, sampling_policy{}, one_layer, w);
      },
      "out has 1 layers for 2 fanouts");
    // Layer 1's fanout needs more shared memory than the device has: refused before layer 0.
    check_refused_before_enqueue<invalid_argument>(
      [&](cudaStream_t s) {
        gnndirect::sample_blocks_async(s, csr, d_seeds.data(), n, std::vector<int>{5, 100000}, sampler,
                                       sampling_policy{}, out, w);
      },
      "bytes of shared memory");
  }
  SUBCASE("count_accesses_async")
  {
    buffer<std::uint32_t> const counters = device<std::uint32_t>(g.nodes());
    poisoner counter_out;
    counter_out.add(counters);
    check_capture_matches(counter_out,
                          [&](cudaStream_t s) {
                            GNNDIRECT_CUDA_TRY(cudaMemsetAsync(const_cast<std::uint32_t*>(counters.data()), 0,
                                                               counters.bytes(), s));
                            gnndirect::count_accesses_async(s, d_seeds.data(), n, g.nodes(),
                                                            const_cast<std::uint32_t*>(counters.data()));
                          },
                          [&] { return counter_out.snapshot(); });
    check_refused_before_enqueue<invalid_argument>(
      [&](cudaStream_t s) {
        auto const* const misaligned =
          reinterpret_cast<const Index*>(reinterpret_cast<const unsigned char*>(d_seeds.data()) + 2);
        gnndirect::count_accesses_async(s, misaligned, n - 1, g.nodes(), const_cast<std::uint32_t*>(counters.data()));
      },
      "ids");  // ids 2 bytes off their 4-byte alignment
  }
}

TEST_CASE("two hops composed by hand with device counts, captured as one graph, equal sample_blocks_async and the reference")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  graph const g(rng, 1200);
  csr_view<Offset, Index> const csr = g.view(true);
  std::int64_t const n = 140;
  std::vector<int> const fanouts{6, 4};
  auto seeds = gnndirect::test::random_indices<Index>(rng, n, g.nodes());
  for (std::size_t i = 5; i < seeds.size(); i += 9) { seeds[i] = seeds[rng() % i]; }  // repeats
  buffer<Index> const d_seeds = to_buffer(seeds);
  gnndirect::uniform_sampler const sampler{rng()};
  auto const bounds = gnndirect::sample_blocks_bounds(n, fanouts, g.nodes());

  // The library's two layers.
  std::vector<block_storage> library;
  library.emplace_back(bounds[0].num_dst, fanouts[0], g.nodes());
  library.emplace_back(bounds[1].num_dst, fanouts[1], g.nodes());
  gnndirect::sampled_blocks_view<Offset, Index> out;
  for (auto const& l : library) { out.layers.push_back(l.view()); }
  buffer<unsigned char> ws(gnndirect::sample_blocks_workspace_bytes<Offset, Index>(n, fanouts, g.nodes()),
                           memory_kind::device);
  gnndirect::sample_blocks_async(cudaStream_t{}, csr, d_seeds.data(), n, fanouts, sampler, sampling_policy{}, out,
                                 {ws.data(), ws.bytes()});
  gnndirect::sample_blocks_check(cudaStream_t{}, {ws.data(), ws.bytes()}, fanouts.size(), g.nodes());

  // The same two hops by hand: hop 1's dst count is hop 0's num_src, never read by the host.
  hop_storage const hop0(n, fanouts[0]);
  block_storage const block0(n, fanouts[0], g.nodes());
  std::int64_t const dst1 = bounds[1].num_dst;  // = block0's src bound
  hop_storage const hop1(dst1, fanouts[1]);
  block_storage const block1(dst1, fanouts[1], g.nodes());
  poisoner composed_out;
  block0.poison_into(composed_out);
  block1.poison_into(composed_out);
  hop0.poison_into(composed_out);
  hop1.poison_into(composed_out);
  gnndirect::test::capture_stream const s;
  composed_out(s.stream);
  bounded_count const num_dst1{block0.view().num_src, dst1};
  cudaGraph_t graph_handle = nullptr;
  auto const census = gnndirect::test::capture_census(
    s.stream,
    [&](cudaStream_t st) {
      gnndirect::sample_neighbors_async(st, csr, d_seeds.data(), n, fanouts[0], 0, sampler, sampling_policy{},
                                        hop0.view(), hop0.workspace());
      gnndirect::relabel_async(st, d_seeds.data(), n, fanouts[0], hop0.view(), g.nodes(), block0.view(),
                               block0.workspace());
      const Index* const dst = block0.src.data();
      gnndirect::sample_neighbors_async(st, csr, dst, num_dst1, fanouts[1], 1, sampler, sampling_policy{},
                                        hop1.view(), hop1.workspace());
      gnndirect::relabel_async(st, dst, num_dst1, fanouts[1], hop1.view(), g.nodes(), block1.view(),
                               block1.workspace());
    },
    &graph_handle);
  REQUIRE_FALSE(census.error);
  CHECK(census.kernels > 0);
  cudaGraphExec_t exec = nullptr;
  GNNDIRECT_CUDA_TRY(cudaGraphInstantiate(&exec, graph_handle, 0));
  GNNDIRECT_CUDA_TRY(cudaGraphLaunch(exec, s.stream));
  gnndirect::sample_neighbors_check(s.stream, hop0.workspace(), g.nodes());
  gnndirect::relabel_check(s.stream, block0.workspace(), g.nodes());
  gnndirect::sample_neighbors_check(s.stream, hop1.workspace(), g.nodes());
  gnndirect::relabel_check(s.stream, block1.workspace(), g.nodes());
  GNNDIRECT_CUDA_TRY(cudaGraphExecDestroy(exec));
  GNNDIRECT_CUDA_TRY(cudaGraphDestroy(graph_handle));

  auto const expected = gnndirect::host::sample_blocks_reference(g.view(false), seeds.data(), n, fanouts, sampler);
  block_storage const* const composed[2] = {&block0, &block1};
  for (std::size_t l = 0; l < 2; ++l) {
    CAPTURE(l);
    auto const& e = expected.layers[l];
    auto const ours = to_host(composed[l]->scalars.data(), 2);
    auto const theirs = to_host(library[l].scalars.data(), 2);
    REQUIRE(ours == theirs);
    auto const num_src = ours[0], num_edges = ours[1];
    REQUIRE(num_src == static_cast<std::int64_t>(e.src_nodes.size()));
    REQUIRE(num_edges == static_cast<std::int64_t>(e.indices.size()));
    std::int64_t const num_dst = static_cast<std::int64_t>(e.dst_nodes.size());
    std::int64_t const dst_bound = bounds[l].num_dst;
    auto const src = to_host(composed[l]->src.data(), num_src);
    auto const offsets = to_host(composed[l]->offsets.data(), dst_bound + 1);
    auto const indices = to_host(composed[l]->indices.data(), num_edges);
    auto const edge_ids = to_host(composed[l]->edge_ids.data(), num_edges);
    CHECK(src == to_host(library[l].src.data(), num_src));
    CHECK(offsets == to_host(library[l].offsets.data(), dst_bound + 1));  // the tail equals num_edges
    CHECK(indices == to_host(library[l].indices.data(), num_edges));
    CHECK(edge_ids == to_host(library[l].edge_ids.data(), num_edges));
    CHECK(src == e.src_nodes);
    CHECK(std::vector<std::int64_t>(offsets.begin(), offsets.begin() + num_dst + 1) == e.offsets);
    CHECK(indices == e.indices);
    CHECK(edge_ids == e.edge_ids);
  }
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("capture: the tiered gathers and the write-through scatter, captured and refused")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::int64_t const rows = 500, cols = 33, count = 300, hot = 120;
  std::vector<float> values(static_cast<std::size_t>(rows * cols));
  for (float& v : values) { v = static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 64.0f; }
  buffer<float> host_rows(values.size(), memory_kind::pinned);
  gnndirect::test::copy_from_host(host_rows.data(), values.data(), host_rows.bytes());
  table_view<float> const writable(host_rows.data(), rows, cols, cols, memory_kind::pinned);
  // The hottest rows: a random `hot` of them, distinct.
  std::vector<Index> order(static_cast<std::size_t>(rows));
  for (std::size_t i = 0; i < order.size(); ++i) { order[i] = static_cast<Index>(i); }
  std::shuffle(order.begin(), order.end(), rng);
  buffer<Index> const d_hot = to_buffer(std::vector<Index>(order.begin(), order.begin() + hot));
  auto const indices = gnndirect::test::random_indices<Index>(rng, count, rows);
  buffer<Index> const d_indices = to_buffer(indices);
  buffer<float> const out(static_cast<std::size_t>(count * cols), memory_kind::device);
  table_view<float> const dst(const_cast<float*>(out.data()), count, cols, cols, memory_kind::device);
  buffer<unsigned char> ws(gnndirect::gather_workspace_bytes<Index>(count, rows, memory_kind::pinned, cols * sizeof(float)),
                           memory_kind::device);
  workspace_view const w{ws.data(), ws.bytes()};
  poisoner outputs;
  outputs.add(out);

  SUBCASE("gather_async (tiered_view): equals the host gather")
  {
    gnndirect::tiered_table<float> tier(table_view<const float>(writable), static_cast<std::size_t>(hot) * cols * 4);
    tier.rebuild(cudaStreamLegacy, d_hot.data(), hot);
    REQUIRE(tier.cached_rows() == hot);
    check_capture_matches(outputs, [&](cudaStream_t s) { gnndirect::gather_async(s, tier.view(), d_indices.data(), count, dst, w); },
                          [&] { return outputs.snapshot(); });
    gnndirect::gather_check(cudaStream_t{}, w, rows);
    std::vector<float> expected(static_cast<std::size_t>(count * cols));
    gnndirect::host::gather_reference(table_view<const float>(values.data(), rows, cols, cols, memory_kind::pinned),
                                      indices.data(), count,
                                      table_view<float>(expected.data(), count, cols, cols, memory_kind::pinned));
    CHECK(to_host(out.data(), count * cols) == expected);
    auto no_slots = tier.view();
    no_slots.slot_of = nullptr;
    check_refused_before_enqueue<invalid_argument>(
      [&](cudaStream_t s) { gnndirect::gather_async(s, no_slots, d_indices.data(), count, dst, w); },
      "tiered_view: null slot_of");
  }
  SUBCASE("gather_async (encoded_view behind a tier of its bytes, int8 decoded to float)")
  {
    gnndirect::encoded_table<gnndirect::codecs::int8_affine> const table(values.data(), rows, cols, memory_kind::pinned);
    gnndirect::tiered_table<std::uint8_t> tier(table.bytes_view(), static_cast<std::size_t>(hot * table.stride_bytes()));
    tier.rebuild(cudaStreamLegacy, d_hot.data(), hot);
    REQUIRE(tier.cached_rows() == hot);
    auto const view = table.view();
    buffer<unsigned char> ews(gnndirect::gather_workspace_bytes<Index>(count, rows, view.kind,
                                                                       static_cast<std::size_t>(view.load_bytes())),
                              memory_kind::device);
    workspace_view const ew{ews.data(), ews.bytes()};
    check_capture_matches(outputs,
                          [&](cudaStream_t s) { gnndirect::gather_async(s, view, tier.view(), d_indices.data(), count, dst, ew); },
                          [&] { return outputs.snapshot(); });
    gnndirect::gather_check(cudaStream_t{}, ew, rows);
    // The same rows as the untiered decoding gather (the tier holds the same codes).
    auto const tiered = to_host(out.data(), count * cols);
    gnndirect::gather(cudaStreamLegacy, view, d_indices.data(), count, dst);
    CHECK(to_host(out.data(), count * cols) == tiered);
    check_refused_before_enqueue<invalid_argument>(
      [&](cudaStream_t s) {
        gnndirect::gather_async(s, view, gnndirect::tiered_view<std::uint8_t>{}, d_indices.data(), count, dst, ew);
      },
      "the tier was not made over the encoded table's bytes");
  }
  SUBCASE("scatter_async (a tier's write-through source): host rows and cached rows")
  {
    gnndirect::tiered_table<float> tier(table_view<const float>(writable), static_cast<std::size_t>(hot) * cols * 4);
    tier.rebuild(cudaStreamLegacy, d_hot.data(), hot);
    // Rows to scatter: a fixed pattern written once (the poisoner clears the targets).
    GNNDIRECT_CUDA_TRY(cudaMemset(const_cast<float*>(out.data()), 0x3C, out.bytes()));
    GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());
    table_view<const float> const rows_in(out.data(), count, cols, cols, memory_kind::device);
    buffer<unsigned char> sws(gnndirect::scatter_workspace_bytes<Index>(count, rows, memory_kind::pinned,
                                                                        cols * sizeof(float)),
                              memory_kind::device);
    workspace_view const sw{sws.data(), sws.bytes()};
    poisoner targets;
    targets.add(host_rows).add(tier.view().cache, static_cast<std::size_t>(hot * cols) * sizeof(float));
    check_capture_matches(targets,
                          [&](cudaStream_t s) {
                            gnndirect::scatter_async(s, rows_in, d_indices.data(), count, tier.write_source(writable), sw);
                          },
                          [&] { return targets.snapshot(); });
    gnndirect::scatter_check(cudaStream_t{}, sw, rows);
    check_refused_before_enqueue<invalid_argument>(
      [&](cudaStream_t s) {
        gnndirect::scatter_async(s, rows_in, d_indices.data(), count, tier.write_source(writable), workspace_view{});
      },
      "null workspace");
  }
}

TEST_CASE("capture: sample_temporal_blocks_async, sample_negatives_async, relabel_edge_seeds_async")
{
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  graph const g(rng, 800);
  csr_view<Offset, Index> const csr = g.view(true);
  std::int64_t const n = 173;
  auto const seeds = gnndirect::test::random_indices<Index>(rng, n, g.nodes());
  buffer<Index> const d_seeds = to_buffer(seeds);

  SUBCASE("sample_temporal_blocks_async")
  {
    // Edge time = CSR position (every list time-sorted); seed times anywhere in [0, E].
    std::vector<std::int64_t> edge_times(static_cast<std::size_t>(csr.num_edges));
    for (std::size_t e = 0; e < edge_times.size(); ++e) { edge_times[e] = static_cast<std::int64_t>(e); }
    std::vector<std::int64_t> seed_times(static_cast<std::size_t>(n));
    for (auto& t : seed_times) { t = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(csr.num_edges + 1)); }
    buffer<std::int64_t> const d_edge_times = to_buffer(edge_times);
    buffer<std::int64_t> const d_seed_times = to_buffer(seed_times);
    gnndirect::temporal_sampler<gnndirect::temporal_uniform> const sampler{rng(), d_edge_times.data(), csr.num_edges};
    std::vector<int> const fanouts{5, 3};
    auto const bounds = gnndirect::sample_blocks_bounds(n, fanouts, g.nodes());
    std::vector<block_storage> layers;
    poisoner blocks_out;
    gnndirect::sampled_blocks_view<Offset, Index> out;
    layers.emplace_back(bounds[0].num_dst, fanouts[0], g.nodes());
    layers.emplace_back(bounds[1].num_dst, fanouts[1], g.nodes());
    for (auto const& l : layers) {
      l.poison_into(blocks_out);
      out.layers.push_back(l.view());
    }
    buffer<unsigned char> ws(gnndirect::sample_temporal_blocks_workspace_bytes<Offset, Index>(n, fanouts, g.nodes()),
                             memory_kind::device);
    workspace_view const w{ws.data(), ws.bytes()};
    check_capture_matches(blocks_out,
                          [&](cudaStream_t s) {
                            gnndirect::sample_temporal_blocks_async(s, csr, d_seeds.data(), d_seed_times.data(), n,
                                                                    fanouts, sampler, sampling_policy{}, out, w);
                          },
                          [&] { return blocks_out.snapshot(); });
    gnndirect::sample_blocks_check(cudaStream_t{}, w, fanouts.size(), g.nodes());
    check_refused_before_enqueue<invalid_argument>(
      [&](cudaStream_t s) {
        gnndirect::sample_temporal_blocks_async(s, csr, d_seeds.data(), nullptr, n, fanouts, sampler,
                                                sampling_policy{}, out, w);
      },
      "seeds without times");
  }
  SUBCASE("sample_negatives_async (binary and triplet)")
  {
    auto const dst = gnndirect::test::random_indices<Index>(rng, n, g.nodes());
    buffer<Index> const d_dst = to_buffer(dst);
    buffer<std::int64_t> const unresolved = device<std::int64_t>(1);
    buffer<unsigned char> ws(gnndirect::sample_negatives_workspace_bytes(), memory_kind::device);
    workspace_view const w{ws.data(), ws.bytes()};
    gnndirect::negative_options options;
    options.seed = rng();
    options.batch = 3;
    auto const run_mode = [&](const auto& mode) {
      std::int64_t const num_neg = gnndirect::negative_count(mode, n);
      REQUIRE(num_neg > 0);
      buffer<Index> const out_src = device<Index>(num_neg), out_dst = device<Index>(num_neg);
      poisoner negatives;
      negatives.add(out_src).add(out_dst).add(unresolved);
      check_capture_matches(negatives,
                            [&](cudaStream_t s) {
                              gnndirect::sample_negatives_async(s, csr, d_seeds.data(), d_dst.data(), n, mode, options,
                                                                const_cast<Index*>(out_src.data()),
                                                                const_cast<Index*>(out_dst.data()),
                                                                const_cast<std::int64_t*>(unresolved.data()), w);
                            },
                            [&] { return negatives.snapshot(); });
      gnndirect::sample_negatives_check(cudaStream_t{}, w, csr.num_nodes);
      // Every drawn endpoint is a node of the graph (the kernel wrote every entry).
      for (Index v : to_host(out_dst.data(), num_neg)) { CHECK((v >= 0 && v < g.nodes())); }
      check_refused_before_enqueue<invalid_argument>(
        [&](cudaStream_t s) {
          gnndirect::sample_negatives_async(s, csr, static_cast<const Index*>(nullptr), d_dst.data(), n, mode, options,
                                            const_cast<Index*>(out_src.data()), const_cast<Index*>(out_dst.data()),
                                            const_cast<std::int64_t*>(unresolved.data()), w);
        },
        "null positives");
    };
    run_mode(gnndirect::binary_negatives{1.5});
    run_mode(gnndirect::triplet_negatives{2});
  }
  SUBCASE("relabel_edge_seeds_async (with edge times)")
  {
    std::int64_t const edges = 211;
    auto const src = gnndirect::test::random_indices<Index>(rng, edges, g.nodes());
    auto const dst = gnndirect::test::random_indices<Index>(rng, edges, g.nodes());
    std::vector<std::int64_t> times(static_cast<std::size_t>(edges));
    for (auto& t : times) { t = static_cast<std::int64_t>(rng() % 100000); }
    buffer<Index> const d_src = to_buffer(src), d_dst = to_buffer(dst);
    buffer<std::int64_t> const d_times = to_buffer(times);
    std::int64_t const bound = gnndirect::edge_seed_nodes_bound(edges, g.nodes());
    buffer<Index> const nodes = device<Index>(bound), local = device<Index>(2 * edges);
    buffer<std::int64_t> const num_nodes = device<std::int64_t>(1), node_times = device<std::int64_t>(bound);
    buffer<unsigned char> ws(gnndirect::edge_seeds_workspace_bytes<Index>(edges), memory_kind::device);
    workspace_view const w{ws.data(), ws.bytes()};
    gnndirect::edge_seeds_view<Index> const out{const_cast<Index*>(nodes.data()),
                                               const_cast<std::int64_t*>(num_nodes.data()),
                                               const_cast<Index*>(local.data()),
                                               const_cast<std::int64_t*>(node_times.data())};
    poisoner seeds_out;
    seeds_out.add(nodes).add(local).add(num_nodes).add(node_times);
    check_capture_matches(seeds_out,
                          [&](cudaStream_t s) {
                            gnndirect::relabel_edge_seeds_async(s, d_src.data(), d_dst.data(), edges, d_times.data(),
                                                                g.nodes(), out, w);
                          },
                          [&] { return seeds_out.snapshot(); });
    gnndirect::edge_seeds_check(cudaStream_t{}, w, g.nodes());
    // Each endpoint's local id names a seed node equal to it.
    auto const count = to_host(num_nodes.data(), 1)[0];
    auto const seed_nodes = to_host(nodes.data(), bound);
    auto const locals = to_host(local.data(), 2 * edges);
    std::size_t wrong = 0;
    for (std::int64_t i = 0; i < 2 * edges; ++i) {
      Index const endpoint = i < edges ? src[static_cast<std::size_t>(i)] : dst[static_cast<std::size_t>(i - edges)];
      Index const l = locals[static_cast<std::size_t>(i)];
      wrong += l < 0 || l >= count || seed_nodes[static_cast<std::size_t>(l)] != endpoint ? 1 : 0;
    }
    CHECK(wrong == 0);
    check_refused_before_enqueue<invalid_argument>(
      [&](cudaStream_t s) {
        gnndirect::relabel_edge_seeds_async(s, d_src.data(), d_dst.data(), edges, d_times.data(), g.nodes(), out,
                                            workspace_view{});
      },
      "null workspace");
  }
}
