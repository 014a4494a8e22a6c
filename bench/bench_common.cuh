#pragma once
// Shared benchmark helpers: CUDA-event timing with medians, the link peak measured in the same
// run, GPU-generated fresh random indices, and a registry of results for same-run ratios.
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/owners/buffer.hpp>

#include "epoch/median.hpp"

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gnndirect::bench {

/// CUDA events around one region on a stream; elapsed() synchronises.
class event_timer {
 public:
  event_timer()
  {
    GNNDIRECT_CUDA_TRY(cudaEventCreate(&start_));
    GNNDIRECT_CUDA_TRY(cudaEventCreate(&stop_));
  }
  ~event_timer()
  {
    GNNDIRECT_CUDA_TRY_NOTHROW(cudaEventDestroy(start_));
    GNNDIRECT_CUDA_TRY_NOTHROW(cudaEventDestroy(stop_));
  }
  event_timer(const event_timer&) = delete;
  event_timer& operator=(const event_timer&) = delete;
  void start(cudaStream_t s) { GNNDIRECT_CUDA_TRY(cudaEventRecord(start_, s)); }
  void stop(cudaStream_t s) { GNNDIRECT_CUDA_TRY(cudaEventRecord(stop_, s)); }
  /// Seconds between start and stop (waits for stop).
  double seconds()
  {
    GNNDIRECT_CUDA_TRY(cudaEventSynchronize(stop_));
    float ms = 0;
    GNNDIRECT_CUDA_TRY(cudaEventElapsedTime(&ms, start_, stop_));
    return ms * 1e-3;
  }

 private:
  cudaEvent_t start_{};
  cudaEvent_t stop_{};
};

/// Median of per-iteration times (the figure every table reports; the demo's definition).
inline double median(std::vector<double> values) { return gnndirect_demo::median_of(std::move(values)); }

/// Medians (GB/s) of benchmarks already run in this process, by key, for same-run ratios.
inline std::map<std::string, double>& results()
{
  static std::map<std::string, double> table;
  return table;
}

/// Records a benchmark's median rate under `key` and reports ratios against the listed baselines
/// that ran earlier in the same process (counter "vs_<baseline>").
inline void record_rate(benchmark::State& state, const std::string& key, double gb_per_s,
                        const std::vector<std::string>& baselines = {})
{
  results()[key] = gb_per_s;
  state.counters["GBps"] = gb_per_s;
  auto const peak = results().find("link_peak");
  if (peak != results().end() && peak->second > 0) { state.counters["pct_link"] = 100.0 * gb_per_s / peak->second; }
  // Both peaks of this run in every row that has them (bench_gather's link_peak and zero_copy_peak):
  // the copy engines' and the SMs' own sequential zero-copy read.
  auto const zero_copy = results().find("zero_copy_peak");
  if (zero_copy != results().end() && zero_copy->second > 0) {
    state.counters["zero_copy_peak_GBps"] = zero_copy->second;
    state.counters["pct_zero_copy"] = 100.0 * gb_per_s / zero_copy->second;
    if (peak != results().end()) { state.counters["link_peak_GBps"] = peak->second; }
  }
  for (const std::string& name : baselines) {
    auto const base = results().find(name);
    if (base != results().end() && base->second > 0) { state.counters["vs_" + name] = gb_per_s / base->second; }
  }
}

/// Uniform random indices in [0, rows) from (seed, i): fresh every iteration, generated on the GPU.
template <class Index>
__global__ void random_indices_kernel(Index* out, std::int64_t count, std::int64_t rows, std::uint64_t seed)
{
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(i + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    out[i] = static_cast<Index>(__umul64hi(z, static_cast<std::uint64_t>(rows)));
  }
}

template <class Index>
void fill_random_indices(cudaStream_t s, Index* out, std::int64_t count, std::int64_t rows, std::uint64_t seed)
{
  random_indices_kernel<<<1024, 256, 0, s>>>(out, count, rows, seed);
  GNNDIRECT_CUDA_TRY(cudaGetLastError());
}

/// Pinned host-to-device cudaMemcpy rate in GB/s (decimal): the link peak every result is
/// compared with. Median of `repeats` copies of `bytes`.
inline double measure_link_peak(std::size_t bytes = std::size_t{256} << 20, int repeats = 11)
{
  gnndirect::buffer<std::byte> host(bytes, memory_kind::pinned);
  gnndirect::buffer<std::byte> device(bytes, memory_kind::device);
  std::fill_n(reinterpret_cast<unsigned char*>(host.host_data()), bytes, static_cast<unsigned char>(0x5A));
  event_timer timer;
  std::vector<double> rates;
  for (int r = 0; r < repeats; ++r) {
    timer.start(nullptr);
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(device.data(), host.host_data(), bytes, cudaMemcpyHostToDevice, nullptr));
    timer.stop(nullptr);
    rates.push_back(bytes / timer.seconds() * 1e-9);
  }
  return median(rates);
}

}  // namespace gnndirect::bench
