// GPU tests of every memory kind: write on host, read and write in a kernel, read back; adoption
// of caller memory; failure paths leave no leak and a usable context.
#include <doctest/doctest.h>

#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/placement.hpp>
#include <gnndirect/owners/registration.hpp>
#include <gnndirect/owners/table.hpp>
#include <gnndirect/graph/csr_graph.hpp>
#include <gnndirect/io/npy.hpp>
#include <gnndirect/owners/host_memory.hpp>

#include "support/device_memory.hpp"
#include "support/transfer.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <random>
#include <vector>

using gnndirect::memory_kind;

namespace {

__global__ void affine_in_place(std::int32_t* data, std::int64_t n)
{
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    data[i] = data[i] * 3 + 1;
  }
}

void run_affine(std::int32_t* device_data, std::int64_t n)
{
  affine_in_place<<<64, 256>>>(device_data, n);
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
  GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());
}

std::vector<std::int32_t> random_values(std::size_t n)
{
  std::mt19937 rng(std::random_device{}());
  std::vector<std::int32_t> values(n);
  for (auto& v : values) { v = static_cast<std::int32_t>(rng() % 100000) - 50000; }
  return values;
}

/// Fills a table from host data, runs the kernel, reads it back, compares.
void check_kernel_round_trip(gnndirect::table<std::int32_t>& t)
{
  auto const n = static_cast<std::size_t>(t.rows() * t.cols());
  std::vector<std::int32_t> const values = random_values(n);
  if (t.kind() == memory_kind::device) {
    gnndirect::test::copy_from_host(t.view().data, values.data(), n * 4);
  } else {
    std::copy(values.begin(), values.end(), t.host_view().data);
  }
  run_affine(t.view().data, static_cast<std::int64_t>(n));
  std::vector<std::int32_t> back(n, -7);
  GNNDIRECT_CUDA_TRY(cudaMemcpy(back.data(), t.view().data, n * 4, cudaMemcpyDefault));
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < n; ++i) { mismatches += back[i] != values[i] * 3 + 1; }
  CHECK(mismatches == 0);
}

std::size_t free_device_bytes() { return gnndirect::device_memory().free_bytes; }

}  // namespace

TEST_CASE("every allocated kind is readable and writable from a kernel")
{
  for (memory_kind kind : {memory_kind::device, memory_kind::pinned, memory_kind::managed_host}) {
    CAPTURE(gnndirect::to_string(kind));
    gnndirect::table<std::int32_t> t(1031, 37, kind);
    CHECK(t.kind() == kind);
    CHECK(t.view().data != nullptr);
    check_kernel_round_trip(t);
  }
}

TEST_CASE("adopt_by_copy into each kind, and adopt_by_registration of a std::vector")
{
  std::vector<std::int32_t> source = random_values(513 * 19);
  for (memory_kind kind : {memory_kind::device, memory_kind::pinned, memory_kind::managed_host}) {
    CAPTURE(gnndirect::to_string(kind));
    auto t = gnndirect::table<std::int32_t>::adopt_by_copy(source.data(), 513, 19, kind);
    std::vector<std::int32_t> back(source.size());
    GNNDIRECT_CUDA_TRY(cudaMemcpy(back.data(), t.view().data, back.size() * 4, cudaMemcpyDefault));
    CHECK(back == source);
  }
  std::vector<std::int32_t> const expected = [&] {
    auto e = source;
    for (auto& v : e) { v = v * 3 + 1; }
    return e;
  }();
  {
    auto t = gnndirect::table<std::int32_t>::adopt_by_registration(source.data(), 513, 19);
    CHECK(t.kind() == memory_kind::registered);
    CHECK(t.host_view().data == source.data());
    run_affine(t.view().data, 513 * 19);  // the kernel writes the caller's vector in place
  }
  CHECK(source == expected);
}

TEST_CASE("adopt_by_registration of column slices that end at the end of their allocation")
{
  // Issue #31 item 4: a slice of cols < row_stride spans (rows - 1) x stride + cols elements;
  // registering rows x stride ran past the mapping (cudaErrorInvalidValue). The host memory is
  // an mmap whose following page is unmapped, so nothing past the end can be registered.
  std::mt19937_64 rng(std::random_device{}());
  auto const page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::int64_t const rows = 1000, stride = 37;
  for (std::int64_t cols : {std::int64_t{1}, std::int64_t{5}, stride - 1, stride}) {
    {
      CAPTURE(cols);
      std::size_t const span = static_cast<std::size_t>((rows - 1) * stride + cols);  // elements
      std::size_t const pages = (span * 4 + page - 1) / page;
      void* const mapping = mmap(nullptr, (pages + 1) * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      REQUIRE(mapping != MAP_FAILED);
      REQUIRE(munmap(static_cast<char*>(mapping) + pages * page, page) == 0);  // nothing mapped after the end
      auto* const end = reinterpret_cast<std::int32_t*>(static_cast<char*>(mapping) + pages * page);
      // The slice's last element is the allocation's last: its first row starts span elements before.
      std::int32_t* const slice = end - span;
      for (std::size_t i = 0; i < span; ++i) { slice[i] = static_cast<std::int32_t>(rng()); }
      std::vector<std::int64_t> ids(300);
      for (auto& id : ids) { id = static_cast<std::int64_t>(rng() % rows); }
      auto const device_ids = gnndirect::test::to_buffer(ids);
      gnndirect::buffer<std::int32_t> out(ids.size() * static_cast<std::size_t>(cols), memory_kind::device);
      {
        auto const t = gnndirect::table<std::int32_t>::adopt_by_registration(slice, rows, cols, stride);
        CHECK(t.bytes() == span * 4);
        gnndirect::gather(cudaStream_t{}, gnndirect::table_view<const std::int32_t>(t.view()), device_ids.data(),
                          static_cast<std::int64_t>(ids.size()),
                          gnndirect::table_view<std::int32_t>(out.data(), static_cast<std::int64_t>(ids.size()), cols,
                                                              cols, memory_kind::device));
      }
      std::vector<std::int32_t> back(out.size());
      GNNDIRECT_CUDA_TRY(cudaMemcpy(back.data(), out.data(), out.bytes(), cudaMemcpyDefault));
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < ids.size(); ++i) {
        for (std::int64_t c = 0; c < cols; ++c) {
          wrong += back[i * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)] !=
                   slice[static_cast<std::size_t>(ids[i] * stride + c)];
        }
      }
      CHECK(wrong == 0);
      REQUIRE(munmap(mapping, pages * page) == 0);
    }
  }
}

/// Copies `bytes` of device-visible memory to the host through a non-blocking stream (which is not
/// ordered with the default stream the owners copy on).
std::vector<unsigned char> read_on_nonblocking_stream(const void* src, std::size_t bytes)
{
  cudaStream_t stream{};
  GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<unsigned char> out(bytes);
  cudaError_t const copied = cudaMemcpyAsync(out.data(), src, bytes, cudaMemcpyDefault, stream);
  cudaError_t const waited = cudaStreamSynchronize(stream);
  (void)cudaStreamDestroy(stream);
  GNNDIRECT_CUDA_TRY(copied);
  GNNDIRECT_CUDA_TRY(waited);
  return out;
}

// A pageable cudaMemcpy may return before its DMA lands; the owners wait for it, so work on any
// stream the caller launches next sees every byte. 64 MiB, so that an unwaited copy's last chunks
// would likely still be in flight (a race: the test can miss it, never report it falsely).
TEST_CASE("adopt_by_copy / csr_graph::adopt into device memory: done when they return")
{
  std::int64_t const rows = 1 << 16;
  std::int64_t const cols = 256;
  std::vector<std::int32_t> const source = random_values(static_cast<std::size_t>(rows * cols));
  for (int round = 0; round < 3; ++round) {
    CAPTURE(round);
    auto const t = gnndirect::table<std::int32_t>::adopt_by_copy(source.data(), rows, cols, memory_kind::device);
    auto const back = read_on_nonblocking_stream(t.view().data, t.bytes());
    CHECK(std::memcmp(back.data(), source.data(), back.size()) == 0);
  }
  std::vector<std::int64_t> indptr(1025);
  for (std::size_t i = 0; i < indptr.size(); ++i) { indptr[i] = static_cast<std::int64_t>(i) * (rows * cols / 1024); }
  gnndirect::csr_view<std::int64_t, std::int32_t> host_arrays{};
  host_arrays.indptr = indptr.data();
  host_arrays.indices = source.data();
  host_arrays.num_nodes = 1024;
  host_arrays.num_edges = rows * cols;
  auto const g = gnndirect::csr_graph<std::int64_t, std::int32_t>::adopt(
    host_arrays, gnndirect::csr_placement{memory_kind::device, memory_kind::device});
  auto const indices = read_on_nonblocking_stream(g.indices().data(), g.indices().bytes());
  CHECK(std::memcmp(indices.data(), source.data(), indices.size()) == 0);
}

TEST_CASE("registration: chunked ranges, device address from the driver, overlap refused")
{
  std::vector<std::int32_t> values = random_values((std::size_t{1} << 20) + 3);
  std::vector<std::int32_t> const original = values;
  {
    // 64 KiB chunks force many cudaHostRegister calls over one logical range.
    gnndirect::host_registration reg(values.data(), values.size() * 4, std::size_t{1} << 16);
    CHECK(reg.chunk_count() > 16);
    void* expected_device = nullptr;
    GNNDIRECT_CUDA_TRY(cudaHostGetDevicePointer(&expected_device, values.data(), 0));
    CHECK(reg.device_data() == expected_device);
    CHECK_THROWS_WITH_AS(gnndirect::host_registration(values.data() + 100, 4096),
                         doctest::Contains("overlaps"), gnndirect::invalid_argument);
    run_affine(static_cast<std::int32_t*>(reg.device_data()),
               static_cast<std::int64_t>(values.size()));
  }
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < values.size(); ++i) { wrong += values[i] != original[i] * 3 + 1; }
  CHECK(wrong == 0);
  // After release the same range registers again.
  CHECK_NOTHROW(gnndirect::host_registration(values.data(), values.size() * 4));
}

TEST_CASE("absurd sizes give allocation_error, leak nothing, and leave the context usable")
{
  std::size_t const before = free_device_bytes();
  std::size_t const absurd = std::size_t{1} << 50;  // 1 PiB
  for (memory_kind kind : {memory_kind::device, memory_kind::pinned, memory_kind::managed_host}) {
    CAPTURE(gnndirect::to_string(kind));
    try {
      gnndirect::buffer<char> b(absurd, kind);
      FAIL("a 1 PiB allocation must be refused");
    } catch (const gnndirect::allocation_error& e) {
      CHECK(e.bytes() == absurd);
      CHECK(e.kind() == kind);
    }
  }
  CHECK(cudaGetLastError() == cudaSuccess);
  std::size_t const after = free_device_bytes();
  CHECK(after + (std::size_t{4} << 20) >= before);  // no leak (4 MiB slack for the driver)
  gnndirect::table<std::int32_t> still_works(64, 64, memory_kind::device);
  check_kernel_round_trip(still_works);
}

TEST_CASE("auto placement on this device is inspectable and allocatable")
{
  gnndirect::placement_decision const decision = gnndirect::choose_host_placement();
  MESSAGE("auto placement: " << gnndirect::to_string(decision.kind) << " (" << decision.reason << ")");
  auto const caps = gnndirect::query_capabilities(gnndirect::require_device());
  CHECK(decision.kind == gnndirect::choose_host_placement(caps).kind);
  gnndirect::table<std::int32_t> t(100, 10, decision.kind);
  check_kernel_round_trip(t);
}

TEST_CASE("auto placement for a table larger than the GPU's free memory falls back and allocates")
{
  auto const caps = gnndirect::query_capabilities(gnndirect::require_device());
  std::size_t const free = free_device_bytes();
  // Decision on this device for a table twice the free memory: never managed (it would be refused).
  gnndirect::placement_decision const big = gnndirect::choose_host_placement(2 * free);
  MESSAGE("auto placement for " << 2 * free << " bytes: " << gnndirect::to_string(big.kind) << " (" << big.reason << ")");
  CHECK(big.kind != memory_kind::managed_host);
  CHECK(big.kind == gnndirect::choose_host_placement(caps, 2 * free, free).kind);
  if (gnndirect::test::device_is_shared()) {
    MESSAGE("device shared (GNNDIRECT_SHARED_DEVICE): skipped the allocation under scarce device memory");
    return;
  }
  // The headline case, made small: occupy the GPU so that only ~256 MiB stay free, then ask auto
  // for a 512 MiB table. Before the fallback, auto said managed_host and the allocation threw.
  std::size_t const table_bytes = std::size_t{512} << 20;
  std::size_t const keep_free = std::size_t{256} << 20;
  REQUIRE(free > keep_free + (std::size_t{64} << 20));
  gnndirect::buffer<char> const hog(free - keep_free, memory_kind::device);
  gnndirect::placement_decision const decision = gnndirect::choose_host_placement(table_bytes);
  CAPTURE(decision.reason);
  CHECK(decision.kind == gnndirect::choose_host_placement(caps, table_bytes, free_device_bytes()).kind);
  if (caps.can_map_host_memory) {
    CHECK(gnndirect::is_host_resident(decision.kind));
    CHECK(decision.kind != memory_kind::managed_host);
    gnndirect::table<std::int32_t> t(static_cast<std::int64_t>(table_bytes / 4 / 1024), 1024, decision.kind);
    check_kernel_round_trip(t);
  }
}

TEST_CASE("owners release their memory")
{
  std::size_t const before = free_device_bytes();
  {
    gnndirect::buffer<float> big(std::size_t{256} << 20, memory_kind::device);  // 1 GiB
    GNNDIRECT_CHECK_FREE_MEMORY(before, free_device_bytes() + (std::size_t{512} << 20));
    gnndirect::buffer<float> moved = std::move(big);
    CHECK(big.data() == nullptr);
    CHECK(moved.size() == (std::size_t{256} << 20));
  }
  GNNDIRECT_CHECK_FREE_MEMORY(free_device_bytes() + (std::size_t{4} << 20), before);
}

TEST_CASE("stream-ordered device buffers: default pool and a caller pool")
{
  cudaStream_t stream;
  GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = gnndirect::require_device();
  cudaMemPool_t pool;
  GNNDIRECT_CUDA_TRY(cudaMemPoolCreate(&pool, &props));
  for (cudaMemPool_t which : {cudaMemPool_t{nullptr}, pool}) {
    std::vector<std::int32_t> const values = random_values(100003);
    std::vector<std::int32_t> back(values.size(), 0);
    {
      gnndirect::buffer<std::int32_t> b(values.size(), stream, which);
      CHECK(b.kind() == memory_kind::device);
      GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(b.data(), values.data(), b.bytes(), cudaMemcpyHostToDevice, stream));
      affine_in_place<<<64, 256, 0, stream>>>(b.data(), static_cast<std::int64_t>(b.size()));
      GNNDIRECT_CUDA_TRY(cudaGetLastError());
      GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(back.data(), b.data(), b.bytes(), cudaMemcpyDeviceToHost, stream));
    }  // freed on the stream, after the copy
    GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream));
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < values.size(); ++i) { wrong += back[i] != values[i] * 3 + 1; }
    CHECK(wrong == 0);
  }
  GNNDIRECT_CUDA_TRY(cudaMemPoolDestroy(pool));
  GNNDIRECT_CUDA_TRY(cudaStreamDestroy(stream));
}

namespace {

/// Environment variable set (or unset) for a scope, restored afterwards.
struct scoped_env {
  std::string name;
  std::string old;
  bool had;
  scoped_env(const char* n, const char* value) : name(n)
  {
    const char* o = std::getenv(n);
    had = o != nullptr;
    if (had) { old = o; }
    if (value != nullptr) { ::setenv(n, value, 1); } else { ::unsetenv(n); }
  }
  ~scoped_env()
  {
    if (had) { ::setenv(name.c_str(), old.c_str(), 1); } else { ::unsetenv(name.c_str()); }
  }
};

}  // namespace

TEST_CASE("host requests beyond what the host can give now are refused before the driver")
{
  // Below the host's ceiling but above what it can give now: an allocation_error naming the
  // bytes needed and available, no driver call, nothing leaked, and the context usable.
  scoped_env const probe("GNNDIRECT_HOST_MEMORY_LIMIT", nullptr);
  gnndirect::host_memory_available const available = gnndirect::query_host_memory_available();
  std::uint64_t const ceiling = gnndirect::host_memory_limit_bytes();
  CAPTURE(available.bytes);
  CAPTURE(available.source);
  CAPTURE(ceiling);
  if (!available.known || available.bytes + (std::uint64_t{1} << 30) > ceiling) {
    MESSAGE("skipped: nothing is in use beyond 1 GiB of the ceiling, or nothing readable");
    return;
  }
  std::size_t const before = free_device_bytes();
  auto const bytes = static_cast<std::size_t>(available.bytes + (std::uint64_t{1} << 29));
  for (memory_kind kind : {memory_kind::pinned, memory_kind::managed_host}) {
    CAPTURE(gnndirect::to_string(kind));
    try {
      gnndirect::buffer<char> b(bytes, kind);
      FAIL("a request above the available bytes must be refused");
    } catch (const gnndirect::allocation_error& e) {
      std::string const what = e.what();
      CHECK(e.bytes() == bytes);
      CHECK(what.find("needs " + std::to_string(bytes) + " bytes") != std::string::npos);
      CHECK(what.find("can give") != std::string::npos);
      CHECK(what.find("cudaHostAlloc") == std::string::npos);
      CHECK(what.find("cudaMallocManaged") == std::string::npos);
    }
  }
  CHECK(cudaGetLastError() == cudaSuccess);
  GNNDIRECT_CHECK_FREE_MEMORY(free_device_bytes() + (std::size_t{4} << 20), before);
}

TEST_CASE("a 1 GiB override refuses 2 GiB of managed memory; 256 MiB is committed and usable")
{
  std::size_t const before = free_device_bytes();
  {
    scoped_env const limit("GNNDIRECT_HOST_MEMORY_LIMIT", "1G");
    CHECK_THROWS_AS(gnndirect::buffer<char>(std::size_t{2} << 30, memory_kind::managed_host),
                    gnndirect::allocation_error);
  }
  // Committed at construction (pages touched chunk by chunk): then readable by a kernel.
  gnndirect::table<std::int32_t> committed(1 << 16, 1 << 10, memory_kind::managed_host);
  check_kernel_round_trip(committed);
  GNNDIRECT_CHECK_FREE_MEMORY(free_device_bytes() + (std::size_t{4} << 20), before);
}

TEST_CASE("load_table_npy and load_csr_npy stream files into every placement")
{
  std::mt19937_64 rng(std::random_device{}());
  std::string const dir = std::filesystem::temp_directory_path().string();
  std::string const tag = std::to_string(rng()) + "_" + std::to_string(::getpid());
  std::string const table_path = dir + "/gnndirect_table_" + tag + ".npy";
  std::string const indptr_path = dir + "/gnndirect_indptr_" + tag + ".npy";
  std::string const indices_path = dir + "/gnndirect_indices_" + tag + ".npy";
  std::int64_t const rows = 1000 + static_cast<std::int64_t>(rng() % 3000);
  std::int64_t const cols = 1 + static_cast<std::int64_t>(rng() % 40);
  std::vector<float> values(static_cast<std::size_t>(rows * cols));
  for (auto& v : values) { v = static_cast<float>(rng() % 100000) * 0.25f; }
  gnndirect::save_npy(table_path, gnndirect::npy_dtype::float32, {rows, cols}, values.data());
  // A random CSR with int64 files read into int32 indices (range-checked conversion).
  std::vector<std::int64_t> indptr(static_cast<std::size_t>(rows) + 1, 0);
  for (std::int64_t v = 0; v < rows; ++v) { indptr[v + 1] = indptr[v] + static_cast<std::int64_t>(rng() % 9); }
  std::vector<std::int64_t> indices(static_cast<std::size_t>(indptr.back()));
  for (auto& i : indices) { i = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(rows)); }
  gnndirect::save_npy(indptr_path, indptr);
  gnndirect::save_npy(indices_path, indices);
  for (memory_kind kind : {memory_kind::device, memory_kind::pinned, memory_kind::managed_host}) {
    CAPTURE(gnndirect::to_string(kind));
    auto const t = gnndirect::load_table_npy<float>(table_path, kind);
    REQUIRE(t.rows() == rows);
    REQUIRE(t.cols() == cols);
    std::vector<float> back(values.size(), -1.0f);  // poisoned
    GNNDIRECT_CUDA_TRY(cudaMemcpy(back.data(), t.view().data, values.size() * sizeof(float), cudaMemcpyDefault));
    CHECK(std::memcmp(back.data(), values.data(), values.size() * sizeof(float)) == 0);
    auto const g = gnndirect::load_csr_npy<std::int64_t, std::int32_t>(indptr_path, indices_path,
                                                                      gnndirect::csr_placement{memory_kind::device, kind});
    std::vector<std::int64_t> p(indptr.size(), -1);
    std::vector<std::int32_t> i(indices.size(), -1);
    GNNDIRECT_CUDA_TRY(cudaMemcpy(p.data(), g.view().indptr, p.size() * 8, cudaMemcpyDefault));
    if (!i.empty()) { GNNDIRECT_CUDA_TRY(cudaMemcpy(i.data(), g.view().indices, i.size() * 4, cudaMemcpyDefault)); }
    CHECK(p == indptr);
    std::size_t mismatches = 0;
    for (std::size_t e = 0; e < indices.size(); ++e) { mismatches += i[e] != static_cast<std::int32_t>(indices[e]); }
    CHECK(mismatches == 0);
  }
  // A dtype mismatch is refused before anything is allocated.
  CHECK_THROWS_AS(gnndirect::load_table_npy<double>(table_path, memory_kind::pinned), gnndirect::invalid_argument);
  std::remove(table_path.c_str());
  std::remove(indptr_path.c_str());
  std::remove(indices_path.c_str());
}
