// GPU test of the CPU-centric feature path: staged_gather (CPU gather into two pinned staging
// buffers, copies overlapped) against a plain host loop, on fresh random tables, with several
// batches in flight, pieces smaller than a batch, and the device output poisoned first.
#include <doctest/doctest.h>

#include <gnndirect/host/cpu_gather.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/util/worker_pool.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <random>
#include <vector>

TEST_CASE("staged_gather lands exactly the indexed rows on the device")
{
  gnndirect::host::worker_pool pool(4);
  std::mt19937_64 rng(2026);
  std::int64_t const rows = 20000;
  std::int64_t const cols = 37;  // odd row size: pieces do not align with anything
  std::vector<float> table(static_cast<std::size_t>(rows * cols));
  for (auto& x : table) { x = static_cast<float>(rng() % 1000003); }
  gnndirect::table_view<const float> const src(table.data(), rows, cols, cols, gnndirect::memory_kind::pinned);
  // 64 KiB slots: a batch of 5000 rows (740 KB) is cut into 12 pieces alternating the slots.
  gnndirect::host::staged_gather<float> staged(std::size_t{64} << 10);
  cudaStream_t stream{};
  REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
  int const batches = 4;
  std::int64_t const n = 5000;
  std::vector<std::vector<std::int64_t>> ids(batches);
  std::vector<gnndirect::buffer<float>> out;
  for (int b = 0; b < batches; ++b) {
    ids[b].resize(static_cast<std::size_t>(n));
    for (auto& i : ids[b]) { i = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(rows)); }
    out.emplace_back(static_cast<std::size_t>(n * cols), gnndirect::memory_kind::device);
    REQUIRE(cudaMemset(out.back().data(), 0xFF, out.back().bytes()) == cudaSuccess);  // poison (NaN)
  }
  // The poison goes on the legacy default stream, which `stream` (non-blocking) does not wait
  // for: without this, a late memset could land after a copy (seen under compute-sanitizer).
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (int b = 0; b < batches; ++b) {  // no synchronisation between batches: copies overlap
    staged.gather(pool, src, ids[b].data(), n, out[b].data(), stream);
  }
  staged.synchronize();
  CHECK(staged.slot_bytes() >= (std::size_t{64} << 10));
  for (int b = 0; b < batches; ++b) {
    std::vector<float> got(static_cast<std::size_t>(n * cols));
    REQUIRE(cudaMemcpy(got.data(), out[b].data(), out[b].bytes(), cudaMemcpyDeviceToHost) == cudaSuccess);
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t c = 0; c < cols; ++c) {
        wrong += got[static_cast<std::size_t>(i * cols + c)] !=
                 table[static_cast<std::size_t>(ids[b][static_cast<std::size_t>(i)] * cols + c)];
      }
    }
    CHECK(wrong == 0);
  }
  auto bad = ids[0];
  bad[4321] = rows;
  CHECK_THROWS_AS(staged.gather(pool, src, bad.data(), n, out[0].data(), stream), gnndirect::index_out_of_range);
  staged.synchronize();
  REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
}
