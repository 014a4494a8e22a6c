#pragma once
// Bodies of algorithms/machine_ceilings.cuh: the zero-copy read kernel and the measurements.

#include <gnndirect/algorithms/machine_ceilings.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/device.hpp>
#include <gnndirect/core/error.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/cuda_handles.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// Reads `count` vectors of `src` once, grid-stride, one load in flight per thread (the next
/// load issues after the previous one's data is folded in: in-order issue, no unrolling), and
/// stores the fold only if it is an unlikely value, so that the loads are kept.
template <class Vec>
GNNDIRECT_KERNEL void zero_copy_read_kernel(const Vec* src, std::int64_t count, unsigned* sink)
{
  unsigned fold = 0;
  std::int64_t const stride = std::int64_t{gridDim.x} * blockDim.x;
#pragma unroll 1
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += stride) {
    Vec const v = src[i];
    fold = (fold ^ v.x ^ v.y ^ v.z ^ v.w) * 0x9E3779B1u;
  }
  if (fold == 0x2545F491u) { *sink = fold; }
}

/// A timing event (cudaEventCreate: timing enabled).
inline event_handle timing_event()
{
  cudaEvent_t event{};
  GNNDIRECT_CUDA_TRY(cudaEventCreate(&event));
  return event_handle(event);
}

/// Seconds between two recorded events, after waiting for the second.
inline double elapsed_seconds(const event_handle& start, const event_handle& stop)
{
  GNNDIRECT_CUDA_TRY(cudaEventSynchronize(stop.get()));
  float ms = 0;
  GNNDIRECT_CUDA_TRY(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return std::max(1e-3 * static_cast<double>(ms), 1e-9);
}

}  // namespace detail

inline machine_ceilings measure_machine_ceilings(cudaStream_t stream, std::size_t bytes, resource_ref mr,
                                                 host_resource_ref host)
{
  GNNDIRECT_EXPECTS(bytes >= (std::size_t{1} << 20),
                    "measure_machine_ceilings: bytes must be >= 1 MiB, got " + std::to_string(bytes));
  int const device = require_device();
  bytes -= bytes % 16;
  std::int64_t const vectors = static_cast<std::int64_t>(bytes / 16);
  buffer<std::byte> const source(bytes, memory_kind::pinned, {}, host);
  buffer<std::byte> const target(bytes, stream, mr);
  buffer<unsigned> const sink(1, stream, mr);
  // Written once from the GPU (a few milliseconds over the link), so that every byte read is set.
  GNNDIRECT_CUDA_TRY(cudaMemsetAsync(source.data(), 0x5A, bytes, stream));
  event_handle const start = detail::timing_event();
  event_handle const stop = detail::timing_event();
  machine_ceilings out;

  double best = 0;
  for (int run = 0; run < 4; ++run) {  // run 0 warms up
    GNNDIRECT_CUDA_TRY(cudaEventRecord(start.get(), stream));
    GNNDIRECT_CUDA_TRY(cudaMemcpyAsync(target.data(), source.host_data(), bytes, cudaMemcpyHostToDevice, stream));
    GNNDIRECT_CUDA_TRY(cudaEventRecord(stop.get(), stream));
    double const seconds = detail::elapsed_seconds(start, stop);
    if (run > 0) { best = std::max(best, static_cast<double>(bytes) / seconds * 1e-9); }
  }
  out.copy_engine_gbps = best;

  int const sms = device_attribute(cudaDevAttrMultiProcessorCount, device);
  int const resident = sms * std::max(1, device_attribute(cudaDevAttrMaxThreadsPerMultiProcessor, device) / 256);
  std::vector<int> grids;
  for (int blocks = 16; blocks < resident; blocks *= 2) { grids.push_back(blocks); }
  grids.push_back(resident);
  auto const* src = reinterpret_cast<const uint4*>(source.data());
  auto read = [&](int blocks) {
    GNNDIRECT_CUDA_TRY(cudaEventRecord(start.get(), stream));
    detail::zero_copy_read_kernel<<<blocks, 256, 0, stream>>>(src, vectors, sink.data());
    GNNDIRECT_CUDA_TRY(cudaGetLastError());
    GNNDIRECT_CUDA_TRY(cudaEventRecord(stop.get(), stream));
    return static_cast<double>(bytes) / detail::elapsed_seconds(start, stop) * 1e-9;
  };
  (void)read(resident);  // warm-up: the mapping's first touch
  std::vector<double> rates;
  for (int blocks : grids) { rates.push_back(std::max(read(blocks), read(blocks))); }
  out.zero_copy_read_gbps = *std::max_element(rates.begin(), rates.end());
  for (std::size_t i = 0; i < grids.size(); ++i) {
    if (rates[i] >= 0.97 * out.zero_copy_read_gbps) {
      out.saturating_loads_in_flight = std::int64_t{grids[i]} * 256;
      break;
    }
  }
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(stream));
  return out;
}

inline machine_ceilings measured_machine_ceilings(cudaStream_t stream, resource_ref mr, host_resource_ref host)
{
  static std::mutex mutex;
  static std::map<int, machine_ceilings> cache;
  int const device = require_device();
  std::lock_guard<std::mutex> const guard(mutex);  // one measurement at a time: they share the link
  auto const hit = cache.find(device);
  if (hit != cache.end()) { return hit->second; }
  machine_ceilings const measured = measure_machine_ceilings(stream, machine_ceilings_probe_bytes, mr, host);
  return cache.emplace(device, measured).first->second;
}

inline gather_device query_gather_device(const machine_ceilings& ceilings)
{
  int const device = require_device();
  return gather_device{device_attribute(cudaDevAttrComputeCapabilityMajor, device),
                       device_attribute(cudaDevAttrComputeCapabilityMinor, device),
                       device_attribute(cudaDevAttrMultiProcessorCount, device), ceilings};
}

GNNDIRECT_NAMESPACE_END
