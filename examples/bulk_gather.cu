// Bulk gather example: the feature rows of many mini-batches gathered from a table that stays in
// host memory, the way a training loop calls it -- stream-first gather_async with a caller-owned
// workspace sized once and reused, fresh indices every batch, the index check afterwards
// (gather_check), and each batch compared with the host reference gather.
//
//   ./bulk_gather [rows] [cols] [batch] [batches]
#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/cuda_handles.hpp>
#include <gnndirect/owners/placement.hpp>
#include <gnndirect/owners/table.hpp>
#include <gnndirect/reference/gather_reference.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

int main(int argc, char** argv)
{
  std::int64_t const rows = argc > 1 ? std::atoll(argv[1]) : 1 << 20;
  std::int64_t const cols = argc > 2 ? std::atoll(argv[2]) : 128;
  std::int64_t const batch = argc > 3 ? std::atoll(argv[3]) : 100000;
  int const batches = argc > 4 ? std::atoi(argv[4]) : 8;
  if (rows < 1 || cols < 1 || batch < 1 || batches < 1) {
    std::fprintf(stderr, "bulk_gather: rows, cols, batch and batches must be >= 1\n");
    return 2;
  }
  if (gnndirect::device_count() == 0) {
    std::fprintf(stderr, "bulk_gather: no CUDA device found; this example needs an NVIDIA GPU.\n");
    return 1;
  }
  try {
    // 1. The features, in host memory placed where this GPU reads it fastest (`auto`).
    std::mt19937_64 rng(42);
    std::vector<float> host_features(static_cast<std::size_t>(rows * cols));
    for (auto& x : host_features) { x = static_cast<float>(rng() % 100000) * 1e-3f; }
    auto const where = gnndirect::choose_host_placement().kind;
    auto const features = gnndirect::table<float>::adopt_by_copy(host_features.data(), rows, cols, where);

    // 2. Per-batch storage, allocated once: indices, output rows in HBM, and the workspace
    //    (its size depends on the batch size, the table and the policy, never on the indices).
    gnndirect::buffer<std::int64_t> indices(static_cast<std::size_t>(batch), where);
    gnndirect::buffer<float> out(static_cast<std::size_t>(batch * cols), gnndirect::memory_kind::device);
    gnndirect::table_view<float> const dst(out.data(), batch, cols, cols, gnndirect::memory_kind::device);
    gnndirect::gather_policy const policy{};  // zero fields: the selector chooses (sorted order, tiles)
    gnndirect::buffer<std::byte> ws(gnndirect::gather_workspace_bytes<std::int64_t>(
                                      batch, rows, features.view().kind, static_cast<std::size_t>(cols) * sizeof(float),
                                      policy),
                                    gnndirect::memory_kind::device);
    gnndirect::workspace_view const workspace{ws.data(), ws.bytes()};
    auto const stream = gnndirect::make_non_blocking_stream();

    std::vector<float> got(out.size()), want(out.size());
    std::int64_t mismatched_batches = 0;
    double seconds = 0;
    for (int b = 0; b < batches; ++b) {
      // 3. Fresh indices (written by the CPU straight into their host-resident buffer).
      for (std::int64_t i = 0; i < batch; ++i) {
        indices.host_data()[i] = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(rows));
      }
      // 4. Enqueue: returns at once (capturable; nothing allocated). Rows cross the host link
      //    straight into `out`, read by the GPU's own threads (zero-copy).
      auto const start = std::chrono::steady_clock::now();
      gnndirect::gather_async(stream.get(), features.view(), indices.data(), batch, dst, workspace, policy);
      // 5. Waits for the stream and raises index_out_of_range for a bad index, if any.
      gnndirect::gather_check(stream.get(), workspace, rows);
      seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

      // 6. Check against the host reference gather of the same rows.
      GNNDIRECT_CUDA_TRY(cudaMemcpy(got.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost));
      gnndirect::host::gather_reference(
        gnndirect::table_view<const float>(host_features.data(), rows, cols, cols, gnndirect::memory_kind::pinned),
        indices.host_data(), batch,
        gnndirect::table_view<float>(want.data(), batch, cols, cols, gnndirect::memory_kind::pinned));
      mismatched_batches += std::memcmp(got.data(), want.data(), out.bytes()) != 0;
    }
    double const bytes = static_cast<double>(batches) * static_cast<double>(out.bytes());
    std::printf("bulk_gather: %d batches of %lld rows x %lld features from %s: %.1f GB/s, %s\n", batches,
                static_cast<long long>(batch), static_cast<long long>(cols), gnndirect::to_string(where).data(),
                bytes / seconds * 1e-9,
                mismatched_batches == 0 ? "every batch equal to the host reference" : "MISMATCH");
    return mismatched_batches == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bulk_gather: %s\n", e.what());
    return 1;
  }
}
