// No hidden allocation: every public entry point that allocates takes its device memory from the
// caller's stream-ordered resource and its page-locked host memory from the caller's host
// resource. The CUDA runtime's allocation functions are interposed (allocation_interposer.cpp;
// this executable links the shared cudart) and counted around each call; the caller's resources
// count what they serve on top of the default ones (one cudaMallocAsync / cudaHostAlloc each).
// So within a call: cudaMallocAsync calls == device resource allocations, cudaHostAlloc calls ==
// host resource allocations, and cudaMalloc, cudaMallocManaged, cudaMallocHost, cudaMallocPitch,
// cudaMallocFromPoolAsync and cudaHostRegister are never called. The resources' live bytes
// return to zero once the results are destroyed.
#include <doctest/doctest.h>

#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/cache/hot_set.cuh>
#include <gnndirect/algorithms/sample_blocks.cuh>
#include <gnndirect/algorithms/sample_neighbors.cuh>
#include <gnndirect/algorithms/validate.cuh>
#include <gnndirect/cache/tiered_table.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/graph/coo_to_csr.cuh>
#include <gnndirect/graph/csr_graph.hpp>
#include <gnndirect/graph/generate.cuh>
#include <gnndirect/graph/generate.hpp>
#include <gnndirect/host/cpu_gather.hpp>
#include <gnndirect/io/npy.hpp>
#include <gnndirect/device/codecs.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/encoded_table.hpp>
#include <gnndirect/owners/table.hpp>
#include <gnndirect/pipeline/minibatch_pipeline.cuh>
#include <gnndirect/util/worker_pool.hpp>

#include "allocation_interposer.hpp"
#include "support/counting_resource.hpp"
#include "support/random.hpp"
#include "support/transfer.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using gnndirect::memory_kind;
using gnndirect::table_view;
using gnndirect::test::raw_call;
using gnndirect::test::to_buffer;

namespace {

using Offset = std::int64_t;
using Index = std::int32_t;

/// The caller's two resources and the raw counts at the start of a measured call.
struct measured {
  gnndirect::test::counting_resource device;
  gnndirect::test::counting_host_resource host;

  /// Runs `call` and checks that every raw allocation in it went through the two resources.
  /// @param expect_device / expect_host whether the call must allocate from that resource
  template <class Call>
  void check(const std::string& what, bool expect_device, bool expect_host, Call&& call)
  {
    CAPTURE(what);
    std::int64_t const device_before = device.allocations;
    std::int64_t const host_before = host.allocations;
    GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());
    gnndirect::test::raw_counts const before = gnndirect::test::raw_allocation_counts();
    call();
    GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());
    gnndirect::test::raw_counts const raw = gnndirect::test::raw_allocation_counts() - before;
    std::int64_t const device_calls = device.allocations - device_before;
    std::int64_t const host_calls = host.allocations - host_before;
    CHECK(raw[raw_call::malloc] == 0);
    CHECK(raw[raw_call::malloc_managed] == 0);
    CHECK(raw[raw_call::malloc_host] == 0);
    CHECK(raw[raw_call::malloc_pitch] == 0);
    CHECK(raw[raw_call::malloc_from_pool] == 0);
    CHECK(raw[raw_call::host_register] == 0);
    CHECK(raw[raw_call::malloc_async] == device_calls);  // each served by the counting resource
    CHECK(raw[raw_call::host_alloc] == host_calls);
    if (expect_device) { CHECK(device_calls > 0); }
    if (expect_host) { CHECK(host_calls > 0); }
    CHECK(device.live_bytes == 0);  // everything made in the call was returned
    CHECK(host.live_bytes == 0);
  }
};

/// A small generated graph on the host and a copy in device memory (made outside measurements).
struct fixture {
  std::uint64_t seed{gnndirect::test::fresh_seed()};
  gnndirect::host_csr<Offset, Index> host_graph;
  gnndirect::csr_graph<Offset, Index> graph;
  std::int64_t n{0};

  fixture()
  {
    gnndirect::generator_options const options =
      gnndirect::preset_options(gnndirect::graph_preset::small, 0.02, seed);
    host_graph = gnndirect::host::generate_csr<Offset, Index>(options);
    graph = gnndirect::csr_graph<Offset, Index>::adopt(host_graph.view(),
                                                       gnndirect::csr_placement::all(memory_kind::device));
    n = graph.num_nodes();
  }
};

}  // namespace

TEST_CASE("the interposer sees the CUDA runtime's allocation calls (the check below can fail)")
{
  gnndirect::test::raw_counts const before = gnndirect::test::raw_allocation_counts();
  void* device = nullptr;
  void* host = nullptr;
  GNNDIRECT_CUDA_TRY(cudaMalloc(&device, 256));
  GNNDIRECT_CUDA_TRY(cudaHostAlloc(&host, 256, cudaHostAllocMapped));
  { gnndirect::buffer<int> const hidden(64, memory_kind::device); }  // the default resource
  GNNDIRECT_CUDA_TRY(cudaFree(device));
  GNNDIRECT_CUDA_TRY(cudaFreeHost(host));
  GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());
  gnndirect::test::raw_counts const raw = gnndirect::test::raw_allocation_counts() - before;
  CHECK(raw[raw_call::malloc] == 1);
  CHECK(raw[raw_call::host_alloc] == 1);
  CHECK(raw[raw_call::malloc_async] == 1);
}

TEST_CASE("owners allocate from the caller's resources: buffer, table, csr_graph")
{
  measured m;
  m.check("buffer<int>(n, device, mr)", true, false,
          [&] { gnndirect::buffer<int> const b(1000, memory_kind::device, m.device); });
  m.check("buffer<int>(n, pinned, {}, host_mr)", false, true,
          [&] { gnndirect::buffer<int> const b(1000, memory_kind::pinned, {}, m.host); });
  m.check("buffer<int>(n, stream, mr)", true, false,
          [&] { gnndirect::buffer<int> const b(1000, cudaStreamLegacy, m.device); });
  m.check("table<float>(rows, cols, device, mr)", true, false,
          [&] { gnndirect::table<float> const t(100, 16, memory_kind::device, m.device); });
  m.check("table<float>(rows, cols, pinned, {}, host_mr)", false, true,
          [&] { gnndirect::table<float> const t(100, 16, memory_kind::pinned, {}, m.host); });
  std::vector<float> values(100 * 16, 1.5f);
  m.check("table<float>::adopt_by_copy(device, mr)", true, false, [&] {
    auto const t = gnndirect::table<float>::adopt_by_copy(values.data(), 100, 16, memory_kind::device, m.device);
  });
  m.check("table<float>::adopt_by_copy(pinned, {}, host_mr)", false, true, [&] {
    auto const t = gnndirect::table<float>::adopt_by_copy(values.data(), 100, 16, memory_kind::pinned, {}, m.host);
  });

  for (memory_kind kind : {memory_kind::device, memory_kind::pinned}) {
    std::string const placement(gnndirect::to_string(kind));
    CAPTURE(placement);
    bool const device = kind == memory_kind::device;
    // int8_affine keeps per-row metadata in device memory, whatever the codes' placement.
    m.check("encoded_table<int8_affine>(..., mr, host_mr)", true, !device, [&] {
      gnndirect::encoded_table<gnndirect::codecs::int8_affine> const t(values.data(), 100, 16, kind, -1, {}, m.device,
                                                                       m.host);
    });
  }

  fixture f;
  CAPTURE(f.seed);
  for (memory_kind kind : {memory_kind::device, memory_kind::pinned}) {
    std::string const placement(gnndirect::to_string(kind));
    CAPTURE(placement);
    bool const device = kind == memory_kind::device;
    m.check("csr_graph(n, m, placement, weights, edge ids, mr, host_mr)", device, !device, [&] {
      gnndirect::csr_graph<Offset, Index> const g(f.n, 1000, gnndirect::csr_placement::all(kind), true, true,
                                                  m.device, m.host);
    });
    m.check("csr_graph::adopt", device, !device, [&] {
      auto const g = gnndirect::csr_graph<Offset, Index>::adopt(f.host_graph.view(),
                                                                gnndirect::csr_placement::all(kind), m.device, m.host);
    });
  }
}

TEST_CASE("the .npy loaders allocate from the caller's resources: load_table_npy, load_csr_npy")
{
  // Issue #42 item 7: the loaders took no resource (every allocation went to the defaults).
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::string const stem = "/tmp/gnndirect_alloc_npy_" + std::to_string(::getpid()) + "_";
  std::int64_t const rows = 300, cols = 7;
  std::vector<float> values(static_cast<std::size_t>(rows * cols));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (float& v : values) { v = normal(rng); }
  gnndirect::save_npy(stem + "x.npy", gnndirect::npy_dtype::float32, {rows, cols}, values.data());
  fixture f;
  CAPTURE(f.seed);
  gnndirect::save_npy(stem + "indptr.npy", std::vector<Offset>(f.host_graph.indptr.begin(), f.host_graph.indptr.end()));
  std::vector<std::int64_t> wide(f.host_graph.indices.begin(), f.host_graph.indices.end());  // converted on load
  gnndirect::save_npy(stem + "indices.npy", wide);
  std::vector<float> weights(wide.size());
  for (float& w : weights) { w = std::abs(normal(rng)); }
  gnndirect::save_npy(stem + "weights.npy", weights);
  measured m;
  for (memory_kind kind : {memory_kind::device, memory_kind::pinned}) {
    std::string const placement(gnndirect::to_string(kind));
    CAPTURE(placement);
    bool const device = kind == memory_kind::device;
    m.check("load_table_npy(path, kind, mr, host_mr)", device, !device, [&] {
      auto const t = gnndirect::load_table_npy<float>(stem + "x.npy", kind, m.device, m.host);
      std::vector<float> back(values.size());
      GNNDIRECT_CUDA_TRY(cudaMemcpy(back.data(), t.view().data, t.bytes(), cudaMemcpyDefault));
      CHECK(back == values);
    });
    m.check("load_csr_npy(indptr, indices, placement, weights, mr, host_mr)", device, !device, [&] {
      auto const g = gnndirect::load_csr_npy<Offset, Index>(stem + "indptr.npy", stem + "indices.npy",
                                                            gnndirect::csr_placement::all(kind), stem + "weights.npy",
                                                            m.device, m.host);
      CHECK(g.num_nodes() == f.n);
      std::vector<Index> indices(static_cast<std::size_t>(g.num_edges()));
      GNNDIRECT_CUDA_TRY(cudaMemcpy(indices.data(), g.view().indices, indices.size() * sizeof(Index), cudaMemcpyDefault));
      CHECK(std::equal(indices.begin(), indices.end(), f.host_graph.indices.begin()));
    });
  }
  for (const char* name : {"x.npy", "indptr.npy", "indices.npy", "weights.npy"}) { std::remove((stem + name).c_str()); }
}

TEST_CASE("graph construction and checks allocate from the caller's resources: coo_to_csr, from_coo, validate")
{
  fixture f;
  CAPTURE(f.seed);
  measured m;
  std::mt19937_64 rng(f.seed);
  std::int64_t const edges = 5000;
  std::vector<Index> src(edges), dst(edges);
  for (auto& s : src) { s = static_cast<Index>(rng() % static_cast<std::uint64_t>(f.n)); }
  for (auto& d : dst) { d = static_cast<Index>(rng() % static_cast<std::uint64_t>(f.n)); }
  auto const device_src = to_buffer(src);
  auto const device_dst = to_buffer(dst);
  gnndirect::coo_view<Index> const device_coo{device_src.data(), device_dst.data(), nullptr, edges, f.n,
                                             memory_kind::device};
  gnndirect::coo_view<Index> const host_coo{src.data(), dst.data(), nullptr, edges, f.n, memory_kind::registered};
  cudaStream_t stream = nullptr;
  GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (memory_kind kind : {memory_kind::device, memory_kind::pinned}) {
    std::string const placement(gnndirect::to_string(kind));
    CAPTURE(placement);
    bool const device = kind == memory_kind::device;
    m.check("coo_to_csr (GPU)", true, !device, [&] {
      auto const g = gnndirect::coo_to_csr<Offset, Index>(stream, device_coo, gnndirect::csr_placement::all(kind),
                                                          gnndirect::csr_build_options{}, m.device, m.host);
      CHECK(g.num_edges() == edges);
    });
    m.check("csr_graph::from_coo (host)", device, !device, [&] {
      auto const g = gnndirect::csr_graph<Offset, Index>::from_coo(host_coo, gnndirect::csr_placement::all(kind),
                                                                   gnndirect::csr_build_options{}, m.device, m.host);
    });
  }
  m.check("validate(stream, csr, mr)", true, false, [&] { gnndirect::validate(stream, f.graph.view(), m.device); });
  GNNDIRECT_CUDA_TRY(cudaStreamDestroy(stream));
}

TEST_CASE("the GPU generators allocate from the caller's resources: generate_coo, generate_csr")
{
  measured m;
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  gnndirect::generator_options options = gnndirect::preset_options(gnndirect::graph_preset::small, 0.01, seed);
  options.weights = true;
  cudaStream_t stream = nullptr;
  GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (memory_kind kind : {memory_kind::device, memory_kind::pinned}) {
    std::string const placement(gnndirect::to_string(kind));
    CAPTURE(placement);
    bool const device = kind == memory_kind::device;
    m.check("generate_coo(stream, options, kind, mr, host_mr)", device, !device, [&] {
      auto const coo = gnndirect::generate_coo<Index>(stream, options, kind, m.device, m.host);
      CHECK(coo.num_edges() == options.num_edges);
    });
    // The generated edges and the conversion's temporaries are device memory whatever the placement.
    m.check("generate_csr(stream, options, placement, build, mr, host_mr)", true, !device, [&] {
      auto const g = gnndirect::generate_csr<Offset, Index>(stream, options, gnndirect::csr_placement::all(kind),
                                                            gnndirect::csr_build_options{true}, m.device, m.host);
      CHECK(g.num_edges() == options.num_edges);
    });
  }
  GNNDIRECT_CUDA_TRY(cudaStreamDestroy(stream));
}

TEST_CASE("the staged CPU gather takes its pinned double buffer from the caller's host resource")
{
  measured m;
  std::uint64_t const seed = gnndirect::test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::int64_t const rows = 4000, cols = 16, count = 3000;
  std::vector<float> values(static_cast<std::size_t>(rows * cols));
  for (std::size_t i = 0; i < values.size(); ++i) { values[i] = static_cast<float>(i); }
  table_view<const float> const src(values.data(), rows, cols, cols, memory_kind::registered);
  std::vector<Index> const ids = gnndirect::test::random_indices<Index>(rng, count, rows);
  gnndirect::buffer<float> const out(static_cast<std::size_t>(count * cols), memory_kind::device);
  gnndirect::host::worker_pool pool(2);
  cudaStream_t stream = nullptr;
  GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  m.check("host::staged_gather(slot_bytes, host_mr)", false, true, [&] {
    // 16 KiB slots: the gather runs in many pieces through both staging buffers.
    gnndirect::host::staged_gather<float> staged(std::size_t{16} << 10, m.host);
    staged.gather(pool, src, ids.data(), count, out.data(), stream);
    staged.synchronize();
    CHECK(staged.slot_bytes() == std::size_t{16} << 10);
  });
  std::vector<float> back(static_cast<std::size_t>(count * cols));
  GNNDIRECT_CUDA_TRY(cudaMemcpy(back.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost));
  for (std::int64_t i = 0; i < count; ++i) {
    CAPTURE(i);
    REQUIRE(std::equal(back.begin() + i * cols, back.begin() + (i + 1) * cols,
                       values.begin() + static_cast<std::int64_t>(ids[static_cast<std::size_t>(i)]) * cols));
  }
  GNNDIRECT_CUDA_TRY(cudaStreamDestroy(stream));
}

TEST_CASE("gather, scatter, sampling and hot-row selection allocate only from the caller's resource")
{
  fixture f;
  CAPTURE(f.seed);
  measured m;
  std::mt19937_64 rng(f.seed);
  std::int64_t const cols = 8, count = 777;
  gnndirect::table<float> const pinned(f.n, cols, memory_kind::pinned);
  gnndirect::table<float> const out(count, cols, memory_kind::device);
  auto const ids = to_buffer(gnndirect::test::random_indices<Index>(rng, count, f.n));
  std::vector<Index> unique(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) { unique[static_cast<std::size_t>(i)] = static_cast<Index>(i); }
  auto const unique_ids = to_buffer(unique);
  gnndirect::buffer<std::uint32_t> const counts(static_cast<std::size_t>(f.n), memory_kind::device);
  GNNDIRECT_CUDA_TRY(cudaMemset(counts.data(), 0, counts.bytes()));
  cudaStream_t stream = nullptr;
  GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  m.check("gather (sync)", true, false, [&] {
    gnndirect::gather(stream, table_view<const float>(pinned.view()), ids.data(), count, out.view(),
                      gnndirect::gather_policy{}, m.device);
  });
  m.check("scatter (sync)", true, false, [&] {
    gnndirect::scatter(stream, table_view<const float>(out.view()), unique_ids.data(), count, pinned.view(),
                       gnndirect::gather_policy{}, m.device);
  });
  m.check("sample_neighbors (sync)", true, false, [&] {
    auto const sampled = gnndirect::sample_neighbors(stream, f.graph.view(), unique_ids.data(), count, 5, 0,
                                                     gnndirect::uniform_sampler{f.seed}, gnndirect::sampling_policy{},
                                                     m.device);
  });
  m.check("sample_blocks (sync)", true, false, [&] {
    auto const blocks = gnndirect::sample_blocks(stream, f.graph.view(), unique_ids.data(), count, std::vector<int>{5, 3},
                                                 gnndirect::uniform_sampler{f.seed}, gnndirect::sampling_policy{},
                                                 m.device);
  });
  m.check("hot_rows_by_degree", true, false,
          [&] { auto const hot = gnndirect::hot_rows_by_degree(stream, f.graph.view(), 100, m.device); });
  m.check("hot_rows_by_count (rows)", true, false,
          [&] { auto const hot = gnndirect::hot_rows_by_count(stream, counts.data(), f.n, 100, m.device); });
  m.check("hot_rows_by_count (graph)", true, false, [&] {
    auto const hot = gnndirect::hot_rows_by_count(stream, counts.data(), f.graph.view(), 100, m.device);
  });
  GNNDIRECT_CUDA_TRY(cudaStreamDestroy(stream));
}

TEST_CASE("tiered_table allocates its tier, slot map and rebuild scratch from the caller's resource")
{
  fixture f;
  CAPTURE(f.seed);
  measured m;
  std::mt19937_64 rng(f.seed);
  std::int64_t const cols = 8, count = 500;
  gnndirect::table<float> const pinned(f.n, cols, memory_kind::pinned);
  gnndirect::table<float> const out(count, cols, memory_kind::device);
  std::vector<Index> hot(static_cast<std::size_t>(count));  // distinct rows, spread over the table
  for (std::int64_t i = 0; i < count; ++i) { hot[static_cast<std::size_t>(i)] = static_cast<Index>((i * 3) % f.n); }
  std::shuffle(hot.begin(), hot.end(), rng);
  auto const ids = to_buffer(hot);
  cudaStream_t stream = nullptr;
  GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::size_t const budget = static_cast<std::size_t>(f.n / 4 * cols) * sizeof(float);
  m.check("tiered_table(rows, budget, mr) + rebuild + gather", true, false, [&] {
    gnndirect::tiered_table<float> tier(table_view<const float>(pinned.view()), budget, m.device);
    tier.rebuild(stream, ids.data(), count);
    gnndirect::gather(stream, tier.view(), ids.data(), count, out.view(), gnndirect::gather_policy{}, m.device);
  });
  m.check("tiered_table(rows, budget, stream, mr) + rebuild", true, false, [&] {
    gnndirect::tiered_table<float> tier(table_view<const float>(pinned.view()), budget, stream, m.device);
    tier.rebuild(stream, ids.data(), count);
    GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream));
  });
  GNNDIRECT_CUDA_TRY(cudaStreamDestroy(stream));
}

TEST_CASE("the pipeline, with and without a feature cache, allocates only from the caller's resources")
{
  fixture f;
  CAPTURE(f.seed);
  std::int64_t const dim = 16;
  gnndirect::table<float> const features(f.n, dim, memory_kind::pinned);
  gnndirect::buffer<std::int32_t> const labels(static_cast<std::size_t>(f.n), memory_kind::device);
  GNNDIRECT_CUDA_TRY(cudaMemset(labels.data(), 0, labels.bytes()));
  std::vector<Index> train(static_cast<std::size_t>(f.n / 8));
  for (std::size_t i = 0; i < train.size(); ++i) { train[i] = static_cast<Index>(i * 8); }
  for (std::size_t cache : {std::size_t{0}, static_cast<std::size_t>(f.n / 5 * dim) * sizeof(float)}) {
    CAPTURE(cache);
    measured m;
    m.check("minibatch_pipeline: construction, one epoch, destruction", true, true, [&] {
      gnndirect::pipeline_options options;
      options.fanouts = {5, 3};
      options.batch_size = 128;
      options.cache_bytes = cache;
      options.host_memory = m.host;
      gnndirect::minibatch_pipeline<Offset, Index, float, std::int32_t> pipeline(
        f.graph.view(), table_view<const float>(features.view()), labels.data(), train, options,
        gnndirect::uniform_sampler{f.seed}, m.device);
      CHECK((pipeline.feature_cache() != nullptr) == (cache > 0));
      pipeline.start_epoch(0);
      int batches = 0;
      while (auto const* batch = pipeline.next(cudaStream_t{})) {
        pipeline.release(batch, cudaStream_t{});
        ++batches;
      }
      CHECK(batches > 0);
    });
  }
}
