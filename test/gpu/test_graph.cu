// GPU tests of graph construction and validation: GPU validate agrees with host validate
// (exception type, array, position and message) on corrupt inputs in every placement; GPU
// COO -> CSR and GPU generators equal their host counterparts bit for bit; csr_graph in each
// placement; .npy files registered in place and read by kernels; a > 2^31-edge graph.
#include <doctest/doctest.h>

#include "support/transfer.hpp"

#include <gnndirect/algorithms/validate.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/graph/coo_to_csr.cuh>
#include <gnndirect/graph/csr_graph.hpp>
#include <gnndirect/graph/generate.cuh>
#include <gnndirect/io/npy.hpp>
#include <gnndirect/owners/host_memory.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

using gnndirect::corrupt_graph;
using gnndirect::csr_placement;
using gnndirect::memory_kind;

namespace {

using gnndirect::test::to_buffer;
using gnndirect::test::to_host;

/// The placements a csr_graph can be built in.
constexpr memory_kind owned_kinds[] = {memory_kind::device, memory_kind::pinned,
                                       memory_kind::managed_host};

std::uint64_t fresh_seed()
{
  return (std::uint64_t{std::random_device{}()} << 32) | std::random_device{}();
}

/// A CSR graph copied back to host vectors, for exact comparison.
template <class Offset, class Index>
gnndirect::host_csr<Offset, Index> to_host(const gnndirect::csr_graph<Offset, Index>& graph)
{
  auto const v = graph.view();
  gnndirect::host_csr<Offset, Index> out;
  out.num_nodes = v.num_nodes;
  out.indptr = to_host(v.indptr, v.num_nodes + 1);
  out.indices = to_host(v.indices, v.num_edges);
  if (v.weights != nullptr) { out.weights = to_host(v.weights, v.num_edges); }
  if (v.edge_ids != nullptr) { out.edge_ids = to_host(v.edge_ids, v.num_edges); }
  return out;
}

/// A device buffer holding a copy of a host vector.
template <class T>
gnndirect::buffer<T> upload(const std::vector<T>& values)
{
  gnndirect::buffer<T> out(values.size(), memory_kind::device);
  gnndirect::test::copy_from_host(out.data(), values.data(), out.bytes());
  return out;
}

template <class Offset, class Index>
void check_equal(const gnndirect::host_csr<Offset, Index>& got,
                 const gnndirect::host_csr<Offset, Index>& expected)
{
  CHECK(got.num_nodes == expected.num_nodes);
  CHECK(got.indptr == expected.indptr);
  CHECK(got.indices == expected.indices);
  CHECK(got.weights == expected.weights);
  CHECK(got.edge_ids == expected.edge_ids);
}

/// What a validate call threw: nothing, or the corrupt_graph's array, position and message.
struct outcome {
  bool threw{false};
  gnndirect::csr_array array{};
  std::int64_t position{0};
  std::string message;
};

template <class Call>
outcome run_validate(Call&& call)
{
  try {
    call();
  } catch (const corrupt_graph& error) {
    return {true, error.array(), error.position(), error.what()};
  }
  return {};
}

void check_same_outcome(const outcome& gpu, const outcome& host)
{
  CHECK(gpu.threw == host.threw);
  CHECK(gpu.array == host.array);
  CHECK(gpu.position == host.position);
  CHECK(gpu.message == host.message);
}

/// A random valid weighted CSR with edge ids, built on the host.
gnndirect::host_csr<std::int64_t, std::int32_t> random_csr(std::uint64_t seed, std::int64_t nodes,
                                                           std::int64_t edges)
{
  gnndirect::generator_options options;
  options.num_nodes = nodes;
  options.num_edges = edges;
  options.seed = seed;
  options.weights = true;
  return gnndirect::host::generate_csr<std::int64_t, std::int32_t>(options, {true});
}

/// Corrupts one or more entries of one array at random positions (kind chosen by `rule`).
void corrupt(gnndirect::host_csr<std::int64_t, std::int32_t>& csr, int rule, std::mt19937_64& rng)
{
  auto const m = static_cast<std::uint64_t>(csr.num_edges());
  auto const n = static_cast<std::uint64_t>(csr.num_nodes);
  for (int k = 0; k < 3; ++k) {
    switch (rule) {
      case 0: {  // a guaranteed decrease (a random bump could leave indptr non-decreasing)
        std::uint64_t const p = 1 + rng() % (n - 1);
        csr.indptr[p] = csr.indptr[p + 1] + 1 + static_cast<std::int64_t>(rng() % 5);
        break;
      }
      case 1: csr.indptr[1 + rng() % n] = -1; break;
      case 2: csr.indices[rng() % m] = static_cast<std::int32_t>(n + rng() % 3); break;
      case 3: csr.indices[rng() % m] = -static_cast<std::int32_t>(1 + rng() % 3); break;
      case 4: csr.weights[rng() % m] = -1.5f; break;
      case 5: csr.weights[rng() % m] = std::numeric_limits<float>::quiet_NaN(); break;
      case 6: csr.edge_ids[rng() % m] = -7; break;
      default: break;  // 7: left valid
    }
  }
}

__global__ void sum_indices_kernel(const std::int32_t* indices, std::int64_t n,
                                   unsigned long long* sum)
{
  unsigned long long local = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    local += static_cast<unsigned long long>(indices[i]);
  }
  atomicAdd(sum, local);
}

/// Sum of an int32 array read by a kernel (any device-visible placement).
unsigned long long kernel_sum(const std::int32_t* indices, std::int64_t n)
{
  gnndirect::buffer<unsigned long long> sum(1, memory_kind::device);
  GNNDIRECT_CUDA_TRY(cudaMemset(sum.data(), 0, sizeof(unsigned long long)));
  sum_indices_kernel<<<128, 256>>>(indices, n, sum.data());
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
  return to_host(sum.data(), 1)[0];
}

__global__ void fill_modulo_kernel(std::int32_t* out, std::int64_t n, std::int32_t modulus)
{
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    out[i] = static_cast<std::int32_t>(i % modulus);
  }
}

struct stream_owner {
  cudaStream_t stream{};
  stream_owner() { GNNDIRECT_CUDA_TRY(cudaStreamCreate(&stream)); }
  ~stream_owner() { GNNDIRECT_CUDA_TRY_NOTHROW(cudaStreamDestroy(stream)); }
};

std::uint64_t host_available_bytes()
{
  return gnndirect::detail::parse_meminfo_bytes(gnndirect::detail::read_small_file("/proc/meminfo"),
                                                "MemAvailable");
}

}  // namespace

TEST_CASE("GPU validate agrees with host validate on corrupt inputs in every placement")
{
  std::uint64_t const seed = fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  stream_owner const s;
  for (int rule = 0; rule < 8; ++rule) {
    for (std::int64_t const edges : {std::int64_t{50}, std::int64_t{200'000}}) {
      CAPTURE(rule);
      CAPTURE(edges);
      auto csr = random_csr(seed + static_cast<std::uint64_t>(rule), 1 + edges / 20, edges);
      corrupt(csr, rule, rng);
      outcome const host = run_validate([&] { gnndirect::validate(csr.view()); });
      CHECK(host.threw == (rule != 7));
      for (memory_kind const indptr_kind : owned_kinds) {
        for (memory_kind const edges_kind : owned_kinds) {
          CAPTURE(gnndirect::to_string(indptr_kind));
          CAPTURE(gnndirect::to_string(edges_kind));
          auto const graph = gnndirect::csr_graph<std::int64_t, std::int32_t>::adopt(
            csr.view(), csr_placement{indptr_kind, edges_kind});
          check_same_outcome(run_validate([&] { gnndirect::validate(s.stream, graph.view()); }), host);
        }
      }
    }
  }
}

TEST_CASE("GPU validate: shape errors and empty graphs, then a usable context")
{
  stream_owner const s;
  gnndirect::csr_view<std::int64_t, std::int32_t> empty;
  CHECK_NOTHROW(gnndirect::validate(s.stream, empty));
  empty.num_edges = 3;
  outcome const host = run_validate([&] { gnndirect::validate(empty); });
  CHECK(host.position == -1);
  check_same_outcome(run_validate([&] { gnndirect::validate(s.stream, empty); }), host);
  auto const isolated = gnndirect::csr_graph<std::int32_t, std::int32_t>(
    1000, 0, csr_placement::all(memory_kind::device));
  GNNDIRECT_CUDA_TRY(cudaMemset(isolated.indptr().data(), 0, isolated.indptr().bytes()));
  CHECK_NOTHROW(gnndirect::validate(s.stream, isolated.view()));
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("GPU coo_to_csr equals the host conversion for every placement and id type")
{
  std::uint64_t const seed = fresh_seed();
  CAPTURE(seed);
  stream_owner const s;
  for (std::int64_t const edges : {std::int64_t{0}, std::int64_t{1}, std::int64_t{777}, std::int64_t{300'001}}) {
    gnndirect::generator_options options;
    options.num_nodes = 1 + edges / 3;
    options.num_edges = edges;
    options.seed = seed;
    options.weights = edges % 2 == 1;
    auto const coo = gnndirect::host::generate_coo<std::int32_t>(options);
    for (bool const edge_ids : {false, true}) {
      auto const expected = gnndirect::host::coo_to_csr<std::int64_t, std::int32_t>(coo.view(), {edge_ids});
      for (memory_kind const kind : owned_kinds) {
        CAPTURE(edges);
        CAPTURE(gnndirect::to_string(kind));
        gnndirect::coo_graph<std::int32_t> const input{upload(coo.src), upload(coo.dst),
                                                       upload(coo.weights), coo.num_nodes};
        auto const from_device = gnndirect::coo_to_csr<std::int64_t, std::int32_t>(
          s.stream, input.view(), csr_placement{kind, kind}, {edge_ids});
        check_equal(to_host(from_device), expected);
        auto const host_built = gnndirect::csr_graph<std::int64_t, std::int32_t>::from_coo(
          coo.view(), csr_placement{kind, memory_kind::device}, {edge_ids});
        check_equal(to_host(host_built), expected);  // host construction into the placement
      }
    }
  }
}

TEST_CASE("GPU coo_to_csr with int64 ids, host-resident input, and bad ids")
{
  std::uint64_t const seed = fresh_seed();
  CAPTURE(seed);
  stream_owner const s;
  gnndirect::generator_options options;
  options.model = gnndirect::graph_model::uniform;
  options.num_nodes = 100'000;
  options.num_edges = 500'000;
  options.seed = seed;
  auto coo = gnndirect::host::generate_coo<std::int64_t>(options);
  auto const expected = gnndirect::host::coo_to_csr<std::int64_t, std::int64_t>(coo.view());
  gnndirect::coo_graph<std::int64_t> pinned{
    gnndirect::buffer<std::int64_t>(coo.src.size(), memory_kind::pinned),
    gnndirect::buffer<std::int64_t>(coo.dst.size(), memory_kind::pinned), {}, coo.num_nodes};
  std::copy(coo.src.begin(), coo.src.end(), pinned.src.host_data());
  std::copy(coo.dst.begin(), coo.dst.end(), pinned.dst.host_data());
  check_equal(to_host(gnndirect::coo_to_csr<std::int64_t, std::int64_t>(
                s.stream, pinned.view(), csr_placement::all(memory_kind::managed_host))),
              expected);
  // Bad ids: same exception and message as the host conversion.
  pinned.dst.host_data()[4321] = options.num_nodes;
  pinned.dst.host_data()[99] = -5;
  coo.dst[4321] = options.num_nodes;
  coo.dst[99] = -5;
  std::string host_message;
  try {
    (void)gnndirect::host::coo_to_csr<std::int64_t, std::int64_t>(coo.view());
  } catch (const gnndirect::index_out_of_range& error) {
    host_message = error.what();
    CHECK(error.position() == 99);
  }
  auto const convert_on_gpu = [&] {
    return gnndirect::coo_to_csr<std::int64_t, std::int64_t>(s.stream, pinned.view(),
                                                             csr_placement::all(memory_kind::device));
  };
  CHECK_THROWS_WITH_AS(convert_on_gpu(), host_message.c_str(), gnndirect::index_out_of_range);
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("GPU generators produce the host generators' edges bit for bit")
{
  std::uint64_t const seed = fresh_seed();
  CAPTURE(seed);
  stream_owner const s;
  for (int variant = 0; variant < 6; ++variant) {
    gnndirect::generator_options options;
    options.model = variant % 2 == 0 ? gnndirect::graph_model::rmat : gnndirect::graph_model::uniform;
    options.num_nodes = variant < 4 ? 12'345 : 3;
    options.num_edges = 250'003;
    options.seed = seed + static_cast<std::uint64_t>(variant);
    options.scramble_ids = variant != 2;
    options.drop_self_loops = variant >= 2;
    options.symmetrize = variant >= 3;
    options.weights = variant % 3 != 0;
    CAPTURE(variant);
    auto const host = gnndirect::host::generate_coo<std::int32_t>(options);
    auto const gpu = gnndirect::generate_coo<std::int32_t>(s.stream, options, memory_kind::device);
    CHECK(gpu.num_edges() == host.num_edges());
    CHECK(to_host(gpu.src.data(), gpu.num_edges()) == host.src);
    CHECK(to_host(gpu.dst.data(), gpu.num_edges()) == host.dst);
    CHECK(to_host(gpu.weights.data(), static_cast<std::int64_t>(gpu.weights.size())) == host.weights);
    auto const host64 = gnndirect::host::generate_coo<std::int64_t>(options);
    auto const gpu64 = gnndirect::generate_coo<std::int64_t>(s.stream, options, memory_kind::managed_host);
    CHECK(std::vector<std::int64_t>(gpu64.src.host_data(), gpu64.src.host_data() + gpu64.num_edges()) ==
          host64.src);
    auto const expected = gnndirect::host::generate_csr<std::int64_t, std::int32_t>(options, {true});
    for (memory_kind const kind : owned_kinds) {
      CAPTURE(gnndirect::to_string(kind));
      auto const csr = gnndirect::generate_csr<std::int64_t, std::int32_t>(
        s.stream, options, csr_placement{memory_kind::device, kind}, {true});
      check_equal(to_host(csr), expected);
      CHECK_NOTHROW(gnndirect::validate(s.stream, csr.view()));
    }
  }
}

TEST_CASE("csr_graph in each placement: views, host views, kernels read it")
{
  auto const csr = random_csr(fresh_seed(), 5000, 100'000);
  unsigned long long expected_sum = 0;
  for (std::int32_t const v : csr.indices) { expected_sum += static_cast<unsigned long long>(v); }
  for (memory_kind const indptr_kind : owned_kinds) {
    for (memory_kind const edges_kind : owned_kinds) {
      CAPTURE(gnndirect::to_string(indptr_kind));
      CAPTURE(gnndirect::to_string(edges_kind));
      auto const graph = gnndirect::csr_graph<std::int64_t, std::int32_t>::adopt(
        csr.view(), csr_placement{indptr_kind, edges_kind});
      CHECK(graph.view().indptr_kind == indptr_kind);
      CHECK(graph.view().indices_kind == edges_kind);
      CHECK(graph.has_weights());
      CHECK(graph.has_edge_ids());
      check_equal(to_host(graph), csr);
      CHECK(kernel_sum(graph.view().indices, graph.num_edges()) == expected_sum);
      bool const host_readable = indptr_kind != memory_kind::device && edges_kind != memory_kind::device;
      if (host_readable) {
        CHECK_NOTHROW(gnndirect::validate(graph.host_view()));
        CHECK(graph.host_view().indices[17] == csr.indices[17]);
      } else {
        CHECK_THROWS_AS((void)graph.host_view(), gnndirect::invalid_argument);
      }
    }
  }
  CHECK_THROWS_AS((gnndirect::csr_graph<std::int32_t, std::int32_t>(
                    4, std::int64_t{1} << 31, csr_placement::all(memory_kind::device))),
                  gnndirect::invalid_argument);
}

TEST_CASE(".npy CSR: registered in place and read by kernels; loaded into each placement")
{
  auto const csr = random_csr(fresh_seed(), 3000, 40'000);
  std::string const base = "/tmp/gnndirect_gpu_npy_" + std::to_string(::getpid());
  gnndirect::save_npy(base + "_indptr.npy", csr.indptr);
  gnndirect::save_npy(base + "_indices.npy", csr.indices);
  gnndirect::save_npy(base + "_weights.npy", csr.weights);
  stream_owner const s;
  {
    auto const mapped =
      gnndirect::map_csr_npy<std::int64_t, std::int32_t>(base + "_indptr.npy", base + "_indices.npy");
    CHECK(mapped.indices.registered());
    CHECK_NOTHROW(gnndirect::validate(s.stream, mapped.view()));
    CHECK_NOTHROW(gnndirect::validate(mapped.host_view()));
    unsigned long long expected_sum = 0;
    for (std::int32_t const v : csr.indices) { expected_sum += static_cast<unsigned long long>(v); }
    CHECK(kernel_sum(mapped.view().indices, mapped.view().num_edges) == expected_sum);
    CHECK_THROWS_WITH_AS((gnndirect::map_csr_npy<std::int32_t, std::int32_t>(base + "_indptr.npy",
                                                                             base + "_indices.npy")),
                         doctest::Contains("does not match"), gnndirect::invalid_argument);
  }
  for (memory_kind const kind : owned_kinds) {
    CAPTURE(gnndirect::to_string(kind));
    auto const loaded = gnndirect::load_csr_npy<std::int32_t, std::int32_t>(
      base + "_indptr.npy", base + "_indices.npy", csr_placement::all(kind), base + "_weights.npy");
    auto const back = to_host(loaded);
    CHECK(back.indices == csr.indices);
    CHECK(back.weights == csr.weights);
    CHECK(std::equal(back.indptr.begin(), back.indptr.end(), csr.indptr.begin()));
  }
  for (const char* suffix : {"_indptr.npy", "_indices.npy", "_weights.npy"}) {
    std::remove((base + suffix).c_str());
  }
}

TEST_CASE("int64 offsets beyond 2^31 edges: a pinned graph validated on the GPU")
{
  std::int64_t const edges = (std::int64_t{1} << 31) + 10;
  std::uint64_t const needed = static_cast<std::uint64_t>(edges) * sizeof(std::int32_t);
  if (host_available_bytes() < (std::uint64_t{24} << 30)) {
    MESSAGE("skipped: needs 24 GB of available host memory for an 8.6 GB pinned graph");
    return;
  }
  std::int64_t const nodes = 4;
  gnndirect::csr_graph<std::int64_t, std::int32_t> graph(
    nodes, edges, csr_placement{memory_kind::device, memory_kind::pinned});
  CHECK(graph.indices().bytes() == needed);
  std::vector<std::int64_t> const indptr{0, edges / 4, edges / 2, edges - 3, edges};
  gnndirect::test::copy_from_host(graph.indptr().data(), indptr.data(), 5 * sizeof(std::int64_t));
  fill_modulo_kernel<<<1024, 256>>>(graph.indices().data(), edges, static_cast<std::int32_t>(nodes));
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
  GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());
  stream_owner const s;
  CHECK_NOTHROW(gnndirect::validate(s.stream, graph.view()));
  // Bad entries only beyond 2^31: the reported position needs 64 bits.
  graph.indices().host_data()[edges - 2] = 9;
  graph.indices().host_data()[edges - 1] = -1;
  outcome const result = run_validate([&] { gnndirect::validate(s.stream, graph.view()); });
  CHECK(result.threw);
  CHECK(result.array == gnndirect::csr_array::indices);
  CHECK(result.position == edges - 2);
  CHECK(result.message.find("indices[2147483656] = 9 is out of range [0, 4)") != std::string::npos);
}

TEST_CASE("papers100M-shaped R-MAT graph generated and validated on the GPU")
{
  auto const options = gnndirect::preset_options(gnndirect::graph_preset::papers100m, 1.0, 42);
  if (gnndirect::device_memory().free_bytes < (std::size_t{70} << 30)) {
    MESSAGE("skipped: needs 70 GB of free device memory");
    return;
  }
  stream_owner const s;
  auto const start = std::chrono::steady_clock::now();
  auto const graph = gnndirect::generate_csr<std::int64_t, std::int32_t>(
    s.stream, options, csr_placement::all(memory_kind::device));
  double const seconds =
    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("papers100M-shaped graph (" << graph.num_nodes() << " nodes, " << graph.num_edges()
                                      << " edges) generated as CSR in " << seconds << " s");
  CHECK(graph.num_edges() == options.num_edges);
  CHECK_NOTHROW(gnndirect::validate(s.stream, graph.view()));
  CHECK(seconds < 30.0);
}
