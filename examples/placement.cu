// Placement example: allocate a feature table in each memory kind, fill it on the host, read it
// from a kernel, and print what the `auto` placement chose for this GPU.
//
//   ./placement [rows] [cols]
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/placement.hpp>
#include <gnndirect/owners/table.hpp>

#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

namespace {

// One block per 256 rows; each thread sums one row (a simple reader of the table).
__global__ void row_sums(gnndirect::table_view<const float> table, double* out)
{
  std::int64_t const r = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (r >= table.rows) { return; }
  double sum = 0;
  for (std::int64_t c = 0; c < table.cols; ++c) { sum += table.row(r)[c]; }
  out[r] = sum;
}

double checksum_on_gpu(const gnndirect::table<float>& t, gnndirect::buffer<double>& sums,
                       float* milliseconds)
{
  cudaEvent_t start, stop;
  GNNDIRECT_CUDA_TRY(cudaEventCreate(&start));
  GNNDIRECT_CUDA_TRY(cudaEventCreate(&stop));
  GNNDIRECT_CUDA_TRY(cudaEventRecord(start));
  auto const blocks = static_cast<unsigned>((t.rows() + 255) / 256);
  row_sums<<<blocks, 256>>>(t.view(), sums.data());
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
  GNNDIRECT_CUDA_TRY(cudaEventRecord(stop));
  GNNDIRECT_CUDA_TRY(cudaEventSynchronize(stop));
  GNNDIRECT_CUDA_TRY(cudaEventElapsedTime(milliseconds, start, stop));
  GNNDIRECT_CUDA_TRY(cudaEventDestroy(start));
  GNNDIRECT_CUDA_TRY(cudaEventDestroy(stop));
  std::vector<double> host(static_cast<std::size_t>(t.rows()));
  GNNDIRECT_CUDA_TRY(cudaMemcpy(host.data(), sums.data(), host.size() * sizeof(double),
                                cudaMemcpyDeviceToHost));
  return std::accumulate(host.begin(), host.end(), 0.0);
}

}  // namespace

int main(int argc, char** argv)
{
  std::int64_t const rows = argc > 1 ? std::atoll(argv[1]) : 1 << 20;
  std::int64_t const cols = argc > 2 ? std::atoll(argv[2]) : 128;
  if (gnndirect::device_count() == 0) {
    std::fprintf(stderr, "placement: no CUDA device found; this example needs an NVIDIA GPU.\n");
    return 1;
  }
  try {
    gnndirect::placement_decision const choice = gnndirect::choose_host_placement();
    std::printf("auto placement for host-resident tables: %s\n  because: %s\n",
                gnndirect::to_string(choice.kind).data(), choice.reason);

    std::vector<float> features(static_cast<std::size_t>(rows * cols));
    for (std::size_t i = 0; i < features.size(); ++i) { features[i] = float(i % 1000) * 0.001f; }
    double expected = 0;
    for (float f : features) { expected += f; }

    gnndirect::buffer<double> sums(static_cast<std::size_t>(rows), gnndirect::memory_kind::device);
    std::printf("%-14s %10s %12s %s\n", "kind", "ms", "GB/s", "checksum");
    auto report = [&](const char* name, const gnndirect::table<float>& t) {
      float ms = 0;
      double const sum = checksum_on_gpu(t, sums, &ms);
      bool const ok = std::abs(sum - expected) <= 1e-6 * std::abs(expected) + 1e-3;
      std::printf("%-14s %10.3f %12.2f %s\n", name, ms, double(t.bytes()) / (ms * 1e6),
                  ok ? "ok" : "MISMATCH");
      return ok;
    };
    bool ok = true;
    for (auto kind : {gnndirect::memory_kind::device, gnndirect::memory_kind::pinned,
                      gnndirect::memory_kind::managed_host}) {
      auto t = gnndirect::table<float>::adopt_by_copy(features.data(), rows, cols, kind);
      ok = report(gnndirect::to_string(kind).data(), t) && ok;
    }
    {
      auto t = gnndirect::table<float>::adopt_by_registration(features.data(), rows, cols);
      ok = report("registered", t) && ok;
    }
    std::printf("(first touch from the GPU includes mapping cost; see bench/ for steady-state)\n");
    return ok ? 0 : 2;
  } catch (const gnndirect::error& e) {
    std::fprintf(stderr, "placement: %s\n", e.what());
    return 1;
  }
}
