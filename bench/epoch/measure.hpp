#pragma once
// The epoch benchmark (bench/epoch/epoch.cu), measurements shared by the paths: the host link's peak.
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/owners/buffer.hpp>

#include "common.hpp"
#include "median.hpp"
#include "progress.hpp"

namespace gnndirect_demo {

// ---------------------------------------------------------------------------------------------
// Measurements

/// User + system CPU seconds of the whole process (all threads) so far.
inline double process_cpu_seconds()
{
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto const seconds = [](timeval t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

/// Wall-clock time now in seconds since the Unix epoch: the time base of an external power log
/// (nvidia-smi's timestamps, a RAPL sampler), unlike the steady clock the durations use.
inline double unix_now()
{
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

/// Wall time and CPU time of one epoch, measured from construction to stop().
class epoch_meter {
 public:
  epoch_meter() : start_(clock_type::now()), cpu_start_(process_cpu_seconds()) {}
  void stop()
  {
    seconds = seconds_since(start_);
    core_seconds = process_cpu_seconds() - cpu_start_;
  }
  double seconds{0};
  double core_seconds{0};

 private:
  clock_type::time_point start_;
  double cpu_start_;
};

/// Wall and CPU seconds of each epoch of a path. A path reports their medians: one noisy epoch
/// on a shared machine does not move the figure.
struct epoch_log {
  std::vector<double> seconds;
  std::vector<double> core_seconds;

  void add(double epoch_seconds, double epoch_core_seconds)
  {
    seconds.push_back(epoch_seconds);
    core_seconds.push_back(epoch_core_seconds);
  }
  void add(const epoch_meter& m) { add(m.seconds, m.core_seconds); }
  double median_seconds() const { return median_of(seconds); }
  double median_core_seconds() const { return median_of(core_seconds); }
};

/// Median pinned host-to-device cudaMemcpy bandwidth of 256 MiB, in bytes/s: the link peak that
/// every path is compared with, measured in this run.
inline double measure_link_peak()
{
  std::size_t const bytes = std::size_t{256} << 20;
  gnndirect::buffer<std::byte> host(bytes, memory_kind::pinned);
  gnndirect::buffer<std::byte> device(bytes, memory_kind::device);
  std::memset(host.host_data(), 1, bytes);
  cudaEvent_t start{};
  cudaEvent_t stop{};
  GNNDIRECT_CUDA_TRY(cudaEventCreate(&start));
  GNNDIRECT_CUDA_TRY(cudaEventCreate(&stop));
  std::vector<double> rates;
  for (int i = 0; i < 8; ++i) {
    GNNDIRECT_CUDA_TRY(cudaEventRecord(start));
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(device.data(), host.host_data(), bytes, cudaMemcpyHostToDevice));
    GNNDIRECT_CUDA_TRY(cudaEventRecord(stop));
    GNNDIRECT_CUDA_TRY(cudaEventSynchronize(stop));
    float ms = 0;
    GNNDIRECT_CUDA_TRY(cudaEventElapsedTime(&ms, start, stop));
    if (i > 0) { rates.push_back(static_cast<double>(bytes) / (1e-3 * ms)); }  // first: warm-up
  }
  GNNDIRECT_CUDA_TRY(cudaEventDestroy(start));
  GNNDIRECT_CUDA_TRY(cudaEventDestroy(stop));
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}


}  // namespace gnndirect_demo
